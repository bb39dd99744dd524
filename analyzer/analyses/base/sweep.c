/* Streaming interval tools (analyses/base.h): the sweep line over categories and window totals at sorted query
 * points, both for events and pieces that arrive in time order. */
#include "analyses/base.h"

#include <stdlib.h>

void ps_sweep_init(struct ps_sweep *w, int ncat, void (*piece)(void *, int64_t, int64_t, unsigned), void *ctx)
{
    w->ncat = ncat < PS_SWEEP_MAX ? ncat : PS_SWEEP_MAX;
    w->t = INT64_MIN;
    for (int c = 0; c < PS_SWEEP_MAX; c++)
        w->end[c] = INT64_MIN;
    w->active = 0;
    w->next = INT64_MAX;
    w->piece = piece;
    w->ctx = ctx;
}

/* Recompute the active set and its earliest end from the ends (after some category ended at w->t). */
static void recount(struct ps_sweep *w)
{
    w->active = 0;
    w->next = INT64_MAX;
    for (int c = 0; c < w->ncat; c++) {
        if (w->end[c] > w->t) {
            w->active |= 1u << c;
            w->next = w->end[c] < w->next ? w->end[c] : w->next;
        }
    }
}

/* Hand out the pieces in [w->t, to): between two event starts the active set only shrinks, at the ends. */
static void advance(struct ps_sweep *w, int64_t to)
{
    while (w->t < to) {
        if (!w->active) {
            w->t = to;
            return;
        }
        int64_t b = w->next < to ? w->next : to;
        w->piece(w->ctx, w->t, b, w->active);
        w->t = b;
        if (b == w->next)
            recount(w);
    }
}

void ps_sweep_add(struct ps_sweep *w, int cat, int64_t s, int64_t e)
{
    if (e <= s || cat < 0 || cat >= w->ncat)
        return;   /* empty intervals cover no time (ps_ivls_push ignores them too) */
    advance(w, s);
    int64_t old = w->end[cat];
    if (e <= old)
        return;
    unsigned bit = 1u << cat;
    w->end[cat] = e;   /* e > s >= w->t: the category is active now */
    if (!(w->active & bit)) {
        w->active |= bit;
        w->next = e < w->next ? e : w->next;
    } else if (old == w->next) {   /* its end was the earliest: find the new earliest */
        if (w->active == bit)
            w->next = e;
        else
            recount(w);
    }
}

void ps_sweep_finish(struct ps_sweep *w)
{
    advance(w, INT64_MAX);
}

struct query {
    int64_t t;
    size_t point;         /* 2 * window + (0 start, 1 end) */
};

struct ps_windows {
    struct query *q;      /* the 2n window ends, sorted by time */
    size_t nq, next;      /* q[0..next) have their value */
    size_t *pos;          /* point -> index in q */
    int64_t *val;         /* point -> time of the pieces before it */
    int64_t cum;          /* time of all pieces so far */
};

static int cmp_query(const void *a, const void *b)
{
    const struct query *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

int ps_windows_new(struct ps_windows **out, const int64_t *start, const int64_t *end, size_t n)
{
    struct ps_windows *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return -ENOMEM;
    w->nq = 2 * n;
    w->q = malloc((w->nq + 1) * sizeof *w->q);
    w->pos = malloc((w->nq + 1) * sizeof *w->pos);
    w->val = calloc(w->nq + 1, sizeof *w->val);
    if (!w->q || !w->pos || !w->val) {
        ps_windows_free(w);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        w->q[2 * i] = (struct query){ start[i], 2 * i };
        w->q[2 * i + 1] = (struct query){ end[i], 2 * i + 1 };
    }
    qsort(w->q, w->nq, sizeof *w->q, cmp_query);
    for (size_t k = 0; k < w->nq; k++)
        w->pos[w->q[k].point] = k;
    *out = w;
    return 0;
}

void ps_windows_piece(struct ps_windows *w, int64_t s, int64_t e)
{
    if (e <= s)
        return;
    for (; w->next < w->nq && w->q[w->next].t <= s; w->next++)
        w->val[w->q[w->next].point] = w->cum;
    for (; w->next < w->nq && w->q[w->next].t < e; w->next++)
        w->val[w->q[w->next].point] = w->cum + (w->q[w->next].t - s);
    w->cum += e - s;
}

static int64_t point_value(const struct ps_windows *w, size_t point)
{
    return w->pos[point] < w->next ? w->val[point] : w->cum;   /* after the last piece: everything before */
}

int64_t ps_windows_get(const struct ps_windows *w, size_t i)
{
    if (w->q[w->pos[2 * i + 1]].t <= w->q[w->pos[2 * i]].t)
        return 0;   /* empty or reversed window */
    return point_value(w, 2 * i + 1) - point_value(w, 2 * i);
}

void ps_windows_free(struct ps_windows *w)
{
    if (!w)
        return;
    free(w->q);
    free(w->pos);
    free(w->val);
    free(w);
}
