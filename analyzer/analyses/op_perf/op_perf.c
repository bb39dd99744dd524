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

/* ---- per window (per-step MFU): one tree for the trace, every call evaluated once ----
 * Each evaluated call is kept as the few figures a window's groups need (struct wcall: some 48 bytes, where its
 * evaluated row holds about 800 with its parameters): a window's model is then its calls grouped as
 * ps_op_perf_compute groups them, with the same sums in the same order. */
struct wcall {
    double ts_us;                 /* its host op's start: the window it counts in */
    double kt_us, flops;          /* its kernel time and FLOPs (tl_metrics, tl_call) */
    uint64_t uid;                 /* its host op's index in traceEvents */
    uint32_t fam, pos;            /* its family, and its place in the family's evaluation (file) order */
    uint32_t key;                 /* its group within the family: name and parameters (tl_group over the family) */
    uint8_t spec;                 /* its compute spec: index into struct windows' specs */
    uint8_t is_matrix;
};

struct wowner {                   /* an op of the unified table (tl_owners), for the ops without a model */
    double ts_us, us;             /* its start; the busy time of its GPU work */
    uint32_t pos, name;           /* its place in tl_owners' order; its name's string id */
    uint8_t has_model;
};

struct windows {
    struct wcall *calls, *sel;    /* by start; a window's calls */
    size_t ncalls, cap;
    struct wowner *owners, *osel;
    size_t nowners;
    char specs[256][24];          /* the compute specs seen ("matrix_bf16", ...; few) */
    size_t nspecs;
    double *kts;                  /* a group's kernel times, for their sum */
    struct ps_op_window_group *groups;
    struct ps_op_window_unmodeled *unmodeled;
};

static int by_start_then_place(const void *x, const void *y)
{
    const struct wcall *a = x, *b = y;
    if (a->ts_us != b->ts_us)
        return a->ts_us < b->ts_us ? -1 : 1;
    return a->fam != b->fam ? (a->fam > b->fam) - (a->fam < b->fam) : (a->pos > b->pos) - (a->pos < b->pos);
}

static int by_group_then_place(const void *x, const void *y)
{
    const struct wcall *a = x, *b = y;
    if (a->fam != b->fam)
        return (a->fam > b->fam) - (a->fam < b->fam);
    return a->key != b->key ? (a->key > b->key) - (a->key < b->key) : (a->pos > b->pos) - (a->pos < b->pos);
}

