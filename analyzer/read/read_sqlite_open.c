/* The SQLite reader's connection to a trace file (read_sqlite_impl.h): opened read-only and hardened against a file
 * that is untrusted input (defensive settings, a bound on SQLite's work, the caller's stop request), WAL-mode traces
 * without writing beside them, a second connection for the read-ahead, closing; and the same connection for a
 * caller's own queries (reader.h: ps_trace_db_*). Below every file that reads tables (read_sqlite.c, _meta.c,
 * _memory.c, _ahead.c, follow.c); it calls only read_sqlite_schema.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read_sqlite_impl.h"

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

/* 1 when PERFSCOPE_META says recording_complete = 1, 0 when it says anything else, -1 when it does not say (no
 * such row: a trace older than the row, an nsys file; or an error, which the read then reports). */
static int recording_complete(struct sctx *c)
{
    sqlite3_stmt *st = NULL;
    char sql[300];
    int done = -1;
    if (ps_sq_table_exists(c, "PERFSCOPE_META") != 1 || ps_sq_load_cols(c, "PERFSCOPE_META") < 0 || c->ncols < 2)
        return -1;
    snprintf(sql, sizeof sql, "SELECT \"%s\" FROM PERFSCOPE_META WHERE \"%s\" = 'recording_complete'",
             c->cols[1], c->cols[0]);
    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        done = strcmp(ps_sq_col_text(st, 0), "1") == 0;
    sqlite3_finalize(st);
    return done;
}

/* The steps a file of N bytes may take (20 M + 50
 * per byte): reading a real trace takes under 2 steps per byte of it (each row is decoded once or twice, each
 * StringIds id looked up once through its primary key; measured in docs/readers.md), so the bound only stops work
 * that grows faster than the file: a lookup table without its index (a full scan per id), a crafted file. */
#define WORK_PER_BYTE 50
#define WORK_MIN (20 * 1000 * 1000)

static int (*stop_requested)(void *);
static void *stop_arg;

void ps_read_set_stop(int (*stop)(void *), void *arg)
{
    stop_requested = stop;
    stop_arg = arg;
}

int ps_sq_stop_requested(void)
{
    return stop_requested && stop_requested(stop_arg);
}

static int work_bound(void *arg)
{
    struct sctx *c = arg;
    if (stop_requested && stop_requested(stop_arg)) {
        c->stopped = 1;
        return 1;                   /* SQLITE_INTERRUPT: the caller is quitting */
    }
    c->work_done += PS_SQ_WORK_STEP;
    if (c->work_done <= c->work_budget)
        return 0;
    c->over_budget = 1;
    return 1;                       /* the statement fails with SQLITE_INTERRUPT; ps_sq_step_error says why */
}

/* Defensive settings for a file that is untrusted input (SQLite's security.html, "Untrusted SQLite Database
 * Files"): the schema is not trusted (functions with side effects are not run from it), defensive mode, no
 * extension loading, views and triggers off (the reader selects from tables only: ps_sq_table_exists), and the
 * work bound above. 0, or -EINVAL with the message set. */
static const int defensive_settings[][2] = {
    { SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0 }, { SQLITE_DBCONFIG_DEFENSIVE, 1 },
    { SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0 }, { SQLITE_DBCONFIG_ENABLE_VIEW, 0 },
    { SQLITE_DBCONFIG_ENABLE_TRIGGER, 0 },
};

/* The defensive settings on db: -1 when all took, else the index of the one that failed. */
static int defend(sqlite3 *db)
{
    for (size_t i = 0; i < sizeof defensive_settings / sizeof defensive_settings[0]; i++)
        if (sqlite3_db_config(db, defensive_settings[i][0], defensive_settings[i][1], (int *)NULL) != SQLITE_OK)
            return (int)i;
    return -1;
}

static int harden(struct sctx *c, long long bytes)
{
    int bad = defend(c->db);
    if (bad >= 0)
        return ps_read_fail(c->err, c->errlen, "%s: cannot configure SQLite (setting %d): %s", c->path,
                            defensive_settings[bad][0], sqlite3_errmsg(c->db));
    c->work_budget = bytes > (LLONG_MAX - WORK_MIN) / WORK_PER_BYTE ? LLONG_MAX : WORK_MIN + bytes * WORK_PER_BYTE;
    c->work_done = 0;
    sqlite3_progress_handler(c->db, PS_SQ_WORK_STEP, work_bound, c);
    return 0;
}

/* Bytes of the file and of its -wal file (what SQLite may read): the work bound's base. */
static long long trace_bytes(const char *path, const char *wal_path)
{
    struct stat st;
    long long n = stat(path, &st) == 0 ? (long long)st.st_size : 0;
    if (stat(wal_path, &st) == 0)
        n += (long long)st.st_size;
    return n;
}

