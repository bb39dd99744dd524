/* Rooflines per op group and MFU per step (analyses/roofline.h, docs/op-perf-roofline.md). The roofline follows
 * TraceLens' definition (TraceLens/TreePerf/tree_perf.py, compute_perf_metrics: roofline time = max(FLOPs / peak,
 * bytes / bandwidth), COMPUTE_BOUND when the compute time is the larger), with vendor peaks instead of a
 * user-supplied file; MFU is perfscope's own: the time the step's modeled matrix FLOPs need at the matrix peak of
 * their precision, over the step's duration (FLOPs / (T x peak) when one precision is used). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/roofline.h"

const char *const ps_roof_bound_name[] = { "compute", "memory", "unknown" };

/* The peak (TFLOPS) for a group on gpu, NAN when none: vector work of a precision without a published vector
 * peak runs at least at the vector fp32 rate. */
static double group_peak(const struct ps_gpu_peak *gpu, const struct ps_roof_group *g)
{
    if (!gpu || g->prec < 0 || g->prec >= PS_PREC_N)
        return NAN;
    double p = ps_gpu_peak_tflops(gpu, g->matrix, (enum ps_precision)g->prec);
    if (isnan(p) && !g->matrix)
        p = gpu->vector_tflops[PS_PREC_FP32];
    return p;
}

/* The step whose window holds t, or nsteps. Windows are ascending and do not overlap. */
static size_t step_of(const int64_t *starts, const int64_t *ends, size_t nsteps, int64_t t)
{
    size_t lo = 0, hi = nsteps;   /* first step starting after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && t < ends[lo - 1] ? lo - 1 : nsteps;
}

static void finish_row(struct ps_roof_row *row)
{
    double k = (double)row->kernel_ns;
    row->bound = isnan(row->compute_ns) || isnan(row->memory_ns) ? PS_BOUND_UNKNOWN
                 : row->compute_ns >= row->memory_ns             ? PS_BOUND_COMPUTE
                                                                 : PS_BOUND_MEMORY;
    row->pct_of_roofline = k > 0 ? 100.0 * row->roofline_ns / k : NAN;
    row->recoverable_ns = isnan(row->roofline_ns) ? NAN : fmax(0.0, k - row->roofline_ns);
    row->tflops_s = k > 0 ? row->flops / k / 1e3 : NAN;      /* FLOPs per ns = 1e9 FLOPS = 1e-3 TFLOPS */
    row->tb_s = k > 0 ? row->bytes / k / 1e3 : NAN;          /* bytes per ns = 1e9 B/s = 1e-3 TB/s */
    row->flops_per_byte = row->bytes > 0 ? row->flops / row->bytes : NAN;
}

static int by_recoverable(const void *a, const void *b)
{
    const struct ps_roof_row *x = a, *y = b;
    double rx = isnan(x->recoverable_ns) ? -1 : x->recoverable_ns, ry = isnan(y->recoverable_ns) ? -1
                                                                                                   : y->recoverable_ns;
    if (rx != ry)
        return rx < ry ? 1 : -1;
    return x->kernel_ns < y->kernel_ns ? 1 : x->kernel_ns > y->kernel_ns ? -1 : 0;
}

/* Add one modeled call to its group's row and to its step. */
static void add_modeled(struct ps_roofline *out, struct ps_roof_row *row, const struct ps_roof_call *c,
                        const struct ps_gpu_peak *gpu, struct ps_mfu_step *step, double *untimed_ideal)
{
    double n = (double)(c->count > 0 ? c->count : 1), peak = row->peak_tflops;
    double compute = c->flops / (peak * 1e3), memory = gpu ? c->bytes / gpu->mem_gbps : NAN;  /* ns per call */
    row->flops += n * c->flops;
    row->bytes += n * c->bytes;
    row->compute_ns += n * compute;
    row->memory_ns += n * memory;
    row->roofline_ns += n * fmax(compute, memory);   /* fmax: NAN only when both are */
    if (isnan(compute) || isnan(memory))
        row->roofline_ns = NAN;
    out->modeled_kernel_ns += c->kernel_ns;
    int counts = gpu && row->g.matrix && !isnan(peak) && c->flops > 0;
    if (c->start_ns == PS_ROOF_NO_TIME) {
        if (counts) {
            *untimed_ideal += n * compute;
            out->matrix_flops += n * c->flops;
        }
        return;
    }
    if (!step)
        return;
    step->modeled_kernel_ns += c->kernel_ns;
    if (counts) {
        step->matrix_flops += n * c->flops;
        step->ideal_ns += n * compute;
    }
}

/* The unmodeled groups with the most GPU time (in the steps when there are steps) into out->unmodeled. */
static void top_unmodeled(struct ps_roofline *out, const struct ps_roof_group *groups, size_t ngroups,
                          const int64_t *calls, const int64_t *ns)
{
    for (size_t g = 0; g < ngroups; g++) {
        size_t n = out->nunmodeled;
        if (groups[g].modeled || ns[g] <= 0 ||
            (n == PS_ROOF_UNMODELED_TOP && out->unmodeled[n - 1].kernel_ns >= ns[g]))
            continue;
        size_t i = n < PS_ROOF_UNMODELED_TOP ? n : n - 1;   /* insert, the last one falling off when full */
        out->nunmodeled = i + 1;
        for (; i > 0 && out->unmodeled[i - 1].kernel_ns < ns[g]; i--)
            out->unmodeled[i] = out->unmodeled[i - 1];
        out->unmodeled[i].name = groups[g].name;
        out->unmodeled[i].calls = calls[g];
        out->unmodeled[i].kernel_ns = ns[g];
    }
}

