/* Each finding on small hand-built models (findings.c, docs/report.md "Findings"): one model that triggers it and
 * one just under its threshold that does not, and the cost and severity worked out by hand beside each case
 * (times in ns unless marked µs). Severity follows cost: "info" under 2 % of the analysed window (the steps' span,
 * or the run without steps). Usage: test_findings CASE. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "cases.h"
#include "check.h"

#define US(x) ((int64_t)(x) * 1000)

static struct ps_model *m;
static struct ps_report rep;
static uint32_t thr, st7;

static void fresh(void)
{
    ps_model_free(m);
    if (!(m = ps_model_new("hand", PS_FORMAT_PERFSCOPE)))
        abort();
    ps_model_process(m, 1);
    thr = ps_model_thread(m, 1, 1);
    st7 = ps_model_stream(m, 1, 0, 7);
}

static void step(int64_t s, int64_t e)
{
    struct ps_range g = { .start_ns = s, .end_ns = e, .name = ps_model_intern_cstr(m, "step"), .thread = thr,
                          .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

static void api(const char *name, int64_t s, int64_t e, uint64_t corr)
{
    struct ps_api_call c = { .start_ns = s, .end_ns = e, .correlation = corr, .name = ps_model_intern_cstr(m, name),
                             .thread = thr };
    if (ps_model_add_api(m, &c) < 0)
        abort();
}

static void copy(int64_t s, int64_t e, uint64_t corr, uint64_t bytes, int copy_kind, int src, int dst)
{
    struct ps_gpu_op op = { .start_ns = s, .end_ns = e, .correlation = corr, .bytes = bytes,
                            .name = ps_model_intern_cstr(m, "Memcpy"), .stream = st7, .kind = PS_GPU_MEMCPY,
                            .copy_kind = (uint8_t)copy_kind, .src_kind = (uint8_t)src, .dst_kind = (uint8_t)dst };
    if (ps_model_add_gpu(m, &op) < 0)
        abort();
}

static void kernel_occ(const char *name, int64_t s, int64_t e, uint64_t corr, int occupancy)
{
    struct ps_gpu_op op = { .start_ns = s, .end_ns = e, .correlation = corr, .name = ps_model_intern_cstr(m, name),
                            .stream = st7, .kind = PS_GPU_KERNEL, .has_occupancy = occupancy >= 0,
                            .occupancy_pct = (uint8_t)(occupancy >= 0 ? occupancy : 0) };
    if (ps_model_add_gpu(m, &op) < 0)
        abort();
}

static void kernel(const char *name, int64_t s, int64_t e, uint64_t corr)
{
    kernel_occ(name, s, e, corr, -1);
}

/* Build the report and return the finding of `rule`, NULL when absent. */
static const struct ps_finding *build(const char *rule)
{
    struct ps_report_opts o;
    char err[256];
    ps_report_fini(&rep);
    ps_report_opts_default(&o);
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "build failed: %s\n", err);
        exit(1);
    }
    for (size_t i = 0; i < rep.nfindings; i++)
        if (!strcmp(rep.findings[i].rule, rule))
            return &rep.findings[i];
    return NULL;
}

static void check_cost(const struct ps_finding *f, int64_t cost, int64_t window, const char *severity)
{
    CHECK(f != NULL, "finding missing");
    if (!f)
        return;
    CHECK_EQ("cost_ns", f->cost_ns, cost);
    CHECK_NEAR("share", f->share, (double)cost / (double)window, 1e-12);
    CHECK_STR("severity", f->severity, severity);
    CHECK(f->gain_ns >= 0 && f->gain_ns <= f->cost_ns, "gain %lld outside 0..cost", (long long)f->gain_ns);
    CHECK(f->fix[0] != '\0', "no fix");
}

/* Step [0,1000) µs. cudaMemcpyAsync [10,11) -> HtoD [100,130) µs from pageable memory: pageable_memcpy costs the
 * copy's 30 µs = 3 % of the 1000 µs window: warning. Just under: the same copy from pinned memory: none. Severity:
 * a copy of 19 µs (1.9 %) is info. */
static void pageable_memcpy(void)
{
    for (int v = 0; v < 3; v++) {
        fresh();
        step(0, US(1000));
        api("cudaMemcpyAsync_v3020", US(10), US(11), 1);
        copy(US(100), US(v == 2 ? 119 : 130), 1, 1000, PS_COPY_HTOD, v == 1 ? PS_MEM_PINNED : PS_MEM_PAGEABLE,
             PS_MEM_DEVICE);
        const struct ps_finding *f = build("pageable_memcpy");
        if (v == 0)
            check_cost(f, US(30), US(1000), "warning");
        else if (v == 1)
            CHECK(f == NULL, "pinned copy reported as pageable");
        else
            check_cost(f, US(19), US(1000), "info");
    }
}

