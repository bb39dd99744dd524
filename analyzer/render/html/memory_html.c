/* The report's memory section in HTML: per device an inline SVG of allocated (and reserved) memory over time as a
 * step plot, the peak marked, with a <title>/<desc> and a table of the same figures as its text equivalent; then
 * the per-operator table and the findings. No script, no external resource; text from the trace escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/memory.h"
#include "html/html_escape.h"
#include "html/html_sections.h"
#include "html/svg_charts.h"
#include "words/words.h"

#define SVG_W 960.0
#define SVG_H 280.0
#define PLOT_L 96.0
#define PLOT_R 16.0
#define PLOT_T 16.0
#define PLOT_B 236.0
#define MAX_DRAWN 2000             /* drawn points per curve: beyond, each pixel column keeps its highest point */
#define MIB (1024.0 * 1024.0)

struct scale {
    double t0, t1, vmax;
};

static double sx(const struct scale *s, int64_t t)
{
    double span = s->t1 > s->t0 ? s->t1 - s->t0 : 1;
    return ps_svg_coord(PLOT_L + (SVG_W - PLOT_L - PLOT_R) * ((double)t - s->t0) / span);
}

static double sy(const struct scale *s, int64_t v)
{
    return ps_svg_coord(PLOT_B - (PLOT_B - PLOT_T) * (s->vmax > 0 ? (double)v / s->vmax : 0));
}

/* A step plot of one series (reserved: 1) through the curve; above MAX_DRAWN points, runs of points that fall in
 * one drawn column keep their highest value, so the peak stays drawn. */
static void step_line(FILE *f, const struct ps_mem_device *d, const struct scale *s, int reserved, const char *style)
{
    size_t stride = d->npoints > MAX_DRAWN ? (d->npoints + MAX_DRAWN - 1) / MAX_DRAWN : 1;
    fprintf(f, "<polyline fill=\"none\" %s points=\"", style);
    double prev_y = -1;
    for (size_t i = 0; i < d->npoints; i += stride) {
        int64_t v = -1;
        for (size_t j = i; j < i + stride && j < d->npoints; j++) {
            int64_t x = reserved ? d->curve[j].reserved : d->curve[j].allocated;
            v = x > v ? x : v;
        }
        double x = sx(s, d->curve[i].t_ns), y = sy(s, v < 0 ? 0 : v);
        if (prev_y >= 0)
            fprintf(f, " %.1f,%.1f", x, prev_y);
        fprintf(f, " %.1f,%.1f", x, y);
        prev_y = y;
    }
    fputs("\"/>\n", f);
}

