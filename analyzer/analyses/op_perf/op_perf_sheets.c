/* TraceLens' per-category perf sheets (GEMM.csv, SDPA_fwd.csv, ...: tree_perf.py build_df_perf_metrics,
 * summarize_df_perf_metrics; Reporting/generate_perf_report_pytorch.py): every call of a modeled op name in file
 * order, evaluated with its model, grouped by name and parameters, sorted by kernel time. docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"

void tl_prows_free(struct tl_prow *r, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        tl_call_fini(&r[k].c);
        free(r[k].kernels.v);
        free(r[k].key);
    }
    free(r);
}

/* Cpu_op i evaluated into x: its subtree's GPU work by duration, the call and its figures; *kept 0 (x holds
 * nothing) where TraceLens has no row for it ("failed performance metric computation"). 0 or -ENOMEM. */
static int eval_row(const struct tl_tree *tr, uint32_t i, struct tl_prow *x, int *kept)
{
    double kt = 0;
    int rc, modeled = 0;
    memset(x, 0, sizeof *x);
    x->ev = i;
    if ((rc = tl_subtree_gpu(tr, i, &x->kernels)) == 0 && (rc = tl_busy(tr, x->kernels.v, x->kernels.n, &kt)) == 0 &&
        (rc = tl_sort_by_dur(tr, x->kernels.v, x->kernels.n)) == 0)
        rc = tl_call_eval(tr, i, x->kernels.v, x->kernels.n, &x->c, &modeled);
    *kept = rc == 0 && modeled;
    if (*kept)
        tl_metrics(&x->c, kt, &x->m);
    else
        free(x->kernels.v);
    return rc;
}

/* Evaluate the calls of one sheet; 0 or -ENOMEM. */
int tl_eval_rows(const struct tl_tree *tr, int family, struct tl_prow **out, size_t *nout)
{
    struct tl_prow *r = NULL;
    size_t n = 0, cap = 0;
    int rc = 0, kept;
    *out = NULL;
    *nout = 0;
    for (uint32_t i = 0; i < tr->n && rc == 0; i++) {
        if (tr->family[i] != family)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct tl_prow *p = realloc(r, cap * sizeof *p);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            r = p;
        }
        if ((rc = eval_row(tr, i, &r[n], &kept)) == 0 && kept)
            n++;
    }
    /* the forward ops measured on their backward pass share the backward sheet (TraceLens' `_bwd` sheets) */
    if (rc == 0 && (family == PS_OPF_SDPA_BWD || family == PS_OPF_CONV_BWD))
        rc = tl_eval_bwd_rows(tr, family == PS_OPF_SDPA_BWD ? PS_OPF_SDPA_FWD : PS_OPF_CONV_FWD, &r, &n, &cap);
    if (rc < 0) {
        tl_prows_free(r, n);
        return rc;
    }
    *out = r;
    *nout = n;
    return 0;
}

/* The union of parameter keys in first-seen order. */
static int param_cols(const struct tl_prow *r, size_t n, const char **cols)
{
    int nc = 0;
    for (size_t k = 0; k < n; k++)
        for (int p = 0; p < r[k].c.np; p++) {
            int seen = 0;
            for (int j = 0; j < nc && !seen; j++)
                seen = strcmp(cols[j], r[k].c.p[p].key) == 0;
            if (!seen && nc < 2 * TL_MAX_PARAMS)
                cols[nc++] = r[k].c.p[p].key;
        }
    return nc;
}

static const struct tl_param *param_of(const struct tl_call *c, const char *key)
{
    for (int p = 0; p < c->np; p++)
        if (strcmp(c->p[p].key, key) == 0)
            return &c->p[p];
    return NULL;
}

static const struct tl_prow *sort_rows;

static int by_key(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int c = strcmp(sort_rows[a].key, sort_rows[b].key);
    return c ? c : (a > b) - (a < b);
}

