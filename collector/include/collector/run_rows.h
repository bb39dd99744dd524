/* The trace-wide rows of a recording session (docs/trace-format.md), written by `perfscope record` and by
 * `perfscope record --recover` through the same functions: META_DATA_EXPORT and the first PERFSCOPE_META rows
 * when the trace is created, TARGET_INFO_SESSION_START_TIME and ANALYSIS_DETAILS (when the session started and
 * how long it ran), and the run's PERFSCOPE_META rows at the end. Call inside a transaction of the writer unless
 * a function says otherwise. */
#ifndef PS_COLLECTOR_RUN_ROWS_H
#define PS_COLLECTOR_RUN_ROWS_H

#include <stdint.h>

#include "collector/rows.h"
#include "collector/trace_writer.h"

/* What the trace says from the moment it is created: where the rings are for `record --recover`, the clocks of
 * time 0, and the settings a live reader (`perfscope top`) needs. */
struct ps_run_start {
    const char *session_dir;        /* the recording session's directory (collector/session.h) */
    int64_t origin_ns;              /* CLOCK_MONOTONIC ns of time 0 */
    int64_t utc_ns;                 /* CLOCK_REALTIME ns of time 0 */
    const char *gpu_samples;        /* "nvml", or "none: " and why */
    const char *python_hooks;       /* the Python hook mode applied: off, default, modules */
    double python_stack_hz;         /* the hook's Python stack samples per second (0: none, or no hook) */
};

/* In one transaction of its own: PERFSCOPE_META recording_complete = 0 (until ps_run_rows_end replaces it),
 * META_DATA_EXPORT, and the PERFSCOPE_META rows of *s (recovery.session_dir, recovery.origin_monotonic_ns,
 * start_utc_epoch_ns, origin_monotonic_ns, gpu_samples, python_hooks, python_stack_hz, recorder_pid). 0, or -EIO /
 * -ENOMEM (message: ps_tw_errmsg). */
int ps_run_rows_start(struct ps_tw *w, const struct ps_run_start *s);

/* TARGET_INFO_SESSION_START_TIME (utcTime and localTime in ISO 8601 with milliseconds: "Z" and the UTC
 * offset) and ANALYSIS_DETAILS (globalVid, duration = stopTime = `duration_ns`, startTime 0), unless the trace
 * already holds a session row (a recorder that died after writing them). 0 or -EIO (message: ps_tw_errmsg). */
int ps_run_rows_session(struct ps_tw *w, int64_t origin_ns, int64_t utc_ns, int64_t duration_ns);

/* How the recording ended, for the run's PERFSCOPE_META rows. */
struct ps_run_end {
    char *const *argv;              /* CMD and its arguments (command_line: joined by spaces, valid UTF-8) */
    int64_t origin_ns, utc_ns;      /* as in struct ps_run_start */
    int64_t end_ns;                 /* CLOCK_MONOTONIC ns when CMD exited */
    double sample_hz;
    int64_t ring_bytes;             /* the ring size per process the probe was given */
    const char *probe_path;         /* "" when there was no probe */
    const char *python_hooks;
    int64_t child_pid;
    int wstatus;                    /* CMD's wait status */
    unsigned probe_failures;        /* processes whose probe could not record */
};

/* The session rows (ps_run_rows_session) and the run's PERFSCOPE_META rows: versions, command line, host,
 * start, duration, settings, CMD's exit, the totals *t of the rows, the recorder's CPU time, the rank (what the
 * probe saw, else RANK / OMPI_COMM_WORLD_RANK / SLURM_PROCID of the recorder) and recording_complete = 1.
 * 0, -ENOMEM or -EIO (message: ps_tw_errmsg). */
int ps_run_rows_end(struct ps_tw *w, const struct ps_run_end *e, const struct ps_rows_totals *t);

#endif
