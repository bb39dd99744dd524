/* Analyses on small hand-built models: each case builds a few events, and the expected breakdowns are
 * worked out by hand in the comment above it (times in µs; the model holds ns). Run as
 * `test_hand CASE`; ctest runs every case under its own name. */
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

/* ---- model builders ---- */

static struct ps_model *m;

static void range(uint32_t thread, int kind, const char *name, int64_t s, int64_t e, uint64_t ext)
{
    struct ps_range g = { .start_ns = US(s), .end_ns = US(e), .ext_id = ext, .name = ps_model_intern_cstr(m, name),
                          .thread = thread, .domain = PS_NONE, .kind = (uint8_t)kind };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

static void api(uint32_t thread, const char *name, int64_t s, int64_t e, uint64_t corr, uint64_t ext)
{
    struct ps_api_call c = { .start_ns = US(s), .end_ns = US(e), .correlation = corr, .ext_id = ext,
                             .name = ps_model_intern_cstr(m, name), .thread = thread, .driver = name[2] != 'd' };
    if (ps_model_add_api(m, &c) < 0)
        abort();
}

static void gpu(uint32_t stream, int kind, const char *name, int64_t s, int64_t e, uint64_t corr, uint64_t bytes,
                int copy_kind, int src, int dst)
{
    struct ps_gpu_op op = { .start_ns = US(s), .end_ns = US(e), .correlation = corr, .bytes = bytes,
                            .name = ps_model_intern_cstr(m, name), .stream = stream, .kind = (uint8_t)kind,
                            .copy_kind = (uint8_t)copy_kind, .src_kind = (uint8_t)src, .dst_kind = (uint8_t)dst };
    if (ps_model_add_gpu(m, &op) < 0)
        abort();
}

static void kernel(uint32_t stream, const char *name, int64_t s, int64_t e, uint64_t corr)
{
    gpu(stream, PS_GPU_KERNEL, name, s, e, corr, 0, 0, 0, 0);
}

static struct ps_report rep;

static void build(const struct ps_report_opts *o)
{
    char err[256];
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&rep, m, o, err, sizeof err) < 0) {
        fprintf(stderr, "build failed: %s\n", err);
        exit(1);
    }
}

static void build_default(void)
{
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    build(&o);
}

static void check_cats(const char *step, const int64_t *cat, const int64_t *want_us)
{
    for (int c = 0; c < PS_CAT_N; c++) {
        char what[96];
        snprintf(what, sizeof what, "%s %s_ns", step, ps_cat_key[c]);
        CHECK_EQ(what, cat[c], US(want_us[c]));
    }
}

static const struct ps_device_stat *dev0(void)
{
    return rep.ndevs ? &rep.devs[0] : NULL;
}

/* Overlapping kernels on two streams. Step "step" host [0,100) on the main thread.
 *   cudaLaunchKernel [10,12) -> gemm_a on stream 7 [20,60); cudaLaunchKernel [14,16) -> gemm_b on stream 13 [40,120).
 * Window: the launches are inside the host step, their GPU work ends at 120 -> [0,120).
 * Kernel = |[20,60) ∪ [40,120)| = 100; Runtime = 2 + 2 = 4; Other = 120 - 104 = 16.
 * Verdict: Kernel share 100/120 = 0.833 >= 0.8 -> kernel. tb GPU utilisation 100/120.
 * HTA: span [20,120) = 100, idle 0, compute 100. TraceLens: total 100, computation 100, idle 0. */
static void overlapping_kernels(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7), s13 = ps_model_stream(m, 1, 0, 13);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 0, 100, 0);
    api(t, "cudaLaunchKernel_v7000", 10, 12, 1, 0);
    api(t, "cudaLaunchKernel_v7000", 14, 16, 2, 0);
    kernel(s7, "gemm_a", 20, 60, 1);
    kernel(s13, "gemm_b", 40, 120, 2);
    build_default();
    CHECK_EQ("steps", rep.nsteps, 1);
    CHECK_EQ("window start", rep.steps[0].start_ns, 0);
    CHECK_EQ("window end", rep.steps[0].end_ns, US(120));
    check_cats("step", rep.steps[0].cat_ns, (int64_t[]){ 100, 0, 0, 0, 4, 0, 0, 16 });
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "kernel");
    CHECK_NEAR("gpu_util", rep.gpu_util, 100.0 / 120.0, 1e-12);
    CHECK_EQ("hta span", dev0()->hta_span_ns, US(100));
    CHECK_EQ("hta idle", dev0()->hta_idle_ns, 0);
    CHECK_EQ("hta compute", dev0()->hta_compute_ns, US(100));
    CHECK_EQ("tl total", dev0()->tl_total_ns, US(100));
    CHECK_EQ("tl computation", dev0()->tl_computation_ns, US(100));
    CHECK_EQ("tl idle", dev0()->tl_idle_ns, 0);
}

/* A memcpy hidden under a kernel. Step [0,100): cudaLaunchKernel [5,6) -> kernel [10,80) on stream 7;
 * cudaMemcpyAsync [7,8) -> HtoD pinned->device, 1 MB, [20,40) on stream 13. Window [0,100) (GPU work ends at 80).
 * Kernel 70; Memcpy 0 (covered by the kernel); Runtime 2; Other 28.
 * TraceLens: total [10,80) = 70, computation 70, exposed memcpy 0, idle 0. HTA: compute 70, non-compute 0.
 * Copy summary: HtoD pinned->device, 1 copy, 1e6 bytes, 20 µs -> 1e6 B / 20000 ns = 50 GB/s. */
