/* The several-rank report's straggler by who waits for whom (analyses/ranks.h: struct ps_wait_straggler;
 * docs/distributed.md) in every format, one sentence said the same way, and which rule decided. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/json_writer.h"
#include "render_impl.h"
#include "svg_charts.h"

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
            fprintf(f, "Straggler rule: %s\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fprintf(f, "\nStraggler (waited for): %s\nStraggler rule: %s\n", buf, ps_words_straggler_rule_wait);
}

void ps_render_straggler_md(FILE *f, const struct ps_multirank *mr)
{
    char buf[640];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "Straggler rule: %s.\n\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fputs("- Straggler (waited for): ", f);
    ps_render_md_prose(f, buf);
    fprintf(f, "\n\nStraggler rule: %s.\n\n", ps_words_straggler_rule_wait);
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
            fprintf(f, "<p id=\"straggler-rule\">Straggler rule: %s.</p>\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fputs("<section id=\"straggler-waited-for\" aria-labelledby=\"straggler-waited-for-h\">\n<h2 "
          "id=\"straggler-waited-for-h\">Straggler: the rank the others wait for</h2>\n<p>", f);
    ps_html_text(f, buf, 0);
    fprintf(f, "</p>\n<p id=\"straggler-rule\">Straggler rule: %s.</p>\n</section>\n", ps_words_straggler_rule_wait);
}
