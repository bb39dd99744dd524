/* Several ranks as processes of one trace (analyses/report.h: ps_report.process_ranks; docs/distributed.md "Ranks
 * in one trace") in the single-trace report: the several-rank report's tables, straggler and collective table,
 * worded as for one trace per rank, each rank's file named "pid N". */
#include <stdio.h>

#include "analyses/ranks.h"
#include "render_impl.h"

#define TITLE "Ranks in this trace, each a process"

void ps_render_process_ranks_html(FILE *f, const struct ps_report *r)
{
    if (r->process_ranks)
        ps_render_ranks_html_sections(f, r->process_ranks);
}

