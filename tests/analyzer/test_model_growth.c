/* A growing model (ps_model_set_growing) finished after every batch of appended rows equals a model read in one go
 * from the same rows, and ps_model_drop_before leaves what a model of the rows kept would hold. The ground truth is
 * the one-pass model (ps_model_finish of a fresh model fed every row so far), built by the same generator.
 *
 * The generator emits the rows of two processes (the same correlation ids in both, so a link must respect the
 * process) in batches that are out of order the way a recording's tables are: NVTX ranges are written when they
 * end (a step after its inner ranges), GPU ops may be written before or after the API call that launched them,
 * starts tie, some ops have no launch row at all, some have correlation 0, some last longer than 2^32 ns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cases.h"
#include "../check.h"
#include "../model_compare.h"
#include "model/model.h"

enum row_kind { ROW_API, ROW_GPU, ROW_RANGE };

struct gen_row {
    enum row_kind kind;
    int64_t start, end;
    uint64_t corr;
    uint32_t pid, tid, stream;
    int name;
};

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define MAX_ROWS 6000
static struct gen_row rows[MAX_ROWS];
static size_t nrows;

/* Launches and their kernels around time t of process pid: the call [t, t+5 us), its op later (or, for one in
 * eight, before it in the table); a step range around them written after its inner range. */
static void generate(void)
{
    uint64_t corr[2] = { 1, 1 };
    for (int step = 0; nrows + 40 < MAX_ROWS; step++) {
        for (uint32_t p = 0; p < 2; p++) {
            uint32_t pid = 100 + p, tid = pid + 1;
            int64_t t0 = (int64_t)step * 1000000 + (int64_t)(next_rand() % 3) * 1000;   /* starts tie often */
            struct gen_row inner = { ROW_RANGE, t0 + 1000, t0 + 400000, 0, pid, tid, 0, 1 };
            for (int k = 0; k < 6; k++) {
                int64_t t = t0 + 2000 + k * 50000;
                uint64_t c = corr[p]++;
                struct gen_row call = { ROW_API, t, t + 5000, c, pid, tid, 0, 2 };
                int64_t gs = t + 20000 + (int64_t)(next_rand() % 2) * 30000;
                int64_t ge = k == 5 && step % 7 == 3 ? gs + 5000000000ll : gs + 10000 + (int64_t)(next_rand() % 4);
                struct gen_row op = { ROW_GPU, gs, ge, next_rand() % 10 == 0 ? 0 : c, pid, 0,
                                      (uint32_t)(next_rand() % 2), 3 + (int)(next_rand() % 3) };
                int op_first = next_rand() % 8 == 0, no_call = next_rand() % 16 == 0;
                if (op_first)
                    rows[nrows++] = op;
                if (!no_call)
                    rows[nrows++] = call;
                if (!op_first)
                    rows[nrows++] = op;
            }
            rows[nrows++] = inner;
            rows[nrows++] = (struct gen_row){ ROW_RANGE, t0, t0 + 900000, 0, pid, tid, 0, 0 };   /* the step */
        }
    }
}

static const char *const names[] = { "step", "forward", "cudaLaunchKernel", "gemm", "conv", "relu" };

