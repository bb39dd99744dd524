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
struct ps_model;
struct ps_range;

/* ---- hook_marks.c: the Python hook's marks, read once for every family (docs/python.md "Marks", "Reading a
 * mark") ----
 * A mark's text is `SUBJECT key=value key=value ...`. It comes from the trace file, which is untrusted: nothing
 * here reads past the text's NUL or past PS_HOOK_MARK_MAX + 1 bytes of it, and a value the grammar does not allow
 * is an error, never a guess. Results follow the project's convention: 0, or -ENOENT (the key, or the mark, is
 * absent) or -EINVAL (malformed or out of the asked range); an error leaves no value in the out-parameters
 * (string buffers get ""). Texts are not copied: a struct ps_hook_mark points into the caller's text, which must
 * outlive it. */
enum ps_hook_mark_kind {           /* the SUBJECT, as python/perfscope_hook writes it */
    PS_HOOK_MARK_NONE = 0,
    PS_HOOK_MARK_HOOK,             /* "python hook": the hook installed itself in this process */
    PS_HOOK_MARK_LOADER,           /* "DataLoader#N": an iterator made (N in ps_hook_mark.loader) */
    PS_HOOK_MARK_EPOCH,            /* "DataLoader epoch" */
    PS_HOOK_MARK_WORKER,           /* "DataLoader worker" */
    PS_HOOK_MARK_DISTRIBUTED,      /* "distributed": init_process_group returned */
    PS_HOOK_MARK_PROCESS_GROUP,    /* "process group" */
    PS_HOOK_MARK_COLLECTIVE,       /* "collective": before each collective range */
    PS_HOOK_MARK_DDP,              /* "DDP": a DistributedDataParallel made */
    PS_HOOK_MARK_CUDA_MEMORY,      /* "cuda memory": the caching allocator at a step boundary */
};

/* The probe records at most PROBE_MSG_MAX - 1 = 4095 bytes of a mark's text and cuts a longer one there, backing
 * up over a UTF-8 character it would split (probe/probe.h, probe/probe_strings.c utf8_cut): a longer text is not
 * the hook's, and one of PS_HOOK_MARK_CUT bytes or more may have lost its end. */
#define PS_HOOK_MARK_MAX 4095
#define PS_HOOK_MARK_CUT (PS_HOOK_MARK_MAX - 3)

struct ps_hook_mark {
    enum ps_hook_mark_kind kind;
    int32_t loader;                /* DataLoader#N: N (0 .. INT32_MAX); -1 for the other kinds */
    const char *keys;              /* the text after the subject (points into the text; "" when none) */
    size_t nkeys;                  /* bytes of keys */
    int cut;                       /* 1: the text may have been cut by the probe: its last pair is refused */
};

/* Which of the hook's marks `text` is: 0 and *mk filled; -ENOENT when text is NULL or its subject is none of the
 * hook's (the subject is matched whole: followed by a space or the end); -EINVAL for "DataLoader#" without a
 * number in 0 .. INT32_MAX right after it, or a text longer than PS_HOOK_MARK_MAX bytes. */
int ps_hook_mark_parse(const char *text, struct ps_hook_mark *mk);

/* ps_hook_mark_parse of range g's text when g is an NVTX mark in the hook's domain (PS_PYTHON_HOOK_DOMAIN),
 * else -ENOENT. *dom caches the domain's string id across calls: start it at PS_NONE. */
int ps_hook_mark_of(const struct ps_model *m, const struct ps_range *g, uint32_t *dom, struct ps_hook_mark *mk);

/* The value of `key` (one of [a-z_]+, at most 64 bytes; else -EINVAL) as bytes: *value points into the mark's
 * text, *len > 0, not NUL-terminated, not necessarily UTF-8. A key matches a pair's whole key only (`rank` is
 * neither `world_rank` nor `rank_x`), and only after the subject. -ENOENT: no pair has the key. -EINVAL: the
 * key is written twice (whatever the values), without `=`, with an empty value or a value holding `=`, or its
 * pair is the last one of a text the probe may have cut. */
int ps_hook_mark_value(const struct ps_hook_mark *mk, const char *key, const char **value, size_t *len);
/* An integer value: an optional '-' and decimal digits, nothing else (no '+', no space, no hex), in [min, max]
 * (else -EINVAL, as for a value beyond int64_t: never clamped) into *out. */
int ps_hook_mark_int(const struct ps_hook_mark *mk, const char *key, int64_t min, int64_t max, int64_t *out);
/* ps_hook_mark_int's value, or `unknown` on any error (absent and malformed alike): for fields whose unknown is
 * a sentinel such as -1. */
int64_t ps_hook_mark_int_or(const struct ps_hook_mark *mk, const char *key, int64_t min, int64_t max,
                            int64_t unknown);
/* A flag: the hook writes a bool as `0` or `1`; any other value is -EINVAL. *out gets 0 or 1. */
int ps_hook_mark_flag(const struct ps_hook_mark *mk, const char *key, int *out);
/* A text value copied into out[0..cap) with its NUL; -ENOSPC (out "") when it needs more than cap - 1 bytes:
 * never cut. The bytes are the trace's (renderers replace invalid UTF-8). cap == 0: -EINVAL. */
int ps_hook_mark_str(const struct ps_hook_mark *mk, const char *key, char *out, size_t cap);

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
    unsigned char advice_in_fix[PS_PY_MAX_ADVICE];    /* 1: the verdict's fix quotes it (verdict.c hook_fix): the
                                                       * formats print it there, not a second time */
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
