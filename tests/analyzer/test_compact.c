/* The compact model and the streaming analyses against hand-computed values: GPU ops stored as 16-byte rows
 * keep durations of 4.29 s and more exactly; the sweep line and the window totals of analyses/base.h (by hand, and
 * against the interval-set algebra on random events); exact kernel
 * medians for names too common to gather at once (summary.c's radix selection and batched gathering). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "cases.h"
#include "check.h"
#include "analyses/base.h"

static void add_kernel(struct ps_model *m, uint32_t stream, uint32_t name, int64_t start, int64_t end)
{
    struct ps_gpu_op op = { .start_ns = start, .end_ns = end, .name = name, .stream = stream,
                            .kind = PS_GPU_KERNEL };
    if (ps_model_add_gpu(m, &op) < 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

/* The per-device totals and the kernel and copy tables, as the report makes them (analyses/breakdown.h). */
static int summary(struct ps_report *r, const struct ps_view *v)
{
    struct ps_summary_tables t;
    int rc = ps_summary_devices_compute(r, v);
    if (rc == 0 && (rc = ps_summary_tables_compute(&t, v)) == 0)
        ps_summary_tables_give(r, &t);
    return rc;
}

static const struct ps_kernel_stat *kernel_stat(const struct ps_report *r, const struct ps_model *m, const char *name)
{
    for (size_t i = 0; i < r->nkernels; i++)
        if (!strcmp(ps_model_str(m, r->kernels[i].name), name))
            return &r->kernels[i];
    fprintf(stderr, "kernel %s missing from the summary\n", name);
    check_failures++;
    return NULL;
}

/* Durations 2^32 - 2 (fits), 2^32 - 1 and 2^32 + 5 (do not fit: PS_GPU_LONG), 10 s, and 0, added out of order.
 * Sorted by (start, end): starts 0, 0, 100, 200, 300 with the 0-start ones ordered by duration. Kernel "long":
 * 10 s, 2^32 + 5, 2^32 - 1 -> median 2^32 + 5, total 10e9 + 2^33 + 4. Retiming op 0 to [7, 7 + 3e9 + 2^32)
 * makes it long, then back to [7, 9) makes it short again. Times a report rejects later as corrupt are still
 * kept exactly: a reversed op [400, 350) and [-2^62, 2^62) (its duration overflows int64) sort first by start. */
static void model_keeps_long_gpu_durations_exact(void)
{
    struct ps_model *m = ps_model_new("long", PS_FORMAT_PERFSCOPE);
    uint32_t s = ps_model_stream(m, 1, 0, 7), lng = ps_model_intern_cstr(m, "long"), shrt = ps_model_intern_cstr(m, "short");
    const int64_t two32 = 4294967296ll;
    add_kernel(m, s, shrt, 300, 300);
    add_kernel(m, s, lng, 100, 100 + two32 - 1);
    add_kernel(m, s, lng, 0, 10000000000ll);
    add_kernel(m, s, shrt, 200, 200 + two32 - 2);
    add_kernel(m, s, lng, 0, two32 + 5);
    CHECK_EQ("finish", ps_model_finish(m), 0);
    static const int64_t want_start[] = { 0, 0, 100, 200, 300 };
    const int64_t want_end[] = { two32 + 5, 10000000000ll, 100 + two32 - 1, 200 + two32 - 2, 300 };
    for (size_t i = 0; i < 5 && i < m->gpu.n; i++) {
        struct ps_gpu_op op = ps_model_gpu(m, i);
        CHECK_EQ("start", op.start_ns, want_start[i]);
        CHECK_EQ("end", op.end_ns, want_end[i]);
        CHECK_EQ("launch", op.launch, PS_NONE);
    }
    CHECK_EQ("rows are 16 bytes", sizeof(struct ps_gpu_row), 16);
    struct ps_report r;
    struct ps_view all;
    memset(&r, 0, sizeof r);
    r.m = m;
    ps_view_all(&all, m);
    r.all = &all;
    CHECK_EQ("summary", summary(&r, &all), 0);
    const struct ps_kernel_stat *k = kernel_stat(&r, m, "long");
    if (k) {
        CHECK_EQ("long median", k->median_ns, two32 + 5);
        CHECK_EQ("long total", k->total_ns, 10000000000ll + 2 * two32 + 4);
        CHECK_EQ("long min", k->min_ns, two32 - 1);
    }
    r.all = NULL;   /* the test's own view, not the report's */
    ps_report_fini(&r);
    CHECK_EQ("retime long", ps_model_gpu_retime(m, 0, 7, 7 + 3000000000ll + two32), 0);
    CHECK_EQ("retimed end", ps_model_gpu(m, 0).end_ns, 7 + 3000000000ll + two32);
    CHECK_EQ("retimed name", ps_model_gpu(m, 0).name, lng);
    CHECK_EQ("retime short", ps_model_gpu_retime(m, 0, 7, 9), 0);
    CHECK_EQ("short end", ps_model_gpu(m, 0).end_ns, 9);
    CHECK_EQ("short row", m->gpu.v[0].dur_ns, 2);
    ps_model_free(m);

    m = ps_model_new("corrupt", PS_FORMAT_PERFSCOPE);
    s = ps_model_stream(m, 1, 0, 7);
    lng = ps_model_intern_cstr(m, "long");
    add_kernel(m, s, lng, 400, 350);
    add_kernel(m, s, lng, -(1ll << 62), 1ll << 62);
    CHECK_EQ("finish", ps_model_finish(m), 0);
    CHECK_EQ("first start", ps_model_gpu(m, 0).start_ns, -(1ll << 62));
    CHECK_EQ("first end", ps_model_gpu(m, 0).end_ns, 1ll << 62);
    CHECK_EQ("reversed start", ps_model_gpu(m, 1).start_ns, 400);
    CHECK_EQ("reversed end", ps_model_gpu(m, 1).end_ns, 350);
    ps_model_free(m);
}

