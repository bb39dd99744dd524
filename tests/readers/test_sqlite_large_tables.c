/* Large activity tables are read on two connections (read_sqlite_ahead.c): a thread steps the SELECT ahead while
 * the reader builds the model. These cases check that the model and every message are what reading on one
 * connection gives: the rows of 100,000-row kernel, memcpy and runtime tables with their totals (worked out
 * beside each check), a bad value late in each table, whose message must name the row that holds it, and the room
 * made for a table's rows, which a file's rowids must not inflate.
 * Usage: test_sqlite_large_tables CASE */
#include <sqlite3.h>

#include "cases.h"
#include "read_sqlite_impl.h"
#include "tinyfs.h"

#define GP(pid) "((1<<48)|(" #pid "<<24))"
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"
#define N 100000   /* rows added to each large table: above the read-ahead's threshold (65,536) */

/* Row i (0 <= i < N) of each table, at rowid i + 2 (rowid 1 is the first, hand-written row):
 *   kernel  start 10000 + 1000 i, duration 500 + i % 7, stream 7 + i % 3, correlation 100 + i
 *   memcpy  start 10600 + 1000 i, duration 100, 4096 + i bytes, correlation 1000000 + i
 *   runtime start 9000 + 1000 i, duration 300, correlation 100 + i (launches kernel i) */
static const char tables[] =
    "CREATE TABLE StringIds(id, value);"
    "INSERT INTO StringIds VALUES (1, 'kernelA'), (2, 'cudaLaunchKernel_v7000'), (3, 'main');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, streamId, correlationId, globalPid,"
    " demangledName);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 5, " GP(100) ", 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, streamId, correlationId, globalPid, bytes,"
    " copyKind, srcKind, dstKind);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 2500, 0, 7, 6, " GP(100) ", 4096, 1, 0, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 900, 0, " GT(100, 100) ", 5, 2);"
    "CREATE TABLE NVTX_EVENTS(start, end, eventType, text, textId, globalTid, domainId);"
    "INSERT INTO NVTX_EVENTS VALUES (100, 200000000, 59, 'step', NULL, " GT(100, 100) ", 0);"
    "CREATE TABLE PROCESSES(pid, name);"
    "INSERT INTO PROCESSES VALUES (100, 'train');"
    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 99999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 10000 + 1000 * i, 10000 + 1000 * i + 500 + i % 7, 0, 7 + i % 3,"
    " 100 + i, " GP(100) ", 1 FROM s;"
    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 99999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 10600 + 1000 * i, 10700 + 1000 * i, 0, 8, 1000000 + i, "
    GP(100) ", 4096 + i, 1, 0, 2 FROM s;"
    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 99999)"
    " INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 9000 + 1000 * i, 9300 + 1000 * i, 0, " GT(100, 100) ", 100 + i,"
    " 2 FROM s;";

static const char *make_db(const char *name, const char *change)
{
    const char *path = tiny_path(name);
    sqlite3 *db = NULL;
    char *msg = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA synchronous=OFF; BEGIN", NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, tables, NULL, NULL, &msg) != SQLITE_OK ||
        (change && sqlite3_exec(db, change, NULL, NULL, &msg) != SQLITE_OK) ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: building the test database: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

static void large_tables_give_every_row(void)
{
    long long before = ps_sq_ahead_rows();
    struct ps_model *m = tiny_read(make_db("large.sqlite", NULL));
    if (!m)
        return;
    /* 1 + N kernels, 1 + N copies; 1 + N runtime calls */
    CHECK_EQ(m->gpu.n, 2 * (N + 1));
    CHECK_EQ(m->api.n, N + 1);
    /* kernel time: 1000 (the first row) + sum over i < N of (500 + i % 7). N = 100000 = 7 * 14285 + 5, so
     * sum(i % 7) = 14285 * 21 + (0 + 1 + 2 + 3 + 4) = 299995; total = 1000 + 50,000,000 + 299,995. Copy bytes:
     * 4096 + sum over i < N of (4096 + i) = 4096 * 100001 + 4,999,950,000. */
    long long kernel_ns = 0, copy_bytes = 0, linked = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        struct ps_gpu_op op = ps_model_gpu(m, i);
        if (op.kind == PS_GPU_KERNEL)
            kernel_ns += op.end_ns - op.start_ns;
        else
            copy_bytes += (long long)op.bytes;
        linked += op.launch != PS_NONE;
        if (i && m->gpu.v[i].start_ns < m->gpu.v[i - 1].start_ns) {
            fprintf(stderr, "GPU row %zu out of start order\n", i);
            check_failures++;
            break;
        }
    }
    CHECK_EQ(kernel_ns, 1000 + 50000000 + 299995);
    CHECK_EQ(copy_bytes, 4096LL * 100001 + 4999950000LL);
    CHECK_EQ(linked, N + 1);   /* each kernel by its runtime call; the copies' correlation ids have no call */
    ps_model_free(m);
    /* kernels, copies and runtime calls went through the read-ahead (at least the N + 1 rows of each) */
    CHECK(ps_sq_ahead_rows() - before >= 3 * (N + 1));
}

