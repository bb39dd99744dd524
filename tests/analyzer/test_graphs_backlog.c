/* CUDA-graph replays and GPU work queued before the trace: on the shared graph-replay traces (facts from
 * ../shared/traces/README.md and the traces' own events, worked out beside each case) and on hand-built models
 * (times in µs, expected values worked out by hand beside each case). `test_graphs_backlog CASE [SHARED_DIR]`;
 * 77 = skip. */
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

#define US(x) ((int64_t)(x) * 1000)

static struct ps_model *m;
static struct ps_report rep;

static void build(void)
{
    struct ps_report_opts o;
    char err[512];
    ps_report_opts_default(&o);
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "analysis failed: %s\n", err);
        exit(1);
    }
}

static int load(const char *dir, const char *name)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/traces/kineto/%s.pt.trace.json.gz", dir, name);
    if (access(path, R_OK) != 0)
        return check_shared_missing(path);
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    if (ps_read_trace(path, &m, err, sizeof err) < 0 || ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "reading or analysing failed: %s\n", err);
        return 1;
    }
    return 0;
}

static const struct ps_finding *finding(const char *rule)
{
    for (size_t i = 0; i < rep.nfindings; i++)
        if (!strcmp(rep.findings[i].rule, rule))
            return &rep.findings[i];
    return NULL;
}

static int any_rec(const char *needle)
{
    for (size_t i = 0; i < rep.nrecs; i++)
        if (strstr(rep.recs[i], needle))
            return 1;
    return 0;
}

/* mi300_vllm_decode_graph_replay: one hipGraphLaunch runs 421 kernels; 13 ops (9 copies, 4 kernels) are eager.
 * README: 96.9 % of GPU busy time is graph-launched (summed durations: 10388.482 of 10717.708 µs = 0.96928).
 * Before the fix 424 of 425 kernels were "shorter than their launch" (the graph launch) and launch_bound_stream
 * fired; the 4 eager kernels are far under its 100-kernel minimum now. The first GPU op, a DtoD copy queued by
 * hipMemcpyAsync at 0.534 ms, starts at 8370.878 µs after the trace's first event with nothing on GPU 2 before
 * it: the GPU ran work from before the trace from the start, 8370878 ns, which was sync (43.6 %) before. */
static int vllm_decode(const char *dir)
{
    int rc = load(dir, "mi300_vllm_decode_graph_replay");
    if (rc)
        return rc;
    CHECK_EQ("graph launches", rep.graphs.launches, 1);
    CHECK_EQ("graph ops", rep.graphs.ops, 421);
    CHECK_EQ("graph kernels", rep.graphs.kernels, 421);
    CHECK_EQ("eager ops", rep.graphs.eager_ops, 13);
    CHECK_NEAR("graph share", rep.graphs.share, 10388.482 / 10717.708, 1e-6);
    CHECK(!finding("launch_bound_stream"), "graph nodes are not launch-bound");
    CHECK(!finding("tiny_kernels"));
    CHECK_EQ("pre-trace work", rep.backlog.ns, 8370878);
    CHECK_EQ("waiting ops", rep.backlog.waiting_ops, 1);
    CHECK_EQ("first waiting op start", rep.backlog.first_start_ns - rep.run_start_ns, 8370878);
    CHECK_STR("first waiting op", ps_report_name(&rep, rep.backlog.first_name), "Memcpy DtoD (Device -> Device)");
    CHECK_EQ("sync", rep.avg.sync_ns, 0);
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "kernel");
    /* kernel 10.675 ms of the 19.114 ms run less the 8.371 ms of pre-trace work */
    CHECK_NEAR("verdict share", rep.share,
               (double)rep.avg.cat_ns[PS_CAT_KERNEL] / (double)(rep.avg_dur_ns - rep.avg.pretrace_ns), 1e-12);
    CHECK(rep.share > 0.99);
    const struct ps_finding *s = finding("sync_api");
    CHECK(!s || !strcmp(s->severity, "info"), "a 2 µs hipEventSynchronize is no cause");
    CHECK(!finding("low_gpu_utilization"), "the GPU was busy with pre-trace work, not idle");
    CHECK(!any_rec("CUDA graph"), "never advise graphs to a program that replays them");
    CHECK(rep.nrecs >= 1 && !strncmp(rep.recs[0], "The device is busy computing", 28));
    return 0;
}

