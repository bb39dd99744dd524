/* `perfscope report --format text`: the same numbers as the JSON report, laid out for a person — run summary,
 * steps and their breakdown, the verdict with evidence and fixes, GPU breakdowns per device, top kernels,
 * copies and findings. Durations print in ms with µs precision. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

#define MS(ns) ((double)(ns) / 1e6)

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Print at most `width` characters of a name, marking a cut with "...". */
static void name_col(FILE *f, const char *s, int width)
{
    int len = (int)strlen(s);
    if (len <= width)
        fprintf(f, "%-*s", width, s);
    else
        fprintf(f, "%.*s...", width - 3, s);
}

static void run_summary(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fprintf(f, "perfscope report: %s (%s trace)\n\n", m->path, ps_format_name(m->format));
    fprintf(f, "Run: %.3f ms, %zu process%s, %zu thread%s, %zu events (%zu GPU rows, %zu API calls, %zu ranges)\n",
            MS(r->run_end_ns - r->run_start_ns), m->procs.n, m->procs.n == 1 ? "" : "es", m->threads.n,
            m->threads.n == 1 ? "" : "s", r->nevents, m->gpu.n, m->api.n, m->ranges.n);
    if (m->rank >= 0)
        fprintf(f, "Rank %d of %d\n", m->rank, m->world_size);
    if (m->dropped_records > 0)
        fprintf(f, "Warning: %lld records were dropped while recording; numbers may be low\n",
                (long long)m->dropped_records);
    if (m->unplaced_events > 0)
        fprintf(f, "Warning: %lld events of the trace could not be placed in the model and are not counted\n",
                (long long)m->unplaced_events);
    if (m->meta.n) {
        fprintf(f, "Recording metadata:\n");
        for (size_t i = 0; i < m->meta.n; i++)
            fprintf(f, "  %s = %s\n", m->meta.v[i].key, m->meta.v[i].value);
    }
    if (!r->has_gpu) {
        fprintf(f, "No GPU rows (kernels, copies, memsets) in this trace: the host is treated as the device — ranges "
                   "matching --data-range count as DataLoader, --copy-range as Memcpy, the rest of each step as "
                   "compute (Kernel); GPU utilisation is not defined.\n");
        if (m->format == PS_FORMAT_PERFSCOPE)
            fprintf(f, "Whether CUDA was injected and CUPTI ran is recorded in the metadata above.\n");
    }
}

static void steps_table(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fputc('\n', f);
    if (r->whole_run)
        fprintf(f, "Steps: no range matches --step-range; the whole run is one window.\n");
    else
        fprintf(f, "Steps: %zu analysed of %zu step ranges found in process %u (%s)\n", r->nsteps, r->nsteps_host,
                r->pid, r->has_gpu ? "windows as the PyTorch profiler's TensorBoard plugin extends them to the GPU work "
                                     "they launched"
                                   : "windows are the host ranges");
    fprintf(f, "\nStep-time breakdown (ms; each instant goes to the highest-priority category active%s)\n",
            r->opts.compat_tb ? "; --compat tb: tb's communication rule and time rounding" : "");
    fprintf(f, "%4s %-18s %10s", "#", "step", "duration");
    for (int c = 0; c < PS_CAT_N; c++)   /* without GPU rows, Kernel is the host's compute */
        fprintf(f, " %10s", c == PS_CAT_COMM ? "Comm" : c == PS_CAT_KERNEL && !r->has_gpu ? "Compute" : ps_cat_label[c]);
    fprintf(f, " %10s  %s\n", "sync", "verdict");
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct ps_step *s = &r->steps[i];
        fprintf(f, "%4zu ", i + 1);
        name_col(f, s->name == PS_NONE ? "(whole run)" : ps_model_str(m, s->name), 18);
        fprintf(f, " %10.3f", MS(s->end_ns - s->start_ns));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %10.3f", MS(s->cat_ns[c]));
        fprintf(f, " %10.3f  %s\n", MS(s->sync_ns), ps_bottleneck_name[s->bottleneck]);
    }
    fprintf(f, "%4s %-18s %10.3f", "", "average", MS(r->avg_dur_ns));
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10.3f", MS(r->avg.cat_ns[c]));
    fprintf(f, " %10.3f  %s\n", MS(r->avg.sync_ns), ps_bottleneck_name[r->bottleneck]);
    fprintf(f, "%4s %-18s %10s", "", "share", "");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %9.2f%%", pct(r->avg.cat_ns[c], r->avg_dur_ns));
    fprintf(f, " %9.2f%%\n", pct(r->avg.sync_ns, r->avg_dur_ns));
}

static void verdict(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fprintf(f, "\nVerdict: %s", ps_bottleneck_name[r->bottleneck]);
    if (r->bottleneck != PS_BN_UNKNOWN)
        fprintf(f, " (%.1f %% of the average step)", 100.0 * r->share);
    if (!isnan(r->gpu_util))
        fprintf(f, "; GPU utilisation %.2f %%", 100.0 * r->gpu_util);
    fputc('\n', f);
    if (r->nevidence)
        fprintf(f, "Evidence (rows inside the analysed steps; time summed over rows, overlaps counted twice):\n");
    for (size_t i = 0; i < r->nevidence; i++) {
        const struct ps_evidence *e = &r->evidence[i];
        fprintf(f, "  %-6s ", e->kind);
        name_col(f, ps_model_str(m, e->name), 60);
        fprintf(f, " %7lld x  %10.3f ms\n", (long long)e->count, MS(e->total_ns));
    }
    if (r->nrecs)
        fprintf(f, "What to do:\n");
    for (size_t i = 0; i < r->nrecs; i++)
        fprintf(f, "  - %s\n", r->recs[i]);
}

