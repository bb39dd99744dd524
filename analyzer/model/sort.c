/* The model's row order (model_impl.h): each kind of row sorted by (start, end) with in-place introsorts, the GPU
 * rows together with their parallel correlation ids and launch links; the order of two GPU rows and of open ranges.
 * The lowest file of the model's sorting: it calls no other file of the model. */
#include "introsort.h"
#include "model/model.h"
#include "model_impl.h"

/* GPU rows sort with their correlation ids and launch links (parallel arrays, NULL when none), so swaps move
 * all three. */
struct gpu_sort {
    struct ps_gpu_row *v;
    uint64_t *corr;
    uint32_t *launch;
    const struct ps_gpu_attr *attrs;
};

static int row_less(const struct gpu_sort *g, const struct ps_gpu_row *a, const struct ps_gpu_row *b)
{
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns;
    if (a->dur_ns != PS_GPU_LONG && b->dur_ns != PS_GPU_LONG)
        return a->dur_ns < b->dur_ns;
    int64_t ea = a->dur_ns != PS_GPU_LONG ? a->start_ns + a->dur_ns : g->attrs[a->attr].long_end_ns;
    int64_t eb = b->dur_ns != PS_GPU_LONG ? b->start_ns + b->dur_ns : g->attrs[b->attr].long_end_ns;
    return ea < eb;
}

static void row_swap(const struct gpu_sort *g, size_t i, size_t j)
{
    struct ps_gpu_row t = g->v[i];
    g->v[i] = g->v[j];
    g->v[j] = t;
    if (g->corr) {
        uint64_t c = g->corr[i];
        g->corr[i] = g->corr[j];
        g->corr[j] = c;
    }
    if (g->launch) {
        uint32_t l = g->launch[i];
        g->launch[i] = g->launch[j];
        g->launch[j] = l;
    }
}

static void rows_sift(const struct gpu_sort *g, size_t lo, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && row_less(g, &g->v[lo + child], &g->v[lo + child + 1]))
            child++;
        if (!row_less(g, &g->v[lo + root], &g->v[lo + child]))
            return;
        row_swap(g, lo + root, lo + child);
    }
}

/* Introsort of rows [lo, lo + n), as DEFINE_SORT (introsort.h) but through row_swap. */
static void rows_intro(const struct gpu_sort *g, size_t lo, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            for (size_t i = n / 2; i-- > 0;)
                rows_sift(g, lo, i, n);
            for (size_t i = n; i-- > 1;) {
                row_swap(g, lo, lo + i);
                rows_sift(g, lo, 0, i);
            }
            return;
        }
        size_t mid = lo + n / 2, last = lo + n - 1;
        if (row_less(g, &g->v[mid], &g->v[lo]))
            row_swap(g, mid, lo);
        if (row_less(g, &g->v[last], &g->v[lo]))
            row_swap(g, last, lo);
        if (row_less(g, &g->v[last], &g->v[mid]))
            row_swap(g, last, mid);
        struct ps_gpu_row pivot = g->v[mid];
        size_t i = lo, j = last;
        for (;;) {
            while (row_less(g, &g->v[i], &pivot))
                i++;
            while (row_less(g, &pivot, &g->v[j]))
                j--;
            if (i >= j)
                break;
            row_swap(g, i++, j--);
        }
        rows_intro(g, j + 1, lo + n - j - 1, depth);
        n = j + 1 - lo;
    }
    for (size_t i = lo + 1; i < lo + n; i++)
        for (size_t j = i; j > lo && row_less(g, &g->v[j], &g->v[j - 1]); j--)
            row_swap(g, j, j - 1);
}

void ps_model_sort_gpu(struct ps_model *m, size_t lo, size_t n, uint32_t *launch)
{
    struct gpu_sort g = { m->gpu.v, m->gpu_build ? m->gpu_build->corr : NULL, launch, m->gpu_attrs.v };
    size_t i = lo + 1;
    const struct ps_gpu_build *b = m->gpu_build;
    if (b && !b->growing && b->gpu_rising > i)   /* [lo, gpu_rising) known in order as it was added */
        i = b->gpu_rising < lo + n ? b->gpu_rising : lo + n;
    while (i < lo + n && (g.v[i].start_ns > g.v[i - 1].start_ns || !row_less(&g, &g.v[i], &g.v[i - 1])))
        i++;
    if (i >= lo + n)
        return;   /* already in order (the usual case for one table read in time order) */
    int depth = 0;
    for (size_t k = n; k; k >>= 1)
        depth += 2;
    rows_intro(&g, lo, n, depth);
}

int ps_model_gpu_less(const struct ps_model *m, const struct ps_gpu_row *a, const struct ps_gpu_row *b)
{
    struct gpu_sort g = { .attrs = m->gpu_attrs.v };
    return row_less(&g, a, b);
}

DEFINE_SORT(sort_api, struct ps_api_call, LESS_START_END)
DEFINE_SORT(sort_range, struct ps_range, LESS_START_END)

void ps_model_sort_api(struct ps_api_call *v, size_t n)
{
    sort_api(v, n);
}

void ps_model_sort_ranges(struct ps_range *v, size_t n)
{
    sort_range(v, n);
}

/* Open ranges: by thread, then start (the order they were pushed in: outermost first). */
int ps_model_cmp_open(const void *a, const void *b)
{
    const struct ps_range *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}
