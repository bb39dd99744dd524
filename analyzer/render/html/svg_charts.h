/* Inline SVG charts for the HTML report: stacked bars, horizontal bars and lines over time, drawn without
 * script or external resources. Each chart is an <svg role="img"> with a <title> and a <desc> that say in
 * words what it shows (screen readers), each bar or line has its own <title> (a tooltip with its numbers),
 * and text from the trace is escaped. */
#ifndef PS_SVG_CHARTS_H
#define PS_SVG_CHARTS_H

#include <stddef.h>
#include <stdio.h>

struct ps_svg_series {
    const char *label;             /* legend text */
    const char *color;             /* CSS colour */
};

/* Every chart is bounded whatever its input (a trace or a --gpu-spec file may hold any number): at most these many
 * ticks or grid lines per axis, bars, series and points per line are drawn, and no coordinate, length or figure in
 * the SVG is NaN or infinite. A chart given more bars or points draws the first ones and says so. */
#define PS_SVG_MAX_TICKS 64
#define PS_SVG_MAX_BARS 2000       /* a bar under half a unit of the 960-unit width would not show */
#define PS_SVG_MAX_SERIES 64
#define PS_SVG_MAX_POINTS 10000
#define PS_SVG_COORD_MAX 1e6       /* charts are under 100,000 units tall */

/* v as an SVG coordinate or length: itself when finite and within +-PS_SVG_COORD_MAX, else clamped to that, 0 for
 * NaN. */
double ps_svg_coord(double v);
/* v with `decimals` decimals (printf "%.*f"), or N/A when it is NaN or infinite: a chart's tooltips and labels. */
void ps_svg_fixed(FILE *f, int decimals, double v);

/* Stacked vertical bars, one per item (class "bar", one <g> each): values[i * nseries + j] is series j of
 * bar i (>= 0, in `unit`; NaN or infinite: drawn as 0); labels[i] names bar i (its first word under the bar, all of
 * it in the tooltip). `id` makes the title/desc ids unique in the page. */
void ps_svg_stacked_bars(FILE *f, const char *id, const char *title, const char *desc, size_t nbars,
                         size_t nseries, const double *values, const struct ps_svg_series *series,
                         const char *const *labels, const char *unit);

/* Horizontal bars (class "hbar"), longest scale first as given: values[i] in `unit`, labels[i] (cut to fit;
 * in full in the bar's tooltip). */
void ps_svg_hbars(FILE *f, const char *id, const char *title, const char *desc, size_t nbars, const double *values,
                  const char *const *labels, const char *unit, const char *color);

/* Lines over time (class "line"), y in 0..1 drawn as 0..100 %: y[l * npoints + i] is line l at
 * x = x0 + i * dx (in `xunit`), NAN (or infinite) where there is no value (the line breaks there); one series per
 * line. */
void ps_svg_lines(FILE *f, const char *id, const char *title, const char *desc, size_t nlines, size_t npoints,
                  const double *y, const struct ps_svg_series *series, double x0, double dx, const char *xunit);

#endif
