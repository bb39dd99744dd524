/* The analyses behind `perfscope report` (DESIGN §4): steps, the step-time breakdown (tb's priority method)
 * with sync_ns, HTA's temporal / idle breakdowns and comm-comp overlap, TraceLens' GPU timeline, kernel and
 * copy summaries, the verdict, findings. ps_report_build runs them all over one finished model; the
 * renderers (report_text.c, report_json.c) only print a struct ps_report. All times are integer ns. */
#ifndef PS_ANALYSIS_H
#define PS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* Step-time categories, in tb's priority order (DESIGN §4). */
enum ps_cat {
    PS_CAT_KERNEL, PS_CAT_MEMCPY, PS_CAT_MEMSET, PS_CAT_COMM, PS_CAT_RUNTIME, PS_CAT_DATALOADER,
    PS_CAT_CPU_EXEC, PS_CAT_OTHER, PS_CAT_N
};
extern const char *const ps_cat_key[PS_CAT_N];    /* JSON keys: "kernel", "memcpy", ... */
extern const char *const ps_cat_label[PS_CAT_N];  /* tb's labels: "Kernel", "Memcpy", ..., "CPU Exec" */

enum ps_bottleneck { PS_BN_KERNEL, PS_BN_DATA, PS_BN_MEMCPY, PS_BN_COMM, PS_BN_SYNC, PS_BN_HOST, PS_BN_UNKNOWN };
extern const char *const ps_bottleneck_name[];    /* "kernel", "data-loading", ... as in the JSON */

/* Default name patterns (DESIGN §4), matched case-insensitively as whole names. */
#define PS_STEP_RE_DEFAULT "^(ProfilerStep#[0-9]+|step|train_step|iteration)([ _#:-]?[0-9]+)?$"
#define PS_DATA_RE_DEFAULT "^(enumerate\\(DataLoader\\)#.*|data|data_?load(er|ing)?|load_batch|next_batch|fetch_batch)$"
#define PS_COPY_RE_DEFAULT "^(h2d|d2h|memcpy|copy_to_device|transfer)$"

struct ps_report_opts {
    const char *step_re, *data_re, *copy_re;   /* NULL: the defaults above */
    int compat_tb;             /* 1: tb's communication rule (kernels linked to nccl:/gloo: host ops) */
    int top_n;                 /* kernels listed; default 10 */
    double kernel_threshold;   /* Kernel share at or above which a step is kernel-bound; default 0.8 */
    int64_t gap_ns;            /* GPU idle gaps reported as findings from this length; default 1 ms */
    int64_t tiny_kernel_ns;    /* kernels shorter than this count as tiny; default 10 µs */
    int all_steps;             /* text: list every step (default: at most ~20 rows) */
};
void ps_report_opts_default(struct ps_report_opts *o);

/* ---- name classes (names.c) ---- */
#define PS_NAME_STEP 0x01       /* matches --step-range */
#define PS_NAME_DATA 0x02       /* matches --data-range */
#define PS_NAME_COPY 0x04       /* matches --copy-range */
#define PS_NAME_NCCL 0x08       /* contains nccl or rccl, any case (DESIGN: communication kernel) */
#define PS_NAME_HTA_COMPUTE 0x10 /* HTA get_kernel_type == COMPUTATION */
#define PS_NAME_HTA_COMM 0x20   /* HTA get_kernel_type == COMMUNICATION */
#define PS_NAME_TB_COMM_OP 0x40 /* tb NcclOpNameSet / GlooOpNameSet host op */
#define PS_NAME_SYNC_API 0x80   /* a CUDA API call that blocks the host until the device catches up */
#define PS_NAME_ASYNC_API 0x100 /* an API name containing "Async" */

struct ps_names;
/* Compile the three patterns (NULL: default), anchored as ^(RE)$, REG_EXTENDED | REG_ICASE.
 * Returns 0, -EINVAL with a message naming the option and regerror's text, or -ENOMEM. */
int ps_names_new(struct ps_names **out, const struct ps_model *m, const struct ps_report_opts *o,
                 char *err, size_t errlen);
