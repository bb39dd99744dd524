/* Several ranks in one trace (e.g. `perfscope record -- torchrun ...`: every rank a process): the step
 * breakdown of each process that holds step ranges, and the stragglers — processes whose average step is more
 * than 5 % slower than the median process, with the category that exceeds the median the most. Each process is
 * analysed on a view of the model holding only the rows its analysis can see, so P processes cost the sum of
 * their sizes, not P times the whole trace (20000 processes: 9.4 s before, findings-2 #9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analyses.h"

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
    uint32_t *pids = malloc((m->ranges.n + 1) * sizeof *pids);
    if (!pids)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *g = &m->ranges.v[i];
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

static int stragglers(struct ps_report *r)
{
    int64_t *v = malloc(r->nranks * sizeof *v), med[PS_CAT_N], med_dur;
    r->stragglers = calloc(r->nranks, sizeof *r->stragglers);
    if (!v || !r->stragglers) {
        free(v);
        return -ENOMEM;
    }
    for (size_t i = 0; i < r->nranks; i++)
        v[i] = r->ranks[i].avg_dur_ns;
    med_dur = median(v, r->nranks);
    for (int c = 0; c < PS_CAT_N; c++) {
        for (size_t i = 0; i < r->nranks; i++)
            v[i] = r->ranks[i].cat_ns[c];
        med[c] = median(v, r->nranks);
    }
    free(v);
    for (size_t i = 0; i < r->nranks && med_dur > 0; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        double slower = (double)k->avg_dur_ns / (double)med_dur - 1.0;
        if (slower <= STRAGGLER_MARGIN)
            continue;
        int worst = 0;
        for (int c = 1; c < PS_CAT_N; c++)
            if (k->cat_ns[c] - med[c] > k->cat_ns[worst] - med[worst])
                worst = c;
        r->stragglers[r->nstragglers++] = (struct ps_straggler){ k->pid, i, slower, worst };
    }
    return 0;
}

/* (pid, row index) pairs sorted by pid then index: the rows of each process in model order. */
struct owned {
    uint32_t pid, idx;
};

