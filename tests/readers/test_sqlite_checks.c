/* The SQLite reader's checks on values and on how it opens a file: integer columns
 * holding text, real or blob values, negative byte counts, NUL bytes inside names, and WAL-mode traces (read
 * without writing beside them, and a clear message where their folder is read-only). Each case builds a tiny
 * file with plain SQL; the expected messages and values are written beside it. Also PERFSCOPE_META values that
 * are not counts (#8, the reader's part). Usage: test_sqlite_checks CASE */
#include <errno.h>
#include <pwd.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cases.h"
#include "tinyfs.h"

#define GP(pid) "((1<<48)|(" #pid "<<24))"
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"

/* One row in every table the reader checks; rowid 1 everywhere. Valid as it stands (the cases break one
 * value each). Columns are declared without a type, so a value keeps the type the case gives it. */
static const char base[] =
    "CREATE TABLE StringIds(id, value);"
    "INSERT INTO StringIds VALUES (1, 'kernelA'), (2, 'cudaLaunchKernel_v7000'), (3, 'main');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, streamId, correlationId, globalPid,"
    " demangledName);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 5, " GP(100) ", 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, streamId, correlationId, globalPid, bytes,"
    " copyKind, srcKind, dstKind);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 2500, 0, 7, 6, " GP(100) ", 4096, 1, 0, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, streamId, correlationId, globalPid, bytes,"
    " memKind);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (3000, 3100, 0, 7, 7, " GP(100) ", 256, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start, end, deviceId, streamId, correlationId, globalPid,"
    " syncType);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (4000, 4100, 0, 7, 8, " GP(100) ", 3);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 900, 0, " GT(100, 100) ", 5, 2);"
    "CREATE TABLE NVTX_EVENTS(start, end, eventType, text, textId, globalTid, domainId);"
    "INSERT INTO NVTX_EVENTS VALUES (100, 5000, 59, 'step', NULL, " GT(100, 100) ", 0);"
    "CREATE TABLE PROCESSES(pid, name);"
    "INSERT INTO PROCESSES VALUES (100, 'train');"
    "CREATE TABLE ThreadNames(nameId, globalTid);"
    "INSERT INTO ThreadNames VALUES (3, " GT(100, 100) ");"
    "CREATE TABLE TARGET_INFO_GPU(id, name, totalMemory, smCount, computeMajor, computeMinor);"
    "INSERT INTO TARGET_INFO_GPU VALUES (0, 'Tiny GPU', 1000, 132, 9, 0);";

static const char *make_db(const char *name, const char *pragma, const char *sql1, const char *sql2)
{
    const char *path = tiny_path(name);
    sqlite3 *db = NULL;
    char *msg = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, pragma, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, sql1, NULL, NULL, &msg) != SQLITE_OK ||
        (sql2 && sqlite3_exec(db, sql2, NULL, NULL, &msg) != SQLITE_OK)) {
        fprintf(stderr, "%s: building the test database: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

/* Before the fix these values were read as 0 (a new "device 0", "stream 0", pid 0, 0 bytes) without a word. */
static void wrong_types_in_integer_columns(void)
{
    static const struct {
        const char *update, *message;
    } cases[] = {
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 'gpu0'",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column deviceId, rowid 1: text value 'gpu0' where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = X'00ff'",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column streamId, rowid 1: blob value where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 'x'",
          "column correlationId, rowid 1: text value 'x' where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 1.5",
          "column deviceId, rowid 1: real value '1.5' where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = 'pid'",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column globalPid, rowid 1: text value 'pid'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 'kernelA'",
          "column demangledName, rowid 1: text value 'kernelA' where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 'lots'",
          "table CUPTI_ACTIVITY_KIND_MEMCPY, column bytes, rowid 1: text value 'lots' where an integer is required" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 'HtoD'", "column copyKind, rowid 1: text value 'HtoD'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = 0.5", "column srcKind, rowid 1: real value '0.5'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET dstKind = 'dev'", "column dstKind, rowid 1: text value 'dev'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET memKind = 'dev'",
          "table CUPTI_ACTIVITY_KIND_MEMSET, column memKind, rowid 1: text value 'dev'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET syncType = 'stream'",
          "table CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, column syncType, rowid 1: text value 'stream'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET eventClass = 'rt'",
          "table CUPTI_ACTIVITY_KIND_RUNTIME, column eventClass, rowid 1: text value 'rt'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'main'",
          "table CUPTI_ACTIVITY_KIND_RUNTIME, column globalTid, rowid 1: text value 'main'" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 2.0",
          "table CUPTI_ACTIVITY_KIND_RUNTIME, column nameId, rowid 1: real value '2.0'" },
        { "UPDATE NVTX_EVENTS SET domainId = 'd'", "table NVTX_EVENTS, column domainId, rowid 1: text value 'd'" },
        { "UPDATE NVTX_EVENTS SET globalTid = X'01'", "table NVTX_EVENTS, column globalTid, rowid 1: blob value" },
        { "UPDATE NVTX_EVENTS SET end = '5000'", "table NVTX_EVENTS, column end, rowid 1: text value '5000' where an "
          "integer time in ns is required" },
        { "UPDATE PROCESSES SET pid = 'p100'", "table PROCESSES, column pid, rowid 1: text value 'p100'" },
        { "UPDATE ThreadNames SET nameId = 'main'", "table ThreadNames, column nameId, rowid 1: text value 'main'" },
        { "UPDATE TARGET_INFO_GPU SET smCount = 'many'", "table TARGET_INFO_GPU, column smCount, rowid 1: text value" },
    };
    /* the base file reads: one of each GPU row, the step range */
    struct ps_model *m = tiny_read(make_db("base.sqlite", "PRAGMA synchronous=OFF", base, NULL));
    if (m) {
        CHECK_EQ(m->gpu.n, 4);
        CHECK_EQ(m->ranges.n, 1);
    }
    ps_model_free(m);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "types%zu.sqlite", i);
        const char *err = tiny_read_err(make_db(name, "PRAGMA synchronous=OFF", base, cases[i].update));
        CHECK_CONTAINS(err, cases[i].message);
        CHECK_CONTAINS(err, name);
    }
}

