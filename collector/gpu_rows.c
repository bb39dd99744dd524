/* GPU rows (see gpu_rows.h): GPU wire records (common/ps_wire_gpu.h) -> Nsight Systems' CUPTI_ACTIVITY_KIND_*,
 * TARGET_INFO_GPU / _CUDA_DEVICE and ENUM_* tables, with its column names, types and numbering (schema 3.25,
 * checked against shared/traces/nsys/h100_2gpu_1s.sqlite; docs/trace-format.md). Tables are
 * created with the first GPU record of the run, as nsys creates only the tables it has data for. */
#include "gpu_rows.h"
#include "gpu_memory_rows.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "ps_globalid.h"
#include "ps_schema.h"
#include "ps_wire_gpu.h"

/* The C++ runtime's demangler (libstdc++, Itanium C++ ABI §5.1 "__cxa_demangle"). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Name ids of one process's PS_WIRE_GPU_STRING: StringIds ids, reserved when a record needs the name
 * before its string arrives (another writer thread's lane) and defined when it does. */
struct gname {
    int64_t mangled, demangled, shortn;  /* API names use `mangled` only */
    int defined;
};

/* Per-process GPU loss counters (the last PS_WIRE_GPU_DROPS record). */
struct gproc {
    uint32_t pid;
    struct ps_wire_gpu_drops drops;
};

struct ps_gpu_rows {
    struct ps_tw *w;
    int created;
    struct ps_u64map names;        /* pid << 32 | name id -> index + 1 in `gnames` */
    struct gname *gnames;
    size_t n_gnames, cap_gnames;
    struct ps_u64map ctx_dev;      /* pid << 32 | context id -> device id */
    struct ps_u64map gpus;         /* GPU key (UUID hash) -> TARGET_INFO_GPU.id + 1 */
    struct ps_u64map cuda_devs;    /* pid << 32 | CUDA ordinal -> 1: TARGET_INFO_CUDA_DEVICE row written */
    uint64_t gpu_ids_used;         /* TARGET_INFO_GPU ids 0..63 taken (bit i) */
    uint32_t next_gpu_id;          /* past every id taken */
    struct ps_u64map procs;        /* pid -> index + 1 in `gprocs` */
    struct gproc *gprocs;
    size_t n_gprocs, cap_gprocs;
    sqlite3_stmt *st_kernel, *st_memcpy, *st_memset, *st_sync, *st_api, *st_gpu, *st_cudadev, *st_overhead;
    struct ps_gpu_memory_rows memory;   /* CUDA_GPU_MEMORY_* tables (gpu_memory_rows.c) */
};

/* Column lists as in nsys' export DDL; SYNCHRONIZATION.deviceId is nullable here (CUPTI's sync record has
 * no device: it comes from the CONTEXT record, which may be missing). */