/* Step [0,1000) µs. cudaMemcpy [10,200) -> DtoH [100,150) pinned: sync_memcpy, 50 µs (5 %): warning. Just under:
 * cudaMemcpyAsync: none. */
static void sync_memcpy(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        step(0, US(1000));
        api(v ? "cudaMemcpyAsync_v3020" : "cudaMemcpy_v3020", US(10), US(200), 1);
        copy(US(100), US(150), 1, 1000, PS_COPY_DTOH, PS_MEM_DEVICE, PS_MEM_PINNED);
        const struct ps_finding *f = build("sync_memcpy");
        if (v == 0)
            check_cost(f, US(50), US(1000), "warning");
        else
            CHECK(f == NULL, "an async copy reported as synchronous");
    }
}

/* Step [0,1000) µs. A kernel [0,100), cudaDeviceSynchronize [100,300), the next kernel [400,500) (launched
 * [300,301)): the sync time is the host in the call or waiting after it for the next GPU activity, with the GPU idle:
 * [100,400) = 300 µs (the launch inside it is Runtime, which sync is carved out of): 30 %, warning. Just under: no
 * synchronize call: none. */
static void sync_api(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        step(0, US(1000));
        api("cudaLaunchKernel_v7000", US(0), US(0) + 500, 1);
        kernel("k", US(0), US(100), 1);
        if (v == 0)
            api("cudaDeviceSynchronize_v3020", US(100), US(300), 2);
        api("cudaLaunchKernel_v7000", US(300), US(301), 3);
        kernel("k", US(400), US(500), 3);
        const struct ps_finding *f = build("sync_api");
        if (v == 0)
            check_cost(f, US(300), US(1000), "warning");
        else
            CHECK(f == NULL, "sync_api without a synchronize call");
    }
}

/* No step: the run is the window. Kernels [0,1) ms and [2,3) ms: a gap of exactly 1 ms (the default threshold): a
 * gpu_gap of 1 ms in the 3 ms run (33 %). Just under: the second kernel at [1.999999,3) ms: a gap 1 ns short: none. */
static void gpu_gap(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        kernel("k", 0, 1000000, 0);
        kernel("k", v ? 1999999 : 2000000, 3000000, 0);
        const struct ps_finding *f = build("gpu_gap");
        if (v == 0)
            check_cost(f, 1000000, 3000000, "warning");
        else
            CHECK(f == NULL, "a gap under the threshold reported");
    }
}

/* Steps [0,100) and [100,200) µs. Step 1 runs a kernel [0,100) (launched before it); step 2 a kernel of 49 µs
 * [100,149): under half (--low-util 0.5) -> its 51 µs without kernels are the cost, 25.5 % of the 200 µs window.
 * Meanwhile the host was in "load<ESC>[2J" [150,200) (50 µs): the summary names it, the text report escapes it.
 * Just under: a kernel of exactly 50 µs: none. */
static void low_gpu_utilization(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        step(0, US(100));
        step(US(100), US(200));
        api("cudaLaunchKernel_v7000", 0, 500, 1);
        kernel("k", 500, US(100), 1);
        api("cudaLaunchKernel_v7000", US(100), US(100) + 500, 2);
        kernel("k", US(100), US(v ? 150 : 149), 2);
        struct ps_range g = { .start_ns = US(150), .end_ns = US(200), .name = ps_model_intern_cstr(m, "load\x1b[2J"),
                              .thread = thr, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
        if (ps_model_add_range(m, &g) < 0)
            abort();
        const struct ps_finding *f = build("low_gpu_utilization");
        if (v == 0) {
            check_cost(f, US(51), US(200), "warning");
            CHECK(f && strstr(f->summary, "meanwhile the host was in load\x1b[2J 0.050 ms"),
                  "host activity not named: %s", f ? f->summary : "");
            /* the name comes from the trace: the text report escapes it (no terminal escape gets through) */
            char *text = NULL;
            size_t len = 0;
            FILE *out = open_memstream(&text, &len);
            if (!out || ps_report_write_text(out, &rep) < 0 || fclose(out) != 0)
                abort();
            CHECK(strstr(text, "meanwhile the host was in load\\x1b[2J 0.050 ms") && !strchr(text, '\x1b'),
                  "the summary is not escaped in the text report");
            free(text);
        } else {
            CHECK(f == NULL, "a step with kernels half the time reported");
        }
    }
}

