/* Views of the trace model: the rows one analysis looks at (one process, the rows that start in a time slice, or
 * the whole trace), without copying the model. `report` scopes its step analysis to a process with them, the
 * per-process breakdowns of a multi-rank trace take one per process (ps_view_set_by_process), and `top` analyses
 * the rows of its last seconds (ps_view_starting). Contract: README.md. */
#ifndef PS_VIEW_H
#define PS_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* What a view may own (ps_view_fini frees them): its three selections, and its retimed copies of the GPU rows,
 * their attribute rows, the API calls and the ranges (ps_view_retime). */
enum ps_view_owned {
    PS_VIEW_OWN_GPU, PS_VIEW_OWN_API, PS_VIEW_OWN_RANGES,
    PS_VIEW_OWN_GPU_ROWS, PS_VIEW_OWN_ATTRS, PS_VIEW_OWN_API_ROWS, PS_VIEW_OWN_RANGE_ROWS,
    PS_VIEW_OWNED
};

/* A selection of the model's GPU ops, API calls and ranges, each kind in model order (ascending model index,
 * so sorted by (start, end) like the model). Everything else — strings, processes, threads, streams, devices,
 * metadata — is the model's. Indices stored in rows (op.launch, op.stream, call.thread, a step's range) are
 * model indices in every view; read the row at a model index through the view (ps_view_api_at,
 * ps_view_range_at) so that a retimed view gives its own times. A view borrows the model: the model outlives
 * it, and is never changed through it. Read-only once made, so several threads may read one view. */
struct ps_view {
    const struct ps_model *m;
    /* the rows, indexed by model index: the model's arrays, or the view's own retimed copies (ps_view_retime) */
    const struct ps_gpu_row *gpu_rows;
    const struct ps_gpu_attr *gpu_attrs;
    const struct ps_api_call *api_rows;
    const struct ps_range *range_rows;
    /* the selection: ascending model indices; NULL = every row of that kind */
    const uint32_t *gpu, *api, *ranges;
    size_t ngpu, napi, nranges;
    /* The API calls a GPU op's launch may name, model indices launch_lo .. launch_lo + launch_n - 1: ps_view_gpu
     * reads a launch outside as PS_NONE (and correlation 0), as a model without that call would link it. Every
     * call, but in a ps_view_starting view: there the calls that start outside its window. */
    uint32_t launch_lo, launch_n;
    uint32_t pid;               /* the process of a process view; PS_NONE: not scoped to one process */
    int64_t start_ns, end_ns;   /* the window; INT64_MIN, INT64_MAX: unbounded */
    void *owned[PS_VIEW_OWNED]; /* what ps_view_fini frees, by enum ps_view_owned */
};

/* Every row of finished model `m`. Allocates nothing and never fails; ps_view_fini is optional. */
void ps_view_all(struct ps_view *v, const struct ps_model *m);

/* The rows of `base` that belong to process `pid`: its API calls and host ranges (by their thread's pid), its
 * GPU ops (by their stream's pid). Rows that belong to no process are in every process view: device-side
 * ranges (thread PS_NONE), and every GPU op when correlation ids are file-global (Kineto: streams carry no
 * process). Returns 0 or -ENOMEM (*v then holds nothing to free). O(rows of base); a view keeping every row of
 * a selection-free base allocates nothing. */
int ps_view_process(struct ps_view *v, const struct ps_view *base, uint32_t pid);

/* The rows of `base` that START in [start_ns, end_ns), each kind (GPU ops, API calls, ranges) on its own: a row
 * that started before start_ns is left out whole however long it runs into the window (a step range begun
 * earlier is not in it; its inner ranges and ops that start inside are, outside every step), a row starting
 * inside is kept whole however far past end_ns it runs. This is what `perfscope top` analyses (the last N
 * seconds of a growing model) and what a model holding only those rows would hold: a GPU op whose launch call
 * started before start_ns (or at or after end_ns) reads with launch PS_NONE (launch_lo / launch_n).
 * v->start_ns / end_ns get the window (intersected with base's).
 * Each kind is sorted by start in model order, so its rows are one run of base's, found by binary search
 * (O(log rows)); the view gets its own array of their model indices, O(rows in the window) time and 4 bytes a
 * row (none when the window keeps every row of a selection-free base). An array rather than an offset into the
 * model: every other view's readers (ps_view_gpu_index, ...) then stay free of an offset add, which cost the
 * whole-model report 4 % more instructions (callgrind, bench_analyses -n 200000), while the window's analyses
 * are O(rows in the window) anyway. Returns 0, -EINVAL when end_ns < start_ns (v then holds nothing to free),
 * or -ENOMEM. */
int ps_view_starting(struct ps_view *v, const struct ps_view *base, int64_t start_ns, int64_t end_ns);

/* A copy of `src` that owns its own selections (src may be freed first): free for a selection-free view,
 * O(rows) otherwise. Returns 0, -EINVAL when src is retimed (ps_view_retime: its rows are not copied; *dst
 * then holds nothing to free), or -ENOMEM. */
int ps_view_copy(struct ps_view *dst, const struct ps_view *src);