struct piece_log {
    int64_t v[32][3];
    size_t n;
};

static void log_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct piece_log *l = ctx;
    if (l->n < 32) {
        l->v[l->n][0] = s;
        l->v[l->n][1] = e;
        l->v[l->n++][2] = active;
    }
}

/* Category 0: [0,10) [12,15); category 1: [5,20) [30,40); category 2: [3,3) (empty). Pieces by hand:
 * [0,5) {0}, [5,10) {0,1}, [10,12) {1}, [12,15) {0,1}, [15,20) {1}, [30,40) {1}.
 * Window totals of the pieces [0,10) [20,30) [40,50): [8,42) -> 2 + 10 + 2 = 14, [0,100) -> 30,
 * [25,25) -> 0, [45,60) -> 5, [-5,3) -> 3, [30,40) -> 0, [5,45) -> 5 + 10 + 5 = 20. */
static void sweep_and_windows_by_hand(void)
{
    struct piece_log l = { .n = 0 };
    struct ps_sweep w;
    ps_sweep_init(&w, 3, log_piece, &l);
    ps_sweep_add(&w, 0, 0, 10);
    ps_sweep_add(&w, 2, 3, 3);
    ps_sweep_add(&w, 1, 5, 20);
    ps_sweep_add(&w, 0, 12, 15);
    ps_sweep_add(&w, 1, 30, 40);
    ps_sweep_finish(&w);
    static const int64_t want[][3] = { { 0, 5, 1 }, { 5, 10, 3 }, { 10, 12, 2 }, { 12, 15, 3 }, { 15, 20, 2 },
                                       { 30, 40, 2 } };
    CHECK_EQ("pieces", l.n, 6);
    for (size_t i = 0; i < 6 && i < l.n; i++)
        for (int j = 0; j < 3; j++)
            CHECK_EQ("piece", l.v[i][j], want[i][j]);

    static const int64_t ws[] = { 8, 0, 25, 45, -5, 30, 5 }, we[] = { 42, 100, 25, 60, 3, 40, 45 };
    static const int64_t wt[] = { 14, 30, 0, 5, 3, 0, 20 };
    struct ps_windows *win;
    if (ps_windows_new(&win, ws, we, 7) < 0) {
        check_failures++;
        return;
    }
    struct ps_run u = { 0 };
    int64_t ps, pe;
    static const int64_t in[][2] = { { 0, 4 }, { 2, 10 }, { 10, 10 }, { 20, 30 }, { 40, 45 }, { 45, 50 } };
    for (size_t i = 0; i < 6; i++)   /* a running union first: [0,4)+[2,10) and the touching [40,45)+[45,50) merge */
        if (ps_run_add(&u, in[i][0], in[i][1], &ps, &pe))
            ps_windows_piece(win, ps, pe);
    if (ps_run_flush(&u, &ps, &pe))
        ps_windows_piece(win, ps, pe);
    for (size_t i = 0; i < 7; i++)
        CHECK_EQ("window", ps_windows_get(win, i), wt[i]);
    ps_windows_free(win);
}

/* The sweep's priority split against the interval-set algebra (analyses/base.h, itself tested by hand): 2000 random
 * events in 3 categories (start order, random lengths, many overlaps and gaps) and 50 random windows. Category c's
 * exclusive time in a window = |c − (categories before c)| inside it, computed both ways. */
struct prio_sums {
    struct ps_windows *w[3];
};