static void hidden_memcpy(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7), s13 = ps_model_stream(m, 1, 0, 13);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 0, 100, 0);
    api(t, "cudaLaunchKernel_v7000", 5, 6, 1, 0);
    api(t, "cudaMemcpyAsync_v3020", 7, 8, 2, 0);
    kernel(s7, "conv", 10, 80, 1);
    gpu(s13, PS_GPU_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 20, 40, 2, 1000000, PS_COPY_HTOD, PS_MEM_PINNED,
        PS_MEM_DEVICE);
    build_default();
    check_cats("step", rep.steps[0].cat_ns, (int64_t[]){ 70, 0, 0, 0, 2, 0, 0, 28 });
    CHECK_EQ("tl total", dev0()->tl_total_ns, US(70));
    CHECK_EQ("tl exposed memcpy", dev0()->tl_exposed_memcpy_ns, 0);
    CHECK_EQ("tl idle", dev0()->tl_idle_ns, 0);
    CHECK_EQ("hta compute", dev0()->hta_compute_ns, US(70));
    CHECK_EQ("hta non-compute", dev0()->hta_non_compute_ns, 0);
    CHECK_EQ("copies", rep.ncopies, 1);
    CHECK_STR("copy kind", ps_copy_kind_name(&rep.copies[0]), "HtoD");
    CHECK_STR("copy src", ps_mem_kind_name(rep.copies[0].src_kind), "pinned");
    CHECK_EQ("copy bytes", rep.copies[0].bytes, 1000000);
    CHECK_EQ("copy ns", rep.copies[0].total_ns, US(20));
    CHECK_EQ("findings about pageable copies", rep.nfindings > 0 && !strcmp(rep.findings[0].rule, "pageable_memcpy"), 0);
}

/* A step with no GPU work, and a trailing one that is dropped. Host steps s1 [0,100), s2 [100,200),
 * s3 [200,300), s4 [300,400). s1: launch [10,11) -> k [50,150). s3: launch [210,211) -> k [220,260).
 * tb windows: s1 [0, max(100,150)) = [0,150); s2 starts at max(150,100) = 150, no GPU work: end = max(200,150)
 * -> [150,200); s3 [200,300). s4 launched nothing and is last: dropped. s3 has 1 GPU op, s2 0: 0.8*0 > 1 is
 * false, s3 stays. So 3 steps.
 *   s1: Kernel [50,150) = 100, Runtime [10,11) = 1, Other 49.  s2: Other 50 (host verdict).
 *   s3: Kernel 40, Runtime 1, Other 59.
 * HTA (4 host steps, the last starts at 300: every launch is earlier, nothing filtered), one stream:
 *   gap 150 -> 220 = 70 µs, its launch at 210 > 150: host_wait 70 µs. */
static void step_without_gpu_work(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#1", 0, 100, 0);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#2", 100, 200, 0);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#3", 200, 300, 0);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#4", 300, 400, 0);
    api(t, "cudaLaunchKernel", 10, 11, 1, 0);
    api(t, "cudaLaunchKernel", 210, 211, 2, 0);
    kernel(s7, "k", 50, 150, 1);
    kernel(s7, "k", 220, 260, 2);
    build_default();
    CHECK_EQ("host steps", rep.nsteps_host, 4);
    CHECK_EQ("steps", rep.nsteps, 3);
    CHECK_EQ("s2 start", rep.steps[1].start_ns, US(150));
    CHECK_EQ("s2 end", rep.steps[1].end_ns, US(200));
    check_cats("s1", rep.steps[0].cat_ns, (int64_t[]){ 100, 0, 0, 0, 1, 0, 0, 49 });
    check_cats("s2", rep.steps[1].cat_ns, (int64_t[]){ 0, 0, 0, 0, 0, 0, 0, 50 });
    check_cats("s3", rep.steps[2].cat_ns, (int64_t[]){ 40, 0, 0, 0, 1, 0, 0, 59 });
    CHECK_STR("s2 verdict", ps_bottleneck_name[rep.steps[1].bottleneck], "host");
    CHECK_EQ("idle streams", rep.nidle, 1);
    CHECK_EQ("host_wait", rep.idle[0].host_wait_ns, US(70));
    CHECK_EQ("kernel_wait", rep.idle[0].kernel_wait_ns, 0);
    const struct ps_message *why = ps_report_message(&rep, "last_step_left_out");
    CHECK_STR("why s4 is left out", why ? why->text : "(none)",
              "The last step (ProfilerStep#4, 0.100 ms on the host) is left out, as the PyTorch profiler's "
              "TensorBoard plugin does: trailing steps that launched no GPU work, and a last step with fewer than "
              "0.8x the GPU operations of the one before (the profiler stopped before capturing them all).");
}

/* No GPU rows, a Kineto trace: tb's last-step rule on host operations, share 0.1. Host ranges s1 [0,100),
 * s2 [100,300), s3 [300,300+len) on one thread; s1 and s2 hold 20 "aten::op" ranges each, s3 holds `ops` of them.
 *   ops 0 (the profiler's cut step), len 1: 0.1 * 20 = 2 > 0 -> s3 left out: 2 steps.
 *   ops 1, len 100: 2 > 1 -> left out.   ops 2, len 100 (a smaller whole iteration): 2 > 2 is false -> kept, 3 steps.
 * NVTX "step" ranges (not the profiler's) with ops 0: kept, 3 steps. --skip-steps 1 (the first step out of the
 * averages) changes none of this, and says nothing about trailing steps when none is left out. */
