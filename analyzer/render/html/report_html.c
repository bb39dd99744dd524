/* `perfscope report --format html`: one self-contained page to share — the verdict and what to do, then one
 * section per chart (step-time breakdown per step, GPU utilisation over time from the trace's activity and from
 * NVML samples when the trace has them, top kernels, copy bandwidth),
 * each chart followed by its numbers as a table (the text equivalent), then findings, run facts and notes.
 * No script, no font, nothing fetched: a Content-Security-Policy forbids any load. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html/html_escape.h"
#include "html/html_page.h"
#include "html/html_sections.h"
#include "html/svg_charts.h"
#include "render/render.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define H ps_html_text

static void page_head(FILE *f, const struct ps_report *r)
{
    ps_html_page_open(f, r->trace.path);
    fputs("<p class=\"src\">", f);
    H(f, r->trace.path, 0);
    fprintf(f, " (%s trace)</p>\n", r->trace.format);
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level == PS_MSG_NOTE)
            continue;
        fprintf(f, "<p class=\"%s\" role=\"alert\"><strong>%s:</strong> ", g->level == PS_MSG_ALERT ? "alert" : "warn",
                g->level == PS_MSG_NOTICE ? "Note" : "Warning");
        H(f, g->text, 0);
        fputs("</p>\n", f);
    }
}

static void verdict(FILE *f, const struct ps_report *r)
{
    char detail[512];
    ps_words_verdict_detail(detail, sizeof detail, r);
    fprintf(f, "<section id=\"verdict\" aria-labelledby=\"verdict-h\">\n<h2 id=\"verdict-h\">Verdict</h2>\n"
               "<p class=\"verdict\"><strong>%s</strong> — ", ps_words_bottleneck(r, r->bottleneck));
    H(f, detail, 0);
    if (!isnan(r->gpu_util))
        fprintf(f, "; GPU utilisation %.2f %%%s", 100.0 * r->gpu_util, ps_words_util_span(r));
    fputs("</p>\n", f);
    const struct ps_message *nothing = ps_report_message(r, "nothing_to_break_down");
    if (nothing) {
        fputs("<p>", f);
        H(f, nothing->text, 0);
        fputs("</p>\n", f);
    }
    if (r->nrecs) {
        fputs("<h3>What to do</h3>\n<ul>\n", f);
        for (size_t i = 0; i < r->nrecs; i++) {
            fputs("<li>", f);
            H(f, r->recs[i], 0);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    if (r->nevidence) {
        fputs("<h3>Evidence</h3>\n<table>\n<caption>Rows inside the analysed steps; time summed over rows"
              "</caption>\n<tr><th>kind</th><th>count</th><th>total ms</th><th>name</th></tr>\n", f);
        for (size_t i = 0; i < r->nevidence; i++) {
            const struct ps_evidence *e = &r->evidence[i];
            const char *name = ps_words_name(r, e->name, "");
            char *base = !strcmp(e->kind, "range") ? strndup(name, ps_names_base_len(name)) : NULL;
            fprintf(f, "<tr><td>%s</td><td class=\"n\">%lld</td><td class=\"n\">%.3f</td><td class=\"name\">", e->kind,
                    (long long)e->count, MS(e->total_ns));
            ps_html_name(f, base ? base : name);
            fputs("</td></tr>\n", f);
            free(base);
        }
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
}

/* The chart of the steps section: its heading (and why there are no steps), one stacked bar per step of v (n bars
 * of PS_BN_UNKNOWN groups, in ms) named names[i], and a caption. The description gives the average step in the
 * verdict's groups (analyses/verdict.h), of what they sum to. */
