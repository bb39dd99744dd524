/* Interval-set algebra over half-open ns intervals: sort+merge, union, intersection, difference,
 * and length inside a window. Used by the step breakdown, HTA and TraceLens analyses. */
#include "analyses/base.h"

#include <errno.h>
#include <stdlib.h>

void ps_ivls_fini(struct ps_ivls *a)
{
    free(a->v);
    *a = (struct ps_ivls){ 0 };
}

/* Make room for n intervals in all (one allocation instead of repeated growth). Returns 0 or -ENOMEM. */
static int reserve(struct ps_ivls *a, size_t n)
{
    if (n <= a->cap)
        return 0;
    struct ps_ivl *v = realloc(a->v, n * sizeof *v);
    if (!v)
        return -ENOMEM;
    a->v = v;
    a->cap = n;
    return 0;
}

int ps_ivls_push(struct ps_ivls *a, int64_t s, int64_t e)
{
    if (e <= s)
        return 0;
    if (a->n && s >= a->v[a->n - 1].s && s <= a->v[a->n - 1].e) {
        if (e > a->v[a->n - 1].e)   /* in order and overlapping the last piece: merge now, the set is a union */
            a->v[a->n - 1].e = e;
        return 0;
    }
    if (a->n == a->cap && reserve(a, a->cap ? a->cap * 2 : 64) < 0)
        return -ENOMEM;
    a->v[a->n++] = (struct ps_ivl){ s, e };
    return 0;
}

/* Room for n intervals in a set whose contents are about to be replaced: no copy of the old ones. */
static int reserve_empty(struct ps_ivls *a, size_t n)
{
    a->n = 0;
    if (n <= a->cap)
        return 0;
    free(a->v);
    a->v = malloc(n * sizeof *a->v);
    a->cap = a->v ? n : 0;
    return a->v ? 0 : -ENOMEM;
}

static int cmp_ivl(const void *x, const void *y)
{
    const struct ps_ivl *a = x, *b = y;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

void ps_ivls_normalize(struct ps_ivls *a)
{
    if (a->n < 2)
        return;
    int sorted = 1, disjoint = 1;   /* sets pushed in start order are usually normal already */
    for (size_t i = 1; i < a->n && sorted; i++) {
        sorted = a->v[i - 1].s <= a->v[i].s;
        disjoint = disjoint && a->v[i - 1].e < a->v[i].s;
    }
    if (sorted && disjoint)
        return;
    if (!sorted)
        qsort(a->v, a->n, sizeof *a->v, cmp_ivl);
    size_t w = 0;
    for (size_t i = 1; i < a->n; i++) {
        if (a->v[i].s <= a->v[w].e) {
            if (a->v[i].e > a->v[w].e)
                a->v[w].e = a->v[i].e;
        } else {
            a->v[++w] = a->v[i];
        }
    }
    a->n = w + 1;
}

int ps_ivls_intersect(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b)
{
    if (reserve_empty(out, a->n + b->n + 1) < 0)
        return -ENOMEM;
    size_t i = 0, j = 0;
    out->n = 0;
    while (i < a->n && j < b->n) {
        int64_t s = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
        int64_t e = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
        if (s < e && ps_ivls_push(out, s, e) < 0)
            return -ENOMEM;
        if (a->v[i].e < b->v[j].e)
            i++;
        else
            j++;
    }
    return 0;
}

int ps_ivls_subtract(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b)
{
    if (reserve_empty(out, a->n + b->n + 1) < 0)
        return -ENOMEM;
    size_t j = 0;
    out->n = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t s = a->v[i].s, e = a->v[i].e;
        while (j < b->n && b->v[j].e <= s)
            j++;
        for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
            if (b->v[k].s > s && ps_ivls_push(out, s, b->v[k].s) < 0)
                return -ENOMEM;
            if (b->v[k].e > s)
                s = b->v[k].e;
            if (s >= e)
                break;
        }
        if (s < e && ps_ivls_push(out, s, e) < 0)
            return -ENOMEM;
    }
    return 0;
}

int64_t ps_ivls_total(const struct ps_ivls *a)
{
    int64_t t = 0;
    for (size_t i = 0; i < a->n; i++)
        t += a->v[i].e - a->v[i].s;
    return t;
}

int64_t ps_ivls_within(const struct ps_ivls *a, int64_t s, int64_t e)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {             /* first piece ending after s */
        size_t mid = (lo + hi) / 2;
        if (a->v[mid].e <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < a->n && a->v[i].s < e; i++) {
        int64_t x = a->v[i].s > s ? a->v[i].s : s;
        int64_t y = a->v[i].e < e ? a->v[i].e : e;
        if (y > x)
            t += y - x;
    }
    return t;
}
