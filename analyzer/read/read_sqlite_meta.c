/* SQLite trace reader, part 2: opening the file (WAL-mode traces without writing beside them), and the tables
 * around the activity rows — PERFSCOPE_META, PROCESSES, ThreadNames, TARGET_INFO_GPU / TARGET_INFO_CUDA_DEVICE
 * and perfscope's host samples. All optional but PERFSCOPE_META on perfscope traces; read_sqlite.c holds the
 * activity tables and the shared helpers (read_sqlite_impl.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ps_globalid.h"
#include "read/read_sqlite_impl.h"

/* 1 when the file's header says WAL mode (bytes 18 and 19, the file format write/read versions, are 2;
 * SQLite's fileformat2.html §1.3), 0 when not or unreadable (the open then says what is wrong). */
static int is_wal_file(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), wal = 0;
    if (fd >= 0 && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h)
        wal = h[18] == 2 || h[19] == 2;
    if (fd >= 0)
        close(fd);
    return wal;
}

/* `file:` URI of path with every byte but unreserved ones and '/' percent-encoded (SQLite's uri.html:
 * '?', '#' and '%' must be), and `?immutable=1`. NULL when out of memory; sqlite3_free it. */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = sqlite3_malloc64(n * 3 + 32), *o = u;
    if (!u)
        return NULL;
    o += sprintf(o, "file:%s", path[0] == '/' ? "//" : "");   /* absolute: an empty authority, file:///a/b */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    strcpy(o, "?immutable=1");
    return u;
}

/* 1 when PERFSCOPE_META says recording_complete = 1, else 0 (also on any error: the caller falls back). */
static int recording_complete(struct sctx *c)
{
    sqlite3_stmt *st = NULL;
    char sql[300];
    int done = 0;
    if (ps_sq_table_exists(c, "PERFSCOPE_META") != 1 || ps_sq_load_cols(c, "PERFSCOPE_META") < 0 || c->ncols < 2)
        return 0;
    snprintf(sql, sizeof sql, "SELECT \"%s\" FROM PERFSCOPE_META WHERE \"%s\" = 'recording_complete'",
             c->cols[1], c->cols[0]);
    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        done = strcmp(ps_sq_col_text(st, 0), "1") == 0;
    sqlite3_finalize(st);
    return done;
}

/* Open the trace read-only. A WAL-mode file (a trace being recorded, or one written before record left WAL
 * mode at its end) needs its -shm file to be read, which SQLite creates beside it: impossible in a directory
 * the reader cannot write, and elsewhere it leaves -wal/-shm files next to the trace. So a WAL-mode trace
 * with no -wal file (no connection has it open, everything is in the main file) whose recording is complete
 * is opened immutable: nothing is written or locked. Any other WAL-mode file is opened normally (a live
 * recording is read while it grows); when that fails, the message names the cause. 0 or -1. */
int ps_sq_open(struct sctx *c)
{
    char side[PATH_MAX + 8];
    int wal = is_wal_file(c->path);
    snprintf(side, sizeof side, "%s-wal", c->path);
    if (wal && access(side, F_OK) != 0 && errno == ENOENT) {
        char *uri = immutable_uri(c->path);
        if (!uri)
            return ps_sq_oom(c);
        int ok = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                 NULL) == SQLITE_OK && recording_complete(c);
        sqlite3_free(uri);
        if (ok)
            return 0;
        sqlite3_close(c->db);
        c->db = NULL;
    }
    if (sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return ps_read_fail(c->err, c->errlen, "%s: cannot open as SQLite: %s", c->path,
                            c->db ? sqlite3_errmsg(c->db) : "out of memory");
    sqlite3_busy_timeout(c->db, 2000);   /* a recorder may hold a write lock for a moment */
    if (!wal || sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = '\0';     /* "/t.sqlite" -> "/" */
    else
        snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) == 0)
        return ps_read_fail(c->err, c->errlen, "%s: cannot read this WAL-mode SQLite file: %s", c->path,
                            sqlite3_errmsg(c->db));
    return ps_read_fail(c->err, c->errlen, "%s: cannot read it here: a WAL-mode trace needs a -shm file beside "
                        "it, and this user cannot create one in %s (%s). It is still being recorded, or a copy of a "
                        "live or killed recording: let the recording finish, or copy it (with its -wal file, if "
                        "any) to a writable directory", c->path, dir, sqlite3_errmsg(c->db));
}

