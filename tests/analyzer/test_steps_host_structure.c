/* Steps inferred without markers when the model repeats identical layers: the kernel sequence is periodic at one
 * layer, and the host's structure (its idle gap before each iteration) decides the step. Generated traces with known
 * ground truth. `test_steps_host_structure CASE`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "cases.h"
#include "check.h"

#define US(x) ((int64_t)(x) * 1000)

static struct ps_model *m;
static struct ps_report rep;

/* 40 iterations; each: the host idles 2 ms (data loading), then launches 15 kernels: the 5-kernel layer sequence
 * L0..L4 three times (a model of 3 identical layers). Each launch call takes 10 µs, 5 µs apart; each kernel runs 20
 * µs from the end of its launch. Names repeat every 5 operations (120 "steps" by names alone); the 2 ms gap comes
 * once every 15: 40 iterations. Inference sees whole periods between repeated boundaries: 40 periods, of which
 * the last lacks the next boundary, and the first may start before the steady part: at least 38, never 120. */
static int repeated_layers_give_one_step_per_iteration(void)
{
    m = ps_model_new("generated", PS_FORMAT_PERFSCOPE);
    uint32_t t = ps_model_thread(m, 100, 100), s = ps_model_stream(m, 100, 0, 7);
    if (ps_model_device(m, 0) == PS_NONE || ps_model_process(m, 100) == PS_NONE)
        abort();
    int64_t now = 0;
    uint64_t corr = 1;
    for (int it = 0; it < 40; it++) {
        now += US(2000);
        for (int k = 0; k < 15; k++, corr++) {
            char name[16];
            snprintf(name, sizeof name, "L%d", k % 5);
            struct ps_api_call a = { .start_ns = now, .end_ns = now + US(10), .correlation = corr,
                                     .name = ps_model_intern_cstr(m, "cudaLaunchKernel_v7000"), .thread = t };
            struct ps_gpu_op g = { .start_ns = now + US(10), .end_ns = now + US(30), .correlation = corr,
                                   .name = ps_model_intern_cstr(m, name), .stream = s, .kind = PS_GPU_KERNEL };
            if (ps_model_add_api(m, &a) < 0 || ps_model_add_gpu(m, &g) < 0)
                abort();
            now += US(15);
        }
    }
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "build failed: %s\n", err);
        return 1;
    }
    CHECK_EQ("inferred", rep.steps_inferred, 1);
    CHECK_EQ("period", rep.infer_period_ops, 15);
    CHECK(rep.nsteps >= 38 && rep.nsteps <= 40, "steps: %zu (one per iteration, not per layer)", rep.nsteps);
    CHECK_CONTAINS(rep.steps_note, "3 repeats of a 5-operation sequence: the host's idle gap comes once per period");
    ps_report_fini(&rep);
    ps_model_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "repeated_layers_give_one_step_per_iteration", .fn_status = repeated_layers_give_one_step_per_iteration },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