void ps_names_free(struct ps_names *n);    /* NULL is a no-op */
/* The PS_NAME_* bits of string id `id` (computed once per id, then cached). The step / data / copy patterns
 * are matched against the name without a trailing emit_nvtx suffix (ps_names_base_len). */
unsigned ps_names_flags(struct ps_names *n, uint32_t id);
/* Length of `s` without a trailing PyTorch emit_nvtx suffix (", seq = N", ", op_id = N", ", sizes = [...]",
 * ", input_op_ids = [...]", in PyTorch's order, each optional: torch/csrc/profiler/util.cpp getNvtxStr);
 * strlen(s) when there is none. "aten::add, seq = 12, op_id = 5" -> 9. */
size_t ps_names_base_len(const char *s);
/* The group of string id `id`: the first id looked up whose name has the same base (ps_names_base_len), so
 * "aten::add, op_id = 5" and "aten::add, op_id = 9" aggregate as one evidence row. O(1) amortised; when memory
 * runs out each id is its own group. */
uint32_t ps_names_group(struct ps_names *n, uint32_t id);

/* ---- results ---- */
struct ps_step {
    uint32_t name;                 /* string id of the step range */
    uint32_t range;                /* index into model.ranges */
    int64_t host_start_ns, host_end_ns;
    int64_t start_ns, end_ns;      /* the window the breakdown partitions */
    int64_t device_ops;            /* GPU ops launched by runtime calls inside the host range */
    int64_t cat_ns[PS_CAT_N];      /* sums to end_ns - start_ns */
    int64_t sync_ns;               /* carved out of runtime + cpu_exec + other */
    enum ps_bottleneck bottleneck;
    double share;                  /* share of the step in the bottleneck's category */
};

struct ps_device_stat {
    int32_t device;
    int64_t kernel_count, kernel_ns, memcpy_count, memcpy_bytes, memset_count;  /* all rows, no filter */
    /* HTA temporal breakdown (after HTA's last-step filter); span 0 when no GPU event survived */
    int64_t hta_span_ns, hta_idle_ns, hta_compute_ns, hta_non_compute_ns;
    /* TraceLens GPU timeline (whole trace) */
    int64_t tl_total_ns, tl_computation_ns, tl_exposed_comm_ns, tl_exposed_memcpy_ns, tl_idle_ns;
    double gpu_util;               /* tb: merged kernel time in [first step start, last step end] / that span */
};

struct ps_idle_stat {              /* HTA idle breakdown of one stream */
    int32_t device;
    int64_t stream;
    int64_t host_wait_ns, kernel_wait_ns, other_ns;
};

struct ps_kernel_stat {
    uint32_t name;
    int64_t count, total_ns, min_ns, max_ns, median_ns;
};

struct ps_copy_stat {
    uint8_t kind;                  /* PS_GPU_MEMCPY or PS_GPU_MEMSET */
    uint8_t copy_kind, src_kind, dst_kind;
    int64_t count, bytes, total_ns;
};

struct ps_row {                    /* a trace row (count 0) or an aggregate of rows (count > 0) cited by a finding */
    uint32_t name;                 /* string id, PS_NONE for a GPU idle gap */
    int64_t start_ns, dur_ns;      /* start -1 for an aggregate; dur = total of the aggregate */
    int64_t bytes;                 /* -1 when not a copy */
    int64_t count;
};

#define PS_FINDING_ROWS 5
struct ps_finding {
    const char *rule, *severity;
    char summary[320];
    struct ps_row rows[PS_FINDING_ROWS];
    size_t nrows;
};

struct ps_evidence {               /* "the GPU waits on this": aggregated over the analysed steps */
    const char *kind;              /* "range", "kernel", "copy", "api" */
    uint32_t name;                 /* a range: one name of its group, shown without an emit_nvtx suffix */
    int64_t count, total_ns;
};

struct ps_rank_stat {              /* one process's steps, when several processes hold step ranges */
    uint32_t pid;
    size_t nsteps;
    int64_t avg_dur_ns, cat_ns[PS_CAT_N], sync_ns;   /* the step average */
    enum ps_bottleneck bottleneck;
    double share;
};

