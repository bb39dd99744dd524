/* CUPTI records all the way into a trace: real CUDA 13.0 record structs in a buffer handed to the probe's
 * bufferCompleted (fake CUPTI table, injected iterator) -> shared-memory ring -> the collector's drain and
 * writer -> SQLite, then the Nsight-Systems-style rows are checked field by field. Expected values are the
 * ones written into the structs, mapped by nsys' numbering (docs/gpu-capture.md, the nsys export's ENUM tables).
 * Usage: cupti_trace_test CASE. */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cases.h"
#include "collector/collect.h"
#include "cupti_fake_api.h"
#include "gpu_rows.h"
#include "ps_globalid.h"
#include "ps_ring_writer.h"
#include "collector/trace_writer.h"

static char dir[256], trace[300];
static struct ps_ring *ring;
static struct ps_ring_wlane lane;
static int64_t origin;

static int ring_emit(void *ctx, const struct ps_wire_hdr *rec)
{
    struct ps_ring_wlane *w = ctx;
    void *p = ps_ring_reserve(w, rec->size);
    if (!p)
        return -1;
    memcpy(p, rec, rec->size);
    ps_ring_commit(w, rec->size);
    return 0;
}

static void ring_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/perfscope-cupti-test-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(trace, sizeof trace, "%s/run.sqlite", dir);
    CHECK(ps_ring_create(dir, 8u << 20, PS_RING_FORCE_MONO, &ring, NULL, 0) == 0);
    CHECK(ps_ring_lane_claim(ring, (uint32_t)gettid(), &lane) == 0);
    origin = ps_monotonic_ns();
}

/* Drain the ring into a trace with the collector's pipeline and open the result. */
static sqlite3 *collect(void)
{
    struct ps_tw *w = NULL;
    struct ps_collect *c = NULL;
    struct ps_rows_totals t;
    char err[512];
    CHECK(ps_tw_open(trace, &w, err, sizeof err) == 0);
    CHECK(ps_collect_start(dir, origin, w, &c) == 0);
    CHECK(ps_collect_stop(c, &t) == 0);
    CHECK(ps_tw_finish(w) == 0);
    ps_tw_free(w);
    ps_ring_lane_release(&lane);
    ps_ring_free(ring);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    return db;
}

static void cleanup(sqlite3 *db)
{
    sqlite3_close(db);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* The single integer a query returns; fails the test when there is no row. */
static long long q_int(sqlite3 *db, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "SQL error %s in: %s\n", sqlite3_errmsg(db), sql);
        exit(1);
    }
    if (sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "no row: %s\n", sql);
        exit(1);
    }
    long long v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static char text_buf[512];
static const char *q_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    if (sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "no row: %s\n", sql);
        exit(1);
    }
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(text_buf, sizeof text_buf, "%s", t ? (const char *)t : "(null)");
    sqlite3_finalize(st);
    return text_buf;
}

#define CHECK_STR(got, want) do { const char *g_ = (got); if (strcmp(g_, (want))) { \
        fprintf(stderr, "%s:%d: got '%s', expected '%s'\n", __FILE__, __LINE__, g_, (want)); exit(1); } } while (0)

/* case_rows' input: the device and its context, one kernel (and one without timing), copies (H2D pageable, D2H
 * pinned async, peer to peer), a memset, a stream synchronisation, and the runtime and driver calls of the launch.
 * Times are t0 + offset (stored as the offset). Returns the bytes of buf in use. */
static size_t append_device(uint8_t *buf, size_t valid)
{
    CUpti_ActivityDevice5 dev;
    memset(&dev, 0, sizeof dev);
    dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    dev.id = 0, dev.name = "NVIDIA H200", dev.numMultiprocessors = 132, dev.globalMemorySize = 150754820096ull;
    dev.computeCapabilityMajor = 9, dev.coreClockRate = 1980000, dev.globalMemoryBandwidth = 4800000000ull;
    dev.uuid.bytes[0] = 0x12, dev.uuid.bytes[15] = 0x34, dev.isCudaVisible = 1;
    valid = fake_append(buf, valid, &dev);
    CUpti_ActivityContext3 ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT, ctx.contextId = 1, ctx.deviceId = 0;
    valid = fake_append(buf, valid, &ctx);

    return valid;
}

