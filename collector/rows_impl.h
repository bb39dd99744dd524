/* The state shared by rows.c (ring records -> rows), rows_procs.c (processes, threads, samples, the end of the
 * run) and rows_python.c (Python stack samples): private to those files. */
#ifndef PS_ROWS_IMPL_H
#define PS_ROWS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "maps.h"
#include "collector/rows.h"

struct proc {
    uint32_t pid, ppid;
    int probed;                 /* a PS_WIRE_PROCESS record arrived */
    char *exe, *cmdline, *comm;
    int64_t attach_ns;          /* stored time */
    int32_t rank, local_rank, world_size;
    uint32_t rings;
    uint64_t dropped, unbalanced, unknown;
    uint64_t invalid;               /* records no probe wrote, left out (rows.c, "Records no probe wrote") */
    struct ps_u64map domains;       /* NVTX domain ids the process defined (PS_WIRE_NVTX_DOMAIN); 0 is always one */
    struct ps_ring_drops drops;     /* `dropped` by cause (summed over the process's rings) */
    int still_running;              /* alive when CMD exited: later records are missing */
    uint64_t unterminated;          /* push/pop ranges never popped (PS_WIRE_NVTX_OPEN rows) */
    int cuda_injected;
    int cuda_state;             /* enum ps_cuda_state, 0 none */
    char *cuda_msg;
};

struct ring {
    uint32_t pid;
    size_t proc;                /* index in ps_rows.procs */
    ps_rows_clock_fn clock;
    const void *clock_ctx;
    struct ps_u64map lane_strings;  /* lane << 32 | id -> struct ps_str * */
    struct ps_u64map registered;    /* registered id -> StringIds id << 1 | defined */
    struct ps_ring_drops drops;     /* the last count reported */
    int64_t seen_gtid;              /* the thread of the last record taken (known): spares a lookup per record */
    struct ps_u64map py_frames;     /* the hook's frame id -> PERFSCOPE_PYTHON_FRAMES.id (rows_python.c) */
};

struct thread {
    int64_t gtid;
    struct ps_str *nvtx_name, *os_name;
};

struct ps_rows {
    struct ps_tw *w;
    struct ps_gpu_rows *gpu;
    int64_t origin_ns;
    int64_t now_ns;                 /* CLOCK_MONOTONIC ns read when a record's time passed the last one read */
    struct ring *rings;
    size_t n_rings, cap_rings;
    struct proc *procs;
    size_t n_procs, cap_procs;
    struct ps_u64map proc_by_pid;   /* pid -> index in procs */
    struct thread *threads;
    size_t n_threads, cap_threads;
    struct ps_u64map thread_by_gtid;
    uint64_t nvtx_rows, unresolved_strings;
    uint64_t other_pidns_rings;     /* rings written in another PID namespace */
    uint64_t corrupt_rings;         /* rings whose reading stopped on nonsense */
    sqlite3_stmt *st_state, *st_regmap; /* PERFSCOPE_RECOVERY_STATE / _REGISTERED rows, NULL: not kept */
    int replaying;                  /* ps_rows_restore_record: state only, nothing written */
    sqlite3_stmt *st_range, *st_mark;   /* the hot rows: no attributes, text or no message */
    sqlite3_stmt *st_full, *st_psample, *st_tsample;
    sqlite3_stmt *st_live_clear, *st_live_open;     /* PERFSCOPE_LIVE_OPEN_RANGES, prepared on first use */
    sqlite3_stmt *st_names_clear, *st_threads_clear, *st_proc, *st_thread;   /* ps_rows_publish_names */
    struct py_rows *py;             /* Python stack samples (rows_python.c), made on first use; NULL: none yet */
};

/* The process entry of `pid`, created on first sight. -ENOMEM on failure, else its index in r->procs. */
long ps_rows_proc_index(struct ps_rows *r, uint32_t pid);
/* The thread entry of (pid, tid), created on first sight. NULL: no memory. */
struct thread *ps_rows_thread_get(struct ps_rows *r, uint32_t pid, uint32_t tid);
/* ps_tw_intern of `s` with invalid UTF-8 replaced. NULL: no memory. */
struct ps_str *ps_rows_intern_utf8(struct ps_rows *r, const char *s);
/* strdup of `s` with invalid UTF-8 replaced (free it). NULL: no memory. */
char *ps_rows_dup_utf8(const char *s);
/* 1 when CLOCK_MONOTONIC `ns` lies between the session's start and now (rows.c, "Records no probe wrote"). */
int ps_rows_in_session(struct ps_rows *r, int64_t ns);

/* ---- rows_python.c ---- */
/* A PS_WIRE_PY_FRAME / PS_WIRE_PY_SAMPLE record of ring g (its time through g's clock). 0, or -EIO /
 * -ENOMEM when writing fails; a malformed record is counted in unknown, one no probe wrote in invalid. While
 * r->replaying a frame record only maps its id (to the frame row a dead recorder wrote). */
int ps_rows_py_frame(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec);
int ps_rows_py_sample(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec);
/* Free what rows_python.c holds (r->py and each ring's py_frames). */
void ps_rows_py_free(struct ps_rows *r);

#endif
