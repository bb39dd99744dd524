/* The text report's "Operator efficiency" section (docs/op-perf-roofline.md): the GPU and its peaks, MFU, the GPU
 * time with no model, and the op groups with the most recoverable time (kernel time - roofline time); for a trace
 * whose modeled ops launched no GPU work (a CPU run recorded with --python-hooks=shapes) each op group's FLOPs and
 * bytes per call, and no time, rate or roofline, which would need kernel time ("Recorded runs"). */
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

/* A name from the trace in a sentence, escaped (and a long one shortened) as every text table shows it. */
static void text_name(FILE *f, const char *s)
{
    ps_put_name(f, s, 0);
}

/* A trace without GPU work: the modeled op groups by FLOPs per call. */
static void host_model(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = ps_words_op_host_order(e, &n);
    fputs("\nOperator efficiency\n", f);
    ps_put_text(f, ps_words_op_eff_gap(gap, sizeof gap, r));
    fputc('\n', f);
    if (!ix || !n) {
        free(ix);
        return;
    }
    fprintf(f, "Top %zu of %zu modeled op groups by FLOPs per call (kernel time: none recorded)\n"
               "%7s %16s %14s %10s  %s\n", n, e->roof.nrows, "calls", "FLOPs/call", "bytes/call", "FLOPs/B",
            "op [parameters]");
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        ps_words_op_per_call(w, &fl, &by);
        fprintf(f, "%7lld %16.0f %14.0f %10.2f", (long long)w->calls, fl, by, w->flops_per_byte);
        ps_text_row_name(f, 50, ps_words_op_label(name, sizeof name, w));
    }
    free(ix);
}

void ps_render_op_efficiency_text(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    if (!e || !e->has_shapes)   /* no shapes: the report's no_op_shapes note says so once */
        return;
    if (e->no_gpu_work) {
        host_model(f, r);
        return;
    }
    fputs("\nOperator efficiency\n", f);
    if (ps_words_op_eff_gap(gap, sizeof gap, r)[0]) {
        ps_put_text(f, gap);   /* it quotes the trace's device name */
        fputc('\n', f);
    } else {
        ps_words_op_eff_gpu_line(f, e, text_name);
    }
    ps_words_op_eff_mfu_lines(f, e, "", text_name);
    size_t top = e->roof.nrows < PS_OPEFF_TOP ? e->roof.nrows : PS_OPEFF_TOP;
    if (!top)
        return;
    fprintf(f, "Top %zu of %zu op groups by recoverable time (kernel time - roofline time)\n"
               "%7s %10s %10s %9s %7s %-8s  %s\n", top, e->roof.nrows, "calls", "time ms", "recov ms", "TFLOPS",
            "% roof", "bound", "op [parameters]");
    for (size_t i = 0; i < top; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        fprintf(f, "%7lld %10.3f %10.3f %9.2f %7.1f %-8s", (long long)w->calls, MS(w->kernel_ns),
                MS(w->recoverable_ns), w->tflops_s, w->pct_of_roofline, ps_roof_bound_name[w->bound]);
        ps_text_row_name(f, 55, ps_words_op_label(name, sizeof name, w));
    }
}