static void prio_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct prio_sums *p = ctx;
    ps_windows_piece(p->w[__builtin_ctz(active)], s, e);
}

static void sweep_matches_interval_algebra(void)
{
    uint64_t x = 88172645463325252ull;
#define RND(n) ((x ^= x << 13, x ^= x >> 7, x ^= x << 17), (int64_t)(x % (uint64_t)(n)))
    struct ps_ivls set[3] = { { 0 } }, covered = { 0 }, part = { 0 };
    int64_t ws[50], we[50];
    for (int i = 0; i < 50; i++) {
        ws[i] = RND(100000) - 1000;
        we[i] = ws[i] + RND(20000);
    }
    struct prio_sums p;
    for (int c = 0; c < 3; c++)
        if (ps_windows_new(&p.w[c], ws, we, 50) < 0) {
            check_failures++;
            return;
        }
    struct ps_sweep w;
    ps_sweep_init(&w, 3, prio_piece, &p);
    int64_t t = 0;
    for (int i = 0; i < 2000; i++) {
        t += RND(100);
        int c = (int)RND(3);
        int64_t e = t + RND(c == 2 ? 2000 : 150);
        ps_sweep_add(&w, c, t, e);
        ps_ivls_push(&set[c], t, e);
    }
    ps_sweep_finish(&w);
    for (int c = 0; c < 3; c++) {
        ps_ivls_normalize(&set[c]);
        ps_ivls_subtract(&part, &set[c], &covered);   /* exclusive part of c */
        for (int i = 0; i < 50 && p.w[c]; i++)
            CHECK_EQ("exclusive time", ps_windows_get(p.w[c], (size_t)i), ps_ivls_within(&part, ws[i], we[i]));
        for (size_t i = 0; i < set[c].n; i++)   /* covered ∪= set[c] */
            ps_ivls_push(&covered, set[c].v[i].s, set[c].v[i].e);
        ps_ivls_normalize(&covered);
        ps_windows_free(p.w[c]);
        ps_ivls_fini(&set[c]);
    }
    ps_ivls_fini(&covered);
    ps_ivls_fini(&part);
#undef RND
}

/* Durations (i * 1000003) mod N for i < N are 0 .. N - 1 in a scrambled order, so the median of N values is
 * (N - 1) / 2 for odd N and ((N/2 - 1) + N/2) / 2 floored for even N. "a" (N = 2^21 + 1, odd) and "b"
 * (2^21 + 2, even) exceed what summary.c gathers at once (2^21): radix selection; "c" (1,000,001) and
 * "d" (1,200,000) are gathered, in two batches. */
static void kernel_median_of_very_common_names(void)
{
    struct ps_model *m = ps_model_new("common", PS_FORMAT_PERFSCOPE);
    uint32_t s = ps_model_stream(m, 1, 0, 7);
    static const char *const names[] = { "a", "b", "c", "d" };
    static const int64_t counts[] = { 2097153, 2097154, 1000001, 1200000 };
    static const int64_t medians[] = { 1048576, 1048576, 500000, 599999 };
    int64_t t = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t name = ps_model_intern_cstr(m, names[k]);
        for (int64_t i = 0; i < counts[k]; i++, t += 10)
            add_kernel(m, s, name, t, t + (i * 1000003) % counts[k]);
    }
    CHECK_EQ("finish", ps_model_finish(m), 0);
    struct ps_report r;
    struct ps_view all;
    memset(&r, 0, sizeof r);
    r.m = m;
    ps_view_all(&all, m);
    r.all = &all;
    CHECK_EQ("summary", summary(&r, &all), 0);
    CHECK_EQ("names", r.nkernels, 4);
    for (int k = 0; k < 4; k++) {
        const struct ps_kernel_stat *st = kernel_stat(&r, m, names[k]);
        if (!st)
            continue;
        CHECK_EQ(names[k], st->median_ns, medians[k]);
        CHECK_EQ("count", st->count, counts[k]);
        CHECK_EQ("max", st->max_ns, counts[k] - 1);
        CHECK_EQ("total", st->total_ns, counts[k] * (counts[k] - 1) / 2);
    }
    r.all = NULL;   /* the test's own view, not the report's */
    ps_report_fini(&r);
    ps_model_free(m);
}

static const struct test_case cases[] = {
    { "model_keeps_long_gpu_durations_exact", .fn = model_keeps_long_gpu_durations_exact },
    { "sweep_and_windows_by_hand", .fn = sweep_and_windows_by_hand },
    { "sweep_matches_interval_algebra", .fn = sweep_matches_interval_algebra },
    { "kernel_median_of_very_common_names", .fn = kernel_median_of_very_common_names },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .all_when_none = 1 };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
