/* The report's "Operator efficiency" section (analyses/roofline.h ps_op_efficiency_compute) on the generated trace
 * of gen_roofline_trace.py (its docstring works out every expected value below), with the operator model's rows
 * (analyses/op_perf.h) written here as TraceLens' models give them for that trace's shapes; then every format.
 * usage: test_op_efficiency CASE TRACE.json */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "analyses/ranks.h"
#include "../cases.h"
#include "../check.h"
#include "analyses/op_perf.h"
#include "analyses/roofline.h"
#include "model/model.h"
#include "model/op_trace.h"
#include "op_perf_testing.h"
#include "read/reader.h"
#include "render/render.h"

static const char *trace_path;

/* TraceLens' figures for the generated trace: F and B per call, kernel time summed over the calls. */
static struct ps_op_perf_row rows_of_trace[] = {
    { .name = "aten::mm", .params = "{'M': 4096, 'N': 4096, 'K': 4096, 'bias': False}", .category = "GEMM",
      .compute_spec = "matrix_bf16", .is_matrix = 1, .calls = 2, .flops_per_call = 137438953472.0,
      .bytes_per_call = 100663296.0, .kernel_time_ns_total = 400000 },
    { .name = "aten::addmm", .params = "{'M': 512, 'N': 1024, 'K': 2048, 'bias': True}", .category = "GEMM",
      .compute_spec = "matrix_fp32", .is_matrix = 1, .calls = 1, .flops_per_call = 2148007936.0,
      .bytes_per_call = 14684160.0, .kernel_time_ns_total = 64200 },
    { .name = "aten::add", .params = "{'shape_in1': (4096, 4096)}", .category = "elementwise",
      .compute_spec = "vector_bf16", .calls = 1, .flops_per_call = 16777216.0, .bytes_per_call = 100663296.0,
      .kernel_time_ns_total = 60000 },
};
static struct ps_op_perf_unmodeled softmax = { "aten::_softmax", 200.0, 2 };

struct fixture {
    struct ps_model *m;
    struct ps_report r;
    int ok;
};

static void open_report(struct fixture *fx, const struct ps_op_perf *perf)
{
    char err[512] = "";
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    fx->ok = ps_read_trace(trace_path, &fx->m, err, sizeof err) == 0 && ps_ranks_report_compute(&fx->r, fx->m, &o, err,
                                                                                       sizeof err) == 0;
    CHECK(fx->ok, "%s", err);
    if (fx->ok)
        CHECK_EQ(ps_op_efficiency_compute(&fx->r, perf, NULL), 0);
    fx->ok = fx->ok && fx->r.opeff;
}

static void close_report(struct fixture *fx)
{
    if (fx->m)
        ps_report_fini(&fx->r);
    ps_model_free(fx->m);
}

static struct ps_op_perf trace_perf(void)
{
    return (struct ps_op_perf){ .rows = rows_of_trace, .nrows = 3, .has_shapes = 1, .gpu_busy_us = 824.2,
                                .unmodeled = &softmax, .nunmodeled = 1 };
}

