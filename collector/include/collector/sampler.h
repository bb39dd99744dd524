/* The host sampler of `perfscope record`: finds the recorded process tree (the child and all its
 * descendants, via /proc) and reads per process CPU time, RSS, thread count and I/O bytes, and per
 * thread its state and CPU time (proc(5)). Called from the recorder's main thread at --sample-hz. */
#ifndef PS_SAMPLER_H
#define PS_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "collector/rows.h"

struct ps_sampler;

/* Sample the tree rooted at `root_pid`. Returns 0 and *out (free with ps_sampler_free) or -ENOMEM. */
int ps_sampler_new(uint32_t root_pid, struct ps_sampler **out);
void ps_sampler_free(struct ps_sampler *s);    /* NULL is a no-op */

/* Take one sample of every live process of the tree and each of its threads, all stamped with one
 * CLOCK_MONOTONIC time. The arrays belong to the sampler and stay valid until the next call.
 * Processes that vanish while being read are skipped. Returns 0 or -ENOMEM. */
int ps_sampler_tick(struct ps_sampler *s, const struct ps_proc_sample **ps, size_t *np,
                    const struct ps_thread_sample **ts, size_t *nt);

/* Parse the text of /proc/PID/stat or /proc/PID/task/TID/stat (exposed for tests). Fills comm (NUL-
 * terminated, truncated to 15 bytes), the state letter, ppid, utime/stime in clock ticks, num_threads and
 * rss in pages. Returns 0, or -EINVAL when the text is not a stat line. */
struct ps_stat {
    char comm[16];
    char state;
    uint32_t ppid;
    uint64_t utime_ticks, stime_ticks;
    int64_t num_threads, rss_pages;
};
int ps_sampler_parse_stat(const char *text, struct ps_stat *out);

/* enum ps_thread_state of a state letter from stat. */
int ps_sampler_state(char letter);

#endif
