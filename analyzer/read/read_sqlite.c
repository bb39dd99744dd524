/* SQLite trace reader: perfscope traces and Nsight Systems SQLite exports share the same tables
 * (docs/trace-format.md), so one reader serves both. Opens read-only, never writing beside the trace (ps_sq_open in
 * read_sqlite_open.c; works on a trace still being written in WAL mode), never requires optional tables, and checks
 * that every column it reads exists (read_sqlite_schema.c). This part reads the activity tables (GPU rows, API
 * calls, NVTX) and drives the whole file; read_sqlite_meta.c reads the tables around them, read_sqlite_ids.c turns
 * the file's ids into the model's. The SQLite reader's top file (follow.c aside): it calls the others. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_globalid.h"
#include "ps_schema.h"
#include "read_sqlite_impl.h"

static void count_unplaced(struct sctx *c, const char *table, const char *why)
{
    char what[80];
    snprintf(what, sizeof what, "%s %s", table, why);
    ps_unplaced_count(&c->unplaced, c->m, what);
}

/* Fetch the integer columns of the current row of st into *r (struct ps_sq_row), each once, and its rowid (the
 * last column). Every column but `text_col` (-1: none) and the rowid must hold an integer or NULL: columns 0 and 1
 * are the start and end times in ns, the others ids, kinds and byte counts. A text, real or blob value is an
 * error, never read as 0. One sqlite3_column_value per column, then the value accessors: half the calls of
 * sqlite3_column_type + sqlite3_column_int64, which matters at 10 M rows. Using the (unprotected) column value so
 * is sanctioned in multi-thread mode, which SQLITE_OPEN_NOMUTEX selects (SQLite's c3ref/value.html). Returns 0,
 * or -EINVAL with a message naming the table, column and rowid. */
static int fetch_ints(struct sctx *c, sqlite3_stmt *st, const char *table, int ncols, int text_col,
                      struct ps_sq_row *r)
{
    for (int i = 0; i < ncols; i++) {
        if (i == text_col) {
            r->t[i] = sqlite3_column_type(st, i);
            r->v[i] = 0;
            continue;
        }
        sqlite3_value *x = sqlite3_column_value(st, i);
        int t = r->t[i] = sqlite3_value_type(x);
        if (t != SQLITE_INTEGER && t != SQLITE_NULL)
            return ps_sq_type_error(c, st, table, i, t, i < 2 ? "an integer time in ns" : "an integer");
        r->v[i] = sqlite3_value_int64(x);
    }
    r->rowid = sqlite3_column_int64(st, ncols);
    return 0;
}

/* The rows of one statement of an activity table, read ahead on a second connection where the table is large
 * (read_sqlite_ahead.c), else stepped here. */
struct rows {
    struct ps_sq_ahead *ahead;
    sqlite3_stmt *st;
    int ncols;
};

#define AHEAD_MIN_ROWS 65536   /* below this the second connection costs more than it saves */

/* Returns how many rows a large table holds, for the model to make room for them at once (growing a vector of
 * 10 M rows by doubling moves it, and every moved page is touched again); 0 for a table read here alone. */
static size_t rows_begin(struct sctx *c, struct rows *src, const char *table, const char *sql, sqlite3_stmt *st,
                         int ncols)
{
    *src = (struct rows){ .st = st, .ncols = ncols };
    return ps_sq_ahead_start(c, table, sql, ncols, AHEAD_MIN_ROWS, &src->ahead)
               ? (size_t)ps_sq_ahead_row_count(src->ahead) : 0;
}

/* The next row into *r: SQLITE_ROW; SQLITE_DONE; another SQLite result code from stepping the statement (the
 * caller reports it with ps_sq_step_error); or -EINVAL (a value that is no integer: message set). */
