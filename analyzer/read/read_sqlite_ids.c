/* The SQLite reader's ids (read_sqlite_impl.h): text values, StringIds ids and nsys globalTids into the model's
 * strings and threads, each file id looked up once, for the activity tables (read_sqlite.c) and the tables around
 * them (read_sqlite_meta.c). Calls only read_sqlite_schema.c and read_common.c. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "ps_globalid.h"
#include "read_sqlite_impl.h"

/* Intern a text value of `len` bytes, keeping every byte (ps_intern_bytes). */
uint32_t ps_sq_intern(struct sctx *c, const char *s, size_t len)
{
    return ps_intern_bytes(c->m, s, len);
}

/* Intern column i of the current row (text; "" for NULL), keeping every byte (ps_sq_intern). */
uint32_t ps_sq_intern_col(struct sctx *c, sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return ps_sq_intern(c, s ? s : "", s ? (size_t)sqlite3_column_bytes(st, i) : 0);
}

/* StringIds id -> model string id, each id queried once. */
int ps_sq_string_of(struct sctx *c, int64_t sid, const char *table, const char *col, uint32_t *id)
{
    uint32_t v = ps_idmap_get(&c->strings, (uint64_t)sid);
    *id = v;
    if (v != PS_NONE)
        return 0;
    if (!c->have_string_ids)
        return ps_read_fail(c->err, c->errlen, "%s: table StringIds is missing (needed by %s.%s)", c->path, table,
                            col);
    sqlite3_reset(c->string_stmt);
    sqlite3_bind_int64(c->string_stmt, 1, sid);
    int rc = sqlite3_step(c->string_stmt);
    if (rc == SQLITE_ROW) {
        v = ps_sq_intern_col(c, c->string_stmt, 0);
    } else if (rc == SQLITE_DONE) {
        char missing[64];
        snprintf(missing, sizeof missing, "(StringIds %lld missing)", (long long)sid);
        v = ps_model_intern_cstr(c->m, missing);
    } else {
        return c->over_budget ? ps_sq_step_error(c, "StringIds", 0)
               : ps_read_fail(c->err, c->errlen, "%s: table StringIds, id %lld: %s", c->path, (long long)sid,
                              sqlite3_errmsg(c->db));
    }
    if (v == PS_NONE || ps_idmap_put(&c->strings, (uint64_t)sid, v) < 0)
        return ps_sq_oom(c);
    *id = v;
    return 0;
}

uint32_t ps_sq_thread_of(struct sctx *c, int64_t global_tid)
{
    uint32_t v = ps_idmap_get(&c->threads, (uint64_t)global_tid);
    if (v != PS_NONE)
        return v;
    v = ps_model_thread(c->m, ps_global_to_pid(global_tid), ps_global_to_tid(global_tid));
    if (v != PS_NONE && ps_idmap_put(&c->threads, (uint64_t)global_tid, v) < 0)
        return PS_NONE;
    return v;
}
