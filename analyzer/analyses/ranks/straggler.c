/* The straggler of several rank files by who waits for whom (docs/distributed.md). In synchronous data-parallel
 * training every rank's step lasts as long as the slowest one's, because the others wait for it inside the
 * collective; the step-time rule (ranks.c) then sees equal steps. This rule compares, per rank, the time blocked in
 * collectives per step (Communication: NCCL/RCCL kernels on GPU traces, the host's collective calls and their
 * waits without GPU rows) with its own work (the rest of the step): the straggler is the rank blocked the least
 * while the others are blocked for longer than the margin, and its own work exceeds the median rank's; its cause is
 * the verdict group in which it exceeds the others the most, named by its own largest name there. HTA's and
 * TraceLens' collective analyses measure the same wait on the GPU side (the time a rank's collective kernel runs
 * while its peers have not arrived). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/base.h"
#include "analyses/ranks.h"

#define WAIT_MARGIN 0.05   /* the others blocked longer than the straggler by more than this share of the median step */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); even n: mean of the two middle values, floored. */
static int64_t median(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The collective row where rank file f is blocked the most (exposed time), NULL when it has none. */
static const char *blocked_in(const struct ps_rank_file *f)
{
    const struct ps_collective_stat *best = NULL;
    for (size_t k = 0; k < f->ncollectives; k++)
        if (!best || f->collectives[k].exposed_ns > best->exposed_ns)
            best = &f->collectives[k];
    return best ? best->name : NULL;
}

/* The category (not Communication) in which the straggler's average step exceeds the median of the other ranks
 * (files[at[0..n)], the straggler not among them) the most: the JSON's `category` keys (docs/distributed.md). */
static void largest_excess(struct ps_wait_straggler *w, const struct ps_rank_file *files, const size_t *at, size_t n,
                           int64_t *v)
{
    const struct ps_rank_file *s = &files[w->file];
    w->category = -1;
    for (int c = 0; c < PS_CAT_N; c++) {
        if (c == PS_CAT_COMM)
            continue;
        for (size_t i = 0; i < n; i++)
            v[i] = files[at[i]].stat.cat_ns[c];
        int64_t excess = s->stat.cat_ns[c] - median(v, n);
        if (w->category < 0 || excess > w->excess_ns) {
            w->category = c;
            w->excess_ns = excess;
            w->median_category_ns = s->stat.cat_ns[c] - excess;
        }
    }
}

/* The verdict group (not communication) in which the straggler's average over all its analysed steps exceeds the
 * median of the other ranks' (files[at[0..n)]) the most, and the straggler's own largest name in it. A group, not
 * a category: a rank that sleeps in its forward has a longer Kernel (host compute) category, but its causes put
 * the sleep in waiting (analyses/base.h ps_cause_group), and the fix for a sleep is not the fix for
 * compute. */
static void largest_group_excess(struct ps_wait_straggler *w, const struct ps_rank_file *files, const size_t *at,
                                 size_t n, int64_t *v)
{
    const struct ps_rank_file *s = &files[w->file];
    w->group = PS_BN_UNKNOWN;
    for (int g = 0; g < PS_BN_UNKNOWN; g++) {
        if (g == PS_BN_COMM)
            continue;
        for (size_t i = 0; i < n; i++)
            v[i] = files[at[i]].stat.group_ns[g];
        int64_t excess = s->stat.group_ns[g] - median(v, n);
        if (w->group == PS_BN_UNKNOWN || excess > w->group_excess_ns) {
            w->group = (enum ps_bottleneck)g;
            w->group_excess_ns = excess;
            w->median_group_ns = s->stat.group_ns[g] - excess;
        }
    }
    w->group_name = s->group_top[w->group];
    ps_excess_in(w->cause, sizeof w->cause, w->group, s->has_gpu, w->group_name);
    ps_excess_fix(w->fix, sizeof w->fix, w->group, s->has_gpu, w->group_name);
}

int ps_wait_straggler_find(struct ps_multirank *mr)
{
    size_t n = 0, *at = calloc(mr->nfiles + 1, sizeof *at);
    int64_t *v = calloc(mr->nfiles + 1, sizeof *v);
    int rc = at && v ? 0 : -ENOMEM;
    mr->has_wait_straggler = 0;
    for (size_t i = 0; i < mr->nfiles && rc == 0; i++)
        if (mr->files[i].launcher_ranks < 2 && mr->files[i].stat.nsteps > 0)
            at[n++] = i;
    if (rc < 0 || n < 2)
        goto out;
    const struct ps_rank_file *f = mr->files;
    size_t s = at[0];
    for (size_t i = 1; i < n; i++) {   /* blocked the least; among equals, the most own work */
        const struct ps_rank_stat *a = &f[at[i]].stat, *b = &f[s].stat;
        if (a->cat_ns[PS_CAT_COMM] < b->cat_ns[PS_CAT_COMM] ||
            (a->cat_ns[PS_CAT_COMM] == b->cat_ns[PS_CAT_COMM] && a->avg_dur_ns - a->cat_ns[PS_CAT_COMM] >
                                                                     b->avg_dur_ns - b->cat_ns[PS_CAT_COMM]))
            s = at[i];
    }
    struct ps_wait_straggler w = { .file = s, .own_wait_ns = f[s].stat.cat_ns[PS_CAT_COMM],
                                   .own_ns = f[s].stat.avg_dur_ns - f[s].stat.cat_ns[PS_CAT_COMM] };
    size_t k = 0, most = s;
    for (size_t i = 0; i < n; i++)
        if (at[i] != s) {
            v[k++] = f[at[i]].stat.cat_ns[PS_CAT_COMM];
            most = most == s || f[at[i]].stat.cat_ns[PS_CAT_COMM] > f[most].stat.cat_ns[PS_CAT_COMM] ? at[i] : most;
        }
    w.others_wait_ns = median(v, k);
    w.waiter = most;
    w.wait_in = blocked_in(&f[most]);
    for (size_t i = 0; i < n; i++)
        v[i] = f[at[i]].stat.avg_dur_ns;
    int64_t med_step = median(v, n);
    size_t no = 0;                       /* the other ranks, compared with it */
    for (size_t i = 0; i < n; i++)
        if (at[i] != s)
            at[no++] = at[i];
    for (size_t i = 0; i < no; i++)
        v[i] = f[at[i]].stat.avg_dur_ns - f[at[i]].stat.cat_ns[PS_CAT_COMM];
    w.median_own_ns = median(v, no);
    largest_excess(&w, f, at, no, v);
    largest_group_excess(&w, f, at, no, v);
    w.waited_for_ns = w.others_wait_ns - w.own_wait_ns;
    if (w.waited_for_ns > (int64_t)(WAIT_MARGIN * (double)med_step) && w.own_ns > w.median_own_ns) {
        mr->wait = w;
        mr->has_wait_straggler = 1;
    }
out:
    free(at);
    free(v);
    return rc;
}
