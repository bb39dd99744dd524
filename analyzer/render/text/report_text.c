/* `perfscope report --format text`: the same numbers as the JSON report, laid out for a person. The answer first
 * (docs/report.md "Text report"): the run and its warnings, the steps and how much of the run they cover, the
 * verdict, where the average step goes, evidence, what to do and the warnings on the trace's scope; then the detail
 * sections --sections asks for (render.h enum ps_text_section): the steps table, the Python hook's view, ranks, GPU
 * breakdowns per device, memory, operator efficiency, top kernels, copies and findings. Durations print in ms with
 * µs precision. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/ranks.h"
#include "render/render.h"
#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

const char *const ps_text_section_names[8] = { "steps", "pytorch", "gpu", "memory", "ops", "kernels", "copies",
                                               "findings" };
#define put_name ps_put_name

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/* A share with one decimal in a 7-character column (the steps and ranks tables). */
static void put_pct1(FILE *f, int64_t part, int64_t whole)
{
    double p = pct(part, whole);
    isnan(p) ? fprintf(f, " %7s", "N/A") : fprintf(f, " %7.1f", p);
}

/* The per-step tables' columns: the verdict's groups (docs/report.md), as a share of the step. */
static void group_header(FILE *f, const struct ps_report *r)
{
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        fprintf(f, " %7s", g == PS_BN_DATA ? "data" : g == PS_BN_COMM ? "comm"
                                                    : ps_words_bottleneck_name(g, r->has_gpu));
}

/* The verdict's groups (analyses/verdict.h), as shares of what they sum to: the window less the work queued before
 * the trace that the verdict left out. */
static void group_row(FILE *f, const int64_t *group_ns, int64_t seen_ns)
{
    for (int i = 0; i < PS_BN_UNKNOWN; i++)
        put_pct1(f, group_ns[i], seen_ns);
}

#define OPEN_THREADS_SHOWN 8
#define OPEN_NAMES_SHOWN 12

/* NVTX ranges that never ended: where the program was when it crashed, was killed or exited. One line per
 * thread (the first OPEN_THREADS_SHOWN), its ranges outermost first ("step > forward"), domain in brackets. */
static void open_ranges(FILE *f, const struct ps_report *r)
{
    const struct ps_open_range *v = r->trace.open;
    size_t n = r->trace.nopen, threads = 0;
#define SAME_THREAD(a, b) ((a)->pid == (b)->pid && (a)->tid == (b)->tid)
    for (size_t i = 0; i < n && threads < OPEN_THREADS_SHOWN; threads++) {
        const struct ps_open_range *first = &v[i];
        if (first->tid >= 0)
            fprintf(f, "  pid %lld tid %lld: ", (long long)first->pid, (long long)first->tid);
        else
            fputs("  (no thread): ", f);
        size_t k = 0;
        for (; i < n && SAME_THREAD(&v[i], first); i++, k++) {
            const struct ps_open_range *o = &v[i];
            if (k >= OPEN_NAMES_SHOWN)
                continue;
            fputs(k ? " > " : "", f);
            put_name(f, o->name ? o->name : "(no text)", 0);     /* mirrored without its inline text */
            if (o->domain) {
                fputs(" [", f);
                put_name(f, o->domain, 0);
                fputs("]", f);
            }
        }
        if (k > OPEN_NAMES_SHOWN)
            fprintf(f, " > ... (%zu more)", k - OPEN_NAMES_SHOWN);
        fputs("\n", f);
    }
    size_t all_threads = 1;             /* sorted by thread: count the changes */
    for (size_t i = 1; i < n; i++)
        all_threads += !SAME_THREAD(&v[i], &v[i - 1]);
#undef SAME_THREAD
    if (all_threads > threads)
        fprintf(f, "  ... and %zu more threads (all in --format json: source.unterminated_ranges)\n",
                all_threads - threads);
}

