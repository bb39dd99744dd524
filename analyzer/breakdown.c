/* The step-time breakdown (DESIGN §4), following the PyTorch profiler TensorBoard plugin
 * (tb_plugin overall_parser.py Statistics.create_from_range): every instant of a step goes to the
 * highest-priority category active then, Kernel > Memcpy > Memset > Communication > Runtime > DataLoader >
 * CPU Exec > Other. Also sync_ns, the averages and tb's GPU utilisation, and the rule for traces without
 * GPU rows (the host is the device: copy ranges -> Memcpy, data ranges -> DataLoader, the rest -> Kernel). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "intervals.h"

const char *const ps_cat_key[PS_CAT_N] = { "kernel", "memcpy", "memset", "communication",
                                           "runtime", "dataloader", "cpu_exec", "other" };
const char *const ps_cat_label[PS_CAT_N] = { "Kernel", "Memcpy", "Memset", "Communication",
                                             "Runtime", "DataLoader", "CPU Exec", "Other" };

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

/* tb's communication kernels: kernels whose launch carries the External id of an nccl:/gloo: host op. */
static int tb_comm_ext_ids(const struct ps_report *r, struct ps_names *names, uint64_t **out, size_t *n)
{
    const struct ps_model *m = r->m;
    *n = 0;
    *out = malloc((m->ranges.n + 1) * sizeof **out);
    if (!*out)
        return -ENOMEM;
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        if (g->ext_id && (ps_names_flags(names, g->name) & PS_NAME_TB_COMM_OP))
            (*out)[(*n)++] = g->ext_id;
    }
    qsort(*out, *n, sizeof **out, cmp_u64);
    return 0;
}

struct lists {
    struct ps_ivls cat[PS_CAT_N];   /* raw role ranges, then the exclusive part of each */
    struct ps_ivls sync;            /* host inside a sync call or waiting for the next GPU activity */
    struct ps_ivls tmp, tmp2;
};

static void lists_fini(struct lists *l)
{
    for (int c = 0; c < PS_CAT_N; c++)
        ps_ivls_fini(&l->cat[c]);
    ps_ivls_fini(&l->sync);
    ps_ivls_fini(&l->tmp);
    ps_ivls_fini(&l->tmp2);
}

/* Fill the raw role ranges for a trace with GPU rows. */
static int gpu_roles(const struct ps_report *r, struct ps_names *names, struct lists *l)
{
    const struct ps_model *m = r->m;
    uint64_t *comm_ext = NULL;
    size_t ncomm = 0;
    int rc = 0;
    if (r->opts.compat_tb && (rc = tb_comm_ext_ids(r, names, &comm_ext, &ncomm)) < 0)
        return rc;
    /* one allocation per role: kernels and copies can number in the millions */
    for (int c = 0; c < PS_CAT_OTHER && rc == 0; c++)
        rc = ps_ivls_reserve(&l->cat[c], c <= PS_CAT_COMM ? m->gpu.n : c == PS_CAT_RUNTIME ? m->api.n : m->ranges.n);
    for (size_t i = 0; i < m->gpu.n && rc == 0; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        if (!ps_report_gpu_in_scope(r, op))
            continue;
        int c;
        if (op->kind == PS_GPU_MEMCPY) {
            c = PS_CAT_MEMCPY;
        } else if (op->kind == PS_GPU_MEMSET) {
            c = PS_CAT_MEMSET;
        } else if (op->kind == PS_GPU_KERNEL) {
            int comm;
            if (r->opts.compat_tb) {
                uint64_t ext = op->launch != PS_NONE ? m->api.v[op->launch].ext_id : 0;
                comm = ext && bsearch(&ext, comm_ext, ncomm, sizeof *comm_ext, cmp_u64);
            } else {
                comm = (ps_names_flags(names, op->name) & PS_NAME_NCCL) != 0;
            }
            c = comm ? PS_CAT_COMM : PS_CAT_KERNEL;
        } else {
            continue;   /* synchronisation records: not a tb role */
        }
        rc = ps_ivls_push(&l->cat[c], op->start_ns, op->end_ns);
    }
    for (size_t i = 0; i < m->api.n && rc == 0; i++) {
        const struct ps_api_call *a = &m->api.v[i];
        if (!a->driver && ps_report_thread_in_scope(r, a->thread))
            rc = ps_ivls_push(&l->cat[PS_CAT_RUNTIME], a->start_ns, a->end_ns);
    }
    for (size_t i = 0; i < m->ranges.n && rc == 0; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        int tb_gpu_annotation = r->opts.compat_tb && g->kind == PS_RANGE_GPU_ANNOTATION;
        if (!tb_gpu_annotation && (!host_range(g->kind) || !ps_report_thread_in_scope(r, g->thread)))
            continue;
        unsigned f = ps_names_flags(names, g->name);
        if (f & PS_NAME_STEP)
            continue;
        int c = PS_CAT_CPU_EXEC;
        if ((f & PS_NAME_DATA) && !tb_gpu_annotation)
            c = PS_CAT_DATALOADER;
        else if (r->opts.compat_tb && (f & PS_NAME_TB_COMM_OP))
            c = PS_CAT_COMM;
        rc = ps_ivls_push(&l->cat[c], g->start_ns, g->end_ns);
    }
    free(comm_ext);
    return rc;
}

