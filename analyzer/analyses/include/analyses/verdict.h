/* The verdict family (analyzer/analyses/verdict/): per step and for the run, what the GPU waits on most, the
 * evidence behind it and the fixes (verdict.c), and the expert findings with the time each costs (findings.c)
 * (docs/report.md "Verdict", "Findings"). Uses every family below it. Times are ns, shares 0..1. */
#ifndef PS_ANALYSES_VERDICT_H
#define PS_ANALYSES_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_report;
struct ps_names;
struct ps_view;

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
    int64_t gain_per_step_ns;      /* gain_ns per analysed step (the window without steps): the fix's unit */
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

/* What the advice must know of the program so that no fix tells it what the trace contradicts (advice_facts.c,
 * docs/report.md "What to do"): DataLoader or pin_memory advice for a C program, "copy from pinned memory" when
 * every copy already does. */
struct ps_advice_facts {
    int python;                    /* 1: the program runs Python (the Python hook's marks,
                                    * a python / torchrun command line, aten:: or ProfilerStep ranges) */
    int64_t host_copies, host_copy_ns;         /* host<->device copies in the analysed window, their GPU time */
    int64_t pageable_copies, pageable_copy_ns; /* of them, to or from pageable host memory */
    int64_t pinned_copies, pinned_copy_ns;     /* of them, to or from pinned host memory (the rest: kind unknown) */
    int rocm;                      /* 1: the GPU API calls are HIP's (hipLaunchKernel, ...): an AMD GPU, whose
                                    * matrix units are Matrix Cores, not Tensor Cores */
};

#define PS_MAX_EVIDENCE 8
#define PS_MAX_RECS 6
#define PS_REC_LEN 1536
#define PS_MAX_FINDINGS 12

/* The rank the other ranks of this trace wait for (docs/distributed.md "Ranks in one trace"), as the ranks family
 * found it before the report's analyses ran; the verdict's fix names it. Strings are the caller's, valid while the
 * report lives. */
struct ps_waited_rank {
    int analysed;                  /* 1: the trace's ranks (processes of it) were analysed one by one */
    int found;                     /* 1: the others wait for one rank (the fields below), 0: for none */
    uint32_t pid;                  /* that rank's process */
    int32_t rank;
    const char *path;              /* how the several-rank report names it ("pid N") */
    int64_t waited_for_ns;         /* the others' wait for it per step */
    int64_t excess_ns;             /* how much longer its `group` takes than theirs per step */
    enum ps_bottleneck group;      /* the verdict group where its step exceeds theirs the most (not communication;
                                    * analyses/ranks.h struct ps_wait_straggler) */
    const char *name;              /* its own largest name in that group, NULL when unknown */
    int has_gpu;                   /* its rows hold GPU work: else `kernel` is its host compute */
};

/* ---- where the step goes (causes.c; docs/report.md "Where the step goes") ---- */

