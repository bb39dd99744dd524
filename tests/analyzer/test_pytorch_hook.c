/* The report's PyTorch section (analyses/pytorch.c) on hand-built models of what perfscope's Python hook records:
 * the expected worker figures and advice are worked out by hand in the comment above each case (times in µs; the
 * model holds ns). Run as `test_pytorch_hook CASE`. */
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

static void copy(uint32_t thread, int64_t s, int64_t e, uint16_t category)
{
    struct ps_range g = { .start_ns = US(s), .end_ns = US(e), .name = ps_model_intern_cstr(m, "copy_to_device"),
                          .thread = thread, .domain = PS_NONE, .category = category, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

static void build(void)
{
    char err[256];
    struct ps_report_opts o;
    ps_report_opts_default(&o);
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

static int has_advice(const char *needle)
{
    for (size_t i = 0; rep.py && i < rep.py->nadvice; i++)
        if (strstr(rep.py->advice[i], needle))
            return 1;
    return 0;
}

/* Main process 100 (thread 0), two workers 201, 202 (threads 1, 2); 4 cores. Three steps of 100 µs:
 *   step 1 [0, 100): fetch [0, 40)  — the iterator's first fetch (its mark is at 0): start-up, not in the waits
 *   step 2 [100, 200): fetch [100, 130), step 3 [200, 300): fetch [200, 250)        waits = 30 + 50 = 80 µs
 * Worker 201 fetches [90, 140) and [190, 260): inside the waits 30 (100..130) + 50 (200..250) = 80 → busy 1.0
 * Worker 202 fetches [110, 120) and [230, 235): 10 + 5 = 15 → 15/80 = 0.1875
 * Mean busy = (1 + 0.1875) / 2 = 0.59375: between 0.5 and 0.75, so "unknown" (-1): prefetch advice.
 * DataLoader share of the average step: step 1 has 40, step 2 30, step 3 50 µs of data in 100 → 120/300 = 0.4. */
static void workers_busy_while_waiting(void)
{
    start();
    uint32_t t0 = ps_model_thread(m, 100, 100), t1 = ps_model_thread(m, 201, 201), t2 = ps_model_thread(m, 202, 202);
    mark(t0, "python hook mode=default torch=1.13.0 python=3.11.2 cuda_build=none cores=4 cpu_count=8", 0);
    mark(t0, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=2 pin_memory=0 prefetch_factor=2 "
             "persistent_workers=0 batch_size=16 drop_last=1 dataset=Images multiprocessing_context=default cores=4", 0);
    mark(t1, "DataLoader worker id=0 num_workers=2 loader=1", 50);
    mark(t2, "DataLoader worker id=1 num_workers=2 loader=1", 60);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t0, name, 100 * i, 100 * (i + 1));
    }
    range(t0, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0, 40);
    range(t0, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 100, 130);
    range(t0, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 200, 250);
    range(t1, "_MapDatasetFetcher.fetch", 90, 140);
    range(t1, "Images.__getitem__", 95, 135);      /* nested: the union is the fetch */
    range(t1, "_MapDatasetFetcher.fetch", 190, 260);
    range(t2, "_MapDatasetFetcher.fetch", 110, 120);
    range(t2, "_MapDatasetFetcher.fetch", 230, 235);
    build();
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("loaders", rep.py->nloaders, 1);
    CHECK_EQ("num_workers", rep.py->loaders[0].num_workers, 2);
    CHECK_EQ("pin_memory", rep.py->loaders[0].pin_memory, 0);
    CHECK_EQ("cores", rep.py->cores, 4);
    CHECK_EQ("workers", rep.py->nworkers, 2);
    CHECK_EQ("wait_ns", rep.py->wait_ns, US(80));
    CHECK_EQ("first_fetch_wait_ns", rep.py->first_fetch_wait_ns, US(40));
    CHECK_EQ("worker 0 fetches", rep.py->workers[0].fetches, 2);
    CHECK_EQ("worker 0 fetch_ns", rep.py->workers[0].fetch_ns, US(120));
    CHECK_EQ("worker 0 busy_wait_ns", rep.py->workers[0].busy_wait_ns, US(80));
    CHECK_EQ("worker 1 busy_wait_ns", rep.py->workers[1].busy_wait_ns, US(15));
    CHECK_EQ("worker 1 id", rep.py->workers[1].id, 1);
    CHECK_NEAR("workers_busy", rep.py->workers_busy, 0.59375, 1e-12);
    CHECK_EQ("more_workers", rep.py->more_workers, -1);
    CHECK(has_advice("busy 59 % of the time the step waited for data: close to saturated; raise prefetch_factor"),
          "advice: %s", rep.py->nadvice ? rep.py->advice[0] : "(none)");
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_DATA);   /* compute 60 % < 80 %: the largest cause wins */
    ps_report_fini(&rep);
    ps_model_free(m);
}

