/* The report with its rank analyses (analyses/ranks.h ps_ranks_report_compute): the ranks family runs above the
 * single-trace report. When the trace's processes hold several ranks (`perfscope record -o run.sqlite -- python
 * train.py` where the program starts its ranks with torch.multiprocessing.spawn, or `perfscope record -- torchrun
 * ...`; a process's rank: analyses/pytorch.h ps_proc_ranks_find), each rank's process is first analysed on its own
 * view exactly as its own trace would be (ps_report_compute and its rank summary), and the ranks go through the
 * several-file report's cross-rank analysis (ps_multirank_from_files: the straggler by who waits for whom, the
 * step-time rule, the collective table; docs/distributed.md "Ranks in one trace"). Then the report of the whole
 * is made, its verdict told which rank the others wait for, and last the per-process table (ranks.c) and this
 * trace as one rank of a several-rank report (rank_summary.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_diag.h"

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
static int rank_processes(const struct ps_model *m, const struct ps_proc_ranks *pr, struct ranked **out,
                          size_t *nout)
{
    size_t n = 0;
    struct ranked *v = malloc((m->procs.n + 1) * sizeof *v);
    struct ps_pid_index by_pid;
    if (!v || ps_pid_index_init(&by_pid, m) < 0) {
        free(v);
        return -ENOMEM;
    }
    for (size_t k = 0; k < m->procs.n; k++) {
        if (pr->rank[k] < 0)
            continue;
        size_t parent = ps_pid_index_find(&by_pid, m->procs.v[k].ppid);
        v[n++] = (struct ranked){ .rank = pr->rank[k], .marked = pr->marked[k],
                                  .top = parent == m->procs.n || pr->rank[parent] != pr->rank[k],
                                  .pid = m->procs.v[k].pid, .index = k };
    }
    ps_pid_index_fini(&by_pid);
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

/* One rank's process as a rank file: its own report over its view v, reduced to the rank summary, which *f takes
 * over; `world` is the trace's world size where the rank's mark gives none. 0, or a negative errno with a message
 * in err. */
static int rank_file(const struct ps_view *v, const struct ps_report_opts *o, struct ps_names *names,
                     const struct ps_proc_ranks *pr, int32_t world, const struct ranked *p, struct ps_rank_file *f,
                     char *err, size_t errlen)
{
    struct ps_report sub;
    int rc = ps_report_compute(&sub, v, o, NULL, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = ps_rank_summary_compute(&sub, names)) == 0) {
        *f = *sub.rank_summary;   /* taken over: the sub-report keeps an empty one */
        memset(sub.rank_summary, 0, sizeof *sub.rank_summary);
    }
    ps_rank_file_free(sub.rank_summary);
    sub.rank_summary = NULL;
    ps_report_fini(&sub);
    if (rc < 0)
        return rc;
    f->rank = p->rank;
    f->stat.pid = p->pid;
    f->rank_source = PS_RANK_FROM_PROCESSES;
    f->world_size = pr->world[p->index] > 0 ? pr->world[p->index] : world;
    f->launcher_ranks = 0;
    if (asprintf(&f->owned_path, "pid %u", p->pid) < 0) {
        f->owned_path = NULL;
        return -ENOMEM;
    }
    f->path = f->owned_path;
    return 0;
}

/* The several-rank analysis over the rank processes of `rows` (*out): each rank's process analysed on its own view
 * (one pass makes them all), then across the ranks. A rank that cannot be analysed (a message in ps_diag) leaves
 * the result NULL. 0 or -ENOMEM. */
