/* The several-rank report's straggler by who waits for whom (analyses/ranks.h: struct ps_wait_straggler;
 * docs/distributed.md) in every format, one sentence said the same way, and which rule decided. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/json_writer.h"
#include "render_impl.h"
#include "svg_charts.h"

#define MS(ns) ((double)(ns) / 1e6)

/* The finding as one sentence (no newline) into buf: "rank 1: +144.8 ms Compute per step over the other ranks'
 * median (200.3 against 55.5 ms: ...); the other ranks wait 145.5 ms per step for it (rank 0 most, in
 * ddp:gradient_allreduce; blocked in collectives 150.0 ms per step, rank 1 itself 4.5 ms)". */
static void sentence(char *buf, size_t len, const struct ps_multirank *mr)
{
    const struct ps_wait_straggler *w = &mr->wait;
    const struct ps_rank_file *s = &mr->files[w->file], *o = &mr->files[w->waiter];
    char lab[32], olab[32];
    ps_render_rank_label(lab, sizeof lab, s);
    ps_render_rank_label(olab, sizeof olab, o);
    snprintf(buf, len, "rank %s: +%.1f ms %s per step over the other ranks' median (%.1f against %.1f ms%s); the other "
             "ranks wait %.1f ms per step for it (rank %s most, in %s; blocked in collectives %.1f ms per step, rank %s "
             "itself %.1f ms)",
             lab, MS(w->excess_ns), ps_render_ranks_cat_label(w->category, s->has_gpu),
             MS(w->excess_ns + w->median_category_ns), MS(w->median_category_ns),
             w->category == PS_CAT_KERNEL && !s->has_gpu ? ": host time outside data loading and collectives" : "",
             MS(w->waited_for_ns), olab, w->wait_in ? w->wait_in : "Communication", MS(w->others_wait_ns), lab,
             MS(w->own_wait_ns));
}

static const char RULE_WAIT[] = "who waits for whom: the rank blocked the least in collectives while the others "
                                "wait for it, its own work above the others' median";
static const char RULE_STEP[] = "step time: average step more than 5 % slower than the median rank's (no rank is "
                                "waited for in collectives)";

/* Which rule named the straggler: "wait", "step_time", or NULL when neither did. */
static const char *rule_key(const struct ps_multirank *mr)
{
    return mr->has_wait_straggler ? "wait" : mr->nstragglers ? "step_time" : NULL;
}

void ps_render_straggler_text(FILE *f, const struct ps_multirank *mr)
{
    char buf[640];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "Straggler rule: %s\n", RULE_STEP);
        return;
    }
    sentence(buf, sizeof buf, mr);
    fprintf(f, "\nStraggler (waited for): %s\nStraggler rule: %s\n", buf, RULE_WAIT);
}

void ps_render_straggler_md(FILE *f, const struct ps_multirank *mr)
{
    char buf[640];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "Straggler rule: %s.\n\n", RULE_STEP);
        return;
    }
    sentence(buf, sizeof buf, mr);
    fputs("- Straggler (waited for): ", f);
    ps_render_md_prose(f, buf);
    fprintf(f, "\n\nStraggler rule: %s.\n\n", RULE_WAIT);
}

void ps_render_straggler_json(struct ps_jw *w, const struct ps_multirank *mr)
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
    ps_jw_kstr(w, "category", ps_cat_key[g->category]);
    ps_jw_kint(w, "category_excess_ns", g->excess_ns);
    ps_jw_kint(w, "median_category_ns", g->median_category_ns);
    ps_jw_map_close(w);
}

void ps_render_straggler_html(FILE *f, const struct ps_multirank *mr)
{
    char buf[640];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "<p id=\"straggler-rule\">Straggler rule: %s.</p>\n", RULE_STEP);
        return;
    }
    sentence(buf, sizeof buf, mr);
    fputs("<section id=\"straggler-waited-for\" aria-labelledby=\"straggler-waited-for-h\">\n<h2 "
          "id=\"straggler-waited-for-h\">Straggler: the rank the others wait for</h2>\n<p>", f);
    ps_html_text(f, buf, 0);
    fprintf(f, "</p>\n<p id=\"straggler-rule\">Straggler rule: %s.</p>\n</section>\n", RULE_WAIT);
}
