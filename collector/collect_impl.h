/* The insides of the recording pipeline (collect.h), shared by collect.c (the drain and writer threads) and
 * collect_resume.c (`record --recover`). Private to those two. */
#ifndef PS_COLLECT_IMPL_H
#define PS_COLLECT_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu_samples.h"
#include "maps.h"
#include "ps_ring.h"
#include "collector/rows.h"
#include "collector/trace_writer.h"

enum ent_kind { ENT_WIRE, ENT_RING_OPEN, ENT_RING_DROPPED, ENT_RING_ALIVE, ENT_RING_CORRUPT, ENT_RING_POS, ENT_PSAMPLE,
                ENT_TSAMPLE, ENT_GSAMPLE, ENT_LIVE_CLEAR, ENT_LIVE_OPEN, ENT_RING_REFUSED };

struct ent {
    uint32_t size;              /* header + payload, multiple of 8 */
    uint16_t kind;              /* enum ent_kind */
    uint16_t pad;
    uint32_t ring, lane;
};

struct ring_open {
    struct ps_ring_reader *reader;
    uint32_t pid;
    uint32_t other_pidns;           /* the writer's pid is a pid of another PID namespace */
    char file[64];                  /* its name in the session directory (PS_RING_FILE_FMT) */
};

/* Where a lane's drain stood after the records before this entry (ENT_RING_POS). */
struct ring_pos {
    struct ps_ring_reader *reader;
    uint32_t lane;
    struct ps_ring_pos pos;
};

/* The writer's latest ring_pos per (ring, lane) of the open transaction: stored with its rows, and the chunks
 * before it handed back to the probe once they are committed. */
struct pending_pos {
    uint32_t ring;
    struct ring_pos p;
};

struct chunk {
    struct chunk *next;
    size_t len, cap;
    _Alignas(8) char data[];
};

struct ring_file {
    char *name;
    struct ps_ring_reader *reader;
    int corrupt;                    /* reported: no longer read */
};

struct ps_collect {
    char *dir;
    uint64_t pidns;                 /* the recorder's PID namespace inode (0: unknown) */
    int64_t origin_ns;
    struct ps_tw *w;
    struct ps_rows *rows;
    struct ps_gpu_samples *gpu_samples;    /* writer thread; made at the first GPU sample */
    pthread_t drain_thread, writer_thread;
    int drain_started, writer_started;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* queue changed or stop requested */
    struct chunk *head, *tail;
    size_t queued_bytes;
    struct chunk *spare;        /* written chunks kept for reuse: fresh memory costs page faults */
    size_t n_spare;
    int stop_drain;             /* ask the drain thread for its final pass */
    int drain_done;             /* the drain thread pushed its last chunk */
    int write_error;            /* -errno of the first failed write; rows are then discarded */
    _Atomic uint64_t drained;       /* records copied out of the rings (drain thread) */
    uint64_t written;               /* records turned into rows (writer thread) */
    /* writer thread only */
    struct pending_pos *pend;
    size_t n_pend, cap_pend;
    struct ps_u64map pend_at;       /* ring << 32 | lane -> index in pend */
    sqlite3_stmt *st_ring, *st_lane;
    /* drain thread only */
    struct ring_file *rings;
    size_t n_rings, cap_rings;
    struct chunk *cur;
};

/* The two threads (arg: the struct ps_collect). */
void *ps_collect_drain_main(void *arg);
void *ps_collect_writer_main(void *arg);
/* Stop reading ring i: warn once, count it (drain thread). */
void ps_collect_ring_corrupt(struct ps_collect *c, size_t i);
/* The writer's clock: times were converted to CLOCK_MONOTONIC ns by the drain thread. */
int64_t ps_collect_ns_clock(const void *ctx, uint64_t ns);

#endif
