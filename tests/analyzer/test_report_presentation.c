/* `perfscope report` on small hand-built traces, one case per problem a fresh user found in the analysis and its
 * presentation: emit_nvtx range names, the sync column, zero-length windows, CPU-only compute advice,
 * PERFSCOPE_META garbage, --compat tb without Kineto ids, labels. Kineto traces are written as JSON, perfscope
 * traces with plain SQL; the expected values are worked out beside each case. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "cases.h"
#include "check.h"
#include "read/reader.h"

static char dir[256];

/* Write `text` to DIR/name and return the path. */
static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write the test trace\n", path);
        exit(1);
    }
    return path;
}

/* globalTid = (1<<48) | (pid<<24) | tid (docs/trace-format.md) */
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"

/* Write a perfscope trace from `sql` (NVTX_EVENTS and PERFSCOPE_META are created first) and return its path. */
static const char *make_sqlite(const char *name, const char *sql)
{
    static char path[512];
    static const char tables[] =
        "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,"
        " textId INTEGER, globalTid INTEGER, domainId INTEGER);"
        "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
        "INSERT INTO NVTX_EVENTS VALUES (0, 1000, 59, 'step', NULL, " GT(7, 7) ", 0);";
    sqlite3 *db = NULL;
    char *msg = NULL;
    snprintf(path, sizeof path, "%s/%s.sqlite", dir, name);
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, tables, NULL, NULL, &msg) != SQLITE_OK ||
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
};

/* Read and report `path` (options `o`, NULL: defaults); exits on a read or analysis error. */
static void report(const char *path, struct result *res, const struct ps_report_opts *o)
{
    struct ps_report_opts def;
    char err[512];
    size_t len;
    ps_report_opts_default(&def);
    memset(res, 0, sizeof *res);
    if (ps_read_trace(path, &res->m, err, sizeof err) < 0 ||
        ps_ranks_report_compute(&res->r, res->m, o ? o : &def, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", path, err);
        exit(1);
    }
    FILE *f = open_memstream(&res->text, &len);
    ps_report_write_text(f, &res->r);
    fclose(f);
    f = open_memstream(&res->json, &len);
    ps_report_write_json(f, &res->r);
    fclose(f);
}

static void done(struct result *res)
{
    ps_report_fini(&res->r);
    free(res->text);
    free(res->json);
    ps_model_free(res->m);
}

#define HAS(text, needle) CHECK(strstr((text), (needle)) != NULL, "missing: %s", (needle))
#define HASNT(text, needle) CHECK(strstr((text), (needle)) == NULL, "present: %s", (needle))

/* #4: PyTorch emit_nvtx names ranges "NAME[, seq = N][, op_id = N][, sizes = ...][, input_op_ids = ...]"
 * (torch/csrc/profiler/util.cpp getNvtxStr). Two steps named with that suffix, a kernel each (5 µs of 100 µs:
 * host-bound); three aten::add ranges (30 + 40 + 10 µs, different seq / op_id) and one aten::mul (10 µs).
 * Expected: 2 steps, not the whole run; host evidence aten::add 3 x 80 µs (one row), aten::mul 1 x 10 µs;
 * the data pattern ignores the suffix too (data, op_id = 4: 5 µs of DataLoader in step 2). */
static void emit_nvtx_suffix_ignored(void)
{
    CHECK_EQ("base of aten::add, seq = 12, op_id = 5", ps_names_base_len("aten::add, seq = 12, op_id = 5"), 9);
    CHECK_EQ("base of ProfilerStep#3, op_id = 17", ps_names_base_len("ProfilerStep#3, op_id = 17"), 14);
    CHECK_EQ("base with sizes and input_op_ids",
             ps_names_base_len("aten::mul, op_id = 20, sizes = [[2, 3], []], input_op_ids = [(5,0), (6,1)]"), 9);
    CHECK_EQ("base of a plain comma", ps_names_base_len("a, b"), 4);
    CHECK_EQ("base of op_id without digits", ps_names_base_len("x, op_id = "), 11);
    CHECK_EQ("base of an unclosed sizes list", ps_names_base_len("x, sizes = [[1]"), 15);
    static const char trace[] =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1, op_id = 5\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2, seq = 3, op_id = 17\",\"pid\":1,\"tid\":1,"
        "\"ts\":100,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add, seq = 12, op_id = 6\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add, seq = 13, op_id = 18\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":40},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add, op_id = 19\",\"pid\":1,\"tid\":1,\"ts\":160,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul, op_id = 20, sizes = [[2, 3], []]\",\"pid\":1,\"tid\":1,"
        "\"ts\":50,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"data, op_id = 4\",\"pid\":1,\"tid\":1,\"ts\":180,\"dur\":5},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":41,\"dur\":2,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":151,\"dur\":2,"
        "\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":190,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}]}";
    struct result a;
    report(write_file("emit_nvtx.json", trace), &a, NULL);
    CHECK_EQ("whole_run", a.r.whole_run, 0);
    CHECK_EQ("steps", a.r.nsteps, 2);
    CHECK_STR("verdict", ps_bottleneck_name[a.r.bottleneck], "host");
    CHECK(a.r.nsteps == 2 && a.r.steps[1].cat_ns[PS_CAT_DATALOADER] == 5000, "step 2 DataLoader is not 5 µs");
    const struct ps_evidence *add = NULL, *mul = NULL;
    for (size_t i = 0; i < a.r.nevidence; i++) {
        const char *name = ps_model_str(a.m, a.r.evidence[i].name);
        if (!strcmp(a.r.evidence[i].kind, "range") && !strncmp(name, "aten::add", 9)) {
            CHECK(!add, "aten::add has two evidence rows");
            add = &a.r.evidence[i];
        }
        if (!strcmp(a.r.evidence[i].kind, "range") && !strncmp(name, "aten::mul", 9))
            mul = &a.r.evidence[i];
    }
    CHECK(add && add->count == 3 && add->total_ns == 80000, "aten::add evidence is not 3 x 80 µs");
    CHECK(mul && mul->count == 1 && mul->total_ns == 10000, "aten::mul evidence is not 1 x 10 µs");
    HAS(a.text, "range        3 x       0.080 ms  aten::add\n");
    HAS(a.json, "{\"kind\": \"range\", \"name\": \"aten::add\", \"count\": 3, \"total_ns\": 80000}");
    HAS(a.text, "   1 ProfilerStep#1     ");
    done(&a);
}


