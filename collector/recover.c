/* `perfscope record --recover TRACE` (see recover.h). */
#include "collector/recover.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/collect.h"
#include "collector/session.h"
#include "collector/run_rows.h"
#include "collector/trace_writer.h"
#include "ps_file.h"

/* One text value of the trace (malloc'd), or NULL. */
static char *query_text(struct ps_tw *w, const char *sql)
{
    sqlite3_stmt *st = NULL;
    char *v = NULL;
    if (sqlite3_prepare_v2(ps_tw_db(w), sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

static int64_t query_i64(struct ps_tw *w, const char *sql, int64_t dflt)
{
    char *v = query_text(w, sql);
    int64_t n = dflt;
    if (v) {
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (!errno && end != v && !*end)
            n = x;
    }
    free(v);
    return n;
}

/* 1 when the session directory's PS_SESSION_TRACE_FILE names `trace` (the same file), else 0. */
static int session_names(const char *dir, const char *trace)
{
    char named[PATH_MAX + 2];
    struct stat a, b;
    return ps_session_read_trace_name(dir, named, sizeof named) == 0 && stat(named, &a) == 0 &&
           stat(trace, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The end of the session a dead recorder did not write: its last row. */
static int64_t last_row_ns(struct ps_tw *w)
{
    return query_i64(w, "SELECT max(t) FROM (SELECT max(coalesce(\"end\", start)) AS t FROM NVTX_EVENTS"
                        " UNION ALL SELECT max(timestamp) FROM PERFSCOPE_PROCESS_SAMPLES)", 0);
}

/* Drain the rings a dead recorder left in `dir` into its trace and write what it would have written at the end
 * (the session rows, the recovery's PERFSCOPE_META rows), then finish the file. 0 or -errno (message in err). */
static int resume(struct ps_tw *w, const char *trace, const char *dir, int64_t origin, int64_t utc,
                  struct ps_recovery *out, char *err, size_t errlen)
{
    /* A recorder that died after writing its process rows (all rings drained) left only its run rows. */
    struct ps_rows_totals t = { 0 };
    int rows_done = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.rows_finished'", 0) == 1;
    int rc = rows_done ? 0 : ps_collect_resume(dir, origin, w, &t);
    if (rc) {
        snprintf(err, errlen, "%s: failed (the trace is left as it was)", trace);   /* why: through ps_diag */
        return rc;
    }
    if (rows_done) {
        t.dropped = (uint64_t)query_i64(w, "SELECT sum(droppedRecords) FROM PERFSCOPE_PROCESS_INFO", 0);
        t.invalid = (uint64_t)query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'invalid_records'", 0);
    }
    if (!(rc = ps_tw_begin(w)) && !(rc = ps_run_rows_session(w, origin, utc, last_row_ns(w))) &&
        !(rc = ps_tw_meta(w, "recovered", "1")) &&
        !(rc = ps_tw_meta_i64(w, "recovered_records", (int64_t)t.salvaged)) &&
        !(rc = ps_tw_meta_i64(w, "dropped_records", (int64_t)t.dropped)) &&
        (rows_done || !(rc = ps_tw_meta_i64(w, "corrupt_rings", (int64_t)t.corrupt_rings))) &&
        !(rc = ps_tw_meta_i64(w, "nvtx_events", query_i64(w, "SELECT count(*) FROM NVTX_EVENTS", 0))) &&
        !(rc = ps_collect_forget_recovery(w)) && !(rc = ps_tw_commit(w)))
        rc = ps_tw_finish(w);
    if (rc == -EBUSY)
        rc = 0;             /* complete, left in WAL mode by a reader: readable from a writable directory */
    if (rc) {
        if (rc == -EIO)
            snprintf(err, errlen, "%s", ps_tw_errmsg(w));
        else
            snprintf(err, errlen, "%s: %s", trace, strerror(-rc));
        return rc;
    }
    out->salvaged = t.salvaged;
    out->dropped = t.dropped;
    out->invalid = t.invalid;
    return 0;
}

int ps_record_recover(const char *trace, struct ps_recovery *out, char *err, size_t errlen)
{
    struct ps_tw *w = NULL;
    *out = (struct ps_recovery){ 0 };
    if (!err)
        errlen = 0;
    /* The recorder holds an exclusive lock on its trace for the whole recording (ps_output_claim, output_file.h). */
    int fd = ps_file_open_regular(trace, O_RDONLY | O_NOFOLLOW, "a trace file", err, errlen);
    if (fd < 0)
        return fd;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen, "%s: a perfscope record is still writing it (wait for it to end)", trace);
        close(fd);
        return -EBUSY;
    }
    int rc = ps_tw_reopen(trace, &w, err, errlen);
    if (rc) {
        close(fd);
        return rc;
    }
    char *complete = query_text(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recording_complete'");
    char *dir = query_text(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.session_dir'");
    int64_t origin = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.origin_monotonic_ns'", -1);
    int64_t utc = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'start_utc_epoch_ns'", 0);
    struct stat st;
    int dir_err = dir && stat(dir, &st) != 0 ? errno : 0;
    rc = -EINVAL;
    if (query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovered'", 0) == 1) {
        out->nothing_to_do = "already recovered: nothing to do";
        rc = 0;
    } else if (complete && strcmp(complete, "0") != 0) {
        out->nothing_to_do = "its recording finished: nothing to recover";
        rc = 0;
    } else if (!complete) {
        snprintf(err, errlen, "%s: not a trace written by perfscope record", trace);
    } else if (!dir || origin < 0) {
        snprintf(err, errlen, "%s: the trace does not say where its rings were (written by an older "
                              "perfscope): nothing to recover", trace);
    } else if (dir_err || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
        snprintf(err, errlen, "%s: its rings are gone (%s: %s): the records the recorder had not written when it "
                              "died are lost", trace, dir, dir_err ? strerror(dir_err) : "not a session directory of yours");
        rc = -ENOENT;
    } else if (!session_names(dir, trace)) {
        snprintf(err, errlen, "%s: %s holds another recording's rings: nothing recovered", trace, dir);
    } else if (!(rc = resume(w, trace, dir, origin, utc, out, err, errlen))) {
        ps_session_dir_remove(dir);
    }
    free(complete);
    free(dir);
    ps_tw_free(w);
    close(fd);
    return rc;
}
