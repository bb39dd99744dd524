/* Private to the verdict family (causes.c): what a launched op that waited on another stream waited for
 * (stream_waits.c; docs/report.md "Where the step goes"). */
#ifndef PS_VERDICT_STREAM_WAITS_H
#define PS_VERDICT_STREAM_WAITS_H

#include <stddef.h>
#include <stdint.h>

struct ps_view;
struct ps_cause_stat;
struct ps_stream_waits;

/* The lookups for view v's GPU ops: its model's stream waits (model.h: Kineto cuda_sync, Nsight Systems
 * SYNCHRONIZATION + CUDA_EVENT) and its cudaStreamWaitEvent calls. release_ns: how soon after the op it waits for
 * ends a released op starts, at most (the fallback that reads the other streams' ops). *out gets NULL, with
 * nothing allocated, when the trace holds neither (every lookup then finds nothing). 0 or -ENOMEM. */
int ps_stream_waits_new(const struct ps_view *v, int64_t release_ns, struct ps_stream_waits **out);
void ps_stream_waits_free(struct ps_stream_waits *sw);   /* NULL: no-op */

/* The view index of the GPU op that view op i (launched, its launch call ending at launch_end_ns) waited for, and
 * in *until_ns when the wait on it ended (release_ns after that op's end, at most op i's start: the wait while it
 * ran is hidden behind its run, the release after it is the wait's own); PS_NONE when the trace does not
 * say, or what it names had ended before the launch returned or is not in the view. Call in view order (op i of
 * each stream after the ones before it: an op queued behind a waiting op of its stream waits for the same op).
 * sw NULL: PS_NONE. */
uint32_t ps_stream_waits_on(struct ps_stream_waits *sw, size_t i, int64_t launch_end_ns, int64_t *until_ns);

/* Add ns of waiting to view op `waited` (a ps_stream_waits_on answer). 0 or -ENOMEM. */
int ps_stream_waits_credit(struct ps_stream_waits *sw, uint32_t waited, int64_t ns);

/* st->waits_on: the largest credits by (stream, op name), per average of `steps` steps (rounded as the causes
 * are). sw NULL: none. */
void ps_stream_waits_top(const struct ps_stream_waits *sw, int64_t steps, struct ps_cause_stat *st);

#endif
