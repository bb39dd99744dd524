/* Several ranks as processes of one trace (analyses/report.h: ps_report.process_ranks; docs/distributed.md "Ranks
 * in one trace") in the single-trace report: the several-rank report's tables, straggler and collective table,
 * worded as for one trace per rank, each rank's file named "pid N". */
#include <stdio.h>

#include "analyses/ranks.h"
#include "render_impl.h"

#define TITLE "Ranks in this trace, each a process"

int ps_render_process_ranks_text(FILE *f, const struct ps_report *r)
{
    if (!r->process_ranks)
        return 0;
    ps_render_ranks_text_body(f, r->process_ranks, TITLE);
    return 1;
}

int ps_render_process_ranks_md(FILE *f, const struct ps_report *r)
{
    if (!r->process_ranks)
        return 0;
    ps_render_ranks_md_body(f, r->process_ranks, TITLE);
    fputc('\n', f);
    return 1;
}

void ps_render_process_ranks_html(FILE *f, const struct ps_report *r)
{
    if (r->process_ranks)
        ps_render_ranks_html_sections(f, r->process_ranks);
}

