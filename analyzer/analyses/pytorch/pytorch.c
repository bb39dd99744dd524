/* What perfscope's Python hook saw in a PyTorch program (docs/python.md): its DataLoaders' settings and worker
 * processes (marks in the NVTX domain "perfscope", read by hook_marks.c), how busy the workers were while the step
 * waited for data, whether more workers would help, the host-to-device copies it issued — and PyTorch advice worded
 * from that, which becomes the verdict's fix for its bottleneck (verdict.c). It reads the analysed process's rows
 * through r->scope and each worker's through its own process view (model/view.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define SATURATED 0.75      /* workers busy at least this share of the wait: they are the limit */
#define IDLE 0.5            /* below this share: the wait is elsewhere */
#define MIN_DATA_SHARE 0.05 /* below this DataLoader share of the step, no loader advice */
#define BUSY_MACHINE 0.75   /* sampled processes using this share of the cores: the machine is busy */
#define ITER_RANGE "enumerate(DataLoader)#DataLoader.__iter__"   /* docs/python.md: iter(loader) */

/* A count or id of a hook mark (hook_marks.c): 0 .. INT32_MAX, -1 when absent or malformed ("None"). */
static int32_t mark_i32(const struct ps_hook_mark *mk, const char *key)
{
    return (int32_t)ps_hook_mark_int_or(mk, key, 0, INT32_MAX, -1);
}

/* A flag of a hook mark: 0 or 1, -1 when absent or malformed. */
static int32_t mark_flag(const struct ps_hook_mark *mk, const char *key)
{
    int v;
    return ps_hook_mark_flag(mk, key, &v) == 0 ? v : -1;
}

static int host_kind(uint8_t k)
{
    return k == PS_RANGE_NVTX_PUSHPOP || k == PS_RANGE_NVTX_STARTEND || k == PS_RANGE_USER_ANNOTATION ||
           k == PS_RANGE_CPU_OP;
}

static uint32_t pid_of(const struct ps_model *m, uint32_t thread)
{
    return thread == PS_NONE ? 0 : m->threads.v[thread].pid;
}

static const struct ps_process *process(const struct ps_model *m, uint32_t pid)
{
    for (size_t i = 0; i < m->procs.n; i++)
        if (m->procs.v[i].pid == pid)
            return &m->procs.v[i];
    return NULL;
}

/* Whether range i of v is one of the hook's marks (parsed into *mk; *dom caches the hook's domain's string id). */
static int hook_mark(const struct ps_view *v, size_t i, uint32_t *dom, struct ps_hook_mark *mk)
{
    return ps_hook_mark_of(v->m, ps_view_range(v, i), dom, mk) == 0;
}

/* The model's ranges before the analysed rows: none for a whole-trace report; for a report over a window
 * (`perfscope top`'s last seconds of a growing model), those that start before it. The hook's marks there are
 * run facts written once (its configuration at start, each DataLoader iterator's settings, each worker's start),
 * which the window's PyTorch section needs. Returns how many (they come first: ranges are in start order). */
static size_t ranges_before(const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    size_t n = 0;
    while (r->all->start_ns != INT64_MIN && n < m->ranges.n && m->ranges.v[n].start_ns < r->all->start_ns)
        n++;
    return n;
}

/* Each iterator's base_seed (the DataLoader#N marks of the analysed process) and its loader: a worker's
 * `DataLoader worker` mark names its iterator's seed whatever the start method (docs/python.md "Linking a worker
 * to its loader"). */
struct iter_seeds {
    struct { char seed[32]; int32_t loader; } *v;
    size_t n;
};

static int seed_add(struct iter_seeds *k, const struct ps_hook_mark *mk, int32_t loader)
{
    char seed[32];
    if (ps_hook_mark_str(mk, "base_seed", seed, sizeof seed) < 0)
        return 0;
    void *v = realloc(k->v, (k->n + 1) * sizeof *k->v);
    if (!v)
        return -ENOMEM;
    k->v = v;
    snprintf(k->v[k->n].seed, sizeof k->v[k->n].seed, "%s", seed);
    k->v[k->n++].loader = loader;
    return 0;
}

