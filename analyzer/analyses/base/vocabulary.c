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
