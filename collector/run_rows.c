/* The trace-wide rows of a recording session (run_rows.h). */
#include "collector/run_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/session.h"
#include "ps_globalid.h"
#include "ps_schema.h"
#include "ps_utf8.h"
#include "ps_version.h"

/* ISO 8601 with milliseconds: UTC ("2024-05-01T12:00:00.123Z") or local time with its offset
 * ("2024-05-01T14:00:00.123+0200"), as docs/trace-format.md gives TARGET_INFO_SESSION_START_TIME's columns. */
static void format_time(int64_t utc_ns, int local, char *buf, size_t len)
{
    time_t sec = (time_t)(utc_ns / 1000000000);
    struct tm tm;
    if (local)
        localtime_r(&sec, &tm);
    else
        gmtime_r(&sec, &tm);
    char base[32], zone[8];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    strftime(zone, sizeof zone, local ? "%z" : "Z", &tm);
    snprintf(buf, len, "%.20s.%03d%.6s", base, (int)(utc_ns / 1000000 % 1000), zone);
}

/* META_DATA_EXPORT: the rows of nsys's table (as in shared/traces/nsys/h100_2gpu_1s.sqlite) that say which
 * tool and schema wrote the file: the product is perfscope (never NVIDIA's name); the schema version is the
 * nsys export schema whose tables and columns this trace follows. */
static int write_export_rows(struct ps_tw *w, int64_t utc_ns)
{
    char host[256] = "", utc[32], local[64];
    gethostname(host, sizeof host - 1);
    time_t sec = (time_t)(utc_ns / 1000000000);
    struct tm tm;
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%S", gmtime_r(&sec, &tm));
    strftime(local, sizeof local, "%Y-%m-%dT%H:%M:%S %z %Z", localtime_r(&sec, &tm));
    const char *const rows[][2] = {
        { "EXPORT_PRODUCT_NAME", "perfscope" },
        { "EXPORT_PRODUCT_VERSION", ps_version() },
        { "EXPORT_SCHEMA_VERSION", "3.25.0" },
        { "EXPORT_SCHEMA_VERSION_MAJOR", "3" },
        { "EXPORT_SCHEMA_VERSION_MINOR", "25" },
        { "EXPORT_SCHEMA_VERSION_MICRO", "0" },
#if defined(__x86_64__)
        { "EXPORT_ARCH", "x64" },
#elif defined(__aarch64__)
        { "EXPORT_ARCH", "arm64" },
#endif
        { "EXPORT_TIME_UTC", utc },
        { "EXPORT_TIME_LOCAL", local },
        { "EXPORT_HOST", host },
    };
    sqlite3_stmt *st = ps_tw_prepare(w, "INSERT INTO META_DATA_EXPORT(name, value) VALUES(?, ?)");
    if (!st)
        return -EIO;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
        ps_tw_bind_text(st, 2, rows[i][1]);
        int rc = ps_tw_exec(w, st);
        if (rc)
            return rc;
    }
    return 0;
}

int ps_run_rows_start(struct ps_tw *w, const struct ps_run_start *s)
{
    int rc;
    if ((rc = ps_tw_begin(w)) || (rc = ps_tw_meta(w, "recording_complete", "0")) ||
        (rc = write_export_rows(w, s->utc_ns)) || (rc = ps_tw_meta(w, "recovery.session_dir", s->session_dir)) ||
        (rc = ps_tw_meta_i64(w, "recovery.origin_monotonic_ns", s->origin_ns)) ||
        (rc = ps_tw_meta_i64(w, "start_utc_epoch_ns", s->utc_ns)) ||
        (rc = ps_tw_meta(w, "gpu_samples", s->gpu_samples)) ||
        (rc = ps_tw_meta_i64(w, "origin_monotonic_ns", s->origin_ns)) ||
        (rc = ps_tw_meta_i64(w, "recorder_pid", getpid())) ||
        (rc = ps_tw_meta(w, "python_hooks", s->python_hooks)))
        return rc;
    char hz[32];
    snprintf(hz, sizeof hz, "%.6g", strcmp(s->python_hooks, "off") ? s->python_stack_hz : 0.0);
    if ((rc = ps_tw_meta(w, "python_stack_hz", hz)))
        return rc;
    return ps_tw_commit(w);
}

int ps_run_rows_session(struct ps_tw *w, int64_t origin_ns, int64_t utc_ns, int64_t duration_ns)
{
    sqlite3_stmt *have = ps_tw_prepare(w, "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME");
    sqlite3_stmt *st = ps_tw_prepare(w, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(?, ?, ?, ?)");
    sqlite3_stmt *ad = ps_tw_prepare(w, "INSERT INTO ANALYSIS_DETAILS VALUES(?, ?, 0, ?)");
    if (!have || !st || !ad)
        return -EIO;
    int rows = sqlite3_step(have) == SQLITE_ROW ? sqlite3_column_int(have, 0) : -1;
    sqlite3_reset(have);
    if (rows < 0)
        return -EIO;
    if (rows > 0)
        return 0;
    char utc[64], local[64];
    format_time(utc_ns, 0, utc, sizeof utc);
    format_time(utc_ns, 1, local, sizeof local);
    sqlite3_bind_int64(st, 1, utc_ns);
    sqlite3_bind_text(st, 2, utc, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, local, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, origin_ns);
    sqlite3_bind_int64(ad, 1, PS_GLOBAL_VID);
    sqlite3_bind_int64(ad, 2, duration_ns);
    sqlite3_bind_int64(ad, 3, duration_ns);
    int rc = ps_tw_exec(w, st);
    return rc ? rc : ps_tw_exec(w, ad);
}

/* CMD's words joined by spaces, invalid UTF-8 replaced (U+FFFD). malloc'd; NULL: no memory. */
static char *join_args(char *const *argv)
{
    size_t len = 1;
    for (char *const *a = argv; *a; a++)
        len += strlen(*a) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            strcat(s, " ");
        strcat(s, *a);
    }
    if (ps_utf8_valid(s, strlen(s)))
        return s;
    char *fixed = ps_utf8_dup(s, strlen(s));   /* file names in argv are bytes on Linux */
    free(s);
    return fixed;
}

