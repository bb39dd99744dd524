/* `perfscope report` on small perfscope traces built with plain SQL, one case per problem a fresh user found
 *: the dropped-record total, step ranges on several threads, names that try to forge report lines,
 * unfinished recordings and crashed programs, traces without NVTX or GPU rows, corrupt time values, long step
 * tables, full kernel names, the HTA rounding note. Expected values are worked out beside each case. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_text_escape.h"
#include "render/render.h"
#include "cases.h"
#include "check.h"
#include "read/reader.h"

static char dir[256];

/* globalTid = (1<<48) | (pid<<24) | tid (docs/trace-format.md) */
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"
#define GP(pid) "((1<<48)|(" #pid "<<24))"

static const char nvtx_table[] =
    "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,"
    " textId INTEGER, globalTid INTEGER, domainId INTEGER);";

/* Write a trace from `sql` (the NVTX_EVENTS table is always created first) and return its path. */
static const char *make_trace(const char *name, const char *sql)
{
    static char path[512];
    sqlite3 *db = NULL;
    char *msg = NULL;
    snprintf(path, sizeof path, "%s/%s.sqlite", dir, name);
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, nvtx_table, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: building the test trace: %s\n", path, msg ? msg : sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return path;
}

struct result {
    struct ps_model *m;
    struct ps_report r;
    char *text, *json;
    char err[512];
};

/* Read and report `path`; 0, or -1 with the reader's message in res->err. */
static int report(const char *path, struct result *res, const struct ps_report_opts *opts)
{
    struct ps_report_opts o;
    size_t len;
    ps_report_opts_default(&o);
    memset(res, 0, sizeof *res);
    if (ps_read_trace(path, &res->m, res->err, sizeof res->err) < 0)
        return -1;
    if (ps_ranks_report_compute(&res->r, res->m, opts ? opts : &o, res->err, sizeof res->err) < 0) {
        fprintf(stderr, "%s: %s\n", path, res->err);
        exit(1);
    }
    FILE *f = open_memstream(&res->text, &len);
    ps_report_write_text(f, &res->r);
    fclose(f);
    f = open_memstream(&res->json, &len);
    ps_report_write_json(f, &res->r);
    fclose(f);
    return 0;
}

static void done(struct result *res)
{
    if (res->text)
        ps_report_fini(&res->r);
    free(res->text);
    free(res->json);
    ps_model_free(res->m);
}

static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* #4: PERFSCOPE_META dropped_records is the total (75628); the per-process key repeats it and is not added.
 * Without the total, the per-process keys are summed: 3 + 4 = 7. */
static void dropped_records_total_not_doubled(void)
{
    struct result a, b;
    report(make_trace("dropped", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                 "INSERT INTO PERFSCOPE_META VALUES ('dropped_records', '75628'),"
                                 " ('dropped_records.pid.42', '75628');"
                                 "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(42, 42) ", 0);"),
           &a, NULL);
    CHECK(a.m->dropped_records == 75628, "dropped %lld, want 75628", (long long)a.m->dropped_records);
    CHECK(strstr(a.json, "\"dropped_records\": 75628,") != NULL, "JSON dropped_records is not 75628");
    CHECK(strstr(a.text, "Warning: 75628 records were dropped") != NULL, "text does not say 75628");
    done(&a);
    report(make_trace("dropped2", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                  "INSERT INTO PERFSCOPE_META VALUES ('dropped_records.pid.1', '3'),"
                                  " ('dropped_records.pid.2', '4');"
                                  "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(1, 1) ", 0);"),
           &b, NULL);
    CHECK(b.m->dropped_records == 7, "dropped %lld, want 7 (per-process fallback)", (long long)b.m->dropped_records);
    done(&b);
}

/* #6: pid 100, thread 1: "step" [0,10) with a nested "step" [1,5), [10,20), [20,30); thread 2 (concurrent):
 * "step" [5,15), [15,25). 6 step ranges found; thread 1 holds the most (4 > 2): its 3 steps are analysed
 * (the nested one is not a step; thread 2's are not nested in thread 1's). The old cross-thread rule kept 5. */