static int rows_next(struct sctx *c, struct rows *src, const char *table, struct ps_sq_row *r)
{
    if (src->ahead) {
        int done = 0;
        long long given = 0;
        if (ps_sq_ahead_next(src->ahead, r, &done, &given))
            return SQLITE_ROW;
        ps_sq_ahead_end(c, src->ahead);
        src->ahead = NULL;
        if (done)
            return SQLITE_DONE;
        for (long long i = 0; i < given; i++) {   /* the read-ahead stopped short: on from its last row, here */
            int rc = sqlite3_step(src->st);
            if (rc != SQLITE_ROW)
                return rc;
        }
    }
    int rc = sqlite3_step(src->st);
    if (rc == SQLITE_ROW && fetch_ints(c, src->st, table, src->ncols, -1, r) < 0)
        return -EINVAL;
    return rc;
}

static void rows_end(struct sctx *c, struct rows *src)
{
    ps_sq_ahead_end(c, src->ahead);
    src->ahead = NULL;
}

/* Columns in a statement (without its rowid), checked against struct ps_sq_row. Returns ncols, or -EINVAL (message set). */
static int row_cols(struct sctx *c, sqlite3_stmt *st, const char *table)
{
    int n = sqlite3_column_count(st) - 1;
    if (n > PS_SQ_ROW_COLS)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: internal error: %d columns selected", c->path, table, n);
    return n;
}

/* A byte count (column i) must not be negative. Returns 0 or -EINVAL with the message set. */
static int check_bytes(struct sctx *c, sqlite3_stmt *st, const char *table, int i, const struct ps_sq_row *r)
{
    if (r->v[i] >= 0)
        return 0;
    return ps_read_fail(c->err, c->errlen, "%s: table %s, column %s, rowid %lld: negative byte count %lld: the "
                        "trace is corrupt", c->path, table, sqlite3_column_name(st, i), (long long)r->rowid,
                        (long long)r->v[i]);
}

/* ---- lookups ---- */

static uint32_t stream_of(struct sctx *c, uint32_t pid, int32_t device, int64_t stream)
{
    uint64_t key = ((uint64_t)pid << 40) ^ ((uint64_t)(uint32_t)device << 32) ^ (uint64_t)stream;
    uint32_t v = ps_idmap_get(&c->streams, key);
    if (v != PS_NONE) {
        const struct ps_stream *s = &c->m->streams.v[v];
        if (s->pid == pid && s->device == device && s->stream == stream)
            return v;
    }
    if (ps_model_device(c->m, device) == PS_NONE)
        return PS_NONE;
    v = ps_model_stream(c->m, pid, device, stream);
    if (v != PS_NONE && ps_idmap_put(&c->streams, key, v) < 0)
        return PS_NONE;
    return v;
}

/* ---- GPU activity tables ---- */

static uint8_t clamp_kind(int64_t v, int max, int unknown)
{
    return (uint8_t)(v < 0 || v > max ? unknown : v);
}

/* Copies and memsets get the names Kineto gives them ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)"),
 * so summaries read the same for every format. */
static uint32_t copy_name(struct sctx *c, const struct ps_gpu_op *op)
{
    uint64_t key = ((uint64_t)op->kind << 24) | ((uint64_t)op->copy_kind << 16) | ((uint64_t)op->src_kind << 8) |
                   op->dst_kind;
    uint32_t v = ps_idmap_get(&c->copy_names, key);
    if (v != PS_NONE)
        return v;
    char name[96];
    if (op->kind == PS_GPU_MEMCPY)
        snprintf(name, sizeof name, "Memcpy %s (%s -> %s)",
                 op->copy_kind <= PS_COPY_PTOP ? ps_nsys_copy_kind[op->copy_kind].label : "Unknown",
                 ps_nsys_mem_kind[op->src_kind].label, ps_nsys_mem_kind[op->dst_kind].label);
    else
        snprintf(name, sizeof name, "Memset (%s)", ps_nsys_mem_kind[op->dst_kind].label);
    v = ps_model_intern_cstr(c->m, name);
    if (v != PS_NONE && ps_idmap_put(&c->copy_names, key, v) < 0)
        return PS_NONE;
    return v;
}