/* The default text report of mi300_vllm_decode_graph_replay (docs/report.md "Text report"): nothing above the
 * verdict line states a share that contradicts it, and below it the run's groups are shares of the run less the
 * 8.371 ms of pre-trace work, as the verdict's 99.4 %: kernel 10.675 of 19.114 - 8.371 = 10.743 ms = 99.36 %; the
 * queued work on its own line (8.371 / 19.114 = 43.8 % of the whole run); the GPU utilisation (10.675 / 19.114 =
 * 55.85 %) says that it counts the queued work idle. The tb table with Kernel 55.85 % is a detail (--sections
 * steps). */
static int vllm_decode_answer_agrees_with_its_verdict(const char *dir)
{
    int rc = load(dir, "mi300_vllm_decode_graph_replay");
    if (rc)
        return rc;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    const struct ps_render_opts o = { .width = 0 };   /* the command's default sections: the answer */
    CHECK(f && ps_render_text(f, &rep, &o) == 0, "text failed");
    if (f)
        fclose(f);
    if (!text)
        return 1;
    const char *verdict = strstr(text, "\nVerdict: kernel (99.4 % of the whole run less 8.371 ms of work queued");
    CHECK(verdict != NULL, "verdict line: %s", text);
    const char *above = strstr(text, "55.85");
    CHECK(!above || (verdict && above > verdict), "a share of 55.85 %% above the verdict line: %s", text);
    /* where the run goes: kernels 10.675 ms and the 8.371 ms queued before the trace (its first op, a DtoD copy
     * launched at 0.534 ms, starts at 8.371 ms: backlog.c's figure), each of the 19.114 ms run; the line under it
     * says the verdict leaves that work out (10.675 / (19.114 - 8.371) = 99.4 %) */
    CHECK(strstr(text, "\nWhere the run goes (the whole run as one window, 19.114 ms):\n") != NULL, "where header: %s",
          text);
    CHECK(strstr(text, "\n  GPU kernels                    10.675 ms   55.8 %") != NULL, "kernel row");
    CHECK(strstr(text, "\n  work before the trace           8.371 ms   43.8 %") != NULL, "the queued work's row");
    CHECK(strstr(text, "\n  (the verdict leaves out 8.371 ms of work queued before the trace, 43.8 % of the whole "
                       "run: ") != NULL, "the queued work's line");
    CHECK(strstr(text, "\nGPU utilisation: 55.85 % of the whole run, the work queued before the trace counted idle ")
          != NULL, "utilisation without its span");
    CHECK(strstr(text, "55.85%") == NULL, "the tb table (Kernel 55.85%%) is in the answer");
    free(text);
    return 0;
}

/* mi300_sglang_decode_graph_replay: README: 544 graph-launched GPU ops of 558 (98.7 % of busy time). The kernel
 * queued at 0.128 ms (after a hipStreamWaitEvent) starts at 463.380 ms, behind work from before the trace, while
 * the host sits 463 ms in a synchronous hipMemcpyWithStream: before, the verdict was sync (97.8 %) with gpu_gap and
 * low_gpu_utilization warnings. */