static void steps_nest_only_within_a_thread(void)
{
    struct result a;
    report(make_trace("threads", "INSERT INTO NVTX_EVENTS VALUES"
                                 " (0, 10, 59, 'step', NULL, " GT(100, 1) ", 0), (1, 5, 59, 'step', NULL, " GT(100, 1) ", 0),"
                                 " (10, 20, 59, 'step', NULL, " GT(100, 1) ", 0), (20, 30, 59, 'step', NULL, " GT(100, 1) ", 0),"
                                 " (5, 15, 59, 'step', NULL, " GT(100, 2) ", 0), (15, 25, 59, 'step', NULL, " GT(100, 2) ", 0);"),
           &a, NULL);
    CHECK(a.r.step_ranges_found == 6, "step ranges found %zu, want 6", a.r.step_ranges_found);
    CHECK(a.r.nsteps == 3, "steps %zu, want 3", a.r.nsteps);
    CHECK(a.r.step_threads == 2, "step threads %zu, want 2", a.r.step_threads);
    CHECK(a.r.nsteps == 3 && a.r.steps[1].host_start_ns == 10 && a.r.steps[2].host_start_ns == 20,
          "steps are not thread 1's [0,10) [10,20) [20,30)");
    CHECK(strstr(a.text, "Steps: 3 analysed of 6 step ranges found") != NULL, "text step count");
    CHECK(strstr(a.text, "Step ranges are on 2 threads of process 100: thread 1") != NULL, "text thread choice");
    CHECK(strstr(a.json, "\"step_thread\": 1, \"step_threads\": 2, \"step_ranges_found\": 6") != NULL,
          "JSON step thread keys");
    done(&a);
}

/* #12: a step range named to forge a verdict line, a terminal escape and invalid UTF-8. */
static void text_escapes_names(void)
{
    struct result a;
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.step_re = "evil.*";   /* the evil name is the step: printed in the steps table */
    report(make_trace("evil", "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59,"
                              " 'evil' || char(10) || 'Verdict: kernel (100 %)' || char(10) || char(27) || '[31m'"
                              " || CAST(x'fffe' AS TEXT), NULL, " GT(1, 1) ", 0);"),
           &a, &o);
    CHECK(strstr(a.text, "\nVerdict: kernel (100 %)") == NULL, "a name forged a Verdict line");
    CHECK(strchr(a.text, 0x1b) == NULL, "an ESC byte reached the text report");
    CHECK(strchr(a.text, 0xff) == NULL && strchr(a.text, 0xfe) == NULL, "invalid UTF-8 reached the text report");
    /* 18 columns: 8 leading characters, "...", the last 7 of the escaped name */
    CHECK(strstr(a.text, "   1 evil\\nVe...xff\\xfe ") != NULL, "the escaped name is not shown");
    done(&a);
    char out[64];
    ps_text_escape("a\nb\x1b\xff\xc3\xa9\xc2\x9b", out, sizeof out, NULL);
    CHECK(!strcmp(out, "a\\nb\\x1b\\xff\xc3\xa9\\u009b"), "ps_text_escape gave '%s'", out);
}

