/* TraceLens' op-level tables (TreePerf/tree_perf.py get_kernel_launchers, get_df_kernel_launchers_summary*,
 * get_df_gpu_timeline, collect_unified_perf_events; Reporting/generate_perf_report_pytorch.py kernel summary):
 * gpu_timeline, ops_summary, ops_summary_by_category, kernel_summary, and the kernel details the perf sheets and
 * the unified table print (_summarize_kernel_stats). docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op_perf_impl.h"

/* ---- gpu_timeline (gpu_event_analyser.py compute_metrics_dict) ---- */
struct span {
    double s, e;
};

struct ivk {
    double s, e;
    size_t k;
};

static int by_start_k(const void *x, const void *y)
{
    const struct ivk *a = x, *b = y;
    return a->s < b->s ? -1 : a->s > b->s ? 1 : (a->k > b->k) - (a->k < b->k);
}

/* merge_intervals: sorted by start (stable), merged when start <= last end, into out (room for n), *nout of them.
 * 0 or -ENOMEM. */
static int merge(const struct tl_tree *tr, const uint32_t *ev, size_t n, struct span *out, size_t *nout)
{
    struct ivk *v = malloc((n + 1) * sizeof *v);
    size_t m = 0;
    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++)
        v[k] = (struct ivk){ tr->t->ev.v[ev[k]].ts_us, tr->t_end[ev[k]], k };
    qsort(v, n, sizeof *v, by_start_k);
    for (size_t k = 0; k < n; k++) {
        if (m && v[k].s <= out[m - 1].e) {
            if (v[k].e > out[m - 1].e)
                out[m - 1].e = v[k].e;
        } else
            out[m++] = (struct span){ v[k].s, v[k].e };
    }
    free(v);
    *nout = m;
    return 0;
}

/* b minus a, both merged and sorted (gpu_event_analyser.py subtract_intervalsA_from_B) */
static size_t subtract(const struct span *a, size_t na, const struct span *b, size_t nb, struct span *out)
{
    size_t ai = 0, m = 0;
    for (size_t k = 0; k < nb; k++) {
        double cur = b[k].s, be = b[k].e;
        while (ai < na && a[ai].e <= b[k].s)
            ai++;
        for (size_t t = ai; t < na && a[t].s < be; t++) {
            if (a[t].s > cur)
                out[m++] = (struct span){ cur, be < a[t].s ? be : a[t].s };
            if (a[t].e > cur)
                cur = a[t].e;
            if (cur >= be)
                break;
        }
        if (cur < be)
            out[m++] = (struct span){ cur, be };
    }
    return m;
}

static double length(const struct span *v, size_t n)
{
    double t = 0;
    for (size_t k = 0; k < n; k++)
        t += v[k].e - v[k].s;
    return t;
}

