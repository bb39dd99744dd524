/* The renderers' sections of the per-operator performance model (analyses/op_perf.h). Private to render/. */
#ifndef PS_RENDER_OP_PERF_H
#define PS_RENDER_OP_PERF_H

#include "render/json_writer.h"

struct ps_report;
/* JSON key "op_perf" (op_perf_json.c). */
void ps_render_op_perf_json(struct ps_jw *w, const struct ps_report *r);

#endif
