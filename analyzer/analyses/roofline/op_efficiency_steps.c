/* Per-step MFU (analyses/roofline.h ps_op_efficiency_steps_compute): the operator model (analyses/op_perf.h) of the
 * ops that start in each step's host range, each with the GPU work of its whole subtree, against the report's GPU
 * peaks; one operator tree for all the steps (ps_op_perf_windows). docs/op-perf-roofline.md "Per step: MFU". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "analyses/roofline.h"

/* Step s's figures from the model of its ops (ps_op_perf's figures of each op group: its compute spec's peak). */
static void step_figures(struct ps_mfu_step *st, const struct ps_op_window_model *p, const struct ps_gpu_peak *g)
{
    for (size_t k = 0; k < p->ngroups; k++) {
        const struct ps_op_window_group *w = &p->groups[k];
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

struct steps_pass {
    struct ps_mfu_step *steps;
    const struct ps_report *r;
    const struct ps_gpu_peak *g;
    double ideal, dur, unmodeled;
};

/* Step k's figures from the model of its ops (ps_op_perf_windows calls the steps in order). */
static int step_done(void *ctx, size_t k, const struct ps_op_window_model *p)
{
    struct steps_pass *x = ctx;
    const struct ps_step *st = &x->r->steps[k];
    x->steps[k] = (struct ps_mfu_step){ .start_ns = st->start_ns, .end_ns = st->end_ns };
    step_figures(&x->steps[k], p, x->g);
    x->ideal += x->steps[k].ideal_ns;
    x->dur += (double)(st->end_ns - st->start_ns);
    x->unmodeled += (double)x->steps[k].unmodeled_kernel_ns;
    return 0;
}

int ps_op_efficiency_steps_compute(struct ps_report *r, const struct ps_op_trace *t)
{
    struct ps_op_efficiency *e = r->opeff;
    if (!e || !e->has_shapes || !e->roof.has_gpu || !t || r->whole_run || !r->nsteps || r->steps_inferred)
        return 0;
    struct steps_pass x = { .steps = calloc(r->nsteps, sizeof *x.steps), .r = r, .g = &e->roof.gpu };
    struct ps_op_window *w = malloc(r->nsteps * sizeof *w);
    int rc = x.steps && w ? 0 : -ENOMEM;
    int64_t base = ps_report_kineto_base_ns(r);   /* the model's ns = Kineto's µs ts + baseTimeNanoseconds */
    for (size_t s = 0; rc == 0 && s < r->nsteps; s++)   /* the ops its host range (ProfilerStep#N) holds */
        w[s] = (struct ps_op_window){ (double)(r->steps[s].host_start_ns - base) / 1e3,
                                      (double)(r->steps[s].host_end_ns - base) / 1e3 };
    if (rc == 0)
        rc = ps_op_perf_windows(t, w, r->nsteps, step_done, &x);
    free(w);
    if (rc < 0) {
        free(x.steps);
        return rc;
    }
    free(e->roof.steps);
    e->roof.steps = x.steps;
    e->roof.nsteps = r->nsteps;
    e->roof.untimed_calls = 0;             /* every step's calls are now placed */
    e->roof.mfu = x.dur > 0 ? x.ideal / x.dur : NAN;
    e->roof.unmodeled_share = x.dur > 0 ? x.unmodeled / x.dur : NAN;
    e->per_step = 1;
    return 0;
}
