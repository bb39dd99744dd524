/* The per-operator performance model's rows (analyses/op_perf.h): TraceLens' perf-sheet groups with their totals,
 * for the report and for roofline / MFU; and the GPU time of ops without a model. docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "op_perf_impl.h"

/* Group g of the n rows r as a row of the model (buf, tmp: room for n values each). 0 or -ENOMEM. */
static int group_to_row(const struct tl_tree *tr, const struct tl_prow *r, size_t n, size_t g, int family,
                        double *buf, double *tmp, struct ps_op_perf_row *o)
{
    size_t m = 0, first = SIZE_MAX;
    int rc;
    memset(o, 0, sizeof *o);
    o->flops_total = o->bytes_total = 0;
    for (size_t k = 0; k < n; k++) {
        if (r[k].group != g)
            continue;
        first = first == SIZE_MAX ? k : first;
        buf[m++] = r[k].m.kt;
        o->flops_total += r[k].c.flops;
        o->bytes_total += r[k].c.bytes;   /* NaN stays NaN */
    }
    const struct tl_prow *f = &r[first];
    /* a forward op measured on its backward pass: "aten::convolution (backward)" */
    struct tl_str nm = { 0 };
    tl_str_add(&nm, tl_name(tr, f->ev));
    if (f->bwd)
        tl_str_add(&nm, " (backward)");
    if ((rc = tl_str_take(&nm, &o->name)) < 0 || (rc = tl_params_dict(&f->c, &o->params)) < 0)
        return rc;
    o->family = (enum ps_op_family)family;
    o->category = tl_op_category(o->name, family);
    o->sheet = tl_family_sheet(family);
    memcpy(o->compute_spec, f->m.spec, sizeof o->compute_spec);
    o->precision = f->c.precision;
    o->is_matrix = strcmp(f->c.spec_kind, "matrix") == 0;
    o->calls = (int64_t)m;
    o->flops_per_call = f->c.flops;
    o->bytes_per_call = f->c.bytes;
    o->flops_per_byte = f->m.fpb;
    o->kernel_time_ns_total = tl_pd_sum(buf, m) * 1e3;
    o->kernel_time_us_mean = tl_pd_mean(buf, m);
    o->kernel_time_us_median = tl_pd_median(buf, m, tmp);
    o->kernel_time_us_std = tl_pd_std(buf, m);
    o->kernel_time_us_min = tl_pd_min(buf, m);
    o->kernel_time_us_max = tl_pd_max(buf, m);
    m = 0;
    for (size_t k = 0; k < n; k++)
        if (r[k].group == g)
            buf[m++] = r[k].m.tflops;
    o->tflops_s_mean = tl_pd_mean(buf, m);
    o->tflops_s_median = tl_pd_median(buf, m, tmp);
    o->tflops_s_std = tl_pd_std(buf, m);
    o->tflops_s_min = tl_pd_min(buf, m);
    o->tflops_s_max = tl_pd_max(buf, m);
    m = 0;
    for (size_t k = 0; k < n; k++)
        if (r[k].group == g)
            buf[m++] = r[k].m.tbs;
    o->tb_s_mean = tl_pd_mean(buf, m);
    o->tb_s_median = tl_pd_median(buf, m, tmp);
    o->tb_s_std = tl_pd_std(buf, m);
    o->tb_s_min = tl_pd_min(buf, m);
    o->tb_s_max = tl_pd_max(buf, m);
    o->first_uid = tr->t->ev.v[f->ev].uid;
    return 0;
}

/* The groups of rows r[0..n) of one family (evaluated calls; keys made here) appended to p's rows. 0 or -ENOMEM. */
static int family_rows(const struct tl_tree *tr, struct tl_prow *r, size_t n, int family, struct ps_op_perf *p)
{
    size_t *first = NULL;
    if (n == 0)
        return 0;
    long ng = tl_make_keys(tr, r, n) < 0 ? -ENOMEM : tl_group(r, n, &first);
    double *buf = malloc(2 * (n + 1) * sizeof *buf);   /* the values of a group, then scratch for medians */
    struct ps_op_perf_row *rows = ng > 0 ? realloc(p->rows, (p->nrows + (size_t)ng) * sizeof *rows) : NULL;
    int rc = ng < 0 || !buf || !rows ? -ENOMEM : 0;
    if (rows)
        p->rows = rows;
    for (long g = 0; rc == 0 && g < ng; g++) {
        rc = group_to_row(tr, r, n, (size_t)g, family, buf, buf + n + 1, &p->rows[p->nrows]);
        p->nrows++;
    }
    free(buf), free(first);
    return rc;
}