static const char schema_sql[] =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,"
    " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL REFERENCES StringIds(id),"
    " shortName INTEGER NOT NULL REFERENCES StringIds(id), mangledName INTEGER REFERENCES StringIds(id),"
    " launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,"
    " gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,"
    " blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
    " localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,"
    " sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER,"
    " qmdBulkReleaseDone INTEGER, qmdPreexitDone INTEGER, qmdLastCtaDone INTEGER, graphId INTEGER,"
    " clusterX INTEGER, clusterY INTEGER, clusterZ INTEGER, clusterSchedulingPolicy INTEGER,"
    " maxPotentialClusterSize INTEGER, maxActiveClusters INTEGER, sharedMemoryRequestedPercentage INTEGER,"
    " tensorSizeMinusOneElements TEXT NOT NULL);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,"
    " correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,"
    " deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,"
    " dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,"
    " virtualAddress INTEGER, copyCount INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,"
    " correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,"
    " graphNodeId INTEGER, memKind INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " deviceId INTEGER, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,"
    " correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL,"
    " eventId INTEGER NOT NULL, eventSyncId INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
    " nameId INTEGER NOT NULL REFERENCES StringIds(id), returnValue INTEGER NOT NULL, callchainId INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
    " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER REFERENCES StringIds(id),"
    " overheadType INTEGER NOT NULL);\n"
    "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,"
    " isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,"
    " smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,"
    " ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER,"
    " maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,"
    " maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER,"
    " maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER,"
    " maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER,"
    " computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);\n"
    "CREATE TABLE TARGET_INFO_CUDA_DEVICE(gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL,"
    " uuid TEXT, numMultiprocessors INTEGER);\n"
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_MEM_KIND(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUPTI_SYNC_TYPE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_NSYS_EVENT_CLASS(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_FUNC_CACHE_CONFIG(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    /* Rows as in the nsys 2026.2 export of shared/traces/nsys (ENUM_NSYS_EVENT_CLASS: the classes used). */
    "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),"
    " (1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'), (2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),"
    " (3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array'), (4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host'),"
    " (5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array'), (6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device'),"
    " (7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array'), (8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device'),"
    " (9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host'), (10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer'),"
    " (11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device'),"
    " (12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host'),"
    " (13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device');\n"
    "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),"
    " (1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'), (2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device'),"
    " (3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array'), (4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed'),"
    " (5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static'),"
    " (6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static'), (7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');\n"
    "INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN','Unknown'),"
    " (1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE','Event sync'),"
    " (2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT','Stream wait sync'),"
    " (3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE','Stream sync'),"
    " (4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE','Context sync');\n"
    "INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (0,'TRACE_PROCESS_EVENT_CUDA_RUNTIME','CUDA runtime'),"
    " (1,'TRACE_PROCESS_EVENT_CUDA_DRIVER','CUDA driver'),"
    " (103,'TRACE_PROCESS_EVENT_CUDA_OVERHEAD','CUDA overhead');\n"
    "INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES (0,'CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN','Unknown'),"
    " (1,'CUDA_KERNEL_LAUNCH_TYPE_REGULAR','Regular'),"
    " (2,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE','Coop Single Device'),"
    " (3,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE','Coop Multi Device');\n"
    "INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES (0,'CU_FUNC_CACHE_PREFER_NONE','None'),"
    " (1,'CU_FUNC_CACHE_PREFER_SHARED','Shared'), (2,'CU_FUNC_CACHE_PREFER_L1','L1'),"
    " (3,'CU_FUNC_CACHE_PREFER_EQUAL','Equal');\n"
    "INSERT INTO ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG VALUES (0,'CUDA_SHARED_MEM_LIMIT_DEFAULT','Default'),"
    " (1,'CUDA_SHARED_MEM_LIMIT_OPTIN','Opt in');\n"
    "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (0,'OVERHEAD_UNDEFINED','Undefined'),"
    " (1,'OVERHEAD_UNKNOWN','Unknown'), (2,'OVERHEAD_DRIVER_COMPILER','Driver JIT compiler (CUDA)'),"
    " (3,'OVERHEAD_CUPTI_BUFFER_FLUSH','Buffer flush (Profiler)'),"
    " (4,'OVERHEAD_CUPTI_INSTRUMENTATION','Instrumentation (Profiler)'),"
    " (5,'OVERHEAD_CUPTI_RESOURCE','Resource creation/destruction (Profiler)'),"
    " (6,'OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING','Runtime module loading (CUDA)'),"
    " (7,'OVERHEAD_LAZY_FUNCTION_LOADING','Lazy function loading (CUDA)'),"
    " (8,'OVERHEAD_COMMAND_BUFFER_FULL','Command buffer full (CUDA)');\n";

/* CUPTI's memory kinds 1 pageable ... 7 are nsys' 0 ... 6 (ps_nsys_mem_kind); anything else is its last, Unknown. */
int ps_gpu_nsys_mem_kind(unsigned cupti_kind)
{
    return cupti_kind >= 1 && cupti_kind < PS_NSYS_MEM_KINDS ? (int)cupti_kind - 1 : PS_NSYS_MEM_KINDS - 1;
}

/* nameId strings of CUPTI_ACTIVITY_KIND_OVERHEAD rows, by nsys overhead type (ENUM_CUPTI_OVERHEAD_TYPE above). */
static const char *const overhead_names[] = {
    "Undefined", "Unknown", "Driver JIT compiler", "Buffer flush", "Instrumentation",
    "Resource creation/destruction", "Runtime module loading", "Lazy function loading", "Command Buffer Full",
};
#define NSYS_OVERHEAD_TYPES (sizeof overhead_names / sizeof overhead_names[0])

/* nsys' ENUM_CUPTI_OVERHEAD_TYPE from CUPTI's CUpti_ActivityOverheadKind (0 unknown, 1 driver compiler,
 * k << 16 for k = 1 buffer flush ... 6 command buffer full, nsys 3 ... 8); later CUPTI kinds become Unknown. */
static int nsys_overhead_type(uint32_t k)
{
    if (k == 1)
        return 2;
    if (k && !(k & 0xffff) && (k >> 16) + 2 < NSYS_OVERHEAD_TYPES)
        return (int)(k >> 16) + 2;
    return 1;
}

int ps_gpu_short_name(const char *demangled, char *out, size_t out_len)
{
    const char *s = demangled, *end = NULL;
    int angle = 0;
    /* The parameter list starts at the first '(' outside template arguments. */
    for (const char *p = s; *p && !end; p++) {
        if (!strncmp(p, "(anonymous namespace)", 21)) {
            p += 20;
            continue;
        }
        if (*p == '<')
            angle++;
        else if (*p == '>' && angle > 0)
            angle--;
        else if (*p == '(' && angle == 0 && p > s)
            end = p;
    }
    if (!end)
        end = s + strlen(s);
    /* Drop trailing template arguments. */
    const char *e = end;
    if (e > s && e[-1] == '>') {
        int depth = 0;
        for (const char *p = e - 1; p >= s; p--) {
            depth += *p == '>' ? 1 : *p == '<' ? -1 : 0;
            if (depth == 0) {
                e = p;
                break;
            }
        }
    }
    /* Start after the last top-level "::" or space (scopes, return type). */
    const char *b = s;
    int depth = 0;
    for (const char *p = s; p < e; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && depth > 0)
            depth--;
        else if (depth == 0 && *p == ' ')
            b = p + 1;
        else if (depth == 0 && p[0] == ':' && p[1] == ':')
            b = p + 2;
    }
    if (e <= b) {
        b = s;
        e = s + strlen(s);
    }
    size_t n = (size_t)(e - b);
    if (n >= out_len)
        n = out_len - 1;
    memcpy(out, b, n);
    out[n] = '\0';
    return 0;
}

int ps_gpu_rows_new(struct ps_tw *w, struct ps_gpu_rows **out)
{
    struct ps_gpu_rows *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->w = w;
    *out = g;
    return 0;
}

void ps_gpu_rows_free(struct ps_gpu_rows *g)
{
    if (!g)
        return;
    ps_u64map_fini(&g->names);
    ps_u64map_fini(&g->ctx_dev);
    ps_u64map_fini(&g->gpus);
    ps_u64map_fini(&g->cuda_devs);
    ps_u64map_fini(&g->procs);
    free(g->gnames);
    free(g->gprocs);
    free(g);
}

/* Create the GPU tables and prepare the statements, once. */
static int create_tables(struct ps_gpu_rows *g)
{
    if (g->created)
        return 0;
    /* One statement at a time through the writer's connection. */
    const char *sql = schema_sql;
    while (*sql) {
        const char *semi = strchr(sql, ';');
        if (!semi)
            break;
        char *one = strndup(sql, (size_t)(semi - sql + 1));
        if (!one)
            return -ENOMEM;
        sqlite3_stmt *st = ps_tw_prepare(g->w, one);
        free(one);
        if (!st || ps_tw_exec(g->w, st))
            return -EIO;
        sql = semi + 1;
        while (*sql == '\n' || *sql == ' ')
            sql++;
    }
    g->st_kernel = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                                       "?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL,NULL,NULL,?,?,?,?,?,NULL,NULL,NULL,'[]')");
    g->st_memcpy = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(?,?,?,?,?,?,?,?,?,?,NULL,"
                                       "?,?,?,?,?,?,NULL,?,NULL,?)");
    g->st_memset = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    g->st_sync = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(?,?,?,?,NULL,?,?,?,"
                                     "NULL,?,?,?)");
    g->st_api = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,?,?,?,?,?,NULL)");
    g->st_overhead = ps_tw_prepare(g->w, "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES(?,?,103,?,?,?,?)");
    g->st_gpu = ps_tw_prepare(g->w, "INSERT INTO TARGET_INFO_GPU VALUES(?,?,?,NULL,NULL,?,?,?,?,?,NULL,?,NULL,NULL,"
                                    "?,NULL,NULL,NULL,NULL,?,?,?,?,NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    g->st_cudadev = ps_tw_prepare(g->w, "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(?,?,?,?,?)");
    if (!g->st_kernel || !g->st_memcpy || !g->st_memset || !g->st_sync || !g->st_api || !g->st_overhead ||
        !g->st_gpu || !g->st_cudadev)
        return -EIO;
    g->created = 1;
    return 0;
}

static struct gproc *gproc_get(struct ps_gpu_rows *g, uint32_t pid)
{
    uint64_t *v = ps_u64map_get(&g->procs, pid);
    if (v)
        return &g->gprocs[*v - 1];
    if (ps_array_grow((void **)&g->gprocs, &g->cap_gprocs, g->n_gprocs, sizeof *g->gprocs) ||
        ps_u64map_put(&g->procs, pid, g->n_gprocs + 1))
        return NULL;
    struct gproc *p = &g->gprocs[g->n_gprocs++];
    p->pid = pid;
    return p;
}

/* The names of (pid, id), reserving StringIds ids when the string has not arrived yet. NULL: no memory. */
static struct gname *gname_get(struct ps_gpu_rows *g, uint32_t pid, uint32_t id)
{
    uint64_t key = (uint64_t)pid << 32 | id;
    uint64_t *v = ps_u64map_get(&g->names, key);
    if (v)
        return &g->gnames[*v - 1];
    if (ps_array_grow((void **)&g->gnames, &g->cap_gnames, g->n_gnames, sizeof *g->gnames) ||
        ps_u64map_put(&g->names, key, g->n_gnames + 1))
        return NULL;
    struct gname *n = &g->gnames[g->n_gnames++];
    n->mangled = ps_tw_string_reserve(g->w);
    n->demangled = ps_tw_string_reserve(g->w);
    n->shortn = ps_tw_string_reserve(g->w);
    return n;
}

/* Define the StringIds of a kernel name: mangled as CUPTI gave it, demangled by the C++ runtime (the
 * mangled text when it is not a C++ name, e.g. an extern "C" kernel), short = base name. */
static int define_kernel_name(struct ps_gpu_rows *g, struct gname *n, const char *mangled)
{
    int status = -1;
    char *dem = __cxa_demangle(mangled, NULL, NULL, &status);
    const char *d = status == 0 && dem ? dem : mangled;
    size_t cap = strlen(d) + 1;
    char *shortn = malloc(cap);
    int rc = -ENOMEM;
    if (!shortn)
        goto out;
    ps_gpu_short_name(d, shortn, cap);
    if ((rc = ps_tw_string_define(g->w, n->mangled, mangled)) || (rc = ps_tw_string_define(g->w, n->demangled, d)) ||
        (rc = ps_tw_string_define(g->w, n->shortn, shortn)))
        goto out;
    n->defined = 1;
out:
    free(shortn);
    free(dem);
    return rc;
}

static int string_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_gpu_string *s = (const void *)rec;
    if (s->len == 0 || s->len > rec->size - sizeof *s)
        return 1;
    const char *text = (const char *)(s + 1);
    if (text[s->len - 1] != '\0')
        return 1;
    struct gname *n = gname_get(g, src->pid, s->id);
    if (!n)
        return -ENOMEM;
    if (n->defined)
        return 0;
    if (rec->flags == PS_WIRE_GPU_STR_KERNEL_NAME)
        return define_kernel_name(g, n, text);
    n->defined = 1;
    return ps_tw_string_define(g->w, n->mangled, text);
}

