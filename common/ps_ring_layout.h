/* The byte layout of a ring file, shared by the writer (probe) and the reader (collector) halves of
 * common/ps_ring.c. Private to those two and to ps_ring_writer.h's inline helpers: other code uses ps_ring.h
 * (reader) or ps_ring_writer.h.
 * docs/probe.md draws the same layout. */
#ifndef PS_RING_LAYOUT_H
#define PS_RING_LAYOUT_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define PS_RING_MAGIC        0x0131474e49525350ull   /* "PSRING1\1" little-endian */
#define PS_RING_LAYOUT       2                       /* 2: the open-range table */
#define PS_RING_HDR_BYTES    4096u
#define PS_RING_LANES        1024u                   /* threads that can hold a lane at once */
#define PS_RING_CHUNK_MAX    (64u << 10)
#define PS_RING_CHUNK_MIN    (4u << 10)
#define PS_RING_MIN_CHUNKS   16u
#define PS_RING_OPEN_SLOTS   16u                     /* open push/pop ranges mirrored per lane */
#define PS_RING_OPEN_LEVELS  (1u << 16)              /* a mirrored range's level is below this: the probe keeps
                                                        no deeper push/pop nesting (probe/nvtx_inject.c STACK_MAX) */

enum ps_ring_clock {
    PS_RING_CLOCK_MONO = 1,     /* *_tsc fields are CLOCK_MONOTONIC ns */
    PS_RING_CLOCK_TSC = 2,      /* *_tsc fields are invariant-TSC ticks; cal_* maps them */
};

/* At offset 0. Immutable after creation except the atomics. */
struct ps_ring_hdr {
    uint64_t magic;
    uint32_t layout;            /* PS_RING_LAYOUT */
    uint32_t wire_version;      /* PS_WIRE_VERSION */
    uint32_t pid;
    uint32_t clock;             /* enum ps_ring_clock */
    uint64_t file_bytes;
    uint32_t chunk_bytes;       /* chunk header included */
    uint32_t nchunks;
    uint32_t nlanes;
    uint32_t pad0;
    uint64_t lanes_off, chunks_off;
    uint64_t cal_tsc;           /* a (TSC, CLOCK_MONOTONIC ns) pair taken when the ring was made */
    int64_t cal_ns;
    uint64_t open_off;          /* the open-range table: nlanes x PS_RING_OPEN_SLOTS struct ps_ring_open */
    uint64_t pidns;             /* inode of the writer's /proc/self/ns/pid (0: unknown): `pid` is a pid there */
    uint8_t pad1[32];
    /* --- shared mutable state, own cache line --- */
    _Atomic uint64_t free_head; /* (ABA tag << 32) | (chunk index + 1); 0 in the low half = empty */
    _Atomic uint32_t fresh_next;/* chunks [fresh_next, nchunks) have never been used */
    _Atomic uint32_t lanes_used;/* lanes [0, lanes_used) have been claimed at least once */
    _Atomic uint64_t dropped_nolane; /* records of threads that found no free lane */
};

/* One per writing thread, 64 bytes. Index + 1 values: 0 means none. */
struct ps_ring_lane {
    _Atomic uint32_t owned;     /* 1 while a thread holds the lane */
    _Atomic uint32_t first_chunk; /* oldest undrained chunk (reader advances it) */
    _Atomic uint32_t cur_chunk; /* chunk the owner writes into */
    uint32_t next_string_id;    /* last PS_WIRE_LANE_STRING id handed out (owner only) */
    _Atomic uint64_t dropped;   /* records dropped by the lane's owners, every cause (the two below included) */
    uint32_t tid;               /* last owner */
    uint32_t pad0;
    _Atomic uint64_t dropped_limit; /* of `dropped`: beyond the probe's limits (nesting depth, start/end table) */
    _Atomic uint64_t dropped_alloc; /* of `dropped`: a fresh chunk could not be allocated (file system full) */
    uint8_t pad[16];
};

/* The open-range table mirrors, per lane, the push/pop ranges its thread has pushed and not yet popped
 * (the first PS_RING_OPEN_SLOTS open at once; deeper ones are not mirrored). A range's record is written
 * only at its pop, so without this a crash or SIGKILL would lose every range open at that moment; the
 * collector reads the live slots once the process is gone and stores those ranges with end NULL.
 * Written only by the lane's owner: fields first, then `state` (release); the pop clears `state`. */
struct ps_ring_open {
    _Atomic uint32_t state;     /* 0: free; else PS_RING_OPEN_LIVE | the message's PS_WIRE_MSG_* kind */
    uint32_t tid;               /* thread that pushed */
    uint64_t start_tsc;         /* ring clock */
    uint32_t domain_id;         /* 0 = default domain */
    uint32_t msg_id;            /* PS_WIRE_MSG_LANE / _REGISTERED id; 0 for _NONE (inline text is not kept) */
    uint32_t level;             /* nesting level in its domain's stack (0 = outermost), < PS_RING_OPEN_LEVELS */
    uint32_t pad;               /* 0 */
};
#define PS_RING_OPEN_LIVE 0x80000000u

/* Each chunk starts with this; records follow, packed, each a multiple of 8 bytes. */
struct ps_ring_chunk {
    _Atomic uint32_t committed; /* end of the published records, offset in the chunk (starts at 16);
                                   the owner stores it with release order after writing a record */
    _Atomic uint32_t next;      /* the lane's next chunk; set once, after the last commit here */
    _Atomic uint32_t free_next; /* free-list link while the chunk is free */
    uint32_t lane;
};

/* A (TSC, CLOCK_MONOTONIC ns) pair: the clock read between two TSC reads, the narrowest of a few tries,
 * the TSC taken as the midpoint (Kineto's ApproximateClock measures pairs the same way). */
static inline void ps_ring_take_pair(uint64_t (*tsc_now)(void), uint64_t *tsc, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        struct timespec ts;
        uint64_t t0 = tsc_now();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t t1 = tsc_now();
        if (t1 - t0 < best) {
            best = t1 - t0;
            *tsc = t0 + (t1 - t0) / 2;
            *ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    }
}

_Static_assert(sizeof(struct ps_ring_lane) == 64, "lane is one cache line");
_Static_assert(sizeof(struct ps_ring_open) == 32, "two open slots per cache line");
_Static_assert(sizeof(struct ps_ring_chunk) == 16, "chunk header keeps records 8-aligned");
_Static_assert(sizeof(struct ps_ring_hdr) <= PS_RING_HDR_BYTES, "header fits its page");

#endif
