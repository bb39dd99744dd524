/* `perfscope record --recover TRACE`: finish the trace of a recorder that died (kill -9, OOM killer, a
 * crash), adding the records it left in its probes' rings (docs/record.md, "When the recorder dies"). */
#ifndef PS_RECOVER_H
#define PS_RECOVER_H

/* The session-directory file that names the trace being written (absolute path, one line), so that the
 * next recorder can say which trace a dead recorder's rings belong to. */
#define PS_SESSION_TRACE_FILE "trace"

/* Recover `trace`: check that no recorder holds it and that its recording did not finish, go on draining the
 * rings left in its session directory into it (ps_collect_resume), write the run rows (PERFSCOPE_META
 * recovered = 1, recovered_records, dropped counts), finish the file and remove the session directory.
 * Messages through ps_diag (stderr unless a hook is set). Returns the exit status: 0 recovered, 1 failure (the
 * trace is left as it was). */
int ps_record_recover(const char *trace);

#endif
