/* TraceLens' unified_perf_summary.csv (TreePerf/tree_perf.py collect_unified_perf_events,
 * build_df_unified_perf_table, summarize_df_unified_perf_table): one row per op that owns GPU time (the modeled op
 * where there is one, else the leaf launcher), grouped by name, category, process / thread and arguments, sorted by
 * kernel time, and ps_tl_tables_compute, which makes every table. docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op_perf_impl.h"

/* ---- unified_perf_summary (tree_perf.py collect_unified_perf_events, summarize_df_unified_perf_table) ---- */
static int has_model(const struct tl_tree *tr, uint32_t i)
{
    return tr->family[i] >= 0;
}

static int is_leaf(const struct tl_tree *tr, uint32_t i)
{
    for (uint32_t c = tr->child_head[i]; c != PS_NONE; c = tr->next_sib[c])
        for (uint32_t gc = tr->child_head[c]; gc != PS_NONE; gc = tr->next_sib[gc])
            if (tl_is_gpu(tr->t, gc))
                return 1;
    return 0;
}

static int collect(const struct tl_tree *tr, uint32_t i, struct tl_u32v *got)
{
    if (tr->t->ev.v[i].cat != PS_OPEV_CPU_OP || tr->gpu_events[i].n == 0)
        return 0;
    if (has_model(tr, i))
        return tl_u32_push(got, i);
    if (is_leaf(tr, i)) {
        int kids = 0;
        for (uint32_t c = tr->child_head[i]; c != PS_NONE; c = tr->next_sib[c])
            if (tr->t->ev.v[c].cat == PS_OPEV_CPU_OP && has_model(tr, c) && tr->gpu_events[c].n) {
                kids = 1;
                if (collect(tr, c, got) < 0)
                    return -ENOMEM;
            }
        if (kids)
            return 0;
        for (uint32_t k = 0; k < tr->gpu_events[i].n; k++)
            if (strcasestr(tl_name(tr, tr->gpu_events[i].v[k]), "nccl"))
                return 0;
        return tl_u32_push(got, i);
    }
    for (uint32_t c = tr->child_head[i]; c != PS_NONE; c = tr->next_sib[c])
        if (collect(tr, c, got) < 0)
            return -ENOMEM;
    return 0;
}

/* One collected op of the unified table. */
struct urow {
    uint32_t ev;
    const char *category;
    struct tl_metrics m;          /* NaN without a model or when it failed; m.spec "" then */
    int has_spec;
    char *perf_params;            /* "{'M': 141, ...}", NULL: None */
    int has_model;
    struct tl_u32v kernels;       /* gpu_events, duration order */
    char *key;
    size_t group;
};

static void nan_metrics(struct tl_metrics *m)
{
    m->gflops = m->kt = m->tflops = m->mb = m->fpb = m->tbs = NAN;
    m->spec[0] = 0;
}

/* A modeled op's figures over its subtree's GPU work sub (sorted here by duration); NaN where the model refuses the
 * call. 0 or -ENOMEM. */
static int modeled_figures(const struct tl_tree *tr, uint32_t i, struct tl_u32v *sub, struct urow *u)
{
    struct tl_call c;
    double kt;
    int rc, modeled;
    if ((rc = tl_busy(tr, sub->v, sub->n, &kt)) < 0 || (rc = tl_sort_by_dur(tr, sub->v, sub->n)) < 0 ||
        (rc = tl_call_eval(tr, i, sub->v, sub->n, &c, &modeled)) < 0 || !modeled)
        return rc;
    tl_metrics(&c, kt, &u->m);
    u->has_spec = 1;
    rc = tl_params_dict(&c, &u->perf_params);
    tl_call_fini(&c);
    return rc;
}