static void curve_svg(FILE *f, const struct ps_report *r, const struct ps_mem_device *d, size_t idx)
{
    struct scale s = { (double)d->curve[0].t_ns, (double)d->curve[d->npoints - 1].t_ns, 0 };
    for (size_t i = 0; i < d->npoints; i++) {
        s.vmax = (double)d->curve[i].allocated > s.vmax ? (double)d->curve[i].allocated : s.vmax;
        s.vmax = (double)d->curve[i].reserved > s.vmax ? (double)d->curve[i].reserved : s.vmax;
    }
    char label[256];
    ps_words_memory_op_label(label, sizeof label, r, d);
    fprintf(f, "<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" aria-labelledby=\"mem-%zu-t mem-%zu-d\">\n"
               "<title id=\"mem-%zu-t\">%s memory over time</title>\n<desc id=\"mem-%zu-d\">Allocated memory",
            SVG_W, SVG_H, idx, idx, idx, d->label, idx);
    if (d->peak_reserved_bytes >= 0)
        fputs(" (solid) and reserved memory (dashed)", f);
    fprintf(f, " of %s over %.3f ms, %zu points; peak allocated %.1f MiB at %.3f ms", d->label,
            (s.t1 - s.t0) / 1e6, d->npoints, (double)d->peak_allocated_bytes / MIB, (double)d->peak_allocated_ns / 1e6);
    if (*label) {
        fputs(" in ", f);
        ps_html_text(f, label, 0);
    }
    fputs(".</desc>\n<g class=\"axis\" aria-hidden=\"true\">\n", f);
    double unit = s.vmax >= 1024 * MIB ? 1024 * MIB : s.vmax >= MIB ? MIB : s.vmax >= 1024 ? 1024 : 1;
    const char *uname = unit > MIB ? "GiB" : unit > 1024 ? "MiB" : unit > 1 ? "KiB" : "B";
    for (int t = 0; t <= 4; t++) {
        double v = s.vmax * t / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g %s</text>\n", PLOT_L - 6,
                sy(&s, (int64_t)v) + 4, v / unit, uname);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%.3f</text>\n",
                PLOT_L + (SVG_W - PLOT_L - PLOT_R) * t / 4, PLOT_B + 16, t == 0 ? "start" : t == 4 ? "end" : "middle",
                (s.t0 + (s.t1 - s.t0) * t / 4) / 1e6);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">ms</text></g>\n", SVG_W - PLOT_R, PLOT_B + 32);
    if (d->peak_reserved_bytes >= 0)
        step_line(f, d, &s, 1, "class=\"reserved\" stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"");
    step_line(f, d, &s, 0, "class=\"allocated\" stroke=\"#1f77b4\" stroke-width=\"2\"");
    double px = sx(&s, d->peak_allocated_ns), py = sy(&s, d->peak_allocated_bytes);
    fprintf(f, "<g class=\"peak\"><title>peak allocated %.1f MiB at %.3f ms</title>"
               "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#d62728\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %.4g %s</text></g>\n</svg>\n",
            (double)d->peak_allocated_bytes / MIB, (double)d->peak_allocated_ns / 1e6, px, py,
            px + (px > SVG_W / 2 ? -8 : 8), py - 10 > PLOT_T ? py - 10 : py + 18, px > SVG_W / 2 ? "end" : "start",
            (double)d->peak_allocated_bytes / unit, uname);
}

static void cell_bytes(FILE *f, int64_t b)
{
    if (b < 0)
        fputs("<td>N/A</td>", f);
    else
        fprintf(f, "<td class=\"n\">%lld B (%.1f MiB)</td>", (long long)b, (double)b / MIB);
}

/* The figures of one device as a table: the chart's text equivalent. */
static void device_table(FILE *f, const struct ps_report *r, const struct ps_mem_device *d)
{
    char label[256];
    ps_words_memory_op_label(label, sizeof label, r, d);
    fputs("<table>\n<tr><th>", f);
    fputs(d->running_sum ? "peak of the running sum of allocation sizes (memory held before the trace not counted)"
          : d->source == PS_MEMSRC_KINETO ? "peak allocated" : "peak of device-resident allocations", f);
    fputs("</th>", f);
    cell_bytes(f, d->peak_allocated_bytes);
    fputs("</tr>\n<tr><th>at</th>", f);
    d->peak_allocated_ns >= 0 ? fprintf(f, "<td class=\"n\">%.3f ms</td>", (double)d->peak_allocated_ns / 1e6)
                              : fputs("<td>N/A</td>", f);
    fputs("</tr>\n<tr><th>in operator, step</th><td class=\"name\">", f);
    ps_html_text(f, *label ? label : "unknown", 0);
    fputs(", ", f);
    ps_html_text(f, ps_words_name(r, d->peak_step, "no step"), 0);
    fputs("</td></tr>\n<tr><th>max reserved</th>", f);
    cell_bytes(f, d->peak_reserved_bytes);
    fputs("</tr>\n<tr><th>capacity</th>", f);
    cell_bytes(f, d->capacity_bytes);
    fputs("</tr>\n<tr><th>headroom</th>", f);
    cell_bytes(f, d->capacity_bytes > 0 ? d->headroom_bytes : -1);
    fprintf(f, "</tr>\n<tr><th>records, curve points, pairs</th><td class=\"n\">%zu, %zu, %zu</td></tr>\n"
               "<tr><th>never freed</th><td class=\"n\">%zu (%.1f MiB)</td></tr>\n</table>\n",
            d->records, d->npoints, d->pairs, d->never_freed, (double)d->never_freed_bytes / MIB);
}