/* Room for a large table's rows is made from the rows it holds, not from its largest rowid: a file may claim rowid
 * 2^62 for its last kernel (SQLite takes any rowid) and carry 13 MB of blobs beside it, so neither that rowid nor the
 * file's size may size the model's vectors. The kernel and copy tables hold 100,002 + 100,001 rows: the GPU rows'
 * room must stay below twice that (the old bound, the file's size / 16 bytes, gave over 800,000). */
static void room_for_the_rows_not_the_rowids(void)
{
    struct ps_model *m = tiny_read(make_db("rowids.sqlite",
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, deviceId, streamId, correlationId, globalPid,"
        " demangledName) VALUES (4611686018427387904, 200000000, 200000500, 0, 7, 99999999, " GP(100) ", 1);"
        "CREATE TABLE filler(b);"
        "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 199)"
        " INSERT INTO filler SELECT randomblob(65536) FROM s;"));
    if (!m)
        return;
    CHECK_EQ(m->gpu.n, 2 * (N + 1) + 1);
    CHECK(m->gpu.cap < 2 * m->gpu.n, "room for %zu GPU rows, %zu read", m->gpu.cap, m->gpu.n);
    CHECK(m->api.cap < 2 * m->api.n, "room for %zu API calls, %zu read", m->api.cap, m->api.n);
    CHECK_EQ(ps_model_gpu(m, m->gpu.n - 1).start_ns, 200000000);   /* the kernel at rowid 2^62, last in time */
    ps_model_free(m);
}

/* A bad value late in a large table: the read stops with the message reading on one connection gives, naming
 * the value's rowid. */
static void late_bad_values_are_named_by_rowid(void)
{
    static const struct {
        const char *change, *message;
    } cases[] = {
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 'gpu0' WHERE rowid = 90001",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column deviceId, rowid 90001: text value 'gpu0' where an integer is "
          "required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1.5 WHERE rowid = 70000",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column start, rowid 70000: real value '1.5' where an integer time in ns "
          "is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 99999999999 WHERE rowid = 85001",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column deviceId, rowid 85001: device 99999999999 out of range" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -5 WHERE rowid = 99000",
          "table CUPTI_ACTIVITY_KIND_MEMCPY, column bytes, rowid 99000: negative byte count -5" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'main' WHERE rowid = 80001",
          "table CUPTI_ACTIVITY_KIND_RUNTIME, column globalTid, rowid 80001: text value 'main'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = X'01' WHERE rowid = 100001",
          "table CUPTI_ACTIVITY_KIND_RUNTIME, column nameId, rowid 100001: blob value" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "late%zu.sqlite", i);
        const char *err = tiny_read_err(make_db(name, cases[i].change));
        CHECK_CONTAINS(err, cases[i].message);
        CHECK_CONTAINS(err, name);
    }
}

/* Pages of the kernel table overwritten in the middle of the file: a one-line message naming the table, never a
 * crash, a hang or a model of the rows before the damage. */
static void damaged_pages_stop_the_read_with_a_message(void)
{
    const char *path = make_db("damaged.sqlite", NULL);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    char junk[16384];
    memset(junk, 0xA5, sizeof junk);
    fseek(f, size / 5, SEEK_SET);   /* the kernel table's pages come first after the small tables */
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    const char *err = tiny_read_err(path);
    CHECK_CONTAINS(err, "damaged.sqlite");
    CHECK(strstr(err, "malformed") != NULL || strstr(err, "corrupt") != NULL);
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "sqlite_reader_reads_large_tables_ahead_and_gives_every_row", .fn = large_tables_give_every_row },
        { "sqlite_reader_names_the_rowid_of_a_late_bad_value_in_a_large_table",
          .fn = late_bad_values_are_named_by_rowid },
        { "sqlite_reader_makes_room_for_the_rows_a_large_table_holds_not_its_largest_rowid",
          .fn = room_for_the_rows_not_the_rowids },
        { "sqlite_reader_stops_with_a_message_at_damaged_pages_of_a_large_table",
          .fn = damaged_pages_stop_the_read_with_a_message },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
