/* `perfscope report --format json`: the stable machine-readable report (DESIGN §4, documented key by key in
 * docs/report.md). Times are integer ns, shares 0..1, absent values null. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/names.h"
#include "ps_utf8.h"
#include "render/render.h"

/* The first `len` bytes of `s` (up to a NUL) as a JSON string. JSON text is UTF-8 (RFC 8259 §8.1): each maximal
 * invalid subpart (a Latin-1 byte in a command line, a name cut mid-character) is written as one U+FFFD, the
 * policy of common/ps_utf8.h that the collector applies to what it stores. */
static void jstrn(FILE *f, const char *s, size_t len)
{
    const unsigned char *end = (const unsigned char *)memchr(s, '\0', len);
    if (!end)
        end = (const unsigned char *)s + len;
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; p < end; p++) {
        if (*p >= 0x80) {
            int n = ps_utf8_seq(p, (size_t)(end - p));
            if (n < 0) {
                fputs("\\ufffd", f);
                p += -n - 1;
                continue;
            }
            fwrite(p, 1, (size_t)n, f);
            p += n - 1;
        } else if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void jstr(FILE *f, const char *s)
{
    jstrn(f, s, strlen(s));
}

void ps_render_json_str(FILE *f, const char *s)
{
    jstr(f, s);
}

static void jnum(FILE *f, double x)
{
    if (isnan(x) || isinf(x))
        fputs("null", f);
    else
        fprintf(f, "%.6g", x);
}

static void jname(FILE *f, const struct ps_model *m, uint32_t id)
{
    if (id == PS_NONE)
        fputs("null", f);
    else
        jstr(f, ps_model_str(m, id));
}

static void breakdown(FILE *f, const int64_t *cat)
{
    fputs("{", f);
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, "%s\"%s\": %lld", c ? ", " : "", ps_cat_key[c], (long long)cat[c]);
    fputs("}", f);
}

