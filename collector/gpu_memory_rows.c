/* GPU memory rows: CUPTI memory records (common/ps_wire_gpu.h PS_WIRE_GPU_MEMORY, _MEMPOOL) -> Nsight Systems'
 * CUDA_GPU_MEMORY_USAGE_EVENTS and CUDA_GPU_MEMORY_POOL_EVENTS with their ENUM tables, as `nsys profile
 * --cuda-memory-usage=true` exports them (NVIDIA's SQLite schema reference; docs/trace-format.md), so SQL written for
 * nsys runs on perfscope traces and the analyzer reads both alike (analyzer/read/read_sqlite_memory.c).
 * Numbering: nsys' operation is CUPTI's minus one (CUpti_ActivityMemoryOperationType 1 allocation, 2 release ->
 * ENUM_CUDA_DEV_MEM_EVENT_OPER 0, 1); memory kinds as ps_gpu_nsys_mem_kind; pool operations and types keep CUPTI's
 * numbering (ENUM_CUDA_MEMPOOL_OPER, ENUM_CUDA_MEMPOOL_TYPE use the same). Tables are created with the first record. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_memory_rows.h"
#include "ps_wire_gpu.h"

static const char memory_schema[] =
    "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS(start INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL,"
    " bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, name TEXT,"
    " correlationId INTEGER, localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,"
    " localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER,"
    " importedMemoryPoolProcessId INTEGER, streamId INTEGER);\n"
    "CREATE TABLE CUDA_GPU_MEMORY_POOL_EVENTS(start INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, address INTEGER NOT NULL, operationType INTEGER NOT NULL, poolType INTEGER NOT NULL,"
    " correlationId INTEGER, minBytesToKeep INTEGER, localMemoryPoolReleaseThreshold INTEGER,"
    " localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER);\n"
    "CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_MEMPOOL_OPER(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_MEMPOOL_TYPE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES (0,'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION','Allocation'),"
    " (1,'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION','Deallocation');\n"
    "INSERT INTO ENUM_CUDA_MEMPOOL_OPER VALUES (0,'CUDA_MEMPOOL_OPER_INVALID','Invalid'),"
    " (1,'CUDA_MEMPOOL_OPER_CREATED','Created'), (2,'CUDA_MEMPOOL_OPER_DESTROYED','Destroyed'),"
    " (3,'CUDA_MEMPOOL_OPER_TRIMMED','Trimmed');\n"
    "INSERT INTO ENUM_CUDA_MEMPOOL_TYPE VALUES (0,'CUDA_MEMPOOL_TYPE_INVALID','Invalid'),"
    " (1,'CUDA_MEMPOOL_TYPE_LOCAL','Local'), (2,'CUDA_MEMPOOL_TYPE_IMPORTED','Imported');\n";

static int create(struct ps_gpu_memory_rows *g, struct ps_tw *w)
{
    if (g->created)
        return 0;
    for (const char *sql = memory_schema; *sql;) {
        const char *semi = strchr(sql, ';');
        if (!semi)
            break;
        char *one = strndup(sql, (size_t)(semi - sql + 1));
        if (!one)
            return -ENOMEM;
        sqlite3_stmt *st = ps_tw_prepare(w, one);
        free(one);
        if (!st || ps_tw_exec(w, st))
            return -EIO;
        for (sql = semi + 1; *sql == '\n' || *sql == ' ';)
            sql++;
    }
    g->st_usage = ps_tw_prepare(w, "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES(?,?,?,?,?,?,?,?,?,NULL,?,?,?,?,?,"
                                   "?,?,?)");
    g->st_pool = ps_tw_prepare(w, "INSERT INTO CUDA_GPU_MEMORY_POOL_EVENTS VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    if (!g->st_usage || !g->st_pool)
        return -EIO;
    g->created = 1;
    return 0;
}

static void bind_u64_or_null(sqlite3_stmt *st, int i, int set, uint64_t v)
{
    if (set)
        sqlite3_bind_int64(st, i, (int64_t)v);
    else
        sqlite3_bind_null(st, i);
}

static int usage_row(struct ps_gpu_memory_rows *g, struct ps_tw *w, const struct ps_gpu_src *src,
                     const struct ps_wire_gpu_memory *m)
{
    if (m->operation != 1 && m->operation != 2)
        return 0;                   /* CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID: nothing to write */
    sqlite3_stmt *st = g->st_usage;
    int i = 1, local = m->pool_type == 1, imported = m->pool_type == 2;
    sqlite3_bind_int64(st, i++, (int64_t)m->timestamp_ns - src->origin_ns);
    sqlite3_bind_int64(st, i++, src->global_pid);
    sqlite3_bind_int64(st, i++, m->device_id);
    sqlite3_bind_int64(st, i++, m->context_id);
    sqlite3_bind_int64(st, i++, (int64_t)m->address);
    sqlite3_bind_int64(st, i++, (int64_t)m->pc);
    sqlite3_bind_int64(st, i++, (int64_t)m->bytes);
    sqlite3_bind_int64(st, i++, ps_gpu_nsys_mem_kind(m->memory_kind));
    sqlite3_bind_int64(st, i++, m->operation - 1);
    sqlite3_bind_int64(st, i++, m->correlation_id);
    bind_u64_or_null(st, i++, local, m->pool_address);
    bind_u64_or_null(st, i++, local, m->pool_release_threshold);
    bind_u64_or_null(st, i++, local, m->pool_size_or_pid);
    bind_u64_or_null(st, i++, local, m->pool_utilized_bytes);
    bind_u64_or_null(st, i++, imported, m->pool_address);
    bind_u64_or_null(st, i++, imported, m->pool_size_or_pid);
    sqlite3_bind_int64(st, i++, m->stream_id);
    return ps_tw_exec(w, st);
}

