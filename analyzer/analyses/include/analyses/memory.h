/* The report's memory view (analyses/memory.c, memory_ops.c; docs/memory.md): per device the allocated / reserved
 * curve, its peak and where it happened, capacity and headroom, allocation / free pairs, allocations never freed,
 * the per-operator table, and findings worded from them. Definitions follow the PyTorch profiler's TensorBoard
 * plugin (pytorch/kineto tb_plugin/torch_tb_profiler: run.py get_memory_curve, get_memory_events;
 * profiler/memory_parser.py) on Kineto traces; the rest is perfscope's own, said where it is. All sizes in bytes,
 * times in ns. Renderers read these structs through ps_report.mem. */
#ifndef PS_MEMORY_H
#define PS_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Where a device's memory figures come from (JSON "source"). */
enum ps_mem_source { PS_MEMSRC_KINETO, PS_MEMSRC_NSYS, PS_MEMSRC_CUPTI, PS_MEMSRC_NVML, PS_MEMSRC_TORCH };
extern const char *const ps_mem_source_name[];   /* "kineto", "nsys", "cupti", "nvml", "torch" */

struct ps_mem_point {              /* one point of a curve: the value after one memory event */
    int64_t t_ns;                  /* from ps_memory.origin_ns */
    int64_t allocated, reserved;   /* reserved -1 unknown */
};

struct ps_mem_step_end {           /* allocated memory at the end of one step (its last memory record) */
    uint32_t step;                 /* string id of the step range */
    int64_t allocated;
};

struct ps_mem_device {
    int32_t device_type;           /* c10::DeviceType of its records: 0 CPU, 1 CUDA, 6 HIP, ... */
    int32_t device;                /* the trace's device id (-1: the host) */
    char label[32];                /* "GPU0", "CPU", "HIP0", "XPU0" ... */
    enum ps_mem_source source;
    int running_sum;               /* 1: the trace has no totals (old PyTorch: Bytes only); the peak is the peak of the
                                    * running sum of sizes since the trace began (memory held before is not counted) */
    size_t records;                /* memory records of the device */
    struct ps_mem_point *curve;    /* the plugin's curve points (records with Addr and both totals), in time order */
    size_t npoints;
    int64_t peak_allocated_bytes;  /* -1: no curve and no record */
    int64_t peak_allocated_ns;     /* from origin_ns: the first record that reaches the peak */
    size_t peak_ties;              /* records at the peak */
    uint32_t peak_op;              /* string id: the operator whose allocation made the peak; PS_NONE unknown */
    uint32_t peak_op_parent;       /* its parent operator (for the plugin's "parent (aten::empty)" label); PS_NONE */
    uint32_t peak_step;            /* string id of the host step holding the peak; PS_NONE outside every step */
    int64_t peak_reserved_bytes;   /* max Total Reserved; -1 unknown */
    int64_t capacity_bytes;        /* the device's total memory (Kineto deviceProperties totalGlobalMem); -1 unknown */
    int64_t headroom_bytes;        /* capacity - peak allocated; -1 unknown */
    int64_t running_sum_min;       /* running-sum traces: min(0, lowest running sum); final running sum below */
    int64_t running_sum_final;
    size_t pairs;                  /* allocation / free pairs by address (run.py get_memory_events) */
    size_t never_freed;            /* allocations with no free in the trace */
    int64_t never_freed_bytes;
    uint32_t never_freed_op;       /* the operator holding most never-freed bytes; PS_NONE */
    int64_t never_freed_op_bytes;
    size_t unpaired_frees;         /* frees of blocks allocated before the trace */
    size_t overwritten;            /* allocations at an address allocated again before a free (the plugin drops them) */
    size_t fragmentation_events;   /* perfscope: allocations that grew the reserve although the cache held enough */
    int64_t fragmentation_bytes;   /* the largest such allocation */
    uint32_t fragmentation_op;     /* its operator; PS_NONE */
    int64_t fragmentation_cached;  /* bytes the cache held free before it */
    struct ps_mem_step_end *step_ends;   /* per host step (in order) with a record of the device */
    size_t nstep_ends;
};

struct ps_mem_op {                 /* one row of the plugin's per-operator table (memory_parser.py
                                    * get_memory_statistics); "self": records made directly inside the operator,
                                    * the others with its children */
    size_t device;                 /* index into ps_memory.devs */
    uint32_t name;                 /* string id */
    int64_t calls;                 /* operator calls (all devices together, as the plugin counts them) */
    int64_t increase, self_increase;             /* sum of sizes, frees negative */
    int64_t alloc_count, self_alloc_count;
    int64_t alloc_bytes, self_alloc_bytes;
};

#define PS_MEM_MAX_FINDINGS 6
struct ps_mem_finding {
    const char *rule;              /* "oom_risk", "fragmentation", "memory_leak", "memory_headroom" */
    const char *severity;          /* "warning" or "info" */
    size_t device;                 /* index into ps_memory.devs */
    int64_t bytes;                 /* what the finding is about: the peak, the gap, the growth, the headroom */
    char summary[480];
    char fix[640];
};

struct ps_memory {
    int64_t origin_ns;             /* the curve's 0 on the trace's clock (Kineto: the plugin's profiler_start_ts) */
    size_t records;                /* memory records read */
    size_t unattributed;           /* records inside no operator (the plugin's "staled" records) */
    struct ps_mem_device *devs;    /* GPUs by id first, then the host */
    size_t ndevs;
    struct ps_mem_op *ops;         /* per device, by self increase descending (the plugin's default order) */
    size_t nops;
    struct ps_mem_finding findings[PS_MEM_MAX_FINDINGS];
    size_t nfindings;
};

#endif