static const char *const sync_names[] = { "Unknown sync", "Event sync", "Stream wait event", "Stream sync",
                                          "Context sync" };

/* Following a growing trace (ps_follow_read): append `<joiner> rowid > <the last rowid read from the table>`, and
 * `AND "start" >= <floor>` when rows that start before a floor are skipped (not for the NVTX domain names: `floor`
 * 0, they are created before the ranges that use them). */
static void after_clause(const struct sctx *c, char *sql, size_t cap, const char *joiner, enum ps_sq_table table,
                         int floor)
{
    if (!c->rowid_after)
        return;
    snprintf(sql + strlen(sql), cap - strlen(sql), " %s rowid > %lld", joiner, (long long)c->rowid_after[table]);
    if (floor && c->start_floor != INT64_MIN)   /* NVTX marks of a named domain pass: run facts (the hook's) */
        snprintf(sql + strlen(sql), cap - strlen(sql), " AND (\"start\" >= %lld%s)", (long long)c->start_floor,
                 table == PS_SQ_NVTX && ps_sq_has_col(c, "domainId")
                     ? " OR (eventType = " PS_SQL_INT(PS_NSYS_NVTX_MARK) " AND domainId != 0)" : "");
}

/* The SELECT of GPU table `table` into sql: start, end, deviceId, streamId, correlationId, globalPid, then the
 * kind's own columns (a kernel's name, which *name_col gets; a copy's bytes and kinds; a memset's bytes and memory
 * kind; a sync's type), rowid, and the follower's WHERE. 0, or -EINVAL (message set). */
static int gpu_table_sql(struct sctx *c, const char *table, enum ps_gpu_kind kind, char *sql, size_t cap,
                         const char **name_col)
{
    int rc = 0;
    snprintf(sql, cap, "SELECT ");
    if (ps_sq_load_cols(c, table) < 0 || ps_sq_add_col(c, sql, cap, table, "start", NULL) < 0 ||
        ps_sq_add_col(c, sql, cap, table, "end", NULL) < 0 || ps_sq_add_col(c, sql, cap, table, "deviceId", NULL) < 0 ||
        ps_sq_add_col(c, sql, cap, table, "streamId", NULL) < 0 ||
        ps_sq_add_col(c, sql, cap, table, c->have_api ? "correlationId" : "", "NULL") < 0 ||
        ps_sq_add_col(c, sql, cap, table, "globalPid", "NULL") < 0)
        return -EINVAL;   /* no API rows: ("" is no column, so) NULL: correlation ids would link nothing */
    switch (kind) {
    case PS_GPU_KERNEL:
        /* nsys names kernels by demangledName (cuda_gpu_kern_sum's default); older schemas may lack it. */
        *name_col = ps_sq_has_col(c, "demangledName") ? "demangledName"
                    : ps_sq_has_col(c, "shortName")   ? "shortName"
                    : ps_sq_has_col(c, "mangledName") ? "mangledName"
                                                : "demangledName";   /* absent: the error names it */
        rc = ps_sq_add_col(c, sql, cap, table, *name_col, NULL);
        break;
    case PS_GPU_MEMCPY:
        rc = ps_sq_add_col(c, sql, cap, table, "bytes", NULL) < 0 ||
             ps_sq_add_col(c, sql, cap, table, "copyKind", NULL) < 0 ||
             ps_sq_add_col(c, sql, cap, table, "srcKind", "7") < 0 ||
             ps_sq_add_col(c, sql, cap, table, "dstKind", "7") < 0 ? -EINVAL : 0;
        break;
    case PS_GPU_MEMSET:
        rc = ps_sq_add_col(c, sql, cap, table, "bytes", NULL) < 0 ||
             ps_sq_add_col(c, sql, cap, table, "memKind", "7") < 0 ? -EINVAL : 0;
        break;
    case PS_GPU_SYNC:
        rc = ps_sq_add_col(c, sql, cap, table, "syncType", "0");
        break;
    }
    if (rc < 0)
        return -EINVAL;
    snprintf(sql + strlen(sql), cap - strlen(sql), ", rowid FROM \"%s\"", table);
    after_clause(c, sql, cap, "WHERE", kind == PS_GPU_KERNEL ? PS_SQ_KERNEL : kind == PS_GPU_MEMCPY ?
                 PS_SQ_MEMCPY : kind == PS_GPU_MEMSET ? PS_SQ_MEMSET : PS_SQ_SYNC, 1);
    return 0;
}

