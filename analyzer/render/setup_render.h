/* The report's parts about the program's setup (setup_render.c): CUDA-graph replays, GPU work queued before the trace,
 * and the PyTorch section with its advice in every format (text, md, html; JSON keys `cuda_graphs` and
 * `pretrace_gpu_work`). Private to analyzer/render/. */
#ifndef PS_SETUP_RENDER_H
#define PS_SETUP_RENDER_H

#include <stdio.h>

#include "analyses/report.h"
#include "render/json_writer.h"

void ps_render_setup_html(FILE *f, const struct ps_report *r);

#endif
