/* Several rank files in one report (analyses/ranks.h): a pool of worker threads, each reading one file at a time into
 * a model with the caller's loader, analysing it with ps_report_build, keeping only its struct ps_rank_file and
 * freeing the model before taking the next file; then ranks ordered, stragglers found as for processes of one trace
 * (ranks.c). */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"

const char *const ps_rank_source_name[] = { "metadata", "process_info", "file_name", "order" };

int32_t ps_rank_from_file_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int32_t rank = -1;
    for (const char *p = base; *p;) {
        if (!isdigit((unsigned char)*p) || (p > base && !strchr("._-", p[-1]))) {
            p++;
            continue;
        }
        const char *q = p;
        long long v = 0;
        while (isdigit((unsigned char)*q) && v <= INT32_MAX)
            v = v * 10 + (*q++ - '0');
        if (!isdigit((unsigned char)*q) && (!*q || strchr("._-", *q)) && v < INT32_MAX)
            rank = (int32_t)v;
        while (isdigit((unsigned char)*q))
            q++;
        p = q;
    }
    return rank;
}

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
        if (rc == 0 && (rc = ps_report_build(&rep, m, p->opts, p->err[i], sizeof p->err[i])) == 0) {
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
            snprintf(p->err[i], sizeof p->err[i], "out of memory");
        size_t len = strlen(f->path);
        if (rc < 0 && strncmp(p->err[i], f->path, len) != 0) {   /* analyses' messages do not name the file */
            char msg[sizeof p->err[i]];
            snprintf(msg, sizeof msg, "%s: %s", f->path, p->err[i]);
            memcpy(p->err[i], msg, sizeof msg);
        }
    }
}

static int cmp_file(const void *a, const void *b)
{
    const struct ps_rank_file *x = a, *y = b;
    uint32_t kx = (uint32_t)x->rank, ky = (uint32_t)y->rank;   /* launcher traces (-1) last */
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return strcmp(x->path, y->path);
}

/* Each collective row's algorithm and bus bandwidth, over its file's world size (final once the files are
 * summarised: a rank of a launcher trace gets its own in process_ranks.c, a merged report's from its JSON). */
static void collective_bandwidths(struct ps_multirank *mr)
{
    for (size_t i = 0; i < mr->nfiles; i++) {
        struct ps_rank_file *f = &mr->files[i];
        for (size_t k = 0; k < f->ncollectives; k++) {
            struct ps_collective_stat *c = &f->collectives[k];
            ps_collective_bandwidth(c, f->world_size, &c->algbw_gbps, &c->busbw_gbps);
        }
    }
}

/* Everything across the ranks, once each file is summarised: ranks ordered, shared ranks refused, collectives'
 * bandwidths, stragglers by step time (among the one-rank files: a launcher trace mixes its ranks, its own report
 * has them) and by who waits for whom. 0, -EINVAL (message in err) or -ENOMEM. */
static int cross_rank(struct ps_multirank *mr, char *err, size_t errlen)
{
    size_t n = mr->nfiles;
    qsort(mr->files, n, sizeof *mr->files, cmp_file);
    collective_bandwidths(mr);
    int rc = ps_multirank_refuse_shared_ranks(mr, err, errlen);
    if (rc < 0)
        return rc;
    rc = -ENOMEM;
    struct ps_rank_stat *stats = calloc(n + 1, sizeof *stats);
    size_t *at = calloc(n + 1, sizeof *at), k = 0;
    if (stats && at) {
        for (size_t i = 0; i < n; i++)
            if (mr->files[i].launcher_ranks < 2) {
                at[k] = i;
                stats[k++] = mr->files[i].stat;
            }
        rc = ps_stragglers_find(stats, k, &mr->stragglers, &mr->nstragglers);
        for (size_t i = 0; i < mr->nstragglers; i++)
            mr->stragglers[i].rank = at[mr->stragglers[i].rank];
    }
    free(stats);
    free(at);
    if (rc == 0)
        rc = ps_wait_straggler_find(mr);
    return rc;
}

int ps_multirank_build(struct ps_multirank *mr, const char *const *paths, size_t n, ps_trace_loader load,
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
        rc = p.rc[first] == -ENOMEM ? -ENOMEM : -EINVAL;
        snprintf(err, errlen, "%s", p.err[first]);
        if (bad > 1) {
            char more[64];
            snprintf(more, sizeof more, " (and %zu more could not be read)", bad - 1);
            snprintf(err, errlen, "%s%s", p.err[first], more);
        }
        goto out;
    }
    rc = cross_rank(mr, err, errlen);
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

int ps_multirank_from_files(struct ps_multirank *mr, struct ps_rank_file *files, size_t n, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    mr->files = files;
    mr->nfiles = n;
    for (size_t i = 0; i < n; i++)
        if (files[i].rank < 0 && files[i].launcher_ranks < 2)
            files[i].rank = (int32_t)i;        /* PS_RANK_FROM_ORDER, as ps_multirank_build numbers them */
    int rc = cross_rank(mr, err, errlen);
    if (rc < 0)
        ps_multirank_fini(mr);
    return rc;
}

void ps_multirank_fini(struct ps_multirank *mr)
{
    for (size_t i = 0; i < mr->nfiles; i++)
        ps_rank_file_fini(&mr->files[i]);
    free(mr->files);
    free(mr->stragglers);
    memset(mr, 0, sizeof *mr);
}
