/* Writer side of the per-process ring (common/ps_ring.h is the reader side): used by the probe.
 * Each writing thread claims a lane, then reserves and commits records in its lane's current chunk;
 * a full chunk is swapped for a free one without locks. Nothing here waits or allocates on the hot path. */
#ifndef PS_RING_WRITER_H
#define PS_RING_WRITER_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "ps_ring_layout.h"
#include "ps_wire.h"

struct ps_ring;                     /* the process's ring, writer side */

/* A thread's claim on a lane. Owned by that thread; zero-initialise before ps_ring_lane_claim. */
struct ps_ring_wlane {
    char *data;                     /* current chunk (its header first); NULL before the first chunk */
    uint32_t pos;                   /* bytes committed in the current chunk, header included */
    uint32_t limit;                 /* chunk size */
    uint32_t index;                 /* lane index (the reader's `lane`) */
    struct ps_ring *ring;
    struct ps_ring_lane *lane;
    struct ps_ring_open *open;      /* the lane's PS_RING_OPEN_SLOTS open-range slots */
    uint32_t open_used;             /* bit i: slot i is live (set at claim from the slots a previous owner left) */
};

#define PS_RING_FORCE_MONO 0x1      /* ps_ring_create flag: timestamp with CLOCK_MONOTONIC even if a TSC exists */

/* Create the ring file `dir`/ring-<pid>-<n>.ps (PS_RING_FILE_FMT, the first n free, O_EXCL), size `bytes`
 * (sparse: chunks are allocated as first used), map it shared and calibrate the clock.
 * `bytes` is rounded down to whole chunks; from PS_RING_MIN_BYTES to PS_RING_MAX_BYTES (ps_ring.h); a
 * RLIMIT_FSIZE below `bytes` makes the ring that size (never SIGXFSZ). No descriptor is kept: fresh chunks are
 * backed through the mapping or by reopening the file by name. On success returns 0, *out, and the path in
 * `path` (if non-NULL, `path_size` bytes). Errors: -errno of open/ftruncate/mmap, -EINVAL for a bad size,
 * -EFBIG when RLIMIT_FSIZE is below PS_RING_MIN_BYTES.
 * Free with ps_ring_free (which keeps the file: the reader owns and deletes it). */
int ps_ring_create(const char *dir, uint64_t bytes, uint32_t flags, struct ps_ring **out,
                   char *path, size_t path_size);

/* 1 if a ring created with `flags` stamps invariant-TSC ticks, 0 if CLOCK_MONOTONIC ns: what
 * ps_ring_uses_tsc will say, known before the ring exists (the probe stamps a first record, then makes it). */
int ps_ring_clock_is_tsc(uint32_t flags);

/* Unmap. NULL is a no-op. Lanes still claimed must not be used afterwards. */
void ps_ring_free(struct ps_ring *r);

/* The largest record a lane takes (a chunk less its header), bytes. */
uint32_t ps_ring_max_record(const struct ps_ring *r);

/* 1 if the ring's timestamps are TSC ticks (read them with ps_ring_clock_now(1)), 0 if CLOCK_MONOTONIC ns. */
int ps_ring_uses_tsc(const struct ps_ring *r);

/* Claim a free lane for the calling thread `tid`; resumes a released lane's chunk and string ids, so
 * per-lane order and ids hold across owners. 0, or -EBUSY when all PS_RING_LANES lanes are held (the
 * caller then counts its records with ps_ring_drop_nolane). */
int ps_ring_lane_claim(struct ps_ring *r, uint32_t tid, struct ps_ring_wlane *w);

/* Mirror a pushed range into a free open-range slot of the lane (ps_ring_layout.h) so that it survives a
 * crash of the process: `start` in the ring clock, `msg_kind` PS_WIRE_MSG_LANE / _REGISTERED (with `msg_id`)
 * or _NONE, `level` its nesting level. Returns the slot (pass it to ps_ring_open_end at the pop), or -EBUSY when
 * all PS_RING_OPEN_SLOTS are live (the range is then simply not mirrored). */
