/* The recording pipeline of `perfscope record`: a drain thread that finds the probes' ring files in the
 * recording-session directory and copies their records into memory, and a writer thread that turns them
 * (and the host samples posted by the sampler) into trace rows in big transactions. */
#ifndef PS_COLLECT_H
#define PS_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "ps_nvml.h"
#include "collector/rows.h"
#include "collector/trace_writer.h"

struct ps_collect;

/* Start both threads. `session_dir`: where rings appear (PS_RING_FILE_FMT); `origin_ns`: CLOCK_MONOTONIC ns
 * of the session start. `w` is used only by the writer thread until ps_collect_stop returns.
 * Returns 0 and *out, or -errno (the message went through ps_diag). */
int ps_collect_start(const char *session_dir, int64_t origin_ns, struct ps_tw *w, struct ps_collect **out);

/* Queue one sampler tick's rows for the writer (copied). 0 or -ENOMEM. Thread-safe with the two threads. */
int ps_collect_post_samples(struct ps_collect *c, const struct ps_proc_sample *ps, size_t np,
                            const struct ps_thread_sample *ts, size_t nt);

/* Queue `n` GPU samples (one per device, common/ps_nvml.h) for the writer (copied): PERFSCOPE_GPU_SAMPLES.
 * 0 or -ENOMEM. Thread-safe with the two threads. */
int ps_collect_post_gpu_samples(struct ps_collect *c, const struct ps_gpu_sample *s, size_t n);

/* Drain every ring one last time (including rings that appeared since the last scan), record their dropped
 * counts, write the queued rows and the per-process rows (ps_rows_finish, *t filled), join the threads and
 * free everything. Returns 0, or -errno when the trace could not be written completely. The writer thread says
 * why through ps_diag when a write fails (there is no caller to hand it to then), so no message comes back. */
int ps_collect_stop(struct ps_collect *c, struct ps_rows_totals *t);

/* `perfscope record --recover`: go on with the rings a dead recorder left in `session_dir`, writing into its
 * trace `w` (ps_tw_reopen): the rings in the order it found them, its kept state and each lane from the place
 * its stored rows end (PERFSCOPE_RECOVERY_* tables), then every ring found since; drains them, writes the
 * open ranges, drop counts and per-process rows (as ps_collect_stop; t->salvaged: records recovered).
 * `origin_ns`: the dead recorder's session start. 0, or -errno (the message went through ps_diag, as for
 * ps_collect_stop). */
int ps_collect_resume(const char *session_dir, int64_t origin_ns, struct ps_tw *w, struct ps_rows_totals *t);

/* Inside the transaction that marks the trace complete (or recovered): drop what made it recoverable (the
 * PERFSCOPE_RECOVERY_* tables, the progress.* and recovery.* PERFSCOPE_META rows). 0 or -EIO. */
int ps_collect_forget_recovery(struct ps_tw *w);

#endif
