/* The ranks family (analyzer/analyses/ranks/), above the single-trace report: the report with its rank analyses
 * (process_ranks.c: the entry point of the commands), several processes of one trace (ranks.c), one trace as one
 * rank (rank_summary.c), and `perfscope report FILE...` with several traces, one per rank (run.0.sqlite,
 * run.1.sqlite, ... or one Kineto file per rank: rank_files.c): each file is read (by the caller's loader) and
 * analysed on its own (ps_ranks_report_compute), reduced to a struct ps_rank_file, and its model freed before that
 * worker reads the next file, so memory stays bounded by the files being read at once (at most one per worker),
 * not by their sum; then the cross-rank analysis (multirank.c): the same straggler rule as several processes of
 * one trace (ranks.c, ps_stragglers_find) and who waits for whom (straggler.c). All times are integer ns. */
#ifndef PS_ANALYSES_RANKS_H
#define PS_ANALYSES_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/report.h"

struct ps_names;

struct ps_rank_stat {              /* one process's or rank's steps: their average and its verdict */
    uint32_t pid;
    size_t nsteps;
    int64_t avg_dur_ns, cat_ns[PS_CAT_N], sync_ns;   /* the step average */
    int64_t pretrace_ns;           /* of it: GPU work queued before the trace (analyses/timeline.h) */
    enum ps_bottleneck bottleneck; /* the verdict (analyses/verdict.h ps_verdict_classify) */
    double share;
    int64_t group_ns[PS_BN_UNKNOWN], seen_ns;   /* the verdict's groups and what they sum to */
};

struct ps_straggler {
    uint32_t pid;
    size_t rank;                   /* index into ps_report.ranks */
    double slower_by;              /* average step / median of the ranks' average steps - 1 */
    int category;                  /* enum ps_cat that exceeds the ranks' median by the most */
};

/* Where a file's rank came from, in the order they are tried. */
enum ps_rank_source {
    PS_RANK_FROM_META,          /* PERFSCOPE_META rank (perfscope) or Kineto distributedInfo.rank */
    PS_RANK_FROM_PROCESSES,     /* PERFSCOPE_PROCESS_INFO: every probed process with a rank has the same one */
    PS_RANK_FROM_FILE_NAME,     /* the last number of the file name between '.', '_' or '-' (record -o run.%r.sqlite) */
    PS_RANK_FROM_ORDER,         /* none of the above: the file's position on the command line */
};
extern const char *const ps_rank_source_name[];   /* "metadata", "process_info", "file_name", "order" */

/* One collective of one rank, by name and message size: an NCCL / RCCL kernel name (HTA's communication kernels;
 * host 0), or a host collective range of perfscope's Python hook (host 1: `gloo:all_reduce`, `nccl:broadcast`,
 * `ddp:gradient_allreduce`; docs/python.md). Algorithm bandwidth (nccl-tests, TraceLens) = bytes * count /
 * total_ns, in bytes per ns = GB/s (docs/distributed.md). */
struct ps_collective_stat {
    char *name;                 /* owned */
    int64_t count, total_ns;
    int64_t exposed_ns;         /* kernels: not overlapped by HTA computation kernels on the same device; host
                                 * calls: the caller blocked (a whole call; DDP's sync: its wait at the end of
                                 * backward) */
    int64_t bytes;              /* per call: the message size (Kineto kernel args "In/Out msg nelems" x dtype, the
                                 * hook's `collective` mark); -1: the trace does not say */
    int host;                   /* 1: a host range, 0: a GPU kernel */
    int64_t wait_ns;            /* host: the Work.wait ranges inside the calls; 0 for kernels */
    double algbw_gbps, busbw_gbps;   /* ps_collective_bandwidth over its file's world_size, stored once the file is
                                 * one of a several-rank report (ps_multirank_compute, ps_multirank_from_files: the
                                 * world size is final there); NAN unknown, and in a report's own rank_summary */
};

