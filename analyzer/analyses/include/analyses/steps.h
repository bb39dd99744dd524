/* The steps family (analyzer/analyses/steps/): which process and thread hold the training steps, their windows as
 * the PyTorch profiler's TensorBoard plugin computes them (steps.c), steps inferred from repeating GPU work when
 * the trace marks none (steps_infer.c), and warm-up steps (warmup.c). Uses the base family only. Times are ns. */
#ifndef PS_ANALYSES_STEPS_H
#define PS_ANALYSES_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_report;
struct ps_view;
struct ps_names;

/* One analysed step: its host range, the window its breakdown partitions, and what the later families put in it
 * (the breakdown's categories, the verdict and the GPU's pre-trace work). */
struct ps_step {
    uint32_t name;                 /* string id of the step range */
    uint32_t range;                /* index into model.ranges */
    int64_t host_start_ns, host_end_ns;
    int64_t start_ns, end_ns;      /* the window the breakdown partitions */
    int64_t device_ops;            /* GPU ops launched by runtime calls inside the host range */
    int64_t cat_ns[PS_CAT_N];      /* sums to end_ns - start_ns */
    int64_t sync_ns;               /* carved out of runtime + cpu_exec + other */
    int64_t pretrace_ns;           /* backlog.c: the part of Runtime + CPU Exec + Other (never sync) in which the GPU
                                    * ran work the trace does not hold while launched work waited for it */
    /* the verdict (analyses/verdict.h ps_verdict_classify): every format prints these, none recomputes them */
    enum ps_bottleneck bottleneck;
    double share;                  /* the bottleneck's group / seen_ns */
    int64_t group_ns[PS_BN_UNKNOWN];   /* the breakdown as the verdict groups it, host less pretrace_ns */
    int64_t seen_ns;               /* what the groups sum to: the step less the pre-trace work the verdict left out */
    /* where the step goes (analyses/verdict.h ps_causes_compute): sums to end_ns - start_ns */
    int64_t cause_ns[PS_CAUSE_N];
    int startup;                   /* 1: a leading step the causes leave out as start-up */
};

/* Which rule left trailing steps out of the analysis (docs/report.md "Steps"). */
enum ps_tail_rule { PS_TAIL_NONE, PS_TAIL_TB, PS_TAIL_HOST_OPS };


/* Warm-up (graphs.c): the first analysed step against the median of the others, and the steps --skip-steps left
 * out of every average. */
struct ps_warmup_stat {
    size_t skipped;                /* leading steps left out (--skip-steps) */
    int skip_ignored;              /* 1: --skip-steps asked for all of them (or there are no steps): none left out */
    int first_outlier;             /* 1: the first step took more than twice the median of the others (>= 3 steps) */
    int64_t first_ns, median_ns;   /* its duration and that median (0 when fewer than 3 steps) */
};

/* How much of the run the analysed steps cover (coverage.c; docs/report.md "Step coverage"); all 0 and top_name
 * PS_NONE when not computed (no steps: the whole run is one window). */
struct ps_step_coverage {
    int computed;                  /* 1: the report has steps and a run to cover */
    int64_t run_ns;                /* the run: the report's first event to its last (run_start_ns .. run_end_ns) */
    int64_t steps_ns;              /* the analysed steps' windows inside it (they do not overlap) */
    int64_t before_ns, after_ns;   /* the run before the first step's window, after the last one's */
    int64_t data_ns;               /* outside the steps, in ranges matching --data-range (their union) */
    uint32_t top_name;             /* the host range (not a step range) with the most time outside the steps: its
                                    * name (string id), PS_NONE when none */
    int64_t top_ns;                /* that time */
};

/* ---- the steps of a report (steps.c) ---- */

/* steps.c: the steps of r->scope, the analysed process's rows (the whole of r->all when no process holds a step
 * range), in one order: found from step ranges, else or also inferred from the repeating GPU work
 * (--steps; inference may name another process: r->scope and r->pid follow it), their windows as tb makes them,
 * the leading steps --skip-steps leaves out, and whether the first step kept is an outlier (r->warmup). *sv gets
 * the rows the steps' breakdown reads: r->scope's, with tb's rounded times under --compat tb on Kineto traces
 * (the caller finis it, also on failure). 0 or -ENOMEM. */
int ps_steps_compute(struct ps_report *r, struct ps_names *names, struct ps_view *sv);

/* ---- finding the steps (steps.c, steps_infer.c) ---- */

/* steps.c: the process holding the most host step ranges in v (the lowest pid on a tie; PS_NONE when none), and
 * how many step ranges v holds in all. */
int ps_steps_pick_process(const struct ps_view *v, struct ps_names *names, uint32_t *pid, size_t *found);
/* steps_infer.c: steps from the period of the busiest stream's kernel sequence in view v (docs/report.md "Steps", no
 * markers): replaces r->steps, sets r->steps_inferred and the process they belong to (r->scoped, r->pid: the
 * steps then get their windows over that process's view), or leaves them and says why in r->steps_note. 0 or
 * -ENOMEM. */
int ps_steps_infer(struct ps_report *r, const struct ps_view *v);

/* coverage.c: r->coverage from the final steps (after --skip-steps) and r->scope's host ranges. 0 (it allocates
 * nothing). */
int ps_steps_coverage_compute(struct ps_report *r, struct ps_names *names);

/* ---- warm-up (warmup.c) ---- */

/* warmup.c: leave the first opts.skip_steps steps out (before the breakdown; r->warmup.skipped, skip_ignored), and
 * whether the first analysed step is an outlier (after it). ps_warmup_compute returns 0 or -ENOMEM. */
void ps_warmup_skip(struct ps_report *r);
int ps_warmup_compute(struct ps_report *r);

#endif
