/* The per-operator performance model (analyses/op_perf.h) on Kineto traces written here: FLOPs and bytes of one
 * call of each model, worked out by hand beside each case from TraceLens' formulas (docs/op-perf.md;
 * TraceLens/PerfModel/perf_model.py), kernel time as the union of the op's GPU work, and a trace without shapes.
 * Each trace goes through the real reader (ps_read_kineto_ops). */
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/op_perf.h"
#include "cases.h"
#include "check.h"
#include "model/op_trace.h"
#include "op_perf_impl.h"
#include "read/reader.h"

struct json {
    char s[1 << 16];
    size_t n;
    int corr;
    double ts;
};

static void add(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    j->n += (size_t)vsnprintf(j->s + j->n, sizeof j->s - j->n, fmt, ap);
    va_end(ap);
}

/* One cpu_op (args as Kineto writes them, NULL: key absent) launching kernels of the given [start, end) offsets
 * in µs from its start + 10, each through its own launch call linked by an ac2g flow. */
static void op(struct json *j, const char *name, const char *dims, const char *types, const char *strides,
               const char *concrete, int nk, const double *kstart, const double *kend)
{
    double ts = j->ts;
    j->ts += 1000;
    add(j, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":100,\"args\":{",
        j->n > 20 ? "," : "", name, ts);
    int first = 1;
    const char *keys[] = { "Input Dims", "Input type", "Input Strides", "Concrete Inputs" };
    const char *vals[] = { dims, types, strides, concrete };
    for (int k = 0; k < 4; k++)
        if (vals[k]) {
            add(j, "%s\"%s\":%s", first ? "" : ",", keys[k], vals[k]);
            first = 0;
        }
    add(j, "}}");
    for (int k = 0; k < nk; k++) {
        int c = ++j->corr;
        add(j, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
               "\"ts\":%.3f,\"dur\":2,\"args\":{\"correlation\":%d}}", ts + 1 + 3 * k, c);
        add(j, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,"
               "\"args\":{\"correlation\":%d,\"stream\":7}}", c, ts + 10 + kstart[k], kend[k] - kstart[k], c);
        add(j, ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%.3f}", c,
            ts + 1 + 3 * k);
        add(j, ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%.3f,\"bp\":\"e\"}",
            c, ts + 10 + kstart[k]);
    }
}

/* A launch outside any host op (as a CUDA graph replay is): one kernel of `us` µs. */
static void bare_launch(struct json *j, double us)
{
    double ts = j->ts;
    int c = ++j->corr;
    j->ts += 1000;
    add(j, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,"
           "\"ts\":%.3f,\"dur\":2,\"args\":{\"correlation\":%d}}", ts, c);
    add(j, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"graph_kernel\",\"pid\":0,\"tid\":7,\"ts\":%.3f,"
           "\"dur\":%.3f,\"args\":{\"correlation\":%d,\"stream\":7}}", ts + 10, us, c);
}

static void op1(struct json *j, const char *name, const char *dims, const char *types, const char *strides,
                const char *concrete)
{
    static const double s[] = { 0 }, e[] = { 10 };
    op(j, name, dims, types, strides, concrete, 1, s, e);
}

static void build(struct json *j, struct ps_op_perf *p)
{
    char path[] = "/tmp/test_op_perf_XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    char full[1 << 16];
    int n = snprintf(full, sizeof full, "{\"traceEvents\":[%.*s]}", (int)j->n, j->s);
    CHECK(write(fd, full, (size_t)n) == n);
    close(fd);
    struct ps_op_trace *t = NULL;
    int rc = ps_read_kineto_ops(path, &t, err, sizeof err);
    unlink(path);
    CHECK(rc == 0, "%s", err);
    CHECK_EQ(ps_op_perf_compute(t, p), 0);
    ps_op_trace_free(t);
}

static const struct ps_op_perf_row *row(const struct ps_op_perf *p, const char *name)
{
    for (size_t k = 0; k < p->nrows; k++)
        if (strcmp(p->rows[k].name, name) == 0)
            return &p->rows[k];
    CHECK(0, "no row %s", name);
    return NULL;
}

#define BF16_2 "[\"c10::BFloat16\",\"c10::BFloat16\"]"

