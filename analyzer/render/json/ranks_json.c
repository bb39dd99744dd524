/* `perfscope report --format json FILE FILE...` (docs/report.md "Several rank files"): each rank file's step
 * average and verdict, the stragglers by step time and by who waits for whom, the collectives, notes and the
 * mean overlap; and the same keys under "process_ranks" for ranks that are processes of one trace
 * (ps_report.process_ranks; docs/distributed.md "Ranks in one trace"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analyses/ranks.h"
#include "json/json_sections.h"
#include "render/render.h"

/* The file's rank, or null for a launcher trace (it holds several). */
static void rank_or_null(struct ps_jw *w, const struct ps_rank_file *r)
{
    ps_jw_kint_or_null(w, "rank", r->launcher_ranks >= 2 ? -1 : r->rank);
}

static void rank_json(struct ps_jw *w, const struct ps_rank_file *r)
{
    ps_jw_map_open(w);
    rank_or_null(w, r);
    ps_jw_kstr(w, "rank_from", r->launcher_ranks >= 2 ? NULL : ps_rank_source_name[r->rank_source]);
    ps_jw_kint_or_null(w, "launcher_ranks", r->launcher_ranks >= 2 ? (int64_t)r->launcher_ranks : -1);
    ps_jw_kstr(w, "source", r->path);
    ps_jw_kstr(w, "format", r->format);
    ps_jw_kint_or_null(w, "world_size", r->world_size > 0 ? r->world_size : -1);
    r->recording_complete < 0 ? ps_jw_knull(w, "recording_complete")
                              : ps_jw_kbool(w, "recording_complete", r->recording_complete);
    ps_jw_kbool(w, "whole_run", r->whole_run);
    ps_jw_kint(w, "gpu_ops", r->gpu_ops);
    ps_jw_kint(w, "steps", (int64_t)r->stat.nsteps);
    ps_jw_key(w, "step_average");
    ps_jw_map_open(w);
    ps_jw_kint(w, "dur_ns", r->stat.avg_dur_ns);
    ps_jw_key(w, "breakdown_ns");
    ps_jw_map_open(w);
    for (int c = 0; c < PS_CAT_N; c++)
        ps_jw_kint(w, ps_cat_key[c], r->stat.cat_ns[c]);
    ps_jw_map_close(w);
    ps_jw_kint(w, "sync_ns", r->stat.sync_ns);
    ps_jw_map_close(w);
    ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[r->stat.bottleneck]);
    ps_jw_kdouble(w, "share", r->stat.bottleneck == PS_BN_UNKNOWN ? NAN : r->stat.share);
    ps_jw_kdouble(w, "comm_comp_overlap", r->comm_comp_overlap);
    /* docs/distributed.md: what the straggler rule compares */
    ps_jw_kint(w, "own_work_ns", r->stat.avg_dur_ns - r->stat.cat_ns[PS_CAT_COMM]);
    ps_jw_kint(w, "comm_wait_ns", r->comm_wait_ns);
    ps_jw_map_close(w);
}

/* Which rule named the straggler: "wait", "step_time", or NULL when neither did. */
static const char *rule_key(const struct ps_multirank *mr)
{
    return mr->has_wait_straggler ? "wait" : mr->nstragglers ? "step_time" : NULL;
}

/* "straggler_rule" and "straggler_waited_for" (docs/distributed.md): the rank the others wait for, null when no rank
 * is. */
