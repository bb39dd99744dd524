/* Steps inferred without step markers, on generated traces whose true step boundaries are known:
 * a training loop with a warm-up phase and jittered durations (steps found within 1 % of the true boundaries),
 * traces without a period (inference abstains), step ranges that win over inference unless --steps infer, and a
 * hand-built model with host gaps between iterations and a warm-up (each step starts at its first host activity).
 * `test_steps_infer CASE`; the periodic and aperiodic cases print the measured boundary error and false detections. */
#include <math.h>
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
#define MAX_TRUE 64

static struct ps_model *m;
static uint32_t thread, stream;
static uint64_t corr;
static int64_t truth[MAX_TRUE];   /* true step window starts, ns (docs/report.md / tb: max(the host's start of the step,
                                   * the end of the previous step's GPU work)) */
static int64_t gpu_end;            /* end of the last generated step's GPU work */
static int64_t first_launch;       /* start of the last generated step's first launch: its first host activity */
static size_t ntruth;

static uint64_t rng = 88172645463325252ull;   /* xorshift64: the same traces on every run */
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
static int64_t jitter(int64_t ns, double share) { return (int64_t)((double)ns * (1.0 + share * (2 * uniform() - 1))); }

static void fresh(uint64_t seed)
{
    rng = seed * 2654435761u + 1;
    m = ps_model_new("generated", PS_FORMAT_PERFSCOPE);
    thread = ps_model_thread(m, 100, 100);
    stream = ps_model_stream(m, 100, 0, 7);
    if (!m || thread == PS_NONE || stream == PS_NONE || ps_model_device(m, 0) == PS_NONE ||
        ps_model_process(m, 100) == PS_NONE)
        abort();
    corr = 1;
    ntruth = 0;
}

static void api(const char *name, int64_t s, int64_t e, uint64_t c)
{
    struct ps_api_call a = { .start_ns = s, .end_ns = e, .correlation = c, .name = ps_model_intern_cstr(m, name),
                             .thread = thread };
    if (ps_model_add_api(m, &a) < 0)
        abort();
}

static void op(int kind, const char *name, int64_t s, int64_t e, uint64_t c)
{
    struct ps_gpu_op g = { .start_ns = s, .end_ns = e, .correlation = c, .name = ps_model_intern_cstr(m, name),
                           .stream = stream, .kind = (uint8_t)kind, .bytes = kind == PS_GPU_MEMCPY ? 1 << 20 : 0,
                           .copy_kind = kind == PS_GPU_MEMCPY ? PS_COPY_HTOD : 0, .src_kind = PS_MEM_PINNED,
                           .dst_kind = PS_MEM_DEVICE };
    if (ps_model_add_gpu(m, &g) < 0)
        abort();
}

/* One training step starting at `t` (ns): data loading on the host (no API call, GPU idle), then 36 launches:
 * an H2D copy, forward 3 layers x 5 kernels (the same 5 names per layer: a sub-period of 5 that is not the step),
 * loss 2, backward 3 x 5, optimizer 3; then cudaStreamSynchronize until the GPU is done. A warm-up step inserts 5
 * autotuning kernels after the first layer and runs 3x slower. Returns the next step's start: the end of the sync,
 * or without it (sync 0: the host runs ahead) 20 us +-50 % of host work after the last launch. */
static int64_t step_sync(int64_t t, int warmup, int64_t data_ns, int64_t kernel_ns, int sync)
{
    static const char *const fwd[5] = { "conv_fwd", "bn_fwd", "relu_fwd", "pool_fwd", "add_fwd" };
    static const char *const bwd[5] = { "add_bwd", "pool_bwd", "relu_bwd", "bn_bwd", "conv_bwd" };
    const char *seq[48];
    size_t n = 0;
    seq[n++] = "Memcpy HtoD";
    for (int l = 0; l < 3; l++) {
        for (int k = 0; k < 5; k++)
            seq[n++] = fwd[k];
        if (warmup && l == 0)
            for (int k = 0; k < 5; k++)
                seq[n++] = "cudnn_autotune_probe";
    }
    seq[n++] = "loss_fwd";
    seq[n++] = "loss_bwd";
    for (int l = 0; l < 3; l++)
        for (int k = 0; k < 5; k++)
            seq[n++] = bwd[k];
    seq[n++] = "sgd_mul";
    seq[n++] = "sgd_add";
    seq[n++] = "zero_grad";
    int64_t host = t + jitter(data_ns, 0.2), gpu_free = 0;
    first_launch = host;
    for (size_t i = 0; i < n; i++) {
        int64_t launch_end = host + jitter(US(4), 0.3);
        int copy = i == 0;
        api(copy ? "cudaMemcpyAsync_v3020" : "cudaLaunchKernel_v7000", host, launch_end, corr);
        int64_t s = launch_end + US(5) > gpu_free ? launch_end + US(5) : gpu_free;
        int64_t e = s + jitter(warmup ? 3 * kernel_ns : kernel_ns, 0.3);
        op(copy ? PS_GPU_MEMCPY : PS_GPU_KERNEL, seq[i], s, e, corr++);
        gpu_free = e;
        host = launch_end + jitter(US(2), 0.5);
    }
    gpu_end = gpu_free;
    if (!sync)
        return host + jitter(US(20), 0.5);
    int64_t sync_end = (gpu_free > host ? gpu_free : host) + US(2);
    api("cudaStreamSynchronize_v3020", host, sync_end, 0);
    return sync_end;
}