static void steps_chart(FILE *f, const struct ps_report *r, size_t n, const double *v, char *const *names,
                        const struct ps_svg_series *series)
{
    const int64_t *g = r->avg.group_ns, seen = r->avg.seen_ns;
    char desc[512], left_out[96] = "";
    if (r->verdict_left_out_ns > 0)
        snprintf(left_out, sizeof left_out, ", of which %.3f ms is work queued before the trace; the rest is",
                 MS(r->verdict_left_out_ns));
    int at = snprintf(desc, sizeof desc, "%zu bar%s, one per %s, each split into the verdict's groups. The "
                      "average %s takes %.3f ms%s:", n, n == 1 ? "" : "s",
                      r->whole_run ? "run (no steps were found)" : "step",
                      r->causes.startup_steps ? "steady step" : "step", MS(r->verdict_step_ns), left_out);
    for (int k = 0; k < PS_BN_UNKNOWN && at > 0 && (size_t)at < sizeof desc; k++)
        at += snprintf(desc + at, sizeof desc - (size_t)at, "%s %s %.1f %%", k ? "," : "",
                       k ? ps_bottleneck_name[k] : series[0].label,
                       seen > 0 ? 100.0 * (double)g[k] / (double)seen : 0.0);
    if (at > 0 && (size_t)at < sizeof desc)
        snprintf(desc + at, sizeof desc - (size_t)at, ". The table below holds every number.");
    fputs("<section id=\"steps\" class=\"chart\" aria-labelledby=\"steps-h\">\n"
          "<h2 id=\"steps-h\">Step-time breakdown per step</h2>\n", f);
    if (r->whole_run) {
        const struct ps_message *ns = ps_report_message(r, "no_steps");
        fputs("<p>", f);
        H(f, ns ? ns->text : "No steps.", 0);
        fputs("</p>\n", f);
    }
    fputs("<figure>\n", f);
    ps_svg_stacked_bars(f, "steps-chart", "Step time per step, by the verdict's groups", desc, n, PS_BN_UNKNOWN,
                        v, series, (const char *const *)names, "ms");
    fprintf(f, "<figcaption>%s; host = Runtime + CPU Exec + Other − sync.</figcaption>\n</figure>\n",
            r->whole_run ? "The one bar is the whole run" : "Each bar is one step");
}

/* The chart's numbers as a table (names[i]: "#N step name"), each step's verdict groups as shares of what they sum
 * to, then the average step in the PyTorch profiler's categories. */
static void steps_tables(FILE *f, const struct ps_report *r, char *const *names, const struct ps_svg_series *series)
{
    fputs("<details><summary>Steps as a table</summary>\n<table>\n<tr><th>#</th><th>step</th><th>duration ms</th>",
          f);
    for (int k = 0; k < PS_BN_UNKNOWN; k++)
        fprintf(f, "<th>%s %%</th>", series[k].label);
    fputs("<th>verdict</th></tr>\n", f);
    for (size_t i = 0; i < r->nsteps && !r->whole_run; i++) {
        const struct ps_step *s = &r->steps[i];
        fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"name\">", i + 1);
        ps_html_name(f, names[i] + strcspn(names[i], " ") + 1);
        fprintf(f, "</td><td class=\"n\">%.3f</td>", MS(s->end_ns - s->start_ns));
        for (int k = 0; k < PS_BN_UNKNOWN; k++)
            ps_html_share_td(f, s->group_ns[k], s->seen_ns);
        fprintf(f, "<td>%s</td></tr>\n", ps_words_bottleneck(r, s->bottleneck));
    }
    fprintf(f, "<tr><td></td><th>average</th><td class=\"n\">%.3f</td>", MS(r->avg_dur_ns));
    for (int k = 0; k < PS_BN_UNKNOWN; k++)
        ps_html_share_td(f, r->avg.group_ns[k], r->avg.seen_ns);
    fprintf(f, "<td>%s</td></tr>\n</table>\n</details>\n", ps_words_bottleneck(r, r->bottleneck));
    fprintf(f, "<table>\n<caption>%s (%.3f ms) in the PyTorch profiler's categories</caption>\n"
               "<tr><th>category</th><th>ms</th><th>share %%</th></tr>\n",
            r->whole_run ? "The run as one window" : "Average step", MS(r->avg_dur_ns));
    for (int c = 0; c < PS_CAT_N; c++) {
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%.3f</td>",
                ps_words_cat_label(c, r->has_gpu), MS(r->avg.cat_ns[c]));
        ps_html_share_td(f, r->avg.cat_ns[c], r->avg_dur_ns);
        fputs("</tr>\n", f);
    }
    fprintf(f, "<tr><td>(of which sync)</td><td class=\"n\">%.3f</td>", MS(r->avg.sync_ns));
    ps_html_share_td(f, r->avg.sync_ns, r->avg_dur_ns);
    fputs("</tr>\n</table>\n", f);
}

