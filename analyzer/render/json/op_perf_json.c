/* The report's JSON key "op_perf": the per-operator performance model (analyses/op_perf.h), every figure of each
 * op group; null when the report has none (not a PyTorch profiler trace). docs/op-perf.md, docs/report.md. */
#include <math.h>
#include <stdio.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "json/json_sections.h"

/* A number with all its digits (the JSON writer's default keeps 6); null when NaN. */
static void num(struct ps_jw *w, const char *key, double v)
{
    char buf[40];
    ps_jw_key(w, key);
    if (!isfinite(v)) {
        ps_jw_null(w);
        return;
    }
    snprintf(buf, sizeof buf, "%.17g", v);
    ps_jw_number(w, buf);
}

/* measured 0: the trace's ops launched no GPU work (a CPU run): the kernel-time figures are null, not 0 */
static void op_row(struct ps_jw *w, const struct ps_op_perf_row *o, int measured)
{
    ps_jw_map_open(w);
    ps_jw_kstr(w, "name", o->name);
    ps_jw_kstr(w, "category", o->category);
    ps_jw_kstr(w, "tracelens_sheet", o->sheet);
    ps_jw_kstr(w, "params", o->params);
    ps_jw_kstr(w, "compute_spec", o->compute_spec);
    ps_jw_kstr(w, "precision", o->precision);
    ps_jw_kbool(w, "matrix", o->is_matrix);
    ps_jw_kint(w, "calls", o->calls);
    num(w, "flops_per_call", o->flops_per_call);
    num(w, "bytes_per_call", o->bytes_per_call);
    num(w, "flops_total", o->flops_total);
    num(w, "bytes_total", o->bytes_total);
    num(w, "flops_per_byte", o->flops_per_byte);
    num(w, "kernel_time_ns_total", measured ? o->kernel_time_ns_total : NAN);
    num(w, "kernel_time_us_mean", measured ? o->kernel_time_us_mean : NAN);
    num(w, "kernel_time_us_median", measured ? o->kernel_time_us_median : NAN);
    num(w, "kernel_time_us_std", measured ? o->kernel_time_us_std : NAN);
    num(w, "kernel_time_us_min", measured ? o->kernel_time_us_min : NAN);
    num(w, "kernel_time_us_max", measured ? o->kernel_time_us_max : NAN);
    num(w, "tflops_s_mean", o->tflops_s_mean);
    num(w, "tflops_s_median", o->tflops_s_median);
    num(w, "tflops_s_std", o->tflops_s_std);
    num(w, "tflops_s_min", o->tflops_s_min);
    num(w, "tflops_s_max", o->tflops_s_max);
    num(w, "tb_s_mean", o->tb_s_mean);
    num(w, "tb_s_median", o->tb_s_median);
    num(w, "tb_s_std", o->tb_s_std);
    num(w, "tb_s_min", o->tb_s_min);
    num(w, "tb_s_max", o->tb_s_max);
    ps_jw_kint(w, "first_uid", (int64_t)o->first_uid);
    ps_jw_map_close(w);
}

void ps_render_op_perf_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_op_perf *p = r->op_perf;
    ps_jw_key(w, "op_perf");
    if (!p) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ps_jw_kbool(w, "has_shapes", p->has_shapes);
    ps_jw_kbool(w, "no_gpu_work", p->nrows > 0 && !(p->gpu_busy_us > 0));
    num(w, "gpu_busy_us", p->gpu_busy_us);
    num(w, "modeled_us", p->modeled_us);
    num(w, "unmodeled_us", p->unmodeled_us);
    num(w, "no_op_us", p->no_op_us);
    ps_jw_key(w, "unmodeled");
    ps_jw_array_open(w);
    for (size_t k = 0; k < p->nunmodeled; k++) {
        ps_jw_map_open(w);
        ps_jw_kstr(w, "name", p->unmodeled[k].name);
        num(w, "kernel_time_us", p->unmodeled[k].kernel_time_us);
        ps_jw_kint(w, "calls", p->unmodeled[k].calls);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "rows");
    ps_jw_array_open(w);
    for (size_t k = 0; k < p->nrows; k++)
        op_row(w, &p->rows[k], p->gpu_busy_us > 0);
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}