static void source(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fputs("  \"source\": {\"path\": ", f);
    jstr(f, m->path);
    fprintf(f, ", \"format\": \"%s\"", ps_format_name(m->format));
    int32_t rank, world;
    ps_report_rank(r, &rank, &world);
    fputs(", \"rank\": ", f);
    rank >= 0 ? fprintf(f, "%d", rank) : fputs("null", f);
    fputs(", \"world_size\": ", f);
    world > 0 ? fprintf(f, "%d", world) : fputs("null", f);
    int32_t one;
    size_t launcher = ps_report_process_ranks(r, &one);
    fputs(", \"launcher_ranks\": ", f);
    launcher >= 2 ? fprintf(f, "%zu", launcher) : fputs("null", f);
    int64_t dropped = ps_report_dropped_records(r);
    fputs(", \"dropped_records\": ", f);
    dropped >= 0 ? fprintf(f, "%lld", (long long)dropped) : fputs("null", f);
    int64_t untimed = ps_report_gpu_untimed_records(r);
    fputs(", \"gpu_records_without_timestamps\": ", f);
    untimed >= 0 ? fprintf(f, "%lld", (long long)untimed) : fputs("null", f);
    fprintf(f, ", \"unplaced_events\": %lld", (long long)m->unplaced_events);
    fputs(", \"unterminated_ranges\": [", f);      /* never ended: by thread, outermost first */
    for (size_t i = 0; i < m->open_ranges.n; i++) {
        const struct ps_range *o = &m->open_ranges.v[i];
        const struct ps_thread *t = o->thread < m->threads.n ? &m->threads.v[o->thread] : NULL;
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        *ps_model_str(m, o->name) ? jname(f, m, o->name) : (void)fputs("null", f);   /* kept without its text */
        fputs(", \"domain\": ", f);
        o->domain != PS_NONE ? jname(f, m, o->domain) : (void)fputs("null", f);
        if (t)
            fprintf(f, ", \"pid\": %u, \"tid\": %u", t->pid, t->tid);
        else
            fputs(", \"pid\": null, \"tid\": null", f);
        fprintf(f, ", \"start_ns\": %lld}", (long long)o->start_ns);
    }
    fputs("]", f);
    static const char *const counts[] = { "still_running_processes", "other_pidns_rings", "corrupt_rings" };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {   /* perfscope META; else null */
        long long v;
        fprintf(f, ", \"%s\": ", counts[i]);
        ps_report_meta_int(r, counts[i], 0, INT64_MAX, &v) == 1 ? fprintf(f, "%lld", v) : fputs("null", f);
    }
    int complete = ps_report_recording_complete(r);
    fprintf(f, ", \"recording_complete\": %s", complete < 0 ? "null" : complete ? "true" : "false");
    fprintf(f, ", \"wal_file_missing\": %s", ps_report_meta(r, "wal_file_missing") ? "true" : "false");
    struct ps_child_status st;   /* unknown or impossible values: null, never a fake 0 */
    ps_report_child_status(r, &st);
    fputs(", \"child_exit_code\": ", f);
    st.code_known ? fprintf(f, "%ld", st.code) : fputs("null", f);
    fputs(", \"child_signal\": ", f);
    st.sig_known ? fprintf(f, "%ld", st.sig) : fputs("null", f);
    if (m->samples.n > 0)
        fprintf(f, ", \"host_samples\": {\"count\": %lld, \"first_ns\": %lld, \"last_ns\": %lld, \"cpu_ns\": %lld}",
                (long long)m->samples.n, (long long)m->samples.first_ns, (long long)m->samples.last_ns,
                (long long)m->samples.cpu_ns);
    else
        fputs(", \"host_samples\": null", f);
    fputs("},\n", f);

    fprintf(f, "  \"run\": {\"start_ns\": %lld, \"duration_ns\": %lld, \"processes\": %zu, \"threads\": %zu, "
               "\"events\": %zu, \"gpu_rows\": %zu, \"step_process\": ",
            (long long)r->run_start_ns, (long long)(r->run_end_ns - r->run_start_ns), m->procs.n, m->threads.n,
            r->nevents, m->gpu.n);
    r->scoped ? fprintf(f, "%u", r->pid) : fputs("null", f);
    fputs(", \"step_thread\": ", f);
    r->step_thread != PS_NONE ? fprintf(f, "%u", m->threads.v[r->step_thread].tid) : fputs("null", f);
    fprintf(f, ", \"step_threads\": %zu, \"step_ranges_found\": %zu, \"whole_run\": %s, \"steps_source\": \"%s\", "
               "\"step_inference\": ", r->step_threads, r->step_ranges_found, r->whole_run ? "true" : "false",
            r->steps_inferred ? "inferred" : r->whole_run ? "whole_run" : "ranges");
    if (!r->steps_note[0]) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"found\": %s, ", r->steps_inferred ? "true" : "false");
        if (r->steps_inferred)
            fprintf(f, "\"device\": %d, \"stream\": %lld, \"period_ops\": %lld, \"match\": %.4f, ", r->infer_device,
                    (long long)r->infer_stream, (long long)r->infer_period_ops, r->infer_match);
        fputs("\"note\": ", f);
        jstr(f, r->steps_note);
        fputc('}', f);
    }
    fputs(", \"meta\": {", f);
    for (size_t i = 0; i < m->meta.n; i++) {
        fputs(i ? ", " : "", f);
        jstr(f, m->meta.v[i].key);
        fputs(": ", f);
        jstr(f, m->meta.v[i].value);
    }
    fputs("}},\n", f);
}

static void verdict(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fprintf(f, "  \"verdict\": {\"bottleneck\": \"%s\", \"share\": ", ps_bottleneck_name[r->bottleneck]);
    jnum(f, r->bottleneck == PS_BN_UNKNOWN ? NAN : r->share);   /* nothing to share: null, never a fake 0 */
    fputs(", \"gpu_utilization\": ", f);
    jnum(f, r->gpu_util);
    fputs(",\n    \"evidence\": [", f);
    for (size_t i = 0; i < r->nevidence; i++) {
        const struct ps_evidence *e = &r->evidence[i];
        fprintf(f, "%s\n      {\"kind\": \"%s\", \"name\": ", i ? "," : "", e->kind);
        const char *name = ps_model_str(m, e->name);   /* a range: grouped without its emit_nvtx suffix */
        jstrn(f, name, !strcmp(e->kind, "range") ? ps_names_base_len(name) : strlen(name));
        fprintf(f, ", \"count\": %lld, \"total_ns\": %lld}", (long long)e->count, (long long)e->total_ns);
    }
    fputs("],\n    \"recommendations\": [", f);
    for (size_t i = 0; i < r->nrecs; i++) {
        fputs(i ? ",\n      " : "\n      ", f);
        jstr(f, r->recs[i]);
    }
    fputs("]},\n", f);
}

