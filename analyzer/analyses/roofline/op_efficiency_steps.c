/* Per-step MFU (analyses/roofline.h ps_op_efficiency_steps_compute): the operator model (analyses/op_perf.h) of the
 * ops each step's host range holds, built on a view of the trace's events that keeps only them and the GPU work
 * they launched, against the report's GPU peaks. docs/op-perf-roofline.md "Per step: MFU". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "analyses/roofline.h"
#include "model/op_trace.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int has_key(const int64_t *keys, size_t n, int64_t k)
{
    return bsearch(&k, keys, n, sizeof *keys, cmp_i64) != NULL;
}

/* The events of t a step [lo_us, hi_us) holds: host ops and launch calls starting in it, and the GPU work whose
 * correlation or External id one of those calls carries (the tree links them by flows or correlation). */
static size_t select_step(const struct ps_op_trace *t, double lo_us, double hi_us, struct ps_op_event *out,
                          int64_t *keys)
{
    size_t n = 0, nk = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        const struct ps_op_event *e = &t->ev.v[i];
        int host = e->cat == PS_OPEV_CPU_OP || e->cat == PS_OPEV_RUNTIME || e->cat == PS_OPEV_DRIVER;
        if (!host || e->ts_us < lo_us || e->ts_us >= hi_us)
            continue;
        out[n++] = *e;
        if (e->cat != PS_OPEV_CPU_OP && e->has_corr)
            keys[nk++] = e->corr;
        if (e->cat != PS_OPEV_CPU_OP && e->has_ext)
            keys[nk++] = e->ext;
    }
    qsort(keys, nk, sizeof *keys, cmp_i64);
    for (size_t i = 0; nk && i < t->ev.n; i++) {
        const struct ps_op_event *e = &t->ev.v[i];
        int gpu = e->cat == PS_OPEV_KERNEL || e->cat == PS_OPEV_MEMCPY || e->cat == PS_OPEV_MEMSET;
        if (gpu && ((e->has_corr && has_key(keys, nk, e->corr)) || (e->has_ext && has_key(keys, nk, e->ext))))
            out[n++] = *e;
    }
    /* the tree reads events in file order, as the trace holds them: restore it */
    return n;
}

static int by_uid(const void *a, const void *b)
{
    const struct ps_op_event *x = a, *y = b;
    return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* Step s's figures from the model of its ops. */
static void step_figures(struct ps_mfu_step *st, const struct ps_op_perf *p, const struct ps_gpu_peak *g)
{
    for (size_t k = 0; k < p->nrows; k++) {
        const struct ps_op_perf_row *w = &p->rows[k];
        const char *u = strchr(w->compute_spec, '_');
        enum ps_precision prec;
        double peak = u && ps_precision_from_name(u + 1, strlen(u + 1), &prec) ? ps_gpu_peak_tflops(g, 1, prec) : NAN;
        st->modeled_kernel_ns += (int64_t)llround(w->kernel_time_ns_total);
        if (!w->is_matrix || isnan(peak) || !(w->flops_total > 0))
            continue;
        st->matrix_flops += w->flops_total;
        st->ideal_ns += w->flops_total / (peak * 1e3);
    }
    for (size_t k = 0; k < p->nunmodeled; k++)
        st->unmodeled_kernel_ns += (int64_t)llround(p->unmodeled[k].kernel_time_us * 1e3);
    double d = (double)(st->end_ns - st->start_ns);
    st->mfu = d > 0 ? st->ideal_ns / d : NAN;
    st->unmodeled_share = d > 0 ? (double)st->unmodeled_kernel_ns / d : NAN;
}

int ps_op_efficiency_steps_compute(struct ps_report *r, const struct ps_op_trace *t)
{
    struct ps_op_efficiency *e = r->opeff;
    if (!e || !e->has_shapes || !e->roof.has_gpu || !t || r->whole_run || !r->nsteps || r->steps_inferred)
        return 0;
    struct ps_mfu_step *steps = calloc(r->nsteps, sizeof *steps);
    struct ps_op_event *ev = malloc((t->ev.n + 1) * sizeof *ev);
    int64_t *keys = malloc((2 * t->ev.n + 1) * sizeof *keys);
    int rc = steps && ev && keys ? 0 : -ENOMEM;
    double ideal = 0, dur = 0, unmodeled = 0;
    int64_t base = ps_report_kineto_base_ns(r);   /* the model's ns = Kineto's µs ts + baseTimeNanoseconds */
    for (size_t s = 0; rc == 0 && s < r->nsteps; s++) {
        const struct ps_step *st = &r->steps[s];
        struct ps_op_trace sub = *t;   /* the trace's strings, arguments and flows; only the events differ */
        sub.ev.n = select_step(t, (double)(st->host_start_ns - base) / 1e3,
                               (double)(st->host_end_ns - base) / 1e3, ev, keys);
        qsort(ev, sub.ev.n, sizeof *ev, by_uid);
        sub.ev.v = ev;
        struct ps_op_perf p;
        steps[s] = (struct ps_mfu_step){ .start_ns = st->start_ns, .end_ns = st->end_ns };
        if ((rc = ps_op_perf_compute(&sub, &p)) < 0)
            break;
        step_figures(&steps[s], &p, &e->roof.gpu);
        ps_op_perf_fini(&p);
        ideal += steps[s].ideal_ns;
        dur += (double)(st->end_ns - st->start_ns);
        unmodeled += (double)steps[s].unmodeled_kernel_ns;
    }
    free(ev);
    free(keys);
    if (rc < 0) {
        free(steps);
        return rc;
    }
    free(e->roof.steps);
    e->roof.steps = steps;
    e->roof.nsteps = r->nsteps;
    e->roof.untimed_calls = 0;             /* every step's calls are now placed */
    e->roof.mfu = dur > 0 ? ideal / dur : NAN;
    e->roof.unmodeled_share = dur > 0 ? unmodeled / dur : NAN;
    e->per_step = 1;
    return 0;
}
