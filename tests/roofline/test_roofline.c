/* Rooflines and MFU (analyses/roofline.h) on hand-built calls whose figures are worked out below, on an H100 SXM
 * (vendor dense peaks, docs/gpu-peaks.md: matrix bf16 989.4, matrix fp32 66.9 (CUDA cores), vector bf16 133.8
 * TFLOPS; 3350 GB/s). 1 TFLOPS = 1e3 FLOPs per ns; 1 GB/s = 1 byte per ns.
 *
 *   aten::mm bf16 [4096,4096]x[4096,4096]: F = 2*4096^3 = 137,438,953,472; B = 3*4096^2*2 = 100,663,296
 *     compute = F / 989.4e3 = 138,911.414 ns, memory = B / 3350 = 30,048.745 ns -> compute-bound, roof 138,911.414
 *     kernel 200 us per call, 3 calls (one before the first step): 600 us; roofline 416,734.243 ns = 69.456 %;
 *     recoverable 183,265.757 ns; achieved 3F / 600 us = 687.195 TFLOPS/s; F/B = 1365.33 FLOPs/byte
 *   aten::addmm fp32 M=512 K=2048 N=1024 with bias (TraceLens' GEMM model: 2MNK + MN FLOPs, bias N elements):
 *     F = 2*512*1024*2048 + 512*1024 = 2,148,007,936; B = (512*2048 + 2048*1024 + 512*1024 + 1024) * 4 =
 *     14,684,160; compute = F / 66.9e3 = 32,107.742 ns, memory 4,383.331 ns; kernel 64.2 us: 50.012 %,
 *     recoverable 32,092.258 ns
 *   aten::add bf16 [4096,4096] + [4096,4096]: F = 4096^2 = 16,777,216, B = 100,663,296: compute 125.390 ns
 *     (vector bf16), memory 30,048.745 ns -> memory-bound; kernel 60 us: 50.081 %, recoverable 29,951.255 ns
 *   aten::_softmax: no model, 100 us of kernels in each step
 * Steps [1 ms, 2 ms) and [2 ms, 3 ms):
 *   step 1: mm, add, softmax -> MFU = 138,911.414 / 1e6 = 13.8911 %; unmodeled 100 us = 10 %
 *   step 2: mm, addmm, softmax -> MFU = (138,911.414 + 32,107.742) / 1e6 = 17.1019 %
 *   mean: (2 * 138,911.414 + 32,107.742) / 2e6 = 15.4965 %; matrix FLOPs 2F + F(addmm) = 277,025,914,880 */
#include <math.h>
#include <string.h>

#include "../cases.h"
#include "../check.h"
#include "analyses/roofline.h"

#define US 1000

static const struct ps_roof_group groups[] = {
    { "aten::mm", "[[4096,4096],[4096,4096]] bf16", "GEMM", 1, PS_PREC_BF16, 1, 0 },
    { "aten::addmm", "[[1024],[512,2048],[2048,1024]] fp32", "GEMM", 1, PS_PREC_FP32, 1, 1 },
    { "aten::add", "[[4096,4096],[4096,4096]] bf16", "elementwise", 0, PS_PREC_BF16, 1, 2 },
    { "aten::_softmax", "", "", 0, PS_PREC_BF16, 0, -1 },
};
#define F_MM 137438953472.0
#define B_MM 100663296.0
#define F_ADDMM 2148007936.0
#define B_ADDMM 14684160.0
#define F_ADD 16777216.0
static const struct ps_roof_call calls[] = {
    { 0, 500 * US, 1, F_MM, B_MM, 200 * US },          /* before the first step: in the rows, not in an MFU */
    { 0, 1010 * US, 1, F_MM, B_MM, 200 * US },
    { 2, 1300 * US, 1, F_ADD, B_MM, 60 * US },
    { 3, 1400 * US, 1, NAN, NAN, 100 * US },
    { 0, 2010 * US, 1, F_MM, B_MM, 200 * US },
    { 1, 2300 * US, 1, F_ADDMM, B_ADDMM, 64200 },
    { 3, 2400 * US, 1, NAN, NAN, 100 * US },
};
static const int64_t starts[] = { 1000 * US, 2000 * US }, ends[] = { 2000 * US, 3000 * US };

