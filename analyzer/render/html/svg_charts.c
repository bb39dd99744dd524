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

double ps_svg_coord(double v)
{
    if (isnan(v))
        return 0;
    return v > PS_SVG_COORD_MAX ? PS_SVG_COORD_MAX : v < -PS_SVG_COORD_MAX ? -PS_SVG_COORD_MAX : v;
}

void ps_svg_fixed(FILE *f, int decimals, double v)
{
    if (isfinite(v))
        fprintf(f, "%.*f", decimals, v);
    else
        fputs("N/A", f);
}

/* A value to draw: NaN and infinities as 0, and nothing beyond +-1e300, so that sums of a few stay finite. */
static double drawn(double v)
{
    return !isfinite(v) ? 0 : v > 1e300 ? 1e300 : v < -1e300 ? -1e300 : v;
}

/* A round step for an axis from 0 to max with about 4 ticks: 1, 2 or 5 times a power of ten; max itself where that
 * is no positive finite number (a max near the smallest double: its quarter rounds to 0). */
static double nice_step(double max)
{
    if (!(max > 0) || !isfinite(max))
        return 1;
    double raw = max / 4, p = pow(10, floor(log10(raw))), m = raw / p;
    double step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    return step > 0 && isfinite(step) ? step : max;
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
    int ticks = 0;   /* about 5; the cap holds whatever rounding does to v += step */
    for (double v = 0; v <= axis + step / 2 && ticks < PS_SVG_MAX_TICKS; v += step, ticks++) {
        double y = ps_svg_coord(bottom - (bottom - top) * v / axis);
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
    for (size_t j = 0; j < n && j < PS_SVG_MAX_SERIES; j++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
                ps_svg_coord(x), y - 10, series[j].color, ps_svg_coord(x + 16), y);
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
    size_t n = nbars < PS_SVG_MAX_BARS ? nbars : PS_SVG_MAX_BARS, ns = nseries < PS_SVG_MAX_SERIES ? nseries
                                                                                                  : PS_SVG_MAX_SERIES;
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t j = 0; j < ns; j++)
            sum += drawn(values[i * nseries + j]);
        max = sum > max ? sum : max;
    }
    open_svg(f, id, title, desc, height);
    double axis = y_axis(f, max, TOP + 8, bottom, unit, 0);
    double slot = (W - LEFT - RIGHT) / (double)(n ? n : 1), bw = slot > 3 ? slot * 0.8 : slot;
    bw = bw > 60 ? 60 : bw;   /* a few steps: bars, not walls */
    size_t label_every = n > 20 ? (n + 19) / 20 : 1;
    if (n < nbars)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">the first %zu of %zu bars</text>\n", W - RIGHT,
                TOP + 4, n, nbars);
    for (size_t i = 0; i < n; i++) {
        double x = LEFT + slot * (double)i + (slot - bw) / 2, y = bottom, sum = 0;
        for (size_t j = 0; j < ns; j++)
            sum += drawn(values[i * nseries + j]);
        fputs("<g class=\"bar\"><title>", f);
        ps_html_text(f, labels[i], 0);
        fprintf(f, ": %.3f %s", sum, unit);
        for (size_t j = 0; j < ns; j++)
            if (drawn(values[i * nseries + j]) > 0)
                fprintf(f, "; %s %.3f", series[j].label, drawn(values[i * nseries + j]));
        fputs("</title>\n", f);
        for (size_t j = 0; j < ns; j++) {
            double h = ps_svg_coord((bottom - TOP - 8) * drawn(values[i * nseries + j]) / axis);
            if (h <= 0)
                continue;
            y -= h;
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x,
                    ps_svg_coord(y), bw, h, series[j].color);
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
    legend(f, series, ns, height - 12);
    fputs("</svg>\n", f);
}

