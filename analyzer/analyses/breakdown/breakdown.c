/* The step-time breakdown (docs/report.md), following the PyTorch profiler TensorBoard plugin
 * (tb_plugin overall_parser.py Statistics.create_from_range): every instant of a step goes to the
 * highest-priority category active then, Kernel > Memcpy > Memset > Communication > Runtime > DataLoader >
 * CPU Exec > Other. Also sync_ns, the averages and tb's GPU utilisation, and the rule for traces without
 * GPU rows (the host is the device: copy ranges -> Memcpy, data ranges -> DataLoader, the rest -> Kernel). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Host-side ranges that carry meaning for the breakdown (not marks, not python_function, not device side). */
static int host_range(uint8_t kind)
{
    return kind == PS_RANGE_NVTX_PUSHPOP || kind == PS_RANGE_NVTX_STARTEND || kind == PS_RANGE_USER_ANNOTATION ||
           kind == PS_RANGE_CPU_OP;
}

/* tb's communication kernels: kernels whose launch carries the External id of an nccl:/gloo: host op of the
 * analysed rows (all processes'). */
static int tb_comm_ext_ids(const struct ps_view *all, struct ps_names *names, uint64_t **out, size_t *n)
{
    *n = 0;
    *out = malloc((all->nranges + 1) * sizeof **out);
    if (!*out)
        return -ENOMEM;
    for (size_t i = 0; i < all->nranges; i++) {
        const struct ps_range *g = ps_view_range(all, i);
        if (g->ext_id && (ps_names_flags(names, g->name) & PS_NAME_TB_COMM_OP))
            (*out)[(*n)++] = g->ext_id;
    }
    qsort(*out, *n, sizeof **out, cmp_u64);
    return 0;
}

/* ---- traces with GPU rows: one sweep over the model's events in start order ----
 * Each event is a role range: GPU ops (Kernel, Memcpy, Memset, Communication), runtime calls, host ranges
 * (DataLoader, CPU Exec, tb's communication ops), plus the sync range of each synchronising call (the host
 * inside it, or waiting after it for the next GPU activity of the process). The sweep line hands out pieces
 * of constant active set; each piece goes to the highest-priority active role, and to sync_ns when no GPU
 * role and no exclusive DataLoader time covers it. Memory: O(steps), whatever the number of events. */

#define CAT_SYNC PS_CAT_OTHER   /* the sweep's category for sync ranges (Other itself is never an event) */

struct gpu_pass {
    struct ps_windows *cat[PS_CAT_OTHER], *sync, *pretrace;   /* pretrace: backlog.c's time that is not */
    struct ps_backlog_cursor backlog;   /* GPU work the trace does not hold (backlog.c): never sync */
};

static void gpu_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct gpu_pass *p = ctx;
    unsigned roles = active & ((1u << PS_CAT_OTHER) - 1);
    int top = roles ? __builtin_ctz(roles) : PS_CAT_OTHER;
    if (top < PS_CAT_OTHER)
        ps_windows_piece(p->cat[top], s, e);
    if (top > PS_CAT_COMM && top != PS_CAT_DATALOADER)
        ps_backlog_split(&p->backlog, s, e, NULL, (active & (1u << CAT_SYNC)) ? p->sync : NULL);
    else   /* recorded GPU work or a data wait: not pre-trace work */
        ps_backlog_split(&p->backlog, s, e, p->pretrace, NULL);
}

/* The role of a GPU op, -1 for none (synchronisation records). */
static int gpu_role(const struct ps_report *r, const struct ps_view *v, struct ps_names *names,
                    const struct ps_gpu_op *op, const uint64_t *comm_ext, size_t ncomm)
{
    if (op->kind == PS_GPU_MEMCPY)
        return PS_CAT_MEMCPY;
    if (op->kind == PS_GPU_MEMSET)
        return PS_CAT_MEMSET;
    if (op->kind != PS_GPU_KERNEL)
        return -1;   /* synchronisation records: not a tb role */
    if (!r->opts.compat_tb && (ps_names_flags(names, op->name) & PS_NAME_ROCM_COPY))
        return PS_CAT_MEMCPY;   /* ROCm copies run as blit kernels (__amd_rocclr_copyBuffer): a copy, not compute */
    int comm;
    if (r->opts.compat_tb) {
        uint64_t ext = op->launch != PS_NONE ? ps_view_api_at(v, op->launch)->ext_id : 0;
        comm = ext && bsearch(&ext, comm_ext, ncomm, sizeof *comm_ext, cmp_u64);
    } else {
        comm = (ps_names_flags(names, op->name) & PS_NAME_NCCL) != 0;
    }
    return comm ? PS_CAT_COMM : PS_CAT_KERNEL;
}

