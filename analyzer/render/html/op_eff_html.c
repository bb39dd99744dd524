/* The "Operator efficiency" section of the HTML report (docs/op-perf-roofline.md): MFU and unmodeled time, a
 * roofline chart (op groups as points on log-log FLOPs/byte vs TFLOPS under the GPU's memory and compute roofs;
 * inline SVG, no script) and its text equivalent, the table of the same op groups; for a trace without GPU work,
 * the op groups by FLOPs per call. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "html/html_escape.h"
#include "html/html_sections.h"
#include "html/svg_charts.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define HTML_TOP 30                /* op groups plotted and listed */
#define W 900.0
#define H 420.0
#define X0 80.0                    /* plot area */
#define X1 870.0
#define Y0 30.0
#define Y1 360.0
#define MAX_DECADES 24             /* per axis: 1e-3 .. 1e21 FLOPs/byte holds every GPU of docs/gpu-peaks.md's ranges */

struct axes {
    double lx0, lx1, ly0, ly1;     /* log10 ranges */
};

static double px(const struct axes *a, double x)
{
    return ps_svg_coord(X0 + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * (X1 - X0));
}

static double py(const struct axes *a, double y)
{
    return ps_svg_coord(Y1 - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (Y1 - Y0));
}

/* Whole decades [*lo, *hi] of an axis made drawable whatever the numbers behind them: finite (else `dlo`, `dhi`),
 * within the doubles' range, at least one decade, at most MAX_DECADES (the top kept: the roofs are there). */
static void fit_decades(double *lo, double *hi, double dlo, double dhi)
{
    *lo = isfinite(*lo) ? fmax(-300, fmin(*lo, 300)) : dlo;
    *hi = isfinite(*hi) ? fmax(-300, fmin(*hi, 300)) : dhi;
    if (*hi <= *lo)
        *hi = *lo + 1;
    if (*hi - *lo > MAX_DECADES)
        *lo = *hi - MAX_DECADES;
}

static int plotted(const struct ps_roof_row *w)
{
    return isfinite(w->flops_per_byte) && w->flops_per_byte > 0 && isfinite(w->tflops_s) && w->tflops_s > 0;
}

/* Whole decades around the points and the roofs' ridge points. */
static struct axes pick_axes(const struct ps_op_efficiency *e, size_t n, double top_peak)
{
    double bw = e->roof.gpu.mem_gbps / 1e3, xmin = 0.1, xmax = 10 * top_peak / bw, ymin = 1, ymax = 2 * top_peak;
    for (size_t i = 0; i < n; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        if (!plotted(w))
            continue;
        xmin = fmin(xmin, w->flops_per_byte);
        xmax = fmax(xmax, w->flops_per_byte);
        ymin = fmin(ymin, fmax(w->tflops_s, 1e-4));
    }
    struct axes a = { floor(log10(xmin)), ceil(log10(xmax)), floor(log10(ymin)), ceil(log10(ymax)) };
    fit_decades(&a.lx0, &a.lx1, -1, 1);
    fit_decades(&a.ly0, &a.ly1, 0, 1);
    return a;
}

/* One grid line and label per decade: at most MAX_DECADES + 1 per axis (fit_decades). */
static void grid(FILE *f, const struct axes *a)
{
    for (int k = 0; k <= MAX_DECADES && a->lx0 + k <= a->lx1; k++) {
        double d = a->lx0 + k;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\">%g</text>\n", px(a, pow(10, d)), Y0, px(a, pow(10, d)), Y1,
                px(a, pow(10, d)), Y1 + 16, pow(10, d));
    }
    for (int k = 0; k <= MAX_DECADES && a->ly0 + k <= a->ly1; k++) {
        double d = a->ly0 + k;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">%g</text>\n", X0, py(a, pow(10, d)), X1, py(a, pow(10, d)), X0 - 6,
                py(a, pow(10, d)) + 4, pow(10, d));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">FLOPs per byte moved</text>\n"
               "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">TFLOPS</text>\n",
            (X0 + X1) / 2, Y1 + 40, (Y0 + Y1) / 2, (Y0 + Y1) / 2);
}