static int64_t t_ns(const struct ps_gpu_src *src, uint64_t ns)
{
    return (int64_t)ns - src->origin_ns;
}

static void bind_opt_u32(sqlite3_stmt *st, int i, uint32_t v)
{
    if (v == PS_WIRE_GPU_NONE)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

/* Bind the eight columns CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET open with: start, end (ns since the
 * session origin), deviceId, contextId, greenContextId (0, as nsys writes for plain contexts), streamId,
 * correlationId, globalPid. Returns the next parameter index. */
static int bind_stream_activity(sqlite3_stmt *st, const struct ps_gpu_src *src, uint64_t start_ns, uint64_t end_ns,
                                uint32_t device_id, uint32_t context_id, uint32_t stream_id, uint32_t correlation_id)
{
    int i = 1;
    sqlite3_bind_int64(st, i++, t_ns(src, start_ns));
    sqlite3_bind_int64(st, i++, t_ns(src, end_ns));
    sqlite3_bind_int64(st, i++, device_id);
    sqlite3_bind_int64(st, i++, context_id);
    sqlite3_bind_int64(st, i++, 0);
    sqlite3_bind_int64(st, i++, stream_id);
    sqlite3_bind_int64(st, i++, correlation_id);
    sqlite3_bind_int64(st, i++, src->global_pid);
    return i;
}

static int kernel_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_kernel *k)
{
    struct gname *n = gname_get(g, src->pid, k->name_id);
    if (!n)
        return -ENOMEM;
    sqlite3_stmt *st = g->st_kernel;
    int i = bind_stream_activity(st, src, k->start_ns, k->end_ns, k->device_id, k->context_id, k->stream_id,
                                 k->correlation_id);
    sqlite3_bind_int64(st, i++, n->demangled);
    sqlite3_bind_int64(st, i++, n->shortn);
    sqlite3_bind_int64(st, i++, n->mangled);
    sqlite3_bind_int64(st, i++, k->launch_type + 1);   /* CUPTI 0 regular -> nsys 1 Regular */
    sqlite3_bind_int64(st, i++, k->cache_config_requested);
    sqlite3_bind_int64(st, i++, k->registers_per_thread);
    sqlite3_bind_int64(st, i++, k->grid_x);
    sqlite3_bind_int64(st, i++, k->grid_y);
    sqlite3_bind_int64(st, i++, k->grid_z);
    sqlite3_bind_int64(st, i++, k->block_x);
    sqlite3_bind_int64(st, i++, k->block_y);
    sqlite3_bind_int64(st, i++, k->block_z);
    sqlite3_bind_int64(st, i++, k->static_smem_bytes);
    sqlite3_bind_int64(st, i++, k->dynamic_smem_bytes);
    sqlite3_bind_int64(st, i++, k->local_mem_per_thread_bytes);
    sqlite3_bind_int64(st, i++, (int64_t)k->local_mem_total_bytes);
    sqlite3_bind_int64(st, i++, k->grid_id);
    sqlite3_bind_int64(st, i++, k->shared_mem_executed_bytes);
    sqlite3_bind_int64(st, i++, (int64_t)k->graph_node_id);
    sqlite3_bind_int64(st, i++, k->shmem_limit_config);
    sqlite3_bind_int64(st, i++, k->graph_id);
    sqlite3_bind_int64(st, i++, k->cluster_x);
    sqlite3_bind_int64(st, i++, k->cluster_y);
    sqlite3_bind_int64(st, i++, k->cluster_z);
    sqlite3_bind_int64(st, i++, k->cluster_scheduling_policy);
    return ps_tw_exec(g->w, st);
}