/* #5 (presentation): findings' sync.json. Step 1 [0,1000] µs: cudaLaunchKernel [10,15], kernel [20,100],
 * cudaDeviceSynchronize [20,110], cpu_op [200,500]; step 2 [1000,2000]: cudaLaunchKernel [1010,1015], kernel
 * [1020,1100]. DESIGN's rule gives step 1 sync 900 µs (from 100, the end of GPU work, to 1000; the call and
 * the host's time after it until the next GPU activity at 1020), step 2 sync 20 µs ([1000,1020)); the average
 * step 1000 µs: Kernel 80 (8 %), Runtime 10 (1 %), CPU Exec 150 (15 %), Other 760 (76 %): 8+1+15+76 = 100 %;
 * sync 460 (46 %) is part of Runtime + CPU Exec + Other (920). The verdict's groups come from where the step goes
 * (docs/report.md): step 1: [0,10) unexplained, launch [10,15) and the kernel's latency [15,20), kernel
 * [20,100), sync: the call's idle [100,110) and what its 90 µs wait exposed, [110,200): 100 (not 900: aten::foo
 * would have run while the kernel did), host compute aten::foo [200,500), unexplained [500,1000): kernel 8 %,
 * sync 10 %, host 10 + 300 + 510 = 82 %; step 2: kernel 80, launch 10, unexplained 910: host 92 %; the average:
 * kernel 8 %, sync 5 %, host 87 %. */
