/* The per-operator performance model's internals (analyses/op_perf.h), shared by op_perf*.c. Private.
 *
 * The files, lowest layer first. A file calls functions of the files above it in this list only, never of one
 * below (no circle); the declarations below follow the same order.
 *   op_perf_fmt.c       numpy / pandas arithmetic, Python's float repr, growing strings,  calls no other file
 *                       tables being built
 *   op_perf_tree.c      the call tree, CPU -> GPU links, busy time, event names and args  (none)
 *   op_perf_args.c      recorded arguments as Python literals, dtypes, call parameters   fmt
 *   op_perf_models.c    GEMM, SDPA, convolution, elementwise models                      args, tree
 *   op_perf_norm_bwd.c  backward normalisation models                                    args, fmt
 *   op_perf_map.c       the op map, norm / reduce models, one call evaluated, its figures  models, norm_bwd, args,
 *                                                                                        tree
 *   op_perf_bwd.c       forward ops measured on their backward pass                      map, tree
 *   op_perf_tables.c    launchers, gpu_timeline, ops_summary(_by_category),               map, tree, fmt
 *                       kernel_summary, the kernel details of the sheets
 *   op_perf_sheets.c    evaluated rows and their groups, the perf sheets (GEMM.csv, ...)  tables, bwd, map, args,
 *                                                                                        tree, fmt
 *   op_perf_short.c     short_kernel_histogram, short_kernels_summary                    args, tree, fmt
 *   op_perf_unified.c   unified_perf_summary, ops_unique_args, ops without a model,      short, sheets, tables,
 *                       ps_tl_tables_compute                                             map, args, tree, fmt
 *   op_perf.c           the report's rows: ps_op_perf_compute, _fini, _attach            unified, sheets, map,
 *                                                                                        args, tree, fmt
 *   op_perf_ranges.c    op events from a perfscope trace's op ranges (op_perf.h,          args
 *                       op_perf_testing.h)
 * The tree stores each op's model family, which the map (a layer above) knows: tl_tree_init takes the lookup as
 * a callback, and its callers pass tl_family. */
#ifndef PS_OP_PERF_IMPL_H
#define PS_OP_PERF_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/op_perf.h"
#include "model/op_trace.h"

/* ---- op_perf_fmt.c: numpy / pandas arithmetic (none can fail) and pandas' to_csv text ---- */
double tl_np_sum(const double *a, size_t n);
double tl_np_median(double *a, size_t n);   /* sorts a */
double tl_pd_mean(const double *a, size_t n);   /* NaN skipped */
double tl_pd_std(const double *a, size_t n);
double tl_pd_median(const double *a, size_t n, double *tmp);   /* tmp: room for n values, overwritten */
double tl_pd_min(const double *a, size_t n);
double tl_pd_max(const double *a, size_t n);
double tl_pd_sum(const double *a, size_t n);
double tl_pd_first(const double *a, size_t n);
/* Python repr of a double into out (>= 32 bytes); NaN -> "nan". */
void tl_repr(double x, char *out);

/* A growing string, built by many adds (SQLite's sqlite3_str): a growth that fails sets oom, and later adds do
 * nothing. The builder's one sticky error, never kept past the build: whoever made the string returns it as
 * -ENOMEM (tl_str_take does; docs/design.md section 4, "Errors"). */
