/* The per-process shared-memory ring between the probe (writers: any thread of the target, lock-free,
 * never waiting; a full ring drops the record and counts it) and the collector (one reader per ring).
 * The ring lives in a file in the recording-session directory, so records written before a crash or
 * SIGKILL of the target are still drained. Record format: common/ps_wire.h. */
#ifndef PS_RING_H
#define PS_RING_H

#include <stddef.h>
#include <stdint.h>

#include "ps_wire.h"

#define PS_RING_DEFAULT_BYTES (512u << 20)  /* per process, virtual: a sparse file whose pages are allocated as
                                               chunks are first used (memory = most bytes ever in flight, see
                                               docs/probe.md); option `record --ring-size`, env PERFSCOPE_RING_BYTES */
/* The sizes ps_ring_create accepts, bytes: the smallest is the header page, the lane table (1024 x 64 bytes),
 * the open-range table (1024 lanes x 16 slots x 32 bytes) and 16 chunks of 4 KiB (ps_ring_layout.h; 644 KiB);
 * the largest is 1 TiB (address space of a sparse file). */
#define PS_RING_MIN_BYTES 659456ull
#define PS_RING_MAX_BYTES (1ull << 40)

/* ---- reader side (collector) ---- */

struct ps_ring_reader;

/* Open an existing ring file for draining. Returns 0 and *out, or -errno (-EPROTO: not a ring / wrong version). */
int ps_ring_reader_open(const char *path, struct ps_ring_reader **out);
void ps_ring_reader_close(struct ps_ring_reader *r);            /* NULL is a no-op */

/* Call `fn(ctx, lane, rec)` for every record committed since the last drain, in per-thread order; `rec` is a
 * private copy (the ring is the writer's to scribble on), valid only during the call; `lane` identifies the
 * writing thread's lane (for PS_WIRE_LANE_STRING ids). Stops early if fn returns non-zero (that value is
 * returned, and that record is delivered again by the next drain); else returns the number of records
 * drained (>= 0), -ENOMEM, or -EBADMSG once the ring holds nonsense (a size, offset, link or count no writer
 * makes, or a file truncated under the mapping: the SIGBUS of that read is caught, see ps_ring_reader.c;
 * ps_ring_reader_corrupt says what; the ring is never read again, records already delivered stand).
 * Records are never torn: a writer killed mid-record leaves it invisible. One reader per ring: drained
 * chunks go back to the writers (at once, or with ps_ring_reader_hold_chunks when released), so a second
 * reader would miss them. Implemented in ps_ring_reader.c. */
long ps_ring_reader_drain(struct ps_ring_reader *r,
                          int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx);

/* Why the ring is no longer read ("chunk 7 of lane 2 links to chunk 90000 of 160"), or NULL while it makes
 * sense. */
const char *ps_ring_reader_corrupt(const struct ps_ring_reader *r);

/* A place in a lane: the chunk (index + 1) and the byte offset in it of the next record to read. */
struct ps_ring_pos {
    uint32_t chunk;
    uint32_t offset;
};

/* Keep drained chunks out of the writers' hands until ps_ring_reader_release says their records are stored
 * (for a reader whose records are only safe once a transaction commits: a reader that dies in between leaves
 * them in the ring for ps_ring_reader_seek). Call before the first drain. */
void ps_ring_reader_hold_chunks(struct ps_ring_reader *r);
/* Where the next drain of `lane` resumes (chunk 0: it has not started). Drain thread only. */
void ps_ring_reader_position(const struct ps_ring_reader *r, uint32_t lane, struct ps_ring_pos *out);
/* Give the writers back the chunks of `lane` before `upto` (a position from ps_ring_reader_position), whose
 * records are stored. May run on another thread than the drain; calls for one lane must not overlap. */
void ps_ring_reader_release(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *upto);
/* Resume `lane` at `pos` (a position a dead reader stored): 0, -EINVAL (not a place in a chunk) or -ENOENT
 * (not on the lane's chain of chunks). Before the lane's first drain. */
int ps_ring_reader_seek(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *pos);

/* Call `fn(ctx, lane, rec)` once for every push/pop range the ring's threads pushed and had not popped
 * (ps_ring_layout.h, struct ps_ring_open): `rec` is a PS_WIRE_NVTX_OPEN record made for the call (start_tsc
 * raw, end_tsc 0, h.flags the message kind PS_WIRE_MSG_LANE / _REGISTERED / _NONE and PS_WIRE_OPEN_SLOT),
 * valid only during it. Meaningful once the writing process is gone (exited, crashed, killed): while it runs,
 * ranges open and close under the reader. A live slot no writer would have filled so (a message kind it never
 * stores, a level past the probe's stacks, no thread, padding that is not zero: the program wrote over the table)
 * is left out and counted (ps_ring_reader_open_refused); its times, thread and domain are the caller's to check.
 * Returns the number of ranges, or fn's non-zero value (then it stops). */
long ps_ring_reader_open_ranges(struct ps_ring_reader *r,
                                int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx);
/* The live slots the last ps_ring_reader_open_ranges left out as no range a writer mirrored. */
uint64_t ps_ring_reader_open_refused(const struct ps_ring_reader *r);

/* Records the writers dropped (exact counts), by cause. */
struct ps_ring_drops {
    uint64_t full;                  /* no chunk free (the collector was behind by the whole ring), or a record
                                       larger than a chunk, or one that depended on such a record */
    uint64_t nolane;                /* threads beyond the ring's 1024 lanes */
    uint64_t limit;                 /* beyond the probe's limits: nesting depth, start/end table */
    uint64_t alloc;                 /* a fresh chunk could not be allocated (file system full) */
};

/* Every cause together: the records dropped. */
static inline uint64_t ps_ring_drops_total(const struct ps_ring_drops *d)
{
    return d->full + d->nolane + d->limit + d->alloc;
}

/* 0, or -EBADMSG with *out zeroed when a count is nonsense (above what a writer could have counted since the ring
 * was made, one a nanosecond per counter, or above 2^48): the ring is then corrupt (ps_ring_reader_corrupt) and its
 * drops unknown. */
int ps_ring_reader_drops(struct ps_ring_reader *r, struct ps_ring_drops *out);
/* The pid of the process that owns the ring, in its PID namespace (ps_ring_reader_pidns). */
uint32_t ps_ring_reader_pid(const struct ps_ring_reader *r);
/* The inode of the writer's PID namespace (/proc/self/ns/pid), 0 when it could not tell. */
uint64_t ps_ring_reader_pidns(const struct ps_ring_reader *r);
/* Convert a raw probe timestamp (`*_tsc` fields) to CLOCK_MONOTONIC ns. */
int64_t ps_ring_reader_to_ns(const struct ps_ring_reader *r, uint64_t tsc);

#endif