static int by_time(const void *x, const void *y)
{
    const struct ps_op_perf_row *a = x, *b = y;
    if (a->kernel_time_ns_total != b->kernel_time_ns_total)
        return a->kernel_time_ns_total > b->kernel_time_ns_total ? -1 : 1;
    return (a->first_uid > b->first_uid) - (a->first_uid < b->first_uid);
}

int ps_op_perf_compute(const struct ps_op_trace *t, struct ps_op_perf *out)
{
    struct tl_tree tr;
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < t->args.n && !out->has_shapes; k++)
        out->has_shapes = t->args.v[k].dims != PS_NONE;
    int rc = tl_tree_init(&tr, t, tl_family);
    if (rc < 0)
        return rc;
    struct tl_u32v linked = { 0 }, no_op = { 0 };
    for (uint32_t i = 0; i < tr.n && rc == 0; i++) {
        if (!tl_is_gpu(t, i) || !tr.linked[i])
            continue;
        rc = tl_u32_push(&linked, i);
        uint32_t p = tr.parent[i];
        while (p != PS_NONE && t->ev.v[p].cat != PS_OPEV_CPU_OP)
            p = tr.parent[p];
        if (rc == 0 && p == PS_NONE)
            rc = tl_u32_push(&no_op, i);
    }
    if (rc == 0 && (rc = tl_busy(&tr, linked.v, linked.n, &out->gpu_busy_us)) == 0)
        rc = tl_busy(&tr, no_op.v, no_op.n, &out->no_op_us);
    free(linked.v);
    free(no_op.v);
    for (int f = 0; f < PS_OPF_COUNT && rc == 0; f++) {
        struct tl_prow *r;
        size_t n;
        if ((rc = tl_eval_rows(&tr, f, &r, &n)) == 0)
            rc = family_rows(&tr, r, n, f, out);
        tl_prows_free(r, n);
    }
    if (rc == 0)
        rc = tl_unmodeled(&tr, out);
    tl_tree_fini(&tr);
    if (rc < 0) {
        ps_op_perf_fini(out);
        return rc;
    }
    if (out->nrows)
        qsort(out->rows, out->nrows, sizeof *out->rows, by_time);
    return 0;
}

/* ---- per window (per-step MFU): one tree for the trace, every call evaluated once ---- */
struct wcall {                    /* call k of family fam's evaluated rows, by its host op's start */
    double ts_us;
    uint32_t fam, k;
};

static int wcall_by_ts(const void *x, const void *y)
{
    const struct wcall *a = x, *b = y;
    if (a->ts_us != b->ts_us)
        return a->ts_us < b->ts_us ? -1 : 1;
    return a->fam != b->fam ? (a->fam > b->fam) - (a->fam < b->fam) : (a->k > b->k) - (a->k < b->k);
}

static int wcall_by_row(const void *x, const void *y)
{
    const struct wcall *a = x, *b = y;
    return a->fam != b->fam ? (a->fam > b->fam) - (a->fam < b->fam) : (a->k > b->k) - (a->k < b->k);
}