struct ps_straggler {
    uint32_t pid;
    size_t rank;                   /* index into ps_report.ranks */
    double slower_by;              /* average step / median of the ranks' average steps - 1 */
    int category;                  /* enum ps_cat that exceeds the ranks' median by the most */
};

#define PS_MAX_EVIDENCE 8
#define PS_MAX_RECS 6
#define PS_MAX_FINDINGS 8

struct ps_report {
    const struct ps_model *m;
    struct ps_report_opts opts;
    int has_gpu;                   /* the model holds GPU rows */
    int scoped;                    /* 1: steps, API calls and ranges come from process `pid` only */
    uint32_t pid;
    int force_pid;                 /* set before ps_steps_find: analyse process `pid`, not the busiest */
    int64_t run_start_ns, run_end_ns;
    size_t nevents;
    struct ps_step *steps;
    size_t nsteps;
    size_t nsteps_host;            /* host steps of the analysed thread (nested ones merged), before tb's
                                    * trailing-step rules */
    size_t step_ranges_found;      /* host ranges matching --step-range, all processes and threads, before any rule */
    uint32_t step_thread;          /* index into model.threads of the thread whose steps are analysed; PS_NONE */
    size_t step_threads;           /* threads of the analysed process holding step ranges */
    int whole_run;                 /* no step range: one window over the run */
    struct ps_step avg;            /* mean over steps (start/end unused; end_ns - start_ns = mean duration) */
    int64_t avg_dur_ns;
    enum ps_bottleneck bottleneck;
    double share;
    double gpu_util;               /* mean of the devices' tb GPU utilisation; NAN = null */
    struct ps_device_stat *devs;
    size_t ndevs;
    struct ps_idle_stat *idle;
    size_t nidle;
    double comm_comp_overlap;      /* HTA, 0..1; NAN = null (no communication kernel) */
    struct ps_kernel_stat *kernels;    /* sorted by total_ns, descending */
    size_t nkernels;
    struct ps_copy_stat *copies;
    size_t ncopies;
    struct ps_evidence evidence[PS_MAX_EVIDENCE];
    size_t nevidence;
    const char *recs[PS_MAX_RECS];
    size_t nrecs;
    struct ps_finding findings[PS_MAX_FINDINGS];
    size_t nfindings;
    struct ps_rank_stat *ranks;    /* NULL unless two or more processes hold step ranges (ordered by pid) */
    size_t nranks;
    struct ps_straggler *stragglers;
    size_t nstragglers;
};

/* Run every analysis over `m` (finished). Returns 0 and fills *r (release with ps_report_fini), or -EINVAL
 * (bad pattern, or events spanning more than ~13 days: corrupt timestamps; message in err) / -ENOMEM.
 * `m` must outlive *r. */
int ps_report_build(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                    char *err, size_t errlen);
void ps_report_fini(struct ps_report *r);

/* Renderers: write the report to `out`. Return 0, or -EIO when writing failed. */
int ps_report_write_json(const struct ps_report *r, FILE *out);
int ps_report_write_text(const struct ps_report *r, FILE *out);

/* ---- the analyses, called by ps_report_build in this order (each returns 0 or -ENOMEM) ---- */

/* Which process the step analysis looks at: model-global correlation ids (Kineto) or one process. */
static inline int ps_report_thread_in_scope(const struct ps_report *r, uint32_t thread)
{
    return !r->scoped || (thread != PS_NONE && r->m->threads.v[thread].pid == r->pid);   /* PS_NONE: device side */
}
static inline int ps_report_gpu_in_scope(const struct ps_report *r, const struct ps_gpu_op *op)
{
    return !r->scoped || r->m->correlation_global || r->m->streams.v[op->stream].pid == r->pid;
}