static int pool_row(struct ps_gpu_memory_rows *g, struct ps_tw *w, const struct ps_gpu_src *src,
                    const struct ps_wire_gpu_mempool *p)
{
    sqlite3_stmt *st = g->st_pool;
    int i = 1;
    sqlite3_bind_int64(st, i++, (int64_t)p->timestamp_ns - src->origin_ns);
    sqlite3_bind_int64(st, i++, src->global_pid);
    sqlite3_bind_int64(st, i++, p->device_id);
    sqlite3_bind_int64(st, i++, (int64_t)p->address);
    sqlite3_bind_int64(st, i++, p->operation);
    sqlite3_bind_int64(st, i++, p->pool_type);
    sqlite3_bind_int64(st, i++, p->correlation_id);
    bind_u64_or_null(st, i++, p->operation == 3, p->min_bytes_to_keep);
    sqlite3_bind_int64(st, i++, (int64_t)p->release_threshold);
    sqlite3_bind_int64(st, i++, (int64_t)p->size);
    sqlite3_bind_int64(st, i++, (int64_t)p->utilized_bytes);
    return ps_tw_exec(w, st);
}

int ps_gpu_memory_rows_write(struct ps_gpu_memory_rows *g, struct ps_tw *w, const struct ps_gpu_src *src,
                             const struct ps_wire_hdr *rec)
{
    if (rec->type == PS_WIRE_GPU_MEMORY && rec->size < sizeof(struct ps_wire_gpu_memory))
        return 1;
    if (rec->type == PS_WIRE_GPU_MEMPOOL && rec->size < sizeof(struct ps_wire_gpu_mempool))
        return 1;
    if (rec->type != PS_WIRE_GPU_MEMORY && rec->type != PS_WIRE_GPU_MEMPOOL)
        return 1;
    int rc = create(g, w);
    if (rc)
        return rc;
    return rec->type == PS_WIRE_GPU_MEMORY ? usage_row(g, w, src, (const void *)rec)
                                           : pool_row(g, w, src, (const void *)rec);
}