static int cmp_owned(const void *a, const void *b)
{
    const struct owned *x = a, *y = b;
    if (x->pid != y->pid)
        return (x->pid > y->pid) - (x->pid < y->pid);
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Rows split by process, plus the rows every view keeps. */
struct split {
    struct owned *ranges, *api, *gpu;   /* sorted by (pid, idx) */
    size_t nranges, napi, ngpu;
    uint32_t *shared_ranges;            /* device-side annotations and tb communication ops (tb_comm_ext_ids
                                         * reads them whatever the process); ascending */
    size_t nshared;
    uint32_t *launched;                 /* correlation_global: every API call that launched a GPU op; ascending */
    size_t nlaunched;
};

static void split_free(struct split *s)
{
    free(s->ranges);
    free(s->api);
    free(s->gpu);
    free(s->shared_ranges);
    free(s->launched);
}

static int split_model(const struct ps_model *m, struct ps_names *names, struct split *s)
{
    memset(s, 0, sizeof *s);
    s->ranges = malloc((m->ranges.n + 1) * sizeof *s->ranges);
    s->api = malloc((m->api.n + 1) * sizeof *s->api);
    s->gpu = malloc((m->gpu.n + 1) * sizeof *s->gpu);
    s->shared_ranges = malloc((m->ranges.n + 1) * sizeof *s->shared_ranges);
    s->launched = malloc((m->gpu.n + 1) * sizeof *s->launched);
    if (!s->ranges || !s->api || !s->gpu || !s->shared_ranges || !s->launched)
        return -ENOMEM;
    for (uint32_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        if (g->thread == PS_NONE || (g->ext_id && (ps_names_flags(names, g->name) & PS_NAME_TB_COMM_OP)))
            s->shared_ranges[s->nshared++] = i;
        else
            s->ranges[s->nranges++] = (struct owned){ m->threads.v[g->thread].pid, i };
    }
    for (uint32_t i = 0; i < m->api.n; i++)
        s->api[s->napi++] = (struct owned){ m->threads.v[m->api.v[i].thread].pid, i };
    for (uint32_t i = 0; i < m->gpu.n; i++) {
        if (m->correlation_global) {
            if (m->gpu_launch && m->gpu_launch[i] != PS_NONE)
                s->launched[s->nlaunched++] = m->gpu_launch[i];
        } else {
            s->gpu[s->ngpu++] = (struct owned){ m->streams.v[m->gpu_attrs.v[m->gpu.v[i].attr].stream].pid, i };
        }
    }
    qsort(s->ranges, s->nranges, sizeof *s->ranges, cmp_owned);
    qsort(s->api, s->napi, sizeof *s->api, cmp_owned);
    qsort(s->gpu, s->ngpu, sizeof *s->gpu, cmp_owned);
    qsort(s->launched, s->nlaunched, sizeof *s->launched, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < s->nlaunched; i++)
        if (u == 0 || s->launched[u - 1] != s->launched[i])
            s->launched[u++] = s->launched[i];
    s->nlaunched = u;
    return 0;
}

/* How many rows of o[at..n) belong to `pid` (its run starts at `at`). */
static size_t run_len(const struct owned *o, size_t n, size_t at, uint32_t pid)
{
    size_t end = at;
    while (end < n && o[end].pid == pid)
        end++;
    return end - at;
}

/* The indices of `pid`'s rows (from its run in o[*at..]), merged with the ascending extra[0..nextra), without
 * repeats, ascending, into out; advances *at past the run. Returns the count. */
static size_t merge_rows(const struct owned *o, size_t n, size_t *at, uint32_t pid, const uint32_t *extra,
                         size_t nextra, uint32_t *out)
{
    size_t i = *at, end = i, k = 0, e = 0;
    while (end < n && o[end].pid == pid)
        end++;
    while (i < end || e < nextra) {
        uint32_t v = e >= nextra || (i < end && o[i].idx <= extra[e]) ? o[i++].idx : extra[e++];
        if (k == 0 || out[k - 1] != v)
            out[k++] = v;
    }
    *at = end;
    return k;
}

/* A view of m with only what the analysis of process `pid` reads: its ranges and API calls (plus the shared
 * ranges and, for launch links, the API calls that launched the GPU ops kept), its GPU ops (all of them when
 * correlation ids are file-global, as ps_report_gpu_in_scope has it). Rows keep model order, so the view is
 * sorted like m. Strings, threads, streams and attributes are m's. Free with view_free. */
struct view {
    struct ps_model m;
    uint32_t *ranges, *api;              /* model indices of the rows kept */
};

static void view_free(struct view *v)
{
    free(v->m.ranges.v);
    free(v->m.api.v);
    if (!v->m.correlation_global)
        free(v->m.gpu.v);
    free(v->m.gpu_launch);
    free(v->ranges);
    free(v->api);
}

/* The view index of model API call a, or PS_NONE when the view lacks it (binary search in v->api). */
static uint32_t view_api(const struct view *v, uint32_t a)
{
    size_t lo = 0, hi = v->m.api.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->api[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->m.api.n && v->api[lo] == a ? (uint32_t)lo : PS_NONE;
}

static int view_make(const struct ps_model *m, const struct split *s, uint32_t pid, size_t at[3], struct view *v)
{
    memset(v, 0, sizeof *v);
    v->m = *m;
    v->m.gpu_build = NULL;           /* reader-time state: not the view's */
    v->m.ranges.v = NULL, v->m.api.v = NULL, v->m.gpu_launch = NULL;
    if (!m->correlation_global)
        v->m.gpu.v = NULL;
    v->ranges = malloc((run_len(s->ranges, s->nranges, at[0], pid) + s->nshared + 1) * sizeof *v->ranges);
    uint32_t *gpu = NULL, *extra = NULL;
    size_t ngpu = 0, nextra = 0;
    int rc = -ENOMEM;
    if (!v->ranges)
        goto out;
    v->m.ranges.n = merge_rows(s->ranges, s->nranges, &at[0], pid, s->shared_ranges, s->nshared, v->ranges);
    if (m->correlation_global) {
        extra = s->launched, nextra = s->nlaunched;
    } else {
        size_t end = at[2];
        while (end < s->ngpu && s->gpu[end].pid == pid)
            end++;
        if (!(gpu = malloc((end - at[2] + 1) * sizeof *gpu)) || !(extra = malloc((end - at[2] + 1) * sizeof *extra)))
            goto out;
        for (; at[2] < end; at[2]++) {
            gpu[ngpu++] = s->gpu[at[2]].idx;
            if (m->gpu_launch && m->gpu_launch[s->gpu[at[2]].idx] != PS_NONE)
                extra[nextra++] = m->gpu_launch[s->gpu[at[2]].idx];
        }
        qsort(extra, nextra, sizeof *extra, cmp_u32);
    }
    if (!(v->api = malloc((run_len(s->api, s->napi, at[1], pid) + nextra + 1) * sizeof *v->api)))
        goto out;
    v->m.api.n = merge_rows(s->api, s->napi, &at[1], pid, extra, nextra, v->api);
    v->m.ranges.v = malloc((v->m.ranges.n + 1) * sizeof *v->m.ranges.v);
    v->m.api.v = malloc((v->m.api.n + 1) * sizeof *v->m.api.v);
    if (!v->m.ranges.v || !v->m.api.v)
        goto out;
    for (size_t i = 0; i < v->m.ranges.n; i++)
        v->m.ranges.v[i] = m->ranges.v[v->ranges[i]];
    for (size_t i = 0; i < v->m.api.n; i++)
        v->m.api.v[i] = m->api.v[v->api[i]];
    if (!m->correlation_global) {
        v->m.gpu.n = ngpu;
        if (!(v->m.gpu.v = malloc((ngpu + 1) * sizeof *v->m.gpu.v)))
            goto out;
        for (size_t i = 0; i < ngpu; i++)
            v->m.gpu.v[i] = m->gpu.v[gpu[i]];
    }
    if (m->gpu_launch) {
        if (!(v->m.gpu_launch = malloc((v->m.gpu.n + 1) * sizeof *v->m.gpu_launch)))
            goto out;
        for (size_t i = 0; i < v->m.gpu.n; i++) {
            uint32_t a = m->gpu_launch[m->correlation_global ? i : gpu[i]];
            v->m.gpu_launch[i] = a == PS_NONE ? PS_NONE : view_api(v, a);
        }
    }
    rc = 0;
out:
    free(gpu);
    if (!m->correlation_global)
        free(extra);
    return rc;
}

int ps_ranks_compute(struct ps_report *r, struct ps_names *names)
{
    uint32_t *pids = NULL;
    size_t n = 0, at[3] = { 0, 0, 0 };   /* the next pid's first row in split.ranges / .api / .gpu */
    struct split split = { 0 };
    int rc = step_processes(r, names, &pids, &n);
    if (rc < 0 || n < 2)
        goto out;
    rc = -ENOMEM;
    if (!(r->ranks = calloc(n, sizeof *r->ranks)) || split_model(r->m, names, &split) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        struct view v;
        /* skip the rows of processes without step ranges (they sort before pids[i]) */
        while (at[0] < split.nranges && split.ranges[at[0]].pid < pids[i])
            at[0]++;
        while (at[1] < split.napi && split.api[at[1]].pid < pids[i])
            at[1]++;
        while (at[2] < split.ngpu && split.gpu[at[2]].pid < pids[i])
            at[2]++;
        if ((rc = view_make(r->m, &split, pids[i], at, &v)) < 0) {
            view_free(&v);
            goto out;
        }
        struct ps_report sub = { .m = &v.m, .opts = r->opts, .has_gpu = r->has_gpu, .run_start_ns = r->run_start_ns,
                                 .run_end_ns = r->run_end_ns, .pid = pids[i], .force_pid = 1 };
        rc = ps_steps_find(&sub, names);
        if (rc == 0)
            rc = ps_breakdown_compute(&sub, names);
        if (rc == 0) {
            struct ps_rank_stat *k = &r->ranks[r->nranks++];
            *k = (struct ps_rank_stat){ .pid = pids[i], .nsteps = sub.nsteps, .avg_dur_ns = sub.avg_dur_ns,
                                        .sync_ns = sub.avg.sync_ns };
            for (int c = 0; c < PS_CAT_N; c++)
                k->cat_ns[c] = sub.avg.cat_ns[c];
            k->bottleneck = ps_verdict_classify(k->cat_ns, k->sync_ns, k->avg_dur_ns, r->opts.kernel_threshold,
                                                &k->share);
        }
        ps_report_fini(&sub);
        view_free(&v);
        if (rc < 0)
            goto out;
    }
    rc = stragglers(r);
out:
    split_free(&split);
    free(pids);
    return rc;
}