static const struct ps_gpu_peak *h100(void)
{
    return ps_gpu_peak_match(NULL, "NVIDIA H100 80GB HBM3", -1, -1, -1, -1, NULL);
}

static void roofline_per_group_by_hand(void)
{
    struct ps_roofline r;
    CHECK_EQ(ps_roofline_compute(&r, h100(), groups, 4, calls, 7, starts, ends, 2), 0);
    CHECK_EQ("modeled groups", r.nrows, 3);
    if (r.nrows == 3) {
        const struct ps_roof_row *mm = &r.rows[0], *addmm = &r.rows[1], *add = &r.rows[2];
        CHECK_STR("most recoverable first", mm->g.name, "aten::mm");
        CHECK_STR(addmm->g.name, "aten::addmm");
        CHECK_STR(add->g.name, "aten::add");
        CHECK_EQ(mm->calls, 3);
        CHECK_EQ(mm->kernel_ns, 600 * US);
        CHECK_NEAR("mm roofline", mm->roofline_ns, 416734.243, 1e-3);
        CHECK_NEAR("mm % of roofline", mm->pct_of_roofline, 69.4557, 1e-4);
        CHECK_NEAR("mm recoverable", mm->recoverable_ns, 183265.757, 1e-3);
        CHECK_NEAR("mm TFLOPS/s", mm->tflops_s, 687.195, 1e-3);
        CHECK_NEAR("mm FLOPs/byte", mm->flops_per_byte, 1365.333, 1e-3);
        CHECK_STR(ps_roof_bound_name[mm->bound], "compute");
        CHECK_NEAR("addmm fp32 on CUDA cores", addmm->pct_of_roofline, 50.012, 1e-3);
        CHECK_NEAR(addmm->recoverable_ns, 32092.258, 1e-3);
        CHECK_NEAR("add memory time", add->memory_ns, 30048.745, 1e-3);
        CHECK_NEAR(add->pct_of_roofline, 50.081, 1e-3);
        CHECK_STR(ps_roof_bound_name[add->bound], "memory");
    }
    ps_roofline_fini(&r);
}

static void mfu_per_step_by_hand(void)
{
    struct ps_roofline r;
    CHECK_EQ(ps_roofline_compute(&r, h100(), groups, 4, calls, 7, starts, ends, 2), 0);
    CHECK_EQ(r.nsteps, 2);
    if (r.nsteps == 2) {
        CHECK_NEAR("step 1 MFU", r.steps[0].mfu, 0.138911, 1e-6);
        CHECK_NEAR("step 2 MFU", r.steps[1].mfu, 0.171019, 1e-6);
        CHECK_NEAR("step 1 unmodeled", r.steps[0].unmodeled_share, 0.10, 1e-12);
        CHECK_EQ(r.steps[1].modeled_kernel_ns, 264200);
    }
    CHECK_NEAR("mean MFU", r.mfu, 0.154965, 1e-6);
    CHECK_NEAR("matrix FLOPs", r.matrix_flops, 2 * F_MM + F_ADDMM, 0);
    CHECK_NEAR("unmodeled share", r.unmodeled_share, 0.10, 1e-12);
    CHECK_EQ(r.nunmodeled, 1);
    CHECK_STR(r.unmodeled[0].name, "aten::_softmax");
    CHECK_EQ(r.unmodeled[0].kernel_ns, 200 * US);
    CHECK_EQ(r.modeled_kernel_ns, 724200);
    ps_roofline_fini(&r);
}