struct ps_rank_file {
    const char *path;
    const char *format;         /* "perfscope", "nsys" or "kineto" */
    int32_t rank, world_size;   /* rank: as found (source below), -1 for a launcher trace; world_size -1 unknown */
    enum ps_rank_source rank_source;
    size_t launcher_ranks;      /* >= 2: the file is a trace around a launcher, each rank a process of it */
    int whole_run, steps_inferred;
    int64_t gpu_ops;            /* its kernels, copies and memsets (every device, no filter) */
    int has_gpu;                /* gpu_ops > 0: without GPU work the `kernel` verdict is host compute */
    struct ps_rank_stat stat;   /* step count, average step, breakdown, verdict (pid: the rank's process when the
                                 * ranks are processes of one trace, process_ranks.c; else 0) */
    double comm_comp_overlap;   /* HTA, 0..1; NAN when the rank ran no communication kernel */
    int recording_complete;     /* ps_report_recording_complete */
    struct ps_collective_stat *collectives;   /* by total_ns descending, then name, then bytes */
    size_t ncollectives;
    /* distributed (rank_summary.c, docs/distributed.md) */
    size_t capcollectives;      /* allocated rows */
    int64_t comm_wait_ns;       /* average step: the step thread blocked waiting on collectives (the hook's
                                 * Work.wait and ddp:gradient_allreduce_wait ranges, union); 0 when none */
    char *owned_path;           /* path when the file owns it (merged JSON reports), else NULL */
    /* whether the files can be ranks of one job (rank_checks.c ps_multirank_check_one_job) */
    char *host, *command;       /* PERFSCOPE_META host and command_line (owned); NULL unknown or recorded empty */
    int32_t local_rank;         /* PERFSCOPE_META local_rank; -1 unknown */
    int64_t start_epoch_ns, end_epoch_ns;   /* the wall-clock span the trace covers, ns since the Unix epoch
                                 * (ps_rank_summary_compute says from what); -1: unknown */
    /* what names a rank's excess over the others (straggler.c): per verdict group (enum ps_bottleneck), its own
     * largest name in it (owned): the top name (analyses/verdict.h struct ps_cause_stat top[0]) of the cause of
     * that group whose top name takes the most time, e.g. "sleep" for waiting, a Python function for host or
     * data-loading; NULL when its causes name none (or a merged report was written before they were carried) */
    char *group_top[PS_BN_UNKNOWN];
};

/* The rank the others wait for (straggler.c, docs/distributed.md): per rank, Communication per average step (time
 * blocked in collectives) against the rest of its step (its own work). */
struct ps_wait_straggler {
    size_t file;                /* index into ps_multirank.files */
    int64_t own_ns;             /* its average step minus its Communication */
    int64_t median_own_ns;      /* the median of the other ranks' own work */
    int64_t own_wait_ns;        /* its own Communication per step */
    int64_t others_wait_ns;     /* the median of the other ranks' Communication per step */
    int64_t waited_for_ns;      /* others_wait_ns - own_wait_ns: how long the others wait for it per step (the
                                 * collectives' own cost, which it pays too, taken out) */
    size_t waiter;              /* the rank file blocked the most */
    const char *wait_in;        /* that rank's collective row with the most exposed time (borrowed), NULL none */
    /* what in its step is longer (docs/distributed.md): the verdict group (its average over all its analysed steps,
     * analyses/verdict.h ps_verdict_all_steps; not communication) where its step exceeds the median of the other
     * ranks' the most, and its own largest name in that group */
    enum ps_bottleneck group;
    int64_t group_excess_ns, median_group_ns;   /* that excess, and the others' median time in the group */
    const char *group_name;     /* its rank file's group_top[group] (borrowed), NULL when unknown */
    char cause[224];            /* the group and name as every format quotes them: "waiting (sleep)" (analyses/
                                 * verdict.h ps_excess_in) */
    char fix[512];              /* what shortens that rank's step in the group (ps_excess_fix), no final period */
    /* the same over the breakdown's categories, the rule before the groups, kept for the JSON's `category` keys */
    int category;               /* enum ps_cat (not Communication) where its step exceeds the median of the other
                                 * ranks' the most */
    int64_t excess_ns, median_category_ns;   /* that excess, and the others' median time in the category */
};

