/* Setups the advice must recognise (graphs.c, backlog.c): CUDA / HIP graph replays, and GPU work the trace does not
 * hold. Private to analyzer/analyses/. */
#ifndef PS_GRAPHS_H
#define PS_GRAPHS_H

#include "analyses.h"
#include "intervals.h"

struct ps_windows;

/* graphs.c: 1 when GPU op `op` of view v was launched by a graph launch call (names.h PS_NAME_GRAPH_LAUNCH). */
int ps_graph_launched(const struct ps_view *v, struct ps_names *names, const struct ps_gpu_op *op);
/* graphs.c: r->graphs over the rows of v (the rows analysed). Returns 0. */
int ps_graphs_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);

/* backlog.c: the times at which the GPU ran work the trace does not hold (struct ps_backlog_stat, report.h), over the
 * rows of v: per device, the waits of launched GPU ops (from the later of the launch call's end and the end of the
 * stream's previous op, to the op's start; from r->run_start_ns for the device's first op) of at least
 * r->opts.gap_ns, less the device's recorded activity; the union over devices. Fills r->backlog but its ns (the
 * breakdown's). 0 or -ENOMEM. */
int ps_backlog_find(struct ps_report *r, const struct ps_view *v);
/* Length of [s, e) inside r->backlog's spans. */
int64_t ps_backlog_within(const struct ps_report *r, int64_t s, int64_t e);
/* A cursor that splits the breakdown's pieces (given with non-decreasing s) by r->backlog's spans: [s, e)'s parts
 * inside them go to `in`, the rest to `out` (either may be NULL). */
struct ps_backlog_cursor {
    const struct ps_backlog_span *v;
    size_t n, at;
};
void ps_backlog_split(struct ps_backlog_cursor *b, int64_t s, int64_t e, struct ps_windows *in,
                      struct ps_windows *out);

/* warmup.c: leave the first opts.skip_steps steps out (before the breakdown; r->warmup.skipped, skip_ignored), and
 * whether the first analysed step is an outlier (after it). ps_warmup_compute returns 0 or -ENOMEM. */
void ps_warmup_skip(struct ps_report *r);
int ps_warmup_compute(struct ps_report *r);

#endif