/* Open the trace read-only, hardened (harden). A WAL-mode file (a trace being recorded, or one written before
 * record left WAL mode at its end) needs its -shm file to be read, which SQLite creates beside it: impossible in a
 * directory the reader cannot write, and elsewhere it leaves -wal/-shm files next to the trace. A WAL-mode trace
 * with no -wal file is not open anywhere (a connection in WAL mode keeps its -wal until it closes) and every row
 * it has is in the main file, so it is opened immutable: nothing is written or locked. When its recording did not
 * complete (PERFSCOPE_META says 0), its -wal was probably not copied with it (c->wal_missing: the last committed
 * rows are missing; c->wal_alone also when the file does not say, for the message of a file without tables). Any
 * other WAL-mode file is opened normally (a live recording is read while it grows); when that fails, the message
 * names the cause. 0 or -EINVAL. */
int ps_sq_open(struct sctx *c)
{
    char side[PATH_MAX + 8];
    int wal = is_wal_file(c->path);
    snprintf(side, sizeof side, "%s-wal", c->path);
    long long bytes = trace_bytes(c->path, side);
    if (wal && access(side, F_OK) != 0 && errno == ENOENT) {
        char *uri = immutable_uri(c->path);
        if (!uri)
            return ps_sq_oom(c);
        int ok = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                 NULL) == SQLITE_OK;
        sqlite3_free(uri);
        if (ok && harden(c, bytes) < 0)
            return -EINVAL;
        if (ok) {
            c->twin = PS_SQ_TWIN_IMMUTABLE;
            int complete = recording_complete(c);
            c->wal_alone = complete != 1;
            c->wal_missing = complete == 0;
            return 0;
        }
        sqlite3_close(c->db);
        c->db = NULL;
    }
    if (sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return ps_read_fail(c->err, c->errlen, "%s: cannot open as SQLite: %s", c->path,
                            c->db ? sqlite3_errmsg(c->db) : "out of memory");
    if (harden(c, bytes) < 0)
        return -EINVAL;
    sqlite3_busy_timeout(c->db, 2000);   /* a recorder may hold a write lock for a moment */
    c->twin = wal ? PS_SQ_TWIN_NONE : PS_SQ_TWIN_PLAIN;
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

int ps_sq_open_twin(const struct sctx *c, sqlite3 **db)
{
    *db = NULL;
    if (c->twin == PS_SQ_TWIN_NONE)
        return 0;
    char *uri = c->twin == PS_SQ_TWIN_IMMUTABLE ? immutable_uri(c->path) : NULL;
    if (c->twin == PS_SQ_TWIN_IMMUTABLE && !uri)
        return -ENOMEM;
    int ok = sqlite3_open_v2(uri ? uri : c->path, db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0),
                             NULL) == SQLITE_OK && defend(*db) < 0;
    sqlite3_free(uri);
    if (ok)
        return 0;
    sqlite3_close(*db);
    *db = NULL;
    return -EIO;
}

void ps_sq_close(struct sctx *c)
{
    ps_sq_free_cols(c);
    sqlite3_finalize(c->string_stmt);
    c->string_stmt = NULL;
    sqlite3_close(c->db);
    c->db = NULL;
}

/* ---- a hardened connection for a caller's own queries (reader.h) ---- */

struct ps_trace_db {
    struct sctx c;
    char *path;
};

int ps_trace_db_open(const char *path, struct ps_trace_db **out, char *err, size_t errlen)
{
    struct ps_trace_db *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d || !(d->path = strdup(path))) {
        free(d);
        return ps_read_oom(err, errlen, path);
    }
    d->c = (struct sctx){ .path = d->path, .err = err, .errlen = errlen };
    int rc = ps_sq_open(&d->c);
    if (rc < 0) {
        ps_trace_db_close(d);
        return rc;
    }
    sqlite3_busy_timeout(d->c.db, 200);  /* a caller that refreshes (top) waits a refresh, not the reader's 2 s */
    *out = d;
    return 0;
}

sqlite3 *ps_trace_db_sqlite(struct ps_trace_db *d)
{
    return d->c.db;
}

int ps_trace_db_has_table(struct ps_trace_db *d, const char *table, char *err, size_t errlen)
{
    d->c.err = err;
    d->c.errlen = errlen;
    return ps_sq_table_exists(&d->c, table);
}

void ps_trace_db_close(struct ps_trace_db *d)
{
    if (!d)
        return;
    ps_sq_close(&d->c);   /* the connection, and the column names ps_sq_open may have loaded (recording_complete) */
    free(d->path);
    free(d);
}