static void gemm(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* addmm(C[512], A[141,512], B[512,512]) bf16: M=141 N=512 K=512, bias.
     * FLOPs = 2*141*512*512 + 141*512 = 73,924,608 + 72,192 = 73,996,800
     * bytes = (141*512 + 512*512 + 141*512 + 512) * 2 = (72,192 + 262,144 + 72,192 + 512) * 2 = 814,080 */
    op1(&j, "aten::addmm", "[[512],[141,512],[512,512],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
        "[[1],[512,1],[1,512],[],[]]", "[\"\",\"\",\"\",\"1\",\"1\"]");
    /* _scaled_mm(A[4096,8192], B[8192,1024], scale_a, scale_b, ...) fp8 e4m3fn: 6 inputs, so no bias.
     * FLOPs = 2*4096*1024*8192 = 68,719,476,736; bytes = 4096*8192*1 + 8192*1024*1 + 4096*1024*2 (fp8 -> bf16
     * output) = 33,554,432 + 8,388,608 + 8,388,608 = 50,331,648 */
    op1(&j, "aten::_scaled_mm", "[[4096,8192],[8192,1024],[],[],[],[]]",
        "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\",\"\"]",
        "[[8192,1],[1,8192],[],[],[],[]]", "[\"\",\"\",\"\",\"\",\"\",\"\"]");
    /* baddbmm(C, A[8,128,64], B[8,64,128]) fp16: FLOPs = 8*(2*128*128*64 + 128*128) = 8*2,113,536 = 16,908,288;
     * bytes = 8*(128*64*2 + 64*128*2 + 128*128*2 + 128*2) = 8*65,792 = 526,336 */
    op1(&j, "aten::baddbmm", "[[8,128,128],[8,128,64],[8,64,128],[],[]]",
        "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]",
        "[[16384,128,1],[8192,64,1],[8192,128,1],[],[]]", "[\"\",\"\",\"\",\"1\",\"1\"]");
    build(&j, &p);
    const struct ps_op_perf_row *r = row(&p, "aten::addmm");
    CHECK_EQ(r->flops_per_call, 73996800.0);
    CHECK_EQ(r->bytes_per_call, 814080.0);
    CHECK_STR(r->compute_spec, "matrix_bf16");
    CHECK_STR(r->category, "GEMM");
    CHECK_STR(r->params, "{'M': 141, 'N': 512, 'K': 512, 'bias': True, 'stride_A': (512, 1), 'stride_B': (1, 512), "
                         "'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16'), 'B': 1}");
    r = row(&p, "aten::_scaled_mm");
    CHECK_EQ(r->flops_per_call, 68719476736.0);
    CHECK_EQ(r->bytes_per_call, 50331648.0);
    CHECK_STR(r->compute_spec, "matrix_fp8");
    r = row(&p, "aten::baddbmm");
    CHECK_EQ(r->flops_per_call, 16908288.0);
    CHECK_EQ(r->bytes_per_call, 526336.0);
    CHECK_STR(r->compute_spec, "matrix_fp16");
    ps_op_perf_fini(&p);
}

static void sdpa(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* flash attention bf16, q = k = v = [1,8,141,64] (B,H,N,d), not causal: FLOPs = 2*B*H*N*N*d (QK^T) +
     * 2*B*H*N*d*N (PV) = 4*8*141*141*64 = 40,716,288; bytes = 4 tensors * 72,192 elements * 2 = 577,536 */
    op1(&j, "aten::_scaled_dot_product_flash_attention", "[[1,8,141,64],[1,8,141,64],[1,8,141,64],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]",
        "[[72192,64,512,1],[72192,64,512,1],[72192,64,512,1],[],[],[],[]]",
        "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]");
    /* efficient attention bf16 [2,16,1024,64] x3, causal: 4*2*16*1024*1024*64 / 2 = 4,294,967,296 FLOPs;
     * bytes = 4 * 2,097,152 * 2 = 16,777,216 */
    op1(&j, "aten::_scaled_dot_product_efficient_attention",
        "[[2,16,1024,64],[2,16,1024,64],[2,16,1024,64],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]",
        "[[1048576,65536,64,1],[1048576,65536,64,1],[1048576,65536,64,1],[],[],[],[],[]]",
        "[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"True\",\"\"]");
    build(&j, &p);
    const struct ps_op_perf_row *r = row(&p, "aten::_scaled_dot_product_flash_attention");
    CHECK_EQ(r->flops_per_call, 40716288.0);
    CHECK_EQ(r->bytes_per_call, 577536.0);
    CHECK_STR(r->category, "SDPA_fwd");
    r = row(&p, "aten::_scaled_dot_product_efficient_attention");
    CHECK_EQ(r->flops_per_call, 4294967296.0);
    CHECK_EQ(r->bytes_per_call, 16777216.0);
    CHECK_CONTAINS(r->params, "'causal': True, 'flash_impl': False");
    ps_op_perf_fini(&p);
}