/* One row of GPU table `table` (columns as gpu_table_sql selects them; st names them) into *op: 1, 0 when the
 * row is left out (counted as unplaced: no times, no device or stream, CUPTI's incomplete or reversed records), or
 * a negative errno (message set). */
static int gpu_row_op(struct sctx *c, sqlite3_stmt *st, const char *table, enum ps_gpu_kind kind,
                      const char *name_col, const struct ps_sq_row *r, struct ps_gpu_op *op)
{
    int rc;
    if (r->t[0] == SQLITE_NULL || r->t[1] == SQLITE_NULL) {
        count_unplaced(c, table, "rows without start/end");
        return 0;
    }
    if (r->t[2] == SQLITE_NULL || r->t[3] == SQLITE_NULL) {
        count_unplaced(c, table, "rows without deviceId/streamId");   /* never "device 0, stream 0" */
        return 0;
    }
    *op = (struct ps_gpu_op){ .start_ns = r->v[0], .end_ns = r->v[1], .correlation = (uint64_t)r->v[4],
                              .kind = (uint8_t)kind };
    if ((op->start_ns == 0 && op->end_ns == 0) || op->end_ns < op->start_ns) {
        /* CUPTI hygiene (docs/design.md): start = end = 0 records are incomplete; end < start is corrupt. */
        count_unplaced(c, table, op->end_ns < op->start_ns ? "rows with end < start" : "rows with start = end = 0");
        return 0;
    }
    if (r->v[2] < 0 || r->v[2] > INT32_MAX)
        return ps_read_fail(c->err, c->errlen, "%s: table %s, column deviceId, rowid %lld: device %lld out of range "
                            "(0 to %d): the trace is corrupt", c->path, table,
                            (long long)r->rowid, (long long)r->v[2], INT32_MAX);
    if ((kind == PS_GPU_MEMCPY || kind == PS_GPU_MEMSET) && check_bytes(c, st, table, 6, r) < 0)
        return -EINVAL;
    if ((op->stream = stream_of(c, ps_global_to_pid(r->v[5]), (int32_t)r->v[2], r->v[3])) == PS_NONE)
        return ps_sq_oom(c);
    switch (kind) {
    case PS_GPU_KERNEL:
        if ((rc = ps_sq_string_of(c, r->v[6], table, name_col, &op->name)) < 0)
            return rc;
        break;
    case PS_GPU_MEMCPY:
        op->bytes = (uint64_t)r->v[6];
        op->copy_kind = clamp_kind(r->v[7], PS_COPY_PTOP, PS_COPY_UNKNOWN);
        op->src_kind = clamp_kind(r->v[8], PS_MEM_UNKNOWN, PS_MEM_UNKNOWN);
        op->dst_kind = clamp_kind(r->v[9], PS_MEM_UNKNOWN, PS_MEM_UNKNOWN);
        op->name = copy_name(c, op);
        break;
    case PS_GPU_MEMSET:
        op->bytes = (uint64_t)r->v[6];
        op->src_kind = PS_MEM_UNKNOWN;
        op->dst_kind = clamp_kind(r->v[7], PS_MEM_UNKNOWN, PS_MEM_UNKNOWN);
        op->name = copy_name(c, op);
        break;
    case PS_GPU_SYNC:
        op->copy_kind = clamp_kind(r->v[6], 4, 0);
        op->name = ps_model_intern_cstr(c->m, sync_names[op->copy_kind]);
        break;
    }
    return op->name == PS_NONE ? ps_sq_oom(c) : 1;
}