static void mfu_and_rows_of_the_generated_trace(void)
{
    struct ps_op_perf perf = trace_perf();
    struct fixture fx = { 0 };
    open_report(&fx, &perf);
    if (!fx.ok)
        return close_report(&fx);
    const struct ps_op_efficiency *e = fx.r.opeff;
    CHECK_STR(e->device, "NVIDIA H100 80GB HBM3");
    CHECK_STR(e->roof.gpu.key, "H100 SXM");
    CHECK_STR(e->roof.match_how, "name");
    CHECK_EQ("steps", e->nsteps, 2);
    CHECK_NEAR("step time", e->window_ns, 840000, 0.5);
    CHECK_NEAR("MFU", e->roof.mfu, 0.368965, 1e-6);
    CHECK_NEAR("unmodeled share", e->roof.unmodeled_share, 200.0 / 840, 1e-9);
    CHECK(e->roof.nrows == 3 && !strcmp(e->roof.rows[0].g.name, "aten::mm"), "most recoverable first");
    if (e->roof.nrows == 3) {
        CHECK_NEAR("mm recoverable", e->roof.rows[0].recoverable_ns, 122177.171, 1e-3);
        CHECK_NEAR("mm % of roofline", e->roof.rows[0].pct_of_roofline, 69.4557, 1e-4);
        CHECK_EQ("mm precision", e->roof.rows[0].g.prec, PS_PREC_BF16);
    }
    /* fp32 addmm at 2,148,007,936 / 64.2 us = 33.46 TFLOPS/s <= 66.9: at TF32 (494.7) compute F / 494.7e3 =
     * 4,342.037 ns, memory 4,383.331 ns (the larger): gain 64,200 - 4,383.331 = 59,816.669 ns */
    const struct ps_finding *fp32 = NULL;
    for (size_t i = 0; i < fx.r.nfindings; i++)
        if (!strcmp(fx.r.findings[i].rule, "fp32_matmul"))
            fp32 = &fx.r.findings[i];
    CHECK(fp32 != NULL, "fp32_matmul finding");
    if (fp32) {
        CHECK_EQ(fp32->cost_ns, 64200);
        CHECK_EQ(fp32->gain_ns, 59817);
    }
    int named = 0;
    for (size_t i = 0; i < fx.r.nrecs; i++)
        named |= strstr(fx.r.recs[i], "ops furthest from the H100 SXM roofline") &&
                 strstr(fx.r.recs[i], "aten::mm {'M': 4096");
    CHECK(named, "the kernel-bound verdict's fix names aten::mm");
    close_report(&fx);
}

/* Rows not of the trace (the section only reads them): attention by hand with odd shapes, two memory-bound
 * elementwise groups. bmm B=16 M=N=5185 K=64 bf16: F = 16 * 2 * 5185^2 * 64 = 55,057,561,600, 10 calls of 1 ms:
 * roofline per call = F / 989.4e3 = 55,647.4 ns (B = 16 * (5185*64*2 + 5185^2) * 2 = 881,494,080 bytes:
 * 263,132.6 ns memory: memory-bound) -> 26.3 % of roofline. */
static void findings_name_shapes_and_fused_attention(void)
{
    static struct ps_op_perf_row rows[] = {
        { .name = "aten::bmm", .params = "{'B': 16, 'M': 5185, 'N': 5185, 'K': 64}", .category = "GEMM",
          .compute_spec = "matrix_bf16", .is_matrix = 1, .calls = 10, .flops_per_call = 55057561600.0,
          .bytes_per_call = 881494080.0, .kernel_time_ns_total = 10e6 },
        { .name = "aten::mul", .params = "{'shape_in1': (16, 5185, 5185)}", .category = "elementwise",
          .compute_spec = "vector_bf16", .calls = 10, .flops_per_call = 430144400.0, .bytes_per_call = 2580866400.0,
          .kernel_time_ns_total = 9e6 },
        { .name = "aten::add", .params = "{'shape_in1': (16, 5185, 5185)}", .category = "elementwise",
          .compute_spec = "vector_bf16", .calls = 10, .flops_per_call = 430144400.0, .bytes_per_call = 2580866400.0,
          .kernel_time_ns_total = 9e6 },
    };
    static struct ps_op_perf_unmodeled un = { "aten::_softmax", 5000.0, 10 };
    struct ps_op_perf perf = { .rows = rows, .nrows = 3, .has_shapes = 1, .unmodeled = &un, .nunmodeled = 1 };
    struct fixture fx = { 0 };
    open_report(&fx, &perf);
    const char *want[] = { "op_below_roofline", "memory_bound_elementwise", "attention_not_fused" };
    for (size_t k = 0; fx.ok && k < 3; k++) {
        const struct ps_finding *f = NULL;
        for (size_t i = 0; i < fx.r.nfindings; i++)
            if (!strcmp(fx.r.findings[i].rule, want[k]))
                f = &fx.r.findings[i];
        CHECK(f != NULL, "%s", want[k]);
        if (f && k == 0)
            CHECK(strstr(f->summary, "M=5185, N=5185 not a multiple of 8") != NULL, "%s", f->summary);
        if (f && k == 2)
            CHECK(strstr(f->fix, "scaled_dot_product_attention") != NULL, "%s", f->fix);
    }
    close_report(&fx);
}

