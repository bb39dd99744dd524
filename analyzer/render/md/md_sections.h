/* The Markdown report's sections that report_md.c puts together from files of their own. Each prints to `f` and
 * nothing when the report has no such section. Private to analyzer/render/. */
#ifndef PS_RENDER_MD_SECTIONS_H
#define PS_RENDER_MD_SECTIONS_H

#include <stdio.h>

#include "analyses/report.h"

/* causes_md.c: "Where the step goes" (docs/report.md), nothing when the steps were not split. */
void ps_render_causes_md(FILE *f, const struct ps_report *r);
/* memory_md.c: "GPU memory" (docs/memory.md), nothing without memory records. */
void ps_render_memory_md(FILE *f, const struct ps_report *r);
/* op_eff_md.c: "Operator efficiency" (docs/op-perf-roofline.md), nothing without an operator model with shapes. */
void ps_render_op_efficiency_md(FILE *f, const struct ps_report *r);
/* setup_md.c: "Setup" (warm-up, CUDA graphs, work queued before the trace, CUDA state) and "PyTorch". */
void ps_render_setup_md(FILE *f, const struct ps_report *r);
/* ranks_md.c: a trace whose processes hold several ranks (ps_report.process_ranks): the several-rank report's
 * sections in place of the per-process table. Returns 1 when they were written, 0 when the trace holds no such
 * ranks. */
int ps_render_process_ranks_md(FILE *f, const struct ps_report *r);

#endif