/* #9 and #10: recording_complete 0 / 1 / absent; child_signal 11. */
static void unfinished_recording_and_crash_are_prominent(void)
{
    struct result a, b, c;
    report(make_trace("incomplete", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                    "INSERT INTO PERFSCOPE_META VALUES ('recording_complete', '0'),"
                                    " ('child_exit_code', '-1'), ('child_signal', '11');"
                                    "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(1, 1) ", 0);"),
           &a, NULL);
    CHECK(strstr(a.text, "WARNING: the recording did not finish") != NULL, "no unfinished-recording warning");
    CHECK(strstr(a.text, "the program was killed by signal 11 (SIGSEGV)") != NULL, "no crash line");
    CHECK(strstr(a.text, "WARNING") < strstr(a.text, "Run: "), "the warnings are not at the top");
    CHECK(strstr(a.json, "\"recording_complete\": false") != NULL, "JSON recording_complete not false");
    CHECK(strstr(a.json, "\"child_exit_code\": -1, \"child_signal\": 11") != NULL, "JSON child status");
    done(&a);
    report(make_trace("complete", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                  "INSERT INTO PERFSCOPE_META VALUES ('recording_complete', '1');"
                                  "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(1, 1) ", 0);"),
           &b, NULL);
    CHECK(strstr(b.text, "WARNING") == NULL, "a finished recording warns");
    CHECK(strstr(b.json, "\"recording_complete\": true") != NULL, "JSON recording_complete not true");
    done(&b);
    report(make_trace("old", "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(1, 1) ", 0);"), &c, NULL);
    CHECK(strstr(c.json, "\"recording_complete\": null") != NULL, "JSON recording_complete not null");
    CHECK(strstr(c.text, "metadata above") == NULL, "text refers to metadata that is not printed");
    done(&c);
}

/* #8: no NVTX, no GPU rows; host samples of pid 7 at 0, 0.5 s, 1 s with CPU 0, 0.2 s, 0.4 s and of pid 8 at 1 s
 * with CPU 0.1 s: 4 samples over 1.000 s, CPU 0.4 + 0.1 = 0.500 s (0.50 cores). Verdict share null. */
static void no_nvtx_no_gpu_explained(void)
{
    struct result a;
    report(make_trace("nothing", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                 "INSERT INTO PERFSCOPE_META VALUES ('cuda_state.pid.7', 'none');"
                                 "CREATE TABLE PERFSCOPE_PROCESS_SAMPLES(timestamp INTEGER NOT NULL, globalPid INTEGER"
                                 " NOT NULL, cpuUserNs INTEGER, cpuSystemNs INTEGER, rssBytes INTEGER);"
                                 "INSERT INTO PERFSCOPE_PROCESS_SAMPLES VALUES (0, " GP(7) ", 0, 0, 1),"
                                 " (500000000, " GP(7) ", 150000000, 50000000, 1),"
                                 " (1000000000, " GP(7) ", 300000000, 100000000, 1),"
                                 " (1000000000, " GP(8) ", 100000000, NULL, 1);"),
           &a, NULL);
    CHECK(strstr(a.text, "no NVTX ranges and no GPU activity were recorded") != NULL, "no explanation");
    CHECK(strstr(a.text, "Host samples: 4 over 1.000 s, CPU time 0.500 s (0.50 cores on average)") != NULL,
          "host samples not summarised");
    CHECK(strstr(a.text, "0.00%") == NULL, "a table of 0 %% shares is printed");
    CHECK(strstr(a.text, "Run: no events") != NULL, "the run line shows a fake 0.000 ms duration");
    CHECK(strstr(a.json, "\"bottleneck\": \"unknown\", \"share\": null") != NULL, "JSON share is not null");
    CHECK(strstr(a.json, "\"host_samples\": {\"count\": 4, \"first_ns\": 0, \"last_ns\": 1000000000, "
                         "\"cpu_ns\": 500000000}") != NULL, "JSON host samples");
    done(&a);
}

/* No probe: perfscope record found no libperfscope_probe.so (PERFSCOPE_META probe_path '', probed_processes 0),
 * so nothing of the program could be recorded: the report says that and how to record with the probe, never that
 * the program did not use NVTX. With a probe recorded (probed_processes 1) the note stays the NVTX one. */
static void no_probe_said_as_such(void)
{
    struct result a, b;
    report(make_trace("noprobe", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                 "INSERT INTO PERFSCOPE_META VALUES ('probe_path', ''), ('probed_processes', '0');"),
           &a, NULL);
    CHECK(strstr(a.text, "perfscope record found no probe (libperfscope_probe.so), so it injected none and recorded "
                         "neither NVTX ranges nor CUDA work") != NULL, "no-probe note: %s", a.text);
    CHECK(strstr(a.text, "did not use NVTX") == NULL && strstr(a.text, "NVTX range named") == NULL,
          "blames the program's NVTX use: %s", a.text);
    CHECK(a.r.nrecs == 1 && strstr(a.r.recs[0], "PERFSCOPE_PROBE=/path/to/libperfscope_probe.so"), "fix: %s",
          a.r.nrecs ? a.r.recs[0] : "(none)");
    CHECK(strstr(a.json, "found no probe") != NULL, "JSON lacks the note");
    done(&a);
    report(make_trace("probed", "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                                "INSERT INTO PERFSCOPE_META VALUES ('probe_path', '/p/libperfscope_probe.so'),"
                                " ('probed_processes', '1');"), &b, NULL);
    CHECK(strstr(b.text, "did not use NVTX") != NULL && strstr(b.text, "found no probe") == NULL,
          "probed trace: %s", b.text);
    done(&b);
}

/* #14: a text start (rowid 5) and a real end are errors naming table, column and rowid; end < start is counted
 * as unplaced and the text report warns. */
static void corrupt_times_rejected(void)
{
    struct result a, b, c;
    CHECK(report(make_trace("textstart", "INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text, globalTid)"
                                         " VALUES (5, 'abc', 10, 59, 'step', " GT(1, 1) ");"), &a, NULL) < 0,
          "a text start was accepted");
    CHECK(strstr(a.err, "table NVTX_EVENTS, column start, rowid 5: text value 'abc'") != NULL, "message: %s", a.err);
    done(&a);
    CHECK(report(make_trace("realend", "INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text, globalTid)"
                                       " VALUES (9, 0, 10.5, 59, 'step', " GT(1, 1) ");"), &b, NULL) < 0,
          "a real end was accepted");
    CHECK(strstr(b.err, "column end, rowid 9: real value") != NULL, "message: %s", b.err);
    done(&b);
    report(make_trace("reversed", "INSERT INTO NVTX_EVENTS VALUES (0, 10, 59, 'step', NULL, " GT(1, 1) ", 0),"
                                  " (20, 15, 59, 'step', NULL, " GT(1, 1) ", 0);"), &c, NULL);
    CHECK(c.m->unplaced_events == 1, "unplaced %lld, want 1", (long long)c.m->unplaced_events);
    CHECK(strstr(c.text, "Warning: 1 events of the trace could not be placed") != NULL, "no unplaced warning");
    done(&c);
}

/* #11: 30 steps of 10 ns, except steps 13..17 (1-based) of 20..24 ns: shown are steps 1-10, the 5 slowest
 * (13-17, marked) and 26-30: 20 rows, "10 more steps"; --all-steps shows all 30. Without GPU rows the
 * compute column is "Compute" in the steps and the ranks table (two processes hold steps). */
static void steps_table_is_bounded(void)
{
    char sql[8192] = "INSERT INTO NVTX_EVENTS VALUES ";
    long long t = 0;
    for (int i = 1; i <= 30; i++) {
        long long d = i >= 13 && i <= 17 ? 7 + i : 10;
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "(%lld, %lld, 59, 'step', NULL, " GT(1, 1) ", 0), ",
                 t, t + d);
        t += d;
    }
    strcat(sql, "(0, 5, 59, 'step', NULL, " GT(2, 2) ", 0);");
    struct result a, b;
    const char *path = make_trace("many", sql);
    report(path, &a, NULL);
    /* the slowest step is named on a line of its own under the table, never as a marker that wraps on 5 rows */
    CHECK(count_lines_with(a.text, "(slowest)") == 0, "%d (slowest) markers, want none",
          count_lines_with(a.text, "(slowest)"));
    CHECK(count_lines_with(a.text, "\nSlowest: ") == 1 && strstr(a.text, "\nSlowest: step 17 (step), 0.000 ms\n"),
          "the slowest step (17, 24 ns) is not named once");
    char *md = NULL;
    size_t mdlen = 0;
    FILE *mf = open_memstream(&md, &mdlen);
    const struct ps_render_opts mo = { 0 };
    CHECK(mf && ps_renderer_find("md")->report(mf, &a.r, &mo) == 0, "md failed");
    if (mf)
        fclose(mf);
    const char *row17 = md ? strstr(md, "\n| 17 | step | 0.000 |") : NULL, *eol = row17 ? strchr(row17 + 1, '\n') : NULL;
    const char *mark = md ? strstr(md, "(slowest)") : NULL;
    CHECK(md && count_lines_with(md, "(slowest)") == 1 && row17 && mark > row17 && (!eol || mark < eol),
          "md marks %d rows (slowest), want step 17 alone", md ? count_lines_with(md, "(slowest)") : -1);
    free(md);
    CHECK(strstr(a.text, "\n  17 step ") != NULL && strstr(a.text, "\n  12 step ") == NULL &&
          strstr(a.text, "\n  26 step ") != NULL && strstr(a.text, "\n  25 step ") == NULL, "wrong rows shown");
    CHECK(strstr(a.text, "10 more steps (shown: the first 10, the last 5 and the 5 slowest): all in --format json")
          != NULL, "no 'more steps' line");
    CHECK(count_lines_with(a.text, " compute    data ") == 2, "compute is not the label in the steps and ranks tables");
    CHECK(count_lines_with(a.text, "  Compute ") == 1, "Compute is not the label in the average step's table");
    CHECK(strstr(a.text, "Kernel") == NULL, "a table says Kernel on a trace without GPU rows");
    done(&a);
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.all_steps = 1;
    report(path, &b, &o);
    CHECK(strstr(b.text, "\n  12 step ") != NULL && strstr(b.text, "more steps") == NULL, "--all-steps");
    done(&b);
}