/* Render a format into a string (caller frees). */
static char *render(const struct ps_report *r, const char *format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct ps_render_opts o = { .sections = PS_TEXT_ALL };   /* every text section */
    CHECK_EQ(format, ps_renderer_find(format)->report(f, r, &o), 0);
    fclose(f);
    return buf;
}

static void every_format_shows_the_section(void)
{
    struct ps_op_perf perf = trace_perf();
    struct fixture fx = { 0 };
    open_report(&fx, &perf);
    if (!fx.ok)
        return close_report(&fx);
    char *text = render(&fx.r, "text"), *md = render(&fx.r, "md"), *html = render(&fx.r, "html"),
         *json = render(&fx.r, "json");
    CHECK_CONTAINS(text, "\nOperator efficiency\n");
    CHECK_CONTAINS(text, "MFU 36.90 % over 2 steps (0.840 ms)");
    CHECK_CONTAINS(text, "GPU time in ops with no model: 0.200 ms");
    CHECK_CONTAINS(md, "### Operator efficiency");
    CHECK_CONTAINS(md, "| 2 | 0.400 | 0.122 | 687.19 | 69.5 | compute | aten::mm");
    CHECK_CONTAINS(html, "<h2 id=\"op-efficiency-h\">Operator efficiency</h2>");
    CHECK_CONTAINS(html, "<svg role=\"img\" aria-labelledby=\"roofline-t roofline-d\"");
    CHECK_CONTAINS(html, "<td class=\"name\">aten::addmm {&#39;M&#39;: 512, &#39;N&#39;: 1024, &#39;K&#39;: 2048, "
                         "&#39;bias&#39;: True}</td>");
    char err[256];
    yajl_val root = yajl_tree_parse(json, err, sizeof err);
    CHECK(root != NULL, "%s", err);
    const char *mfu_path[] = { "op_efficiency", "mfu", "mean", NULL },
               *rows_path[] = { "op_efficiency", "rows", NULL };
    yajl_val mfu = root ? yajl_tree_get(root, mfu_path, yajl_t_number) : NULL;
    CHECK(mfu && fabs(YAJL_GET_DOUBLE(mfu) - 0.368965) < 1e-6, "op_efficiency.mfu.mean");
    yajl_val rows = root ? yajl_tree_get(root, rows_path, yajl_t_array) : NULL;
    CHECK(rows && rows->u.array.len == 3, "op_efficiency.rows");
    const char *ref_path[] = { "op_perf_row", NULL };
    yajl_val ref = rows && rows->u.array.len ? yajl_tree_get(rows->u.array.values[0], ref_path, yajl_t_number) : NULL;
    CHECK(ref && YAJL_GET_INTEGER(ref) == 0, "the most recoverable row is op_perf row 0 (aten::mm)");
    yajl_tree_free(root);
    free(text), free(md), free(html), free(json);
    close_report(&fx);
}

/* Without shapes the operator model's note (code no_op_shapes, op_perf.c) says so once: the section adds nothing. */
static void trace_without_shapes_adds_no_section(void)
{
    struct ps_op_perf perf = { .has_shapes = 0 };
    struct fixture fx = { 0 };
    open_report(&fx, &perf);
    if (!fx.ok)
        return close_report(&fx);
    char *text = render(&fx.r, "text"), *json = render(&fx.r, "json");
    CHECK(!strstr(text, "Operator efficiency"), "no section without shapes");
    CHECK(!strstr(text, "MFU "), "no MFU without shapes");
    CHECK_CONTAINS(json, "\"op_efficiency\": null");
    free(text), free(json);
    close_report(&fx);
}

/* A writer that holds at most HTML_CAP bytes: a chart that never ends fails the test at once instead of filling memory
 * (the unbounded grid wrote 240 MB/s). */
#define HTML_CAP (16 << 20)
struct capped {
    char *buf;
    size_t len;
};

