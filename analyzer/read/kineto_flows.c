/* The Kineto reader's bookkeeping for after the parse: ac2g flows, turned into the model's TraceLens link set
 * (model.flow_linked), and the `M` process / thread names, applied to the model. */
#include <errno.h>
#include <stdlib.h>

#include "kineto_text.h"

static int place_of(struct ps_kflows *f, uint32_t pid, uint32_t tid, uint32_t *out)
{
    uint64_t key = (uint64_t)pid << 32 | tid;
    uint32_t p = ps_idmap_get(&f->places, key);
    if (p == PS_NONE) {
        p = f->nplaces++;
        if (ps_idmap_put(&f->places, key, p) < 0)
            return -ENOMEM;
    }
    *out = p;
    return 0;
}

int ps_kflows_flow(struct ps_kflows *f, int is_start, uint64_t id, uint32_t pid, uint32_t tid)
{
    uint32_t p = 0;
    f->any = 1;
    if (is_start)
        return ps_idmap_put(&f->starts, id, 0);
    return place_of(f, pid, tid, &p) < 0 ? -ENOMEM : ps_idmap_put(&f->ends, id, p);
}

int ps_kflows_gpu(struct ps_kflows *f, uint64_t corr, uint32_t pid, uint32_t tid)
{
    uint32_t p;
    return place_of(f, pid, tid, &p) < 0 ? -ENOMEM : ps_idmap_put(&f->gpu, corr, p);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int ps_kflows_finish(struct ps_kflows *f, struct ps_model *m)
{
    const struct ps_u64map *gpu = &f->gpu.map;
    m->has_flows = f->any;
    if (!f->any || !gpu->len)
        return 0;
    uint64_t *v = malloc(gpu->len * sizeof *v);
    if (!v)
        return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < gpu->cap; i++) {
        if (!gpu->used[i])
            continue;
        uint64_t corr = gpu->keys[i];
        /* TraceLens: the runtime event's id needs an 's' and an 'f'; the GPU event is the one at the 'f''s
         * (pid, tid) with that id (the last such event in the file, as its dict keeps it) */
        if (ps_idmap_get(&f->starts, corr) != PS_NONE && ps_idmap_get(&f->ends, corr) == (uint32_t)gpu->vals[i])
            v[n++] = corr;
    }
    qsort(v, n, sizeof *v, cmp_u64);
    free(m->flow_linked);
    m->flow_linked = v;
    m->nflow_linked = n;
    return 0;
}

void ps_kflows_fini(struct ps_kflows *f)
{
    ps_idmap_fini(&f->starts);
    ps_idmap_fini(&f->ends);
    ps_idmap_fini(&f->gpu);
    ps_idmap_fini(&f->places);
    *f = (struct ps_kflows){ 0 };
}

int ps_kineto_names_add(struct ps_kineto_names *n, int is_thread, struct ps_kineto_named item)
{
    struct ps_kineto_named **v = is_thread ? &n->threads : &n->procs;
    size_t *len = is_thread ? &n->nthreads : &n->nprocs, *cap = is_thread ? &n->cap_threads : &n->cap_procs;
    if (*len == *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        struct ps_kineto_named *nv = realloc(*v, ncap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*len)++] = item;
    return 0;
}

void ps_kineto_names_fini(struct ps_kineto_names *n)
{
    free(n->procs);
    free(n->threads);
    *n = (struct ps_kineto_names){ 0 };
}

int ps_kineto_names_apply(struct ps_model *m, const struct ps_kineto_names *n)
{
    const struct ps_kineto_named *procs = n->procs, *threads = n->threads;
    size_t nprocs = n->nprocs, nthreads = n->nthreads;
    struct ps_idmap pmap = { 0 }, tmap = { 0 };
    int rc = -ENOMEM;
    for (size_t i = 0; i < m->threads.n; i++)
        if (ps_idmap_put(&tmap, (uint64_t)m->threads.v[i].pid << 32 | m->threads.v[i].tid, (uint32_t)i) < 0)
            goto out;
    for (size_t p = 0; p < m->procs.n; p++)
        if (ps_idmap_put(&pmap, m->procs.v[p].pid, (uint32_t)p) < 0)
            goto out;
    for (size_t i = 0; i < nprocs; i++) {
        uint32_t p = ps_idmap_get(&pmap, procs[i].pid);
        if (p != PS_NONE)
            m->procs.v[p].name = procs[i].name;
    }
    for (size_t i = 0; i < nthreads; i++) {
        uint32_t t = ps_idmap_get(&tmap, (uint64_t)threads[i].pid << 32 | threads[i].tid);
        if (t != PS_NONE)
            m->threads.v[t].name = threads[i].name;
    }
    rc = 0;
out:
    ps_idmap_fini(&pmap);
    ps_idmap_fini(&tmap);
    return rc;
}
