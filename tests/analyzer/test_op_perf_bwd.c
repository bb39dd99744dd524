/* The backward pass in the per-operator performance model (analyses/op_perf.h) on Kineto traces written here:
 * the backward normalisation ops' FLOPs and bytes (TraceLens' Normalization.flops_func_bwd / bytes_func_bwd,
 * worked out by hand beside each case), and forward convolution / attention ops measured on their autograd backward
 * events (the CONV_bwd / SDPA_bwd sheets of a training trace; the shared traces are all inference, so the trace is
 * generated here with its ground truth: which kernels run under which backward event). Each trace goes through the
 * real reader (ps_read_kineto_ops). */
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
#include "read/reader.h"

struct json {
    char s[1 << 16];
    size_t n;
    int corr;
};

static void add(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    j->n += (size_t)vsnprintf(j->s + j->n, sizeof j->s - j->n, fmt, ap);
    va_end(ap);
}

/* A cpu_op on thread tid; seq < 0: no "Sequence number"; args: the args object's inner text or NULL. */
static void cpu(struct json *j, const char *name, int tid, double ts, double dur, int seq, const char *args)
{
    add(j, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{",
        j->n ? "," : "", name, tid, ts, dur);
    if (seq >= 0)
        add(j, "\"Sequence number\":%d%s", seq, args ? "," : "");
    add(j, "%s}}", args ? args : "");
}

/* A launch call at ts on tid (2 µs) and its kernel [kts, kts + kdur) on stream 7, linked by an ac2g flow. */
static void launch(struct json *j, int tid, double ts, double kts, double kdur)
{
    int c = ++j->corr;
    add(j, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,"
           "\"dur\":2,\"args\":{\"correlation\":%d}}", tid, ts, c);
    add(j, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,"
           "\"args\":{\"correlation\":%d,\"stream\":7}}", c, kts, kdur, c);
    add(j, ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":%d,\"ts\":%.3f}", c, tid, ts);
    add(j, ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%.3f,\"bp\":\"e\"}", c,
        kts);
}

static struct ps_op_trace *read_json(struct json *j)
{
    char path[] = "/tmp/test_op_perf_bwd_XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    static char full[1 << 17];
    int n = snprintf(full, sizeof full, "{\"traceEvents\":[%.*s]}", (int)j->n, j->s);
    CHECK(write(fd, full, (size_t)n) == n);
    close(fd);
    struct ps_op_trace *t = NULL;
    int rc = ps_read_kineto_ops(path, &t, err, sizeof err);
    unlink(path);
    CHECK(rc == 0, "%s", err);
    return t;
}

static const struct ps_op_perf_row *row(const struct ps_op_perf *p, const char *name)
{
    for (size_t k = 0; k < p->nrows; k++)
        if (strcmp(p->rows[k].name, name) == 0)
            return &p->rows[k];
    CHECK(0, "no row %s", name);
    return NULL;
}

static const struct ps_tl_table *table(const struct ps_tl_tables *t, const char *name)
{
    for (size_t k = 0; k < t->n; k++)
        if (strcmp(t->v[k].name, name) == 0)
            return &t->v[k];
    return NULL;
}

static const char *cell(const struct ps_tl_table *t, size_t r, const char *col)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c], col) == 0)
            return t->cells[r * t->ncols + c];
    CHECK(0, "%s has no column %s", t->name, col);
    return "";
}

/* One modeled op at ts with one 10 µs kernel. */
static void op1(struct json *j, const char *name, double ts, const char *args)
{
    cpu(j, name, 1, ts, 100, -1, args);
    launch(j, 1, ts + 1, ts + 10, 10);
}