/* #11 and #13: two kernels whose names share their first 60 characters are both printed in full; the HTA
 * rounding note is printed once. */
static void kernel_names_in_full_and_hta_note(void)
{
    struct result a;
    report(make_trace("kernels",
                      "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                      "INSERT INTO StringIds VALUES"
                      " (1, 'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_execute_kernel__5x_cublas'),"
                      " (2, 'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_execute_split_k_kernel__5x_cublas'),"
                      " (3, 'cudaLaunchKernel_v7000');"
                      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
                      " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
                      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 1, " GP(1) ", 1),"
                      " (300, 500, 0, 7, 2, " GP(1) ", 2);"
                      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, globalTid INTEGER,"
                      " correlationId INTEGER, nameId INTEGER);"
                      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, " GT(1, 1) ", 1, 3),"
                      " (30, 40, " GT(1, 1) ", 2, 3);"),
           &a, NULL);
    CHECK(strstr(a.text, "tilesize64x256x8_stage3_execute_kernel__5x_cublas\n") != NULL, "kernel 1 not in full");
    CHECK(strstr(a.text, "tilesize64x256x8_stage3_execute_split_k_kernel__5x_cublas\n") != NULL, "kernel 2 not in full");
    CHECK(count_lines_with(a.text, "HTA itself rounds times to whole µs") == 1, "HTA note not printed once");
    done(&a);
}

