/* Several rank files in one report (multirank.h): a pool of worker threads, each reading one file at a time into
 * a model with the caller's loader, analysing it with ps_report_build, keeping only its struct ps_rank_file and
 * freeing the model before taking the next file; then ranks ordered, stragglers found as for processes of one trace
 * (ranks.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "analyses/multirank.h"
#include "names.h"
#include "sweep.h"

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

/* ---- collectives: HTA communication kernels by name, exposed = not under the device's computation kernels ---- */
struct dev_ivl {
    int32_t device;
    int64_t s, e;
    uint32_t name;              /* communication kernels: the name; computation: PS_NONE */
};

static int cmp_dev_ivl(const void *a, const void *b)
{
    const struct dev_ivl *x = a, *y = b;
    if (x->device != y->device)
        return (x->device > y->device) - (x->device < y->device);
    return (x->s > y->s) - (x->s < y->s);
}

/* Overlap of [s, e) with the merged, sorted, disjoint pieces u[0..n). */
static int64_t covered(const struct dev_ivl *u, size_t n, int64_t s, int64_t e)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {           /* first piece ending after s */
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].e <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (size_t i = lo; i < n && u[i].s < e; i++)
        sum += (u[i].e < e ? u[i].e : e) - (u[i].s > s ? u[i].s : s);
    return sum;
}

/* The first of the pieces u[0..n) (sorted by device) whose device is at least `device`. */
static size_t device_bound(const struct dev_ivl *u, size_t n, long long device)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].device < device)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_coll_total(const void *a, const void *b)
{
    const struct ps_collective_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
    return strcmp(x->name, y->name);
}

/* Merged computation pieces of one device, built while the kernels come in start order. */
struct dev_union {
    int32_t device;
    struct ps_run run;
};

static int push_piece(struct dev_ivl **v, size_t *n, size_t *cap, int32_t device, int64_t s, int64_t e)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        struct dev_ivl *p = realloc(*v, c * sizeof *p);
        if (!p)
            return -ENOMEM;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = (struct dev_ivl){ device, s, e, PS_NONE };
    return 0;
}

/* Two passes over the GPU ops: the communication kernels (none: done), then the computation kernels' union per
 * device as merged pieces (what the exposed time needs: O(pieces), not O(kernels) when kernels abut). */
static int collectives(struct ps_rank_file *f, const struct ps_report *r, struct ps_names *names)
{
    const struct ps_view *v = r->all;
    const struct ps_model *m = r->m;
    struct dev_ivl *comp = NULL, *comm = NULL;
    struct dev_union *devs = NULL;
    size_t ncomp = 0, capcomp = 0, ncomm = 0, ndevs = 0;
    int64_t s, e;
    int rc = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        struct ps_gpu_op op = ps_view_gpu(v, i);
        ncomm += op.kind == PS_GPU_KERNEL && (ps_names_flags(names, op.name) & PS_NAME_HTA_COMM);
    }
    if (ncomm == 0)
        return 0;
    rc = -ENOMEM;
    f->collectives = calloc(ncomm + 1, sizeof *f->collectives);
    comm = malloc(ncomm * sizeof *comm);
    devs = calloc(m->devices.n + m->streams.n + 1, sizeof *devs);   /* a stream's device is one of these */
    if (!f->collectives || !comm || !devs)
        goto out;
    ncomm = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_KERNEL)
            continue;
        unsigned fl = ps_names_flags(names, op.name);
        int32_t device = m->streams.v[op.stream].device;
        if (fl & PS_NAME_HTA_COMM) {
            comm[ncomm++] = (struct dev_ivl){ device, op.start_ns, op.end_ns, op.name };
        } else if (fl & PS_NAME_HTA_COMPUTE) {
            size_t d = 0;
            while (d < ndevs && devs[d].device != device)
                d++;
            if (d == ndevs)
                devs[ndevs++].device = device;
            if (ps_run_add(&devs[d].run, op.start_ns, op.end_ns, &s, &e) &&
                push_piece(&comp, &ncomp, &capcomp, device, s, e) < 0)
                goto out;
        }
    }
    for (size_t d = 0; d < ndevs; d++)
        if (ps_run_flush(&devs[d].run, &s, &e) && push_piece(&comp, &ncomp, &capcomp, devs[d].device, s, e) < 0)
            goto out;
    if (ncomp > 1)   /* by device; within one, pieces came out in increasing order */
        qsort(comp, ncomp, sizeof *comp, cmp_dev_ivl);
    for (size_t i = 0; i < ncomm; i++) {
        const struct dev_ivl *c = &comm[i];
        size_t lo = device_bound(comp, ncomp, c->device), hi = device_bound(comp, ncomp, c->device + 1LL);
        int64_t dur = c->e - c->s, exposed = dur - covered(comp + lo, hi - lo, c->s, c->e);
        const char *name = ps_model_str(m, c->name);
        name = name ? name : "?";
        size_t k = 0;
        while (k < f->ncollectives && strcmp(f->collectives[k].name, name))
            k++;
        if (k == f->ncollectives) {
            if (!(f->collectives[k].name = strdup(name)))
                goto out;
            f->collectives[k].bytes = -1;
            f->ncollectives++;
        }
        f->collectives[k].count++;
        f->collectives[k].total_ns += dur;
        f->collectives[k].exposed_ns += exposed;
    }
    qsort(f->collectives, f->ncollectives, sizeof *f->collectives, cmp_coll_total);
    rc = 0;
