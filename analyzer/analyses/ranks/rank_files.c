/* Several rank files in one report (analyses/ranks.h ps_multirank_compute): a pool of worker threads, each reading one
 * file at a time into a model with the caller's loader, analysing it with ps_ranks_report_compute, keeping only its
 * struct ps_rank_file and freeing the model before taking the next file; then the several-rank analysis across them
 * (multirank.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "ps_diag.h"

struct pool {
    pthread_mutex_t lock;
    size_t next, n;
    const char *const *paths;
    ps_trace_loader load;
    const struct ps_report_opts *opts;
    struct ps_rank_file *files;
    int *rc;                    /* per file: 0, or its error */
    char (*err)[512];
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        struct ps_rank_file *f = &p->files[i];
        struct ps_model *m = NULL;
        struct ps_report rep;
        f->path = p->paths[i];
        int rc = p->load(f->path, &m, p->err[i], sizeof p->err[i]);
        if (rc == 0 && (rc = ps_ranks_report_compute(&rep, m, p->opts, p->err[i], sizeof p->err[i])) == 0) {
            *f = *rep.rank_summary;            /* taken over: the report keeps an empty one */
            memset(rep.rank_summary, 0, sizeof *rep.rank_summary);
            f->path = p->paths[i];
            if (f->rank < 0 && f->launcher_ranks < 2)
                f->rank = (int32_t)i;          /* PS_RANK_FROM_ORDER */
            ps_report_fini(&rep);
        }
        ps_model_free(m);
        p->rc[i] = rc < 0 ? rc : 0;
        if (rc == -ENOMEM && !p->err[i][0])
            ps_err(p->err[i], sizeof p->err[i], rc, "out of memory");
        size_t len = strlen(f->path);
        if (rc < 0 && strncmp(p->err[i], f->path, len) != 0) {   /* analyses' messages do not name the file */
            char msg[sizeof p->err[i]];
            memcpy(msg, p->err[i], sizeof msg);
            ps_err(p->err[i], sizeof p->err[i], rc, "%s: %s", f->path, msg);
        }
    }
}

int ps_multirank_compute(struct ps_multirank *mr, const char *const *paths, size_t n, ps_trace_loader load,
                       const struct ps_report_opts *o, size_t workers, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    struct pool p = { .lock = PTHREAD_MUTEX_INITIALIZER, .n = n, .paths = paths, .load = load, .opts = o };
    pthread_t *tid = NULL;
    size_t started = 0;
    int rc = ps_multirank_refuse_same_file(paths, n, err, errlen);
    if (rc < 0)
        return rc;
    rc = -ENOMEM;
    workers = workers < 1 ? 1 : workers > n ? n : workers;
    p.files = calloc(n + 1, sizeof *p.files);
    p.rc = calloc(n + 1, sizeof *p.rc);
    p.err = calloc(n + 1, sizeof *p.err);
    tid = calloc(workers + 1, sizeof *tid);
    if (!p.files || !p.rc || !p.err || !tid)
        goto out;
    mr->files = p.files;
    mr->nfiles = n;
    for (; started < workers; started++)
        if (pthread_create(&tid[started], NULL, worker, &p) != 0)
            break;
    if (started == 0)
        worker(&p);             /* no thread could start: read them here */
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (p.rc[i] < 0 && bad++ == 0)
            first = i;
    if (bad > 0) {
        char more[64] = "";
        if (bad > 1)
            snprintf(more, sizeof more, " (and %zu more could not be read)", bad - 1);
        rc = ps_err(err, errlen, p.rc[first] == -ENOMEM ? -ENOMEM : -EINVAL, "%s%s", p.err[first], more);
        goto out;
    }
    struct ps_rank_file *files = p.files;   /* ps_multirank_from_files takes them over, also when it fails */
    p.files = NULL;
    rc = ps_multirank_from_files(mr, files, n, err, errlen);
out:
    free(tid);
    free(p.rc);
    free(p.err);
    if (rc < 0) {
        if (!mr->files)
            free(p.files);
        ps_multirank_fini(mr);
    }
    return rc;
}