static int memcpy_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_memcpy *m)
{
    sqlite3_stmt *st = g->st_memcpy;
    /* correlationId joins the API row that launched the copy: the runtime call's id (cudaMemcpy*) when there
     * was one, else the driver call's (cuMemcpy* called directly); cupti_activity.h, CUpti_ActivityMemcpy6. */
    uint32_t corr = m->runtime_correlation_id ? m->runtime_correlation_id : m->correlation_id;
    int i = bind_stream_activity(st, src, m->start_ns, m->end_ns, m->device_id, m->context_id, m->stream_id, corr);
    sqlite3_bind_int64(st, i++, (int64_t)m->bytes);
    sqlite3_bind_int64(st, i++, m->copy_kind);         /* same numbering in CUPTI and nsys */
    sqlite3_bind_int64(st, i++, ps_gpu_nsys_mem_kind(m->src_kind));
    sqlite3_bind_int64(st, i++, ps_gpu_nsys_mem_kind(m->dst_kind));
    bind_opt_u32(st, i++, m->src_device_id);
    bind_opt_u32(st, i++, m->src_context_id);
    bind_opt_u32(st, i++, m->dst_device_id);
    bind_opt_u32(st, i++, m->dst_context_id);
    sqlite3_bind_int64(st, i++, (int64_t)m->graph_node_id);
    sqlite3_bind_int64(st, i++, (int64_t)m->copy_count);
    return ps_tw_exec(g->w, st);
}

