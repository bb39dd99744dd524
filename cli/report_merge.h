/* `perfscope report run.*.report.json`: per-rank JSON reports (`report --format json` on each rank) merged into the
 * several-rank report without reading any trace (report_merge.c, docs/distributed.md). */
#ifndef PS_REPORT_MERGE_H
#define PS_REPORT_MERGE_H

#include <stddef.h>

#include "analyses/ranks.h"

/* 1 when `path` is a perfscope JSON report (its first key is "perfscope_report_version"), 0 when it is another
 * regular file (a trace), or -errno with one line in err when it cannot be read: it cannot be opened, or it is a
 * directory, FIFO or device (opened without waiting on a FIFO: common/ps_file.h). */
int ps_report_merge_kind(const char *path, char *err, size_t errlen);

/* Read the "rank_summary" of each of paths[0..n) and build the several-rank report into *mr (release with
 * ps_multirank_fini). 0; -EINVAL with "FILE: reason" in err (a file that cannot be read, is no perfscope report,
 * is of another report version, or whose rank summary is malformed or has a field outside the range a report writes
 * it in, named with its value; the same file twice; two files of one rank); -ENOMEM. */
int ps_report_merge(struct ps_multirank *mr, const char *const *paths, size_t n, char *err, size_t errlen);

#endif