/* Alerts ("WARNING:") and warnings ("Warning:"), in the report's order: a user sees them first. */
static void warnings(FILE *f, const struct ps_report *r, int color)
{
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level == PS_MSG_NOTE)
            continue;
        ps_sgr(f, color, g->level == PS_MSG_ALERT ? PS_SGR_RED : PS_SGR_YELLOW);
        fputs(g->level == PS_MSG_ALERT ? "WARNING:" : g->level == PS_MSG_NOTICE ? "NOTE:" : "Warning:", f);
        ps_sgr_end(f, color);
        fputc(' ', f);
        ps_put_text(f, g->text);   /* a message may quote names from the trace */
        if (!strcmp(g->code, "unterminated_ranges")) {
            fputs(":\n", f);
            open_ranges(f, r);
        } else {
            fputc('\n', f);
        }
    }
}

/* Print the note `code` as "<prefix><text>\n" when the report has it. */
static void note(FILE *f, const struct ps_report *r, const char *code, const char *prefix)
{
    const struct ps_message *g = ps_report_message(r, code);
    if (g) {
        fputs(prefix, f);
        ps_put_text(f, g->text);
        fputc('\n', f);
    }
}

/* The few metadata facts a user needs (all of it is in the JSON's run.meta). */
static void short_meta(FILE *f, const struct ps_report *r)
{
    const struct ps_run_facts *x = &r->facts;
    const char *const vals[] = { x->command, x->host, x->started }, *const labels[] = { "Command", "Host", "Started" };
    for (size_t i = 0; i < 3; i++)
        if (vals[i]) {
            fprintf(f, "%s: ", labels[i]);
            ps_put_text(f, *vals[i] ? vals[i] : "unknown (empty in PERFSCOPE_META)");
            fputc('\n', f);
        }
    if (x->program_ns >= 0)
        fprintf(f, "Program ran: %.3f s\n", (double)x->program_ns / 1e9);
    else if (x->program_ns == PS_UNKNOWN)
        fprintf(f, "Program ran: unknown (PERFSCOPE_META duration_ns is not a duration in ns)\n");
    if (x->exit_status[0]) {
        fputs("Exit status: ", f);
        ps_put_text(f, x->exit_status);
        fputc('\n', f);
    }
    if (x->ncuda) {
        fprintf(f, "CUDA/CUPTI state:");
        for (size_t k = 0; k < x->ncuda; k++) {
            fprintf(f, "%s ", k ? "," : "");
            ps_put_text(f, *x->cuda[k].state ? x->cuda[k].state : "unknown");
            fprintf(f, " in %d process%s", x->cuda[k].processes, x->cuda[k].processes == 1 ? "" : "es");
        }
        fputc('\n', f);
    }
    const struct ps_trace_info *t = &r->trace;
    if (t->samples.n > 0) {
        int64_t wall = t->samples.last_ns - t->samples.first_ns;
        fprintf(f, "Host samples: %lld over %.3f s, CPU time %.3f s", (long long)t->samples.n, (double)wall / 1e9,
                (double)t->samples.cpu_ns / 1e9);
        if (wall > 0)
            fprintf(f, " (%.2f cores on average)", (double)t->samples.cpu_ns / (double)wall);
        fputc('\n', f);
    }
    if (t->nmeta)
        fprintf(f, "(all %zu metadata entries: run.meta in --format json)\n", t->nmeta);
}

static void run_summary(FILE *f, const struct ps_report *r, int color)
{
    char line[256];
    fputs("perfscope report: ", f);
    put_name(f, r->trace.path, 0);
    fprintf(f, " (%s trace)\n\n", r->trace.format);
    warnings(f, r, color);
    ps_words_run_line(line, sizeof line, r);
    fprintf(f, "Run: %s\n", line);
    int32_t rank = r->facts.rank, world = r->facts.world_size;
    char world_buf[16];
    snprintf(world_buf, sizeof world_buf, "%d", world);
    if (r->facts.launcher_ranks >= 2)
        fprintf(f, "Launcher trace: %zu ranks, each a process of this trace (world size %s)\n", r->facts.launcher_ranks,
                world > 0 ? world_buf : "unknown");
    else if (rank >= 0 && world > 0)
        fprintf(f, "Rank %d of %d\n", rank, world);
    else if (rank >= 0)
        fprintf(f, "Rank %d (world size unknown)\n", rank);
    short_meta(f, r);
    note(f, r, "nothing_to_break_down", "\n");
    note(f, r, "no_gpu_rows", "");
    note(f, r, "cuda_state", "");
}