/* The first of calls[0..n) (by start) that starts at or after lo_us. */
static size_t wcall_first(const struct wcall *calls, size_t n, double lo_us)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (calls[mid].ts_us < lo_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Window w's model from the calls that start in it (rows[f]: family f's evaluated calls; owners: the unified
 * table's ops as wcalls of family 0, k their index in owner_ev): the groups of each family in family order, as
 * ps_op_perf_compute groups a trace's calls, then the ops without a model. copies, sel: room for every call. */
static int window_model(const struct tl_tree *tr, struct tl_prow *const *rows, const struct wcall *calls,
                        size_t ncalls, const struct wcall *owners, size_t nowners, const uint32_t *owner_ev,
                        const struct ps_op_window *w, struct tl_prow *copies, struct wcall *sel, uint32_t *osel,
                        struct ps_op_perf *p)
{
    size_t m = 0, mo = 0;
    int rc = 0;
    for (size_t i = wcall_first(calls, ncalls, w->lo_us); i < ncalls && calls[i].ts_us < w->hi_us; i++)
        sel[m++] = calls[i];
    qsort(sel, m, sizeof *sel, wcall_by_row);   /* each family's calls in its evaluation (file) order */
    for (size_t i = 0; i < m && rc == 0;) {
        uint32_t f = sel[i].fam;
        size_t j = 0;
        for (; i < m && sel[i].fam == f; i++) {
            copies[j] = rows[f][sel[i].k];   /* borrowed: only its key and group are the window's own */
            copies[j++].key = NULL;
        }
        rc = family_rows(tr, copies, j, (int)f, p);
        for (size_t q = 0; q < j; q++)
            free(copies[q].key);
    }
    for (size_t i = wcall_first(owners, nowners, w->lo_us); i < nowners && owners[i].ts_us < w->hi_us; i++)
        sel[mo++] = owners[i];
    qsort(sel, mo, sizeof *sel, wcall_by_row);   /* the unified table's collection order */
    for (size_t i = 0; i < mo; i++)
        osel[i] = owner_ev[sel[i].k];
    if (rc == 0)
        rc = tl_unmodeled_of(tr, osel, mo, p);
    if (rc == 0 && p->nrows)
        qsort(p->rows, p->nrows, sizeof *p->rows, by_time);
    return rc;
}

int ps_op_perf_windows(const struct ps_op_trace *t, const struct ps_op_window *w, size_t nw,
                       ps_op_perf_window_fn *each, void *ctx)
{
    struct tl_tree tr;
    struct tl_prow *rows[PS_OPF_COUNT] = { 0 };
    size_t nrows[PS_OPF_COUNT] = { 0 }, ncalls = 0, nmax;
    struct tl_u32v own = { 0 };
    struct wcall *calls = NULL, *owners = NULL, *sel = NULL;
    struct tl_prow *copies = NULL;
    uint32_t *osel = NULL;
    int has_shapes = 0;
    for (size_t k = 0; k < t->args.n && !has_shapes; k++)
        has_shapes = t->args.v[k].dims != PS_NONE;
    int rc = tl_tree_init(&tr, t, tl_family);
    if (rc < 0)
        return rc;
    for (int f = 0; f < PS_OPF_COUNT && rc == 0; f++)
        if ((rc = tl_eval_rows(&tr, f, &rows[f], &nrows[f])) == 0)
            ncalls += nrows[f];
    if (rc == 0)
        rc = tl_owners(&tr, &own);
    nmax = ncalls > own.n ? ncalls : own.n;
    if (rc == 0) {
        calls = malloc((ncalls + 1) * sizeof *calls);
        owners = malloc((own.n + 1) * sizeof *owners);
        sel = malloc((nmax + 1) * sizeof *sel);
        copies = malloc((ncalls + 1) * sizeof *copies);
        osel = malloc((own.n + 1) * sizeof *osel);
        rc = calls && owners && sel && copies && osel ? 0 : -ENOMEM;
    }
    if (rc == 0) {
        size_t c = 0;
        for (uint32_t f = 0; f < PS_OPF_COUNT; f++)
            for (uint32_t k = 0; k < nrows[f]; k++)
                calls[c++] = (struct wcall){ t->ev.v[rows[f][k].ev].ts_us, f, k };
        qsort(calls, ncalls, sizeof *calls, wcall_by_ts);
        for (uint32_t k = 0; k < own.n; k++)
            owners[k] = (struct wcall){ t->ev.v[own.v[k]].ts_us, 0, k };
        qsort(owners, own.n, sizeof *owners, wcall_by_ts);
    }
    for (size_t k = 0; k < nw && rc == 0; k++) {
        struct ps_op_perf p = { .has_shapes = has_shapes, .gpu_busy_us = NAN, .no_op_us = NAN };
        rc = window_model(&tr, rows, calls, ncalls, owners, own.n, own.v, &w[k], copies, sel, osel, &p);
        if (rc == 0)
            rc = each(ctx, k, &p);
        ps_op_perf_fini(&p);
    }
    for (int f = 0; f < PS_OPF_COUNT; f++)
        tl_prows_free(rows[f], nrows[f]);
    free(own.v), free(calls), free(owners), free(sel), free(copies), free(osel);
    tl_tree_fini(&tr);
    return rc;
}

void ps_op_perf_fini(struct ps_op_perf *p)
{
    for (size_t k = 0; k < p->nrows; k++) {
        free(p->rows[k].name);
        free(p->rows[k].params);
    }
    for (size_t k = 0; k < p->nunmodeled; k++)
        free(p->unmodeled[k].name);
    free(p->rows);
    free(p->unmodeled);
    memset(p, 0, sizeof *p);
}

int ps_op_perf_attach(struct ps_report *r, const struct ps_op_perf *p)
{
    r->op_perf = p;
    if (!p || p->has_shapes || p->gpu_busy_us <= 0)
        return 0;
    char *text = strdup("This PyTorch profiler trace records no operator shapes, so no operator has FLOPs, bytes or "
                        "achieved TFLOP/s: record with torch.profiler.profile(record_shapes=True).");
    struct ps_message *v = text ? realloc(r->msgs, (r->nmsgs + 1) * sizeof *v) : NULL;
    if (!v) {
        free(text);
        return -ENOMEM;
    }
    r->msgs = v;
    r->msgs[r->nmsgs++] = (struct ps_message){ .level = PS_MSG_NOTE, .code = "no_op_shapes", .text = text };
    return 0;
}
