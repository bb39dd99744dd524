/* Nsight Systems' CUDA_GPU_MEMORY_USAGE_EVENTS (written by `nsys profile --cuda-memory-usage=true`; perfscope's own
 * traces write the same table from CUPTI memory records, docs/trace-format.md): one row per driver-level allocation
 * or release with its device, address, size, memory kind (ENUM_CUDA_MEM_KIND) and operation
 * (ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation), into the model's memory events (analyses/memory.c).
 * Rows are read in (start, operation, rowid) order: an allocation sorts before a release at the same ns, the
 * conservative peak. The table is optional: without it the trace has no memory data. Also perfscope's NVML memory
 * samples (PERFSCOPE_GPU_SAMPLES memUsedBytes / memTotalBytes). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "read_sqlite_impl.h"

#define TABLE "CUDA_GPU_MEMORY_USAGE_EVENTS"

/* start, deviceId, address, bytes, memKind, memoryOperationType, globalPid, localMemoryPoolAddress, rowid */
static int memory_row(struct sctx *c, sqlite3_stmt *st)
{
    for (int i = 0; i < 8; i++) {
        int t = sqlite3_column_type(st, i);
        if (t != SQLITE_INTEGER && !(t == SQLITE_NULL && i >= 6))
            return ps_sq_type_error(c, st, TABLE, i, t, "an integer");
    }
    int64_t dev = sqlite3_column_int64(st, 1), bytes = sqlite3_column_int64(st, 3), kind = sqlite3_column_int64(st, 4);
    int64_t op = sqlite3_column_int64(st, 5), gpid = sqlite3_column_int64(st, 6);
    if (dev < 0 || dev > INT32_MAX || bytes < 0 || (op != 0 && op != 1)) {
        ps_unplaced_count(&c->unplaced, c->m, TABLE " rows with a negative device or size, or an unknown operation");
        return 0;
    }
    if (bytes > PS_MEM_BYTES_MAX)   /* no memory holds that much; the memory view's sums must stay in int64 */
        return ps_read_fail(c->err, c->errlen, "%s: table %s, column bytes, rowid %lld: %lld is out of range (0 to "
                            "%lld): the trace is corrupt", c->path, TABLE, (long long)sqlite3_column_int64(st, 8),
                            (long long)bytes, (long long)PS_MEM_BYTES_MAX);
    struct ps_mem_event e = {
        .time_ns = sqlite3_column_int64(st, 0), .bytes = op == 0 ? bytes : -bytes, .total_allocated = -1,
        .total_reserved = -1, .addr = (uint64_t)sqlite3_column_int64(st, 2), .pid = (uint32_t)((gpid >> 24) & 0xFFFFFF),
        .device = (int32_t)dev, .device_type = 1, .has_addr = 1,
        .mem_kind = kind >= 0 && kind <= PS_MEM_UNKNOWN ? (uint8_t)kind : PS_MEM_UNKNOWN,
        .pool = sqlite3_column_type(st, 7) != SQLITE_NULL,
    };
    return ps_model_add_mem_event(c->m, &e) < 0 ? ps_sq_oom(c) : 0;
}

/* PERFSCOPE_GPU_SAMPLES (perfscope traces): timestamp, deviceIndex, memUsedBytes, memTotalBytes, rowid; rows without
 * a used figure are skipped. */
static int nvml_memory(struct sctx *c)
{
    static const char *const table = "PERFSCOPE_GPU_SAMPLES";
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, table) < 0)
        return -EINVAL;
    if (!ps_sq_has_col(c, "memUsedBytes"))
        return 0;
    sqlite3_stmt *st = NULL;
    if (ps_sq_prepare(c, table, "SELECT timestamp, deviceIndex, memUsedBytes, memTotalBytes, rowid FROM "
                      "PERFSCOPE_GPU_SAMPLES WHERE memUsedBytes IS NOT NULL ORDER BY rowid", &st) < 0)
        return -EINVAL;
    long long n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        for (int i = 0; i < 4; i++) {
            int t = sqlite3_column_type(st, i);
            if (t != SQLITE_INTEGER && !(t == SQLITE_NULL && i == 3)) {
                rc = ps_sq_type_error(c, st, table, i, t, "an integer");
                sqlite3_finalize(st);
                return rc;
            }
        }
        struct ps_nvml_mem_sample s = { sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
                                        sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3),
                                        (int32_t)sqlite3_column_int64(st, 1) };
        int64_t dev = sqlite3_column_int64(st, 1);
        if (s.used_bytes < 0 || dev < 0 || dev > INT32_MAX || s.total_bytes < -1) {
            ps_unplaced_count(&c->unplaced, c->m, "PERFSCOPE_GPU_SAMPLES rows with a negative memory or device");
            continue;
        }
        if (ps_model_add_nvml_mem(c->m, &s) < 0) {
            sqlite3_finalize(st);
            return ps_sq_oom(c);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : ps_sq_step_error(c, table, n + 1);
}

int ps_sq_read_memory(struct sctx *c)
{
    if (nvml_memory(c) < 0)
        return -EINVAL;
    static const char *const cols[] = { "start", "deviceId", "address", "bytes", "memKind", "memoryOperationType",
                                        "globalPid", "localMemoryPoolAddress" };
    char sql[512] = "SELECT ";
    int rc = ps_sq_table_exists(c, TABLE);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, TABLE) < 0)
        return -EINVAL;
    for (int i = 0; i < 8; i++)
        if (ps_sq_add_col(c, sql, sizeof sql, TABLE, cols[i], i < 6 ? NULL : "NULL") < 0)
            return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", rowid FROM \"%s\" ORDER BY 1, 6, rowid", TABLE);
    sqlite3_stmt *st = NULL;
    if (ps_sq_prepare(c, TABLE, sql, &st) < 0)
        return -EINVAL;
    long long n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        if (memory_row(c, st) < 0) {
            sqlite3_finalize(st);
            return -EINVAL;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return ps_sq_step_error(c, TABLE, n + 1);
    return 0;
}
