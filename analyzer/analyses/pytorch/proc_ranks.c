/* Each process's rank (analyses/pytorch.h ps_proc_ranks_find; docs/distributed.md "Ranks in one trace"): the
 * Python hook's `distributed` mark in it (docs/python.md: rank and world size of its default process group, once
 * init_process_group returns), else the rank its environment gave it (PERFSCOPE_PROCESS_INFO: RANK,
 * OMPI_COMM_WORLD_RANK, ...). The mark comes first: processes started by torch.multiprocessing.spawn get their rank
 * as an argument, not in their environment, and a DataLoader worker inherits its rank's environment but makes no
 * process group. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/pytorch.h"
#include "model/model.h"
#include "model/view.h"

int ps_proc_ranks_find(const struct ps_view *rows, struct ps_proc_ranks *p)
{
    const struct ps_model *m = rows->m;
    size_t n = m->procs.n;
    struct ps_pid_index by_pid;
    p->rank = malloc((n + 1) * sizeof *p->rank);
    p->world = malloc((n + 1) * sizeof *p->world);
    p->marked = calloc(n + 1, sizeof *p->marked);
    if (!p->rank || !p->world || !p->marked || ps_pid_index_init(&by_pid, m) < 0) {
        ps_proc_ranks_fini(p);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        p->rank[i] = m->procs.v[i].rank;
        p->world[i] = -1;
    }
    uint32_t dom = PS_NONE;
    struct ps_hook_mark mk;
    for (size_t i = 0; i < rows->nranges; i++) {
        const struct ps_range *g = ps_view_range(rows, i);
        if (g->thread == PS_NONE || ps_hook_mark_of(m, g, &dom, &mk) < 0 || mk.kind != PS_HOOK_MARK_DISTRIBUTED)
            continue;
        size_t k = ps_pid_index_find(&by_pid, m->threads.v[g->thread].pid);
        int64_t rank;   /* 0 .. INT32_MAX - 1, as PERFSCOPE_PROCESS_INFO's rank (read/read_sqlite_meta.c) */
        if (k == n || ps_hook_mark_int(&mk, "rank", 0, INT32_MAX - 1, &rank) < 0)
            continue;
        p->rank[k] = (int32_t)rank;
        p->world[k] = (int32_t)ps_hook_mark_int_or(&mk, "world_size", 0, INT32_MAX, -1);
        p->marked[k] = 1;
    }
    ps_pid_index_fini(&by_pid);
    return 0;
}

void ps_proc_ranks_fini(struct ps_proc_ranks *p)
{
    free(p->rank);
    free(p->world);
    free(p->marked);
    *p = (struct ps_proc_ranks){ 0 };
}