static int32_t seed_loader(const struct iter_seeds *k, const struct ps_hook_mark *mk)
{
    char seed[32];
    if (ps_hook_mark_str(mk, "base_seed", seed, sizeof seed) < 0)
        return -1;
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->v[i].seed, seed))
            return k->v[i].loader;
    return -1;
}

static void hook_config(struct ps_pytorch *py, const struct ps_hook_mark *mk)
{
    ps_hook_mark_str(mk, "torch", py->torch_version, sizeof py->torch_version);
    ps_hook_mark_str(mk, "mode", py->mode, sizeof py->mode);
    py->cores = mark_i32(mk, "cores");
    py->intra_op_threads = mark_i32(mk, "intra_op_threads");
}

/* One hook mark of the analysed process: its configuration (the first one: *configured counts them) or a
 * DataLoader iterator's settings (the loader's latest). Returns the loader of a DataLoader mark, else NULL. */
static struct ps_py_loader *hook_mark_apply(struct ps_pytorch *py, const struct ps_hook_mark *mk, int *configured)
{
    if (mk->kind == PS_HOOK_MARK_HOOK && !(*configured)++) {
        hook_config(py, mk);
        return NULL;
    }
    if (mk->kind != PS_HOOK_MARK_LOADER)
        return NULL;
    int32_t n = mk->loader;
    struct ps_py_loader *l = NULL;
    for (size_t k = 0; k < py->nloaders; k++)
        if (py->loaders[k].number == n)
            l = &py->loaders[k];
    if (!l) {
        if (py->nloaders == PS_PY_MAX_LOADERS)
            return NULL;
        l = &py->loaders[py->nloaders++];
        *l = (struct ps_py_loader){ .number = n };
    }
    l->iterators++;
    ps_hook_mark_str(mk, "iterator", l->iterator, sizeof l->iterator);
    l->num_workers = mark_i32(mk, "num_workers");
    l->pin_memory = mark_flag(mk, "pin_memory");
    l->persistent_workers = mark_flag(mk, "persistent_workers");
    l->prefetch_factor = mark_i32(mk, "prefetch_factor");
    l->batch_size = mark_i32(mk, "batch_size");
    if (l == &py->loaders[0]) {   /* the loop's loader: its settings now (the program may change threads) */
        int32_t threads = mark_i32(mk, "intra_op_threads");
        py->intra_op_threads = threads > 0 ? threads : py->intra_op_threads;
        ps_hook_mark_str(mk, "start_method", py->start_method, sizeof py->start_method);
    }
    return l;
}

/* The analysed process's marks (scope, and before it: ranges_before): its hook configuration and its loaders,
 * with each iterator's start in scope. */
static int read_loaders(const struct ps_report *r, const struct ps_view *scope, struct ps_pytorch *py,
                        int64_t **iter_start, size_t *niter, struct iter_seeds *seeds)
{
    const struct ps_model *m = r->m;
    uint32_t dom = PS_NONE;
    int configured = 0;
    struct ps_hook_mark mk;
    for (size_t i = 0, n = ranges_before(r); i < n; i++) {   /* settings only: not the window's iterators */
        const struct ps_range *g = &m->ranges.v[i];
        const struct ps_py_loader *l;
        if (ps_hook_mark_of(m, g, &dom, &mk) == 0 && (!r->scoped || pid_of(m, g->thread) == r->pid) &&
            (l = hook_mark_apply(py, &mk, &configured)) && seed_add(seeds, &mk, l->number) < 0)
            return -ENOMEM;
    }
    for (size_t i = 0; i < scope->nranges; i++) {
        const struct ps_py_loader *l;
        if (hook_mark(scope, i, &dom, &mk) && (l = hook_mark_apply(py, &mk, &configured))) {
            if (seed_add(seeds, &mk, l->number) < 0)
                return -ENOMEM;
            if (l->num_workers <= 0)   /* no worker to start: its first fetch is a fetch like the others */
                continue;
            py->startups++;
            int64_t *v = realloc(*iter_start, (*niter + 1) * sizeof *v);
            if (!v)
                return -ENOMEM;
            *iter_start = v;
            v[(*niter)++] = ps_view_range(scope, i)->start_ns;
        }
    }
    return configured;
}

