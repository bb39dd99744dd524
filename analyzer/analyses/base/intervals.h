/* Sets of half-open time intervals [start, end) in ns, held in memory: the step breakdown of traces without GPU
 * rows (copy and data ranges) is built on them, and they are the reference the streaming tools of sweep.h (which
 * every analysis of GPU rows uses instead, in O(1) memory per category) are tested against. A set is "normal"
 * once sorted and merged (disjoint, increasing, no empty pieces); the set operations take and give normal sets
 * and run in linear time. */
#ifndef PS_INTERVALS_H
#define PS_INTERVALS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct ps_ivl {
    int64_t s, e;   /* ns, s <= e */
};

struct ps_ivls {
    struct ps_ivl *v;
    size_t n, cap;
};

/* Free the storage (the struct itself is caller-owned) and leave an empty set. */
void ps_ivls_fini(struct ps_ivls *a);
/* Make room for n intervals in all (one allocation instead of repeated growth). Returns 0 or -ENOMEM. */
int ps_ivls_reserve(struct ps_ivls *a, size_t n);
/* Add [s, e) to the set; empty or reversed intervals are ignored. An interval starting inside the last one
 * is merged into it at once, so sets built in start order stay small. Returns 0 or -ENOMEM.
 * Inline: called once per row. */
static inline int ps_ivls_push(struct ps_ivls *a, int64_t s, int64_t e)
{
    if (e <= s)
        return 0;
    if (a->n && s >= a->v[a->n - 1].s && s <= a->v[a->n - 1].e) {
        if (e > a->v[a->n - 1].e)   /* in order and overlapping the last piece: merge now, the set is a union */
            a->v[a->n - 1].e = e;
        return 0;
    }
    if (a->n == a->cap && ps_ivls_reserve(a, a->cap ? a->cap * 2 : 64) < 0)
        return -ENOMEM;
    a->v[a->n++] = (struct ps_ivl){ s, e };
    return 0;
}
/* Sort and merge in place (touching intervals merge): the set becomes normal. */
void ps_ivls_normalize(struct ps_ivls *a);
/* out = a ∩ b, a − b (a, b normal; out must be a distinct, caller-initialised set whose old contents are
 * replaced). Return 0 or -ENOMEM. (a ∪ b: push b's pieces into a and normalise.) */
int ps_ivls_intersect(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b);
int ps_ivls_subtract(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b);
/* Total length in ns of a normal set. */
int64_t ps_ivls_total(const struct ps_ivls *a);
/* Length of a normal set inside [s, e): O(log n + pieces inside). */
int64_t ps_ivls_within(const struct ps_ivls *a, int64_t s, int64_t e);

#endif
