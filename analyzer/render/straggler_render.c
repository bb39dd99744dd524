/* The several-rank report's straggler by who waits for whom (analyses/ranks.h: struct ps_wait_straggler;
 * docs/distributed.md) in every format, one sentence said the same way, and which rule decided. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render_impl.h"
#include "svg_charts.h"

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
