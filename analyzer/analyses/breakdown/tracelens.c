/* TraceLens' GPU timeline (TraceLens TreePerf get_df_gpu_timeline + gpu_event_analyser.py, with its default
 * include_unlinked_kernels=False; docs/report.md): over the GPU events linked to a launch
 * recorded in the trace, all devices merged into one timeline, no step filter: computation, exposed communication,
 * exposed memcpy and idle between the first and the last such event. With recompute functions in the trace
 * (torch/utils/checkpoint.py recompute_fn), the events they launched and the others form two more rows, each with
 * its own span (TraceLens --detect_recompute). Beside it, perfscope's own per-device view over every GPU event.
 * Both read the rows of the view they are given (the whole trace, in `report`). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define MAX_DEVS 64

enum { TL_COMP, TL_COMM, TL_COPY };

struct tl_sets {
    int64_t first, last;   /* first start, last end, zero-length events included (TraceLens' merged first/last) */
    int64_t events;
    struct ps_sweep w;     /* over the set's events (start order): computation, communication, memcpy */
    int64_t comp_ns, comm_ns, copy_ns, all_ns;   /* computation, exposed comm, exposed memcpy, any */
};

static void tl_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct tl_sets *d = ctx;
    d->all_ns += e - s;
    if (active & (1u << TL_COMP))
        d->comp_ns += e - s;
    else if (active & (1u << TL_COMM))
        d->comm_ns += e - s;   /* communication not hidden under computation */
    else
        d->copy_ns += e - s;   /* memcpy under neither */
}

static void tl_add(struct tl_sets *d, int cat, const struct ps_gpu_op *op)
{
    if (d->events++ == 0) {
        d->first = op->start_ns;
        d->last = op->end_ns;
        ps_sweep_init(&d->w, 3, tl_piece, d);
    }
    if (op->end_ns > d->last)
        d->last = op->end_ns;
    ps_sweep_add(&d->w, cat, op->start_ns, op->end_ns);
}

/* gpu_event_analyser.py: gpu_memcpy and ROCm's copy kernels are memcpy; kernels and memsets named
 * rccl / nccl / cross_device_reduce are communication; the rest (memsets and fill kernels too) computation. */
static int tl_category(const struct ps_gpu_op *op, struct ps_names *names)
{
    unsigned f = ps_names_flags(names, op->name);
    if (op->kind == PS_GPU_MEMCPY || (op->kind == PS_GPU_KERNEL && (f & PS_NAME_ROCM_COPY)))
        return TL_COPY;
    return f & PS_NAME_TL_COMM ? TL_COMM : TL_COMP;
}

/* TraceLens' link (Trace2Tree add_gpu_ops_to_tree): a runtime / driver call in the trace with the op's correlation
 * id, and either a complete ac2g flow ending on the op, or a graph launch (which takes every op of its id). A trace
 * without ac2g flows (nsys, perfscope, pre-2.0 Kineto) links by correlation id alone (r->tl_by_flows = 0). */
static int tl_linked(const struct ps_view *v, const struct ps_gpu_op *op)
{
    const struct ps_model *m = v->m;
    if (op->launch == PS_NONE)
        return 0;
    if (!m->has_flows)
        return 1;
    const char *name = ps_model_str(m, ps_view_api_at(v, op->launch)->name);
    return ps_model_flow_linked(m, op->correlation) || !strcmp(name, "cudaGraphLaunch") ||
           !strcmp(name, "hipGraphLaunch");
}

/* Recompute functions (python_function ranges named ...torch/utils/checkpoint.py...recompute_fn...), by thread
 * then start, with the running maximum end per thread: a call is inside one when a range of its thread starting
 * at or before it ends at or after it. */
struct rc_range {
    uint32_t thread;
    int64_t start, max_end;
};
struct recompute {
    struct rc_range *v;
    size_t n;
};

static int cmp_rc(const void *a, const void *b)
{
    const struct rc_range *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int recompute_find(struct recompute *rc, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        for (size_t i = 0; i < v->nranges; i++) {
            const struct ps_range *g = ps_view_range(v, i);
            if (g->kind != PS_RANGE_PYTHON)
                continue;
            const char *s = ps_model_str(m, g->name);
            if (!strstr(s, "torch/utils/checkpoint.py") || !strstr(s, "recompute_fn"))
                continue;
            if (pass)
                rc->v[n] = (struct rc_range){ g->thread, g->start_ns, g->end_ns };
            n++;
        }
        if (!pass) {
            if (!n)
                return 0;
            if (!(rc->v = malloc(n * sizeof *rc->v)))
                return -ENOMEM;
        }
        rc->n = n;
    }
    qsort(rc->v, rc->n, sizeof *rc->v, cmp_rc);
    for (size_t i = 1; i < rc->n; i++)
        if (rc->v[i].thread == rc->v[i - 1].thread && rc->v[i - 1].max_end > rc->v[i].max_end)
            rc->v[i].max_end = rc->v[i - 1].max_end;
    return 0;
}

