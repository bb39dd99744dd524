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
    if (ps_words_op_eff_gap(gap, sizeof gap, r)[0]) {
        fprintf(f, "%s\n", gap);
    } else {
        ps_words_op_eff_gpu_line(f, e);
    }
    ps_words_op_eff_mfu_lines(f, e, "");
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
        ps_text_row_name(f, 55, ps_words_op_label(name, sizeof name, w));
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
    if (ps_words_op_eff_gap(gap, sizeof gap, r)[0]) {
        fprintf(f, "%s\n\n", gap);
    } else {
        ps_words_op_eff_gpu_line(f, e);
        fputc('\n', f);
    }
    ps_words_op_eff_mfu_lines(f, e, "**");
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
        ps_render_md_name(f, ps_words_op_label(name, sizeof name, w));
        fputs(" |\n", f);
    }
    fputc('\n', f);
}
