/* The result of `perfscope report`'s analyses (docs/report.md): options, the step-time categories and verdicts,
 * and struct ps_report, which ps_report_build fills from one finished model and every renderer (analyzer/render/)
 * only formats. All times are integer ns, shares 0..1. */
#ifndef PS_REPORT_H
#define PS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ps_model;                   /* model/model.h: analysed, never read by a renderer */
struct ps_view;                    /* model/view.h */
struct ps_memory;                  /* analyses/memory.h */
struct ps_rank_file;               /* analyses/multirank.h */
struct ps_multirank;               /* analyses/multirank.h */

/* Step-time categories, in tb's priority order (docs/report.md). */
enum ps_cat {
    PS_CAT_KERNEL, PS_CAT_MEMCPY, PS_CAT_MEMSET, PS_CAT_COMM, PS_CAT_RUNTIME, PS_CAT_DATALOADER,
    PS_CAT_CPU_EXEC, PS_CAT_OTHER, PS_CAT_N
};
extern const char *const ps_cat_key[PS_CAT_N];    /* JSON keys: "kernel", "memcpy", ... */
extern const char *const ps_cat_label[PS_CAT_N];  /* tb's labels: "Kernel", "Memcpy", ..., "CPU Exec" */

enum ps_bottleneck { PS_BN_KERNEL, PS_BN_DATA, PS_BN_MEMCPY, PS_BN_COMM, PS_BN_SYNC, PS_BN_HOST, PS_BN_UNKNOWN };
extern const char *const ps_bottleneck_name[];    /* "kernel", "data-loading", ... as in the JSON */

/* Default name patterns (docs/report.md), matched case-insensitively as whole names. */
#define PS_STEP_RE_DEFAULT "^(ProfilerStep#[0-9]+|step|train_step|iteration)([ _#:-]?[0-9]+)?$"
#define PS_DATA_RE_DEFAULT "^(enumerate\\(DataLoader\\)#.*|data|data_?load(er|ing)?|load_batch|next_batch|fetch_batch)$"
#define PS_COPY_RE_DEFAULT "^(h2d|d2h|memcpy|copy_to_device|transfer)$"

struct ps_report_opts {
    const char *step_re, *data_re, *copy_re;   /* NULL: the defaults above */
    int compat_tb;             /* 1: tb's communication rule (kernels linked to nccl:/gloo: host ops) */
    int steps_mode;            /* PS_STEPS_AUTO (default): steps from step ranges, else inferred (steps_infer.c);
                                * PS_STEPS_OFF: never inferred; PS_STEPS_INFER: inferred even when step ranges exist */
    int compat_tracelens;      /* 1: TraceLens' GPU timeline in its own float64 µs arithmetic (Kineto traces) */
    int top_n;                 /* kernels listed; default 10 */
    double kernel_threshold;   /* Kernel share at or above which a step is kernel-bound; default 0.8 */
    int64_t gap_ns;            /* GPU idle gaps reported as findings from this length; default 1 ms */
    int64_t tiny_kernel_ns;    /* kernels shorter than this count as tiny; default 10 µs */
    double info_share;         /* a finding costing less than this share of the analysed window is "info", else
                                * "warning"; default 0.02 */
    double low_util;           /* a time slice whose kernels run less than this share of it has low GPU
                                * utilisation; default 0.5 */
    double launch_bound_share; /* a stream is launch-bound when at least this share of its kernels (100 or more)
                                * run shorter than their launch call; default 0.5 */
    double link_gbps;          /* host<->device link peak for copies from / to pinned memory, GB/s; pageable
                                * memory is expected at half of it; default 25 (PCIe 4.0 x16 in practice) */
    double slow_copy_share;    /* copies slower than this share of that peak are slow; default 0.25 */
    double low_occupancy_pct;  /* kernels whose trace-estimated achieved occupancy is below this are low;
                                * default 25 (%) */
    int all_steps;             /* text: list every step (default: at most ~20 rows) */
    int skip_steps;            /* --skip-steps N: leave the first N steps out of every average (warm-up); 0 none */
};
enum { PS_STEPS_AUTO, PS_STEPS_OFF, PS_STEPS_INFER };
void ps_report_opts_default(struct ps_report_opts *o);
/* Check the options' name patterns before any trace is read (names.c: they compile as ps_report_build compiles
 * them). 0, -EINVAL with a message naming the option and regerror's text, or -ENOMEM. */