static int64_t step(int64_t t, int warmup, int64_t data_ns, int64_t kernel_ns)
{
    return step_sync(t, warmup, data_ns, kernel_ns, 1);
}

static void analyse(struct ps_report *r, int mode)
{
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    o.steps_mode = mode;
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(r, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "analysis failed: %s\n", err);
        exit(1);
    }
}

/* 2 warm-up steps + 20 steps, data loading 5 ms +-20 %, kernels 50 us +-30 %, over 10 seeds (5 with a sync at each
 * step's end, 5 where the host runs ahead with 1 us kernels and ~20 us of host work after its last launch). The data
 * loading records nothing on the host (no range, no API call), so a step's first host activity is its first launch
 * (docs/report.md, steps without markers: unrecorded host time stays in the step before, and the sync waits for the
 * previous step's work): its true window start is max(that launch's start, the previous step's GPU end). By hand:
 * the previous GPU work ends before t (with the sync: at its end - 2 us; running ahead: ~6 us after the last launch),
 * and the first launch starts at t + data, 4 to 6 ms later, so the truth is the first launch's start. Every inferred
 * step must start within 1 % of its duration from a true step start, the steady steps must all be found (the
 * warm-up steps differ from the steady period and may be left out), and no two inferred steps may share a true one. */
static void periodic_with_warmup_and_jitter(void)
{
    double worst = 0;
    size_t found = 0, steady = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        fresh(seed);
        int64_t t = US(1000), prev_gpu_end = 0;
        for (int k = 0; k < 22; k++) {
            t = step_sync(t, k < 2, US(5000), seed <= 5 ? US(50) : US(1), seed <= 5);
            truth[ntruth++] = first_launch > prev_gpu_end ? first_launch : prev_gpu_end;
            prev_gpu_end = gpu_end;
        }
        truth[ntruth] = t > prev_gpu_end ? t : prev_gpu_end;
        struct ps_report r;
        analyse(&r, PS_STEPS_AUTO);
        CHECK(r.steps_inferred, "seed %llu: no steps inferred (%s)", (unsigned long long)seed, r.steps_note);
        CHECK_EQ("period (operations)", r.infer_period_ops, 36);
        size_t used = 0;
        for (size_t i = 0; i < r.nsteps && r.steps_inferred; i++) {
            const struct ps_step *s = &r.steps[i];
            size_t best = 0;
            for (size_t k = 1; k < ntruth; k++)   /* the true window start nearest to the inferred one */
                if (llabs(truth[k] - s->start_ns) < llabs(truth[best] - s->start_ns))
                    best = k;
            double err = fabs((double)(s->start_ns - truth[best])) / (double)(truth[best + 1] - truth[best]);
            worst = err > worst ? err : worst;
            CHECK(err <= 0.01, "seed %llu step %zu: start %lld is %.3f %% of a step from the true %lld",
                  (unsigned long long)seed, i, (long long)s->start_ns, 100 * err, (long long)truth[best]);
            CHECK(best >= used, "seed %llu: two inferred steps at one true step", (unsigned long long)seed);
            used = best + 1;
        }
        found += r.steps_inferred ? r.nsteps : 0;
        steady += 20;
        CHECK(r.nsteps >= 20, "seed %llu: %zu steps found, the 20 steady ones expected", (unsigned long long)seed,
              r.nsteps);
        ps_report_fini(&r);
        ps_model_free(m);
    }
    printf("periodic traces: %zu steps found for %zu steady steps (10 seeds); worst boundary error %.4f %% of a step\n",
           found, steady, 100 * worst);
}

/* Traces with no period: 600 kernels whose names are drawn at random from 30, with random durations and gaps, over
 * 20 seeds; and a trace whose only repeat is too short (2 periods). Inference must abstain every time, with a reason. */
