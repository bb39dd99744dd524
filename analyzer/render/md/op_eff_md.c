/* The Markdown report's "Operator efficiency" section (docs/op-perf-roofline.md), as the text report's
 * (text/op_eff_text.c) in tables: the GPU and its peaks, MFU, the GPU time with no model, the op groups with the
 * most recoverable time; for a trace whose modeled ops launched no GPU work, each op group's FLOPs and bytes per
 * call and no time. */
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "md/md_sections.h"
#include "md/md_escape.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

/* A trace without GPU work: the modeled op groups by FLOPs per call. */
static void host_model(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = ps_words_op_host_order(e, &n);
    fputs("### Operator efficiency\n\n", f);
    ps_md_prose(f, ps_words_op_eff_gap(gap, sizeof gap, r));
    fputs("\n\n", f);
    if (!ix || !n) {
        free(ix);
        return;
    }
    fprintf(f, "Top %zu of %zu modeled op groups by FLOPs per call (kernel time: none recorded).\n\n"
               "| calls | FLOPs per call | bytes per call | FLOPs/byte | op [parameters] |\n"
               "|---:|---:|---:|---:|---|\n", n, e->roof.nrows);
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        ps_words_op_per_call(w, &fl, &by);
        fprintf(f, "| %lld | %.0f | %.0f | %.2f | ", (long long)w->calls, fl, by, w->flops_per_byte);
        ps_md_name(f, ps_words_op_label(name, sizeof name, w));
        fputs(" |\n", f);
    }
    fputc('\n', f);
    free(ix);
}

void ps_render_op_efficiency_md(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    if (!e || !e->has_shapes)
        return;
    if (e->no_gpu_work) {
        host_model(f, r);
        return;
    }
    fputs("### Operator efficiency\n\n", f);
    if (ps_words_op_eff_gap(gap, sizeof gap, r)[0]) {
        ps_md_prose(f, gap);   /* it quotes the trace's device name */
        fputs("\n\n", f);
    } else {
        ps_words_op_eff_gpu_line(f, e, ps_md_name);
        fputc('\n', f);
    }
    ps_words_op_eff_mfu_lines(f, e, "**", ps_md_name);
    fputc('\n', f);
    size_t top = e->roof.nrows < PS_OPEFF_TOP ? e->roof.nrows : PS_OPEFF_TOP;
    if (!top)
        return;
    fprintf(f, "Top %zu of %zu op groups by recoverable time (kernel time - roofline time).\n\n"
               "| calls | time ms | recoverable ms | TFLOPS | %% of roofline | bound | op [parameters] |\n"
               "|---:|---:|---:|---:|---:|---|---|\n", top, e->roof.nrows);
    for (size_t i = 0; i < top; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        fprintf(f, "| %lld | %.3f | %.3f | %.2f | %.1f | %s | ", (long long)w->calls, MS(w->kernel_ns),
                MS(w->recoverable_ns), w->tflops_s, w->pct_of_roofline, ps_roof_bound_name[w->bound]);
        ps_md_name(f, ps_words_op_label(name, sizeof name, w));
        fputs(" |\n", f);
    }
    fputc('\n', f);
}
