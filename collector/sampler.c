/* The host sampler (see sampler.h). The tree comes from /proc/PID/task/TID/children (one small read per
 * thread), or, on kernels without it, from the ppid of every process in /proc. CPU times are the kernel's
 * utime/stime, in clock ticks (sysconf(_SC_CLK_TCK), usually 10 ms) converted to ns. */
#include "collector/sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include "ps_schema.h"
#include "ps_time.h"

struct ps_sampler {
    uint32_t root;
    int use_children;           /* /proc/PID/task/TID/children exists */
    int64_t ns_per_tick, page_bytes;
    uint32_t *pids;
    size_t n_pids, cap_pids;
    struct ps_proc_sample *ps;
    size_t n_ps, cap_ps;
    struct ps_thread_sample *ts;
    size_t n_ts, cap_ts;
};

/* Read a small /proc file into buf (NUL-terminated). Returns bytes read or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int err = errno;
    close(fd);
    if (n < 0)
        return -err;
    buf[n] = '\0';
    return n;
}

/* Read and parse one /proc/PID/stat or /proc/PID/task/TID/stat. Returns 0, or -ENOENT when the file is gone
 * or does not parse (the task exited between listing and reading). */
static int read_stat(const char *path, struct ps_stat *st)
{
    char buf[1024];
    if (read_file(path, buf, sizeof buf) <= 0 || ps_sampler_parse_stat(buf, st))
        return -ENOENT;
    return 0;
}

/* Append a zeroed element to a sample array (*n in use; the arrays are reused from tick to tick).
 * NULL: out of memory. */
static void *append_sample(void **arr, size_t *cap, size_t *n, size_t elem)
{
    if (ps_array_grow(arr, cap, *n, elem))
        return NULL;
    void *slot = (char *)*arr + *n * elem;
    (*n)++;
    memset(slot, 0, elem);
    return slot;
}

int ps_sampler_parse_stat(const char *text, struct ps_stat *out)
{
    const char *open = strchr(text, '(');
    const char *close = strrchr(text, ')');   /* comm may itself contain ')' */
    if (!open || !close || close < open || close[1] != ' ' || !close[2])
        return -EINVAL;
    memset(out, 0, sizeof *out);
    size_t clen = (size_t)(close - open - 1);
    if (clen > sizeof out->comm - 1)
        clen = sizeof out->comm - 1;
    memcpy(out->comm, open + 1, clen);
    out->state = close[2];
    /* Fields from 4 (ppid) on, 1-based as in proc(5). */
    unsigned long long f[25] = { 0 };
    const char *p = close + 3;
    for (int i = 4; i <= 24 && *p; i++) {
        char *end;
        while (*p == ' ')
            p++;
        f[i] = strtoull(p, &end, 10);
        if (end == p && *p != '-')
            return -EINVAL;
        if (*end == '\0' && i < 24)
            return -EINVAL;
        p = end;
    }
    out->ppid = (uint32_t)f[4];
    out->utime_ticks = f[14];
    out->stime_ticks = f[15];
    out->num_threads = (int64_t)f[20];
    out->rss_pages = (int64_t)f[24];
    return 0;
}

int ps_sampler_state(char letter)
{
    switch (letter) {
    case 'R': return PS_THREAD_RUNNING;
    case 'S': return PS_THREAD_SLEEPING;
    case 'D': return PS_THREAD_BLOCKED_IO;
    case 'T': case 't': return PS_THREAD_STOPPED;
    case 'Z': case 'X': return PS_THREAD_ZOMBIE;
    case 'I': return PS_THREAD_IDLE;
    default: return PS_THREAD_OTHER;
    }
}

int ps_sampler_new(uint32_t root_pid, struct ps_sampler **out)
{
    struct ps_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->root = root_pid;
    long hz = sysconf(_SC_CLK_TCK);
    s->ns_per_tick = 1000000000 / (hz > 0 ? hz : 100);
    long page = sysconf(_SC_PAGESIZE);
    s->page_bytes = page > 0 ? page : 4096;
    s->use_children = access("/proc/self/task/self/children", R_OK) == 0 ||
                      access("/proc/thread-self/children", R_OK) == 0;
    *out = s;
    return 0;
}

void ps_sampler_free(struct ps_sampler *s)
{
    if (!s)
        return;
    free(s->pids);
    free(s->ps);
    free(s->ts);
    free(s);
}

static int add_pid(struct ps_sampler *s, uint32_t pid)
{
    for (size_t i = 0; i < s->n_pids; i++)
        if (s->pids[i] == pid)
            return 0;
    if (ps_array_grow((void **)&s->pids, &s->cap_pids, s->n_pids, sizeof *s->pids))
        return -ENOMEM;
    s->pids[s->n_pids++] = pid;
    return 0;
}

