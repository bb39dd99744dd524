/* Views of the trace model (view.h): selections of its rows by process, rank and time window, and retimed
 * copies of the rows for --compat tb. Selections are ascending model indices, so a view reads in model order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"

void ps_view_all(struct ps_view *v, const struct ps_model *m)
{
    *v = (struct ps_view){ .m = m, .gpu_rows = m->gpu.v, .gpu_attrs = m->gpu_attrs.v, .api_rows = m->api.v,
                           .range_rows = m->ranges.v, .ngpu = m->gpu.n, .napi = m->api.n, .nranges = m->ranges.n,
                           .launch_lo = 0, .launch_n = (uint32_t)m->api.n, .pid = PS_NONE,
                           .start_ns = INT64_MIN, .end_ns = INT64_MAX };
}

void ps_view_fini(struct ps_view *v)
{
    for (size_t i = 0; i < PS_VIEW_OWNED; i++)
        free(v->owned[i]);
    *v = (struct ps_view){ 0 };   /* no selection or retimed row left pointing at what was freed */
}

/* A view like base (same rows and times) with no selection of its own yet. */
static void view_like(struct ps_view *v, const struct ps_view *base)
{
    *v = *base;
    memset(v->owned, 0, sizeof v->owned);
}

/* Keep the rows of one kind for which keep(ctx, model index) holds: *sel gets NULL when every row of a
 * selection-free base is kept, else an owned array. Returns 0 or -ENOMEM. */
static int select_rows(const uint32_t *base_sel, size_t base_n, int (*keep)(const void *, uint32_t),
                       const void *ctx, const uint32_t **sel, size_t *n, void **own)
{
    size_t k = 0;
    for (size_t i = 0; i < base_n; i++)
        k += keep(ctx, base_sel ? base_sel[i] : (uint32_t)i) != 0;
    if (k == base_n && !base_sel) {
        *sel = NULL;
        *n = base_n;
        return 0;
    }
    uint32_t *out = malloc((k + 1) * sizeof *out);
    if (!out)
        return -ENOMEM;
    k = 0;
    for (size_t i = 0; i < base_n; i++) {
        uint32_t idx = base_sel ? base_sel[i] : (uint32_t)i;
        if (keep(ctx, idx))
            out[k++] = idx;
    }
    *sel = out;
    *n = k;
    *own = out;
    return 0;
}

/* Which process a selection keeps. */
struct owner_filter {
    const struct ps_view *v;
    uint32_t pid;
};

static int pid_in(const struct owner_filter *f, uint32_t pid)
{
    return pid == f->pid;
}

static int keep_gpu_owner(const void *ctx, uint32_t idx)
{
    const struct owner_filter *f = ctx;
    const struct ps_model *m = f->v->m;
    return m->correlation_global || pid_in(f, m->streams.v[f->v->gpu_attrs[f->v->gpu_rows[idx].attr].stream].pid);
}

static int keep_api_owner(const void *ctx, uint32_t idx)
{
    const struct owner_filter *f = ctx;
    return pid_in(f, f->v->m->threads.v[f->v->api_rows[idx].thread].pid);
}

static int keep_range_owner(const void *ctx, uint32_t idx)
{
    const struct owner_filter *f = ctx;
    uint32_t t = f->v->range_rows[idx].thread;
    return t == PS_NONE || pid_in(f, f->v->m->threads.v[t].pid);   /* device side: every process's */
}

/* Every thread and stream of the model belongs to one of the processes: a selection-free base keeps every row,
 * found in O(threads + streams) instead of a pass over the rows (the common single-process trace). */
static int owns_everything(const struct owner_filter *f)
{
    const struct ps_model *m = f->v->m;
    if (f->v->gpu || f->v->api || f->v->ranges)
        return 0;
    for (size_t i = 0; i < m->threads.n; i++)
        if (!pid_in(f, m->threads.v[i].pid))
            return 0;
    for (size_t i = 0; i < m->streams.n && !m->correlation_global; i++)
        if (!pid_in(f, m->streams.v[i].pid))
            return 0;
    return 1;
}

int ps_view_process(struct ps_view *v, const struct ps_view *base, uint32_t pid)
{
    struct owner_filter f = { base, pid };
    view_like(v, base);
    v->pid = pid;
    if (owns_everything(&f))
        return 0;
    if (select_rows(base->gpu, base->ngpu, keep_gpu_owner, &f, &v->gpu, &v->ngpu, &v->owned[PS_VIEW_OWN_GPU]) < 0 ||
        select_rows(base->api, base->napi, keep_api_owner, &f, &v->api, &v->napi, &v->owned[PS_VIEW_OWN_API]) < 0 ||
        select_rows(base->ranges, base->nranges, keep_range_owner, &f, &v->ranges, &v->nranges,
                    &v->owned[PS_VIEW_OWN_RANGES]) < 0) {
        ps_view_fini(v);
        return -ENOMEM;
    }
    return 0;
}

