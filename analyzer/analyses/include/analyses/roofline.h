/* Rooflines and MFU (roofline.c, docs/op-perf-roofline.md): how close each modeled operator's GPU time comes to
 * what the GPU's peaks allow, and how much of each step's time the matrix units would need at peak.
 *
 * Input is the operator performance model's calls (FLOPs and bytes from recorded shapes, the GPU kernel time each
 * CPU op launched), through the small adapter structs below, so this file depends on no trace format. */
#ifndef PS_ROOFLINE_H
#define PS_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/gpu_peaks.h"

/* A group of calls of one op with one set of parameters (TraceLens' grouping: op name and shapes). */
struct ps_roof_group {
    const char *name;              /* "aten::mm" (borrowed: lives as long as the caller's model) */
    const char *params;            /* shapes and dtypes as shown, "" none (borrowed) */
    const char *kind;              /* the model's category: "GEMM", "SDPA", "CONV", "elementwise", ... ("" none) */
    int matrix;                    /* 1: matrix work (GEMM, convolution, attention): the matrix peak applies */
    int prec;                      /* enum ps_precision of the work; -1 unknown */
    int modeled;                   /* 1: FLOPs and bytes known for its calls; 0: GPU time with no model */
    int64_t source;                /* the caller's index of the row it comes from (JSON: op_perf.rows), -1 none */
};

/* One call of a group, or `count` calls with equal work (an aggregate row of the operator model). */
#define PS_ROOF_NO_TIME INT64_MIN
struct ps_roof_call {
    uint32_t group;                /* index into the groups */
    int64_t start_ns;              /* the CPU op's start: places the call in a step; PS_ROOF_NO_TIME: unknown
                                    * (an aggregate): counted in the MFU over all steps, in no single step */
    int64_t count;                 /* calls it stands for; 0 is read as 1 */
    double flops, bytes;           /* work of ONE call (FLOPs, bytes moved); NAN for an unmodeled group */
    int64_t kernel_ns;             /* GPU time of the work its calls launched (union of each call's kernels'
                                    * intervals, summed over the calls) */
};

enum ps_roof_bound { PS_BOUND_COMPUTE, PS_BOUND_MEMORY, PS_BOUND_UNKNOWN };
extern const char *const ps_roof_bound_name[];   /* "compute", "memory", "unknown" */

/* A group's figures. Times in ns; rates per second of kernel time; NAN when unknown (no model, no peak for its
 * precision, no kernel time). */
struct ps_roof_row {
    struct ps_roof_group g;
    int64_t calls, kernel_ns;      /* over its calls */
    double flops, bytes;           /* summed over its calls */
    double compute_ns, memory_ns;  /* summed per call: flops / peak(precision), bytes / bandwidth */
    double roofline_ns;            /* summed per call: max(compute, memory) */
    double peak_tflops;            /* the peak used (matrix or vector, of its precision) */
    enum ps_roof_bound bound;      /* compute when compute_ns >= memory_ns (TraceLens' Roofline Bound) */
    double pct_of_roofline;        /* 100 * roofline_ns / kernel_ns */
    double recoverable_ns;         /* kernel_ns - roofline_ns (0 at or above the roof) */
    double tflops_s, tb_s;         /* achieved: flops / kernel time (TFLOPS/s), bytes / kernel time (TB/s) */
    double flops_per_byte;         /* arithmetic intensity */
};

/* One step's MFU. */
struct ps_mfu_step {
    int64_t start_ns, end_ns;
    double matrix_flops;           /* modeled matrix FLOPs of the calls starting in the step */
    double ideal_ns;               /* sum over those calls of flops / matrix peak(precision) */
    double mfu;                    /* ideal_ns / (end - start); NAN for an empty step */
    int64_t modeled_kernel_ns, unmodeled_kernel_ns;   /* GPU time of its calls with and without a model */
    double unmodeled_share;        /* unmodeled_kernel_ns / (end - start) */
};

#define PS_ROOF_UNMODELED_TOP 5
struct ps_roofline {
    struct ps_gpu_peak gpu;        /* the GPU whose peaks were used (valid when has_gpu) */
    int has_gpu;
    const char *match_how;         /* how the caller matched the GPU: "name", "properties"; "none" */
    struct ps_roof_row *rows;      /* modeled groups, by recoverable_ns descending (owned) */
    size_t nrows;
    struct ps_mfu_step *steps;     /* one per step window given (owned) */
    size_t nsteps;
    double mfu;                    /* ideal time of the calls in the steps and of the untimed calls / sum of step
                                    * durations; NAN: no step or no GPU */
    int64_t untimed_calls;         /* calls with PS_ROOF_NO_TIME: the per-step figures leave them out */
    double matrix_flops;           /* over the steps */
    double unmodeled_share;        /* over the steps: unmodeled kernel time / step time */
    struct {                       /* the unmodeled groups with the most GPU time in the steps */
        const char *name;
        int64_t calls, kernel_ns;
    } unmodeled[PS_ROOF_UNMODELED_TOP];
    size_t nunmodeled;
    int64_t modeled_kernel_ns, unmodeled_kernel_ns;   /* every call, in steps or not */
};

