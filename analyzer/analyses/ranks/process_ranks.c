/* Several ranks as processes of one trace (`perfscope record -o run.sqlite -- python train.py` where the program
 * starts its ranks with torch.multiprocessing.spawn, or `perfscope record -- torchrun ...`): each process's rank,
 * and the several-rank analysis over them (docs/distributed.md "Ranks in one trace").
 *
 * A process's rank is the Python hook's `distributed` mark in it (docs/python.md: rank and world size of its default
 * process group, once init_process_group returns), else the rank its environment gave it (PERFSCOPE_PROCESS_INFO:
 * RANK, OMPI_COMM_WORLD_RANK, ...). The mark comes first: processes started by torch.multiprocessing.spawn get their
 * rank as an argument, not in their environment, and a DataLoader worker inherits its rank's environment but makes
 * no process group.
 *
 * With two ranks or more, each rank's process is analysed on its own view of the trace exactly as its own trace
 * would be (ps_report_build_view: steps, breakdown, collectives, time blocked in them), reduced to a struct
 * ps_rank_file, and the ranks go through the several-file report's cross-rank analysis (ps_multirank_from_files:
 * the straggler by who waits for whom, the step-time rule, the collective table). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_diag.h"

struct pid_index {
    uint32_t pid;
    uint32_t index;             /* into m->procs */
};

static int cmp_pid_index(const void *a, const void *b)
{
    const struct pid_index *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The index in m->procs of process `pid` through by_pid[0..n) (sorted by pid); n_procs when it is not there. */
static size_t process_index(const struct pid_index *by_pid, size_t n, uint32_t pid)
{
    struct pid_index key = { pid, 0 };
    const struct pid_index *hit = bsearch(&key, by_pid, n, sizeof *by_pid, cmp_pid_index);
    return hit ? hit->index : n;
}

/* r->proc_rank / proc_world / proc_marked from the processes' environment ranks and the hook's `distributed`
 * marks among r->all's ranges. 0 or -ENOMEM. */
static int find_ranks(struct ps_report *r, const struct pid_index *by_pid)
{
    const struct ps_model *m = r->m;
    size_t n = m->procs.n;
    r->proc_rank = malloc((n + 1) * sizeof *r->proc_rank);
    r->proc_world = malloc((n + 1) * sizeof *r->proc_world);
    r->proc_marked = calloc(n + 1, sizeof *r->proc_marked);
    if (!r->proc_rank || !r->proc_world || !r->proc_marked)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        r->proc_rank[i] = m->procs.v[i].rank;
        r->proc_world[i] = -1;
    }
    uint32_t dom = PS_NONE;
    struct ps_hook_mark mk;
    for (size_t i = 0; i < r->all->nranges; i++) {
        const struct ps_range *g = ps_view_range(r->all, i);
        if (g->thread == PS_NONE || ps_hook_mark_of(m, g, &dom, &mk) < 0 || mk.kind != PS_HOOK_MARK_DISTRIBUTED)
            continue;
        size_t k = process_index(by_pid, n, m->threads.v[g->thread].pid);
        int64_t rank;   /* 0 .. INT32_MAX - 1, as PERFSCOPE_PROCESS_INFO's rank (read/read_sqlite_meta.c) */
        if (k == n || ps_hook_mark_int(&mk, "rank", 0, INT32_MAX - 1, &rank) < 0)
            continue;
        r->proc_rank[k] = (int32_t)rank;
        r->proc_world[k] = (int32_t)ps_hook_mark_int_or(&mk, "world_size", 0, INT32_MAX, -1);
        r->proc_marked[k] = 1;
    }
    return 0;
}

