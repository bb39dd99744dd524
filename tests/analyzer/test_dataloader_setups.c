/* The PyTorch section on DataLoader setups that used to get wrong advice (analyses/pytorch.c, docs/python.md):
 * workers linked whatever the start method, worker start-up as its own cause, an oversubscribed machine, and
 * warm-up steps. Hand-built models of the hook's marks; expected values worked out by hand beside each case
 * (times in µs; the model holds ns). Run as `test_dataloader_setups CASE`. */
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
static uint32_t perfscope_domain;

static void range(uint32_t thread, const char *name, int64_t s, int64_t e)
{
    struct ps_range g = { .start_ns = US(s), .end_ns = US(e), .name = ps_model_intern_cstr(m, name), .thread = thread,
                          .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

static void mark(uint32_t thread, const char *text, int64_t t)
{
    struct ps_range g = { .start_ns = US(t), .end_ns = US(t), .name = ps_model_intern_cstr(m, text), .thread = thread,
                          .domain = perfscope_domain, .kind = PS_RANGE_NVTX_MARK };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

static void build_skip(int skip)
{
    char err[256];
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    o.skip_steps = skip;
    if (ps_model_finish(m) < 0 || ps_ranks_report_compute(&rep, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "build failed: %s\n", err);
        exit(1);
    }
}

static void start(void)
{
    m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    perfscope_domain = ps_model_intern_cstr(m, "perfscope");
}

static void parent(uint32_t pid, uint32_t ppid)
{
    uint32_t p = ps_model_process(m, pid);
    if (p == PS_NONE)
        abort();
    m->procs.v[p].ppid = ppid;
}

#define NEXT "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
#define ITER "enumerate(DataLoader)#DataLoader.__iter__"

/* forkserver, two iterators of DataLoader#1 (persistent_workers=0, 2 workers each), training process 100. The
 * fork server 150 (parent 100) forks the workers 201, 202 (iterator 1, base_seed=111) and 203, 204 (iterator 2,
 * base_seed=222): their parent is the fork server, their marks name training_pid=100 and no loader. Worker 301
 * (training_pid=300, another rank's) is left out. Three steps of 100 µs:
 *   iter 1: __iter__ [0,10) (mark at 5), first fetch [10,60): start-up 10 + 50;
 *           fetch [100,110) steady; its last fetch [150,160) (iterator 2 follows: the workers exit): start-up 10
 *   iter 2: __iter__ [200,220) (mark at 210), first fetch [220,260): start-up 20 + 40; fetch [280,282) steady
 * start-up 10 + 50 + 10 + 20 + 40 = 130 µs (43.3 % of 300), steady 10 + 2 = 12 µs (4 %: under the 5 % for
 * per-sample advice). DataLoader category: 142 of 300 µs (47.3 %): verdict data-loading, whose first fix is the
 * start-up advice: persistent_workers=True, and a lighter import (forkserver workers import torch again). */
static void two_forkserver_iterators(void)
{
    start();
    uint32_t t = ps_model_thread(m, 100, 100), fs = ps_model_thread(m, 150, 150);
    uint32_t w[5] = { ps_model_thread(m, 201, 201), ps_model_thread(m, 202, 202), ps_model_thread(m, 203, 203),
                      ps_model_thread(m, 204, 204), ps_model_thread(m, 301, 301) };
    parent(150, 100);
    for (int i = 0; i < 4; i++)
        parent(201 + (uint32_t)i, 150);
    parent(301, 300);
    mark(t, "python hook mode=default torch=2.4.0 cores=8 intra_op_threads=4 pid=100", 0);
    mark(fs, "python hook mode=default torch=2.4.0 cores=8 pid=150 ppid=100", 1);
    for (int k = 0; k < 2; k++) {
        char text[400];
        snprintf(text, sizeof text, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=2 pin_memory=0 "
                 "prefetch_factor=2 persistent_workers=0 batch_size=8 cores=8 iterator_id=%d intra_op_threads=4 "
                 "start_method=forkserver base_seed=%d", k + 1, k ? 222 : 111);
        mark(t, text, k ? 210 : 5);
        for (int i = 0; i < 2; i++) {
            snprintf(text, sizeof text, "DataLoader worker id=%d num_workers=2 base_seed=%d training_pid=100 "
                     "start_method=forkserver", i, k ? 222 : 111);
            mark(w[2 * k + i], text, k ? 230 : 20);
        }
    }
    mark(w[4], "DataLoader worker id=0 num_workers=2 base_seed=111 training_pid=300 start_method=forkserver", 20);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t, name, 100 * i, 100 * (i + 1));
    }
    range(t, ITER, 0, 10);
    range(t, NEXT, 10, 60);
    range(t, NEXT, 100, 110);
    range(t, NEXT, 150, 160);
    range(t, ITER, 200, 220);
    range(t, NEXT, 220, 260);
    range(t, NEXT, 280, 282);
    build_skip(0);
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("workers linked", rep.py->nworkers, 4);
    for (size_t i = 0; i < rep.py->nworkers; i++) {
        CHECK(rep.py->workers[i].pid != 301, "another rank's worker was linked");
        CHECK_EQ("worker's loader (from its iterator's base_seed)", rep.py->workers[i].loader, 1);
    }
    CHECK_STR("start method", rep.py->start_method, "forkserver");
    CHECK_EQ("start-ups", rep.py->startups, 2);
    CHECK_EQ("start-up wait", rep.py->startup_wait_ns, US(130));
    CHECK_EQ("steady wait", rep.py->wait_ns, US(12));
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_DATA);
    CHECK_EQ("oversubscribed", rep.py->oversubscribed, 0);   /* 2 workers + 4 threads on 8 cores */
    CHECK(rep.py->nadvice == 1, "only the start-up advice (steady waits are 4 %%): %zu", rep.py->nadvice);
    CHECK(rep.nrecs >= 1 && !strncmp(rep.recs[0], "Worker start-up: 0.1 ms of waiting for data (43.3 % of the "
                                                   "analysed steps) went to starting and stopping DataLoader#1's "
                                                   "workers (2 times, forkserver): set persistent_workers=True", 178),
          "first fix: %s", rep.nrecs ? rep.recs[0] : "(none)");
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "imports torch and the main module again"));
    CHECK(rep.nrecs >= 1 && !strstr(rep.recs[0], "per-sample"), "per-sample advice for start-up waits");
}