static void step_row(FILE *f, const struct ps_report *r, size_t i)
{
    const struct ps_step *s = &r->steps[i];
    fprintf(f, "%4zu ", i + 1);
    char made_up[32];
    const char *name = ps_words_step_name(made_up, sizeof made_up, r, i);
    size_t len = ps_names_base_len(name);   /* "ProfilerStep#3, op_id = 17" shows as ProfilerStep#3 */
    char *base = name[len] ? strndup(name, len) : NULL;
    put_name(f, base ? base : name, 18);
    free(base);
    fprintf(f, " %11.3f", MS(s->end_ns - s->start_ns));
    group_row(f, s->group_ns, s->seen_ns);
    fprintf(f, "  %s\n", ps_words_bottleneck(r, s->bottleneck));
}

/* The average step in tb's eight categories (ms and share), the sync part beside them, and the verdict's
 * groups (docs/report.md), so that the verdict's `host` share visibly differs from Runtime + CPU Exec + Other by
 * the sync time. */
static void average_table(FILE *f, const struct ps_report *r)
{
    const int64_t *c = r->avg.cat_ns, d = r->avg_dur_ns;
    fprintf(f, "\n%s: %.3f ms in the PyTorch profiler's categories (each instant goes to the "
               "highest-priority category active%s)\n", r->whole_run ? "The run as one window" : "Average step", MS(d),
            r->opts.compat_tb ? "; --compat tb: tb's communication rule and time rounding" : "");
    note(f, r, "compat_tb_no_comm", "Note: ");
    for (int k = 0; k < PS_CAT_N; k++) {
        fprintf(f, "  %-16s %12.3f ms", ps_words_cat_label(k, r->has_gpu), MS(c[k]));
        ps_text_share(f, c[k], d, 8);
        fputc('\n', f);
    }
    fprintf(f, "  %-16s %12.3f ms", "(of which sync)", MS(r->avg.sync_ns));
    ps_text_share(f, r->avg.sync_ns, d, 8);
    fputs("  part of Runtime + CPU Exec + Other\n", f);
    if (d <= 0) {
        fputs("The window is zero-length: its shares are N/A (null in --format json).\n", f);
        return;
    }
    fprintf(f, "(sync) is not a category of its own: it is the part of Runtime + CPU Exec + Other (\"of which sync\") "
               "in which the GPU idles while the host is in a synchronising call or between its return and the next "
               "GPU activity, so the eight shares above sum to 100 %%. The verdict weighs Where the step goes "
               "instead.\n");
    /* the groups the verdict weighed (analyses/verdict.h): of the step less the work queued before the trace */
    int64_t left_out = r->verdict_left_out_ns;
    const char *step = r->causes.startup_steps ? "average steady step" : "average step";
    if (left_out > 0)
        fprintf(f, "The verdict groups where the %s goes less %.3f ms of work queued before the trace as: %s",
                step, MS(left_out), ps_words_bottleneck(r, PS_BN_KERNEL));
    else
        fprintf(f, "The verdict groups where the %s goes as: %s", step, ps_words_bottleneck(r, PS_BN_KERNEL));
    for (int k = 0; k < PS_BN_UNKNOWN; k++) {
        if (k)
            fprintf(f, ", %s", ps_bottleneck_name[k]);
        ps_text_share(f, r->avg.group_ns[k], r->avg.seen_ns, 0);
    }
    fputs(r->has_gpu ? " (host = launch overhead + host compute + unexplained; communication includes waiting on a "
                       "stream).\n"
                     : ".\n", f);
}

/* Which steps were analysed and how much of the run they cover (steps/coverage.c): always, above the verdict. */
static void steps_line(FILE *f, const struct ps_report *r)
{
    if (r->nothing_to_break_down)
        return;   /* run_summary said why there is nothing to break down */
    fputc('\n', f);
    if (r->whole_run)
        note(f, r, "no_steps", "");
    else if (r->steps_inferred)
        note(f, r, "steps_inferred", "");
    else
        fprintf(f, "Steps: %zu analysed of %zu step ranges found; process %u (%s)\n", r->nsteps, r->step_ranges_found,
                r->pid, r->has_gpu ? "windows as the PyTorch profiler's TensorBoard plugin extends them to the GPU work "
                                     "they launched"
                                   : "windows are the host ranges");
    const struct ps_step_coverage *c = &r->coverage;
    if (c->computed && c->run_ns > 0)
        fprintf(f, "  The %zu step%s %.1f %% of the run (%.3f of %.3f ms).\n", r->nsteps,
                r->nsteps == 1 ? " covers" : "s cover",
                pct(c->steps_ns, c->run_ns), MS(c->steps_ns), MS(c->run_ns));
    note(f, r, "last_step_left_out", "  ");
    note(f, r, "steps_inference_unused", "  ");
    note(f, r, "step_threads", "");
}

