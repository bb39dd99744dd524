/* The JSON report's keys about the program's setup (docs/report.md): "cuda_graphs" (analyses/timeline/graphs.c),
 * "warmup" (analyses/steps/warmup.c) and "pretrace_gpu_work" (analyses/timeline/backlog.c); the other formats word
 * the same figures as sentences (words/setup_words.c). */
#include "json/json_sections.h"
#include "words/words.h"

void ps_render_setup_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_graph_stat *g = &r->graphs;
    const struct ps_backlog_stat *b = &r->backlog;
    ps_jw_key(w, "cuda_graphs");
    ps_jw_map_open(w);
    ps_jw_kint(w, "launches", g->launches);
    ps_jw_kint(w, "ops", g->ops);
    ps_jw_kint(w, "kernels", g->kernels);
    ps_jw_kint(w, "eager_ops", g->eager_ops);
    ps_jw_kint(w, "eager_kernels", g->eager_kernels);
    ps_jw_kint(w, "ops_ns", g->ops_ns);
    ps_jw_kint(w, "graph_ops_ns", g->graph_ops_ns);
    ps_jw_kdouble(w, "share", g->share);
    ps_jw_map_close(w);
    ps_jw_key(w, "warmup");
    ps_jw_map_open(w);
    ps_jw_kint(w, "skipped_steps", (int64_t)r->warmup.skipped);
    ps_jw_kbool(w, "skip_ignored", r->warmup.skip_ignored);
    ps_jw_kbool(w, "first_step_outlier", r->warmup.first_outlier);
    ps_jw_kint(w, "first_step_ns", r->warmup.first_ns);
    ps_jw_kint(w, "median_other_steps_ns", r->warmup.median_ns);
    ps_jw_map_close(w);
    ps_jw_key(w, "pretrace_gpu_work");
    ps_jw_map_open(w);
    ps_jw_kint(w, "ns", b->ns);
    ps_jw_kint(w, "avg_step_ns", r->avg.pretrace_ns);
    ps_jw_kint(w, "waiting_ops", b->waiting_ops);
    if (b->waiting_ops > 0) {
        ps_jw_kstr(w, "first_op", ps_words_name(r, b->first_name, NULL));
        ps_jw_kint(w, "first_device", b->first_device);
        ps_jw_kint(w, "first_launch_ns", b->first_launch_ns - r->run_start_ns);
        ps_jw_kint(w, "first_start_ns", b->first_start_ns - r->run_start_ns);
    }
    ps_jw_map_close(w);
}
