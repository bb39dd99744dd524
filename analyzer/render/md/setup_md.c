/* The Markdown report's "Setup" and "PyTorch" sections: the sentences every format shares (words/setup_words.c) as
 * lists, and the DataLoader workers as a table. */
#include <stdio.h>

#include "md/md_escape.h"
#include "md/md_sections.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

static void md_list(FILE *f, const struct ps_words_lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        fputs("- ", f);
        ps_md_prose(f, l->v[i]);
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