struct ps_multirank {
    struct ps_rank_file *files; /* by rank, then path; launcher traces last */
    size_t nfiles;
    struct ps_straggler *stragglers;   /* among the one-rank files: .rank indexes files; .pid unused */
    size_t nstragglers;
    char notes[4][400];         /* signs that the files may not be ranks of one job (ps_multirank_check_one_job) */
    size_t nnotes;
    /* distributed (straggler.c, docs/distributed.md): the straggler by who waits for whom */
    int has_wait_straggler;     /* 1: `wait` holds the rank the others wait for (that rule decided) */
    struct ps_wait_straggler wait;
};

/* The straggler by who waits for whom over mr's one-rank files with steps (fills mr->wait, has_wait_straggler):
 * the rank with the least Communication per step (ties: the most own work), when the median of the others'
 * Communication exceeds its own by more than 5 % of the median step and its own work exceeds the median of the
 * others'; its excess is the verdict group (not communication; ties: the first in enum ps_bottleneck's order) in
 * which its group_ns exceeds the median of the others' the most, named by its group_top.
 * 0 or -ENOMEM. */
int ps_wait_straggler_find(struct ps_multirank *mr);

/* How the caller reads one trace file: a new, finished model of `path` in *out (the analysis frees it with
 * ps_model_free), 0; or a negative errno with a one-line message in err (errlen bytes). Called from several threads
 * at once, one file each. `perfscope report` passes ps_read_trace (read/reader.h). */
typedef int (*ps_trace_loader)(const char *path, struct ps_model **out, char *err, size_t errlen);

/* Read paths[0..n) with `load` and analyse them with at most `workers` threads (clamped to 1..n). Returns 0 and
 * fills *mr (release with ps_multirank_fini), -EINVAL with "FILE: reason" in err when a file cannot be read or
 * analysed (the first such file on the command line), -EDOM with the reason when the files cannot be ranks of one
 * job (ps_multirank_check_one_job), or -ENOMEM. */
int ps_multirank_compute(struct ps_multirank *mr, const char *const *paths, size_t n, ps_trace_loader load,
                       const struct ps_report_opts *o, size_t workers, char *err, size_t errlen);
void ps_multirank_fini(struct ps_multirank *mr);
/* The several-rank report from rank files already summarised (per-rank JSON reports read back: `perfscope report
 * run.*.report.json`), files[0..n) in command-line order, taken over (heap, calloc'ed; freed by ps_multirank_fini
 * and on error): files without a rank (rank_source PS_RANK_FROM_ORDER) are numbered by their position, then the
 * same cross-rank steps as ps_multirank_compute. 0, -EINVAL (two files of one rank; message in err), -EDOM (not
 * ranks of one job; message in err) or -ENOMEM. */
int ps_multirank_from_files(struct ps_multirank *mr, struct ps_rank_file *files, size_t n, char *err, size_t errlen);

/* Duplicate rank files (rank_checks.c): -EINVAL with "A and B are the same file (...)" when two of paths[0..n)
 * name one file (same device and inode; a path that cannot be stat'ed is left to the reader), else 0. */
int ps_multirank_refuse_same_file(const char *const *paths, size_t n, char *err, size_t errlen);
/* Whether mr's files can be ranks of one job (rank_checks.c, docs/distributed.md "Files that are not ranks of one
 * job"). Refused, -EDOM with the reason in err naming the two files: formats differ; world sizes differ; a rank
 * (not numbered by order) at or past the known world size, or more ranks than it; spans in wall-clock time that
 * do not overlap within PS_RANKS_TIME_TOLERANCE_NS; two files of one host with one local rank. Weaker signs are
 * notes (mr->notes; at most 4): different command lines, GPU work in some files only, no file recording its rank.
 * Launcher traces take part in the format and time checks only. 0, or -EDOM. */