static inline int ps_ring_open_begin(struct ps_ring_wlane *w, uint64_t start, uint32_t tid, uint32_t domain,
                                     uint32_t level, uint32_t msg_kind, uint32_t msg_id)
{
    uint32_t free_bits = ~w->open_used & ((1u << PS_RING_OPEN_SLOTS) - 1);
    if (!w->open || !free_bits)
        return -EBUSY;
    int i = __builtin_ctz(free_bits);
    struct ps_ring_open *o = &w->open[i];
    o->tid = tid;
    o->start_tsc = start;
    o->domain_id = domain;
    o->msg_id = msg_id;
    o->level = level;
    atomic_store_explicit(&o->state, PS_RING_OPEN_LIVE | msg_kind, memory_order_release);
    w->open_used |= 1u << i;
    return i;
}

/* The range mirrored in `slot` (from ps_ring_open_begin; a negative slot is a no-op) was popped. */
static inline void ps_ring_open_end(struct ps_ring_wlane *w, int slot)
{
    if (slot < 0 || !w->open)
        return;
    atomic_store_explicit(&w->open[slot].state, 0, memory_order_release);
    w->open_used &= ~(1u << slot);
}

/* At thread exit: write each range still live in the lane's open-range slots as a PS_WIRE_NVTX_OPEN record
 * (the thread ended inside it) and free the slot, so the lane's next owner has all PS_RING_OPEN_SLOTS. A slot
 * whose record finds no room stays live (the collector still reads it at the end). Returns the records written. */
uint32_t ps_ring_open_flush(struct ps_ring_wlane *w);

/* Give the lane back (thread exit). `w` is zeroed. */
void ps_ring_lane_release(struct ps_ring_wlane *w);

/* A new PS_WIRE_LANE_STRING id for this lane (> 0, never reused in the lane), 0 when exhausted. */
uint32_t ps_ring_lane_string_id(struct ps_ring_wlane *w);

/* Count `n` records dropped by a thread that holds no lane. */
void ps_ring_drop_nolane(struct ps_ring *r, uint64_t n);

/* Count `n` records dropped on this lane for a reason of the caller's (e.g. a record that depends on one
 * that was dropped). */
void ps_ring_lane_drop(struct ps_ring_wlane *w, uint64_t n);

/* Count `n` records dropped on this lane because they are beyond the probe's limits (nesting deeper than
 * its stack, the start/end table full): the reader reports them apart from a full ring. */
void ps_ring_lane_drop_limit(struct ps_ring_wlane *w, uint64_t n);

/* Slow path of ps_ring_reserve: link a fresh or freed chunk. NULL (the record is counted as dropped)
 * when no chunk is free or `bytes` exceeds a chunk. */
void *ps_ring_reserve_slow(struct ps_ring_wlane *w, uint32_t bytes);

/* Room for one record of `bytes` (a multiple of 8) in the lane, or NULL: then the record is already
 * counted as dropped. Fill it, then ps_ring_commit with the same size; nothing is visible before. */
static inline void *ps_ring_reserve(struct ps_ring_wlane *w, uint32_t bytes)
{
    if (w->data && bytes <= w->limit - w->pos) {
        __builtin_prefetch(w->data + w->pos + 512, 1, 3);
        return w->data + w->pos;
    }
    return ps_ring_reserve_slow(w, bytes);
}

/* Publish the record reserved last (release order: the reader sees all of it or nothing). */
static inline void ps_ring_commit(struct ps_ring_wlane *w, uint32_t bytes)
{
    w->pos += bytes;
    atomic_store_explicit((_Atomic uint32_t *)(void *)w->data, w->pos, memory_order_release);
}

/* The ring's clock: invariant-TSC ticks when `tsc`, else CLOCK_MONOTONIC ns. */
static inline uint64_t ps_ring_clock_now(int tsc)
{
#if defined(__x86_64__)
    if (tsc)
        return __rdtsc();
#else
    (void)tsc;
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