/* CPU time this process (the recorder: drain, writer and sampler threads) used so far, ns; -1 unknown. */
static int64_t recorder_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* The rows naming the command and how it was recorded. */
static int write_settings(struct ps_tw *w, const struct ps_run_end *e, const char *cmdline)
{
    char host[256] = "", utc[64], hz[32];
    gethostname(host, sizeof host - 1);
    format_time(e->utc_ns, 0, utc, sizeof utc);
    snprintf(hz, sizeof hz, "%.6g", e->sample_hz);
    int exit_code = WIFEXITED(e->wstatus) ? WEXITSTATUS(e->wstatus) : -1;
    int sig = WIFSIGNALED(e->wstatus) ? WTERMSIG(e->wstatus) : 0;
    int rc;
    if ((rc = ps_tw_meta(w, "schema_version", PS_SCHEMA_VERSION)) ||
        (rc = ps_tw_meta(w, "perfscope_version", ps_version())) ||
        (rc = ps_tw_meta(w, "command_line", cmdline)) ||
        (rc = ps_tw_meta(w, "host", host)) ||
        (rc = ps_tw_meta(w, "start_time_utc", utc)) ||
        (rc = ps_tw_meta_i64(w, "start_utc_epoch_ns", e->utc_ns)) ||
        (rc = ps_tw_meta_i64(w, "duration_ns", e->end_ns - e->origin_ns)) ||
        (rc = ps_tw_meta(w, "sample_hz", hz)) ||
        (rc = ps_tw_meta_i64(w, "ring_bytes", e->ring_bytes)) ||
        (rc = ps_tw_meta(w, "probe_path", e->probe_path)) ||
        (rc = ps_tw_meta(w, "python_hooks", e->python_hooks)) ||
        (rc = ps_tw_meta_i64(w, "recorder_pid", getpid())) ||
        (rc = ps_tw_meta_i64(w, "child_pid", e->child_pid)) ||
        (rc = ps_tw_meta_i64(w, "child_exit_code", exit_code)) ||
        (rc = ps_tw_meta_i64(w, "child_signal", sig)))
        return rc;
    return 0;
}

/* The rows counting what was recorded, and the rank. */
static int write_totals(struct ps_tw *w, const struct ps_run_end *e, const struct ps_rows_totals *t)
{
    int rc;
    if ((rc = ps_tw_meta_i64(w, "processes", (int64_t)t->processes)) ||
        (rc = ps_tw_meta_i64(w, "probed_processes", (int64_t)t->probed_processes)) ||
        (rc = ps_tw_meta_i64(w, "probe_failures", e->probe_failures)) ||
        (rc = ps_tw_meta_i64(w, "rings", (int64_t)t->rings)) ||
        (rc = ps_tw_meta_i64(w, "nvtx_events", (int64_t)t->nvtx_rows)) ||
        (rc = ps_tw_meta_i64(w, "dropped_records", (int64_t)t->dropped)) ||
        (rc = ps_tw_meta_i64(w, "unbalanced_nvtx", (int64_t)t->unbalanced)) ||
        (rc = ps_tw_meta_i64(w, "unterminated_nvtx", (int64_t)t->unterminated)) ||
        (rc = ps_tw_meta_i64(w, "unknown_records", (int64_t)t->unknown)) ||
        (rc = ps_tw_meta_i64(w, "unresolved_strings", (int64_t)t->unresolved_strings)) ||
        (rc = ps_tw_meta_i64(w, "cuda_injected_processes", (int64_t)t->cuda_injected_processes)) ||
        (rc = ps_tw_meta_i64(w, "recorder_cpu_ns", recorder_cpu_ns())))
        return rc;
    /* Rank: what the probe saw in the ranks' environment, else the recorder's own. */
    const char *rank_env = ps_session_rank_env();
    if (t->rank >= 0) {
        if ((rc = ps_tw_meta_i64(w, "rank", t->rank)) ||
            (t->local_rank >= 0 && (rc = ps_tw_meta_i64(w, "local_rank", t->local_rank))) ||
            (t->world_size >= 0 && (rc = ps_tw_meta_i64(w, "world_size", t->world_size))))
            return rc;
    } else if (rank_env && (rc = ps_tw_meta(w, "rank", rank_env))) {
        return rc;
    }
    return 0;
}

int ps_run_rows_end(struct ps_tw *w, const struct ps_run_end *e, const struct ps_rows_totals *t)
{
    char *cmdline = join_args(e->argv);
    if (!cmdline)
        return -ENOMEM;
    int rc;
    if (!(rc = ps_run_rows_session(w, e->origin_ns, e->utc_ns, e->end_ns - e->origin_ns)) &&
        !(rc = write_settings(w, e, cmdline)) && !(rc = write_totals(w, e, t)))
        rc = ps_tw_meta(w, "recording_complete", "1");
    free(cmdline);
    return rc;
}