void ps_svg_hbars(FILE *f, const char *id, const char *title, const char *desc, size_t nbars, const double *values,
                  const char *const *labels, const char *unit, const char *color)
{
    size_t n = nbars < PS_SVG_MAX_BARS ? nbars : PS_SVG_MAX_BARS;
    const double row = 24, label_w = 380, height = TOP + row * (double)n + 36;
    double max = 0;
    for (size_t i = 0; i < n; i++)
        max = drawn(values[i]) > max ? drawn(values[i]) : max;
    open_svg(f, id, title, desc, height);
    double x0 = label_w + 8, span = W - RIGHT - x0 - 90;
    for (size_t i = 0; i < n; i++) {
        double y = TOP + row * (double)i, w = ps_svg_coord(max > 0 ? span * drawn(values[i]) / max : 0);
        fputs("<g class=\"hbar\"><title>", f);
        ps_html_text(f, labels[i], 0);
        fputs(": ", f);
        ps_svg_fixed(f, 3, values[i]);
        fprintf(f, " %s</title>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", unit, label_w, y + 16);
        ps_html_text(f, labels[i], 52);
        fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">", x0, y + 4, w, row - 8, color, x0 + w + 6, y + 16);
        ps_svg_fixed(f, 3, values[i]);
        fprintf(f, " %s</text></g>\n", unit);
    }
    if (n < nbars)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">the first %zu of %zu bars</text>\n", LEFT, height - 12, n, nbars);
    fputs("</svg>\n", f);
}

void ps_svg_lines(FILE *f, const char *id, const char *title, const char *desc, size_t nlines, size_t npoints,
                  const double *y, const struct ps_svg_series *series, double x0, double dx, const char *xunit)
{
    const double height = 300, bottom = 240;
    /* a point is y[l * npoints + i] whatever is drawn of them: the first PS_SVG_MAX_POINTS of each line */
    size_t np = npoints < PS_SVG_MAX_POINTS ? npoints : PS_SVG_MAX_POINTS;
    size_t nl = nlines < PS_SVG_MAX_SERIES ? nlines : PS_SVG_MAX_SERIES;
#define KNOWN(l, i) isfinite(y[(l) * npoints + (i)])   /* NAN (no sample) or infinite: no value */
    open_svg(f, id, title, desc, height);
    y_axis(f, 100, TOP + 8, bottom, "busy", 1);
    double plot_w = W - LEFT - RIGHT, step = np > 1 ? plot_w / (double)(np - 1) : 0;
    for (size_t l = 0; l < nl; l++) {
        fputs("<g class=\"line\"><title>", f);
        ps_html_text(f, series[l].label, 0);
        double mean = 0, n = 0;
        for (size_t i = 0; i < np; i++)
            if (KNOWN(l, i))
                mean += y[l * npoints + i], n++;
        mean = n > 0 ? mean / n : 0;
        size_t known = 0;
        for (size_t i = 0; i < np; i++)
            known += KNOWN(l, i);
        fputs(": ", f);
        ps_svg_fixed(f, 1, known ? 100 * mean : 0.0);
        fputs(" % busy on average</title>\n", f);
        int open = 0;   /* a NAN point (no sample there) ends the polyline; the next known one starts another */
        for (size_t i = 0; i < np; i++) {
            double v = y[l * npoints + i];
            if (!KNOWN(l, i)) {
                fputs(open ? "\"/>\n" : "", f);
                open = 0;
                continue;
            }
            if (!open)
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", series[l].color);
            fprintf(f, "%s%.1f,%.1f", open ? " " : "", LEFT + step * (double)i,
                    ps_svg_coord(bottom - (bottom - TOP - 8) * v));
            open = 1;
        }
        fputs(open ? "\"/>\n" : "", f);
        for (size_t i = 0; i < np; i++) {   /* a point with no neighbour draws no line: a dot */
            double v = y[l * npoints + i];
            if (KNOWN(l, i) && (i == 0 || !KNOWN(l, i - 1)) && (i + 1 == np || !KNOWN(l, i + 1)))
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", LEFT + step * (double)i,
                        ps_svg_coord(bottom - (bottom - TOP - 8) * v), series[l].color);
        }
        fputs("</g>\n", f);
    }
#undef KNOWN
    fputs("<g class=\"axis\" aria-hidden=\"true\">\n", f);
    for (int t = 0; t <= 4; t++) {
        double x = x0 + dx * (double)(np ? np - 1 : 0) * t / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", LEFT + plot_w * t / 4, bottom + 16);
        isfinite(x) ? fprintf(f, "%.4g", x) : fputs("N/A", f);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text></g>\n", W - RIGHT, bottom + 32, xunit);
    if (np < npoints)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">the first %zu of %zu points</text>\n", LEFT, TOP + 4, np, npoints);
    legend(f, series, nl, height - 12);
    fputs("</svg>\n", f);
}
