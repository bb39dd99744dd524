/* The SQLite reader's Python stack samples (analyzer/read/read_sqlite_python.c): perfscope traces made with the
 * writer's own schema (common/ps_schema.c) and rows written by hand, the model expected beside each case: frames,
 * stacks (innermost first) and samples on their threads; rows that name nothing left out and counted; values of the
 * wrong type refused; the tables optional. Usage: test_sqlite_python CASE */
#include <sqlite3.h>

#include "cases.h"
#include "ps_schema.h"
#include "tinyfs.h"

#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"

/* A perfscope trace: the writer's schema, PERFSCOPE_META, one step range of thread 100 of pid 100, and `rows`. */
static const char *make_trace(const char *name, const char *rows)
{
    const char *path = tiny_path(name);
    sqlite3 *db = NULL;
    char *msg = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, ps_schema_sql, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, "INSERT INTO PERFSCOPE_META VALUES ('schema_version', '1');"
                         "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) VALUES"
                         " (1000, 9000, 59, 'ProfilerStep#1', " GT(100, 100) ", 0);", NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, rows, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: building the test trace: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

/* What a recording of train.py writes: main (t.py:20) -> step (t.py:12) -> preprocess (t.py:3) on the main thread
 * of pid 100, twice, then step's call of forward (nn.py, no line); a DataLoader worker, pid 200, in
 * decode_sample (t.py:40) 70 frames deep (the hook kept the innermost 1). */
static const char rows[] =
    "INSERT INTO PERFSCOPE_PYTHON_FRAMES VALUES (1, 't.py', 3, 'preprocess'), (2, 't.py', 12, 'step'),"
    " (3, 't.py', 20, 'main'), (4, 'nn.py', NULL, 'Module.forward'), (5, 't.py', 40, 'decode_sample');"
    "INSERT INTO PERFSCOPE_PYTHON_STACKS VALUES (1, 0, 1), (1, 1, 2), (1, 2, 3), (2, 0, 4), (2, 1, 2), (2, 2, 3),"
    " (3, 0, 5);"
    "INSERT INTO PERFSCOPE_PYTHON_SAMPLES VALUES (2000, " GT(100, 100) ", 1, 3), (3000, " GT(100, 100) ", 1, 3),"
    " (4000, " GT(100, 100) ", 2, 3), (2500, " GT(200, 200) ", 3, 70);";

/* The step's thread is model thread 0 (its range came first); the worker's main thread was made by its sample. */
static void sqlite_python_samples_read_into_the_model(void)
{
    struct ps_model *m = tiny_read(make_trace("py.sqlite", rows));
    if (!m)
        return;
    CHECK_EQ(m->py_frames.n, 5);
    CHECK_EQ(m->py_stacks.n, 3);
    CHECK_EQ(m->py_stack_frames.n, 7);
    CHECK_EQ(m->py_samples.n, 4);
    CHECK_EQ(m->unplaced_events, 0);
    CHECK_STR(ps_model_str(m, m->py_frames.v[0].function), "preprocess");
    CHECK_STR(ps_model_str(m, m->py_frames.v[0].file), "t.py");
    CHECK_EQ(m->py_frames.v[0].line, 3);
    CHECK_STR(ps_model_str(m, m->py_frames.v[3].function), "Module.forward");
    CHECK_EQ(m->py_frames.v[3].line, -1);                  /* NULL: unknown */
    const struct ps_py_sample *s = m->py_samples.v;
    CHECK_EQ(s[0].time_ns, 2000);
    CHECK_EQ(s[0].depth, 3);
    CHECK_EQ(s[0].stack, s[1].stack);
    CHECK_EQ(m->threads.v[s[0].thread].pid, 100);
    CHECK_EQ(m->threads.v[s[0].thread].tid, 100);
    CHECK_EQ(s[0].thread, m->ranges.v[0].thread);          /* the step's thread: samples join steps by thread */
    /* innermost first: preprocess < step < main; then forward < step < main */
    const char *want[2][3] = { { "preprocess", "step", "main" }, { "Module.forward", "step", "main" } };
    for (int k = 0; k < 2; k++)
        for (uint32_t level = 0; level < 3; level++)
            CHECK_STR(ps_model_str(m, m->py_frames.v[ps_model_py_frame_at(m, &s[2 * k], level)].function),
                      want[k][level]);
    CHECK_EQ(ps_model_py_frame_at(m, &s[0], 3), PS_NONE);
    CHECK_EQ(m->threads.v[s[3].thread].pid, 200);
    CHECK_EQ(s[3].depth, 70);
    CHECK_EQ(m->py_stacks.v[s[3].stack].n, 1);
    CHECK_STR(ps_model_str(m, m->py_frames.v[ps_model_py_frame_at(m, &s[3], 0)].function), "decode_sample");
    ps_model_free(m);
}

/* Rows that name what no row defines are left out, each counted once (unplaced_events), the rest read: a frame id
 * given twice (its second row), a stack with level 1 missing, one naming frame 9, samples of stack 7 (none), of
 * the stack left out, shallower than its stack, with a NULL thread. */
static void sqlite_python_rows_naming_nothing_are_left_out(void)
{
    struct ps_model *m = tiny_read(make_trace("bad.sqlite",      /* tables without the writer's constraints */
        "DROP TABLE PERFSCOPE_PYTHON_FRAMES; CREATE TABLE PERFSCOPE_PYTHON_FRAMES(id, file, line, function);"
        "DROP TABLE PERFSCOPE_PYTHON_SAMPLES;"
        "CREATE TABLE PERFSCOPE_PYTHON_SAMPLES(timestamp, globalTid, stackId, depth);"
        "INSERT INTO PERFSCOPE_PYTHON_FRAMES VALUES (1, 'a.py', 1, 'f'), (2, 'a.py', 2, 'g'), (2, 'a.py', 3, 'h');"
        "INSERT INTO PERFSCOPE_PYTHON_STACKS VALUES (1, 0, 1), (1, 1, 2), (2, 0, 1), (2, 2, 2), (3, 0, 9);"
        "INSERT INTO PERFSCOPE_PYTHON_SAMPLES VALUES (10, " GT(100, 100) ", 1, 2), (20, " GT(100, 100) ", 7, 1),"
        " (30, " GT(100, 100) ", 2, 3), (40, " GT(100, 100) ", 1, 1), (50, NULL, 1, 2);"));
    if (!m)
        return;
    CHECK_EQ(m->py_frames.n, 2);
    CHECK_STR(ps_model_str(m, m->py_frames.v[1].function), "g");
    CHECK_EQ(m->py_stacks.n, 1);
    CHECK_EQ(m->py_samples.n, 1);
    CHECK_EQ(m->py_samples.v[0].time_ns, 10);
    CHECK_EQ(m->unplaced_events, 1 + 2 + 4);
    CHECK_CONTAINS(meta_value(m, "unplaced_events"), "PERFSCOPE_PYTHON_STACKS stacks with a level missing");
    ps_model_free(m);
}

/* A value of the wrong type is an error naming the table, the column and the row, never read as 0. */
static void sqlite_python_wrong_types_are_refused(void)
{
    char sql[1024];
    snprintf(sql, sizeof sql, "%s UPDATE PERFSCOPE_PYTHON_SAMPLES SET stackId = 'one' WHERE timestamp = 3000;", rows);
    CHECK_CONTAINS(tiny_read_err(make_trace("type.sqlite", sql)),
                   "table PERFSCOPE_PYTHON_SAMPLES, column stackId, rowid 2: text value 'one' where an integer is");
    snprintf(sql, sizeof sql, "%s UPDATE PERFSCOPE_PYTHON_FRAMES SET function = x'00ff' WHERE id = 2;", rows);
    CHECK_CONTAINS(tiny_read_err(make_trace("blob.sqlite", sql)),
                   "table PERFSCOPE_PYTHON_FRAMES, column function, rowid 2: blob value where text is required");
}

/* A trace without the tables (recorded before them, or with --python-stack-hz 0: empty) reads as before; one that
 * has only some of the three reads none. */
static void sqlite_python_tables_are_optional(void)
{
    struct ps_model *m = tiny_read(make_trace("none.sqlite", "SELECT 1;"));
    if (m) {
        CHECK_EQ(m->py_samples.n, 0);
        CHECK_EQ(m->py_frames.n, 0);
        CHECK_EQ(m->ranges.n, 1);
        ps_model_free(m);
    }
    char sql[1024];
    snprintf(sql, sizeof sql, "%s DROP TABLE PERFSCOPE_PYTHON_STACKS;", rows);
    m = tiny_read(make_trace("partial.sqlite", sql));
    if (m) {
        CHECK_EQ(m->py_samples.n, 0);
        CHECK_EQ(m->py_frames.n, 0);
        CHECK_EQ(m->unplaced_events, 0);
        ps_model_free(m);
    }
}

static int setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "sqlite_python_samples_read_into_the_model", .fn = sqlite_python_samples_read_into_the_model },
        { "sqlite_python_rows_naming_nothing_are_left_out", .fn = sqlite_python_rows_naming_nothing_are_left_out },
        { "sqlite_python_wrong_types_are_refused", .fn = sqlite_python_wrong_types_are_refused },
        { "sqlite_python_tables_are_optional", .fn = sqlite_python_tables_are_optional },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL,
                     &(struct case_hooks){ .setup = setup, .teardown = tiny_cleanup });
}
