/* The trace writer (see trace_writer.h): pragmas, schema, prepared statements and StringIds.
 * Bulk-load recipe from SQLite's test/speedtest1.c: big transactions, statements prepared once,
 * bind/step/reset, indexes after the load. */
#include "collector/trace_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "ps_schema.h"
#include "ps_utf8.h"

#define TW_MAX_STMTS 64

struct ps_tw {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *stmts[TW_MAX_STMTS];
    int n_stmts;
    sqlite3_stmt *st_string, *st_meta;
    struct ps_strtab strings;
    int64_t next_string_id;
    char errmsg[512];
};

static int tw_fail(struct ps_tw *w, const char *what)
{
    snprintf(w->errmsg, sizeof w->errmsg, "%s: %s: %s", w->path, what, sqlite3_errmsg(w->db));
    return -EIO;
}

static int tw_exec_sql(struct ps_tw *w, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(w->errmsg, sizeof w->errmsg, "%s: %s: %s", w->path, what, msg ? msg : "?");
        sqlite3_free(msg);
        return -EIO;
    }
    return 0;
}

/* Pragmas, chosen for a bulk append (docs/trace-format.md "Durability"; measured in bench/collector):
 * - page_size 65536: fewer, fuller pages (+25 % rows/s over 4 KiB); must precede the first table and WAL.
 * - journal_mode WAL + synchronous NORMAL: readers (report, top) can read while we write; a power cut may
 *   lose the last commits but never corrupts the file; a crash of perfscope loses nothing committed.
 *   ps_tw_finish switches a finished trace to journal_mode DELETE (tw_leave_wal).
 * - the default page cache: an append only touches the right edge of the B-tree, and a big cache costs
 *   page faults (measured slower). */
static const char tw_pragmas[] =
    "PRAGMA page_size=65536;"
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=NORMAL;"
    "PRAGMA temp_store=MEMORY;";

/* The largest id of `sql` (one integer, NULL when empty), or 0. */
static int64_t tw_max_id(struct ps_tw *w, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = 0;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int tw_open(const char *path, int create, struct ps_tw **out, char *err, size_t errlen)
{
    int rc = -ENOMEM;
    if (!err)
        errlen = 0;
    struct ps_tw *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    w->next_string_id = 1;
    /* Without per-allocation statistics SQLite takes no global mutex per malloc (+15 % rows/s). Only
     * possible before SQLite initialises; harmless (ignored) after. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                        SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        rc = tw_fail(w, create ? "cannot create the trace (use -o to write elsewhere)" : "cannot open the trace");
        goto out_msg;
    }
    /* A reader may hold a shared lock on the new file for a moment (top finds recordings by their files, and may
     * open this one before its schema exists): journal_mode=WAL and the schema wait for it instead of failing
     * with "database is locked". Recording itself runs without a busy handler, as before (WAL: readers never
     * block the writer). */
    sqlite3_busy_timeout(w->db, 5000);
    if (!create) {
        /* A trace a dead recorder left: go on where it stopped (page_size no longer changes). */
        if ((rc = tw_exec_sql(w, tw_pragmas, "setting pragmas")))
            goto out_msg;
        int64_t a = tw_max_id(w, "SELECT max(id) FROM StringIds");
        int64_t b = tw_max_id(w, "SELECT max(sid) FROM PERFSCOPE_RECOVERY_REGISTERED");
        w->next_string_id = (a > b ? a : b) + 1;
    } else if ((rc = tw_exec_sql(w, tw_pragmas, "setting pragmas")) ||
        (rc = tw_exec_sql(w, "BEGIN", "creating the schema")) ||
        (rc = tw_exec_sql(w, ps_schema_sql, "creating the schema")) ||
        (rc = tw_exec_sql(w, ps_schema_recovery_sql, "creating the schema")) ||
        (rc = tw_exec_sql(w, ps_schema_enum_sql, "filling the ENUM tables")) ||
        (rc = tw_exec_sql(w, "COMMIT", "creating the schema"))) {
        goto out_msg;
    }
    sqlite3_busy_timeout(w->db, 0);
    w->st_string = ps_tw_prepare(w, "INSERT INTO StringIds(id, value) VALUES(?, ?)");
    w->st_meta = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_META(name, value) VALUES(?, ?)");
    if (!w->st_string || !w->st_meta) {
        rc = -EIO;
        goto out_msg;
    }
    *out = w;
    return 0;
out_msg:
    snprintf(err, errlen, "%s", w->errmsg);
out:
    ps_tw_free(w);
    return rc;
}

int ps_tw_open(const char *path, struct ps_tw **out, char *err, size_t errlen)
{
    return tw_open(path, 1, out, err, errlen);
}

int ps_tw_reopen(const char *path, struct ps_tw **out, char *err, size_t errlen)
{
    return tw_open(path, 0, out, err, errlen);
}

int ps_tw_sql(struct ps_tw *w, const char *sql, const char *what)
{
    return tw_exec_sql(w, sql, what);
}

sqlite3 *ps_tw_db(struct ps_tw *w)
{
    return w->db;
}

void ps_tw_free(struct ps_tw *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n_stmts; i++)
        sqlite3_finalize(w->stmts[i]);
    sqlite3_close(w->db);
    ps_strtab_fini(&w->strings);
    free(w->path);
    free(w);
}

