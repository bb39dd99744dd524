/* `perfscope report`'s "Operator efficiency" section (docs/op-perf-roofline.md): on a PyTorch profiler trace, the
 * operator model of its ops (analyses/op_perf.h, read by read/reader.h ps_read_kineto_ops) against the GPU peaks
 * of the trace's device (analyses/gpu_peaks.h, --gpu-spec files first), added to the report. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "analyses/roofline.h"
#include "model/op_trace.h"
#include "read/reader.h"

int ps_report_add_op_efficiency(struct ps_report *rep, const char *path, const struct ps_gpu_specs *specs,
                                struct ps_op_perf *perf)
{
    *perf = (struct ps_op_perf){ 0 };
    if (!rep->trace.format || strcmp(rep->trace.format, "kineto"))
        return 0;   /* the operator model reads PyTorch profiler traces only */
    char err[512] = "";
    struct ps_op_trace *t = NULL;
    int rc = ps_read_kineto_ops(path, &t, err, sizeof err);
    if (rc == 0)
        rc = ps_op_perf_build(t, perf);
    ps_op_trace_free(t);
    if (rc == 0)
        rc = ps_report_op_efficiency(rep, perf, specs);
    if (rc < 0) {
        fprintf(stderr, "perfscope report: %s\n", err[0] ? err : rc == -ENOMEM ? "out of memory" : strerror(-rc));
        ps_op_perf_fini(perf);
        return 1;
    }
    return 0;
}
