/* ps_report_build / ps_report_build_view: the orchestrator. It makes the views the analyses read (the rows analysed,
 * the analysed process's, tb's retimed ones), calls every analysis in one order (run_analyses below) and owns the
 * results the renderers print. The small queries the analyses ask of a report are report_query.c's. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "memory_impl.h"
#include "analyses/roofline.h"

/* Longest run analysed: 2^50 ns, about 13 days. Longer spans come from corrupt timestamps, and bounding the span
 * keeps every sum of durations far from int64 overflow. */
#define PS_MAX_SPAN_NS (1ll << 50)

/* "perfscope" / "nsys" / "kineto": the trace's format as every format of the report names it. */
static const char *format_name(enum ps_format f)
{
    return f == PS_FORMAT_NSYS ? "nsys" : f == PS_FORMAT_KINETO ? "kineto" : "perfscope";
}

int ps_report_trace_fill(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_trace_info *t = &r->trace;
    *t = (struct ps_trace_info){ .path = m->path, .format = format_name(m->format), .processes = m->procs.n,
                                 .threads = m->threads.n, .unplaced_events = m->unplaced_events,
                                 .samples = { m->samples.n, m->samples.first_ns, m->samples.last_ns,
                                              m->samples.cpu_ns },
                                 .nmeta = m->meta.n };
    if (m->open_ranges.n == 0)
        return 0;
    if (!(t->open = calloc(m->open_ranges.n, sizeof *t->open)))
        return -ENOMEM;
    for (size_t i = 0; i < m->open_ranges.n; i++) {
        const struct ps_range *o = &m->open_ranges.v[i];
        const struct ps_thread *th = o->thread < m->threads.n ? &m->threads.v[o->thread] : NULL;
        const char *name = ps_model_str(m, o->name);
        t->open[i] = (struct ps_open_range){ .name = *name ? name : NULL, .domain = ps_report_name(r, o->domain),
                                             .pid = th ? (int64_t)th->pid : -1, .tid = th ? (int64_t)th->tid : -1,
                                             .start_ns = o->start_ns };
    }
    t->nopen = m->open_ranges.n;
    return 0;
}

/* The span of the analysed rows (r->all): first start .. last end; 0, 0 without rows. */
static void run_span(struct ps_report *r)
{
    const struct ps_view *v = r->all;
    int64_t a = INT64_MAX, b = INT64_MIN;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        int64_t end = ps_view_row_end(v, g);
        a = g->start_ns < a ? g->start_ns : a;
        b = end > b ? end : b;
    }
    for (size_t i = 0; i < v->napi; i++) {
        const struct ps_api_call *c = ps_view_api(v, i);
        a = c->start_ns < a ? c->start_ns : a;
        b = c->end_ns > b ? c->end_ns : b;
    }
    for (size_t i = 0; i < v->nranges; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        a = g->start_ns < a ? g->start_ns : a;
        b = g->end_ns > b ? g->end_ns : b;
    }
    if (a > b)
        a = b = 0;
    r->run_start_ns = a;
    r->run_end_ns = b;
    r->ngpu_rows = v->ngpu;
    r->napi_calls = v->napi;
    r->nranges = v->nranges;
    r->nevents = v->ngpu + v->napi + v->nranges;
}

/* ---- --compat tb on Kineto traces: tb's float64 µs arithmetic ----
 * tb_plugin keeps `ts` and `dur` as Python floats in µs (as written in the JSON, i.e. relative to
 * baseTimeNanoseconds when the trace has one) and computes end = ts + dur in float64. On absolute
 * ns-resolution timestamps (~1.7e15 µs) a float64 holds only multiples of 0.25 µs, which moves tb's
 * step breakdown by several µs. Every float64 in that range is a whole number of ns, so redoing tb's
 * rounding on the times gives tb's numbers exactly with integer arithmetic afterwards. */
static int64_t us_double_to_ns(double us)
{
    double q = floor(us);
    return (int64_t)q * 1000 + llround((us - q) * 1000.0);   /* us - q is exact */
}

static void tb_round(int64_t base, int64_t *start, int64_t *end)
{
    double ts = ps_ns_to_us_double(*start - base), dur = (double)(*end - *start) / 1000.0;
    *start = base + us_double_to_ns(ts);
    *end = base + us_double_to_ns(ts + dur);
}

/* ps_view_retime's callback: a time pair as tb sees it (ctx: baseTimeNanoseconds). */
static void tb_retime(void *ctx, int64_t *start, int64_t *end)
{
    tb_round(*(const int64_t *)ctx, start, end);
}

/* The view steps and their breakdown are computed on: the analysed process (the one holding most step ranges),
 * with tb's rounded times under --compat tb on Kineto traces. */