static int unified_row(const struct tl_tree *tr, const struct tl_launchers *L, uint32_t i, struct urow *u)
{
    struct tl_u32v sub = { 0 };
    const struct tl_u32v *ge = &tr->gpu_events[i];
    const char *first;
    int rc = 0;
    memset(u, 0, sizeof *u);
    u->ev = i;
    u->has_model = has_model(tr, i);
    nan_metrics(&u->m);
    for (uint32_t k = 0; k < ge->n && rc == 0; k++)
        rc = tl_u32_push(&u->kernels, ge->v[k]);
    if (rc < 0 || (rc = tl_sort_by_dur(tr, u->kernels.v, u->kernels.n)) < 0 || (rc = tl_subtree_gpu(tr, i, &sub)) < 0)
        goto out;
    first = sub.n ? tl_name(tr, sub.v[0]) : NULL;
    if (!u->has_model && L->of[i] != PS_NONE) {
        const struct tl_launcher *l = &L->v[L->of[i]];
        first = l->direct.n ? tl_name(tr, l->direct.v[0]) : NULL;
    }
    u->category = tl_categorize(tl_name(tr, i), first);
    if (u->has_model)
        rc = modeled_figures(tr, i, &sub, u);
    else
        rc = tl_busy(tr, ge->v, ge->n, &u->m.kt);
out:
    free(sub.v);
    return rc;
}

/* The grouping key of op event `ev` of `category` (name, category, process/thread names and the four shape
 * arguments as tuple text, separated by 0x1f) into *key, the four argument texts in parts[] (malloc'd; those made
 * stay there on failure). The unified table and the launcher summary group by the same columns. 0 or -ENOMEM. */
static int op_group_key(const struct tl_tree *tr, uint32_t ev, const char *category, char *parts[4], char **key)
{
    struct tl_str b = { 0 };
    const char *names[3];
    int rc = 0;
    tl_names_for(tr, ev, names);
    tl_str_addf(&b, "%s\x1f%s\x1f%s\x1f%s\x1f%s", tl_name(tr, ev), category, names[0], names[1], names[2]);
    for (int w = 0; w < 4 && rc == 0; w++) {
        struct tl_str p = { 0 };
        tl_tuple_text(&p, tl_arg_text(tr, ev, w));
        if ((rc = tl_str_take(&p, &parts[w])) == 0)
            tl_str_addf(&b, "\x1f%s", parts[w]);
    }
    if (rc == 0)
        return tl_str_take(&b, key);
    free(b.s);
    *key = NULL;
    return rc;
}

static const char *const ucols[] = { "name", "op category", "process_name", "process_label", "thread_name",
    "Input Dims", "Input type", "Input Strides", "Concrete Inputs", "ex_UID", "operation_count", "total_duration_us",
    "mean_duration_us", "std_duration_us", "GFLOPS", "Data Moved (MB)", "FLOPS/Byte", "Compute Spec", "TB/s_mean",
    "TB/s_std", "TFLOPS/s_mean", "TFLOPS/s_std", "Kernel Time (µs)_mean", "Kernel Time (µs)_std",
    "Kernel Time (µs)_sum", "duration_us_median", "duration_us_min", "duration_us_max", "TB/s_median", "TB/s_min",
    "TB/s_max", "TFLOPS/s_median", "TFLOPS/s_min", "TFLOPS/s_max", "Kernel Time (µs)_median",
    "Kernel Time (µs)_min", "Kernel Time (µs)_max", "kernel_details_summary", "trunc_kernel_details",
    "perf_params", "has_perf_model", "Percentage (%)", "Cumulative Percentage (%)" };
#define NUCOLS (sizeof ucols / sizeof ucols[0])

static double ufield(const struct tl_tree *tr, const struct urow *u, int f)
{
    switch (f) {
    case 0: return tr->t->ev.v[u->ev].dur_us;
    case 1: return u->m.gflops;
    case 2: return u->m.mb;
    case 3: return u->m.fpb;
    case 4: return u->m.tbs;
    case 5: return u->m.tflops;
    default: return u->m.kt;
    }
}

