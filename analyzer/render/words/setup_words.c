/* The setup section's sentences (words.h), worded once here and laid out by each format as a list, so that text, md
 * and html say what JSON says: CUDA-graph replays (analyses/timeline/graphs.c), GPU work queued before the trace
 * (analyses/timeline/backlog.c), warm-up steps (analyses/steps/warmup.c) and the PyTorch section
 * (analyses/pytorch/pytorch.c) with its advice. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define LINE PS_WORDS_LINE        /* bytes per line (words.h) */

static char *next_line(struct ps_words_lines *l)
{
    return l->n < PS_WORDS_MAX_LINES ? l->v[l->n++] : NULL;
}

/* The warm-up sentences: steps left out, and a first step far slower than the others. */
static void warmup_lines(struct ps_words_lines *l, const struct ps_report *r)
{
    const struct ps_warmup_stat *w = &r->warmup;
    char *s;
    if (w->skipped && (s = next_line(l)))
        snprintf(s, LINE, "Warm-up: the first %zu step%s %s left out of every average, the verdict and the findings "
                 "(--skip-steps %zu).", w->skipped, w->skipped == 1 ? "" : "s", w->skipped == 1 ? "is" : "are",
                 w->skipped);
    if (w->first_outlier && w->median_ns > 0 && (s = next_line(l)))
        snprintf(s, LINE, "Warm-up: the first analysed step took %.3f ms, %.1f times the median of the others (%.3f "
                 "ms), and raises every average: leave it out with --skip-steps %zu.", MS(w->first_ns),
                 (double)w->first_ns / (double)w->median_ns, MS(w->median_ns), w->skipped + 1);
}

void ps_words_setup_lines(struct ps_words_lines *l, const struct ps_report *r)
{
    warmup_lines(l, r);
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
        const char *name = ps_words_name(r, b->first_name, "a GPU operation");
        snprintf(s, LINE, "Work queued before the trace: GPU %d was busy with work the trace does not hold (launched "
                 "before the trace began, or by another process): %.80s%s, launched at %.3f ms, started at %.3f ms "
                 "(%lld operation%s waited so). %.3f ms (%.1f %% of the analysed window) went to that work: it is not "
                 "synchronisation, and the verdict leaves it out.", b->first_device, name, strlen(name) > 80 ? "..." : "",
                 MS(b->first_launch_ns - r->run_start_ns), MS(b->first_start_ns - r->run_start_ns),
                 (long long)b->waiting_ops, b->waiting_ops == 1 ? "" : "s", MS(b->ns), window > 0 ? 100.0 * (double)b->ns / (double)window : 0.0);
    }
}

void ps_words_cuda_state_line(struct ps_words_lines *l, const struct ps_report *r)
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

void ps_words_pytorch_lines(struct ps_words_lines *l, const struct ps_report *r)
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

void ps_words_advice_lines(struct ps_words_lines *l, const struct ps_report *r)
{
    char *s;
    for (size_t i = 0; r->py && i < r->py->nadvice; i++)   /* what the verdict's fix quotes is said there */
        if (!r->py->advice_in_fix[i] && (s = next_line(l)))
            snprintf(s, LINE, "%s", r->py->advice[i]);
}
