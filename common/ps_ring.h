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

/* Call `fn(ctx, rec)` for every record committed since the last drain, in per-thread order; `rec` is valid
 * only during the call. Stops early if fn returns non-zero (that value is returned, and that record is
 * delivered again by the next drain); else returns the number of records drained (>= 0), or -ENOMEM.
 * Records are never torn: a writer killed mid-record leaves it invisible. One reader per ring: drained
 * chunks go back to the writers, so a second reader would miss them. Implemented in ps_ring_reader.c. */
/* `lane` identifies the writing thread's lane (for PS_WIRE_LANE_STRING ids). */
long ps_ring_reader_drain(struct ps_ring_reader *r,
                          int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx);

/* Call `fn(ctx, lane, rec)` once for every push/pop range the ring's threads pushed and had not popped
 * (ps_ring_layout.h, struct ps_ring_open): `rec` is a PS_WIRE_NVTX_OPEN record made for the call (start_tsc
 * raw, end_tsc 0, h.flags the message kind PS_WIRE_MSG_LANE / _REGISTERED / _NONE), valid only during it.
 * Meaningful once the writing process is gone (exited, crashed, killed): while it runs, ranges open and
 * close under the reader. Returns the number of ranges, or fn's non-zero value (then it stops). */
long ps_ring_reader_open_ranges(struct ps_ring_reader *r,
                                int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx);

/* Records the writers dropped, every cause (exact count). */
uint64_t ps_ring_reader_dropped(const struct ps_ring_reader *r);

/* The same count by cause; the four add up to ps_ring_reader_dropped. */
struct ps_ring_drops {
    uint64_t full;                  /* no chunk free (the collector was behind by the whole ring), or a record
                                       larger than a chunk, or one that depended on such a record */
    uint64_t nolane;                /* threads beyond the ring's 1024 lanes */
    uint64_t limit;                 /* beyond the probe's limits: nesting depth, start/end table */
    uint64_t alloc;                 /* a fresh chunk could not be allocated (file system full) */
};
void ps_ring_reader_drops(const struct ps_ring_reader *r, struct ps_ring_drops *out);
/* The pid of the process that owns the ring, in its PID namespace (ps_ring_reader_pidns). */
uint32_t ps_ring_reader_pid(const struct ps_ring_reader *r);
/* The inode of the writer's PID namespace (/proc/self/ns/pid), 0 when it could not tell. */
uint64_t ps_ring_reader_pidns(const struct ps_ring_reader *r);
/* Convert a raw probe timestamp (`*_tsc` fields) to CLOCK_MONOTONIC ns. */
int64_t ps_ring_reader_to_ns(const struct ps_ring_reader *r, uint64_t tsc);

#endif
