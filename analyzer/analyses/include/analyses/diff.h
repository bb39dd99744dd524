/* `perfscope diff`: what changed between two runs (before, after), from two finished reports of the same
 * analyses: the average step and its spread, each step-time category, the verdict, kernels, copies and findings,
 * with a verdict of its own (improvement / regression / no significant change) that does not call step-to-step
 * noise a change. All times integer ns. */
#ifndef PS_DIFF_H
#define PS_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/report.h"

enum ps_diff_verdict { PS_DIFF_NO_CHANGE, PS_DIFF_IMPROVEMENT, PS_DIFF_REGRESSION };
extern const char *const ps_diff_verdict_name[];   /* "no significant change", "improvement", "regression" */

enum ps_diff_change { PS_CHANGE_SAME, PS_CHANGE_ADDED, PS_CHANGE_REMOVED, PS_CHANGE_FASTER, PS_CHANGE_SLOWER };
extern const char *const ps_diff_change_name[];    /* "unchanged", "added", "removed", "faster", "slower" */

struct ps_diff_side {              /* one run's step statistics */
    size_t nsteps;
    int64_t avg_ns;                /* mean step duration */
    double sd_ns;                  /* sample standard deviation of the step durations; NAN with one step */
    int64_t cat_ns[PS_CAT_N];      /* mean per category (the report's step average) */
    int64_t sync_ns;
    enum ps_bottleneck bottleneck;
    double share;                  /* the bottleneck's share of the average step */
    int has_gpu;                   /* the run holds GPU rows: without, the `kernel` verdict is host compute */
};

struct ps_diff_kernel {            /* one kernel name, in either run */
    const char *name;              /* owned by the report's model it came from */
    int64_t before_count, after_count, before_ns, after_ns;   /* total time; 0 when absent on that side */
    int64_t before_per_call_ns, after_per_call_ns;   /* total / count, rounded; -1 when absent on that side */
    enum ps_diff_change change;    /* added / removed, else faster / slower by the time per call, or unchanged */
};

struct ps_diff_copy {              /* one copy kind (direction and memory kinds, or Memset) */
    char kind[48];                 /* "HtoD pageable->device" */
    int64_t before_count, after_count, before_bytes, after_bytes, before_ns, after_ns;
    enum ps_diff_change change;    /* added / removed, else faster / slower by bandwidth, or unchanged */
};

struct ps_diff_finding {
    const char *rule;              /* static (a report's rule name) */
    enum ps_diff_change change;    /* PS_CHANGE_ADDED (appeared) or PS_CHANGE_REMOVED (disappeared) */
};

struct ps_diff_memory {            /* one memory device (its label) of either run: the peaks (memory_diff.c) */
    char label[32];                /* "GPU0", "CPU" */
    int64_t before_peak, after_peak;           /* peak allocated (bytes); -1 absent from that run */
    int64_t before_reserved, after_reserved;   /* max reserved; -1 unknown */
    int64_t capacity;              /* the after run's capacity (else the before run's); -1 unknown */
    int has_delta;                 /* both peaks known: delta_bytes holds their change */
    int64_t delta_bytes;           /* after_peak - before_peak; 0 without has_delta */
};

struct ps_diff {
    struct ps_diff_side before, after;
    int64_t delta_ns;              /* after.avg_ns - before.avg_ns */
    double ratio;                  /* after.avg_ns / before.avg_ns */
    double se_ns;                  /* standard error of delta_ns; NAN when either side has one step */
    double min_change;             /* the relative change that counts at least (0.01; 0.05 when se is NAN) */
    enum ps_diff_verdict verdict;
    struct ps_diff_kernel *kernels;   /* every kernel name of both runs, by |after_ns - before_ns| descending */
    size_t nkernels;
    struct ps_diff_copy *copies;
    size_t ncopies;
    struct ps_diff_finding *findings; /* only rules that appeared or disappeared */
    size_t nfindings;
    /* ---- GPU memory (memory_diff.c): the peaks of each device in either run; none without memory records ---- */
    struct ps_diff_memory *memory;
    size_t nmemory;
};

/* memory_diff.c: d->memory from the two reports' memory views: each device's peaks and their change. 0 or
 * -ENOMEM. */
int ps_diff_memory(struct ps_diff *d, const struct ps_report *before, const struct ps_report *after);

/* Compare two finished reports (analyses/ranks.h ps_ranks_report_compute). A change of the average step counts when it exceeds both twice
 * its standard error (Welch: sqrt(sd_b^2/n_b + sd_a^2/n_a)) and 1 % of the before step; with one step on either
 * side the spread is unknown and only a change of 5 % counts. A kernel or copy is faster / slower when its time
 * per call (copies: bandwidth) moved by 5 % or more.
 * Returns 0 and fills *d (release with ps_diff_fini; the reports must outlive it), -EINVAL with a message in err
 * when the runs cannot be compared (a run without steps; different GPU models), or -ENOMEM. */
int ps_diff_compute(struct ps_diff *d, const struct ps_report *before, const struct ps_report *after,
                  char *err, size_t errlen);
void ps_diff_fini(struct ps_diff *d);

#endif