static void negative_byte_counts(void)
{
    const char *err = tiny_read_err(make_db("neg.sqlite", "PRAGMA synchronous=OFF", base,
                                            "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -100"));
    CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_MEMCPY, column bytes, rowid 1: negative byte count -100");
    err = tiny_read_err(make_db("negset.sqlite", "PRAGMA synchronous=OFF", base,
                                "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET bytes = -1"));
    CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_MEMSET, column bytes, rowid 1: negative byte count -1");
    /* a device id that does not fit the model's int32 would wrap to another GPU */
    err = tiny_read_err(make_db("bigdev.sqlite", "PRAGMA synchronous=OFF", base,
                                "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 99999999999"));
    CHECK_CONTAINS(err, "column deviceId, rowid 1: device 99999999999 out of range");
    /* NULL device or stream: not "GPU 0, stream 0" but an unplaced row */
    struct ps_model *m = tiny_read(make_db("nulldev.sqlite", "PRAGMA synchronous=OFF", base,
                                           "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = NULL"));
    if (m) {
        CHECK_EQ(m->gpu.n, 3);
        CHECK_EQ(m->unplaced_events, 1);
    }
    ps_model_free(m);
}

static const struct ps_range *range_starting(const struct ps_model *m, int64_t start_ns)
{
    for (size_t i = 0; i < m->ranges.n; i++)
        if (m->ranges.v[i].start_ns == start_ns)
            return &m->ranges.v[i];
    return NULL;
}

/* "ProfilerStep#1" NUL "x" (15 + 1 + 1 bytes) must not become the step "ProfilerStep#1". */
static void nul_bytes_in_names(void)
{
    struct ps_model *m = tiny_read(make_db(
        "nul.sqlite", "PRAGMA synchronous=OFF", base,
        "INSERT INTO NVTX_EVENTS VALUES (6000, 7000, 59, CAST(X'50726f66696c65725374657023310078' AS TEXT), NULL, "
        GT(100, 100) ", 0);"
        "INSERT INTO StringIds VALUES (4, CAST(X'6b00656e64' AS TEXT));"   /* "k" NUL "end" */
        "INSERT INTO NVTX_EVENTS VALUES (8000, 9000, 59, NULL, 4, " GT(100, 100) ", 0);"
        "UPDATE PROCESSES SET name = CAST(X'7472610069' AS TEXT);"));     /* "tra" NUL "i" */
    if (m) {
        const struct ps_range *r = range_starting(m, 6000), *t = range_starting(m, 8000);
        CHECK(r && t);
        if (r)
            CHECK_STR(ps_model_str(m, r->name), "ProfilerStep#1\xC0\x80" "x");
        if (t)
            CHECK_STR(ps_model_str(m, t->name), "k\xC0\x80" "end");
        CHECK_EQ(m->procs.n, 1);
        if (m->procs.n == 1)
            CHECK_STR(ps_model_str(m, m->procs.v[0].name), "tra\xC0\x80" "i");
    }
    ps_model_free(m);
}