/* One group's cells up to has_perf_model (buf, tmp: room for n values each); *kt_sum: its kernel time sum. */
static void unified_group(const struct tl_tree *tr, struct tl_tab *tab, struct urow *u, size_t n, size_t g,
                          char *parts[4], double *buf, double *tmp, struct tl_u32v *lists, double *kt_sum)
{
    size_t m = 0, first = SIZE_MAX;
    for (size_t k = 0; k < n; k++)
        if (u[k].group == g) {
            first = first == SIZE_MAX ? k : first;
            lists[m++] = u[k].kernels;
        }
    const struct urow *f = &u[first];
    const char *names[3];
    tl_names_for(tr, f->ev, names);
    tl_tab_text(tab, tl_name(tr, f->ev));
    tl_tab_text(tab, f->category);
    for (int k = 0; k < 3; k++)
        tl_tab_text(tab, names[k]);
    for (int w = 0; w < 4; w++)
        tl_tab_text(tab, tl_arg_text(tr, f->ev, w) ? parts[w] : "");
    tl_tab_int(tab, tr->t->ev.v[f->ev].uid);
    tl_tab_int(tab, (long long)m);
#define COLLECT(fld) do { size_t j = 0; for (size_t k = 0; k < n; k++) if (u[k].group == g) buf[j++] = ufield(tr, &u[k], fld); } while (0)
    COLLECT(0);
    tl_tab_num(tab, tl_pd_sum(buf, m));
    tl_tab_num(tab, tl_pd_mean(buf, m));
    tl_tab_num(tab, tl_pd_std(buf, m));
    for (int fld = 1; fld <= 3; fld++) {
        COLLECT(fld);
        tl_tab_num(tab, tl_pd_first(buf, m));
    }
    const char *spec = NULL;
    for (size_t k = 0; k < n && !spec; k++)
        if (u[k].group == g && u[k].has_spec)
            spec = u[k].m.spec;
    tl_tab_text(tab, spec ? spec : "");
    for (int fld = 4; fld <= 5; fld++) {
        COLLECT(fld);
        tl_tab_num(tab, tl_pd_mean(buf, m));
        tl_tab_num(tab, tl_pd_std(buf, m));
    }
    COLLECT(6);
    tl_tab_num(tab, tl_pd_mean(buf, m));
    tl_tab_num(tab, tl_pd_std(buf, m));
    *kt_sum = tl_pd_sum(buf, m);
    tl_tab_num(tab, *kt_sum);
    for (int fld = 0; fld <= 6; fld++) {
        if (fld >= 1 && fld <= 3)
            continue;
        COLLECT(fld);
        tl_tab_num(tab, tl_pd_median(buf, m, tmp));
        tl_tab_num(tab, tl_pd_min(buf, m));
        tl_tab_num(tab, tl_pd_max(buf, m));
    }
#undef COLLECT
    char *full, *trunc;
    if (tl_kernel_summary(tr, lists, m, &full, &trunc) < 0)
        full = trunc = NULL, tab->oom = 1;
    if (full && strcmp(full, "[]") == 0)
        full[0] = 0;
    tl_tab_cell(tab, full);
    tl_tab_cell(tab, trunc ? trunc : strdup(""));
    tl_tab_text(tab, f->perf_params ? f->perf_params : "");
    tl_tab_text(tab, f->has_model ? "True" : "False");
}

struct ukey {
    char *key;
    size_t row;
};

static int by_ukey(const void *x, const void *y)
{
    const struct ukey *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

struct uorder {
    double sum;
    uint32_t uid;
    size_t g;
};

static int by_uorder(const void *x, const void *y)
{
    const struct uorder *a = x, *b = y;
    if (a->sum != b->sum)
        return a->sum > b->sum ? -1 : 1;
    return (a->uid > b->uid) - (a->uid < b->uid);
}

/* Percentages of the sorted table's kernel time sums (the last two columns). */
static int unified_percent(struct tl_tab *tab, const struct uorder *o, size_t ng)
{
    double *v = malloc((ng + 1) * sizeof *v), cum = 0;
    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < ng; k++)
        v[k] = o[k].sum;
    double total = tl_np_sum(v, ng);
    for (size_t k = 0; k < ng; k++) {
        char **cell = &tab->t->cells[k * NUCOLS + NUCOLS - 2], r[40] = "";
        double pct = o[k].sum / total * 100;
        if (pct == pct)
            cum += pct, tl_repr(pct, r);
        free(cell[0]);
        cell[0] = strdup(r);
        if (pct == pct)
            tl_repr(cum, r);
        free(cell[1]);
        cell[1] = strdup(r);
        if (!cell[0] || !cell[1])
            tab->oom = 1;
    }
    free(v);
    return 0;
}

