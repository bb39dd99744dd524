/* The several-rank analysis across rank files already summarised (analyses/ranks.h ps_multirank_from_files): ranks
 * ordered, files that cannot be ranks of one job and two files of one rank refused, stragglers found by step time as for processes of one trace (ranks.c) and
 * by who waits for whom (straggler.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"

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

/* Everything across the ranks, once each file is summarised: ranks ordered, collectives' bandwidths, shared ranks
 * refused, files that cannot be ranks of one job refused (notes for weaker signs), stragglers by step time (among
 * the one-rank files: a launcher trace mixes its ranks, its own report has them) and by who waits for whom. 0,
 * -EDOM or -EINVAL (message in err) or -ENOMEM. */
static int cross_rank(struct ps_multirank *mr, char *err, size_t errlen)
{
    size_t n = mr->nfiles;
    qsort(mr->files, n, sizeof *mr->files, cmp_file);
    collective_bandwidths(mr);
    int rc = ps_multirank_refuse_shared_ranks(mr, err, errlen);   /* the exact reason before the count past the world */
    if (rc == 0)
        rc = ps_multirank_check_one_job(mr, err, errlen);
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

int ps_multirank_from_files(struct ps_multirank *mr, struct ps_rank_file *files, size_t n, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    mr->files = files;
    mr->nfiles = n;
    for (size_t i = 0; i < n; i++)
        if (files[i].rank < 0 && files[i].launcher_ranks < 2)
            files[i].rank = (int32_t)i;        /* PS_RANK_FROM_ORDER, as ps_multirank_compute numbers them */
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