/* One bar per analysed step (the whole run as one bar when there are none), in the verdict's groups. */
static int steps_section(FILE *f, const struct ps_report *r)
{
    if (r->nothing_to_break_down)
        return 0;
    size_t n = r->whole_run ? 1 : r->nsteps;
    double *v = calloc(n * PS_BN_UNKNOWN + 1, sizeof *v);
    char **names = calloc(n + 1, sizeof *names);
    if (!v || !names) {
        free(v);
        free(names);
        return -ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct ps_step *s = r->whole_run ? NULL : &r->steps[i];
        const int64_t *g = s ? s->group_ns : r->avg.group_ns;   /* the verdict's groups (analyses/verdict.h) */
        for (int k = 0; k < PS_BN_UNKNOWN; k++)
            v[i * PS_BN_UNKNOWN + k] = MS(g[k] > 0 ? g[k] : 0);
        char made_up[32];
        const char *name = !s ? "whole run" : ps_words_step_name(made_up, sizeof made_up, r, i);
        int64_t dur = s ? s->end_ns - s->start_ns : r->avg_dur_ns, seen = s ? s->seen_ns : r->avg.seen_ns;
        char left_out[80] = "";   /* the verdict's groups leave out the work queued before the trace */
        if (dur > seen)
            snprintf(left_out, sizeof left_out, " less %.3f ms queued before the trace", MS(dur - seen));
        if (asprintf(&names[i], "#%zu %.*s%s", i + 1, (int)ps_names_base_len(name), name, left_out) < 0)
            names[i] = NULL, rc = -ENOMEM;
    }
    if (rc == 0) {
        struct ps_svg_series series[PS_BN_UNKNOWN];
        memcpy(series, ps_html_groups, sizeof series);
        series[PS_BN_KERNEL].label = ps_words_bottleneck_name(PS_BN_KERNEL, r->has_gpu);
        steps_chart(f, r, n, v, names, series);
        steps_tables(f, r, names, series);
        fputs("</section>\n", f);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(v);
    return rc;
}

static int utilisation_section(FILE *f, const struct ps_report *r)
{
    if (r->nutil == 0)
        return 0;
    double *y = malloc(r->nutil * PS_UTIL_BUCKETS * sizeof *y);
    struct ps_svg_series *series = calloc(r->nutil, sizeof *series);
    char (*labels)[32] = calloc(r->nutil, sizeof *labels);
    if (!y || !series || !labels) {
        free(y), free(series), free(labels);
        return -ENOMEM;
    }
    static const char *const colors[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9" };
    const struct ps_util_series *u0 = &r->util[0];
    for (size_t l = 0; l < r->nutil; l++) {
        snprintf(labels[l], sizeof labels[l], "GPU %d", r->util[l].device);
        series[l] = (struct ps_svg_series){ labels[l], colors[l % 6] };
        for (size_t i = 0; i < PS_UTIL_BUCKETS; i++)
            y[l * PS_UTIL_BUCKETS + i] = (double)r->util[l].busy_ns[i] / (double)u0->bucket_ns;
    }
    char desc[256];
    snprintf(desc, sizeof desc, "One line per GPU: the share of each hundredth of the run (%.3f ms) during which "
             "the GPU ran a kernel, copy or memset. The table below holds the average per GPU.", MS(u0->bucket_ns));
    fputs("<section id=\"utilisation\" class=\"chart\" aria-labelledby=\"util-h\">\n<h2 id=\"util-h\">GPU "
          "utilisation over time</h2>\n<figure>\n", f);
    ps_svg_lines(f, "util-chart", "GPU busy share over the run", desc, r->nutil, PS_UTIL_BUCKETS, y, series,
                 (double)u0->bucket_ns / 2e6, (double)u0->bucket_ns / 1e6, "ms from the run's first event");
    fputs("<figcaption>From the trace's GPU activity (kernels, copies, memsets).</figcaption>\n</figure>\n"
          "<table>\n<tr><th>GPU</th><th>busy over the run %</th><th>utilisation in the steps % (tb)</th></tr>\n", f);
    for (size_t l = 0; l < r->nutil; l++) {
        int64_t busy = 0;
        for (size_t i = 0; i < PS_UTIL_BUCKETS; i++)
            busy += r->util[l].busy_ns[i];
        const struct ps_device_stat *d = &r->devs[l];
        fprintf(f, "<tr><td>%d</td>", r->util[l].device);
        ps_html_share_td(f, busy, r->run_end_ns - r->run_start_ns);
        isnan(d->gpu_util) ? fputs("<td class=\"n\">N/A</td>", f)
                           : fprintf(f, "<td class=\"n\">%.2f</td>", 100.0 * d->gpu_util);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
    free(y), free(series), free(labels);
    return 0;
}

/* NVML's utilization.gpu over time (perfscope traces recorded with a driver), beside the trace's own activity. */
static int nvml_section(FILE *f, const struct ps_report *r)
{
    if (r->nnvml_util == 0)
        return 0;
    double *y = malloc(r->nnvml_util * PS_NVML_UTIL_BUCKETS * sizeof *y);
    struct ps_svg_series *series = calloc(r->nnvml_util, sizeof *series);
    char (*labels)[32] = calloc(r->nnvml_util, sizeof *labels);
    if (!y || !series || !labels) {
        free(y), free(series), free(labels);
        return -ENOMEM;
    }
    static const char *const colors[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9" };
    const struct ps_nvml_util_stat *s0 = &r->nvml_util[0];
    for (size_t l = 0; l < r->nnvml_util; l++) {
        snprintf(labels[l], sizeof labels[l], "GPU %d (NVML)", r->nvml_util[l].device);
        series[l] = (struct ps_svg_series){ labels[l], colors[l % 6] };
        for (size_t i = 0; i < PS_NVML_UTIL_BUCKETS; i++) {
            double p = r->nvml_util[l].bucket_pct[i];
            y[l * PS_NVML_UTIL_BUCKETS + i] = p < 0 ? NAN : p / 100.0;
        }
    }
    char desc[320];
    snprintf(desc, sizeof desc, "One line per GPU: NVML's utilization.gpu (the share of each driver sample period in "
             "which a kernel ran, as nvidia-smi shows it), averaged over %d slices of %.3f s; the line breaks where a "
             "slice has no sample. The table below holds each GPU's mean, minimum and maximum.",
             PS_NVML_UTIL_BUCKETS, (double)s0->bucket_ns / 1e9);
    fputs("<section id=\"nvml-utilisation\" class=\"chart\" aria-labelledby=\"nvml-h\">\n<h2 id=\"nvml-h\">GPU "
          "utilisation from NVML samples</h2>\n<figure>\n", f);
    ps_svg_lines(f, "nvml-chart", "NVML GPU utilisation over the recording", desc, r->nnvml_util, PS_NVML_UTIL_BUCKETS,
                 y, series, (double)(s0->first_ns - r->run_start_ns) / 1e9 + (double)s0->bucket_ns / 2e9,
                 (double)s0->bucket_ns / 1e9, "s from the run's first event");
    fputs("</figure>\n<table>\n<tr><th>GPU</th><th>samples</th><th>mean %</th><th>min %</th><th>max %</th></tr>\n", f);
    for (size_t l = 0; l < r->nnvml_util; l++) {
        const struct ps_nvml_util_stat *s = &r->nvml_util[l];
        fprintf(f, "<tr><td>%d</td><td class=\"n\">%lld</td><td class=\"n\">%.1f</td><td class=\"n\">%d</td>"
                   "<td class=\"n\">%d</td></tr>\n", s->device, (long long)s->samples, s->mean_pct, s->min_pct,
                s->max_pct);
    }
    fputs("</table>\n</section>\n", f);
    free(y), free(series), free(labels);
    return 0;
}

static int kernels_section(FILE *f, const struct ps_report *r)
{
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    if (!top)
        return 0;
    double *v = malloc(top * sizeof *v);
    const char **labels = malloc(top * sizeof *labels);
    if (!v || !labels) {
        free(v), free(labels);
        return -ENOMEM;
    }
    for (size_t i = 0; i < top; i++) {
        v[i] = MS(r->kernels[i].total_ns);
        labels[i] = ps_words_name(r, r->kernels[i].name, "");
    }
    char desc[256];
    snprintf(desc, sizeof desc, "The %zu kernel names with the most GPU time (of %zu), longest first, the first at "
             "%.3f ms. The table below holds counts, averages, medians, minima and maxima.", top, r->nkernels, v[0]);
    fputs("<section id=\"kernels\" class=\"chart\" aria-labelledby=\"kernels-h\">\n<h2 id=\"kernels-h\">Top "
          "kernels</h2>\n<figure>\n", f);
    ps_svg_hbars(f, "kernels-chart", "Total time per kernel name", desc, top, v, labels, "ms", "#009E73");
    fputs("</figure>\n<table>\n<tr><th>count</th><th>total ms</th><th>avg ms</th><th>median ms</th><th>min ms</th>"
          "<th>max ms</th><th>kernel</th></tr>\n", f);
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        fprintf(f, "<tr><td class=\"n\">%lld</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">"
                   "%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"name\">",
                (long long)k->count, MS(k->total_ns), MS(k->total_ns / k->count), MS(k->median_ns), MS(k->min_ns),
                MS(k->max_ns));
        ps_html_name(f, labels[i]);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
    free(v), free(labels);
    return 0;
}

static int copies_section(FILE *f, const struct ps_report *r)
{
    if (!r->ncopies)
        return 0;
    double *v = malloc(r->ncopies * sizeof *v);
    char (*text)[64] = malloc(r->ncopies * sizeof *text);
    const char **labels = malloc(r->ncopies * sizeof *labels);
    if (!v || !text || !labels) {
        free(v), free(text), free(labels);
        return -ENOMEM;
    }
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        v[i] = c->total_ns > 0 ? (double)c->bytes / (double)c->total_ns : 0;
        snprintf(text[i], sizeof text[i], "%s %s to %s", ps_copy_kind_name(c),
                 ps_copy_src_mem_name(c) ? ps_copy_src_mem_name(c) : "-", ps_mem_kind_name(c->dst_kind));
        labels[i] = text[i];
    }
    fputs("<section id=\"copies\" class=\"chart\" aria-labelledby=\"copies-h\">\n<h2 id=\"copies-h\">Copy "
          "bandwidth</h2>\n<figure>\n", f);
    ps_svg_hbars(f, "copies-chart", "Bandwidth per kind of copy and memset",
                 "Bytes moved per second of copy time, per direction and memory kind. The table below holds the "
                 "counts, bytes and times.", r->ncopies, v, labels, "GB/s", "#0072B2");
    fputs("</figure>\n<table>\n<tr><th>kind</th><th>count</th><th>MB</th><th>ms</th><th>GB/s</th></tr>\n", f);
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%lld</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>",
                text[i], (long long)c->count, (double)c->bytes / 1e6, MS(c->total_ns));
        c->total_ns > 0 ? fprintf(f, "<td class=\"n\">%.2f</td></tr>\n", v[i]) : fputs("<td>N/A</td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
    free(v), free(text), free(labels);
    return 0;
}

static void findings_section(FILE *f, const struct ps_report *r)
{
    if (!r->nfindings)
        return;
    fputs("<section id=\"findings\" aria-labelledby=\"findings-h\">\n<h2 id=\"findings-h\">Findings</h2>\n<ul>\n", f);
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fprintf(f, "<li><strong>[%s] %s</strong>: ", g->severity, g->rule);
        H(f, g->summary, 0);
        if (g->nrows)
            fputs("\n<table>\n<tr><th>where</th><th>ms</th><th>MB</th><th>name</th></tr>\n", f);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            w->start_ns >= 0 ? fprintf(f, "<tr><td>at %.3f ms</td>", MS(w->start_ns - r->run_start_ns))
                             : fprintf(f, "<tr><td>%lld x</td>", (long long)w->count);
            fprintf(f, "<td class=\"n\">%.3f</td>", MS(w->dur_ns));
            w->bytes >= 0 ? fprintf(f, "<td class=\"n\">%.3f</td>", (double)w->bytes / 1e6) : fputs("<td></td>", f);
            fputs("<td class=\"name\">", f);
            ps_html_name(f, ps_words_row_name(r, g, w));
            fputs("</td></tr>\n", f);
        }
        fputs(g->nrows ? "</table></li>\n" : "</li>\n", f);
    }
    fputs("</ul>\n</section>\n", f);
}

static void run_section(FILE *f, const struct ps_report *r)
{
    const struct ps_run_facts *x = &r->facts;
    char line[256];
    ps_words_run_line(line, sizeof line, r);
    fprintf(f, "<section id=\"run\" aria-labelledby=\"run-h\">\n<h2 id=\"run-h\">Run</h2>\n<ul>\n"
               "<li>Run: %s</li>\n", line);
    const char *const vals[] = { x->command, x->host, x->started }, *const labels[] = { "Command", "Host", "Started" };
    for (size_t i = 0; i < 3; i++)
        if (vals[i]) {
            fprintf(f, "<li>%s: ", labels[i]);
            H(f, *vals[i] ? vals[i] : "unknown", 0);
            fputs("</li>\n", f);
        }
    if (x->program_ns >= 0)
        fprintf(f, "<li>Program ran: %.3f s</li>\n", (double)x->program_ns / 1e9);
    if (x->exit_status[0]) {
        fputs("<li>Exit status: ", f);
        H(f, x->exit_status, 0);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
    size_t notes = 0;
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level != PS_MSG_NOTE || !strcmp(g->code, "nothing_to_break_down") || !strcmp(g->code, "no_steps"))
            continue;
        fputs(notes++ ? "<li>" : "<h3>Notes</h3>\n<ul>\n<li>", f);
        H(f, g->text, 0);
        fputs("</li>\n", f);
    }
    fputs(notes ? "</ul>\n</section>\n" : "</section>\n", f);
}

int ps_render_html(FILE *f, const struct ps_report *r, const struct ps_render_opts *o)
{
    (void)o;
    page_head(f, r);
    verdict(f, r);
    ps_render_causes_html(f, r);
    int rc = steps_section(f, r);
    if (rc == 0)
        rc = utilisation_section(f, r);
    if (rc == 0)
        rc = nvml_section(f, r);
    if (rc == 0)
        rc = ps_render_op_efficiency_html(f, r);
    if (rc == 0)
        rc = kernels_section(f, r);
    if (rc == 0)
        rc = copies_section(f, r);
    findings_section(f, r);
    ps_render_process_ranks_html(f, r);
    ps_render_memory_html(f, r);
    ps_render_setup_html(f, r);
    run_section(f, r);
    ps_html_page_close(f);
    return rc < 0 ? rc : ferror(f) ? -EIO : 0;
}