static int sglang_decode(const char *dir)
{
    int rc = load(dir, "mi300_sglang_decode_graph_replay");
    if (rc)
        return rc;
    CHECK_EQ("graph launches", rep.graphs.launches, 1);
    CHECK_EQ("graph ops", rep.graphs.ops, 544);
    CHECK_EQ("all ops", rep.graphs.ops + rep.graphs.eager_ops, 558);
    CHECK_NEAR("graph share", rep.graphs.share, 0.9875, 0.0005);
    CHECK(rep.backlog.ns > US(463000) && rep.backlog.ns < US(463400));
    CHECK(strstr(ps_report_name(&rep, rep.backlog.first_name), "resolve_future_token_ids_kernel") != NULL);
    CHECK(rep.bottleneck != PS_BN_SYNC);
    CHECK(!finding("gpu_gap"));
    CHECK(!finding("low_gpu_utilization"));
    CHECK(!finding("launch_bound_stream"));
    return 0;
}

/* mi300_vllm_piecewise_graph_replay: README: 25 piecewise graph launches, 361 graph-launched GPU ops, 62 eager
 * (96.0 % of busy time in graphs). */
static int vllm_piecewise(const char *dir)
{
    int rc = load(dir, "mi300_vllm_piecewise_graph_replay");
    if (rc)
        return rc;
    CHECK_EQ("graph launches", rep.graphs.launches, 25);
    CHECK_EQ("graph ops", rep.graphs.ops, 361);
    CHECK_EQ("eager ops", rep.graphs.eager_ops, 62);
    CHECK_NEAR("graph share", rep.graphs.share, 0.960, 0.0005);
    CHECK(!finding("launch_bound_stream"));
    CHECK(!any_rec("capture the step in"));
    return 0;
}

/* One stream, 200 kernels of 2 µs each 10 µs apart, each launched by a 5 µs call that ends 1 µs before it starts
 * (so all 200 run shorter than their launch). Launched by cudaLaunchKernel: launch_bound_stream (200 of 200 >= 50 %
 * of >= 100 kernels), advising a CUDA graph. Launched by one cudaGraphLaunch (as a replay links its nodes): no
 * launch test fires. Mixed (150 eager + the rest by a graph launch): launch-bound on the eager ones alone, and the
 * fix says to capture them into the graphs the program already replays. */
static void launches(int graph_from)
{
    m = ps_model_new("launches", PS_FORMAT_PERFSCOPE);
    uint32_t t = ps_model_thread(m, 1, 1), s = ps_model_stream(m, 1, 0, 7);
    struct ps_api_call g = { .start_ns = 0, .end_ns = US(1), .correlation = 1000,
                             .name = ps_model_intern_cstr(m, "cudaGraphLaunch_v10000"), .thread = t };
    if (graph_from < 200 && ps_model_add_api(m, &g) < 0)
        abort();
    for (int i = 0; i < 200; i++) {
        int64_t k = 10 + 10 * (int64_t)i;
        uint64_t corr = i >= graph_from ? 1000 : (uint64_t)i + 1;
        struct ps_api_call c = { .start_ns = US(k - 6), .end_ns = US(k - 1), .correlation = corr,
                                 .name = ps_model_intern_cstr(m, "cudaLaunchKernel_v7000"), .thread = t };
        struct ps_gpu_op op = { .start_ns = US(k), .end_ns = US(k + 2), .correlation = corr,
                                .name = ps_model_intern_cstr(m, "k"), .stream = s, .kind = PS_GPU_KERNEL };
        if ((i < graph_from && ps_model_add_api(m, &c) < 0) || ps_model_add_gpu(m, &op) < 0)
            abort();
    }
    build();
}

