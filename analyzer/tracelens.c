/* TraceLens' GPU timeline (TraceLens/TreePerf/gpu_event_analyser.py), per device over the whole trace:
 * computation (kernels and memsets that are not NCCL/RCCL), exposed communication, exposed memcpy and idle
 * between the first and the last GPU event. The four parts sum to the total. */
#include <errno.h>

#include "analysis.h"
#include "intervals.h"

#define MAX_DEVS 64

struct dev_sets {
    int32_t id;
    int64_t first, last;   /* first start, last end, zero-length events included (as TraceLens' min/max) */
    struct ps_ivls all, comp, comm, copy;
};

static void sets_fini(struct dev_sets *d)
{
    ps_ivls_fini(&d->all);
    ps_ivls_fini(&d->comp);
    ps_ivls_fini(&d->comm);
    ps_ivls_fini(&d->copy);
}

static int fill(struct ps_device_stat *ds, struct dev_sets *d)
{
    struct ps_ivls t1 = { 0 }, t2 = { 0 };
    int rc = 0;
    ps_ivls_normalize(&d->all);
    ps_ivls_normalize(&d->comp);
    ps_ivls_normalize(&d->comm);
    ps_ivls_normalize(&d->copy);
    ds->tl_total_ns = d->last - d->first;
    ds->tl_computation_ns = ps_ivls_total(&d->comp);
    if ((rc = ps_ivls_subtract(&t1, &d->comm, &d->comp)) < 0)
        goto out;
    ds->tl_exposed_comm_ns = ps_ivls_total(&t1);
    if ((rc = ps_ivls_subtract(&t1, &d->copy, &d->comp)) < 0 || (rc = ps_ivls_subtract(&t2, &t1, &d->comm)) < 0)
        goto out;
    ds->tl_exposed_memcpy_ns = ps_ivls_total(&t2);
    ds->tl_idle_ns = ds->tl_total_ns - ps_ivls_total(&d->all);
out:
    ps_ivls_fini(&t1);
    ps_ivls_fini(&t2);
    return rc;
}

int ps_tracelens_compute(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    struct dev_sets d[MAX_DEVS] = { 0 };
    size_t nd = 0;
    int rc = 0;
    for (size_t i = 0; i < m->gpu.n && rc == 0; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        if (op->kind == PS_GPU_SYNC)
            continue;   /* TraceLens reads kernel, gpu_memcpy and gpu_memset events only */
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
        struct ps_ivls *set = &d[k].comp;
        if (op->kind == PS_GPU_MEMCPY)
            set = &d[k].copy;
        else if (op->kind == PS_GPU_KERNEL && (ps_names_flags(names, op->name) & PS_NAME_NCCL))
            set = &d[k].comm;
        rc = ps_ivls_push(set, op->start_ns, op->end_ns);
        if (rc == 0)
            rc = ps_ivls_push(&d[k].all, op->start_ns, op->end_ns);
    }
    for (size_t k = 0; k < nd && rc == 0; k++) {
        struct ps_device_stat *ds = ps_report_device(r, d[k].id);
        if (!ds)
            rc = -ENOMEM;
        else
            rc = fill(ds, &d[k]);
    }
    for (size_t k = 0; k < nd; k++)
        sets_fini(&d[k]);
    return rc;
}
