/* The operator model of a perfscope trace (analyses/op_perf.h ps_op_perf_trace_compute): the Python hook's per-op
 * ranges (python/perfscope_hook/op_shapes.py's text) with the CUDA API calls and the GPU work they launched, in a
 * model built here as the SQLite reader fills it. Expected values: FLOPs and bytes by hand, kernel time = the
 * union of the kernels launched inside the op's range, linked by correlation id within each process. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "analyses/ranks.h"
#include "cases.h"
#include "check.h"
#include "model/model.h"
#include "model/op_trace.h"
#include "op_perf_testing.h"

#define MM_TEXT(M, K, N)                                                                                              \
    "aten::mm, dims = [[" #M ", " #K "], [" #K ", " #N "]], types = ['c10::BFloat16', 'c10::BFloat16'], "             \
    "strides = [[" #K ", 1], [" #N ", 1]], concrete = ['', '']"

static void range(struct ps_model *m, uint32_t pid, const char *text, int64_t start, int64_t end)
{
    struct ps_range r = { .start_ns = start, .end_ns = end, .name = ps_model_intern_cstr(m, text),
                          .thread = ps_model_thread(m, pid, pid), .domain = PS_NONE,
                          .kind = PS_RANGE_NVTX_PUSHPOP };
    CHECK_EQ(ps_model_add_range(m, &r), 0);
}

/* A launch at t on pid's main thread with correlation id corr, and its kernel [ks, ke) on stream 7. */
static void launch(struct ps_model *m, uint32_t pid, int64_t t, uint64_t corr, int64_t ks, int64_t ke)
{
    struct ps_api_call c = { .start_ns = t, .end_ns = t + 2000, .correlation = corr,
                             .name = ps_model_intern_cstr(m, "cudaLaunchKernel_v7000"),
                             .thread = ps_model_thread(m, pid, pid) };
    CHECK_EQ(ps_model_add_api(m, &c), 0);
    struct ps_gpu_op g = { .start_ns = ks, .end_ns = ke, .correlation = corr,
                           .name = ps_model_intern_cstr(m, "gemm_kernel"), .stream = ps_model_stream(m, pid, 0, 7),
                           .kind = PS_GPU_KERNEL };
    CHECK_EQ(ps_model_add_gpu(m, &g), 0);
}

static void hook_ranges_linked_to_their_kernels(void)
{
    struct ps_model *m = ps_model_new("hand.sqlite", PS_FORMAT_PERFSCOPE);
    /* Process 100: mm [64,128] x [128,32] bf16 in [0, 100 µs), launching kernels [10, 30) and [20, 50) µs (union
     * 40 µs), correlation ids 1 and 2. Process 200: mm [16,16] x [16,16] in [0, 100 µs), its launch reusing
     * correlation id 1 with a kernel [60, 65) µs: 5 µs, not process 100's. A range that is not an op record and a
     * launch outside any op are not ops. */
    range(m, 100, MM_TEXT(64, 128, 32), 0, 100000);
    launch(m, 100, 1000, 1, 10000, 30000);
    launch(m, 100, 4000, 2, 20000, 50000);
    range(m, 100, "ProfilerStep#1", 0, 200000);
    launch(m, 100, 150000, 3, 160000, 170000);
    range(m, 200, MM_TEXT(16, 16, 16), 0, 100000);
    launch(m, 200, 1000, 1, 60000, 65000);
    CHECK_EQ(ps_model_finish(m), 0);
    struct ps_op_trace *t = NULL;
    CHECK_EQ(ps_op_perf_trace_compute(m, &t), 0);
    CHECK(t != NULL);
    struct ps_op_perf p;
    CHECK_EQ(ps_op_perf_compute(t, &p), 0);
    CHECK(p.has_shapes);
    CHECK_EQ(p.nrows, (size_t)2);
    for (size_t k = 0; k < p.nrows; k++) {
        const struct ps_op_perf_row *r = &p.rows[k];
        if (strstr(r->params, "'M': 64")) {
            /* 2*64*32*128 = 524,288 FLOPs; (64*128 + 128*32 + 64*32) * 2 = 28,672 bytes; 40 µs */
            CHECK_EQ(r->flops_per_call, 524288.0);
            CHECK_EQ(r->bytes_per_call, 28672.0);
            CHECK_NEAR(r->kernel_time_us_mean, 40.0, 1e-9);
            CHECK_STR(r->compute_spec, "matrix_bf16");
        } else {
            /* 2*16*16*16 = 8,192 FLOPs; 5 µs */
            CHECK_EQ(r->flops_per_call, 8192.0);
            CHECK_NEAR(r->kernel_time_us_mean, 5.0, 1e-9);
        }
    }
    /* busy: [10, 50) + [60, 65) + the launch outside any op [160, 170) = 55 µs; 10 µs under no op */
    CHECK_NEAR(p.gpu_busy_us, 55.0, 1e-9);
    CHECK_NEAR(p.no_op_us, 10.0, 1e-9);
    ps_op_perf_fini(&p);
    ps_op_trace_free(t);
    ps_model_free(m);
}