static void gpu(FILE *f, const struct ps_report *r)
{
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        fprintf(f, "\nGPU %d: %lld kernels (%.3f ms), %lld copies (%.1f MB), %lld memsets", d->device,
                (long long)d->kernel_count, MS(d->kernel_ns), (long long)d->memcpy_count,
                (double)d->memcpy_bytes / 1e6, (long long)d->memset_count);
        if (!isnan(d->gpu_util))
            fprintf(f, "; utilisation in the steps %.2f %%", 100.0 * d->gpu_util);
        fputc('\n', f);
        if (d->hta_span_ns > 0)
            fprintf(f, "  HTA temporal breakdown over %.3f ms active span: idle %.2f %%, compute %.2f %%, "
                       "non-compute %.2f %%\n",
                    MS(d->hta_span_ns), pct(d->hta_idle_ns, d->hta_span_ns), pct(d->hta_compute_ns, d->hta_span_ns),
                    pct(d->hta_non_compute_ns, d->hta_span_ns));
        if (d->tl_total_ns > 0)
            fprintf(f, "  TraceLens timeline over %.3f ms: computation %.3f ms (%.2f %%), exposed comm %.3f ms, "
                       "exposed memcpy %.3f ms, idle %.3f ms (%.2f %%)\n",
                    MS(d->tl_total_ns), MS(d->tl_computation_ns), pct(d->tl_computation_ns, d->tl_total_ns),
                    MS(d->tl_exposed_comm_ns), MS(d->tl_exposed_memcpy_ns), MS(d->tl_idle_ns),
                    pct(d->tl_idle_ns, d->tl_total_ns));
        for (size_t k = 0; k < r->nidle; k++) {
            const struct ps_idle_stat *s = &r->idle[k];
            if (s->device == d->device)
                fprintf(f, "  stream %-6lld idle: host_wait %.3f ms, kernel_wait %.3f ms, other %.3f ms\n",
                        (long long)s->stream, MS(s->host_wait_ns), MS(s->kernel_wait_ns), MS(s->other_ns));
        }
    }
    if (!isnan(r->comm_comp_overlap))
        fprintf(f, "Communication overlapped by computation (HTA): %.2f %%\n", 100.0 * r->comm_comp_overlap);
}

static void summaries(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    if (top) {
        fprintf(f, "\nTop %zu of %zu kernels by total time (ms)\n", top, r->nkernels);
        fprintf(f, "%-60s %8s %11s %9s %9s %9s %9s\n", "kernel", "count", "total", "avg", "median", "min", "max");
    }
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        name_col(f, ps_model_str(m, k->name), 60);
        fprintf(f, " %8lld %11.3f %9.3f %9.3f %9.3f %9.3f\n", (long long)k->count, MS(k->total_ns),
                MS(k->total_ns / k->count), MS(k->median_ns), MS(k->min_ns), MS(k->max_ns));
    }
    if (r->ncopies) {
        fprintf(f, "\nCopies and memsets\n%-8s %-10s %-10s %8s %12s %11s %8s\n", "kind", "from", "to", "count", "MB",
                "ms", "GB/s");
    }
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        fprintf(f, "%-8s %-10s %-10s %8lld %12.3f %11.3f ", ps_copy_kind_name(c),
                c->kind == PS_GPU_MEMCPY ? ps_mem_kind_name(c->src_kind) : "-", ps_mem_kind_name(c->dst_kind),
                (long long)c->count, (double)c->bytes / 1e6, MS(c->total_ns));
        if (c->total_ns > 0)
            fprintf(f, "%8.2f\n", (double)c->bytes / (double)c->total_ns);
        else
            fprintf(f, "%8s\n", "N/A");
    }
    if (r->nfindings)
        fprintf(f, "\nFindings\n");
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fprintf(f, "  [%s] %s: %s\n", g->severity, g->rule, g->summary);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            fputs("      ", f);
            name_col(f, w->name != PS_NONE ? ps_model_str(m, w->name) : !strcmp(g->rule, "gpu_gap") ? "(GPU idle)" : "(time slice)",
                     50);
            if (w->start_ns >= 0)
                fprintf(f, "  at %.3f ms", MS(w->start_ns - r->run_start_ns));
            else
                fprintf(f, "  %lld x", (long long)w->count);
            fprintf(f, "  %.3f ms", MS(w->dur_ns));
            if (w->bytes >= 0)
                fprintf(f, "  %.3f MB", (double)w->bytes / 1e6);
            fputc('\n', f);
        }
    }
}

static void ranks(FILE *f, const struct ps_report *r)
{
    if (r->nranks < 2)
        return;
    fprintf(f, "\nRanks: %zu processes hold steps (rank = order of pid; step averages in ms)\n", r->nranks);
    fprintf(f, "%4s %8s %6s %10s", "rank", "pid", "steps", "duration");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10s", c == PS_CAT_COMM ? "Comm" : ps_cat_label[c]);
    fprintf(f, "  %s\n", "verdict");
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        fprintf(f, "%4zu %8u %6zu %10.3f", i, k->pid, k->nsteps, MS(k->avg_dur_ns));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %10.3f", MS(k->cat_ns[c]));
        fprintf(f, "  %s\n", ps_bottleneck_name[k->bottleneck]);
    }
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        fprintf(f, "Straggler: rank %zu (pid %u) is %.1f %% slower than the median rank, most of it in %s\n", g->rank,
                g->pid, 100.0 * g->slower_by, ps_cat_label[g->category]);
    }
}

int ps_report_write_text(const struct ps_report *r, FILE *f)
{
    run_summary(f, r);
    steps_table(f, r);
    verdict(f, r);
    ranks(f, r);
    gpu(f, r);
    summaries(f, r);
    return ferror(f) ? -EIO : 0;
}