#define PS_RANKS_TIME_TOLERANCE_NS (60 * (int64_t)1000000000)
int ps_multirank_check_one_job(struct ps_multirank *mr, char *err, size_t errlen);
/* -EINVAL with "A and B both hold rank N (from ...)" when two of mr's one-rank files (sorted by rank) hold the
 * same rank, else 0. */
int ps_multirank_refuse_shared_ranks(const struct ps_multirank *mr, char *err, size_t errlen);

/* Release a rank file's rows and owned strings (the struct is the caller's) and zero it. */
void ps_rank_file_fini(struct ps_rank_file *f);
/* ps_rank_file_fini, then free the heap rank file itself (a report's rank_summary); NULL is a no-op. */
void ps_rank_file_free(struct ps_rank_file *f);
/* Algorithm bandwidth of a collective row, bytes * count / total_ns (nccl-tests' algbw = size / time; TraceLens'
 * NCCL analyser), and bus bandwidth = algbw x nccl-tests' factor for the operation named and `world_size` ranks
 * (all-reduce 2(n-1)/n, all-gather / reduce-scatter (n-1)/n, broadcast / reduce / send / recv 1), both in GB/s
 * (bytes per ns); NAN when the size is unknown (busbw: also when the world size or the operation is). The
 * several-rank analysis stores both in each row (algbw_gbps, busbw_gbps): renderers print those. */
void ps_collective_bandwidth(const struct ps_collective_stat *c, int32_t world_size, double *algbw, double *busbw);

/* ---- the report with its rank analyses (process_ranks.c): the entry point of `perfscope report`, `diff`, `top` ---- */

/* Every analysis over the rows of view `rows` (model/view.h; ps_ranks_report_compute: the whole model): when the
 * trace's processes hold two ranks or more (and `rows` are not one process's), each rank's process analysed on its
 * own and the several-rank analysis across them (r->process_ranks); the single-trace report of `rows`
 * (analyses/report.h ps_report_compute), told which rank the others wait for; the per-process table and its
 * stragglers (r->ranks, r->stragglers: ranks.c); this trace as one rank of a several-rank report
 * (r->rank_summary). Returns 0 and fills *r (release with ps_report_fini, which releases these parts too), or
 * ps_report_compute's errors with a message in err. `rows`' model must outlive *r; `rows` may be freed at once.
 * The several-rank part is optional, deliberately: when a rank's process cannot be analysed on its own for a
 * reason other than memory (ps_report_compute's -EINVAL), a one-line message goes through ps_diag
 * (common/ps_diag.h), r->process_ranks stays NULL and the report goes on without it; out of memory fails the
 * call. */
int ps_ranks_report_compute_view(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                                 char *err, size_t errlen);
int ps_ranks_report_compute(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                            char *err, size_t errlen);

/* ---- several processes of one trace (ranks.c) ---- */

/* ranks.c: per-process step averages and their verdicts (each process through the one step pipeline,
 * analyses/verdict.h ps_verdict_steps_compute) and stragglers, when several processes hold step ranges. 0 or
 * -ENOMEM. */
int ps_ranks_compute(struct ps_report *r, struct ps_names *names);
/* ranks.c: the stragglers among ranks[0..n) (several processes of one trace, or several rank files): ranks whose
 * average step is more than 5 % slower than the median rank's, each with the category (enum ps_cat) that exceeds
 * the ranks' median of it by the most; .rank indexes `ranks`. Returns 0 with *out (caller frees; never NULL) and
 * *nout set, or -ENOMEM. */
int ps_stragglers_find(const struct ps_rank_stat *ranks, size_t n, struct ps_straggler **out, size_t *nout);

/* ---- one trace as one rank of a several-rank report (rank_summary.c) ---- */

/* rank_summary.c: r->rank_summary from the finished report (collectives: r->all's kernels, r->scope's host
 * ranges), a heap rank file the report owns (ps_rank_file_free releases it). 0 or -ENOMEM. */
int ps_rank_summary_compute(struct ps_report *r, struct ps_names *names);

#endif