static void trace_without_op_ranges_has_no_model(void)
{
    /* emit_nvtx's text (sizes, no dtypes) and plain ranges give no op: no model rather than guessed bytes */
    struct ps_model *m = ps_model_new("hand.sqlite", PS_FORMAT_NSYS);
    range(m, 100, "aten::mm, seq = 3, sizes = [[32, 64], [64, 16]]", 0, 1000);
    range(m, 100, "ProfilerStep#1", 0, 2000);
    CHECK_EQ(ps_model_finish(m), 0);
    struct ps_op_trace *t = (struct ps_op_trace *)1;
    CHECK_EQ(ps_op_perf_trace_compute(m, &t), 0);
    CHECK(t == NULL);
    ps_model_free(m);
}

static void op_range_text_is_parsed_strictly(void)
{
    const char *lo[4], *hi[4];
    size_t nl;
    const char *ok = "aten::addmm, dims = [[32], [8, 16], [16, 32], [], []], types = ['float', 'float', 'float', "
                     "'Scalar', 'Scalar'], strides = [[1], [16, 1], [1, 16], [], []], concrete = ['', '', '', '1', '1']";
    CHECK_EQ(ps_op_perf_range_parse(ok, &nl, lo, hi), 0);
    CHECK_EQ(nl, strlen("aten::addmm"));
    CHECK_EQ((size_t)(hi[0] - lo[0]), strlen("[[32], [8, 16], [16, 32], [], []]"));
    CHECK(strncmp(lo[3], "['', '', '', '1', '1']", (size_t)(hi[3] - lo[3])) == 0);
    static const char *const bad[] = {
        "aten::mm",                                                                  /* no lists */
        ", dims = [], types = [], strides = [], concrete = []",                      /* no name */
        "aten::mm, dims = [[1, 2], types = [], strides = [], concrete = []",        /* unclosed list */
        "aten::mm, dims = [], types = [], concrete = [], strides = []",             /* wrong order */
        "aten::mm, dims = [], types = [], strides = [], concrete = [] trailing",    /* trailing text */
        "aten::mm, dims = 3, types = [], strides = [], concrete = []",              /* not a list */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(ps_op_perf_range_parse(bad[k], &nl, lo, hi) == -EINVAL, "accepted: %s", bad[k]);
}

/* A perfscope trace with GPU work whose hook ran in mode default gets the note that says how to get the model;
 * the same trace recorded in mode shapes (but without op ranges) or without the hook does not. */
static void default_hook_mode_with_gpu_work_suggests_shapes(void)
{
    static const char *const modes[] = { "default", "shapes", NULL };
    for (int k = 0; k < 3; k++) {
        struct ps_model *m = ps_model_new("hand.sqlite", PS_FORMAT_PERFSCOPE);
        if (modes[k])
            CHECK_EQ(ps_model_add_meta(m, "python_hooks", modes[k]), 0);
        range(m, 100, "ProfilerStep#1", 0, 100000);
        launch(m, 100, 1000, 1, 10000, 30000);
        CHECK_EQ(ps_model_finish(m), 0);
        struct ps_report r;
        struct ps_report_opts o;
        char err[256];
        ps_report_opts_default(&o);
        CHECK_EQ(ps_ranks_report_compute(&r, m, &o, err, sizeof err), 0);
        size_t before = r.nmsgs;
        CHECK_EQ(ps_op_perf_suggest_shapes(&r), 0);
        CHECK_EQ(r.nmsgs - before, (size_t)(k == 0));
        if (k == 0 && r.nmsgs > before) {
            CHECK_STR(r.msgs[before].code, "no_op_shapes");
            CHECK_CONTAINS(r.msgs[before].text, "--python-hooks=shapes");
        }
        ps_report_fini(&r);
        ps_model_free(m);
    }
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "hook_ranges_linked_to_their_kernels", .fn = hook_ranges_linked_to_their_kernels },
        { "trace_without_op_ranges_has_no_model", .fn = trace_without_op_ranges_has_no_model },
        { "op_range_text_is_parsed_strictly", .fn = op_range_text_is_parsed_strictly },
        { "default_hook_mode_with_gpu_work_suggests_shapes", .fn = default_hook_mode_with_gpu_work_suggests_shapes },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