int tl_gpu_timeline(const struct tl_tree *tr, struct ps_tl_tables *out, double *total_us)
{
    static const char *const cols[] = { "type", "time ms", "percent" };
    static const char *const names[] = { "computation_time", "exposed_comm_time", "exposed_memcpy_time",
                                         "busy_time", "idle_time", "total_time", "total_comm_time",
                                         "total_memcpy_time" };
    struct tl_u32v set[4] = { { 0 } };   /* computation, communication, memcpy, all */
    struct span *sp[6] = { 0 };
    size_t ns[6] = { 0 };
    int rc = 0;
    *total_us = NAN;
    for (uint32_t i = 0; i < tr->n && rc == 0; i++) {
        if (!tl_is_gpu(tr->t, i) || !tr->linked[i])
            continue;
        int which = tr->t->ev.v[i].cat == PS_OPEV_MEMCPY ? 2 : strstr(tl_name(tr, i), "nccl") ? 1 : 0;
        if ((rc = tl_u32_push(&set[which], i)) == 0)
            rc = tl_u32_push(&set[3], i);
    }
    if (rc == 0 && set[3].n == 0)
        goto done;   /* TraceLens stops here ("No GPU events found") */
    for (int k = 0; k < 6 && rc == 0; k++)
        if (!(sp[k] = malloc((set[3].n + 1) * 2 * sizeof **sp)))
            rc = -ENOMEM;
    for (int k = 0; k < 4 && rc == 0; k++)
        rc = merge(tr, set[k].v, set[k].n, sp[k], &ns[k]);
    if (rc < 0)
        goto done;
    ns[4] = subtract(sp[0], ns[0], sp[1], ns[1], sp[4]);                      /* comm - comp */
    ns[5] = subtract(sp[0], ns[0], sp[2], ns[2], sp[5]);                      /* memcpy - comp */
    struct span *exp_mem = malloc((ns[5] + ns[1] + 1) * 2 * sizeof *exp_mem);
    if (!exp_mem) {
        rc = -ENOMEM;
        goto done;
    }
    size_t nem = subtract(sp[1], ns[1], sp[5], ns[5], exp_mem);
    double total = sp[3][ns[3] - 1].e - sp[3][0].s, busy = length(sp[3], ns[3]);
    double v[8] = { length(sp[0], ns[0]), length(sp[4], ns[4]), length(exp_mem, nem), busy, total - busy, total,
                    length(sp[1], ns[1]), length(sp[2], ns[2]) };
    free(exp_mem);
    struct tl_tab tab;
    rc = tl_tab_start(out, "gpu_timeline", cols, 3, &tab);
    for (int k = 0; k < 8 && rc == 0; k++) {
        tl_tab_text(&tab, names[k]);
        tl_tab_num(&tab, v[k] / 1e3);
        tl_tab_num(&tab, v[k] / total * 100);
    }
    if (rc == 0 && tab.oom)
        rc = -ENOMEM;
    *total_us = total;
done:
    for (int k = 0; k < 4; k++)
        free(set[k].v);
    for (int k = 0; k < 6; k++)
        free(sp[k]);
    return rc;
}

