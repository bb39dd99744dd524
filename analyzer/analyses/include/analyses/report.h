/* The report family (analyzer/analyses/report/): struct ps_report, which ps_report_compute fills from one finished
 * model by calling every family in order, and what a report says besides its numbers (messages.c). Renderers
 * (analyzer/render/) only format it. All times are integer ns, shares 0..1.
 *
 * The pipeline (report/pipeline.c, run_analyses), in the order it calls the families:
 *   timeline   graph replays                          ps_graphs_compute
 *   pytorch    each process's rank                    ps_proc_ranks_find
 *   verdict    the one step pipeline                  ps_verdict_steps_compute:
 *     steps      find, infer, windows, warm-up          ps_steps_compute
 *     timeline   work queued before the trace           ps_backlog_find
 *     breakdown  tb's breakdown with sync               ps_breakdown_compute
 *     verdict    where each step goes, start-up         ps_causes_compute
 *     verdict    each step's and the average's verdict  ps_verdict_classify_causes
 *   steps      how much of the run the steps cover    ps_steps_coverage_compute
 *   breakdown  HTA, TraceLens, device totals          ps_hta_compute, ps_tracelens_compute, ps_summary_devices_compute
 *   pytorch    the Python hook's view                 ps_pytorch_compute
 *   verdict    evidence and the verdict line, findings, fixes
 *                                                     ps_verdict_compute, ps_advice_facts_compute,
 *                                                     ps_findings_compute, ps_recommendations_compute
 *   timeline   utilisation over time                  ps_nvml_util_compute, ps_util_compute
 *   breakdown  kernel and copy tables   } on a second  ps_summary_tables_compute
 *   memory     the memory view          } thread       ps_memory_compute
 *   report     messages, last                         ps_messages_compute
 * Above it, the ranks family's entry point (analyses/ranks.h ps_ranks_report_compute) analyses the ranks of the
 * trace's processes, calls ps_report_compute, then makes the per-process table and the rank summary. */
#ifndef PS_REPORT_H
#define PS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/base.h"
#include "analyses/steps.h"
#include "analyses/timeline.h"
#include "analyses/breakdown.h"
#include "analyses/pytorch.h"
#include "analyses/verdict.h"

struct ps_model;                   /* model/model.h: analysed, never read by a renderer */
struct ps_view;                    /* model/view.h */
struct ps_names;
struct ps_memory;                  /* analyses/memory.h */
struct ps_rank_file;               /* analyses/ranks.h */
struct ps_multirank;               /* analyses/ranks.h */
struct ps_rank_stat;               /* analyses/ranks.h */
struct ps_straggler;               /* analyses/ranks.h */
struct ps_op_perf;                 /* analyses/op_perf.h */
struct ps_op_efficiency;           /* analyses/roofline.h */


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

struct ps_report {
    const struct ps_model *m;      /* the model analysed (renderers read `trace` and ps_report_name instead) */
    struct ps_view *all;           /* the rows analysed, the report's own copy of the caller's view (owned): every
                                    * row of the trace for ps_report_compute over the whole model (HTA, TraceLens, summaries, whole-trace
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
    enum ps_tail_rule tail_rule;   /* which rule left steps out */
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
    char steps_note[512];          /* how the steps were inferred, or why inference found none; "" when not tried */
    int64_t infer_period_ops;      /* inferred: the period in GPU operations of the stream below */
    double infer_match;            /* inferred: share of that stream's operations repeated one period later */
    int32_t infer_device;
    int64_t infer_stream;
    struct ps_causes causes;       /* where the step goes (verdict/causes.c) */
    struct ps_step_coverage coverage; /* how much of the run the steps cover (steps/coverage.c) */
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
    struct ps_advice_facts advice; /* what the fixes must know of the program (verdict/advice_facts.c) */
    size_t nevidence;
    char recs[PS_MAX_RECS][PS_REC_LEN];   /* the verdict's fix, then the fixes of the costliest warnings; each
                                           * names what the report shows and its expected gain */
    size_t nrecs;
    int64_t window_start_ns, window_end_ns; /* the analysed window: first step start .. last step end (the run
                                           * without steps); findings' shares are of its length */
    struct ps_finding findings[PS_MAX_FINDINGS];
    size_t nfindings;
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
    int64_t verdict_step_ns;       /* the step the verdict weighs: the average steady step (verdict/causes.c) */
    int64_t verdict_left_out_ns;   /* what of it the verdict leaves out: work queued before the trace */
    const char *verdict_reason;    /* why the verdict is unknown; NULL when it is known */
    struct ps_nvml_util_stat *nvml_util; /* one per device with NVML samples, by device; NULL when none */
    size_t nnvml_util;
    struct ps_pytorch *py;         /* NULL unless the trace holds perfscope's Python hook marks */
    /* ---- GPU memory (analyses/memory.c; the structs: analyses/memory.h; docs/memory.md) ---- */
    struct ps_memory *mem;         /* NULL unless the trace holds memory records */