static void aperiodic_traces_abstain(void)
{
    int detected = 0;
    static const char *const pool[30] = {
        "k00", "k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09", "k10", "k11", "k12", "k13", "k14",
        "k15", "k16", "k17", "k18", "k19", "k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29" };
    for (uint64_t seed = 1; seed <= 20; seed++) {
        fresh(seed + 1000);
        int64_t host = US(100), gpu_free = 0;
        for (int i = 0; i < 600; i++) {
            int64_t le = host + US(3);
            api("cudaLaunchKernel_v7000", host, le, corr);
            int64_t s = le > gpu_free ? le : gpu_free, e = s + (int64_t)(uniform() * US(200));
            op(PS_GPU_KERNEL, pool[(int)(uniform() * 30) % 30], s, e, corr++);
            gpu_free = e;
            host = le + (int64_t)(uniform() * US(300));
        }
        struct ps_report r;
        analyse(&r, PS_STEPS_AUTO);
        detected += r.steps_inferred;
        CHECK(!r.steps_inferred && r.whole_run, "seed %llu: %zu steps inferred from a trace without a period (%s)",
              (unsigned long long)seed, r.nsteps, r.steps_note);
        CHECK(strstr(r.steps_note, "no steps inferred") != NULL, "seed %llu: no reason given: '%s'",
              (unsigned long long)seed, r.steps_note);
        ps_report_fini(&r);
        ps_model_free(m);
    }
    fresh(7);
    int64_t t = US(1000);
    for (int k = 0; k < 2; k++)
        t = step(t, 0, US(5000), US(50));
    struct ps_report r;
    analyse(&r, PS_STEPS_AUTO);
    CHECK(!r.steps_inferred, "2 periods: %zu steps inferred", r.nsteps);
    ps_report_fini(&r);
    ps_model_free(m);
    printf("aperiodic traces: %d of 20 falsely detected as periodic\n", detected);
}

/* Step ranges win: with NVTX "step" ranges around each generated step, auto uses the ranges; --steps off never
 * infers (whole run without ranges); --steps infer finds steps that start where the ranges do (within 1 %). */
static void markers_win_and_inferred_agree(void)
{
    fresh(3);
    int64_t t = US(1000);
    for (int k = 0; k < 8; k++) {
        int64_t next = step(t, 0, US(5000), US(50));
        struct ps_range g = { .start_ns = t, .end_ns = next, .name = ps_model_intern_cstr(m, "step"), .thread = thread,
                              .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
        if (ps_model_add_range(m, &g) < 0)
            abort();
        truth[ntruth++] = t;
        t = next;
    }
    struct ps_report r;
    analyse(&r, PS_STEPS_AUTO);
    CHECK(!r.steps_inferred && r.nsteps == 8, "auto with ranges: inferred %d, %zu steps", r.steps_inferred, r.nsteps);
    ps_report_fini(&r);
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    o.steps_mode = PS_STEPS_INFER;
    if (ps_ranks_report_compute(&r, m, &o, err, sizeof err) < 0)
        abort();
    CHECK(r.steps_inferred, "--steps infer: %s", r.steps_note);
    CHECK_EQ("inferred steps", r.nsteps, 8);
    for (size_t i = 0; i < r.nsteps && i < ntruth; i++)
        CHECK(fabs((double)(r.steps[i].start_ns - truth[i])) <= 0.01 * (double)(r.steps[i].end_ns - r.steps[i].start_ns),
              "step %zu starts at %lld, the range at %lld", i, (long long)r.steps[i].start_ns, (long long)truth[i]);
    ps_report_fini(&r);
    ps_model_free(m);
    fresh(4);
    t = US(1000);
    for (int k = 0; k < 8; k++)
        t = step(t, 0, US(5000), US(50));
    o.steps_mode = PS_STEPS_OFF;
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&r, m, &o, err, sizeof err) < 0)
        abort();
    CHECK(r.whole_run && !r.steps_inferred && !r.steps_note[0], "--steps off: inferred %d", r.steps_inferred);
    ps_report_fini(&r);
    ps_model_free(m);
}