/* Run sql over `table`, calling row(c, st) for each row. Columns whose bit is set in text_cols hold text;
 * every other column but the last (the rowid) must hold an integer or NULL: anything else is an error naming
 * the table, column and rowid, never read as 0. */
static int for_rows(struct sctx *c, const char *table, const char *sql, unsigned text_cols,
                    int (*row)(struct sctx *, sqlite3_stmt *))
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (ps_sq_prepare(c, table, sql, &st) < 0)
        return -1;
    long long n = 0;
    int ncols = sqlite3_column_count(st) - 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        for (int i = 0; i < ncols; i++) {
            int t = sqlite3_column_type(st, i);
            if (t != SQLITE_INTEGER && t != SQLITE_NULL && !(text_cols >> i & 1u)) {
                ps_sq_type_error(c, st, table, i, t, "an integer");
                sqlite3_finalize(st);
                return -1;
            }
        }
        if (row(c, st) < 0) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    if (rc != SQLITE_DONE) {
        ps_sq_step_error(c, table, n + 1);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

static int process_row(struct sctx *c, sqlite3_stmt *st)
{
    uint32_t pid = (uint32_t)sqlite3_column_int64(st, 0);
    uint32_t i = PS_NONE;
    if (c->m->format == PS_FORMAT_PERFSCOPE) {
        i = ps_model_process(c->m, pid);      /* perfscope: every recorded process */
    } else {
        for (size_t p = 0; p < c->m->procs.n; p++)   /* nsys: PROCESSES lists the whole system; name ours */
            if (c->m->procs.v[p].pid == pid)
                i = (uint32_t)p;
        if (i == PS_NONE)
            return 0;
    }
    if (i == PS_NONE)
        return ps_sq_oom(c);
    if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
        (c->m->procs.v[i].name = ps_sq_intern_col(c, st, 1)) == PS_NONE)
        return ps_sq_oom(c);
    return 0;
}

static int thread_name_row(struct sctx *c, sqlite3_stmt *st)
{
    int64_t gtid = sqlite3_column_int64(st, 1);
    uint32_t t = ps_idmap_get(&c->threads, (uint64_t)gtid), name;
    int failed = 0;
    if (t == PS_NONE && c->m->format != PS_FORMAT_PERFSCOPE)
        return 0;                              /* nsys: name only the threads that have events */
    if (t == PS_NONE && (t = ps_sq_thread_of(c, gtid)) == PS_NONE)
        return ps_sq_oom(c);
    name = ps_sq_string_of(c, sqlite3_column_int64(st, 0), "ThreadNames", "nameId", &failed);
    if (failed)
        return -1;
    if (name == PS_NONE)
        return ps_sq_oom(c);
    c->m->threads.v[t].name = name;
    return 0;
}

static int gpu_row(struct sctx *c, sqlite3_stmt *st)
{
    uint32_t i = ps_model_device(c->m, (int32_t)sqlite3_column_int64(st, 0));
    if (i == PS_NONE)
        return ps_sq_oom(c);
    struct ps_device *d = &c->m->devices.v[i];
    if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
        (d->name = ps_sq_intern_col(c, st, 1)) == PS_NONE)
        return ps_sq_oom(c);
    if (sqlite3_column_type(st, 2) != SQLITE_NULL)
        d->total_mem_bytes = sqlite3_column_int64(st, 2);
    if (sqlite3_column_type(st, 3) != SQLITE_NULL)
        d->sm_count = sqlite3_column_int(st, 3);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL)
        d->cc_major = sqlite3_column_int(st, 4);
    if (sqlite3_column_type(st, 5) != SQLITE_NULL)
        d->cc_minor = sqlite3_column_int(st, 5);
    return 0;
}

static int cuda_device_row(struct sctx *c, sqlite3_stmt *st)
{
    uint32_t i = ps_model_device(c->m, (int32_t)sqlite3_column_int64(st, 0));
    if (i == PS_NONE)
        return ps_sq_oom(c);
    if (c->m->devices.v[i].sm_count < 0 && sqlite3_column_type(st, 1) != SQLITE_NULL)
        c->m->devices.v[i].sm_count = sqlite3_column_int(st, 1);
    return 0;
}

/* A PERFSCOPE_META count: the whole value a decimal integer from 0 to max (the writer stores them as text,
 * ps_tw_meta_i64). 0 with *out set, or -1 for anything else ("abc", "-5", "1e3", 2^64): the caller then leaves
 * the model's field unknown (-1) rather than a fake 0 or a clamped value. */
