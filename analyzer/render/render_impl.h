/* The HTML sections that several of its files call (report_html.c, multirank_html.c, straggler_render.c,
 * process_ranks_render.c). Private to analyzer/render/. */
#ifndef PS_RENDER_IMPL_H
#define PS_RENDER_IMPL_H

#include <stdio.h>

#include "analyses/ranks.h"
#include "analyses/report.h"
#include "render/render.h"
#include "words/words.h"

void ps_render_straggler_html(FILE *f, const struct ps_multirank *mr);
int ps_render_ranks_html_sections(FILE *f, const struct ps_multirank *mr);
void ps_render_process_ranks_html(FILE *f, const struct ps_report *r);

#endif
