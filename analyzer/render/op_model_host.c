/* The "Operator efficiency" section of a trace whose modeled ops launched no GPU work (a CPU run recorded with
 * --python-hooks=shapes): each op group's modeled FLOPs and bytes per call, and no time, rate or roofline, which
 * would need kernel time (op_eff_render.h; docs/op-perf-roofline.md "Recorded runs"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "svg_charts.h"
#include "op_eff_render.h"
#include "render_impl.h"
#include "text_style.h"

#define HOST_TOP 20

static const struct ps_roof_row *sort_rows;

static int by_flops(const void *x, const void *y)
{
    const struct ps_roof_row *a = &sort_rows[*(const size_t *)x], *b = &sort_rows[*(const size_t *)y];
    double fa = a->calls ? a->flops / (double)a->calls : 0, fb = b->calls ? b->flops / (double)b->calls : 0;
    if (fa != fb)
        return fa > fb ? -1 : 1;
    return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

/* The modeled rows by FLOPs per call, most first (at most HOST_TOP); *n their count. NULL on out-of-memory. */
static size_t *order(const struct ps_op_efficiency *e, size_t *n)
{
    size_t *ix = malloc((e->roof.nrows + 1) * sizeof *ix), m = 0;
    if (!ix)
        return NULL;
    for (size_t i = 0; i < e->roof.nrows; i++)
        if (e->roof.rows[i].g.modeled)
            ix[m++] = i;
    sort_rows = e->roof.rows;
    qsort(ix, m, sizeof *ix, by_flops);
    *n = m < HOST_TOP ? m : HOST_TOP;
    return ix;
}

/* "aten::mm {'M': 64, ...}" into buf */
static const char *label(const struct ps_roof_row *w, char *buf, size_t cap)
{
    char sp[256];
    snprintf(buf, cap, "%s%s%s", w->g.name, w->g.params[0] ? " " : "", ps_op_params_short(w->g.params, sp, sizeof sp));
    return buf;
}

static void per_call(const struct ps_roof_row *w, double *flops, double *bytes)
{
    double c = w->calls ? (double)w->calls : 1;
    *flops = w->flops / c;
    *bytes = w->bytes / c;
}

void ps_render_op_model_host_text(FILE *f, const struct ps_report *r, int md)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = order(e, &n);
    fputs(md ? "### Operator efficiency\n\n" : "\nOperator efficiency\n", f);
    fprintf(f, "%s\n%s", ps_op_efficiency_gap(r, gap, sizeof gap), md ? "\n" : "");
    if (!ix || !n) {
        free(ix);
        return;
    }
    if (md)
        fprintf(f, "Top %zu of %zu modeled op groups by FLOPs per call (kernel time: none recorded).\n\n"
                   "| calls | FLOPs per call | bytes per call | FLOPs/byte | op [parameters] |\n"
                   "|---:|---:|---:|---:|---|\n", n, e->roof.nrows);
    else
        fprintf(f, "Top %zu of %zu modeled op groups by FLOPs per call (kernel time: none recorded)\n"
                   "%7s %16s %14s %10s  %s\n", n, e->roof.nrows, "calls", "FLOPs/call", "bytes/call", "FLOPs/B",
                "op [parameters]");
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        per_call(w, &fl, &by);
        label(w, name, sizeof name);
        if (md) {
            fprintf(f, "| %lld | %.0f | %.0f | %.2f | ", (long long)w->calls, fl, by, w->flops_per_byte);
            ps_render_md_name(f, name);
            fputs(" |\n", f);
        } else {
            fprintf(f, "%7lld %16.0f %14.0f %10.2f", (long long)w->calls, fl, by, w->flops_per_byte);
            ps_text_row_name(f, 50, name);
        }
    }
    if (md)
        fputc('\n', f);
    free(ix);
}

int ps_render_op_model_host_html(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = order(e, &n);
    if (!ix)
        return -ENOMEM;
    fputs("<section id=\"op-efficiency\" aria-labelledby=\"op-efficiency-h\">\n<h2 id=\"op-efficiency-h\">"
          "Operator efficiency</h2>\n<p>", f);
    ps_html_text(f, ps_op_efficiency_gap(r, gap, sizeof gap), 0);
    fputs("</p>\n", f);
    if (n)
        fputs("<table><caption>Modeled op groups by FLOPs per call (no kernel time recorded)</caption>\n<thead><tr>"
              "<th scope=\"col\">calls</th><th scope=\"col\">FLOPs per call</th><th scope=\"col\">bytes per call</th>"
              "<th scope=\"col\">FLOPs/byte</th><th scope=\"col\">op [parameters]</th></tr></thead>\n<tbody>\n", f);
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        per_call(w, &fl, &by);
        fprintf(f, "<tr><td>%lld</td><td>%.0f</td><td>%.0f</td><td>%.2f</td><td>", (long long)w->calls, fl, by,
                w->flops_per_byte);
        ps_html_text(f, label(w, name, sizeof name), 0);
        fputs("</td></tr>\n", f);
    }
    if (n)
        fputs("</tbody></table>\n", f);
    fputs("</section>\n", f);
    free(ix);
    return ferror(f) ? -EIO : 0;
}