/* The role of a host range, -1 for none. */
static int range_role(const struct ps_report *r, struct ps_names *names, const struct ps_range *g)
{
    int tb_gpu_annotation = r->opts.compat_tb && g->kind == PS_RANGE_GPU_ANNOTATION;
    if (!tb_gpu_annotation && !host_range(g->kind))
        return -1;
    unsigned f = ps_names_flags(names, g->name);
    if (f & PS_NAME_STEP)
        return -1;
    if ((f & PS_NAME_DATA) && !tb_gpu_annotation)
        return PS_CAT_DATALOADER;
    if (r->opts.compat_tb && (f & PS_NAME_TB_COMM_OP))
        return PS_CAT_COMM;
    return PS_CAT_CPU_EXEC;
}

/* Start of the view's first GPU activity (not a sync record) starting at or after t; `end` if none. */
static int64_t next_gpu_start(const struct ps_view *v, int64_t t, int64_t end)
{
    for (size_t i = ps_view_gpu_lower_bound(v, t); i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        if (ps_view_gpu_attr(v, g)->kind != PS_GPU_SYNC)
            return g->start_ns;
    }
    return end;
}

/* Feed every event to the sweep in start order (a merge of the three sorted arrays). */
static void gpu_events(const struct ps_report *r, const struct ps_view *v, struct ps_names *names,
                       struct ps_sweep *w, const uint64_t *comm_ext, size_t ncomm)
{
    size_t gi = 0, ai = 0, ri = 0;
    for (;;) {
        int64_t gs = gi < v->ngpu ? ps_view_gpu_row(v, gi)->start_ns : INT64_MAX;
        int64_t as = ai < v->napi ? ps_view_api(v, ai)->start_ns : INT64_MAX;
        int64_t rs = ri < v->nranges ? ps_view_range(v, ri)->start_ns : INT64_MAX;
        if (gi < v->ngpu && gs <= as && gs <= rs) {
            const struct ps_gpu_op op = ps_view_gpu(v, gi++);
            ps_sweep_add(w, gpu_role(r, v, names, &op, comm_ext, ncomm), op.start_ns, op.end_ns);
        } else if (ai < v->napi && as <= rs) {
            const struct ps_api_call *a = ps_view_api(v, ai++);
            if (!a->driver)
                ps_sweep_add(w, PS_CAT_RUNTIME, a->start_ns, a->end_ns);
            if (ps_names_flags(names, a->name) & PS_NAME_SYNC_API) {
                int64_t end = next_gpu_start(v, a->end_ns, a->end_ns);
                ps_sweep_add(w, CAT_SYNC, a->start_ns, end > a->end_ns ? end : a->end_ns);
            }
        } else if (ri < v->nranges) {
            const struct ps_range *g = ps_view_range(v, ri++);
            ps_sweep_add(w, range_role(r, names, g), g->start_ns, g->end_ns);
        } else {
            break;
        }
    }
}