#define PS_CAUSE_TOP 3             /* names kept per cause */
#define PS_CAUSE_CHAIN 6           /* Python frames kept around a cause's first name */
struct ps_cause_name {
    uint32_t name;                 /* string id: a Python frame ("file.py(12): fn"), range, API call or GPU op */
    int64_t ns;                    /* its time in the cause per average steady step */
};
struct ps_cause_wait_on {          /* waiting on a stream: an op that launched work waited for (causes.c) */
    int64_t stream;                /* its stream, as the trace numbers it */
    int32_t device;
    uint32_t op;                   /* its name (string id) */
    int64_t ns;                    /* the launched work's wait until that op ended, per average steady step */
};
struct ps_cause_stat {
    int64_t ns;                    /* per average steady step; the causes sum to ps_causes.step_ns */
    double share;                  /* ns / step_ns; NAN when step_ns is 0 */
    struct ps_cause_name top[PS_CAUSE_TOP];   /* its largest names, largest first */
    size_t ntop;
    uint32_t chain[PS_CAUSE_CHAIN];/* the Python frames (string ids) enclosing top[0] at its longest stretch,
                                    * outermost first, top[0] last; nchain 0 when none */
    size_t nchain;
    uint32_t call;                 /* sync: the API call top[0] issued (string id), else PS_NONE */
    int64_t gain_ns;               /* the replay's saving per average steady step without the cause (replay.c,
                                    * docs/report.md "Expected gains"); -1: no fix removes it (not replayed) */
    uint32_t function;             /* host compute: the function a fix moves off the step thread, the outermost of
                                    * top[0]'s chain outside the model and the loop (string id); else PS_NONE */
    int64_t top_gain_ns;           /* the replay's saving without `function` (the other causes: top[0]) and what
                                    * it calls; -1 when not replayed */
    struct ps_cause_wait_on waits_on[PS_CAUSE_TOP];   /* waiting on a stream: what the waits wait for, as far as
                                    * the trace says (docs/report.md "Where the step goes"), largest first; they sum
                                    * to at most ns (the rest waits on what the trace does not name) */
    size_t nwaits_on;              /* 0 for the other causes */
};
struct ps_causes {
    int computed;                  /* 1: the steps were split (r->steps[i].cause_ns hold) */
    int host_only;                 /* 1: no GPU rows: the first three causes are the step thread's copy,
                                    * collective and (host compute's) work as the breakdown finds them */
    uint32_t thread;               /* index into model.threads of the step thread whose activity is read; PS_NONE */
    uint32_t thread_name;          /* its name (string id), PS_NONE when unknown */
    size_t steps;                  /* steady steps averaged (the analysed steps less the start-up ones) */
    size_t startup_steps;          /* leading steps left out as start-up: each more than twice the median of the
                                    * steps after it */
    int64_t startup_ns;            /* their summed duration */
    int64_t startup_excess_ns;     /* startup_ns less as many average steady steps */
    int64_t step_ns;               /* the average steady step */
    struct ps_cause_stat c[PS_CAUSE_N];
    int64_t python_frames;         /* Python frames (Kineto python_function) on the step thread in the steps */
    int64_t python_samples;        /* perfscope's Python stack samples of the step thread in the steps */
    int replayed;                  /* 1: the gains below and c[].gain_ns hold */
    int64_t replay_step_ns;        /* the steady steps replayed as recorded, per step (against step_ns: how close
                                    * the replay's model of the run comes to it) */
    int64_t group_gain_ns[PS_BN_UNKNOWN];   /* per verdict group (enum ps_bottleneck): the saving without all of
                                             * the group's causes; -1 when not replayed */
};

/* causes.c: where each analysed step's time goes (r->steps[i].cause_ns, r->steps[i].startup) and, over the
 * steady steps, the average with each cause's largest names (r->causes): one sweep over sv's GPU ops, the step
 * thread's API calls, ranges and thread-state samples, each instant to the first cause that holds in the order
 * of enum ps_cause (docs/report.md "Where the step goes"). Runs after the breakdown. 0 or -ENOMEM. */
int ps_causes_compute(struct ps_report *r, const struct ps_view *sv, struct ps_names *names);

/* ---- the verdict rule: one function for every breakdown (a step, the average step, a rank) ---- */

/* verdict.c: the verdict of one breakdown of dur_ns (docs/report.md "Verdict"). Its parts grouped as the verdict
 * weighs them, into group_ns (indexed by enum ps_bottleneck): kernel = Kernel, data-loading = DataLoader,
 * memcpy = Memcpy + Memset, communication, sync = sync_ns, host = Runtime + CPU Exec + Other - sync_ns less the
 * GPU's work queued before the trace (pretrace_ns, when it lies within host: analyses/timeline.h), which no change
 * of the program saves. *seen_ns gets what the groups sum to: dur_ns less that work. The bottleneck is `kernel`
 * when its group reaches `threshold` of *seen_ns, else the largest other group; *share gets its group / *seen_ns
 * (0 and PS_BN_UNKNOWN when *seen_ns <= 0). */
enum ps_bottleneck ps_verdict_classify(const int64_t *cat_ns, int64_t sync_ns, int64_t pretrace_ns, int64_t dur_ns,
                                       double threshold, int64_t group_ns[PS_BN_UNKNOWN], int64_t *seen_ns,
                                       double *share);