/* Group rows by key: groups[g] = first row index; row.group set; returns the group count or -ENOMEM. */
long tl_group(struct tl_prow *r, size_t n, size_t **first)
{
    size_t *idx = malloc((n + 1) * sizeof *idx), ng = 0;
    *first = malloc((n + 1) * sizeof **first);
    if (!idx || !*first) {
        free(idx), free(*first);
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
        idx[k] = k;
    sort_rows = r;
    qsort(idx, n, sizeof *idx, by_key);
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || strcmp(r[idx[k]].key, r[idx[k - 1]].key) != 0)
            (*first)[ng++] = idx[k];
        r[idx[k]].group = ng - 1;
    }
    free(idx);
    return (long)ng;
}

static const char *const tail_cols[] = {
    "GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first", "TB/s_mean", "TB/s_median", "TB/s_std", "TB/s_min",
    "TB/s_max", "TFLOPS/s_mean", "TFLOPS/s_median", "TFLOPS/s_std", "TFLOPS/s_min", "TFLOPS/s_max",
    "process_name_first", "process_label_first", "thread_name_first", "Compute Spec",
    "kernel_details__summarize_kernel_stats", "trunc_kernel_details", "Input Dims_first", "Input type_first",
    "Input Strides_first", "Concrete Inputs_first", "Kernel Time (µs)_mean", "Kernel Time (µs)_median",
    "Kernel Time (µs)_std", "Kernel Time (µs)_min", "Kernel Time (µs)_max", "Kernel Time (µs)_sum", "name_count",
    "UID_first" };
#define NTAIL (sizeof tail_cols / sizeof tail_cols[0])

/* mean, median, std, min, max of one figure over a group's calls (tmp: room for n values) */
static void five(struct tl_tab *tab, const double *v, size_t n, double *tmp)
{
    tl_tab_num(tab, tl_pd_mean(v, n));
    tl_tab_num(tab, tl_pd_median(v, n, tmp));
    tl_tab_num(tab, tl_pd_std(v, n));
    tl_tab_num(tab, tl_pd_min(v, n));
    tl_tab_num(tab, tl_pd_max(v, n));
}

struct gsum {
    double kt_sum;
    uint32_t uid;
    size_t g;
};

static int by_time(const void *x, const void *y)
{
    const struct gsum *a = x, *b = y;
    if (a->kt_sum != b->kt_sum)
        return a->kt_sum > b->kt_sum ? -1 : 1;
    return (a->uid > b->uid) - (a->uid < b->uid);
}

/* Group g's cells (buf, tmp: room for n values each; lists: for n). */
static void group_row(const struct tl_tree *tr, struct tl_tab *tab, struct tl_prow *r, size_t n, size_t g,
                      const char **pc, int npc, double *buf, double *tmp, struct tl_u32v *lists)
{
    size_t m = 0, first = SIZE_MAX;
    for (size_t k = 0; k < n; k++)
        if (r[k].group == g) {
            if (first == SIZE_MAX)
                first = k;
            lists[m++] = r[k].kernels;
        }
    const struct tl_prow *f = &r[first];
    tl_tab_text(tab, tl_name(tr, f->ev));
    for (int p = 0; p < npc; p++) {
        const struct tl_param *x = param_of(&f->c, pc[p]);
        tl_tab_text(tab, x && x->repr ? x->repr : "");
    }
#define COLLECT(field) do { size_t j = 0; for (size_t k = 0; k < n; k++) if (r[k].group == g) buf[j++] = r[k].m.field; } while (0)
    COLLECT(gflops); tl_tab_num(tab, tl_pd_first(buf, m));
    COLLECT(mb); tl_tab_num(tab, tl_pd_first(buf, m));
    COLLECT(fpb); tl_tab_num(tab, tl_pd_first(buf, m));
    COLLECT(tbs); five(tab, buf, m, tmp);
    COLLECT(tflops); five(tab, buf, m, tmp);
    const char *names[3];
    tl_names_for(tr, f->ev, names);
    for (int k = 0; k < 3; k++)
        tl_tab_text(tab, names[k]);
    tl_tab_text(tab, f->m.spec);
    char *full, *trunc;
    if (tl_kernel_summary(tr, lists, m, &full, &trunc) < 0) {
        tab->oom = 1;
        full = trunc = NULL;
    }
    tl_tab_cell(tab, full);
    tl_tab_cell(tab, trunc ? trunc : strdup(""));
    for (int w = 0; w < 4; w++) {
        const char *txt = NULL;
        for (size_t k = 0; k < n && !txt; k++)
            if (r[k].group == g)
                txt = tl_arg_text(tr, r[k].ev, w);
        tl_tab_text(tab, txt ? txt : "");
    }
    COLLECT(kt);
    five(tab, buf, m, tmp);
    tl_tab_num(tab, tl_pd_sum(buf, m));
#undef COLLECT
    tl_tab_int(tab, (long long)m);
    tl_tab_int(tab, tr->t->ev.v[f->ev].uid);
}