static int steps_view(const struct ps_report *r, int tb_times, int64_t *tb_base, struct ps_view *v)
{
    int rc = r->scoped ? ps_view_process(v, r->all, r->pid) : ps_view_copy(v, r->all);
    if (rc == 0 && tb_times && (rc = ps_view_retime(v, tb_retime, tb_base)) < 0)
        ps_view_fini(v);
    return rc;
}

/* Steps inferred from the kernel sequence of the whole trace (--steps auto without step ranges, --steps infer),
 * seen as the steps are (tb's times under --compat tb). Inference names the process the steps belong to: the
 * analysed process (r->scope) and the steps' view *sv become that process's before the steps get their windows. */
static int infer_steps(struct ps_report *r, int tb_times, int64_t *tb_base, struct ps_view *sv)
{
    struct ps_view whole = { 0 };
    const struct ps_view *from = sv;
    uint32_t pid = r->pid;
    int scoped = r->scoped, rc = 0;
    if (scoped) {   /* --steps infer beside step ranges: the ranges' process view is not the whole trace */
        r->scoped = 0;
        rc = steps_view(r, tb_times, tb_base, &whole);
        r->scoped = 1;
        from = &whole;
    }
    if (rc < 0 || (rc = ps_steps_infer(r, from)) < 0 || !r->steps_inferred)
        goto out;
    if (r->scoped != scoped || r->pid != pid) {
        ps_view_fini(r->scope);
        ps_view_fini(sv);
        rc = r->scoped ? ps_view_process(r->scope, r->all, r->pid) : ps_view_copy(r->scope, r->all);
        if (rc < 0)
            goto out;
        if ((rc = steps_view(r, tb_times, tb_base, sv)) < 0)
            goto out;
    }
    rc = ps_steps_windows(r, sv);
out:
    ps_view_fini(&whole);
    return rc;
}

int ps_report_build(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                    char *err, size_t errlen)
{
    struct ps_view all;
    ps_view_all(&all, m);
    return ps_report_build_view(r, &all, o, err, errlen);
}

/* The steps of the analysed process and their breakdown, as tb computes them: found from step ranges, else
 * inferred (--steps), in the steps' view *sv (tb's times under --compat tb on Kineto traces). */
static int steps_and_breakdown(struct ps_report *r, struct ps_names *names, struct ps_view *sv)
{
    int64_t tb_base = 0;
    int tb_times = r->opts.compat_tb && r->m->format == PS_FORMAT_KINETO;
    if (tb_times)
        tb_base = ps_report_kineto_base_ns(r);
    int rc = steps_view(r, tb_times, &tb_base, sv);
    if (rc == 0 && (rc = ps_steps_find(r, sv, names)) == 0 && ps_steps_want_inference(r))
        rc = infer_steps(r, tb_times, &tb_base, sv);
    if (rc == 0) {
        ps_warmup_skip(r);   /* --skip-steps: before every average */
        rc = ps_breakdown_compute(r, sv, names);
    }
    if (rc == 0)
        rc = ps_warmup_compute(r);
    return rc;
}

/* The analyses that read the model and r->all only, never the rest of the report: the kernel and copy tables and
 * the memory view. run_analyses has a second thread make them while it runs the others (two cores: about the
 * time of the shorter side saved on large traces), and takes their results where the memory view's warnings join
 * the recommendations, so the report is the same (no analysis reads the kernel and copy tables; renderers do). */
struct side_work {
    const struct ps_model *m;
    const struct ps_view *all;
    int64_t origin_ns;
    struct ps_summary_tables tables;
    struct ps_memory *mem;
    int rc;
};

static void *side_run(void *arg)
{
    struct side_work *w = arg;
    w->rc = ps_summary_tables_compute(&w->tables, w->all);
    if (w->rc == 0)
        w->rc = ps_memory_build(w->m, w->origin_ns, &w->mem);
    return NULL;
}

/* Every analysis, in the order each needs the ones before it: the steps and their breakdown (the analysed process,
 * r->scope), the whole-trace measures over r->all (HTA, TraceLens, kernel and copy summaries, the Python hook),
 * the verdict and its evidence, the findings, the recommendations (the verdict's fix, then the costliest
 * findings'), the per-process ranks, the NVML and trace utilisation timelines, and last the messages, which read
 * all of it. 0 or -ENOMEM. */
