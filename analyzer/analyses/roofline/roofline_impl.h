/* Private to analyzer/analyses/roofline/: the findings of the "Operator efficiency" section
 * (op_efficiency_findings.c).
 *
 * The family's files, lowest layer first; a file calls functions of the files above it only (and of the op_perf
 * family, which comes before roofline):
 *   gpu_peaks.c               the built-in peak table, a device's match      calls no other file
 *   gpu_spec_file.c           --gpu-spec files                               gpu_peaks
 *   roofline.c                rooflines per op group, MFU per step           gpu_peaks
 *   op_efficiency_findings.c  the section's findings, ps_op_params_short     roofline
 *   op_efficiency.c           the section: ps_op_efficiency_compute          op_efficiency_findings, roofline,
 *                                                                            gpu_peaks
 *   op_efficiency_steps.c     per-step MFU: ps_op_efficiency_steps_compute   gpu_peaks, op_perf */
#ifndef PS_ROOFLINE_IMPL_H
#define PS_ROOFLINE_IMPL_H

#include "analyses/report.h"

/* Add to r the findings sized by r->opeff's recoverable time, re-sort the findings by cost, name the ops with the
 * most recoverable time in a kernel-bound verdict's fix and add the new warnings' fixes while there is room
 * (PS_MAX_FINDINGS, PS_MAX_RECS: what does not fit is left out). Cannot fail. */
void ps_op_efficiency_findings(struct ps_report *r);

#endif