/* The first of base's n rows of one kind (selection sel, NULL: model indices 0..n-1, in start order) whose start
 * is at or after t: O(log n). */
static size_t first_starting(const struct ps_view *v, const uint32_t *sel, size_t n,
                             int64_t (*start_of)(const struct ps_view *, uint32_t), int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (start_of(v, sel ? sel[mid] : (uint32_t)mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t gpu_start(const struct ps_view *v, uint32_t idx)
{
    return v->gpu_rows[idx].start_ns;
}
static int64_t api_start(const struct ps_view *v, uint32_t idx)
{
    return v->api_rows[idx].start_ns;
}
static int64_t range_start(const struct ps_view *v, uint32_t idx)
{
    return v->range_rows[idx].start_ns;
}

/* The rows of one kind of base (sel, n) starting in [s, e): one run [lo, hi) of them, as NULL when that is every
 * row of a selection-free base, else an owned array of their model indices. Returns 0 or -ENOMEM. */
static int slice_starting(const struct ps_view *base, const uint32_t *base_sel, size_t base_n,
                          int64_t (*start_of)(const struct ps_view *, uint32_t), int64_t s, int64_t e,
                          const uint32_t **sel, size_t *n, void **own)
{
    size_t lo = first_starting(base, base_sel, base_n, start_of, s);
    size_t hi = first_starting(base, base_sel, base_n, start_of, e);
    hi = hi < lo ? lo : hi;
    *n = hi - lo;
    if (!base_sel && lo == 0 && hi == base_n) {
        *sel = NULL;
        return 0;
    }
    uint32_t *out = malloc((*n + 1) * sizeof *out);
    if (!out)
        return -ENOMEM;
    for (size_t i = 0; i < *n; i++)
        out[i] = base_sel ? base_sel[lo + i] : (uint32_t)(lo + i);
    *sel = *own = out;
    return 0;
}

int ps_view_starting(struct ps_view *v, const struct ps_view *base, int64_t start_ns, int64_t end_ns)
{
    if (end_ns < start_ns) {
        memset(v, 0, sizeof *v);
        return -EINVAL;
    }
    view_like(v, base);
    if (slice_starting(base, base->gpu, base->ngpu, gpu_start, start_ns, end_ns, &v->gpu, &v->ngpu,
                       &v->owned[PS_VIEW_OWN_GPU]) < 0 ||
        slice_starting(base, base->api, base->napi, api_start, start_ns, end_ns, &v->api, &v->napi,
                       &v->owned[PS_VIEW_OWN_API]) < 0 ||
        slice_starting(base, base->ranges, base->nranges, range_start, start_ns, end_ns, &v->ranges, &v->nranges,
                       &v->owned[PS_VIEW_OWN_RANGES]) < 0) {
        ps_view_fini(v);
        return -ENOMEM;
    }
    /* the calls a launch may name: every model call starting in the window (model order is start order, so they
     * are one run of model indices whatever base selects), within base's own run */
    size_t lo = first_starting(base, NULL, base->m->api.n, api_start, start_ns);
    size_t hi = first_starting(base, NULL, base->m->api.n, api_start, end_ns);
    size_t base_hi = (size_t)base->launch_lo + base->launch_n;
    lo = lo > base->launch_lo ? lo : base->launch_lo;
    hi = hi < base_hi ? hi : base_hi;
    v->launch_lo = (uint32_t)lo;
    v->launch_n = (uint32_t)(hi > lo ? hi - lo : 0);
    v->start_ns = start_ns > base->start_ns ? start_ns : base->start_ns;
    v->end_ns = end_ns < base->end_ns ? end_ns : base->end_ns;
    return 0;
}

static int retimed(const struct ps_view *v)
{
    return v->gpu_rows != v->m->gpu.v || v->gpu_attrs != v->m->gpu_attrs.v || v->api_rows != v->m->api.v ||
           v->range_rows != v->m->ranges.v;
}

/* An owned copy of n indices (NULL stays NULL). Returns 0 or -ENOMEM. */
static int copy_sel(const uint32_t **sel, size_t n, void **own)
{
    if (!*sel)
        return 0;
    uint32_t *out = malloc((n + 1) * sizeof *out);
    if (!out)
        return -ENOMEM;
    if (n)
        memcpy(out, *sel, n * sizeof *out);
    *sel = *own = out;
    return 0;
}

int ps_view_copy(struct ps_view *dst, const struct ps_view *src)
{
    if (retimed(src)) {
        memset(dst, 0, sizeof *dst);
        return -EINVAL;
    }
    view_like(dst, src);
    if (copy_sel(&dst->gpu, dst->ngpu, &dst->owned[PS_VIEW_OWN_GPU]) < 0 ||
        copy_sel(&dst->api, dst->napi, &dst->owned[PS_VIEW_OWN_API]) < 0 ||
        copy_sel(&dst->ranges, dst->nranges, &dst->owned[PS_VIEW_OWN_RANGES]) < 0) {
        ps_view_fini(dst);
        return -ENOMEM;
    }
    return 0;
}

int ps_view_retime(struct ps_view *v, void (*fn)(void *ctx, int64_t *start_ns, int64_t *end_ns), void *ctx)
{
    const struct ps_model *m = v->m;
    size_t nattrs = m->gpu_attrs.n;
    if (v->gpu_rows != m->gpu.v)
        return -EINVAL;   /* retimed once already */
    struct ps_gpu_row *gpu = malloc((m->gpu.n + 1) * sizeof *gpu);
    /* a retimed op may need a long-duration row of its own: room for one per op */
    struct ps_gpu_attr *attrs = malloc((nattrs + m->gpu.n + 1) * sizeof *attrs);
    struct ps_api_call *api = malloc((m->api.n + 1) * sizeof *api);
    struct ps_range *ranges = malloc((m->ranges.n + 1) * sizeof *ranges);
    if (!gpu || !attrs || !api || !ranges) {
        free(gpu);
        free(attrs);
        free(api);
        free(ranges);
        return -ENOMEM;
    }
    if (nattrs)
        memcpy(attrs, v->gpu_attrs, nattrs * sizeof *attrs);
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_row *g = &v->gpu_rows[i];
        int64_t s = g->start_ns, e = ps_view_row_end(v, g), dur;
        fn(ctx, &s, &e);
        int fits = !__builtin_sub_overflow(e, s, &dur) && dur >= 0 && dur < PS_GPU_LONG;
        struct ps_gpu_attr a = attrs[g->attr];
        gpu[i] = (struct ps_gpu_row){ .start_ns = s, .dur_ns = fits ? (uint32_t)dur : PS_GPU_LONG, .attr = g->attr };
        if (fits && !a.is_long)
            continue;
        a.is_long = !fits;   /* the op's own row, as ps_model_gpu_retime makes it */
        a.long_end_ns = fits ? 0 : e;
        attrs[nattrs] = a;
        gpu[i].attr = (uint32_t)nattrs++;
    }
    for (size_t i = 0; i < m->api.n; i++) {
        api[i] = v->api_rows[i];
        fn(ctx, &api[i].start_ns, &api[i].end_ns);
    }
    for (size_t i = 0; i < m->ranges.n; i++) {
        ranges[i] = v->range_rows[i];
        fn(ctx, &ranges[i].start_ns, &ranges[i].end_ns);
    }
    for (int k = PS_VIEW_OWN_GPU_ROWS; k <= PS_VIEW_OWN_RANGE_ROWS; k++)
        free(v->owned[k]);
    v->gpu_rows = v->owned[PS_VIEW_OWN_GPU_ROWS] = gpu;
    v->gpu_attrs = v->owned[PS_VIEW_OWN_ATTRS] = attrs;
    v->api_rows = v->owned[PS_VIEW_OWN_API_ROWS] = api;
    v->range_rows = v->owned[PS_VIEW_OWN_RANGE_ROWS] = ranges;
    return 0;
}

uint32_t ps_view_find_api(const struct ps_view *v, uint32_t idx)
{
    if (!v->api)
        return idx < v->napi ? idx : PS_NONE;
    size_t lo = 0, hi = v->napi;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->api[mid] < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->napi && v->api[lo] == idx ? (uint32_t)lo : PS_NONE;
}

size_t ps_view_gpu_lower_bound(const struct ps_view *v, int64_t t)
{
    size_t lo = 0, hi = v->ngpu;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ps_view_gpu_row(v, mid)->start_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- one view per process, in one pass ---- */

/* The slot of each row's process among pids (n: none of them; n + 1: every process's row). */
struct owners {
    const uint32_t *pids;
    size_t n;
};

static size_t slot_of(const struct owners *o, uint32_t pid)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->pids[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->n && o->pids[lo] == pid ? lo : o->n;
}

#define SHARED(o) ((o)->n + 1)

static size_t gpu_slot(const struct ps_view *b, const struct owners *o, uint32_t idx)
{
    const struct ps_model *m = b->m;
    return m->correlation_global ? SHARED(o) : slot_of(o, m->streams.v[b->gpu_attrs[b->gpu_rows[idx].attr].stream].pid);
}

static size_t api_slot(const struct ps_view *b, const struct owners *o, uint32_t idx)
{
    return slot_of(o, b->m->threads.v[b->api_rows[idx].thread].pid);
}

static size_t range_slot(const struct ps_view *b, const struct owners *o, uint32_t idx)
{
    uint32_t t = b->range_rows[idx].thread;
    return t == PS_NONE ? SHARED(o) : slot_of(o, b->m->threads.v[t].pid);
}

/* Counting sort of one kind's rows into per-process runs (shared rows merged into every run, model order
 * kept). count[] has n + 2 entries; out gets the runs; sel/len of each view are set. */
static void distribute(const struct ps_view *b, const struct owners *o, const uint32_t *base_sel, size_t base_n,
                       size_t (*slot)(const struct ps_view *, const struct owners *, uint32_t), size_t *count,
                       uint32_t *out, struct ps_view *views, int kind)
{
    size_t n = o->n, shared = 0, at = 0;
    memset(count, 0, (n + 2) * sizeof *count);
    for (size_t i = 0; i < base_n; i++)
        count[slot(b, o, base_sel ? base_sel[i] : (uint32_t)i)]++;
    shared = count[SHARED(o)];
    for (size_t p = 0; p < n; p++) {   /* count[p] becomes run p's start, its length kept in the view */
        size_t len = count[p] + shared;
        const uint32_t **sel = kind == 0 ? &views[p].gpu : kind == 1 ? &views[p].api : &views[p].ranges;
        size_t *vn = kind == 0 ? &views[p].ngpu : kind == 1 ? &views[p].napi : &views[p].nranges;
        *sel = out + at;
        *vn = 0;
        count[p] = at;
        at += len;
    }
    for (size_t i = 0; i < base_n; i++) {   /* in model order: each run stays ascending */
        uint32_t idx = base_sel ? base_sel[i] : (uint32_t)i;
        size_t s = slot(b, o, idx);
        if (s == n)
            continue;
        for (size_t p = s == SHARED(o) ? 0 : s; p < (s == SHARED(o) ? n : s + 1); p++) {
            size_t *vn = kind == 0 ? &views[p].ngpu : kind == 1 ? &views[p].napi : &views[p].nranges;
            out[count[p] + (*vn)++] = idx;
        }
    }
}

static size_t set_size(const struct ps_view *b, const struct owners *o, const uint32_t *base_sel, size_t base_n,
                       size_t (*slot)(const struct ps_view *, const struct owners *, uint32_t), size_t *shared)
{
    size_t own = 0;
    *shared = 0;
    for (size_t i = 0; i < base_n; i++) {
        size_t s = slot(b, o, base_sel ? base_sel[i] : (uint32_t)i);
        own += s < o->n;
        *shared += s == SHARED(o);
    }
    return own + *shared * o->n;
}

int ps_view_set_by_process(struct ps_view_set *s, const struct ps_view *base, const uint32_t *pids, size_t n)
{
    struct owners o = { pids, n };
    size_t sh[3], total = set_size(base, &o, base->gpu, base->ngpu, gpu_slot, &sh[0]);
    total += set_size(base, &o, base->api, base->napi, api_slot, &sh[1]);
    total += set_size(base, &o, base->ranges, base->nranges, range_slot, &sh[2]);
    memset(s, 0, sizeof *s);
    s->views = calloc(n + 1, sizeof *s->views);
    s->storage = malloc((total + 1) * sizeof *s->storage);
    size_t *count = malloc((n + 2) * sizeof *count);
    if (!s->views || !s->storage || !count) {
        free(count);
        ps_view_set_fini(s);
        return -ENOMEM;
    }
    for (size_t p = 0; p < n; p++) {
        view_like(&s->views[p], base);
        s->views[p].pid = pids[p];
    }
    uint32_t *out = s->storage;
    distribute(base, &o, base->gpu, base->ngpu, gpu_slot, count, out, s->views, 0);
    for (size_t p = 0; p < n; p++)
        out += s->views[p].ngpu;
    distribute(base, &o, base->api, base->napi, api_slot, count, out, s->views, 1);
    for (size_t p = 0; p < n; p++)
        out += s->views[p].napi;
    distribute(base, &o, base->ranges, base->nranges, range_slot, count, out, s->views, 2);
    free(count);
    s->n = n;
    return 0;
}

void ps_view_set_fini(struct ps_view_set *s)
{
    free(s->views);
    free(s->storage);
    memset(s, 0, sizeof *s);
}
