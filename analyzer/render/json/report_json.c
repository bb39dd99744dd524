/* `perfscope report --format json`: the stable machine-readable report (docs/report.md, documented key by key in
 * docs/report.md), written through the shared JSON writer. Times are integer ns, shares 0..1, absent values
 * null. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/ranks.h"
#include "json/json_sections.h"
#include "render/json_writer.h"
#include "render/render.h"
#include "words/words.h"

/* A string id of the report's model as a JSON string; null for none. */
static void name_or_null(struct ps_jw *w, const struct ps_report *r, uint32_t id)
{
    const char *name = ps_report_name(r, id);
    name ? ps_jw_str(w, name) : ps_jw_null(w);
}

static void breakdown(struct ps_jw *w, const char *key, const int64_t *cat)
{
    ps_jw_key(w, key);
    ps_jw_map_open(w);
    for (int c = 0; c < PS_CAT_N; c++)
        ps_jw_kint(w, ps_cat_key[c], cat[c]);
    ps_jw_map_close(w);
}

static void unterminated_ranges(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "unterminated_ranges");      /* never ended: by thread, outermost first */
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->trace.nopen; i++) {
        const struct ps_open_range *o = &r->trace.open[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "name", o->name);       /* NULL: kept without its text */
        ps_jw_kstr(w, "domain", o->domain);
        ps_jw_kint_or_null(w, "pid", o->pid);
        ps_jw_kint_or_null(w, "tid", o->tid);
        ps_jw_kint(w, "start_ns", o->start_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

static void source(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_trace_info *t = &r->trace;
    const struct ps_run_facts *x = &r->facts;
    ps_jw_key(w, "source");
    ps_jw_map_open(w);
    ps_jw_kstr(w, "path", t->path);
    ps_jw_kstr(w, "format", t->format);
    ps_jw_kint_or_null(w, "rank", x->rank);
    ps_jw_kint_or_null(w, "world_size", x->world_size > 0 ? x->world_size : -1);
    ps_jw_kint_or_null(w, "launcher_ranks", x->launcher_ranks >= 2 ? (int64_t)x->launcher_ranks : -1);
    ps_jw_kint_or_null(w, "dropped_records", x->dropped_records);
    ps_jw_kint_or_null(w, "gpu_records_without_timestamps", x->gpu_records_without_timestamps);
    ps_jw_kint(w, "unplaced_events", t->unplaced_events);
    unterminated_ranges(w, r);
    ps_jw_kint_or_null(w, "still_running_processes", x->still_running_processes);
    ps_jw_kint_or_null(w, "other_pidns_rings", x->other_pidns_rings);
    ps_jw_kint_or_null(w, "corrupt_rings", x->corrupt_rings);
    x->recording_complete < 0 ? ps_jw_knull(w, "recording_complete")
                              : ps_jw_kbool(w, "recording_complete", x->recording_complete);
    ps_jw_kbool(w, "wal_file_missing", x->wal_file_missing);
    /* unknown or impossible values: null, never a fake 0 */
    x->child.code_known ? ps_jw_kint(w, "child_exit_code", x->child.code) : ps_jw_knull(w, "child_exit_code");
    x->child.sig_known ? ps_jw_kint(w, "child_signal", x->child.sig) : ps_jw_knull(w, "child_signal");
    ps_jw_key(w, "host_samples");
    if (t->samples.n > 0) {
        ps_jw_map_open(w);
        ps_jw_kint(w, "count", t->samples.n);
        ps_jw_kint(w, "first_ns", t->samples.first_ns);
        ps_jw_kint(w, "last_ns", t->samples.last_ns);
        ps_jw_kint(w, "cpu_ns", t->samples.cpu_ns);
        ps_jw_map_close(w);
    } else {
        ps_jw_null(w);
    }
    ps_jw_map_close(w);
}

static void run(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "run");
    ps_jw_map_open(w);
    ps_jw_kint(w, "start_ns", r->run_start_ns);
    /* the program's own duration when the trace knows it (PERFSCOPE_META duration_ns), else the events' span */
    ps_jw_kint(w, "duration_ns", r->facts.program_ns >= 0 ? r->facts.program_ns : r->run_end_ns - r->run_start_ns);
    ps_jw_kstr(w, "duration_source", r->facts.program_ns >= 0 ? "program" : "events");
    ps_jw_kint(w, "events_duration_ns", r->run_end_ns - r->run_start_ns);
    ps_jw_kint(w, "processes", (int64_t)r->trace.processes);
    ps_jw_kint(w, "threads", (int64_t)r->trace.threads);
    ps_jw_kint(w, "events", (int64_t)r->nevents);
    ps_jw_kint(w, "gpu_rows", (int64_t)r->ngpu_rows);
    ps_jw_kint_or_null(w, "step_process", r->scoped ? (int64_t)r->pid : -1);
    ps_jw_kint_or_null(w, "step_thread", r->step_tid);
    ps_jw_kint(w, "step_threads", (int64_t)r->step_threads);
    ps_jw_kint(w, "step_ranges_found", (int64_t)r->step_ranges_found);
    ps_jw_kbool(w, "whole_run", r->whole_run);
    ps_jw_kstr(w, "steps_source", r->steps_inferred ? "inferred" : r->whole_run ? "whole_run" : "ranges");
    ps_jw_key(w, "step_inference");   /* --steps: how the steps were inferred, or why none; null when not tried */
    if (!r->steps_note[0]) {
        ps_jw_null(w);
    } else {
        ps_jw_map_open(w);
        ps_jw_kbool(w, "found", r->steps_inferred);
        if (r->steps_inferred) {
            char match[32];
            ps_jw_kint(w, "device", r->infer_device);
            ps_jw_kint(w, "stream", r->infer_stream);
            ps_jw_kint(w, "period_ops", r->infer_period_ops);
            snprintf(match, sizeof match, "%.4f", r->infer_match);
            ps_jw_key(w, "match");
            ps_jw_number(w, match);
        }
        ps_jw_kstr(w, "note", r->steps_note);
        ps_jw_map_close(w);
    }
    ps_jw_key(w, "step_coverage");    /* steps/coverage.c: how much of the run the steps cover; null without steps */
    if (!r->coverage.computed) {
        ps_jw_null(w);
    } else {
        const struct ps_step_coverage *c = &r->coverage;
        ps_jw_map_open(w);
        ps_jw_kint(w, "run_ns", c->run_ns);
        ps_jw_kint(w, "steps_ns", c->steps_ns);
        ps_jw_kint(w, "outside_ns", c->run_ns - c->steps_ns);
        ps_jw_kint(w, "before_first_ns", c->before_ns);
        ps_jw_kint(w, "after_last_ns", c->after_ns);
        ps_jw_kint(w, "data_outside_ns", c->data_ns);
        ps_jw_kstr(w, "longest_outside_range", ps_report_name(r, c->top_name));
        ps_jw_kint(w, "longest_outside_ns", c->top_ns);
        ps_jw_map_close(w);
    }
    ps_jw_key(w, "meta");
    ps_jw_map_open(w);
    for (size_t i = 0; i < r->trace.nmeta; i++) {
        const char *key, *value;
        ps_report_meta_entry(r, i, &key, &value);
        ps_jw_kstr(w, key, value);
    }
    ps_jw_map_close(w);
    ps_jw_map_close(w);
}

static void verdict(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "verdict");
    ps_jw_map_open(w);
    ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[r->bottleneck]);
    ps_jw_kdouble(w, "share", r->bottleneck == PS_BN_UNKNOWN ? NAN : r->share);   /* nothing: null, not 0 */
    ps_jw_kdouble(w, "gpu_utilization", r->gpu_util);
    ps_jw_kdouble(w, "kernel_share", r->kernel_share);
    ps_jw_kdouble(w, "max_gain_share", r->max_gain_share);
    ps_jw_kint_or_null(w, "max_gain_ns", r->max_gain_ns);
    ps_jw_kstr(w, "unknown_reason", r->verdict_reason);
    if (r->host_wait.checked) {   /* docs/report.md "Traces without GPU rows" */
        const struct ps_host_wait *hw = &r->host_wait;
        ps_jw_key(w, "host_compute_wait");
        ps_jw_map_open(w);
        ps_jw_kint(w, "samples", (int64_t)hw->samples);
        ps_jw_kint(w, "waiting", (int64_t)hw->waiting);
        ps_jw_kint(w, "in_evidence", (int64_t)hw->in_evidence);
        ps_jw_kint_or_null(w, "wait_ns", hw->samples ? hw->wait_ns : -1);
        ps_jw_kbool(w, "claimed", hw->claimed);
        ps_jw_map_close(w);
    } else {
        ps_jw_knull(w, "host_compute_wait");
    }
    ps_jw_key(w, "evidence");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nevidence; i++) {
        const struct ps_evidence *e = &r->evidence[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "kind", e->kind);
        ps_jw_key(w, "name");
        const char *name = ps_report_name(r, e->name);   /* a range: grouped without its emit_nvtx suffix */
        name = name ? name : "";
        ps_jw_strn(w, name, !strcmp(e->kind, "range") ? ps_names_base_len(name) : strlen(name));
        ps_jw_kint(w, "count", e->count);
        ps_jw_kint(w, "total_ns", e->total_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "recommendations");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nrecs; i++)
        ps_jw_str(w, r->recs[i]);
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

