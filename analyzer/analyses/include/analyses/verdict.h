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

#define PS_MAX_EVIDENCE 8
#define PS_MAX_RECS 6
#define PS_REC_LEN 1536
#define PS_MAX_FINDINGS 12

/* ---- the verdict rule ---- */

/* verdict.c: the verdict rule on one breakdown (docs/report.md); *share gets the bottleneck's share of dur_ns. */
enum ps_bottleneck ps_verdict_classify(const int64_t *cat_ns, int64_t sync_ns, int64_t dur_ns, double threshold,
                                       double *share);
/* verdict.c: a breakdown grouped as the verdict groups it (docs/report.md), indexed by enum ps_bottleneck:
 * kernel = Kernel, data-loading = DataLoader, memcpy = Memcpy + Memset, communication, sync = sync_ns,
 * host = Runtime + CPU Exec + Other - sync_ns. The six sum to the breakdown's total. */
void ps_verdict_groups(const int64_t *cat_ns, int64_t sync_ns, int64_t out[PS_BN_UNKNOWN]);

/* ---- the analyses ---- */

/* verdict.c: per-step and run verdicts, the analysed window, the evidence (r->scope). */
int ps_verdict_compute(struct ps_report *r, struct ps_names *names);
/* findings.c: the expert findings, each with the time it costs in the analysed window, sorted by cost. */
int ps_findings_compute(struct ps_report *r, struct ps_names *names);
/* verdict.c: the recommendations: the verdict's fix (worded from r->py's advice where the hook has some for the
 * bottleneck), then the fixes of the costliest warnings among the findings. */
void ps_recommendations_compute(struct ps_report *r);

#endif