/* slow_memcpy: pinned HtoD copies are expected at --link-gbps 25 GB/s, slow under 25 % of it: 6.25 GB/s = 6.25
 * bytes/ns. 1 MiB (1048576 B) takes 167772.16 ns at that rate: in 167773 ns it is slow (6.249993 GB/s), in 167772 ns
 * it is not (6.250004). The step is [0, 1 ms): cost 167773 ns = 16.8 %; gain = 167773 - 1048576 / 25 = 167773 -
 * 41943 = 125830 ns. A slow copy of 1048575 B (under 1 MiB) is never reported. Pageable copies are expected at half
 * the link: 1 MiB in 335545 ns is 3.1249 GB/s, under 25 % of 12.5. */
static void slow_memcpy(void)
{
    static const struct { uint64_t bytes; int64_t ns; int src; int want; } v[] = {
        { 1048576, 167773, PS_MEM_PINNED, 1 }, { 1048576, 167772, PS_MEM_PINNED, 0 },
        { 1048575, 900000, PS_MEM_PINNED, 0 }, { 1048576, 335545, PS_MEM_PAGEABLE, 1 },
        { 1048576, 335544, PS_MEM_PAGEABLE, 0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        fresh();
        step(0, 1000000);
        api("cudaMemcpyAsync_v3020", 0, 100, 1);
        copy(1000, 1000 + v[i].ns, 1, v[i].bytes, PS_COPY_HTOD, v[i].src, PS_MEM_DEVICE);
        const struct ps_finding *f = build("slow_memcpy");
        CHECK((f != NULL) == v[i].want, "case %zu: slow_memcpy %s", i, f ? "reported" : "missing");
        if (i == 0) {
            check_cost(f, 167773, 1000000, "warning");
            CHECK_EQ("gain", f ? f->gain_ns : -1, 125830);
        }
    }
}

/* launch_bound_stream: 100 kernels of 1 µs, each launched by a call of 3 µs (v == 0: 50 of them; under: 49) or of
 * 0.5 µs: at least half shorter than their launch -> the stream is launch-bound. Kernel i runs [10i + 4, 10i + 5) µs
 * after its call [10i, 10i + 3) (or [10i, 10i + 0.5)); every call starts after the stream drained (the previous
 * kernel ended at 10i - 5), so each gap of 9 µs before kernels 1..99 is waiting for the host: 99 x 9 = 891 µs of the
 * 995 µs run [0, 995) (89.5 %). 99 kernels, all shorter: too few (100 needed): none. */
static void launch_bound_stream(void)
{
    for (int v = 0; v < 3; v++) {
        fresh();
        int n = v == 2 ? 99 : 100, shorter = v == 0 ? 50 : v == 1 ? 49 : 99;
        for (int i = 0; i < n; i++) {
            api("cudaLaunchKernel_v7000", US(10 * i), i < shorter ? US(10 * i + 3) : US(10 * i) + 500, (uint64_t)i + 1);
            kernel("k", US(10 * i + 4), US(10 * i + 5), (uint64_t)i + 1);
        }
        const struct ps_finding *f = build("launch_bound_stream");
        if (v == 0) {
            check_cost(f, US(891), US(10 * 99 + 5), "warning");
            CHECK(f && f->nrows == 1 && f->rows[0].count == 50, "rows: the 50 short kernels by name");
        } else {
            CHECK(f == NULL, "variant %d reported as launch-bound", v);
        }
    }
}

/* tiny_kernels: 1000 kernels, kernel i launched by a call [20i, 20i + 1) µs and running from 20i + 5 for 5 µs when i
 * is even (tiny: under 10 µs) or 12 µs when odd; 500 tiny: reported; 499 (kernel 998 made 12 µs): not. The cost is
 * the stream's wait for the launches of the tiny kernels: kernel i (even, >= 2) follows kernel i - 1, which ended at
 * 20i - 3, before i's call began at 20i: a gap of 8 µs; 499 such gaps = 3992 µs of the run [0, 19997) µs (20 %). */
static void tiny_kernels(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        for (int i = 0; i < 1000; i++) {
            int tiny = i % 2 == 0 && !(v == 1 && i == 998);
            api("cudaLaunchKernel_v7000", US(20 * i), US(20 * i + 1), (uint64_t)i + 1);
            kernel("k", US(20 * i + 5), US(20 * i + 5 + (tiny ? 5 : 12)), (uint64_t)i + 1);
        }
        const struct ps_finding *f = build("tiny_kernels");
        if (v == 0)
            check_cost(f, US(8 * 499), US(19997), "warning");
        else
            CHECK(f == NULL, "499 tiny kernels of 1000 reported");
    }
}