/* One hook mark of process `pid` seen by read_workers. 0 or -ENOMEM. */
static int worker_mark(const struct ps_report *r, struct ps_pytorch *py, const struct ps_hook_mark *mk, uint32_t pid,
                       int configured, const struct iter_seeds *seeds)
{
    const struct ps_model *m = r->m;
    if (mk->kind == PS_HOOK_MARK_HOOK) {
        if (py->hooked++ == 0 && !configured)
            hook_config(py, mk);
        return 0;
    }
    if (mk->kind != PS_HOOK_MARK_WORKER)
        return 0;
    const struct ps_process *p = process(m, pid);
    /* another process's worker (one trace, several ranks): training_pid names the process that made its iterator,
     * whatever the start method (a forkserver worker's parent is the fork server); traces of hooks that wrote no
     * training_pid fall back to the parent pid */
    int32_t training = mark_i32(mk, "training_pid");
    if (r->scoped && training > 0 && (uint32_t)training != r->pid)
        return 0;
    if (r->scoped && training <= 0 && p && p->ppid && p->ppid != r->pid && process(m, p->ppid))
        return 0;
    for (size_t k = 0; k < py->nworkers; k++)
        if (py->workers[k].pid == pid)
            return 0;
    struct ps_py_worker *w = realloc(py->workers, (py->nworkers + 1) * sizeof *w);
    if (!w)
        return -ENOMEM;
    py->workers = w;
    w = &w[py->nworkers++];
    int32_t loader = mark_i32(mk, "loader");
    *w = (struct ps_py_worker){ .pid = pid, .id = mark_i32(mk, "id"),
                                .loader = loader >= 0 ? loader : seed_loader(seeds, mk),
                                .cpu_ns = p ? p->cpu_ns : -1,
                                .life_ns = p && p->cpu_ns >= 0 ? p->last_sample_ns - p->first_sample_ns : -1 };
    return 0;
}

/* The whole trace's marks (all, and before it: ranges_before): the processes the hook ran in (the configuration of the first when the analysed
 * process has none) and the worker processes of the analysed process's loaders, one row per process (workers
 * restarted each epoch, persistent_workers=False, are new processes). */
