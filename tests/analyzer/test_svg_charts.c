/* The HTML report's inline SVG charts (analyzer/render/html/svg_charts.h) given numbers no valid trace gives: each
 * chart ends, draws at most its caps (PS_SVG_MAX_*) and writes no NaN or infinity. Before, an infinite value made the
 * stacked bars' y axis loop for ever, and NaN or infinite values were written as coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../cases.h"
#include "../check.h"
#include "html/svg_charts.h"

/* A writer that holds at most CAP bytes: a chart that never ends fails at once instead of filling memory. */
#define CAP (16 << 20)
struct capped {
    char *buf;
    size_t len;
};

static ssize_t capped_write(void *c, const char *data, size_t n)
{
    struct capped *w = c;
    if (w->len + n > CAP) {
        fprintf(stderr, "the chart passed %d bytes: a chart without end\n", CAP);
        abort();
    }
    memcpy(w->buf + w->len, data, n);
    w->len += n;
    return (ssize_t)n;
}

static struct capped out;

static FILE *open_out(void)
{
    free(out.buf);
    out = (struct capped){ malloc(CAP + 1), 0 };
    FILE *f = out.buf ? fopencookie(&out, "w", (cookie_io_functions_t){ .write = capped_write }) : NULL;
    if (!f)
        exit(1);
    alarm(60);   /* and a chart that loops without writing */
    return f;
}

static const char *close_out(FILE *f)
{
    alarm(0);
    fclose(f);
    out.buf[out.len] = '\0';
    return out.buf;
}

/* NULL when the SVG writes no "nan" or "inf" (any case), else where it does. */
static const char *non_finite(const char *svg)
{
    for (const char *p = svg; *p; p++)
        if (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3))
            return p;
    return NULL;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static const struct ps_svg_series two[] = { { "a", "#000" }, { "b", "#111" } };
static const char *const labels[] = { "#1 s", "#2 s", "#3 s", "#4 s" };

#define CHECK_FINITE(svg)                                                                                          \
    do {                                                                                                           \
        const char *bad_ = non_finite(svg);                                                                        \
        CHECK(bad_ == NULL, "'%.60s'", bad_ ? (bad_ - (bad_ - (svg) > 30 ? 30 : bad_ - (svg))) : "");             \
    } while (0)

static void stacked_bars_with_inf_nan_or_tiny_values_end_finite(void)
{
    static const double sets[][8] = {
        { INFINITY, 1, 2, 3, 4, 5, 6, 7 },     /* the axis: step inf, v += inf never passed inf */
        { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
        { 1e308, 1e308, 1e308, 1e308, 1, 1, 1, 1 },   /* sums overflow to inf */
        { 4.9e-324, 0, 0, 0, 0, 0, 0, 0 },     /* a quarter of it rounds to 0: a step of 0 */
        { -5, 2, -INFINITY, 1, 0, 0, 0, 0 },
    };
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        FILE *f = open_out();
        ps_svg_stacked_bars(f, "t", "title", "desc", 4, 2, sets[k], two, labels, "ms");
        const char *svg = close_out(f);
        CHECK_FINITE(svg);
        CHECK(count(svg, "<line ") <= PS_SVG_MAX_TICKS, "set %zu: %zu axis lines", k, count(svg, "<line "));
        CHECK_EQ("bars", count(svg, "<g class=\"bar\">"), 4);
    }
}

static void hbars_with_inf_or_nan_values_stay_finite(void)
{
    static const double v[] = { INFINITY, NAN, 1e308, -INFINITY };
    FILE *f = open_out();
    ps_svg_hbars(f, "h", "title", "desc", 4, v, labels, "ms", "#000");
    const char *svg = close_out(f);
    CHECK_FINITE(svg);
    CHECK_CONTAINS(svg, ": N/A ms</title>");   /* the tooltip of the NaN bar */
    CHECK_EQ("bars", count(svg, "<g class=\"hbar\">"), 4);
}

static void lines_with_infinite_values_or_x_stay_finite(void)
{
    static const double y[] = { 0.5, INFINITY, -INFINITY, 1e308, 0.25, NAN };
    FILE *f = open_out();
    ps_svg_lines(f, "l", "title", "desc", 1, 6, y, two, INFINITY, NAN, "s");
    const char *svg = close_out(f);
    CHECK_FINITE(svg);
    /* the infinite points break the line: 0.5 alone (a one-point polyline and a dot), then 1e308 and 0.25 */
    CHECK_EQ("polylines", count(svg, "<polyline"), 2);
    CHECK_EQ("dots", count(svg, "<circle"), 1);
}

/* More bars or points than a chart draws: the first ones, and a line saying how many of how many. */
static void charts_draw_at_most_their_caps_and_say_so(void)
{
    size_t n = PS_SVG_MAX_BARS + 3000, np = PS_SVG_MAX_POINTS + 5;
    double *v = calloc(2 * n, sizeof *v), *y = calloc(np, sizeof *y);
    const char **names = calloc(n, sizeof *names);
    if (!v || !y || !names)
        exit(1);
    for (size_t i = 0; i < n; i++)
        v[2 * i] = 1, names[i] = "#n";
    FILE *f = open_out();
    ps_svg_stacked_bars(f, "t", "title", "desc", n, 2, v, two, names, "ms");
    const char *svg = close_out(f);
    CHECK_EQ("stacked bars drawn", count(svg, "<g class=\"bar\">"), PS_SVG_MAX_BARS);
    CHECK_CONTAINS(svg, "the first 2000 of 5000 bars");
    f = open_out();
    ps_svg_hbars(f, "h", "title", "desc", n, v, names, "ms", "#000");
    svg = close_out(f);
    CHECK_EQ("horizontal bars drawn", count(svg, "<g class=\"hbar\">"), PS_SVG_MAX_BARS);
    CHECK_CONTAINS(svg, "the first 2000 of 5000 bars");
    f = open_out();
    ps_svg_lines(f, "l", "title", "desc", 1, np, y, two, 0, 1, "s");
    svg = close_out(f);
    const char *points = strstr(svg, "points=\""), *end = points ? strchr(points + 8, '"') : NULL;
    CHECK(end != NULL);
    size_t drawn = 0;   /* "x,y" each */
    for (const char *p = points; end && p < end; p++)
        drawn += *p == ',';
    CHECK_EQ("points drawn", drawn, PS_SVG_MAX_POINTS);
    CHECK_CONTAINS(svg, "the first 10000 of 10005 points");
    free(v), free(y), free(names);
}

static const struct test_case cases[] = {
    { "stacked_bars_with_inf_nan_or_tiny_values_end_finite", .fn = stacked_bars_with_inf_nan_or_tiny_values_end_finite },
    { "hbars_with_inf_or_nan_values_stay_finite", .fn = hbars_with_inf_or_nan_values_stay_finite },
    { "lines_with_infinite_values_or_x_stay_finite", .fn = lines_with_infinite_values_or_x_stay_finite },
    { "charts_draw_at_most_their_caps_and_say_so", .fn = charts_draw_at_most_their_caps_and_say_so },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .all_when_none = 1 };
    int rc = run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
    free(out.buf);
    return rc;
}
