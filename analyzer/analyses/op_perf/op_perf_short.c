/* TraceLens' short-kernel tables (TreePerf/tree_perf.py get_df_kernels, Reporting/generate_perf_report_pytorch.py
 * short kernel study): the kernels under 10 µs as a 100-bin histogram of their durations (numpy's histogram) and
 * grouped by parent op, its arguments and the kernel name. docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"

#define SHORT_US 10.0
#define BINS 100

struct skern {
    char *key;                    /* parent op, its three argument tuples, kernel name (\x1f-joined) */
    const char *pop, *name;
    uint32_t cpu;                 /* the parent cpu_op, PS_NONE */
    double dur;
    size_t order;
};

static int by_skey(const void *x, const void *y)
{
    const struct skern *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* numpy.histogram(a, bins=100): edges linspace(min, max, 101) (i * step + start, the last = max), the bin of x from
 * (x - min) * (100 / (max - min)), corrected against the edges; the last bin is closed. */
static int histogram(const double *d, size_t n, struct ps_tl_tables *out)
{
    static const char *const cols[] = { "bin_start", "bin_end", "count" };
    double lo = tl_pd_min(d, n), hi = tl_pd_max(d, n), edge[BINS + 1];
    long long count[BINS] = { 0 };
    if (lo == hi)
        lo -= 0.5, hi += 0.5;
    double step = (hi - lo) / BINS, norm = BINS / (hi - lo);
    for (int i = 0; i <= BINS; i++)
        edge[i] = i * step + lo;
    edge[BINS] = hi;
    for (size_t k = 0; k < n; k++) {
        /* max - min below 100 / DBL_MAX (durations far below a ns, which the readers take: 0 ns) makes norm
         * infinite and x inf or NaN, no long: the bins from 0 to the last, as for finite x */
        double x = (d[k] - lo) * norm;
        long i = x >= BINS ? BINS - 1 : x > 0 ? (long)x : 0;
        if (i > 0 && d[k] < edge[i])
            i--;
        else if (i < BINS - 1 && d[k] >= edge[i + 1])
            i++;
        count[i]++;
    }
    struct tl_tab tab;
    int rc = tl_tab_start(out, "short_kernel_histogram", cols, 3, &tab);
    for (int i = 0; rc == 0 && i < BINS; i++) {
        tl_tab_num(&tab, edge[i]);
        tl_tab_num(&tab, edge[i + 1]);
        tl_tab_int(&tab, count[i]);
    }
    return rc == 0 && tab.oom ? -ENOMEM : rc;
}

struct sgroup {
    size_t first, n;
    size_t seen;                  /* the group's first kernel in file order */
    double sum;
};

static int by_ssum(const void *x, const void *y)
{
    const struct sgroup *a = x, *b = y;
    if (a->sum != b->sum)
        return a->sum > b->sum ? -1 : 1;
    return (a->seen > b->seen) - (a->seen < b->seen);   /* ties in order of appearance, as the published files */
}

static void summary_row(const struct tl_tree *tr, struct tl_tab *tab, const struct skern *s, const struct sgroup *g,
                        double *d, double total_us)
{
    const struct skern *f = &s[g->first];
    tl_tab_text(tab, f->pop);
    for (int w = 0; w < 3; w++) {   /* Input Dims, Input Strides, Concrete Inputs */
        struct tl_str b = { 0 };
        const char *txt = f->cpu != PS_NONE ? tl_arg_text(tr, f->cpu, w == 0 ? 0 : w + 1) : NULL;
        if (txt)
            tl_tuple_text(&b, txt);
        tl_tab_str(tab, &b);
    }
    tl_tab_text(tab, f->name);
    for (size_t k = 0; k < g->n; k++)
        d[k] = s[g->first + k].dur;
    tl_tab_num(tab, g->sum);
    tl_tab_int(tab, (long long)g->n);
    tl_tab_num(tab, tl_pd_mean(d, g->n));
    tl_tab_num(tab, g->sum / (total_us / 1e3 * 1e3) * 100);
}

static int summary(const struct tl_tree *tr, struct skern *s, size_t n, double total_us, struct ps_tl_tables *out)
{
    static const char *const cols[] = { "Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
        "Kernel name", "Short Kernel duration (µs) sum", "Short Kernel count", "Short Kernel duration (µs) mean",
        "Short Kernel duration (µs) percent of total time" };
    struct sgroup *g = malloc((n + 1) * sizeof *g);
    double *d = malloc((n + 1) * sizeof *d);
    size_t ng = 0;
    int rc = g && d ? 0 : -ENOMEM;
    if (rc == 0) {
        qsort(s, n, sizeof *s, by_skey);
        for (size_t k = 0; k < n; k++) {
            if (k == 0 || strcmp(s[k].key, s[k - 1].key) != 0)
                g[ng++] = (struct sgroup){ k, 0, s[k].order, 0 };
            g[ng - 1].n++;
        }
        for (size_t j = 0; j < ng; j++) {
            for (size_t k = 0; k < g[j].n; k++)
                d[k] = s[g[j].first + k].dur;
            g[j].sum = tl_pd_sum(d, g[j].n);
        }
        qsort(g, ng, sizeof *g, by_ssum);
        struct tl_tab tab;
        rc = tl_tab_start(out, "short_kernels_summary", cols, 9, &tab);
        for (size_t j = 0; rc == 0 && j < ng; j++)
            summary_row(tr, &tab, s, &g[j], d, total_us);
        if (rc == 0 && tab.oom)
            rc = -ENOMEM;
    }
    free(g), free(d);
    return rc;
}

int tl_short_kernels(const struct tl_tree *tr, double total_us, struct ps_tl_tables *out)
{
    struct skern *s = calloc(tr->n + 1, sizeof *s);
    double *d = malloc((tr->n + 1) * sizeof *d);
    size_t n = 0, nd = 0;
    int rc = s && d ? 0 : -ENOMEM;
    for (uint32_t k = 0; rc == 0 && k < tr->n; k++) {
        const struct ps_op_event *e = &tr->t->ev.v[k];
        if (e->cat != PS_OPEV_KERNEL || !(e->dur_us < SHORT_US))
            continue;
        uint32_t rt = tr->parent[k], cpu = rt;
        while (cpu != PS_NONE && tr->t->ev.v[cpu].cat != PS_OPEV_CPU_OP)
            cpu = tr->parent[cpu];
        d[nd++] = e->dur_us;   /* the histogram has every short kernel */
        if (rt == PS_NONE)
            continue;   /* an unlinked kernel has no parent op: the summary's groupby drops its NaN key */
        struct skern *x = &s[n];
        x->cpu = cpu;
        x->pop = tl_name(tr, cpu != PS_NONE ? cpu : rt);
        x->name = tl_name(tr, k);
        x->dur = e->dur_us;
        x->order = n;
        struct tl_str b = { 0 };
        tl_str_addf(&b, "%s\x1f%s\x1f%s\x1f%s\x1f%s", x->pop, cpu != PS_NONE ? tl_arg_text(tr, cpu, 0) ?: "" : "",
                    cpu != PS_NONE ? tl_arg_text(tr, cpu, 2) ?: "" : "", cpu != PS_NONE ? tl_arg_text(tr, cpu, 3) ?: "" : "",
                    x->name);
        rc = tl_str_take(&b, &x->key);
        n++;
    }
    if (rc == 0 && nd)
        rc = histogram(d, nd, out);
    if (rc == 0 && n)
        rc = summary(tr, s, n, total_us, out);
    for (size_t k = 0; k < n; k++)
        free(s[k].key);
    free(s), free(d);
    return rc;
}