static int unified(const struct tl_tree *tr, const struct tl_launchers *L, struct ps_tl_tables *out)
{
    struct tl_u32v got = { 0 };
    int rc = 0;
    for (uint32_t r = 0; r < tr->roots.n && rc == 0; r++)
        rc = collect(tr, tr->roots.v[r], &got);
    size_t n = got.n, ng = 0;
    struct urow *u = calloc(n + 1, sizeof *u);
    struct ukey *keys = calloc(n + 1, sizeof *keys);
    char *(*parts)[4] = calloc(n + 1, sizeof *parts);
    double *buf = malloc(2 * (n + 1) * sizeof *buf);   /* the values of a group, then scratch for medians */
    struct tl_u32v *lists = malloc((n + 1) * sizeof *lists);
    struct uorder *o = malloc((n + 1) * sizeof *o);
    size_t *firsts = malloc((n + 1) * sizeof *firsts), *perm = malloc((n + 1) * sizeof *perm);
    if (!u || !keys || !parts || !buf || !lists || !o || !firsts || !perm)
        rc = -ENOMEM;
    for (size_t k = 0; k < n && rc == 0; k++) {
        rc = unified_row(tr, L, got.v[k], &u[k]);
        keys[k].row = k;
        if (rc == 0)
            rc = op_group_key(tr, u[k].ev, u[k].category, parts[k], &keys[k].key);
    }
    if (rc == 0) {
        qsort(keys, n, sizeof *keys, by_ukey);
        for (size_t k = 0; k < n; k++) {
            if (k == 0 || strcmp(keys[k].key, keys[k - 1].key) != 0)
                firsts[ng++] = keys[k].row;
            u[keys[k].row].group = ng - 1;
        }
    }
    struct tl_tab tab;
    if (rc == 0 && n)
        rc = tl_tab_start(out, "unified_perf_summary", ucols, NUCOLS, &tab);
    for (size_t g = 0; rc == 0 && n && g < ng; g++) {
        unified_group(tr, &tab, u, n, g, parts[firsts[g]], buf, buf + n + 1, lists, &o[g].sum);
        tl_tab_text(&tab, "");
        tl_tab_text(&tab, "");
        o[g].uid = tr->t->ev.v[u[firsts[g]].ev].uid;
        o[g].g = g;
    }
    if (rc == 0 && n) {
        qsort(o, ng, sizeof *o, by_uorder);
        for (size_t g = 0; g < ng; g++)
            perm[g] = o[g].g;
        rc = tab.oom ? -ENOMEM : tl_tab_permute(&tab, perm);
        if (rc == 0)
            rc = unified_percent(&tab, o, ng);
        if (rc == 0 && tab.oom)
            rc = -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        if (u) {
            free(u[k].perf_params);
            free(u[k].kernels.v);
        }
        if (keys)
            free(keys[k].key);
        for (int w = 0; parts && w < 4; w++)
            free(parts[k][w]);
    }
    free(u), free(keys), free(parts), free(buf), free(lists), free(o), free(firsts), free(perm), free(got.v);
    return rc;
}

static int by_unmodeled(const void *x, const void *y)
{
    const struct ps_op_perf_unmodeled *a = x, *b = y;
    if (a->kernel_time_us != b->kernel_time_us)
        return a->kernel_time_us > b->kernel_time_us ? -1 : 1;
    return strcmp(a->name, b->name);
}