static void cut_profiler_step_without_gpu(void)
{
    const struct { int nvtx, ops, len, skip, steps; } c[] = {
        { 0, 0, 1, 0, 2 }, { 0, 1, 100, 0, 2 }, { 0, 2, 100, 0, 3 }, { 1, 0, 1, 0, 3 }, { 0, 0, 1, 1, 1 },
        { 0, 2, 100, 1, 2 } };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        ps_model_free(m);
        m = ps_model_new("hand", PS_FORMAT_KINETO);
        uint32_t t = ps_model_thread(m, 1, 1);
        int kind = c[k].nvtx ? PS_RANGE_NVTX_PUSHPOP : PS_RANGE_USER_ANNOTATION;
        range(t, kind, c[k].nvtx ? "step" : "ProfilerStep#1", 0, 100, 0);
        range(t, kind, c[k].nvtx ? "step" : "ProfilerStep#2", 100, 300, 0);
        range(t, kind, c[k].nvtx ? "step" : "ProfilerStep#3", 300, 300 + c[k].len, 0);
        for (int i = 0; i < 20; i++) {
            range(t, PS_RANGE_CPU_OP, "aten::op", 10 + 4 * i, 12 + 4 * i, 0);
            range(t, PS_RANGE_CPU_OP, "aten::op", 110 + 4 * i, 112 + 4 * i, 0);
        }
        for (int i = 0; i < c[k].ops; i++)
            range(t, PS_RANGE_CPU_OP, "aten::op", 310 + 10 * i, 315 + 10 * i, 0);
        struct ps_report_opts o;
        ps_report_opts_default(&o);
        o.skip_steps = c[k].skip;
        build(&o);
        char what[64];
        snprintf(what, sizeof what, "case %zu: steps analysed", k);
        CHECK_EQ(what, rep.nsteps, c[k].steps);
        const struct ps_message *why = ps_report_message(&rep, "last_step_left_out");
        snprintf(what, sizeof what, "case %zu: a note when a step is left out", k);
        CHECK_EQ(what, why != NULL, c[k].ops < 2 && !c[k].nvtx);
        if (why) {
            snprintf(what, sizeof what, "case %zu: the step the note names", k);
            CHECK_EQ(what, strncmp(why->text, "The last step (ProfilerStep#3, ", 31), 0);
        }
        ps_report_fini(&rep);
    }
    /* the cut step's note, and the average of the two whole steps */
    ps_model_free(m);
    m = ps_model_new("hand", PS_FORMAT_KINETO);
    uint32_t t = ps_model_thread(m, 1, 1);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#1", 0, 100, 0);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#2", 100, 300, 0);
    range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#3", 300, 301, 0);
    range(t, PS_RANGE_CPU_OP, "aten::mm", 10, 90, 0);
    range(t, PS_RANGE_CPU_OP, "aten::mm", 110, 290, 0);
    build_default();
    CHECK_EQ("average step", rep.avg_dur_ns, US(150));
    const struct ps_message *why = ps_report_message(&rep, "last_step_left_out");
    CHECK_STR("why", why ? why->text : "(none)",
              "The last step (ProfilerStep#3, 0.001 ms on the host against 0.150 ms on average for the others) is "
              "left out: it holds 0 host operations against 1 in the step before: the profiler closed it at once (a "
              "loop that calls prof.step() at the end of each iteration opens one step more than it runs). Without "
              "GPU work, the PyTorch profiler's TensorBoard plugin rule for the last step is applied to host "
              "operations, with a share of 0.1 in place of 0.8.");
}

/* tb's last-step rule: s1 launches 5 GPU ops, s2 (last) 3; 3 < 0.8 * 5 = 4 -> s2 dropped. */
static void last_step_with_few_gpu_ops_dropped(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 0, 100, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 100, 200, 0);
    for (int i = 0; i < 5; i++) {
        api(t, "cudaLaunchKernel", 10 + i, 11 + i, (uint64_t)i + 1, 0);
        kernel(s7, "k", 20 + 10 * i, 25 + 10 * i, (uint64_t)i + 1);
    }
    for (int i = 0; i < 3; i++) {
        api(t, "cudaLaunchKernel", 110 + i, 111 + i, (uint64_t)i + 10, 0);
        kernel(s7, "k", 120 + 10 * i, 125 + 10 * i, (uint64_t)i + 10);
    }
    build_default();
    CHECK_EQ("steps", rep.nsteps, 1);
    CHECK_EQ("s1 gpu ops", rep.steps[0].device_ops, 5);
}

/* Nested and cross-thread NVTX ranges. Thread A: "train_step" [0,100) (the step), "step" [0,50) (a nested
 * step range: not a second step, not CPU Exec), "data" [0,30) with nested "load_batch" [5,10) (DataLoader),
 * "forward" [30,60) with nested "aten::mm" [35,50), "aten::batch_norm" [85,90) (must not match the data pattern).
 * Thread B (same process): start/end range "backward" [50,80). cudaLaunchKernel on A [40,41) -> k [60,70).
 *   Kernel 10; Runtime 1 ([40,41) inside forward, higher priority); DataLoader [0,30) = 30;
 *   CPU Exec = |[30,80) ∪ [85,90)| - Kernel [60,70) - Runtime [40,41) = 55 - 10 - 1 = 44; Other = 100-10-1-30-44 = 15.
 * Verdict: Kernel 0.10 < 0.8; causes: data 30, host 1 + 44 + 15 = 60 -> host, share 0.6. */
static void nested_and_cross_thread_ranges(void)
{
    uint32_t a = ps_model_thread(m, 1, 1), b = ps_model_thread(m, 1, 2), s7 = ps_model_stream(m, 1, 0, 7);
    range(a, PS_RANGE_NVTX_PUSHPOP, "train_step", 0, 100, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "step", 0, 50, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "data", 0, 30, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "load_batch", 5, 10, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "forward", 30, 60, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "aten::mm", 35, 50, 0);
    range(a, PS_RANGE_NVTX_PUSHPOP, "aten::batch_norm", 85, 90, 0);
    range(b, PS_RANGE_NVTX_STARTEND, "backward", 50, 80, 0);
    api(a, "cudaLaunchKernel_v7000", 40, 41, 1, 0);
    kernel(s7, "k", 60, 70, 1);
    build_default();
    CHECK_EQ("steps", rep.nsteps, 1);
    CHECK_EQ("step name is the outer range", rep.steps[0].name, ps_model_intern_cstr(m, "train_step"));
    check_cats("step", rep.steps[0].cat_ns, (int64_t[]){ 10, 0, 0, 0, 1, 30, 44, 15 });
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "host");
    CHECK_NEAR("share", rep.share, 0.6, 1e-12);
}