/* The memory roof (bandwidth x intensity) up to each compute roof: one polyline per peak used by the rows. */
static void roofs(FILE *f, const struct axes *a, const struct ps_op_efficiency *e, size_t n)
{
    double bw = e->roof.gpu.mem_gbps / 1e3, xl = pow(10, a->lx0), xr = pow(10, a->lx1);
    double seen[2 * PS_PREC_N];
    size_t nseen = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        double p = w->peak_tflops;
        int dup = !(isfinite(p) && p > 0);   /* no peak for its precision: no roof */
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k] == p;
        if (dup || nseen == sizeof seen / sizeof seen[0])
            continue;
        seen[nseen++] = p;
        double ridge = p / bw, x_start = fmax(xl, fmin(ridge, xr));
        if (!isfinite(ridge) || !(ridge > 0))   /* no memory roof to draw it from */
            continue;
        fprintf(f, "<g class=\"roof\"><title>%s %s roof: %.1f TFLOPS from %.1f FLOPs/byte; memory %.0f GB/s"
                   "</title><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f "
                   "%.1f,%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s %s %.0f</text></g>\n",
                w->g.matrix ? "matrix" : "vector", w->g.prec >= 0 ? ps_precision_name[w->g.prec] : "", p, ridge,
                e->roof.gpu.mem_gbps, w->g.matrix ? "#0072B2" : "#999", px(a, xl), py(a, fmax(bw * xl, pow(10, a->ly0))),
                px(a, x_start), py(a, bw * x_start), px(a, xr), py(a, p), X1 - 4, py(a, p) - 4,
                w->g.matrix ? "matrix" : "vector", w->g.prec >= 0 ? ps_precision_name[w->g.prec] : "", p);
    }
}

static void points(FILE *f, const struct axes *a, const struct ps_op_efficiency *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        if (!plotted(w))
            continue;
        fputs("<g class=\"op\"><title>", f);
        ps_html_text(f, w->g.name, 0);
        fputc(' ', f);
        char sp[256];
        ps_html_text(f, ps_op_params_short(w->g.params, sp, sizeof sp), 0);
        fprintf(f, ": %.2f TFLOPS at %.2f FLOPs/byte, ", w->tflops_s, w->flops_per_byte);
        ps_svg_fixed(f, 1, w->pct_of_roofline);   /* N/A without a peak for its precision */
        fprintf(f, " %% of roofline, %s-bound, ", ps_roof_bound_name[w->bound]);
        ps_svg_fixed(f, 3, MS(w->recoverable_ns));
        fprintf(f, " ms recoverable</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" fill-opacity=\"0.7\"/>"
                   "</g>\n", px(a, w->flops_per_byte), py(a, w->tflops_s),
                w->bound == PS_BOUND_COMPUTE ? "#D55E00" : "#009E73");
    }
}

/* The highest peak among the first n rows: the chart's top roof; 0 when none (no chart). */
static double top_peak_of(const struct ps_op_efficiency *e, size_t n)
{
    double top_peak = 0;
    for (size_t i = 0; e->roof.has_gpu && i < n; i++)
        top_peak = fmax(top_peak, isnan(e->roof.rows[i].peak_tflops) ? 0 : e->roof.rows[i].peak_tflops);
    return top_peak;
}

static void chart(FILE *f, const struct ps_op_efficiency *e, size_t n, double top_peak)
{
    struct axes a = pick_axes(e, n, top_peak);
    fprintf(f, "<figure>\n<svg role=\"img\" aria-labelledby=\"roofline-t roofline-d\" viewBox=\"0 0 %.0f %.0f\" "
               "width=\"100%%\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"roofline-t\">Roofline of the "
               "%zu op groups with the most recoverable time on ", W, H, n);
    ps_html_text(f, e->roof.gpu.key, 0);
    fputs("</title>\n<desc id=\"roofline-d\">Log-log: arithmetic intensity (FLOPs per byte) against achieved "
          "TFLOPS, one point per op group (orange compute-bound, green memory-bound) under the GPU's memory "
          "roof (", f);
    ps_svg_fixed(f, 0, e->roof.gpu.mem_gbps);
    fputs(" GB/s) and the compute roof of each precision used. The table below lists the same points.</desc>\n", f);
    grid(f, &a);
    roofs(f, &a, e, n);
    points(f, &a, e, n);
    fputs("</svg>\n</figure>\n", f);
}