static int eager_launches_judged_alone(void)
{
    launches(200);
    const struct ps_finding *f = finding("launch_bound_stream");
    CHECK(f != NULL);
    if (f)
        CHECK_CONTAINS(f->fix, "capture the step in a CUDA graph");
    CHECK_EQ("graph launches", rep.graphs.launches, 0);
    ps_report_fini(&rep);
    ps_model_free(m);

    launches(0);
    CHECK_EQ("graph launches", rep.graphs.launches, 1);
    CHECK_EQ("graph kernels", rep.graphs.kernels, 200);
    CHECK(!finding("launch_bound_stream"), "graph nodes are never launch-bound");
    ps_report_fini(&rep);
    ps_model_free(m);

    launches(150);
    CHECK_EQ("graph kernels", rep.graphs.kernels, 50);
    CHECK_EQ("eager kernels", rep.graphs.eager_kernels, 150);
    f = finding("launch_bound_stream");
    CHECK(f != NULL);
    if (f) {
        CHECK_CONTAINS(f->summary, "150 of 150");
        CHECK_CONTAINS(f->fix, "capture them into the CUDA graphs the program already replays");
    }
    return 0;
}

/* A kernel queued at [0,1) on a drained stream starts at 5000 with nothing on its device before: the device ran
 * work from before the trace over [0, 5000) (the device's first op: from the run's start, 0). A
 * cudaDeviceSynchronize [2,3) returns at once; before, its sync range ran to the next GPU start, 5000: 4998 µs of
 * sync. Now sync 0, pre-trace work 5000 µs, and the verdict weighs the rest of the run.
 * A second kernel launched at [6000,6001) starts at 6002: 1 µs after its launch, no waiting. */
static int pretrace_work_is_not_sync(void)
{
    m = ps_model_new("pretrace", PS_FORMAT_PERFSCOPE);
    uint32_t t = ps_model_thread(m, 1, 1), s = ps_model_stream(m, 1, 0, 7);
    const char *names[3] = { "cudaLaunchKernel_v7000", "cudaDeviceSynchronize_v3020", "cudaLaunchKernel_v7000" };
    int64_t calls[3][2] = { { 0, 1 }, { 2, 3 }, { 6000, 6001 } };
    for (int i = 0; i < 3; i++) {
        struct ps_api_call c = { .start_ns = US(calls[i][0]), .end_ns = US(calls[i][1]), .correlation = (uint64_t)i + 1,
                                 .name = ps_model_intern_cstr(m, names[i]), .thread = t };
        if (ps_model_add_api(m, &c) < 0)
            abort();
    }
    int64_t ops[2][2] = { { 5000, 5010 }, { 6002, 6012 } };
    uint64_t corr[2] = { 1, 3 };
    for (int i = 0; i < 2; i++) {
        struct ps_gpu_op op = { .start_ns = US(ops[i][0]), .end_ns = US(ops[i][1]), .correlation = corr[i],
                                .name = ps_model_intern_cstr(m, "k"), .stream = s, .kind = PS_GPU_KERNEL };
        if (ps_model_add_gpu(m, &op) < 0)
            abort();
    }
    build();
    CHECK_EQ("waiting ops", rep.backlog.waiting_ops, 1);
    CHECK_EQ("pre-trace work", rep.backlog.ns, US(5000));
    CHECK_EQ("sync", rep.avg.sync_ns, 0);
    /* the run [0, 6012): 6012 µs; less 5000 of pre-trace work: 1012 µs, of which kernels 20 µs (under 80 %), so the
     * largest other group: host, 1012 - 20 = 992 µs (the gap [5010, 6002)) */
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "host");
    CHECK_NEAR("verdict share", rep.share, 992.0 / 1012.0, 1e-12);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "vllm_decode_graph_replay_is_not_launch_bound", .fn_arg = vllm_decode },
        { "vllm_decode_answer_agrees_with_its_verdict", .fn_arg = vllm_decode_answer_agrees_with_its_verdict },
        { "sglang_decode_graph_replay_waits_on_pretrace_work", .fn_arg = sglang_decode },
        { "vllm_piecewise_graph_replay_counts_eager_launches", .fn_arg = vllm_piecewise },
        { "eager_launches_judged_alone", .fn_status = eager_launches_judged_alone },
        { "pretrace_work_is_not_sync", .fn_status = pretrace_work_is_not_sync },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : "../shared",
                     NULL);
}