/* Every row of GPU table `table` (absent: nothing) into the model. 0, or a negative errno (message set). */
static int read_gpu_table(struct sctx *c, const char *table, enum ps_gpu_kind kind)
{
    char sql[1024];
    sqlite3_stmt *st = NULL;
    const char *name_col = NULL;
    struct ps_gpu_op op;
    struct ps_sq_row r;
    long long row = 0;
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if ((rc = gpu_table_sql(c, table, kind, sql, sizeof sql, &name_col)) < 0 ||
        (rc = ps_sq_prepare(c, table, sql, &st)) < 0)
        return rc;
    int ncols = row_cols(c, st, table);
    struct rows src = { 0 };
    rc = ncols < 0 ? -EINVAL : 0;
    if (rc == 0)
        ps_model_reserve(c->m, rows_begin(c, &src, table, sql, st, ncols), 0);   /* a hint: adds grow as before */
    while (rc == 0 && (rc = rows_next(c, &src, table, &r)) == SQLITE_ROW) {
        row++;
        if ((rc = gpu_row_op(c, st, table, kind, name_col, &r, &op)) > 0)
            rc = ps_model_add_gpu(c->m, &op) < 0 ? ps_sq_oom(c) : 0;
    }
    rows_end(c, &src);
    if (rc == SQLITE_DONE) {
        rc = 0;
    } else if (rc > 0) {   /* an SQLite error code: -EINVAL, as every other table's (reader.h) */
        rc = ps_sq_step_error(c, table, row + 1);
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- CUDA runtime and driver API calls ---- */

/* 1 when the API table exists and has a row, 0 when not, -EINVAL on error (reported). Without API calls no GPU
 * op can be linked, so the model need not hold 8 bytes of correlation id per op while reading. */
static int api_rows_exist(struct sctx *c)
{
    sqlite3_stmt *st = NULL;
    int rc = ps_sq_table_exists(c, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (rc <= 0)
        return rc;
    if (ps_sq_prepare(c, "CUPTI_ACTIVITY_KIND_RUNTIME", "SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1", &st) < 0)
        return -EINVAL;
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc == SQLITE_ROW;
    ps_sq_step_error(c, "CUPTI_ACTIVITY_KIND_RUNTIME", 1);
    return -EINVAL;
}

static int read_api(struct sctx *c)
{
    static const char table[] = "CUPTI_ACTIVITY_KIND_RUNTIME";
    char sql[512] = "SELECT ";
    sqlite3_stmt *st = NULL;
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, table) < 0 || ps_sq_add_col(c, sql, sizeof sql, table, "start", NULL) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, table, "end", NULL) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, table, "eventClass", "0") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, table, "globalTid", NULL) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, table, "correlationId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, table, "nameId", NULL) < 0)
        return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", rowid FROM \"%s\"", table);
    after_clause(c, sql, sizeof sql, "WHERE", PS_SQ_RUNTIME, 1);
    if (ps_sq_prepare(c, table, sql, &st) < 0)
        return -EINVAL;
    long long row = 0;
    int ncols = row_cols(c, st, table);
    struct ps_sq_row r;
    struct rows src = { 0 };
    if (ncols < 0)
        goto fail;
    ps_model_reserve(c->m, 0, rows_begin(c, &src, table, sql, st, ncols));   /* a hint: adds grow as before */
    while ((rc = rows_next(c, &src, table, &r)) == SQLITE_ROW) {
        row++;
        int64_t cls = r.v[2];
        if (r.t[0] == SQLITE_NULL || r.t[1] == SQLITE_NULL || r.t[3] == SQLITE_NULL) {
            count_unplaced(c, table, "rows without start/end/globalTid");
            continue;
        }
        if (cls != 0 && cls != 1) {     /* ENUM_NSYS_EVENT_CLASS: 0 CUDA runtime, 1 CUDA driver */
            count_unplaced(c, table, "rows of other event classes");
            continue;
        }
        struct ps_api_call call = { .start_ns = r.v[0], .end_ns = r.v[1], .correlation = (uint64_t)r.v[4],
                                    .driver = (uint8_t)cls };
        if (call.end_ns < call.start_ns) {
            count_unplaced(c, table, "rows with end < start");
            continue;
        }
        call.thread = ps_sq_thread_of(c, r.v[3]);
        if (ps_sq_string_of(c, r.v[5], table, "nameId", &call.name) < 0)
            goto fail;
        if (call.thread == PS_NONE || call.name == PS_NONE || ps_model_add_api(c->m, &call) < 0) {
            ps_sq_oom(c);
            goto fail;
        }
    }
    rows_end(c, &src);
    if (rc < 0)
        goto fail;       /* a value that is no integer: the message is set */
    if (rc != SQLITE_DONE) {
        ps_sq_step_error(c, table, row + 1);
        goto fail;
    }
    sqlite3_finalize(st);
    return 0;