/* The slowest step, under the steps table (the table shows the 5 slowest among its rows when it cuts some). */
static void slowest_step(FILE *f, const struct ps_report *r)
{
    size_t k = ps_words_slowest_step(r);
    if (k >= r->nsteps)
        return;
    char made_up[32];
    const char *name = ps_words_step_name(made_up, sizeof made_up, r, k);
    fprintf(f, "Slowest: step %zu (", k + 1);
    ps_text_base_name(f, name);
    fprintf(f, "), %.3f ms\n", MS(r->steps[k].end_ns - r->steps[k].start_ns));
}

/* --sections steps: every step's row in the verdict's groups and the average step in tb's categories. */
static void steps_table(FILE *f, const struct ps_report *r, int color)
{
    if (r->nothing_to_break_down)
        return;
    if (!r->whole_run) {
        ps_sgr(f, color, PS_SGR_BOLD);
        fprintf(f, "\nStep-time breakdown per step (%% of the step in the verdict's groups)");
        ps_sgr_end(f, color);
        fprintf(f, "\n%4s %-18s %11s", "#", "step", "duration ms");
        group_header(f, r);
        fputs("  verdict\n", f);
        unsigned char *show = malloc(r->nsteps ? r->nsteps : 1);
        size_t shown = show ? ps_words_steps_shown(show, r) : 0;
        int gap = 0;
        for (size_t i = 0; i < r->nsteps && show; i++) {
            if (show[i]) {
                if (gap)
                    fprintf(f, "%4s ...\n", "");
                gap = 0;
                step_row(f, r, i);
            } else {
                gap = 1;
            }
        }
        free(show);
        fprintf(f, "%4s %-18s %11.3f", "", "average", MS(r->avg_dur_ns));
        group_row(f, r->avg.group_ns, r->avg.seen_ns);
        fprintf(f, "  %s\n", ps_words_bottleneck(r, r->bottleneck));
        slowest_step(f, r);
        if (shown < r->nsteps)
            fprintf(f, "%zu more steps (shown: the first 10, the last 5 and the 5 slowest): all in --format json, or "
                       "list them with --all-steps\n", r->nsteps - shown);
    }
    average_table(f, r);
}

/* TraceLens' GPU timeline: linked events, all devices merged; the recompute split as rows of their own. */
static void print_tracelens(FILE *f, const struct ps_report *r)
{
    static const char *const set[] = { "", " (not recompute)", " (recompute)" };
    if (r->ntl == 0 || r->tl[0].events == 0)
        return;
    fprintf(f, "\nTraceLens GPU timeline (all devices merged; %lld GPU events linked to a launch in the trace by %s, "
               "%lld unlinked left out):\n", (long long)r->tl[0].events,
            r->tl_by_flows ? "ac2g flow" : "correlation id", (long long)r->tl_unlinked);
    for (size_t i = 0; i < r->ntl; i++) {
        const struct ps_tl_row *t = &r->tl[i];
        fprintf(f, "  %lld events%s over %.3f ms: computation %.3f ms (%.2f %%), exposed comm %.3f ms, exposed memcpy "
                   "%.3f ms, idle %.3f ms (%.2f %%)\n", (long long)t->events, set[t->set], MS(t->total_ns),
                MS(t->computation_ns), pct(t->computation_ns, t->total_ns), MS(t->exposed_comm_ns),
                MS(t->exposed_memcpy_ns), MS(t->idle_ns), pct(t->idle_ns, t->total_ns));
    }
}