static int gpu_breakdown(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct gpu_pass p = { 0 };
    uint64_t *comm_ext = NULL;
    size_t ncomm = 0, n = r->nsteps;
    int64_t *start = malloc((n + 1) * sizeof *start), *end = malloc((n + 1) * sizeof *end);
    int rc = -ENOMEM;
    if (!start || !end)
        goto out;
    for (size_t i = 0; i < n; i++) {
        start[i] = r->steps[i].start_ns;
        end[i] = r->steps[i].end_ns;
    }
    for (int c = 0; c < PS_CAT_OTHER; c++)
        if ((rc = ps_windows_new(&p.cat[c], start, end, n)) < 0)
            goto out;
    if ((rc = ps_windows_new(&p.sync, start, end, n)) < 0 || (rc = ps_windows_new(&p.pretrace, start, end, n)) < 0)
        goto out;
    p.backlog = (struct ps_backlog_cursor){ r->backlog.spans, r->backlog.nspans, 0 };
    if (r->opts.compat_tb && (rc = tb_comm_ext_ids(r->all, names, &comm_ext, &ncomm)) < 0)
        goto out;
    struct ps_sweep w;
    ps_sweep_init(&w, PS_CAT_OTHER + 1, gpu_piece, &p);
    gpu_events(r, v, names, &w, comm_ext, ncomm);
    ps_sweep_finish(&w);
    for (size_t i = 0; i < n; i++) {
        struct ps_step *s = &r->steps[i];
        int64_t sum = 0;
        for (int c = 0; c < PS_CAT_OTHER; c++)
            sum += s->cat_ns[c] = ps_windows_get(p.cat[c], i);
        s->cat_ns[PS_CAT_OTHER] = (s->end_ns - s->start_ns) - sum;
        s->sync_ns = ps_windows_get(p.sync, i);
        s->pretrace_ns = ps_backlog_within(r, s->start_ns, s->end_ns) - ps_windows_get(p.pretrace, i);
        r->backlog.ns += s->pretrace_ns;
    }
    rc = 0;
out:
    for (int c = 0; c < PS_CAT_OTHER; c++)
        ps_windows_free(p.cat[c]);
    ps_windows_free(p.sync);
    ps_windows_free(p.pretrace);
    free(comm_ext);
    free(start);
    free(end);
    return rc;
}

struct lists {
    struct ps_ivls cat[PS_CAT_N];   /* raw role ranges */
    struct ps_ivls tmp, comm;
};

static void lists_fini(struct lists *l)
{
    for (int c = 0; c < PS_CAT_N; c++)
        ps_ivls_fini(&l->cat[c]);
    ps_ivls_fini(&l->tmp);
    ps_ivls_fini(&l->comm);
}

/* No GPU rows: the threads that own steps are the "device". Copy ranges > collective ranges and their waits
 * (Communication: the host blocked in torch.distributed, docs/distributed.md) > data ranges > compute. */
static int host_breakdown(struct ps_report *r, const struct ps_view *v, struct ps_names *names, struct lists *l)
{
    const struct ps_model *m = v->m;
    int rc = 0;
    uint8_t *step_thread = calloc(m->threads.n + 1, 1);
    if (!step_thread)
        return -ENOMEM;
    for (size_t k = 0; k < r->nsteps && !r->whole_run; k++)
        step_thread[ps_view_range_at(v, r->steps[k].range)->thread] = 1;
    for (size_t i = 0; i < v->nranges && rc == 0; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        if (!host_range(g->kind))
            continue;
        int on_step_thread = r->whole_run || step_thread[g->thread];
        unsigned f = ps_names_flags(names, g->name);
        if (!on_step_thread || (f & PS_NAME_STEP))
            continue;
        if (f & PS_NAME_COPY)
            rc = ps_ivls_push(&l->cat[PS_CAT_MEMCPY], g->start_ns, g->end_ns);
        else if (f & PS_NAME_HOST_COMM)
            rc = ps_ivls_push(&l->cat[PS_CAT_COMM], g->start_ns, g->end_ns);
        else if (f & PS_NAME_DATA)
            rc = ps_ivls_push(&l->cat[PS_CAT_DATALOADER], g->start_ns, g->end_ns);
    }
    free(step_thread);
    if (rc < 0)
        return rc;
    ps_ivls_normalize(&l->cat[PS_CAT_MEMCPY]);
    ps_ivls_normalize(&l->cat[PS_CAT_COMM]);
    ps_ivls_normalize(&l->cat[PS_CAT_DATALOADER]);
    if ((rc = ps_ivls_subtract(&l->comm, &l->cat[PS_CAT_COMM], &l->cat[PS_CAT_MEMCPY])) < 0 ||
        (rc = ps_ivls_subtract(&l->tmp, &l->cat[PS_CAT_DATALOADER], &l->cat[PS_CAT_MEMCPY])) < 0 ||
        (rc = ps_ivls_subtract(&l->cat[PS_CAT_DATALOADER], &l->tmp, &l->comm)) < 0)
        return rc;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        s->cat_ns[PS_CAT_MEMCPY] = ps_ivls_within(&l->cat[PS_CAT_MEMCPY], s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_COMM] = ps_ivls_within(&l->comm, s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_DATALOADER] = ps_ivls_within(&l->cat[PS_CAT_DATALOADER], s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_KERNEL] = (s->end_ns - s->start_ns) - s->cat_ns[PS_CAT_MEMCPY] - s->cat_ns[PS_CAT_COMM] -
                                   s->cat_ns[PS_CAT_DATALOADER];
    }
    return 0;
}