static int run_analyses(struct ps_report *r, struct ps_names *names, struct ps_view *sv)
{
    struct side_work w = { .m = r->m, .all = r->all, .origin_ns = r->run_start_ns };
    pthread_t side;
    int threaded = pthread_create(&side, NULL, side_run, &w) == 0;
    if (!threaded)
        side_run(&w);   /* no thread to be had: here, first */
    int rc = ps_graphs_compute(r, r->all, names);
    if (rc == 0)
        rc = ps_process_ranks_compute(r);
    if (rc == 0)
        rc = steps_and_breakdown(r, names, sv);
    if (rc == 0)
        rc = ps_hta_compute(r, r->all, names);
    if (rc == 0)
        rc = ps_tracelens_compute(r, r->all, names);
    if (rc == 0)
        rc = ps_summary_devices_compute(r, r->all);
    if (rc == 0)
        rc = ps_pytorch_compute(r, r->all, r->scope, names);
    if (rc == 0)
        rc = ps_verdict_compute(r, names);
    if (rc == 0)
        rc = ps_findings_compute(r, names);
    if (rc == 0)
        ps_recommendations_compute(r);
    if (rc == 0)
        rc = ps_ranks_compute(r, names);
    if (rc == 0)
        rc = ps_nvml_util_compute(r);
    if (rc == 0)
        rc = ps_util_compute(r);
    if (threaded)   /* as late as the memory warnings' place: nothing before reads the tables (renderers do) */
        pthread_join(side, NULL);
    if (rc == 0 && (rc = w.rc) == 0) {
        ps_summary_tables_give(r, &w.tables);
        rc = ps_memory_give(r, w.mem);
        w.mem = NULL;
    }
    if (rc == 0)
        rc = ps_rank_summary_compute(r, names);
    if (rc == 0)
        rc = ps_messages_compute(r);
    ps_summary_tables_fini(&w.tables);
    ps_memory_free(w.mem);
    return rc;
}

int ps_report_build_view(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                         char *err, size_t errlen)
{
    const struct ps_model *m = rows->m;
    struct ps_names *names = NULL;
    struct ps_view sv = { 0 };
    memset(r, 0, sizeof *r);
    r->m = m;
    r->opts = *o;
    r->gpu_util = r->comm_comp_overlap = NAN;
    r->step_tid = -1;
    r->all = calloc(1, sizeof *r->all);
    r->scope = calloc(1, sizeof *r->scope);
    int rc = r->all && r->scope ? ps_report_trace_fill(r) : -ENOMEM;
    if (rc == 0 && (rc = ps_view_copy(r->all, rows)) == -EINVAL) {
        snprintf(err, errlen, "%s: a retimed view cannot be analysed (the report retimes its own rows under "
                              "--compat tb)", m->path);
        goto out;
    }
    if (rc < 0 || (rc = ps_names_new(&names, m, o, err, errlen)) < 0)
        goto out;
    for (size_t i = 0; i < r->all->ngpu && !r->has_gpu; i++)
        r->has_gpu = ps_view_gpu_attr(r->all, ps_view_gpu_row(r->all, i))->kind != PS_GPU_SYNC;
    run_span(r);
    int64_t span;
    if (__builtin_sub_overflow(r->run_end_ns, r->run_start_ns, &span) || span > PS_MAX_SPAN_NS) {
        snprintf(err, errlen, "%s: the events span more than %d days (first start %lld ns, last end %lld ns): "
                              "its timestamps look corrupt", m->path, (int)(PS_MAX_SPAN_NS / 86400000000000ll),
                 (long long)r->run_start_ns, (long long)r->run_end_ns);
        rc = -EINVAL;
        goto out;
    }
    if ((rc = ps_steps_pick_process(r->all, names, &r->pid, &r->step_ranges_found)) < 0)
        goto out;
    r->scoped = r->pid != PS_NONE;
    rc = r->scoped ? ps_view_process(r->scope, r->all, r->pid) : ps_view_copy(r->scope, r->all);
    if (rc == 0)
        rc = run_analyses(r, names, &sv);
    if (rc == 0 && r->step_thread != PS_NONE)
        r->step_tid = m->threads.v[r->step_thread].tid;
out:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory while analysing %s", m->path);
    ps_names_free(names);
    ps_view_fini(&sv);
    if (rc < 0)
        ps_report_fini(r);
    return rc;
}

void ps_report_fini(struct ps_report *r)
{
    ps_messages_fini(r);
    if (r->scope)
        ps_view_fini(r->scope);
    if (r->all)
        ps_view_fini(r->all);
    free(r->scope);
    free(r->all);
    free(r->trace.open);
    free(r->steps);
    free(r->devs);
    free(r->idle);
    free(r->kernels);
    free(r->copies);
    free(r->ranks);
    free(r->stragglers);
    free(r->util);
    free(r->nvml_util);
    ps_pytorch_free(r->py);
    ps_memory_free(r->mem);
    ps_op_efficiency_free(r->opeff);
    free(r->backlog.spans);
    if (r->rank_summary)
        ps_rank_file_fini(r->rank_summary);
    free(r->rank_summary);
    ps_process_ranks_free(r);
    *r = (struct ps_report){ 0 };
}
