/* The report over a time slice of a model (ps_ranks_report_compute_view over ps_view_starting), as `perfscope top` runs it
 * on the last seconds of a growing recording. Ground truth: a generator that feeds the same rows twice, once
 * into a whole model (then sliced by the view) and once into a second model that gets only the rows starting in
 * the window; the report of the slice must equal the report of the second model, field by field. Hand-worked
 * values beside them catch a generator or comparison that agrees with itself. Usage: test_report_window CASE. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "cases.h"
#include "check.h"
#include "read/reader.h"

#define US(x) ((int64_t)(x) * 1000)
#define NSTEPS 8
#define PERIOD_US 10000   /* one step every 10 ms */

static struct ps_model *m;
static int64_t from_ns, to_ns;   /* the generator keeps rows starting in [from, to) */

static int keep(int64_t start_ns)
{
    return start_ns >= from_ns && start_ns < to_ns;
}

static void range(uint32_t thread, const char *name, int64_t s, int64_t e)
{
    struct ps_range g = { .start_ns = US(s), .end_ns = US(e), .name = ps_model_intern_cstr(m, name),
                          .thread = thread, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    if (keep(g.start_ns) && ps_model_add_range(m, &g) < 0)
        abort();
}

static void api(uint32_t thread, const char *name, int64_t s, int64_t e, uint64_t corr)
{
    struct ps_api_call c = { .start_ns = US(s), .end_ns = US(e), .correlation = corr,
                             .name = ps_model_intern_cstr(m, name), .thread = thread };
    if (keep(c.start_ns) && ps_model_add_api(m, &c) < 0)
        abort();
}

static void gpu(uint32_t stream, int kind, const char *name, int64_t s, int64_t e, uint64_t corr, uint64_t bytes,
                int copy_kind, int src, int dst)
{
    struct ps_gpu_op op = { .start_ns = US(s), .end_ns = US(e), .correlation = corr, .bytes = bytes,
                            .name = ps_model_intern_cstr(m, name), .stream = stream, .kind = (uint8_t)kind,
                            .copy_kind = (uint8_t)copy_kind, .src_kind = (uint8_t)src, .dst_kind = (uint8_t)dst };
    if (keep(op.start_ns) && ps_model_add_gpu(m, &op) < 0)
        abort();
}

/* Training step k (of NSTEPS) on one thread and stream, from base = k * 10 ms (µs below):
 *   ProfilerStep#k [base, base+9500)        data [base, base+1500+200*(k%3))
 *   cudaLaunchKernel [base+500, base+550)   -> prep_kernel [base+1700, base+1900)
 *   forward [base+2000, base+8000)
 *   cudaMemcpyAsync [base+2000, base+2050)  -> HtoD pinned->device 8 MiB [base+2100, base+2900)
 *   cudaLaunchKernel [base+2050, base+2100) -> gemm [base+3000, base+6000+100k)
 *   cudaLaunchKernel [base+2100, base+2150) -> relu [base+6100+100k, base+6600+100k)
 *   cudaStreamSynchronize [base+2150, base+6700+100k)
 *   cudaMemcpyAsync [base+7400, base+7450)  -> DtoH device->pageable 4 KiB [base+7500, base+7600)
 * and (add_samples) NVML utilisation samples every ms over the steps' 10 ms each: 20 % before 31 ms, 80 % from
 * 31 ms on. Only the rows (and samples) starting in [from_ns, to_ns) are added. */
static void add_step(int64_t k)
{
    uint32_t t = ps_model_thread(m, 100, 100), s = ps_model_stream(m, 100, 0, 7);
    int64_t b = k * PERIOD_US;
    uint64_t c = (uint64_t)k * 10;
    char step[48];
    snprintf(step, sizeof step, "ProfilerStep#%lld", (long long)k);
    range(t, step, b, b + 9500);
    range(t, "data", b, b + 1500 + 200 * (k % 3));
    api(t, "cudaLaunchKernel", b + 500, b + 550, c + 1);
    gpu(s, PS_GPU_KERNEL, "prep_kernel", b + 1700, b + 1900, c + 1, 0, 0, 0, 0);
    range(t, "forward", b + 2000, b + 8000);
    api(t, "cudaMemcpyAsync", b + 2000, b + 2050, c + 2);
    gpu(s, PS_GPU_MEMCPY, "Memcpy HtoD", b + 2100, b + 2900, c + 2, 8 << 20, PS_COPY_HTOD, PS_MEM_PINNED,
        PS_MEM_DEVICE);
    api(t, "cudaLaunchKernel", b + 2050, b + 2100, c + 3);
    gpu(s, PS_GPU_KERNEL, "gemm", b + 3000, b + 6000 + 100 * k, c + 3, 0, 0, 0, 0);
    api(t, "cudaLaunchKernel", b + 2100, b + 2150, c + 4);
    gpu(s, PS_GPU_KERNEL, "relu", b + 6100 + 100 * k, b + 6600 + 100 * k, c + 4, 0, 0, 0, 0);
    api(t, "cudaStreamSynchronize", b + 2150, b + 6700 + 100 * k, 0);
    api(t, "cudaMemcpyAsync", b + 7400, b + 7450, c + 5);
    gpu(s, PS_GPU_MEMCPY, "Memcpy DtoH", b + 7500, b + 7600, c + 5, 4096, PS_COPY_DTOH, PS_MEM_DEVICE,
        PS_MEM_PAGEABLE);
}

static void add_samples(int64_t first_ms, int64_t end_ms)
{
    for (int64_t ms = first_ms; ms < end_ms; ms++) {
        struct ps_nvml_util_sample g = { .time_ns = US(ms * 1000), .device = 0, .util_pct = ms < 31 ? 20 : 80 };
        if (keep(g.time_ns) && ps_model_add_nvml_util(m, &g) < 0)
            abort();
    }
}

/* A model of the first `nsteps` steps (and the samples of their 10 ms each), rows starting in [from, to) only. */
static struct ps_model *generate_steps(int64_t from, int64_t to, int64_t nsteps)
{
    from_ns = from;
    to_ns = to;
    m = ps_model_new(from == INT64_MIN && to == INT64_MAX ? "whole" : "slice", PS_FORMAT_PERFSCOPE);
    if (!m)
        abort();
    ps_model_process(m, 100);
    for (int64_t k = 0; k < nsteps; k++)
        add_step(k);
    add_samples(0, nsteps * PERIOD_US / 1000);
    if (ps_model_finish(m) < 0)
        abort();
    return m;
}

static struct ps_model *generate(int64_t from, int64_t to)
{
    return generate_steps(from, to, NSTEPS);
}

static void build_view(struct ps_report *r, const struct ps_view *v)
{
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    if (ps_ranks_report_compute_view(r, v, &o, err, sizeof err) < 0) {
        fprintf(stderr, "report failed: %s\n", err);
        exit(1);
    }
}

static void build_model(struct ps_report *r, const struct ps_model *model)
{
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    if (ps_ranks_report_compute(r, model, &o, err, sizeof err) < 0) {
        fprintf(stderr, "report failed: %s\n", err);
        exit(1);
    }
}

#define SAME(what, field) CHECK_EQ(what, a->field, b->field)

/* Every figure `top` and the report show, a (the slice of the whole model) against b (the second model). */
static void check_same(const struct ps_report *a, const struct ps_report *b)
{
    char what[96];
    SAME("has_gpu", has_gpu);
    SAME("run_start_ns", run_start_ns);
    SAME("run_end_ns", run_end_ns);
    SAME("nevents", nevents);
    SAME("whole_run", whole_run);
    SAME("nsteps", nsteps);
    for (size_t i = 0; i < a->nsteps && i < b->nsteps; i++) {
        const struct ps_step *x = &a->steps[i], *y = &b->steps[i];
        snprintf(what, sizeof what, "step %zu name", i);
        CHECK_STR(what, ps_model_str(a->m, x->name), ps_model_str(b->m, y->name));
        snprintf(what, sizeof what, "step %zu start_ns", i);
        CHECK_EQ(what, x->start_ns, y->start_ns);
        snprintf(what, sizeof what, "step %zu end_ns", i);
        CHECK_EQ(what, x->end_ns, y->end_ns);
        snprintf(what, sizeof what, "step %zu device_ops", i);
        CHECK_EQ(what, x->device_ops, y->device_ops);
        snprintf(what, sizeof what, "step %zu sync_ns", i);
        CHECK_EQ(what, x->sync_ns, y->sync_ns);
        for (int c = 0; c < PS_CAT_N; c++) {
            snprintf(what, sizeof what, "step %zu %s_ns", i, ps_cat_key[c]);
            CHECK_EQ(what, x->cat_ns[c], y->cat_ns[c]);
        }
    }
    SAME("avg_dur_ns", avg_dur_ns);
    for (int c = 0; c < PS_CAT_N; c++) {
        snprintf(what, sizeof what, "avg %s_ns", ps_cat_key[c]);
        CHECK_EQ(what, a->avg.cat_ns[c], b->avg.cat_ns[c]);
    }
    SAME("avg sync_ns", avg.sync_ns);
    SAME("bottleneck", bottleneck);
    CHECK(a->share == b->share, "share %g vs %g", a->share, b->share);
    CHECK(a->gpu_util == b->gpu_util, "gpu_util %g vs %g", a->gpu_util, b->gpu_util);
    SAME("nkernels", nkernels);
    for (size_t i = 0; i < a->nkernels && i < b->nkernels; i++) {
        snprintf(what, sizeof what, "kernel %zu name", i);
        CHECK_STR(what, ps_model_str(a->m, a->kernels[i].name), ps_model_str(b->m, b->kernels[i].name));
        snprintf(what, sizeof what, "kernel %zu count", i);
        CHECK_EQ(what, a->kernels[i].count, b->kernels[i].count);
        snprintf(what, sizeof what, "kernel %zu total_ns", i);
        CHECK_EQ(what, a->kernels[i].total_ns, b->kernels[i].total_ns);
    }
    SAME("ncopies", ncopies);
    for (size_t i = 0; i < a->ncopies && i < b->ncopies; i++) {
        snprintf(what, sizeof what, "copy %zu bytes", i);
        CHECK_EQ(what, a->copies[i].bytes, b->copies[i].bytes);
        snprintf(what, sizeof what, "copy %zu total_ns", i);
        CHECK_EQ(what, a->copies[i].total_ns, b->copies[i].total_ns);
    }
    /* what follows a GPU op's launch: TraceLens' linked events, HTA's idle split, the findings */
    SAME("tl_unlinked", tl_unlinked);
    SAME("tl events", tl[0].events);
    SAME("tl total_ns", tl[0].total_ns);
    SAME("tl idle_ns", tl[0].idle_ns);
    SAME("nidle", nidle);
    for (size_t i = 0; i < a->nidle && i < b->nidle; i++) {
        CHECK_EQ("idle host_wait_ns", a->idle[i].host_wait_ns, b->idle[i].host_wait_ns);
        CHECK_EQ("idle kernel_wait_ns", a->idle[i].kernel_wait_ns, b->idle[i].kernel_wait_ns);
        CHECK_EQ("idle other_ns", a->idle[i].other_ns, b->idle[i].other_ns);
    }
    SAME("window_start_ns", window_start_ns);
    SAME("window_end_ns", window_end_ns);
    SAME("nfindings", nfindings);
    for (size_t i = 0; i < a->nfindings && i < b->nfindings; i++) {
        CHECK_STR("finding rule", a->findings[i].rule, b->findings[i].rule);
        CHECK_EQ("finding cost_ns", a->findings[i].cost_ns, b->findings[i].cost_ns);
    }
    SAME("nutil", nutil);
    for (size_t i = 0; i < a->nutil && i < b->nutil; i++) {
        CHECK_EQ("util start_ns", a->util[i].start_ns, b->util[i].start_ns);
        CHECK(!memcmp(a->util[i].busy_ns, b->util[i].busy_ns, sizeof a->util[i].busy_ns), "util busy_ns differ");
    }
    SAME("nnvml_util", nnvml_util);
    for (size_t i = 0; i < a->nnvml_util && i < b->nnvml_util; i++) {
        CHECK_EQ("nvml samples", a->nvml_util[i].samples, b->nvml_util[i].samples);
        CHECK(a->nvml_util[i].mean_pct == b->nvml_util[i].mean_pct, "nvml mean");
        CHECK_EQ("nvml first_ns", a->nvml_util[i].first_ns, b->nvml_util[i].first_ns);
    }
}

/* Window from 31 ms (1 ms into step 3) to the end. Step 3's range, its data range and its first launch call
 * (30.5 ms) start before it and are left out; the rest of step 3 (forward, both copies, gemm, relu, the sync
 * and prep_kernel at 31.7 ms, whose launch is gone) lies outside every step. Steps 4..7 remain, each as in the
 * whole model: host [10k, 10k+9.5) ms and tb's device end past the host end never (the D2H copy ends at
 * 7.6 ms), so step k spans [10k, 10k+9.5] ms. One GPU event of the slice has no launch: prep_kernel of step 3. */
static void slice_to_the_end_equals_model_of_its_rows(void)
{
    int64_t t = US(3 * PERIOD_US + 1000);
    struct ps_model *whole = generate(INT64_MIN, INT64_MAX), *part = generate(t, INT64_MAX);
    struct ps_view all, slice;
    struct ps_report a, b, w;
    ps_view_all(&all, whole);
    CHECK_EQ("slice", ps_view_starting(&slice, &all, t, INT64_MAX), 0);
    build_view(&a, &slice);
    ps_view_fini(&slice);   /* the report keeps its own copy */
    build_model(&b, part);
    build_model(&w, whole);
    check_same(&a, &b);
    /* by hand */
    CHECK_EQ("slice steps", a.nsteps, 4);
    for (size_t i = 0; i < a.nsteps && a.nsteps == 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%zu", i + 4);
        CHECK_STR("step name", ps_model_str(whole, a.steps[i].name), name);
        CHECK_EQ("step start", a.steps[i].start_ns, US((i + 4) * PERIOD_US));
        CHECK_EQ("step end", a.steps[i].end_ns, US((i + 4) * PERIOD_US + 9500));
        /* data [b, b+1500+200(k%3)) less the early launch call (Runtime ranks above DataLoader, 50 µs) and, for
         * k%3 == 2, prep_kernel's [b+1700, b+1900) (Kernel ranks above it) */
        size_t k = i + 4;
        CHECK_EQ("step data", a.steps[i].cat_ns[PS_CAT_DATALOADER],
                 US(1500 + 200 * (k % 3) - 50 - (k % 3 == 2 ? 200 : 0)));
    }
    /* step 3 keeps forward, 5 of its 6 calls and its 5 GPU ops; steps 4..7 keep 3 ranges, 6 calls, 5 ops each */
    CHECK_EQ("slice events", a.nevents, (1 + 5 + 5) + 4 * (3 + 6 + 5));
    CHECK_EQ("slice run start: step 3's prep_kernel", a.run_start_ns, US(31700));
    CHECK_EQ("slice run end: step 7's end", a.run_end_ns, US(7 * PERIOD_US + 9500));
    CHECK_EQ("prep_kernel of step 3 has no launch in the slice", a.tl_unlinked, 1);
    CHECK_EQ("every launch in the whole model", w.tl_unlinked, 0);
    CHECK_EQ("whole model steps", w.nsteps, NSTEPS);
    /* gemm: steps 3..7 in the slice, 3000 + 100k µs each = 15000 + 100 * (3+4+5+6+7) */
    for (size_t i = 0; i < a.nkernels; i++)
        if (!strcmp(ps_model_str(whole, a.kernels[i].name), "gemm")) {
            CHECK_EQ("gemm count", a.kernels[i].count, 5);
            CHECK_EQ("gemm total", a.kernels[i].total_ns, US(15000 + 100 * 25));
        }
    /* NVML samples of the window only: 31..79 ms, all 80 % (the whole run's mean is lower) */
    CHECK_EQ("nvml devices", a.nnvml_util, 1);
    if (a.nnvml_util == 1) {
        CHECK_EQ("nvml samples in the slice", a.nvml_util[0].samples, 49);
        CHECK_NEAR("nvml mean in the slice", a.nvml_util[0].mean_pct, 80.0, 1e-9);
        CHECK_EQ("nvml first sample", a.nvml_util[0].first_ns, US(31000));
    }
    CHECK_EQ("whole-run nvml samples", w.nvml_util[0].samples, 80);
    ps_report_fini(&a);
    ps_report_fini(&b);
    ps_report_fini(&w);
    ps_model_free(whole);
    ps_model_free(part);
}

/* A window with an end: [31 ms, 60.5 ms) keeps step 6's range, its data range and its first launch call (all
 * start at 60 or 60.5 ms: 60.5 is out), so step 6 is a host range whose GPU work is not in the slice. The
 * second model gets the same rows; the reports must agree. */
static void bounded_slice_equals_model_of_its_rows(void)
{
    int64_t t = US(3 * PERIOD_US + 1000), e = US(6 * PERIOD_US + 500);
    struct ps_model *whole = generate(INT64_MIN, INT64_MAX), *part = generate(t, e);
    struct ps_view all, slice;
    struct ps_report a, b;
    ps_view_all(&all, whole);
    CHECK_EQ("slice", ps_view_starting(&slice, &all, t, e), 0);
    build_view(&a, &slice);
    build_model(&b, part);
    check_same(&a, &b);
    CHECK_EQ("slice window end", slice.end_ns, e);
    ps_view_fini(&slice);
    ps_report_fini(&a);
    ps_report_fini(&b);
    ps_model_free(whole);
    ps_model_free(part);
}

/* `top`'s use: one growing model (ps_model_set_growing), a step appended and the model finished again each time,
 * and after each the slice from 1 ms into the third-last step: its report equals the report of a fresh model of
 * the steps so far fed only the rows starting in the slice. */
static void slice_of_a_growing_model_equals_model_of_its_rows(void)
{
    from_ns = INT64_MIN;
    to_ns = INT64_MAX;
    struct ps_model *grown = m = ps_model_new("growing", PS_FORMAT_PERFSCOPE);
    if (!grown || ps_model_set_growing(grown) < 0)
        abort();
    ps_model_process(grown, 100);
    for (int64_t n = 1; n <= NSTEPS; n++) {
        m = grown;
        from_ns = INT64_MIN;
        add_step(n - 1);
        add_samples((n - 1) * PERIOD_US / 1000, n * PERIOD_US / 1000);
        CHECK_EQ("finish", ps_model_finish(grown), 0);
        if (n < 3)
            continue;
        int64_t t = US((n - 3) * PERIOD_US + 1000);
        struct ps_model *part = generate_steps(t, INT64_MAX, n);
        struct ps_view all, slice;
        struct ps_report a, b;
        ps_view_all(&all, grown);   /* views are made after each finish: model indices move */
        CHECK_EQ("slice", ps_view_starting(&slice, &all, t, INT64_MAX), 0);
        build_view(&a, &slice);
        build_model(&b, part);
        check_same(&a, &b);
        CHECK_EQ("steps in the slice: the last two", a.nsteps, 2);
        ps_view_fini(&slice);
        ps_report_fini(&a);
        ps_report_fini(&b);
        ps_model_free(part);
    }
    ps_model_free(grown);
}

/* A slice holding no row: no events, and the note says the window is empty (not that nothing was recorded); a
 * slice without GPU rows says so of the window. */
static void empty_slice_has_nothing_to_break_down(void)
{
    struct ps_model *whole = generate(INT64_MIN, INT64_MAX);
    struct ps_view all, empty;
    struct ps_report r;
    ps_view_all(&all, whole);
    CHECK_EQ("empty slice", ps_view_starting(&empty, &all, US(1000000), INT64_MAX), 0);
    CHECK_EQ("rows", empty.ngpu + empty.napi + empty.nranges, 0);
    build_view(&r, &empty);
    CHECK_EQ("no events", r.nevents, 0);
    CHECK_EQ("nothing to break down", r.nothing_to_break_down, 1);
    const struct ps_message *msg = ps_report_message(&r, "nothing_to_break_down");
    CHECK(msg && strstr(msg->text, "window"), "the note names the window");
    CHECK_EQ("no NVML samples after 80 ms", r.nnvml_util, 0);
    ps_report_fini(&r);
    ps_view_fini(&empty);
    /* [60, 60.4) ms: step 6's range and its data range only; the notes speak of the window, not the trace */
    struct ps_view ranges_only;
    CHECK_EQ("ranges-only slice", ps_view_starting(&ranges_only, &all, US(60000), US(60400)), 0);
    CHECK_EQ("its rows", ranges_only.nranges * 100 + ranges_only.napi * 10 + ranges_only.ngpu, 200);
    build_view(&r, &ranges_only);
    CHECK_EQ("no GPU rows in the slice", r.has_gpu, 0);
    msg = ps_report_message(&r, "no_gpu_rows");
    CHECK(msg && strstr(msg->text, "in the analysed window"), "the note names the window");
    CHECK(!ps_report_message(&r, "cuda_state"), "no word on CUDA injection from a slice");
    ps_report_fini(&r);
    ps_view_fini(&ranges_only);
    ps_model_free(whole);
}

static void shift_times(void *ctx, int64_t *s, int64_t *e)
{
    (void)ctx;
    *s += 1000;
    *e += 1000;
}

static void retimed_view_refused(void)
{
    struct ps_model *whole = generate(INT64_MIN, INT64_MAX);
    struct ps_view v;
    struct ps_report r;
    struct ps_report_opts o;
    char err[256] = "";
    ps_report_opts_default(&o);
    ps_view_all(&v, whole);
    CHECK_EQ("retime", ps_view_retime(&v, shift_times, NULL), 0);
    CHECK_EQ("report of a retimed view", ps_ranks_report_compute_view(&r, &v, &o, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "retimed");
    ps_view_fini(&v);
    ps_model_free(whole);
}

/* A copy of the trace at `path` in `out` without the activity rows that start before t (NVTX domain names kept):
 * the rows a window starting at t holds, cut by SQL. 0, or -1 with a message. */
static int copy_rows_starting_at(const char *path, int64_t t, const char *out)
{
    static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                          "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                          "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" };
    sqlite3 *db = NULL;
    char sql[512];
    int rc = 0;
    unlink(out);
    snprintf(sql, sizeof sql, "VACUUM INTO '%s'", out);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        rc = -1;
    if (rc < 0)
        fprintf(stderr, "copy of %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    db = NULL;
    if (rc == 0 && sqlite3_open(out, &db) != SQLITE_OK)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE start < %lld%s", tables[i], (long long)t,
                 i == 5 ? " AND eventType != 75" : "");
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
            rc = -1;
        }
    }
    sqlite3_close(db);
    return rc;
}

