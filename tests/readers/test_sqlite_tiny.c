/* Hand-built SQLite traces (perfscope and Nsight Systems table format), built with plain SQL, with the
 * expected model written by hand: correlation ids repeated across processes, nested and cross-thread
 * NVTX ranges, per-process NVTX domains, zero-length, invalid and out-of-order rows; then malformed files. */
#include <sqlite3.h>

#include "tinyfs.h"

/* globalTid = (1<<48) | (pid<<24) | tid, globalPid = globalTid & ~0xFFFFFF (docs/trace-format.md) */
#define GP(pid) "((1<<48)|(" #pid "<<24))"
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"

static const char schema_and_rows[] =
    "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO StringIds VALUES (1,'kernelA(float*)'),(2,'kernelB'),(3,'cudaLaunchKernel_v7000'),"
    " (4,'cuLaunchKernel'),(5,'main'),(6,'loader'),(7,'registered message'),(8,'cudaStreamSynchronize_v3020');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
    " (5000, 6000, 0, 1, 7, 5, " GP(100) ", 1, 1),"     /* pid 100, correlation 5 */
    " (1000, 3000, 1, 1, 9, 5, " GP(200) ", 2, 2),"     /* pid 200, correlation 5 too; earlier but later row */
    " (0, 0, 0, 1, 7, 6, " GP(100) ", 1, 1),"           /* start = end = 0: unplaced */
    " (9000, 8000, 0, 1, 7, 7, " GP(100) ", 1, 1),"     /* end < start: unplaced */
    " (7000, 7000, 0, 1, 7, 8, " GP(100) ", 2, 2);"     /* zero length at a real time: kept */
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 2500, 0, 1, 7, 9, " GP(100) ", 1048576, 1, 0, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (3000, 3100, 0, 1, 7, 10, " GP(100) ", 0, 256, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
    " globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (8000, 8500, 0, 1, 7, 11, " GP(100) ", 3, 0);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
    " returnValue INTEGER NOT NULL);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
    " (4000, 4500, 0, " GT(100, 100) ", 5, 3, 0),"
    " (500, 900, 1, " GT(200, 200) ", 5, 4, 0),"        /* driver call, pid 200, correlation 5 */
    " (7900, 8600, 0, " GT(100, 100) ", 11, 8, 0),"
    " (100, 200, 67, " GT(100, 100) ", 0, 3, 0);"       /* event class 67 (backtrace): unplaced */
    "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,"
    " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
    " domainId INTEGER);"
    "INSERT INTO NVTX_EVENTS VALUES"
    " (1000, 9000, 59, NULL, NULL, NULL, 'step', " GT(100, 100) ", NULL, NULL, 0),"
    " (2000, 3000, 59, NULL, NULL, NULL, NULL, " GT(100, 100) ", NULL, 7, 0),"          /* nested, textId */
    " (1500, 8000, 60, 1, NULL, NULL, 'async load', " GT(100, 101) ", " GT(100, 100) ", NULL, 0),"
    " (2500, NULL, 34, NULL, NULL, NULL, 'mark!', " GT(100, 100) ", NULL, NULL, 0),"
    " (4000, 4100, 59, NULL, NULL, NULL, 'dom range', " GT(100, 100) ", NULL, NULL, 1),"
    " (600, 700, 59, NULL, NULL, NULL, 'dom range 2', " GT(200, 200) ", NULL, NULL, 1),"
    " (9500, NULL, 59, NULL, NULL, NULL, 'never popped', " GT(100, 100) ", NULL, NULL, 0),"
    " (0, NULL, 33, NULL, 1, NULL, 'a category', " GT(100, 100) ", NULL, NULL, 0),"
    " (100, 200, 70, NULL, NULL, NULL, 'nvtxt', " GT(100, 100) ", NULL, NULL, 0),"
    /* domain ids are per process: domain 1 is MyDomain in pid 100 and OtherDomain in pid 200 */
    " (10, NULL, 75, NULL, NULL, NULL, 'MyDomain', " GT(100, 100) ", NULL, NULL, 1),"
    " (10, NULL, 75, NULL, NULL, NULL, 'OtherDomain', " GT(200, 200) ", NULL, NULL, 1);"
    "CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);"
    "INSERT INTO PROCESSES VALUES (" GP(100) ", 100, 'train'), (" GP(200) ", 200, 'worker'),"
    " (" GP(300) ", 300, 'bash');"
    "CREATE TABLE ThreadNames(nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
    "INSERT INTO ThreadNames VALUES (5, 0, " GT(100, 100) "), (6, 0, " GT(100, 101) ");";

static const char perfscope_meta[] =
    "CREATE TABLE PERFSCOPE_META(key TEXT NOT NULL, value TEXT);"
    "INSERT INTO PERFSCOPE_META VALUES ('schema_version', '1'), ('rank', '3'), ('local_rank', '1'),"
    " ('world_size', '8'), ('dropped_nvtx_records', '2'), ('dropped_cupti_records', '5');";

static const char *make_db(const char *name, const char *sql1, const char *sql2)
{
    const char *path = tiny_path(name);
    sqlite3 *db = NULL;
    char *msg = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA synchronous=OFF", NULL, NULL, &msg) != SQLITE_OK ||   /* test speed only */
        sqlite3_exec(db, sql1, NULL, NULL, &msg) != SQLITE_OK ||
        (sql2 && sqlite3_exec(db, sql2, NULL, NULL, &msg) != SQLITE_OK)) {
        fprintf(stderr, "%s: building the test database: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

static const struct ps_range *range_named(const struct ps_model *m, const char *name)
{
    for (size_t i = 0; i < m->ranges.n; i++)
        if (strcmp(ps_model_str(m, m->ranges.v[i].name), name) == 0)
            return &m->ranges.v[i];
    fprintf(stderr, "no range named %s\n", name);
    check_failures++;
    static const struct ps_range none = { .thread = PS_NONE, .domain = PS_NONE };
    return &none;
}

static const struct ps_thread *thread_at(const struct ps_model *m, uint32_t i)
{
    static const struct ps_thread none = { 0, 0, PS_NONE };
    return i < m->threads.n ? &m->threads.v[i] : &none;
}

static void check_common(const struct ps_model *m)
{
    /* GPU rows: 5 kernels - 2 invalid + memcpy + memset + sync = 6, sorted by start */
    CHECK_EQ(m->gpu.n, 6);
    if (m->gpu.n == 6) {
        struct ps_gpu_op g[6];
        for (size_t k = 0; k < 6; k++)
            g[k] = ps_model_gpu(m, k);
        CHECK_STR(ps_model_str(m, g[0].name), "kernelB");           /* 1000, pid 200, device 1 */
        CHECK_EQ(m->streams.v[g[0].stream].pid, 200);
        CHECK_EQ(m->streams.v[g[0].stream].device, 1);
        CHECK_EQ(m->streams.v[g[0].stream].stream, 9);
        CHECK_EQ(g[1].kind, PS_GPU_MEMCPY);
        CHECK_STR(ps_model_str(m, g[1].name), "Memcpy HtoD (Pageable -> Device)");
        CHECK_EQ(g[1].bytes, 1048576);
        CHECK_EQ(g[1].src_kind, PS_MEM_PAGEABLE);
        CHECK_EQ(g[1].dst_kind, PS_MEM_DEVICE);
        CHECK_EQ(g[1].launch, PS_NONE);
        CHECK_EQ(g[2].kind, PS_GPU_MEMSET);
        CHECK_STR(ps_model_str(m, g[2].name), "Memset (Device)");
        CHECK_EQ(g[2].bytes, 256);
        CHECK_STR(ps_model_str(m, g[3].name), "kernelA(float*)");   /* 5000, pid 100 */
        CHECK_EQ(g[4].start_ns, 7000);
        CHECK_EQ(g[4].end_ns, 7000);
        CHECK_EQ(g[5].kind, PS_GPU_SYNC);
        CHECK_EQ(g[5].copy_kind, 3);
        /* correlation 5 in pid 200 -> the driver call at 500; in pid 100 -> the runtime call at 4000 */
        CHECK(g[0].launch != PS_NONE && m->api.v[g[0].launch].start_ns == 500);
        CHECK(g[3].launch != PS_NONE && m->api.v[g[3].launch].start_ns == 4000);
        CHECK(g[5].launch != PS_NONE && m->api.v[g[5].launch].start_ns == 7900);
    }
    CHECK_EQ(m->api.n, 3);
    if (m->api.n == 3) {
        CHECK_EQ(m->api.v[0].driver, 1);
        CHECK_STR(ps_model_str(m, m->api.v[0].name), "cuLaunchKernel");
        CHECK_STR(ps_model_str(m, m->api.v[1].name), "cudaLaunchKernel_v7000");
    }
    /* NVTX: 6 placed ranges and 1 unterminated push/pop (kept apart); unplaced: NVTXT range, 2 bad kernels,
     * 1 other-class API row: 4 */
    CHECK_EQ(m->ranges.n, 6);
    CHECK_EQ(m->open_ranges.n, 1);
    if (m->open_ranges.n == 1) {        /* row (9500, NULL, 59, 'never popped', thread 100 of pid 100) */
        CHECK_STR(ps_model_str(m, m->open_ranges.v[0].name), "never popped");
        CHECK_EQ(m->open_ranges.v[0].start_ns, 9500);
        CHECK_EQ(m->open_ranges.v[0].end_ns, -1);
        CHECK_EQ(thread_at(m, m->open_ranges.v[0].thread)->tid, 100);
    }
    CHECK_EQ(m->unplaced_events, 4);
    CHECK_CONTAINS(meta_value(m, "unplaced_events"), "CUPTI_ACTIVITY_KIND_KERNEL rows with start = end = 0: 1");
    const struct ps_range *step = range_named(m, "step"), *inner = range_named(m, "registered message");
    CHECK_EQ(inner->kind, PS_RANGE_NVTX_PUSHPOP);
    CHECK_EQ(inner->thread, step->thread);
    CHECK(inner->start_ns >= step->start_ns && inner->end_ns <= step->end_ns);
    const struct ps_range *async = range_named(m, "async load");
    CHECK_EQ(async->kind, PS_RANGE_NVTX_STARTEND);
    CHECK_EQ(thread_at(m, async->thread)->tid, 101);           /* the thread that started it */
    CHECK_EQ(async->end_ns, 8000);
    const struct ps_range *mark = range_named(m, "mark!");
    CHECK_EQ(mark->kind, PS_RANGE_NVTX_MARK);
    CHECK_EQ(mark->end_ns, 2500);
    CHECK_STR(ps_model_str(m, range_named(m, "dom range")->domain), "MyDomain");
    CHECK_STR(ps_model_str(m, range_named(m, "dom range 2")->domain), "OtherDomain");
    CHECK_EQ(step->domain, PS_NONE);
    /* threads (100,100) main, (100,101) loader, (200,200) */
    CHECK_EQ(m->threads.n, 3);
    CHECK_STR(ps_model_str(m, thread_at(m, step->thread)->name), "main");
    CHECK_STR(ps_model_str(m, thread_at(m, async->thread)->name), "loader");
    CHECK_EQ(m->streams.n, 2);
    CHECK_EQ(m->correlation_global, 0);
}

static void check_wal_reader(void)
{
    /* A trace still being written: WAL mode, a writer holding an open transaction. The reader sees the
     * committed rows and does not block or fail. */
    const char *path = tiny_path("live.sqlite");
    sqlite3 *w = NULL;
    unlink(path);
    if (sqlite3_open(path, &w) != SQLITE_OK ||
        sqlite3_exec(w, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(w, schema_and_rows, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(w, "BEGIN; INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (20000, 21000, 0, 1, 7, 99, "
                        GP(100) ", 1, 1);", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "building the WAL database failed: %s\n", sqlite3_errmsg(w));
        exit(1);
    }
    struct ps_model *m = tiny_read(path);
    if (m)
        CHECK_EQ(m->gpu.n, 6);             /* the uncommitted 7th row is not visible */
    ps_model_free(m);
    sqlite3_exec(w, "COMMIT;", NULL, NULL, NULL);
    m = tiny_read(path);
    if (m)
        CHECK_EQ(m->gpu.n, 7);
    ps_model_free(m);
    sqlite3_close(w);
    char side[256];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void malformed(void)
{
    const char *err;
    err = tiny_read_err(make_db("unrelated.sqlite", "CREATE TABLE foo(a); INSERT INTO foo VALUES (1);", NULL));
    CHECK_CONTAINS(err, "without trace tables");
    CHECK_CONTAINS(err, "unrelated.sqlite");
    err = tiny_read_err(make_db("no_stream_col.sqlite",
                                "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                                " demangledName INTEGER);", NULL));
    CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_KERNEL has no column \"streamId\"");
    err = tiny_read_err(make_db("no_strings.sqlite",
                                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                                " streamId INTEGER, demangledName INTEGER);"
                                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1);", NULL));
    CHECK_CONTAINS(err, "table StringIds is missing (needed by CUPTI_ACTIVITY_KIND_KERNEL.demangledName)");
    /* a SQLite file cut short: the header survives, the pages do not */
    const char *full = make_db("full.sqlite", schema_and_rows, NULL);
    FILE *f = fopen(full, "rb");
    char buf[1500];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    err = tiny_read_err(tiny_write("cut.sqlite", buf, n));
    CHECK_CONTAINS(err, "cut.sqlite");
    /* 16 bytes of the magic and nothing else */
    err = tiny_read_err(tiny_write("magic_only.sqlite", "SQLite format 3", 16));
    CHECK_CONTAINS(err, "magic_only.sqlite");
}

int main(void)
{
    tiny_init();
    struct ps_model *m = tiny_read(make_db("perfscope.sqlite", schema_and_rows, perfscope_meta));
    if (m) {
        CHECK_EQ(m->format, PS_FORMAT_PERFSCOPE);
        check_common(m);
        CHECK_EQ(m->rank, 3);
        CHECK_EQ(m->local_rank, 1);
        CHECK_EQ(m->world_size, 8);
        CHECK_EQ(m->dropped_records, 7);          /* 2 + 5 */
        CHECK_STR(meta_value(m, "schema_version"), "1");
        CHECK_EQ(m->procs.n, 3);                  /* perfscope: every recorded process, named */
        CHECK_EQ(m->devices.n, 2);                /* no TARGET_INFO_GPU: devices 0 and 1 from deviceId */
        for (size_t i = 0; i < m->procs.n; i++)
            if (m->procs.v[i].pid == 300)
                CHECK_STR(ps_model_str(m, m->procs.v[i].name), "bash");
    }
    ps_model_free(m);
    m = tiny_read(make_db("nsys.sqlite", schema_and_rows,
                          "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
                          " totalMemory INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);"
                          "INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA H100', 85000000000, 132, 9, 0);"));
    if (m) {
        CHECK_EQ(m->format, PS_FORMAT_NSYS);
        check_common(m);
        CHECK_EQ(m->rank, -1);
        CHECK_EQ(m->dropped_records, -1);
        CHECK_EQ(m->procs.n, 2);                  /* nsys: only processes with events (not bash) */
        CHECK_EQ(m->devices.n, 2);
        for (size_t i = 0; i < m->devices.n; i++)
            if (m->devices.v[i].id == 0) {
                CHECK_STR(ps_model_str(m, m->devices.v[i].name), "NVIDIA H100");
                CHECK_EQ(m->devices.v[i].sm_count, 132);
                CHECK_EQ(m->devices.v[i].cc_major, 9);
                CHECK_EQ(m->devices.v[i].total_mem_bytes, 85000000000LL);
            }
    }
    ps_model_free(m);
    check_wal_reader();
    malformed();
    tiny_cleanup();
    return check_failures ? 1 : 0;
}
