/* Kernel summary (count, total, avg, min, max, median per kernel name), copy summary (count, bytes, time per
 * direction and memory kinds; memsets per memory kind) and per-device totals, over every GPU row of the trace
 * (no step filter), so they equal plain SQL over the trace's tables. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "ps_schema.h"
#include "model/model.h"
#include "model/view.h"

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it (Hoare's selection, median-of-three pivot):
 * O(n) on average, in place. Generated for int64 durations and for the 32-bit ones of the stored rows. */
#define DEFINE_SELECT(fn, type)                                                                                  \
    static void fn(type *v, size_t n, size_t k)                                                                  \
    {                                                                                                            \
        long lo = 0, hi = (long)n - 1, kk = (long)k;                                                             \
        while (lo < hi) {                                                                                        \
            long mid = lo + (hi - lo) / 2;                                                                       \
            type a = v[lo], b = v[mid], c = v[hi];                                                               \
            type pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));                  \
            long i = lo, j = hi;                                                                                 \
            while (i <= j) {   /* v[lo..j] <= pivot <= v[i..hi] afterwards */                                    \
                while (v[i] < pivot)                                                                             \
                    i++;                                                                                         \
                while (v[j] > pivot)                                                                             \
                    j--;                                                                                         \
                if (i <= j) {                                                                                    \
                    type x = v[i];                                                                               \
                    v[i++] = v[j];                                                                               \
                    v[j--] = x;                                                                                  \
                }                                                                                                \
            }                                                                                                    \
            if (kk <= j)                                                                                         \
                hi = j;                                                                                          \
            else if (kk >= i)                                                                                    \
                lo = i;                                                                                          \
            else                                                                                                 \
                return;   /* between the two parts: v[kk] == pivot */                                            \
        }                                                                                                        \
    }
DEFINE_SELECT(select_kth, int64_t)
DEFINE_SELECT(select_kth_u32, uint32_t)