    /* The per-operator performance model (analyses/op_perf.h) of a PyTorch profiler trace: set by
     * ps_op_perf_attach after the report is made, borrowed (the caller frees it after the report); NULL when not
     * computed (not a Kineto trace). */
    const struct ps_op_perf *op_perf;
    /* Operator efficiency (analyses/roofline.h, op_efficiency.c; docs/op-perf-roofline.md): rooflines of the
     * operator model's rows on the trace's GPU, MFU, unmodeled time. NULL until ps_op_efficiency_compute adds it. */
    struct ps_op_efficiency *opeff;

    /* ---- setups the advice must recognise (graphs.c, backlog.c; docs/report.md "CUDA graphs" and "Work queued
     * before the trace") ---- */
    struct ps_graph_stat graphs;   /* CUDA / HIP graph replays in `all` */
    struct ps_backlog_stat backlog;/* GPU work the trace does not hold, which launched work waited behind */
    struct ps_warmup_stat warmup;  /* the first step against the others, and the steps left out (--skip-steps) */
    /* per process of the model (m->procs order), its rank and world size and whether the Python hook's
     * `distributed` mark gave them (analyses/pytorch.h ps_proc_ranks_find) */
    struct ps_proc_ranks proc_ranks;

    /* ---- what the ranks family adds (analyses/ranks.h ps_ranks_report_compute; NULL / 0 in a report made by
     * ps_report_compute alone). ps_report_fini releases them through ranks_fini, the ranks family's callback. ---- */
    struct ps_waited_rank waited;  /* the rank the other ranks of this trace wait for: the verdict's fix names it */
    struct ps_rank_stat *ranks;    /* per process when two or more hold step ranges (ordered by pid) */
    size_t nranks;
    struct ps_straggler *stragglers;
    size_t nstragglers;
    /* Several ranks as processes of this trace (docs/distributed.md "Ranks in one trace"): when r->all holds two
     * ranks or more and is not one process's rows, the several-rank analysis over the rank processes, as
     * `perfscope report` makes it over one trace per rank (each rank file's path "pid N"). */
    struct ps_multirank *process_ranks;
    /* this trace as one rank of a several-rank report (docs/distributed.md): rank, step average, collectives with
     * bytes, time blocked in collectives. JSON "rank_summary", which `perfscope report run.*.report.json` merges. */
    struct ps_rank_file *rank_summary;
    void (*ranks_fini)(struct ps_report *r);
};


/* The single-trace report of the rows of view `rows` (model/view.h): the whole model (ps_view_all), a time slice
 * (ps_view_starting: `perfscope top`'s last N seconds of a growing model), a process or a rank; every family in
 * the order above, without the rank analyses (those run above it: analyses/ranks.h ps_ranks_report_compute, the
 * entry point of the commands). `waited` (NULL: none) is the rank the other ranks of this trace wait for, which the
 * verdict's fix names. The report copies the view into r->all (ps_view_copy: free for ps_view_all, O(rows) for a
 * view with a selection), so `rows` may be freed at once; its model must outlive *r. Every figure is of those
 * rows: steps, breakdown, GPU utilisation, HTA, TraceLens, kernel and copy tables, findings, the verdict,
 * run_start_ns / run_end_ns / nevents and the GPU utilisation timeline (their span), and the NVML utilisation
 * samples inside the view's window ([rows->start_ns, rows->end_ns)). Facts of the whole recording stay the
 * model's: processes, threads, strings, metadata (the program's duration, exit status, dropped records,
 * warnings), never-ended ranges, host samples and the per-process CPU time taken from them (the Python section's
 * workers). Returns 0 and fills *r (release with ps_report_fini), or -EINVAL (bad pattern, events spanning more
 * than ~13 days: corrupt timestamps, or a retimed view: ps_view_retime; message in err) / -ENOMEM. */
int ps_report_compute(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                      const struct ps_waited_rank *waited, char *err, size_t errlen);
void ps_report_fini(struct ps_report *r);

/* The message with `code`, NULL when the report has none (messages.c). A lookup that cannot fail. */
const struct ps_message *ps_report_message(const struct ps_report *r, const char *code);

/* messages.c (last): run facts, warnings, notes; ps_messages_fini frees them. 0 or -ENOMEM (the first message
 * that cannot be stored stops them). */
int ps_messages_compute(struct ps_report *r);
void ps_messages_fini(struct ps_report *r);

#endif