/* A process with a rank, and what decides which of a rank's processes stands for it. */
struct ranked {
    int32_t rank;
    int marked;                 /* the hook's mark over the environment: a DataLoader worker inherits its rank's
                                 * environment, not its mark */
    int top;                    /* its parent does not hold the rank: the top of the rank's process tree */
    uint32_t pid;               /* then the lowest pid */
    size_t index;               /* into m->procs */
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    if (x->marked != y->marked)
        return y->marked - x->marked;
    if (x->top != y->top)
        return y->top - x->top;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_ranked_pid(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The process standing for each rank, by pid, into *out (caller frees) and *nout. 0 or -ENOMEM. */
static int rank_processes(const struct ps_report *r, const struct pid_index *by_pid, struct ranked **out,
                          size_t *nout)
{
    const struct ps_model *m = r->m;
    size_t n = 0;
    struct ranked *v = malloc((m->procs.n + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < m->procs.n; k++) {
        if (r->proc_rank[k] < 0)
            continue;
        size_t parent = process_index(by_pid, m->procs.n, m->procs.v[k].ppid);
        v[n++] = (struct ranked){ .rank = r->proc_rank[k], .marked = r->proc_marked[k],
                                  .top = parent == m->procs.n || r->proc_rank[parent] != r->proc_rank[k],
                                  .pid = m->procs.v[k].pid, .index = k };
    }
    qsort(v, n, sizeof *v, cmp_ranked);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[u - 1].rank != v[i].rank)
            v[u++] = v[i];
    qsort(v, u, sizeof *v, cmp_ranked_pid);   /* ps_view_set_by_process takes ascending pids */
    *out = v;
    *nout = u;
    return 0;
}

/* One rank's process as a rank file: its own report over its view of r->all, reduced to the rank summary, which
 * *f takes over. 0, or a negative errno with a message in err. */
static int rank_file(const struct ps_report *r, const struct ranked *p, const struct ps_view *v,
                     struct ps_rank_file *f, char *err, size_t errlen)
{
    struct ps_report sub;
    int rc = ps_report_build_view(&sub, v, &r->opts, err, errlen);
    if (rc < 0)
        return rc;
    *f = *sub.rank_summary;   /* taken over: the sub-report keeps an empty one */
    memset(sub.rank_summary, 0, sizeof *sub.rank_summary);
    ps_report_fini(&sub);
    int32_t rank, world;
    ps_report_rank(r, &rank, &world);
    f->rank = p->rank;
    f->stat.pid = p->pid;
    f->rank_source = PS_RANK_FROM_PROCESSES;
    f->world_size = r->proc_world[p->index] > 0 ? r->proc_world[p->index] : world;
    f->launcher_ranks = 0;
    if (asprintf(&f->owned_path, "pid %u", p->pid) < 0) {
        f->owned_path = NULL;
        return -ENOMEM;
    }
    f->path = f->owned_path;
    return 0;
}

/* The several-rank analysis over the rank processes of r->all (r->process_ranks): each rank's process analysed on
 * its own view (one pass makes them all), then across the ranks. A rank that cannot be analysed (a message in
 * ps_diag) leaves the report without it. 0 or -ENOMEM. */
static int split_ranks(struct ps_report *r, const struct pid_index *by_pid)
{
    struct ranked *procs = NULL;
    size_t n = 0, got = 0;
    struct ps_view_set views = { 0 };
    struct ps_rank_file *files = NULL;
    uint32_t *pids = NULL;
    char err[512] = "";
    int rc = rank_processes(r, by_pid, &procs, &n);
    if (rc < 0)
        return rc;
    rc = -ENOMEM;
    if (!(files = calloc(n + 1, sizeof *files)) || !(pids = malloc((n + 1) * sizeof *pids)))
        goto out;
    for (size_t i = 0; i < n; i++)
        pids[i] = procs[i].pid;
    if ((rc = ps_view_set_by_process(&views, r->all, pids, n)) < 0)
        goto out;
    for (; got < n && rc == 0; got++)
        rc = rank_file(r, &procs[got], &views.views[got], &files[got], err, sizeof err);
    if (rc < 0)
        goto out;
    rc = -ENOMEM;
    if (!(r->process_ranks = calloc(1, sizeof *r->process_ranks)))
        goto out;
    rc = ps_multirank_from_files(r->process_ranks, files, n, err, sizeof err);   /* takes files over */
    files = NULL;
    n = 0;
out:
    if (rc < 0 && rc != -ENOMEM)
        ps_diag("%s: the ranks cannot be analysed one by one: %s", r->m->path, err);
    if (rc < 0) {
        free(r->process_ranks);
        r->process_ranks = NULL;
    }
    for (size_t i = 0; files && i < n; i++)
        ps_rank_file_fini(&files[i]);
    free(files);
    free(pids);
    free(procs);
    ps_view_set_fini(&views);
    return rc == -ENOMEM ? rc : 0;
}

int ps_process_ranks_compute(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct pid_index *by_pid = malloc((m->procs.n + 1) * sizeof *by_pid);
    if (!by_pid)
        return -ENOMEM;
    for (size_t i = 0; i < m->procs.n; i++)
        by_pid[i] = (struct pid_index){ m->procs.v[i].pid, (uint32_t)i };
    qsort(by_pid, m->procs.n, sizeof *by_pid, cmp_pid_index);
    int rc = find_ranks(r, by_pid);
    int32_t one;
    /* a report over one process's rows (a rank's own, made here) holds at most one rank: no split */
    if (rc == 0 && r->all->pid == PS_NONE && ps_report_process_ranks(r, &one) >= 2)
        rc = split_ranks(r, by_pid);
    free(by_pid);
    return rc;
}

void ps_process_ranks_comm_fix(const struct ps_report *r, char *buf, size_t len)
{
    const struct ps_multirank *mr = r->process_ranks;
    if (!mr)
        return;
    if (!mr->has_wait_straggler) {
        snprintf(buf, len, "Collective communication is exposed, and no rank of this trace is waited for (Ranks in "
                 "this trace): overlap it with backward (DDP bucket size), accumulate gradients over several "
                 "micro-batches (no_sync), use larger batches.");
        return;
    }
    const struct ps_wait_straggler *w = &mr->wait;
    const struct ps_rank_file *s = &mr->files[w->file];
    snprintf(buf, len, "Collective communication is exposed, and most of it is waiting for rank %d (%s): the other "
             "ranks wait %.1f ms per step for it, and its %s takes %.1f ms per step longer than theirs (Straggler "
             "below): make that rank's own work shorter or give the ranks equal work; then overlap what is left "
             "with backward (DDP bucket size).", s->rank, s->path, (double)w->waited_for_ns / 1e6,
             w->category == PS_CAT_KERNEL && !s->has_gpu ? "host compute" : ps_cat_label[w->category],
             (double)w->excess_ns / 1e6);
}

void ps_process_ranks_free(struct ps_report *r)
{
    free(r->proc_rank);
    free(r->proc_world);
    free(r->proc_marked);
    if (r->process_ranks) {
        ps_multirank_fini(r->process_ranks);
        free(r->process_ranks);
    }
    r->proc_rank = r->proc_world = NULL;
    r->proc_marked = NULL;
    r->process_ranks = NULL;
}