/* num_workers=0, 2 cores; two steps of 100 µs, data 60 + 70 = 130 of 200 → share 0.65, verdict data-loading.
 * Suggested workers: ceil(0.65 / 0.35) = ceil(1.857) = 2, + 1 headroom = 3, capped at cores - 1 = 1 → capped.
 * Copies: category 1 (pageable, blocking), 2 (pageable, non_blocking), 4 (pinned, non_blocking):
 * 3 copies, 2 from pageable memory, 1 blocking. */
static void workers0_advice_and_copies(void)
{
    start();
    uint32_t t0 = ps_model_thread(m, 100, 100);
    mark(t0, "python hook mode=default torch=2.4.0 python=3.11.2 cuda_build=12.1 cores=2 cpu_count=2", 0);
    mark(t0, "DataLoader#1 iterator=_SingleProcessDataLoaderIter num_workers=0 pin_memory=0 prefetch_factor=None "
             "persistent_workers=0 batch_size=8 drop_last=0 dataset=Images multiprocessing_context=default cores=2", 0);
    range(t0, "ProfilerStep#1", 0, 100);
    range(t0, "ProfilerStep#2", 100, 200);
    range(t0, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 60);
    range(t0, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 170);
    copy(t0, 60, 61, 1);
    copy(t0, 170, 171, 2);
    copy(t0, 171, 172, 4);
    build();
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_DATA);
    CHECK_EQ("prefetch_factor None", rep.py->loaders[0].prefetch_factor, -1);
    CHECK_EQ("more_workers", rep.py->more_workers, 1);
    CHECK_EQ("suggest_workers", rep.py->suggest_workers, 1);
    CHECK(has_advice("DataLoader#1 has num_workers=0 and 65.0 % of each step waits for data: try num_workers=1 "
                     "(this machine has 2 cores;"), "advice: %s", rep.py->nadvice ? rep.py->advice[0] : "(none)");
    CHECK(has_advice("Loading needs more cores than this machine has (2)"), "no capped advice");
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "has num_workers=0"), "the verdict's first fix is not the hook's: %s",
          rep.nrecs ? rep.recs[0] : "(none)");
    /* The hook's advice is the verdict's fix, with the fix's pointer and gain: the DataLoader time of the average
     * step, (60 + 70) / 2 = 65 µs = 0.065 ms of 100 µs = 65.0 %. */
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "Look at the ranges under Evidence and the PyTorch section. Expected "
                                                "gain: about 0.065 ms per step (65.0 % of the average step)"),
          "the hook's fix has no pointer or gain: %s", rep.nrecs ? rep.recs[0] : "(none)");
    CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "Loading needs more cores"), "the second piece of advice is not in "
          "the fix: %s", rep.nrecs ? rep.recs[0] : "(none)");
    for (size_t i = 0; i < rep.nrecs; i++)
        CHECK(!strstr(rep.recs[i], "use more DataLoader workers (num_workers)"), "generic data fix kept: %s", rep.recs[i]);
    CHECK_EQ("copies", rep.py->copies, 3);
    CHECK_EQ("copies_pageable", rep.py->copies_pageable, 2);
    CHECK_EQ("copies_blocking", rep.py->copies_blocking, 1);
    CHECK(has_advice("2 of 3 host-to-device copies (Tensor.to / .cuda) came from pageable memory and the DataLoader has "
                     "pin_memory=False"), "no pin_memory advice");
    ps_report_fini(&rep);
    ps_model_free(m);
}

/* `perfscope top`'s window (ps_ranks_report_compute_view over ps_view_starting) starts after the hook's marks: the
 * configuration, the DataLoader settings and the workers' start marks come before it, and the window's advice
 * must still be the loader's, not the generic one. Main process 100, workers 201, 202 (marks at 0, 5, 6 µs);
 * steps of 100 µs at 100 i, i = 0..5, each with 60 µs of data wait [100 i, 100 i + 60); the window starts at 250 µs:
 * steps 3, 4, 5 (300..600), share 60 / 100 = 0.6. num_workers=2, 4 cores; the workers fetch nothing in the window:
 * busy 0 (< 0.5): the "more workers would not help" advice of DataLoader#1's 2 workers is the fix. Without the
 * earlier marks: no loader, no workers, the generic fix. */
