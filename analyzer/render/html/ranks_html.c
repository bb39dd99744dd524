/* `perfscope report --format html FILE FILE...`: the several-rank-file report (analyses/ranks.h) as one
 * self-contained page in the frame of the single-file page (html_page.h): the ranks' verdicts, then one section per
 * chart (average step per rank in the verdict's groups, communication-computation overlap per rank, collective
 * time per rank), each followed by its numbers as tables, with the stragglers between them; and the same sections
 * in the single-trace page when the trace's processes are its ranks (ps_report.process_ranks). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/ranks.h"
#include "html/html_escape.h"
#include "html/html_page.h"
#include "html/html_sections.h"
#include "html/svg_charts.h"
#include "render/render.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define H ps_html_text

/* The rank file's label as a cell. */
static void rank_td(FILE *f, const struct ps_rank_file *r)
{
    char lab[32];
    fprintf(f, "<td>%s</td>", ps_words_rank_label(lab, sizeof lab, r));
}

static void path_td(FILE *f, const struct ps_rank_file *r)
{
    fputs("<td class=\"name\">", f);
    H(f, r->path, 0);
    fprintf(f, "%s%s</td>", r->whole_run ? " (no steps: whole run)" : "",
            r->recording_complete == 0 ? " (recording incomplete)" : "");
}

static void pct_td(FILE *f, double share)
{
    isnan(share) ? fputs("<td class=\"n\">-</td>", f) : fprintf(f, "<td class=\"n\">%.2f</td>", 100.0 * share);
}

/* Chart labels: "RANK PATH" for stacked bars (the rank under the bar, all of it in the bar's tooltip), "rank RANK
 * (PATH)" for horizontal bars (cut to fit beside the bar, in full in its tooltip). */
static char **bar_labels(const struct ps_multirank *mr, int horizontal)
{
    char **labels = calloc(mr->nfiles + 1, sizeof *labels), lab[32];
    for (size_t i = 0; labels && i < mr->nfiles; i++) {
        ps_words_rank_label(lab, sizeof lab, &mr->files[i]);
        if (asprintf(&labels[i], horizontal ? "rank %s (%s)" : "%s %s", lab, mr->files[i].path) < 0) {
            while (i > 0)
                free(labels[--i]);
            free(labels);
            return NULL;
        }
    }
    return labels;
}

static void free_labels(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}

/* The run-wide picture: how many files hold each verdict, the slowest and fastest average step, the stragglers and
 * the mean overlap (the JSON's comm_comp_overlap). */
static void summary(FILE *f, const struct ps_multirank *mr)
{
    char lab[32];
    size_t count[PS_BN_UNKNOWN + 1] = { 0 }, slow = 0, fast = 0, noverlap = 0;
    double overlap = 0;
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        count[r->stat.bottleneck]++;
        slow = r->stat.avg_dur_ns > mr->files[slow].stat.avg_dur_ns ? i : slow;
        fast = r->stat.avg_dur_ns < mr->files[fast].stat.avg_dur_ns ? i : fast;
        if (!isnan(r->comm_comp_overlap))
            overlap += r->comm_comp_overlap, noverlap++;
    }
    fputs("<section id=\"verdict\" aria-labelledby=\"verdict-h\">\n<h2 id=\"verdict-h\">Verdicts</h2>\n"
          "<p class=\"verdict\">", f);
    for (int b = 0, first = 1; b <= PS_BN_UNKNOWN; b++) {
        if (!count[b])
            continue;
        fprintf(f, "%s<strong>%s</strong> on %zu of %zu rank files (rank%s ", first ? "" : "; ",
                ps_words_bottleneck_name((enum ps_bottleneck)b, ps_words_ranks_have_gpu(mr)),
                count[b], mr->nfiles, count[b] == 1 ? "" : "s");
        for (size_t i = 0, shown = 0; i < mr->nfiles; i++) {
            if (mr->files[i].stat.bottleneck != (enum ps_bottleneck)b)
                continue;
            if (shown++ == 16) {
                fputs(", ...", f);
                break;
            }
            fprintf(f, "%s%s", shown > 1 ? ", " : "", ps_words_rank_label(lab, sizeof lab, &mr->files[i]));
        }
        fputs(")", f);
        first = 0;
    }
    fputs("</p>\n<ul>\n", f);
    fprintf(f, "<li>Average step: slowest rank %s, %.3f ms; ", ps_words_rank_label(lab, sizeof lab,
            &mr->files[slow]), MS(mr->files[slow].stat.avg_dur_ns));
    fprintf(f, "fastest rank %s, %.3f ms</li>\n", ps_words_rank_label(lab, sizeof lab, &mr->files[fast]),
            MS(mr->files[fast].stat.avg_dur_ns));
    fprintf(f, "<li>Stragglers (average step more than 5 %% slower than the median rank's): %zu</li>\n",
            mr->nstragglers);
    if (noverlap)
        fprintf(f, "<li>Communication overlapped by computation (HTA), mean over the %zu rank file%s with "
                   "communication kernels: %.2f %%</li>\n", noverlap, noverlap == 1 ? "" : "s",
                100.0 * overlap / (double)noverlap);
    else
        fputs("<li>No rank ran a communication kernel.</li>\n", f);
    fputs("</ul>\n</section>\n", f);
}