static void steps(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "steps");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nsteps && !r->whole_run; i++) {   /* no steps: [], never a phantom one */
        const struct ps_step *s = &r->steps[i];
        ps_jw_map_open(w);
        char made_up[32];
        ps_jw_kstr(w, "name", ps_words_step_name(made_up, sizeof made_up, r, i));
        ps_jw_kint(w, "start_ns", s->start_ns);
        ps_jw_kint(w, "dur_ns", s->end_ns - s->start_ns);
        ps_jw_kint(w, "host_start_ns", s->host_start_ns);
        ps_jw_kint(w, "host_dur_ns", s->host_end_ns - s->host_start_ns);
        ps_jw_kint(w, "gpu_ops", s->device_ops);
        ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[s->bottleneck]);
        ps_jw_kdouble(w, "share", s->bottleneck == PS_BN_UNKNOWN ? NAN : s->share);
        breakdown(w, "breakdown_ns", s->cat_ns);
        ps_jw_kint(w, "sync_ns", s->sync_ns);
        if (r->causes.computed) {
            ps_jw_kbool(w, "startup", s->startup);
            ps_jw_key(w, "causes_ns");
            ps_jw_map_open(w);
            for (int c = 0; c < PS_CAUSE_N; c++)
                ps_jw_kint(w, ps_cause_key[c], s->cause_ns[c]);
            ps_jw_map_close(w);
        }
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "step_average");
    ps_jw_map_open(w);
    ps_jw_kint(w, "steps", r->whole_run ? 0 : (int64_t)r->nsteps);   /* whole run: the one window's numbers */
    ps_jw_kint(w, "dur_ns", r->avg_dur_ns);
    ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[r->bottleneck]);
    breakdown(w, "breakdown_ns", r->avg.cat_ns);
    ps_jw_kint(w, "sync_ns", r->avg.sync_ns);
    ps_jw_map_close(w);
}