static int split_ranks(const struct ps_view *rows, const struct ps_report_opts *o, struct ps_names *names,
                       const struct ps_proc_ranks *pr, struct ps_multirank **out)
{
    const struct ps_model *m = rows->m;
    struct ranked *procs = NULL;
    size_t n = 0, got = 0;
    struct ps_view_set views = { 0 };
    struct ps_rank_file *files = NULL;
    uint32_t *pids = NULL;
    char err[512] = "";
    int32_t world;                  /* -1 (or a Kineto trace's 0) unless known: rank_file takes it as it is */
    enum ps_fact world_fact;
    ps_proc_ranks_world(m, pr, PS_NONE, &world, &world_fact);
    int rc = rank_processes(m, pr, &procs, &n);
    if (rc < 0)
        return rc;
    rc = -ENOMEM;
    if (!(files = calloc(n + 1, sizeof *files)) || !(pids = malloc((n + 1) * sizeof *pids)))
        goto out;
    for (size_t i = 0; i < n; i++)
        pids[i] = procs[i].pid;
    if ((rc = ps_view_set_by_process(&views, rows, pids, n)) < 0)
        goto out;
    for (; got < n && rc == 0; got++)
        rc = rank_file(&views.views[got], o, names, pr, world, &procs[got], &files[got], err, sizeof err);
    if (rc < 0)
        goto out;
    rc = -ENOMEM;
    if (!(*out = calloc(1, sizeof **out)))
        goto out;
    rc = ps_multirank_from_files(*out, files, n, err, sizeof err);   /* takes files over */
    files = NULL;
    n = 0;
out:
    if (rc < 0 && rc != -ENOMEM)
        ps_diag("%s: the ranks cannot be analysed one by one: %s", m->path, err);
    if (rc < 0) {
        free(*out);
        *out = NULL;
    }
    for (size_t i = 0; files && i < n; i++)
        ps_rank_file_fini(&files[i]);
    free(files);
    free(pids);
    free(procs);
    ps_view_set_fini(&views);
    return rc == -ENOMEM ? rc : 0;
}

/* What the verdict's fix says of the ranks of this trace: the rank the others wait for, if any. */
static void waited_rank(const struct ps_multirank *mr, struct ps_waited_rank *w)
{
    *w = (struct ps_waited_rank){ .analysed = mr != NULL };
    if (!mr || !mr->has_wait_straggler)
        return;
    const struct ps_rank_file *s = &mr->files[mr->wait.file];
    *w = (struct ps_waited_rank){ .analysed = 1, .found = 1, .pid = s->stat.pid, .rank = s->rank, .path = s->path,
                                  .waited_for_ns = mr->wait.waited_for_ns, .excess_ns = mr->wait.group_excess_ns,
                                  .group = mr->wait.group, .name = mr->wait.group_name, .has_gpu = s->has_gpu };
}

/* ps_report_fini's callback for what the ranks family added to a report. */
static void ranks_parts_fini(struct ps_report *r)
{
    free(r->ranks);
    free(r->stragglers);
    ps_rank_file_free(r->rank_summary);
    r->rank_summary = NULL;
    if (r->process_ranks) {
        ps_multirank_fini(r->process_ranks);
        free(r->process_ranks);
    }
    r->ranks = NULL;
    r->stragglers = NULL;
    r->nranks = r->nstragglers = 0;
    r->process_ranks = NULL;
}

int ps_ranks_report_compute_view(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                                 char *err, size_t errlen)
{
    const struct ps_model *m = rows->m;
    struct ps_proc_ranks pr = { 0 };
    struct ps_multirank *mr = NULL;
    struct ps_names *names = NULL;
    struct ps_waited_rank waited;
    int32_t one;
    memset(r, 0, sizeof *r);
    int rc = ps_names_new(&names, m, o, err, errlen);
    if (rc == 0)
        rc = ps_proc_ranks_find(rows, &pr);
    /* a report over one process's rows (a rank's own) holds at most one rank: no split */
    if (rc == 0 && rows->pid == PS_NONE && ps_proc_ranks_count(m, &pr, PS_NONE, &one) >= 2)
        rc = split_ranks(rows, o, names, &pr, &mr);
    ps_proc_ranks_fini(&pr);
    waited_rank(mr, &waited);
    if (rc == 0 && (rc = ps_report_compute(r, rows, o, &waited, err, errlen)) == 0) {
        r->process_ranks = mr;   /* the report owns it from here: ranks_parts_fini */
        mr = NULL;
        r->ranks_fini = ranks_parts_fini;
        if ((rc = ps_ranks_compute(r, names)) == 0)
            rc = ps_rank_summary_compute(r, names);
        if (rc < 0)
            ps_report_fini(r);
    }
    if (rc == -ENOMEM)
        ps_err(err, errlen, rc, "out of memory while analysing %s", m->path);
    if (mr) {
        ps_multirank_fini(mr);
        free(mr);
    }
    ps_names_free(names);
    return rc;
}

int ps_ranks_report_compute(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                            char *err, size_t errlen)
{
    struct ps_view all;
    ps_view_all(&all, m);
    return ps_ranks_report_compute_view(r, &all, o, err, errlen);
}