/* PERFSCOPE_META values are text; a value that is not a count leaves the model's
 * field unknown (-1), where it used to become 0 ('abc', '-5'), 1 ('1e3') or INT64_MAX (a 23-digit number). */
static void meta_counts_that_are_not_integers(void)
{
    static const struct {
        const char *rows;
        long long dropped, rank, world;
    } cases[] = {
        { "('dropped_records', '12'), ('rank', '3'), ('world_size', '8')", 12, 3, 8 },   /* valid: kept */
        { "('dropped_records', 'abc'), ('rank', '1e3'), ('world_size', '0')", -1, -1, -1 },
        { "('dropped_records', '-5'), ('rank', '-1'), ('world_size', ' 8')", -1, -1, -1 },
        { "('dropped_records', '99999999999999999999999'), ('rank', '2147483648')", -1, -1, -1 },
        { "('dropped_records', NULL), ('rank', '')", -1, -1, -1 },
        /* no total: the per-process parts are summed, unless one of them is not a count */
        { "('dropped_records.pid.1', '2'), ('dropped_records.pid.2', '5')", 7, -1, -1 },
        { "('dropped_records.pid.1', '2'), ('dropped_records.pid.2', 'x')", -1, -1, -1 },
        { "('dropped_records.pid.1', '9223372036854775807'), ('dropped_records.pid.2', '1')", -1, -1, -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32], meta[400];
        snprintf(name, sizeof name, "meta%zu.sqlite", i);
        snprintf(meta, sizeof meta, "CREATE TABLE PERFSCOPE_META(name, value); INSERT INTO PERFSCOPE_META VALUES %s;",
                 cases[i].rows);
        struct ps_model *m = tiny_read(make_db(name, "PRAGMA synchronous=OFF", base, meta));
        if (!m)
            continue;
        if (m->dropped_records != cases[i].dropped || m->rank != cases[i].rank || m->world_size != cases[i].world)
            fprintf(stderr, "case %zu: %s\n", i, cases[i].rows);
        CHECK_EQ(m->dropped_records, cases[i].dropped);
        CHECK_EQ(m->rank, cases[i].rank);
        CHECK_EQ(m->world_size, cases[i].world);
        ps_model_free(m);
    }
}

static const char meta_complete[] =
    "CREATE TABLE PERFSCOPE_META(name, value);"
    "INSERT INTO PERFSCOPE_META VALUES ('schema_version', '1'), ('recording_complete', '1');";

static int exists(const char *path, const char *suffix)
{
    char p[256];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, F_OK) == 0;
}

/* A finished trace recorded before record left WAL mode: WAL in the header, no -wal file. Reading it must not
 * create -wal/-shm files beside it (before: both appeared, left behind by the read-only connection). */
static void complete_wal_trace_reads_without_writing_beside_it(void)
{
    const char *path = make_db("old.sqlite", "PRAGMA journal_mode=WAL", base, meta_complete);
    CHECK(!exists(path, "-wal") && !exists(path, "-shm"));     /* the closing writer removed them */
    struct ps_model *m = tiny_read(path);
    if (m)
        CHECK_EQ(m->gpu.n, 4);
    ps_model_free(m);
    CHECK(!exists(path, "-wal"));
    CHECK(!exists(path, "-shm"));
}

/* Run fn in a child that cannot write to `dir` (mode 0555): as user nobody when we are root (root ignores
 * the mode), as ourselves otherwise. Returns the child's exit status, 77 when there is no user nobody. */