static void steps(FILE *f, const struct ps_report *r)
{
    fputs("  \"steps\": [", f);
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct ps_step *s = &r->steps[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        if (r->steps_inferred && s->name == PS_NONE)
            fprintf(f, "\"inferred#%zu\"", i + 1);
        else
            jname(f, r->m, s->name);
        fprintf(f, ", \"start_ns\": %lld, \"dur_ns\": %lld, \"host_start_ns\": %lld, \"host_dur_ns\": %lld, "
                   "\"gpu_ops\": %lld, \"bottleneck\": \"%s\", \"share\": ",
                (long long)s->start_ns, (long long)(s->end_ns - s->start_ns), (long long)s->host_start_ns,
                (long long)(s->host_end_ns - s->host_start_ns), (long long)s->device_ops,
                ps_bottleneck_name[s->bottleneck]);
        jnum(f, s->bottleneck == PS_BN_UNKNOWN ? NAN : s->share);
        fputs(",\n     \"breakdown_ns\": ", f);
        breakdown(f, s->cat_ns);
        fprintf(f, ", \"sync_ns\": %lld}", (long long)s->sync_ns);
    }
    fputs("],\n  \"step_average\": {", f);
    fprintf(f, "\"steps\": %zu, \"dur_ns\": %lld, \"bottleneck\": \"%s\", \"breakdown_ns\": ", r->nsteps,
            (long long)r->avg_dur_ns, ps_bottleneck_name[r->bottleneck]);
    breakdown(f, r->avg.cat_ns);
    fprintf(f, ", \"sync_ns\": %lld},\n", (long long)r->avg.sync_ns);
}