static void gpu(FILE *f, const struct ps_report *r)
{
    print_tracelens(f, r);
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
            fprintf(f, "  perfscope per-device timeline (every GPU event; TraceLens' categories) over %.3f ms: computation %.3f ms (%.2f %%), exposed comm %.3f ms, "
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
    note(f, r, "hta_rounding", "Note: ");
}

/* --sections kernels, copies, findings. */
static void summaries(FILE *f, const struct ps_report *r, int color, unsigned sec)
{
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    if (!(sec & PS_TEXT_KERNELS))
        top = 0;
    if (top) {
        ps_sgr(f, color, PS_SGR_BOLD);
        fprintf(f, "\nTop %zu of %zu kernel names by total time (ms)", top, r->nkernels);
        ps_sgr_end(f, color);
        fprintf(f, "\n%8s %11s %9s %9s %9s %9s  %s\n", "count", "total", "avg", "median", "min", "max", "kernel");
    }
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        fprintf(f, "%8lld %11.3f %9.3f %9.3f %9.3f %9.3f", (long long)k->count, MS(k->total_ns),
                MS(k->total_ns / k->count), MS(k->median_ns), MS(k->min_ns), MS(k->max_ns));
        ps_text_row_name(f, 60, ps_words_name(r, k->name, ""));
    }
    size_t ncopies = sec & PS_TEXT_COPIES ? r->ncopies : 0, nfindings = sec & PS_TEXT_FINDINGS ? r->nfindings : 0;
    if (ncopies) {
        ps_sgr(f, color, PS_SGR_BOLD);
        fprintf(f, "\nCopies and memsets");
        ps_sgr_end(f, color);
        fprintf(f, "\n%-8s %-10s %-10s %8s %12s %11s %8s\n", "kind", "from", "to", "count", "MB", "ms", "GB/s");
    }
    for (size_t i = 0; i < ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        fprintf(f, "%-8s %-10s %-10s %8lld %12.3f %11.3f ", ps_copy_kind_name(c),
                ps_copy_src_mem_name(c) ? ps_copy_src_mem_name(c) : "-", ps_mem_kind_name(c->dst_kind),
                (long long)c->count, (double)c->bytes / 1e6, MS(c->total_ns));
        if (c->total_ns > 0)
            fprintf(f, "%8.2f\n", (double)c->bytes / (double)c->total_ns);
        else
            fprintf(f, "%8s\n", "N/A");
    }
    if (nfindings) {
        ps_sgr(f, color, PS_SGR_BOLD);
        fprintf(f, "\nFindings");
        ps_sgr_end(f, color);
        fprintf(f, " (rows: \"at X ms\" from the run's first event; names last)\n");
    }
    for (size_t i = 0; i < nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fputs("  ", f);
        ps_sgr(f, color, !strcmp(g->severity, "warning") ? PS_SGR_YELLOW : PS_SGR_DIM);
        fprintf(f, "[%s]", g->severity);
        ps_sgr_end(f, color);
        fprintf(f, " %s: ", g->rule);
        ps_put_text(f, g->summary);   /* escaped: a summary may quote names from the trace */
        fputc('\n', f);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            char where[48];
            if (w->start_ns >= 0)
                snprintf(where, sizeof where, "at %.3f ms", MS(w->start_ns - r->run_start_ns));
            else
                snprintf(where, sizeof where, "%lld x", (long long)w->count);
            fprintf(f, "      %-14s %10.3f ms", where, MS(w->dur_ns));
            size_t cols = 34;
            if (w->bytes >= 0)
                fprintf(f, "  %10.3f MB", (double)w->bytes / 1e6), cols += 15;
            ps_text_row_name(f, cols, ps_words_row_name(r, g, w));
        }
    }
}

static void ranks(FILE *f, const struct ps_report *r, int color)
{
    if (ps_render_process_ranks_text(f, r) || r->nranks < 2)
        return;
    ps_sgr(f, color, PS_SGR_BOLD);
    fprintf(f, "\nRanks: %zu processes hold steps", r->nranks);
    ps_sgr_end(f, color);
    fprintf(f, " (rank = order of pid; the average step, %% in the verdict's groups)\n");
    fprintf(f, "%4s %8s %6s %11s", "rank", "pid", "steps", "duration ms");
    group_header(f, r);
    fputs("  verdict\n", f);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        fprintf(f, "%4zu %8u %6zu %11.3f", i, k->pid, k->nsteps, MS(k->avg_dur_ns));
        group_row(f, k->group_ns, k->seen_ns);
        fprintf(f, "  %s\n", ps_words_bottleneck(r, k->bottleneck));
    }
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        fprintf(f, "Straggler: rank %zu (pid %u) is %.1f %% slower than the median rank, most of it in %s\n", g->rank,
                g->pid, 100.0 * g->slower_by, ps_words_cat_label(g->category, r->has_gpu));
    }
}