static void conv(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* conv2d bf16 x[1,3,1008,1008] w[1024,3,14,14] stride 14: out side (1008 - 13 - 1)/14 + 1 = 72, out
     * [1,1024,72,72] = 5,308,416; FLOPs = 2 * (3*14*14) * 5,308,416 = 6,242,697,216; bytes = (3,048,192 x +
     * 602,112 w + 5,308,416 out) * 2 = 17,917,440 */
    op1(&j, "aten::convolution", "[[1,3,1008,1008],[1024,3,14,14],[1024],[],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
        "\"Scalar\",\"ScalarList\",\"Scalar\"]",
        "[[3048192,1016064,1008,1],[588,196,14,1],[1],[],[],[],[],[],[]]",
        "[\"\",\"\",\"\",\"[14, 14]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]");
    /* convolution_backward bf16 grad_out, x [8,64,56,56], w [64,64,3,3], bias [64], pad 1: out = x's shape,
     * 1,605,632 elements. input grad 2*576*1,605,632 = 1,849,688,064; weight grad 2*(8*56*56)*(64*64*9) =
     * 1,849,688,064; bias 1,605,632: FLOPs 3,700,981,760. bytes = 2*(1,605,632 + 36,864 + 1,605,632)*2 +
     * (1,605,632 + 64) (the bias term counted as elements, TraceLens' bytes_bwd) = 14,598,208 */
    op1(&j, "aten::convolution_backward", "[[8,64,56,56],[8,64,56,56],[64,64,3,3],[64],[],[],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
        "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"\"]",
        "[[200704,3136,56,1],[200704,3136,56,1],[576,9,3,1],[],[],[],[],[],[],[],[]]",
        "[\"\",\"\",\"\",\"[64]\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"\"]");
    build(&j, &p);
    const struct ps_op_perf_row *r = row(&p, "aten::convolution");
    CHECK_EQ(r->flops_per_call, 6242697216.0);
    CHECK_EQ(r->bytes_per_call, 17917440.0);
    CHECK_STR(r->category, "CONV_fwd");
    r = row(&p, "aten::convolution_backward");
    CHECK_EQ(r->flops_per_call, 3700981760.0);
    CHECK_EQ(r->bytes_per_call, 14598208.0);
    CHECK_STR(r->category, "CONV_bwd");
    ps_op_perf_fini(&p);
}

static void elementwise(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* add bf16 [1,141,512] + [1,141,512]: one FLOP per output element, 72,192; bytes = 3 * 72,192 * 2 = 433,152 */
    op1(&j, "aten::add", "[[1,141,512],[1,141,512],[]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]",
        "[[72192,512,1],[72192,512,1],[]]", "[\"\",\"\",\"1\"]");
    /* mul fp32 [16,1,64] * [1,32,64] broadcasts to [16,32,64]: 32,768 FLOPs; bytes = 1,024*4 + 2,048*4 +
     * 32,768*4 = 143,360 */
    op1(&j, "aten::mul", "[[16,1,64],[1,32,64]]", "[\"float\",\"float\"]", "[[64,64,1],[2048,64,1]]",
        "[\"\",\"\"]");
    /* copy_(self bf16 [64,128], src fp32 [64,128]): 8,192 FLOPs; bytes = 8,192*2 (TraceLens' "in": self) +
     * 8,192*4 ("out": src) = 49,152 */
    op1(&j, "aten::copy_", "[[64,128],[64,128],[]]", "[\"c10::BFloat16\",\"float\",\"Scalar\"]",
        "[[128,1],[128,1],[]]", "[\"\",\"\",\"False\"]");
    build(&j, &p);
    const struct ps_op_perf_row *r = row(&p, "aten::add");
    CHECK_EQ(r->flops_per_call, 72192.0);
    CHECK_EQ(r->bytes_per_call, 433152.0);
    CHECK_STR(r->compute_spec, "vector_bf16");
    r = row(&p, "aten::mul");
    CHECK_EQ(r->flops_per_call, 32768.0);
    CHECK_EQ(r->bytes_per_call, 143360.0);
    r = row(&p, "aten::copy_");
    CHECK_EQ(r->flops_per_call, 8192.0);
    CHECK_EQ(r->bytes_per_call, 49152.0);
    CHECK_STR(r->sheet, "UnaryElementwise");
    ps_op_perf_fini(&p);
}

