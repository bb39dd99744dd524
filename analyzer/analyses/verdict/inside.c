/* The step thread's samples as stretches of time, and the time it spent inside one function or range at any
 * depth (replay.h; docs/report.md "Expected gains"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "inside.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_span(const void *a, const void *b)
{
    const struct ps_span *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

int ps_sample_stretches(const void *base, size_t count,
                        void (*time_of)(const void *, size_t, int64_t *, uint32_t *), uint32_t t, size_t **idx,
                        int64_t **end, size_t *n)
{
    *n = 0;
    *idx = malloc((count + 1) * sizeof **idx);
    *end = malloc((count + 1) * sizeof **end);
    int64_t *gap = malloc((count + 1) * sizeof *gap);
    if (!*idx || !*end || !gap) {
        free(gap);
        return -ENOMEM;
    }
    size_t ngap = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t time;
        uint32_t thread;
        time_of(base, i, &time, &thread);
        if (thread != t)
            continue;
        if (*n && time > (*end)[*n - 1])
            gap[ngap++] = time - (*end)[*n - 1];
        (*idx)[*n] = i;
        (*end)[(*n)++] = time;   /* the sample's time, for now */
    }
    if (ngap == 0) {
        *n = 0;
        free(gap);
        return 0;
    }
    qsort(gap, ngap, sizeof *gap, cmp_i64);
    int64_t cap = 2 * gap[ngap / 2];
    for (size_t k = 0; k < *n; k++) {
        int64_t at = (*end)[k], next = k + 1 < *n ? (*end)[k + 1] : INT64_MAX;
        (*end)[k] = next >= at && next - at < cap ? next : at + cap;
    }
    free(gap);
    return 0;
}

void ps_py_sample_time(const void *base, size_t i, int64_t *time, uint32_t *thread)
{
    const struct ps_py_sample *s = &((const struct ps_py_sample *)base)[i];
    *time = s->time_ns;
    *thread = s->thread;
}

void ps_thread_sample_time(const void *base, size_t i, int64_t *time, uint32_t *thread)
{
    const struct ps_thread_sample *s = &((const struct ps_thread_sample *)base)[i];
    *time = s->time_ns;
    *thread = s->thread;
}


static int add_span(struct ps_spans *o, int64_t s, int64_t e)
{
    if (e <= s)
        return 0;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        struct ps_span *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = (struct ps_span){ s, e };
    return 0;
}

/* 1 when Python stack k holds a frame of function `name`. */
static int stack_holds(const struct ps_model *m, uint32_t k, uint32_t name)
{
    const struct ps_py_stack *st = &m->py_stacks.v[k];
    for (uint32_t lv = 0; lv < st->n; lv++) {
        size_t at = (size_t)st->first + lv;
        uint32_t fr = at < m->py_stack_frames.n ? m->py_stack_frames.v[at] : PS_NONE;
        if (fr < m->py_frames.n && m->py_frames.v[fr].function == name)
            return 1;
    }
    return 0;
}

int ps_inside_spans(const struct ps_view *v, uint32_t thread, uint32_t name, int64_t a, int64_t b,
                    struct ps_spans *out)
{
    const struct ps_model *m = v->m;
    int rc = 0;
    out->n = 0;
    for (size_t i = 0; i < v->nranges && rc == 0; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        if (g->name == name && g->thread == thread && g->end_ns > a && g->start_ns < b)
            rc = add_span(out, g->start_ns, g->end_ns);
    }
    size_t *idx = NULL, n = 0;
    int64_t *end = NULL;
    /* the samples only where no range gives the exact time: a sample stands for up to twice the sampling interval,
     * past the function's return */
    if (rc == 0 && out->n == 0)
        rc = ps_sample_stretches(m->py_samples.v, m->py_samples.n, ps_py_sample_time, thread, &idx, &end, &n);
    for (size_t k = 0; k < n && rc == 0; k++) {
        const struct ps_py_sample *s = &m->py_samples.v[idx[k]];
        if (s->time_ns < b && end[k] > a && s->stack < m->py_stacks.n && stack_holds(m, s->stack, name))
            rc = add_span(out, s->time_ns, end[k]);
    }
    free(idx);
    free(end);
    if (rc < 0 || out->n == 0)
        return rc;
    qsort(out->v, out->n, sizeof *out->v, cmp_span);
    size_t w = 0;   /* merge what overlaps */
    for (size_t k = 1; k < out->n; k++) {
        if (out->v[k].s <= out->v[w].e) {
            out->v[w].e = out->v[k].e > out->v[w].e ? out->v[k].e : out->v[w].e;
        } else {
            out->v[++w] = out->v[k];
        }
    }
    out->n = w + 1;
    return 0;
}