static size_t append_gpu_activity(uint8_t *buf, size_t valid, uint64_t t0)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = t0 + 1000, k.end = t0 + 251000, k.deviceId = 0, k.contextId = 1, k.streamId = 7, k.correlationId = 42;
    k.gridX = 32, k.gridY = 16, k.gridZ = 1, k.blockX = 16, k.blockY = 16, k.blockZ = 1;
    k.registersPerThread = 38, k.staticSharedMemory = 2048, k.gridId = 9;
    k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
    k.name = "_Z10gemm_tiledPKfS0_Pfiii";
    valid = fake_append(buf, valid, &k);
    CUpti_ActivityKernel10 z = k;
    z.start = z.end = 0, z.correlationId = 43;      /* no timing collected: dropped, counted */
    valid = fake_append(buf, valid, &z);

    CUpti_ActivityMemcpy6 h2d;
    memset(&h2d, 0, sizeof h2d);
    h2d.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    h2d.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    h2d.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, h2d.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    h2d.bytes = 67108864, h2d.start = t0 + 300000, h2d.end = t0 + 5300000;
    h2d.deviceId = 0, h2d.contextId = 1, h2d.streamId = 7, h2d.correlationId = 50, h2d.copyCount = 1;
    valid = fake_append(buf, valid, &h2d);
    CUpti_ActivityMemcpy6 d2h = h2d;
    d2h.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    d2h.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, d2h.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    d2h.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC, d2h.bytes = 4096, d2h.correlationId = 51;
    d2h.start = t0 + 6000000, d2h.end = t0 + 6002000, d2h.streamId = 8;
    valid = fake_append(buf, valid, &d2h);
    CUpti_ActivityMemcpyPtoP4 p2p;
    memset(&p2p, 0, sizeof p2p);
    p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p2p.srcKind = p2p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p2p.bytes = 1048576, p2p.start = t0 + 7000000, p2p.end = t0 + 7100000, p2p.streamId = 9, p2p.correlationId = 52;
    p2p.srcDeviceId = 0, p2p.dstDeviceId = 1, p2p.srcContextId = 1, p2p.dstContextId = 2;
    valid = fake_append(buf, valid, &p2p);
    CUpti_ActivityMemset4 ms;
    memset(&ms, 0, sizeof ms);
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.value = 0, ms.bytes = 4194304, ms.start = t0 + 8000000, ms.end = t0 + 8010000, ms.streamId = 7;
    ms.contextId = 1, ms.correlationId = 53, ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    valid = fake_append(buf, valid, &ms);
    CUpti_ActivitySynchronization2 sy;
    memset(&sy, 0, sizeof sy);
    sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    sy.start = t0 + 9000000, sy.end = t0 + 9500000, sy.contextId = 1, sy.streamId = 7, sy.correlationId = 54;
    sy.cudaEventId = 0xFFFFFFFFu;
    valid = fake_append(buf, valid, &sy);
    return valid;
}

static size_t append_api_calls(uint8_t *buf, size_t valid, uint64_t t0)
{
    CUpti_ActivityAPI rt;
    memset(&rt, 0, sizeof rt);
    rt.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    rt.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    rt.start = t0 + 500, rt.end = t0 + 900, rt.processId = (uint32_t)getpid(), rt.threadId = (uint32_t)getpid() + 1;
    rt.correlationId = 42;
    valid = fake_append(buf, valid, &rt);
    CUpti_ActivityAPI drv = rt;
    drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    drv.start = t0 + 600, drv.end = t0 + 800, drv.returnValue = 0;
    valid = fake_append(buf, valid, &drv);

    return valid;
}

/* Device memory records (CUPTI_ACTIVITY_KIND_MEMORY2): on device 0, 2 GiB allocated at +10 ms, 1 GiB at +11 ms,
 * the 2 GiB released at +12 ms, 4 KiB of pinned host memory at +13 ms; one block from a local stream-ordered pool
 * (64 MiB of a 256 MiB pool) at +14 ms; and one pool creation record. */
