/* ps_model_finish (model.h): each kind of row sorted by (start, end) (sort.c), and each GPU op linked to the API
 * call that launched it (same correlation id, same process unless ids are file-global); the reader-time state is
 * freed after. A growing model's finish is grow.c's. The model's top file: it calls grow.c, sort.c and model.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "introsort.h"
#include "model/model.h"
#include "model_impl.h"

struct corr_key {
    uint64_t correlation;
    uint32_t pid;
    uint32_t api;         /* index into model.api */
};

static int cmp_corr(const struct corr_key *x, const struct corr_key *y)
{
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    return x->api < y->api ? -1 : x->api > y->api;
}

#define LESS_CORR(a, b) (cmp_corr((a), (b)) < 0)
DEFINE_SORT(sort_corr, struct corr_key, LESS_CORR)
int ps_model_finish(struct ps_model *m)
{
    if (m->gpu_build && m->gpu_build->growing)
        return ps_model_grow_finish(m);
    ps_model_sort_gpu(m, 0, m->gpu.n, NULL);
    ps_model_sort_api(m->api.v, m->api.n);
    ps_model_sort_ranges(m->ranges.v, m->ranges.n);
    if (m->open_ranges.n > 1)
        qsort(m->open_ranges.v, m->open_ranges.n, sizeof *m->open_ranges.v, ps_model_cmp_open);

    uint64_t *corr = m->gpu_build ? m->gpu_build->corr : NULL;
    free(m->gpu_launch);
    m->gpu_launch = NULL;
    int rc = 0;
    struct corr_key *keys = NULL;
    if (m->api.n == 0 || m->gpu.n == 0 || !corr)
        goto out;
    rc = -ENOMEM;
    keys = malloc(m->api.n * sizeof *keys);
    if (!keys || !(m->gpu_launch = malloc(m->gpu.n * sizeof *m->gpu_launch)))
        goto out;
    size_t nkeys = 0;
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *c = &m->api.v[i];
        if (c->correlation == 0)
            continue;
        uint32_t pid = m->correlation_global ? 0 : m->threads.v[c->thread].pid;
        keys[nkeys++] = (struct corr_key){ c->correlation, pid, (uint32_t)i };
    }
    sort_corr(keys, nkeys);
    size_t linked = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        m->gpu_launch[i] = PS_NONE;
        if (corr[i] == 0)
            continue;
        uint32_t stream = m->gpu_attrs.v[m->gpu.v[i].attr].stream;
        struct corr_key want = { corr[i], m->correlation_global ? 0 : m->streams.v[stream].pid, 0 };
        size_t lo = 0, hi = nkeys;
        while (lo < hi) {       /* first key >= want */
            size_t mid = (lo + hi) / 2;
            if (cmp_corr(&keys[mid], &want) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nkeys && keys[lo].pid == want.pid && keys[lo].correlation == want.correlation) {
            m->gpu_launch[i] = keys[lo].api;
            linked++;
        }
    }
    if (!linked) {   /* nothing to keep: every op reads PS_NONE */
        free(m->gpu_launch);
        m->gpu_launch = NULL;
    }
    rc = 0;
out:
    free(keys);
    ps_model_build_free(m);   /* correlation ids are now in the links, the attribute index is rebuilt on demand */
    return rc;
}