static void gpu(FILE *f, const struct ps_report *r)
{
    size_t k = 0;
    fputs("  \"gpu_temporal\": [", f);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        if (d->hta_span_ns <= 0)
            continue;
        fprintf(f, "%s\n    {\"device\": %d, \"span_ns\": %lld, \"idle_ns\": %lld, \"compute_ns\": %lld, "
                   "\"non_compute_ns\": %lld}",
                k++ ? "," : "", d->device, (long long)d->hta_span_ns, (long long)d->hta_idle_ns,
                (long long)d->hta_compute_ns, (long long)d->hta_non_compute_ns);
    }
    fputs("],\n  \"idle_breakdown\": [", f);
    for (size_t i = 0; i < r->nidle; i++) {
        const struct ps_idle_stat *s = &r->idle[i];
        fprintf(f, "%s\n    {\"device\": %d, \"stream\": %lld, \"host_wait_ns\": %lld, \"kernel_wait_ns\": %lld, "
                   "\"other_ns\": %lld}",
                i ? "," : "", s->device, (long long)s->stream, (long long)s->host_wait_ns,
                (long long)s->kernel_wait_ns, (long long)s->other_ns);
    }
    static const char *const tl_set[] = { "all", "not_recompute", "recompute" };
    fputs("],\n  \"gpu_timeline\": [", f);
    for (size_t i = 0; i < r->ntl; i++) {
        const struct ps_tl_row *t = &r->tl[i];
        if (r->tl[0].events == 0)
            break;   /* no linked GPU event: no row (the recompute rows would be empty too) */
        fprintf(f, "%s\n    {\"device\": null, \"set\": \"%s\", \"events\": %lld, \"total_ns\": %lld, "
                   "\"computation_ns\": %lld, \"exposed_comm_ns\": %lld, \"exposed_memcpy_ns\": %lld, \"idle_ns\": %lld, "
                   "\"tracelens_ms\": ",
                i ? "," : "", tl_set[t->set], (long long)t->events, (long long)t->total_ns,
                (long long)t->computation_ns, (long long)t->exposed_comm_ns, (long long)t->exposed_memcpy_ns,
                (long long)t->idle_ns);
        if (isnan(t->tracelens_ms[0])) {
            fputs("null}", f);
        } else {
            static const char *const key[5] = { "total", "computation", "exposed_comm", "exposed_memcpy", "idle" };
            for (int q = 0; q < 5; q++)
                fprintf(f, "%s\"%s\": %.17g", q ? ", " : "{", key[q], t->tracelens_ms[q]);
            fputs("}}", f);
        }
    }
    fprintf(f, "],\n  \"gpu_timeline_unlinked_events\": %lld,\n  \"gpu_timeline_linked_by\": \"%s\"",
            (long long)r->tl_unlinked, r->tl_by_flows ? "ac2g_flow" : "correlation");
    fputs(",\n  \"gpu_timeline_per_device\": [", f);
    k = 0;
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        if (d->tl_total_ns <= 0)
            continue;
        fprintf(f, "%s\n    {\"device\": %d, \"total_ns\": %lld, \"computation_ns\": %lld, \"exposed_comm_ns\": %lld, "
                   "\"exposed_memcpy_ns\": %lld, \"idle_ns\": %lld}",
                k++ ? "," : "", d->device, (long long)d->tl_total_ns, (long long)d->tl_computation_ns,
                (long long)d->tl_exposed_comm_ns, (long long)d->tl_exposed_memcpy_ns, (long long)d->tl_idle_ns);
    }
    fputs("],\n  \"gpu_devices\": [", f);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        fprintf(f, "%s\n    {\"device\": %d, \"kernel_count\": %lld, \"kernel_ns\": %lld, \"memcpy_count\": %lld, "
                   "\"memcpy_bytes\": %lld, \"memset_count\": %lld, \"gpu_utilization\": ",
                i ? "," : "", d->device, (long long)d->kernel_count, (long long)d->kernel_ns,
                (long long)d->memcpy_count, (long long)d->memcpy_bytes, (long long)d->memset_count);
        jnum(f, d->gpu_util);
        fputs("}", f);
    }
    fputs("],\n", f);
}

static void summaries(FILE *f, const struct ps_report *r)
{
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    fputs("  \"kernels\": [", f);
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        jname(f, r->m, k->name);
        fprintf(f, ", \"count\": %lld, \"total_ns\": %lld, \"avg_ns\": %lld, \"min_ns\": %lld, \"max_ns\": %lld, "
                   "\"median_ns\": %lld}",
                (long long)k->count, (long long)k->total_ns, (long long)(k->total_ns / k->count),
                (long long)k->min_ns, (long long)k->max_ns, (long long)k->median_ns);
    }
    fprintf(f, "],\n  \"kernel_names\": %zu,\n  \"copies\": [", r->nkernels);
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        fprintf(f, "%s\n    {\"kind\": \"%s\", \"src_mem\": ", i ? "," : "", ps_copy_kind_name(c));
        c->kind == PS_GPU_MEMCPY ? jstr(f, ps_mem_kind_name(c->src_kind)) : (void)fputs("null", f);
        fputs(", \"dst_mem\": ", f);
        jstr(f, ps_mem_kind_name(c->dst_kind));
        fprintf(f, ", \"count\": %lld, \"bytes\": %lld, \"total_ns\": %lld, \"gbps\": ", (long long)c->count,
                (long long)c->bytes, (long long)c->total_ns);
        jnum(f, c->total_ns > 0 ? (double)c->bytes / (double)c->total_ns : NAN);
        fputs("}", f);
    }
    fputs("],\n  \"findings\": [", f);
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fprintf(f, "%s\n    {\"rule\": \"%s\", \"severity\": \"%s\", \"summary\": ", i ? "," : "", g->rule, g->severity);
        jstr(f, g->summary);
        fprintf(f, ", \"cost_ns\": %lld, \"share\": ", (long long)g->cost_ns);
        jnum(f, g->share);
        fprintf(f, ", \"gain_ns\": %lld, \"fix\": ", (long long)g->gain_ns);
        jstr(f, g->fix);
        fputs(", \"rows\": [", f);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            fputs(j ? ", {\"name\": " : "{\"name\": ", f);
            jname(f, r->m, w->name);
            fputs(", \"start_ns\": ", f);
            w->start_ns >= 0 ? fprintf(f, "%lld", (long long)w->start_ns) : fputs("null", f);
            fprintf(f, ", \"dur_ns\": %lld, \"bytes\": ", (long long)w->dur_ns);
            w->bytes >= 0 ? fprintf(f, "%lld", (long long)w->bytes) : fputs("null", f);
            fprintf(f, ", \"count\": %lld}", (long long)(w->count ? w->count : 1));
        }
        fputs("]}", f);
    }
    fputs("],\n", f);
}