/* tb gpu_metrics_parser: per device, merged kernel time inside [first step start, last step end] / span. */
#define MAX_DEVS 64
static int gpu_utilization(struct ps_report *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    r->gpu_util = NAN;
    if (!r->has_gpu || b <= a)
        return 0;
    int32_t ids[MAX_DEVS];
    struct ps_run k[MAX_DEVS] = { 0 };   /* per device: the running union of its kernels (start order) */
    int64_t busy[MAX_DEVS] = { 0 }, ps, pe;
    size_t ndev = 0;
    int rc = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (op->kind != PS_GPU_KERNEL)
            continue;
        int32_t dev = m->streams.v[op->stream].device;
        size_t d = 0;
        while (d < ndev && ids[d] != dev)
            d++;
        if (d == ndev) {
            if (ndev == MAX_DEVS)
                continue;   /* more devices than any node has: the rest get no utilisation figure */
            ids[ndev++] = dev;
        }
        if (ps_run_add(&k[d], op->start_ns, op->end_ns, &ps, &pe))
            busy[d] += ps_overlap(ps, pe, a, b);
    }
    double sum = 0;
    for (size_t d = 0; d < ndev && rc == 0; d++) {
        if (ps_run_flush(&k[d], &ps, &pe))
            busy[d] += ps_overlap(ps, pe, a, b);
        struct ps_device_stat *ds;
        if ((rc = ps_report_device(r, ids[d], &ds)) < 0)
            break;
        ds->gpu_util = (double)busy[d] / (double)(b - a);
        sum += ds->gpu_util;
    }
    if (ndev && rc == 0)
        r->gpu_util = sum / (double)ndev;
    return rc;
}

int ps_breakdown_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct lists l = { 0 };
    int rc = r->has_gpu ? gpu_breakdown(r, v, names) : host_breakdown(r, v, names, &l);
    lists_fini(&l);
    if (rc < 0)
        return rc;
    /* Averages over steps, rounded to the ns; Other takes the rounding so the parts still sum exactly. */
    int64_t n = (int64_t)r->nsteps, dur = 0, sum[PS_CAT_N] = { 0 }, sync = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        dur += r->steps[i].end_ns - r->steps[i].start_ns;
        for (int c = 0; c < PS_CAT_N; c++)
            sum[c] += r->steps[i].cat_ns[c];
        sync += r->steps[i].sync_ns;
    }
    r->avg_dur_ns = n ? (dur + n / 2) / n : 0;
    int64_t parts = 0;
    for (int c = 0; c < PS_CAT_OTHER; c++)
        parts += r->avg.cat_ns[c] = n ? (sum[c] + n / 2) / n : 0;
    r->avg.cat_ns[PS_CAT_OTHER] = r->avg_dur_ns - parts;
    if (r->avg.cat_ns[PS_CAT_OTHER] < 0) {   /* rounding pushed the parts past the mean: take it from the largest */
        int big = 0;
        for (int c = 1; c < PS_CAT_OTHER; c++)
            big = r->avg.cat_ns[c] > r->avg.cat_ns[big] ? c : big;
        r->avg.cat_ns[big] += r->avg.cat_ns[PS_CAT_OTHER];
        r->avg.cat_ns[PS_CAT_OTHER] = 0;
    }
    r->avg.sync_ns = n ? (sync + n / 2) / n : 0;
    r->avg.pretrace_ns = n ? (r->backlog.ns + n / 2) / n : 0;   /* backlog.c; sync and it are disjoint */
    r->avg.start_ns = 0;
    r->avg.end_ns = r->avg_dur_ns;
    return gpu_utilization(r, v);
}