static size_t append_memory(uint8_t *buf, size_t valid, uint64_t t0)
{
    static const struct { uint64_t at_ms, bytes, addr; int op, kind; } m[] = {
        { 10, 2ull << 30, 0x7f0000000000ull, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE },
        { 11, 1ull << 30, 0x7f0080000000ull, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE },
        { 12, 2ull << 30, 0x7f0000000000ull, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE,
          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE },
        { 13, 4096, 0x600000, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_PINNED },
        { 14, 64ull << 20, 0x7f0100000000ull, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        CUpti_ActivityMemory4 r;
        memset(&r, 0, sizeof r);
        r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
        r.memoryOperationType = m[i].op, r.memoryKind = m[i].kind;
        r.correlationId = 60 + (uint32_t)i, r.address = m[i].addr, r.bytes = m[i].bytes;
        r.timestamp = t0 + m[i].at_ms * 1000000, r.processId = (uint32_t)getpid(), r.deviceId = 0, r.contextId = 1;
        r.streamId = 7;
        if (i == 4) {
            r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
            r.memoryPoolConfig.address = 0x7f0100000000ull, r.memoryPoolConfig.pool.size = 256ull << 20;
            r.memoryPoolConfig.utilizedSize = 64ull << 20;
        }
        valid = fake_append(buf, valid, &r);
    }
    CUpti_ActivityMemoryPool3 p;
    memset(&p, 0, sizeof p);
    p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
    p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED;
    p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL, p.address = 0x7f0100000000ull, p.size = 256ull << 20;
    p.timestamp = t0 + 9000000, p.processId = (uint32_t)getpid(), p.correlationId = 59;
    return fake_append(buf, valid, &p);
}

/* nsys' numbering: operation = CUPTI's - 1 (1 allocation -> 0, 2 release -> 1), memKind = CUPTI's - 1 (3 device -> 2,
 * 2 pinned -> 1); times in ns since the session origin. */
static void check_memory_rows(sqlite3 *db)
{
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS"), 5);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memoryOperationType = 0"), 4);
    CHECK_EQ(q_int(db, "SELECT start FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memoryOperationType = 1"), 12000000);
    CHECK_EQ(q_int(db, "SELECT bytes FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memoryOperationType = 1"), 2147483648ll);
    CHECK_EQ(q_int(db, "SELECT memKind FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE correlationId = 60"), 2);
    CHECK_EQ(q_int(db, "SELECT memKind FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE correlationId = 63"), 1);
    CHECK_EQ(q_int(db, "SELECT globalPid FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE correlationId = 60"),
             ps_global_pid((uint32_t)getpid()));
    CHECK_STR(q_text(db, "SELECT e.label FROM CUDA_GPU_MEMORY_USAGE_EVENTS m JOIN ENUM_CUDA_DEV_MEM_EVENT_OPER e"
                         " ON e.id = m.memoryOperationType WHERE m.correlationId = 62"), "Deallocation");
    CHECK_EQ(q_int(db, "SELECT localMemoryPoolSize FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE correlationId = 64"),
             268435456);
    CHECK_EQ(q_int(db, "SELECT localMemoryPoolSize FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE correlationId = 60"),
             -999);   /* NULL: not from a pool */
    CHECK_EQ(q_int(db, "SELECT operationType FROM CUDA_GPU_MEMORY_POOL_EVENTS"), 1);   /* Created */
    CHECK_EQ(q_int(db, "SELECT localMemoryPoolSize FROM CUDA_GPU_MEMORY_POOL_EVENTS"), 268435456);
    /* the device's balance in (start, operation) order, device kinds: 2 GiB, 3 GiB (the peak), 1 GiB, + 64 MiB */
    CHECK_EQ(q_int(db, "SELECT max(b) FROM (SELECT sum(CASE memoryOperationType WHEN 0 THEN bytes ELSE -bytes END)"
                       " OVER (ORDER BY start, memoryOperationType, rowid) AS b FROM CUDA_GPU_MEMORY_USAGE_EVENTS"
                       " WHERE memKind IN (2, 3, 5))"), 3ll << 30);
}