int tl_owners(const struct tl_tree *tr, struct tl_u32v *out)
{
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (uint32_t r = 0; r < tr->roots.n && rc == 0; r++)
        rc = collect(tr, tr->roots.v[r], out);
    if (rc < 0) {
        free(out->v);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

/* Of owners[0..n) (tl_owners' ops), those without a model by name and the kernel time of those with and without
 * one, into p. 0 or -ENOMEM. */
static int unmodeled_of(const struct tl_tree *tr, const uint32_t *owners, size_t n, struct ps_op_perf *p)
{
    if (!(p->unmodeled = calloc(n + 1, sizeof *p->unmodeled)))
        return -ENOMEM;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = owners[k];
        double us;
        int rc = tl_busy(tr, tr->gpu_events[i].v, tr->gpu_events[i].n, &us);
        if (rc < 0)
            return rc;
        if (has_model(tr, i)) {
            p->modeled_us += us;
            continue;
        }
        p->unmodeled_us += us;
        size_t j = 0;
        while (j < p->nunmodeled && strcmp(p->unmodeled[j].name, tl_name(tr, i)) != 0)
            j++;
        if (j == p->nunmodeled) {
            if (!(p->unmodeled[j].name = strdup(tl_name(tr, i))))
                return -ENOMEM;
            p->nunmodeled++;
        }
        p->unmodeled[j].kernel_time_us += us;
        p->unmodeled[j].calls++;
    }
    qsort(p->unmodeled, p->nunmodeled, sizeof *p->unmodeled, by_unmodeled);
    return 0;
}

int tl_unmodeled(const struct tl_tree *tr, struct ps_op_perf *p)
{
    struct tl_u32v got;
    int rc = tl_owners(tr, &got);
    if (rc == 0)
        rc = unmodeled_of(tr, got.v, got.n, p);
    free(got.v);
    return rc;
}

/* ---- ops_unique_args (tree_perf.py get_df_kernel_launchers_unique_args) ---- */
static const char *const acols[] = { "name", "op category", "process_name", "process_label", "thread_name",
    "Input Dims", "Input type", "Input Strides", "Concrete Inputs", "operation_count",
    "total_direct_kernel_time_mean", "total_subtree_kernel_time_mean", "total_direct_kernel_time_median",
    "total_subtree_kernel_time_median", "total_direct_kernel_time_std", "total_subtree_kernel_time_std",
    "total_direct_kernel_time_min", "total_subtree_kernel_time_min", "total_direct_kernel_time_max",
    "total_subtree_kernel_time_max", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum", "ex_UID",
    "kernel_details_summary", "trunc_kernel_details", "Percentage (%)", "Cumulative Percentage (%)" };
#define NACOLS (sizeof acols / sizeof acols[0])

/* One group's cells but the percentages (d, s, tmp: room for L->n values each); *sum: its direct time sum. */
static void args_group(const struct tl_tree *tr, struct tl_tab *tab, const struct tl_launchers *L, const size_t *grp,
                       size_t g, char *parts[4], double *d, double *s, double *tmp, struct tl_u32v *lists,
                       double *sum)
{
    size_t m = 0, first = SIZE_MAX;
    for (size_t k = 0; k < L->n; k++)
        if (grp[k] == g) {
            first = first == SIZE_MAX ? k : first;
            d[m] = L->v[k].direct_us, s[m] = L->v[k].subtree_us;
            const struct tl_u32v *dk = &L->v[k].direct;   /* copied: the launch order stays for the categories */
            lists[m] = (struct tl_u32v){ malloc((dk->n + 1) * sizeof(uint32_t)), dk->n, dk->n };
            if (!lists[m].v) {
                lists[m].n = 0;
                tab->oom = 1;
            } else
                memcpy(lists[m].v, dk->v, dk->n * sizeof(uint32_t));
            if (tl_sort_by_dur(tr, lists[m].v, lists[m].n) < 0)
                tab->oom = 1;
            m++;
        }
    const struct tl_launcher *f = &L->v[first];
    const char *names[3];
    tl_names_for(tr, f->ev, names);
    tl_tab_text(tab, tl_name(tr, f->ev));
    tl_tab_text(tab, f->category);
    for (int k = 0; k < 3; k++)
        tl_tab_text(tab, names[k]);
    for (int w = 0; w < 4; w++)
        tl_tab_text(tab, tl_arg_text(tr, f->ev, w) ? parts[w] : "");
    tl_tab_int(tab, (long long)m);
    tl_tab_num(tab, tl_pd_mean(d, m));
    tl_tab_num(tab, tl_pd_mean(s, m));
    tl_tab_num(tab, tl_pd_median(d, m, tmp));
    tl_tab_num(tab, tl_pd_median(s, m, tmp));
    double (*agg[])(const double *, size_t) = { tl_pd_std, tl_pd_min, tl_pd_max, tl_pd_sum };
    for (int a = 0; a < 4; a++) {
        tl_tab_num(tab, agg[a](d, m));
        tl_tab_num(tab, agg[a](s, m));
    }
    *sum = tl_pd_sum(d, m);
    tl_tab_int(tab, tr->t->ev.v[f->ev].uid);
    char *full, *trunc;
    if (tl_kernel_summary(tr, lists, m, &full, &trunc) < 0)
        full = trunc = NULL, tab->oom = 1;
    for (size_t k = 0; k < m; k++)
        free(lists[k].v);
    tl_tab_cell(tab, full);
    tl_tab_cell(tab, trunc ? trunc : strdup(""));
    tl_tab_text(tab, "");
    tl_tab_text(tab, "");
}

static int args_percent(struct tl_tab *tab, const struct uorder *o, size_t ng)
{
    double *v = malloc((ng + 1) * sizeof *v), cum = 0;
    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < ng; k++)
        v[k] = o[k].sum;
    double total = tl_np_sum(v, ng);
    for (size_t k = 0; k < ng; k++) {
        char **cell = &tab->t->cells[k * NACOLS + NACOLS - 2], r[40];
        double pct = o[k].sum / total * 100;
        cum += pct;
        tl_repr(pct, r);
        free(cell[0]);
        cell[0] = strdup(r);
        tl_repr(cum, r);
        free(cell[1]);
        cell[1] = strdup(r);
        if (!cell[0] || !cell[1])
            tab->oom = 1;
    }
    free(v);
    return 0;
}

