/* ps_model_finish on arrays large enough to leave the insertion-sort path: random, reversed and
 * all-equal keys end up sorted by (start, end) with nothing lost, and every GPU op links to the API call
 * with its correlation id in its own process (ground truth: the generator below pairs them). Then GPU ops added
 * in time order but for the last few (rows known in order as they are added must not hide a late one), and
 * ps_model_reserve's contract: rows added within the room never move, an impossible room is refused with
 * nothing changed. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "model/model.h"

#define N 200000

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* N ops with starts 10, 20, ... in order, reserved for up front, then starts 15 (equal to nothing), 20 (equal to
 * one, shorter) and 5 (before all): finished, the N + 3 starts rise, with 5 first and the two 20s shorter first. */
static void in_order_but_the_last(void)
{
    struct ps_model *m = ps_model_new("synthetic", PS_FORMAT_PERFSCOPE);
    uint32_t s = ps_model_stream(m, 100, 0, 7), name = ps_model_intern_cstr(m, "k");
    CHECK_EQ(ps_model_reserve(m, SIZE_MAX / 2, 0), -ENOMEM);
    CHECK_EQ(m->gpu.n, 0);
    CHECK_EQ(ps_model_reserve(m, N + 3, 10), 0);
    CHECK(m->gpu.cap >= N + 3 && m->api.cap >= 10, "room for %zu ops, %zu calls", m->gpu.cap, m->api.cap);
    const struct ps_gpu_row *rows = m->gpu.v;
    for (int i = 0; i < N; i++) {
        struct ps_gpu_op op = { .start_ns = 10 * (i + 1), .end_ns = 10 * (i + 1) + 4, .correlation = (uint64_t)i + 1,
                                .name = name, .stream = s };
        CHECK_EQ(ps_model_add_gpu(m, &op), 0);
    }
    CHECK(m->gpu.v == rows, "rows moved although room for them was made");
    static const int64_t late[3][2] = { { 15, 16 }, { 20, 21 }, { 5, 6 } };
    for (int k = 0; k < 3; k++) {
        struct ps_gpu_op op = { .start_ns = late[k][0], .end_ns = late[k][1], .name = name, .stream = s };
        CHECK_EQ(ps_model_add_gpu(m, &op), 0);
    }
    CHECK_EQ(ps_model_finish(m), 0);
    CHECK_EQ(m->gpu.n, N + 3);
    size_t bad = 0;
    for (size_t i = 1; i < m->gpu.n; i++)
        bad += ps_model_gpu(m, i).start_ns < ps_model_gpu(m, i - 1).start_ns;
    CHECK_EQ(bad, 0);
    CHECK_EQ(ps_model_gpu(m, 0).start_ns, 5);
    CHECK_EQ(ps_model_gpu(m, 2).start_ns, 15);
    CHECK_EQ(ps_model_gpu(m, 3).end_ns, 21);   /* the two ops at 20: the shorter (ends 21) first */
    CHECK_EQ(ps_model_gpu(m, 4).end_ns, 24);
    ps_model_free(m);
}

int main(void)
{
    struct ps_model *m = ps_model_new("synthetic", PS_FORMAT_PERFSCOPE);
    uint64_t seed = 42, sum_in = 0, sum_out = 0;
    uint32_t t1 = ps_model_thread(m, 100, 100), t2 = ps_model_thread(m, 200, 200);
    uint32_t s1 = ps_model_stream(m, 100, 0, 7), s2 = ps_model_stream(m, 200, 0, 7);
    uint32_t name = ps_model_intern_cstr(m, "k");
    for (int i = 0; i < N; i++) {
        /* GPU op i: random start (many duplicates: 1000 distinct values), process 100 or 200,
         * correlation i / 2 + 1 (so both processes use every correlation id) */
        int64_t start = (int64_t)(lcg(&seed) % 1000);
        struct ps_gpu_op op = { .start_ns = start, .end_ns = start + (int64_t)(lcg(&seed) % 50),
                                .correlation = (uint64_t)(i / 2 + 1), .name = name, .stream = i % 2 ? s2 : s1 };
        sum_in += (uint64_t)op.start_ns * 31 + (uint64_t)op.end_ns * 7 + op.correlation;
        CHECK_EQ(ps_model_add_gpu(m, &op), 0);
        /* API calls in reverse time order; start encodes (process, correlation) for the link check */
        struct ps_api_call call = { .start_ns = (int64_t)(N - i) * 10, .correlation = (uint64_t)(i / 2 + 1),
                                    .thread = i % 2 ? t2 : t1, .name = name };
        call.end_ns = call.start_ns + 5;
        CHECK_EQ(ps_model_add_api(m, &call), 0);
        /* ranges with all-equal keys */
        struct ps_range r = { .start_ns = 5, .end_ns = 9, .name = name, .thread = t1, .domain = PS_NONE };
        CHECK_EQ(ps_model_add_range(m, &r), 0);
    }
    CHECK_EQ(ps_model_finish(m), 0);
    CHECK_EQ(m->gpu.n, N);
    CHECK_EQ(m->api.n, N);
    CHECK_EQ(m->ranges.n, N);
    long bad_order = 0, bad_link = 0;
    struct ps_gpu_op prev = { 0 };
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        sum_out += (uint64_t)op->start_ns * 31 + (uint64_t)op->end_ns * 7 + op->correlation;
        if (i && (op->start_ns < prev.start_ns || (op->start_ns == prev.start_ns && op->end_ns < prev.end_ns)))
            bad_order++;
        const struct ps_api_call *c = op->launch < m->api.n ? &m->api.v[op->launch] : NULL;
        if (!c || c->correlation != op->correlation ||
            m->threads.v[c->thread].pid != m->streams.v[op->stream].pid)
            bad_link++;
        prev = *op;
    }
    CHECK_EQ(bad_order, 0);
    CHECK_EQ(bad_link, 0);
    CHECK_EQ(sum_out, sum_in);
    for (size_t i = 1; i < m->api.n; i++)
        if (m->api.v[i].start_ns < m->api.v[i - 1].start_ns)
            bad_order++;
    CHECK_EQ(bad_order, 0);
    CHECK_EQ(m->api.v[0].start_ns, 10);
    ps_model_free(m);
    in_order_but_the_last();
    return check_failures ? 1 : 0;
}
