/* "Where the step goes" on the HTML page (html_sections.h; docs/report.md "Where the step goes"). */
#include "html/html_escape.h"
#include "html/html_sections.h"
#include "words/words.h"

void ps_render_causes_html(FILE *f, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    if (!cs->computed || cs->step_ns <= 0)
        return;
    char span[256];
    ps_words_causes_span(span, sizeof span, r);
    fputs("<section id=\"causes\" aria-labelledby=\"causes-h\">\n<h2 id=\"causes-h\">Where the step goes</h2>\n"
          "<table>\n<caption>", f);
    ps_html_text(f, span, 0);
    fputs("</caption>\n<tr><th>cause</th><th>ms</th><th>%</th><th>where</th></tr>\n", f);
    int order[PS_CAUSE_N];
    ps_words_causes_order(r, order);
    for (int i = 0; i < PS_CAUSE_N; i++) {
        enum ps_cause c = order[i];
        const struct ps_cause_stat *st = &cs->c[c];
        if (st->ns <= 0)
            continue;
        fputs("<tr><td>", f);
        ps_html_text(f, ps_words_cause_label(r, c), 0);
        fprintf(f, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.1f</td><td class=\"name\">",
                (double)st->ns / 1e6, 100.0 * st->share);
        if (st->ntop)
            ps_words_cause_evidence(f, r, c, ps_html_name);
        else
            ps_html_text(f, ps_words_cause_meaning(r, c), 0);
        if (st->nchain > 1 && ps_words_cause_host_side(c)) {
            fputs("<br>in ", f);
            ps_words_cause_chain(f, r, c, ps_html_name);
        }
        char gain[192];
        if (ps_words_cause_gain(gain, sizeof gain, r, c)) {
            fputs("<br>", f);
            ps_html_text(f, gain, 0);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}
