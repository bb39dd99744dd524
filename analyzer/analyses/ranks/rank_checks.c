/* Several rank files that cannot all be ranks of one run (analyses/ranks.h): the same file given twice, or two files
 * holding one rank. Either would count a rank twice and change every cross-rank figure (the medians, the
 * straggler), so the report refuses them and names both files (docs/distributed.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "analyses/ranks.h"
#include "ps_diag.h"

struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
};

static int cmp_file_id(const void *a, const void *b)
{
    const struct file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return (x->dev > y->dev) - (x->dev < y->dev);
    if (x->ino != y->ino)
        return (x->ino > y->ino) - (x->ino < y->ino);
    return (x->index > y->index) - (x->index < y->index);
}

int ps_multirank_refuse_same_file(const char *const *paths, size_t n, char *err, size_t errlen)
{
    struct file_id *ids = malloc((n + 1) * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0)
            ids[k++] = (struct file_id){ st.st_dev, st.st_ino, i };
    }
    qsort(ids, k, sizeof *ids, cmp_file_id);
    int rc = 0;
    for (size_t i = 0; i + 1 < k && rc == 0; i++)
        if (ids[i].dev == ids[i + 1].dev && ids[i].ino == ids[i + 1].ino)
            rc = ps_err(err, errlen, -EINVAL, "%s and %s are the same file (give each rank's file once)",
                        paths[ids[i].index], paths[ids[i + 1].index]);
    free(ids);
    return rc;
}

int ps_multirank_refuse_shared_ranks(const struct ps_multirank *mr, char *err, size_t errlen)
{
    for (size_t i = 0; i + 1 < mr->nfiles; i++) {
        const struct ps_rank_file *a = &mr->files[i], *b = &mr->files[i + 1];
        if (a->launcher_ranks >= 2 || b->launcher_ranks >= 2 || a->rank < 0 || a->rank != b->rank)
            continue;
        return ps_err(err, errlen, -EINVAL, "%s and %s both hold rank %d (from %s and %s; give each rank's file "
                      "once)", a->path, b->path, a->rank, ps_rank_source_name[a->rank_source],
                      ps_rank_source_name[b->rank_source]);
    }
    return 0;
}