static ssize_t capped_write(void *c, const char *data, size_t n)
{
    struct capped *w = c;
    if (w->len + n > HTML_CAP) {
        fprintf(stderr, "the HTML report passed %d bytes: a chart without end\n", HTML_CAP);
        abort();
    }
    memcpy(w->buf + w->len, data, n);
    w->len += n;
    return (ssize_t)n;
}

static char *render_capped(const struct ps_report *r, const char *format)
{
    struct capped w = { malloc(HTML_CAP + 1), 0 };
    FILE *f = w.buf ? fopencookie(&w, "w", (cookie_io_functions_t){ .write = capped_write }) : NULL;
    CHECK(f != NULL);
    if (!f)
        exit(1);
    struct ps_render_opts o = { .sections = PS_TEXT_ALL };   /* every text section */
    alarm(60);   /* and a chart that loops without writing */
    CHECK_EQ(format, ps_renderer_find(format)->report(f, r, &o), 0);
    alarm(0);
    fclose(f);
    w.buf[w.len] = '\0';
    return w.buf;
}

/* The numbers of an SVG in `svg` (its first <svg ...> ... </svg>): NULL when every one is finite, else the first place
 * where "nan" or "inf" is written (any case: "-nan", "inf", "NaN" from a tooltip). */
static const char *first_non_finite(const char *svg)
{
    const char *end = strstr(svg, "</svg>");
    for (const char *p = svg; *p && (!end || p < end); p++)
        if (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3))
            return p;
    return NULL;
}

/* A peak of 1e308 TFLOPS and a bandwidth of 1e-320 GB/s (which a spec file may no longer give: gpu_spec_file.c) put
 * the chart's x axis at +inf, and its grid loop wrote <line x1="-nan" ...> for ever. Whatever the peaks, bandwidth and
 * rows, the chart has at most 25 grid lines per axis and writes no NaN or infinity. */
static void html_roofline_is_bounded_and_finite_whatever_the_peaks(void)
{
    struct ps_op_perf perf = trace_perf();
    struct fixture fx = { 0 };
    open_report(&fx, &perf);
    if (!fx.ok || fx.r.opeff->roof.nrows < 3)
        return close_report(&fx);
    struct ps_roofline *roof = &fx.r.opeff->roof;
    static const double bw[] = { 1e-320, 0, INFINITY, NAN, 1e308 };
    for (size_t k = 0; k < sizeof bw / sizeof bw[0]; k++) {
        roof->gpu.mem_gbps = bw[k];
        roof->rows[0].peak_tflops = 1e308;
        roof->rows[1].peak_tflops = k % 2 ? INFINITY : 1e-300;
        roof->rows[2].flops_per_byte = k % 2 ? 1e-300 : 1e300;
        roof->rows[2].tflops_s = k % 2 ? 1e300 : 1e-300;
        roof->rows[2].pct_of_roofline = NAN;
        char *html = render_capped(&fx.r, "html");
        const char *svg = strstr(html, "<svg role=\"img\" aria-labelledby=\"roofline-t");
        CHECK(svg != NULL, "bandwidth %g: a roofline chart", bw[k]);
        if (svg) {
            const char *bad = first_non_finite(svg);
            CHECK(bad == NULL, "bandwidth %g: '%.60s'", bw[k], bad ? bad - 20 : "");
            size_t lines = 0;
            for (const char *p = svg; (p = strstr(p, "<line ")) && p < strstr(svg, "</svg>"); p++)
                lines++;
            CHECK(lines <= 2 * 25, "bandwidth %g: %zu grid lines", bw[k], lines);
        }
        CHECK(strlen(html) < 1000000, "bandwidth %g: %zu bytes", bw[k], strlen(html));
        free(html);
    }
    close_report(&fx);
}

/* The report's own path (cli/cmd_report.c one_trace): the trace read with its operator events, the operator model,
 * the section, then each step's MFU from its own ops. fx->r gets the section; *t the events (ps_op_trace_free),
 * *perf the model (ps_op_perf_fini). 0 when all went. */