/* Host inside a synchronising call, or between its return and the next GPU activity of the process. */
static int sync_ranges(const struct ps_report *r, struct ps_names *names, struct lists *l)
{
    const struct ps_model *m = r->m;
    size_t nsync = 0;
    for (size_t i = 0; i < m->api.n; i++)
        nsync += ps_report_thread_in_scope(r, m->api.v[i].thread) &&
                 (ps_names_flags(names, m->api.v[i].name) & PS_NAME_SYNC_API);
    if (nsync == 0)
        return 0;
    int64_t *starts = malloc((m->gpu.n + 1) * sizeof *starts);
    if (!starts)
        return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op = ps_model_gpu(m, i);
        if (op.kind != PS_GPU_SYNC && ps_report_gpu_in_scope(r, &op))
            starts[n++] = op.start_ns;   /* model.gpu is sorted by start */
    }
    int rc = 0;
    for (size_t i = 0; i < m->api.n && rc == 0; i++) {
        const struct ps_api_call *a = &m->api.v[i];
        if (!ps_report_thread_in_scope(r, a->thread) || !(ps_names_flags(names, a->name) & PS_NAME_SYNC_API))
            continue;
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (starts[mid] < a->end_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        int64_t end = lo < n ? starts[lo] : a->end_ns;
        rc = ps_ivls_push(&l->sync, a->start_ns, end > a->end_ns ? end : a->end_ns);
    }
    free(starts);
    return rc;
}

/* Turn each raw role list into its exclusive part (minus every higher-priority role), and the sync list
 * into the part not covered by GPU activity or DataLoader. */
static int exclusive_parts(struct lists *l, int cats)
{
    struct ps_ivls covered = { 0 };
    int rc = 0;
    for (int c = 0; c < cats && rc == 0; c++) {
        ps_ivls_normalize(&l->cat[c]);
        if (l->cat[c].n && covered.n) {   /* (empty roles, the first role: nothing to take away or add) */
            rc = ps_ivls_subtract(&l->tmp, &l->cat[c], &covered);
            if (rc == 0)
                rc = ps_ivls_unite(&covered, &l->cat[c], &l->tmp2);
            struct ps_ivls swap = l->cat[c];
            l->cat[c] = l->tmp;
            l->tmp = swap;
        } else if (l->cat[c].n) {
            rc = ps_ivls_unite(&covered, &l->cat[c], &l->tmp2);   /* covered was empty: a copy */
        }
        if (rc == 0 && c == PS_CAT_COMM) {   /* GPU activity known: carve sync_ns out of what remains */
            ps_ivls_normalize(&l->sync);
            rc = ps_ivls_subtract(&l->tmp2, &l->sync, &covered);
            struct ps_ivls swap = l->sync;
            l->sync = l->tmp2;
            l->tmp2 = swap;
        }
    }
    if (rc == 0) {   /* never out of DataLoader */
        rc = ps_ivls_subtract(&l->tmp2, &l->sync, &l->cat[PS_CAT_DATALOADER]);
        struct ps_ivls swap = l->sync;
        l->sync = l->tmp2;
        l->tmp2 = swap;
    }
    ps_ivls_fini(&covered);
    return rc;
}

