/* Renderers of `perfscope report`: each formats a finished struct ps_report (analyses/report.h) and makes
 * no judgement of its own. They are picked by name from one table, so a new format is one row. */
#ifndef PS_RENDER_H
#define PS_RENDER_H

#include <stdio.h>

#include "analyses/report.h"

/* How to lay a report out (not what it says: that is in struct ps_report). */
struct ps_render_opts {
    int color;                     /* text: ANSI colours (the command decides: --color, NO_COLOR, a terminal) */
    size_t width;                  /* text: fold lines to this many columns; 0: never fold */
};

/* Write the report to `out`. Return 0, or -EIO when writing failed (-ENOMEM when memory ran out). */
typedef int (*ps_render_fn)(const struct ps_report *r, const struct ps_render_opts *o, FILE *out);

struct ps_renderer {
    const char *name;              /* the --format value: "text", "json", "md", "html" */
    const char *what;              /* one line for --help */
    ps_render_fn write;
};

int ps_render_json(const struct ps_report *r, const struct ps_render_opts *o, FILE *out);
int ps_render_text(const struct ps_report *r, const struct ps_render_opts *o, FILE *out);
/* Shorthands with the default layout (no colour, text unfolded): what tests compare wording against. */
int ps_report_write_json(const struct ps_report *r, FILE *out);
int ps_report_write_text(const struct ps_report *r, FILE *out);

int ps_render_md(const struct ps_report *r, const struct ps_render_opts *o, FILE *out);
int ps_render_html(const struct ps_report *r, const struct ps_render_opts *o, FILE *out);

/* Shared by the renderers (render.c). */
/* The verdict's name as people read it: without GPU rows the `kernel` verdict is host compute, "compute"
 * (the JSON keeps "kernel", DESIGN §4). */
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

/* Several rank files (analyses/multirank.h) as text, JSON or Markdown (multirank_render.c; docs/report.md
 * "Several rank files"). Return 0, or -EIO when writing failed (-ENOMEM when memory ran out). */
struct ps_multirank;
int ps_multirank_write_text(const struct ps_multirank *mr, FILE *out);
int ps_multirank_write_json(const struct ps_multirank *mr, FILE *out);
int ps_multirank_write_md(const struct ps_multirank *mr, FILE *out);
/* One self-contained page like ps_render_html's (multirank_html.c): the ranks' verdicts, a stacked bar per rank
 * file of its average step in the verdict's groups, the per-rank tables, communication-computation overlap per
 * rank, stragglers and collectives, each chart followed by its numbers as a table. */
int ps_multirank_write_html(const struct ps_multirank *mr, FILE *out);
/* A rank file's label in every format: its rank ("3"), or "launcher(N)" for a trace holding N ranks as processes.
 * Returns buf (len bytes). */
struct ps_rank_file;
const char *ps_render_rank_label(char *buf, size_t len, const struct ps_rank_file *f);
/* `s` (NUL-terminated) as Markdown text that shows literally: control bytes and invalid UTF-8 escaped as
 * ps_text_escape does, Markdown and GFM table punctuation backslash-escaped (report_md.c). */
void ps_render_md_name(FILE *f, const char *s);

/* The renderer called `name`, or NULL when there is none. */
const struct ps_renderer *ps_renderer_find(const char *name);
/* The i-th renderer of the table (0-based), NULL past the last: for listing the formats. */
const struct ps_renderer *ps_renderer_at(size_t i);

#endif