static int report_with_steps(const char *path, struct fixture *fx, struct ps_op_trace **t, struct ps_op_perf *perf)
{
    char err[512] = "";
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    memset(perf, 0, sizeof *perf);
    *t = NULL;
    fx->ok = ps_read_trace_with(path, &(struct ps_read_opts){ .op_events = 1 }, &fx->m, err, sizeof err) == 0 &&
             ps_ranks_report_compute(&fx->r, fx->m, &o, err, sizeof err) == 0;
    CHECK(fx->ok, "%s", err);
    if (!fx->ok)
        return 1;
    *t = ps_model_take_op_events(fx->m);
    CHECK(*t != NULL, "operator events");
    fx->ok = *t && ps_op_perf_compute(*t, perf) == 0 && ps_op_efficiency_compute(&fx->r, perf, NULL) == 0 &&
             fx->r.opeff;
    CHECK(fx->ok, "operator model and section");
    return !fx->ok;
}

/* Each step's MFU is the operator model of the ops its host range holds: the report builds TraceLens' call tree
 * once for all the steps (it used to build one per step over every event of the trace: a report's time grew with
 * the square of the step count, docs/op-perf-roofline.md). The generated trace's two steps, with the hand values of
 * gen_roofline_trace.py's docstring: step 1 138,911.414 ns ideal / 420 us = 33.0741 %, step 2 (138,911.414 +
 * 32,107.742) / 420 us = 40.7188 %, unmodeled 100 us each. */
static void per_step_mfu_builds_the_operator_tree_once(void)
{
    struct fixture fx = { 0 };
    struct ps_op_trace *t;
    struct ps_op_perf perf;
    if (report_with_steps(trace_path, &fx, &t, &perf) == 0) {
        size_t before = ps_op_perf_tree_builds();
        CHECK_EQ(ps_op_efficiency_steps_compute(&fx.r, t), 0);
        CHECK_EQ("trees built for the 2 steps", (int64_t)(ps_op_perf_tree_builds() - before), 1);
        const struct ps_op_efficiency *e = fx.r.opeff;
        CHECK(e->per_step && e->roof.nsteps == 2, "two steps of their own");
        if (e->per_step && e->roof.nsteps == 2) {
            CHECK_NEAR("step 1 MFU", e->roof.steps[0].mfu, 0.330741463, 1e-8);
            CHECK_NEAR("step 2 MFU", e->roof.steps[1].mfu, 0.407188468, 1e-8);
            CHECK_EQ("step 1 unmodeled", e->roof.steps[0].unmodeled_kernel_ns, 100000);
            CHECK_EQ("step 2 unmodeled", e->roof.steps[1].unmodeled_kernel_ns, 100000);
            CHECK_NEAR("MFU", e->roof.mfu, 0.368965, 1e-6);
        }
    }
    ps_op_perf_fini(&perf);
    ps_op_trace_free(t);
    close_report(&fx);
}

/* An op that starts in a step and launches its kernel after the step's host range has ended (an op straddling the
 * ProfilerStep's end, as a thread other than the step's may run one) keeps that kernel in the step it started in:
 * each op counts with its whole subtree's GPU work, as in the model of the whole trace. Written here: an H100,
 * two steps [1000, 1200) and [2000, 2200) us on thread 1; in step 1 a bf16 aten::mm [1024 x 1024] x [1024 x 1024]
 * at 1010 us (kernel 20 us at 1050) and on thread 2 an aten::_softmax (no model) from 1190 to 1260 us whose launch
 * at 1230 us (after the step's end) runs a 30 us kernel at 1240; in step 2 the same mm. By hand: step 1's ops
 * without a model took 30,000 ns of GPU time, step 2's none (it used to lose the kernel: step 1's share of the
 * trace had the op without its launch, step 2's the launch without its op). */
