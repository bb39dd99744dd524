/* The HTML page's "Setup" and "PyTorch" sections: the sentences every format shares (words/setup_words.c) as lists,
 * and the DataLoader workers as a table. */
#include <stdio.h>

#include "html/html_escape.h"
#include "html/html_sections.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

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

