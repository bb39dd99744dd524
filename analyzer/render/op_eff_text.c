/* The "Operator efficiency" section as text and Markdown (op_eff_render.h): the GPU and its peaks, MFU, the GPU
 * time with no model, and the op groups with the most recoverable time (kernel time - roofline time). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/roofline.h"
#include "op_eff_render.h"
#include "render_impl.h"
#include "text_style.h"

#define MS(ns) ((double)(ns) / 1e6)

const char *ps_op_efficiency_gap(const struct ps_report *r, char *buf, size_t cap)
{
    const struct ps_op_efficiency *e = r->opeff;
    buf[0] = '\0';
    if (e->has_shapes && e->no_gpu_work)
        snprintf(buf, cap, "No GPU work in this trace (a CPU run): the ops' FLOPs and bytes are modeled from their "
                           "recorded shapes and dtypes, but there is no kernel time, TFLOPS/s, roofline or MFU "
                           "(record on a GPU for them).");
    else if (e->has_shapes && !e->roof.has_gpu)
        snprintf(buf, cap, "No peaks known for the device '%s' (docs/gpu-peaks.md): give them with --gpu-spec FILE "
                           "for rooflines and MFU.", e->device[0] ? e->device : "(unnamed)");
    return buf;
}

/* "GPU: NVIDIA H100 80GB HBM3 -> H100 SXM (by name; peaks: docs/gpu-peaks.md)" */
static void gpu_line(FILE *f, const struct ps_op_efficiency *e)
{
    const struct ps_gpu_peak *g = &e->roof.gpu;
    fprintf(f, "GPU: %s -> %s (matched by %s; peaks from %s: matrix bf16 %.1f, fp32 %.1f TFLOPS, memory %.0f GB/s)\n",
            e->device[0] ? e->device : "(unnamed)", g->key, e->roof.match_how, g->source,
            g->matrix_tflops[PS_PREC_BF16], g->matrix_tflops[PS_PREC_FP32], g->mem_gbps);
}

static void mfu_line(FILE *f, const struct ps_op_efficiency *e, int md)
{
    const char *b = md ? "**" : "";
    char over[48];
    if (e->nsteps)
        snprintf(over, sizeof over, "%zu step%s", e->nsteps, e->nsteps == 1 ? "" : "s");
    else
        snprintf(over, sizeof over, "the run without steps");
    if (!isnan(e->roof.mfu))
        fprintf(f, "%sMFU %.2f %%%s over %s (%.3f ms): the modeled matrix work (%.3f TFLOP) would take %.3f ms at the "
                   "matrix peak of its precision.\n", b, 100.0 * e->roof.mfu, b, over, MS(e->window_ns),
                e->roof.matrix_flops / 1e12, MS(e->roof.mfu * e->window_ns));
    if (e->per_step && e->roof.nsteps > 1) {
        size_t lo = 0, hi = 0;
        for (size_t i = 1; i < e->roof.nsteps; i++) {
            lo = e->roof.steps[i].mfu < e->roof.steps[lo].mfu ? i : lo;
            hi = e->roof.steps[i].mfu > e->roof.steps[hi].mfu ? i : hi;
        }
        fprintf(f, "MFU per step from %.2f %% (step %zu) to %.2f %% (step %zu).\n", 100.0 * e->roof.steps[lo].mfu,
                lo + 1, 100.0 * e->roof.steps[hi].mfu, hi + 1);
    }
    double busy = e->gpu_busy_ns;
    fprintf(f, "GPU time in ops with no model: %.3f ms", MS(e->roof.unmodeled_kernel_ns));
    if (busy > 0)
        fprintf(f, " (%.1f %% of the ops' GPU busy time)", 100.0 * (double)e->roof.unmodeled_kernel_ns / busy);
    fputs(e->roof.nunmodeled ? ": " : ".\n", f);
    for (size_t i = 0; i < e->roof.nunmodeled; i++)
        fprintf(f, "%s%s %.3f ms (%lld calls)%s", i ? ", " : "", e->roof.unmodeled[i].name,
                MS(e->roof.unmodeled[i].kernel_ns), (long long)e->roof.unmodeled[i].calls,
                i + 1 == e->roof.nunmodeled ? ".\n" : "");
}

/* "aten::bmm {'B': 16, ...}" into buf */
static const char *label(const struct ps_roof_row *w, char *buf, size_t cap)
{
    char sp[256];
    snprintf(buf, cap, "%s%s%s", w->g.name, w->g.params[0] ? " " : "", ps_op_params_short(w->g.params, sp, sizeof sp));
    return buf;
}

void ps_render_op_efficiency_text(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    if (!e || !e->has_shapes)   /* no shapes: the report's no_op_shapes note says so once */
        return;
    if (e->no_gpu_work) {
        ps_render_op_model_host_text(f, r, 0);
        return;
    }
    fputs("\nOperator efficiency\n", f);
    if (ps_op_efficiency_gap(r, gap, sizeof gap)[0]) {
        fprintf(f, "%s\n", gap);
    } else {
        gpu_line(f, e);
    }
    mfu_line(f, e, 0);
    size_t top = e->roof.nrows < PS_OPEFF_TOP ? e->roof.nrows : PS_OPEFF_TOP;
    if (!top)
        return;
    fprintf(f, "Top %zu of %zu op groups by recoverable time (kernel time - roofline time)\n"
               "%7s %10s %10s %9s %7s %-8s  %s\n", top, e->roof.nrows, "calls", "time ms", "recov ms", "TFLOPS/s",
            "% roof", "bound", "op [parameters]");
    for (size_t i = 0; i < top; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        fprintf(f, "%7lld %10.3f %10.3f %9.2f %7.1f %-8s", (long long)w->calls, MS(w->kernel_ns),
                MS(w->recoverable_ns), w->tflops_s, w->pct_of_roofline, ps_roof_bound_name[w->bound]);
        ps_text_row_name(f, 55, label(w, name, sizeof name));
    }
}

void ps_render_op_efficiency_md(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    if (!e || !e->has_shapes)
        return;
    if (e->no_gpu_work) {
        ps_render_op_model_host_text(f, r, 1);
        return;
    }
    fputs("### Operator efficiency\n\n", f);
    if (ps_op_efficiency_gap(r, gap, sizeof gap)[0]) {
        fprintf(f, "%s\n\n", gap);
    } else {
        gpu_line(f, e);
        fputc('\n', f);
    }
    mfu_line(f, e, 1);
    fputc('\n', f);
    size_t top = e->roof.nrows < PS_OPEFF_TOP ? e->roof.nrows : PS_OPEFF_TOP;
    if (!top)
        return;
    fprintf(f, "Top %zu of %zu op groups by recoverable time (kernel time - roofline time).\n\n"
               "| calls | time ms | recoverable ms | TFLOPS/s | %% of roofline | bound | op [parameters] |\n"
               "|---:|---:|---:|---:|---:|---|---|\n", top, e->roof.nrows);
    for (size_t i = 0; i < top; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        fprintf(f, "| %lld | %.3f | %.3f | %.2f | %.1f | %s | ", (long long)w->calls, MS(w->kernel_ns),
                MS(w->recoverable_ns), w->tflops_s, w->pct_of_roofline, ps_roof_bound_name[w->bound]);
        ps_render_md_name(f, label(w, name, sizeof name));
        fputs(" |\n", f);
    }
    fputc('\n', f);
}
