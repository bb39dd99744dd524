/* A trace file is untrusted input: what the SQLite reader refuses to run (views,
 * virtual tables, generated columns, unbounded work), values of the wrong type in every numeric column, NUL bytes
 * inside Kineto strings, Kineto "args" that are not objects, and the messages that name the cause. Each case builds
 * a tiny file; the expected values and messages are written beside it. Usage: test_untrusted_traces CASE */
#include <sqlite3.h>
#include <sys/wait.h>

#include "cases.h"
#include "tinyfs.h"

#define GP "((1<<48)|(100<<24))"
#define GT "((1<<48)|(100<<24)|100)"

/* A valid perfscope trace: one kernel, one launch, two steps, two host samples (rowid 1 everywhere it matters). */
static const char base[] =
    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringIds VALUES (1, 'kernelA'), (2, 'cudaLaunchKernel_v7000');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
    " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 5, " GP ", 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
    " correlationId INTEGER, nameId INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 900, 0, " GT ", 5, 2);"
    "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER,"
    " globalTid INTEGER, domainId INTEGER);"
    "INSERT INTO NVTX_EVENTS VALUES (100, 5000, 59, 'ProfilerStep#1', NULL, " GT ", 0),"
    " (5000, 9000, 59, 'ProfilerStep#2', NULL, " GT ", 0);"
    "CREATE TABLE PERFSCOPE_META(key TEXT, value TEXT);"
    "INSERT INTO PERFSCOPE_META VALUES ('recording_complete', '1');"
    "CREATE TABLE PERFSCOPE_PROCESS_SAMPLES(timestamp INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
    " cpuUserNs INTEGER, cpuSystemNs INTEGER);"
    "INSERT INTO PERFSCOPE_PROCESS_SAMPLES VALUES (1000, " GP ", 100, 10), (21000000, " GP ", 2000, 20),"
    " (9000, " GP "+1, 50, NULL);";

static const char *make_db(const char *name, const char *sql1, const char *sql2)
{
    const char *path = tiny_path(name);
    sqlite3 *db = NULL;
    char *msg = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, "PRAGMA synchronous=OFF", NULL, NULL, &msg) ||
        sqlite3_exec(db, sql1, NULL, NULL, &msg) != SQLITE_OK ||
        (sql2 && sqlite3_exec(db, sql2, NULL, NULL, &msg) != SQLITE_OK)) {
        fprintf(stderr, "%s: building the test database: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

/* #6: a recursive VIEW named NVTX_EVENTS made `report` run forever and grow past 3 GB; a virtual table or a
 * generated column runs code from the file too. Each is refused from the schema, naming the table, before any of
 * its code runs (a reader that ran the view would never return: this test's timeout). */
static void sqlite_reader_reads_only_real_tables(void)
{
    static const struct {
        const char *sql, *message;
    } cases[] = {
        { "DROP TABLE NVTX_EVENTS; CREATE VIEW NVTX_EVENTS AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1"
          " FROM r) SELECT n AS start, n+1 AS end, 59 AS eventType, 'x' AS text, NULL AS textId, " GT " AS globalTid,"
          " 0 AS domainId FROM r",
          "NVTX_EVENTS is a view, not a table: perfscope reads only real tables" },
        { "DROP TABLE StringIds; CREATE VIRTUAL TABLE StringIds USING fts4(id, value)",
          "StringIds is a virtual table, not a table" },
        { "CREATE VIEW PROCESSES AS SELECT 100 AS pid, 'train' AS name", "PROCESSES is a view, not a table" },
        { "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(s INTEGER, start INTEGER"
          " GENERATED ALWAYS AS (s * 2), end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER,"
          " globalPid INTEGER, demangledName INTEGER)",
          "table CUPTI_ACTIVITY_KIND_KERNEL, column start is a generated column" },
    };
    struct ps_model *m = tiny_read(make_db("base.sqlite", base, NULL));
    if (m)
        CHECK(m->gpu.n == 1 && m->ranges.n == 2);
    ps_model_free(m);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "code%zu.sqlite", i);
        CHECK_CONTAINS(tiny_read_err(make_db(name, base, cases[i].sql)), cases[i].message);
    }
}

