/* Per-process breakdowns (ranks.c) on models with GPU work: each process is analysed on a view holding only
 * its rows (P processes must not cost P whole-trace passes). The expected values are worked out
 * by hand beside each case (µs), from the rules in docs/report.md: a step window runs from the host range's start to
 * the later of its end and the end of the GPU work its runtime calls launched. Usage: test_ranks_views CASE. */
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

static void add_step(uint32_t thread, int64_t s, int64_t e)
{
    struct ps_range g = { .start_ns = US(s), .end_ns = US(e), .name = ps_model_intern_cstr(m, "step"),
                          .thread = thread, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

/* A cudaLaunchKernel call [s, s+2) with correlation `corr` on `thread`, and its kernel [ks, ke) on `stream`. */
static void launch(uint32_t thread, int64_t s, uint64_t corr, uint32_t stream, int64_t ks, int64_t ke)
{
    struct ps_api_call c = { .start_ns = US(s), .end_ns = US(s + 2), .correlation = corr,
                             .name = ps_model_intern_cstr(m, "cudaLaunchKernel"), .thread = thread };
    struct ps_gpu_op op = { .start_ns = US(ks), .end_ns = US(ke), .correlation = corr,
                            .name = ps_model_intern_cstr(m, "gemm"), .stream = stream, .kind = PS_GPU_KERNEL };
    if (ps_model_add_api(m, &c) < 0 || ps_model_add_gpu(m, &op) < 0)
        abort();
}

static void check_rank(const struct ps_report *r, size_t i, uint32_t pid, int64_t dur, int64_t kernel,
                       int64_t runtime, int64_t other)
{
    char what[64];
    if (i >= r->nranks)
        return;
    const struct ps_rank_stat *k = &r->ranks[i];
    snprintf(what, sizeof what, "rank %zu pid", i);
    CHECK_EQ(what, k->pid, pid);
    snprintf(what, sizeof what, "rank %zu average step", i);
    CHECK_EQ(what, k->avg_dur_ns, US(dur));
    snprintf(what, sizeof what, "rank %zu kernel", i);
    CHECK_EQ(what, k->cat_ns[PS_CAT_KERNEL], US(kernel));
    snprintf(what, sizeof what, "rank %zu runtime", i);
    CHECK_EQ(what, k->cat_ns[PS_CAT_RUNTIME], US(runtime));
    snprintf(what, sizeof what, "rank %zu other", i);
    CHECK_EQ(what, k->cat_ns[PS_CAT_OTHER], US(other));
}

static void build(struct ps_report *r)
{
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(r, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "build failed: %s\n", err);
        exit(1);
    }
}

/* Per-process correlation ids (perfscope, nsys): both processes use correlation 1, on their own streams.
 *   pid 10: step [0,100), launch [10,12) -> kernel [20,60): window [0,100); Kernel 40, Runtime 2, Other 58.
 *   pid 20: step [0,100), launch [10,12) -> kernel [30,130): window [0,130); Kernel 100, Runtime 2, Other 28.
 *   pid 30 (no steps): launch [0,2) -> kernel [0,200) on its stream: in neither rank. */
static void ranks_see_only_their_streams(void)
{
    uint32_t t10 = ps_model_thread(m, 10, 10), t20 = ps_model_thread(m, 20, 20), t30 = ps_model_thread(m, 30, 30);
    uint32_t s10 = ps_model_stream(m, 10, 0, 7), s20 = ps_model_stream(m, 20, 0, 7), s30 = ps_model_stream(m, 30, 1, 7);
    add_step(t10, 0, 100);
    add_step(t20, 0, 100);
    launch(t10, 10, 1, s10, 20, 60);
    launch(t20, 10, 1, s20, 30, 130);
    launch(t30, 0, 1, s30, 0, 200);
    struct ps_report r;
    build(&r);
    CHECK_EQ("ranks", r.nranks, 2);
    check_rank(&r, 0, 10, 100, 40, 2, 58);
    check_rank(&r, 1, 20, 130, 100, 2, 28);
    ps_report_fini(&r);
}

/* File-global correlation ids (Kineto): every GPU op is in every process's scope (ps_report_gpu_in_scope), only
 * the host rows are the process's own; streams belong to "process" 0.
 *   pid 10: step [0,100), launch [10,12) corr 1 -> k1 [20,60): window [0,100);
 *           Kernel |[20,60) ∪ [30,100)| = 80 (k2 runs inside the window too), Runtime 2, Other 18.
 *   pid 20: step [0,100), launch [10,12) corr 2 -> k2 [30,130): window [0,130);
 *           Kernel |[20,60) ∪ [30,130)| = 110, Runtime 2, Other 18. */
static void kineto_ranks_share_gpu_ops(void)
{
    m->correlation_global = 1;
    uint32_t t10 = ps_model_thread(m, 10, 10), t20 = ps_model_thread(m, 20, 20);
    uint32_t s7 = ps_model_stream(m, 0, 0, 7), s8 = ps_model_stream(m, 0, 0, 8);
    add_step(t10, 0, 100);
    add_step(t20, 0, 100);
    launch(t10, 10, 1, s7, 20, 60);
    launch(t20, 10, 2, s8, 30, 130);
    struct ps_report r;
    build(&r);
    CHECK_EQ("ranks", r.nranks, 2);
    check_rank(&r, 0, 10, 100, 80, 2, 18);
    check_rank(&r, 1, 20, 130, 110, 2, 18);
    ps_report_fini(&r);
}

static int new_model(void)
{
    m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    return m ? 0 : 1;
}

static void free_model(void)
{
    ps_model_free(m);
    m = NULL;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "ranks_see_only_their_streams", .fn = ranks_see_only_their_streams },
        { "kineto_ranks_share_gpu_ops", .fn = kineto_ranks_share_gpu_ops },
    };
    static const struct case_hooks hooks = { .setup = new_model, .teardown = free_model };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
