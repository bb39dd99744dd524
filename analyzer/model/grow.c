/* A model that grows (model.h: ps_model_set_growing, ps_model_drop_before): rows appended after a finish are
 * sorted among themselves and merged into the sorted rows, and their GPU ops linked to their launches, at a
 * cost that follows the appended rows and the rows they displace, not the model's size. What makes that
 * possible is kept between finishes in the reader-time state (model_impl.h): the correlation ids of the ops,
 * a map from (process, correlation id) to the start of the API call that carries it (starts do not change when
 * rows move, indices do), and the ops still waiting for their launch's row. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "introsort.h"
#include "model_impl.h"

int ps_model_set_growing(struct ps_model *m)
{
    if (m->gpu.n || m->api.n || m->ranges.n || m->open_ranges.n)
        return -EINVAL;
    if (!m->gpu_build && !(m->gpu_build = calloc(1, sizeof *m->gpu_build)))
        return -ENOMEM;
    m->gpu_build->growing = 1;
    return 0;
}

static uint64_t launch_key(uint32_t pid, uint64_t correlation)
{
    return ps_hash_u64(correlation ^ ps_hash_u64((uint64_t)pid + 1));
}

static uint32_t call_pid(const struct ps_model *m, const struct ps_api_call *c)
{
    return m->correlation_global ? 0 : m->threads.v[c->thread].pid;
}

static uint32_t op_pid(const struct ps_model *m, const struct ps_gpu_row *g)
{
    return m->correlation_global ? 0 : m->streams.v[m->gpu_attrs.v[g->attr].stream].pid;
}

/* First index in [0, n) whose start is >= t; rows sorted by start. */
#define LOWER_BOUND(fn, type)                                  \
    static size_t fn(const type *v, size_t n, int64_t t)       \
    {                                                          \
        size_t lo = 0, hi = n;                                 \
        while (lo < hi) {                                      \
            size_t mid = lo + (hi - lo) / 2;                   \
            if (v[mid].start_ns < t)                           \
                lo = mid + 1;                                  \
            else                                               \
                hi = mid;                                      \
        }                                                      \
        return lo;                                             \
    }
LOWER_BOUND(api_lower_bound, struct ps_api_call)
LOWER_BOUND(range_lower_bound, struct ps_range)
LOWER_BOUND(gpu_lower_bound, struct ps_gpu_row)

static int index_call(struct ps_gpu_build *b, const struct ps_model *m, const struct ps_api_call *c)
{
    if (c->correlation == 0)
        return 0;
    return ps_u64map_add(&b->calls, launch_key(call_pid(m, c), c->correlation), (uint64_t)c->start_ns);
}

/* The call that launched an op of process `pid` with `correlation`: the lowest index among the calls that carry
 * both (the rule of the one-pass link in finish.c), PS_NONE when no such call has been read. */
static uint32_t find_launch(const struct ps_model *m, uint32_t pid, uint64_t correlation)
{
    const struct ps_gpu_build *b = m->gpu_build;
    uint32_t best = PS_NONE;
    uint64_t *v;
    size_t pos = 0;
    while ((v = ps_u64map_next(&b->calls, launch_key(pid, correlation), &pos))) {
        int64_t start = (int64_t)*v;
        for (size_t i = api_lower_bound(m->api.v, m->api.n, start); i < m->api.n && m->api.v[i].start_ns == start;
             i++)
            if (m->api.v[i].correlation == correlation && call_pid(m, &m->api.v[i]) == pid) {
                if (i < best)
                    best = (uint32_t)i;
                break;
            }
    }
    return best;
}

/* Merge the sorted rows v[head, head + tail) into the sorted rows v[0, head), in place. Only the head rows that
 * sort after the first new row move: *first is the first of them; *moved (when not NULL) gets a malloc'ed array
 * with the new index of each head row i >= *first at [i - *first] (NULL when none moved). 0 or -ENOMEM (then
 * nothing moved). Ties keep the head row first. */
