/* Per-name totals over string ids (tally.c): O(rows + names), no sort. Private to analyzer/analyses/. */
#ifndef PS_TALLY_H
#define PS_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct ps_tally {
    struct {
        int64_t count, total;
    } *agg;                        /* indexed by string id */
    uint32_t *touched;             /* the ids with a nonzero entry, nt of them */
    size_t nt, nstrings;
};
/* An empty tally over string ids 0..nstrings-1. 0 or -ENOMEM (then *t holds nothing to free). */
int ps_tally_init(struct ps_tally *t, size_t nstrings);
void ps_tally_fini(struct ps_tally *t);   /* zeroed: no-op; leaves *t zeroed */
/* Add `count` and `total` to name's entry; an id at or beyond nstrings (PS_NONE) is ignored. */
static inline void ps_tally_add(struct ps_tally *t, uint32_t name, int64_t count, int64_t total)
{
    if (name >= t->nstrings)
        return;
    if (t->agg[name].count == 0 && t->agg[name].total == 0)
        t->touched[t->nt++] = name;
    t->agg[name].count += count;
    t->agg[name].total += total;
}
/* The k names with the largest totals (by_count: counts), largest first, into ids / count / total; returns how
 * many. Empties the tally. */
size_t ps_tally_top(struct ps_tally *t, size_t k, int by_count, uint32_t *ids, int64_t *count, int64_t *total);

#endif