static int parse_count(const char *s, long long max, long long *out)
{
    long long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* PERFSCOPE_META (key, value) rows: all kept in model.meta; rank, local_rank, world_size and the
 * dropped-record count also go into the model's fields when they are counts (parse_count; else those stay
 * -1, unknown). `dropped_records` is the total over all processes (docs/trace-format.md); the other
 * `dropped*` keys (per process: `dropped_records.pid.PID`) are summed only as a fallback for a trace without
 * the total (ps_sq_read_meta), never added to it. */
static int meta_row(struct sctx *c, sqlite3_stmt *st)
{
    const char *key = (const char *)sqlite3_column_text(st, 0);
    const char *value = (const char *)sqlite3_column_text(st, 1);
    long long v;
    if (!key)
        return 0;
    if (ps_model_add_meta(c->m, key, value ? value : "") < 0)
        return ps_sq_oom(c);
    if (!value || sqlite3_column_type(st, 1) == SQLITE_NULL)
        return 0;
    int is_rank = strcmp(key, "rank") == 0 || strcmp(key, "local_rank") == 0 || strcmp(key, "world_size") == 0;
    int is_part = !is_rank && strncmp(key, "dropped", 7) == 0 && strcmp(key, "dropped_records") != 0;
    if (parse_count(value, is_rank ? INT32_MAX : INT64_MAX, &v) < 0 ||
        (is_part && c->dropped_parts > INT64_MAX - v)) {
        if (is_part)
            c->dropped_parts_bad = 1;         /* one unknown part: the fallback sum is unknown */
        return 0;
    }
    if (strcmp(key, "rank") == 0)
        c->m->rank = (int32_t)v;
    else if (strcmp(key, "local_rank") == 0)
        c->m->local_rank = (int32_t)v;
    else if (strcmp(key, "world_size") == 0)
        c->m->world_size = v > 0 ? (int32_t)v : -1;
    else if (strcmp(key, "dropped_records") == 0)
        c->m->dropped_records = v;
    else if (is_part)
        c->dropped_parts = (c->dropped_parts < 0 ? 0 : c->dropped_parts) + v;
    return 0;
}

/* Read optional table `table` with the listed columns (NULL where absent; the first one required); bit i of
 * text_cols: column i holds text. */
static int read_optional(struct sctx *c, const char *table, const char *const *cols, int ncols, unsigned text_cols,
                         int (*row)(struct sctx *, sqlite3_stmt *))
{
    char sql[512] = "SELECT ";
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, table) < 0)
        return -1;
    for (int i = 0; i < ncols; i++)
        if (ps_sq_add_col(c, sql, sizeof sql, table, cols[i], i == 0 ? NULL : "NULL") < 0)
            return -1;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", rowid FROM \"%s\"", table);
    return for_rows(c, table, sql, text_cols, row);
}

int ps_sq_read_meta(struct sctx *c)
{
    /* The first two columns, whatever their names: (key, value). */
    if (ps_sq_load_cols(c, "PERFSCOPE_META") < 0)
        return -1;
    if (c->ncols < 2)
        return ps_read_fail(c->err, c->errlen, "%s: table PERFSCOPE_META has %d column(s), expected (key, value)",
                            c->path, c->ncols);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT \"%s\", \"%s\", rowid FROM PERFSCOPE_META", c->cols[0], c->cols[1]);
    c->dropped_parts = -1;
    if (for_rows(c, "PERFSCOPE_META", sql, 3u, meta_row) < 0)
        return -1;
    if (c->m->dropped_records < 0 && c->dropped_parts >= 0 && !c->dropped_parts_bad)
        c->m->dropped_records = c->dropped_parts;
    return 0;
}

