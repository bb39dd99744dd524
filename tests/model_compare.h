/* Comparing two models by content (tests of the growing model and of the follower): the GPU ops, API calls and
 * ranges each model holds, every row as its values and the values of what it points at (strings, the thread's
 * pid/tid, the stream's pid/device/stream, the launching call) — never model indices, which differ between a
 * model grown in steps and one read in one go. Also checks each kind is sorted by (start, end). Uses check.h. */
#ifndef PS_TEST_MODEL_COMPARE_H
#define PS_TEST_MODEL_COMPARE_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/model.h"
#include "ps_hashmap.h"

enum compare_kind { COMPARE_API, COMPARE_GPU, COMPARE_RANGES, COMPARE_KINDS };

struct compare_row {
    int64_t v[14];
};

static int compare_row_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct compare_row));
}

static int64_t compare_str(const struct ps_model *m, uint32_t id)
{
    const char *s = ps_model_str(m, id);
    return (int64_t)ps_hash_bytes(s, strlen(s));
}

static void compare_call(const struct ps_model *m, const struct ps_api_call *a, int64_t *v)
{
    v[0] = a->start_ns, v[1] = a->end_ns, v[2] = (int64_t)a->correlation, v[3] = compare_str(m, a->name);
    v[4] = m->threads.v[a->thread].pid, v[5] = m->threads.v[a->thread].tid, v[6] = a->driver;
}

/* The rows of one kind as content, sorted; *n their number. */
static struct compare_row *compare_rows(const struct ps_model *m, enum compare_kind kind, size_t *n)
{
    size_t count = kind == COMPARE_API ? m->api.n : kind == COMPARE_GPU ? m->gpu.n : m->ranges.n;
    struct compare_row *c = calloc(count + 1, sizeof *c);
    int64_t prev_start = INT64_MIN, prev_end = INT64_MIN;
    for (size_t i = 0; i < count; i++) {
        int64_t *v = c[i].v;
        if (kind == COMPARE_API) {
            compare_call(m, &m->api.v[i], v);
        } else if (kind == COMPARE_GPU) {
            struct ps_gpu_op op = ps_model_gpu(m, i);
            const struct ps_stream *s = &m->streams.v[op.stream];
            int64_t w[] = { op.start_ns, op.end_ns, compare_str(m, op.name), s->pid, s->device, s->stream,
                            (int64_t)op.bytes, op.kind << 24 | op.copy_kind << 16 | op.src_kind << 8 | op.dst_kind };
            memcpy(v, w, sizeof w);
            if (op.launch != PS_NONE)   /* the launching call by content */
                compare_call(m, &m->api.v[op.launch], v + 7);
            else
                v[7] = v[8] = -1;
        } else {
            const struct ps_range *g = &m->ranges.v[i];
            int64_t w[] = { g->start_ns, g->end_ns, compare_str(m, g->name), m->threads.v[g->thread].pid,
                            m->threads.v[g->thread].tid, g->kind, g->domain == PS_NONE ? -1 : compare_str(m, g->domain),
                            g->category };
            memcpy(v, w, sizeof w);
        }
        CHECK(v[0] > prev_start || (v[0] == prev_start && v[1] >= prev_end), "kind %d row %zu out of order", kind,
              i);
        prev_start = v[0], prev_end = v[1];
    }
    qsort(c, count, sizeof *c, compare_row_cmp);
    *n = count;
    return c;
}

static size_t compare_linked(const struct ps_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->gpu.n; i++)
        n += ps_model_gpu(m, i).launch != PS_NONE;
    return n;
}

/* 1 when `got` holds the rows of `want` (checks failed otherwise, naming `when`). */
static int models_same_rows(const struct ps_model *got, const struct ps_model *want, const char *when)
{
    int before = check_failures;
    for (int kind = 0; kind < COMPARE_KINDS; kind++) {
        size_t ng, nw;
        struct compare_row *g = compare_rows(got, (enum compare_kind)kind, &ng);
        struct compare_row *w = compare_rows(want, (enum compare_kind)kind, &nw);
        CHECK(ng == nw, "%s: kind %d: %zu rows, expected %zu", when, kind, ng, nw);
        for (size_t i = 0; i < ng && i < nw; i++)
            if (memcmp(&g[i], &w[i], sizeof *g)) {
                CHECK(0, "%s: kind %d: row %zu differs (start %lld / %lld, launch start %lld / %lld)", when, kind, i,
                      (long long)g[i].v[0], (long long)w[i].v[0], (long long)g[i].v[7], (long long)w[i].v[7]);
                break;
            }
        free(g);
        free(w);
    }
    CHECK_EQ(when, compare_linked(got), compare_linked(want));
    return check_failures == before;
}

#endif