static void norms_and_reductions(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* layer_norm bf16 x[1,141,512] over [512]: N = 72,192, C = 512; FLOPs = 3C + 3N + 3C + 2N = 6*512 + 5*72,192 =
     * 364,032; bytes = N*2 (in) + N*2 (out) + 6*C*2 (mean, var, weight, bias, 2 saved) = 294,912 */
    op1(&j, "aten::layer_norm", "[[1,141,512],[],[512],[512],[],[]]",
        "[\"c10::BFloat16\",\"\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
        "[[72192,512,1],[],[1],[1],[],[]]", "[\"\",\"[512]\",\"\",\"\",\"1e-05\",\"True\"]");
    /* _fused_rms_norm bf16 [4,2048,4096] over [4096]: N = 33,554,432, C = 4,096; FLOPs = (N/C)*(2C+2) + 2N =
     * 8,192*8,194 + 67,108,864 = 134,234,112; bytes = 2N*2 + C*2 = 134,225,920 */
    op1(&j, "aten::_fused_rms_norm", "[[4,2048,4096],[],[4096],[]]",
        "[\"c10::BFloat16\",\"\",\"c10::BFloat16\",\"Scalar\"]", "[[8388608,4096,1],[],[1],[]]",
        "[\"\",\"[4096]\",\"\",\"1e-06\"]");
    /* batch_norm fp32 [32,64,56,56], training given as "False": TraceLens reads bool("False") = True, so
     * FLOPs = 6*64 + 5*6,422,528 = 32,113,024 and bytes = 2*6,422,528*4 + 6*64*4 = 51,381,760 */
    op1(&j, "aten::batch_norm", "[[32,64,56,56],[64],[64],[64],[64],[],[],[],[]]",
        "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
        "[[200704,3136,56,1],[1],[1],[1],[1],[],[],[],[]]",
        "[\"\",\"\",\"\",\"\",\"\",\"False\",\"0.1\",\"1e-05\",\"True\"]");
    /* mean fp32 [16,559,1024] over dim [-1]: FLOPs = 9,158,656 input elements; TraceLens counts one output
     * element (Kineto's dim is a string): bytes = 9,158,656*4 + 4 = 36,634,628 */
    op1(&j, "aten::mean", "[[16,559,1024],[],[],[]]", "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
        "[[572416,1024,1],[],[],[]]", "[\"\",\"[-1]\",\"True\",\"\"]");
    build(&j, &p);
    const struct ps_op_perf_row *r = row(&p, "aten::layer_norm");
    CHECK_EQ(r->flops_per_call, 364032.0);
    CHECK_EQ(r->bytes_per_call, 294912.0);
    CHECK_STR(r->category, "NORM_fwd");
    r = row(&p, "aten::_fused_rms_norm");
    CHECK_EQ(r->flops_per_call, 134234112.0);
    CHECK_EQ(r->bytes_per_call, 134225920.0);
    r = row(&p, "aten::batch_norm");
    CHECK_EQ(r->flops_per_call, 32113024.0);
    CHECK_EQ(r->bytes_per_call, 51381760.0);
    r = row(&p, "aten::mean");
    CHECK_EQ(r->flops_per_call, 9158656.0);
    CHECK_EQ(r->bytes_per_call, 36634628.0);
    CHECK_STR(r->compute_spec, "vector_fp32");
    CHECK_CONTAINS(r->params, "'reduce_type': 'mean'");
    ps_op_perf_fini(&p);
}