static int cmp_total(const void *a, const void *b)
{
    const struct ps_kernel_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* The median of d[0..n) (reordered): the mean of the two middle values for an even count (pandas), floored. */
#define DEFINE_MEDIAN(fn, type, select)                                                                          \
    static int64_t fn(type *d, size_t n)                                                                         \
    {                                                                                                            \
        select(d, n, n / 2);                                                                                     \
        if (n % 2)                                                                                               \
            return (int64_t)d[n / 2];                                                                            \
        type lower = d[0];                                                                                       \
        for (size_t j = 1; j < n / 2; j++)                                                                       \
            lower = d[j] > lower ? d[j] : lower;                                                                 \
        return ((int64_t)lower + (int64_t)d[n / 2]) / 2;                                                         \
    }
DEFINE_MEDIAN(median_i64, int64_t, select_kth)
DEFINE_MEDIAN(median_u32, uint32_t, select_kth_u32)

#define GATHER_MAX (1u << 21)   /* durations gathered per pass over the rows: 8 MB */
enum { HOW_GATHER, HOW_RADIX, HOW_WIDE };

/* The k-th smallest (0-based) stored 32-bit duration of the kernels named `name` (none of them PS_GPU_LONG):
 * two 16-bit radix passes over the rows, for a name too common to gather; hist holds 65536 counters. */
static int64_t kth_radix(const struct ps_view *v, uint32_t name, size_t k, size_t *hist)
{
    uint32_t hi = 0, lo = 0;
    for (int pass = 0; pass < 2; pass++) {
        memset(hist, 0, 65536 * sizeof *hist);
        for (size_t i = 0; i < v->ngpu; i++) {
            const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
            const struct ps_gpu_attr *a = ps_view_gpu_attr(v, g);
            uint32_t d = g->dur_ns;
            if (a->kind == PS_GPU_KERNEL && a->name == name && (pass == 0 || d >> 16 == hi))
                hist[pass == 0 ? d >> 16 : d & 0xffff]++;
        }
        uint32_t b = 0;
        while (k >= hist[b])   /* the k-th lies in bucket b */
            k -= hist[b++];
        if (pass == 0)
            hi = b;
        else
            lo = b;
    }
    return (int64_t)(hi << 16 | lo);
}

/* Medians of the names with how[id] == HOW_GATHER, in batches of at most GATHER_MAX durations: one pass over
 * the rows per batch gathers the batch's durations by name (a counting sort), then one selection per name. */
static int gather_medians(const struct ps_view *v, struct ps_kernel_stat *st, const uint8_t *how, size_t nstr)
{
    size_t *off = malloc((nstr + 1) * sizeof *off);
    uint32_t *buf = malloc(GATHER_MAX * sizeof *buf);
    if (!off || !buf) {
        free(off);
        free(buf);
        return -ENOMEM;
    }
    for (size_t first = 0, id = 0; id < nstr; first = id) {
        size_t used = 0;
        for (; id < nstr; id++) {
            size_t n = (size_t)st[id].count;
            if (n == 0 || how[id] != HOW_GATHER)
                continue;
            if (used + n > GATHER_MAX)
                break;
            off[id] = used;
            used += n;
        }
        for (size_t i = 0; i < v->ngpu && used; i++) {
            const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
            const struct ps_gpu_attr *a = ps_view_gpu_attr(v, g);
            if (a->kind == PS_GPU_KERNEL && a->name >= first && a->name < id && how[a->name] == HOW_GATHER)
                buf[off[a->name]++] = g->dur_ns;   /* off[] ends at the name's end */
        }
        for (size_t k = first; k < id; k++) {
            size_t n = (size_t)st[k].count;
            if (n && how[k] == HOW_GATHER)
                st[k].median_ns = median_u32(buf + off[k] - n, n);
        }
    }
    free(off);
    free(buf);
    return 0;
}

/* Median of a name with a PS_GPU_LONG duration: its exact int64 durations, gathered (rare: ops >= 4.29 s). */
static int wide_median(const struct ps_view *v, struct ps_kernel_stat *k, uint32_t name)
{
    size_t n = (size_t)k->count, w = 0;
    int64_t *wide = malloc(n * sizeof *wide);
    if (!wide)
        return -ENOMEM;
    for (size_t i = 0; i < v->ngpu && w < n; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, g);
        if (a->kind == PS_GPU_KERNEL && a->name == name)
            wide[w++] = ps_view_row_dur(v, g);
    }
    k->median_ns = median_i64(wide, n);
    free(wide);
    return 0;
}

/* Per kernel name: count, total, min and max in one pass over the rows; medians exact, in bounded memory
 * (gather_medians, kth_radix, wide_median). */
static int kernels(struct ps_summary_tables *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    size_t nstr = ps_model_nstrings(m), names = 0, *hist = NULL;
    struct ps_kernel_stat *st = calloc(nstr + 1, sizeof *st);
    uint8_t *how = calloc(nstr + 1, 1);
    int rc = -ENOMEM;
    if (!st || !how)
        goto out;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, g);
        if (a->kind != PS_GPU_KERNEL || a->name >= nstr)
            continue;
        int64_t d = ps_view_row_dur(v, g);
        struct ps_kernel_stat *k = &st[a->name];
        if (k->count++ == 0)
            k->min_ns = k->max_ns = d;
        k->total_ns += d;
        k->min_ns = d < k->min_ns ? d : k->min_ns;
        k->max_ns = d > k->max_ns ? d : k->max_ns;
        if (g->dur_ns == PS_GPU_LONG)
            how[a->name] = HOW_WIDE;
    }
    for (size_t id = 0; id < nstr; id++) {
        names += st[id].count > 0;
        if (how[id] == HOW_GATHER && (size_t)st[id].count > GATHER_MAX)
            how[id] = HOW_RADIX;
    }
    if ((rc = gather_medians(v, st, how, nstr)) < 0)
        goto out;
    rc = -ENOMEM;
    if (!(r->kernels = calloc(names + 1, sizeof *r->kernels)))
        goto out;
    for (size_t id = 0; id < nstr; id++) {
        struct ps_kernel_stat *k = &st[id];
        size_t n = (size_t)k->count;
        if (n == 0)
            continue;
        k->name = (uint32_t)id;
        if (how[id] == HOW_WIDE && wide_median(v, k, (uint32_t)id) < 0)
            goto out;
        if (how[id] == HOW_RADIX) {
            if (!hist && !(hist = malloc(65536 * sizeof *hist)))
                goto out;
            int64_t upper = kth_radix(v, (uint32_t)id, n / 2, hist);
            k->median_ns = n % 2 ? upper : (kth_radix(v, (uint32_t)id, n / 2 - 1, hist) + upper) / 2;
        }
        r->kernels[r->nkernels++] = *k;
    }
    qsort(r->kernels, r->nkernels, sizeof *r->kernels, cmp_total);
    rc = 0;