static int memset_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_memset *m)
{
    sqlite3_stmt *st = g->st_memset;
    int i = bind_stream_activity(st, src, m->start_ns, m->end_ns, m->device_id, m->context_id, m->stream_id,
                                 m->correlation_id);
    sqlite3_bind_int64(st, i++, m->value);
    sqlite3_bind_int64(st, i++, (int64_t)m->bytes);
    sqlite3_bind_int64(st, i++, (int64_t)m->graph_node_id);
    sqlite3_bind_int64(st, i++, ps_gpu_nsys_mem_kind(m->memory_kind));
    return ps_tw_exec(g->w, st);
}

static int sync_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_sync *s)
{
    sqlite3_stmt *st = g->st_sync;
    uint32_t dev = s->device_id;
    uint64_t *known = dev == PS_WIRE_GPU_NONE ? ps_u64map_get(&g->ctx_dev, (uint64_t)src->pid << 32 | s->context_id)
                                              : NULL;
    if (known)
        dev = (uint32_t)*known;
    int i = 1;
    sqlite3_bind_int64(st, i++, t_ns(src, s->start_ns));
    sqlite3_bind_int64(st, i++, t_ns(src, s->end_ns));
    bind_opt_u32(st, i++, dev);
    sqlite3_bind_int64(st, i++, s->context_id);
    sqlite3_bind_int64(st, i++, s->stream_id);
    sqlite3_bind_int64(st, i++, s->correlation_id);
    sqlite3_bind_int64(st, i++, src->global_pid);
    sqlite3_bind_int64(st, i++, s->type);              /* same numbering in CUPTI and nsys */
    sqlite3_bind_int64(st, i++, s->cuda_event_id);
    sqlite3_bind_int64(st, i++, (int64_t)s->cuda_event_sync_id);
    return ps_tw_exec(g->w, st);
}

