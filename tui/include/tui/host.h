/* Host metrics for `perfscope top` from /proc (proc(5)), ncurses-free: CPU use per core and in total
 * (from /proc/stat deltas), memory and swap (/proc/meminfo), load averages (/proc/loadavg). The parsers take
 * the files' text so tests feed them known contents. */
#ifndef PS_TUI_HOST_H
#define PS_TUI_HOST_H

#include <stddef.h>
#include <stdint.h>

#define TUI_MAX_CPUS 1024

struct tui_cpu_times {
    uint64_t busy, total;           /* clock ticks since boot: busy = user+nice+system+irq+softirq+steal,
                                       total = busy + idle + iowait (guest time is already inside user) */
};

struct tui_host {
    int ncpu;                       /* cpuN lines in /proc/stat */
    int cpu_valid;                  /* percentages below need two samples */
    double cpu_pct[TUI_MAX_CPUS];   /* 0..100 per core over the last interval */
    double total_pct;               /* 0..100 of all cores */
    int64_t mem_total, mem_available, swap_total, swap_free;   /* bytes; -1 unknown */
    int load_valid;
    double load[3];                 /* 1, 5, 15 minute load averages */
    struct tui_cpu_times prev_all, prev[TUI_MAX_CPUS];
    int have_prev;
};

/* /proc/stat text: the "cpu" line into *all, "cpuN" lines into cpus[N] (N < max); *n = highest N + 1.
 * Returns 0, or -EINVAL when there is no "cpu" line. */
int tui_host_parse_stat(const char *text, struct tui_cpu_times *all, struct tui_cpu_times *cpus, int max, int *n);
/* /proc/meminfo text (kB values) into bytes; a missing field stays -1. Returns 0, -EINVAL when MemTotal is missing. */
int tui_host_parse_meminfo(const char *text, int64_t *total, int64_t *available, int64_t *swap_total,
                           int64_t *swap_free);
/* /proc/loadavg text. Returns 0 or -EINVAL. */
int tui_host_parse_loadavg(const char *text, double load[3]);
/* Percentage busy between two readings (0 when no tick passed). */
double tui_host_busy_pct(const struct tui_cpu_times *before, const struct tui_cpu_times *after);

/* Read the three files and update h (zero-initialise h before the first call). */
void tui_host_sample(struct tui_host *h);

/* Read a small file into buf (NUL-terminated). Returns bytes read or -errno. */
long tui_read_file(const char *path, char *buf, size_t len);

#endif
