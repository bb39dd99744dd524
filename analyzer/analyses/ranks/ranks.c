/* Several ranks in one trace (e.g. `perfscope record -- torchrun ...`: every rank a process): the step
 * breakdown of each process that holds step ranges, and the stragglers — processes whose average step is more
 * than 5 % slower than the median process, with the category that exceeds the median the most. Each process is
 * analysed on its own view of the model (ps_view_set_by_process: one pass makes them all), so P processes cost
 * the sum of their sizes, not P times the whole trace (20000 processes: 9.4 s with whole-trace passes). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"

#define STRAGGLER_MARGIN 0.05   /* slower than the median by more than this: a straggler */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

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

/* The processes holding step ranges, sorted, without repeats. */
static int step_processes(const struct ps_report *r, struct ps_names *names, uint32_t **out, size_t *n)
{
    const struct ps_model *m = r->m;
    uint32_t *pids = malloc((r->all->nranges + 1) * sizeof *pids);
    if (!pids)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < r->all->nranges; i++) {
        const struct ps_range *g = ps_view_range(r->all, i);
        if (g->kind != PS_RANGE_NVTX_MARK && g->kind != PS_RANGE_PYTHON && g->kind != PS_RANGE_GPU_ANNOTATION &&
            (ps_names_flags(names, g->name) & PS_NAME_STEP))
            pids[k++] = m->threads.v[g->thread].pid;
    }
    qsort(pids, k, sizeof *pids, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || pids[u - 1] != pids[i])
            pids[u++] = pids[i];
    *out = pids;
    *n = u;
    return 0;
}

int ps_stragglers_find(const struct ps_rank_stat *ranks, size_t n, struct ps_straggler **out, size_t *nout)
{
    int64_t *v = malloc((n + 1) * sizeof *v), med[PS_CAT_N], med_dur;
    struct ps_straggler *g = calloc(n + 1, sizeof *g);
    *out = NULL;
    *nout = 0;
    if (!v || !g) {
        free(v);
        free(g);
        return -ENOMEM;
    }
    *out = g;
    if (n == 0) {
        free(v);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = ranks[i].avg_dur_ns;
    med_dur = median(v, n);
    for (int c = 0; c < PS_CAT_N; c++) {
        for (size_t i = 0; i < n; i++)
            v[i] = ranks[i].cat_ns[c];
        med[c] = median(v, n);
    }
    free(v);
    for (size_t i = 0; i < n && med_dur > 0; i++) {
        const struct ps_rank_stat *k = &ranks[i];
        double slower = (double)k->avg_dur_ns / (double)med_dur - 1.0;
        if (slower <= STRAGGLER_MARGIN)
            continue;
        int worst = 0;
        for (int c = 1; c < PS_CAT_N; c++)
            if (k->cat_ns[c] - med[c] > k->cat_ns[worst] - med[worst])
                worst = c;
        g[(*nout)++] = (struct ps_straggler){ k->pid, i, slower, worst };
    }
    return 0;
}

/* Process views.views[i] through the one step pipeline (steps, work queued before the trace, breakdown, verdict)
 * as its own trace's report would go, into *k. */
static int process_stat(const struct ps_report *r, struct ps_names *names, const struct ps_view *rows, uint32_t pid,
                        struct ps_rank_stat *k)
{
    struct ps_report sub = { .m = r->m, .opts = r->opts, .has_gpu = r->has_gpu, .run_start_ns = r->run_start_ns,
                             .run_end_ns = r->run_end_ns, .pid = pid, .scoped = 1, .step_tid = -1,
                             .gpu_util = NAN, .comm_comp_overlap = NAN };
    struct ps_view sv = { 0 };
    sub.all = (struct ps_view *)rows;   /* borrowed: the process's rows are its whole trace here */
    sub.scope = calloc(1, sizeof *sub.scope);
    int rc = sub.scope ? ps_view_copy(sub.scope, rows) : -ENOMEM;
    if (rc == 0)
        rc = ps_verdict_steps_compute(&sub, names, &sv);
    if (rc == 0) {
        *k = (struct ps_rank_stat){ .pid = pid, .nsteps = sub.nsteps, .avg_dur_ns = sub.avg_dur_ns,
                                    .sync_ns = sub.avg.sync_ns, .pretrace_ns = sub.avg.pretrace_ns,
                                    .bottleneck = sub.avg.bottleneck, .share = sub.avg.share,
                                    .seen_ns = sub.avg.seen_ns };
        memcpy(k->cat_ns, sub.avg.cat_ns, sizeof k->cat_ns);
        /* every rank over the same span as its breakdown: all its analysed steps, start-up included */
        k->bottleneck = ps_verdict_all_steps(&sub, k->group_ns, &k->seen_ns, &k->share);
    }
    ps_view_fini(&sv);
    sub.all = NULL;   /* borrowed: ps_report_fini frees none */
    ps_report_fini(&sub);
    return rc;
}

int ps_ranks_compute(struct ps_report *r, struct ps_names *names)
{
    uint32_t *pids = NULL;
    size_t n = 0;
    struct ps_view_set views = { 0 };
    int rc = step_processes(r, names, &pids, &n);
    if (rc < 0 || n < 2)
        goto out;
    rc = -ENOMEM;
    if (!(r->ranks = calloc(n, sizeof *r->ranks)) || ps_view_set_by_process(&views, r->all, pids, n) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if ((rc = process_stat(r, names, &views.views[i], pids[i], &r->ranks[i])) < 0)
            goto out;
        r->nranks++;
    }
    rc = ps_stragglers_find(r->ranks, r->nranks, &r->stragglers, &r->nstragglers);
out:
    ps_view_set_fini(&views);
    free(pids);
    return rc;
}