/* Run a query returning one row of `n` integers into out[] (NULL columns: 0). Returns 0 or -1 with a message. */
static int query_row(struct sctx *c, const char *table, const char *sql, int64_t *out, int n)
{
    sqlite3_stmt *st = NULL;
    if (ps_sq_prepare(c, table, sql, &st) < 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        for (int i = 0; i < n; i++)
            out[i] = sqlite3_column_int64(st, i);
    else
        ps_sq_step_error(c, table, 1);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Per process: its CPU time (the largest cumulative value), first and last sample, and its parent (struct
 * ps_process). */
static int read_process_samples(struct sctx *c)
{
    static const char *const t = "PERFSCOPE_PROCESS_SAMPLES";
    sqlite3_stmt *st = NULL;
    if (ps_sq_prepare(c, t, "SELECT globalPid, max(coalesce(cpuUserNs, 0) + coalesce(cpuSystemNs, 0)), min(timestamp),"
                            " max(timestamp) FROM PERFSCOPE_PROCESS_SAMPLES GROUP BY globalPid", &st) < 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint32_t i = ps_model_process(c->m, ps_global_to_pid(sqlite3_column_int64(st, 0)));
        if (i == PS_NONE) {
            sqlite3_finalize(st);
            return ps_sq_oom(c);
        }
        struct ps_process *p = &c->m->procs.v[i];
        p->cpu_ns = sqlite3_column_int64(st, 1);
        p->first_sample_ns = sqlite3_column_int64(st, 2);
        p->last_sample_ns = sqlite3_column_int64(st, 3);
    }
    if (rc != SQLITE_DONE)
        ps_sq_step_error(c, t, 1);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    /* Parents (optional table): which processes a program's DataLoader workers are. */
    static const char *const info = "PERFSCOPE_PROCESS_INFO";
    if ((rc = ps_sq_table_exists(c, info)) <= 0)
        return rc;
    if (ps_sq_prepare(c, info, "SELECT pid, ppid FROM PERFSCOPE_PROCESS_INFO WHERE ppid IS NOT NULL", &st) < 0)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t pid = sqlite3_column_int64(st, 0), ppid = sqlite3_column_int64(st, 1);
        uint32_t i = pid > 0 && pid <= UINT32_MAX && ppid > 0 && ppid <= UINT32_MAX ? ps_model_process(c->m, (uint32_t)pid)
                                                                                   : PS_NONE - 1;
        if (i == PS_NONE) {
            sqlite3_finalize(st);
            return ps_sq_oom(c);
        }
        if (i != PS_NONE - 1)
            c->m->procs.v[i].ppid = (uint32_t)ppid;
    }
    if (rc != SQLITE_DONE)
        ps_sq_step_error(c, info, 1);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* PERFSCOPE_PROCESS_SAMPLES (optional): how many samples, the first and last timestamp, and the CPU time the
 * processes used (cpuUserNs + cpuSystemNs are cumulative per process: each one's largest value, summed). */
static int read_samples(struct sctx *c)
{
    static const char *const t = "PERFSCOPE_PROCESS_SAMPLES";
    int64_t v[3] = { 0 };
    int rc = ps_sq_table_exists(c, t);
    if (rc <= 0)
        return rc;
    if (query_row(c, t, "SELECT count(*), min(timestamp), max(timestamp) FROM PERFSCOPE_PROCESS_SAMPLES", v, 3) < 0 ||
        query_row(c, t, "SELECT sum(c) FROM (SELECT max(coalesce(cpuUserNs, 0) + coalesce(cpuSystemNs, 0)) AS c"
                        " FROM PERFSCOPE_PROCESS_SAMPLES GROUP BY globalPid)", &c->m->samples.cpu_ns, 1) < 0)
        return -1;
    c->m->samples.n = v[0];
    c->m->samples.first_ns = v[1];
    c->m->samples.last_ns = v[2];
    return read_process_samples(c);
}

/* PROCESSES, ThreadNames, TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE (each optional) and, on perfscope traces,
 * the host-sample summary. Returns 0 or -1 with the message set. */
int ps_sq_read_host_tables(struct sctx *c, int is_perfscope)
{
    static const char *const proc_cols[] = { "pid", "name" };
    static const char *const tname_cols[] = { "nameId", "globalTid" };
    static const char *const gpu_cols[] = { "id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor" };
    static const char *const cdev_cols[] = { "cudaId", "numMultiprocessors" };
    if (read_optional(c, "PROCESSES", proc_cols, 2, 1u << 1, process_row) < 0 ||
        read_optional(c, "ThreadNames", tname_cols, 2, 0, thread_name_row) < 0 ||
        read_optional(c, "TARGET_INFO_GPU", gpu_cols, 6, 1u << 1, gpu_row) < 0 ||
        read_optional(c, "TARGET_INFO_CUDA_DEVICE", cdev_cols, 2, 0, cuda_device_row) < 0)
        return -1;
    return is_perfscope ? read_samples(c) : 0;
}
