/* "Where the step goes" in the text report (text_sections.h; docs/report.md "Where the step goes"): each cause of
 * the average steady step with its time, share and evidence, largest first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

#define CAUSE_NAME_SHOWN 72   /* a longer name (a templated kernel's) keeps its head and tail, in the first screen */

static void text_name(FILE *f, const char *s)
{
    size_t n = strlen(s);
    if (n <= CAUSE_NAME_SHOWN) {
        ps_put_name(f, s, 0);
        return;
    }
    char cut[CAUSE_NAME_SHOWN + 4];
    size_t head = CAUSE_NAME_SHOWN / 2 - 2, tail = CAUSE_NAME_SHOWN - head - 3;
    while (tail < n && ((unsigned char)s[n - tail] & 0xC0) == 0x80)   /* never split a UTF-8 character */
        tail--;
    while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
        head--;
    snprintf(cut, sizeof cut, "%.*s...%s", (int)head, s, s + n - tail);
    ps_put_name(f, cut, 0);
}


void ps_render_causes_text(FILE *f, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    if (!cs->computed || cs->step_ns <= 0)
        return;
    int order[PS_CAUSE_N];
    ps_words_causes_order(r, order);
    char span[256];
    ps_words_causes_span(span, sizeof span, r);
    fprintf(f, "\nWhere the %s goes (%s):\n", r->whole_run ? "run" : "step", span);
    for (int i = 0; i < PS_CAUSE_N; i++) {
        enum ps_cause c = order[i];
        const struct ps_cause_stat *st = &cs->c[c];
        if (st->ns <= 0)
            continue;
        fprintf(f, "  %-26s %10.3f ms %6.1f %%  ", ps_words_cause_label(r, c), (double)st->ns / 1e6,
                100.0 * st->share);
        if (st->ntop)
            ps_words_cause_evidence(f, r, c, text_name);
        else
            fputs(ps_words_cause_meaning(r, c), f);
        fputc('\n', f);
        if (st->nchain > 1 && ps_words_cause_host_side(c)) {
            fputs("    in: ", f);
            ps_words_cause_chain(f, r, c, text_name);
            fputc('\n', f);
        }
        char gain[192];
        if (ps_words_cause_gain(gain, sizeof gain, r, c))
            fprintf(f, "    %s\n", gain);
    }
}
