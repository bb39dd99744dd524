/* The "Operator efficiency" section of a trace whose modeled ops launched no GPU work (a CPU run recorded with
 * --python-hooks=shapes): each op group's modeled FLOPs and bytes per call, and no time, rate or roofline, which
 * would need kernel time (op_eff_render.h; docs/op-perf-roofline.md "Recorded runs"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "svg_charts.h"
#include "op_eff_render.h"
#include "render_impl.h"

int ps_render_op_model_host_html(FILE *f, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    char gap[320], name[512];
    size_t n, *ix = ps_words_op_host_order(e, &n);
    if (!ix)
        return -ENOMEM;
    fputs("<section id=\"op-efficiency\" aria-labelledby=\"op-efficiency-h\">\n<h2 id=\"op-efficiency-h\">"
          "Operator efficiency</h2>\n<p>", f);
    ps_html_text(f, ps_words_op_eff_gap(gap, sizeof gap, r), 0);
    fputs("</p>\n", f);
    if (n)
        fputs("<table><caption>Modeled op groups by FLOPs per call (no kernel time recorded)</caption>\n<thead><tr>"
              "<th scope=\"col\">calls</th><th scope=\"col\">FLOPs per call</th><th scope=\"col\">bytes per call</th>"
              "<th scope=\"col\">FLOPs/byte</th><th scope=\"col\">op [parameters]</th></tr></thead>\n<tbody>\n", f);
    for (size_t k = 0; k < n; k++) {
        const struct ps_roof_row *w = &e->roof.rows[ix[k]];
        double fl, by;
        ps_words_op_per_call(w, &fl, &by);
        fprintf(f, "<tr><td>%lld</td><td>%.0f</td><td>%.0f</td><td>%.2f</td><td>", (long long)w->calls, fl, by,
                w->flops_per_byte);
        ps_html_text(f, ps_words_op_label(name, sizeof name, w), 0);
        fputs("</td></tr>\n", f);
    }
    if (n)
        fputs("</tbody></table>\n", f);
    fputs("</section>\n", f);
    free(ix);
    return ferror(f) ? -EIO : 0;
}
