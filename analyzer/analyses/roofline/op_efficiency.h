/* Private to analyzer/analyses/: the findings of the "Operator efficiency" section (op_efficiency_findings.c). */
#ifndef PS_OP_EFFICIENCY_H
#define PS_OP_EFFICIENCY_H

#include "analyses/report.h"

/* Add to r the findings sized by r->opeff's recoverable time, re-sort the findings by cost, name the ops with the
 * most recoverable time in a kernel-bound verdict's fix and add the new warnings' fixes while there is room
 * (PS_MAX_FINDINGS, PS_MAX_RECS: what does not fit is left out). Cannot fail. */
void ps_op_efficiency_findings(struct ps_report *r);

#endif