int ps_model_function(const struct ps_model *m, uint32_t name)
{
    static const char *const model[] = { "forward", "backward", "_call_impl", "Optimizer", "optimizer", "aten::",
                                         "autograd", "<built-in method", "<built-in function linear" };
    const char *s = ps_model_str(m, name);
    for (size_t k = 0; s && k < sizeof model / sizeof *model; k++)
        if (strstr(s, model[k]))
            return 1;
    return 0;
}

#define LOOP_SHARE 0.9    /* a frame inside for this much of the steady steps is the loop around them */
#define CALLER_MORE 1.05  /* a caller names the work to move when it holds this much more than its callee */

static int64_t spans_total(const struct ps_spans *o)
{
    int64_t in = 0;
    for (size_t i = 0; i < o->n; i++)
        in += o->v[i].e - o->v[i].s;
    return in;
}

int ps_function_to_move(struct ps_causes *cs, const struct ps_view *v, enum ps_cause c, int64_t a, int64_t b,
                        struct ps_spans *out)
{
    struct ps_cause_stat *st = &cs->c[c];
    st->function = PS_NONE;
    out->n = 0;
    if (!st->ntop || cs->thread == PS_NONE)
        return 0;
    int rc = ps_inside_spans(v, cs->thread, st->top[0].name, a, b, out);
    if (rc < 0 || c != PS_CAUSE_HOST || ps_model_function(v->m, st->top[0].name))
        return rc;
    st->function = st->top[0].name;
    struct ps_spans cand = { 0 };
    int64_t now = spans_total(out);
    /* outward from top[0] (the chain's last frame) to the outermost frame that is neither the model nor the loop;
     * a caller that holds no more of the steps than its callee (a list comprehension around it) names nothing
     * better */
    for (size_t k = st->nchain >= 1 ? st->nchain - 1 : 0; k-- > 0 && rc == 0;) {
        uint32_t f = st->chain[k];
        if (ps_model_function(v->m, f) || (rc = ps_inside_spans(v, cs->thread, f, a, b, &cand)) < 0)
            break;
        int64_t in = spans_total(&cand);
        if ((double)in >= LOOP_SHARE * (double)(b - a) || cand.n == 0)
            break;
        if ((double)in <= CALLER_MORE * (double)now)
            continue;
        struct ps_spans t = *out;
        *out = cand;
        cand = t;
        now = in;
        st->function = f;
    }
    free(cand.v);
    return rc;
}

uint8_t *ps_blocking_calls(const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    uint8_t *b = calloc(m->api.n + 1, 1);
    if (!b)
        return NULL;
    for (size_t i = 0; i < v->napi; i++)
        if (ps_names_flags(names, ps_view_api(v, i)->name) & PS_NAME_SYNC_API)
            b[ps_view_api_index(v, i)] = 1;
    /* the CUDA Runtime API's "API synchronization behavior": a copy from pageable host memory to the device returns
     * once the data is staged, after the stream's earlier work; one from the device to pageable memory returns once
     * the copy has completed, whatever the Async suffix */
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind == PS_GPU_MEMCPY && op.launch != PS_NONE && op.launch < m->api.n &&
            ((op.copy_kind == PS_COPY_DTOH && op.dst_kind == PS_MEM_PAGEABLE) ||
             (op.copy_kind == PS_COPY_HTOD && op.src_kind == PS_MEM_PAGEABLE)))
            b[op.launch] = 1;
    }
    return b;
}