static void straggler(struct ps_jw *w, const struct ps_multirank *mr)
{
    ps_jw_kstr(w, "straggler_rule", rule_key(mr));
    ps_jw_key(w, "straggler_waited_for");
    if (!mr->has_wait_straggler) {
        ps_jw_null(w);
        return;
    }
    const struct ps_wait_straggler *g = &mr->wait;
    const struct ps_rank_file *s = &mr->files[g->file];
    ps_jw_map_open(w);
    ps_jw_kint(w, "rank", s->rank);
    ps_jw_kstr(w, "source", s->path);
    ps_jw_kint(w, "own_work_ns", g->own_ns);
    ps_jw_kint(w, "median_own_work_ns", g->median_own_ns);
    ps_jw_kint(w, "own_wait_ns", g->own_wait_ns);
    ps_jw_kint(w, "others_wait_ns", g->others_wait_ns);
    ps_jw_kint(w, "waited_for_ns", g->waited_for_ns);
    ps_jw_kint(w, "most_waiting_rank", mr->files[g->waiter].rank);
    ps_jw_kstr(w, "wait_in", g->wait_in);
    /* what in its step is longer: the verdict group, its own largest name in it (null: unknown) and the fix */
    ps_jw_kstr(w, "group", ps_bottleneck_name[g->group]);
    ps_jw_kint(w, "group_excess_ns", g->group_excess_ns);
    ps_jw_kint(w, "median_group_ns", g->median_group_ns);
    ps_jw_kstr(w, "group_top", g->group_name);
    ps_jw_kstr(w, "fix", g->fix);
    /* the same over the breakdown's categories (the rule before the groups; docs/distributed.md) */
    ps_jw_kstr(w, "category", ps_cat_key[g->category]);
    ps_jw_kint(w, "category_excess_ns", g->excess_ns);
    ps_jw_kint(w, "median_category_ns", g->median_category_ns);
    ps_jw_map_close(w);
}

/* The keys from "files" on into an open map: each rank file, the stragglers, the collectives with their
 * bandwidths (stored by the analysis), notes, and the mean overlap. */
static void ranks_body(struct ps_jw *w, const struct ps_multirank *mr)
{
    ps_jw_kint(w, "files", (int64_t)mr->nfiles);
    double overlap_sum = 0;
    size_t overlap_n = 0;
    ps_jw_key(w, "ranks");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mr->nfiles; i++) {
        rank_json(w, &mr->files[i]);
        if (!isnan(mr->files[i].comm_comp_overlap)) {
            overlap_sum += mr->files[i].comm_comp_overlap;
            overlap_n++;
        }
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "stragglers");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        ps_jw_map_open(w);
        rank_or_null(w, r);
        ps_jw_kstr(w, "source", r->path);
        ps_jw_kdouble(w, "slower_by", g->slower_by);
        ps_jw_kstr(w, "category", ps_cat_key[g->category]);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    straggler(w, mr);
    ps_jw_key(w, "collectives");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        for (size_t k = 0; k < r->ncollectives; k++) {
            const struct ps_collective_stat *c = &r->collectives[k];
            ps_jw_map_open(w);
            rank_or_null(w, r);
            ps_jw_kstr(w, "kernel", c->name);
            ps_jw_kint(w, "count", c->count);
            ps_jw_kint(w, "total_ns", c->total_ns);
            ps_jw_kint(w, "exposed_ns", c->exposed_ns);
            ps_jw_kint_or_null(w, "bytes", c->bytes);
            ps_jw_kbool(w, "host", c->host);
            ps_jw_kint(w, "wait_ns", c->wait_ns);
            ps_jw_kdouble(w, "algbw_gbps", c->algbw_gbps);
            ps_jw_kdouble(w, "busbw_gbps", c->busbw_gbps);
            ps_jw_map_close(w);
        }
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "notes");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mr->nnotes; i++)
        ps_jw_str(w, mr->notes[i]);
    ps_jw_array_close(w);
    /* mean over the ranks that ran communication kernels */
    ps_jw_kdouble(w, "comm_comp_overlap", overlap_n ? overlap_sum / (double)overlap_n : NAN);
}

int ps_render_ranks_json(FILE *f, const struct ps_multirank *mr, const struct ps_render_opts *o)
{
    (void)o;   /* JSON has one layout */
    struct ps_jw *w = ps_jw_new(f);
    if (!w)
        return -ENOMEM;
    ps_jw_map_open(w);
    ps_jw_kint(w, "perfscope_report_version", 1);
    ranks_body(w, mr);
    ps_jw_map_close(w);
    return ps_jw_free(w);
}

void ps_render_process_ranks_json(struct ps_jw *w, const struct ps_report *r)
{
    ps_jw_key(w, "process_ranks");
    if (!r->process_ranks) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ranks_body(w, r->process_ranks);
    ps_jw_map_close(w);
}
