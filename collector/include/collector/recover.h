/* `perfscope record --recover TRACE`: finish the trace of a recorder that died (kill -9, OOM killer, a
 * crash), adding the records it left in its probes' rings (docs/record.md, "When the recorder dies"). */
#ifndef PS_RECOVER_H
#define PS_RECOVER_H

#include <stddef.h>
#include <stdint.h>

/* What a recovery did. */
struct ps_recovery {
    const char *nothing_to_do;      /* NULL: recovered; else why nothing was done ("already recovered: ...") */
    uint64_t salvaged;              /* records recovered from the rings */
    uint64_t dropped;               /* records the recording dropped, in all */
    uint64_t invalid;               /* records no probe wrote that its rings held, left out (invalid_records) */
};

/* Recover `trace`: check that no recorder holds it and that its recording did not finish, go on draining the
 * rings left in its session directory into it (ps_collect_resume, whose warnings go through ps_diag), write the
 * session rows (ps_run_rows_session) and the recovery's PERFSCOPE_META rows (recovered = 1, recovered_records,
 * dropped counts), finish the file and remove the session directory. Returns 0 with *out (also when there was
 * nothing to do), or -errno with one line in err (-ENOENT: no such trace or its rings are gone; -EISDIR, -EINVAL:
 * a directory, or a FIFO, device or socket, refused before any read (ps_file_open_regular); -EBUSY: a
 * recorder holds it; -EINVAL: not a trace that can be recovered; -EIO: reading or writing it failed); the
 * trace is then left as it was. */
int ps_record_recover(const char *trace, struct ps_recovery *out, char *err, size_t errlen);

#endif
