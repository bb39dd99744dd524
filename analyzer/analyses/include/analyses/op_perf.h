/* Per-operator performance model of PyTorch profiler traces recorded with shapes (record_shapes=True), with
 * TraceLens' definitions (AMD-AGI/TraceLens: TraceLens/PerfModel/perf_model.py, TreePerf/tree_perf.py), and the
 * tables of TraceLens' CSV report. docs/op-perf.md says what each number means.
 *
 * Input: a struct ps_op_trace (model/op_trace.h: the Kineto events the model needs, in file order, with their
 * float64 µs times and the cpu_ops' shape arguments), read by ps_read_kineto_ops (read/reader.h).
 *
 * Every figure of a call is TraceLens': FLOPs and bytes from the op's recorded shapes and dtypes, kernel time =
 * union of the intervals of the GPU work in the op's subtree (kernels, copies, memsets, graph-launched work),
 * in µs on the trace's float64 µs. Rows aggregate calls per op name and parameters (TraceLens' grouping). */
#ifndef PS_ANALYSES_OP_PERF_H
#define PS_ANALYSES_OP_PERF_H

#include <stddef.h>
#include <stdint.h>

struct ps_op_trace;   /* model/op_trace.h */

/* The op families with a model; each is one of TraceLens' perf sheets. */
enum ps_op_family {
    PS_OPF_GEMM,          /* aten::mm, addmm, bmm, baddbmm, _scaled_mm                  sheet GEMM */
    PS_OPF_SDPA_FWD,      /* scaled-dot-product / flash attention forward              sheet SDPA_fwd */
    PS_OPF_SDPA_BWD,      /* flash_attn::_flash_attn_backward                          sheet SDPA_bwd */
    PS_OPF_CONV_FWD,      /* aten::convolution                                         sheet CONV_fwd */
    PS_OPF_CONV_BWD,      /* aten::convolution_backward                                sheet CONV_bwd */
    PS_OPF_UNARY,         /* copy, clamp, sigmoid, rsqrt, silu, neg, pow               sheet UnaryElementwise */
    PS_OPF_BINARY,        /* add, mul, div, sigmoid_backward, threshold_backward       sheet BinaryElementwise */
    PS_OPF_NORM,          /* layer / batch / group / instance / RMS norm               sheet Normalization */
    PS_OPF_REDUCE,        /* sum, mean, max, min, norm, std, var, ...                  sheet Reduce_fwd */
    PS_OPF_COUNT
};

/* One op group: the calls of one op name with equal model parameters (TraceLens' perf-sheet row). Per-call
 * figures are those of TraceLens' `_first` / `_mean` columns; totals are sums over the calls. Unknown values
 * (bytes of a dtype without a size, a rate of a call with no GPU time) are NaN. */
struct ps_op_perf_row {
    char *name;                   /* op name, "aten::addmm" */
    char *params;                 /* the model's parameters, as TraceLens prints them: "{'M': 141, 'N': 512, ...}" */
    enum ps_op_family family;
    const char *category;         /* TraceLens op category: "GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd",
                                   * "elementwise", "NORM_fwd", "NORM_bwd", "reduce" (static storage) */
    const char *sheet;            /* TraceLens CSV sheet: "GEMM", "UnaryElementwise", ... (static storage) */
    char compute_spec[24];        /* "matrix_bf16", "vector_fp32", ...; "" when the precision is unknown */
    const char *precision;        /* "fp64", "fp32", "bf16", "fp16", "fp8", "fp4", or "" (static storage) */
    int is_matrix;                /* 1: matrix unit op (GEMM, SDPA, conv: compute spec matrix_*), 0: vector */
    int64_t calls;
    double flops_per_call;        /* FLOPs of the first call (equal for every call of a group) */
    double bytes_per_call;        /* bytes moved by the first call; NaN when a dtype has no known size */
    double flops_total;           /* flops_per_call * calls */
    double bytes_total;           /* bytes_per_call * calls; NaN when unknown */
    double kernel_time_ns_total;  /* sum over calls of the call's kernel time (union of its GPU work), ns */
    double kernel_time_us_mean, kernel_time_us_median, kernel_time_us_std, kernel_time_us_min,
           kernel_time_us_max;    /* per call, µs (std: sample, NaN for one call) */
    double tflops_s_mean;         /* mean over calls of FLOPs / kernel time, TFLOP/s (TraceLens TFLOPS/s_mean) */
    double tb_s_mean;             /* mean over calls of bytes / kernel time, TB/s */
    double flops_per_byte;        /* FLOPs / bytes of one call; NaN when bytes are unknown or 0 */
    uint64_t first_uid;           /* index in traceEvents of the group's first call */
    /* the rest of TraceLens' per-group statistics over the calls (sample std; NaN where no call has a value) */
    double tflops_s_median, tflops_s_std, tflops_s_min, tflops_s_max;
    double tb_s_median, tb_s_std, tb_s_min, tb_s_max;
};

/* The model over one trace. Rows are ordered by kernel_time_ns_total descending, then first_uid. */
struct ps_op_perf {
    struct ps_op_perf_row *rows;
    size_t nrows;
    int has_shapes;               /* 0: no cpu_op carries "Input Dims" (recorded without record_shapes=True) */
    double gpu_busy_us;           /* union of the linked GPU work of every op (TraceLens busy time), µs */
    double modeled_us;            /* kernel time of the ops with a model (TraceLens unified table), µs */
    double unmodeled_us;          /* kernel time of the ops that launch GPU work and have no model, µs */
    struct ps_op_perf_unmodeled { char *name; double kernel_time_us; int64_t calls; } *unmodeled;
    size_t nunmodeled;            /* ops without a model, by kernel time descending */
    double no_op_us;              /* union of the linked GPU work under no host op (CUDA / HIP graph replay, copies
                                   * launched outside any op), µs: time no model can cover */
};

