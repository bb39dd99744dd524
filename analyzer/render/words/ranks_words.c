/* The several-rank report's labels and sentences every format words the same way (words.h): rank labels, the
 * tables' category labels, and the straggler the others wait for with the rule that named it (analyses/ranks.h;
 * docs/distributed.md). */
#include <stdio.h>

#include "analyses/ranks.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

int ps_words_ranks_have_gpu(const struct ps_multirank *mr)
{
    for (size_t i = 0; i < mr->nfiles; i++)
        if (mr->files[i].has_gpu)
            return 1;
    return 0;
}

const char *ps_words_ranks_cat_label(int c, int has_gpu)
{
    return c == PS_CAT_COMM ? "Comm" : ps_words_cat_label(c, has_gpu);
}

const char *ps_words_rank_label(char *buf, size_t len, const struct ps_rank_file *rf)
{
    if (rf->launcher_ranks >= 2)
        snprintf(buf, len, "launcher(%zu)", rf->launcher_ranks);
    else
        snprintf(buf, len, "%d", rf->rank);
    return buf;
}

void ps_words_straggler_sentence(char *buf, size_t len, const struct ps_multirank *mr)
{
    const struct ps_wait_straggler *w = &mr->wait;
    const struct ps_rank_file *s = &mr->files[w->file], *o = &mr->files[w->waiter];
    char lab[32], olab[32];
    ps_words_rank_label(lab, sizeof lab, s);
    ps_words_rank_label(olab, sizeof olab, o);
    snprintf(buf, len, "rank %s: +%.1f ms per step %s over the other ranks' median (%.1f against %.1f ms); the other "
             "ranks wait %.1f ms per step for it (rank %s most, in %s; blocked in collectives %.1f ms per step, rank %s "
             "itself %.1f ms); fix: %s",
             lab, MS(w->group_excess_ns), w->cause, MS(w->group_excess_ns + w->median_group_ns),
             MS(w->median_group_ns), MS(w->waited_for_ns), olab, w->wait_in ? w->wait_in : "Communication",
             MS(w->others_wait_ns), lab, MS(w->own_wait_ns), w->fix);
}

const char ps_words_straggler_rule_wait[] = "who waits for whom: the rank blocked the least in collectives while the "
                                            "others wait for it, its own work above the others' median";
const char ps_words_straggler_rule_step[] = "step time: average step more than 5 % slower than the median rank's (no "
                                            "rank is waited for in collectives)";