/* Zero-length and out-of-order events (added newest first; ps_model_finish sorts). Step "iteration 3" [0,50).
 * cudaLaunchKernel [5,5) (zero length) -> k [10,10) (zero length); cudaLaunchKernel [15,16) -> k [20,30).
 *   Kernel 10, Runtime 1, Other 39. Kernel summary "k": count 2, total 10, min 0, max 10, median (0+10)/2 = 5.
 *   HTA span from the first event's start to the last end: [10,30) = 20, busy 10 -> idle 10, compute 10.
 *   TraceLens: total 20, computation 10, idle 10. */
static void zero_length_out_of_order(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    kernel(s7, "k", 20, 30, 2);
    kernel(s7, "k", 10, 10, 1);
    api(t, "cudaLaunchKernel", 15, 16, 2, 0);
    api(t, "cudaLaunchKernel", 5, 5, 1, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "iteration 3", 0, 50, 0);
    build_default();
    CHECK_EQ("steps", rep.nsteps, 1);
    check_cats("step", rep.steps[0].cat_ns, (int64_t[]){ 10, 0, 0, 0, 1, 0, 0, 39 });
    CHECK_EQ("kernel names", rep.nkernels, 1);
    CHECK_EQ("k count", rep.kernels[0].count, 2);
    CHECK_EQ("k total", rep.kernels[0].total_ns, US(10));
    CHECK_EQ("k min", rep.kernels[0].min_ns, 0);
    CHECK_EQ("k max", rep.kernels[0].max_ns, US(10));
    CHECK_EQ("k median", rep.kernels[0].median_ns, US(5));
    CHECK_EQ("hta span", dev0()->hta_span_ns, US(20));
    CHECK_EQ("hta idle", dev0()->hta_idle_ns, US(10));
    CHECK_EQ("hta compute", dev0()->hta_compute_ns, US(10));
    CHECK_EQ("tl total", dev0()->tl_total_ns, US(20));
    CHECK_EQ("tl idle", dev0()->tl_idle_ns, US(10));
}

/* A CPU-only trace (no GPU rows): the host is the device. Main thread: "step" [0,100) with "data" [0,40),
 * "h2d" [40,50), "forward" [50,90); "step" [100,200) with "data" [100,110), "h2d" [110,170), "forward" [170,200).
 * A loader thread has "data" [0,200): not a step thread, ignored.
 *   s1: Memcpy 10, DataLoader 40, Kernel (the rest) 50 -> Kernel 0.5 < 0.8; data 40 > memcpy 10 -> data-loading 0.4.
 *   s2: Memcpy 60, DataLoader 10, Kernel 30 -> memcpy 0.6.
 *   Average: dur 100, Kernel 40, Memcpy 35, DataLoader 25 -> memcpy, share 0.35. GPU utilisation null. */
static void cpu_only_trace(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), w = ps_model_thread(m, 1, 2);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 0, 100, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "data", 0, 40, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "h2d", 40, 50, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "forward", 50, 90, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 100, 200, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "data", 100, 110, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "h2d", 110, 170, 0);
    range(t, PS_RANGE_NVTX_PUSHPOP, "forward", 170, 200, 0);
    range(w, PS_RANGE_NVTX_PUSHPOP, "data", 0, 200, 0);
    build_default();
    CHECK_EQ("has_gpu", rep.has_gpu, 0);
    CHECK_EQ("steps", rep.nsteps, 2);
    check_cats("s1", rep.steps[0].cat_ns, (int64_t[]){ 50, 10, 0, 0, 0, 40, 0, 0 });
    check_cats("s2", rep.steps[1].cat_ns, (int64_t[]){ 30, 60, 0, 0, 0, 10, 0, 0 });
    CHECK_STR("s1 verdict", ps_bottleneck_name[rep.steps[0].bottleneck], "data-loading");
    CHECK_STR("s2 verdict", ps_bottleneck_name[rep.steps[1].bottleneck], "memcpy");
    check_cats("average", rep.avg.cat_ns, (int64_t[]){ 40, 35, 0, 0, 0, 25, 0, 0 });
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "memcpy");
    CHECK_NEAR("share", rep.share, 0.35, 1e-12);
    CHECK_EQ("gpu_util is null", isnan(rep.gpu_util), 1);
}

/* sync_ns. Step [0,100) on A: cudaLaunchKernel [0,1) -> k [2,20); cudaDeviceSynchronize [1,20); cpu op
 * "optimizer" [20,60); cudaLaunchKernel [60,61) -> k [70,90).
 *   Kernel |[2,20) ∪ [70,90)| = 38; Runtime [0,1) + [1,2) + [60,61) = 3; CPU Exec [20,60) = 40; Other 19.
 *   Sync: from the call's start to the next GPU activity after its return: [1,70); minus GPU activity:
 *   [1,2) + [20,70) = 51 (out of Runtime [1,2), CPU Exec [20,60), Runtime [60,61), Other [61,70)).
 *   Where the step goes (docs/report.md), which the verdict weighs: kernel 38; sync: the call's idle [1,2) and
 *   what its 19 µs wait exposed after it returned, [20,39): 20 (without the call, "optimizer" would have run
 *   while k did); host compute: "optimizer" after that, [39,60): 21; launch: [0,1) and [60,61) calls and k's
 *   9 µs latency [61,70): 11; unexplained [90,100): 10. Groups: kernel 38, sync 20, host 21 + 11 + 10 = 42
 *   -> host, share 0.42. */