static int api_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_api *a)
{
    struct gname *n = gname_get(g, src->pid, a->name_id);
    if (!n)
        return -ENOMEM;
    sqlite3_stmt *st = g->st_api;
    int i = 1;
    sqlite3_bind_int64(st, i++, t_ns(src, a->start_ns));
    sqlite3_bind_int64(st, i++, t_ns(src, a->end_ns));
    sqlite3_bind_int64(st, i++, a->h.flags & PS_WIRE_GPU_API_DRIVER ? 1 : 0);   /* ENUM_NSYS_EVENT_CLASS */
    sqlite3_bind_int64(st, i++, ps_global_tid(src->pid, a->tid));
    sqlite3_bind_int64(st, i++, a->correlation_id);
    sqlite3_bind_int64(st, i++, n->mangled);
    sqlite3_bind_int64(st, i++, a->return_value);
    return ps_tw_exec(g->w, st);
}

static int overhead_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_gpu_overhead *o)
{
    int type = nsys_overhead_type(o->overhead_kind);
    int64_t name = ps_tw_string_id(g->w, overhead_names[type], strlen(overhead_names[type]));
    if (name < 0)
        return (int)name;
    sqlite3_stmt *st = g->st_overhead;
    sqlite3_bind_int64(st, 1, t_ns(src, o->start_ns));
    sqlite3_bind_int64(st, 2, t_ns(src, o->end_ns));
    if (o->object_kind == 2)   /* CUPTI_ACTIVITY_OBJECT_THREAD */
        sqlite3_bind_int64(st, 3, ps_global_tid(src->pid, o->tid_or_context));
    else
        sqlite3_bind_int64(st, 3, src->global_pid);
    sqlite3_bind_int64(st, 4, o->correlation_id);
    sqlite3_bind_int64(st, 5, name);
    sqlite3_bind_int64(st, 6, type);
    return ps_tw_exec(g->w, st);
}

/* The TARGET_INFO_GPU id of a new GPU: the CUDA ordinal it had in the first process that reported it, unless
 * another GPU has that id already (each rank sees its own GPU as 0 under CUDA_VISIBLE_DEVICES), then the next
 * id past every one taken. */
static uint32_t new_gpu_id(struct ps_gpu_rows *g, uint32_t ordinal)
{
    uint32_t id = ordinal < 64 && !(g->gpu_ids_used >> ordinal & 1) ? ordinal : g->next_gpu_id;
    if (id < 64)
        g->gpu_ids_used |= 1ull << id;
    if (id >= g->next_gpu_id)
        g->next_gpu_id = id + 1;
    return id;
}

/* One TARGET_INFO_GPU row per physical GPU (its UUID; a device without one by process and ordinal), or per MIG
 * instance (its MIG UUID, written "MIG-..." as nvidia-smi and CUDA_VISIBLE_DEVICES spell it), and one
 * TARGET_INFO_CUDA_DEVICE row per process and CUDA ordinal, however often CUPTI reports the device (dumped at start
 * and emitted at initialisation). A device hidden from the process (CUDA_VISIBLE_DEVICES) has no CUDA ordinal
 * there: it gets no TARGET_INFO_CUDA_DEVICE row. */
