/* What the renderers share (render.c, report_md.c, multirank_render.c): the names and lines every format words the
 * same way. Private to analyzer/render/. */
#ifndef PS_RENDER_IMPL_H
#define PS_RENDER_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "analyses/ranks.h"
#include "analyses/report.h"
#include "render/render.h"

/* A verdict's name as people read it: without GPU rows the `kernel` verdict is host compute, "compute" (JSON
 * values stay "kernel": ps_bottleneck_name); ps_render_bottleneck for a report's own. */
const char *ps_render_bottleneck_name(enum ps_bottleneck b, int has_gpu);
/* A step-time category's label: ps_cat_label, but "Compute" for Kernel without GPU rows (JSON keys stay
 * ps_cat_key). */
const char *ps_render_cat_label(int c, int has_gpu);
const char *ps_render_bottleneck(const struct ps_report *r, enum ps_bottleneck b);
/* What follows the verdict's name, in every format: its share, the compute (Kernel) share beside it and the
 * most removing its cause could save, e.g. "51.1 % of the average step; compute (Kernel) 45.5 %; removing the
 * cause saves at most 51.1 % of each step (619.045 ms)"; or why the verdict is unknown. */
void ps_render_verdict_detail(const struct ps_report *r, char *buf, size_t len);
/* The name of step i: its range's name, "inferred#N" for a step inferred from the kernel sequence (--steps),
 * "(whole run)" for the one window; buf (len bytes) holds the made-up ones. */
const char *ps_render_step_name(const struct ps_report *r, size_t i, char *buf, size_t len);
/* The text of string id `id` of the report's model (ps_report_name), `none` when it names nothing. */
const char *ps_render_name(const struct ps_report *r, uint32_t id, const char *none);
/* The name of row `w` of finding `g`: the row's name, else "(GPU idle)" for a GPU gap, "(time slice)" for a slice. */
const char *ps_render_row_name(const struct ps_report *r, const struct ps_finding *g, const struct ps_row *w);
/* The run in one line, the same in every format after "Run: ": "12.345 ms, 2 processes, 3 threads, 100 events (5 GPU
 * rows, 10 API calls, 85 ranges)", or "no events, 1 process, 1 thread" when the analysed rows hold none. */
void ps_render_run_line(const struct ps_report *r, char *buf, size_t len);
/* Which steps a table shows: all when --all-steps or up to 20, else the first 10, the 5 slowest and the last 5
 * (at most 20 rows). shown[i] is 1 for a shown step, 2 for a shown one among the slowest; returns how many
 * are shown. `shown` holds r->nsteps entries. */
size_t ps_render_steps_shown(const struct ps_report *r, unsigned char *shown);

/* Whether any of the rank files holds GPU rows: without, the several-file report's shared headings say compute. */
int ps_render_ranks_have_gpu(const struct ps_multirank *mr);
/* A category's label in the several-file tables: ps_render_cat_label, "Comm" for Communication (narrow columns). */
const char *ps_render_ranks_cat_label(int c, int has_gpu);
/* A rank file's label in every format: its rank ("3"), or "launcher(N)" for a trace holding N ranks as processes.
 * Returns buf (len bytes). */
const char *ps_render_rank_label(char *buf, size_t len, const struct ps_rank_file *f);
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
void ps_render_straggler_json(struct ps_jw *w, const struct ps_multirank *mr);
void ps_render_straggler_html(FILE *f, const struct ps_multirank *mr);
/* The several-rank report's sections after its title and notes, for several rank files (multirank_render.c,
 * multirank_html.c) and for ranks that are processes of one trace (process_ranks_render.c): text and Markdown
 * under the heading `title`, the JSON keys from "files" on into an open map, the HTML sections (ranks, stragglers,
 * collectives). The Markdown and HTML ones return 0, -EIO or -ENOMEM. */
void ps_render_ranks_text_body(FILE *f, const struct ps_multirank *mr, const char *title);
int ps_render_ranks_md_body(FILE *f, const struct ps_multirank *mr, const char *title);
void ps_render_ranks_json_body(struct ps_jw *w, const struct ps_multirank *mr);
int ps_render_ranks_html_sections(FILE *f, const struct ps_multirank *mr);
/* process_ranks_render.c: a trace whose processes hold several ranks (ps_report.process_ranks), in the
 * single-trace report: the several-rank sections in place of the per-process table (text, Markdown, HTML:
 * return 1 when they were written, 0 when the trace holds no such ranks), and the JSON key "process_ranks"
 * (null without them). */
int ps_render_process_ranks_text(FILE *f, const struct ps_report *r);
int ps_render_process_ranks_md(FILE *f, const struct ps_report *r);
void ps_render_process_ranks_html(FILE *f, const struct ps_report *r);
void ps_render_process_ranks_json(struct ps_jw *w, const struct ps_report *r);
/* rank_summary_json.c: the JSON report's last key, "rank_summary" (what a several-rank merge reads). */
void ps_render_rank_summary_json(struct ps_jw *w, const struct ps_report *r);

#endif
