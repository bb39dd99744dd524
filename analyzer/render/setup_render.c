/* The report's parts about the program's setup: CUDA-graph replays (analyses/graphs.c), GPU work queued before the
 * trace (analyses/backlog.c) and the PyTorch section (analyses/pytorch.c) with its advice, worded once here as
 * sentences and laid out per format, so that text, md and html say what JSON says. */
#include <math.h>
#include <string.h>

#include "render_impl.h"
#include "setup_render.h"
#include "svg_charts.h"

#define MS(ns) ((double)(ns) / 1e6)
#define LINE 640
#define MAX_LINES (4 + PS_PY_MAX_LOADERS + PS_PY_MAX_ADVICE)

struct lines {
    char v[MAX_LINES][LINE];
    size_t n;
};

static char *next_line(struct lines *l)
{
    return l->n < MAX_LINES ? l->v[l->n++] : NULL;
}

/* The warm-up sentences: steps left out, and a first step far slower than the others. */
static void warmup_lines(const struct ps_report *r, struct lines *l)
{
    const struct ps_warmup_stat *w = &r->warmup;
    char *s;
    if (w->skipped && (s = next_line(l)))
        snprintf(s, LINE, "Warm-up: the first %zu step%s %s left out of every average, the verdict and the findings "
                 "(--skip-steps %zu).", w->skipped, w->skipped == 1 ? "" : "s", w->skipped == 1 ? "is" : "are",
                 w->skipped);
    if (w->skip_ignored && (s = next_line(l)))
        snprintf(s, LINE, "Warm-up: --skip-steps %d would leave no step to analyse (%zu analysed): none was left out.",
                 r->opts.skip_steps, r->whole_run ? (size_t)0 : r->nsteps);
    if (w->first_outlier && w->median_ns > 0 && (s = next_line(l)))
        snprintf(s, LINE, "Warm-up: the first analysed step took %.3f ms, %.1f times the median of the others (%.3f "
                 "ms), and raises every average: leave it out with --skip-steps %zu.", MS(w->first_ns),
                 (double)w->first_ns / (double)w->median_ns, MS(w->median_ns), w->skipped + 1);
}

/* The graph, pre-trace and warm-up sentences. */
static void setup_lines(const struct ps_report *r, struct lines *l)
{
    warmup_lines(r, l);
    const struct ps_graph_stat *g = &r->graphs;
    const struct ps_backlog_stat *b = &r->backlog;
    char *s;
    if (g->launches > 0 && (s = next_line(l)))
        snprintf(s, LINE, "CUDA graphs: the program replays graphs: %lld graph launch%s ran %lld GPU operations "
                 "(%lld kernels), %.1f %% of GPU time (operation durations summed); %lld operations were launched one "
                 "by one. The launch tests (launch_bound_stream, tiny_kernels) judge those eager launches alone.",
                 (long long)g->launches, g->launches == 1 ? "" : "es", (long long)g->ops, (long long)g->kernels, 100.0 * (isnan(g->share) ? 0 : g->share),
                 (long long)g->eager_ops);
    int64_t window = r->window_end_ns - r->window_start_ns;
    if (b->waiting_ops > 0 && b->ns > 0 && (s = next_line(l))) {
        const char *name = ps_render_name(r, b->first_name, "a GPU operation");
        snprintf(s, LINE, "Work queued before the trace: GPU %d was busy with work the trace does not hold (launched "
                 "before the trace began, or by another process): %.80s%s, launched at %.3f ms, started at %.3f ms "
                 "(%lld operation%s waited so). %.3f ms (%.1f %% of the analysed window) went to that work: it is not "
                 "synchronisation, and the verdict leaves it out.", b->first_device, name, strlen(name) > 80 ? "..." : "",
                 MS(b->first_launch_ns - r->run_start_ns), MS(b->first_start_ns - r->run_start_ns),
                 (long long)b->waiting_ops, b->waiting_ops == 1 ? "" : "s", MS(b->ns), window > 0 ? 100.0 * (double)b->ns / (double)window : 0.0);
    }
}

/* md, html: the CUDA/CUPTI state per process (the text report prints it with the run's facts); the notes refer to it. */
static void cuda_state_line(const struct ps_report *r, struct lines *l)
{
    const struct ps_run_facts *x = &r->facts;
    char *s;
    if (!x->ncuda || !(s = next_line(l)))
        return;
    size_t n = (size_t)snprintf(s, LINE, "CUDA/CUPTI state:");
    for (size_t k = 0; k < x->ncuda && n < LINE; k++)
        n += (size_t)snprintf(s + n, LINE - n, "%s %.60s in %d process%s", k ? "," : "",
                              *x->cuda[k].state ? x->cuda[k].state : "unknown", x->cuda[k].processes,
                              x->cuda[k].processes == 1 ? "" : "es");
}

static const char *tf(int32_t v)
{
    return v < 0 ? "?" : v ? "True" : "False";
}

