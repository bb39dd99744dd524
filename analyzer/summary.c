/* Kernel summary (count, total, avg, min, max, median per kernel name), copy summary (count, bytes, time per
 * direction and memory kinds; memsets per memory kind) and per-device totals, over every GPU row of the trace
 * (no step filter), so they equal plain SQL over the trace's tables. */
#include <errno.h>
#include <stdlib.h>

#include "analysis.h"

struct named_dur {
    uint32_t name;
    int64_t dur;
};

static int cmp_named_dur(const void *a, const void *b)
{
    const struct named_dur *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->dur > y->dur) - (x->dur < y->dur);
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
    struct named_dur *k = malloc((m->gpu.n + 1) * sizeof *k);   /* compact copy: sorting it stays in cache */
    if (!k)
        return -ENOMEM;
    size_t n = 0, names = 0;
    for (size_t i = 0; i < m->gpu.n; i++)
        if (m->gpu.v[i].kind == PS_GPU_KERNEL)
            k[n++] = (struct named_dur){ m->gpu.v[i].name, m->gpu.v[i].end_ns - m->gpu.v[i].start_ns };
    qsort(k, n, sizeof *k, cmp_named_dur);
    for (size_t i = 0; i < n; i++)
        names += i == 0 || k[i].name != k[i - 1].name;
    r->kernels = calloc(names + 1, sizeof *r->kernels);
    if (!r->kernels) {
        free(k);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        struct ps_kernel_stat *s = &r->kernels[r->nkernels++];
        s->name = k[i].name;
        for (; j < n && k[j].name == s->name; j++)
            s->total_ns += k[j].dur;
        s->count = (int64_t)(j - i);
        s->min_ns = k[i].dur;
        s->max_ns = k[j - 1].dur;
        /* the median of an even count is the mean of the two middle durations (pandas), floored to the ns */
        size_t mid = i + (j - i) / 2;
        s->median_ns = (j - i) % 2 ? k[mid].dur : (k[mid - 1].dur + k[mid].dur) / 2;
        i = j;
    }
    free(k);
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
