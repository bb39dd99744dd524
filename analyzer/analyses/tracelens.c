/* TraceLens' GPU timeline (TraceLens/TreePerf/gpu_event_analyser.py), per device over the whole trace:
 * computation (kernels and memsets that are not NCCL/RCCL), exposed communication, exposed memcpy and idle
 * between the first and the last GPU event. The four parts sum to the total. */
#include <errno.h>

#include "analyses/analyses.h"
#include "analyses/sweep.h"

#define MAX_DEVS 64

enum { TL_COMP, TL_COMM, TL_COPY };

struct dev_sets {
    int32_t id;
    int64_t first, last;   /* first start, last end, zero-length events included (as TraceLens' min/max) */
    struct ps_sweep w;     /* over this device's rows (start order): computation, communication, memcpy */
    int64_t comp_ns, comm_ns, copy_ns, all_ns;   /* computation, exposed comm, exposed memcpy, any */
};

static void tl_piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct dev_sets *d = ctx;
    d->all_ns += e - s;
    if (active & (1u << TL_COMP))
        d->comp_ns += e - s;
    else if (active & (1u << TL_COMM))
        d->comm_ns += e - s;   /* communication not hidden under computation */
    else
        d->copy_ns += e - s;   /* memcpy under neither */
}

int ps_tracelens_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    struct dev_sets d[MAX_DEVS];
    size_t nd = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if (op->kind == PS_GPU_SYNC)
            continue;   /* TraceLens reads kernel, gpu_memcpy and gpu_memset events only */
        int32_t dev = m->streams.v[op->stream].device;
        size_t k = 0;
        while (k < nd && d[k].id != dev)
            k++;
        if (k == nd) {
            if (nd == MAX_DEVS)
                continue;
            d[nd] = (struct dev_sets){ .id = dev, .first = op->start_ns, .last = op->end_ns };
            ps_sweep_init(&d[nd].w, 3, tl_piece, &d[nd]);
            nd++;
        }
        if (op->end_ns > d[k].last)
            d[k].last = op->end_ns;
        int cat = TL_COMP;
        if (op->kind == PS_GPU_MEMCPY)
            cat = TL_COPY;
        else if (op->kind == PS_GPU_KERNEL && (ps_names_flags(names, op->name) & PS_NAME_NCCL))
            cat = TL_COMM;
        ps_sweep_add(&d[k].w, cat, op->start_ns, op->end_ns);
    }
    for (size_t k = 0; k < nd; k++) {
        ps_sweep_finish(&d[k].w);
        struct ps_device_stat *ds = ps_report_device(r, d[k].id);
        if (!ds)
            return -ENOMEM;
        ds->tl_total_ns = d[k].last - d[k].first;
        ds->tl_computation_ns = d[k].comp_ns;
        ds->tl_exposed_comm_ns = d[k].comm_ns;
        ds->tl_exposed_memcpy_ns = d[k].copy_ns;
        ds->tl_idle_ns = ds->tl_total_ns - d[k].all_ns;
    }
    return 0;
}