/* Give the view its own copy of the rows with new times: fn(ctx, &start, &end) is called once per row of each
 * kind (GPU ops, API calls, ranges: every model row, selected or not, so model indices still hold) and may
 * change both. fn must keep the start order (a non-decreasing function of start): the view is not re-sorted.
 * Used by --compat tb to see the trace with tb's float64 µs rounding. Returns 0, -EINVAL when the view was
 * retimed already, or -ENOMEM (v unchanged in both cases). */
int ps_view_retime(struct ps_view *v, void (*fn)(void *ctx, int64_t *start_ns, int64_t *end_ns), void *ctx);

/* Free what the view owns (not the model). A zeroed view or one that failed to be made is fine. */
void ps_view_fini(struct ps_view *v);

/* One view per process of pids[0..n) (ascending, no repeats) of `base`, made in one pass over base's rows
 * (counting sort by process): P processes cost O(rows + P * shared rows), not P passes. views[i] is pids[i]'s,
 * exactly as ps_view_process would make it; the views share one block of storage that the set owns. */
struct ps_view_set {
    struct ps_view *views;
    size_t n;
    uint32_t *storage;
};
int ps_view_set_by_process(struct ps_view_set *s, const struct ps_view *base, const uint32_t *pids, size_t n);
void ps_view_set_fini(struct ps_view_set *s);   /* zeroed: no-op */

/* ---- reading rows (i is a view index, < ngpu / napi / nranges) ---- */

static inline uint32_t ps_view_gpu_index(const struct ps_view *v, size_t i)
{
    return v->gpu ? v->gpu[i] : (uint32_t)i;
}
static inline uint32_t ps_view_api_index(const struct ps_view *v, size_t i)
{
    return v->api ? v->api[i] : (uint32_t)i;
}
static inline uint32_t ps_view_range_index(const struct ps_view *v, size_t i)
{
    return v->ranges ? v->ranges[i] : (uint32_t)i;
}

static inline const struct ps_gpu_row *ps_view_gpu_row(const struct ps_view *v, size_t i)
{
    return &v->gpu_rows[ps_view_gpu_index(v, i)];
}
static inline const struct ps_gpu_attr *ps_view_gpu_attr(const struct ps_view *v, const struct ps_gpu_row *g)
{
    return &v->gpu_attrs[g->attr];
}
/* End and duration of a row read through the view (exact: see ps_gpu_row_end). */
static inline int64_t ps_view_row_end(const struct ps_view *v, const struct ps_gpu_row *g)
{
    return g->dur_ns != PS_GPU_LONG ? g->start_ns + (int64_t)g->dur_ns : v->gpu_attrs[g->attr].long_end_ns;
}
static inline int64_t ps_view_row_dur(const struct ps_view *v, const struct ps_gpu_row *g)
{
    return ps_view_row_end(v, g) - g->start_ns;
}

/* The API call / range at model index `idx` (any row of the model, selected or not), with the view's times. */
static inline const struct ps_api_call *ps_view_api_at(const struct ps_view *v, uint32_t idx)
{
    return &v->api_rows[idx];
}
static inline const struct ps_range *ps_view_range_at(const struct ps_view *v, uint32_t idx)
{
    return &v->range_rows[idx];
}
static inline const struct ps_api_call *ps_view_api(const struct ps_view *v, size_t i)
{
    return &v->api_rows[ps_view_api_index(v, i)];
}
static inline const struct ps_range *ps_view_range(const struct ps_view *v, size_t i)
{
    return &v->range_rows[ps_view_range_index(v, i)];
}

/* The decoded GPU op at view index i (as ps_model_gpu: launch is a model index, correlation the launch's; a
 * launch outside launch_lo .. launch_lo + launch_n - 1 reads as PS_NONE, correlation 0). */
static inline struct ps_gpu_op ps_view_gpu(const struct ps_view *v, size_t i)
{
    uint32_t k = ps_view_gpu_index(v, i);
    const struct ps_gpu_row *g = &v->gpu_rows[k];
    const struct ps_gpu_attr *a = &v->gpu_attrs[g->attr];
    const struct ps_model *m = v->m;
    uint32_t launch = m->gpu_launch ? m->gpu_launch[k] : PS_NONE;
    if (launch - v->launch_lo >= v->launch_n)   /* unsigned: below launch_lo wraps; PS_NONE stays */
        launch = PS_NONE;
    struct ps_gpu_op op = { .start_ns = g->start_ns, .end_ns = ps_view_row_end(v, g),
                            .bytes = a->bytes, .name = a->name, .stream = a->stream,
                            .launch = launch, .kind = a->kind,
                            .copy_kind = a->copy_kind, .src_kind = a->src_kind, .dst_kind = a->dst_kind,
                            .has_occupancy = a->has_occupancy, .occupancy_pct = a->occupancy_pct };
    op.correlation = op.launch != PS_NONE ? v->api_rows[op.launch].correlation : 0;
    return op;
}

/* The view index of the API call at model index `idx`, PS_NONE when the view does not hold it
 * (O(log napi)): a lookup that cannot fail. */
uint32_t ps_view_find_api(const struct ps_view *v, uint32_t idx);
/* The first view index whose GPU op starts at or after t (ngpu if none): O(log ngpu). */
size_t ps_view_gpu_lower_bound(const struct ps_view *v, int64_t t);

#endif