static int recompute_has(const struct recompute *rc, const struct ps_api_call *c)
{
    size_t lo = 0, hi = rc->n;   /* first entry after (thread, start) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rc->v[mid].thread < c->thread || (rc->v[mid].thread == c->thread && rc->v[mid].start <= c->start_ns))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && rc->v[lo - 1].thread == c->thread && rc->v[lo - 1].max_end >= c->end_ns;
}

/* ---- --compat tracelens: TraceLens' own float64 µs arithmetic ----
 * TraceLens keeps `ts` and `dur` as the JSON's float64 µs (relative to baseTimeNanoseconds when the trace has one),
 * computes t_end = ts + dur in float64, merges and subtracts the intervals and sums their lengths in float64
 * (gpu_event_analyser.py merge_intervals / subtract_intervalsA_from_B / compute_metrics_dict). Near 2.2e12 µs a
 * float64 holds multiples of 1/2048 µs, which moves its sums by several ns (docs/report.md). Redone here in the same
 * order, so TraceLens' numbers come out as it prints them. */
struct fivl {
    double s, e;
};
struct fset {
    struct fivl *v;
    size_t n, cap;
};

static int fpush(struct fset *f, double s, double e)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        struct fivl *v = realloc(f->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = (struct fivl){ s, e };
    return 0;
}

/* Sort by start (stable, as Python's sorted with key=start: an insertion sort is stable, and the ops arrive
 * nearly sorted), then merge in place as merge_intervals does (touching intervals merge). */
static void fmerge(struct fset *f)
{
    for (size_t i = 1; i < f->n; i++) {
        struct fivl x = f->v[i];
        size_t j = i;
        while (j > 0 && f->v[j - 1].s > x.s) {
            f->v[j] = f->v[j - 1];
            j--;
        }
        f->v[j] = x;
    }
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (k && f->v[i].s <= f->v[k - 1].e) {
            if (f->v[i].e > f->v[k - 1].e)
                f->v[k - 1].e = f->v[i].e;
        } else {
            f->v[k++] = f->v[i];
        }
    }
    f->n = k;
}

/* b minus a, both merged and sorted (subtract_intervalsA_from_B). */
static int fsubtract(const struct fset *a, const struct fset *b, struct fset *out)
{
    size_t ai = 0;
    for (size_t i = 0; i < b->n; i++) {
        double bs = b->v[i].s, be = b->v[i].e, cur = bs;
        while (ai < a->n && a->v[ai].e <= bs)
            ai++;
        for (size_t t = ai; t < a->n && a->v[t].s < be; t++) {
            if (a->v[t].s > cur && fpush(out, cur, fmin(be, a->v[t].s)) < 0)
                return -ENOMEM;
            cur = fmax(cur, a->v[t].e);
            if (cur >= be)
                break;
        }
        if (cur < be && fpush(out, cur, be) < 0)
            return -ENOMEM;
    }
    return 0;
}

static double fsum(const struct fset *f)
{
    double t = 0;
    for (size_t i = 0; i < f->n; i++)
        t += f->v[i].e - f->v[i].s;
    return t;
}

struct fsets {
    struct fset cat[3], all;
};

static int fsets_add(struct fsets *f, int cat, const struct ps_gpu_op *op, int64_t base)
{
    double ts = ps_ns_to_us_double(op->start_ns - base), te = ts + (double)(op->end_ns - op->start_ns) / 1000.0;
    return fpush(&f->cat[cat], ts, te) < 0 || fpush(&f->all, ts, te) < 0 ? -ENOMEM : 0;
}

static int64_t ns_of(double us)
{
    return llround(us * 1000.0);
}

