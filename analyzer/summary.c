/* Kernel summary (count, total, avg, min, max, median per kernel name), copy summary (count, bytes, time per
 * direction and memory kinds; memsets per memory kind) and per-device totals, over every GPU row of the trace
 * (no step filter), so they equal plain SQL over the trace's tables. */
#include <errno.h>
#include <stdlib.h>

#include "analysis.h"

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it (Hoare's selection, median-of-three pivot):
 * O(n) on average, in place. */
static void select_kth(int64_t *v, size_t n, size_t k)
{
    long lo = 0, hi = (long)n - 1, kk = (long)k;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        int64_t a = v[lo], b = v[mid], c = v[hi];
        int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        long i = lo, j = hi;
        while (i <= j) {   /* v[lo..j] <= pivot <= v[i..hi] afterwards */
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t x = v[i];
                v[i++] = v[j];
                v[j--] = x;
            }
        }
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return;   /* between the two parts: v[kk] == pivot */
    }
}

static int cmp_total(const void *a, const void *b)
{
    const struct ps_kernel_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* Per kernel name: a counting sort of the durations by name id, then one scan and one selection per name. */
static int kernels(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    size_t nstr = ps_model_nstrings(m), n = 0, names = 0;
    size_t *off = calloc(nstr + 2, sizeof *off), *pos = malloc((nstr + 1) * sizeof *pos);
    int64_t *dur = malloc((m->gpu.n + 1) * sizeof *dur);
    int rc = -ENOMEM;
    if (!off || !pos || !dur)
        goto out;
    for (size_t i = 0; i < m->gpu.n; i++)
        if (m->gpu.v[i].kind == PS_GPU_KERNEL && m->gpu.v[i].name < nstr)
            off[m->gpu.v[i].name + 1]++;
    for (size_t id = 0; id < nstr; id++) {
        names += off[id + 1] > 0;
        off[id + 1] += off[id];
        pos[id] = off[id];
    }
    for (size_t i = 0; i < m->gpu.n; i++)
        if (m->gpu.v[i].kind == PS_GPU_KERNEL && m->gpu.v[i].name < nstr)
            dur[pos[m->gpu.v[i].name]++] = m->gpu.v[i].end_ns - m->gpu.v[i].start_ns;
    if (!(r->kernels = calloc(names + 1, sizeof *r->kernels)))
        goto out;
    for (size_t id = 0; id < nstr; id++) {
        int64_t *d = dur + off[id];
        n = off[id + 1] - off[id];
        if (n == 0)
            continue;
        struct ps_kernel_stat *k = &r->kernels[r->nkernels++];
        *k = (struct ps_kernel_stat){ .name = (uint32_t)id, .count = (int64_t)n, .min_ns = d[0], .max_ns = d[0] };
        for (size_t j = 0; j < n; j++) {
            k->total_ns += d[j];
            k->min_ns = d[j] < k->min_ns ? d[j] : k->min_ns;
            k->max_ns = d[j] > k->max_ns ? d[j] : k->max_ns;
        }
        /* the median of an even count is the mean of the two middle durations (pandas), floored to the ns */
        select_kth(d, n, n / 2);
        k->median_ns = d[n / 2];
        if (n % 2 == 0) {
            int64_t lower = d[0];
            for (size_t j = 1; j < n / 2; j++)
                lower = d[j] > lower ? d[j] : lower;
            k->median_ns = (lower + d[n / 2]) / 2;
        }
    }
    qsort(r->kernels, r->nkernels, sizeof *r->kernels, cmp_total);
    rc = 0;
out:
    free(off);
    free(pos);
    free(dur);
    return rc;
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