/* Occurrences of `needle` in `hay`. */
static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The start-up advice of two_forkserver_iterators is the verdict's fix: every format says it once, in "What to do"
 * (the PyTorch section's Advice lines leave out what the fix quotes), and JSON keeps it under pytorch.advice. */
static void pytorch_advice_said_once(void)
{
    two_forkserver_iterators();
    static const char advice[] = "imports torch and the main module again";   /* no markup to escape */
    for (int k = 0; k < 3; k++) {
        static const char *const formats[] = { "text", "md", "html" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        struct ps_render_opts o = { .sections = PS_TEXT_ALL };
        CHECK(f && ps_renderer_find(formats[k])->report(f, &rep, &o) == 0, "%s failed", formats[k]);
        if (f)
            fclose(f);
        CHECK_EQ(formats[k], count(buf ? buf : "", advice), 1);
        free(buf);
    }
}

/* fork, persistent workers on a 2-core machine whose training process runs 2 intra-op threads: 2 workers + 2
 * threads > 2 cores, and no host samples say the machine idled. Three steps of 100 µs, each waiting 60 µs for a
 * batch after the first (iterator mark at 0, first fetch [0,10): start-up 10 µs), waits [100,160) and [200,260):
 * steady 120 of 300 µs (40 %). The workers fetch through every wait (busy 1.0: saturated): before, "more workers
 * help"; now the machine is oversubscribed and the fix says so, suggesting fewer training threads. The first step
 * (100 µs) is no outlier against the others (100 µs). */
static void oversubscribed_machine(void)
{
    start();
    uint32_t t = ps_model_thread(m, 100, 100), w0 = ps_model_thread(m, 201, 201), w1 = ps_model_thread(m, 202, 202);
    parent(201, 100);
    parent(202, 100);
    mark(t, "python hook mode=default torch=1.13.0 cores=2 intra_op_threads=2 pid=100", 0);
    mark(t, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=2 pin_memory=0 prefetch_factor=2 "
            "persistent_workers=1 batch_size=4 cores=2 iterator_id=1 intra_op_threads=2 start_method=fork base_seed=5", 0);
    mark(w0, "DataLoader worker id=0 num_workers=2 base_seed=5 training_pid=100 start_method=fork loader=1", 1);
    mark(w1, "DataLoader worker id=1 num_workers=2 base_seed=5 training_pid=100 start_method=fork loader=1", 1);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t, name, 100 * i, 100 * (i + 1));
    }
    range(t, NEXT, 0, 10);
    range(t, NEXT, 100, 160);
    range(t, NEXT, 200, 260);
    range(w0, "_MapDatasetFetcher.fetch", 95, 165);
    range(w1, "_MapDatasetFetcher.fetch", 195, 265);
    range(w0, "_MapDatasetFetcher.fetch", 190, 262);
    range(w1, "_MapDatasetFetcher.fetch", 90, 161);
    build_skip(0);
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("steady wait", rep.py->wait_ns, US(120));
    CHECK_EQ("start-up wait", rep.py->startup_wait_ns, US(10));
    CHECK_EQ("oversubscribed", rep.py->oversubscribed, 1);
    CHECK_EQ("more workers", rep.py->more_workers, 0);
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_DATA);
    CHECK(rep.nrecs >= 1 && !strncmp(rep.recs[0], "The machine is oversubscribed: DataLoader#1's 2 workers (busy "
                                                   "100 % of the waits) and the training process's 2 intra-op threads "
                                                   "share 2 cores", 141),
          "first fix: %s", rep.nrecs ? rep.recs[0] : "(none)");
    CHECK(rep.nrecs >= 1 && !strstr(rep.recs[0], "try num_workers"), "advised more workers on a busy machine");
    CHECK_EQ("first step outlier", rep.warmup.first_outlier, 0);
}

