/* The report's parts about the program's setup: CUDA-graph replays (analyses/graphs.c), GPU work queued before the
 * trace (analyses/backlog.c) and the PyTorch section (analyses/pytorch.c) with its advice, worded once here as
 * sentences and laid out per format, so that text, md and html say what JSON says. */
#include <math.h>
#include <string.h>

#include "render_impl.h"
#include "setup_render.h"
#include "svg_charts.h"

#define MS(ns) ((double)(ns) / 1e6)

void ps_render_setup_text(FILE *f, const struct ps_report *r)
{
    struct ps_words_lines l = { .n = 0 };
    ps_words_advice_lines(&l, r);
    for (size_t i = 0; i < l.n; i++)
        fprintf(f, "%s%s\n", i ? "    " : "  Advice: ", l.v[i]);
    l.n = 0;
    ps_words_setup_lines(&l, r);
    for (size_t i = 0; i < l.n; i++)
        fprintf(f, "\n%s\n", l.v[i]);
}

/* ---- md ---- */

static void md_list(FILE *f, const struct ps_words_lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        fputs("- ", f);
        ps_render_md_prose(f, l->v[i]);
        fputc('\n', f);
    }
    if (l->n)
        fputc('\n', f);
}

static void md_workers(FILE *f, const struct ps_pytorch *py)
{
    if (!py->nworkers)
        return;
    fputs("| pid | loader | id | fetches | fetch ms | busy while waiting % | CPU ms |\n"
          "|---:|---:|---:|---:|---:|---:|---:|\n", f);
    for (size_t i = 0; i < py->nworkers; i++) {
        const struct ps_py_worker *w = &py->workers[i];
        fprintf(f, "| %u | %d | %d | %lld | %.3f | ", w->pid, w->loader, w->id, (long long)w->fetches, MS(w->fetch_ns));
        py->wait_ns > 0 ? fprintf(f, "%.1f | ", 100.0 * (double)w->busy_wait_ns / (double)py->wait_ns) : fputs("N/A | ", f);
        w->cpu_ns >= 0 ? fprintf(f, "%.1f |\n", MS(w->cpu_ns)) : fputs("N/A |\n", f);
    }
    fputc('\n', f);
}

void ps_render_setup_md(FILE *f, const struct ps_report *r)
{
    struct ps_words_lines l = { .n = 0 };
    ps_words_setup_lines(&l, r);
    ps_words_cuda_state_line(&l, r);
    if (l.n) {
        fputs("### Setup\n\n", f);
        md_list(f, &l);
    }
    if (!r->py)
        return;
    fputs("### PyTorch\n\n", f);
    l.n = 0;
    ps_words_pytorch_lines(&l, r);
    md_list(f, &l);
    md_workers(f, r->py);
    l.n = 0;
    ps_words_advice_lines(&l, r);
    if (l.n)
        fputs("**Advice**\n\n", f);
    md_list(f, &l);
}

/* ---- html ---- */

static void html_list(FILE *f, const struct ps_words_lines *l)
{
    if (!l->n)
        return;
    fputs("<ul>\n", f);
    for (size_t i = 0; i < l->n; i++) {
        fputs("<li>", f);
        ps_html_text(f, l->v[i], 0);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

static void html_workers(FILE *f, const struct ps_pytorch *py)
{
    if (!py->nworkers)
        return;
    fputs("<table>\n<caption>DataLoader worker processes</caption>\n<tr><th>pid</th><th>loader</th><th>id</th>"
          "<th>fetches</th><th>fetch ms</th><th>busy while waiting %</th><th>CPU ms</th></tr>\n", f);
    for (size_t i = 0; i < py->nworkers; i++) {
        const struct ps_py_worker *w = &py->workers[i];
        fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%lld</td>"
                   "<td class=\"n\">%.3f</td>", w->pid, w->loader, w->id, (long long)w->fetches, MS(w->fetch_ns));
        py->wait_ns > 0 ? fprintf(f, "<td class=\"n\">%.1f</td>", 100.0 * (double)w->busy_wait_ns / (double)py->wait_ns)
                        : fputs("<td>N/A</td>", f);
        w->cpu_ns >= 0 ? fprintf(f, "<td class=\"n\">%.1f</td></tr>\n", MS(w->cpu_ns)) : fputs("<td>N/A</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

void ps_render_setup_html(FILE *f, const struct ps_report *r)
{
    struct ps_words_lines l = { .n = 0 };
    ps_words_setup_lines(&l, r);
    ps_words_cuda_state_line(&l, r);
    if (l.n) {
        fputs("<section id=\"setup\" aria-labelledby=\"setup-h\">\n<h2 id=\"setup-h\">Setup</h2>\n", f);
        html_list(f, &l);
        fputs("</section>\n", f);
    }
    if (!r->py)
        return;
    fputs("<section id=\"pytorch\" aria-labelledby=\"pytorch-h\">\n<h2 id=\"pytorch-h\">PyTorch</h2>\n", f);
    l.n = 0;
    ps_words_pytorch_lines(&l, r);
    html_list(f, &l);
    html_workers(f, r->py);
    l.n = 0;
    ps_words_advice_lines(&l, r);
    if (l.n)
        fputs("<h3>Advice</h3>\n", f);
    html_list(f, &l);
    fputs("</section>\n", f);
}

/* ---- JSON ---- */

void ps_render_setup_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_graph_stat *g = &r->graphs;
    const struct ps_backlog_stat *b = &r->backlog;
    ps_jw_key(w, "cuda_graphs");
    ps_jw_map_open(w);
    ps_jw_kint(w, "launches", g->launches);
    ps_jw_kint(w, "ops", g->ops);
    ps_jw_kint(w, "kernels", g->kernels);
    ps_jw_kint(w, "eager_ops", g->eager_ops);
    ps_jw_kint(w, "eager_kernels", g->eager_kernels);
    ps_jw_kint(w, "ops_ns", g->ops_ns);
    ps_jw_kint(w, "graph_ops_ns", g->graph_ops_ns);
    ps_jw_kdouble(w, "share", g->share);
    ps_jw_map_close(w);
    ps_jw_key(w, "warmup");
    ps_jw_map_open(w);
    ps_jw_kint(w, "skipped_steps", (int64_t)r->warmup.skipped);
    ps_jw_kbool(w, "skip_ignored", r->warmup.skip_ignored);
    ps_jw_kbool(w, "first_step_outlier", r->warmup.first_outlier);
    ps_jw_kint(w, "first_step_ns", r->warmup.first_ns);
    ps_jw_kint(w, "median_other_steps_ns", r->warmup.median_ns);
    ps_jw_map_close(w);
    ps_jw_key(w, "pretrace_gpu_work");
    ps_jw_map_open(w);
    ps_jw_kint(w, "ns", b->ns);
    ps_jw_kint(w, "avg_step_ns", r->avg.pretrace_ns);
    ps_jw_kint(w, "waiting_ops", b->waiting_ops);
    if (b->waiting_ops > 0) {
        ps_jw_kstr(w, "first_op", ps_words_name(r, b->first_name, NULL));
        ps_jw_kint(w, "first_device", b->first_device);
        ps_jw_kint(w, "first_launch_ns", b->first_launch_ns - r->run_start_ns);
        ps_jw_kint(w, "first_start_ns", b->first_start_ns - r->run_start_ns);
    }
    ps_jw_map_close(w);
}