static void check_kernel_rows(sqlite3 *db)
{
    long long gpid = ps_global_pid((uint32_t)getpid());
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
    CHECK_EQ(q_int(db, "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1000);
    CHECK_EQ(q_int(db, "SELECT \"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL"), 251000);
    CHECK_EQ(q_int(db, "SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 7);
    CHECK_EQ(q_int(db, "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 42);
    CHECK_EQ(q_int(db, "SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL"), gpid);
    CHECK_EQ(q_int(db, "SELECT gridX * 1000 + gridY FROM CUPTI_ACTIVITY_KIND_KERNEL"), 32016);
    CHECK_EQ(q_int(db, "SELECT blockX * blockY FROM CUPTI_ACTIVITY_KIND_KERNEL"), 256);
    CHECK_EQ(q_int(db, "SELECT registersPerThread FROM CUPTI_ACTIVITY_KIND_KERNEL"), 38);
    CHECK_EQ(q_int(db, "SELECT staticSharedMemory FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2048);
    CHECK_EQ(q_int(db, "SELECT launchType FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);     /* nsys: 1 Regular */
    CHECK_EQ(q_int(db, "SELECT greenContextId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 0);
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.mangledName"),
              "_Z10gemm_tiledPKfS0_Pfiii");
    /* Expected: c++filt _Z10gemm_tiledPKfS0_Pfiii */
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName"),
              "gemm_tiled(float const*, float const*, float*, int, int, int)");
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName"),
              "gemm_tiled");

}

static void check_copy_sync_rows(sqlite3 *db)
{
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), 3);
    CHECK_EQ(q_int(db, "SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), 67108864);
    CHECK_EQ(q_int(db, "SELECT \"end\" - start FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), 5000000);
    CHECK_EQ(q_int(db, "SELECT srcKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), 0);   /* Pageable */
    CHECK_EQ(q_int(db, "SELECT dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), 2);   /* Device */
    CHECK_EQ(q_int(db, "SELECT srcKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"), 2);
    CHECK_EQ(q_int(db, "SELECT dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"), 1);   /* Pinned */
    CHECK_EQ(q_int(db, "SELECT streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"), 8);
    CHECK_EQ(q_int(db, "SELECT srcDeviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), -999);  /* NULL */
    CHECK_EQ(q_int(db, "SELECT dstDeviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 10"), 1);
    CHECK_EQ(q_int(db, "SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 10"), 1048576);
    CHECK_STR(q_text(db, "SELECT e.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e"
                         " ON e.id = m.copyKind WHERE m.correlationId = 50"), "Host-to-Device");
    CHECK_STR(q_text(db, "SELECT e.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEM_KIND e"
                         " ON e.id = m.srcKind WHERE m.correlationId = 50"), "Pageable");

    CHECK_EQ(q_int(db, "SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMSET"), 4194304);
    CHECK_EQ(q_int(db, "SELECT memKind FROM CUPTI_ACTIVITY_KIND_MEMSET"), 2);      /* CUPTI 3 device -> nsys 2 */
    CHECK_EQ(q_int(db, "SELECT start FROM CUPTI_ACTIVITY_KIND_MEMSET"), 8000000);

    CHECK_EQ(q_int(db, "SELECT syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 3);
    CHECK_EQ(q_int(db, "SELECT deviceId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 0);
    CHECK_EQ(q_int(db, "SELECT eventId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 4294967295ll);
    CHECK_EQ(q_int(db, "SELECT \"end\" - start FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 500000);
}

static void check_api_and_device_rows(sqlite3 *db)
{
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 2);
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
                         " WHERE r.eventClass = 0"), "cudaLaunchKernel_v7000");
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
                         " WHERE r.eventClass = 1"), "cuLaunchKernel");
    CHECK_EQ(q_int(db, "SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"),
             ps_global_tid((uint32_t)getpid(), (uint32_t)getpid() + 1));
    CHECK_EQ(q_int(db, "SELECT start FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"), 500);
    /* The API -> kernel join an analysis makes: correlation id and process. */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r"
                       " ON r.correlationId = k.correlationId AND (r.globalTid & ~0xFFFFFF) = k.globalPid"
                       " WHERE r.eventClass = 0"), 1);

    CHECK_STR(q_text(db, "SELECT name FROM TARGET_INFO_GPU"), "NVIDIA H200");
    CHECK_EQ(q_int(db, "SELECT smCount FROM TARGET_INFO_GPU"), 132);
    CHECK_EQ(q_int(db, "SELECT totalMemory FROM TARGET_INFO_GPU"), 150754820096ll);
    CHECK_EQ(q_int(db, "SELECT clockRate FROM TARGET_INFO_GPU"), 1980000000ll);    /* kHz -> Hz */
    CHECK_EQ(q_int(db, "SELECT computeMajor FROM TARGET_INFO_GPU"), 9);
    CHECK_STR(q_text(db, "SELECT uuid FROM TARGET_INFO_GPU"), "GPU-12000000-0000-0000-0000-000000000034");
    CHECK_EQ(q_int(db, "SELECT pid FROM TARGET_INFO_CUDA_DEVICE"), getpid());
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ENUM_CUDA_MEM_KIND"), 8);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ENUM_CUPTI_SYNC_TYPE"), 5);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ENUM_NSYS_EVENT_CLASS WHERE id IN (0, 1)"), 2);

    CHECK_EQ(q_int(db, "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_records_without_timestamps'"), 1);
    CHECK_EQ(q_int(db, "SELECT value FROM PERFSCOPE_META WHERE name = 'gpu_dropped_records'"), 5);
    CHECK_EQ(q_int(db, "SELECT cuptiState FROM PERFSCOPE_PROCESS_INFO WHERE pid = %d", getpid()), PS_CUDA_CUPTI_ACTIVE);
}

static void case_rows(void)
{
    ring_setup();
    struct ps_cupti_sink sink = { ring_emit, &lane, NULL };
    f.version = 130100;     /* the CLOCK_MONOTONIC callback: times as written */
    CHECK(ps_cupti_start(&fake_api, &sink) == 0);
    uint8_t *buf = NULL;
    size_t size = 0, max = 0, valid = 0;
    f.requested(&buf, &size, &max);
    uint64_t t0 = (uint64_t)origin;
    valid = append_device(buf, valid);
    valid = append_gpu_activity(buf, valid, t0);
    valid = append_api_calls(buf, valid, t0);
    valid = append_memory(buf, valid, t0);
    f.dropped_once = 5;
    f.completed(NULL, 0, buf, size, valid);
    ps_cupti_flush_at_exit();
    sqlite3 *db = collect();
    check_kernel_rows(db);
    check_copy_sync_rows(db);
    check_api_and_device_rows(db);
    check_memory_rows(db);
    cleanup(db);
}

/* A kernel whose name string arrives after it (another thread's lane), and one whose string never arrives. */
static void case_late_name(void)
{
    ring_setup();
    struct ps_wire_gpu_kernel k = { .h = { sizeof k, PS_WIRE_GPU_KERNEL, 0 } };
    k.start_ns = (uint64_t)origin + 10, k.end_ns = (uint64_t)origin + 20, k.name_id = 3;
    CHECK(ring_emit(&lane, &k.h) == 0);
    k.name_id = 4;
    CHECK(ring_emit(&lane, &k.h) == 0);
    k.name_id = 5;
    CHECK(ring_emit(&lane, &k.h) == 0);
    struct { struct ps_wire_gpu_string s; char text[24]; } str = { { { sizeof str, PS_WIRE_GPU_STRING,
        PS_WIRE_GPU_STR_KERNEL_NAME }, 3, 11 }, "_Z4reluPfi" };
    CHECK(ring_emit(&lane, &str.s.h) == 0);
    /* a name that is not UTF-8 (the probe's ring is untrusted): stored with the byte replaced by U+FFFD */
    struct { struct ps_wire_gpu_string s; char text[8]; } bad = { { { sizeof bad, PS_WIRE_GPU_STRING,
        PS_WIRE_GPU_STR_KERNEL_NAME }, 5, 4 }, "k\xFFx" };
    CHECK(ring_emit(&lane, &bad.s.h) == 0);
    sqlite3 *db = collect();
    CHECK_EQ(q_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 3);
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.mangledName"
                         " ORDER BY k.rowid LIMIT 1 OFFSET 2"), "k\xEF\xBF\xBDx");
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName"
                         " ORDER BY k.rowid LIMIT 1"), "relu(float*, int)");
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName"
                         " ORDER BY k.rowid LIMIT 1"), "relu");
    CHECK_STR(q_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName"
                         " ORDER BY k.rowid LIMIT 1 OFFSET 1"), "[perfscope: name not recorded]");
    cleanup(db);
}

static void emit_device(struct ps_ring_wlane *w, uint32_t ordinal, uint8_t uuid0)
{
    struct { struct ps_wire_gpu_device d; char name[16]; } dev;
    memset(&dev, 0, sizeof dev);
    dev.d.h.size = sizeof dev, dev.d.h.type = PS_WIRE_GPU_DEVICE;
    dev.d.id = ordinal, dev.d.sm_count = 132, dev.d.name_len = 12;
    dev.d.uuid[0] = uuid0, dev.d.uuid[15] = 0x77, dev.d.is_cuda_visible = 1;
    memcpy(dev.name, "NVIDIA H200", 12);
    CHECK(ring_emit(w, &dev.d.h) == 0);
}

/* GPUs by UUID, not by CUDA ordinal: this process sees GPU A as device 0 (reported twice: dumped at start and
 * emitted at initialisation); a child with another CUDA_VISIBLE_DEVICES order sees GPU B as 0 and A as 1.
 * Expected (hand-derived): two TARGET_INFO_GPU rows, A id 0 (first seen as 0), B id 1 (0 is A's); three
 * TARGET_INFO_CUDA_DEVICE rows mapping (pid, ordinal) to those ids. And a copy joins its runtime call. */
static void case_devices_and_copies(void)
{
    ring_setup();
    emit_device(&lane, 0, 0xaa);
    emit_device(&lane, 0, 0xaa);
    uint64_t t0 = (uint64_t)origin;
    struct ps_wire_gpu_memcpy m = { .h = { sizeof m, PS_WIRE_GPU_MEMCPY, 0 }, .start_ns = t0 + 1000,
                                    .end_ns = t0 + 2000, .bytes = 4096, .copy_count = 1, .stream_id = 7,
                                    .correlation_id = 60, .runtime_correlation_id = 61, .copy_kind = 1,
                                    .src_kind = 2, .dst_kind = 3, .src_device_id = PS_WIRE_GPU_NONE,
                                    .src_context_id = PS_WIRE_GPU_NONE, .dst_device_id = PS_WIRE_GPU_NONE,
                                    .dst_context_id = PS_WIRE_GPU_NONE };
    CHECK(ring_emit(&lane, &m.h) == 0);
    m.correlation_id = 70, m.runtime_correlation_id = 0;      /* cuMemcpyHtoD called directly: driver id only */
    CHECK(ring_emit(&lane, &m.h) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        struct ps_ring *r = NULL;
        struct ps_ring_wlane w;
        memset(&w, 0, sizeof w);
        if (ps_ring_create(dir, 8u << 20, PS_RING_FORCE_MONO, &r, NULL, 0) ||
            ps_ring_lane_claim(r, (uint32_t)getpid(), &w))
            _exit(2);
        emit_device(&w, 0, 0xbb);
        emit_device(&w, 1, 0xaa);
        ps_ring_lane_release(&w);
        ps_ring_free(r);
        _exit(0);
    }
    int st = 0;
    CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    sqlite3 *db = collect();
    /* Which process's ring is read first decides which GPU keeps id 0: check what holds either way. */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 2);
    CHECK_EQ(q_int(db, "SELECT count(DISTINCT id) FROM TARGET_INFO_GPU WHERE id IN (0, 1)"), 2);
    long long a = q_int(db, "SELECT id FROM TARGET_INFO_GPU WHERE uuid LIKE 'GPU-aa%%'");
    long long b = q_int(db, "SELECT id FROM TARGET_INFO_GPU WHERE uuid LIKE 'GPU-bb%%'");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_CUDA_DEVICE"), 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_CUDA_DEVICE WHERE pid = %d", getpid()), 1);
    CHECK_EQ(q_int(db, "SELECT gpuId FROM TARGET_INFO_CUDA_DEVICE WHERE pid = %d AND cudaId = 0", getpid()), a);
    CHECK_EQ(q_int(db, "SELECT gpuId FROM TARGET_INFO_CUDA_DEVICE WHERE pid = %d AND cudaId = 1", child), a);
    CHECK_EQ(q_int(db, "SELECT gpuId FROM TARGET_INFO_CUDA_DEVICE WHERE pid = %d AND cudaId = 0", child), b);
    /* Memcpy6.correlationId is the driver call's id, runtimeCorrelationId the runtime call's (cupti_activity.h). */
    CHECK_EQ(q_int(db, "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start, rowid LIMIT 1"), 61);
    CHECK_EQ(q_int(db, "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start, rowid LIMIT 1 OFFSET 1"),
             70);
    cleanup(db);
}

/* A device record as CUPTI 13 writes it for a MIG instance or a device hidden by CUDA_VISIBLE_DEVICES. */
static void emit_device_ex(uint32_t ordinal, uint8_t uuid0, int visible, int mig, uint8_t mig0, uint32_t sms)
{
    struct { struct ps_wire_gpu_device d; char name[24]; } dev;
    memset(&dev, 0, sizeof dev);
    dev.d.h.size = sizeof dev, dev.d.h.type = PS_WIRE_GPU_DEVICE;
    dev.d.id = ordinal, dev.d.sm_count = sms, dev.d.name_len = 12;
    dev.d.uuid[0] = uuid0, dev.d.uuid[15] = 0x77;
    dev.d.is_cuda_visible = (uint8_t)visible, dev.d.is_mig_enabled = (uint8_t)mig;
    dev.d.gpu_instance_id = dev.d.compute_instance_id = mig ? 1 : UINT32_MAX;
    dev.d.mig_uuid[0] = mig0, dev.d.mig_uuid[15] = mig0 ? 0x01 : 0;
    memcpy(dev.name, "NVIDIA H200", 12);
    CHECK(ring_emit(&lane, &dev.d.h) == 0);
}

/* One process on a MIG instance (16 SMs) of GPU 0xcc, with GPU 0xdd (hidden from it, yet reported first with
 * ordinal 0, as CUPTI reports every device) and the whole GPU 0xcc's own record. Expected (hand-derived): three
 * TARGET_INFO_GPU rows (the MIG instance under its "MIG-" UUID apart from its parent GPU); the process's CUDA
 * device 0 is the MIG instance, not the hidden GPU that came first. */
static void case_mig_and_hidden(void)
{
    ring_setup();
    emit_device_ex(0, 0xdd, 0, 0, 0, 132);
    emit_device_ex(0, 0xcc, 1, 1, 0xe1, 16);
    emit_device_ex(1, 0xcc, 0, 0, 0, 132);
    sqlite3 *db = collect();
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 3);
    CHECK_STR(q_text(db, "SELECT uuid FROM TARGET_INFO_GPU WHERE smCount = 16"),
              "MIG-e1000000-0000-0000-0000-000000000001");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_GPU WHERE uuid LIKE 'GPU-cc%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM TARGET_INFO_CUDA_DEVICE"), 1);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT uuid FROM TARGET_INFO_CUDA_DEVICE WHERE pid = %d AND cudaId = 0", getpid());
    CHECK_STR(q_text(db, sql), "MIG-e1000000-0000-0000-0000-000000000001");
    CHECK_EQ(q_int(db, "SELECT g.smCount FROM TARGET_INFO_CUDA_DEVICE c JOIN TARGET_INFO_GPU g ON g.id = c.gpuId"),
             16);
    cleanup(db);
}

/* nsys' shortName and memory-kind numbering (expected: docs/gpu-capture.md, the nsys export's ENUM tables). */
static void case_names_and_kinds(void)
{
    static const struct { const char *in, *want; } names[] = {
        { "gemm_tiled(float const*, float const*, float*, int, int, int)", "gemm_tiled" },
        { "void ns::gemm<float, 4>(float*, int)", "gemm" },
        { "(anonymous namespace)::relu_kernel(float*)", "relu_kernel" },
        { "vecAdd", "vecAdd" },
        { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
          "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)", "vectorized_elementwise_kernel" },
    };
    char out[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ps_gpu_short_name(names[i].in, out, sizeof out);
        CHECK_STR(out, names[i].want);
    }
    /* CUPTI: 0 unknown 1 pageable 2 pinned 3 device 4 array 5 managed 6 device static 7 managed static;
     * nsys:  0 pageable 1 pinned 2 device 3 array 4 managed 5 device static 6 managed static 7 unknown. */
    static const int nsys[] = { 7, 0, 1, 2, 3, 4, 5, 6, 7 };
    for (unsigned c = 0; c < 9; c++)
        CHECK_EQ(ps_gpu_nsys_mem_kind(c), nsys[c]);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "rows", .fn = case_rows },
        { "late_name", .fn = case_late_name },
        { "names_and_kinds", .fn = case_names_and_kinds },
        { "devices_and_copies", .fn = case_devices_and_copies }, { "mig_and_hidden", .fn = case_mig_and_hidden },
    };
    parent = getpid();
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