/* #6: the work is bounded. StringIds without its primary key makes every name lookup a full scan: 8,000 distinct
 * names cost 8,000 x 8,000 row visits (quadratic; a 1.7 MB file of 30,000 took 30 s, a 17 MB one would take about
 * 50 minutes). The bound counts SQLite steps, not seconds: the unindexed file is refused for the steps it would
 * take, whatever the machine's speed; the same rows with the primary key read. */
static void sqlite_reader_bounds_its_work(void)
{
    char sql[400];
    const char *make = "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                       " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
                       "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 7999)"
                       " INSERT INTO StringIds SELECT i, 'kernel_' || i FROM r;"
                       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000 * id + 1, 1000 * id + 500, 0, 7, id, "
                       GP ", 7999 - id FROM StringIds;";
    snprintf(sql, sizeof sql, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);");
    struct ps_model *m = tiny_read(make_db("indexed.sqlite", sql, make));
    if (m)
        CHECK_EQ(m->gpu.n, 8000);
    ps_model_free(m);
    snprintf(sql, sizeof sql, "CREATE TABLE StringIds(id INTEGER, value TEXT);");
    const char *err = tiny_read_err(make_db("unindexed.sqlite", sql, make));
    CHECK_CONTAINS(err, "unindexed.sqlite: table StringIds: reading this file took more than");
    CHECK_CONTAINS(err, "SQLite steps, far more than a trace of its size needs");
}

/* #7: values of the wrong type in numeric columns were read as 0 or made rows vanish (exit 0): host samples
 * "over -0.021 s", an NVTX row with eventType 59.5 gone. Now errors naming table, column and rowid, or (integers
 * that are no known type) unplaced rows, counted. */
static void sqlite_reader_checks_every_numeric_column(void)
{
    static const struct {
        const char *update, *message;
    } errors[] = {
        { "UPDATE PERFSCOPE_PROCESS_SAMPLES SET timestamp = 'x' WHERE rowid = 2",
          "table PERFSCOPE_PROCESS_SAMPLES, column timestamp, rowid 2: text value 'x' where an integer is required" },
        { "UPDATE PERFSCOPE_PROCESS_SAMPLES SET cpuUserNs = 'lots' WHERE rowid = 2",
          "table PERFSCOPE_PROCESS_SAMPLES, column cpuUserNs, rowid 2: text value 'lots'" },
        { "UPDATE PERFSCOPE_PROCESS_SAMPLES SET cpuSystemNs = 0.5 WHERE rowid = 1",
          "table PERFSCOPE_PROCESS_SAMPLES, column cpuSystemNs, rowid 1: real value '0.5'" },
        { "UPDATE PERFSCOPE_PROCESS_SAMPLES SET cpuSystemNs = -20 WHERE rowid = 2",
          "table PERFSCOPE_PROCESS_SAMPLES, rowid 2: CPU time 2000 + -20 ns is negative or beyond int64" },
        { "UPDATE NVTX_EVENTS SET eventType = 59.5 WHERE rowid = 2",
          "table NVTX_EVENTS, column eventType, rowid 2: real value '59.5' where an integer is required" },
        { "UPDATE NVTX_EVENTS SET eventType = 'fiftynine' WHERE rowid = 2",
          "table NVTX_EVENTS, column eventType, rowid 2: text value 'fiftynine'" },
        { "UPDATE NVTX_EVENTS SET eventType = 75.5 WHERE rowid = 2",
          "table NVTX_EVENTS, column eventType, rowid 2: real value '75.5'" },
        { "CREATE TABLE TARGET_INFO_GPU(id, name, totalMemory, smCount, computeMajor, computeMinor);"
          "INSERT INTO TARGET_INFO_GPU VALUES ((1<<32) + 1, 'g', 1, 132, 9, 0)",
          "table TARGET_INFO_GPU, column id, rowid 1: 4294967297 is out of range (0 to 2147483647)" },
        { "CREATE TABLE TARGET_INFO_GPU(id, name, totalMemory, smCount, computeMajor, computeMinor);"
          "INSERT INTO TARGET_INFO_GPU VALUES (0, 'g', 1, 1<<40, 9, 0)",
          "table TARGET_INFO_GPU, column smCount, rowid 1: 1099511627776 is out of range (-1 to 2147483647)" },
        { "CREATE TABLE TARGET_INFO_CUDA_DEVICE(cudaId, numMultiprocessors); INSERT INTO TARGET_INFO_CUDA_DEVICE"
          " VALUES (-3, 132)", "table TARGET_INFO_CUDA_DEVICE, column cudaId, rowid 1: -3 is out of range" },
        { "CREATE TABLE PROCESSES(pid, name); INSERT INTO PROCESSES VALUES (-1, 'x')",
          "table PROCESSES, column pid, rowid 1: -1 is out of range (0 to 4294967295)" },
    };
    /* the base: 3 samples, timestamps 1000 .. 21000000; CPU per process = its largest user + system:
     * pid 100: max(110, 2020) = 2020, pid 100 + 1: 50 (NULL system time counts 0); 2070 in all */
    struct ps_model *m = tiny_read(make_db("base.sqlite", base, NULL));
    if (m) {
        CHECK_EQ(m->samples.n, 3);
        CHECK_EQ(m->samples.first_ns, 1000);
        CHECK_EQ(m->samples.last_ns, 21000000);
        CHECK_EQ(m->samples.cpu_ns, 2070);
    }
    ps_model_free(m);
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "types%zu.sqlite", i);
        const char *err = tiny_read_err(make_db(name, base, errors[i].update));
        CHECK_CONTAINS(err, errors[i].message);
        CHECK_CONTAINS(err, name);
    }
    /* integers that are no NVTX event type: unplaced and counted, never read as type (int)v (2^32 + 59 was 59) */
    m = tiny_read(make_db("types_unknown.sqlite", base, "UPDATE NVTX_EVENTS SET eventType = (1<<32) + 59 WHERE rowid = 2;"
                          "INSERT INTO NVTX_EVENTS VALUES (9000, 9500, NULL, 'n', NULL, " GT ", 0),"
                          " (9000, 9500, 33, 'category', NULL, " GT ", 0)"));
    if (m) {
        CHECK_EQ(m->ranges.n, 1);
        CHECK_EQ(m->unplaced_events, 2);
        CHECK_STR(meta_value(m, "unplaced_events"),
                  "NVTX_EVENTS rows of unknown eventType: 1; NVTX_EVENTS rows without eventType: 1");
    }
    ps_model_free(m);
}