static void sync_is_part_of_host_columns(void)
{
    static const char trace[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
        "\"ts\":0,\"dur\":1000},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
        "\"tid\":7,\"ts\":20,\"dur\":80,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},{\"ph\":\"X\","
        "\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":90,"
        "\"args\":{\"correlation\":2}},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::foo\",\"pid\":1,\"tid\":1,"
        "\"ts\":200,\"dur\":300},{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,"
        "\"tid\":1,\"ts\":1000,\"dur\":1000},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
        "\"pid\":1,\"tid\":1,\"ts\":1010,\"dur\":5,\"args\":{\"correlation\":3}},{\"ph\":\"X\",\"cat\":\"kernel\","
        "\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1020,\"dur\":80,\"args\":{\"device\":0,\"stream\":7,"
        "\"correlation\":3}}]}";
    struct result a;
    report(write_file("sync.json", trace), &a, NULL);
    CHECK_EQ("step 1 sync_ns", a.r.nsteps ? a.r.steps[0].sync_ns : -1, 900000);
    HAS(a.text, "  kernel    data  memcpy    comm    sync    host waiting  verdict\n");
    HAS(a.text, "   1 ProfilerStep#1           1.000     8.0     0.0     0.0     0.0    10.0    82.0     0.0  host\n");
    HAS(a.text, "   2 ProfilerStep#2           1.000     8.0     0.0     0.0     0.0     0.0    92.0     0.0  host\n");
    HAS(a.text, "  Other                   0.760 ms   76.00%\n");
    HAS(a.text, "  CPU Exec                0.150 ms   15.00%\n");
    HAS(a.text, "  (of which sync)         0.460 ms   46.00%  part of Runtime + CPU Exec + Other\n");
    HAS(a.text, "(sync) is not a category of its own: it is the part of Runtime + CPU Exec + Other");
    HAS(a.text, "sync 5.00%, host 87.00%, waiting 0.00% (host = launch overhead + host");
    done(&a);
}

/* #11: two 0-µs kernels at 10 µs and no steps: the one window is zero-length, so every share is undefined:
 * N/A in text as null in JSON, never 0.00 %. */
static void zero_length_window_shares_na(void)
{
    static const char trace[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":0,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
        "\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":0,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}]}";
    struct result a;
    report(write_file("zerok.json", trace), &a, NULL);
    CHECK_EQ("whole_run", a.r.whole_run, 1);
    CHECK_EQ("avg_dur_ns", a.r.avg_dur_ns, 0);
    HAS(a.text, "  Kernel                  0.000 ms      N/A\n");
    HAS(a.text, "  (of which sync)         0.000 ms      N/A  part of Runtime + CPU Exec + Other\n");
    HASNT(a.text, "0.00%");
    HAS(a.text, "Verdict: unknown (zero-length window: nothing to classify)");
    HAS(a.json, "\"bottleneck\": \"unknown\", \"share\": null");
    done(&a);
}

/* #13: a perfscope trace without GPU rows: one step [0,1000) ns holding "forward" [100,900). The host is the
 * device: all 1000 ns are Compute, so the verdict is `kernel` in JSON, "compute" in text, with host-compute
 * advice (no Tensor Cores, torch.compile or top kernels) and the compute range as evidence (1 x 800 ns). */
static void cpu_only_compute_advice(void)
{
    struct result a;
    report(make_sqlite("cpu_compute", "INSERT INTO NVTX_EVENTS VALUES (100, 900, 59, 'forward', NULL, " GT(7, 7) ", 0);"),
           &a, NULL);
    CHECK_EQ("has_gpu", a.r.has_gpu, 0);
    CHECK_STR("verdict", ps_bottleneck_name[a.r.bottleneck], "kernel");
    HAS(a.text, "Verdict: compute (host compute, \"kernel\" in JSON; 100.0 % of the average step is host compute:");
    HAS(a.text, "profile the hot functions");
    HAS(a.text, "run the model on the GPU");
    HASNT(a.text, "Tensor Cores");
    HASNT(a.text, "torch.compile");
    HASNT(a.text, "top kernels");
    HAS(a.text, "  range        1 x       0.001 ms  forward\n");
    HAS(a.json, "\"bottleneck\": \"kernel\", \"share\": 1,");
    HASNT(a.json, "Tensor Cores");
    done(&a);
}

/* PERFSCOPE_META as a recorded trace holds it (keys and values copied from a `perfscope record` of the
 * data-bound workload), with `edit` applied after. */
