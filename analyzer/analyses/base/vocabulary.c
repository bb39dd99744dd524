/* The report's vocabulary (analyses/base.h): the options' defaults and the names of the step-time categories and
 * of the verdict's causes, as every format prints them (docs/report.md). */
#include "analyses/base.h"

void ps_report_opts_default(struct ps_report_opts *o)
{
    *o = (struct ps_report_opts){ .top_n = 10, .kernel_threshold = 0.8, .gap_ns = 1000000, .tiny_kernel_ns = 10000,
                                  .info_share = 0.02, .low_util = 0.5, .launch_bound_share = 0.5, .link_gbps = 25,
                                  .slow_copy_share = 0.25, .low_occupancy_pct = 25 };
}

const char *const ps_cat_key[PS_CAT_N] = { "kernel", "memcpy", "memset", "communication",
                                           "runtime", "dataloader", "cpu_exec", "other" };
const char *const ps_cat_label[PS_CAT_N] = { "Kernel", "Memcpy", "Memset", "Communication",
                                             "Runtime", "DataLoader", "CPU Exec", "Other" };

const char *const ps_bottleneck_name[] = { "kernel", "data-loading", "memcpy", "communication", "sync", "host", "waiting",
                                                   "unknown" };

const char *const ps_cause_key[PS_CAUSE_N] = { "kernel", "copy", "communication", "pretrace", "stream_wait", "sync",
                                               "data", "waiting", "launch", "host", "unexplained" };
const char *const ps_cause_label[PS_CAUSE_N] = { "GPU kernels", "GPU copies", "GPU communication",
                                                 "work before the trace", "waiting on a stream", "sync",
                                                 "data loading", "waiting (sleep, lock, I/O)", "launch overhead",
                                                 "host compute", "unexplained" };

enum ps_bottleneck ps_cause_group(enum ps_cause c, int host_only)
{
    switch (c) {
    case PS_CAUSE_KERNEL: return PS_BN_KERNEL;
    case PS_CAUSE_COPY: return PS_BN_MEMCPY;
    case PS_CAUSE_COMM: case PS_CAUSE_STREAM_WAIT: return PS_BN_COMM;
    case PS_CAUSE_SYNC: return PS_BN_SYNC;
    case PS_CAUSE_DATA: return PS_BN_DATA;
    case PS_CAUSE_WAITING: return PS_BN_WAITING;
    case PS_CAUSE_LAUNCH: case PS_CAUSE_HOST: case PS_CAUSE_UNEXPLAINED: return host_only ? PS_BN_KERNEL : PS_BN_HOST;
    default: return PS_BN_UNKNOWN;   /* the work before the trace: in no group */
    }
}