#define DEFINE_MERGE(fn, type)                                                                  \
    static int fn(type *v, size_t head, size_t tail, size_t *first, uint32_t **moved)           \
    {                                                                                           \
        const type *t = v + head;                                                               \
        size_t lo = 0, hi = head;                                                               \
        while (lo < hi) {                                                                       \
            size_t mid = lo + (hi - lo) / 2;                                                    \
            if (LESS_START_END(&t[0], &v[mid]))                                                 \
                hi = mid;                                                                       \
            else                                                                                \
                lo = mid + 1;                                                                   \
        }                                                                                       \
        *first = lo;                                                                            \
        if (moved)                                                                              \
            *moved = NULL;                                                                      \
        if (tail == 0 || lo == head)                                                            \
            return 0;                                                                           \
        type *tmp = malloc(tail * sizeof *tmp);                                                 \
        uint32_t *to = moved ? malloc((head - lo) * sizeof *to) : NULL;                         \
        if (!tmp || (moved && !to)) {                                                           \
            free(tmp);                                                                          \
            free(to);                                                                           \
            return -ENOMEM;                                                                     \
        }                                                                                       \
        memcpy(tmp, t, tail * sizeof *tmp);                                                     \
        for (size_t i = head, j = tail, w = head + tail; j > 0;) {                              \
            if (i > lo && LESS_START_END(&tmp[j - 1], &v[i - 1])) {                             \
                v[--w] = v[--i];                                                                \
                if (to)                                                                         \
                    to[i - lo] = (uint32_t)w;                                                   \
            } else {                                                                            \
                v[--w] = tmp[--j];                                                              \
            }                                                                                   \
        }                                                                                       \
        free(tmp);                                                                              \
        if (moved)                                                                              \
            *moved = to;                                                                        \
        return 0;                                                                               \
    }
DEFINE_MERGE(merge_api, struct ps_api_call)
DEFINE_MERGE(merge_ranges, struct ps_range)

/* API calls read since the last finish: indexed by (process, correlation id), sorted, merged; the links of
 * the ops already merged follow the calls that moved. */
static int grow_api(struct ps_model *m)
{
    struct ps_gpu_build *b = m->gpu_build;
    size_t head = b->sorted_api, tail = m->api.n - head, first;
    uint32_t *moved;
    for (size_t i = head; i < m->api.n; i++)
        if (index_call(b, m, &m->api.v[i]) < 0)
            return -ENOMEM;
    ps_model_sort_api(m->api.v + head, tail);
    if (merge_api(m->api.v, head, tail, &first, &moved) < 0)
        return -ENOMEM;
    for (size_t g = 0; moved && m->gpu_launch && g < b->sorted_gpu; g++) {
        uint32_t l = m->gpu_launch[g];
        if (l != PS_NONE && l >= first && l < head)
            m->gpu_launch[g] = moved[l - first];
    }
    free(moved);
    b->sorted_api = m->api.n;
    return 0;
}

