/* Kernel summary (count, total, avg, min, max, median per kernel name), copy summary (count, bytes, time per
 * direction and memory kinds; memsets per memory kind) and per-device totals, over every GPU row of the trace
 * (no step filter), so they equal plain SQL over the trace's tables. */
#include <errno.h>
#include <stdlib.h>

#include "analysis.h"

static const struct ps_model *sort_model;   /* qsort has no context argument; one analysis runs at a time */

static int cmp_kernel(const void *a, const void *b)
{
    const struct ps_gpu_op *x = &sort_model->gpu.v[*(const uint32_t *)a], *y = &sort_model->gpu.v[*(const uint32_t *)b];
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    int64_t dx = x->end_ns - x->start_ns, dy = y->end_ns - y->start_ns;
    return (dx > dy) - (dx < dy);
}

static int cmp_total(const void *a, const void *b)
{
    const struct ps_kernel_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static int kernels(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    uint32_t *idx = malloc((m->gpu.n + 1) * sizeof *idx);
    if (!idx)
        return -ENOMEM;
    size_t n = 0, names = 0;
    for (size_t i = 0; i < m->gpu.n; i++)
        if (m->gpu.v[i].kind == PS_GPU_KERNEL)
            idx[n++] = (uint32_t)i;
    sort_model = m;
    qsort(idx, n, sizeof *idx, cmp_kernel);
    for (size_t i = 0; i < n; i++)
        names += i == 0 || m->gpu.v[idx[i]].name != m->gpu.v[idx[i - 1]].name;
    r->kernels = calloc(names + 1, sizeof *r->kernels);
    if (!r->kernels) {
        free(idx);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        struct ps_kernel_stat *k = &r->kernels[r->nkernels++];
        k->name = m->gpu.v[idx[i]].name;
        for (; j < n && m->gpu.v[idx[j]].name == k->name; j++)
            k->total_ns += m->gpu.v[idx[j]].end_ns - m->gpu.v[idx[j]].start_ns;
        k->count = (int64_t)(j - i);
#define DUR(q) (m->gpu.v[idx[q]].end_ns - m->gpu.v[idx[q]].start_ns)
        k->min_ns = DUR(i);
        k->max_ns = DUR(j - 1);
        /* the median of an even count is the mean of the two middle durations (pandas), floored to the ns */
        size_t mid = i + (j - i) / 2;
        k->median_ns = (j - i) % 2 ? DUR(mid) : (DUR(mid - 1) + DUR(mid)) / 2;
#undef DUR
        i = j;
    }
    free(idx);
    qsort(r->kernels, r->nkernels, sizeof *r->kernels, cmp_total);
    return 0;
}

static int copies(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    size_t cap = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op *op = &m->gpu.v[i];
        if (op->kind != PS_GPU_MEMCPY && op->kind != PS_GPU_MEMSET)
            continue;
        struct ps_copy_stat key = { .kind = op->kind, .dst_kind = op->dst_kind };
        if (op->kind == PS_GPU_MEMCPY) {
            key.copy_kind = op->copy_kind;
            key.src_kind = op->src_kind;
        }
        size_t k = 0;
        while (k < r->ncopies && !(r->copies[k].kind == key.kind && r->copies[k].copy_kind == key.copy_kind &&
                                   r->copies[k].src_kind == key.src_kind && r->copies[k].dst_kind == key.dst_kind))
            k++;
        if (k == r->ncopies) {
            if (r->ncopies == cap) {
                cap = cap ? cap * 2 : 8;
                struct ps_copy_stat *v = realloc(r->copies, cap * sizeof *v);
                if (!v)
                    return -ENOMEM;
                r->copies = v;
            }
            r->copies[r->ncopies++] = key;
        }
        r->copies[k].count++;
        r->copies[k].bytes += (int64_t)op->bytes;
        r->copies[k].total_ns += op->end_ns - op->start_ns;
    }
    return 0;
}

static int device_totals(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_device_stat *ds = NULL;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op *op = &m->gpu.v[i];
        int32_t dev = m->streams.v[op->stream].device;
        if (!ds || ds->device != dev)
            ds = ps_report_device(r, dev);
        if (!ds)
            return -ENOMEM;
        if (op->kind == PS_GPU_KERNEL) {
            ds->kernel_count++;
            ds->kernel_ns += op->end_ns - op->start_ns;
        } else if (op->kind == PS_GPU_MEMCPY) {
            ds->memcpy_count++;
            ds->memcpy_bytes += (int64_t)op->bytes;
        } else if (op->kind == PS_GPU_MEMSET) {
            ds->memset_count++;
        }
    }
    return 0;
}

int ps_summary_compute(struct ps_report *r)
{
    int rc = device_totals(r);
    if (rc == 0)
        rc = kernels(r);
    if (rc == 0)
        rc = copies(r);
    return rc;
}
