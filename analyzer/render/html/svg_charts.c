/* Inline SVG charts (svg_charts.h). Coordinates are in a fixed viewBox that scales with the page. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html/html_escape.h"
#include "html/svg_charts.h"

#define W 960.0                    /* viewBox width */
#define LEFT 64.0                  /* room for the y axis labels */
#define RIGHT 16.0
#define TOP 16.0

/* A round step for an axis from 0 to max with about 4 ticks: 1, 2 or 5 times a power of ten. */
static double nice_step(double max)
{
    if (!(max > 0))
        return 1;
    double raw = max / 4, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void open_svg(FILE *f, const char *id, const char *title, const char *desc, double height)
{
    fprintf(f, "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" aria-labelledby=\"%s-title %s-desc\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"%s-title\">",
            W, height, id, id, id);
    ps_html_text(f, title, 0);
    fprintf(f, "</title>\n<desc id=\"%s-desc\">", id);
    ps_html_text(f, desc, 0);
    fputs("</desc>\n", f);
}

/* y axis with gridlines from 0 to max (in unit) over [top, bottom]; returns the axis maximum used. */
static double y_axis(FILE *f, double max, double top, double bottom, const char *unit, int percent)
{
    double step = percent ? 25 : nice_step(max), axis = percent ? 100 : ceil(max / step) * step;
    if (!(axis > 0))
        axis = step;
    fputs("<g class=\"axis\" aria-hidden=\"true\">\n", f);
    for (double v = 0; v <= axis + step / 2; v += step) {
        double y = bottom - (bottom - top) * v / axis;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g%s</text>\n",
                LEFT, W - RIGHT, y, y, LEFT - 6, y + 4, v, percent ? " %" : "");
    }
    fprintf(f, "<text x=\"4\" y=\"%.1f\">%s</text></g>\n", top - 4 > 10 ? top - 4 : 10.0, unit);
    return axis;
}

static void legend(FILE *f, const struct ps_svg_series *series, size_t n, double y)
{
    double x = LEFT;
    fputs("<g class=\"legend\" aria-hidden=\"true\">\n", f);
    for (size_t j = 0; j < n; j++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
                x, y - 10, series[j].color, x + 16, y);
        ps_html_text(f, series[j].label, 0);
        fputs("</text>\n", f);
        x += 28 + 8.0 * (double)strlen(series[j].label);
    }
    fputs("</g>\n", f);
}

void ps_svg_stacked_bars(FILE *f, const char *id, const char *title, const char *desc, size_t nbars,
                         size_t nseries, const double *values, const struct ps_svg_series *series,
                         const char *const *labels, const char *unit)
{
    const double height = 320, bottom = 260;
    double max = 0;
    for (size_t i = 0; i < nbars; i++) {
        double sum = 0;
        for (size_t j = 0; j < nseries; j++)
            sum += values[i * nseries + j];
        max = sum > max ? sum : max;
    }
    open_svg(f, id, title, desc, height);
    double axis = y_axis(f, max, TOP + 8, bottom, unit, 0);
    double slot = (W - LEFT - RIGHT) / (double)(nbars ? nbars : 1), bw = slot > 3 ? slot * 0.8 : slot;
    bw = bw > 60 ? 60 : bw;   /* a few steps: bars, not walls */
    size_t label_every = nbars > 20 ? (nbars + 19) / 20 : 1;
    for (size_t i = 0; i < nbars; i++) {
        double x = LEFT + slot * (double)i + (slot - bw) / 2, y = bottom, sum = 0;
        for (size_t j = 0; j < nseries; j++)
            sum += values[i * nseries + j];
        fputs("<g class=\"bar\"><title>", f);
        ps_html_text(f, labels[i], 0);
        fprintf(f, ": %.3f %s", sum, unit);
        for (size_t j = 0; j < nseries; j++)
            if (values[i * nseries + j] > 0)
                fprintf(f, "; %s %.3f", series[j].label, values[i * nseries + j]);
        fputs("</title>\n", f);
        for (size_t j = 0; j < nseries; j++) {
            double h = (bottom - TOP - 8) * values[i * nseries + j] / axis;
            if (h <= 0)
                continue;
            y -= h;
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x, y, bw, h,
                    series[j].color);
        }
        fputs("</g>\n", f);
        if (i % label_every == 0) {
            fprintf(f, "<text class=\"xlabel\" aria-hidden=\"true\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                    x + bw / 2, bottom + 16);
            char shortl[24];   /* the label's first word ("#12"): the bar's tooltip has all of it */
            snprintf(shortl, sizeof shortl, "%.*s", (int)strcspn(labels[i], " "), labels[i]);
            ps_html_text(f, shortl, 12);
            fputs("</text>\n", f);
        }
    }
    legend(f, series, nseries, height - 12);
    fputs("</svg>\n", f);
}

