/* ps_model_finish (model.h): each kind of row sorted by (start, end) with in-place introsorts, and each GPU op
 * linked to the API call that launched it (same correlation id, same process unless ids are file-global). A
 * growing model's finish is grow.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model_impl.h"

/* In-place introsort, generated per element type: no temporary buffer (glibc's qsort allocates a copy
 * of the whole array, which doubles peak memory on a 10-million-kernel trace), and a linear pass first
 * because readers usually deliver rows already in time order. Not stable: ties in the sort key carry no
 * meaning for any analysis. */
#define DEFINE_SORT(fn, type, LESS)                                                           \
    static void fn##_insertion(type *v, size_t n)                                             \
    {                                                                                         \
        for (size_t i = 1; i < n; i++) {                                                      \
            type x = v[i];                                                                    \
            size_t j = i;                                                                     \
            for (; j > 0 && LESS(&x, &v[j - 1]); j--)                                         \
                v[j] = v[j - 1];                                                              \
            v[j] = x;                                                                         \
        }                                                                                     \
    }                                                                                         \
    static void fn##_sift(type *v, size_t root, size_t n)                                     \
    {                                                                                         \
        for (size_t child; (child = 2 * root + 1) < n; root = child) {                        \
            if (child + 1 < n && LESS(&v[child], &v[child + 1]))                              \
                child++;                                                                      \
            if (!LESS(&v[root], &v[child]))                                                   \
                return;                                                                       \
            type t = v[root];                                                                 \
            v[root] = v[child];                                                               \
            v[child] = t;                                                                     \
        }                                                                                     \
    }                                                                                         \
    static void fn##_heap(type *v, size_t n)                                                  \
    {                                                                                         \
        for (size_t i = n / 2; i-- > 0;)                                                      \
            fn##_sift(v, i, n);                                                               \
        for (size_t i = n; i-- > 1;) {                                                        \
            type t = v[0];                                                                    \
            v[0] = v[i];                                                                      \
            v[i] = t;                                                                         \
            fn##_sift(v, 0, i);                                                               \
        }                                                                                     \
    }                                                                                         \
    static void fn##_intro(type *v, size_t n, int depth)                                      \
    {                                                                                         \
        while (n > 16) {                                                                      \
            if (depth-- == 0) {                                                               \
                fn##_heap(v, n);                                                              \
                return;                                                                       \
            }                                                                                 \
            size_t mid = n / 2;                                                               \
            type t;                                                                           \
            if (LESS(&v[mid], &v[0])) { t = v[mid]; v[mid] = v[0]; v[0] = t; }                \
            if (LESS(&v[n - 1], &v[0])) { t = v[n - 1]; v[n - 1] = v[0]; v[0] = t; }          \
            if (LESS(&v[n - 1], &v[mid])) { t = v[n - 1]; v[n - 1] = v[mid]; v[mid] = t; }    \
            type pivot = v[mid];                                                              \
            size_t i = 0, j = n - 1;                                                          \
            for (;;) {                                                                        \
                while (LESS(&v[i], &pivot))                                                   \
                    i++;                                                                      \
                while (LESS(&pivot, &v[j]))                                                   \
                    j--;                                                                      \
                if (i >= j)                                                                   \
                    break;                                                                    \
                t = v[i]; v[i] = v[j]; v[j] = t;                                              \
                i++;                                                                          \
                j--;                                                                          \
            }                                                                                 \
            fn##_intro(v + j + 1, n - j - 1, depth);   /* recurse right, loop on the left */  \
            n = j + 1;                                                                        \
        }                                                                                     \
        fn##_insertion(v, n);                                                                 \
    }                                                                                         \
    static void fn(type *v, size_t n)                                                         \
    {                                                                                         \
        size_t i = 1;                                                                         \
        while (i < n && !LESS(&v[i], &v[i - 1]))                                              \
            i++;                                                                              \
        if (i >= n)                                                                           \
            return;                                                                           \
        int depth = 0;                                                                        \
        for (size_t k = n; k; k >>= 1)                                                        \
            depth += 2;                                                                       \
        fn##_intro(v, n, depth);                                                              \
    }

#define LESS_START_END(a, b) \
    ((a)->start_ns < (b)->start_ns || ((a)->start_ns == (b)->start_ns && (a)->end_ns < (b)->end_ns))

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

/* Introsort of rows [lo, lo + n), as DEFINE_SORT below but through row_swap. */
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

struct corr_key {
    uint64_t correlation;
    uint32_t pid;
    uint32_t api;         /* index into model.api */
};

static int cmp_corr(const struct corr_key *x, const struct corr_key *y)
{
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    return x->api < y->api ? -1 : x->api > y->api;
}

#define LESS_CORR(a, b) (cmp_corr((a), (b)) < 0)
DEFINE_SORT(sort_corr, struct corr_key, LESS_CORR)

/* Open ranges: by thread, then start (the order they were pushed in: outermost first). */
int ps_model_cmp_open(const void *a, const void *b)
{
    const struct ps_range *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

int ps_model_finish(struct ps_model *m)
{
    if (m->gpu_build && m->gpu_build->growing)
        return ps_model_grow_finish(m);
    ps_model_sort_gpu(m, 0, m->gpu.n, NULL);
    sort_api(m->api.v, m->api.n);
    sort_range(m->ranges.v, m->ranges.n);
    if (m->open_ranges.n > 1)
        qsort(m->open_ranges.v, m->open_ranges.n, sizeof *m->open_ranges.v, ps_model_cmp_open);

    uint64_t *corr = m->gpu_build ? m->gpu_build->corr : NULL;
    free(m->gpu_launch);
    m->gpu_launch = NULL;
    int rc = 0;
    struct corr_key *keys = NULL;
    if (m->api.n == 0 || m->gpu.n == 0 || !corr)
        goto out;
    rc = -ENOMEM;
    keys = malloc(m->api.n * sizeof *keys);
    if (!keys || !(m->gpu_launch = malloc(m->gpu.n * sizeof *m->gpu_launch)))
        goto out;
    size_t nkeys = 0;
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *c = &m->api.v[i];
        if (c->correlation == 0)
            continue;
        uint32_t pid = m->correlation_global ? 0 : m->threads.v[c->thread].pid;
        keys[nkeys++] = (struct corr_key){ c->correlation, pid, (uint32_t)i };
    }
    sort_corr(keys, nkeys);
    size_t linked = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        m->gpu_launch[i] = PS_NONE;
        if (corr[i] == 0)
            continue;
        uint32_t stream = m->gpu_attrs.v[m->gpu.v[i].attr].stream;
        struct corr_key want = { corr[i], m->correlation_global ? 0 : m->streams.v[stream].pid, 0 };
        size_t lo = 0, hi = nkeys;
        while (lo < hi) {       /* first key >= want */
            size_t mid = (lo + hi) / 2;
            if (cmp_corr(&keys[mid], &want) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nkeys && keys[lo].pid == want.pid && keys[lo].correlation == want.correlation) {
            m->gpu_launch[i] = keys[lo].api;
            linked++;
        }
    }
    if (!linked) {   /* nothing to keep: every op reads PS_NONE */
        free(m->gpu_launch);
        m->gpu_launch = NULL;
    }
    rc = 0;
out:
    free(keys);
    ps_model_build_free(m);   /* correlation ids are now in the links, the attribute index is rebuilt on demand */
    return rc;
}