/* Children of every thread of pid (a child's parent is the thread that forked it). */
static int children_of(struct ps_sampler *s, uint32_t pid)
{
    char path[320], buf[4096];
    snprintf(path, sizeof path, "/proc/%u/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *de;
    int rc = 0;
    while (!rc && (de = readdir(d))) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%u/task/%s/children", pid, de->d_name);
        if (read_file(path, buf, sizeof buf) <= 0)
            continue;
        for (char *p = buf, *end; *p && !rc; p = end) {
            unsigned long c = strtoul(p, &end, 10);
            if (end == p)
                break;
            rc = add_pid(s, (uint32_t)c);
        }
    }
    closedir(d);
    return rc;
}

/* Fallback: every process whose ppid chain reaches the root (repeated passes until nothing is added). */
static int tree_by_scan(struct ps_sampler *s)
{
    int added = 1, rc = 0;
    while (added && !rc) {
        added = 0;
        DIR *d = opendir("/proc");
        if (!d)
            return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!isdigit((unsigned char)de->d_name[0]))
                continue;
            char path[320];
            struct ps_stat st;
            snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
            if (read_stat(path, &st))
                continue;
            uint32_t pid = (uint32_t)strtoul(de->d_name, NULL, 10);
            size_t before = s->n_pids;
            for (size_t i = 0; i < before; i++)
                if (s->pids[i] == st.ppid) {
                    if ((rc = add_pid(s, pid)))
                        break;
                    added |= s->n_pids != before;
                    break;
                }
        }
        closedir(d);
    }
    return rc;
}

static void read_io(uint32_t pid, struct ps_proc_sample *p)
{
    char path[320], buf[1024];
    p->read_bytes = p->write_bytes = p->rchar_bytes = p->wchar_bytes = -1;
    snprintf(path, sizeof path, "/proc/%u/io", pid);
    if (read_file(path, buf, sizeof buf) <= 0)
        return;
    for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        long long v;
        if (sscanf(line, "rchar: %lld", &v) == 1)
            p->rchar_bytes = v;
        else if (sscanf(line, "wchar: %lld", &v) == 1)
            p->wchar_bytes = v;
        else if (sscanf(line, "read_bytes: %lld", &v) == 1)
            p->read_bytes = v;
        else if (sscanf(line, "write_bytes: %lld", &v) == 1)
            p->write_bytes = v;
    }
}

static int sample_threads(struct ps_sampler *s, uint32_t pid, int64_t now)
{
    char path[320];
    snprintf(path, sizeof path, "/proc/%u/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        struct ps_stat st;
        snprintf(path, sizeof path, "/proc/%u/task/%s/stat", pid, de->d_name);
        if (read_stat(path, &st))
            continue;
        struct ps_thread_sample *t = append_sample((void **)&s->ts, &s->cap_ts, &s->n_ts, sizeof *s->ts);
        if (!t) {
            rc = -ENOMEM;
            break;
        }
        t->time_ns = now;
        t->pid = pid;
        t->tid = (uint32_t)strtoul(de->d_name, NULL, 10);
        t->state = ps_sampler_state(st.state);
        t->cpu_user_ns = (int64_t)st.utime_ticks * s->ns_per_tick;
        t->cpu_system_ns = (int64_t)st.stime_ticks * s->ns_per_tick;
        memcpy(t->comm, st.comm, sizeof t->comm);
    }
    closedir(d);
    return rc;
}

int ps_sampler_tick(struct ps_sampler *s, const struct ps_proc_sample **ps, size_t *np,
                    const struct ps_thread_sample **ts, size_t *nt)
{
    int64_t now = ps_monotonic_ns();
    int rc = 0;
    s->n_pids = s->n_ps = s->n_ts = 0;
    if ((rc = add_pid(s, s->root)))
        return rc;
    if (s->use_children) {
        for (size_t i = 0; i < s->n_pids && !rc; i++)   /* n_pids grows while we walk: breadth first */
            rc = children_of(s, s->pids[i]);
    } else {
        rc = tree_by_scan(s);
    }
    for (size_t i = 0; i < s->n_pids && !rc; i++) {
        char path[320];
        struct ps_stat st;
        uint32_t pid = s->pids[i];
        snprintf(path, sizeof path, "/proc/%u/stat", pid);
        if (read_stat(path, &st))
            continue;
        struct ps_proc_sample *p = append_sample((void **)&s->ps, &s->cap_ps, &s->n_ps, sizeof *s->ps);
        if (!p) {
            rc = -ENOMEM;
            break;
        }
        p->time_ns = now;
        p->pid = pid;
        p->ppid = st.ppid;
        p->cpu_user_ns = (int64_t)st.utime_ticks * s->ns_per_tick;
        p->cpu_system_ns = (int64_t)st.stime_ticks * s->ns_per_tick;
        p->rss_bytes = st.rss_pages * s->page_bytes;
        p->num_threads = st.num_threads;
        memcpy(p->comm, st.comm, sizeof p->comm);
        read_io(pid, p);
        rc = sample_threads(s, pid, now);
    }
    *ps = s->ps;
    *np = s->n_ps;
    *ts = s->ts;
    *nt = s->n_ts;
    return rc;
}
