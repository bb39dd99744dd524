/* The report's JSON key "op_efficiency" (docs/op-perf-roofline.md "JSON"): the GPU and its peaks, MFU,
 * the GPU time with no model, and one row per modeled op group with every figure of the operator model and of
 * its roofline. Unknown values are null. */
#include <math.h>
#include <stdio.h>

#include "analyses/roofline.h"
#include "json/json_sections.h"
#include "words/words.h"

/* A figure with 12 significant digits (ps_jw_kdouble keeps 6: too few for ns over a long run); NAN: null. */
static void kfig(struct ps_jw *w, const char *key, double v)
{
    char num[40];
    ps_jw_key(w, key);
    if (!isfinite(v)) {
        ps_jw_null(w);
        return;
    }
    snprintf(num, sizeof num, "%.12g", v);
    ps_jw_number(w, num);
}

static void gpu(struct ps_jw *w, const struct ps_op_efficiency *e)
{
    const struct ps_gpu_peak *g = &e->roof.gpu;
    ps_jw_key(w, "gpu");
    ps_jw_map_open(w);
    ps_jw_kstr(w, "device", e->device[0] ? e->device : NULL);
    ps_jw_kstr(w, "matched", e->roof.has_gpu ? g->key : NULL);
    ps_jw_kstr(w, "matched_by", e->roof.match_how);
    ps_jw_kstr(w, "source", e->roof.has_gpu ? g->source : NULL);
    kfig(w, "mem_bw_gbps", e->roof.has_gpu ? g->mem_gbps : NAN);
    ps_jw_key(w, "peak_tflops");
    ps_jw_map_open(w);
    for (int m = 1; e->roof.has_gpu && m >= 0; m--)
        for (int p = 0; p < PS_PREC_N; p++) {
            char key[24];
            double v = m ? g->matrix_tflops[p] : g->vector_tflops[p];
            snprintf(key, sizeof key, "%s_%s", m ? "matrix" : "vector", ps_precision_name[p]);
            if (!isnan(v))
                kfig(w, key, v);
        }
    ps_jw_map_close(w);
    ps_jw_map_close(w);
}

static void mfu(struct ps_jw *w, const struct ps_op_efficiency *e)
{
    ps_jw_key(w, "mfu");
    ps_jw_map_open(w);
    kfig(w, "mean", e->roof.mfu);
    ps_jw_kint(w, "steps", (int64_t)e->nsteps);
    kfig(w, "window_ns", e->window_ns);
    kfig(w, "matrix_flops", e->roof.matrix_flops);
    kfig(w, "ideal_matrix_ns", isnan(e->roof.mfu) ? NAN : e->roof.mfu * e->window_ns);
    ps_jw_key(w, "per_step");   /* null: no per-step models (no step ranges, or inferred steps) */
    if (!e->per_step) {
        ps_jw_null(w);
    } else {
        ps_jw_array_open(w);
        for (size_t i = 0; i < e->roof.nsteps; i++) {
            ps_jw_map_open(w);
            kfig(w, "mfu", e->roof.steps[i].mfu);
            kfig(w, "matrix_flops", e->roof.steps[i].matrix_flops);
            kfig(w, "ideal_matrix_ns", e->roof.steps[i].ideal_ns);
            ps_jw_kint(w, "unmodeled_kernel_ns", e->roof.steps[i].unmodeled_kernel_ns);
            kfig(w, "unmodeled_share", e->roof.steps[i].unmodeled_share);
            ps_jw_map_close(w);
        }
        ps_jw_array_close(w);
    }
    ps_jw_map_close(w);
}

/* GPU time in ops with no model (which ops: op_perf.unmodeled) and its share of the steps' time. */
static void unmodeled(struct ps_jw *w, const struct ps_op_efficiency *e)
{
    ps_jw_key(w, "unmodeled");
    ps_jw_map_open(w);
    ps_jw_kint(w, "kernel_ns", e->roof.unmodeled_kernel_ns);
    kfig(w, "share_of_steps", e->roof.unmodeled_share);
    ps_jw_map_close(w);
}

static void row(struct ps_jw *w, const struct ps_roof_row *x, int no_gpu)
{
    ps_jw_map_open(w);
    ps_jw_kint_or_null(w, "op_perf_row", x->g.source);
    ps_jw_kstr(w, "name", x->g.name);
    ps_jw_kstr(w, "precision", x->g.prec >= 0 ? ps_precision_name[x->g.prec] : NULL);
    ps_jw_kint(w, "calls", x->calls);
    ps_jw_kint_or_null(w, "kernel_ns", no_gpu ? -1 : x->kernel_ns);   /* null: not measured (no GPU work) */
    kfig(w, "tflops_s", x->tflops_s);
    kfig(w, "tb_s", x->tb_s);
    kfig(w, "flops_per_byte", x->flops_per_byte);
    kfig(w, "peak_tflops", x->peak_tflops);
    kfig(w, "compute_ns", x->compute_ns);
    kfig(w, "memory_ns", x->memory_ns);
    kfig(w, "roofline_ns", x->roofline_ns);
    ps_jw_kstr(w, "bound", x->bound == PS_BOUND_UNKNOWN ? NULL : ps_roof_bound_name[x->bound]);
    kfig(w, "pct_of_roofline", x->pct_of_roofline);
    kfig(w, "recoverable_ns", x->recoverable_ns);
    ps_jw_map_close(w);
}

void ps_render_op_efficiency_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    ps_jw_key(w, "op_efficiency");
    if (!e || !e->has_shapes) {   /* no operator model, or no shapes (op_perf.has_shapes, the no_op_shapes note) */
        ps_jw_null(w);
        return;
    }
    char gap[320];
    ps_jw_map_open(w);
    ps_jw_kstr(w, "note", ps_words_op_eff_gap(gap, sizeof gap, r)[0] ? gap : NULL);
    ps_jw_kbool(w, "no_gpu_work", e->no_gpu_work);
    gpu(w, e);
    mfu(w, e);
    unmodeled(w, e);
    ps_jw_key(w, "rows");   /* by recoverable time, most first */
    ps_jw_array_open(w);
    for (size_t i = 0; i < e->roof.nrows; i++)
        row(w, &e->roof.rows[i], e->no_gpu_work);
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}