/* HTA's temporal breakdown per device and idle breakdown per stream. */
static void hta(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "gpu_temporal");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        if (d->hta_span_ns <= 0)
            continue;
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", d->device);
        ps_jw_kint(w, "span_ns", d->hta_span_ns);
        ps_jw_kint(w, "idle_ns", d->hta_idle_ns);
        ps_jw_kint(w, "compute_ns", d->hta_compute_ns);
        ps_jw_kint(w, "non_compute_ns", d->hta_non_compute_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "idle_breakdown");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nidle; i++) {
        const struct ps_idle_stat *s = &r->idle[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", s->device);
        ps_jw_kint(w, "stream", s->stream);
        ps_jw_kint(w, "host_wait_ns", s->host_wait_ns);
        ps_jw_kint(w, "kernel_wait_ns", s->kernel_wait_ns);
        ps_jw_kint(w, "other_ns", s->other_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

/* TraceLens' GPU timeline: linked events, all devices merged; with recompute functions also split. */
static void tracelens(struct ps_jw *w, const struct ps_report *r)
{
    static const char *const tl_set[] = { "all", "not_recompute", "recompute" };
    static const char *const tl_key[5] = { "total", "computation", "exposed_comm", "exposed_memcpy", "idle" };
    ps_jw_key(w, "gpu_timeline");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->ntl && r->tl[0].events > 0; i++) {   /* no linked GPU event: no row */
        const struct ps_tl_row *t = &r->tl[i];
        ps_jw_map_open(w);
        ps_jw_knull(w, "device");
        ps_jw_kstr(w, "set", tl_set[t->set]);
        ps_jw_kint(w, "events", t->events);
        ps_jw_kint(w, "total_ns", t->total_ns);
        ps_jw_kint(w, "computation_ns", t->computation_ns);
        ps_jw_kint(w, "exposed_comm_ns", t->exposed_comm_ns);
        ps_jw_kint(w, "exposed_memcpy_ns", t->exposed_memcpy_ns);
        ps_jw_kint(w, "idle_ns", t->idle_ns);
        ps_jw_key(w, "tracelens_ms");   /* TraceLens' own csv numbers, when the trace has them beside it */
        if (isnan(t->tracelens_ms[0])) {
            ps_jw_null(w);
        } else {
            ps_jw_map_open(w);
            for (int q = 0; q < 5; q++) {
                char num[40];
                snprintf(num, sizeof num, "%.17g", t->tracelens_ms[q]);   /* as TraceLens wrote it */
                ps_jw_key(w, tl_key[q]);
                isfinite(t->tracelens_ms[q]) ? ps_jw_number(w, num) : ps_jw_null(w);
            }
            ps_jw_map_close(w);
        }
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_kint(w, "gpu_timeline_unlinked_events", r->tl_unlinked);
    ps_jw_kstr(w, "gpu_timeline_linked_by", r->tl_by_flows ? "ac2g_flow" : "correlation");
}

/* perfscope's own per-device timeline (TraceLens' categories over every GPU event), the utilisation timeline, and
 * the per-device totals. */
static void devices(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "gpu_timeline_per_device");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        if (d->tl_total_ns <= 0)
            continue;
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", d->device);
        ps_jw_kint(w, "total_ns", d->tl_total_ns);
        ps_jw_kint(w, "computation_ns", d->tl_computation_ns);
        ps_jw_kint(w, "exposed_comm_ns", d->tl_exposed_comm_ns);
        ps_jw_kint(w, "exposed_memcpy_ns", d->tl_exposed_memcpy_ns);
        ps_jw_kint(w, "idle_ns", d->tl_idle_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "gpu_utilization_timeline");   /* per device: busy ns per hundredth of the run */
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nutil; i++) {
        const struct ps_util_series *u = &r->util[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", u->device);
        ps_jw_kint(w, "start_ns", u->start_ns);
        ps_jw_kint(w, "bucket_ns", u->bucket_ns);
        ps_jw_key(w, "busy_ns");
        ps_jw_array_open(w);
        for (size_t k = 0; k < PS_UTIL_BUCKETS; k++)
            ps_jw_int(w, u->busy_ns[k]);
        ps_jw_array_close(w);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "gpu_devices");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", d->device);
        ps_jw_kint(w, "kernel_count", d->kernel_count);
        ps_jw_kint(w, "kernel_ns", d->kernel_ns);
        ps_jw_kint(w, "memcpy_count", d->memcpy_count);
        ps_jw_kint(w, "memcpy_bytes", d->memcpy_bytes);
        ps_jw_kint(w, "memset_count", d->memset_count);
        ps_jw_kdouble(w, "gpu_utilization", d->gpu_util);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

static void finding_rows(struct ps_jw *w, const struct ps_report *r, const struct ps_finding *g)
{
    ps_jw_key(w, "rows");
    ps_jw_array_open(w);
    for (size_t j = 0; j < g->nrows; j++) {
        const struct ps_row *row = &g->rows[j];
        ps_jw_map_open(w);
        ps_jw_key(w, "name");
        name_or_null(w, r, row->name);
        ps_jw_kint_or_null(w, "start_ns", row->start_ns);
        ps_jw_kint(w, "dur_ns", row->dur_ns);
        ps_jw_kint_or_null(w, "bytes", row->bytes);
        ps_jw_kint(w, "count", row->count ? row->count : 1);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

static void summaries(struct ps_jw *w, const struct ps_report *r)
{
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    ps_jw_key(w, "kernels");
    ps_jw_array_open(w);
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        ps_jw_map_open(w);
        ps_jw_key(w, "name");
        name_or_null(w, r, k->name);
        ps_jw_kint(w, "count", k->count);
        ps_jw_kint(w, "total_ns", k->total_ns);
        ps_jw_kint(w, "avg_ns", k->total_ns / k->count);
        ps_jw_kint(w, "min_ns", k->min_ns);
        ps_jw_kint(w, "max_ns", k->max_ns);
        ps_jw_kint(w, "median_ns", k->median_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_kint(w, "kernel_names", (int64_t)r->nkernels);
    ps_jw_key(w, "copies");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "kind", ps_copy_kind_name(c));
        ps_jw_kstr(w, "src_mem", ps_copy_src_mem_name(c));
        ps_jw_kstr(w, "dst_mem", ps_mem_kind_name(c->dst_kind));
        ps_jw_kint(w, "count", c->count);
        ps_jw_kint(w, "bytes", c->bytes);
        ps_jw_kint(w, "total_ns", c->total_ns);
        ps_jw_kdouble(w, "gbps", c->total_ns > 0 ? (double)c->bytes / (double)c->total_ns : NAN);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "findings");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "rule", g->rule);
        ps_jw_kstr(w, "severity", g->severity);
        ps_jw_kstr(w, "summary", g->summary);
        ps_jw_kint(w, "cost_ns", g->cost_ns);
        ps_jw_kdouble(w, "share", g->share);
        ps_jw_kint(w, "gain_ns", g->gain_ns);
        ps_jw_kint(w, "gain_per_step_ns", g->gain_per_step_ns);
        ps_jw_kstr(w, "fix", g->fix);
        finding_rows(w, r, g);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

/* Several processes with steps: each one's step average, and the stragglers; else null (docs/report.md). */
static void ranks(struct ps_jw *w, const struct ps_report *r)
{
    if (r->nranks < 2) {
        ps_jw_knull(w, "ranks");
        ps_jw_knull(w, "stragglers");
        return;
    }
    ps_jw_key(w, "ranks");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "rank", (int64_t)i);
        ps_jw_kint(w, "pid", k->pid);
        ps_jw_kstr(w, "source", r->trace.path);
        ps_jw_kint(w, "steps", (int64_t)k->nsteps);
        ps_jw_key(w, "step_average");
        ps_jw_map_open(w);
        ps_jw_kint(w, "dur_ns", k->avg_dur_ns);
        breakdown(w, "breakdown_ns", k->cat_ns);
        ps_jw_kint(w, "sync_ns", k->sync_ns);
        ps_jw_map_close(w);
        ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[k->bottleneck]);
        ps_jw_kdouble(w, "share", k->bottleneck == PS_BN_UNKNOWN ? NAN : k->share);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "stragglers");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "rank", (int64_t)g->rank);
        ps_jw_kint(w, "pid", g->pid);
        ps_jw_kdouble(w, "slower_by", g->slower_by);
        ps_jw_kstr(w, "category", ps_cat_key[g->category]);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

/* NVML utilisation over time per device (docs/report.md "gpu_utilization_samples"). */
static void gpu_util(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "gpu_utilization_samples");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nnvml_util; i++) {
        const struct ps_nvml_util_stat *s = &r->nvml_util[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", s->device);
        ps_jw_kint(w, "samples", s->samples);
        ps_jw_kdouble(w, "mean_percent", s->mean_pct);
        ps_jw_kint(w, "min_percent", s->min_pct);
        ps_jw_kint(w, "max_percent", s->max_pct);
        ps_jw_kint(w, "first_ns", s->first_ns);
        ps_jw_kint(w, "last_ns", s->last_ns);
        ps_jw_kint(w, "bucket_ns", s->bucket_ns);
        ps_jw_key(w, "bucket_percent");
        ps_jw_array_open(w);
        for (int b = 0; b < PS_NVML_UTIL_BUCKETS; b++)
            s->bucket_pct[b] < 0 ? ps_jw_null(w) : ps_jw_double(w, s->bucket_pct[b]);
        ps_jw_array_close(w);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

/* What perfscope's Python hook saw (docs/report.md "pytorch"); null without it. Counts -1: null (unknown). */
static void pytorch(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_pytorch *py = r->py;
    ps_jw_key(w, "pytorch");
    if (!py) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ps_jw_kstr(w, "hook", py->mode);
    ps_jw_kstr(w, "torch_version", py->torch_version);
    ps_jw_kint_or_null(w, "cores", py->cores);
    ps_jw_key(w, "loaders");
    ps_jw_array_open(w);
    for (size_t i = 0; i < py->nloaders; i++) {
        const struct ps_py_loader *l = &py->loaders[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "loader", l->number);
        ps_jw_kstr(w, "iterator", l->iterator);
        ps_jw_kint(w, "iterators", l->iterators);
        ps_jw_kint_or_null(w, "num_workers", l->num_workers);
        l->pin_memory < 0 ? ps_jw_knull(w, "pin_memory") : ps_jw_kbool(w, "pin_memory", l->pin_memory);
        l->persistent_workers < 0 ? ps_jw_knull(w, "persistent_workers")
                                  : ps_jw_kbool(w, "persistent_workers", l->persistent_workers);
        ps_jw_kint_or_null(w, "prefetch_factor", l->prefetch_factor);
        ps_jw_kint_or_null(w, "batch_size", l->batch_size);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "workers");
    ps_jw_array_open(w);
    for (size_t i = 0; i < py->nworkers; i++) {
        const struct ps_py_worker *k = &py->workers[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "pid", k->pid);
        ps_jw_kint_or_null(w, "loader", k->loader);
        ps_jw_kint_or_null(w, "id", k->id);
        ps_jw_kint(w, "fetches", k->fetches);
        ps_jw_kint(w, "fetch_ns", k->fetch_ns);
        ps_jw_kint(w, "busy_while_waiting_ns", k->busy_wait_ns);
        ps_jw_kdouble(w, "busy_while_waiting", py->wait_ns > 0 ? (double)k->busy_wait_ns / (double)py->wait_ns : NAN);
        ps_jw_kint_or_null(w, "cpu_ns", k->cpu_ns);
        ps_jw_kdouble(w, "cpu_utilization", k->cpu_ns >= 0 && k->life_ns > 0 ? (double)k->cpu_ns / (double)k->life_ns
                                                                             : NAN);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_kint(w, "data_wait_ns", py->wait_ns);
    ps_jw_kint(w, "first_fetch_wait_ns", py->first_fetch_wait_ns);
    ps_jw_kint(w, "startup_wait_ns", py->startup_wait_ns);
    ps_jw_kint(w, "startups", py->startups);
    ps_jw_kstr(w, "start_method", py->start_method[0] ? py->start_method : NULL);
    ps_jw_kint_or_null(w, "intra_op_threads", py->intra_op_threads);
    ps_jw_kbool(w, "oversubscribed", py->oversubscribed);
    ps_jw_kdouble(w, "sampled_cores", py->sampled_cores);
    ps_jw_kdouble(w, "workers_busy_while_waiting", py->workers_busy);
    py->more_workers < 0 ? ps_jw_knull(w, "more_workers_help") : ps_jw_kbool(w, "more_workers_help", py->more_workers);
    ps_jw_kint_or_null(w, "suggested_num_workers", py->suggest_workers > 0 ? py->suggest_workers : -1);
    ps_jw_key(w, "copies_to_device");
    ps_jw_map_open(w);
    ps_jw_kint(w, "count", py->copies);
    ps_jw_kint(w, "from_pageable", py->copies_pageable);
    ps_jw_kint(w, "blocking", py->copies_blocking);
    ps_jw_map_close(w);
    ps_jw_key(w, "advice");
    ps_jw_array_open(w);
    for (size_t i = 0; i < py->nadvice; i++)
        ps_jw_str(w, py->advice[i]);
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

/* Alerts and warnings (the trace is incomplete, numbers may be low) with their codes; notes as sentences. */
static void messages(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "warnings");
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level == PS_MSG_NOTE)
            continue;
        ps_jw_map_open(w);
        ps_jw_kstr(w, "code", g->code);
        ps_jw_kstr(w, "severity", g->level == PS_MSG_ALERT    ? "alert"
                                  : g->level == PS_MSG_NOTICE ? "notice"
                                                              : "warning");
        ps_jw_kstr(w, "message", g->text);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "notes");   /* what a reader of the numbers must know about how they were computed */
    ps_jw_array_open(w);
    for (size_t i = 0; i < r->nmsgs; i++)
        if (r->msgs[i].level == PS_MSG_NOTE)
            ps_jw_str(w, r->msgs[i].text);
    ps_jw_array_close(w);
}

int ps_render_json(FILE *f, const struct ps_report *r, const struct ps_render_opts *o)
{
    (void)o;   /* JSON has one layout */
    struct ps_jw *w = ps_jw_new(f);
    if (!w)
        return -ENOMEM;
    ps_jw_map_open(w);
    ps_jw_kint(w, "perfscope_report_version", 1);
    source(w, r);
    run(w, r);
    verdict(w, r);
    ps_render_causes_json(w, r);
    steps(w, r);
    hta(w, r);
    tracelens(w, r);
    devices(w, r);
    gpu_util(w, r);
    summaries(w, r);
    ranks(w, r);
    ps_render_process_ranks_json(w, r);
    pytorch(w, r);
    ps_render_memory_json(w, r);
    ps_render_op_perf_json(w, r);
    ps_render_op_efficiency_json(w, r);
    ps_render_setup_json(w, r);
    messages(w, r);
    ps_jw_kdouble(w, "comm_comp_overlap", r->comm_comp_overlap);
    ps_render_rank_summary_json(w, r);   /* last: `report run.*.report.json` finds it from the end */
    ps_jw_map_close(w);
    return ps_jw_free(w) < 0 ? -EIO : 0;
}
