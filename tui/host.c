/* Host metrics from /proc (see host.h). */
#include "tui/host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long tui_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t off = 0;
    while (off + 1 < len) {
        ssize_t n = read(fd, buf + off, len - 1 - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    buf[off] = '\0';
    return (long)off;
}

/* One "cpu..." line's numbers after the name. */
static void parse_cpu_line(const char *p, struct tui_cpu_times *t)
{
    unsigned long long f[8] = { 0 };   /* user nice system idle iowait irq softirq steal */
    char *end;
    for (int i = 0; i < 8; i++) {
        f[i] = strtoull(p, &end, 10);
        if (end == p)
            break;
        p = end;
    }
    t->busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
    t->total = t->busy + f[3] + f[4];
}

int tui_host_parse_stat(const char *text, struct tui_cpu_times *all, struct tui_cpu_times *cpus, int max, int *n)
{
    int found = 0;
    *n = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "cpu", 3) != 0)
            continue;
        if (line[3] == ' ') {
            parse_cpu_line(line + 3, all);
            found = 1;
        } else if (line[3] >= '0' && line[3] <= '9') {
            char *end;
            long i = strtol(line + 3, &end, 10);
            if (i >= 0 && i < max) {
                parse_cpu_line(end, &cpus[i]);
                if (i + 1 > *n)
                    *n = (int)i + 1;
            }
        }
    }
    return found ? 0 : -EINVAL;
}

int tui_host_parse_meminfo(const char *text, int64_t *total, int64_t *available, int64_t *swap_total,
                           int64_t *swap_free)
{
    static const char *const keys[] = { "MemTotal:", "MemAvailable:", "SwapTotal:", "SwapFree:" };
    int64_t *out[] = { total, available, swap_total, swap_free };
    for (int i = 0; i < 4; i++) {
        *out[i] = -1;
        const char *p = strstr(text, keys[i]);
        if (p && (p == text || p[-1] == '\n'))
            *out[i] = strtoll(p + strlen(keys[i]), NULL, 10) * 1024;
    }
    return *total >= 0 ? 0 : -EINVAL;
}

int tui_host_parse_loadavg(const char *text, double load[3])
{
    return sscanf(text, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3 ? 0 : -EINVAL;
}

double tui_host_busy_pct(const struct tui_cpu_times *before, const struct tui_cpu_times *after)
{
    if (after->total <= before->total || after->busy < before->busy)
        return 0;
    double pct = 100.0 * (double)(after->busy - before->busy) / (double)(after->total - before->total);
    return pct > 100 ? 100 : pct;
}

void tui_host_sample(struct tui_host *h)
{
    static char buf[1 << 17];       /* /proc/stat of a 1024-core host fits */
    struct tui_cpu_times all, cpus[TUI_MAX_CPUS];
    int n = 0;
    if (tui_read_file("/proc/stat", buf, sizeof buf) > 0 &&
        tui_host_parse_stat(buf, &all, cpus, TUI_MAX_CPUS, &n) == 0) {
        h->cpu_valid = h->have_prev && n == h->ncpu;
        if (h->cpu_valid) {
            h->total_pct = tui_host_busy_pct(&h->prev_all, &all);
            for (int i = 0; i < n; i++)
                h->cpu_pct[i] = tui_host_busy_pct(&h->prev[i], &cpus[i]);
        }
        h->ncpu = n;
        h->prev_all = all;
        memcpy(h->prev, cpus, (size_t)n * sizeof cpus[0]);
        h->have_prev = 1;
    }
    if (tui_read_file("/proc/meminfo", buf, sizeof buf) <= 0 ||
        tui_host_parse_meminfo(buf, &h->mem_total, &h->mem_available, &h->swap_total, &h->swap_free))
        h->mem_total = h->mem_available = h->swap_total = h->swap_free = -1;
    h->load_valid = tui_read_file("/proc/loadavg", buf, sizeof buf) > 0 && tui_host_parse_loadavg(buf, h->load) == 0;
}