static int read_workers(const struct ps_report *r, const struct ps_view *all, struct ps_pytorch *py, int configured,
                        const struct iter_seeds *seeds)
{
    const struct ps_model *m = all->m;
    uint32_t dom = PS_NONE;
    struct ps_hook_mark mk;
    for (size_t i = 0, n = ranges_before(r); i < n; i++) {
        if (ps_hook_mark_of(m, &m->ranges.v[i], &dom, &mk) == 0 &&
            worker_mark(r, py, &mk, pid_of(m, m->ranges.v[i].thread), configured, seeds) < 0)
            return -ENOMEM;
    }
    for (size_t i = 0; i < all->nranges; i++) {
        if (hook_mark(all, i, &dom, &mk) &&
            worker_mark(r, py, &mk, pid_of(m, ps_view_range(all, i)->thread), configured, seeds) < 0)
            return -ENOMEM;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The step thread's waits for data inside the analysed steps (each iterator's first fetch apart: it includes
 * starting the workers) and the hook's copies, from the analysed process's view. */
static int measure_waits(const struct ps_report *r, const struct ps_view *scope, struct ps_names *names,
                         struct ps_pytorch *py, int64_t *iter_start, size_t niter, struct ps_ivls *wait)
{
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns, pend_s = 0, pend_e = 0;
    size_t next_iter = 0;
    /* without persistent workers an iterator's last fetch (the one that ends it) waits for its workers to exit */
    int stops = py->nloaders && py->loaders[0].num_workers > 0 && py->loaders[0].persistent_workers == 0;
    if (niter > 1)
        qsort(iter_start, niter, sizeof *iter_start, cmp_i64);
    for (size_t i = 0; i < scope->nranges; i++) {   /* ranges are in start order */
        const struct ps_range *g = ps_view_range(scope, i);
        if (!host_kind(g->kind))
            continue;
        if (g->domain == PS_NONE && g->category >= 1 && g->category <= 4 &&
            !strcmp(ps_model_str(scope->m, g->name), "copy_to_device")) {
            py->copies++;
            py->copies_pageable += g->category <= 2;
            py->copies_blocking += g->category == 1 || g->category == 3;
        }
        if ((g->thread != r->step_thread && !r->whole_run) || !(ps_names_flags(names, g->name) & PS_NAME_DATA))
            continue;
        int first = 0;
        while (next_iter < niter && iter_start[next_iter] <= g->start_ns) {
            next_iter++;
            first = 1;
        }
        int64_t s = g->start_ns > a ? g->start_ns : a, e = g->end_ns < b ? g->end_ns : b;
        if (e <= s)
            continue;
        if (!strcmp(ps_model_str(scope->m, g->name), ITER_RANGE)) {   /* iter(): making the workers */
            py->startup_wait_ns += e - s;
            continue;
        }
        if (first && stops && pend_e > pend_s) {   /* the previous fetch ended the iterator before */
            py->startup_wait_ns += pend_e - pend_s;
            pend_s = pend_e = 0;
        }
        if (pend_e > pend_s && ps_ivls_push(wait, pend_s, pend_e) < 0)
            return -ENOMEM;
        pend_s = pend_e = 0;
        if (first) {
            py->first_fetch_wait_ns += e - s;
            py->startup_wait_ns += e - s;
        } else {
            pend_s = s, pend_e = e;
        }
    }
    if (pend_e > pend_s && ps_ivls_push(wait, pend_s, pend_e) < 0)
        return -ENOMEM;
    ps_ivls_normalize(wait);
    py->wait_ns = ps_ivls_total(wait);
    return 0;
}

/* Each worker's fetches and its busy time while the step waited, from its own process view (one pass over the
 * trace makes them all). */
static int measure_workers(const struct ps_view *all, struct ps_pytorch *py, const struct ps_ivls *wait)
{
    struct ps_view_set set = { 0 };
    struct ps_ivls busy = { 0 }, both = { 0 };
    uint32_t *pids = malloc(py->nworkers * sizeof *pids);
    int rc = pids ? 0 : -ENOMEM;
    for (size_t w = 0; w < py->nworkers && pids; w++)
        pids[w] = py->workers[w].pid;
    if (rc == 0) {
        qsort(pids, py->nworkers, sizeof *pids, cmp_u32);
        rc = ps_view_set_by_process(&set, all, pids, py->nworkers);
    }
    double busy_sum = 0;
    size_t nbusy = 0;
    for (size_t w = 0; w < py->nworkers && rc == 0; w++) {
        struct ps_py_worker *k = &py->workers[w];
        const uint32_t *at = bsearch(&k->pid, pids, py->nworkers, sizeof *pids, cmp_u32);
        const struct ps_view *v = &set.views[at - pids];
        busy.n = 0;
        for (size_t i = 0; i < v->nranges && rc == 0; i++) {
            const struct ps_range *g = ps_view_range(v, i);
            if (!host_kind(g->kind))
                continue;
            const char *name = ps_model_str(v->m, g->name);
            size_t len = strlen(name);
            if (len > 6 && !strcmp(name + len - 6, ".fetch"))
                k->fetches++, k->fetch_ns += g->end_ns - g->start_ns;
            rc = ps_ivls_push(&busy, g->start_ns, g->end_ns);
        }
        ps_ivls_normalize(&busy);
        if (rc < 0 || (rc = ps_ivls_intersect(&both, &busy, wait)) < 0)
            break;
        k->busy_wait_ns = ps_ivls_total(&both);
        if (py->wait_ns > 0) {
            busy_sum += (double)k->busy_wait_ns / (double)py->wait_ns;
            nbusy++;
        }
    }
    py->workers_busy = nbusy ? busy_sum / (double)nbusy : NAN;
    ps_view_set_fini(&set);
    ps_ivls_fini(&busy);
    ps_ivls_fini(&both);
    free(pids);
    return rc;
}

/* The CPUs the training process and its workers kept busy, each over its own host samples (its CPU time / the
 * span of its samples), summed: NAN without samples. */
static void sampled_load(const struct ps_report *r, struct ps_pytorch *py)
{
    const struct ps_process *p = r->scoped ? process(r->m, r->pid) : NULL;
    double load = 0;
    int known = 0;
    if (p && p->cpu_ns >= 0 && p->last_sample_ns > p->first_sample_ns) {
        load += (double)p->cpu_ns / (double)(p->last_sample_ns - p->first_sample_ns);
        known++;
    }
    for (size_t i = 0; i < py->nworkers; i++)
        if (py->workers[i].cpu_ns >= 0 && py->workers[i].life_ns > 0) {
            load += (double)py->workers[i].cpu_ns / (double)py->workers[i].life_ns;
            known++;
        }
    py->sampled_cores = known ? load : NAN;
}

static void advise(struct ps_pytorch *py, enum ps_bottleneck for_bn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void advise(struct ps_pytorch *py, enum ps_bottleneck for_bn, const char *fmt, ...)
{
    if (py->nadvice == PS_PY_MAX_ADVICE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(py->advice[py->nadvice], sizeof py->advice[0], fmt, ap);
    va_end(ap);
    py->advice_for[py->nadvice++] = for_bn;
}

/* Workers to try: enough that loading keeps up with the rest of the step, one spare; at most the cores less
 * the one the training loop keeps busy. *capped: that many would not fit. */
static int suggest(double need, int cores, int *capped)
{
    int n = (int)ceil(need - 1e-9) + 1, room = cores > 1 ? cores - 1 : 1;
    *capped = cores > 0 && n > room;
    return *capped ? room : n;
}

/* Workers + the training process's intra-op threads beyond the cores: more workers compete for the same CPUs. */
static int oversubscribed_advice(struct ps_pytorch *py, const struct ps_py_loader *l, double busy)
{
    if (!py->oversubscribed)
        return 0;
    char load[80] = "";
    if (!isnan(py->sampled_cores))
        snprintf(load, sizeof load, "; the sampled processes kept %.1f cores busy on average", py->sampled_cores);
    py->more_workers = 0;
    int room = py->cores - l->num_workers;
    advise(py, PS_BN_DATA, "The machine is oversubscribed: DataLoader#%d's %d workers (busy %.0f %% of the waits) and "
           "the training process's %d intra-op thread%s share %d core%s%s: more workers would compete for the same "
           "cores. Lower the training threads (torch.set_num_threads(%d)), or make the per-sample work cheaper (cache "
           "decoded samples, augment on the GPU).", l->number, l->num_workers, 100 * busy, py->intra_op_threads,
           py->intra_op_threads == 1 ? "" : "s", py->cores, py->cores == 1 ? "" : "s", load, room > 1 ? room : 1);
    return 1;
}

/* Steady-state waits (worker start-up left out): worded from the loader's settings and how busy its workers were. */
static void steady_advice(struct ps_pytorch *py, const struct ps_py_loader *l, double s, const char *machine,
                          int *capped)
{
    int cores = py->cores;
    const char *cheaper = "make the per-sample transform cheaper, cache decoded samples, or move augmentation to the "
                          "GPU (transforms on CUDA tensors after the copy, or NVIDIA DALI)";
    if (l->num_workers == 0) {
        py->more_workers = 1;
        py->suggest_workers = suggest(s / (1 - s > 0.01 ? 1 - s : 0.01), cores, capped);
        advise(py, PS_BN_DATA, "DataLoader#%d has num_workers=0 and %.1f %% of each step waits for data: try "
               "num_workers=%d (%s%sloading now runs inside the training loop).", l->number, 100 * s,
               py->suggest_workers, machine, *machine ? "; " : "");
        if (*capped)
            advise(py, PS_BN_DATA, "Loading needs more cores than this machine has (%d): beyond num_workers=%d, %s.",
                   cores, py->suggest_workers, cheaper);
        return;
    }
    if (isnan(py->workers_busy)) {
        if (py->nworkers == 0)
            advise(py, PS_BN_DATA, "DataLoader#%d has num_workers=%d, but no worker process was recorded (a "
                   "multiprocessing context the hook did not reach?): worker use is unknown.", l->number, l->num_workers);
        return;
    }
    double busy = py->workers_busy;
    if (oversubscribed_advice(py, l, busy))
        return;
    if (busy >= SATURATED) {
        py->more_workers = 1;
        py->suggest_workers = suggest((double)l->num_workers / (1 - s > 0.01 ? 1 - s : 0.01) - 1, cores, capped);
        if (py->suggest_workers > l->num_workers)
            advise(py, PS_BN_DATA, "DataLoader#%d's %d workers were busy %.0f %% of the time the step waited for data "
                   "(saturated): more workers help: try num_workers=%d%s%s%s.", l->number, l->num_workers, 100 * busy,
                   py->suggest_workers, *machine ? " (" : "", machine, *machine ? ")" : "");
        else
            advise(py, PS_BN_DATA, "DataLoader#%d's %d workers were busy %.0f %% of the time the step waited for data "
                   "(saturated) and already use every core but the training loop's (%s): %s.", l->number,
                   l->num_workers, 100 * busy, machine, cheaper);
    } else if (busy < IDLE) {
        py->more_workers = 0;
        advise(py, PS_BN_DATA, "DataLoader#%d's %d workers were busy only %.0f %% of the time the step waited for data: "
               "more workers would not help; the wait is in the training process (receiving large batches from the "
               "workers, pin_memory, a slow collate_fn or sampler)%s.", l->number, l->num_workers, 100 * busy,
               l->prefetch_factor >= 0 ? ", or batches come in bursts: raise prefetch_factor" : "");
    } else {
        advise(py, PS_BN_DATA, "DataLoader#%d's %d workers were busy %.0f %% of the time the step waited for data: "
               "close to saturated; raise prefetch_factor (batches each worker loads ahead) and try num_workers=%d.",
               l->number, l->num_workers, 100 * busy, l->num_workers + 1);
    }
}

/* Worker start-up as its own cause (docs/python.md "Start-up"): the step waited in iter() and in the first fetch of
 * each iterator that started workers. Worded from what the program does: persistent workers start once (then the
 * start-up is warm-up: --skip-steps), spawn and forkserver workers import the main module and torch again. */
static void startup_advice(const struct ps_report *r, struct ps_pytorch *py, const struct ps_py_loader *l, double total)
{
    double share = total > 0 ? (double)py->startup_wait_ns / total : 0;
    if (l->num_workers <= 0 || share < MIN_DATA_SHARE)
        return;
    char how[160];
    if (l->persistent_workers == 0 && l->iterators > 1)
        snprintf(how, sizeof how, "set persistent_workers=True so they start once, not %d times (or make fewer "
                 "iterators)", l->iterators);
    else
        snprintf(how, sizeof how, "they start once: leave that warm-up out of the averages with --skip-steps %zu",
                 r->warmup.skipped + 1);
    int fresh = !strcmp(py->start_method, "spawn") || !strcmp(py->start_method, "forkserver");
    advise(py, PS_BN_DATA, "Worker start-up: %.1f ms of waiting for data (%.1f %% of the analysed steps) went to "
           "starting%s DataLoader#%d's workers (%lld time%s, %s): %s%s.", (double)py->startup_wait_ns / 1e6,
           100 * share, l->persistent_workers == 0 ? " and stopping" : "", l->number, (long long)py->startups, py->startups == 1 ? "" : "s",
           py->start_method[0] ? py->start_method : "default start method", how,
           fresh ? "; each worker imports torch and the main module again: keep heavy imports under if __name__ == "
                   "\"__main__\"" : "");
}

static void loader_advice(struct ps_report *r, struct ps_pytorch *py)
{
    const struct ps_py_loader *l = py->nloaders ? &py->loaders[0] : NULL;
    double total = (double)r->avg_dur_ns * (double)r->nsteps;
    /* steady-state waits only: the start-up waits are their own cause */
    double s = total > 0 ? (double)py->wait_ns / total : 0;
    int cores = py->cores, capped = 0;
    char machine[96] = "";
    if (cores > 0)
        snprintf(machine, sizeof machine, "this machine has %d core%s", cores, cores == 1 ? "" : "s");
    py->more_workers = -1;
    if (!l || l->num_workers < 0)
        return;
    /* more threads than cores, and the sampled processes kept most of the cores busy (without host samples: the
     * workers were busy at least half the waits); busy sleeping workers (I/O) are no load */
    int loaded = !isnan(py->sampled_cores) && py->sampled_cores >= BUSY_MACHINE * cores;
    py->oversubscribed = cores > 0 && py->intra_op_threads > 0 && l->num_workers > 0 &&
                         l->num_workers + py->intra_op_threads > cores &&
                         (isnan(py->sampled_cores) ? py->workers_busy >= IDLE : loaded);
    if (py->startup_wait_ns >= py->wait_ns)   /* the larger cause first: it leads the verdict's fix */
        startup_advice(r, py, l, total);
    if (s >= MIN_DATA_SHARE)
        steady_advice(py, l, s, machine, &capped);
    if (py->startup_wait_ns < py->wait_ns)
        startup_advice(r, py, l, total);
}

static void copy_advice(struct ps_pytorch *py)
{
    const struct ps_py_loader *l = py->nloaders ? &py->loaders[0] : NULL;
    if (py->copies_pageable > 0)
        advise(py, PS_BN_MEMCPY, "%lld of %lld host-to-device copies (Tensor.to / .cuda) came from pageable memory%s: "
               "set pin_memory=True on the DataLoader and copy with .to(device, non_blocking=True).",
               (long long)py->copies_pageable, (long long)py->copies,
               l && l->pin_memory == 0 ? " and the DataLoader has pin_memory=False" : "");
    else if (py->copies_blocking > 0)
        advise(py, PS_BN_MEMCPY, "%lld host-to-device copies from pinned memory used non_blocking=False: pass "
               "non_blocking=True so they overlap compute.", (long long)py->copies_blocking);
}

int ps_pytorch_compute(struct ps_report *r, const struct ps_view *all, const struct ps_view *scope,
                       struct ps_names *names)
{
    int64_t *iter_start = NULL;
    size_t niter = 0;
    struct ps_ivls wait = { 0 };
    struct ps_pytorch *py = calloc(1, sizeof *py);
    if (!py)
        return -ENOMEM;
    *py = (struct ps_pytorch){ .cores = -1, .workers_busy = NAN, .more_workers = -1, .intra_op_threads = -1,
                               .sampled_cores = NAN };
    struct iter_seeds seeds = { 0 };
    int rc = read_loaders(r, scope, py, &iter_start, &niter, &seeds);
    if (rc >= 0)
        rc = read_workers(r, all, py, rc, &seeds);
    free(seeds.v);
    if (rc == 0 && !py->hooked && !py->nloaders && !py->nworkers)
        goto out;                   /* not recorded with the hook */
    if (rc == 0)
        rc = measure_waits(r, scope, names, py, iter_start, niter, &wait);
    if (rc == 0 && py->nworkers)
        rc = measure_workers(all, py, &wait);
    if (rc == 0)
        sampled_load(r, py);
    if (rc == 0) {
        loader_advice(r, py);
        copy_advice(py);
        r->py = py;
        py = NULL;
    }
out:
    ps_ivls_fini(&wait);
    free(iter_start);
    ps_pytorch_free(py);
    return rc;
}

void ps_pytorch_free(struct ps_pytorch *py)
{
    if (py) {
        free(py->workers);
        free(py);
    }
}