/* #10: the main file of a killed recording copied without its -wal. Nothing checkpointed: the main file has no
 * tables, and the message says the -wal is missing (it said "not a perfscope or Nsight Systems trace"). */
static void sqlite_reader_says_when_the_wal_file_is_missing(void)
{
    const char *live = tiny_path("killed.sqlite");
    pid_t pid = fork();
    if (pid == 0) {
        sqlite3 *db = NULL;
        if (sqlite3_open(live, &db) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0", NULL, NULL, NULL) ||
            sqlite3_exec(db, base, NULL, NULL, NULL) ||
            sqlite3_exec(db, "UPDATE PERFSCOPE_META SET value = '0'", NULL, NULL, NULL))
            _exit(1);
        _exit(0);                     /* killed: every row is still in killed.sqlite-wal */
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "building the killed recording failed\n");
        exit(1);
    }
    char cmd[512];
    const char *copy = tiny_path("copy.sqlite");
    tiny_path("killed.sqlite-wal");
    tiny_path("killed.sqlite-shm");
    snprintf(cmd, sizeof cmd, "cp %s %s", live, copy);
    if (system(cmd) != 0)
        exit(1);
    struct ps_model *m = tiny_read(live);        /* with its -wal: all of it */
    if (m)
        CHECK(m->gpu.n == 1 && m->ranges.n == 2 && !*meta_value(m, "wal_file_missing"));
    ps_model_free(m);
    const char *err = tiny_read_err(copy);
    CHECK_CONTAINS(err, "copy.sqlite: SQLite file without trace tables, in WAL mode and without its -wal file");
    CHECK_CONTAINS(err, "copy.sqlite-wal is missing");
    /* WAL mode, no -wal, rows in the main file: recording_complete = 0 reads with the flag (the report warns); a
     * trace older than that row (or a complete one) has nothing missing */
    static const struct {
        const char *name, *meta, *flag;
    } wal_cases[] = {
        { "wal_unfinished.sqlite", "UPDATE PERFSCOPE_META SET value = '0'", "1" },
        { "wal_old.sqlite", "DELETE FROM PERFSCOPE_META", "" },
        { "wal_complete.sqlite", "SELECT 1", "" },
    };
    for (size_t i = 0; i < sizeof wal_cases / sizeof wal_cases[0]; i++) {
        char sql[sizeof base + 64];
        snprintf(sql, sizeof sql, "PRAGMA journal_mode=WAL; %s", base);
        m = tiny_read(make_db(wal_cases[i].name, sql, wal_cases[i].meta));
        if (m) {
            CHECK_EQ(m->gpu.n, 1);
            CHECK_STR(meta_value(m, "wal_file_missing"), wal_cases[i].flag);
        }
        ps_model_free(m);
    }
}

