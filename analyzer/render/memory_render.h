/* The report's memory section in each format (memory_render.c, memory_html.c). Private to analyzer/render/. */
#ifndef PS_MEMORY_RENDER_H
#define PS_MEMORY_RENDER_H

#include <stdio.h>

#include "analyses/memory.h"
#include "analyses/report.h"

struct ps_jw;
/* The text / Markdown section; nothing without memory records. */
void ps_render_memory_text(FILE *f, const struct ps_report *r);
void ps_render_memory_md(FILE *f, const struct ps_report *r);
/* The HTML section: per device an SVG curve with its peak marked, and the same figures as a table. */
void ps_render_memory_html(FILE *f, const struct ps_report *r);
/* `perfscope diff`: each memory device's peak allocated and max reserved before and after; nothing (text, md) or
 * "memory": [] (JSON) when neither run has memory records. */
struct ps_diff;
void ps_render_memory_diff_text(FILE *f, const struct ps_diff *d);
void ps_render_memory_diff_md(FILE *f, const struct ps_diff *d);

#endif
