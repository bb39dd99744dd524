/* The report's memory section in each format (memory_render.c, memory_html.c). Private to analyzer/render/. */
#ifndef PS_MEMORY_RENDER_H
#define PS_MEMORY_RENDER_H

#include <stdio.h>

#include "analyses/memory.h"
#include "analyses/report.h"

/* The HTML section: per device an SVG curve with its peak marked, and the same figures as a table. */
void ps_render_memory_html(FILE *f, const struct ps_report *r);
#endif
