/* The analyses ps_report_build runs, in its order, over one finished model (DESIGN §4), and the scoping
 * helpers they share. Internal to analyzer/analyses/ (and its tests): renderers read struct ps_report only. */
#ifndef PS_ANALYSES_H
#define PS_ANALYSES_H

#include "analyses/names.h"
#include "analyses/report.h"

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
/* steps_infer.c: steps from the period of the busiest stream's kernel sequence (DESIGN §4 Steps, no markers):
 * replaces r->steps and sets r->steps_inferred, or leaves them and says why in r->steps_note. 0 or -ENOMEM. */
int ps_steps_infer(struct ps_report *r);
/* breakdown.c: priority breakdown, sync_ns, averages, tb GPU utilisation per device. */
int ps_breakdown_compute(struct ps_report *r, struct ps_names *names);
/* hta.c: temporal breakdown per device, idle breakdown per stream, comm-comp overlap. */
int ps_hta_compute(struct ps_report *r, struct ps_names *names);
/* tracelens.c: TraceLens' GPU timeline (linked events, devices merged; recompute split), perfscope's per-device view. */
int ps_tracelens_compute(struct ps_report *r, struct ps_names *names);
/* summary.c: kernel and copy summaries, per-device totals. */
int ps_summary_compute(struct ps_report *r);
/* pytorch.c: the Python hook's loaders, workers and copies, and advice worded from them (r->py). */
int ps_pytorch_compute(struct ps_report *r, struct ps_names *names);
void ps_pytorch_free(struct ps_pytorch *py);   /* NULL is a no-op */
/* verdict.c: per-step and run verdicts, evidence, recommendations, findings. */
int ps_verdict_compute(struct ps_report *r, struct ps_names *names);

/* ranks.c: per-process step averages and stragglers when several processes hold step ranges. */
int ps_ranks_compute(struct ps_report *r, struct ps_names *names);

/* Find the device stat for `device`, adding it if new (report.c). NULL on out-of-memory. */
struct ps_device_stat *ps_report_device(struct ps_report *r, int32_t device);

#endif