/* What perfscope's Python hook saw: the loaders' settings and their worker processes. */
static void pytorch(FILE *f, const struct ps_report *r)
{
    const struct ps_pytorch *py = r->py;
    if (!py)
        return;
    fputs("\nPyTorch (perfscope's Python hook, mode ", f);
    put_name(f, py->mode[0] ? py->mode : "?", 0);
    fputs("; torch ", f);
    put_name(f, py->torch_version[0] ? py->torch_version : "?", 0);
    if (py->cores > 0)
        fprintf(f, "; %d cores", py->cores);
    fputs(")\n", f);
    for (size_t i = 0; i < py->nloaders; i++) {
        const struct ps_py_loader *l = &py->loaders[i];
        fprintf(f, "  DataLoader#%d: num_workers=%d pin_memory=%s persistent_workers=%s prefetch_factor=", l->number,
                l->num_workers, l->pin_memory < 0 ? "?" : l->pin_memory ? "True" : "False",
                l->persistent_workers < 0 ? "?" : l->persistent_workers ? "True" : "False");
        if (l->prefetch_factor >= 0)
            fprintf(f, "%d", l->prefetch_factor);
        else
            fputs("None", f);
        fprintf(f, " batch_size=%d, %d iterator%s (", l->batch_size, l->iterators, l->iterators == 1 ? "" : "s");
        put_name(f, l->iterator, 0);
        fputs(")\n", f);
    }
    fprintf(f, "  The step thread waited for data %.3f ms in the analysed steps in the steady state, and %.3f ms for "
               "worker start-up (iter(), each new iterator's first fetch, and the fetch that stops non-persistent "
               "workers)\n", MS(py->wait_ns), MS(py->startup_wait_ns));
    if (py->nworkers) {
        fprintf(f, "  %zu worker process%s:\n  %8s %6s %3s %8s %10s %19s %10s %8s\n", py->nworkers,
                py->nworkers == 1 ? "" : "es", "pid", "loader", "id", "fetches", "fetch ms", "busy while waiting",
                "CPU ms", "CPU use");
        for (size_t i = 0; i < py->nworkers; i++) {
            const struct ps_py_worker *w = &py->workers[i];
            fprintf(f, "  %8u %6d %3d %8lld %10.3f", w->pid, w->loader, w->id, (long long)w->fetches, MS(w->fetch_ns));
            if (py->wait_ns > 0)
                fprintf(f, " %17.1f %%", 100.0 * (double)w->busy_wait_ns / (double)py->wait_ns);
            else
                fprintf(f, " %19s", "N/A");
            if (w->cpu_ns >= 0)
                fprintf(f, " %10.1f", MS(w->cpu_ns));
            else
                fprintf(f, " %10s", "N/A");
            if (w->cpu_ns >= 0 && w->life_ns > 0)
                fprintf(f, " %6.0f %%\n", 100.0 * (double)w->cpu_ns / (double)w->life_ns);
            else
                fprintf(f, " %8s\n", "N/A");
        }
    }
    if (py->more_workers >= 0)
        fprintf(f, "  More workers would %s\n", !py->more_workers ? "not help: the workers idled while the step waited"
                                                : py->nworkers ? "help: the workers were saturated while the step waited"
                                                               : "help: loading runs inside the training loop (num_workers=0)");
    if (py->copies)
        fprintf(f, "  Host-to-device copies (Tensor.to / .cuda): %lld, %lld from pageable memory, %lld blocking\n",
                (long long)py->copies, (long long)py->copies_pageable, (long long)py->copies_blocking);
}