/* The group keys: name and every parameter's repr (None and absent alike). */
static int make_keys(const struct tl_tree *tr, struct tl_prow *r, size_t n, const char **pc, int npc)
{
    int rc;
    for (size_t k = 0; k < n; k++) {
        struct tl_str b = { 0 };
        tl_str_add(&b, tl_name(tr, r[k].ev));
        for (int p = 0; p < npc; p++) {
            const struct tl_param *x = param_of(&r[k].c, pc[p]);
            tl_str_add(&b, "\x1f");
            tl_str_add(&b, x && x->repr ? x->repr : "\x01");
        }
        if ((rc = tl_str_take(&b, &r[k].key)) < 0)
            return rc;
    }
    return 0;
}

static int sheet(const struct tl_tree *tr, int family, struct ps_tl_tables *out)
{
    struct tl_prow *r;
    size_t n, *first = NULL;
    int rc = tl_eval_rows(tr, family, &r, &n);
    if (rc < 0 || n == 0) {
        tl_prows_free(r, n);
        return rc;
    }
    const char *pc[2 * TL_MAX_PARAMS], *cols[2 * TL_MAX_PARAMS + 1 + NTAIL];
    char names[2 * TL_MAX_PARAMS][48];
    int npc = param_cols(r, n, pc);
    cols[0] = "name";
    for (int p = 0; p < npc; p++) {
        snprintf(names[p], sizeof names[p], "param: %s", pc[p]);
        cols[1 + p] = names[p];
    }
    memcpy(cols + 1 + npc, tail_cols, sizeof tail_cols);
    long ng = make_keys(tr, r, n, pc, npc) < 0 ? -ENOMEM : tl_group(r, n, &first);
    struct tl_tab tab;
    double *buf = malloc(2 * (n + 1) * sizeof *buf);   /* the values of a group, then scratch for medians */
    struct tl_u32v *lists = malloc((n + 1) * sizeof *lists);
    struct gsum *gs = ng > 0 ? calloc((size_t)ng, sizeof *gs) : NULL;
    size_t *perm = ng > 0 ? malloc((size_t)ng * sizeof *perm) : NULL;
    rc = ng < 0 || !buf || !lists || !gs || !perm ? -ENOMEM
         : tl_tab_start(out, tl_family_sheet(family), cols, 1 + (size_t)npc + NTAIL, &tab);
    for (long g = 0; rc == 0 && g < ng; g++) {
        group_row(tr, &tab, r, n, (size_t)g, pc, npc, buf, buf + n + 1, lists);
        gs[g].g = (size_t)g;
        gs[g].uid = tr->t->ev.v[r[first[g]].ev].uid;
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (r[k].group == (size_t)g)
                buf[m++] = r[k].m.kt;
        gs[g].kt_sum = tl_pd_sum(buf, m);
    }
    if (rc == 0 && tab.oom)
        rc = -ENOMEM;
    if (rc == 0) {
        qsort(gs, (size_t)ng, sizeof *gs, by_time);
        for (long g = 0; g < ng; g++)
            perm[g] = gs[g].g;
        rc = tl_tab_permute(&tab, perm);
    }
    free(buf), free(lists), free(gs), free(perm), free(first);
    tl_prows_free(r, n);
    return rc;
}

int tl_make_keys(const struct tl_tree *tr, struct tl_prow *r, size_t n)
{
    const char *pc[2 * TL_MAX_PARAMS];
    return make_keys(tr, r, n, pc, param_cols(r, n, pc));
}

int tl_perf_sheets(const struct tl_tree *tr, struct ps_tl_tables *out)
{
    for (int f = 0; f < PS_OPF_COUNT; f++) {
        int rc = sheet(tr, f, out);
        if (rc < 0)
            return rc;
    }
    return 0;
}