static void sync_carved_from_host_time(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    range(t, PS_RANGE_NVTX_PUSHPOP, "step", 0, 100, 0);
    range(t, PS_RANGE_CPU_OP, "optimizer", 20, 60, 0);
    api(t, "cudaLaunchKernel_v7000", 0, 1, 1, 0);
    api(t, "cudaDeviceSynchronize_v3020", 1, 20, 2, 0);
    api(t, "cudaLaunchKernel_v7000", 60, 61, 3, 0);
    kernel(s7, "k", 2, 20, 1);
    kernel(s7, "k", 70, 90, 3);
    build_default();
    check_cats("step", rep.steps[0].cat_ns, (int64_t[]){ 38, 0, 0, 0, 3, 0, 40, 19 });
    CHECK_EQ("sync_ns", rep.steps[0].sync_ns, US(51));
    const int64_t *c = rep.steps[0].cause_ns;
    CHECK_EQ("cause kernel", c[PS_CAUSE_KERNEL], US(38));
    CHECK_EQ("cause sync", c[PS_CAUSE_SYNC], US(20));
    CHECK_EQ("cause host", c[PS_CAUSE_HOST], US(21));
    CHECK_EQ("cause launch", c[PS_CAUSE_LAUNCH], US(11));
    CHECK_EQ("cause unexplained", c[PS_CAUSE_UNEXPLAINED], US(10));
    CHECK_STR("verdict", ps_bottleneck_name[rep.bottleneck], "host");
    CHECK_NEAR("share", rep.share, 0.42, 1e-12);
}

/* Communication: default rule (kernel name contains nccl) versus --compat tb (kernel linked by External id to
 * an nccl:/gloo: host op, and that op's host range counts as Communication too). Step [0,100) on A:
 *   cpu_op "nccl:all_reduce" [10,20) ext 7; cudaLaunchKernel [12,13) ext 7 -> ncclKernel_AllReduce [30,60);
 *   cudaLaunchKernel [14,15) ext 0 -> gemm [50,80); cudaLaunchKernel [16,17) ext 0 -> ncclKernel_Broadcast [85,95).
 * Default: Kernel [50,80) = 30; Comm [30,50) + [85,95) = 30; Runtime 3; CPU Exec [10,20) - 3 = 7; Other 30.
 * tb: the broadcast kernel is not linked -> Kernel [50,80) + [85,95) = 40; Comm [30,50) + the host op [10,20) = 30
 *   (the runtime calls inside it lose to Communication); Runtime 0; CPU Exec 0; Other 30. */
static void communication_rules(void)
{
    ps_model_free(m);   /* this case builds a Kineto-like model per rule */
    for (int tb = 0; tb < 2; tb++) {
        m = ps_model_new("hand", PS_FORMAT_KINETO);
        m->correlation_global = 1;
        uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 0, 0, 7), s8 = ps_model_stream(m, 0, 0, 8);
        range(t, PS_RANGE_USER_ANNOTATION, "ProfilerStep#1", 0, 100, 0);
        range(t, PS_RANGE_CPU_OP, "nccl:all_reduce", 10, 20, 7);
        api(t, "cudaLaunchKernel", 12, 13, 1, 7);
        api(t, "cudaLaunchKernel", 14, 15, 2, 0);
        api(t, "cudaLaunchKernel", 16, 17, 3, 0);
        kernel(s8, "ncclKernel_AllReduce_RING_LL_Sum_float", 30, 60, 1);
        kernel(s7, "gemm", 50, 80, 2);
        kernel(s8, "ncclKernel_Broadcast_RING_LL_Sum_int8_t", 85, 95, 3);
        struct ps_report_opts o;
        ps_report_opts_default(&o);
        o.compat_tb = tb;
        build(&o);
        if (tb)
            check_cats("tb", rep.steps[0].cat_ns, (int64_t[]){ 40, 0, 0, 30, 0, 0, 0, 30 });
        else
            check_cats("default", rep.steps[0].cat_ns, (int64_t[]){ 30, 0, 0, 30, 3, 0, 7, 30 });
        ps_report_fini(&rep);
        ps_model_free(m);
    }
    m = NULL;
}

/* HTA idle breakdown on one stream (no steps: nothing filtered). Launch -> kernel:
 *   [-10,-9) -> K1 [0,10); [1,2) -> K2 [30,40): gap 20 < 30, launched before the stream drained -> kernel_wait 20;
 *   [3,4) -> K3 [90,100): gap 50 >= 30 -> other 50; [150,151) -> K4 [160,170): launched after the stream drained at
 *   100 -> host_wait 60; [152,153) -> K5 [165,175) overlaps K4: gap -5, launched before 170 -> kernel_wait (HTA's
 *   quirk) -> kernel_wait 20 - 5 = 15. */
static void hta_idle_categories(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    int64_t launch[5][2] = { { -10, -9 }, { 1, 2 }, { 3, 4 }, { 150, 151 }, { 152, 153 } };
    int64_t k[5][2] = { { 0, 10 }, { 30, 40 }, { 90, 100 }, { 160, 170 }, { 165, 175 } };
    for (int i = 0; i < 5; i++) {
        api(t, "cudaLaunchKernel", launch[i][0], launch[i][1], (uint64_t)i + 1, 0);
        kernel(s7, "k", k[i][0], k[i][1], (uint64_t)i + 1);
    }
    build_default();
    CHECK_EQ("idle streams", rep.nidle, 1);
    CHECK_EQ("host_wait", rep.idle[0].host_wait_ns, US(60));
    CHECK_EQ("kernel_wait", rep.idle[0].kernel_wait_ns, US(15));
    CHECK_EQ("other", rep.idle[0].other_ns, US(50));
    CHECK_EQ("whole run", rep.whole_run, 1);
}

/* The finding of rule `rule` in rep, NULL when absent. */
static const struct ps_finding *finding(const char *rule)
{
    for (size_t i = 0; i < rep.nfindings; i++)
        if (!strcmp(rep.findings[i].rule, rule))
            return &rep.findings[i];
    return NULL;
}

