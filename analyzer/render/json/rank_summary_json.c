/* The JSON report's "rank_summary" (docs/distributed.md): this trace as one rank of a several-rank report, every
 * field of struct ps_rank_file (analyses/ranks.h), doubles written to read back exactly, so that
 * `perfscope report run.*.report.json` merges per-rank reports into the report the traces themselves give. */
#include "analyses/ranks.h"
#include "json/json_sections.h"

void ps_render_rank_summary_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_rank_file *f = r->rank_summary;
    ps_jw_key(w, "rank_summary");
    if (!f) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ps_jw_kint(w, "version", 1);
    ps_jw_kstr(w, "trace", f->path);
    ps_jw_kstr(w, "format", f->format);
    ps_jw_kint(w, "rank", f->rank);   /* -1: none found (rank_from "order") or a launcher trace */
    ps_jw_kstr(w, "rank_from", ps_rank_source_name[f->rank_source]);
    ps_jw_kint(w, "world_size", f->world_size);
    ps_jw_kint(w, "launcher_ranks", (int64_t)f->launcher_ranks);
    ps_jw_kbool(w, "whole_run", f->whole_run);
    ps_jw_kbool(w, "steps_inferred", f->steps_inferred);
    ps_jw_kint(w, "gpu_ops", f->gpu_ops);
    ps_jw_kbool(w, "has_gpu", f->has_gpu);
    ps_jw_kint(w, "steps", (int64_t)f->stat.nsteps);
    ps_jw_kint(w, "step_dur_ns", f->stat.avg_dur_ns);
    ps_jw_key(w, "breakdown_ns");
    ps_jw_map_open(w);
    for (int c = 0; c < PS_CAT_N; c++)
        ps_jw_kint(w, ps_cat_key[c], f->stat.cat_ns[c]);
    ps_jw_map_close(w);
    ps_jw_kint(w, "sync_ns", f->stat.sync_ns);
    ps_jw_kint(w, "pretrace_ns", f->stat.pretrace_ns);
    ps_jw_key(w, "group_ns");   /* the verdict's groups as the rank's report weighed them (where the step goes) */
    ps_jw_map_open(w);
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        ps_jw_kint(w, ps_bottleneck_name[g], f->stat.group_ns[g]);
    ps_jw_map_close(w);
    ps_jw_kint(w, "seen_ns", f->stat.seen_ns);
    ps_jw_key(w, "group_top");  /* per group, its largest name (null: none): what names a straggler's excess */
    ps_jw_map_open(w);
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        ps_jw_kstr(w, ps_bottleneck_name[g], f->group_top[g]);
    ps_jw_map_close(w);
    ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[f->stat.bottleneck]);
    ps_jw_kdouble_exact(w, "share", f->stat.share);
    ps_jw_kdouble_exact(w, "comm_comp_overlap", f->comm_comp_overlap);
    ps_jw_kint(w, "recording_complete", f->recording_complete);
    ps_jw_kint(w, "comm_wait_ns", f->comm_wait_ns);
    ps_jw_kstr(w, "host", f->host);             /* null: unknown */
    ps_jw_kstr(w, "command", f->command);
    ps_jw_kint(w, "local_rank", f->local_rank); /* -1: unknown */
    ps_jw_kint_or_null(w, "start_epoch_ns", f->start_epoch_ns);
    ps_jw_kint_or_null(w, "end_epoch_ns", f->end_epoch_ns);
    ps_jw_key(w, "collectives");
    ps_jw_array_open(w);
    for (size_t k = 0; k < f->ncollectives; k++) {
        const struct ps_collective_stat *c = &f->collectives[k];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "name", c->name);
        ps_jw_kbool(w, "host", c->host);
        ps_jw_kint(w, "count", c->count);
        ps_jw_kint(w, "total_ns", c->total_ns);
        ps_jw_kint(w, "exposed_ns", c->exposed_ns);
        ps_jw_kint_or_null(w, "bytes", c->bytes);
        ps_jw_kint(w, "wait_ns", c->wait_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}