static const char *recorded_meta(const char *name, const char *edit)
{
    static char sql[2048];
    snprintf(sql, sizeof sql,
             "INSERT INTO PERFSCOPE_META VALUES ('dropped_records.pid.18539', '0'), ('cuda_state.pid.18539', 'none'),"
             " ('schema_version', '1'), ('command_line', 'build/workloads/train --scenario data-bound'),"
             " ('host', 'vm'), ('duration_ns', '1514441020'), ('child_pid', '18539'), ('child_exit_code', '0'),"
             " ('child_signal', '0'), ('dropped_records', '0'), ('recording_complete', '1'); %s", edit);
    return make_sqlite(name, sql);
}

/* #8: bad PERFSCOPE_META values show as unknown / null, never as 0 or a clamped value. Unedited: ran 1.514 s,
 * exit code 0, nothing dropped. */
static void meta_garbage_is_unknown(void)
{
    struct result a;
    report(recorded_meta("meta_ok", ""), &a, NULL);
    HAS(a.text, "Program ran: 1.514 s\n");
    HAS(a.text, "Exit status: exit code 0\n");
    HAS(a.json, "\"dropped_records\": 0,");
    HAS(a.json, "\"child_exit_code\": 0, \"child_signal\": 0");
    done(&a);

    report(recorded_meta("meta_null", "UPDATE PERFSCOPE_META SET value = NULL;"), &a, NULL);
    HAS(a.text, "Program ran: unknown");
    HAS(a.text, "Exit status: unknown");
    HASNT(a.text, "exit code 0");
    HASNT(a.text, "0.000 s");
    HAS(a.text, "Command: unknown");
    HAS(a.text, "CUDA/CUPTI state: unknown in 1 process");
    HAS(a.text, "the number of dropped records is unknown");
    HAS(a.json, "\"dropped_records\": null,");
    HAS(a.json, "\"child_exit_code\": null, \"child_signal\": null");
    done(&a);

    static const char *const bad_counts[] = { "abc", "-5", "99999999999999999999999", "1e3", "" };
    for (size_t i = 0; i < sizeof bad_counts / sizeof bad_counts[0]; i++) {
        char edit[256];
        snprintf(edit, sizeof edit, "UPDATE PERFSCOPE_META SET value = '%s' WHERE name IN ('dropped_records',"
                                    " 'child_exit_code', 'duration_ns');", bad_counts[i]);
        report(recorded_meta("meta_bad", edit), &a, NULL);
        CHECK(strstr(a.json, "\"dropped_records\": null,") != NULL, "'%s': dropped_records is not null", bad_counts[i]);
        CHECK(strstr(a.json, "\"child_exit_code\": null, \"child_signal\": 0") != NULL,
              "'%s': child_exit_code is not null", bad_counts[i]);
        CHECK(strstr(a.text, "Program ran: unknown") != NULL, "'%s': duration is not unknown", bad_counts[i]);
        CHECK(strstr(a.text, "9223372036854775807") == NULL, "'%s': a clamped count is shown", bad_counts[i]);
        CHECK(strstr(a.text, "Exit status: exit code") == NULL, "'%s': a fake exit code is shown", bad_counts[i]);
        done(&a);
    }

    /* rank and world size that are not integers in range: null, not rank 0 */
    report(recorded_meta("meta_rank", "INSERT INTO PERFSCOPE_META VALUES ('rank', 'abc'), ('world_size', '-2');"),
           &a, NULL);
    HAS(a.json, "\"rank\": null, \"world_size\": null,");
    HASNT(a.text, "Rank 0");
    done(&a);
    report(recorded_meta("meta_rank_ok", "INSERT INTO PERFSCOPE_META VALUES ('rank', '1'), ('world_size', '4');"),
           &a, NULL);
    HAS(a.json, "\"rank\": 1, \"world_size\": 4,");
    HAS(a.text, "Rank 1 of 4\n");
    done(&a);

    /* a signal outside Linux's 1..64 */
    report(recorded_meta("meta_sig", "UPDATE PERFSCOPE_META SET value = '999' WHERE name = 'child_signal';"
                                     "UPDATE PERFSCOPE_META SET value = '-1' WHERE name = 'child_exit_code';"),
           &a, NULL);
    HAS(a.text, "WARNING: the program was killed by unknown signal 999.\n");
    HAS(a.text, "Exit status: killed by unknown signal 999\n");
    HASNT(a.text, "(signal)");
    HAS(a.json, "\"child_exit_code\": -1, \"child_signal\": null");
    done(&a);
}