static int gpu_breakdown(struct ps_report *r, struct ps_names *names, struct lists *l)
{
    int rc = gpu_roles(r, names, l);
    if (rc == 0)
        rc = sync_ranges(r, names, l);
    if (rc == 0)
        rc = exclusive_parts(l, PS_CAT_OTHER);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        int64_t sum = 0;
        for (int c = 0; c < PS_CAT_OTHER; c++)
            sum += s->cat_ns[c] = ps_ivls_within(&l->cat[c], s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_OTHER] = (s->end_ns - s->start_ns) - sum;
        s->sync_ns = ps_ivls_within(&l->sync, s->start_ns, s->end_ns);
    }
    return 0;
}

/* No GPU rows: the threads that own steps are the "device". Copy ranges > data ranges > compute. */
static int host_breakdown(struct ps_report *r, struct ps_names *names, struct lists *l)
{
    const struct ps_model *m = r->m;
    int rc = 0;
    uint8_t *step_thread = calloc(m->threads.n + 1, 1);
    if (!step_thread)
        return -ENOMEM;
    for (size_t k = 0; k < r->nsteps && !r->whole_run; k++)
        step_thread[m->ranges.v[r->steps[k].range].thread] = 1;
    for (size_t i = 0; i < m->ranges.n && rc == 0; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        if (!host_range(g->kind) || !ps_report_thread_in_scope(r, g->thread))
            continue;
        int on_step_thread = r->whole_run || step_thread[g->thread];
        unsigned f = ps_names_flags(names, g->name);
        if (!on_step_thread || (f & PS_NAME_STEP))
            continue;
        if (f & PS_NAME_COPY)
            rc = ps_ivls_push(&l->cat[PS_CAT_MEMCPY], g->start_ns, g->end_ns);
        else if (f & PS_NAME_DATA)
            rc = ps_ivls_push(&l->cat[PS_CAT_DATALOADER], g->start_ns, g->end_ns);
    }
    free(step_thread);
    if (rc < 0)
        return rc;
    ps_ivls_normalize(&l->cat[PS_CAT_MEMCPY]);
    ps_ivls_normalize(&l->cat[PS_CAT_DATALOADER]);
    if ((rc = ps_ivls_subtract(&l->tmp, &l->cat[PS_CAT_DATALOADER], &l->cat[PS_CAT_MEMCPY])) < 0)
        return rc;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        s->cat_ns[PS_CAT_MEMCPY] = ps_ivls_within(&l->cat[PS_CAT_MEMCPY], s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_DATALOADER] = ps_ivls_within(&l->tmp, s->start_ns, s->end_ns);
        s->cat_ns[PS_CAT_KERNEL] = (s->end_ns - s->start_ns) - s->cat_ns[PS_CAT_MEMCPY] - s->cat_ns[PS_CAT_DATALOADER];
    }
    return 0;
}

/* tb gpu_metrics_parser: per device, merged kernel time inside [first step start, last step end] / span. */
#define MAX_DEVS 64
static int gpu_utilization(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    r->gpu_util = NAN;
    if (!r->has_gpu || b <= a)
        return 0;
    int32_t ids[MAX_DEVS];
    struct ps_ivls k[MAX_DEVS] = { 0 };
    size_t ndev = 0;
    int rc = 0;
    for (size_t i = 0; i < m->gpu.n && rc == 0; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        if (op->kind != PS_GPU_KERNEL || !ps_report_gpu_in_scope(r, op))
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
        rc = ps_ivls_push(&k[d], op->start_ns, op->end_ns);
    }
    double sum = 0;
    for (size_t d = 0; d < ndev && rc == 0; d++) {
        ps_ivls_normalize(&k[d]);
        struct ps_device_stat *ds = ps_report_device(r, ids[d]);
        if (!ds) {
            rc = -ENOMEM;
            break;
        }
        ds->gpu_util = (double)ps_ivls_within(&k[d], a, b) / (double)(b - a);
        sum += ds->gpu_util;
    }
    for (size_t d = 0; d < ndev; d++)
        ps_ivls_fini(&k[d]);
    if (ndev && rc == 0)
        r->gpu_util = sum / (double)ndev;
    return rc;
}

int ps_breakdown_compute(struct ps_report *r, struct ps_names *names)
{
    struct lists l = { 0 };
    int rc = r->has_gpu ? gpu_breakdown(r, names, &l) : host_breakdown(r, names, &l);
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
    r->avg.start_ns = 0;
    r->avg.end_ns = r->avg_dur_ns;
    return gpu_utilization(r);
}
