/* What each stream wait of a Nsight Systems export (or a perfscope trace) waits on: the rows of
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION of syncType 2 (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, as the
 * export's ENUM_CUPTI_SYNC_TYPE numbers it) joined to the CUPTI_ACTIVITY_KIND_CUDA_EVENT row of the event's record
 * (its stream and the cudaEventRecord call's correlation id), into the model's stream waits (model.h). Both tables
 * are optional; so is the join: a wait whose record the file lacks keeps an unknown stream. Columns as Nsight
 * Systems' export documentation and the DDL comments of its exports (schema 3.25) give them (docs/readers.md
 * "Stream waits"): SYNCHRONIZATION(start, deviceId, streamId, correlationId, globalPid, syncType, eventId,
 * eventSyncId), CUDA_EVENT(streamId, correlationId, globalPid, eventId, eventSyncId: "CUDA Event Sync ID to link event
 * record API to related synchronization APIs"). Read only in one go (ps_read_sqlite), not by a growing model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_globalid.h"
#include "read_sqlite_impl.h"

#define SYNC_TABLE "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define EVENT_TABLE "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
#define STREAM_WAIT_EVENT 2   /* ENUM_CUPTI_SYNC_TYPE: CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT */

struct record {                /* one CUDA_EVENT row: an event recorded on a stream */
    uint32_t pid;
    int64_t event, sync_id;    /* sync_id -1: the row has none */
    int64_t corr, stream;
};

struct records {
    struct record *v;
    size_t n, cap;
};

static int cmp_record(const void *a, const void *b)
{
    const struct record *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1;
    CMP(pid) CMP(event) CMP(sync_id) CMP(corr)
#undef CMP
    return 0;
}

/* A stream id as CUPTI numbers them (uint32; 2^32 - 1 is CUPTI's "none"), else -1. */
static int64_t stream_id(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
        return -1;
    int64_t v = sqlite3_column_int64(st, i);
    return v >= 0 && v < UINT32_MAX ? v : -1;
}

/* Every CUDA_EVENT row with an event id, a correlation id and a stream, sorted for lookup. 0 or -EINVAL/-ENOMEM
 * (message set). */
static int read_records(struct sctx *c, struct records *out)
{
    int rc = ps_sq_table_exists(c, EVENT_TABLE);
    if (rc <= 0)
        return rc;
    char sql[400] = "SELECT ";
    if (ps_sq_load_cols(c, EVENT_TABLE) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, EVENT_TABLE, "globalPid", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, EVENT_TABLE, "eventId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, EVENT_TABLE, "eventSyncId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, EVENT_TABLE, "correlationId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, EVENT_TABLE, "streamId", "NULL") < 0)
        return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), " FROM \"%s\"", EVENT_TABLE);
    sqlite3_stmt *st = NULL;
    if (ps_sq_prepare(c, EVENT_TABLE, sql, &st) < 0)
        return -EINVAL;
    long long n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
            sqlite3_column_int64(st, 3) <= 0 || stream_id(st, 4) < 0)
            continue;   /* names no record we could find: left out (the waits on it stay unknown) */
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 64;
            struct record *v = realloc(out->v, cap * sizeof *v);
            if (!v) {
                sqlite3_finalize(st);
                return ps_sq_oom(c);
            }
            out->v = v, out->cap = cap;
        }
        out->v[out->n++] = (struct record){
            .pid = ps_global_to_pid(sqlite3_column_int64(st, 0)), .event = sqlite3_column_int64(st, 1),
            .sync_id = sqlite3_column_type(st, 2) == SQLITE_INTEGER ? sqlite3_column_int64(st, 2) : -1,
            .corr = sqlite3_column_int64(st, 3), .stream = stream_id(st, 4) };
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return ps_sq_step_error(c, EVENT_TABLE, n + 1);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_record);
    return 0;
}

/* The record a wait waits on: the one with its (process, event, sync id), the latest of them recorded before the
 * wait's call (CUDA waits on the event's most recent record: correlation ids grow in call order within a process);
 * without a sync id, the latest record of the event before the call. NULL when the file has none. */
static const struct record *find_record(const struct records *rs, uint32_t pid, int64_t event, int64_t sync_id,
                                        int64_t corr)
{
    struct record key = { .pid = pid, .event = event, .sync_id = sync_id, .corr = corr > 0 ? corr : INT64_MAX };
    size_t lo = 0, hi = rs->n;
    while (lo < hi) {   /* the first record not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_record(&rs->v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct record *r = &rs->v[lo - 1];
    return r->pid == pid && r->event == event && r->sync_id == sync_id ? r : NULL;
}

int ps_sq_read_stream_waits(struct sctx *c)
{
    int rc = ps_sq_table_exists(c, SYNC_TABLE);
    if (rc <= 0)
        return rc;
    char sql[512] = "SELECT ";
    if (ps_sq_load_cols(c, SYNC_TABLE) < 0 || ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "start", NULL) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "deviceId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "streamId", NULL) < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "globalPid", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "correlationId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "eventId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "eventSyncId", "NULL") < 0 ||
        ps_sq_add_col(c, sql, sizeof sql, SYNC_TABLE, "syncType", NULL) < 0)
        return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), " FROM \"%s\" ORDER BY rowid", SYNC_TABLE);
    struct records rs = { 0 };
    sqlite3_stmt *st = NULL;
    if ((rc = read_records(c, &rs)) < 0)
        goto out;
    if ((rc = ps_sq_prepare(c, SYNC_TABLE, sql, &st)) < 0)
        goto out;
    long long n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        int64_t stream = stream_id(st, 2), dev = sqlite3_column_int64(st, 1);
        if (sqlite3_column_type(st, 7) != SQLITE_INTEGER || sqlite3_column_int64(st, 7) != STREAM_WAIT_EVENT ||
            sqlite3_column_type(st, 0) != SQLITE_INTEGER || stream < 0)
            continue;
        uint32_t pid = ps_global_to_pid(sqlite3_column_int64(st, 3));
        struct ps_stream_wait w = { .time_ns = sqlite3_column_int64(st, 0), .stream = stream, .on_stream = -1,
                                    .pid = pid,
                                    .device = sqlite3_column_type(st, 1) == SQLITE_INTEGER && dev >= 0 &&
                                              dev <= INT32_MAX ? (int32_t)dev : -1 };
        const struct record *r = NULL;
        if (sqlite3_column_type(st, 5) == SQLITE_INTEGER)
            r = find_record(&rs, pid, sqlite3_column_int64(st, 5),
                            sqlite3_column_type(st, 6) == SQLITE_INTEGER ? sqlite3_column_int64(st, 6) : -1,
                            sqlite3_column_type(st, 4) == SQLITE_INTEGER ? sqlite3_column_int64(st, 4) : 0);
        if (r) {
            w.on_stream = r->stream;
            w.record_corr = (uint64_t)r->corr;
        }
        if (ps_model_add_stream_wait(c->m, &w) < 0) {
            rc = ps_sq_oom(c);
            goto out;
        }
    }
    rc = rc == SQLITE_DONE ? 0 : ps_sq_step_error(c, SYNC_TABLE, n + 1);
out:
    sqlite3_finalize(st);
    free(rs.v);
    return rc;
}
