/* Private to the model (model.c, sort.c, grow.c, finish.c): the reader-time state behind struct ps_model.gpu_build and
 * the sorts the finishes use. Not included outside analyzer/model/.
 *
 * The files' order: each calls only files before it (tests/layers/check_layers.py: no circle).
 *   idmap.c, op_trace.c   the id maps and the per-operator events (their public headers)
 *   model.c               storage: strings, rows, find-or-add lookups, the reader-time state and its free
 *   sort.c                the row order: in-place sorts, GPU row order, open ranges' order (introsort.h)
 *   grow.c                a growing model: its finish (merges, late links) and ps_model_drop_before
 *   finish.c              ps_model_finish: a growing model's through grow.c, else sorts, links, frees the state
 *   view.c                views of a finished model */
#ifndef PS_MODEL_IMPL_H
#define PS_MODEL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "model/idmap.h"
#include "model/model.h"
#include "ps_hashmap.h"

/* A GPU op waiting for the API call that launched it (a growing model: the call's row has not been read yet).
 * Found again by its start (rows are sorted by start) and correlation id. */
struct ps_pending_launch {
    int64_t start_ns;
    uint64_t correlation;
    uint32_t pid;                       /* the op's stream's process; 0 when correlation ids are file-global */
};

struct ps_gpu_build {
    struct ps_u64map attrs; /* attr_hash -> index into gpu_attrs (a multi-map); long rows not indexed */
    size_t nattrs;        /* attributes indexed so far */
    uint64_t *corr;       /* correlation id per op (parallel to gpu); NULL while all are 0 */
    size_t corr_cap;
    size_t gpu_rising;    /* gpu[0, gpu_rising) rise strictly in start_ns, known as the rows were added (a read in
                           * time order then needs no pass to find it sorted); not kept in a growing model */
    struct ps_idmap procs, threads;   /* pid -> procs index; pid << 32 | tid -> threads index */
    struct ps_idmap streams, devices; /* stream_key() -> streams index; (uint32) id -> devices index */
    size_t nprocs, nthreads, nstreams, ndevices;   /* rows indexed so far */
    /* a growing model (ps_model_set_growing): kept across finishes */
    int growing;
    size_t sorted_gpu, sorted_api, sorted_ranges, sorted_open;   /* rows merged into sorted order so far */
    size_t launch_cap;                  /* capacity of model.gpu_launch */
    struct ps_u64map calls;             /* launch_key(pid, correlation) -> the API call's start_ns (multi-map) */
    PS_VEC(struct ps_pending_launch) pending;
};

/* model.c: free the reader-time state (m->gpu_build, a growing model's too; NULL after). */
void ps_model_build_free(struct ps_model *m);

/* sort.c: sorts by (start, end), in place, no temporary buffer. ps_model_sort_gpu sorts the rows
 * [lo, lo + n) together with the parallel correlation ids (build->corr, when present) and, when `launch` is not
 * NULL, the parallel launch links. */
void ps_model_sort_api(struct ps_api_call *v, size_t n);
void ps_model_sort_ranges(struct ps_range *v, size_t n);
void ps_model_sort_gpu(struct ps_model *m, size_t lo, size_t n, uint32_t *launch);
/* 1 when GPU row a sorts before b (by start, then end). */
int ps_model_gpu_less(const struct ps_model *m, const struct ps_gpu_row *a, const struct ps_gpu_row *b);
/* Open ranges: by thread, then start (qsort comparator). */
int ps_model_cmp_open(const void *a, const void *b);

/* grow.c: ps_model_finish of a growing model. 0 or -ENOMEM. */
int ps_model_grow_finish(struct ps_model *m);

#endif
