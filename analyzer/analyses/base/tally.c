/* Per-name totals over string ids (analyses/base.h): a dense array indexed by id, and the list of ids touched so that
 * taking the top k and emptying the tally cost the names seen, not every string of the model. */
#include <errno.h>
#include <stdlib.h>

#include "analyses/base.h"

int ps_tally_init(struct ps_tally *t, size_t nstrings)
{
    *t = (struct ps_tally){ .nstrings = nstrings };
    t->agg = calloc(nstrings + 1, sizeof *t->agg);
    t->touched = malloc((nstrings + 1) * sizeof *t->touched);
    if (!t->agg || !t->touched) {
        ps_tally_fini(t);
        return -ENOMEM;
    }
    return 0;
}

void ps_tally_fini(struct ps_tally *t)
{
    free(t->agg);
    free(t->touched);
    *t = (struct ps_tally){ 0 };
}

size_t ps_tally_top(struct ps_tally *t, size_t k, int by_count, uint32_t *ids, int64_t *count, int64_t *total)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nt; i++) {
        uint32_t id = t->touched[i];
        int64_t key = by_count ? t->agg[id].count : t->agg[id].total;
        size_t pos = n;
        while (pos > 0 && (by_count ? count[pos - 1] : total[pos - 1]) < key)
            pos--;
        if (pos < k) {
            n += n < k;
            for (size_t j = n - 1; j > pos; j--)
                ids[j] = ids[j - 1], count[j] = count[j - 1], total[j] = total[j - 1];
            ids[pos] = id, count[pos] = t->agg[id].count, total[pos] = t->agg[id].total;
        }
    }
    for (size_t i = 0; i < t->nt; i++)
        t->agg[t->touched[i]].count = t->agg[t->touched[i]].total = 0;
    t->nt = 0;
    return n;
}