/* #16: labels. 1200 kernels of 2 µs every 3 µs from 10 µs (600 each of two names that share their first 24
 * and last 23 characters, so the old 50-character "head...tail" cut printed them identically), no steps
 * (--steps off: the alternating names would be inferred as 600 steps of 2 kernels, all after the copy); one
 * pageable cudaMemcpyAsync copy of 3000 bytes in [3,4) µs on the same GPU. --gap-threshold 100 ns: the gaps are
 * [4,10) and 1199 of 1 µs between the kernels: 1200 gaps, 1205 µs.
 * Expected: "gaps of 0.0001 ms or more" (was 0.000), tiny_kernels rows 600 x 1.200 ms for each name in full,
 * "Top 2 of 2 kernel names", pageable_memcpy an [info] note: its 1 µs is under 2 % (--info-below) of the
 * analysed window, the 3610 µs run [1, 3611): 0.03 %, printed "0.0 %". */
static void labels_are_exact(void)
{
    static const char a_name[] = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
                                 "at::detail::Array<char*, 3> >(int, at::detail::Array<char*, 2>)";
    static const char b_name[] = "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, "
                                 "at::detail::Array<char*, 3> >(int, at::detail::Array<char*, 2>)";
    size_t cap = 1 << 20, len = 0;
    char *json = malloc(cap);
    if (!json)
        exit(1);
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\","
                            "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"correlation\":5000}},{\"ph\":\"X\","
                            "\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":8,"
                            "\"ts\":3,\"dur\":1,\"args\":{\"device\":0,\"stream\":8,\"correlation\":5000,"
                            "\"bytes\":3000}}");
    for (int i = 0; i < 1200; i++)
        len += (size_t)snprintf(json + len, cap - len,
                                ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,"
                                "\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}",
                                i % 2 ? b_name : a_name, 10 + 3 * i, i + 1);
    snprintf(json + len, cap - len, "]}");
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.gap_ns = 100;
    o.steps_mode = PS_STEPS_OFF;
    struct result a;
    report(write_file("labels.json", json), &a, &o);
    free(json);
    char line[512];
    HAS(a.text, "1200 GPU idle gaps of 0.0001 ms or more, 1.205 ms in all");
    HAS(a.text, "[info] tiny_kernels: 1200 of 1200 kernels run shorter than 10 us");
    /* too long for 100 columns after the numbers: the name in full on its own line */
    snprintf(line, sizeof line, "      600 x               1.200 ms\n  %s\n", a_name);
    HAS(a.text, line);
    snprintf(line, sizeof line, "      600 x               1.200 ms\n  %s\n", b_name);
    HAS(a.text, line);
    HAS(a.text, "Top 2 of 2 kernel names by total time (ms)");
    HAS(a.text, "Findings (rows: \"at X ms\" from the run's first event");
    HAS(a.text, "      at 0.002 ms         0.001 ms       0.003 MB  Memcpy HtoD (Pageable -> Device)\n");
    HAS(a.text, "[info] pageable_memcpy: 1 asynchronous copies use pageable host memory (0.003 MB)");
    HAS(a.text, "the host waits; 0.001 ms, 0.0 % of the analysed window\n");
    HASNT(a.text, "[warning] pageable_memcpy");
    HAS(a.json, "{\"rule\": \"pageable_memcpy\", \"severity\": \"info\"");
    done(&a);
}

/* #12: --compat tb on a perfscope trace (no Kineto External ids): an NCCL kernel launched inside the step counts
 * as Communication by default and as Kernel under --compat tb; both the text and JSON "notes" say why. Step
 * [0,100) µs, cudaLaunchKernel [1,2) -> ncclKernel_AllReduce [10,60): default Comm 50 µs; --compat tb Comm 0,
 * Kernel 50 µs. */
