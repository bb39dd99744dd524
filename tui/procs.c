/* The recorded process tree (see procs.h). Rates come from the difference of two samples of the same pid. */
#include "tui/procs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/sampler.h"

const char *const tui_sort_name[TUI_SORT_N] = { "cpu", "rss", "pid" };

struct prev {                       /* the last sample of one pid */
    uint32_t pid;
    int64_t time_ns, cpu_ns, read_bytes, write_bytes;
};

struct tui_procs {
    struct ps_sampler *sampler;
    uint32_t root;
    struct prev *prev, *cur;
    size_t nprev, cap;
    struct tui_proc *rows;
};

int tui_procs_new(uint32_t root_pid, struct tui_procs **out)
{
    struct tui_procs *p = calloc(1, sizeof *p);
    if (!p || ps_sampler_new(root_pid, &p->sampler)) {
        free(p);
        return -ENOMEM;
    }
    p->root = root_pid;
    *out = p;
    return 0;
}

void tui_procs_free(struct tui_procs *p)
{
    if (!p)
        return;
    ps_sampler_free(p->sampler);
    free(p->prev);
    free(p->cur);
    free(p->rows);
    free(p);
}

uint32_t tui_procs_root(const struct tui_procs *p)
{
    return p->root;
}

static enum tui_sort sort_key;

static int cmp_rows(const void *a, const void *b)
{
    const struct tui_proc *x = a, *y = b;
    double dx, dy;
    switch (sort_key) {
    case TUI_SORT_CPU: dx = x->cpu_pct; dy = y->cpu_pct; break;
    case TUI_SORT_RSS: dx = (double)x->rss_bytes; dy = (double)y->rss_bytes; break;
    default: return x->pid < y->pid ? -1 : x->pid > y->pid;
    }
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int in_set(const struct tui_proc *v, size_t n, uint32_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].pid == pid)
            return 1;
    return 0;
}

/* Append v[i] and its descendants (v sorted, so children come out in order) to out. */
static void emit(const struct tui_proc *v, size_t n, size_t i, int depth, unsigned char *done, struct tui_proc *out,
                 size_t *k)
{
    if (done[i] || depth > 64)
        return;
    done[i] = 1;
    size_t me = (*k)++;
    out[me] = v[i];
    out[me].depth = depth;
    out[me].children = 0;
    for (size_t c = 0; c < n; c++)
        if (!done[c] && v[c].ppid == v[i].pid && v[c].pid != v[i].pid) {
            out[me].children++;
            emit(v, n, c, depth + 1, done, out, k);
        }
}

int tui_procs_order(struct tui_proc *v, size_t n, enum tui_sort sort)
{
    if (n == 0)
        return 0;
    struct tui_proc *out = malloc(n * sizeof *out);
    unsigned char *done = calloc(n, 1);
    if (!out || !done) {
        free(out);
        free(done);
        return -ENOMEM;
    }
    sort_key = sort;
    qsort(v, n, sizeof *v, cmp_rows);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!in_set(v, n, v[i].ppid))
            emit(v, n, i, 0, done, out, &k);
    for (size_t i = 0; i < n; i++)      /* a cycle (pid reuse): whatever is left */
        emit(v, n, i, 0, done, out, &k);
    memcpy(v, out, n * sizeof *v);
    free(out);
    free(done);
    return 0;
}

static const struct prev *find_prev(const struct tui_procs *p, uint32_t pid)
{
    for (size_t i = 0; i < p->nprev; i++)
        if (p->prev[i].pid == pid)
            return &p->prev[i];
    return NULL;
}

long tui_procs_tick(struct tui_procs *p, enum tui_sort sort, const struct tui_proc **rows)
{
    const struct ps_proc_sample *ps;
    const struct ps_thread_sample *ts;
    size_t np, nt;
    if (ps_sampler_tick(p->sampler, &ps, &np, &ts, &nt))
        return -ENOMEM;
    if (np > p->cap) {
        struct prev *a = realloc(p->prev, np * sizeof *a), *b = a ? realloc(p->cur, np * sizeof *b) : NULL;
        struct tui_proc *r = b ? realloc(p->rows, np * sizeof *r) : NULL;
        if (a)
            p->prev = a;
        if (b)
            p->cur = b;
        if (r)
            p->rows = r;
        if (!a || !b || !r)
            return -ENOMEM;
        p->cap = np;
    }
    for (size_t i = 0; i < np; i++) {
        const struct ps_proc_sample *s = &ps[i];
        struct tui_proc *row = &p->rows[i];
        memset(row, 0, sizeof *row);
        row->pid = s->pid;
        row->ppid = s->ppid;
        memcpy(row->comm, s->comm, sizeof row->comm);
        row->comm[sizeof row->comm - 1] = '\0';
        row->rss_bytes = s->rss_bytes;
        row->threads = s->num_threads;
        int64_t cpu = s->cpu_user_ns + s->cpu_system_ns;
        const struct prev *old = find_prev(p, s->pid);
        double dt = old ? (double)(s->time_ns - old->time_ns) : 0;
        row->cpu_pct = old && dt > 0 ? 100.0 * (double)(cpu - old->cpu_ns) / dt : -1;
        row->read_bps = old && dt > 0 && s->read_bytes >= 0 && old->read_bytes >= 0
                            ? (double)(s->read_bytes - old->read_bytes) * 1e9 / dt : -1;
        row->write_bps = old && dt > 0 && s->write_bytes >= 0 && old->write_bytes >= 0
                             ? (double)(s->write_bytes - old->write_bytes) * 1e9 / dt : -1;
        p->cur[i] = (struct prev){ s->pid, s->time_ns, cpu, s->read_bytes, s->write_bytes };
        for (size_t t = 0; t < nt; t++)
            if (ts[t].pid == s->pid && ts[t].state >= 0 && ts[t].state < PS_THREAD_STATES)
                row->states[ts[t].state]++;
    }
    struct prev *swap = p->prev;
    p->prev = p->cur;
    p->cur = swap;
    p->nprev = np;
    if (tui_procs_order(p->rows, np, sort))
        return -ENOMEM;
    *rows = p->rows;
    return (long)np;
}