/* A table of numbers per rank file: its head (a rank column, then heads[0..n)) and rows of n values in ms. */
static void ms_table_head(FILE *f, const char *id, const char *caption, const char *const *heads, size_t n)
{
    fprintf(f, "<table id=\"%s\">\n<caption>%s</caption>\n<tr><th>rank</th>", id, caption);
    for (size_t k = 0; k < n; k++)
        fprintf(f, "<th>%s</th>", heads[k]);
    fputs("</tr>\n", f);
}

static void ms_table_row(FILE *f, const struct ps_rank_file *r, const double *ms, size_t n)
{
    fputs("<tr>", f);
    rank_td(f, r);
    for (size_t k = 0; k < n; k++)
        fprintf(f, "<td class=\"n\">%.3f</td>", ms[k]);
    fputs("</tr>\n", f);
}

/* One stacked bar per rank file: its average step in the verdict's groups; then the per-rank tables. */
static int ranks_section(FILE *f, const struct ps_multirank *mr)
{
    size_t n = mr->nfiles;
    double *v = calloc(n * PS_BN_UNKNOWN + 1, sizeof *v);
    char **labels = bar_labels(mr, 0);
    if (!v || !labels) {
        free(v);
        free_labels(labels, n);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const int64_t *g = mr->files[i].stat.group_ns;   /* the verdict's groups (analyses/verdict.h) */
        for (int k = 0; k < PS_BN_UNKNOWN; k++)
            v[i * PS_BN_UNKNOWN + k] = MS(g[k] > 0 ? g[k] : 0);
    }
    int gpu = ps_words_ranks_have_gpu(mr);
    struct ps_svg_series series[PS_BN_UNKNOWN];
    memcpy(series, ps_html_groups, sizeof series);
    series[PS_BN_KERNEL].label = ps_words_bottleneck_name(PS_BN_KERNEL, gpu);
    char desc[512];
    snprintf(desc, sizeof desc, "%zu bar%s, one per rank file, each its average step split into the verdict's "
             "groups (%s, data-loading, memcpy, communication, sync, host), in ms. The tables below hold "
             "every number.", n, n == 1 ? "" : "s", series[PS_BN_KERNEL].label);
    fputs("<section id=\"ranks\" class=\"chart\" aria-labelledby=\"ranks-h\">\n<h2 id=\"ranks-h\">Average step per "
          "rank</h2>\n<figure>\n", f);
    ps_svg_stacked_bars(f, "ranks-chart", "Average step per rank, by the verdict's groups", desc, n, PS_BN_UNKNOWN, v,
                        series, (const char *const *)labels, "ms");
    fputs("<figcaption>Each bar is one rank file's average step; host = Runtime + CPU Exec + Other − sync."
          "</figcaption>\n</figure>\n<table id=\"ranks-table\">\n<caption>Ranks (rank from: metadata, process_info, "
          "file_name or order)</caption>\n<tr><th>rank</th><th>from</th><th>steps</th><th>step ms</th>"
          "<th>verdict</th><th>share %</th><th>overlap %</th><th>file</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        fputs("<tr>", f);
        rank_td(f, r);
        fprintf(f, "<td>%s</td><td class=\"n\">%zu</td><td class=\"n\">%.3f</td><td>%s</td>",
                r->launcher_ranks >= 2 ? "-" : ps_rank_source_name[r->rank_source], r->stat.nsteps,
                MS(r->stat.avg_dur_ns), ps_words_bottleneck_name(r->stat.bottleneck, r->has_gpu));
        pct_td(f, r->stat.bottleneck == PS_BN_UNKNOWN ? NAN : r->stat.share);
        pct_td(f, r->comm_comp_overlap);
        path_td(f, r);
        fputs("</tr>\n", f);
    }
    /* the chart's numbers, then the same step in tb's categories: one table of ms per rank each */
    const char *heads[PS_CAT_N + 2];
    double row[PS_CAT_N + 2];
    heads[0] = "step ms";
    for (int k = 0; k < PS_BN_UNKNOWN; k++)
        heads[k + 1] = series[k].label;
    fputs("</table>\n", f);
    ms_table_head(f, "groups-table", "Average step per rank in the verdict's groups (ms; the chart's numbers)", heads,
                  PS_BN_UNKNOWN + 1);
    for (size_t i = 0; i < n; i++) {
        row[0] = MS(mr->files[i].stat.avg_dur_ns);
        memcpy(row + 1, v + i * PS_BN_UNKNOWN, PS_BN_UNKNOWN * sizeof *v);
        ms_table_row(f, &mr->files[i], row, PS_BN_UNKNOWN + 1);
    }
    for (int c = 0; c < PS_CAT_N; c++)
        heads[c] = ps_words_ranks_cat_label(c, gpu);
    heads[PS_CAT_N] = "(of which sync)";
    fputs("</table>\n", f);
    ms_table_head(f, "categories-table", "Average step per rank in the PyTorch profiler's categories (ms)", heads,
                  PS_CAT_N + 1);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < PS_CAT_N; c++)
            row[c] = MS(mr->files[i].stat.cat_ns[c]);
        row[PS_CAT_N] = MS(mr->files[i].stat.sync_ns);
        ms_table_row(f, &mr->files[i], row, PS_CAT_N + 1);
    }
    fputs("</table>\n</section>\n", f);
    free(v);
    free_labels(labels, n);
    return 0;
}

