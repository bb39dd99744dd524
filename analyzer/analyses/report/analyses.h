/* The analyses ps_report_build runs (report.c: run_analyses), declared in the order it calls them, over views of
 * one finished model, and the helpers they share (docs/report.md). Private to analyzer/analyses/ and its tests:
 * renderers read struct ps_report only. */
#ifndef PS_ANALYSES_H
#define PS_ANALYSES_H

#include "names.h"
#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* ---- the analyses, in the order ps_report_build calls them (each returns 0 or -ENOMEM) ----
 * Each reads the rows of the view it is given (model/view.h), never the model's row arrays: `report` gives the
 * rows analysed (r->all: the whole trace, or the caller's view in ps_report_build_view, e.g. `top`'s time
 * slice) to the whole-trace measures (HTA, TraceLens, summaries) and the analysed process of them (r->scope,
 * retimed under --compat tb on Kineto traces) to the steps and their breakdown; ranks.c gives each process its
 * own view of r->all. */

/* steps.c: the process holding the most host step ranges in v (the lowest pid on a tie; PS_NONE when none), and
 * how many step ranges v holds in all. */
int ps_steps_pick_process(const struct ps_view *v, struct ps_names *names, uint32_t *pid, size_t *found);
/* steps.c: the steps of view v (one process's view, or the whole trace when no process holds a step range): the
 * thread holding most step ranges, tb step windows (docs/report.md "Steps"); one whole-run window without steps. Steps
 * are not inferred here: see ps_steps_want_inference. */