out:
    free(comp);
    free(comm);
    free(devs);
    return rc;
}

/* ---- one file ---- */
static int summarise(struct ps_rank_file *f, const struct ps_report *r, const struct ps_report_opts *o, size_t index,
                     char *err, size_t errlen)
{
    const struct ps_model *m = r->m;
    int32_t rank, world, proc_rank;
    ps_report_rank(r, &rank, &world);
    f->format = ps_format_name(m->format);
    f->world_size = world;
    f->launcher_ranks = ps_report_process_ranks(r, &proc_rank);
    if (f->launcher_ranks >= 2) {           /* every rank a process: the file is not one rank of them */
        f->rank = -1;
    } else if (rank >= 0) {
        f->rank = rank;
        f->rank_source = PS_RANK_FROM_META;
    } else if (proc_rank >= 0) {
        f->rank = proc_rank;
        f->rank_source = PS_RANK_FROM_PROCESSES;
    } else if ((f->rank = ps_rank_from_file_name(f->path)) >= 0) {
        f->rank_source = PS_RANK_FROM_FILE_NAME;
    }
    if (f->rank < 0 && f->launcher_ranks < 2) {
        f->rank = (int32_t)index;
        f->rank_source = PS_RANK_FROM_ORDER;
    }
    f->whole_run = r->whole_run;
    for (size_t i = 0; i < r->ndevs; i++)
        f->gpu_ops += r->devs[i].kernel_count + r->devs[i].memcpy_count + r->devs[i].memset_count;
    f->has_gpu = r->has_gpu;
    f->steps_inferred = r->steps_inferred;
    f->stat = (struct ps_rank_stat){ .nsteps = r->nsteps, .avg_dur_ns = r->avg_dur_ns, .sync_ns = r->avg.sync_ns,
                                     .bottleneck = r->bottleneck, .share = r->share };
    memcpy(f->stat.cat_ns, r->avg.cat_ns, sizeof f->stat.cat_ns);
    f->comm_comp_overlap = r->comm_comp_overlap;
    f->recording_complete = ps_report_recording_complete(r);
    struct ps_names *names = NULL;
    int rc = ps_names_new(&names, m, o, err, errlen);
    if (rc == 0)
        rc = collectives(f, r, names);
    ps_names_free(names);
    return rc;
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
            rc = summarise(f, &rep, p->opts, i, p->err[i], sizeof p->err[i]);
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

int ps_multirank_build(struct ps_multirank *mr, const char *const *paths, size_t n, ps_trace_loader load,
                       const struct ps_report_opts *o, size_t workers, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    struct pool p = { .lock = PTHREAD_MUTEX_INITIALIZER, .n = n, .paths = paths, .load = load, .opts = o };
    pthread_t *tid = NULL;
    size_t started = 0;
    int rc = -ENOMEM;
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
    qsort(mr->files, n, sizeof *mr->files, cmp_file);
    for (size_t i = 0; i + 1 < n && mr->nnotes < 2; i++)
        if (mr->files[i].rank >= 0 && mr->files[i].rank == mr->files[i + 1].rank)
            snprintf(mr->notes[mr->nnotes++], sizeof mr->notes[0], "%s and %s both hold rank %d (%s)",
                     mr->files[i].path, mr->files[i + 1].path, mr->files[i].rank,
                     ps_rank_source_name[mr->files[i].rank_source]);
    /* stragglers among the one-rank files (a launcher trace mixes its ranks: its own report has them) */
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

void ps_multirank_fini(struct ps_multirank *mr)
{
    for (size_t i = 0; i < mr->nfiles; i++) {
        for (size_t k = 0; k < mr->files[i].ncollectives; k++)
            free(mr->files[i].collectives[k].name);
        free(mr->files[i].collectives);
    }
    free(mr->files);
    free(mr->stragglers);
    memset(mr, 0, sizeof *mr);
}