/* no_tensor_cores: an FP32 SIMT GEMM (ampere_sgemm_128x64_nn) of 100 µs in a 1000 µs step: 10 %, warning. Just
 * under: the Tensor Core GEMM cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4 (it contains "gemm", no "sgemm"
 * marker of the CUDA cores): none. */
static void no_tensor_cores(void)
{
    for (int v = 0; v < 2; v++) {
        fresh();
        step(0, US(1000));
        kernel(v ? "cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4" : "ampere_sgemm_128x64_nn", US(100), US(200), 0);
        const struct ps_finding *f = build("no_tensor_cores");
        if (v == 0)
            check_cost(f, US(100), US(1000), "warning");
        else
            CHECK(f == NULL, "a Tensor Core GEMM reported");
    }
}

/* low_occupancy: a kernel of 10 µs whose trace estimate is 24 % (< --low-occupancy 25) in a 1000 µs step: 1 %: info.
 * Just under: 25 %: none. A Tensor Core GEMM at 10 % is not reported (large tiles by design); a kernel without an
 * estimate neither. */
static void low_occupancy(void)
{
    static const struct { const char *name; int occ, want; } v[] = {
        { "k", 24, 1 }, { "k", 25, 0 }, { "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 10, 0 }, { "k", -1, 0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        fresh();
        step(0, US(1000));
        kernel_occ(v[i].name, US(100), US(110), 0, v[i].occ);
        const struct ps_finding *f = build("low_occupancy");
        CHECK((f != NULL) == v[i].want, "case %zu: low_occupancy %s", i, f ? "reported" : "missing");
        if (i == 0)
            check_cost(f, US(10), US(1000), "info");
    }
}

/* Recommendations name what the report shows and bound their gain: a data-bound step [0,100) µs with "data"
 * [0,60) and a kernel [70,100): the fix points at the ranges under Evidence and gains at most 60 µs = 0.060 ms per
 * step (60.0 %). A CPU-only trace without ranges other than the step points at the Compute column, never at
 * "ranges below". */
static void recommendations_point_at_the_report(void)
{
    fresh();
    step(0, US(100));
    struct ps_range g = { .start_ns = 0, .end_ns = US(60), .name = ps_model_intern_cstr(m, "data"), .thread = thr,
                          .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
    api("cudaLaunchKernel_v7000", US(61), US(62), 1);
    kernel("k", US(70), US(100), 1);
    build("none");
    CHECK_EQ("bottleneck", rep.bottleneck, PS_BN_DATA);
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "Look at the ranges under Evidence.") &&
              strstr(rep.recs[0], "Expected gain: about 0.060 ms per step (60.0 % of the average step)"),
          "first recommendation: %s", rep.nrecs ? rep.recs[0] : "(none)");
    fresh();
    step(0, US(100));
    build("none");
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "the Compute column of the steps") &&
              !strstr(rep.recs[0], "ranges"),
          "CPU-only recommendation: %s", rep.nrecs ? rep.recs[0] : "(none)");
}

/* Fixes the trace contradicts (verdict/advice_facts.c, docs/report.md "What to do"). Step [0,100) µs of a C program
 * (a perfscope trace: no Python hook, no python command line, no aten:: range): cudaMemcpyAsync [1,2) -> HtoD
 * [10,90) from pinned memory, 80 % of the step: memcpy-bound, and the copy already comes from pinned memory, so the
 * fix is not "copy from pinned memory" nor the Python-only non_blocking=True. The same copy from pageable memory
 * gets the C fix: pinned memory with cudaHostAlloc / cudaMemcpyAsync, never pin_memory=True. */
static void memcpy_fix_follows_the_copies(void)
{
    for (int pageable = 0; pageable < 2; pageable++) {
        fresh();
        step(0, US(100));
        api("cudaMemcpyAsync_v3020", US(1), US(2), 1);
        copy(US(10), US(90), 1, 1 << 20, PS_COPY_HTOD, pageable ? PS_MEM_PAGEABLE : PS_MEM_PINNED, PS_MEM_DEVICE);
        build("none");
        CHECK_EQ("bottleneck", rep.bottleneck, PS_BN_MEMCPY);
        CHECK_EQ("python", rep.advice.python, 0);
        const char *fix = rep.nrecs ? rep.recs[0] : "";
        CHECK(!strstr(fix, "non_blocking") && !strstr(fix, "pin_memory"), "Python advice for a C program: %s", fix);
        if (!pageable)
            CHECK(strstr(fix, "already come from pinned (page-locked) memory") &&
                      !strstr(fix, "copy from pinned"), "pinned copies told to copy from pinned memory: %s", fix);
        else
            CHECK(strstr(fix, "copy from pinned (page-locked) memory (cudaHostAlloc"), "pageable copy: %s", fix);
        for (size_t i = 0; pageable && i < rep.nfindings; i++)
            CHECK(!strstr(rep.findings[i].fix, "pin_memory"), "finding %s: %s", rep.findings[i].rule,
                  rep.findings[i].fix);
    }
}

