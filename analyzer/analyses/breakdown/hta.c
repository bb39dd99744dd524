/* Holistic Trace Analysis' GPU breakdowns (hta/analyzers/breakdown_analysis.py, communication_analysis.py),
 * computed exactly in ns without HTA's whole-µs rounding: temporal breakdown per device (idle / compute /
 * non-compute over the GPU-active span), idle breakdown per stream (host_wait / kernel_wait / other, 30 µs),
 * and communication-computation overlap. HTA's last-step filter applies first (see hta_keep). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define MAX_DEVS 64
#define KERNEL_WAIT_NS 30000   /* HTA consecutive_kernel_delay = 30, in trace units (µs) */

/* HTA Trace._filter_irrelevant_gpu_kernels: with >= 2 steps, host events at or after the last step's start
 * are dropped, and GPU events survive only when their launching call survived. */
static int hta_keep(const struct ps_report *r, const struct ps_view *v, const struct ps_gpu_op *op)
{
    if (r->nsteps_host < 2)
        return 1;
    int64_t last = r->last_host_step_start_ns;   /* exact, even under --compat tb */
    return op->launch != PS_NONE && ps_view_api_at(v, op->launch)->start_ns < last;
}

struct dev_sets {
    int32_t id;
    int64_t first, last;   /* first start, last end, zero-length events included (HTA merges [ts, ts+dur]) */
    struct ps_run all, compute;   /* running unions (ops come in start order) */
    int64_t all_ns, compute_ns;   /* length of their finished pieces */
};

static void run_add(struct ps_run *u, int64_t s, int64_t e, int64_t *total)
{
    int64_t ps, pe;
    if (ps_run_add(u, s, e, &ps, &pe))
        *total += pe - ps;
}

static void run_flush(struct ps_run *u, int64_t *total)
{
    int64_t ps, pe;
    if (ps_run_flush(u, &ps, &pe))
        *total += pe - ps;
}

static int temporal(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    struct dev_sets d[MAX_DEVS] = { 0 };
    size_t nd = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (!hta_keep(r, v, op))
            continue;
        int32_t dev = m->streams.v[op->stream].device;
        size_t k = 0;
        while (k < nd && d[k].id != dev)
            k++;
        if (k == nd) {
            if (nd == MAX_DEVS)
                continue;
            d[nd].id = dev;
            d[nd].first = op->start_ns;
            d[nd++].last = op->end_ns;
        }
        if (op->end_ns > d[k].last)
            d[k].last = op->end_ns;
        /* every event with a stream counts, cuda_sync included (HTA: stream != -1) */
        run_add(&d[k].all, op->start_ns, op->end_ns, &d[k].all_ns);
        if (op->kind == PS_GPU_KERNEL && (ps_names_flags(names, op->name) & PS_NAME_HTA_COMPUTE))
            run_add(&d[k].compute, op->start_ns, op->end_ns, &d[k].compute_ns);
    }
    for (size_t k = 0; k < nd; k++) {
        run_flush(&d[k].all, &d[k].all_ns);
        run_flush(&d[k].compute, &d[k].compute_ns);
        struct ps_device_stat *ds;
        int rc = ps_report_device(r, d[k].id, &ds);
        if (rc < 0)
            return rc;
        ds->hta_span_ns = d[k].last - d[k].first;
        ds->hta_idle_ns = ds->hta_span_ns - d[k].all_ns;
        ds->hta_compute_ns = d[k].compute_ns;
        ds->hta_non_compute_ns = ds->hta_span_ns - ds->hta_compute_ns - ds->hta_idle_ns;
    }
    return 0;
}

struct stream_state {
    int seen;
    int64_t prev_end;
    struct ps_idle_stat st;
};

/* _analyze_idle_time_for_stream: per stream in start order, the gap before each event goes whole to
 * host_wait (its launch began after the stream drained), else kernel_wait (gap < 30 µs; HTA puts negative
 * gaps from overlapping events here too), else other. The first event of a stream has no gap. */
static int idle(struct ps_report *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    struct stream_state *s = calloc(m->streams.n + 1, sizeof *s);
    if (!s)
        return -ENOMEM;
    size_t nused = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (op->kind == PS_GPU_SYNC || !hta_keep(r, v, op))
            continue;
        struct stream_state *x = &s[op->stream];
        if (x->seen) {
            int64_t gap = op->start_ns - x->prev_end;
            if (op->launch != PS_NONE && ps_view_api_at(v, op->launch)->start_ns > x->prev_end)
                x->st.host_wait_ns += gap;
            else if (gap < KERNEL_WAIT_NS)
                x->st.kernel_wait_ns += gap;
            else
                x->st.other_ns += gap;
        } else {
            x->seen = 1;
            nused++;
        }
        x->prev_end = op->end_ns;
    }
    r->idle = calloc(nused + 1, sizeof *r->idle);
    if (!r->idle) {
        free(s);
        return -ENOMEM;
    }
    for (size_t k = 0; k < m->streams.n; k++) {
        if (!s[k].seen)
            continue;
        s[k].st.device = m->streams.v[k].device;
        s[k].st.stream = m->streams.v[k].stream;
        r->idle[r->nidle++] = s[k].st;
    }
    free(s);
    return 0;
}

/* get_comm_comp_overlap: |∪comm ∩ ∪comp| / |∪comm|, HTA's kernel types: a two-category sweep. */
enum { OV_COMM, OV_COMP };
struct overlap_sums {
    int64_t comm_ns, both_ns;
};

static void overlap_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct overlap_sums *o = ctx;
    if (active & (1u << OV_COMM)) {
        o->comm_ns += e - s;
        if (active & (1u << OV_COMP))
            o->both_ns += e - s;
    }
}

static int overlap(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct overlap_sums o = { 0 };
    struct ps_sweep w;
    ps_sweep_init(&w, 2, overlap_piece, &o);
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (op->kind != PS_GPU_KERNEL || !hta_keep(r, v, op))
            continue;
        unsigned f = ps_names_flags(names, op->name);
        if (f & PS_NAME_HTA_COMM)
            ps_sweep_add(&w, OV_COMM, op->start_ns, op->end_ns);
        else if (f & PS_NAME_HTA_COMPUTE)
            ps_sweep_add(&w, OV_COMP, op->start_ns, op->end_ns);
    }
    ps_sweep_finish(&w);
    r->comm_comp_overlap = o.comm_ns > 0 ? (double)o.both_ns / (double)o.comm_ns : NAN;
    return 0;
}

int ps_hta_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    int rc = temporal(r, v, names);
    if (rc == 0)
        rc = idle(r, v);
    if (rc == 0)
        rc = overlap(r, v, names);
    return rc;
}
