/* The output formats of `perfscope report` (one trace, or several rank files) and `perfscope diff`: each writer
 * formats a finished result (struct ps_report, struct ps_multirank, struct ps_diff: analyses/) and makes no
 * judgement of its own. They are picked by name from one table (render.c), so a new format is one row; each
 * format's writers live in a folder of their own (text/, json/, md/, html/) over the wording every format shares
 * (words/). */
#ifndef PS_RENDER_H
#define PS_RENDER_H

#include <stdint.h>
#include <stdio.h>

#include "analyses/report.h"

struct ps_multirank;               /* analyses/ranks.h */
struct ps_rank_file;
struct ps_diff;                    /* analyses/diff.h */

#define PS_TEXT_WIDTH 100          /* the columns perfscope's text fits (the commands' default width) */

/* The text report's detail sections (`perfscope report --sections`, docs/report.md "Text report"): a one-trace
 * text report always leads with the answer (the run, the steps and how much of the run they cover, the verdict,
 * where the average step goes, evidence, what to do, warnings about the trace's scope); these add the peer tables
 * and details after it. JSON, Markdown and HTML always hold every section. */
enum ps_text_section {
    PS_TEXT_STEPS = 1u << 0,       /* "steps": every step's row and the average step in tb's eight categories */
    PS_TEXT_PYTORCH = 1u << 1,     /* "pytorch": what perfscope's Python hook saw (loaders, workers, copies) */
    PS_TEXT_GPU = 1u << 2,         /* "gpu": TraceLens, HTA and per-device timelines, idle per stream, NVML */
    PS_TEXT_MEMORY = 1u << 3,      /* "memory": GPU memory */
    PS_TEXT_OPS = 1u << 4,         /* "ops": operator efficiency (rooflines, MFU) */
    PS_TEXT_KERNELS = 1u << 5,     /* "kernels": the top kernels by total time */
    PS_TEXT_COPIES = 1u << 6,      /* "copies": copies and memsets per direction and memory kind */
    PS_TEXT_FINDINGS = 1u << 7,    /* "findings": every finding with its rows, and every fix */
    PS_TEXT_ALL = (1u << 8) - 1,   /* "all" */
};
/* The ranks of a trace whose processes hold several ranks (the per-process table, the straggler) are part of the
 * answer: always printed. */
/* The name of each section bit (bit i: ps_text_section_names[i]), for --sections and its help. */
extern const char *const ps_text_section_names[8];

/* How to lay a result out (not what it says: that is the result's). */
struct ps_render_opts {
    int color;                     /* text: ANSI colours (the command decides: --color, NO_COLOR, a terminal) */
    size_t width;                  /* text: fold lines to this many columns; 0: never fold */
    unsigned sections;             /* text, one trace: detail sections after the answer (enum ps_text_section);
                                    * 0: the answer alone (the command's default) */
};

/* What `perfscope diff` prints: the diff and where its two runs came from. */
struct ps_diff_input {
    const struct ps_diff *diff;
    const char *before_path, *after_path;
    int top;                       /* kernels listed (text, md); 0: all. JSON lists all */
};

/* One output format: its --format value, a line for --help, and its writer of each result; NULL where the format
 * does not exist for that result (a diff has no HTML page). Each writer prints the whole result to `out` (the
 * caller's: not closed, not flushed) and returns 0, or -EIO when writing failed (-ENOMEM when memory ran out);
 * it keeps nothing: what it allocates it frees. Times print in ms (text, md, html) or integer ns (JSON). */
struct ps_renderer {
    const char *name;              /* "text", "json", "md", "html" */
    const char *what;              /* one line for --help */
    int (*report)(FILE *out, const struct ps_report *r, const struct ps_render_opts *o);
    int (*ranks)(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o);
    int (*diff)(FILE *out, const struct ps_diff_input *in, const struct ps_render_opts *o);
};

/* The format called `name` (a row of the static table: never freed), or NULL when there is none. */
const struct ps_renderer *ps_renderer_find(const char *name);
/* The i-th format of the table (0-based), NULL past the last: for listing the formats. */
const struct ps_renderer *ps_renderer_at(size_t i);

/* The writers of the table, by result and format (FORMAT/report_FORMAT.c, FORMAT/ranks_FORMAT.c,
 * FORMAT/diff_FORMAT.c), as struct ps_renderer says. One trace's report (docs/report.md): */
int ps_render_text(FILE *out, const struct ps_report *r, const struct ps_render_opts *o);
int ps_render_json(FILE *out, const struct ps_report *r, const struct ps_render_opts *o);
int ps_render_md(FILE *out, const struct ps_report *r, const struct ps_render_opts *o);
int ps_render_html(FILE *out, const struct ps_report *r, const struct ps_render_opts *o);
/* Several rank files (docs/report.md "Several rank files"): the per-rank table, stragglers, communication-
 * computation overlap and collectives; the HTML page as ps_render_html's, a stacked bar per rank file of its
 * average step in the verdict's groups, each chart followed by its numbers as a table. */
int ps_render_ranks_text(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o);
int ps_render_ranks_json(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o);
int ps_render_ranks_md(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o);
int ps_render_ranks_html(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o);
/* `perfscope diff` (docs/diff.md lists the JSON keys). */
int ps_render_diff_text(FILE *out, const struct ps_diff_input *in, const struct ps_render_opts *o);
int ps_render_diff_json(FILE *out, const struct ps_diff_input *in, const struct ps_render_opts *o);
int ps_render_diff_md(FILE *out, const struct ps_diff_input *in, const struct ps_render_opts *o);
/* Shorthands (no colour, text unfolded, every text section): what tests compare wording against. 0, -EIO or
 * -ENOMEM as the writers. */
int ps_report_write_json(FILE *out, const struct ps_report *r);
int ps_report_write_text(FILE *out, const struct ps_report *r);

#endif