/* ---- kernel launchers (tree_perf.py get_kernel_launchers) ---- */
static int cmp_launch_ts(const void *x, const void *y, void *ctx)
{
    const struct tl_tree *tr = ctx;
    const struct tl_launcher *a = x, *b = y;
    double ta = tr->t->ev.v[a->ev].ts_us, tb = tr->t->ev.v[b->ev].ts_us;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/* Stable merge sort of launchers by ts (Python's sorted). */
static void sort_launchers(const struct tl_tree *tr, struct tl_launcher *v, size_t n, struct tl_launcher *tmp)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_launchers(tr, v, h, tmp);
    sort_launchers(tr, v + h, n - h, tmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_launch_ts(&v[j], &v[i], (void *)tr) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static uint32_t launcher_of(const struct tl_tree *tr, uint32_t rt)
{
    for (uint32_t cur = tr->parent[rt]; cur != PS_NONE; cur = tr->parent[cur]) {
        if (tr->t->ev.v[cur].cat != PS_OPEV_CPU_OP)
            break;
        if (strcmp(tl_name(tr, cur), "execute") != 0)
            return cur;
    }
    return rt;
}

int tl_launchers_init(const struct tl_tree *tr, struct tl_launchers *L)
{
    struct tl_launcher *tmp;
    size_t cap = 0;
    int rc = -ENOMEM;
    memset(L, 0, sizeof *L);
    if (!(L->of = malloc((tr->n + 1) * sizeof *L->of)))
        goto fail;
    for (size_t i = 0; i < tr->n; i++)
        L->of[i] = PS_NONE;
    for (uint32_t k = 0; k < tr->n; k++) {
        if (!tl_is_gpu(tr->t, k) || tr->parent[k] == PS_NONE || strcasestr(tl_name(tr, k), "nccl"))
            continue;
        uint32_t owner = launcher_of(tr, tr->parent[k]);
        if (L->of[owner] == PS_NONE) {
            if (L->n == cap) {
                cap = cap ? cap * 2 : 64;
                struct tl_launcher *p = realloc(L->v, cap * sizeof *p);
                if (!p) {
                    rc = -ENOMEM;
                    goto fail;
                }
                L->v = p;
            }
            memset(&L->v[L->n], 0, sizeof L->v[L->n]);
            L->v[L->n].ev = owner;
            L->of[owner] = (uint32_t)L->n++;
        }
        if ((rc = tl_u32_push(&L->v[L->of[owner]].direct, k)) < 0)
            goto fail;
    }
    if (!(tmp = malloc((L->n + 1) * sizeof *tmp))) {
        rc = -ENOMEM;
        goto fail;
    }
    sort_launchers(tr, L->v, L->n, tmp);
    free(tmp);
    for (size_t k = 0; k < L->n; k++) {
        struct tl_launcher *l = &L->v[k];
        L->of[l->ev] = (uint32_t)k;
        if ((rc = tl_busy(tr, l->direct.v, l->direct.n, &l->direct_us)) < 0 ||
            (rc = tl_busy(tr, tr->gpu_events[l->ev].v, tr->gpu_events[l->ev].n, &l->subtree_us)) < 0)
            goto fail;
        l->category = tl_categorize(tl_name(tr, l->ev), l->direct.n ? tl_name(tr, l->direct.v[0]) : NULL);
    }
    return 0;
fail:
    tl_launchers_fini(L);
    return rc;
}

void tl_launchers_fini(struct tl_launchers *L)
{
    for (size_t k = 0; k < L->n; k++)
        free(L->v[k].direct.v);
    free(L->v);
    free(L->of);
    memset(L, 0, sizeof *L);
}

/* ---- ops_summary, ops_summary_by_category (tree_perf.py get_df_kernel_launchers_summary*) ---- */
struct ogroup {
    const char *key;
    double direct, subtree;       /* pandas sums, µs */
    long long count;
    struct tl_str cats;           /* "['GEMM']" */
    int ncats;
    const char *catv[8];
};

static int by_key_name(const void *x, const void *y)
{
    const struct ogroup *a = x, *b = y;
    return strcmp(a->key, b->key);
}

static int by_direct_desc(const void *x, const void *y)
{
    const struct ogroup *a = x, *b = y;
    return (a->direct < b->direct) - (a->direct > b->direct);
}

/* Group launchers by name (by_cat 0) or category (1): groups sorted by key, then by direct time descending. */
static struct ogroup *ogroups(const struct tl_tree *tr, const struct tl_launchers *L, int by_cat, size_t *ng)
{
    struct ogroup *g = calloc(L->n + 1, sizeof *g);
    double *d = malloc((L->n + 1) * sizeof *d), *s = malloc((L->n + 1) * sizeof *s);
    *ng = 0;
    if (!g || !d || !s) {
        free(g), free(d), free(s);
        return NULL;
    }
    for (size_t k = 0; k < L->n; k++) {
        const char *key = by_cat ? L->v[k].category : tl_name(tr, L->v[k].ev);
        size_t j = 0;
        while (j < *ng && strcmp(g[j].key, key) != 0)
            j++;
        if (j == *ng)
            g[(*ng)++].key = key;
    }
    for (size_t j = 0; j < *ng; j++) {
        size_t m = 0;
        for (size_t k = 0; k < L->n; k++) {
            const struct tl_launcher *l = &L->v[k];
            if (strcmp(g[j].key, by_cat ? l->category : tl_name(tr, l->ev)) != 0)
                continue;
            d[m] = l->direct_us, s[m++] = l->subtree_us;
            int seen = 0;
            for (int c = 0; c < g[j].ncats; c++)
                seen |= strcmp(g[j].catv[c], l->category) == 0;
            if (!seen && g[j].ncats < 8)
                g[j].catv[g[j].ncats++] = l->category;
        }
        g[j].count = (long long)m;
        g[j].direct = tl_pd_sum(d, m);
        g[j].subtree = tl_pd_sum(s, m);
    }
    free(d), free(s);
    qsort(g, *ng, sizeof *g, by_key_name);
    /* stable by name among equal times (numpy's quicksort leaves ties in no set order) */
    for (size_t j = 1; j < *ng; j++)
        for (size_t i = j; i > 0 && by_direct_desc(&g[i - 1], &g[i]) > 0; i--) {
            struct ogroup x = g[i];
            g[i] = g[i - 1], g[i - 1] = x;
        }
    return g;
}

int tl_ops_summary(const struct tl_tree *tr, const struct tl_launchers *L, struct ps_tl_tables *out)
{
    static const char *const cols[] = { "name", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
        "total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count", "Categories", "Percentage (%)",
        "Cumulative Percentage (%)" };
    static const char *const ccols[] = { "op category", "Count", "total_direct_kernel_time_ms", "Percentage (%)",
                                         "Cumulative Percentage (%)" };
    for (int by_cat = 0; by_cat < 2; by_cat++) {
        size_t ng;
        struct ogroup *g = ogroups(tr, L, by_cat, &ng);
        double *ms = malloc((ng + 1) * sizeof *ms);
        struct tl_tab tab;
        int rc = !g || !ms ? -ENOMEM
                 : tl_tab_start(out, by_cat ? "ops_summary_by_category" : "ops_summary", by_cat ? ccols : cols,
                                by_cat ? 5 : 9, &tab);
        for (size_t j = 0; rc == 0 && j < ng; j++)
            ms[j] = g[j].direct / 1000;
        double total = rc == 0 ? tl_np_sum(ms, ng) : 0, cum = 0;
        for (size_t j = 0; rc == 0 && j < ng; j++) {
            double pct = ms[j] / total * 100;
            cum += pct;
            tl_tab_text(&tab, g[j].key);
            if (by_cat) {
                tl_tab_int(&tab, g[j].count);
                tl_tab_num(&tab, ms[j]);
            } else {
                struct tl_str c = { 0 };
                for (int k = 0; k < g[j].ncats; k++)
                    tl_str_addf(&c, "%s'%s'", k ? ", " : "[", g[j].catv[k]);
                tl_str_add(&c, "]");
                tl_tab_num(&tab, g[j].direct);
                tl_tab_num(&tab, g[j].subtree);
                tl_tab_num(&tab, ms[j]);
                tl_tab_num(&tab, g[j].subtree / 1000);
                tl_tab_int(&tab, g[j].count);
                tl_tab_str(&tab, &c);
            }
            tl_tab_num(&tab, pct);
            tl_tab_num(&tab, cum);
        }
        if (rc == 0 && tab.oom)
            rc = -ENOMEM;
        free(g), free(ms);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- kernel_summary (generate_perf_report_pytorch.py; tree_perf.py get_df_kernels) ---- */
struct krec {
    const char *cat, *pop, *name;
    int has_stream;
    int64_t stream;
    double dur;
    size_t order;
};

static int krec_cmp(const struct krec *a, const struct krec *b)
{
    int c = strcmp(a->cat ? a->cat : "", b->cat ? b->cat : "");
    if (!c)
        c = strcmp(a->pop ? a->pop : "", b->pop ? b->pop : "");
    if (!c)
        c = strcmp(a->name, b->name);
    if (!c)
        c = (a->has_stream > b->has_stream) - (a->has_stream < b->has_stream);
    if (!c)
        c = (a->stream > b->stream) - (a->stream < b->stream);
    return c;
}

static int by_krec(const void *x, const void *y)
{
    const struct krec *a = x, *b = y;
    int c = krec_cmp(a, b);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* The parent op and its category of kernel k into r. 0 or -ENOMEM. */
static int kernel_parent(const struct tl_tree *tr, const struct tl_launchers *L, uint32_t k, struct krec *r)
{
    uint32_t rt = tr->parent[k], cpu = rt;
    while (cpu != PS_NONE && tr->t->ev.v[cpu].cat != PS_OPEV_CPU_OP)
        cpu = tr->parent[cpu];
    r->cat = r->pop = NULL;
    if (cpu != PS_NONE) {
        r->pop = tl_name(tr, cpu);
        if (L->of[cpu] != PS_NONE)
            r->cat = L->v[L->of[cpu]].category;
        else {
            struct tl_u32v sub = { 0 };
            int rc = tl_subtree_gpu(tr, cpu, &sub);
            r->cat = tl_categorize(r->pop, sub.n ? tl_name(tr, sub.v[0]) : NULL);
            free(sub.v);
            return rc;
        }
    } else if (rt != PS_NONE) {
        r->pop = tl_name(tr, rt);
        r->cat = strcasestr(r->pop, "cudagraph") || strcasestr(r->pop, "graphlaunch") ? "graph" : "runtime";
    }
    return 0;
}

struct kgroup {
    size_t first, n;              /* run in the sorted records */
    double sum;
};

static int by_ksum(const void *x, const void *y)
{
    const struct kgroup *a = x, *b = y;
    if (a->sum != b->sum)
        return a->sum > b->sum ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);   /* ties in key order (pandas: no set order) */
}

static void kernel_row(struct tl_tab *tab, const struct krec *r, const struct kgroup *g, double *d, double total_k,
                       double total_us)
{
    for (size_t k = 0; k < g->n; k++)
        d[k] = r[g->first + k].dur;
    const struct krec *x = &r[g->first];
    tl_tab_text(tab, x->cat ? x->cat : "");
    tl_tab_text(tab, x->pop ? x->pop : "");
    tl_tab_text(tab, x->name);
    if (x->has_stream)
        tl_tab_int(tab, x->stream);
    else
        tl_tab_text(tab, "");
    tl_tab_num(tab, g->sum);
    tl_tab_int(tab, (long long)g->n);
    tl_tab_num(tab, tl_pd_mean(d, g->n));
    tl_tab_num(tab, tl_pd_min(d, g->n));
    tl_tab_num(tab, tl_pd_max(d, g->n));
    tl_tab_num(tab, g->sum / total_k * 100);
    tl_tab_num(tab, g->sum / (total_us / 1e3 * 1e3) * 100);
}

int tl_kernel_summary_table(const struct tl_tree *tr, const struct tl_launchers *L, double total_us,
                            struct ps_tl_tables *out)
{
    static const char *const cols[] = { "Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream",
        "Kernel duration (µs)_sum", "Kernel duration (µs)_count", "Kernel duration (µs)_mean",
        "Kernel duration (µs)_min", "Kernel duration (µs)_max", "Percent of kernels time (%)",
        "Percent of total time (%)" };
    struct krec *r = malloc((tr->n + 1) * sizeof *r);
    struct kgroup *g = malloc((tr->n + 1) * sizeof *g);
    double *d = calloc(tr->n + 1, sizeof *d);
    size_t n = 0, ng = 0;
    int rc = !r || !g || !d ? -ENOMEM : 0;
    for (uint32_t k = 0; rc == 0 && k < tr->n; k++) {
        const struct ps_op_event *e = &tr->t->ev.v[k];
        if (e->cat != PS_OPEV_KERNEL)
            continue;
        if ((rc = kernel_parent(tr, L, k, &r[n])) < 0)
            break;
        r[n].name = tl_name(tr, k);
        r[n].has_stream = e->has_stream, r[n].stream = e->has_stream ? e->stream : 0;
        r[n].dur = e->dur_us;
        d[n] = e->dur_us;
        r[n].order = n;
        n++;
    }
    double total_k = rc == 0 ? tl_np_sum(d, n) : 0;
    if (rc == 0 && n) {
        qsort(r, n, sizeof *r, by_krec);
        for (size_t k = 0; k < n; k++) {
            if (k == 0 || krec_cmp(&r[k], &r[k - 1]) != 0)
                g[ng++] = (struct kgroup){ k, 0, 0 };
            g[ng - 1].n++;
        }
        for (size_t j = 0; j < ng; j++) {
            for (size_t k = 0; k < g[j].n; k++)
                d[k] = r[g[j].first + k].dur;
            g[j].sum = tl_pd_sum(d, g[j].n);
        }
        qsort(g, ng, sizeof *g, by_ksum);
        struct tl_tab tab;
        rc = tl_tab_start(out, "kernel_summary", cols, 11, &tab);
        for (size_t j = 0; rc == 0 && j < ng; j++)
            kernel_row(&tab, r, &g[j], d, total_k, total_us);
        if (rc == 0 && tab.oom)
            rc = -ENOMEM;
    }
    free(r), free(g), free(d);
    return rc;
}

/* ---- kernel details of the perf sheets and op tables (tree_perf.py _summarize_kernel_stats) ---- */
/* Python str() of a kernel's name inside a dict: repr-quoted. */
static void add_pystr(struct tl_str *b, const char *s)
{
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    tl_str_addf(b, "%c", q);
    for (; *s; s++) {
        if (*s == '\\' || *s == q)
            tl_str_addf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            tl_str_addf(b, *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : *s == '\r' ? "\\r" : "\\x%02x", (unsigned char)*s);
        else
            tl_str_addf(b, "%c", *s);
    }
    tl_str_addf(b, "%c", q);
}

static void add_npf(struct tl_str *b, const char *key, double x)
{
    char r[40];
    tl_repr(x, r);
    tl_str_addf(b, ", '%s': np.float64(%s)", key, r);
}

static void add_stream(struct tl_str *b, const struct ps_op_event *e)
{
    if (e->has_stream)
        tl_str_addf(b, "%lld", (long long)e->stream);
    else
        tl_str_add(b, "None");
}

/* tree_perf _summarize_kernel_stats: the first non-empty list is the template; a list of another length is
 * skipped; per position: count, np.sum, np.mean, np.median, np.std (ddof 0), min, max of the durations. */
int tl_kernel_summary(const struct tl_tree *tr, const struct tl_u32v *lists, size_t n, char **full, char **trunc)
{
    const struct tl_u32v *tpl = NULL;
    *full = *trunc = NULL;
    for (size_t k = 0; k < n && !tpl; k++)
        if (lists[k].n)
            tpl = &lists[k];
    if (!tpl) {
        *full = strdup("[]");
        return *full ? 0 : -ENOMEM;
    }
    double *d = malloc((n + 1) * sizeof *d), *sq = malloc((n + 1) * sizeof *sq);
    struct tl_str f = { 0 }, t = { 0 };
    if (!d || !sq) {
        free(d), free(sq);
        return -ENOMEM;
    }
    tl_str_add(&f, "[");
    tl_str_add(&t, "[");
    for (uint32_t pos = 0; pos < tpl->n; pos++) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (lists[k].n == tpl->n)
                d[m++] = tr->t->ev.v[lists[k].v[pos]].dur_us;
        const struct ps_op_event *e = &tr->t->ev.v[tpl->v[pos]];
        const char *name = tl_name(tr, tpl->v[pos]);
        double sum = tl_np_sum(d, m), mean = sum / (double)m;
        for (size_t k = 0; k < m; k++)
            sq[k] = (d[k] - mean) * (d[k] - mean);
        double sd = sqrt(tl_np_sum(sq, m) / (double)m), mn = tl_pd_min(d, m), mx = tl_pd_max(d, m);
        double med = tl_np_median(d, m);
        tl_str_add(&f, pos ? ", {'name': " : "{'name': ");
        add_pystr(&f, name);
        tl_str_add(&f, ", 'stream': ");
        add_stream(&f, e);
        tl_str_addf(&f, ", 'count': %zu", m);
        add_npf(&f, "total_duration_us", sum);
        add_npf(&f, "mean_duration_us", mean);
        add_npf(&f, "median_duration_us", med);
        add_npf(&f, "std_dev_duration_us", sd);
        add_npf(&f, "min_duration_us", mn);
        add_npf(&f, "max_duration_us", mx);
        tl_str_add(&f, "}");
        char cut[72];
        size_t len = strlen(name);
        snprintf(cut, sizeof cut, "%.64s%s", name, len > 64 ? "..." : "");
        tl_str_add(&t, pos ? ", {'name': " : "{'name': ");
        add_pystr(&t, cut);
        tl_str_add(&t, ", 'stream': ");
        add_stream(&t, e);
        add_npf(&t, "mean_duration_us", rint(mean * 100.0) / 100.0);
        tl_str_add(&t, "}");
    }
    tl_str_add(&f, "]");
    tl_str_add(&t, "]");
    free(d);
    free(sq);
    int rc_full = tl_str_take(&f, full), rc_trunc = tl_str_take(&t, trunc);   /* both: each frees its text */
    if (rc_full < 0 || rc_trunc < 0) {
        free(*full), free(*trunc);
        *full = *trunc = NULL;
        return -ENOMEM;
    }
    return 0;
}