static int fsets_store(struct fsets *f, struct ps_tl_row *row)
{
    struct fset comm_x = { 0 }, copy_c = { 0 }, copy_x = { 0 };
    int rc = -ENOMEM;
    for (int c = 0; c < 3; c++)
        fmerge(&f->cat[c]);
    fmerge(&f->all);
    if (!f->all.n)
        return 0;
    if (fsubtract(&f->cat[TL_COMP], &f->cat[TL_COMM], &comm_x) < 0 ||
        fsubtract(&f->cat[TL_COMP], &f->cat[TL_COPY], &copy_c) < 0 || fsubtract(&f->cat[TL_COMM], &copy_c, &copy_x) < 0)
        goto out;
    double total = f->all.v[f->all.n - 1].e - f->all.v[0].s, busy = fsum(&f->all);
    double us[5] = { total, fsum(&f->cat[TL_COMP]), fsum(&comm_x), fsum(&copy_x), total - busy };
    int64_t *ns[5] = { &row->total_ns, &row->computation_ns, &row->exposed_comm_ns, &row->exposed_memcpy_ns,
                       &row->idle_ns };
    for (int k = 0; k < 5; k++) {
        row->tracelens_ms[k] = us[k] / 1e3;   /* TraceLens: df['time ms'] = time / 1e3 */
        *ns[k] = ns_of(us[k]);
    }
    rc = 0;
out:
    free(comm_x.v);
    free(copy_c.v);
    free(copy_x.v);
    return rc;
}

static void fsets_fini(struct fsets *f)
{
    for (int c = 0; c < 3; c++)
        free(f->cat[c].v);
    free(f->all.v);
    *f = (struct fsets){ 0 };
}

static void tl_store(struct ps_tl_row *row, int set, struct tl_sets *d)
{
    if (d->events)
        ps_sweep_finish(&d->w);
    *row = (struct ps_tl_row){ .set = set, .events = d->events,
                               .tracelens_ms = { NAN, NAN, NAN, NAN, NAN } };
    if (!d->events)
        return;
    row->total_ns = d->last - d->first;
    row->computation_ns = d->comp_ns;
    row->exposed_comm_ns = d->comm_ns;
    row->exposed_memcpy_ns = d->copy_ns;
    row->idle_ns = row->total_ns - d->all_ns;
}

int ps_tracelens_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    struct tl_sets dev[MAX_DEVS], sets[3];
    int32_t dev_id[MAX_DEVS];
    size_t nd = 0;
    struct recompute rc = { 0 };
    struct fsets fl[3];
    int compat = r->opts.compat_tracelens && m->format == PS_FORMAT_KINETO, err = 0;
    int64_t base = 0;
    memset(fl, 0, sizeof fl);
    if (compat)
        base = ps_report_kineto_base_ns(r);
    if (recompute_find(&rc, v) < 0)
        return -ENOMEM;
    memset(sets, 0, sizeof sets);
    memset(dev, 0, sizeof dev);
    r->tl_by_flows = m->has_flows;
    r->tl_unlinked = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (op->kind == PS_GPU_SYNC)
            continue;   /* TraceLens reads kernel, gpu_memcpy and gpu_memset events only */
        int cat = tl_category(op, names);
        int32_t id = m->streams.v[op->stream].device;
        size_t k = 0;
        while (k < nd && dev_id[k] != id)
            k++;
        if (k == nd && nd < MAX_DEVS)
            dev_id[nd++] = id;
        if (k < nd)
            tl_add(&dev[k], cat, op);
        if (!tl_linked(v, op)) {
            r->tl_unlinked++;
            continue;
        }
        int set = rc.n ? (recompute_has(&rc, ps_view_api_at(v, op->launch)) ? 2 : 1) : 0;
        tl_add(&sets[0], cat, op);
        if (set)
            tl_add(&sets[set], cat, op);
        if (compat && (fsets_add(&fl[0], cat, op, base) < 0 || (set && fsets_add(&fl[set], cat, op, base) < 0)))
            err = -ENOMEM;
    }
    free(rc.v);
    r->ntl = rc.n ? 3 : 1;
    for (size_t s = 0; s < r->ntl; s++) {
        tl_store(&r->tl[s], (int)s, &sets[s]);
        if (compat && !err && fsets_store(&fl[s], &r->tl[s]) < 0)
            err = -ENOMEM;
    }
    for (size_t s = 0; s < 3; s++)
        fsets_fini(&fl[s]);
    if (err)
        return err;
    for (size_t k = 0; k < nd; k++) {
        struct ps_device_stat *ds;
        struct ps_tl_row row;
        if ((err = ps_report_device(r, dev_id[k], &ds)) < 0)
            return err;
        tl_store(&row, 0, &dev[k]);
        ds->tl_total_ns = row.total_ns;
        ds->tl_computation_ns = row.computation_ns;
        ds->tl_exposed_comm_ns = row.exposed_comm_ns;
        ds->tl_exposed_memcpy_ns = row.exposed_memcpy_ns;
        ds->tl_idle_ns = row.idle_ns;
    }
    return 0;
}
