/* The text report's sections that report_text.c puts together from files of their own. Each prints to `f` (a
 * memory stream the report folds to its width afterwards) and nothing when the report has no such section.
 * Private to analyzer/render/. */
#ifndef PS_RENDER_TEXT_SECTIONS_H
#define PS_RENDER_TEXT_SECTIONS_H

#include <stdio.h>

#include "analyses/report.h"

/* causes_text.c: "Where the step goes" (docs/report.md), nothing when the steps were not split. */
void ps_render_causes_text(FILE *f, const struct ps_report *r);
/* answer_text.c: the answer, in this order after the steps: the verdict line; where the average step goes (the
 * causes the verdict weighs: causes_text.c, the work queued before the trace it leaves out, the GPU utilisation
 * with its span); the evidence; what to do
 * (the first 3 fixes, all with PS_TEXT_FINDINGS in `sections`); the setup lines (warm-up, CUDA graphs, work queued
 * before the trace). `color`: ANSI colours on. */
void ps_text_verdict(FILE *f, const struct ps_report *r, int color);
void ps_text_where_it_goes(FILE *f, const struct ps_report *r);
void ps_text_evidence(FILE *f, const struct ps_report *r);
void ps_text_what_to_do(FILE *f, const struct ps_report *r, int color, unsigned sections);
void ps_text_scope(FILE *f, const struct ps_report *r);
/* memory_text.c: GPU memory (docs/memory.md), nothing without memory records. */
void ps_render_memory_text(FILE *f, const struct ps_report *r);
/* op_eff_text.c: "Operator efficiency" (docs/op-perf-roofline.md), nothing without an operator model with shapes. */
void ps_render_op_efficiency_text(FILE *f, const struct ps_report *r);
/* ranks_text.c: a trace whose processes hold several ranks (ps_report.process_ranks): the several-rank report's
 * sections in place of the per-process table. Returns 1 when they were written, 0 when the trace holds no such
 * ranks. */
int ps_render_process_ranks_text(FILE *f, const struct ps_report *r);

#endif