static void stragglers_section(FILE *f, const struct ps_multirank *mr)
{
    fputs("<section id=\"stragglers\" aria-labelledby=\"stragglers-h\">\n<h2 id=\"stragglers-h\">Stragglers</h2>\n",
          f);
    if (mr->nstragglers == 0) {
        fputs("<p>None: no rank's average step is more than 5 % slower than the median rank's.</p>\n</section>\n", f);
        return;
    }
    fputs("<table id=\"stragglers-table\">\n<caption>Ranks whose average step is more than 5 % slower than the median "
          "rank's; most of it in: the category that exceeds its median across ranks by the most</caption>\n"
          "<tr><th>rank</th><th>slower by %</th><th>most of it in</th><th>file</th></tr>\n", f);
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        fputs("<tr>", f);
        rank_td(f, r);
        fprintf(f, "<td class=\"n\">%.1f</td><td>%s</td>", 100.0 * g->slower_by,
                ps_words_ranks_cat_label(g->category, r->has_gpu));
        path_td(f, r);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

/* The overlap section: one horizontal bar per rank file with communication (which[0..n): their indices; overlap[j]
 * in %, labels[j]), and the table of overlap and collective time (coll[2j], coll[2j + 1]: under computation and
 * exposed, ms). */
static void overlap_section(FILE *f, const struct ps_multirank *mr, size_t n, const size_t *which,
                            const double *overlap, const char **hlabels, const double *coll)
{
    fputs("<section id=\"overlap\" class=\"chart\" aria-labelledby=\"overlap-h\">\n<h2 id=\"overlap-h\">"
          "Communication overlapped by computation</h2>\n<figure>\n", f);
    ps_svg_hbars(f, "overlap-chart", "Communication-computation overlap per rank",
                 "One bar per rank file that ran communication kernels: the share of their time (HTA: the union of "
                 "communication kernels) during which a computation kernel also ran. The table below holds the "
                 "numbers.", n, overlap, hlabels, "%", ps_html_groups[PS_BN_COMM].color);
    fputs("<figcaption>HTA's communication-computation overlap, computed exactly in ns (HTA rounds to whole µs)."
          "</figcaption>\n</figure>\n<table id=\"overlap-table\">\n<tr><th>rank</th><th>overlap %</th>"
          "<th>collectives ms</th><th>exposed ms</th><th>file</th></tr>\n", f);
    for (size_t j = 0; j < n; j++) {
        const struct ps_rank_file *r = &mr->files[which[j]];
        fputs("<tr>", f);
        rank_td(f, r);
        pct_td(f, r->comm_comp_overlap);
        fprintf(f, "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>", coll[2 * j] + coll[2 * j + 1],
                coll[2 * j + 1]);
        path_td(f, r);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

/* The collectives section: one stacked bar per rank file with communication (coll: under computation and exposed,
 * ms; vlabels), then every collective row of every rank file. */
static void collectives_section(FILE *f, const struct ps_multirank *mr, size_t n, const double *coll,
                                const char **vlabels)
{
    fputs("<section id=\"collectives\" class=\"chart\" aria-labelledby=\"collectives-h\">\n"
          "<h2 id=\"collectives-h\">Collectives</h2>\n<figure>\n", f);
    static const struct ps_svg_series parts[] = { { "under computation", "#56B4E9" }, { "exposed", "#CC79A7" } };
    ps_svg_stacked_bars(f, "collectives-chart", "Collective kernel time per rank, under computation and exposed",
                        "One bar per rank file that ran NCCL/RCCL kernels: their summed time, split into the part "
                        "overlapped by computation kernels on the same device and the exposed rest, in ms. The "
                        "table below holds each kernel name.", n, 2, coll, parts, vlabels, "ms");
    fputs("<figcaption>Exposed = not overlapped by computation kernels on the same device; every kernel of the trace, "
          "not only the steps'.</figcaption>\n</figure>\n<table id=\"collectives-table\">\n<tr><th>rank</th>"
          "<th>count</th><th>total ms</th><th>exposed ms</th><th>exposed %</th><th>bytes</th><th>algbw GB/s</th>"
          "<th>name</th></tr>\n", f);
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        for (size_t k = 0; k < r->ncollectives; k++) {
            const struct ps_collective_stat *c = &r->collectives[k];
            fputs("<tr>", f);
            rank_td(f, r);
            fprintf(f, "<td class=\"n\">%lld</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>",
                    (long long)c->count, MS(c->total_ns), MS(c->exposed_ns));
            ps_html_share_td(f, c->exposed_ns, c->total_ns);
            c->bytes >= 0 ? fprintf(f, "<td class=\"n\">%lld</td>", (long long)c->bytes) : fputs("<td>-</td>", f);
            isnan(c->algbw_gbps) ? fputs("<td>-</td>", f) : fprintf(f, "<td class=\"n\">%.3f</td>", c->algbw_gbps);
            fputs("<td class=\"name\">", f);
            ps_html_name(f, c->name);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n</section>\n", f);
}

/* Per rank with communication kernels: the overlap (HTA) as horizontal bars, and the collective time hidden under
 * computation and exposed as stacked bars; then the collective table. */
static int comm_sections(FILE *f, const struct ps_multirank *mr)
{
    size_t n = 0, ncoll = 0;
    for (size_t i = 0; i < mr->nfiles; i++) {
        n += !isnan(mr->files[i].comm_comp_overlap);
        ncoll += mr->files[i].ncollectives;
    }
    if (n == 0 && ncoll == 0) {
        fputs("<section id=\"collectives\" aria-labelledby=\"collectives-h\">\n<h2 id=\"collectives-h\">Collectives"
              "</h2>\n<p>None: no rank ran a communication kernel (NCCL/RCCL).</p>\n</section>\n", f);
        return 0;
    }
    char **hnames = bar_labels(mr, 1), **vnames = bar_labels(mr, 0);
    const char **hlabels = calloc(mr->nfiles + 1, sizeof *hlabels), **vlabels = calloc(mr->nfiles + 1, sizeof *vlabels);
    double *overlap = calloc(mr->nfiles + 1, sizeof *overlap), *coll = calloc(2 * mr->nfiles + 1, sizeof *coll);
    size_t *which = calloc(mr->nfiles + 1, sizeof *which);
    int rc = -ENOMEM;
    if (!hnames || !vnames || !hlabels || !vlabels || !overlap || !coll || !which)
        goto out;
    rc = 0;
    n = 0;
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        if (isnan(r->comm_comp_overlap) && r->ncollectives == 0)
            continue;
        int64_t total = 0, exposed = 0;
        for (size_t k = 0; k < r->ncollectives; k++)
            total += r->collectives[k].total_ns, exposed += r->collectives[k].exposed_ns;
        which[n] = i;
        hlabels[n] = hnames[i];
        vlabels[n] = vnames[i];
        overlap[n] = isnan(r->comm_comp_overlap) ? 0 : 100.0 * r->comm_comp_overlap;
        coll[2 * n] = MS(total - exposed);
        coll[2 * n + 1] = MS(exposed);
        n++;
    }
    overlap_section(f, mr, n, which, overlap, hlabels, coll);
    collectives_section(f, mr, n, coll, vlabels);
out:
    free_labels(hnames, mr->nfiles);
    free_labels(vnames, mr->nfiles);
    free(hlabels), free(vlabels), free(overlap), free(coll), free(which);
    return rc;
}

/* The straggler the others wait for and the rule that named it (docs/distributed.md). */
static void straggler(FILE *f, const struct ps_multirank *mr)
{
    char buf[PS_WORDS_STRAGGLER_LEN];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "<p id=\"straggler-rule\">Straggler rule: %s.</p>\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fputs("<section id=\"straggler-waited-for\" aria-labelledby=\"straggler-waited-for-h\">\n<h2 "
          "id=\"straggler-waited-for-h\">Straggler: the rank the others wait for</h2>\n<p>", f);
    ps_html_text(f, buf, 0);
    fprintf(f, "</p>\n<p id=\"straggler-rule\">Straggler rule: %s.</p>\n</section>\n", ps_words_straggler_rule_wait);
}

/* The several-rank report's sections after its title and notes: ranks, stragglers, the straggler the others wait
 * for, overlap and collectives. 0 or -ENOMEM. */
static int sections(FILE *f, const struct ps_multirank *mr)
{
    int rc = ranks_section(f, mr);
    if (rc == 0)
        stragglers_section(f, mr);
    if (rc == 0)
        straggler(f, mr);
    if (rc == 0)
        rc = comm_sections(f, mr);
    return rc;
}

int ps_render_ranks_html(FILE *f, const struct ps_multirank *mr, const struct ps_render_opts *o)
{
    (void)o;
    char title[64];
    snprintf(title, sizeof title, "%zu rank file%s", mr->nfiles, mr->nfiles == 1 ? "" : "s");
    ps_html_page_open(f, title);
    fprintf(f, "<p class=\"src\">%zu rank file%s, one report over the ranks; each file analysed on its own as its "
               "single-file report does</p>\n", mr->nfiles, mr->nfiles == 1 ? "" : "s");
    for (size_t i = 0; i < mr->nnotes; i++) {
        fputs("<p class=\"warn\" role=\"alert\"><strong>Note:</strong> ", f);
        H(f, mr->notes[i], 0);
        fputs("</p>\n", f);
    }
    summary(f, mr);
    int rc = sections(f, mr);
    ps_html_page_close(f);
    return rc < 0 ? rc : ferror(f) ? -EIO : 0;
}

void ps_render_process_ranks_html(FILE *f, const struct ps_report *r)
{
    if (r->process_ranks)
        sections(f, r->process_ranks);
}