static void host_range(const char *name, int64_t s, int64_t e)
{
    struct ps_range g = { .start_ns = s, .end_ns = e, .name = ps_model_intern_cstr(m, name), .thread = thread,
                          .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

/* A hand-built model with host gaps (docs/report.md, steps without markers: a step starts at its iteration's first
 * host activity). Six iterations at b = 2000 + 1000 i us, each: an odd one's recorded data loading, NVTX "load" at
 * [b+100, b+300] (an even one records nothing before its launches); the batch's copy launched on stream 9 at
 * [b+350, b+355]; kernels k0..k3 on stream 7 launched at [b+400+20m, b+405+20m], run [b+410+20m, b+425+20m]; k3 in
 * NVTX "optimizer" [b+455, b+520] with a child "opt_tail" [b+500, b+510] after that last launch; then
 * cudaStreamSynchronize [b+530, b+560]. Warm-up: kernels w0, w1 launched at 500 and 600 us, then NVTX "setup"
 * [1000, 1900] (no launch). By hand:
 *   step i's host start is its first activity after the previous iteration's last launch (k3's, b-1000+465): not
 *   "opt_tail" nor the sync (inside the previous "optimizer" range / a call that launches nothing), so an odd step
 *   starts at "load", b+100, an even one at the copy's launch, b+350: 2350, 3100, 4350, 5100, 6350, 7100 us. The
 *   previous step's GPU work ends at b-1000+485, earlier, so the windows start there too.
 *   the first step: the others' host activity before their first launch on stream 7 is 300 us (odd) or 50 us, so it
 *   reaches back at most 2 x 300 = 600 us, to 1800; "setup" runs across 1800 and is warm-up whole; left: the copy's
 *   launch at 2350. Before it: 2350 - 500 = 1850 us of warm-up and the 2 operations w0, w1.
 *   the last step ends at its last launch's end, 7465, and its window at its GPU work's, k3 at 7485.
 * The rule before this one started each step at the end of the last API call before k0's launch (the copy's,
 * b+355): the batch's copy and the odd steps' data loading fell in the step before. */
static void host_gaps_by_hand(void)
{
    fresh(11);
    uint32_t copy_stream = ps_model_stream(m, 100, 0, 9);
    static const char *const k[4] = { "k0", "k1", "k2", "k3" };
    api("cudaLaunchKernel_v7000", US(500), US(505), corr);
    op(PS_GPU_KERNEL, "w0", US(510), US(560), corr++);
    api("cudaLaunchKernel_v7000", US(600), US(605), corr);
    op(PS_GPU_KERNEL, "w1", US(610), US(660), corr++);
    host_range("setup", US(1000), US(1900));
    for (int i = 0; i < 6; i++) {
        int64_t b = 2000 + 1000 * i;
        if (i % 2)
            host_range("load", US(b + 100), US(b + 300));
        api("cudaMemcpyAsync_v3020", US(b + 350), US(b + 355), corr);
        struct ps_gpu_op g = { .start_ns = US(b + 360), .end_ns = US(b + 400), .correlation = corr++,
                               .name = ps_model_intern_cstr(m, "Memcpy HtoD"), .stream = copy_stream,
                               .kind = PS_GPU_MEMCPY, .bytes = 1 << 20, .copy_kind = PS_COPY_HTOD,
                               .src_kind = PS_MEM_PINNED, .dst_kind = PS_MEM_DEVICE };
        if (copy_stream == PS_NONE || ps_model_add_gpu(m, &g) < 0)
            abort();
        for (int j = 0; j < 4; j++) {
            api("cudaLaunchKernel_v7000", US(b + 400 + 20 * j), US(b + 405 + 20 * j), corr);
            op(PS_GPU_KERNEL, k[j], US(b + 410 + 20 * j), US(b + 425 + 20 * j), corr++);
        }
        host_range("optimizer", US(b + 455), US(b + 520));
        host_range("opt_tail", US(b + 500), US(b + 510));
        api("cudaStreamSynchronize_v3020", US(b + 530), US(b + 560), 0);
    }
    struct ps_report r;
    analyse(&r, PS_STEPS_AUTO);
    CHECK(r.steps_inferred, "no steps inferred: %s", r.steps_note);
    CHECK_EQ("period (operations)", r.infer_period_ops, 4);
    CHECK_EQ("steps", r.nsteps, 6);
    static const int64_t want_us[6] = { 2350, 3100, 4350, 5100, 6350, 7100 };
    for (size_t i = 0; i < r.nsteps && i < 6; i++) {
        CHECK_EQ("host start", r.steps[i].host_start_ns, US(want_us[i]));
        CHECK_EQ("window start", r.steps[i].start_ns, US(want_us[i]));
        CHECK_EQ("host end", r.steps[i].host_end_ns, i < 5 ? US(want_us[i + 1]) : US(7465));
    }
    if (r.nsteps == 6)
        CHECK_EQ("last window end", r.steps[5].end_ns, US(7485));
    CHECK_CONTAINS(r.steps_note, "what came before the first step (1.850 ms from the first event, 2 operations of "
                                 "the stream) is warm-up, in no step");
    ps_report_fini(&r);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "periodic_with_warmup_and_jitter", .fn = periodic_with_warmup_and_jitter },
        { "aperiodic_traces_abstain", .fn = aperiodic_traces_abstain },
        { "markers_win_and_inferred_agree", .fn = markers_win_and_inferred_agree },
        { "host_gaps_by_hand", .fn = host_gaps_by_hand },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