/* A real trace (Nsight Systems, 2 GPUs, shared/traces/nsys/h100_2gpu_1s.sqlite): the slice from the middle of its
 * events to the end against a copy of the trace holding only the rows that start at or after the middle (cut by
 * SQL), read by the reader. Exit 77 (skip) without the trace. */
static int real_trace_slice_equals_sql_cut_copy(const char *shared)
{
    char path[1024], err[512], cut[] = "/tmp/ps_report_window_XXXXXX";
    snprintf(path, sizeof path, "%s/traces/nsys/h100_2gpu_1s.sqlite", shared);
    FILE *f = fopen(path, "rb");
    if (!f) {
        return check_shared_missing(path);
    }
    fclose(f);
    int fd = mkstemp(cut);
    if (fd < 0)
        return 1;
    close(fd);
    struct ps_model *whole = NULL, *part = NULL;
    struct ps_report w, a, b;
    struct ps_view all, slice;
    if (ps_read_trace(path, &whole, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    build_model(&w, whole);
    int64_t t = w.run_start_ns + (w.run_end_ns - w.run_start_ns) / 2;
    int rc = copy_rows_starting_at(path, t, cut);
    if (rc == 0 && ps_read_trace(cut, &part, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        rc = -1;
    }
    unlink(cut);
    if (rc < 0)
        return 1;
    ps_view_all(&all, whole);
    CHECK_EQ("slice", ps_view_starting(&slice, &all, t, INT64_MAX), 0);
    CHECK(slice.ngpu > 1000 && slice.ngpu < all.ngpu, "the slice holds part of the GPU ops (%zu of %zu)", slice.ngpu,
          all.ngpu);
    CHECK_EQ("GPU ops: the cut copy's", slice.ngpu, part->gpu.n);
    CHECK_EQ("API calls: the cut copy's", slice.napi, part->api.n);
    CHECK_EQ("ranges: the cut copy's", slice.nranges, part->ranges.n);
    build_view(&a, &slice);
    build_model(&b, part);
    check_same(&a, &b);
    ps_view_fini(&slice);
    ps_report_fini(&a);
    ps_report_fini(&b);
    ps_report_fini(&w);
    ps_model_free(whole);
    ps_model_free(part);
    return check_failures != 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "slice_to_the_end_equals_model_of_its_rows", .fn = slice_to_the_end_equals_model_of_its_rows },
        { "bounded_slice_equals_model_of_its_rows", .fn = bounded_slice_equals_model_of_its_rows },
        { "empty_slice_has_nothing_to_break_down", .fn = empty_slice_has_nothing_to_break_down },
        { "retimed_view_refused", .fn = retimed_view_refused },
        { "slice_of_a_growing_model_equals_model_of_its_rows",
          .fn = slice_of_a_growing_model_equals_model_of_its_rows },
        { "real_trace_slice_equals_sql_cut_copy", .fn_arg = real_trace_slice_equals_sql_cut_copy },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL,
                     NULL);
}