int ps_report_opts_check(const struct ps_report_opts *o, char *err, size_t errlen);

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
    double share;                  /* share of the step in the bottleneck's category (of the step less pretrace_ns) */
    int64_t pretrace_ns;           /* backlog.c: the part of Runtime + CPU Exec + Other (never sync) in which the GPU
                                    * ran work the trace does not hold while launched work waited for it */
};

struct ps_device_stat {
    int32_t device;
    int64_t kernel_count, kernel_ns, memcpy_count, memcpy_bytes, memset_count;  /* all rows, no filter */
    /* HTA temporal breakdown (after HTA's last-step filter); span 0 when no GPU event survived */
    int64_t hta_span_ns, hta_idle_ns, hta_compute_ns, hta_non_compute_ns;
    /* perfscope's own per-device timeline with TraceLens' categories over EVERY GPU event of the device, linked or
     * not, first to last (not TraceLens' number: that is ps_report.tl, linked events, devices merged) */
    int64_t tl_total_ns, tl_computation_ns, tl_exposed_comm_ns, tl_exposed_memcpy_ns, tl_idle_ns;
    double gpu_util;               /* tb: merged kernel time in [first step start, last step end] / that span */
};

/* TraceLens GPU timeline of one set of GPU events (kernels, copies, memsets linked to a launch in the trace), all
 * devices merged; the four parts sum to total_ns. */
enum ps_tl_set { PS_TL_ALL, PS_TL_NOT_RECOMPUTE, PS_TL_RECOMPUTE };
struct ps_tl_row {
    int set;                       /* enum ps_tl_set */
    int64_t events;                /* GPU events in the set (0: the row's times are 0) */
    int64_t total_ns, computation_ns, exposed_comm_ns, exposed_memcpy_ns, idle_ns;
    /* --compat tracelens on a Kineto trace: TraceLens' own float64 values in ms, as its gpu_timeline.csv prints
     * them (total, computation, exposed comm, exposed memcpy, idle); NAN otherwise. The *_ns fields are then
     * these values rounded to the ns. */
    double tracelens_ms[5];
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
    uint8_t kind;                  /* the model's PS_GPU_MEMCPY or PS_GPU_MEMSET (names: ps_copy_kind_name) */
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
    const char *rule, *severity;   /* severity follows cost: "info" under opts.info_share of the window */
    char summary[480];
    char fix[320];                 /* what to change, pointing at the rows, with its expected gain */
    int64_t cost_ns;               /* the time the cause takes inside the analysed window (overlaps counted once) */
    double share;                  /* cost_ns / the analysed window (0..1); NAN when the window is empty */
    int64_t gain_ns;               /* the most the fix can save: at most cost_ns */
    struct ps_row rows[PS_FINDING_ROWS];
    size_t nrows;
};

struct ps_evidence {               /* "the GPU waits on this": aggregated over the analysed steps */
    const char *kind;              /* "range", "kernel", "copy", "api" */
    uint32_t name;                 /* a range: one name of its group, shown without an emit_nvtx suffix */
    int64_t count, total_ns;
};

/* Host compute that is waiting (analyses/verdict.c, docs/report.md "Traces without GPU rows"): the step thread's
 * scheduler-state samples (PERFSCOPE_THREAD_SAMPLES) inside the analysed steps. */
