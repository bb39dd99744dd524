/* The JSON report's sections that report_json.c puts together, each in a file of its own (docs/report.md lists
 * every key). Each writes its key and value into the open root map of `w` and reports no error of its own: the
 * writer keeps the first one for ps_jw_free. Private to analyzer/render/. */
#ifndef PS_RENDER_JSON_SECTIONS_H
#define PS_RENDER_JSON_SECTIONS_H

#include "analyses/report.h"
#include "render/json_writer.h"

/* causes_json.c: "causes", where the average steady step goes (docs/report.md "Where the step goes"), null when
 * the steps were not split. */
void ps_render_causes_json(struct ps_jw *w, const struct ps_report *r);
/* memory_json.c: "memory", null without memory records, else the object docs/memory.md describes. */
void ps_render_memory_json(struct ps_jw *w, const struct ps_report *r);
/* op_perf_json.c: "op_perf", the per-operator performance model (analyses/op_perf.h; docs/op-perf.md), null
 * without one. */
void ps_render_op_perf_json(struct ps_jw *w, const struct ps_report *r);
/* op_eff_json.c: "op_efficiency" (docs/op-perf-roofline.md "JSON"), null without an operator model or shapes. */
void ps_render_op_efficiency_json(struct ps_jw *w, const struct ps_report *r);
/* setup_json.c: "cuda_graphs", "warmup" and "pretrace_gpu_work". */
void ps_render_setup_json(struct ps_jw *w, const struct ps_report *r);
/* ranks_json.c: "process_ranks", the several-rank report's keys for a trace whose processes hold several ranks
 * (ps_report.process_ranks), null without them. */
void ps_render_process_ranks_json(struct ps_jw *w, const struct ps_report *r);
/* rank_summary_json.c: "rank_summary", the report's last key (what a several-rank merge reads back). */
void ps_render_rank_summary_json(struct ps_jw *w, const struct ps_report *r);

#endif