static void finish_steps(struct ps_roofline *out, double untimed_ideal, int64_t untimed_unmodeled_ns)
{
    double ideal = untimed_ideal, dur = 0, unmodeled = (double)untimed_unmodeled_ns;
    for (size_t s = 0; s < out->nsteps; s++) {
        struct ps_mfu_step *st = &out->steps[s];
        double d = (double)(st->end_ns - st->start_ns);
        st->mfu = d > 0 && out->has_gpu ? st->ideal_ns / d : NAN;
        st->unmodeled_share = d > 0 ? (double)st->unmodeled_kernel_ns / d : NAN;
        ideal += st->ideal_ns;
        dur += d;
        unmodeled += (double)st->unmodeled_kernel_ns;
        out->matrix_flops += st->matrix_flops;
    }
    out->mfu = dur > 0 && out->has_gpu ? ideal / dur : NAN;
    out->unmodeled_share = dur > 0 ? unmodeled / dur : NAN;
}

int ps_roofline_compute(struct ps_roofline *out, const struct ps_gpu_peak *gpu, const struct ps_roof_group *groups,
                        size_t ngroups, const struct ps_roof_call *calls, size_t ncalls, const int64_t *starts,
                        const int64_t *ends, size_t nsteps)
{
    *out = (struct ps_roofline){ .mfu = NAN, .unmodeled_share = NAN, .match_how = "none" };
    struct ps_roof_row *rows = calloc(ngroups ? ngroups : 1, sizeof *rows);
    int64_t *un_calls = calloc(ngroups ? ngroups : 1, sizeof *un_calls);
    int64_t *un_ns = calloc(ngroups ? ngroups : 1, sizeof *un_ns);
    out->steps = calloc(nsteps ? nsteps : 1, sizeof *out->steps);
    int rc = rows && un_calls && un_ns && out->steps ? 0 : -ENOMEM;
    if (gpu) {
        out->gpu = *gpu;
        out->has_gpu = 1;
    }
    for (size_t s = 0; rc == 0 && s < nsteps; s++) {
        out->steps[s].start_ns = starts[s];
        out->steps[s].end_ns = ends[s];
    }
    out->nsteps = rc == 0 ? nsteps : 0;
    for (size_t g = 0; rc == 0 && g < ngroups; g++) {
        rows[g].g = groups[g];
        rows[g].peak_tflops = group_peak(gpu, &groups[g]);
    }
    double untimed_ideal = 0;
    int64_t untimed_unmodeled_ns = 0;
    for (size_t i = 0; rc == 0 && i < ncalls; i++) {
        const struct ps_roof_call *c = &calls[i];
        if (c->group >= ngroups) {
            rc = -EINVAL;
            break;
        }
        int untimed = c->start_ns == PS_ROOF_NO_TIME;
        size_t s = untimed ? nsteps : step_of(starts, ends, nsteps, c->start_ns);
        struct ps_mfu_step *step = s < nsteps ? &out->steps[s] : NULL;
        int64_t n = c->count > 0 ? c->count : 1;
        rows[c->group].calls += n;
        rows[c->group].kernel_ns += c->kernel_ns;
        out->untimed_calls += untimed ? n : 0;
        if (groups[c->group].modeled) {
            add_modeled(out, &rows[c->group], c, gpu, step, &untimed_ideal);
            continue;
        }
        out->unmodeled_kernel_ns += c->kernel_ns;
        untimed_unmodeled_ns += untimed ? c->kernel_ns : 0;
        if (step)
            step->unmodeled_kernel_ns += c->kernel_ns;
        if (step || untimed || !nsteps) {
            un_calls[c->group] += n;
            un_ns[c->group] += c->kernel_ns;
        }
    }
    if (rc == 0) {
        size_t n = 0;
        for (size_t g = 0; g < ngroups; g++)
            if (groups[g].modeled && rows[g].calls > 0) {
                rows[n] = rows[g];
                finish_row(&rows[n++]);
            }
        qsort(rows, n, sizeof *rows, by_recoverable);
        out->rows = rows;
        out->nrows = n;
        rows = NULL;
        top_unmodeled(out, groups, ngroups, un_calls, un_ns);
        finish_steps(out, untimed_ideal, untimed_unmodeled_ns);
    }
    free(rows);
    free(un_calls);
    free(un_ns);
    if (rc < 0)
        ps_roofline_fini(out);
    return rc;
}

void ps_roofline_fini(struct ps_roofline *r)
{
    free(r->rows);
    free(r->steps);
    *r = (struct ps_roofline){ .mfu = NAN, .unmodeled_share = NAN, .match_how = "none" };
}