static int owner_by_start(const void *x, const void *y)
{
    const struct wowner *a = x, *b = y;
    if (a->ts_us != b->ts_us)
        return a->ts_us < b->ts_us ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int owner_by_place(const void *x, const void *y)
{
    const struct wowner *a = x, *b = y;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* ps_op_perf's row order (by_time): kernel time descending, then the first call's UID. */
static int group_by_time(const void *x, const void *y)
{
    const struct ps_op_window_group *a = x, *b = y;
    if (a->kernel_time_ns_total != b->kernel_time_ns_total)
        return a->kernel_time_ns_total > b->kernel_time_ns_total ? -1 : 1;
    return (a->first_uid > b->first_uid) - (a->first_uid < b->first_uid);
}

static int spec_index(struct windows *w, const char *spec)
{
    for (size_t k = 0; k < w->nspecs; k++)
        if (strcmp(w->specs[k], spec) == 0)
            return (int)k;
    if (w->nspecs == sizeof w->specs / sizeof w->specs[0])
        return -EOVERFLOW;
    snprintf(w->specs[w->nspecs], sizeof w->specs[0], "%s", spec);
    return (int)w->nspecs++;
}

/* Family f's calls evaluated, grouped, and kept as wcalls. 0 or -ENOMEM. */
static int window_calls(struct windows *w, const struct tl_tree *tr, int f)
{
    struct tl_prow *r;
    size_t n, *first = NULL;
    int rc = tl_eval_rows(tr, f, &r, &n);
    long ng = rc < 0 || n == 0 ? 0 : tl_make_keys(tr, r, n) < 0 ? -ENOMEM : tl_group(r, n, &first);
    rc = rc < 0 ? rc : ng < 0 ? (int)ng : 0;
    if (rc == 0 && w->ncalls + n > w->cap) {
        size_t cap = 2 * (w->ncalls + n) + 16;
        struct wcall *v = realloc(w->calls, cap * sizeof *v);
        rc = v ? 0 : -ENOMEM;
        if (v)
            w->calls = v, w->cap = cap;
    }
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const struct tl_prow *x = &r[k];
        int spec = spec_index(w, x->m.spec);
        if (spec < 0) {
            rc = spec;
            break;
        }
        w->calls[w->ncalls++] = (struct wcall){ .ts_us = tr->t->ev.v[x->ev].ts_us, .kt_us = x->m.kt,
                                                 .flops = x->c.flops, .uid = tr->t->ev.v[x->ev].uid,
                                                 .fam = (uint32_t)f, .pos = (uint32_t)k, .key = (uint32_t)x->group,
                                                 .spec = (uint8_t)spec,
                                                 .is_matrix = strcmp(x->c.spec_kind, "matrix") == 0 };
    }
    free(first);
    tl_prows_free(r, n);
    return rc;
}

/* The unified table's ops with their busy time and start. 0 or -ENOMEM. */
static int window_owners(struct windows *w, const struct tl_tree *tr)
{
    struct tl_u32v own;
    int rc = tl_owners(tr, &own);
    if (rc == 0 && (!(w->owners = malloc((own.n + 1) * sizeof *w->owners)) ||
                    !(w->osel = malloc((own.n + 1) * sizeof *w->osel))))
        rc = -ENOMEM;
    for (uint32_t k = 0; rc == 0 && k < own.n; k++) {
        uint32_t i = own.v[k];
        struct wowner *o = &w->owners[k];
        *o = (struct wowner){ .ts_us = tr->t->ev.v[i].ts_us, .pos = k, .name = tr->t->ev.v[i].name,
                              .has_model = tr->family[i] >= 0 };
        rc = tl_busy(tr, tr->gpu_events[i].v, tr->gpu_events[i].n, &o->us);
    }
    w->nowners = rc == 0 ? own.n : 0;
    free(own.v);
    return rc;
}

/* The first of n items of `size` bytes sorted by a leading double start that starts at or after lo_us. */
static size_t first_at(const void *v, size_t n, size_t size, double lo_us)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double ts;
        memcpy(&ts, (const char *)v + mid * size, sizeof ts);
        if (ts < lo_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Window `win`'s model into *m (its arrays w's scratch): the groups of the calls that start in it, with
 * group_to_row's sums in the same order (FLOPs added call by call in file order, kernel time pandas' sum of the
 * calls' µs times 1e3) and the first call's compute spec, ordered as ps_op_perf's rows; the ops without a model by
 * name, their busy times added in the unified table's order. */
static void window_model(struct windows *w, const struct ps_op_window *win, struct ps_op_window_model *m)
{
    size_t n = 0, ng = 0, no = 0, nu = 0;
    for (size_t i = first_at(w->calls, w->ncalls, sizeof *w->calls, win->lo_us);
         i < w->ncalls && w->calls[i].ts_us < win->hi_us; i++)
        w->sel[n++] = w->calls[i];
    qsort(w->sel, n, sizeof *w->sel, by_group_then_place);
    for (size_t i = 0, j; i < n; i = j) {
        struct ps_op_window_group *g = &w->groups[ng++];
        *g = (struct ps_op_window_group){ .first_uid = w->sel[i].uid, .is_matrix = w->sel[i].is_matrix };
        memcpy(g->compute_spec, w->specs[w->sel[i].spec], sizeof g->compute_spec);
        for (j = i; j < n && w->sel[j].fam == w->sel[i].fam && w->sel[j].key == w->sel[i].key; j++) {
            w->kts[j - i] = w->sel[j].kt_us;
            g->flops_total += w->sel[j].flops;
        }
        g->calls = (int64_t)(j - i);
        g->kernel_time_ns_total = tl_pd_sum(w->kts, j - i) * 1e3;
    }
    qsort(w->groups, ng, sizeof *w->groups, group_by_time);
    for (size_t i = first_at(w->owners, w->nowners, sizeof *w->owners, win->lo_us);
         i < w->nowners && w->owners[i].ts_us < win->hi_us; i++)
        w->osel[no++] = w->owners[i];
    qsort(w->osel, no, sizeof *w->osel, owner_by_place);
    for (size_t i = 0; i < no; i++) {
        const struct wowner *o = &w->osel[i];
        size_t j = 0;
        if (o->has_model)
            continue;
        while (j < nu && w->unmodeled[j].name != o->name)
            j++;
        if (j == nu)
            w->unmodeled[nu++] = (struct ps_op_window_unmodeled){ .name = o->name };
        w->unmodeled[j].kernel_time_us += o->us;
        w->unmodeled[j].calls++;
    }
    *m = (struct ps_op_window_model){ w->groups, ng, w->unmodeled, nu };
}

int ps_op_perf_windows(const struct ps_op_trace *t, const struct ps_op_window *win, size_t nwin,
                       ps_op_perf_window_fn *each, void *ctx)
{
    struct tl_tree tr;
    struct windows *w = calloc(1, sizeof *w);
    int rc = w ? tl_tree_init(&tr, t, tl_family) : -ENOMEM;
    if (rc < 0) {
        free(w);
        return rc;
    }
    for (int f = 0; f < PS_OPF_COUNT && rc == 0; f++)
        rc = window_calls(w, &tr, f);
    if (rc == 0)
        rc = window_owners(w, &tr);
    tl_tree_fini(&tr);   /* what the windows need is in w now */
    if (rc == 0) {
        size_t n = w->ncalls + 1, no = w->nowners + 1;
        w->sel = malloc(n * sizeof *w->sel);
        w->kts = malloc(n * sizeof *w->kts);
        w->groups = malloc(n * sizeof *w->groups);
        w->unmodeled = malloc(no * sizeof *w->unmodeled);
        rc = w->sel && w->kts && w->groups && w->unmodeled ? 0 : -ENOMEM;
    }
    if (rc == 0) {
        qsort(w->calls, w->ncalls, sizeof *w->calls, by_start_then_place);
        qsort(w->owners, w->nowners, sizeof *w->owners, owner_by_start);
    }
    for (size_t k = 0; k < nwin && rc == 0; k++) {
        struct ps_op_window_model m;
        window_model(w, &win[k], &m);
        rc = each(ctx, k, &m);
    }
    free(w->calls), free(w->sel), free(w->owners), free(w->osel), free(w->kts), free(w->groups), free(w->unmodeled);
    free(w);
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