/* Kineto traces for the cases below: a launch and its kernel around the event under test. */
#define LAUNCH "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10," \
               "\"dur\":2,\"args\":{\"correlation\":5}}"
#define KERNEL(args) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":13,\"dur\":5," \
                     "\"args\":" args "}"
#define KARGS "{\"correlation\":5,\"device\":0,\"stream\":7}"

static const char *write_json(const char *name, const char *text)
{
    return tiny_write(name, text, strlen(text));
}

/* #8: "\u0000" cut a string short: "ProfilerStep#1\u0000x" became the step ProfilerStep#1, a CPU op with cat
 * "kernel\u0000cpu_op" a kernel on "GPU 100". Every byte is kept (NUL as PS_UTF8_NUL, C0 80: never the text \x00). */
static void kineto_reader_keeps_nul_bytes(void)
{
    struct ps_model *m = tiny_read(write_json("step.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\","
        "\"name\":\"ProfilerStep#1\\u0000x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}," LAUNCH "," KERNEL(KARGS) "],"
        "\"deviceProperties\":[{\"id\":0,\"name\":\"H\\u0000100\"}],\"note\":\"a\\u0000b\"}"));
    if (m) {
        CHECK_EQ(m->ranges.n, 1);
        if (m->ranges.n)
            CHECK_STR(ps_model_str(m, m->ranges.v[0].name), "ProfilerStep#1\xC0\x80" "x");
        CHECK_EQ(m->devices.n, 1);
        if (m->devices.n)
            CHECK_STR(ps_model_str(m, m->devices.v[0].name), "H\xC0\x80" "100");
        CHECK_STR(meta_value(m, "kineto.note"), "a\xC0\x80" "b");
    }
    ps_model_free(m);
    m = tiny_read(write_json("cat.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\\u0000cpu_op\",\"name\":"
        "\"aten::mm\",\"pid\":100,\"tid\":1,\"ts\":0,\"dur\":100}," LAUNCH "," KERNEL(KARGS) "]}"));
    if (m) {
        CHECK_EQ(m->gpu.n, 1);                  /* the real kernel only */
        CHECK_EQ(m->devices.n, 1);              /* no "GPU 100" */
        CHECK_EQ(m->unplaced_events, 1);
        CHECK_STR(meta_value(m, "unplaced_events"), "kernel\xC0\x80" "cpu_op (category not modelled): 1");
    }
    ps_model_free(m);
    /* a phase is one character: "X\u0000" is no complete event */
    m = tiny_read(write_json("ph.json", "{\"traceEvents\":[{\"ph\":\"X\\u0000\",\"cat\":\"cpu_op\",\"name\":\"a\","
        "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}," LAUNCH "]}"));
    if (m) {
        CHECK_EQ(m->ranges.n, 0);
        CHECK_STR(meta_value(m, "unplaced_events"), "ph '?' events: 1");
    }
    ps_model_free(m);
}

/* #9: "args": [1,2] was ignored and the kernel lost its correlation (no launch link) without a word. An "args"
 * (or a known arg) of the wrong JSON type is an error naming the event and the key. */
static void kineto_reader_refuses_args_that_are_not_objects(void)
{
    static const struct {
        const char *args, *message;
    } cases[] = {
        { "[1,2]", "event 1: \"args\" is not an object (it is an array)" },
        { "5", "event 1: \"args\" is not an object (it is a number)" },
        { "\"x\"", "event 1: \"args\" is not an object (it is a string)" },
        { "true", "event 1: \"args\" is not an object (it is a boolean)" },
        { "{\"correlation\":[5],\"device\":0,\"stream\":7}", "event 1: \"correlation\" is not a number (it is an array)" },
        { "{\"correlation\":5,\"device\":{},\"stream\":7}", "event 1: \"device\" is not a number (it is an object)" },
    };
    struct ps_model *m = tiny_read(write_json("args_ok.json", "{\"traceEvents\":[" LAUNCH "," KERNEL(KARGS) "]}"));
    if (m) {
        CHECK_EQ(m->gpu.n, 1);
        CHECK(m->gpu.n == 1 && ps_model_gpu(m, 0).launch == 0);   /* linked to the launch */
    }
    ps_model_free(m);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32], text[600];
        snprintf(name, sizeof name, "args%zu.json", i);
        snprintf(text, sizeof text, "{\"traceEvents\":[%s,{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                 "\"tid\":7,\"ts\":13,\"dur\":5,\"args\":%s}]}", LAUNCH, cases[i].args);
        CHECK_CONTAINS(tiny_read_err(write_json(name, text)), cases[i].message);
    }
}