struct ps_host_wait {
    int checked;                   /* 1: a perfscope trace without GPU rows, steps on one thread: the counts hold */
    size_t samples;                /* the step thread's samples inside the analysed steps */
    size_t waiting;                /* of them: asleep, blocked or stopped (S, D, T) outside its data, copy and
                                    * collective ranges */
    size_t in_evidence;            /* of those: inside a range listed as evidence */
    int64_t wait_ns;               /* waiting / samples x the average step: the estimated wait per step */
    int claimed;                   /* samples >= 8 and waiting >= samples / 4: the report says so */
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

/* What a report says besides its numbers (messages.c), so that every format says the same. */
enum ps_msg_level {
    PS_MSG_ALERT,                  /* the trace is incomplete or the program failed: read before any number */
    PS_MSG_NOTICE,                 /* something happened to the recording and was repaired (text "NOTE:") */
    PS_MSG_WARNING,                /* numbers may be low (records lost or not placed) */
    PS_MSG_NOTE,                   /* how to read the numbers, or why there are none */
};
struct ps_message {
    enum ps_msg_level level;
    const char *code;              /* stable id (JSON "warnings"[].code): "recording_incomplete", ... (docs/report.md) */
    char *text;                    /* full sentences, no trailing newline (owned by the report) */
};

#define PS_ABSENT (-2)             /* a fact the trace does not hold */
#define PS_UNKNOWN (-1)            /* a fact the trace holds as garbage */
#define PS_MAX_CUDA_STATES 8
struct ps_cuda_state {
    const char *state;             /* PERFSCOPE_META cuda_state.pid.* value ("" unknown) */
    int processes;
};
/* The recorded program's end (PERFSCOPE_META child_exit_code, child_signal). */
struct ps_child_status {
    int recorded;                  /* either key is present */
    int code_known;                /* child_exit_code is an integer in -1..255 */
    long code;
    int sig_known;                 /* child_signal is an integer in 0..64 (0: no signal) */
    int sig_out_of_range;          /* child_signal is an integer outside 0..64: "unknown signal N" */
    long sig;                      /* the signal when sig_known or sig_out_of_range */
};
struct ps_run_facts {              /* the recorded program, from PERFSCOPE_META; NULL / PS_ABSENT when absent */
    const char *command, *host, *started;   /* values as recorded ("" when recorded empty) */
    int64_t program_ns;            /* the program's wall-clock duration; PS_ABSENT or PS_UNKNOWN */
    char exit_status[112];         /* "exit code 0", "killed by signal 9 (SIGKILL)", "unknown (...)"; "" absent */
    struct ps_cuda_state cuda[PS_MAX_CUDA_STATES];
    size_t ncuda;
    int32_t rank, world_size;      /* -1 unknown (ps_report_rank) */
    size_t launcher_ranks;         /* ranks the processes hold (ps_report_process_ranks); >= 2: a launcher trace */
    int64_t dropped_records;       /* -1 unknown (ps_report_dropped_records) */
    int64_t gpu_records_without_timestamps;   /* -1 unknown (ps_report_gpu_untimed_records) */
    int wal_file_missing;          /* the reader found a WAL-mode trace without its -wal file (docs/readers.md) */
    int recording_complete;        /* 1 / 0 / -1 unknown (ps_report_recording_complete) */
    struct ps_child_status child;  /* ps_report_child_status */
    int64_t still_running_processes, other_pidns_rings, corrupt_rings;   /* PERFSCOPE_META counts; -1 not
                                                                          * recorded or garbage */
};

/* A range never ended (the program crashed, was killed or exited inside it), as the report lists it. */
struct ps_open_range {
    const char *name;              /* NULL: the range has no text (a mirrored range is kept without it) */
    const char *domain;            /* its NVTX domain, NULL for the default domain */
    int64_t pid, tid;              /* -1: no thread */
    int64_t start_ns;
};

/* What the model holds about the trace file, for the renderers (they read the report, never the model). Strings
 * are the model's, valid while it lives (it outlives the report). */
struct ps_trace_info {
    const char *path;              /* the file read */
    const char *format;            /* "perfscope", "nsys" or "kineto" */
    size_t processes, threads;     /* the recording's processes and threads (not only the analysed rows') */
    int64_t unplaced_events;       /* rows the reader read but could not place in the model */
    struct {                       /* perfscope host samples (PERFSCOPE_PROCESS_SAMPLES); n 0: none */
        int64_t n;                 /* sample rows */
        int64_t first_ns, last_ns; /* first and last sample time */
        int64_t cpu_ns;            /* CPU time (user + system) the sampled processes used, summed */
    } samples;
    size_t nmeta;                  /* metadata entries (PERFSCOPE_META and the like): ps_report_meta_entry */
    struct ps_open_range *open;    /* the ranges never ended, by thread, each thread's outermost first (owned) */
    size_t nopen;
};

#define PS_UTIL_BUCKETS 100
struct ps_util_series {            /* GPU utilisation over time of one device (utilization.c) */
    int32_t device;
    int64_t start_ns, bucket_ns;   /* slice i is [start + i * bucket, start + (i + 1) * bucket) */
    int64_t busy_ns[PS_UTIL_BUCKETS];   /* time in the slice with a kernel, copy or memset running */
};

/* ---- what perfscope's Python hook saw (pytorch.c; docs/python.md) ---- */
struct ps_py_loader {              /* a torch DataLoader of the step process, from the hook's "DataLoader#N" marks */
    int32_t number;                /* N */
    int32_t iterators;             /* iterators made (epochs) */
    char iterator[64];             /* iterator class, e.g. _MultiProcessingDataLoaderIter */
    int32_t num_workers, pin_memory, persistent_workers, prefetch_factor, batch_size;   /* -1 unknown */
};

struct ps_py_worker {              /* a DataLoader worker process ("DataLoader worker" mark) */
    uint32_t pid;
    int32_t id, loader;            /* worker id, DataLoader#; -1 unknown */
    int64_t fetches, fetch_ns;     /* batches it fetched (its *.fetch ranges) and their total time */
    int64_t busy_wait_ns;          /* time inside its ranges while the step thread waited for data (py->wait_ns) */
    int64_t cpu_ns, life_ns;       /* host samples: CPU it used, span of its samples; -1 unknown */
};

#define PS_PY_MAX_LOADERS 8
#define PS_PY_MAX_ADVICE 4
struct ps_pytorch {
    int hooked;                    /* "python hook" marks found (processes where the hook ran) */
    char mode[16], torch_version[32];
    int32_t cores;                 /* CPUs the step process may run on (sched_getaffinity), -1 unknown */
    struct ps_py_loader loaders[PS_PY_MAX_LOADERS];   /* in DataLoader# order of first use */
    size_t nloaders;
    struct ps_py_worker *workers;
    size_t nworkers;
    int64_t wait_ns;               /* step thread inside data ranges in the analysed steps, the start-up waits apart
                                    * (iter() and each iterator's first fetch: startup_wait_ns) (union) */
    int64_t first_fetch_wait_ns;   /* the first fetches of the iterators (worker start-up), in the steps */
    double workers_busy;           /* mean over workers of busy_wait_ns / wait_ns; NAN: no worker or no wait */
    int more_workers;              /* 1 more workers help, 0 they would not, -1 unknown / not relevant */
    int suggest_workers;           /* num_workers to try, 0 none */
    int64_t copies, copies_pageable, copies_blocking;   /* the hook's copy_to_device ranges (step process) */
    char advice[PS_PY_MAX_ADVICE][400];
    enum ps_bottleneck advice_for[PS_PY_MAX_ADVICE];  /* the verdict each piece of advice is for */
    size_t nadvice;
    /* worker start-up and a busy machine (docs/python.md "Start-up", "A busy machine") */
    int64_t startup_wait_ns;       /* the step thread's waits in iter() (the __iter__ ranges), in the first fetch of
                                    * each iterator that started workers and (persistent_workers=False) in the last
                                    * fetch of each iterator followed by another (its workers exit), in the analysed
                                    * steps (not in wait_ns) */
    int64_t startups;              /* iterators that started workers (DataLoader#N marks of loaders with workers) */
    char start_method[16];         /* the first loader's worker start method ("fork", "spawn", "forkserver"; "") */
    int32_t intra_op_threads;      /* the training process's torch.get_num_threads(), -1 unknown */
    int oversubscribed;            /* 1: the first loader's workers + intra-op threads > cores, and the sampled
                                    * processes kept 75 % of the cores busy (without host samples: the workers were
                                    * busy at least half the steady waits) */
    double sampled_cores;          /* CPUs the sampled processes used on average over their samples; NAN unknown */
};

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

/* Warm-up (graphs.c): the first analysed step against the median of the others, and the steps --skip-steps left
 * out of every average. */
struct ps_warmup_stat {
    size_t skipped;                /* leading steps left out (--skip-steps) */
    int skip_ignored;              /* 1: --skip-steps asked for all of them (or there are no steps): none left out */
    int first_outlier;             /* 1: the first step took more than twice the median of the others (>= 3 steps) */
    int64_t first_ns, median_ns;   /* its duration and that median (0 when fewer than 3 steps) */
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

#define PS_MAX_EVIDENCE 8
#define PS_MAX_RECS 6
#define PS_REC_LEN 1536
#define PS_MAX_FINDINGS 12

struct ps_report {
    const struct ps_model *m;      /* the model analysed (renderers read `trace` and ps_report_name instead) */
    struct ps_view *all;           /* the rows analysed, the report's own copy of the caller's view (owned): every
                                    * row of the trace for ps_report_build (HTA, TraceLens, summaries, whole-trace
                                    * findings) */
    struct ps_view *scope;         /* the analysed process's rows of `all` (owned; the steps, their breakdown and
                                    * evidence); all of `all` when no process holds a step range */
    struct ps_trace_info trace;    /* the file, as the model holds it */
    struct ps_report_opts opts;
    int has_gpu;                   /* `all` holds GPU rows (kernels, copies, memsets) */
    int scoped;                    /* 1: steps, API calls and ranges come from process `pid` only */
    uint32_t pid;
    int64_t run_start_ns, run_end_ns;   /* first start .. last end of `all`'s rows (0, 0: none) */
    size_t nevents;                /* `all`'s rows: GPU ops + API calls + ranges */
    size_t ngpu_rows, napi_calls, nranges;   /* nevents by kind */
    struct ps_step *steps;
    size_t nsteps;
    size_t nsteps_host;            /* host steps of the analysed thread (nested ones merged), before the
                                    * trailing-step rule */
    enum ps_tail_rule { PS_TAIL_NONE, PS_TAIL_TB, PS_TAIL_HOST_OPS } tail_rule;   /* which rule left steps out */
    size_t tail_left_out;          /* trailing steps that rule left out (0: none) */
    uint32_t tail_first_name;      /* the first of them: its name (string id) and host duration */
    int64_t tail_first_host_ns;
    int64_t tail_host_ops, tail_host_ops_before; /* PS_TAIL_HOST_OPS: host ops in the last step and the one before */
    size_t step_ranges_found;      /* host ranges matching --step-range, all processes and threads, before any rule */
    uint32_t step_thread;          /* index into model.threads of the thread whose steps are analysed; PS_NONE */
    int64_t step_tid;              /* that thread's tid; -1 when none */
    size_t step_threads;           /* threads of the analysed process holding step ranges */
    int whole_run;                 /* no step range (and none inferred): one window over the run */
    int64_t last_host_step_start_ns; /* start of the last host step range (HTA's last-step filter); nsteps_host > 0 */
    int steps_inferred;            /* 1: the steps were inferred from the repeating kernel sequence (names PS_NONE) */
    char steps_note[320];          /* how the steps were inferred, or why inference found none; "" when not tried */
    int64_t infer_period_ops;      /* inferred: the period in GPU operations of the stream below */
    double infer_match;            /* inferred: share of that stream's operations repeated one period later */
    int32_t infer_device;
    int64_t infer_stream;
    struct ps_step avg;            /* mean over steps (start/end unused; end_ns - start_ns = mean duration) */
    int64_t avg_dur_ns;
    enum ps_bottleneck bottleneck;
    double share;
    double gpu_util;               /* mean of the devices' tb GPU utilisation; NAN = null */
    struct ps_device_stat *devs;
    size_t ndevs;
    struct ps_idle_stat *idle;
    size_t nidle;
    struct ps_tl_row tl[3];        /* TraceLens: [0] every linked event; with recompute functions in the trace also
                                    * [1] the events they did not launch and [2] those they did (ntl 3, else 1) */
    size_t ntl;
    int64_t tl_unlinked;           /* GPU events (kernels, copies, memsets) left out of tl: no launch linked */
    int tl_by_flows;               /* 1: linked by ac2g flows (TraceLens' rule); 0: the trace has no flows, linked
                                    * by correlation id to an API call in the trace */
    double comm_comp_overlap;      /* HTA, 0..1; NAN = null (no communication kernel) */
    struct ps_kernel_stat *kernels;    /* sorted by total_ns, descending */
    size_t nkernels;
    struct ps_copy_stat *copies;
    size_t ncopies;
    struct ps_evidence evidence[PS_MAX_EVIDENCE];
    struct ps_host_wait host_wait;
    size_t nevidence;
    char recs[PS_MAX_RECS][PS_REC_LEN];   /* the verdict's fix, then the fixes of the costliest warnings; each
                                           * names what the report shows and its expected gain */
    size_t nrecs;
    int64_t window_start_ns, window_end_ns; /* the analysed window: first step start .. last step end (the run
                                           * without steps); findings' shares are of its length */
    struct ps_finding findings[PS_MAX_FINDINGS];
    size_t nfindings;
    struct ps_rank_stat *ranks;    /* NULL unless two or more processes hold step ranges (ordered by pid) */
    size_t nranks;
    struct ps_straggler *stragglers;
    size_t nstragglers;
    struct ps_util_series *util;   /* per device, in devs order; none without GPU rows */
    size_t nutil;
    /* messages.c: everything said besides the numbers */
    struct ps_run_facts facts;
    struct ps_message *msgs;       /* alerts first, then warnings, then notes */
    size_t nmsgs;
    int nothing_to_break_down;     /* no ranges and no GPU rows: no breakdown, no steps table */
    double kernel_share;           /* the average step's Kernel (compute) share; NAN over a zero-length window */
    double max_gain_share;         /* the most removing the bottleneck's cause could save, as a share of the
                                    * average step (its share); NAN when the verdict is unknown */
    int64_t max_gain_ns;           /* the same in ns of the average step; -1 when unknown */
    const char *verdict_reason;    /* why the verdict is unknown; NULL when it is known */
    struct ps_nvml_util_stat *nvml_util; /* one per device with NVML samples, by device; NULL when none */
    size_t nnvml_util;
    struct ps_pytorch *py;         /* NULL unless the trace holds perfscope's Python hook marks */
    /* ---- GPU memory (analyses/memory.c; the structs: analyses/memory.h; docs/memory.md) ---- */
    struct ps_memory *mem;         /* NULL unless the trace holds memory records */