int ps_steps_find(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* steps.c: 1 when the steps ps_steps_find left should be replaced by inferred ones if a period is found (--steps
 * auto without step ranges, --steps infer), on a trace with GPU operations. */
int ps_steps_want_inference(const struct ps_report *r);
/* steps_infer.c: steps from the period of the busiest stream's kernel sequence in view v (docs/report.md "Steps", no
 * markers): replaces r->steps, sets r->steps_inferred and the process they belong to (r->scoped, r->pid: the
 * caller then gives ps_steps_windows that process's view), or leaves them and says why in r->steps_note. 0 or
 * -ENOMEM. */
int ps_steps_infer(struct ps_report *r, const struct ps_view *v);
/* steps.c: extend r->steps to the GPU work launched inside them, over view v, as tb does (docs/report.md); drops
 * trailing steps without GPU work. 0 or -ENOMEM. */
int ps_steps_windows(struct ps_report *r, const struct ps_view *v);
/* breakdown.c: priority breakdown, sync_ns, averages, tb GPU utilisation per device, over the steps' view. */
int ps_breakdown_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* hta.c: temporal breakdown per device, idle breakdown per stream, comm-comp overlap. */
int ps_hta_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* tracelens.c: TraceLens' GPU timeline of v (linked events, devices merged; recompute split), perfscope's
 * per-device view. */
int ps_tracelens_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* summary.c: kernel and copy summaries, per-device totals (ps_summary_devices_compute, then the tables). */
int ps_summary_compute(struct ps_report *r, const struct ps_view *v);
/* summary.c: the per-device totals alone (r->devs). */
int ps_summary_devices_compute(struct ps_report *r, const struct ps_view *v);
/* summary.c: the kernel and copy tables of v apart from any report, so that another thread may make them while
 * the report's other analyses run (they read v only): *t owns its arrays until ps_summary_tables_give moves them
 * into r (freeing what r held) or ps_summary_tables_fini frees them. 0 or -ENOMEM (*t then holds nothing). */
struct ps_summary_tables {
    struct ps_kernel_stat *kernels;
    size_t nkernels;
    struct ps_copy_stat *copies;
    size_t ncopies;
};
int ps_summary_tables_compute(struct ps_summary_tables *t, const struct ps_view *v);
void ps_summary_tables_give(struct ps_report *r, struct ps_summary_tables *t);
void ps_summary_tables_fini(struct ps_summary_tables *t);
/* pytorch.c: what perfscope's Python hook saw (r->py; NULL when the trace holds none of its marks): the hook's
 * marks and the DataLoader worker processes from `all`, the loaders, the step thread's waits for data and the
 * copies from `scope` (the analysed process), each worker's busy time from its own process view; then advice
 * worded from them, which the verdict's fix takes up for its bottleneck. 0 or -ENOMEM. */
int ps_pytorch_compute(struct ps_report *r, const struct ps_view *all, const struct ps_view *scope,
                       struct ps_names *names);
void ps_pytorch_free(struct ps_pytorch *py);   /* NULL is a no-op */
/* verdict.c: per-step and run verdicts, the analysed window, the evidence (r->scope). */
int ps_verdict_compute(struct ps_report *r, struct ps_names *names);
/* findings.c: the expert findings, each with the time it costs in the analysed window, sorted by cost. */
int ps_findings_compute(struct ps_report *r, struct ps_names *names);
/* verdict.c: the recommendations: the verdict's fix (worded from r->py's advice where the hook has some for the
 * bottleneck), then the fixes of the costliest warnings among the findings. */
void ps_recommendations_compute(struct ps_report *r);

/* process_ranks.c: each process's rank (the Python hook's `distributed` mark, else its environment's) and, with
 * two ranks or more among r->all's processes (not one process's view), each rank's process analysed on its own
 * and the several-rank analysis across them (r->process_ranks). Before every caller of ps_report_process_ranks.
 * 0 or -ENOMEM; ps_process_ranks_free releases them. */
int ps_process_ranks_compute(struct ps_report *r);
void ps_process_ranks_free(struct ps_report *r);
/* process_ranks.c: the verdict's fix for exposed communication in such a trace, naming the rank the others wait for
 * (or saying none is), into buf (len bytes); buf unchanged without process ranks. */
void ps_process_ranks_comm_fix(const struct ps_report *r, char *buf, size_t len);

/* ranks.c: per-process step averages and stragglers when several processes hold step ranges. */
int ps_ranks_compute(struct ps_report *r, struct ps_names *names);
/* ranks.c: the stragglers among ranks[0..n) (several processes of one trace, or several rank files): ranks whose
 * average step is more than 5 % slower than the median rank's, each with the category (enum ps_cat) that exceeds
 * the ranks' median of it by the most; .rank indexes `ranks`. Returns 0 with *out (caller frees; never NULL) and
 * *nout set, or -ENOMEM. */
int ps_stragglers_find(const struct ps_rank_stat *ranks, size_t n, struct ps_straggler **out, size_t *nout);

/* nvml_util.c: GPU utilisation over time per device from the model's NVML samples. */
int ps_nvml_util_compute(struct ps_report *r);

/* utilization.c: GPU utilisation over time per device (PS_UTIL_BUCKETS slices of the run). */
int ps_util_compute(struct ps_report *r);
/* messages.c (last): run facts, warnings, notes, the verdict line's parts; ps_messages_fini frees them. */
int ps_messages_compute(struct ps_report *r);
void ps_messages_fini(struct ps_report *r);
/* rank_summary.c: r->rank_summary from the finished analyses (collectives: r->all's kernels, r->scope's host
 * ranges). 0 or -ENOMEM. */
int ps_rank_summary_compute(struct ps_report *r, struct ps_names *names);

/* ---- what the analyses share ---- */

/* The correctly rounded float64 of ns / 1000: a time as Python reads the JSON's decimal µs (tb's and TraceLens'
 * float64 arithmetic under --compat tb / --compat tracelens). q is exact below 2^53; rem / 1000.0 only breaks
 * true ties. */
static inline double ps_ns_to_us_double(int64_t ns)
{
    int64_t q = ns / 1000, rem = ns % 1000;
    if (rem < 0)
        q -= 1, rem += 1000;
    return (double)q + (double)rem / 1000.0;
}

/* Find the device stat for `device`, adding it if new (report_query.c). NULL on out-of-memory. */
struct ps_device_stat *ps_report_device(struct ps_report *r, int32_t device);
/* r->trace from the model (report_query.c): its path, format, tables' sizes, host samples, ranges never ended.
 * 0 or -ENOMEM. */
int ps_report_trace_fill(struct ps_report *r);
/* "perfscope" / "nsys" / "kineto" (report_query.c). */
const char *ps_format_name(enum ps_format f);

#endif