struct tl_str {
    char *s;
    size_t n, cap;
    int oom;
};
void tl_str_add(struct tl_str *b, const char *s);
void tl_str_addf(struct tl_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text into *out (the caller's to free; "" for none) and b emptied. 0, or -ENOMEM (*out NULL) when a growth
 * failed. */
int tl_str_take(struct tl_str *b, char **out);

/* A table being built (appended to a struct ps_tl_tables); a cell that cannot be stored sets oom, a sticky error
 * as tl_str's: the function that called tl_tab_start returns -ENOMEM when it is set once the cells are in. */
struct tl_tab {
    struct ps_tl_table *t;
    size_t cap_cells, pending;
    int oom;
};
int tl_tab_start(struct ps_tl_tables *all, const char *name, const char *const *cols, size_t ncols,
                 struct tl_tab *tab);   /* 0 or -ENOMEM */
void tl_tab_cell(struct tl_tab *tab, char *owned);  /* next cell (NULL: out of memory) */
void tl_tab_str(struct tl_tab *tab, struct tl_str *b);   /* b's text as the next cell, b emptied */
void tl_tab_text(struct tl_tab *tab, const char *s);
void tl_tab_num(struct tl_tab *tab, double x);      /* repr; NaN empty */
void tl_tab_int(struct tl_tab *tab, long long x);
/* Reorder the rows by perm (row r of the result = row perm[r]). 0 or -ENOMEM. */
int tl_tab_permute(struct tl_tab *tab, const size_t *perm);

/* ---- op_perf_tree.c: TraceLens' call tree and CPU -> GPU links (trace_to_tree.py) ---- */
struct tl_u32v {
    uint32_t *v;
    uint32_t n, cap;
};
int tl_u32_push(struct tl_u32v *v, uint32_t x);   /* 0 or -ENOMEM */

struct tl_tree {
    const struct ps_op_trace *t;
    size_t n;                     /* events (= t->ev.n); indices below are event indices */
    double *t_end;                /* ts + dur, double */
    uint32_t *parent;             /* PS_NONE: none */
    uint32_t *child_head, *child_tail, *next_sib;
    struct tl_u32v *gpu_events;   /* per event: the GPU events linked under it, in link order */
    uint8_t *linked;              /* GPU event: linked to a runtime call ("tree" set) */
    struct tl_u32v roots;         /* root cpu_ops in sorted order */
    int8_t *family;               /* per event: the family of its name (cpu_ops with a model), else -1 */
};

/* The model family of an op name (op_perf_map.c tl_family: 1 and *family when the name has a model, 0 when not),
 * given to the tree by its callers: the map is a layer above the tree. */
typedef int tl_family_fn(const char *name, int *family);
/* Build the tree of trace t (which must outlive it), each cpu_op's family from family_of. 0 or -ENOMEM (*tr then
 * holds nothing). Free with tl_tree_fini. */
int tl_tree_init(struct tl_tree *tr, const struct ps_op_trace *t, tl_family_fn *family_of);
void tl_tree_fini(struct tl_tree *tr);   /* leaves *tr zeroed */
int tl_is_gpu(const struct ps_op_trace *t, uint32_t i);   /* a kernel, copy or memset */
/* GPU events in the subtree of i, depth-first over children (TreePerf agg_kernels_in_subtree). 0 or -ENOMEM. */
int tl_subtree_gpu(const struct tl_tree *tr, uint32_t i, struct tl_u32v *out);
/* Union of the [ts, ts + dur] intervals of the events (gpu_event_analyser merge_intervals) into *us, µs; 0.0 for
 * none. 0 or -ENOMEM. */
int tl_busy(const struct tl_tree *tr, const uint32_t *ev, size_t n, double *us);
/* The events sorted by dur ascending, stable (the published kernel lists' order). 0 or -ENOMEM (ev unchanged). */
int tl_sort_by_dur(const struct tl_tree *tr, uint32_t *ev, size_t n);
/* Lookups that cannot fail: event i's name; the process_name, process_labels and thread_name of its pid / tid
 * ("Unknown" when the trace has none); one recorded argument (which: 0 Input Dims, 1 Input type, 2 Input Strides,
 * 3 Concrete Inputs), NULL when the event has none. The strings are the trace's. */
const char *tl_name(const struct tl_tree *tr, uint32_t i);
void tl_names_for(const struct tl_tree *tr, uint32_t i, const char *out[3]);
const char *tl_arg_text(const struct tl_tree *tr, uint32_t i, int which);

/* ---- op_perf_args.c: the recorded arguments as Python literals, dtypes, a call's parameters ---- */
enum tl_pv_kind { TL_PV_LIST, TL_PV_INT, TL_PV_STR, TL_PV_NONE, TL_PV_BOOL, TL_PV_OTHER };
struct tl_pv {                    /* a parsed Python literal */
    int kind;                     /* enum tl_pv_kind */
    int64_t i;
    char *s;
    struct tl_pv *items;
    size_t n;
};
struct tl_args {                  /* a cpu_op's four recorded arguments */
    struct tl_pv d, t, s, c;      /* Input Dims, Input type, Input Strides, Concrete Inputs */
    int has_d, has_t, has_s, has_c;
    const char *name;
};
/* Parse the literal at *p (advanced past it) into *v. 0, -EINVAL (an unclosed list or dict, nesting deeper than
 * 32) or -ENOMEM; *v is to be finished with tl_pv_fini either way. */
int tl_pv_parse(const char **p, struct tl_pv *v, int depth);
void tl_pv_fini(struct tl_pv *v);   /* leaves *v zeroed */
/* The trace's string id as a list into *v, *has 1; id PS_NONE: *has 0 and *v untouched. 0, -EINVAL (not a list)
 * or -ENOMEM; finish *v with tl_pv_fini either way. */
int tl_parse_arg(const struct ps_op_trace *t, uint32_t id, struct tl_pv *v, int *has);
/* Lookups that cannot fail: item i of a list (NULL: no such item, TraceLens' IndexError), the string at item i
 * (NULL: none or not a string). */
const struct tl_pv *tl_item(const struct tl_pv *l, int has, size_t i);
const char *tl_str_at(const struct tl_pv *l, int has, size_t i);
int tl_ints(const struct tl_pv *v, int64_t *out, size_t max);   /* a list of ints: its length, else -EINVAL */
double tl_prod(const int64_t *x, int n);
int tl_eval_bool(const char *s, int *out);   /* "True" / "False": 0, else -EINVAL */
/* A Python list's text as the tuple TraceLens' tables print ([[1], []] -> ((1,), ())); NULL -> "None". */
void tl_tuple_text(struct tl_str *b, const char *s);
/* Lookups that cannot fail (utils.py name2bpe, torch_dtype_map): bytes per element, 0 when the dtype has no size
 * there (TraceLens' None); the precision ("bf16", ...), "" when none. */
int tl_bpe(const char *dtype);
const char *tl_precision(const char *dtype);

#define TL_MAX_PARAMS 16
struct tl_param {
    const char *key;
    char *repr;                   /* Python repr of the value (owned); NULL: None */
    uint8_t is_str;               /* the cell prints the string without quotes */
};
struct tl_call {                  /* one evaluated call */
    struct tl_param p[TL_MAX_PARAMS];
    int np;
    double flops;                 /* as TraceLens' flops() (an int or a float in Python; exact here) */
    double bytes;                 /* NaN: None */
    const char *spec_kind;        /* "matrix" / "vector" */
    const char *precision;        /* "" unknown */
};
/* Append a parameter; each 0, -ENOMEM, or -E2BIG past TL_MAX_PARAMS. */
int tl_param(struct tl_call *c, const char *key, const char *repr, int is_str);   /* repr NULL: None */
int tl_p_int(struct tl_call *c, const char *key, long long v);
int tl_p_bool(struct tl_call *c, const char *key, int v);
int tl_p_ints(struct tl_call *c, const char *key, const int64_t *x, int n);   /* n < 0: None */
int tl_p_strs(struct tl_call *c, const char *key, const char *const *s, int n);
int tl_p_float(struct tl_call *c, const char *key, double v);
void tl_call_fini(struct tl_call *c);   /* leaves *c zeroed */
/* The call's parameters as TraceLens prints them, "{'M': 141, ...}", into *out (the caller's). 0 or -ENOMEM. */
int tl_params_dict(const struct tl_call *c, char **out);

/* ---- op_perf_models.c: the models (perf_model.py). Each fills c from a's shapes: 0; -EINVAL where TraceLens
 * raises (inputs that do not fit the model); -ENOMEM or -E2BIG from tl_param. ---- */
enum tl_gemm_kind { TL_GEMM_MM, TL_GEMM_ADDMM, TL_GEMM_BMM, TL_GEMM_BADDBMM, TL_GEMM_SCALED };
enum tl_sdpa_kind { TL_SDPA_FLASH, TL_SDPA_EFFICIENT, TL_SDPA_FA_FWD, TL_SDPA_FA_BWD };
/* kernels (nk, duration order): the call's GPU work, whose names give the transpose flags */
int tl_gemm(struct tl_call *c, const struct tl_args *a, enum tl_gemm_kind kind, const struct tl_tree *tr,
            const uint32_t *kernels, size_t nk);
/* as_bwd: the forward op's backward model (TraceLens flops_bwd / bytes_bwd), for its autograd backward work */
int tl_sdpa(struct tl_call *c, const struct tl_args *a, enum tl_sdpa_kind kind, int as_bwd);
/* bwd: aten::convolution_backward's inputs (grad_output first) and the backward model; as_bwd: a forward
 * convolution's inputs with the backward model */
int tl_conv(struct tl_call *c, const struct tl_args *a, int bwd, int as_bwd);
int tl_unary(struct tl_call *c, const struct tl_args *a);
int tl_binary(struct tl_call *c, const struct tl_args *a);

/* ---- op_perf_norm_bwd.c: the backward normalisation ops (same returns as the models) ---- */
enum tl_norm_bwd_kind {
    TL_NORM_BWD_BATCH, TL_NORM_BWD_BATCH_CUDNN, TL_NORM_BWD_LAYER, TL_NORM_BWD_GROUP, TL_NORM_BWD_INSTANCE,
    TL_NORM_BWD_RMS
};
int tl_norm_bwd(struct tl_call *c, const struct tl_args *a, enum tl_norm_bwd_kind kind);

/* ---- op_perf_map.c: the op map (torch_op_mapping.py), one call evaluated, its figures ---- */
/* The family (enum ps_op_family) of an op name: 1 and *family when the name has a model, 0 when not. */
int tl_family(const char *name, int *family);
/* Lookups that cannot fail (static strings): a family's sheet ("GEMM", ...; "" for none); TraceLens' category of
 * a modeled op (its family's, "NORM_bwd" for a backward normalisation op); categorize_torch_op of any op from its
 * name and its first kernel's name (NULL: none). */
const char *tl_family_sheet(int family);
const char *tl_op_category(const char *name, int family);
const char *tl_categorize(const char *name, const char *first_kernel);
/* Evaluate the model of cpu_op i with its subtree kernels (duration order) into *c: *modeled 1 and the figures
 * (free with tl_call_fini), or *modeled 0 where TraceLens raises (no model for the name, inputs that do not fit
 * it: the call is dropped; *c empty). 0, or -ENOMEM / -E2BIG (a model with more than TL_MAX_PARAMS). */
int tl_call_eval(const struct tl_tree *tr, uint32_t i, const uint32_t *kernels, size_t nk, struct tl_call *c,
                 int *modeled);
/* The same with the op's backward model (a forward SDPA or convolution op measured on its autograd backward
 * events: op_perf_bwd.c); *modeled 0 for an op without one. */
int tl_call_eval_bwd(const struct tl_tree *tr, uint32_t i, struct tl_call *c, int *modeled);
struct tl_metrics {               /* tree_perf.py compute_perf_metrics, one call */
    double gflops, kt, tflops, mb, fpb, tbs;   /* NaN where TraceLens has none */
    char spec[24];                /* Compute Spec, "" unknown */
};
/* Per-call figures of call c whose GPU work took t_us (tree_perf.py compute_perf_metrics). */
void tl_metrics(const struct tl_call *c, double t_us, struct tl_metrics *m);

/* ---- op_perf_bwd.c: forward ops measured on their backward pass ---- */
struct tl_prow {                  /* one evaluated call of a perf sheet */
    uint32_t ev;
    struct tl_call c;
    struct tl_metrics m;
    struct tl_u32v kernels;       /* subtree GPU events, duration order */
    char *key;                    /* group key */
    size_t group;
    int bwd;                      /* a forward op evaluated on its autograd backward work (op_perf_bwd.c) */
};
/* Append to *r (*n rows, *cap allocated) the ops of fwd_family (SDPA_FWD, CONV_FWD) that have autograd backward
 * events, each evaluated with its backward model on their GPU work. 0 or -ENOMEM (*r, *n: the rows so far). */
int tl_eval_bwd_rows(const struct tl_tree *tr, int fwd_family, struct tl_prow **r, size_t *n, size_t *cap);

/* ---- op_perf_tables.c: kernel launchers (tree_perf.py get_kernel_launchers) and the op-level tables; each
 * table function 0 or -ENOMEM ---- */
struct tl_launcher {
    uint32_t ev;
    struct tl_u32v direct;        /* its GPU events, in file order */
    double direct_us, subtree_us;
    const char *category;
};
struct tl_launchers {
    struct tl_launcher *v;
    size_t n;
    uint32_t *of;                 /* per event: index into v, PS_NONE */
};
/* 0 or -ENOMEM (*L then holds nothing). Free with tl_launchers_fini. */
int tl_launchers_init(const struct tl_tree *tr, struct tl_launchers *L);
void tl_launchers_fini(struct tl_launchers *L);   /* leaves *L zeroed */
/* gpu_timeline and the span of the linked GPU work (*total_us); no table and *total_us NaN without linked GPU
 * work (TraceLens stops there: "No GPU events found"). */
int tl_gpu_timeline(const struct tl_tree *tr, struct ps_tl_tables *out, double *total_us);
int tl_ops_summary(const struct tl_tree *tr, const struct tl_launchers *L, struct ps_tl_tables *out);
int tl_kernel_summary_table(const struct tl_tree *tr, const struct tl_launchers *L, double total_us,
                            struct ps_tl_tables *out);
/* Kernel summary (tree_perf _summarize_kernel_stats) over per-call kernel lists (each in duration order); also
 * writes the truncated summary (trunc_kernel_details). Both the caller's; *full "[]" and *trunc NULL without
 * kernels. 0 or -ENOMEM (both NULL). */
int tl_kernel_summary(const struct tl_tree *tr, const struct tl_u32v *lists, size_t n, char **full, char **trunc);

/* ---- op_perf_sheets.c: the evaluated calls of a family and their groups; the perf sheets ---- */
/* Evaluate the calls of one family (a sheet), in file order, then its forward ops measured on their backward
 * pass. 0, or -ENOMEM (*out NULL, *nout 0). Free with tl_prows_free. */
int tl_eval_rows(const struct tl_tree *tr, int family, struct tl_prow **out, size_t *nout);
void tl_prows_free(struct tl_prow *r, size_t n);   /* r NULL: no-op */
int tl_make_keys(const struct tl_tree *tr, struct tl_prow *r, size_t n);   /* key: name + parameters; 0 / -ENOMEM */
/* Group rows by key: row.group set, (*first)[g] = the first row of group g (the caller's to free); the group
 * count, or -ENOMEM. */
long tl_group(struct tl_prow *r, size_t n, size_t **first);
int tl_perf_sheets(const struct tl_tree *tr, struct ps_tl_tables *out);   /* 0 or -ENOMEM */

/* ---- op_perf_short.c: short_kernel_histogram and short_kernels_summary (kernels under 10 µs) ---- */
int tl_short_kernels(const struct tl_tree *tr, double total_us, struct ps_tl_tables *out);   /* 0 or -ENOMEM */

/* ---- op_perf_unified.c ---- */
/* The ops of the unified table (each op that owns GPU time: the modeled op where there is one, else the leaf
 * launcher), in the table's collection order, into *out (free out->v). 0 or -ENOMEM (*out empty). */
int tl_owners(const struct tl_tree *tr, struct tl_u32v *out);
/* The ops of tl_owners without a model by name (kernel time descending) and the kernel time of those with and
 * without one, into p. 0 or -ENOMEM. */
int tl_unmodeled(const struct tl_tree *tr, struct ps_op_perf *p);

#endif