fail:
    rows_end(c, &src);
    sqlite3_finalize(st);
    return -EINVAL;
}

/* ---- NVTX ---- */

/* nsys ENUM_NSYS_EVENT_TYPE (docs/trace-format.md): 34 mark, 59 push/pop range, 60 start/end range, 75
 * domain create; 35/37 (separate push / start records) and 70/71 (imported NVTXT ranges) are ranges this reader
 * does not place: unplaced. Not events: 33 category, 36/38 (the pop / end records of 35/37), 39 thread name,
 * 64-69 (other imported NVTXT records), 76 domain destroy, 97-99 resource names. Any other type, and a row
 * without one, is unplaced: the reader selects every row and judges its type here, so a type that is not an
 * integer (59.5, 'fiftynine') is an error, never a row that silently vanishes. */
static int nvtx_not_event(int64_t type)
{
    return type == 33 || type == 36 || type == 38 || type == 39 || (type >= 64 && type <= 69) || type == 76 ||
           (type >= 97 && type <= 99);
}

/* One pass over NVTX_EVENTS: pass 0 reads the domain names (eventType 75) so pass 1 can name the
 * domains of the ranges, wherever the rows sit in the table (two queries: no sort of a huge table). */
static int read_nvtx_pass(struct sctx *c, const char *select, int pass)
{
    static const char table[] = "NVTX_EVENTS";
    char sql[600];
    sqlite3_stmt *st = NULL;
    int rc;
    snprintf(sql, sizeof sql, "%s, rowid FROM NVTX_EVENTS WHERE eventType %s", select,
             pass == 0 ? "= " PS_SQL_INT(PS_NSYS_NVTX_DOMAIN_CREATE) : "IS NOT " PS_SQL_INT(PS_NSYS_NVTX_DOMAIN_CREATE));
    after_clause(c, sql, sizeof sql, "AND", PS_SQ_NVTX, pass == 1);
    if (ps_sq_prepare(c, table, sql, &st) < 0)
        return -EINVAL;
    long long row = 0;
    int ncols = row_cols(c, st, table);
    struct ps_sq_row v;
    if (ncols < 0)
        goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row++;
        if (fetch_ints(c, st, table, ncols, 3, &v) < 0)
            goto fail;
        int64_t type = v.v[2];
        if (v.t[2] == SQLITE_NULL) {
            count_unplaced(c, table, "rows without eventType");
            continue;
        }
        if (nvtx_not_event(type))
            continue;
        int has_tid = v.t[5] != SQLITE_NULL;
        int64_t gtid = v.v[5];
        uint32_t pid = ps_global_to_pid(gtid);
        int64_t domain_id = v.v[6];
        uint32_t text;
        if (v.t[3] != SQLITE_NULL)
            text = ps_sq_intern_col(c, st, 3);
        else if (v.t[4] == SQLITE_NULL)
            text = ps_model_intern_cstr(c->m, "");
        else if (ps_sq_string_of(c, v.v[4], table, "textId", &text) < 0)
            goto fail;
        if (text == PS_NONE)
            goto oom;
        if (type == PS_NSYS_NVTX_DOMAIN_CREATE) {             /* domain ids are per process (nsys joins on globalTid >> 24) */
            if (ps_idmap_put(&c->domains, ((uint64_t)pid << 32) | (uint32_t)domain_id, text) < 0)
                goto oom;
            continue;
        }
        if (type != PS_NSYS_NVTX_MARK && type != PS_NSYS_NVTX_PUSHPOP && type != PS_NSYS_NVTX_STARTEND) {
            int unsupported = type == PS_NSYS_NVTX_PUSH || type == PS_NSYS_NVTX_START ||
                              type == PS_NSYS_NVTXT_PUSHPOP || type == PS_NSYS_NVTXT_STARTEND;
            count_unplaced(c, table, unsupported ? "rows of unsupported range types (35/37/70/71)"
                                                 : "rows of unknown eventType");
            continue;
        }
        struct ps_range r = { .start_ns = v.v[0], .name = text, .domain = PS_NONE,
                              .kind = type == PS_NSYS_NVTX_MARK      ? PS_RANGE_NVTX_MARK
                                      : type == PS_NSYS_NVTX_PUSHPOP ? PS_RANGE_NVTX_PUSHPOP
                                                                     : PS_RANGE_NVTX_STARTEND };
        r.end_ns = type == PS_NSYS_NVTX_MARK ? r.start_ns : v.v[1];
        if (v.t[7] != SQLITE_NULL)      /* NVTX categories are uint32; the model keeps 1..65535 (0: none) */
            r.category = v.v[7] > 0 && v.v[7] <= UINT16_MAX ? (uint16_t)v.v[7] : 0;
        if (!has_tid) {
            count_unplaced(c, table, "rows without globalTid");
            continue;
        }
        int never_ended = type != PS_NSYS_NVTX_MARK && v.t[1] == SQLITE_NULL;
        if (never_ended)
            r.end_ns = -1;
        else if (r.end_ns < r.start_ns) {
            count_unplaced(c, table, "rows with end < start");
            continue;
        }
        if (domain_id != 0) {
            r.domain = ps_idmap_get(&c->domains, ((uint64_t)pid << 32) | (uint32_t)domain_id);
            if (r.domain == PS_NONE) {
                char name[48];
                snprintf(name, sizeof name, "domain %lld", (long long)domain_id);
                if ((r.domain = ps_model_intern_cstr(c->m, name)) == PS_NONE)
                    goto oom;
            }
        }
        r.thread = ps_sq_thread_of(c, gtid);
        if (r.thread == PS_NONE ||
            (never_ended ? ps_model_add_open_range(c->m, &r) : ps_model_add_range(c->m, &r)) < 0)
            goto oom;
    }
    if (rc != SQLITE_DONE) {
        ps_sq_step_error(c, table, row + 1);
        goto fail;
    }
    sqlite3_finalize(st);
    return 0;