static void window_after_the_hook_marks_keeps_the_loader_advice(void)
{
    start();
    uint32_t t0 = ps_model_thread(m, 100, 100), t1 = ps_model_thread(m, 201, 201), t2 = ps_model_thread(m, 202, 202);
    mark(t0, "python hook mode=default torch=2.4.0 python=3.11.2 cuda_build=12.1 cores=4 cpu_count=4", 0);
    mark(t0, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=2 pin_memory=1 prefetch_factor=2 "
             "persistent_workers=1 batch_size=8 drop_last=0 dataset=Images multiprocessing_context=default cores=4", 0);
    mark(t1, "DataLoader worker id=0 num_workers=2 loader=1", 5);
    mark(t2, "DataLoader worker id=1 num_workers=2 loader=1", 6);
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(t0, name, 100 * i, 100 * (i + 1));
        range(t0, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 100 * i, 100 * i + 60);
    }
    char err[256];
    struct ps_report_opts o;
    struct ps_view all, window;
    ps_report_opts_default(&o);
    if (ps_model_finish(m) < 0)
        abort();
    ps_view_all(&all, m);
    CHECK(ps_view_starting(&window, &all, US(250), INT64_MAX) == 0);
    CHECK(ps_ranks_report_compute_view(&rep, &window, &o, err, sizeof err) == 0, "%s", err);
    CHECK_EQ("steps in the window", rep.nsteps, 3);
    CHECK(rep.py != NULL, "no pytorch section");
    if (rep.py) {
        CHECK_EQ("loaders (from the mark before the window)", rep.py->nloaders, 1);
        CHECK_EQ("num_workers", rep.py->loaders[0].num_workers, 2);
        CHECK_EQ("cores", rep.py->cores, 4);
        CHECK_EQ("workers (their marks are before the window)", rep.py->nworkers, 2);
        CHECK_EQ("the window's waits (the iterator started before it: none is a first fetch)", rep.py->wait_ns,
                 US(180));
        CHECK(rep.nrecs >= 1 && strstr(rep.recs[0], "DataLoader#1's 2 workers were busy only 0 % of the time the step "
                                                    "waited for data: more workers would not help"),
              "the window's fix is not the loader's: %s", rep.nrecs ? rep.recs[0] : "(none)");
    }
    ps_report_fini(&rep);
    ps_view_fini(&window);
    ps_model_free(m);
}

/* No GPU rows: copy_to_device ranges are Memcpy (--copy-range). Two steps of 100 µs, each with one pageable blocking
 * copy of 90 µs (category 1): Memcpy 90 %, compute 10 % → verdict memcpy, and the hook's copy advice is its fix:
 * gain 0.090 ms per step (90.0 %). No DataLoader time: no loader advice (share 0 < 5 %). */
static void copy_advice_is_the_memcpy_fix(void)
{
    start();
    uint32_t t0 = ps_model_thread(m, 100, 100);
    mark(t0, "python hook mode=default torch=2.4.0 python=3.11.2 cuda_build=12.1 cores=8 cpu_count=8", 0);
    mark(t0, "DataLoader#1 iterator=_SingleProcessDataLoaderIter num_workers=0 pin_memory=0 prefetch_factor=None "
             "persistent_workers=0 batch_size=8 drop_last=0 dataset=Images multiprocessing_context=default cores=8", 0);
    range(t0, "ProfilerStep#1", 0, 100);
    range(t0, "ProfilerStep#2", 100, 200);
    copy(t0, 0, 90, 1);
    copy(t0, 100, 190, 1);
    build();
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("verdict", rep.bottleneck, PS_BN_MEMCPY);
    CHECK_EQ("more_workers", rep.py->more_workers, -1);
    CHECK(rep.nrecs >= 1 && !strncmp(rep.recs[0], "2 of 2 host-to-device copies (Tensor.to / .cuda) came from pageable "
                                                  "memory and the DataLoader has pin_memory=False", 96) &&
              strstr(rep.recs[0], "Expected gain: about 0.090 ms per step (90.0 % of the average step)"),
          "the memcpy fix is not the hook's: %s", rep.nrecs ? rep.recs[0] : "(none)");
    for (size_t i = 0; i < rep.nrecs; i++)
        CHECK(!strstr(rep.recs[i], "Host<->device copies stall the step"), "generic copy fix kept: %s", rep.recs[i]);
    ps_report_fini(&rep);
    ps_model_free(m);
}