static int as_unprivileged(void (*fn)(void))
{
    struct passwd *pw = getuid() == 0 ? getpwnam("nobody") : NULL;
    if (getuid() == 0 && !pw) {
        printf("SKIP: running as root and there is no user nobody to read without permission\n");
        return 77;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (pw && (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0))
            _exit(2);
        fn();
        _exit(check_failures ? 1 : 0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static const char *ro_complete, *ro_copy, *ro_live, *ro_delete;

static void read_in_read_only_dir(void)
{
    /* a complete WAL-mode trace without its -wal file reads (immutable: nothing to create) */
    struct ps_model *m = tiny_read(ro_complete);
    if (m)
        CHECK_EQ(m->gpu.n, 4);
    ps_model_free(m);
    /* what record writes now: journal_mode=DELETE, which reads anywhere */
    m = tiny_read(ro_delete);
    if (m)
        CHECK_EQ(m->gpu.n, 4);
    ps_model_free(m);
    /* the main file of a killed recording copied without its -wal: what it holds reads, as it
     * would in a writable folder, and the model says the -wal is missing (the report warns) */
    m = tiny_read(ro_copy);
    if (m) {
        CHECK_EQ(m->gpu.n, 4);
        CHECK_STR(meta_value(m, "wal_file_missing"), "1");
    }
    ps_model_free(m);
    /* a killed (or live) recording with its -wal: SQLite needs a -shm beside it; the message names the cause */
    const char *err = tiny_read_err(ro_live);
    CHECK_CONTAINS(err, "live.sqlite: cannot read it here: a WAL-mode trace needs a -shm file beside it");
    CHECK_CONTAINS(err, "still being recorded, or a copy of a live or killed recording");
    CHECK(!exists(ro_complete, "-shm") && !exists(ro_copy, "-shm") && !exists(ro_copy, "-wal") &&
          !exists(ro_live, "-shm") && !exists(ro_delete, "-journal"));
}

/* A recording killed after its last commit: WAL mode, the trace's rows in its -wal (no checkpoint), the -shm
 * removed (it is rebuilt from the -wal). */
static const char *make_killed_recording(const char *name, const char *sql)
{
    const char *path = tiny_path(name);
    pid_t pid = fork();
    if (pid == 0) {
        sqlite3 *db = NULL;
        if (sqlite3_open(path, &db) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(db, base, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        _exit(0);                     /* killed: no close, no checkpoint */
    }
    int st = 0;
    char side[200];
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s: building the killed recording failed\n", path);
        exit(1);
    }
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return path;
}

static char ro_dir[128];

static int wal_trace_in_read_only_dir(void)
{
    static const char meta_incomplete[] = "CREATE TABLE PERFSCOPE_META(name, value);"
                                          "INSERT INTO PERFSCOPE_META VALUES ('recording_complete', '0');";
    char *dir = ro_dir, cmd[400];
    snprintf(ro_dir, sizeof ro_dir, "%s/ro", tiny_dir);
    if (chmod(tiny_dir, 0755) != 0 || mkdir(dir, 0755) != 0) {
        perror(dir);
        return 1;
    }
    ro_complete = make_db("ro/complete.sqlite", "PRAGMA journal_mode=WAL", base, meta_complete);
    ro_live = make_killed_recording("ro/live.sqlite", meta_incomplete);
    ro_copy = make_db("ro/copy.sqlite", "PRAGMA journal_mode=WAL", base, meta_incomplete);
    ro_delete = make_db("ro/delete.sqlite", "PRAGMA journal_mode=DELETE", base, meta_complete);
    tiny_path("ro/live.sqlite-wal");  /* removed by tiny_cleanup */
    snprintf(cmd, sizeof cmd, "chmod 0644 %s/*", dir);
    if (system(cmd) != 0)
        return 1;
    chmod(dir, 0555);
    int rc = as_unprivileged(read_in_read_only_dir);
    chmod(dir, 0755);
    return rc;
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

static void tiny_and_ro_cleanup(void)
{
    tiny_cleanup();
    if (ro_dir[0] && rmdir(ro_dir) == 0)     /* tiny_cleanup removed its files but could not remove it */
        rmdir(tiny_dir);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "sqlite_reader_rejects_wrong_types_in_integer_columns", .fn = wrong_types_in_integer_columns },
        { "sqlite_reader_rejects_negative_bytes_and_out_of_range_devices", .fn = negative_byte_counts },
        { "sqlite_reader_keeps_names_whole_across_nul_bytes", .fn = nul_bytes_in_names },
        { "sqlite_reader_leaves_meta_counts_unknown_when_not_integers", .fn = meta_counts_that_are_not_integers },
        { "sqlite_reader_never_writes_beside_a_complete_wal_trace",
          .fn = complete_wal_trace_reads_without_writing_beside_it },
        { "sqlite_reader_reads_or_explains_wal_traces_in_read_only_dirs", .fn_status = wal_trace_in_read_only_dir },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_and_ro_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