static void kernel_time_is_the_union(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* Two addmm calls of one shape. Call 1: kernels [0, 10) and [5, 20) overlap: union 20 µs. Call 2: one kernel
     * of 10 µs. Sum 30 µs; mean 15; sample std sqrt(((20-15)^2 + (10-15)^2) / 1) = 7.0710678...
     * TFLOP/s per call = 73,996,800 / t: 3.69984 and 7.39968, mean 5.54976. A relu with no model: 10 µs. A graph
     * launch outside any op: 5 µs of GPU work under no op. Busy: 20 + 10 + 10 + 5 = 45 µs. */
    static const double s1[] = { 0, 5 }, e1[] = { 10, 20 };
    const char *d = "[[512],[141,512],[512,512],[],[]]",
               *t = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
               *st = "[[1],[512,1],[1,512],[],[]]", *c = "[\"\",\"\",\"\",\"1\",\"1\"]";
    op(&j, "aten::addmm", d, t, st, c, 2, s1, e1);
    op1(&j, "aten::addmm", d, t, st, c);
    op1(&j, "aten::relu", "[[1,141,512]]", "[\"c10::BFloat16\"]", "[[72192,512,1]]", "[\"\"]");
    bare_launch(&j, 5);
    build(&j, &p);
    CHECK_EQ(p.nrows, (size_t)1);
    const struct ps_op_perf_row *r = row(&p, "aten::addmm");
    CHECK_EQ(r->calls, (int64_t)2);
    CHECK_NEAR(r->kernel_time_ns_total, 30000.0, 1e-3);
    CHECK_NEAR(r->kernel_time_us_mean, 15.0, 1e-9);
    CHECK_NEAR(r->kernel_time_us_std, 7.0710678118654755, 1e-9);
    CHECK_NEAR(r->tflops_s_mean, 5.54976, 1e-9);
    CHECK_NEAR(r->tflops_s_min, 3.69984, 1e-9);
    CHECK_NEAR(r->tflops_s_max, 7.39968, 1e-9);
    /* TB/s per call = 814,080 bytes / t: 0.040704 and 0.081408; sample std sqrt(2) * 0.020352 = 0.0287820744... */
    CHECK_NEAR(r->tb_s_median, 0.061056, 1e-12);
    CHECK_NEAR(r->tb_s_std, 0.02878207442141723, 1e-12);
    CHECK_NEAR(r->flops_total, 2 * 73996800.0, 1e-3);
    CHECK_NEAR(p.modeled_us, 30.0, 1e-6);
    CHECK_NEAR(p.unmodeled_us, 10.0, 1e-6);
    CHECK_EQ(p.nunmodeled, (size_t)1);
    CHECK_STR(p.unmodeled[0].name, "aten::relu");
    CHECK_NEAR(p.gpu_busy_us, 45.0, 1e-6);
    CHECK_NEAR(p.no_op_us, 5.0, 1e-6);
    CHECK(p.has_shapes);
    ps_op_perf_fini(&p);
}

static void no_shapes(void)
{
    struct json j = { .ts = 1e12 };
    struct ps_op_perf p;
    /* recorded without record_shapes: no row, the op's time counted as modeled-op time without figures */
    op1(&j, "aten::addmm", NULL, NULL, NULL, NULL);
    build(&j, &p);
    CHECK(!p.has_shapes);
    CHECK_EQ(p.nrows, (size_t)0);
    ps_op_perf_fini(&p);
}

static void reader_keeps_what_tracelens_reads(void)
{
    /* UIDs count every traceEvents entry (metadata and flows too); ts and dur are the JSON numbers as doubles;
     * the shape arguments are kept as Python's str() prints them: ", " separators, strings in single quotes, or
     * in double quotes when they hold a ' and no ", escapes for \ and control characters (the step starts
     * beside the op: events further apart than 2^50 ns are refused, model/model.h PS_MODEL_MAX_SPAN_NS) */
    static const char json[] =
        "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python3\"}},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
        "\"ts\":1743457654120,\"dur\":9},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op\",\"pid\":1,\"tid\":1,\"ts\":1743457654123.456,"
        "\"dur\":0.001,\"args\":{\"Input Dims\":[[1,2],[],[3]],\"Input type\":[\"float\",\"\"],"
        "\"Concrete Inputs\":[\"it's\",\"a\\\"b\",\"x\\ty\",\"both ' and \\\"\"],\"Input Strides\":[[2,1],[],[1]]}}]}";
    char path[] = "/tmp/test_op_perf_XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, json, sizeof json - 1) == (ssize_t)(sizeof json - 1));
    close(fd);
    struct ps_op_trace *t = NULL;
    int rc = ps_read_kineto_ops(path, &t, err, sizeof err);
    unlink(path);
    CHECK(rc == 0, "%s", err);
    if (rc)
        return;
    CHECK_EQ(t->ev.n, (size_t)1);   /* only the cpu_op: user annotations are not in TraceLens' tree */
    const struct ps_op_event *e = &t->ev.v[0];
    CHECK_EQ(e->uid, 2);
    CHECK(e->ts_us == 1743457654123.456 && e->dur_us == 0.001, "ts %.17g dur %.17g", e->ts_us, e->dur_us);
    const struct ps_op_args *a = &t->args.v[e->args];
    CHECK_STR(ps_op_trace_str(t, a->dims), "[[1, 2], [], [3]]");
    CHECK_STR(ps_op_trace_str(t, a->types), "['float', '']");
    CHECK_STR(ps_op_trace_str(t, a->concrete), "[\"it's\", 'a\"b', 'x\\ty', 'both \\' and \"']");
    CHECK_EQ(t->meta.n, (size_t)1);
    CHECK_STR(ps_op_trace_str(t, t->meta.v[0].value), "python3");
    ps_op_trace_free(t);
}