/* verdict.c: the verdict of one step's causes c (enum ps_cause, summing to dur_ns; analyses/base.h), the rule the
 * report's steps and average step follow (docs/report.md "Verdict"). The groups: kernel = GPU kernels (without
 * GPU rows: host compute, launch and unexplained, the step thread's own work), data-loading = data, memcpy =
 * copies, communication = collectives + waiting on a stream, sync = sync, host = launch overhead + host compute +
 * unexplained, waiting = waiting; the work before the trace is in none: *seen_ns = dur_ns less it. The
 * bottleneck as ps_verdict_classify picks it from its groups. */
enum ps_bottleneck ps_verdict_classify_causes(const int64_t *c, int host_only, int64_t dur_ns, double threshold,
                                              int64_t group_ns[PS_BN_UNKNOWN], int64_t *seen_ns, double *share);

/* verdict.c: the verdict of the average of every analysed step, start-up steps included (causes per step averaged
 * over r->nsteps and rounded so that they sum to r->avg_dur_ns), as ps_verdict_classify_causes groups it: what the
 * several-rank tables compare, every rank over the same span as its breakdown (docs/distributed.md). */
enum ps_bottleneck ps_verdict_all_steps(const struct ps_report *r, int64_t group_ns[PS_BN_UNKNOWN], int64_t *seen_ns,
                                        double *share);

/* ---- a rank's excess over the other ranks in one verdict group (excess.c; docs/distributed.md) ---- */

/* How group g reads in a straggler's excess: "waiting", "data loading", "host compute" (kernel without GPU rows),
 * "GPU kernels", ... Static strings. */
const char *ps_excess_group_label(enum ps_bottleneck g, int has_gpu);
/* The group with the name, as a sentence quotes them: "waiting (sleep)", "host compute" (name NULL), into buf
 * (len bytes, cut to fit; a name is cut after 160 bytes, then "..."). */
void ps_excess_in(char *buf, size_t len, enum ps_bottleneck g, int has_gpu, const char *name);
/* What shortens a rank's step in group g, as one sentence without its final period into buf (len bytes, cut to
 * fit), naming `name` (the rank's own largest name in the group; NULL unknown; a long one is cut), e.g. "remove
 * what that rank's step thread waits on (sleep): a sleep, a lock, file or network I/O; ...". */
void ps_excess_fix(char *buf, size_t len, enum ps_bottleneck g, int has_gpu, const char *name);

/* ---- the analyses ---- */

/* verdict.c: the pipeline every step analysis goes through, for the single-trace report and each process of the
 * per-process table alike: the steps of r->scope (analyses/steps.h ps_steps_compute: find, infer, windows,
 * warm-up), the GPU's work queued before the trace (ps_backlog_find), the breakdown (ps_breakdown_compute) and
 * each step's and the average step's verdict (ps_verdict_classify). *sv gets the steps' view (the caller
 * finis it). 0 or -ENOMEM. */
int ps_verdict_steps_compute(struct ps_report *r, struct ps_names *names, struct ps_view *sv);
/* verdict.c: the analysed window, the evidence behind the run's verdict (r->scope), whether host compute waits
 * (r->host_wait), and the verdict line's numbers: the Kernel share, the most removing the cause saves
 * (max_gain_ns, the bottleneck's group of the average step, and max_gain_share) or why the verdict is unknown.
 * 0 or -ENOMEM. */
int ps_verdict_compute(struct ps_report *r, struct ps_names *names);
/* advice_facts.c: r->advice from r->scope's copies in the analysed window and the trace's signs of Python. 0 (it
 * allocates nothing). */
int ps_advice_facts_compute(struct ps_report *r, struct ps_names *names);
/* findings.c: the expert findings, each with the time it costs in the analysed window, sorted by cost. */
int ps_findings_compute(struct ps_report *r, struct ps_names *names);
/* verdict.c: the recommendations: the verdict's fix (worded from r->py's advice where the hook has some for the
 * bottleneck, naming r->waited's rank for exposed communication), then the fixes of the costliest warnings among
 * the findings. */
void ps_recommendations_compute(struct ps_report *r);

#endif
