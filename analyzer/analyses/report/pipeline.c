/* ps_report_compute: the single-trace report's orchestrator. It makes the views the analyses read (the rows
 * analysed, the analysed process's), calls every family in one order (run_analyses below) and owns the results the
 * renderers print. The rank analyses run above it (analyses/ranks.h ps_ranks_report_compute). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "memory_impl.h"
#include "analyses/roofline.h"
#include "ps_diag.h"

/* "perfscope" / "nsys" / "kineto": the trace's format as every format of the report names it. */
static const char *format_name(enum ps_format f)
{
    return f == PS_FORMAT_NSYS ? "nsys" : f == PS_FORMAT_KINETO ? "kineto" : "perfscope";
}

/* r->trace from the model: its path, format, tables' sizes, host samples, ranges never ended. 0 or -ENOMEM. */
static int trace_fill(struct ps_report *r)
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
        w->rc = ps_memory_compute(w->m, w->origin_ns, &w->mem);
    return NULL;
}

/* Every analysis, in the order each needs the ones before it: each process's rank; the steps, their breakdown and
 * verdicts (the analysed process, r->scope: the one step pipeline, analyses/verdict.h); the whole-trace measures
 * over r->all (HTA, TraceLens, kernel and copy summaries, the Python hook); the verdict's evidence and numbers, the
 * findings, the recommendations (the verdict's fix, then the costliest findings'); the NVML and trace utilisation
 * timelines; and last the messages, which read all of it. 0 or -ENOMEM. */
static int run_analyses(struct ps_report *r, struct ps_names *names, struct ps_view *sv)
{
    struct side_work w = { .m = r->m, .all = r->all, .origin_ns = r->run_start_ns };
    pthread_t side;
    int threaded = pthread_create(&side, NULL, side_run, &w) == 0;
    if (!threaded)
        side_run(&w);   /* no thread to be had: here, first */
    int rc = ps_graphs_compute(r, r->all, names);
    if (rc == 0)
        rc = ps_proc_ranks_find(r->all, &r->proc_ranks);
    if (rc == 0)
        rc = ps_verdict_steps_compute(r, names, sv);
    if (rc == 0)
        rc = ps_steps_coverage_compute(r, names);
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
        rc = ps_advice_facts_compute(r, names);
    if (rc == 0)
        rc = ps_findings_compute(r, names);
    if (rc == 0)
        ps_recommendations_compute(r);
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
        rc = ps_messages_compute(r);
    ps_summary_tables_fini(&w.tables);
    ps_memory_free(w.mem);
    return rc;
}

int ps_report_compute(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                      const struct ps_waited_rank *waited, char *err, size_t errlen)
{
    const struct ps_model *m = rows->m;
    struct ps_names *names = NULL;
    struct ps_view sv = { 0 };
    memset(r, 0, sizeof *r);
    r->m = m;
    r->opts = *o;
    r->gpu_util = r->comm_comp_overlap = NAN;
    r->step_tid = -1;
    if (waited)
        r->waited = *waited;
    r->all = calloc(1, sizeof *r->all);
    r->scope = calloc(1, sizeof *r->scope);
    int rc = r->all && r->scope ? trace_fill(r) : -ENOMEM;
    if (rc == 0 && (rc = ps_view_copy(r->all, rows)) == -EINVAL) {
        ps_err(err, errlen, rc, "%s: a retimed view cannot be analysed (the report retimes its own rows under "
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
        rc = ps_err(err, errlen, -EINVAL, "%s: the events span more than %d days (first start %lld ns, last end "
                    "%lld ns): its timestamps look corrupt", m->path, (int)(PS_MAX_SPAN_NS / 86400000000000ll),
                    (long long)r->run_start_ns, (long long)r->run_end_ns);
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
        ps_err(err, errlen, rc, "out of memory while analysing %s", m->path);
    ps_names_free(names);
    ps_view_fini(&sv);
    if (rc < 0)
        ps_report_fini(r);
    return rc;
}

void ps_report_fini(struct ps_report *r)
{
    if (r->ranks_fini)
        r->ranks_fini(r);   /* the ranks family's parts (analyses/ranks.h) */
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
    free(r->util);
    free(r->nvml_util);
    ps_pytorch_free(r->py);
    ps_memory_free(r->mem);
    ps_op_efficiency_free(r->opeff);
    free(r->backlog.spans);
    ps_proc_ranks_fini(&r->proc_ranks);
    *r = (struct ps_report){ 0 };
}