void ps_svg_hbars(FILE *f, const char *id, const char *title, const char *desc, size_t nbars, const double *values,
                  const char *const *labels, const char *unit, const char *color)
{
    const double row = 24, label_w = 380, height = TOP + row * (double)nbars + 36;
    double max = 0;
    for (size_t i = 0; i < nbars; i++)
        max = values[i] > max ? values[i] : max;
    open_svg(f, id, title, desc, height);
    double x0 = label_w + 8, span = W - RIGHT - x0 - 90;
    for (size_t i = 0; i < nbars; i++) {
        double y = TOP + row * (double)i, w = max > 0 ? span * values[i] / max : 0;
        fputs("<g class=\"hbar\"><title>", f);
        ps_html_text(f, labels[i], 0);
        fprintf(f, ": %.3f %s</title>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", values[i], unit, label_w,
                y + 16);
        ps_html_text(f, labels[i], 52);
        fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">%.3f %s</text></g>\n",
                x0, y + 4, w, row - 8, color, x0 + w + 6, y + 16, values[i], unit);
    }
    fputs("</svg>\n", f);
}

void ps_svg_lines(FILE *f, const char *id, const char *title, const char *desc, size_t nlines, size_t npoints,
                  const double *y, const struct ps_svg_series *series, double x0, double dx, const char *xunit)
{
    const double height = 300, bottom = 240;
    open_svg(f, id, title, desc, height);
    y_axis(f, 100, TOP + 8, bottom, "busy", 1);
    double plot_w = W - LEFT - RIGHT, step = npoints > 1 ? plot_w / (double)(npoints - 1) : 0;
    for (size_t l = 0; l < nlines; l++) {
        fputs("<g class=\"line\"><title>", f);
        ps_html_text(f, series[l].label, 0);
        double mean = 0, n = 0;
        for (size_t i = 0; i < npoints; i++)
            if (!isnan(y[l * npoints + i]))
                mean += y[l * npoints + i], n++;
        mean = n > 0 ? mean / n : 0;
        size_t known = 0;
        for (size_t i = 0; i < npoints; i++)
            known += !isnan(y[l * npoints + i]);
        fprintf(f, ": %.1f %% busy on average</title>\n", known ? 100 * mean : 0.0);
        int open = 0;   /* a NAN point (no sample there) ends the polyline; the next known one starts another */
        for (size_t i = 0; i < npoints; i++) {
            double v = y[l * npoints + i];
            if (isnan(v)) {
                fputs(open ? "\"/>\n" : "", f);
                open = 0;
                continue;
            }
            if (!open)
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", series[l].color);
            fprintf(f, "%s%.1f,%.1f", open ? " " : "", LEFT + step * (double)i, bottom - (bottom - TOP - 8) * v);
            open = 1;
        }
        fputs(open ? "\"/>\n" : "", f);
        for (size_t i = 0; i < npoints; i++) {   /* a point with no neighbour draws no line: a dot */
            double v = y[l * npoints + i];
            if (!isnan(v) && (i == 0 || isnan(y[l * npoints + i - 1])) &&
                (i + 1 == npoints || isnan(y[l * npoints + i + 1])))
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", LEFT + step * (double)i,
                        bottom - (bottom - TOP - 8) * v, series[l].color);
        }
        fputs("</g>\n", f);
    }
    fputs("<g class=\"axis\" aria-hidden=\"true\">\n", f);
    for (int t = 0; t <= 4; t++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.4g</text>\n", LEFT + plot_w * t / 4,
                bottom + 16, x0 + dx * (double)(npoints ? npoints - 1 : 0) * t / 4);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text></g>\n", W - RIGHT, bottom + 32, xunit);
    legend(f, series, nlines, height - 12);
    fputs("</svg>\n", f);
}