static void an_op_keeps_its_kernel_launched_after_its_step_ends(void)
{
    char path[] = "/tmp/perfscope-steps-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL, "a temporary trace");
    if (!f)
        return;
    const char *mm = "\"Input Dims\": [[1024, 1024], [1024, 1024]], \"Input type\": [\"c10::BFloat16\", "
                     "\"c10::BFloat16\"], \"Input Strides\": [[1024, 1], [1024, 1]], \"Concrete Inputs\": [\"\", \"\"]";
    fprintf(f, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n"
               "\"traceEvents\": [\n");
    int corr = 100;
    for (int s = 0; s < 2; s++) {
        int t0 = 1000 + 1000 * s;
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %d, \"dur\": 200},\n", s ? ",\n" : "", s + 1, t0);
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %d, \"dur\": 10, \"args\": {%s}},\n", t0 + 10, mm);
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %d, \"dur\": 4, \"args\": {\"correlation\": %d}},\n", t0 + 12, corr);
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_bf16bf16_bf16f32\", "
                   "\"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, "
                   "\"correlation\": %d}},\n", t0 + 50, corr);
        fprintf(f, "{\"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %d, \"cat\": \"ac2g\", "
                   "\"name\": \"ac2g\"},\n", corr, t0 + 12);
        fprintf(f, "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %d, \"cat\": \"ac2g\", "
                   "\"name\": \"ac2g\", \"bp\": \"e\"}", corr, t0 + 50);
        corr++;
    }
    fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::_softmax\", \"pid\": 1, \"tid\": 2, "
               "\"ts\": 1190, \"dur\": 70, \"args\": {\"Input Dims\": [[1024, 1024], [], []], \"Input type\": "
               "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]}},\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2, "
               "\"ts\": 1230, \"dur\": 4, \"args\": {\"correlation\": 200}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"cunn_SoftMaxForward\", \"pid\": 0, \"tid\": 7, "
               "\"ts\": 1240, \"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 200}},\n"
               "{\"ph\": \"s\", \"id\": 200, \"pid\": 1, \"tid\": 2, \"ts\": 1230, \"cat\": \"ac2g\", "
               "\"name\": \"ac2g\"},\n"
               "{\"ph\": \"f\", \"id\": 200, \"pid\": 0, \"tid\": 7, \"ts\": 1240, \"cat\": \"ac2g\", "
               "\"name\": \"ac2g\", \"bp\": \"e\"}\n]}\n");
    int written = fclose(f) == 0;
    CHECK(written, "the trace written");
    struct fixture fx = { 0 };
    struct ps_op_trace *t = NULL;
    struct ps_op_perf perf = { 0 };
    if (written && report_with_steps(path, &fx, &t, &perf) == 0) {
        CHECK_EQ(ps_op_efficiency_steps_compute(&fx.r, t), 0);
        const struct ps_op_efficiency *e = fx.r.opeff;
        CHECK(e->per_step && e->roof.nsteps == 2, "two steps of their own");
        if (e->per_step && e->roof.nsteps == 2) {
            CHECK_EQ("step 1: the softmax kernel", e->roof.steps[0].unmodeled_kernel_ns, 30000);
            CHECK_EQ("step 2: no op without a model", e->roof.steps[1].unmodeled_kernel_ns, 0);
            CHECK_NEAR("the same mm in both steps", e->roof.steps[0].ideal_ns, e->roof.steps[1].ideal_ns, 1e-9);
            CHECK(e->roof.steps[0].ideal_ns > 0, "the mm is modeled");
        }
    }
    ps_op_perf_fini(&perf);
    ps_op_trace_free(t);
    close_report(&fx);
    unlink(path);
}

static const struct test_case cases[] = {
    { "mfu_and_rows_of_the_generated_trace", .fn = mfu_and_rows_of_the_generated_trace },
    { "findings_name_shapes_and_fused_attention", .fn = findings_name_shapes_and_fused_attention },
    { "every_format_shows_the_section", .fn = every_format_shows_the_section },
    { "trace_without_shapes_adds_no_section", .fn = trace_without_shapes_adds_no_section },
    { "html_roofline_is_bounded_and_finite_whatever_the_peaks",
      .fn = html_roofline_is_bounded_and_finite_whatever_the_peaks },
    { "per_step_mfu_builds_the_operator_tree_once", .fn = per_step_mfu_builds_the_operator_tree_once },
    { "an_op_keeps_its_kernel_launched_after_its_step_ends", .fn = an_op_keeps_its_kernel_launched_after_its_step_ends },
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_op_efficiency CASE TRACE\n");
        return 2;
    }
    trace_path = argv[2];
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