/* Findings. cudaMemcpyAsync [5,6) -> HtoD pageable->device [10,20), 1000 B: pageable_memcpy. cudaMemcpy [25,41)
 * -> DtoH device->pageable [30,40): synchronous, so sync_memcpy (not pageable_memcpy: that rule is about Async calls
 * the driver silently serialises). cudaStreamSynchronize [41,45): sync_api. Kernel [2000,2010) (launched at 1990: it
 * started 9 µs after its launch, so nothing queued before the trace held it back) after the copy ended
 * at 40: one GPU gap of 1960 µs >= 1 ms: gpu_gap. No step range: the run [5,2010) is one window with 10 µs of
 * kernels: low_gpu_utilization. Costs (analysed window: the run, 2005 µs): pageable 10 µs (0.5 %: info);
 * sync_memcpy 10 µs (info); sync_api = the sync time: the synchronous cudaMemcpy [25,41) and the synchronize
 * [41,45) extend to the next GPU start, 2000, so sync covers [25,2000) less the copy [30,40): 1965 µs (warning);
 * gpu_gap [40,2000) = 1960 µs; low_gpu_utilization: 2005 - 10 = 1995 µs. Sorted by cost, ties by rule name. */
static void findings(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s7 = ps_model_stream(m, 1, 0, 7);
    api(t, "cudaMemcpyAsync_v3020", 5, 6, 1, 0);
    api(t, "cudaMemcpy_v3020", 25, 41, 2, 0);
    api(t, "cudaStreamSynchronize_v3020", 41, 45, 3, 0);
    api(t, "cudaLaunchKernel_v7000", 1990, 1991, 4, 0);
    gpu(s7, PS_GPU_MEMCPY, "Memcpy HtoD (Pageable -> Device)", 10, 20, 1, 1000, PS_COPY_HTOD, PS_MEM_PAGEABLE,
        PS_MEM_DEVICE);
    gpu(s7, PS_GPU_MEMCPY, "Memcpy DtoH (Device -> Pageable)", 30, 40, 2, 1000, PS_COPY_DTOH, PS_MEM_DEVICE,
        PS_MEM_PAGEABLE);
    kernel(s7, "k", 2000, 2010, 4);
    build_default();
    static const char *const want[] = { "low_gpu_utilization", "sync_api", "gpu_gap", "pageable_memcpy", "sync_memcpy" };
    static const int64_t cost[] = { 1995, 1965, 1960, 10, 10 };
    static const char *const severity[] = { "warning", "warning", "warning", "info", "info" };
    CHECK_EQ("findings", rep.nfindings, 5);
    for (size_t i = 0; i < 5 && i < rep.nfindings; i++) {
        CHECK_STR("rule", rep.findings[i].rule, want[i]);
        CHECK_EQ("cost", rep.findings[i].cost_ns, US(cost[i]));
        CHECK_NEAR("share", rep.findings[i].share, (double)cost[i] / 2005.0, 1e-12);
        CHECK_STR("severity", rep.findings[i].severity, severity[i]);
    }
    const struct ps_finding *p = finding("pageable_memcpy"), *g = finding("gpu_gap");
    if (!p || !g)
        return;
    CHECK_EQ("pageable rows", p->nrows, 1);
    CHECK_EQ("pageable row start", p->rows[0].start_ns, US(10));
    CHECK_EQ("pageable row bytes", p->rows[0].bytes, 1000);
    CHECK_EQ("gap row start", g->rows[0].start_ns, US(40));
    CHECK_EQ("gap row length", g->rows[0].dur_ns, US(1960));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Kernel summary medians. "a": 5 1 9 3 7 µs -> median 5; "b": 4 4 1 10 -> (4 + 4) / 2 = 4; "c": 8 2 6 4 ->
 * (4 + 6) / 2 = 5. "r": 1000 pseudo-random durations with many repeats, checked against a plain sort done here
 * (even count: mean of elements 499 and 500 of the sorted list). */
static void kernel_summary_median(void)
{
    uint32_t s7 = ps_model_stream(m, 1, 0, 7);
    int64_t t = 0;
    static const int64_t a[] = { 5, 1, 9, 3, 7 }, b[] = { 4, 4, 1, 10 }, c[] = { 8, 2, 6, 4 };
    for (size_t i = 0; i < 5; i++, t += 20)
        kernel(s7, "a", t, t + a[i], 0);
    for (size_t i = 0; i < 4; i++, t += 20)
        kernel(s7, "b", t, t + b[i], 0);
    for (size_t i = 0; i < 4; i++, t += 20)
        kernel(s7, "c", t, t + c[i], 0);
    int64_t rnd[1000];
    uint32_t x = 12345;
    for (size_t i = 0; i < 1000; i++, t += 100) {
        x = x * 1103515245u + 12345u;
        rnd[i] = (x >> 16) % 50;
        kernel(s7, "r", t, t + rnd[i], 0);
    }
    qsort(rnd, 1000, sizeof *rnd, cmp_i64);
    build_default();
    CHECK_EQ("names", rep.nkernels, 4);
    for (size_t i = 0; i < rep.nkernels; i++) {
        const struct ps_kernel_stat *k = &rep.kernels[i];
        const char *name = ps_model_str(m, k->name);
        int64_t want = !strcmp(name, "a") ? US(5) : !strcmp(name, "b") ? US(4) : !strcmp(name, "c") ? US(5)
                                                                                         : US(rnd[499] + rnd[500]) / 2;
        CHECK_EQ(name, k->median_ns, want);
        if (!strcmp(name, "r")) {
            CHECK_EQ("r min", k->min_ns, US(rnd[0]));
            CHECK_EQ("r max", k->max_ns, US(rnd[999]));
            CHECK_EQ("r count", k->count, 1000);
        }
    }
}

/* Several ranks in one trace (no GPU rows). Each process: two steps with a "data" range at the start.
 *   pid 10: steps of 100 µs, data 20 -> Kernel 80 % -> kernel.   pid 20: 100 µs, data 30 -> data-loading (0.3).
 *   pid 30: steps of 150 µs, data 70 -> data-loading (70/150).
 * Median average step 100 µs: pid 30 is 50 % slower; its excess over the median per category: Kernel 80 - 80 = 0,
 * DataLoader 70 - 30 = 40 -> dataloader. The main breakdown takes pid 10 (all hold 2 steps: the lowest pid). */
static void ranks_and_stragglers(void)
{
    static const int64_t pid[3] = { 10, 20, 30 }, step[3] = { 100, 100, 150 }, data[3] = { 20, 30, 70 };
    for (int p = 0; p < 3; p++) {
        uint32_t t = ps_model_thread(m, (uint32_t)pid[p], (uint32_t)pid[p]);
        for (int k = 0; k < 2; k++) {
            range(t, PS_RANGE_NVTX_PUSHPOP, "step", k * step[p], (k + 1) * step[p], 0);
            range(t, PS_RANGE_NVTX_PUSHPOP, "data", k * step[p], k * step[p] + data[p], 0);
        }
    }
    build_default();
    CHECK_EQ("main process", rep.pid, 10);
    CHECK_EQ("ranks", rep.nranks, 3);
    if (rep.nranks != 3)
        return;
    CHECK_EQ("rank 2 pid", rep.ranks[2].pid, 30);
    CHECK_EQ("rank 2 average step", rep.ranks[2].avg_dur_ns, US(150));
    CHECK_EQ("rank 2 dataloader", rep.ranks[2].cat_ns[PS_CAT_DATALOADER], US(70));
    CHECK_STR("rank 0 verdict", ps_bottleneck_name[rep.ranks[0].bottleneck], "kernel");
    CHECK_STR("rank 1 verdict", ps_bottleneck_name[rep.ranks[1].bottleneck], "data-loading");
    CHECK_EQ("stragglers", rep.nstragglers, 1);
    if (rep.nstragglers != 1)
        return;
    CHECK_EQ("straggler pid", rep.stragglers[0].pid, 30);
    CHECK_NEAR("slower_by", rep.stragglers[0].slower_by, 0.5, 1e-12);
    CHECK_STR("category", ps_cat_key[rep.stragglers[0].category], "dataloader");
}

/* The per-process table goes through the one step pipeline (analyses/verdict.h ps_verdict_steps_compute), so
 * --skip-steps leaves a process's first steps out of its average as it does the report's (docs/setups.md).
 * No GPU rows: two processes, three steps each (µs): [0,300) [300,400) [400,500), data ranges at each step's start
 * of 250, 20, 20 (pid 10) and 260, 30, 30 (pid 20). --skip-steps 1 keeps the two 100 µs steps: pid 10 loads
 * 20 µs and computes 80 (80 % >= the 0.8 threshold: kernel, share 0.8); pid 20 loads 30 and computes 70: the
 * largest group besides compute is data-loading, share 0.3. With the first step kept, pid 10 would average
 * 166.667 µs, 58 % of it loading (data-loading). */
static void per_process_table_leaves_out_skipped_steps(void)
{
    static const int64_t pid[2] = { 10, 20 }, first_data[2] = { 250, 260 }, data[2] = { 20, 30 };
    static const int64_t step[3][2] = { { 0, 300 }, { 300, 400 }, { 400, 500 } };
    for (int p = 0; p < 2; p++) {
        uint32_t t = ps_model_thread(m, (uint32_t)pid[p], (uint32_t)pid[p]);
        for (int k = 0; k < 3; k++) {
            range(t, PS_RANGE_NVTX_PUSHPOP, "step", step[k][0], step[k][1], 0);
            range(t, PS_RANGE_NVTX_PUSHPOP, "data", step[k][0], step[k][0] + (k ? data[p] : first_data[p]), 0);
        }
    }
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.skip_steps = 1;
    build(&o);
    CHECK_EQ("ranks", rep.nranks, 2);
    if (rep.nranks != 2)
        return;
    CHECK_EQ("pid 10 steps", rep.ranks[0].nsteps, 2);
    CHECK_EQ("pid 10 average step", rep.ranks[0].avg_dur_ns, US(100));
    CHECK_EQ("pid 10 dataloader", rep.ranks[0].cat_ns[PS_CAT_DATALOADER], US(20));
    CHECK_STR("pid 10 verdict", ps_bottleneck_name[rep.ranks[0].bottleneck], "kernel");
    CHECK_NEAR("pid 10 share", rep.ranks[0].share, 0.8, 1e-12);
    CHECK_EQ("pid 20 average step", rep.ranks[1].avg_dur_ns, US(100));
    CHECK_STR("pid 20 verdict", ps_bottleneck_name[rep.ranks[1].bottleneck], "data-loading");
    CHECK_NEAR("pid 20 share", rep.ranks[1].share, 0.3, 1e-12);
    CHECK_EQ("the report's own average (pid 10)", rep.avg_dur_ns, US(100));
}

static void launch_call(uint32_t thread, const char *name, int64_t s, int64_t e, uint64_t corr)
{
    struct ps_api_call c = { .start_ns = US(s), .end_ns = US(e), .correlation = corr,
                             .name = ps_model_intern_cstr(m, name), .thread = thread };
    if (ps_model_add_api(m, &c) < 0)
        abort();
}

/* The per-process table's verdicts leave out the GPU work queued before the trace, as the report's do
 * (docs/report.md "Work queued before the trace"). Process 10 (device 0), one step range [0, 6012): a kernel
 * queued at [0,1) on a drained stream starts at 5000 with nothing before it on its device, so its device ran
 * earlier work over [0, 5000) (from the run's start, 0); a cudaDeviceSynchronize [2,3) returns at once; a second
 * kernel launched at [6000,6001) runs [6002,6012). The verdict weighs where the step goes (docs/report.md), whose
 * work before the trace is [0, 5000) as the breakdown's (the sync call [2,3) inside it waits on nothing the trace
 * holds): 6012 - 5000 = 1012 µs: kernels 20 µs, host 992 µs (the gap [5010,6000) with nothing recorded, the
 * second launch and its 1 µs latency [6000,6002)): host, share 992 / 1012 (without the correction: 5992 / 6012).
 * Process 20
 * (device 1), one step range [0, 6012) with a kernel launched at [0,1) that runs [2,12): nothing queued before. */
static void per_process_table_leaves_out_pretrace_work(void)
{
    uint32_t t10 = ps_model_thread(m, 10, 10), s10 = ps_model_stream(m, 10, 0, 7);
    uint32_t t20 = ps_model_thread(m, 20, 20), s20 = ps_model_stream(m, 20, 1, 7);
    range(t10, PS_RANGE_NVTX_PUSHPOP, "step", 0, 6012, 0);
    launch_call(t10, "cudaLaunchKernel_v7000", 0, 1, 1);
    launch_call(t10, "cudaDeviceSynchronize_v3020", 2, 3, 2);
    launch_call(t10, "cudaLaunchKernel_v7000", 6000, 6001, 3);
    kernel(s10, "k", 5000, 5010, 1);
    kernel(s10, "k", 6002, 6012, 3);
    range(t20, PS_RANGE_NVTX_PUSHPOP, "step", 0, 6012, 0);
    launch_call(t20, "cudaLaunchKernel_v7000", 0, 1, 1);
    kernel(s20, "k", 2, 12, 1);
    build_default();
    CHECK_EQ("ranks", rep.nranks, 2);
    if (rep.nranks != 2)
        return;
    const struct ps_rank_stat *k = &rep.ranks[0];
    CHECK_EQ("pid", k->pid, 10);
    CHECK_EQ("pre-trace work", k->pretrace_ns, US(5000));
    CHECK_EQ("what the verdict weighs", k->seen_ns, US(1012));
    CHECK_EQ("host group", k->group_ns[PS_BN_HOST], US(992));
    CHECK_STR("verdict", ps_bottleneck_name[k->bottleneck], "host");
    CHECK_NEAR("share", k->share, 992.0 / 1012.0, 1e-12);
    CHECK_EQ("pid 20 pre-trace work", rep.ranks[1].pretrace_ns, 0);
    CHECK_EQ("pid 20 weighs its whole step", rep.ranks[1].seen_ns, US(6012));
    /* the report's own verdict (process 10 holds the steps: the lowest pid of a tie) is the same */
    CHECK_EQ("report's seen", rep.avg.seen_ns, US(1012));
    CHECK_NEAR("report's share", rep.share, 992.0 / 1012.0, 1e-12);
}

/* Timestamps 2^51 ns (26 days) apart: refused as corrupt rather than summed into overflowing totals. */
static void corrupt_span_rejected(void)
{
    uint32_t s7 = ps_model_stream(m, 1, 0, 7);
    kernel(s7, "k", 0, 10, 0);
    struct ps_gpu_op op = { .start_ns = 1ll << 51, .end_ns = (1ll << 51) + 1000, .name = ps_model_intern_cstr(m, "k"),
                            .stream = s7, .kind = PS_GPU_KERNEL };
    ps_model_add_gpu(m, &op);
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    char err[256] = "";
    ps_model_finish(m);
    CHECK_EQ("rc", ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0, 1);
    CHECK_EQ("message says corrupt", strstr(err, "corrupt") != NULL, 1);
    memset(&rep, 0, sizeof rep);
}

/* A bad --data-range pattern is refused with a message naming the option. */
static void bad_pattern_rejected(void)
{
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.data_re = "data(";
    char err[256] = "";
    ps_model_finish(m);
    CHECK_EQ("rc", ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0, 1);
    CHECK_EQ("message names the option", strstr(err, "--data-range") != NULL, 1);
    memset(&rep, 0, sizeof rep);
}

static int new_model(void)
{
    m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    return m ? 0 : 1;
}

static void free_report_and_model(void)
{
    ps_report_fini(&rep);
    ps_model_free(m);
    m = NULL;
}

static const struct test_case cases[] = {
    { "overlapping_kernels", .fn = overlapping_kernels },
    { "hidden_memcpy", .fn = hidden_memcpy },
    { "step_without_gpu_work", .fn = step_without_gpu_work },
    { "last_step_with_few_gpu_ops_dropped", .fn = last_step_with_few_gpu_ops_dropped },
    { "cut_profiler_step_without_gpu", .fn = cut_profiler_step_without_gpu },
    { "nested_and_cross_thread_ranges", .fn = nested_and_cross_thread_ranges },
    { "zero_length_out_of_order", .fn = zero_length_out_of_order },
    { "cpu_only_trace", .fn = cpu_only_trace },
    { "sync_carved_from_host_time", .fn = sync_carved_from_host_time },
    { "communication_rules", .fn = communication_rules },
    { "hta_idle_categories", .fn = hta_idle_categories },
    { "findings", .fn = findings },
    { "kernel_summary_median", .fn = kernel_summary_median },
    { "ranks_and_stragglers", .fn = ranks_and_stragglers },
    { "per_process_table_leaves_out_skipped_steps", .fn = per_process_table_leaves_out_skipped_steps },
    { "per_process_table_leaves_out_pretrace_work", .fn = per_process_table_leaves_out_pretrace_work },
    { "corrupt_span_rejected", .fn = corrupt_span_rejected },
    { "bad_pattern_rejected", .fn = bad_pattern_rejected },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .setup = new_model, .teardown = free_report_and_model,
                                             .all_when_none = 1 };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
