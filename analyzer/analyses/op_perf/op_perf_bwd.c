/* Forward attention and convolution ops measured on their backward pass (TraceLens: Trace2Tree/trace_to_tree.py
 * link_bwd_events, TreePerf/tree_perf.py compute_perf_metrics(bwd=True), Reporting/generate_perf_report_pytorch.py's
 * `_bwd` sheets): on a training trace the CONV_bwd and SDPA_bwd sheets also hold each forward op evaluated with its
 * backward model (flops_bwd / bytes_bwd), its kernel time the union of the GPU work under its autograd backward
 * events. The link: the "Sequence number" of every host op in the forward op's subtree; for each, the first
 * event in file order named "autograd::engine::evaluate_function: ..." with that number. A forward op without one
 * (an inference trace, an op run under no_grad) has no backward row. docs/op-perf.md "Backward pass". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"

static const char ENGINE_PREFIX[] = "autograd::engine::evaluate_function:";

struct seq_ev {
    int64_t seq;
    uint32_t ev;
};

static int by_seq(const void *x, const void *y)
{
    const struct seq_ev *a = x, *b = y;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

static int by_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The autograd engine's events by (sequence number, file order). */
struct seq_index {
    struct seq_ev *v;
    size_t n;
};

static int seq_index_build(const struct tl_tree *tr, struct seq_index *x)
{
    size_t cap = 0;
    memset(x, 0, sizeof *x);
    for (uint32_t i = 0; i < tr->n; i++) {
        const struct ps_op_event *e = &tr->t->ev.v[i];
        if (!e->has_seq || e->cat != PS_OPEV_CPU_OP ||
            strncmp(tl_name(tr, i), ENGINE_PREFIX, sizeof ENGINE_PREFIX - 1) != 0)
            continue;
        if (x->n == cap) {
            cap = cap ? 2 * cap : 64;
            struct seq_ev *p = realloc(x->v, cap * sizeof *p);
            if (!p)
                return -ENOMEM;
            x->v = p;
        }
        x->v[x->n++] = (struct seq_ev){ e->seq, i };
    }
    if (x->n)
        qsort(x->v, x->n, sizeof *x->v, by_seq);
    return 0;
}

/* The first engine event with sequence number seq, PS_NONE when none. */
static uint32_t seq_first(const struct seq_index *x, int64_t seq)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->v[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->n && x->v[lo].seq == seq ? x->v[lo].ev : PS_NONE;
}

/* The sequence numbers in i's subtree, ascending and distinct (TraceLens gathers a Python set of small ints and
 * iterates it; the order only decides the order of the backward events' kernels before they are sorted by
 * duration). */
static int subtree_seqs(const struct tl_tree *tr, uint32_t i, int64_t **seqs, size_t *n, size_t *cap)
{
    const struct ps_op_event *e = &tr->t->ev.v[i];
    if (e->has_seq) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 8;
            int64_t *p = realloc(*seqs, *cap * sizeof *p);
            if (!p)
                return -ENOMEM;
            *seqs = p;
        }
        (*seqs)[(*n)++] = e->seq;
    }
    for (uint32_t c = tr->child_head[i]; c != PS_NONE; c = tr->next_sib[c])
        if (subtree_seqs(tr, c, seqs, n, cap) < 0)
            return -ENOMEM;
    return 0;
}

/* The GPU work of forward op i's backward events into out (empty: no backward event). 0 or -ENOMEM. */
static int bwd_gpu(const struct tl_tree *tr, const struct seq_index *x, uint32_t i, struct tl_u32v *out, int *linked)
{
    int64_t *seqs = NULL;
    size_t n = 0, cap = 0, m = 0;
    *linked = 0;
    int rc = subtree_seqs(tr, i, &seqs, &n, &cap);
    if (rc == 0 && n) {
        qsort(seqs, n, sizeof *seqs, by_i64);
        for (size_t k = 0; k < n; k++)
            if (k == 0 || seqs[k] != seqs[k - 1])
                seqs[m++] = seqs[k];
    }
    for (size_t k = 0; k < m && rc == 0; k++) {
        uint32_t b = seq_first(x, seqs[k]);
        if (b == PS_NONE)
            continue;
        *linked = 1;
        rc = tl_subtree_gpu(tr, b, out);
    }
    free(seqs);
    return rc;
}

int tl_eval_bwd_rows(const struct tl_tree *tr, int fwd_family, struct tl_prow **r, size_t *n, size_t *cap)
{
    struct seq_index x;
    int rc = seq_index_build(tr, &x);
    for (uint32_t i = 0; i < tr->n && rc == 0 && x.n; i++) {
        if (tr->family[i] != fwd_family)
            continue;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            struct tl_prow *p = realloc(*r, *cap * sizeof *p);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            *r = p;
        }
        struct tl_prow *w = &(*r)[*n];
        int linked, modeled = 0;
        double kt;
        memset(w, 0, sizeof *w);
        w->ev = i;
        if ((rc = bwd_gpu(tr, &x, i, &w->kernels, &linked)) == 0 && linked &&
            (rc = tl_busy(tr, w->kernels.v, w->kernels.n, &kt)) == 0 &&
            (rc = tl_sort_by_dur(tr, w->kernels.v, w->kernels.n)) == 0 &&
            (rc = tl_call_eval_bwd(tr, i, &w->c, &modeled)) == 0 && modeled) {
            tl_metrics(&w->c, kt, &w->m);
            w->bwd = 1;
            (*n)++;
            continue;
        }
        free(w->kernels.v);   /* no backward event, or no backward model: no row, as in TraceLens */
    }
    free(x.v);
    return rc;
}