static void unknown_gpu_has_no_roofline_but_unmodeled_time(void)
{
    struct ps_roofline r;
    CHECK_EQ(ps_roofline_compute(&r, NULL, groups, 4, calls, 7, starts, ends, 2), 0);
    CHECK(isnan(r.mfu));
    CHECK(r.nrows == 3 && isnan(r.rows[0].pct_of_roofline) && r.rows[0].bound == PS_BOUND_UNKNOWN);
    CHECK(r.nrows == 3 && fabs(r.rows[0].tflops_s - 687.195) < 1e-3, "achieved rate needs no peak");
    CHECK_NEAR(r.unmodeled_share, 0.10, 1e-12);
    ps_roofline_fini(&r);
    /* a bf16 GEMM on a GPU without a bf16 matrix peak (V100): NAN, never a rate against another precision */
    const struct ps_gpu_peak *v100 = ps_gpu_peak_match(NULL, "Tesla V100-SXM2-32GB", -1, -1, -1, -1, NULL);
    CHECK_EQ(ps_roofline_compute(&r, v100, groups, 4, calls, 7, starts, ends, 2), 0);
    const struct ps_roof_row *mm = NULL;
    for (size_t i = 0; i < r.nrows; i++)
        if (!strcmp(r.rows[i].g.name, "aten::mm"))
            mm = &r.rows[i];
    CHECK(mm && isnan(mm->roofline_ns) && isnan(mm->peak_tflops));
    CHECK_STR("no figure sorts last", r.nrows == 3 ? r.rows[2].g.name : "", "aten::mm");
    CHECK_NEAR("no bf16 peak: MFU counts only the fp32 GEMM", r.steps[1].mfu, F_ADDMM / 15.7e3 / 1e6, 1e-9);
    ps_roofline_fini(&r);
    struct ps_roof_call bad = { 9, 0, 1, 1, 1, 1 };
    CHECK_EQ("group out of range", ps_roofline_compute(&r, NULL, groups, 4, &bad, 1, NULL, NULL, 0), -22);
}

/* The operator model's aggregate rows (no call times): the same groups as above, minus the call before the first
 * step, given as one entry per group with its call count. Rows equal the per-call ones over the same calls, and
 * the MFU over the two steps is the mean above: (2 * 138,911.414 + 32,107.742) / 2e6 = 15.4965 %. */
static void aggregate_rows_give_the_same_figures(void)
{
    const struct ps_roof_call agg[] = {
        { 0, PS_ROOF_NO_TIME, 2, F_MM, B_MM, 400 * US },
        { 1, PS_ROOF_NO_TIME, 1, F_ADDMM, B_ADDMM, 64200 },
        { 2, PS_ROOF_NO_TIME, 1, F_ADD, B_MM, 60 * US },
        { 3, PS_ROOF_NO_TIME, 2, NAN, NAN, 200 * US },
    };
    struct ps_roofline r;
    CHECK_EQ(ps_roofline_compute(&r, h100(), groups, 4, agg, 4, starts, ends, 2), 0);
    CHECK_NEAR("MFU over the steps", r.mfu, 0.154965, 1e-6);
    CHECK_EQ(r.untimed_calls, 6);
    CHECK(r.nsteps == 2 && r.steps[0].ideal_ns == 0, "no call placed in a step");
    CHECK(r.nrows == 3 && r.rows[0].calls == 2 && fabs(r.rows[0].roofline_ns - 2 * 138911.414) < 1e-3);
    CHECK_NEAR("unmodeled over the steps", r.unmodeled_share, 0.10, 1e-12);
    CHECK_EQ(r.nunmodeled, 1);
    ps_roofline_fini(&r);
}

static const struct test_case cases[] = {
    { "aggregate_rows_give_the_same_figures", .fn = aggregate_rows_give_the_same_figures },
    { "roofline_per_group_by_hand", .fn = roofline_per_group_by_hand },
    { "mfu_per_step_by_hand", .fn = mfu_per_step_by_hand },
    { "unknown_gpu_has_no_roofline_but_unmodeled_time", .fn = unknown_gpu_has_no_roofline_but_unmodeled_time },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .all_when_none = 1 };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
