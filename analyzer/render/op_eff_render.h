/* The "Operator efficiency" section in each format (op_eff_text.c, op_eff_html.c, op_eff_json.c;
 * docs/op-perf-roofline.md): each prints r->opeff and nothing when the report has none. */
#ifndef PS_OP_EFF_RENDER_H
#define PS_OP_EFF_RENDER_H

#include <stdio.h>

#include "analyses/report.h"
#include "render/json_writer.h"

/* 0, or -ENOMEM */
int ps_render_op_efficiency_html(FILE *f, const struct ps_report *r);

/* The section of a trace whose modeled ops launched no GPU work (e->no_gpu_work: op_model_host.c): FLOPs and
 * bytes per call of each op group, no times. md: Markdown. The html one returns 0 or -ENOMEM / -EIO. */
int ps_render_op_model_host_html(FILE *f, const struct ps_report *r);

#endif