out:
    free(st);
    free(how);
    free(hist);
    return rc;
}

static int copies(struct ps_summary_tables *r, const struct ps_view *v)
{
    size_t cap = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        uint8_t kind = ps_view_gpu_attr(v, g)->kind;
        if (kind != PS_GPU_MEMCPY && kind != PS_GPU_MEMSET)
            continue;   /* (the attribute row alone: decoding every kernel's op cost more than the rest) */
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
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

static int device_totals(struct ps_report *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    struct ps_device_stat *ds = NULL;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        int32_t dev = m->streams.v[op->stream].device;
        int rc;
        if ((!ds || ds->device != dev) && (rc = ps_report_device(r, dev, &ds)) < 0)
            return rc;
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

int ps_summary_tables_compute(struct ps_summary_tables *t, const struct ps_view *v)
{
    *t = (struct ps_summary_tables){ 0 };
    int rc = kernels(t, v);
    if (rc == 0)
        rc = copies(t, v);
    if (rc < 0)
        ps_summary_tables_fini(t);
    return rc;
}

void ps_summary_tables_fini(struct ps_summary_tables *t)
{
    free(t->kernels);
    free(t->copies);
    *t = (struct ps_summary_tables){ 0 };
}

void ps_summary_tables_give(struct ps_report *r, struct ps_summary_tables *t)
{
    free(r->kernels);
    free(r->copies);
    r->kernels = t->kernels, r->nkernels = t->nkernels;
    r->copies = t->copies, r->ncopies = t->ncopies;
    *t = (struct ps_summary_tables){ 0 };
}

int ps_summary_devices_compute(struct ps_report *r, const struct ps_view *v)
{
    return device_totals(r, v);
}

int ps_report_device(struct ps_report *r, int32_t device, struct ps_device_stat **out)
{
    *out = NULL;
    for (size_t i = 0; i < r->ndevs; i++)
        if (r->devs[i].device == device) {
            *out = &r->devs[i];
            return 0;
        }
    struct ps_device_stat *v = realloc(r->devs, (r->ndevs + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    r->devs = v;
    size_t pos = r->ndevs++;
    while (pos > 0 && r->devs[pos - 1].device > device) {   /* keep devices in id order */
        r->devs[pos] = r->devs[pos - 1];
        pos--;
    }
    r->devs[pos] = (struct ps_device_stat){ .device = device, .gpu_util = NAN };
    *out = &r->devs[pos];
    return 0;
}

const char *ps_copy_kind_name(const struct ps_copy_stat *c)
{
    if (c->kind == PS_GPU_MEMSET)
        return "Memset";
    return c->copy_kind < PS_NSYS_COPY_KINDS ? ps_nsys_copy_kind[c->copy_kind].key : "unknown";
}

const char *ps_mem_kind_name(uint8_t kind)
{
    return kind < PS_NSYS_MEM_KINDS ? ps_nsys_mem_kind[kind].key : "unknown";
}

const char *ps_copy_src_mem_name(const struct ps_copy_stat *c)
{
    return c->kind == PS_GPU_MEMCPY ? ps_mem_kind_name(c->src_kind) : NULL;
}