/* Warm-up: four steps of 1000, 100, 120, 110 µs (no data waits). The first is 1000 / median(100, 110, 120) = 110
 * -> 9.1 times: an outlier. --skip-steps 1 leaves it out: 3 steps, average (100 + 120 + 110) / 3 = 110 µs, and the
 * new first (100) against median(120, 110) = 115 is none. --skip-steps 4 would leave nothing: ignored, 4 steps. */
static void build_warmup(int skip)
{
    start();
    uint32_t t = ps_model_thread(m, 100, 100);
    int64_t end[4] = { 1000, 1100, 1220, 1330 };
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t, name, i ? end[i - 1] : 0, end[i]);
    }
    build_skip(skip);
}

static void warmup_steps(void)
{
    build_warmup(0);
    CHECK_EQ("steps", rep.nsteps, 4);
    CHECK_EQ("outlier", rep.warmup.first_outlier, 1);
    CHECK_EQ("first", rep.warmup.first_ns, US(1000));
    CHECK_EQ("median of the others", rep.warmup.median_ns, US(110));
    ps_report_fini(&rep);
    ps_model_free(m);
    build_warmup(1);
    CHECK_EQ("steps", rep.nsteps, 3);
    CHECK_EQ("skipped", rep.warmup.skipped, 1);
    CHECK_EQ("average", rep.avg_dur_ns, US(110));
    CHECK_EQ("outlier", rep.warmup.first_outlier, 0);
    ps_report_fini(&rep);
    ps_model_free(m);
    build_warmup(4);
    CHECK_EQ("steps", rep.nsteps, 4);
    CHECK_EQ("ignored", rep.warmup.skip_ignored, 1);
}

/* No GPU rows: the host computes. Two steps of 100 µs; each loads a batch inside the training loop (num_workers=0):
 * __next__ [0,10) holding _MapDatasetFetcher.fetch [2,8); then `work` [20,95) (the second: [120,195)), and with
 * `model` the hook's backward range inside it [30,90) ([130,190)). Compute = 200 - 20 of data = 180 µs (90 %):
 * verdict kernel (host compute). Its evidence: backward 2 x 60 µs, work 2 x 75 µs; never the fetch (loading). Without
 * backward (a hook without --python-hooks=modules ranges) the fix says how to get forward ranges. */
static void build_host_compute(int model)
{
    start();
    uint32_t t = ps_model_thread(m, 100, 100);
    mark(t, "python hook mode=default torch=1.13.0 cores=2 intra_op_threads=1 pid=100", 0);
    mark(t, "DataLoader#1 iterator=_SingleProcessDataLoaderIter num_workers=0 pin_memory=0 prefetch_factor=None "
            "persistent_workers=0 batch_size=4 cores=2 iterator_id=1", 0);
    for (int i = 0; i < 2; i++) {
        char name[32];
        int64_t o = 100 * i;
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t, name, o, o + 100);
        range(t, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", o, o + 10);
        range(t, "_MapDatasetFetcher.fetch", o + 2, o + 8);
        range(t, "work", o + 20, o + 95);
        if (model)
            range(t, "backward", o + 30, o + 90);
    }
    build_skip(0);
}

static void compute_evidence_is_compute(void)
{
    build_host_compute(1);
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_KERNEL);
    CHECK(rep.nevidence == 2, "evidence rows: %zu", rep.nevidence);
    for (size_t i = 0; i < rep.nevidence; i++)
        CHECK(strcmp(ps_report_name(&rep, rep.evidence[i].name), "_MapDatasetFetcher.fetch") != 0,
              "data loading listed as compute");
    if (rep.nevidence == 2) {
        CHECK_STR("first", ps_report_name(&rep, rep.evidence[0].name), "work");
        CHECK_EQ("work total", rep.evidence[0].total_ns, US(150));
        CHECK_STR("second", ps_report_name(&rep, rep.evidence[1].name), "backward");
    }
    CHECK(rep.nrecs >= 1 && !strstr(rep.recs[0], "--python-hooks=modules"));
    ps_report_fini(&rep);
    ps_model_free(m);
    build_host_compute(0);
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "no forward range: record with --python-hooks=modules"),
          "fix: %s", rep.nrecs ? rep.recs[0] : "(none)");
}

static void free_report_and_model(void)
{
    ps_report_fini(&rep);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "forkserver_workers_link_and_startup_is_its_own_cause", .fn = two_forkserver_iterators },
        { "pytorch_advice_said_once", .fn = pytorch_advice_said_once },
        { "oversubscribed_machine_is_not_told_to_add_workers", .fn = oversubscribed_machine },
        { "warmup_steps_skipped_and_first_step_outlier", .fn = warmup_steps },
        { "compute_evidence_lists_compute_not_loading", .fn = compute_evidence_is_compute },
    };
    static const struct case_hooks hooks = { .teardown = free_report_and_model };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