/* The bytes the parse tree of a recorded argument holds (its lists and strings, as malloc_usable_size counts
 * them). */
static size_t tree_bytes(const struct tl_pv *v)
{
    size_t b = (v->items ? malloc_usable_size(v->items) : 0) + (v->s ? malloc_usable_size(v->s) : 0);
    for (size_t k = 0; k < v->n; k++)
        b += tree_bytes(&v->items[k]);
    return b;
}

/* An op's recorded inputs (Input type, Concrete Inputs: a string per input) are parsed into memory linear in
 * their text: each string holds its own characters. It used to get room for the rest of the whole list (a
 * report of 4 ops with 100,000 inputs each took 1 GB, an export 2.4 GB; bench/analyzer/op_model.sh). 5,000
 * inputs of "'Scalar', " (10 bytes each): each string asks 7 bytes (glibc hands out 24 usable bytes, or a free
 * chunk up to 31 bytes larger when splitting it would leave less than its smallest chunk: 64 allowed, where the
 * whole rest of the list is some 25,000 bytes on average), the whole tree (5,000 items of sizeof(struct tl_pv) =
 * 40 bytes in an array whose capacity doubles, and the strings) at most 20 bytes per byte of text; and the same for
 * Input Dims' empty lists ("[], ": 4 bytes, an item each). */
static void shape_inputs_cost_memory_linear_in_their_text(void)
{
    enum { N = 5000 };
    static char types[N * 10 + 16], dims[N * 4 + 16];
    size_t n = 0, m = 0;
    types[n++] = '[', dims[m++] = '[';
    for (int k = 0; k < N; k++) {
        n += (size_t)sprintf(types + n, "%s'Scalar'", k ? ", " : "");
        m += (size_t)sprintf(dims + m, "%s[]", k ? ", " : "");
    }
    types[n++] = ']', dims[m++] = ']';
    const char *texts[2] = { types, dims };
    for (int w = 0; w < 2; w++) {
        const char *p = texts[w];
        struct tl_pv v;
        CHECK_EQ(tl_pv_parse(&p, &v, 0), 0);
        CHECK_EQ(v.kind, TL_PV_LIST);
        CHECK_EQ(v.n, (size_t)N);
        size_t worst = 0;
        for (size_t k = 0; k < v.n; k++)
            if (v.items[k].s && malloc_usable_size(v.items[k].s) > worst)
                worst = malloc_usable_size(v.items[k].s);
        if (w == 0) {
            CHECK_STR(v.items[N - 1].s, "Scalar");
            CHECK(worst <= 64, "a 6-character input holds %zu bytes", worst);
        }
        size_t text = strlen(texts[w]), held = tree_bytes(&v);
        CHECK(held <= 20 * text, "%zu bytes of inputs held in %zu bytes (%.1f per byte)", text, held,
              (double)held / (double)text);
        tl_pv_fini(&v);
    }
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "gemm_flops_and_bytes", .fn = gemm },
        { "sdpa_flops_and_bytes", .fn = sdpa },
        { "conv_flops_and_bytes", .fn = conv },
        { "elementwise_flops_and_bytes", .fn = elementwise },
        { "norm_and_reduce_flops_and_bytes", .fn = norms_and_reductions },
        { "kernel_time_is_the_union_of_the_op_gpu_work", .fn = kernel_time_is_the_union },
        { "trace_without_shapes_has_no_rows", .fn = no_shapes },
        { "reader_keeps_what_tracelens_reads", .fn = reader_keeps_what_tracelens_reads },
        { "shape_inputs_cost_memory_linear_in_their_text", .fn = shape_inputs_cost_memory_linear_in_their_text },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