static void table(FILE *f, const struct ps_op_efficiency *e, size_t n)
{
    fputs("<table>\n<tr><th>calls</th><th>time ms</th><th>recoverable ms</th><th>TFLOPS</th><th>FLOPs/byte</th>"
          "<th>% of roofline</th><th>bound</th><th>op [parameters]</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        fprintf(f, "<tr><td class=\"n\">%lld</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">"
                   "%.2f</td><td class=\"n\">%.2f</td><td class=\"n\">%.1f</td><td>%s</td><td class=\"name\">",
                (long long)w->calls, MS(w->kernel_ns), MS(w->recoverable_ns), w->tflops_s, w->flops_per_byte,
                w->pct_of_roofline, ps_roof_bound_name[w->bound]);
        char sp[256];
        ps_html_name(f, w->g.name);   /* a long one shortened, whole on hover */
        fputc(' ', f);
        ps_html_text(f, ps_op_params_short(w->g.params, sp, sizeof sp), 0);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* A trace without GPU work (a CPU run recorded with --python-hooks=shapes): each modeled op group's FLOPs and bytes
 * per call, and no time, rate or roofline, which would need kernel time (docs/op-perf-roofline.md "Recorded
 * runs"). 0, -ENOMEM or -EIO. */
static int host_model(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = ps_words_op_host_order(e, &n);
    if (!ix)
        return -ENOMEM;
    fputs("<section id=\"op-efficiency\" aria-labelledby=\"op-efficiency-h\">\n<h2 id=\"op-efficiency-h\">"
          "Operator efficiency</h2>\n<p>", f);
    ps_html_text(f, ps_words_op_eff_gap(gap, sizeof gap, r), 0);
    fputs("</p>\n", f);
    if (n)
        fputs("<table><caption>Modeled op groups by FLOPs per call (no kernel time recorded)</caption>\n<thead><tr>"
              "<th scope=\"col\">calls</th><th scope=\"col\">FLOPs per call</th><th scope=\"col\">bytes per call</th>"
              "<th scope=\"col\">FLOPs/byte</th><th scope=\"col\">op [parameters]</th></tr></thead>\n<tbody>\n", f);
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        ps_words_op_per_call(w, &fl, &by);
        fprintf(f, "<tr><td>%lld</td><td>%.0f</td><td>%.0f</td><td>%.2f</td><td>", (long long)w->calls, fl, by,
                w->flops_per_byte);
        ps_html_name(f, ps_words_op_label(name, sizeof name, w));
        fputs("</td></tr>\n", f);
    }
    if (n)
        fputs("</tbody></table>\n", f);
    fputs("</section>\n", f);
    free(ix);
    return ferror(f) ? -EIO : 0;
}

int ps_render_op_efficiency_html(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320];
    if (!e || !e->has_shapes)   /* no shapes: the report's no_op_shapes note says so once */
        return 0;
    if (e->no_gpu_work)
        return host_model(f, r);
    size_t n = e->roof.nrows < HTML_TOP ? e->roof.nrows : HTML_TOP;
    double top_peak = top_peak_of(e, n);
    fprintf(f, "<section id=\"op-efficiency\"%s aria-labelledby=\"op-efficiency-h\">\n<h2 id=\"op-efficiency-h\">"
               "Operator efficiency</h2>\n", top_peak > 0 ? " class=\"chart\"" : "");
    if (ps_words_op_eff_gap(gap, sizeof gap, r)[0]) {
        fputs("<p>", f);
        ps_html_text(f, gap, 0);
        fputs("</p>\n", f);
    }
    {
        if (!isnan(e->roof.mfu)) {
            fputs("<p>GPU ", f);
            ps_html_text(f, e->device, 0);
            fputs(" → ", f);
            ps_html_text(f, e->roof.gpu.key, 0);
            fprintf(f, " (peaks: docs/gpu-peaks.md). <strong>MFU %.2f %%</strong> over %.3f ms of steps: the "
                       "modeled matrix work (%.3f TFLOP) would take %.3f ms at peak.</p>\n", 100.0 * e->roof.mfu,
                    MS(e->window_ns), e->roof.matrix_flops / 1e12, MS(e->roof.mfu * e->window_ns));
        }
        fprintf(f, "<p>GPU time in ops with no model: %.3f ms", MS(e->roof.unmodeled_kernel_ns));
        for (size_t i = 0; i < e->roof.nunmodeled; i++) {
            fputs(i ? ", " : " (", f);
            ps_html_name(f, e->roof.unmodeled[i].name);   /* as the text and Markdown lines show it */
            fprintf(f, " %.3f ms%s", MS(e->roof.unmodeled[i].kernel_ns), i + 1 == e->roof.nunmodeled ? ")" : "");
        }
        fputs(".</p>\n", f);
        if (top_peak > 0)
            chart(f, e, n, top_peak);
        if (n)
            table(f, e, n);
    }
    fputs("</section>\n", f);
    return ferror(f) ? -EIO : 0;
}