/* #15: a UTF-8 byte-order mark before Kineto JSON is accepted. */
static void json_bom_accepted(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bom.json", dir);
    FILE *f = fopen(path, "wb");
    fputs("\xef\xbb\xbf{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\","
          " \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10}]}", f);
    fclose(f);
    struct result a;
    CHECK(report(path, &a, NULL) == 0, "a JSON trace with a BOM is rejected: %s", a.err);
    CHECK(a.m && a.m->ranges.n == 1, "the BOM trace's range is missing");
    done(&a);
    unlink(path);
}

/* #15: a SQLite file whose schema holds raw bytes (a table named \xff\xfe with a broken CREATE statement):
 * the error message shows them escaped. */
static void corrupt_sqlite_message_escaped(void)
{
    struct result a;
    const char *path = make_trace("badschema", "CREATE TABLE \"\xff\xfe\"(x);"
                                               "PRAGMA writable_schema = ON;"
                                               "UPDATE sqlite_master SET sql = 'CREATE TABLE \xff\xfe(' "
                                               " WHERE name = '\xff\xfe';");
    CHECK(report(path, &a, NULL) < 0, "a corrupt schema was accepted");
    CHECK(strchr(a.err, 0xff) == NULL && strchr(a.err, 0xfe) == NULL, "raw bytes in the message: %s", a.err);
    CHECK(strstr(a.err, "\\xff\\xfe") != NULL, "the bytes are not shown escaped: %s", a.err);
    done(&a);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "dropped_records_total_not_doubled", .fn = dropped_records_total_not_doubled },
        { "steps_nest_only_within_a_thread", .fn = steps_nest_only_within_a_thread },
        { "text_escapes_names", .fn = text_escapes_names },
        { "unfinished_recording_and_crash_are_prominent", .fn = unfinished_recording_and_crash_are_prominent },
        { "no_nvtx_no_gpu_explained", .fn = no_nvtx_no_gpu_explained },
        { "no_probe_said_as_such", .fn = no_probe_said_as_such },
        { "corrupt_times_rejected", .fn = corrupt_times_rejected },
        { "steps_table_is_bounded", .fn = steps_table_is_bounded },
        { "kernel_names_in_full_and_hta_note", .fn = kernel_names_in_full_and_hta_note },
        { "json_bom_accepted", .fn = json_bom_accepted },
        { "corrupt_sqlite_message_escaped", .fn = corrupt_sqlite_message_escaped },
    };
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_trace_edge_cases DIR CASE\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 2 ? argv[2] : NULL, NULL, NULL);
}