/* One trace, two ranks: process 100 (3 steps, the analysed process) and 300 (2 steps), each with one DataLoader
 * worker (201, parent 100; 301, parent 300). The section is rank 100's: its loader (num_workers=1) and its worker
 * only. Rank 300's loader says num_workers=5 and must not show. Waits of 100: [100, 140) and [200, 260) = 100 µs
 * (the first fetch [0, 30) apart); worker 201 busy [100, 150) → 40 of them, worker 301 busy [100, 300) → none
 * counted: busy 40 / 100 = 0.4 < 0.5, so more workers would not help. */
static void other_ranks_workers_left_out(void)
{
    start();
    uint32_t a = ps_model_thread(m, 100, 100), b = ps_model_thread(m, 300, 300);
    uint32_t wa = ps_model_thread(m, 201, 201), wb = ps_model_thread(m, 301, 301);
    /* PROCESSES lists every recorded process (may grow procs: indices first) */
    uint32_t pa = ps_model_process(m, 201), pb = ps_model_process(m, 301);
    if (ps_model_process(m, 100) == PS_NONE || ps_model_process(m, 300) == PS_NONE)
        abort();
    m->procs.v[pa].ppid = 100;
    m->procs.v[pb].ppid = 300;
    const char *hook = "python hook mode=default torch=2.4.0 python=3.11.2 cuda_build=none cores=8 cpu_count=8";
    mark(a, hook, 0);
    mark(b, hook, 0);
    mark(a, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=1 pin_memory=1 prefetch_factor=2 "
            "persistent_workers=1 batch_size=8", 0);
    mark(b, "DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=5 pin_memory=1 prefetch_factor=2 "
            "persistent_workers=1 batch_size=8", 0);
    mark(wa, "DataLoader worker id=0 num_workers=1 loader=1", 1);
    mark(wb, "DataLoader worker id=0 num_workers=5 loader=1", 1);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i + 1);
        range(a, name, 100 * i, 100 * (i + 1));
        if (i < 2)
            range(b, name, 100 * i, 100 * (i + 1));
    }
    range(a, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0, 30);
    range(a, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 100, 140);
    range(a, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 200, 260);
    range(wa, "_MapDatasetFetcher.fetch", 100, 150);
    range(wb, "_MapDatasetFetcher.fetch", 100, 300);
    build();
    CHECK_EQ("analysed pid", rep.pid, 100);
    CHECK(rep.py != NULL, "no pytorch section");
    if (!rep.py)
        return;
    CHECK_EQ("hooked processes", rep.py->hooked, 2);
    CHECK_EQ("loaders", rep.py->nloaders, 1);
    CHECK_EQ("num_workers", rep.py->loaders[0].num_workers, 1);
    CHECK_EQ("workers", rep.py->nworkers, 1);
    CHECK_EQ("worker pid", rep.py->nworkers ? rep.py->workers[0].pid : 0, 201);
    CHECK_EQ("wait_ns", rep.py->wait_ns, US(100));
    CHECK_EQ("busy_wait_ns", rep.py->nworkers ? rep.py->workers[0].busy_wait_ns : 0, US(40));
    CHECK_EQ("more_workers", rep.py->more_workers, 0);
    ps_report_fini(&rep);
    ps_model_free(m);
}

/* A trace without the hook's marks (a marks in another domain named like them): no section. */
static void no_hook_no_section(void)
{
    start();
    uint32_t t0 = ps_model_thread(m, 100, 100);
    struct ps_range g = { .start_ns = 0, .end_ns = 0, .name = ps_model_intern_cstr(m, "DataLoader#1 num_workers=0"),
                          .thread = t0, .domain = ps_model_intern_cstr(m, "other"), .kind = PS_RANGE_NVTX_MARK };
    if (ps_model_add_range(m, &g) < 0)
        abort();
    range(t0, "step", 0, 100);
    build();
    CHECK(rep.py == NULL, "a pytorch section without the hook's marks");
    ps_report_fini(&rep);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "workers_busy_while_waiting", .fn = workers_busy_while_waiting },
        { "workers0_advice_and_copies", .fn = workers0_advice_and_copies },
        { "window_after_the_hook_marks_keeps_the_loader_advice",
          .fn = window_after_the_hook_marks_keeps_the_loader_advice },
        { "copy_advice_is_the_memcpy_fix", .fn = copy_advice_is_the_memcpy_fix },
        { "other_ranks_workers_left_out", .fn = other_ranks_workers_left_out },
        { "no_hook_no_section", .fn = no_hook_no_section },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