static void compat_tb_without_kineto_ids_noted(void)
{
    static const char gpu_sql[] =
        "DELETE FROM NVTX_EVENTS;"
        "INSERT INTO NVTX_EVENTS VALUES (0, 100000, 59, 'step', NULL, " GT(7, 7) ", 0);"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'ncclKernel_AllReduce_RING_LL_Sum_float');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
        " correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 2000, 1, " GT(7, 7) ", 1, 1, 0, NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER, demangledName INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 60000, 0, 1, 7, 1, ((1<<48)|(7<<24)), 2, 2);";
    struct result a, b;
    struct ps_report_opts o;
    report(make_sqlite("compat_tb", gpu_sql), &a, NULL);
    CHECK_EQ("default Comm ns", a.r.avg.cat_ns[PS_CAT_COMM], 50000);
    HASNT(a.text, "Note: --compat tb");
    HASNT(a.json, "--compat tb finds");
    done(&a);
    ps_report_opts_default(&o);
    o.compat_tb = 1;
    report(make_sqlite("compat_tb", gpu_sql), &b, &o);
    CHECK_EQ("--compat tb Comm ns", b.r.avg.cat_ns[PS_CAT_COMM], 0);
    CHECK_EQ("--compat tb Kernel ns", b.r.avg.cat_ns[PS_CAT_KERNEL], 50000);
    HAS(b.text, "Note: --compat tb finds communication as tb does");
    HAS(b.text, "so Communication is 0 under --compat tb and NCCL kernels count as Kernel");
    HAS(b.json, "\"notes\": [\"--compat tb finds communication as tb does");
    HAS(b.json, "HTA itself rounds times");
    done(&b);
}

/* JSON text must be UTF-8 (RFC 8259 §8.1). A command line with a Latin-1 byte (0xFF), a range
 * name cut mid-character (0xE3 0x83 with its third byte missing) and a valid 'データ' (3 x 3 bytes): each invalid
 * maximal subpart comes out as one U+FFFD, as UTF-8 bytes EF BF BD (Python: b'w-\xe3\x83'.decode('utf-8', 'replace') == 'w-\ufffd'),
 * the valid one unchanged, byte for byte. */
static void json_is_utf8(void)
{
    struct result a;
    report(make_sqlite("utf8", "INSERT INTO PERFSCOPE_META VALUES ('command_line', CAST(X'2E2F7420FF2062' AS TEXT));"
                               "INSERT INTO NVTX_EVENTS VALUES (10, 20, 59, CAST(X'772DE383' AS TEXT), NULL, "
                               GT(7, 7) ", 0);"
                               "INSERT INTO NVTX_EVENTS VALUES (30, 40, 59, 'データ', NULL, " GT(7, 7) ", 0);"),
           &a, NULL);
    HAS(a.json, "\"./t \xEF\xBF\xBD b\"");   /* U+FFFD, written as UTF-8 by the JSON writer */
    HAS(a.json, "\"w-\xEF\xBF\xBD\"");
    HAS(a.json, "\"データ\"");
    for (const unsigned char *p = (const unsigned char *)a.json; *p; p++)
        CHECK(*p != 0xFF && !(p[0] == 0xE3 && p[1] == 0x83 && (p[2] & 0xC0) != 0x80), "an invalid byte at %ld",
              (long)((const char *)p - a.json));
    done(&a);
}

static const struct test_case cases[] = {
    { "json_is_utf8", .fn = json_is_utf8 },
    { "emit_nvtx_suffix_ignored", .fn = emit_nvtx_suffix_ignored },
    { "sync_is_part_of_host_columns", .fn = sync_is_part_of_host_columns },
    { "zero_length_window_shares_na", .fn = zero_length_window_shares_na },
    { "cpu_only_compute_advice", .fn = cpu_only_compute_advice },
    { "meta_garbage_is_unknown", .fn = meta_garbage_is_unknown },
    { "labels_are_exact", .fn = labels_are_exact },
    { "compat_tb_without_kineto_ids_noted", .fn = compat_tb_without_kineto_ids_noted },
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_presentation TMPDIR CASE\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 2 ? argv[2] : NULL, NULL, NULL);
}