/* A data-bound step [0,100) µs: a "data" range [0,60), then a kernel [70,100) (as recommendations_point_at_the_report).
 * In a C program the fix names no DataLoader setting (num_workers, pin_memory=True); the same trace with an aten::
 * operator range (PyTorch) gets them. */
static void data_fix_follows_the_language(void)
{
    for (int torch = 0; torch < 2; torch++) {
        fresh();
        step(0, US(100));
        struct ps_range g = { .start_ns = 0, .end_ns = US(60), .name = ps_model_intern_cstr(m, "data"),
                              .thread = thr, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
        if (ps_model_add_range(m, &g) < 0)
            abort();
        if (torch) {
            g = (struct ps_range){ .start_ns = US(61), .end_ns = US(63), .name = ps_model_intern_cstr(m, "aten::add"),
                                   .thread = thr, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
            if (ps_model_add_range(m, &g) < 0)
                abort();
        }
        api("cudaLaunchKernel_v7000", US(61), US(62), 1);
        kernel("k", US(70), US(100), 1);
        build("none");
        CHECK_EQ("bottleneck", rep.bottleneck, PS_BN_DATA);
        CHECK_EQ("python", rep.advice.python, torch);
        const char *fix = rep.nrecs ? rep.recs[0] : "";
        if (torch)
            CHECK(strstr(fix, "num_workers") && strstr(fix, "pin_memory=True"), "PyTorch data fix: %s", fix);
        else
            CHECK(!strstr(fix, "num_workers") && !strstr(fix, "pin_memory") && !strstr(fix, "DataLoader") &&
                      strstr(fix, "prefetch queue"), "C program told about DataLoader settings: %s", fix);
    }
}

/* No step range, no repeating kernels: the run [0,100) µs is one window, a kernel [10,100) in it (90 %): the gain is
 * "over the run (.. % of the run)", never "per step" or "of the average step"; and the plural agrees ("the kernels
 * take"). With a step range the same trace says "per step (.. % of the average step)". */
static void whole_run_gain_is_not_per_step(void)
{
    for (int steps = 0; steps < 2; steps++) {
        fresh();
        if (steps)
            step(0, US(100));
        api("cudaLaunchKernel_v7000", 0, US(1), 1);
        kernel("k", US(10), US(100), 1);
        build("none");
        CHECK_EQ("whole run", rep.whole_run, !steps);
        const char *fix = rep.nrecs ? rep.recs[0] : "";
        if (steps)
            CHECK(strstr(fix, "about 0.090 ms per step (90.0 % of the average step): the steps replayed without the kernels (0.090 ms of it now)."),
                  "steps: %s", fix);
        else
            CHECK(strstr(fix, "about 0.090 ms over the run (90.0 % of the run): the run replayed without the kernels (0.090 ms of it now).") &&
                      !strstr(fix, "per step") && !strstr(fix, "average step"), "whole run: %s", fix);
    }
}

static void free_report_and_model(void)
{
    ps_report_fini(&rep);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "pageable_memcpy", .fn = pageable_memcpy }, { "sync_memcpy", .fn = sync_memcpy },
        { "sync_api", .fn = sync_api }, { "gpu_gap", .fn = gpu_gap },
        { "low_gpu_utilization", .fn = low_gpu_utilization }, { "slow_memcpy", .fn = slow_memcpy },
        { "launch_bound_stream", .fn = launch_bound_stream }, { "tiny_kernels", .fn = tiny_kernels },
        { "no_tensor_cores", .fn = no_tensor_cores }, { "low_occupancy", .fn = low_occupancy },
        { "recommendations_point_at_the_report", .fn = recommendations_point_at_the_report },
        { "memcpy_fix_follows_the_copies", .fn = memcpy_fix_follows_the_copies },
        { "data_fix_follows_the_language", .fn = data_fix_follows_the_language },
        { "whole_run_gain_is_not_per_step", .fn = whole_run_gain_is_not_per_step },
    };
    static const struct case_hooks hooks = { .teardown = free_report_and_model };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