static void backward_norm_flops_and_bytes(void)
{
    struct json j = { .n = 0 };
    /* native_layer_norm_backward fp32, x [8,32] over [32], output_mask [True, True, True]: N = 256, C = 32,
     * training, affine, bias. FLOPs = C * (4*N/C + 5*N/C) = 32 * 72 = 2,304. bytes = N*4 (grad_out) + 2*N*4 (x
     * twice) + C*4 (invstd) + C*4 (weight) + 2*C*4 (grad_weight, grad_bias) = 1,024 + 2,048 + 128 + 128 + 256 = 3,584 */
    op1(&j, "aten::native_layer_norm_backward", 0,
        "\"Input Dims\":[[8,32],[8,32],[],[8,1],[8,1],[32],[32],[]],"
        "\"Input type\":[\"float\",\"float\",\"ScalarList\",\"float\",\"float\",\"float\",\"float\",\"ScalarList\"],"
        "\"Input Strides\":[[32,1],[32,1],[],[1,1],[1,1],[1],[1],[]],"
        "\"Concrete Inputs\":[\"\",\"\",\"[32]\",\"\",\"\",\"\",\"\",\"[True, True, True]\"]");
    /* native_batch_norm_backward bf16, x [4,16,8,8], train "True": N = 4,096, C = 16. FLOPs = 16 * (4*256 +
     * 5*256) = 36,864. bytes = N*2 + 2*N*2 + C*2 + C*2 + 2*C*2 = 8,192 + 16,384 + 32 + 32 + 64 = 24,704 */
    op1(&j, "aten::native_batch_norm_backward", 1000,
        "\"Input Dims\":[[4,16,8,8],[4,16,8,8],[16],[16],[16],[16],[16],[],[],[]],"
        "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"float\",\"float\",\"float\",\"float\","
        "\"Scalar\",\"Scalar\",\"ScalarList\"],"
        "\"Input Strides\":[[1024,64,8,1],[1024,64,8,1],[1],[1],[1],[1],[1],[],[],[]],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"True\",\"1e-05\",\"[True, True, True]\"]");
    /* cudnn_batch_norm_backward fp32, x (input 0) [2,8,4,4]: inference statistics. N = 256, C = 8. FLOPs =
     * 8 * (3 + 4*32) = 1,048. bytes = N*4 + N*4 + C*4 (weight) = 2,080 */
    op1(&j, "aten::cudnn_batch_norm_backward", 2000,
        "\"Input Dims\":[[2,8,4,4],[2,8,4,4],[8],[8],[8],[8],[8],[],[]],"
        "\"Input type\":[\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"float\"],"
        "\"Input Strides\":[[128,16,4,1],[128,16,4,1],[1],[1],[1],[1],[1],[],[0]],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"1e-05\",\"\"]");
    /* native_group_norm_backward fp16, x [2,32,4,4], 8 groups: N = 1,024, C = 32 / 8 = 4.0 (TraceLens' channels
     * per group). FLOPs = 4 * (4*256 + 5*256) = 9,216. bytes = N*2 + 2*N*2 + 4*2 + 4*2 + 2*4*2 = 6,176 */
    op1(&j, "aten::native_group_norm_backward", 3000,
        "\"Input Dims\":[[2,32,4,4],[2,32,4,4],[2,8],[2,8],[32],[],[],[],[],[]],"
        "\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\","
        "\"Scalar\",\"Scalar\",\"ScalarList\"],"
        "\"Input Strides\":[[512,16,4,1],[512,16,4,1],[8,1],[8,1],[1],[],[],[],[],[]],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"2\",\"32\",\"16\",\"8\",\"[True, True, True]\"]");
    /* _fused_rms_norm_backward bf16, x [4,64] over [64], weight, output_mask [True, True]: N = 256, C = 64.
     * FLOPs = N (dy*w) + N (x*rstd) + 2N + 4N (grad_input) + N (grad_weight) + N (accumulated over 4 rows) = 10N =
     * 2,560. bytes = N*2 + 2*N*2 + 2*C*2 = 512 + 1,024 + 256 = 1,792 */
    op1(&j, "aten::_fused_rms_norm_backward", 4000,
        "\"Input Dims\":[[4,64],[4,64],[],[4,1],[64],[]],"
        "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"float\",\"c10::BFloat16\",\"ScalarList\"],"
        "\"Input Strides\":[[64,1],[64,1],[],[1,1],[1],[]],"
        "\"Concrete Inputs\":[\"\",\"\",\"[64]\",\"\",\"\",\"[True, True]\"]");
    /* a forward layer norm in the same sheet: its rows have no output_mask (an empty cell) */
    op1(&j, "aten::layer_norm", 5000,
        "\"Input Dims\":[[8,32],[],[32],[32],[],[]],"
        "\"Input type\":[\"float\",\"ScalarList\",\"float\",\"float\",\"Scalar\",\"Scalar\"],"
        "\"Input Strides\":[[32,1],[],[1],[1],[],[]],\"Concrete Inputs\":[\"\",\"[32]\",\"\",\"\",\"1e-05\",\"True\"]");
    struct ps_op_trace *t = read_json(&j);
    if (!t)
        return;
    struct ps_op_perf p;
    CHECK_EQ(ps_op_perf_compute(t, &p), 0);
    static const struct { const char *name; double flops, bytes; } want[] = {
        { "aten::native_layer_norm_backward", 2304, 3584 }, { "aten::native_batch_norm_backward", 36864, 24704 },
        { "aten::cudnn_batch_norm_backward", 1048, 2080 }, { "aten::native_group_norm_backward", 9216, 6176 },
        { "aten::_fused_rms_norm_backward", 2560, 1792 } };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const struct ps_op_perf_row *r = row(&p, want[k].name);
        if (!r)
            continue;
        CHECK(r->flops_per_call == want[k].flops, "%s FLOPs %.17g", want[k].name, r->flops_per_call);
        CHECK(r->bytes_per_call == want[k].bytes, "%s bytes %.17g", want[k].name, r->bytes_per_call);
        CHECK_STR(r->category, "NORM_bwd");
        CHECK_STR(r->sheet, "Normalization");
    }
    const struct ps_op_perf_row *g = row(&p, "aten::native_group_norm_backward");
    if (g)
        CHECK_CONTAINS(g->params, "'num_channels': 4.0");
    CHECK_STR(row(&p, "aten::layer_norm")->category, "NORM_fwd");
    ps_op_perf_fini(&p);
    struct ps_tl_tables tabs;
    CHECK_EQ(ps_tl_tables_compute(t, &tabs), 0);
    const struct ps_tl_table *nt = table(&tabs, "Normalization");
    CHECK(nt && nt->nrows == 6);
    for (size_t r = 0; nt && r < nt->nrows; r++) {
        const char *name = cell(nt, r, "name"), *mask = cell(nt, r, "param: output_mask");
        if (strcmp(name, "aten::layer_norm") == 0)
            CHECK_STR(mask, "");
        else if (strcmp(name, "aten::native_layer_norm_backward") == 0)
            CHECK_STR(mask, "[True, True, True]");
    }
    ps_tl_tables_fini(&tabs);
    ps_op_trace_free(t);
}