int ps_tw_begin(struct ps_tw *w)
{
    return tw_exec_sql(w, "BEGIN", "starting a transaction");
}

int ps_tw_commit(struct ps_tw *w)
{
    return tw_exec_sql(w, "COMMIT", "committing rows (is the disk full?)");
}

sqlite3_stmt *ps_tw_prepare(struct ps_tw *w, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (w->n_stmts == TW_MAX_STMTS) {
        snprintf(w->errmsg, sizeof w->errmsg, "%s: more than %d prepared statements", w->path,
                 TW_MAX_STMTS);
        return NULL;
    }
    if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        tw_fail(w, "preparing a statement");
        return NULL;
    }
    w->stmts[w->n_stmts++] = st;
    return st;
}

int ps_tw_exec(struct ps_tw *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return tw_fail(w, "writing a row (is the disk full?)");
    return 0;
}

struct ps_str *ps_tw_intern(struct ps_tw *w, const char *text, size_t len)
{
    return ps_strtab_intern(&w->strings, text, len);
}

void ps_tw_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    size_t n = strlen(s);
    char *fixed;
    if (ps_utf8_valid(s, n) || !(fixed = ps_utf8_dup(s, n)))
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_text(st, i, fixed, -1, free);
}

int ps_tw_string_define(struct ps_tw *w, int64_t id, const char *text)
{
    sqlite3_bind_int64(w->st_string, 1, id);
    ps_tw_bind_text(w->st_string, 2, text);
    return ps_tw_exec(w, w->st_string);
}

int64_t ps_tw_string_reserve(struct ps_tw *w)
{
    return w->next_string_id++;
}

int64_t ps_tw_string_id(struct ps_tw *w, const char *text, size_t len)
{
    struct ps_str *s = ps_tw_intern(w, text, len);
    if (!s)
        return -ENOMEM;
    if (!s->id) {
        int64_t id = ps_tw_string_reserve(w);
        int rc = ps_tw_string_define(w, id, s->text);
        if (rc)
            return rc;
        s->id = id;
    }
    return s->id;
}

int ps_tw_meta(struct ps_tw *w, const char *name, const char *value)
{
    sqlite3_bind_text(w->st_meta, 1, name, -1, SQLITE_STATIC);
    ps_tw_bind_text(w->st_meta, 2, value);
    return ps_tw_exec(w, w->st_meta);
}

int ps_tw_meta_i64(struct ps_tw *w, const char *name, int64_t value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, value);
    return ps_tw_meta(w, name, buf);
}

/* A finished trace goes back to the rollback journal (journal_mode=DELETE): a WAL-mode file needs its -shm
 * file beside it even to be read, so it could not be read from a directory the reader cannot write, and
 * every read-only reader would leave -wal/-shm files next to it (SQLite's wal.html, "Read-Only Databases").
 * The switch needs the only connection: with a reader open on the trace it waits up to 5 s, then gives
 * -EBUSY and the trace stays a valid WAL-mode file. SQLite reports a refused switch by returning the old mode,
 * not an error, so the mode it returns is checked. */
static int tw_leave_wal(struct ps_tw *w)
{
    sqlite3_stmt *st = NULL;
    int rc = -EIO;
    sqlite3_busy_timeout(w->db, 5000);
    if (sqlite3_prepare_v2(w->db, "PRAGMA journal_mode=DELETE", -1, &st, NULL) != SQLITE_OK) {
        tw_fail(w, "leaving WAL mode");
        goto out;
    }
    int step = sqlite3_step(st);
    const char *mode = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (mode && strcmp(mode, "delete") == 0) {
        rc = 0;
    } else if (step == SQLITE_BUSY || (mode && strcmp(mode, "wal") == 0)) {
        snprintf(w->errmsg, sizeof w->errmsg, "%s: the trace stays in WAL mode: another program "
                 "had it open (leaving WAL mode needs the only connection). It is complete, but reads only from a "
                 "writable directory until `sqlite3 %s 'PRAGMA journal_mode=DELETE'` is run on it", w->path, w->path);
        rc = -EBUSY;
    } else {
        tw_fail(w, "leaving WAL mode");
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int ps_tw_finish(struct ps_tw *w)
{
    int rc = tw_exec_sql(w, ps_schema_index_sql, "creating indexes");
    if (!rc)
        rc = tw_exec_sql(w, "PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing the WAL");
    return rc ? rc : tw_leave_wal(w);
}

const char *ps_tw_errmsg(const struct ps_tw *w)
{
    return w->errmsg;
}
