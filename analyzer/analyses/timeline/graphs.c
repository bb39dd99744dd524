/* CUDA / HIP graph replays (docs/report.md "CUDA graphs"). A graph launch call (cudaGraphLaunch, cuGraphLaunch,
 * hipGraphLaunch) runs every node of the graph: its GPU ops carry the launch call's correlation id, so one call
 * links to many ops (as TraceLens attributes them to their launch, its category "graph"). A program that replays
 * graphs already launches that work in one call: the launch tests (findings.c) judge the eager launches alone and
 * the advice says the trace replays graphs instead of suggesting them. */
#include <math.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

int ps_graph_launched(const struct ps_view *v, struct ps_names *names, const struct ps_gpu_op *op)
{
    return op->launch != PS_NONE &&
           (ps_names_flags(names, ps_view_api_at(v, op->launch)->name) & PS_NAME_GRAPH_LAUNCH) != 0;
}

int ps_graphs_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct ps_graph_stat *g = &r->graphs;
    *g = (struct ps_graph_stat){ .share = NAN };
    for (size_t i = 0; i < v->napi; i++)
        if (ps_names_flags(names, ps_view_api(v, i)->name) & PS_NAME_GRAPH_LAUNCH)
            g->launches++;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind == PS_GPU_SYNC)
            continue;
        int64_t dur = op.end_ns - op.start_ns;
        g->ops_ns += dur;
        if (ps_graph_launched(v, names, &op)) {
            g->ops++;
            g->kernels += op.kind == PS_GPU_KERNEL;
            g->graph_ops_ns += dur;
        } else if (op.launch != PS_NONE) {
            g->eager_ops++;
            g->eager_kernels += op.kind == PS_GPU_KERNEL;
        }
    }
    if (g->ops_ns > 0)
        g->share = (double)g->graph_ops_ns / (double)g->ops_ns;
    return 0;
}
