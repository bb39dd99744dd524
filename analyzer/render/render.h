/* Renderers of `perfscope report`: each formats a finished struct ps_report (analyzer/analyses/report.h) and makes
 * no judgement of its own. They are picked by name from one table, so a new format is one row. */
#ifndef PS_RENDER_H
#define PS_RENDER_H

#include <stdio.h>

#include "analyses/report.h"

/* Write the report to `out`. Return 0, or -EIO when writing failed. */
typedef int (*ps_render_fn)(const struct ps_report *r, FILE *out);

struct ps_renderer {
    const char *name;              /* the --format value: "text", "json" */
    ps_render_fn write;
};

int ps_report_write_json(const struct ps_report *r, FILE *out);
int ps_report_write_text(const struct ps_report *r, FILE *out);

/* `s` (NUL-terminated) as a JSON string: quoted, escaped, invalid UTF-8 as U+FFFD (report_json.c). */
void ps_render_json_str(FILE *f, const char *s);

/* Several rank files (analyses/multirank.h) as text or JSON (multirank_render.c; docs/report.md "Several rank
 * files"). Return 0, or -EIO when writing failed. */
struct ps_multirank;
int ps_multirank_write_text(const struct ps_multirank *mr, FILE *out);
int ps_multirank_write_json(const struct ps_multirank *mr, FILE *out);

/* The renderer called `name`, or NULL when there is none. */
const struct ps_renderer *ps_renderer_find(const char *name);
/* The i-th renderer of the table (0-based), NULL past the last: for listing the formats. */
const struct ps_renderer *ps_renderer_at(size_t i);

#endif