static int ops_unique_args(const struct tl_tree *tr, const struct tl_launchers *L, struct ps_tl_tables *out)
{
    size_t n = L->n, ng = 0;
    struct ukey *keys = calloc(n + 1, sizeof *keys);
    char *(*parts)[4] = calloc(n + 1, sizeof *parts);
    size_t *grp = malloc((n + 1) * sizeof *grp), *firsts = malloc((n + 1) * sizeof *firsts),
           *perm = malloc((n + 1) * sizeof *perm);
    double *d = malloc((n + 1) * sizeof *d), *s = malloc((n + 1) * sizeof *s), *tmp = malloc((n + 1) * sizeof *tmp);
    struct tl_u32v *lists = malloc((n + 1) * sizeof *lists);
    struct uorder *o = malloc((n + 1) * sizeof *o);
    int rc = keys && parts && grp && firsts && perm && d && s && tmp && lists && o ? 0 : -ENOMEM;
    for (size_t k = 0; k < n && rc == 0; k++) {
        keys[k].row = k;
        rc = op_group_key(tr, L->v[k].ev, L->v[k].category, parts[k], &keys[k].key);
    }
    if (rc == 0 && n) {
        qsort(keys, n, sizeof *keys, by_ukey);
        for (size_t k = 0; k < n; k++) {
            if (k == 0 || strcmp(keys[k].key, keys[k - 1].key) != 0)
                firsts[ng++] = keys[k].row;
            grp[keys[k].row] = ng - 1;
        }
    }
    struct tl_tab tab;
    if (rc == 0 && n)
        rc = tl_tab_start(out, "ops_unique_args", acols, NACOLS, &tab);
    for (size_t g = 0; rc == 0 && n && g < ng; g++) {
        args_group(tr, &tab, L, grp, g, parts[firsts[g]], d, s, tmp, lists, &o[g].sum);
        o[g].uid = tr->t->ev.v[L->v[firsts[g]].ev].uid;
        o[g].g = g;
    }
    if (rc == 0 && n) {
        qsort(o, ng, sizeof *o, by_uorder);
        for (size_t g = 0; g < ng; g++)
            perm[g] = o[g].g;
        rc = tab.oom ? -ENOMEM : tl_tab_permute(&tab, perm);
        if (rc == 0)
            rc = args_percent(&tab, o, ng);
        if (rc == 0 && tab.oom)
            rc = -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        if (keys)
            free(keys[k].key);
        for (int w = 0; parts && w < 4; w++)
            free(parts[k][w]);
    }
    free(keys), free(parts), free(grp), free(firsts), free(perm), free(d), free(s), free(tmp), free(lists), free(o);
    return rc;
}

int ps_tl_tables_compute(const struct ps_op_trace *t, struct ps_tl_tables *out)
{
    struct tl_tree tr;
    struct tl_launchers L = { 0 };
    double total_us;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = tl_tree_init(&tr, t, tl_family)) < 0)
        return rc;
    /* no linked GPU work, no gpu_timeline: TraceLens stops there ("No GPU events found") */
    if ((rc = tl_gpu_timeline(&tr, out, &total_us)) < 0 || out->n == 0)
        goto out;
    if ((rc = tl_launchers_init(&tr, &L)) < 0 || (rc = tl_ops_summary(&tr, &L, out)) < 0 ||
        (rc = ops_unique_args(&tr, &L, out)) < 0 || (rc = tl_perf_sheets(&tr, out)) < 0 ||
        (rc = unified(&tr, &L, out)) < 0 || (rc = tl_kernel_summary_table(&tr, &L, total_us, out)) < 0 ||
        (rc = tl_short_kernels(&tr, total_us, out)) < 0)
        goto out;
out:
    tl_launchers_fini(&L);
    tl_tree_fini(&tr);
    if (rc < 0)
        ps_tl_tables_fini(out);
    return rc;
}