/* After the PyTorch section: its advice the verdict's fix did not already give (words/setup_words.c). */
static void advice(FILE *f, const struct ps_report *r)
{
    struct ps_words_lines l = { .n = 0 };
    ps_words_advice_lines(&l, r);
    for (size_t i = 0; i < l.n; i++) {   /* sentences that may quote names from the trace */
        fputs(i ? "    " : "  Advice: ", f);
        ps_put_text(f, l.v[i]);
        fputc('\n', f);
    }
}

/* NVML utilisation over time: one line of PS_NVML_UTIL_BUCKETS levels " .:-=+*#" (0..100 %; a blank bucket has no
 * sample) under each device's summary. */
static void gpu_util(FILE *f, const struct ps_report *r)
{
    for (size_t i = 0; i < r->nnvml_util; i++) {
        const struct ps_nvml_util_stat *s = &r->nvml_util[i];
        char line[PS_NVML_UTIL_BUCKETS + 1];
        for (int b = 0; b < PS_NVML_UTIL_BUCKETS; b++) {
            int level = s->bucket_pct[b] < 0 ? -1 : (int)(s->bucket_pct[b] * 8 / 100.01);
            line[b] = level < 0 ? ' ' : " .:-=+*#"[level];
        }
        line[PS_NVML_UTIL_BUCKETS] = '\0';
        fprintf(f, "\nGPU %d utilisation over time (NVML, %lld samples over %.1f s): mean %.1f %%, min %d %%, max %d %%\n"
                   "  |%s|  (%d slices of %.2f s; levels ' .:-=+*#' = 0..100 %%)\n",
                s->device, (long long)s->samples, (double)(s->last_ns - s->first_ns) / 1e9, s->mean_pct, s->min_pct,
                s->max_pct, line, PS_NVML_UTIL_BUCKETS, (double)s->bucket_ns / 1e9);
    }
}

/* The detail sections this report holds that `sections` leaves out, as --sections names them, and a line saying
 * how to see them. */
static void more(FILE *f, const struct ps_report *r, unsigned sections)
{
    const int has[] = {
        [0] = !r->nothing_to_break_down && r->nsteps > 0, [1] = r->py != NULL,
        [2] = (r->ntl > 0 && r->tl[0].events > 0) || r->ndevs > 0 || r->nnvml_util > 0, [3] = r->mem != NULL, [4] = r->opeff != NULL,
        [5] = r->nkernels > 0, [6] = r->ncopies > 0, [7] = r->nfindings > 0,
    };
    char list[128] = "";
    size_t n = 0;
    for (size_t k = 0; k < sizeof has / sizeof *has; k++)
        if (has[k] && !(sections & (1u << k)))
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? "," : "", ps_text_section_names[k]);
    if (n)
        fprintf(f, "\nMore: --sections %s, or --details for all\n", list);
}

int ps_render_text(FILE *out, const struct ps_report *r, const struct ps_render_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    unsigned sec = o->sections;
    FILE *f = open_memstream(&buf, &len);   /* laid out first, then folded to the width */
    if (!f)
        return -ENOMEM;
    /* the answer: the first screen */
    run_summary(f, r, o->color);
    steps_line(f, r);
    ps_text_verdict(f, r, o->color);
    ps_text_where_it_goes(f, r);
    ps_text_evidence(f, r);
    ps_text_what_to_do(f, r, o->color, sec);
    ps_text_scope(f, r);
    ranks(f, r, o->color);   /* several ranks: who waits for whom is part of the answer */
    /* the details --sections asks for, in this order */
    if (sec & PS_TEXT_STEPS)
        steps_table(f, r, o->color);
    if (sec & PS_TEXT_PYTORCH) {
        pytorch(f, r);
        advice(f, r);
    }
    if (sec & PS_TEXT_GPU) {
        gpu(f, r);
        gpu_util(f, r);
    }
    if (sec & PS_TEXT_MEMORY)
        ps_render_memory_text(f, r);
    if (sec & PS_TEXT_OPS)
        ps_render_op_efficiency_text(f, r);
    summaries(f, r, o->color, sec);
    more(f, r, sec);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || !buf) {
        free(buf);
        return -ENOMEM;
    }
    int rc = ps_text_fold(out, buf, len, o->width);
    free(buf);
    return rc;
}
