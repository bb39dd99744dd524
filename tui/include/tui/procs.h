/* The recorded process tree for `perfscope top`: per process CPU %, RSS, I/O rates and thread states, from the
 * collector's /proc sampler (collector/sampler.h), ordered as a tree so DataLoader workers (child processes)
 * sit under their trainer. ncurses-free; tui_procs_order is unit-tested. */
#ifndef PS_TUI_PROCS_H
#define PS_TUI_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_schema.h"

enum tui_sort { TUI_SORT_CPU, TUI_SORT_RSS, TUI_SORT_PID, TUI_SORT_N };
extern const char *const tui_sort_name[TUI_SORT_N];     /* "cpu", "rss", "pid" */


struct tui_proc {
    uint32_t pid, ppid;
    char comm[16];
    int depth;                      /* 0 for the root of the tree, 1 for its children, ... */
    int children;                   /* direct child processes (DataLoader workers of a trainer) */
    double cpu_pct;                 /* 100 = one core over the last interval; < 0: N/A (first sample) */
    int64_t rss_bytes;              /* -1 N/A */
    double read_bps, write_bps;     /* storage I/O, bytes/s over the last interval; < 0: N/A */
    int64_t threads;
    int states[PS_THREAD_STATES];   /* threads in each state, by enum ps_thread_state (common/ps_schema.h) */
};

struct tui_procs;

/* Follow the tree rooted at `root_pid`. 0 and *out, or -ENOMEM. */
int tui_procs_new(uint32_t root_pid, struct tui_procs **out);
void tui_procs_free(struct tui_procs *p);       /* NULL is a no-op */
/* Take a sample; the rows (tree order, siblings sorted by `sort`) stay valid until the next call.
 * Returns the number of processes (0 when the tree is gone), or -ENOMEM. */
long tui_procs_tick(struct tui_procs *p, enum tui_sort sort, const struct tui_proc **rows);
uint32_t tui_procs_root(const struct tui_procs *p);

/* Reorder v[0..n) into tree order (each process followed by its descendants, depth-first; siblings by `sort`,
 * descending for cpu and rss, ascending for pid), setting depth and children. Processes whose parent is not in
 * v start trees of their own, ordered the same way. 0 or -ENOMEM. */
int tui_procs_order(struct tui_proc *v, size_t n, enum tui_sort sort);

#endif