static int device_rec(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_gpu_device *d = (const void *)rec;
    if (d->name_len == 0 || d->name_len > rec->size - sizeof *d)
        return 1;
    const char *name = (const char *)(d + 1);
    if (name[d->name_len - 1] != '\0')
        return 1;
    int mig = 0;
    for (int i = 0; d->is_mig_enabled && i < 16; i++)
        mig |= d->mig_uuid[i] != 0;
    const uint8_t *u = mig ? d->mig_uuid : d->uuid;
    char uuid[48];
    snprintf(uuid, sizeof uuid, "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             mig ? "MIG" : "GPU", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
    uint64_t key = mig ? 0x4d4947ull : 0xcbf29ce484222325ull;     /* a MIG instance never shares a GPU's key */
    int has_uuid = 0;
    for (int i = 0; i < 16; i++) {
        key = (key ^ u[i]) * 0x100000001b3ull;
        has_uuid |= u[i] != 0;
    }
    if (!has_uuid)
        key = ((uint64_t)src->pid << 32 | d->id) ^ 0x8000000000000000ull;
    uint64_t *known = ps_u64map_get(&g->gpus, key);
    uint32_t gpu_id = known ? (uint32_t)(*known - 1) : new_gpu_id(g, d->id);
    int rc;
    if (!known) {
        sqlite3_stmt *st = g->st_gpu;
        int i = 1;
        sqlite3_bind_int64(st, i++, PS_GLOBAL_VID);         /* vmId: the local machine, as globalPid's bits 48.. */
        sqlite3_bind_int64(st, i++, gpu_id);
        ps_tw_bind_text(st, i++, name);
        sqlite3_bind_int64(st, i++, d->l2_cache_bytes);
        sqlite3_bind_int64(st, i++, (int64_t)d->global_memory_bytes);
        sqlite3_bind_int64(st, i++, (int64_t)d->global_memory_bandwidth_kbps * 1000);   /* B/s */
        sqlite3_bind_int64(st, i++, (int64_t)d->core_clock_khz * 1000);                 /* Hz */
        sqlite3_bind_int64(st, i++, d->sm_count);
        sqlite3_bind_text(st, i++, uuid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, i++, d->id);                                              /* cuDevice */
        sqlite3_bind_int64(st, i++, d->constant_memory_bytes);
        sqlite3_bind_int64(st, i++, d->max_ipc);
        sqlite3_bind_int64(st, i++, d->max_registers_per_block);
        sqlite3_bind_int64(st, i++, d->max_shmem_per_block_bytes);
        sqlite3_bind_int64(st, i++, d->max_shmem_per_sm_bytes);
        sqlite3_bind_int64(st, i++, d->max_registers_per_sm);
        sqlite3_bind_int64(st, i++, d->threads_per_warp);
        sqlite3_bind_int64(st, i++, d->async_engines);
        sqlite3_bind_int64(st, i++, d->max_warps_per_sm);
        sqlite3_bind_int64(st, i++, d->max_blocks_per_sm);
        sqlite3_bind_int64(st, i++, d->max_threads_per_block);
        for (int k = 0; k < 3; k++)
            sqlite3_bind_int64(st, i++, d->max_block_dim[k]);
        for (int k = 0; k < 3; k++)
            sqlite3_bind_int64(st, i++, d->max_grid_dim[k]);
        sqlite3_bind_int64(st, i++, d->compute_major);
        sqlite3_bind_int64(st, i++, d->compute_minor);
        sqlite3_bind_int64(st, i++, d->compute_major);      /* smMajor/smMinor: the SM version = compute capability */
        sqlite3_bind_int64(st, i++, d->compute_minor);
        if ((rc = ps_tw_exec(g->w, st)) || ps_u64map_put(&g->gpus, key, (uint64_t)gpu_id + 1))
            return rc ? rc : -ENOMEM;
    }
    uint64_t cdev = (uint64_t)src->pid << 32 | d->id;
    if (!d->is_cuda_visible || ps_u64map_get(&g->cuda_devs, cdev))
        return 0;
    sqlite3_stmt *st = g->st_cudadev;
    sqlite3_bind_int64(st, 1, gpu_id);
    sqlite3_bind_int64(st, 2, d->id);
    sqlite3_bind_int64(st, 3, src->pid);
    sqlite3_bind_text(st, 4, uuid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, d->sm_count);
    if ((rc = ps_tw_exec(g->w, st)))
        return rc;
    return ps_u64map_put(&g->cuda_devs, cdev, 1);
}

/* Record sizes by type, for the length check before any field is read. */
static size_t min_size(uint16_t type)
{
    switch (type) {
    case PS_WIRE_GPU_KERNEL: return sizeof(struct ps_wire_gpu_kernel);
    case PS_WIRE_GPU_MEMCPY: return sizeof(struct ps_wire_gpu_memcpy);
    case PS_WIRE_GPU_MEMSET: return sizeof(struct ps_wire_gpu_memset);
    case PS_WIRE_GPU_SYNC: return sizeof(struct ps_wire_gpu_sync);
    case PS_WIRE_GPU_API: return sizeof(struct ps_wire_gpu_api);
    case PS_WIRE_GPU_DEVICE: return sizeof(struct ps_wire_gpu_device);
    case PS_WIRE_GPU_CONTEXT: return sizeof(struct ps_wire_gpu_context);
    case PS_WIRE_GPU_STRING: return sizeof(struct ps_wire_gpu_string);
    case PS_WIRE_GPU_DROPS: return sizeof(struct ps_wire_gpu_drops);
    case PS_WIRE_GPU_OVERHEAD: return sizeof(struct ps_wire_gpu_overhead);
    default: return 0;
    }
}

int ps_gpu_rows_write(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_hdr *rec)
{
    if (rec->type == PS_WIRE_GPU_MEMORY || rec->type == PS_WIRE_GPU_MEMPOOL)
        return ps_gpu_memory_rows_write(&g->memory, g->w, src, rec);
    size_t need = min_size(rec->type);
    if (!need || rec->size < need)
        return 1;
    int rc = create_tables(g);
    if (rc)
        return rc;
    switch (rec->type) {
    case PS_WIRE_GPU_KERNEL:
        return kernel_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_MEMCPY:
        return memcpy_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_MEMSET:
        return memset_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_SYNC:
        return sync_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_API:
        return api_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_OVERHEAD:
        return overhead_rec(g, src, (const void *)rec);
    case PS_WIRE_GPU_DEVICE:
        return device_rec(g, src, rec);
    case PS_WIRE_GPU_STRING:
        return string_rec(g, src, rec);
    case PS_WIRE_GPU_CONTEXT: {
        const struct ps_wire_gpu_context *c = (const void *)rec;
        return ps_u64map_put(&g->ctx_dev, (uint64_t)src->pid << 32 | c->context_id, c->device_id);
    }
    case PS_WIRE_GPU_DROPS: {
        struct gproc *p = gproc_get(g, src->pid);
        if (!p)
            return -ENOMEM;
        memcpy(&p->drops, rec, sizeof p->drops);     /* cumulative: the last one holds the totals */
        return 0;
    }
    }
    return 1;
}

static int meta_u64(struct ps_tw *w, const char *fmt, uint32_t pid, uint64_t v)
{
    char key[80];
    snprintf(key, sizeof key, fmt, pid);
    return ps_tw_meta_i64(w, key, (int64_t)v);
}

int ps_gpu_rows_finish(struct ps_gpu_rows *g, uint64_t *dropped)
{
    int rc = 0;
    *dropped = 0;
    /* Names whose string never arrived (its writer died first): say so rather than leave dangling ids. */
    for (size_t i = 0; i < g->n_gnames && !rc; i++) {
        struct gname *n = &g->gnames[i];
        if (n->defined)
            continue;
        const char *unknown = "[perfscope: name not recorded]";
        if (!(rc = ps_tw_string_define(g->w, n->mangled, unknown)) &&
            !(rc = ps_tw_string_define(g->w, n->demangled, unknown)))
            rc = ps_tw_string_define(g->w, n->shortn, unknown);
    }
    uint64_t zero = 0, not_ready = 0;
    for (size_t i = 0; i < g->n_gprocs && !rc; i++) {
        const struct gproc *p = &g->gprocs[i];
        const struct ps_wire_gpu_drops *d = &p->drops;
        uint64_t lost = d->cupti_dropped + d->ring_full + d->invalid_records;
        *dropped += lost;
        zero += d->zero_timestamp;
        not_ready += d->sync_not_ready;
        if ((rc = meta_u64(g->w, "gpu_dropped_records.pid.%" PRIu32, p->pid, lost)) ||
            (rc = meta_u64(g->w, "gpu_cupti_dropped_records.pid.%" PRIu32, p->pid, d->cupti_dropped)) ||
            (rc = meta_u64(g->w, "gpu_buffers_refused.pid.%" PRIu32, p->pid, d->buffers_refused)) ||
            (rc = meta_u64(g->w, "gpu_records_without_timestamps.pid.%" PRIu32, p->pid, d->zero_timestamp)) ||
            (rc = meta_u64(g->w, "gpu_unknown_kind_records.pid.%" PRIu32, p->pid, d->unknown_kinds)) ||
            (rc = meta_u64(g->w, "gpu_sync_queries_not_ready.pid.%" PRIu32, p->pid, d->sync_not_ready)))
            break;
    }
    if (!rc && g->n_gprocs) {
        if (!(rc = ps_tw_meta_i64(g->w, "gpu_dropped_records", (int64_t)*dropped)) &&
            !(rc = ps_tw_meta_i64(g->w, "gpu_records_without_timestamps", (int64_t)zero)))
            rc = ps_tw_meta_i64(g->w, "gpu_sync_queries_not_ready", (int64_t)not_ready);
    }
    return rc;
}
