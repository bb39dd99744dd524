/* `perfscope record --recover TRACE` (see recover.h). */
#include "collector/recover.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/collect.h"
#include "collector/session.h"
#include "collector/trace_writer.h"
#include "ps_diag.h"

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
    char path[PATH_MAX + 16], named[PATH_MAX + 2] = "";
    snprintf(path, sizeof path, "%s/" PS_SESSION_TRACE_FILE, dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    if (!fgets(named, sizeof named, f))
        named[0] = '\0';
    fclose(f);
    named[strcspn(named, "\n")] = '\0';
    struct stat a, b;
    return named[0] && stat(named, &a) == 0 && stat(trace, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* TARGET_INFO_SESSION_START_TIME and ANALYSIS_DETAILS, which the dead recorder would have written at the end:
 * the session's start from its first rows, its end at the last row of the trace. */
static int write_session_rows(struct ps_tw *w, int64_t origin_ns, int64_t utc_ns)
{
    if (query_i64(w, "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME", 0) > 0)
        return 0;
    int64_t end = query_i64(w, "SELECT max(t) FROM (SELECT max(coalesce(\"end\", start)) AS t FROM NVTX_EVENTS"
                               " UNION ALL SELECT max(timestamp) FROM PERFSCOPE_PROCESS_SAMPLES)", 0);
    char utc[64] = "", local[64] = "";
    time_t sec = (time_t)(utc_ns / 1000000000);
    struct tm tm;
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&sec, &tm));
    strftime(local, sizeof local, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&sec, &tm));
    sqlite3_stmt *st = ps_tw_prepare(w, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(?, ?, ?, ?)");
    sqlite3_stmt *ad = ps_tw_prepare(w, "INSERT INTO ANALYSIS_DETAILS VALUES(?, ?, 0, ?)");
    if (!st || !ad)
        return -EIO;
    sqlite3_bind_int64(st, 1, utc_ns);
    sqlite3_bind_text(st, 2, utc, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, local, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, origin_ns);
    sqlite3_bind_int64(ad, 1, (int64_t)1 << 48);
    sqlite3_bind_int64(ad, 2, end);
    sqlite3_bind_int64(ad, 3, end);
    int rc = ps_tw_exec(w, st);
    return rc ? rc : ps_tw_exec(w, ad);
}

int ps_record_recover(const char *trace)
{
    char err[1024];
    struct ps_tw *w = NULL;
    int status = 1;
    /* The recorder holds an exclusive lock on its trace for the whole recording (ps_output_claim, output_file.h). */
    int fd = open(trace, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        ps_diag("perfscope record: --recover %s: %s", trace, strerror(errno));
        return 1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ps_diag("perfscope record: --recover %s: a perfscope record is still writing it (wait for it to "
                "end)", trace);
        close(fd);
        return 1;
    }
    if (ps_tw_reopen(trace, &w, err, sizeof err)) {
        ps_diag("%s", err);
        goto out;
    }
    char *complete = query_text(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recording_complete'");
    char *dir = query_text(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.session_dir'");
    int64_t origin = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.origin_monotonic_ns'", -1);
    int64_t utc = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'start_utc_epoch_ns'", 0);
    struct stat st;
    int dir_err = dir && stat(dir, &st) != 0 ? errno : 0;
    if (query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovered'", 0) == 1) {
        ps_diag("perfscope record: --recover %s: already recovered: nothing to do", trace);
        status = 0;
    } else if (!complete || strcmp(complete, "0") != 0) {
        ps_diag("perfscope record: --recover %s: %s", trace,
                !complete ? "not a trace written by perfscope record" : "its recording finished: nothing to recover");
        status = complete ? 0 : 1;
    } else if (!dir || origin < 0) {
        ps_diag("perfscope record: --recover %s: the trace does not say where its rings were (written by "
                "an older perfscope): nothing to recover", trace);
    } else if (dir_err || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
        ps_diag("perfscope record: --recover %s: its rings are gone (%s: %s): the records the recorder had "
                "not written when it died are lost", trace, dir,
                dir_err ? strerror(dir_err) : "not a session directory of yours");
    } else if (!session_names(dir, trace)) {
        ps_diag("perfscope record: --recover %s: %s holds another recording's rings: nothing recovered",
                trace, dir);
    } else {
        /* A recorder that died after writing its process rows (all rings drained) left only its run rows. */
        struct ps_rows_totals t = { 0 };
        int rows_done = query_i64(w, "SELECT value FROM PERFSCOPE_META WHERE name = 'recovery.rows_finished'", 0) == 1;
        int rc = rows_done ? 0 : ps_collect_resume(dir, origin, w, &t);
        if (rows_done)
            t.dropped = (uint64_t)query_i64(w, "SELECT sum(droppedRecords) FROM PERFSCOPE_PROCESS_INFO", 0);
        if (!rc && !(rc = ps_tw_begin(w)) && !(rc = write_session_rows(w, origin, utc)) &&
            !(rc = ps_tw_meta(w, "recovered", "1")) &&
            !(rc = ps_tw_meta_i64(w, "recovered_records", (int64_t)t.salvaged)) &&
            !(rc = ps_tw_meta_i64(w, "dropped_records", (int64_t)t.dropped)) &&
            (rows_done || !(rc = ps_tw_meta_i64(w, "corrupt_rings", (int64_t)t.corrupt_rings))) &&
            !(rc = ps_tw_meta_i64(w, "nvtx_events", query_i64(w, "SELECT count(*) FROM NVTX_EVENTS", 0))) &&
            !(rc = ps_collect_forget_recovery(w)) && !(rc = ps_tw_commit(w)))
            rc = ps_tw_finish(w);
        if (rc == -EBUSY)
            rc = 0;             /* complete, left in WAL mode by a reader: ps_tw_errmsg says so */
        if (rc) {
            ps_diag("%s", ps_tw_errmsg(w));
            ps_diag("perfscope record: --recover %s failed", trace);
        } else {
            ps_diag("perfscope record: recovered %" PRIu64 " records from the rings of the recorder that "
                    "died into %s; %" PRIu64 " records dropped", t.salvaged, trace, t.dropped);
            ps_session_dir_remove(dir);
            status = 0;
        }
    }
    free(complete);
    free(dir);
out:
    ps_tw_free(w);
    close(fd);
    return status;
}
