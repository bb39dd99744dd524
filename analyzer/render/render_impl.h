/* The formats' sections that several of their files call (report_md.c, multirank_render.c, straggler_render.c,
 * process_ranks_render.c). Private to analyzer/render/. */
#ifndef PS_RENDER_IMPL_H
#define PS_RENDER_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "analyses/ranks.h"
#include "analyses/report.h"
#include "render/render.h"
#include "words/words.h"

/* `s` (NUL-terminated) as Markdown text that shows literally: control bytes and invalid UTF-8 escaped as
 * ps_text_escape does, Markdown and GFM table punctuation backslash-escaped, a long name shortened as ps_name_shown
 * shortens it (report_md.c). */
void ps_render_md_name(FILE *f, const char *s);
/* Prose (a sentence that may quote names: messages, fixes, findings) escaped for Markdown as ps_render_md_name
 * escapes a name, but whole: a sentence is never shortened. */
void ps_render_md_prose(FILE *f, const char *s);
struct ps_jw;
/* straggler_render.c: the straggler the others wait for, and which rule decided (docs/distributed.md). */
void ps_render_straggler_text(FILE *f, const struct ps_multirank *mr);
void ps_render_straggler_md(FILE *f, const struct ps_multirank *mr);
void ps_render_straggler_html(FILE *f, const struct ps_multirank *mr);
/* The several-rank report's sections after its title and notes, for several rank files (multirank_render.c,
 * multirank_html.c) and for ranks that are processes of one trace (process_ranks_render.c): text and Markdown
 * under the heading `title`, the JSON keys from "files" on into an open map, the HTML sections (ranks, stragglers,
 * collectives). The Markdown and HTML ones return 0, -EIO or -ENOMEM. */
void ps_render_ranks_text_body(FILE *f, const struct ps_multirank *mr, const char *title);
int ps_render_ranks_md_body(FILE *f, const struct ps_multirank *mr, const char *title);
int ps_render_ranks_html_sections(FILE *f, const struct ps_multirank *mr);
/* process_ranks_render.c: a trace whose processes hold several ranks (ps_report.process_ranks), in the
 * single-trace report: the several-rank sections in place of the per-process table (text, Markdown, HTML:
 * return 1 when they were written, 0 when the trace holds no such ranks), and the JSON key "process_ranks"
 * (null without them). */
int ps_render_process_ranks_text(FILE *f, const struct ps_report *r);
int ps_render_process_ranks_md(FILE *f, const struct ps_report *r);
void ps_render_process_ranks_html(FILE *f, const struct ps_report *r);

#endif