/* Several processes with steps: each one's step average, and the stragglers; else null (docs/report.md). */
static void ranks(FILE *f, const struct ps_report *r)
{
    if (r->nranks < 2) {
        fputs("  \"ranks\": null,\n  \"stragglers\": null,\n", f);
        return;
    }
    fputs("  \"ranks\": [", f);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        fprintf(f, "%s\n    {\"rank\": %zu, \"pid\": %u, \"source\": ", i ? "," : "", i, k->pid);
        jstr(f, r->m->path);
        fprintf(f, ", \"steps\": %zu, \"step_average\": {\"dur_ns\": %lld, \"breakdown_ns\": ", k->nsteps,
                (long long)k->avg_dur_ns);
        breakdown(f, k->cat_ns);
        fprintf(f, ", \"sync_ns\": %lld}, \"bottleneck\": \"%s\", \"share\": ", (long long)k->sync_ns,
                ps_bottleneck_name[k->bottleneck]);
        jnum(f, k->bottleneck == PS_BN_UNKNOWN ? NAN : k->share);
        fputs("}", f);
    }
    fputs("],\n  \"stragglers\": [", f);
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        fprintf(f, "%s\n    {\"rank\": %zu, \"pid\": %u, \"slower_by\": ", i ? "," : "", g->rank, g->pid);
        jnum(f, g->slower_by);
        fprintf(f, ", \"category\": \"%s\"}", ps_cat_key[g->category]);
    }
    fputs("],\n", f);
}

static void jint(FILE *f, int64_t v)   /* -1: unknown */
{
    if (v < 0)
        fputs("null", f);
    else
        fprintf(f, "%lld", (long long)v);
}

static void jflag(FILE *f, int32_t v)   /* -1: unknown */
{
    fputs(v < 0 ? "null" : v ? "true" : "false", f);
}