/* The figures of `calls` (of `groups`) on GPU `gpu` (NULL: no roofline and no MFU, only the unmodeled time),
 * with MFU over the step windows [starts[i], ends[i]) (nsteps may be 0). A call counts in the step its start
 * lies in. A modeled group whose precision has no peak uses, for vector work, the GPU's vector fp32 peak (an
 * elementwise half-precision op runs at least at that rate), else it gets NAN figures. Untimed calls
 * (PS_ROOF_NO_TIME) are taken to lie in the steps: right when the steps cover the trace's ops. Fills *out
 * (ps_roofline_fini frees); 0, -EINVAL (a call's group out of range) or -ENOMEM. */
int ps_roofline_compute(struct ps_roofline *out, const struct ps_gpu_peak *gpu, const struct ps_roof_group *groups,
                        size_t ngroups, const struct ps_roof_call *calls, size_t ncalls, const int64_t *starts,
                        const int64_t *ends, size_t nsteps);
void ps_roofline_fini(struct ps_roofline *r);

/* ---- the report's "Operator efficiency" section (op_efficiency.c) ---- */
struct ps_report;                  /* analyses/report.h */
struct ps_op_perf;                 /* analyses/op_perf.h */

#define PS_OPEFF_TOP 10
struct ps_op_efficiency {
    int has_shapes;                /* 0: the trace's ops carry no shapes: nothing modeled (say how to record them) */
    char device[96];               /* the trace's device name, "" when it has none */
    int32_t cc_major, cc_minor, sm_count;   /* the device's properties, -1 unknown */
    struct ps_roofline roof;       /* rows by recoverable time, MFU over the analysed steps, unmodeled time;
                                    * roof.has_gpu 0: no peaks for the device (roof.match_how "none") */
    size_t nsteps;                 /* the analysed steps MFU is over (0: the whole run, one window) */
    double window_ns;              /* their total duration (the run's span without steps) */
    double gpu_busy_ns;            /* GPU time of the ops' work (the operator model's busy time), NAN unknown */
    int uses_compile;              /* the trace holds Triton kernels (torch.compile / Inductor): fusion is on */
    int per_step;                  /* 1: roof.steps hold each step's own MFU (ps_op_efficiency_steps_compute) and
                                    * roof.mfu is over the ops in the steps; 0: roof.mfu is over all modeled ops */
    int no_gpu_work;               /* 1: the modeled ops launched no GPU work (a CPU run): FLOPs and bytes only; their
                                    * kernel time, rates and rooflines are not measured (not 0) */
};

/* Build the section from the operator model of the report's trace (`perf`: analyses/op_perf.h) with the peaks of
 * the trace's first named device (ps_gpu_peak_match, `user` first: --gpu-spec) and add it to r->opeff; add the
 * findings it sizes by recoverable time (docs/op-perf-roofline.md "Findings": op_below_roofline, fp32_matmul,
 * memory_bound_elementwise, attention_not_fused) and, when the verdict is kernel-bound, name the ops with the most
 * recoverable time in its fix. The operator model covers the whole trace: MFU is every modeled op's ideal time
 * over the analysed steps' total time until ps_op_efficiency_steps_compute gives each step its own. 0 or -ENOMEM
 * (r unchanged). */
int ps_op_efficiency_compute(struct ps_report *r, const struct ps_op_perf *perf, const struct ps_gpu_specs *user);
void ps_op_efficiency_free(struct ps_op_efficiency *e);   /* NULL: no-op */

/* Per-step MFU: for each analysed step (host step ranges, not inferred steps) the operator model of the ops its
 * host range holds and the GPU work they launched (trace `t`, model/op_trace.h: the events r->op_perf was built
 * from), into r->opeff->roof.steps (matrix FLOPs, ideal time, MFU, modeled / unmodeled GPU time); roof.mfu becomes
 * their total ideal time over the steps' total time. Nothing to do without the section, shapes, peaks or steps.
 * 0 or -ENOMEM (the section is then unchanged). */
struct ps_op_trace;
int ps_op_efficiency_steps_compute(struct ps_report *r, const struct ps_op_trace *t);

/* The operator model's parameters (a Python dict as TraceLens prints it: "{'M': 141, 'N': 512, 'K': 768,
 * 'bias': True, 'stride_A': (768, 1), 'dtype_A_B': ('c10::BFloat16', ...)}") without the stride and dtype
 * entries, for reports: "{'M': 141, 'N': 512, 'K': 768, 'bias': True}" (op_efficiency_findings.c). Text that is
 * not such a dict is copied. Writes at most cap bytes (NUL included); cannot fail: returns buf, for printf. */
const char *ps_op_params_short(const char *params, char *buf, size_t cap);

#endif
