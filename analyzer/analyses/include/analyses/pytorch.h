/* The pytorch family (analyzer/analyses/pytorch/): what perfscope's Python hook saw in a PyTorch program
 * (docs/python.md): its DataLoaders and their workers, the step thread's waits for data, the copies, and advice
 * worded from them. Uses the base, steps, timeline and breakdown families. Times are ns. */
#ifndef PS_ANALYSES_PYTORCH_H
#define PS_ANALYSES_PYTORCH_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_report;
struct ps_view;
struct ps_names;

struct ps_py_loader {              /* a torch DataLoader of the step process, from the hook's "DataLoader#N" marks */
    int32_t number;                /* N */
    int32_t iterators;             /* iterators made (epochs) */
    char iterator[64];             /* iterator class, e.g. _MultiProcessingDataLoaderIter */
    int32_t num_workers, pin_memory, persistent_workers, prefetch_factor, batch_size;   /* -1 unknown */
};

struct ps_py_worker {              /* a DataLoader worker process ("DataLoader worker" mark) */
    uint32_t pid;
    int32_t id, loader;            /* worker id, DataLoader#; -1 unknown */
    int64_t fetches, fetch_ns;     /* batches it fetched (its *.fetch ranges) and their total time */
    int64_t busy_wait_ns;          /* time inside its ranges while the step thread waited for data (py->wait_ns) */
    int64_t cpu_ns, life_ns;       /* host samples: CPU it used, span of its samples; -1 unknown */
};

#define PS_PY_MAX_LOADERS 8
#define PS_PY_MAX_ADVICE 4
struct ps_pytorch {
    int hooked;                    /* "python hook" marks found (processes where the hook ran) */
    char mode[16], torch_version[32];
    int32_t cores;                 /* CPUs the step process may run on (sched_getaffinity), -1 unknown */
    struct ps_py_loader loaders[PS_PY_MAX_LOADERS];   /* in DataLoader# order of first use */
    size_t nloaders;
    struct ps_py_worker *workers;
    size_t nworkers;
    int64_t wait_ns;               /* step thread inside data ranges in the analysed steps, the start-up waits apart
                                    * (iter() and each iterator's first fetch: startup_wait_ns) (union) */
    int64_t first_fetch_wait_ns;   /* the first fetches of the iterators (worker start-up), in the steps */
    double workers_busy;           /* mean over workers of busy_wait_ns / wait_ns; NAN: no worker or no wait */
    int more_workers;              /* 1 more workers help, 0 they would not, -1 unknown / not relevant */
    int suggest_workers;           /* num_workers to try, 0 none */
    int64_t copies, copies_pageable, copies_blocking;   /* the hook's copy_to_device ranges (step process) */
    char advice[PS_PY_MAX_ADVICE][400];
    enum ps_bottleneck advice_for[PS_PY_MAX_ADVICE];  /* the verdict each piece of advice is for */
    size_t nadvice;
    /* worker start-up and a busy machine (docs/python.md "Start-up", "A busy machine") */
    int64_t startup_wait_ns;       /* the step thread's waits in iter() (the __iter__ ranges), in the first fetch of
                                    * each iterator that started workers and (persistent_workers=False) in the last
                                    * fetch of each iterator followed by another (its workers exit), in the analysed
                                    * steps (not in wait_ns) */
    int64_t startups;              /* iterators that started workers (DataLoader#N marks of loaders with workers) */
    char start_method[16];         /* the first loader's worker start method ("fork", "spawn", "forkserver"; "") */
    int32_t intra_op_threads;      /* the training process's torch.get_num_threads(), -1 unknown */
    int oversubscribed;            /* 1: the first loader's workers + intra-op threads > cores, and the sampled
                                    * processes kept 75 % of the cores busy (without host samples: the workers were
                                    * busy at least half the steady waits) */
    double sampled_cores;          /* CPUs the sampled processes used on average over their samples; NAN unknown */
};

/* pytorch.c: what perfscope's Python hook saw (r->py; NULL when the trace holds none of its marks): the hook's
 * marks and the DataLoader worker processes from `all`, the loaders, the step thread's waits for data and the
 * copies from `scope` (the analysed process), each worker's busy time from its own process view; then advice
 * worded from them, which the verdict's fix takes up for its bottleneck. 0 or -ENOMEM. */
int ps_pytorch_compute(struct ps_report *r, const struct ps_view *all, const struct ps_view *scope,
                       struct ps_names *names);
void ps_pytorch_free(struct ps_pytorch *py);   /* NULL is a no-op */

/* proc_ranks.c: each process's rank and world size among `rows`' ranges (the hook's `distributed` marks, else the
 * processes' environment; struct ps_proc_ranks: analyses/base.h), for every process of the model. 0 or -ENOMEM
 * (*p then holds nothing); ps_proc_ranks_fini releases it (a zeroed one too). */
int ps_proc_ranks_find(const struct ps_view *rows, struct ps_proc_ranks *p);
void ps_proc_ranks_fini(struct ps_proc_ranks *p);

#endif