static void add_row(struct ps_model *m, const struct gen_row *r)
{
    uint32_t thread = ps_model_thread(m, r->pid, r->tid);
    ps_model_process(m, r->pid);
    uint32_t name = ps_model_intern_cstr(m, names[r->name]);
    int rc = 0;
    if (r->kind == ROW_API) {
        struct ps_api_call c = { .start_ns = r->start, .end_ns = r->end, .correlation = r->corr, .name = name,
                                 .thread = thread };
        rc = ps_model_add_api(m, &c);
    } else if (r->kind == ROW_GPU) {
        struct ps_gpu_op op = { .start_ns = r->start, .end_ns = r->end, .correlation = r->corr, .name = name,
                                .stream = ps_model_stream(m, r->pid, 0, r->stream), .kind = PS_GPU_KERNEL };
        rc = ps_model_add_gpu(m, &op);
    } else {
        struct ps_range g = { .start_ns = r->start, .end_ns = r->end, .name = name, .thread = thread,
                              .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
        rc = ps_model_add_range(m, &g);
    }
    CHECK(rc == 0);
}

/* The one-pass model of rows[0, n) that a growing model dropping the rows before `cut` after row `appended_after_cut`
 * holds: the rows that start at or after the cut, and every row appended after it. */
static struct ps_model *read_in_one_go(size_t n, int64_t cut, size_t appended_after_cut)
{
    struct ps_model *m = ps_model_new("one-go", PS_FORMAT_PERFSCOPE);
    for (size_t i = 0; i < n; i++)
        if (rows[i].start >= cut || i >= appended_after_cut)
            add_row(m, &rows[i]);
    CHECK(ps_model_finish(m) == 0);
    return m;
}

static void test_growth_equals_one_pass_read(void)
{
    generate();
    struct ps_model *grown = ps_model_new("grown", PS_FORMAT_PERFSCOPE);
    CHECK(ps_model_set_growing(grown) == 0);
    size_t done = 0, batch = 1, nbatches = 0;
    int64_t cut = INT64_MIN;
    size_t cut_at = MAX_ROWS;
    while (done < nrows) {
        size_t end = done + batch < nrows ? done + batch : nrows;
        for (size_t i = done; i < end; i++)
            add_row(grown, &rows[i]);
        CHECK(ps_model_finish(grown) == 0);
        done = end;
        nbatches++;
        if (nbatches % 4 == 0 || done == nrows) {   /* compare (every row would make the test quadratic) */
            struct ps_model *fresh = read_in_one_go(done, cut, cut_at);
            char when[64];
            snprintf(when, sizeof when, "after %zu rows", done);
            int ok = models_same_rows(grown, fresh, when);
            ps_model_free(fresh);
            if (!ok)
                break;
        }
        if (nbatches == 60) {   /* drop the older rows once, then go on growing */
            cut = grown->ranges.v[grown->ranges.n / 2].start_ns;
            cut_at = done;
            CHECK(ps_model_drop_before(grown, cut, PS_NONE) == 0);
            struct ps_model *fresh = read_in_one_go(done, cut, cut_at);
            models_same_rows(grown, fresh, "after dropping the rows before the cut");
            CHECK(grown->gpu.n > 0 && grown->gpu.v[0].start_ns >= cut);
            ps_model_free(fresh);
        }
        batch = batch * 3 % 97 + 1;   /* 1 to 97 rows */
    }
    CHECK(nbatches > 100, "%zu batches", nbatches);
    CHECK(compare_linked(grown) > grown->gpu.n / 2);
    ps_model_free(grown);
}

/* Hand-worked: one op read before its launch; the call then sorts before a call already merged, so the first
 * op's link must follow it to its new index. */
static void test_late_launch_and_moved_call(void)
{
    struct ps_model *m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    CHECK(ps_model_set_growing(m) == 0);
    uint32_t th = ps_model_thread(m, 7, 7), st = ps_model_stream(m, 7, 0, 1), k = ps_model_intern_cstr(m, "k");
    ps_model_process(m, 7);
    struct ps_api_call b = { .start_ns = 200, .end_ns = 210, .correlation = 2, .name = k, .thread = th };
    struct ps_gpu_op opb = { .start_ns = 300, .end_ns = 310, .correlation = 2, .name = k, .stream = st };
    struct ps_gpu_op opa = { .start_ns = 250, .end_ns = 260, .correlation = 1, .name = k, .stream = st };
    ps_model_add_api(m, &b);
    ps_model_add_gpu(m, &opb);
    ps_model_add_gpu(m, &opa);   /* its call (correlation 1) comes next batch */
    CHECK(ps_model_finish(m) == 0);
    /* ops by start: opa (250, unlinked yet), opb (300 -> call 0) */
    CHECK_EQ(ps_model_gpu(m, 0).launch, PS_NONE);
    CHECK_EQ(ps_model_gpu(m, 1).launch, 0);
    struct ps_api_call a = { .start_ns = 100, .end_ns = 110, .correlation = 1, .name = k, .thread = th };
    ps_model_add_api(m, &a);
    CHECK(ps_model_finish(m) == 0);
    /* calls by start: a (100) at 0, b (200) moved to 1; opa -> 0, opb -> 1 */
    CHECK_EQ(m->api.v[0].start_ns, 100);
    CHECK_EQ(ps_model_gpu(m, 0).launch, 0);
    CHECK_EQ(ps_model_gpu(m, 1).launch, 1);
    CHECK_EQ(ps_model_gpu(m, 1).correlation, 2);
    /* drop before 150: call a goes, opa (250) stays unlinked, opb's call is now index 0 */
    CHECK(ps_model_drop_before(m, 150, PS_NONE) == 0);
    CHECK_EQ(m->api.n, 1);
    CHECK_EQ(m->gpu.n, 2);
    CHECK_EQ(ps_model_gpu(m, 0).launch, PS_NONE);
    CHECK_EQ(ps_model_gpu(m, 1).launch, 0);
    /* rows added and not finished: no drop */
    ps_model_add_api(m, &a);
    CHECK_EQ(ps_model_drop_before(m, 0, PS_NONE), -22);
    ps_model_free(m);
    /* a model with rows cannot start growing */
    m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    ps_model_add_api(m, &a);
    CHECK_EQ(ps_model_set_growing(m), -22);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "equals_one_pass_read", .fn = test_growth_equals_one_pass_read },
        { "late_launch_and_moved_call", .fn = test_late_launch_and_moved_call },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