/* The PyTorch section as sentences (the workers' table apart): hook, loaders, waits, verdict on workers, copies. */
static void py_lines(const struct ps_report *r, struct lines *l)
{
    const struct ps_pytorch *py = r->py;
    char *s;
    if ((s = next_line(l))) {
        int n = snprintf(s, LINE, "perfscope's Python hook, mode %s; torch %s", py->mode[0] ? py->mode : "?",
                         py->torch_version[0] ? py->torch_version : "?");
        if (py->cores > 0 && n > 0 && n < LINE)
            snprintf(s + n, (size_t)(LINE - n), "; %d cores", py->cores);
    }
    for (size_t i = 0; i < py->nloaders && (s = next_line(l)); i++) {
        const struct ps_py_loader *d = &py->loaders[i];
        char pf[16] = "None";
        if (d->prefetch_factor >= 0)
            snprintf(pf, sizeof pf, "%d", d->prefetch_factor);
        snprintf(s, LINE, "DataLoader#%d: num_workers=%d pin_memory=%s persistent_workers=%s prefetch_factor=%s "
                 "batch_size=%d, %d iterator%s (%.63s)", d->number, d->num_workers, tf(d->pin_memory),
                 tf(d->persistent_workers), pf, d->batch_size, d->iterators, d->iterators == 1 ? "" : "s", d->iterator);
    }
    if ((s = next_line(l)))
        snprintf(s, LINE, "The step thread waited for data %.3f ms in the analysed steps in the steady state, and %.3f ms "
                 "for worker start-up (iter(), each new iterator's first fetch, and the fetch that stops non-persistent "
                 "workers)", MS(py->wait_ns), MS(py->startup_wait_ns));
    if (py->intra_op_threads > 0 && py->cores > 0 && (s = next_line(l)))
        snprintf(s, LINE, "Threads: %d intra-op threads in the training process%s on %d cores%s",
                 py->intra_op_threads, py->nloaders && py->loaders[0].num_workers > 0 ? " + DataLoader workers" : "",
                 py->cores, py->oversubscribed ? ": oversubscribed" : "");
    if (py->more_workers >= 0 && (s = next_line(l)))
        snprintf(s, LINE, "More workers would %s",
                 !py->more_workers ? "not help: the workers idled while the step waited"
                 : py->nworkers    ? "help: the workers were saturated while the step waited"
                                   : "help: loading runs inside the training loop (num_workers=0)");
    if (py->copies && (s = next_line(l)))
        snprintf(s, LINE, "Host-to-device copies (Tensor.to / .cuda): %lld, %lld from pageable memory, %lld blocking",
                 (long long)py->copies, (long long)py->copies_pageable, (long long)py->copies_blocking);
}

static void advice_lines(const struct ps_report *r, struct lines *l)
{
    char *s;
    for (size_t i = 0; r->py && i < r->py->nadvice && (s = next_line(l)); i++)
        snprintf(s, LINE, "%s", r->py->advice[i]);
}

void ps_render_setup_text(FILE *f, const struct ps_report *r)
{
    struct lines l = { .n = 0 };
    advice_lines(r, &l);
    for (size_t i = 0; i < l.n; i++)
        fprintf(f, "%s%s\n", i ? "    " : "  Advice: ", l.v[i]);
    l.n = 0;
    setup_lines(r, &l);
    for (size_t i = 0; i < l.n; i++)
        fprintf(f, "\n%s\n", l.v[i]);
}

/* ---- md ---- */

static void md_list(FILE *f, const struct lines *l)
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
    struct lines l = { .n = 0 };
    setup_lines(r, &l);
    cuda_state_line(r, &l);
    if (l.n) {
        fputs("### Setup\n\n", f);
        md_list(f, &l);
    }
    if (!r->py)
        return;
    fputs("### PyTorch\n\n", f);
    l.n = 0;
    py_lines(r, &l);
    md_list(f, &l);
    md_workers(f, r->py);
    l.n = 0;
    advice_lines(r, &l);
    if (l.n)
        fputs("**Advice**\n\n", f);
    md_list(f, &l);
}

/* ---- html ---- */

static void html_list(FILE *f, const struct lines *l)
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
    struct lines l = { .n = 0 };
    setup_lines(r, &l);
    cuda_state_line(r, &l);
    if (l.n) {
        fputs("<section id=\"setup\" aria-labelledby=\"setup-h\">\n<h2 id=\"setup-h\">Setup</h2>\n", f);
        html_list(f, &l);
        fputs("</section>\n", f);
    }
    if (!r->py)
        return;
    fputs("<section id=\"pytorch\" aria-labelledby=\"pytorch-h\">\n<h2 id=\"pytorch-h\">PyTorch</h2>\n", f);
    l.n = 0;
    py_lines(r, &l);
    html_list(f, &l);
    html_workers(f, r->py);
    l.n = 0;
    advice_lines(r, &l);
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
        ps_jw_kstr(w, "first_op", ps_render_name(r, b->first_name, NULL));
        ps_jw_kint(w, "first_device", b->first_device);
        ps_jw_kint(w, "first_launch_ns", b->first_launch_ns - r->run_start_ns);
        ps_jw_kint(w, "first_start_ns", b->first_start_ns - r->run_start_ns);
    }
    ps_jw_map_close(w);
}