/* What perfscope's Python hook saw (docs/report.md "pytorch"); null without it. */
static void pytorch(FILE *f, const struct ps_report *r)
{
    const struct ps_pytorch *py = r->py;
    if (!py) {
        fputs("  \"pytorch\": null,\n", f);
        return;
    }
    fputs("  \"pytorch\": {\"hook\": ", f);
    jstr(f, py->mode);
    fputs(", \"torch_version\": ", f);
    jstr(f, py->torch_version);
    fputs(", \"cores\": ", f);
    jint(f, py->cores);
    fputs(",\n    \"loaders\": [", f);
    for (size_t i = 0; i < py->nloaders; i++) {
        const struct ps_py_loader *l = &py->loaders[i];
        fprintf(f, "%s\n      {\"loader\": %d, \"iterator\": ", i ? "," : "", l->number);
        jstr(f, l->iterator);
        fprintf(f, ", \"iterators\": %d, \"num_workers\": ", l->iterators);
        jint(f, l->num_workers);
        fputs(", \"pin_memory\": ", f);
        jflag(f, l->pin_memory);
        fputs(", \"persistent_workers\": ", f);
        jflag(f, l->persistent_workers);
        fputs(", \"prefetch_factor\": ", f);
        jint(f, l->prefetch_factor);
        fputs(", \"batch_size\": ", f);
        jint(f, l->batch_size);
        fputs("}", f);
    }
    fputs("],\n    \"workers\": [", f);
    for (size_t i = 0; i < py->nworkers; i++) {
        const struct ps_py_worker *w = &py->workers[i];
        fprintf(f, "%s\n      {\"pid\": %u, \"loader\": ", i ? "," : "", w->pid);
        jint(f, w->loader);
        fputs(", \"id\": ", f);
        jint(f, w->id);
        fprintf(f, ", \"fetches\": %lld, \"fetch_ns\": %lld, \"busy_while_waiting_ns\": %lld, \"busy_while_waiting\": ",
                (long long)w->fetches, (long long)w->fetch_ns, (long long)w->busy_wait_ns);
        jnum(f, py->wait_ns > 0 ? (double)w->busy_wait_ns / (double)py->wait_ns : NAN);
        fputs(", \"cpu_ns\": ", f);
        jint(f, w->cpu_ns);
        fputs(", \"cpu_utilization\": ", f);
        jnum(f, w->cpu_ns >= 0 && w->life_ns > 0 ? (double)w->cpu_ns / (double)w->life_ns : NAN);
        fputs("}", f);
    }
    fprintf(f, "],\n    \"data_wait_ns\": %lld, \"first_fetch_wait_ns\": %lld, \"workers_busy_while_waiting\": ",
            (long long)py->wait_ns, (long long)py->first_fetch_wait_ns);
    jnum(f, py->workers_busy);
    fprintf(f, ", \"more_workers_help\": %s, \"suggested_num_workers\": ",
            py->more_workers < 0 ? "null" : py->more_workers ? "true" : "false");
    jint(f, py->suggest_workers > 0 ? py->suggest_workers : -1);
    fprintf(f, ",\n    \"copies_to_device\": {\"count\": %lld, \"from_pageable\": %lld, \"blocking\": %lld},\n"
               "    \"advice\": [", (long long)py->copies, (long long)py->copies_pageable, (long long)py->copies_blocking);
    for (size_t i = 0; i < py->nadvice; i++) {
        fputs(i ? ", " : "", f);
        jstr(f, py->advice[i]);
    }
    fputs("]},\n", f);
}

/* NVML utilisation over time per device (docs/report.md "gpu_utilization_samples"). */
static void gpu_util(FILE *f, const struct ps_report *r)
{
    fputs("  \"gpu_utilization_samples\": [", f);
    for (size_t i = 0; i < r->nnvml_util; i++) {
        const struct ps_nvml_util_stat *s = &r->nvml_util[i];
        fprintf(f, "%s\n    {\"device\": %d, \"samples\": %lld, \"mean_percent\": ", i ? "," : "", s->device,
                (long long)s->samples);
        jnum(f, s->mean_pct);
        fprintf(f, ", \"min_percent\": %d, \"max_percent\": %d, \"first_ns\": %lld, \"last_ns\": %lld, "
                   "\"bucket_ns\": %lld, \"bucket_percent\": [", s->min_pct, s->max_pct, (long long)s->first_ns,
                (long long)s->last_ns, (long long)s->bucket_ns);
        for (int b = 0; b < PS_NVML_UTIL_BUCKETS; b++) {
            if (b)
                fputs(", ", f);
            s->bucket_pct[b] < 0 ? fputs("null", f) : jnum(f, s->bucket_pct[b]);
        }
        fputs("]}", f);
    }
    fputs("],\n", f);
}

int ps_report_write_json(const struct ps_report *r, FILE *f)
{
    fputs("{\n  \"perfscope_report_version\": 1,\n", f);
    source(f, r);
    verdict(f, r);
    steps(f, r);
    gpu(f, r);
    gpu_util(f, r);
    summaries(f, r);
    ranks(f, r);
    pytorch(f, r);
    fputs("  \"notes\": [", f);   /* what a reader of the numbers must know about how they were computed */
    if (ps_report_compat_tb_no_comm(r))
        jstr(f, ps_report_compat_tb_note);
    fputs("],\n  \"comm_comp_overlap\": ", f);
    jnum(f, r->comm_comp_overlap);
    fputs("\n}\n", f);
    return ferror(f) ? -EIO : 0;
}