/* steps.c: find host step ranges, pick the process, compute tb step windows (DESIGN §4 Steps). */
int ps_steps_find(struct ps_report *r, struct ps_names *names);
/* breakdown.c: priority breakdown, sync_ns, averages, tb GPU utilisation per device. */
int ps_breakdown_compute(struct ps_report *r, struct ps_names *names);
/* hta.c: temporal breakdown per device, idle breakdown per stream, comm-comp overlap. */
int ps_hta_compute(struct ps_report *r, struct ps_names *names);
/* tracelens.c: GPU timeline per device. */
int ps_tracelens_compute(struct ps_report *r, struct ps_names *names);
/* summary.c: kernel and copy summaries, per-device totals. */
int ps_summary_compute(struct ps_report *r);
/* verdict.c: per-step and run verdicts, evidence, recommendations, findings. */
int ps_verdict_compute(struct ps_report *r, struct ps_names *names);

/* Display names (report.c): "perfscope" / "nsys" / "kineto"; "HtoD", ..., "Memset"; "pageable", "pinned", ... */
const char *ps_format_name(enum ps_format f);
const char *ps_copy_kind_name(const struct ps_copy_stat *c);
const char *ps_mem_kind_name(uint8_t kind);

/* verdict.c: the verdict rule on one breakdown (DESIGN §4); *share gets the bottleneck's share of dur_ns. */
enum ps_bottleneck ps_verdict_classify(const int64_t *cat_ns, int64_t sync_ns, int64_t dur_ns, double threshold,
                                       double *share);
/* ranks.c: per-process step averages and stragglers when several processes hold step ranges. */
int ps_ranks_compute(struct ps_report *r, struct ps_names *names);

/* The value of metadata key `key` (perfscope: PERFSCOPE_META), NULL when absent (report.c). */
const char *ps_report_meta(const struct ps_report *r, const char *key);
/* PERFSCOPE_META recording_complete: 1 the recorder finished, 0 it did not (killed, or still recording),
 * -1 unknown (absent: an older trace, or another format). */
int ps_report_recording_complete(const struct ps_report *r);
/* PERFSCOPE_META value of `key` as a decimal integer (report.c): 1 with *v set when it is one in [lo, hi]; 0 when
 * the key is absent; -1 when the value is not an integer (NULL, empty, "1e3", "abc", beyond int64); -2 with *v
 * set when it is an integer outside [lo, hi]. Bad values show as unknown / null, never as a fake 0. */
int ps_report_meta_int(const struct ps_report *r, const char *key, long long lo, long long hi, long long *v);
/* The recorded program's end (PERFSCOPE_META child_exit_code, child_signal). */
struct ps_child_status {
    int recorded;                  /* either key is present */
    int code_known;                /* child_exit_code is an integer in -1..255 */
    long code;
    int sig_known;                 /* child_signal is an integer in 0..64 (0: no signal) */
    int sig_out_of_range;          /* child_signal is an integer outside 0..64: "unknown signal N" */
    long sig;                      /* the signal when sig_known or sig_out_of_range */
};
void ps_report_child_status(const struct ps_report *r, struct ps_child_status *st);
/* The model's rank and world size, each -1 when unknown: absent, or a PERFSCOPE_META value that is not an
 * integer in range (rank 0..2^31-2, world_size 1..2^31-1). */
void ps_report_rank(const struct ps_report *r, int32_t *rank, int32_t *world_size);
/* Records lost while recording: the model's count, or -1 when unknown (absent, or a PERFSCOPE_META dropped*
 * value that is not a non-negative integer: the reader's number for it would be a fake 0). */
int64_t ps_report_dropped_records(const struct ps_report *r);

/* --compat tb on a trace that is not Kineto (nsys, perfscope): tb's communication rule needs Kineto's NCCL host
 * ops and their External ids, so Communication is always 0 under it. Renderers print ps_report_compat_tb_note
 * (text: under the breakdown header; JSON: "notes"). */
int ps_report_compat_tb_no_comm(const struct ps_report *r);
extern const char ps_report_compat_tb_note[];

/* Find the device stat for `device`, adding it if new (report.c). NULL on out-of-memory. */
struct ps_device_stat *ps_report_device(struct ps_report *r, int32_t device);

#endif