#define CONV_ARGS                                                                                                     \
    "\"Input Dims\":[[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"                                                  \
    "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","       \
    "\"Scalar\",\"ScalarList\",\"Scalar\"],"                                                                          \
    "\"Input Strides\":[[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[]],"                                             \
    "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]"

#define SDPA_ARGS                                                                                                     \
    "\"Input Dims\":[[1,8,141,64],[1,8,141,64],[1,8,141,64],[],[],[],[]],"                                        \
    "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"],"  \
    "\"Input Strides\":[[72192,64,512,1],[72192,64,512,1],[72192,64,512,1],[],[],[],[]],"                           \
    "\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]"

static void forward_ops_timed_on_their_backward_events(void)
{
    struct json j = { .n = 0 };
    /* Forward, thread 1: a convolution (sequence number 7) whose child launches one 10 µs kernel; a second one of
     * the same shape under no_grad (sequence number 9, no backward event); a flash attention (11). */
    cpu(&j, "aten::convolution", 1, 0, 100, 7, CONV_ARGS);
    cpu(&j, "aten::cudnn_convolution", 1, 1, 90, -1, NULL);
    launch(&j, 1, 2, 10, 10);
    cpu(&j, "aten::convolution", 1, 200, 100, 9, CONV_ARGS);
    launch(&j, 1, 201, 210, 10);
    cpu(&j, "aten::_scaled_dot_product_flash_attention", 1, 400, 100, 11, SDPA_ARGS);
    launch(&j, 1, 401, 410, 10);
    /* Backward, autograd's thread 2: the engine's event for sequence number 11 runs one 40 µs kernel; the one for
     * 7 runs two kernels [5010, 5030) and [5020, 5040) under convolution_backward (recorded without shapes):
     * their union is 30 µs. A later engine event that reuses number 7 is not the first and is not linked. */
    cpu(&j, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0", 2, 4000, 100, 11, NULL);
    launch(&j, 2, 4001, 4010, 40);
    cpu(&j, "autograd::engine::evaluate_function: ConvolutionBackward0", 2, 5000, 100, 7, NULL);
    cpu(&j, "ConvolutionBackward0", 2, 5001, 98, 7, NULL);
    cpu(&j, "aten::convolution_backward", 2, 5002, 96, -1, NULL);
    launch(&j, 2, 5003, 5010, 20);
    launch(&j, 2, 5006, 5020, 20);
    cpu(&j, "autograd::engine::evaluate_function: ConvolutionBackward0", 2, 6000, 100, 7, NULL);
    launch(&j, 2, 6001, 6010, 500);
    struct ps_op_trace *t = read_json(&j);
    if (!t)
        return;
    struct ps_op_perf p;
    CHECK_EQ(ps_op_perf_compute(t, &p), 0);
    /* The convolution's backward model, x [2,3,8,8], w [4,3,3,3], pad 1: out [2,4,8,8] = 512 elements. Input
     * gradient 2 * (3*3*3) * 512 = 27,648; weight gradient 2 * (2*8*8) * (4*3*3*3) = 27,648: 55,296 FLOPs. Bytes
     * 2 * (512 out + 108 w + 384 x) * 2 = 4,016. Kernel time 30 µs, one call. */
    const struct ps_op_perf_row *r = row(&p, "aten::convolution (backward)");
    if (r) {
        CHECK_EQ(r->flops_per_call, 55296.0);
        CHECK_EQ(r->bytes_per_call, 4016.0);
        CHECK_EQ(r->calls, (int64_t)1);
        CHECK_NEAR(r->kernel_time_us_mean, 30.0, 1e-9);
        CHECK_STR(r->category, "CONV_bwd");
    }
    r = row(&p, "aten::convolution");
    if (r) {
        CHECK_EQ(r->calls, (int64_t)2);   /* the forward rows: both calls, 10 µs each */
        CHECK_NEAR(r->kernel_time_ns_total, 20000.0, 1e-6);
    }
    /* Flash attention's backward model, q = k = v [1,8,141,64] bf16, not causal: QK^T recompute, dV, dP, dQ, dK,
     * each 2*8*141*141*64 = 20,358,144: 101,790,720 FLOPs; bytes q, k, v, dO read and dQ, dK, dV written at 2 bytes:
     * 7 * 72,192 * 2 = 1,010,688. Kernel time 40 µs. */
    r = row(&p, "aten::_scaled_dot_product_flash_attention (backward)");
    if (r) {
        CHECK_EQ(r->flops_per_call, 101790720.0);
        CHECK_EQ(r->bytes_per_call, 1010688.0);
        CHECK_NEAR(r->kernel_time_us_mean, 40.0, 1e-9);
        CHECK_STR(r->category, "SDPA_bwd");
    }
    ps_op_perf_fini(&p);
    struct ps_tl_tables tabs;
    CHECK_EQ(ps_tl_tables_compute(t, &tabs), 0);
    const struct ps_tl_table *cb = table(&tabs, "CONV_bwd"), *sb = table(&tabs, "SDPA_bwd");
    CHECK(cb && cb->nrows == 1 && sb && sb->nrows == 1);
    if (cb && cb->nrows == 1) {
        CHECK_STR(cell(cb, 0, "name"), "aten::convolution");
        CHECK_STR(cell(cb, 0, "Kernel Time (µs)_sum"), "30.0");
        CHECK_STR(cell(cb, 0, "name_count"), "1");
        CHECK_STR(cell(cb, 0, "UID_first"), "0");   /* the forward op's UID */
    }
    ps_tl_tables_fini(&tabs);
    ps_op_trace_free(t);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "backward_norm_flops_and_bytes", .fn = backward_norm_flops_and_bytes },
        { "forward_ops_timed_on_their_backward_events", .fn = forward_ops_timed_on_their_backward_events },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