static int push_pending(struct ps_gpu_build *b, struct ps_pending_launch p)
{
    if (b->pending.n == b->pending.cap) {
        size_t cap = b->pending.cap ? b->pending.cap * 2 : 64;
        struct ps_pending_launch *v = realloc(b->pending.v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        b->pending.v = v;
        b->pending.cap = cap;
    }
    b->pending.v[b->pending.n++] = p;
    return 0;
}

/* Ops waiting since an earlier finish whose launch has now been read: found among the merged ops by their start
 * and correlation id, and linked. */
static void link_pending(struct ps_model *m, size_t npending)
{
    struct ps_gpu_build *b = m->gpu_build;
    size_t kept = 0;
    for (size_t k = 0; k < b->pending.n; k++) {
        struct ps_pending_launch p = b->pending.v[k];
        uint32_t call = k < npending ? find_launch(m, p.pid, p.correlation) : PS_NONE;
        size_t i = call != PS_NONE ? gpu_lower_bound(m->gpu.v, b->sorted_gpu, p.start_ns) : b->sorted_gpu;
        for (; i < b->sorted_gpu && m->gpu.v[i].start_ns == p.start_ns; i++)
            if (m->gpu_launch[i] == PS_NONE && b->corr[i] == p.correlation && op_pid(m, &m->gpu.v[i]) == p.pid) {
                m->gpu_launch[i] = call;
                break;
            }
        if (call == PS_NONE || i == b->sorted_gpu || m->gpu.v[i].start_ns != p.start_ns)
            b->pending.v[kept++] = p;
    }
    b->pending.n = kept;
}

/* Merge the GPU rows [head, head + tail) (sorted, with their correlation ids and launches) into [0, head). */
static int merge_gpu(struct ps_model *m, size_t head, size_t tail)
{
    struct ps_gpu_row *v = m->gpu.v;
    uint64_t *corr = m->gpu_build->corr;
    uint32_t *launch = m->gpu_launch;
    size_t lo = 0, hi = head;
    while (lo < hi) {   /* the first head row the first new row sorts before: it and the rest move */
        size_t mid = lo + (hi - lo) / 2;
        if (ps_model_gpu_less(m, &v[head], &v[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    if (tail == 0 || lo == head)
        return 0;
    struct ps_gpu_row *trow = malloc(tail * sizeof *trow);
    uint64_t *tcorr = corr ? malloc(tail * sizeof *tcorr) : NULL;
    uint32_t *tlaunch = malloc(tail * sizeof *tlaunch);
    int rc = -ENOMEM;
    if (!trow || (corr && !tcorr) || !tlaunch)
        goto out;
    memcpy(trow, v + head, tail * sizeof *trow);
    memcpy(tlaunch, launch + head, tail * sizeof *tlaunch);
    if (corr)
        memcpy(tcorr, corr + head, tail * sizeof *tcorr);
    for (size_t i = head, j = tail, w = head + tail; j > 0;) {
        if (i > lo && ps_model_gpu_less(m, &trow[j - 1], &v[i - 1])) {
            --i, --w;
            v[w] = v[i];
            launch[w] = launch[i];
            if (corr)
                corr[w] = corr[i];
        } else {
            --j, --w;
            v[w] = trow[j];
            launch[w] = tlaunch[j];
            if (corr)
                corr[w] = tcorr[j];
        }
    }
    rc = 0;
out:
    free(trow);
    free(tcorr);
    free(tlaunch);
    return rc;
}

/* GPU ops read since the last finish: linked to their launches (or left waiting for them), sorted, merged. */
static int grow_gpu(struct ps_model *m, int new_calls)
{
    struct ps_gpu_build *b = m->gpu_build;
    size_t head = b->sorted_gpu, tail = m->gpu.n - head, npending = b->pending.n;
    if (b->launch_cap < m->gpu.n) {
        uint32_t *l = realloc(m->gpu_launch, m->gpu.cap * sizeof *l);
        if (!l)
            return -ENOMEM;
        m->gpu_launch = l;
        b->launch_cap = m->gpu.cap;
    }
    if (!m->gpu_launch)   /* no op yet */
        return 0;
    for (size_t i = head; i < m->gpu.n; i++) {
        m->gpu_launch[i] = PS_NONE;
        if (!b->corr || b->corr[i] == 0)
            continue;
        uint32_t pid = op_pid(m, &m->gpu.v[i]);
        m->gpu_launch[i] = find_launch(m, pid, b->corr[i]);
        if (m->gpu_launch[i] == PS_NONE &&
            push_pending(b, (struct ps_pending_launch){ m->gpu.v[i].start_ns, b->corr[i], pid }) < 0)
            return -ENOMEM;
    }
    if (new_calls && npending)
        link_pending(m, npending);
    ps_model_sort_gpu(m, head, tail, m->gpu_launch);
    if (merge_gpu(m, head, tail) < 0)
        return -ENOMEM;
    b->sorted_gpu = m->gpu.n;
    return 0;
}

int ps_model_grow_finish(struct ps_model *m)
{
    struct ps_gpu_build *b = m->gpu_build;
    size_t first, new_calls = m->api.n - b->sorted_api;
    if (grow_api(m) < 0)
        return -ENOMEM;
    ps_model_sort_ranges(m->ranges.v + b->sorted_ranges, m->ranges.n - b->sorted_ranges);
    if (merge_ranges(m->ranges.v, b->sorted_ranges, m->ranges.n - b->sorted_ranges, &first, NULL) < 0)
        return -ENOMEM;
    b->sorted_ranges = m->ranges.n;
    if (m->open_ranges.n != b->sorted_open && m->open_ranges.n > 1)
        qsort(m->open_ranges.v, m->open_ranges.n, sizeof *m->open_ranges.v, ps_model_cmp_open);
    b->sorted_open = m->open_ranges.n;
    return grow_gpu(m, new_calls != 0);
}

int ps_model_drop_before(struct ps_model *m, int64_t cut_ns, uint32_t keep_domain)
{
    struct ps_gpu_build *b = m->gpu_build;
    if (!b || !b->growing || b->sorted_gpu != m->gpu.n || b->sorted_api != m->api.n ||
        b->sorted_ranges != m->ranges.n)
        return -EINVAL;
    size_t ng = gpu_lower_bound(m->gpu.v, m->gpu.n, cut_ns), na = api_lower_bound(m->api.v, m->api.n, cut_ns),
           nr = range_lower_bound(m->ranges.v, m->ranges.n, cut_ns);
    if (ng) {
        memmove(m->gpu.v, m->gpu.v + ng, (m->gpu.n - ng) * sizeof *m->gpu.v);
        memmove(m->gpu_launch, m->gpu_launch + ng, (m->gpu.n - ng) * sizeof *m->gpu_launch);
        if (b->corr)
            memmove(b->corr, b->corr + ng, (m->gpu.n - ng) * sizeof *b->corr);
        m->gpu.n -= ng;
    }
    if (na) {
        memmove(m->api.v, m->api.v + na, (m->api.n - na) * sizeof *m->api.v);
        m->api.n -= na;
        for (size_t i = 0; m->gpu_launch && i < m->gpu.n; i++)   /* a launch that was dropped: unlinked */
            if (m->gpu_launch[i] != PS_NONE)
                m->gpu_launch[i] = m->gpu_launch[i] < na ? PS_NONE : m->gpu_launch[i] - (uint32_t)na;
        ps_u64map_fini(&b->calls);
        for (size_t i = 0; i < m->api.n; i++)
            if (index_call(b, m, &m->api.v[i]) < 0)
                return -ENOMEM;
    }
    size_t kept_marks = 0;   /* the marks kept stay first, in order: they start before every other row */
    for (size_t i = 0; keep_domain != PS_NONE && i < nr; i++)
        if (m->ranges.v[i].kind == PS_RANGE_NVTX_MARK && m->ranges.v[i].domain == keep_domain)
            m->ranges.v[kept_marks++] = m->ranges.v[i];
    if (nr > kept_marks) {
        memmove(m->ranges.v + kept_marks, m->ranges.v + nr, (m->ranges.n - nr) * sizeof *m->ranges.v);
        m->ranges.n -= nr - kept_marks;
    }
    size_t kept = 0;
    for (size_t k = 0; k < b->pending.n; k++)
        if (b->pending.v[k].start_ns >= cut_ns)
            b->pending.v[kept++] = b->pending.v[k];
    b->pending.n = kept;
    b->sorted_gpu = m->gpu.n;
    b->sorted_api = m->api.n;
    b->sorted_ranges = m->ranges.n;
    return 0;
}
