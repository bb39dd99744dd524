/* "Where the step goes" in the Markdown report (md_sections.h; docs/report.md "Where the step goes"). */
#include "md/md_escape.h"
#include "md/md_sections.h"
#include "words/words.h"

void ps_render_causes_md(FILE *f, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    if (!cs->computed || cs->step_ns <= 0)
        return;
    char span[256];
    ps_words_causes_span(span, sizeof span, r);
    fprintf(f, "### Where the %s goes\n\n%s.\n\n| cause | ms | %% | where |\n|---|---:|---:|---|\n", r->whole_run ? "run" : "step", span);
    int order[PS_CAUSE_N];
    ps_words_causes_order(r, order);
    for (int i = 0; i < PS_CAUSE_N; i++) {
        enum ps_cause c = order[i];
        const struct ps_cause_stat *st = &cs->c[c];
        if (st->ns <= 0)
            continue;
        fprintf(f, "| %s | %.3f | %.1f | ", ps_words_cause_label(r, c), (double)st->ns / 1e6, 100.0 * st->share);
        if (st->ntop)
            ps_words_cause_evidence(f, r, c, ps_md_name);
        else
            fputs(ps_words_cause_meaning(r, c), f);
        if (st->nchain > 1 && ps_words_cause_host_side(c)) {
            fputs(" (in ", f);
            ps_words_cause_chain(f, r, c, ps_md_name);
            fputc(')', f);
        }
        char gain[192];
        if (ps_words_cause_gain(gain, sizeof gain, r, c))
            fprintf(f, "; %s", gain);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}