static void ops_table(FILE *f, const struct ps_report *r, const struct ps_memory *mem)
{
    if (!mem->nops)
        return;
    fputs("<p>Sizes in KiB, the PyTorch profiler's definitions; largest self increase first.</p>\n<table>\n<tr><th>device</th>"
          "<th>operator</th><th>calls</th><th>increase</th><th>self increase</th><th>allocations</th><th>self</th>"
          "<th>allocation size</th><th>self allocation size</th></tr>\n", f);
    for (size_t i = 0; i < mem->nops; i++) {
        const struct ps_mem_op *o = &mem->ops[i];
        fprintf(f, "<tr><td>%s</td><td class=\"name\">", mem->devs[o->device].label);
        ps_html_text(f, ps_report_name(r, o->name), 0);
        fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">"
                   "%lld</td><td class=\"n\">%lld</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td></tr>\n",
                (long long)o->calls, (double)o->increase / 1024, (double)o->self_increase / 1024,
                (long long)o->alloc_count, (long long)o->self_alloc_count, (double)o->alloc_bytes / 1024,
                (double)o->self_alloc_bytes / 1024);
    }
    fputs("</table>\n", f);
}

/* The section's id for device d: "memory-gpu0", "memory-cpu" (lower-case label, letters and digits). */
static void device_id(char *buf, size_t len, const struct ps_mem_device *d)
{
    size_t n = (size_t)snprintf(buf, len, "memory-");
    for (const char *p = d->label; *p && n + 1 < len; p++)
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
            buf[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    buf[n] = '\0';
}

void ps_render_memory_html(FILE *f, const struct ps_report *r)
{
    const struct ps_memory *mem = r->mem;
    if (!mem)
        return;
    fprintf(f, "<section id=\"memory\" aria-labelledby=\"memory-h\">\n<h2 id=\"memory-h\">GPU memory</h2>\n"
               "<p>%zu memory records, %zu in no operator; times from the profiler's start.</p>\n</section>\n",
            mem->records, mem->unattributed);
    for (size_t d = 0; d < mem->ndevs; d++) {
        const struct ps_mem_device *dev = &mem->devs[d];
        char id[48];
        device_id(id, sizeof id, dev);
        fprintf(f, "<section id=\"%s\"%s aria-labelledby=\"%s-h\">\n<h3 id=\"%s-h\">%s (%s)</h3>\n", id,
                dev->npoints > 1 ? " class=\"chart\"" : "", id, id, dev->label, ps_mem_source_name[dev->source]);
        if (dev->npoints > 1)
            curve_svg(f, r, dev, d);
        device_table(f, r, dev);
        fputs("</section>\n", f);
    }
    if (!mem->nops && !mem->nfindings)
        return;
    fputs("<section id=\"memory-ops\" aria-labelledby=\"memory-ops-h\">\n<h3 id=\"memory-ops-h\">Memory by "
          "operator and findings</h3>\n", f);
    ops_table(f, r, mem);
    if (mem->nfindings)
        fputs("<ul>\n", f);
    for (size_t i = 0; i < mem->nfindings; i++) {
        const struct ps_mem_finding *g = &mem->findings[i];
        fprintf(f, "<li><strong>[%s] %s</strong>: ", g->severity, g->rule);
        ps_html_text(f, g->summary, 0);
        fputs(" <em>Fix:</em> ", f);
        ps_html_text(f, g->fix, 0);
        fputs("</li>\n", f);
    }
    fputs(mem->nfindings ? "</ul>\n</section>\n" : "</section>\n", f);
}