    /* The per-operator performance model (analyses/op_perf.h) of a PyTorch profiler trace: set by
     * ps_op_perf_attach after ps_report_build, borrowed (the caller frees it after the report); NULL when not
     * computed (not a Kineto trace). */
    const struct ps_op_perf *op_perf;
    /* Operator efficiency (analyses/roofline.h, op_efficiency.c; docs/op-perf-roofline.md): rooflines of the
     * operator model's rows on the trace's GPU, MFU, unmodeled time. NULL until ps_report_op_efficiency adds it. */
    struct ps_op_efficiency *opeff;

    /* ---- setups the advice must recognise (graphs.c, backlog.c; docs/report.md "CUDA graphs" and "Work queued
     * before the trace") ---- */
    struct ps_graph_stat graphs;   /* CUDA / HIP graph replays in `all` */
    struct ps_backlog_stat backlog;/* GPU work the trace does not hold, which launched work waited behind */
    struct ps_warmup_stat warmup;  /* the first step against the others, and the steps left out (--skip-steps) */
    /* distributed (rank_summary.c, docs/distributed.md): this trace as one rank of a several-rank report — rank,
     * step average, collectives with bytes, time blocked in collectives. JSON "rank_summary", which
     * `perfscope report run.*.report.json` merges. Owned; NULL only when the report failed. */
    struct ps_rank_file *rank_summary;
    /* Several ranks as processes of this trace (process_ranks.c, docs/distributed.md "Ranks in one trace"):
     * per process of the model (m->procs order), its rank and world size (-1 unknown) and whether the Python
     * hook's `distributed` mark gave them (1) or its environment (0); and, when r->all holds two ranks or more
     * and is not one process's rows, the several-rank analysis over the rank processes, as `perfscope report`
     * makes it over one trace per rank (each rank file's path "pid N"). Owned; NULL when not computed. */
    int32_t *proc_rank, *proc_world;
    uint8_t *proc_marked;
    struct ps_multirank *process_ranks;
};

/* Run every analysis over `m` (finished): ps_report_build_view over ps_view_all(m). Returns 0 and fills *r
 * (release with ps_report_fini), or -EINVAL (bad pattern, or events spanning more than ~13 days: corrupt
 * timestamps; message in err) / -ENOMEM. `m` must outlive *r. */
int ps_report_build(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                    char *err, size_t errlen);
/* Run every analysis over the rows of view `rows` (model/view.h) instead of the whole model: a time slice
 * (ps_view_starting: `perfscope top`'s last N seconds of a growing model), a process or a rank. The report
 * copies the view into r->all (ps_view_copy: free for ps_view_all, O(rows) for a view with a selection), so
 * `rows` may be freed at once; its model must outlive *r. Every figure is of those rows: steps, breakdown, GPU
 * utilisation, HTA, TraceLens, kernel and copy tables, findings, the verdict, run_start_ns / run_end_ns /
 * nevents and the GPU utilisation timeline (their span), and the NVML utilisation samples inside the view's
 * window ([rows->start_ns, rows->end_ns)). Facts of the whole recording stay the model's: processes, threads,
 * strings, metadata (the program's duration, exit status, dropped records, warnings), never-ended ranges, host
 * samples and the per-process CPU time taken from them (the Python section's workers). Returns as
 * ps_report_build, and -EINVAL for a retimed view (ps_view_retime; message in err). */
int ps_report_build_view(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                         char *err, size_t errlen);
void ps_report_fini(struct ps_report *r);

/* The message with `code`, NULL when the report has none (messages.c). */
const struct ps_message *ps_report_message(const struct ps_report *r, const char *code);
/* "SIGKILL", ...; "signal" for another Linux signal (1..64), "unknown signal" outside (messages.c). */
const char *ps_signal_name(long sig);

/* Display names (report_query.c): "HtoD", ..., "Memset"; "pageable", "pinned", ... (ENUM_CUDA_MEM_KIND numbering);
 * a copy's source memory kind, NULL for a memset (it has none). */
const char *ps_copy_kind_name(const struct ps_copy_stat *c);
const char *ps_mem_kind_name(uint8_t kind);
const char *ps_copy_src_mem_name(const struct ps_copy_stat *c);
/* The text of string id `id` of the report's model (a step, kernel, evidence or finding row name); NULL for none
 * (the model's PS_NONE). Valid while the model lives. */
const char *ps_report_name(const struct ps_report *r, uint32_t id);
/* names.c: the length of `s` without a trailing PyTorch emit_nvtx suffix (", seq = N", ", op_id = N",
 * ", sizes = [...]", ", input_op_ids = [...]", in PyTorch's order, each optional: torch/csrc/profiler/util.cpp
 * getNvtxStr); strlen(s) when there is none. "aten::add, seq = 12, op_id = 5" -> 9. Range names group by it, so
 * renderers show a range's evidence and a step's name without the suffix. */
size_t ps_names_base_len(const char *s);
/* Metadata entry i (i < r->trace.nmeta), in the trace's order. */
void ps_report_meta_entry(const struct ps_report *r, size_t i, const char **key, const char **value);

/* verdict.c: the verdict rule on one breakdown (docs/report.md); *share gets the bottleneck's share of dur_ns. */
enum ps_bottleneck ps_verdict_classify(const int64_t *cat_ns, int64_t sync_ns, int64_t dur_ns, double threshold,
                                       double *share);
/* verdict.c: a breakdown grouped as the verdict groups it (docs/report.md), indexed by enum ps_bottleneck:
 * kernel = Kernel, data-loading = DataLoader, memcpy = Memcpy + Memset, communication, sync = sync_ns,
 * host = Runtime + CPU Exec + Other - sync_ns. The six sum to the breakdown's total. */
void ps_verdict_groups(const int64_t *cat_ns, int64_t sync_ns, int64_t out[PS_BN_UNKNOWN]);
/* The value of metadata key `key` (perfscope: PERFSCOPE_META), NULL when absent (report_query.c). */
const char *ps_report_meta(const struct ps_report *r, const char *key);
/* Kineto's baseTimeNanoseconds (the ns its µs `ts` values are relative to), 0 when the trace has none. */
int64_t ps_report_kineto_base_ns(const struct ps_report *r);
/* PERFSCOPE_META recording_complete: 1 the recorder finished, 0 it did not (killed, or still recording),
 * -1 unknown (absent: an older trace, or another format). */
int ps_report_recording_complete(const struct ps_report *r);
/* PERFSCOPE_META value of `key` as a decimal integer (report_query.c): 1 with *v set when it is one in [lo, hi]; 0 when
 * the key is absent; -1 when the value is not an integer (NULL, empty, "1e3", "abc", beyond int64); -2 with *v
 * set when it is an integer outside [lo, hi]. Bad values show as unknown / null, never as a fake 0. */
int ps_report_meta_int(const struct ps_report *r, const char *key, long long lo, long long hi, long long *v);
void ps_report_child_status(const struct ps_report *r, struct ps_child_status *st);
/* The model's rank and world size, each -1 when unknown: absent, or a PERFSCOPE_META value that is not an
 * integer in range (rank 0..2^31-2, world_size 1..2^31-1). Rank is -1 too for a trace recorded around a launcher
 * (ps_report_process_ranks >= 2): the recorder's "rank" is then only its first rank's. */
void ps_report_rank(const struct ps_report *r, int32_t *rank, int32_t *world_size);
/* How many distinct ranks the trace's processes hold (PERFSCOPE_PROCESS_INFO; other formats: 0). Two or more: a
 * trace recorded around a launcher (`perfscope record -- torchrun ...`), every rank a process of it. *one gets the
 * first process rank found, -1 when none. */
size_t ps_report_process_ranks(const struct ps_report *r, int32_t *one);
/* Records lost while recording: the model's count, or -1 when unknown (absent, or a PERFSCOPE_META dropped*
 * value that is not a non-negative integer: the reader's number for it would be a fake 0). */
int64_t ps_report_dropped_records(const struct ps_report *r);
/* GPU activity records CUPTI delivered without timing (start or end 0, or end < start: "timestamp information
 * could not be collected", cupti_activity.h), left out of the trace and every number: PERFSCOPE_META
 * gpu_records_without_timestamps (collector/gpu_rows.c), or -1 when absent (not a perfscope trace with GPU
 * rows) or not a count. */
int64_t ps_report_gpu_untimed_records(const struct ps_report *r);

/* --compat tb on a trace that is not Kineto (nsys, perfscope): tb's communication rule needs Kineto's NCCL host
 * ops and their External ids, so Communication is always 0 under it. Renderers print ps_report_compat_tb_note
 * (text: under the breakdown header; JSON: "notes"). */
int ps_report_compat_tb_no_comm(const struct ps_report *r);
extern const char ps_report_compat_tb_note[];

#endif