oom:
    ps_sq_oom(c);
fail:
    sqlite3_finalize(st);
    return -EINVAL;
}

static int read_nvtx(struct sctx *c)
{
    static const char table[] = "NVTX_EVENTS";
    char select[400] = "SELECT ";
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, table) < 0 || ps_sq_add_col(c, select, sizeof select, table, "start", NULL) < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "end", "NULL") < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "eventType", NULL) < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "text", "NULL") < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "textId", "NULL") < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "globalTid", "NULL") < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "domainId", "NULL") < 0 ||
        ps_sq_add_col(c, select, sizeof select, table, "category", "NULL") < 0)
        return -EINVAL;
    return read_nvtx_pass(c, select, 0) < 0 ? -EINVAL : read_nvtx_pass(c, select, 1);
}

/* ---- the whole file ---- */

const char *const ps_sq_tables[PS_SQ_TABLES] = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
};

int ps_sq_read_activity(struct sctx *c)
{
    struct ps_model *m = c->m;
    int rc;
    if ((rc = read_gpu_table(c, "CUPTI_ACTIVITY_KIND_KERNEL", PS_GPU_KERNEL)) < 0 ||
        (rc = read_gpu_table(c, "CUPTI_ACTIVITY_KIND_MEMCPY", PS_GPU_MEMCPY)) < 0 ||
        (rc = read_gpu_table(c, "CUPTI_ACTIVITY_KIND_MEMSET", PS_GPU_MEMSET)) < 0 ||
        (rc = read_gpu_table(c, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", PS_GPU_SYNC)) < 0 ||
        (rc = read_api(c)) < 0 || (rc = read_nvtx(c)) < 0)
        return rc;
    for (size_t i = 0; i < m->threads.n; i++)
        if (ps_model_process(m, m->threads.v[i].pid) == PS_NONE)
            return ps_sq_oom(c);
    for (size_t i = 0; i < m->streams.n; i++)
        if (m->streams.v[i].pid && ps_model_process(m, m->streams.v[i].pid) == PS_NONE)
            return ps_sq_oom(c);
    return 0;
}

void ps_sq_free_maps(struct sctx *c)
{
    ps_idmap_fini(&c->strings);
    ps_idmap_fini(&c->threads);
    ps_idmap_fini(&c->streams);
    ps_idmap_fini(&c->copy_names);
    ps_idmap_fini(&c->domains);
}

int ps_read_sqlite(const char *path, struct ps_model *m, char *err, size_t errlen)
{
    struct sctx c = { .m = m, .path = path, .err = err, .errlen = errlen };
    int rc, found = 0;

    if ((rc = ps_sq_open(&c)) < 0)
        goto out;
    for (size_t i = 0; i < PS_SQ_TABLES; i++) {
        if ((rc = ps_sq_table_exists(&c, ps_sq_tables[i])) < 0)
            goto out;
        found += rc;
    }
    if (!found) {
        if (c.wal_alone)
            rc = ps_read_fail(err, errlen, "%s: SQLite file without trace tables, in WAL mode and without its -wal "
                              "file (%s-wal is missing): the main file of a killed recording copied without its "
                              "-wal? A recording keeps its recent rows there: copy both files", path, path);
        else
            rc = ps_read_fail(err, errlen, "%s: SQLite file without trace tables (no NVTX_EVENTS nor "
                              "CUPTI_ACTIVITY_KIND_* table): not a perfscope or Nsight Systems trace", path);
        goto out;
    }
    int is_perfscope = ps_sq_table_exists(&c, "PERFSCOPE_META");
    c.have_string_ids = ps_sq_table_exists(&c, "StringIds");
    if ((rc = is_perfscope < 0 ? is_perfscope : c.have_string_ids) < 0)
        goto out;
    m->format = is_perfscope ? PS_FORMAT_PERFSCOPE : PS_FORMAT_NSYS;
    m->correlation_global = 0;
    if (c.have_string_ids &&
        (rc = ps_sq_prepare(&c, "StringIds", "SELECT value FROM StringIds WHERE id = ?", &c.string_stmt)) < 0)
        goto out;
    if ((rc = c.have_api = api_rows_exist(&c)) < 0)
        goto out;
    if (is_perfscope && c.wal_missing && ps_model_add_meta(m, "wal_file_missing", "1") < 0) {
        rc = ps_sq_oom(&c);
        goto out;
    }
    if ((is_perfscope && (rc = ps_sq_read_meta(&c)) < 0) || (rc = ps_sq_read_activity(&c)) < 0 ||
        (rc = ps_sq_read_stream_waits(&c)) < 0 ||
        (rc = ps_sq_read_host_tables(&c, is_perfscope)) < 0 || (rc = ps_sq_read_memory(&c)) < 0 ||
        (is_perfscope && (rc = ps_sq_read_python(&c)) < 0))
        goto out;
    if (ps_unplaced_summary(&c.unplaced, m) < 0) {
        rc = ps_sq_oom(&c);
        goto out;
    }
    rc = 0;
out:
    ps_sq_close(&c);
    ps_sq_free_maps(&c);
    return rc;
}