/* Compute the model of trace `t` into *out (zeroed first). 0, or -ENOMEM (out is then empty). Free with
 * ps_op_perf_fini. */
int ps_op_perf_compute(const struct ps_op_trace *t, struct ps_op_perf *out);
void ps_op_perf_fini(struct ps_op_perf *p);   /* leaves *p zeroed; a zeroed struct is a no-op */

/* ---- the model of each step (per-step MFU, analyses/roofline.h) ----
 * A window of host-op start times on the trace's µs clock (struct ps_op_event ts_us): [lo_us, hi_us). */
struct ps_op_window {
    double lo_us, hi_us;
};
/* One op group of a window: the calls of one op name with equal model parameters (a ps_op_perf_row) that start
 * in the window, with the totals of its row: the same sums over the same calls in the same order. */
struct ps_op_window_group {
    double flops_total;           /* as ps_op_perf_row */
    double kernel_time_ns_total;  /* as ps_op_perf_row */
    char compute_spec[24];        /* as ps_op_perf_row */
    int is_matrix;                /* as ps_op_perf_row */
    int64_t calls;
    uint64_t first_uid;           /* index in traceEvents of the window's first call of the group */
};
struct ps_op_window_unmodeled {   /* ops without a model of one name (a ps_op_perf_unmodeled) in the window */
    uint32_t name;                /* string id of the name (ps_op_trace_str) */
    double kernel_time_us;
    int64_t calls;
};
/* What the model of a window holds (ps_op_perf_compute's rows and ops without a model, of the calls whose host op
 * starts in the window, each call with its whole subtree's GPU work; a forward op measured on its backward pass
 * counts where the forward op starts). */
struct ps_op_window_model {
    const struct ps_op_window_group *groups;   /* in ps_op_perf's row order: kernel time descending, first_uid */
    size_t ngroups;
    const struct ps_op_window_unmodeled *unmodeled;   /* in no set order */
    size_t nunmodeled;
};
/* Called with window k's model (valid during the call only). Return 0 to go on, a negative errno to stop. */
typedef int ps_op_perf_window_fn(void *ctx, size_t k, const struct ps_op_window_model *m);
/* The model of each of the n windows w of trace t, in order, through `each`: the operator tree is built and every
 * call evaluated once for all windows (each call then kept as some 48 bytes), so the cost is about that of
 * ps_op_perf_compute plus each window's own calls. 0, -ENOMEM, or what `each` returned to stop. */
int ps_op_perf_windows(const struct ps_op_trace *t, const struct ps_op_window *w, size_t n,
                       ps_op_perf_window_fn *each, void *ctx);

/* The operator events of a perfscope trace (or an Nsight Systems export) whose Python hook recorded one range per
 * op with its inputs (`perfscope record --python-hooks=shapes`: python/perfscope_hook/op_shapes.py), in the form
 * ps_op_perf_compute reads: the ranges as host ops with Kineto's "Input Dims", "Input type", "Input Strides" and
 * "Concrete Inputs", the CUDA API calls and the GPU work they launched (linked as the model links them), times in
 * µs. *out NULL when the trace has no such range (PyTorch's emit_nvtx ranges carry sizes but no dtypes: no
 * model); else free with ps_op_trace_free. 0 or -ENOMEM. */
struct ps_model;
int ps_op_perf_trace_compute(const struct ps_model *m, struct ps_op_trace **out);

/* The note that says how to get the operator model (code "no_op_shapes") for a perfscope trace whose Python hook
 * ran without per-op shapes (PERFSCOPE_META python_hooks "default" or "modules") and that holds GPU work; nothing
 * otherwise. 0 or -ENOMEM. */
struct ps_report;
int ps_op_perf_suggest_shapes(struct ps_report *r);

/* Give report r the model p (borrowed: it must outlive the report) and, when the trace records no shapes, the
 * note that says so once and how to get them (code "no_op_shapes"). 0 or -ENOMEM. */
struct ps_report;
int ps_op_perf_attach(struct ps_report *r, const struct ps_op_perf *p);

/* ---- TraceLens' CSV report (perfscope export --format tracelens) ----
 * One table = one CSV file of TraceLens' generate_perf_report_pytorch, cells already as pandas' to_csv writes
 * them (floats as Python repr, NaN empty, Python literals for tuples and lists). */
struct ps_tl_table {
    char name[32];                /* file name without ".csv": "GEMM", "ops_summary", ... */
    size_t ncols, nrows;
    char **cols;                  /* ncols header cells */
    char **cells;                 /* nrows * ncols, row-major; "" for an empty cell */
};

struct ps_tl_tables {
    struct ps_tl_table *v;
    size_t n;
};

/* Compute TraceLens' tables of trace `t`: GEMM, CONV_fwd, CONV_bwd, SDPA_fwd, SDPA_bwd, UnaryElementwise,
 * BinaryElementwise, Normalization, Reduce_fwd (each only when it has rows), ops_summary,
 * ops_summary_by_category, ops_unique_args, kernel_summary, gpu_timeline, unified_perf_summary,
 * short_kernel_histogram, short_kernels_summary (with kernels under 10 µs); none when no GPU work is linked to a
 * launch (TraceLens stops there). 0 or -ENOMEM. Free with ps_tl_tables_fini. */
int ps_tl_tables_compute(const struct ps_op_trace *t, struct ps_tl_tables *out);
void ps_tl_tables_fini(struct ps_tl_tables *t);

#endif
