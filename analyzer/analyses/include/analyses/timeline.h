/* The timeline family (analyzer/analyses/timeline/): what the GPU's timeline shows besides the steps — CUDA / HIP
 * graph replays (graphs.c), GPU work the trace does not hold (backlog.c: "work queued before the trace"), and GPU
 * utilisation over time from the trace's activity (utilization.c) and from NVML samples (nvml_util.c). Uses the base
 * and steps families. Times are ns. */
#ifndef PS_ANALYSES_TIMELINE_H
#define PS_ANALYSES_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_report;
struct ps_view;
struct ps_names;
struct ps_gpu_op;
struct ps_windows;


/* CUDA / HIP graph replays (graphs.c): GPU ops linked to a graph launch call (cudaGraphLaunch, cuGraphLaunch,
 * hipGraphLaunch) are graph nodes; every other linked op is an eager launch. Durations are summed per op
 * (overlaps counted twice), as the share of GPU time the trace's README and TraceLens' "graph" category give. */
struct ps_graph_stat {
    int64_t launches;              /* graph launch calls */
    int64_t ops, kernels;          /* GPU ops (of them kernels) the graph launches ran */
    int64_t eager_ops, eager_kernels;   /* GPU ops (kernels) launched by other calls */
    int64_t ops_ns, graph_ops_ns;  /* summed durations of every GPU op, and of the graph-launched ones */
    double share;                  /* graph_ops_ns / ops_ns; NAN without GPU ops */
};

/* GPU work the trace does not hold (backlog.c): a GPU op that was launched and whose stream had drained, but that
 * started at least --gap-threshold-ms later while its device ran nothing the trace holds, waited behind work
 * launched before the trace began (or by another process, or whose records were lost). That time is the GPU's,
 * not the host's: it is never sync, the verdict leaves it out, and the GPU idle findings do not count it. When the
 * op is its device's first recorded activity, the device is taken as busy from the start of the rows analysed. */
struct ps_backlog_span {
    int64_t start_ns, end_ns;
};
struct ps_backlog_stat {
    int64_t ns;                    /* that time inside the analysed steps, out of sync (union over devices) */
    struct ps_backlog_span *spans; /* the times themselves, disjoint and increasing (owned) */
    size_t nspans;
    int64_t waiting_ops;           /* GPU ops that waited behind it */
    uint32_t first_name;           /* string id of the first of them; PS_NONE when none */
    int64_t first_launch_ns;       /* the end of its launch call */
    int64_t first_start_ns;        /* its start */
    int32_t first_device;
};

#define PS_UTIL_BUCKETS 100
struct ps_util_series {            /* GPU utilisation over time of one device (utilization.c) */
    int32_t device;
    int64_t start_ns, bucket_ns;   /* slice i is [start + i * bucket, start + (i + 1) * bucket) */
    int64_t busy_ns[PS_UTIL_BUCKETS];   /* time in the slice with a kernel, copy or memset running */
};

/* GPU utilisation over time from NVML samples (perfscope traces recorded with a driver: PERFSCOPE_GPU_SAMPLES). */
#define PS_NVML_UTIL_BUCKETS 60
struct ps_nvml_util_stat {
    int32_t device;                /* NVML device index */
    int64_t samples;
    double mean_pct;               /* mean of the samples, 0..100 */
    int32_t min_pct, max_pct;
    int64_t first_ns, last_ns;     /* first and last sample time */
    int64_t bucket_ns;             /* [first, last] in PS_NVML_UTIL_BUCKETS equal buckets (the last one closed) */
    double bucket_pct[PS_NVML_UTIL_BUCKETS];   /* mean of each bucket's samples; -1: none in it */
};

/* ---- graph replays (graphs.c) and work queued before the trace (backlog.c) ---- */

/* graphs.c: 1 when GPU op `op` of view v was launched by a graph launch call (analyses/base.h PS_NAME_GRAPH_LAUNCH). */
int ps_graph_launched(const struct ps_view *v, struct ps_names *names, const struct ps_gpu_op *op);
/* graphs.c: r->graphs over the rows of v (the rows analysed). Returns 0. */
int ps_graphs_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);

/* backlog.c: the times at which the GPU ran work the trace does not hold (struct ps_backlog_stat, report.h), over the
 * rows of v: per device, the waits of launched GPU ops (from the later of the launch call's end and the end of the
 * stream's previous op, to the op's start; from r->run_start_ns for the device's first op) of at least
 * r->opts.gap_ns, less the device's recorded activity; the union over devices. Fills r->backlog but its ns (the
 * breakdown's). 0 or -ENOMEM. */
int ps_backlog_find(struct ps_report *r, const struct ps_view *v);
/* Length of [s, e) inside r->backlog's spans. */
int64_t ps_backlog_within(const struct ps_report *r, int64_t s, int64_t e);
/* A cursor that splits the breakdown's pieces (given with non-decreasing s) by r->backlog's spans: [s, e)'s parts
 * inside them go to `in`, the rest to `out` (either may be NULL). */
struct ps_backlog_cursor {
    const struct ps_backlog_span *v;
    size_t n, at;
};
void ps_backlog_split(struct ps_backlog_cursor *b, int64_t s, int64_t e, struct ps_windows *in,
                      struct ps_windows *out);

/* ---- utilisation over time ---- */

/* nvml_util.c: GPU utilisation over time per device from the model's NVML samples. */
int ps_nvml_util_compute(struct ps_report *r);

/* utilization.c: GPU utilisation over time per device (PS_UTIL_BUCKETS slices of the run). */
int ps_util_compute(struct ps_report *r);

#endif