/* #10: messages that named the wrong thing: "dur": true said "not a number or a string" (strings are refused too);
 * spaces then NUL bytes were "byte 0: unknown format". */
static void reader_messages_name_the_cause(void)
{
    static const struct {
        const char *event, *message;
    } cases[] = {
        { "\"ts\":0,\"dur\":true", "event 0: \"dur\" is not a number (it is a boolean)" },
        { "\"ts\":0,\"dur\":\"5\"", "event 0: \"dur\" is not a number" },
        { "\"ts\":{},\"dur\":5", "event 0: \"ts\" is not a number (it is an object)" },
        { "\"ts\":0,\"dur\":5,\"pid\":false", "event 0: \"pid\" is not a number or a string (it is a boolean)" },
        { "\"ts\":0,\"dur\":5,\"name\":7", "event 0: \"name\" is not a string" },
        { "\"ts\":0,\"dur\":5,\"cat\":[]", "event 0: \"cat\" is not a string (it is an array)" },
    };
    static const struct {
        const char *top, *message;
    } top_cases[] = {
        { "\"deviceProperties\":[{\"id\":0,\"numSms\":\"132\"}]", "\"numSms\" is not a number (it is a string)" },
        { "\"deviceProperties\":[{\"id\":true}]", "\"id\" is not a number (it is a boolean)" },
        { "\"distributedInfo\":{\"rank\":\"1\"}", "\"rank\" is not a number (it is a string)" },
        { "\"distributedInfo\":{\"world_size\":[2]}", "\"world_size\" is not a number (it is an array)" },
    };
    for (size_t i = 0; i < sizeof top_cases / sizeof top_cases[0]; i++) {
        char name[32], text[300];
        snprintf(name, sizeof name, "top%zu.json", i);
        snprintf(text, sizeof text, "{%s,\"traceEvents\":[%s]}", top_cases[i].top, LAUNCH);
        CHECK_CONTAINS(tiny_read_err(write_json(name, text)), top_cases[i].message);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32], text[300];
        snprintf(name, sizeof name, "msg%zu.json", i);
        snprintf(text, sizeof text, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"tid\":1,%s}]}",
                 cases[i].event);
        CHECK_CONTAINS(tiny_read_err(write_json(name, text)), cases[i].message);
    }
    CHECK_CONTAINS(tiny_read_err(tiny_write("nuls.json", "   \0\0\0{}", 9)), "nuls.json: byte 3: unknown format (0x00");
    CHECK_CONTAINS(tiny_read_err(tiny_write("bom.json", "\xef\xbb\xbfPK", 5)), "bom.json: byte 3: unknown format (0x50");
    CHECK_CONTAINS(tiny_read_err(tiny_write("zip.json", "PK\3\4", 4)), "zip.json: byte 0: unknown format (0x50;");
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "sqlite_reader_reads_only_real_tables", .fn = sqlite_reader_reads_only_real_tables },
        { "sqlite_reader_bounds_its_work", .fn = sqlite_reader_bounds_its_work },
        { "sqlite_reader_checks_every_numeric_column", .fn = sqlite_reader_checks_every_numeric_column },
        { "sqlite_reader_says_when_the_wal_file_is_missing", .fn = sqlite_reader_says_when_the_wal_file_is_missing },
        { "kineto_reader_keeps_nul_bytes", .fn = kineto_reader_keeps_nul_bytes },
        { "kineto_reader_refuses_args_that_are_not_objects", .fn = kineto_reader_refuses_args_that_are_not_objects },
        { "reader_messages_name_the_cause", .fn = reader_messages_name_the_cause },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
