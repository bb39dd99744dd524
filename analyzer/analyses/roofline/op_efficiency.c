/* The report's "Operator efficiency" section (analyses/roofline.h, docs/op-perf-roofline.md): the operator
 * model's rows (analyses/op_perf.h) against the trace's GPU peaks, MFU over the analysed steps, and the findings
 * sized by recoverable time (kernel time - roofline time). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "analyses/roofline.h"
#include "model/model.h"
#include "roofline_impl.h"

void ps_op_efficiency_free(struct ps_op_efficiency *e)
{
    if (!e)
        return;
    ps_roofline_fini(&e->roof);
    free(e);
}

/* The precision of a TraceLens compute spec ("matrix_bf16" -> bf16); -1 when none. */
static int spec_precision(const char *spec)
{
    const char *u = strchr(spec, '_');
    enum ps_precision p;
    return u && ps_precision_from_name(u + 1, strlen(u + 1), &p) ? (int)p : -1;
}

/* The first device with a name (else the first device) into e. */
static void pick_device(struct ps_op_efficiency *e, const struct ps_model *m, int64_t *mem)
{
    const struct ps_device *d = m->devices.n ? &m->devices.v[0] : NULL;
    for (size_t i = 0; i < m->devices.n; i++)
        if (m->devices.v[i].name != PS_NONE) {
            d = &m->devices.v[i];
            break;
        }
    e->cc_major = e->cc_minor = e->sm_count = -1;
    *mem = -1;
    if (!d)
        return;
    if (d->name != PS_NONE)
        snprintf(e->device, sizeof e->device, "%s", ps_model_str(m, d->name));
    e->cc_major = d->cc_major;
    e->cc_minor = d->cc_minor;
    e->sm_count = d->sm_count;
    *mem = d->total_mem_bytes;
}

/* The operator model's rows and unmodeled ops as roofline groups and (aggregate, untimed) calls. */
static int build_roofline(struct ps_op_efficiency *e, const struct ps_op_perf *perf, const struct ps_gpu_peak *gpu)
{
    size_t n = perf->nrows + perf->nunmodeled;
    struct ps_roof_group *g = calloc(n ? n : 1, sizeof *g);
    struct ps_roof_call *c = calloc(n ? n : 1, sizeof *c);
    int rc = -ENOMEM;
    if (g && c) {
        for (size_t i = 0; i < perf->nrows; i++) {
            const struct ps_op_perf_row *row = &perf->rows[i];
            g[i] = (struct ps_roof_group){ row->name, row->params, row->category ? row->category : "",
                                           row->is_matrix, spec_precision(row->compute_spec), 1, (int64_t)i };
            c[i] = (struct ps_roof_call){ (uint32_t)i, PS_ROOF_NO_TIME, row->calls, row->flops_per_call,
                                          row->bytes_per_call, (int64_t)llround(row->kernel_time_ns_total) };
        }
        for (size_t j = 0; j < perf->nunmodeled; j++) {
            const struct ps_op_perf_unmodeled *u = &perf->unmodeled[j];
            size_t i = perf->nrows + j;
            g[i] = (struct ps_roof_group){ u->name, "", "", 0, -1, 0, -1 };
            c[i] = (struct ps_roof_call){ (uint32_t)i, PS_ROOF_NO_TIME, u->calls, NAN, NAN,
                                          (int64_t)llround(u->kernel_time_us * 1e3) };
        }
        int64_t start = 0, end = (int64_t)llround(e->window_ns);
        rc = ps_roofline_compute(&e->roof, gpu, g, n, c, n, &start, &end, 1);
    }
    free(g);
    free(c);
    return rc;
}

int ps_op_efficiency_compute(struct ps_report *r, const struct ps_op_perf *perf, const struct ps_gpu_specs *user)
{
    struct ps_op_efficiency *e = calloc(1, sizeof *e);
    if (!e)
        return -ENOMEM;
    int64_t mem;
    pick_device(e, r->m, &mem);
    const char *how = "none";
    const struct ps_gpu_peak *gpu = ps_gpu_peak_match(user, e->device, e->cc_major, e->cc_minor, e->sm_count, mem,
                                                      &how);
    e->has_shapes = perf && perf->has_shapes;
    e->nsteps = r->whole_run ? 0 : r->nsteps;
    for (size_t i = 0; i < r->nsteps; i++)
        e->window_ns += (double)(r->steps[i].end_ns - r->steps[i].start_ns);
    if (!r->nsteps)
        e->window_ns = (double)(r->run_end_ns - r->run_start_ns);
    e->gpu_busy_ns = perf ? perf->gpu_busy_us * 1e3 : NAN;
    e->no_gpu_work = perf && perf->nrows > 0 && !(perf->gpu_busy_us > 0);
    for (size_t i = 0; i < r->nkernels; i++) {
        const char *k = ps_report_name(r, r->kernels[i].name);
        e->uses_compile |= k && !strncmp(k, "triton_", 7);
    }
    static const struct ps_op_perf none;
    int rc = build_roofline(e, perf ? perf : &none, gpu);
    if (rc < 0) {
        ps_op_efficiency_free(e);
        return rc;
    }
    e->roof.match_how = how;
    ps_op_efficiency_free(r->opeff);
    r->opeff = e;
    ps_op_efficiency_findings(r);
    return 0;
}
