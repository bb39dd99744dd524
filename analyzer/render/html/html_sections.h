/* The HTML page's sections that report_html.c puts together from files of their own. Each prints to `f` and
 * nothing when the report has no such section. Private to analyzer/render/. */
#ifndef PS_RENDER_HTML_SECTIONS_H
#define PS_RENDER_HTML_SECTIONS_H

#include <stdio.h>

#include "analyses/report.h"

/* causes_html.c: "Where the step goes" (docs/report.md), nothing when the steps were not split. */
void ps_render_causes_html(FILE *f, const struct ps_report *r);
/* memory_html.c: "GPU memory": per device an SVG curve with its peak marked, and the same figures as a table; the
 * per-operator table and the findings. Nothing without memory records. */
void ps_render_memory_html(FILE *f, const struct ps_report *r);
/* op_eff_html.c: "Operator efficiency" (docs/op-perf-roofline.md): MFU, a roofline chart and its table; nothing
 * without an operator model with shapes. 0, -ENOMEM or -EIO. */
int ps_render_op_efficiency_html(FILE *f, const struct ps_report *r);
/* setup_html.c: "Setup" (warm-up, CUDA graphs, work queued before the trace, CUDA state) and "PyTorch". */
void ps_render_setup_html(FILE *f, const struct ps_report *r);
/* ranks_html.c: a trace whose processes hold several ranks (ps_report.process_ranks): the several-rank page's
 * sections (ranks, stragglers, collectives); nothing without them. */
void ps_render_process_ranks_html(FILE *f, const struct ps_report *r);

#endif
