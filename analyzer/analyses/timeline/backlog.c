/* GPU work the trace does not hold (docs/report.md "Work queued before the trace"). A trace that opens while the
 * GPU is still busy with earlier work shows GPU ops launched early that start much later, with nothing recorded on
 * their device in between: e.g. copies queued at 0.53 ms that start at 8.37 ms. The host is not synchronising then
 * (a synchronising call before them may have returned in 2 µs); the GPU is running work launched before the trace
 * began. The breakdown (breakdown.c) keeps that time out of sync and the verdict leaves it out. */
#include <errno.h>
#include <stdlib.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define MAX_DEVS 64

struct dev_sets {
    int32_t id;
    int has_busy;            /* an op with end > start was seen: first_busy is the first one's start */
    int64_t first_busy;
    struct ps_ivls busy, wait;
};

static struct dev_sets *dev_of(struct dev_sets *d, size_t *nd, int32_t id)
{
    for (size_t k = 0; k < *nd; k++)
        if (d[k].id == id)
            return &d[k];
    if (*nd == MAX_DEVS)
        return NULL;   /* more devices than any node has: the rest are not examined */
    d[*nd] = (struct dev_sets){ .id = id };
    return &d[(*nd)++];
}

/* Per device, the waits of ops launched onto a drained stream. The view's ops are in start order, so the first
 * busy op of a device is the first one seen with end > start. */
static int gather_waits(struct ps_report *r, const struct ps_view *v, struct dev_sets *d, size_t *nd)
{
    const struct ps_model *m = v->m;
    int64_t *prev_end = malloc((m->streams.n + 1) * sizeof *prev_end);
    int rc = prev_end ? 0 : -ENOMEM;
    for (size_t k = 0; prev_end && k < m->streams.n; k++)
        prev_end[k] = INT64_MIN;
    for (size_t i = 0; i < v->ngpu && rc == 0; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind == PS_GPU_SYNC)
            continue;
        struct dev_sets *x = dev_of(d, nd, m->streams.v[op.stream].device);
        if (!x)
            continue;
        int64_t ready = prev_end[op.stream];
        if (op.end_ns > prev_end[op.stream])
            prev_end[op.stream] = op.end_ns;
        if (op.end_ns > op.start_ns && !x->has_busy)
            x->has_busy = 1, x->first_busy = op.start_ns;
        if (op.launch == PS_NONE)
            continue;
        const struct ps_api_call *call = ps_view_api_at(v, op.launch);
        ready = call->end_ns > ready ? call->end_ns : ready;
        if (op.start_ns <= ready || op.start_ns - ready < r->opts.gap_ns)
            continue;
        /* the device's first busy op (every busy op so far starts with it): busy since before the trace began
         * (report.h) */
        if (x->has_busy && x->first_busy == op.start_ns && r->run_start_ns < ready)
            ready = r->run_start_ns;
        rc = ps_ivls_push(&x->wait, ready, op.start_ns);
        if (r->backlog.waiting_ops++ == 0) {
            r->backlog.first_name = op.name;
            r->backlog.first_launch_ns = call->end_ns;
            r->backlog.first_start_ns = op.start_ns;
            r->backlog.first_device = m->streams.v[op.stream].device;
        }
    }
    free(prev_end);
    return rc;
}

/* Per device with waits: the recorded activity that meets them (the rest cannot shorten a wait), so memory
 * follows the waits, not the ops. Waits are normal; ops come in start order, so a wait that ends before one op
 * starts ends before every later one. */
static int gather_busy(const struct ps_view *v, struct dev_sets *d, size_t nd)
{
    const struct ps_model *m = v->m;
    size_t *at = calloc(nd + 1, sizeof *at);
    int rc = at ? 0 : -ENOMEM;
    for (size_t i = 0; i < v->ngpu && rc == 0; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, g);
        if (a->kind == PS_GPU_SYNC)
            continue;
        int32_t dev = m->streams.v[a->stream].device;
        size_t k = 0;
        while (k < nd && d[k].id != dev)
            k++;
        if (k == nd || !d[k].wait.n)
            continue;
        int64_t s = g->start_ns, e = ps_view_row_end(v, g);
        const struct ps_ivls *w = &d[k].wait;
        while (at[k] < w->n && w->v[at[k]].e <= s)
            at[k]++;
        if (at[k] < w->n && w->v[at[k]].s < e)
            rc = ps_ivls_push(&d[k].busy, s, e);
    }
    free(at);
    return rc;
}

int ps_backlog_find(struct ps_report *r, const struct ps_view *v)
{
    struct dev_sets *d = calloc(MAX_DEVS, sizeof *d);
    struct ps_ivls all = { 0 }, idle = { 0 };
    size_t nd = 0;
    free(r->backlog.spans);
    r->backlog = (struct ps_backlog_stat){ .first_name = PS_NONE, .first_device = -1 };
    int rc = d ? gather_waits(r, v, d, &nd) : -ENOMEM;
    for (size_t k = 0; k < nd && rc == 0; k++)
        ps_ivls_normalize(&d[k].wait);
    if (rc == 0 && r->backlog.waiting_ops)
        rc = gather_busy(v, d, nd);
    for (size_t k = 0; k < nd && rc == 0; k++) {
        if (!d[k].wait.n)
            continue;
        ps_ivls_normalize(&d[k].busy);
        if ((rc = ps_ivls_subtract(&idle, &d[k].wait, &d[k].busy)) < 0)
            break;
        for (size_t j = 0; j < idle.n && rc == 0; j++)
            rc = ps_ivls_push(&all, idle.v[j].s, idle.v[j].e);
    }
    for (size_t k = 0; d && k < nd; k++) {
        ps_ivls_fini(&d[k].busy);
        ps_ivls_fini(&d[k].wait);
    }
    free(d);
    ps_ivls_fini(&idle);
    ps_ivls_normalize(&all);
    if (rc == 0 && all.n && !(r->backlog.spans = malloc(all.n * sizeof *r->backlog.spans)))
        rc = -ENOMEM;
    for (size_t k = 0; rc == 0 && k < all.n; k++)
        r->backlog.spans[r->backlog.nspans++] = (struct ps_backlog_span){ all.v[k].s, all.v[k].e };
    ps_ivls_fini(&all);
    return rc;
}

int64_t ps_backlog_within(const struct ps_report *r, int64_t s, int64_t e)
{
    int64_t in = 0;
    for (size_t k = 0; k < r->backlog.nspans && r->backlog.spans[k].start_ns < e; k++)
        in += ps_overlap(r->backlog.spans[k].start_ns, r->backlog.spans[k].end_ns, s, e);
    return in;
}

void ps_backlog_split(struct ps_backlog_cursor *b, int64_t s, int64_t e, struct ps_windows *in, struct ps_windows *out)
{
    while (s < e) {
        while (b->at < b->n && b->v[b->at].end_ns <= s)
            b->at++;
        int64_t cut = b->at < b->n ? b->v[b->at].start_ns : INT64_MAX;
        if (s < cut) {   /* before the next piece of the set */
            int64_t to = cut < e ? cut : e;
            if (out)
                ps_windows_piece(out, s, to);
            s = to;
            continue;
        }
        int64_t to = b->v[b->at].end_ns < e ? b->v[b->at].end_ns : e;
        if (in)
            ps_windows_piece(in, s, to);
        s = to;
    }
}
