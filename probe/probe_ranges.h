/* NVTX start/end ranges of the probe (probe_ranges.c): ids unique per process, ended on any thread. */
#ifndef PS_PROBE_RANGES_H
#define PS_PROBE_RANGES_H

#include <stdint.h>

#include "ps_wire.h"

struct probe_thread;

/* Open a range that started at `now` (ring clock) on thread t; `text` (UTF-8, copied) or `regid` (a
 * registered string id, or 0) is its message, `attr` its attributes. Returns the nvtxRangeId_t (never 0);
 * when no slot is free the range is counted as dropped at once and its end is ignored (its id has bit 63 set
 * and check bits, so that an end of an id no start returned, such as -1, is still counted as unbalanced). */
uint64_t probe_range_start(struct probe_thread *t, uint32_t domain, uint64_t now, const char *text,
                           uint32_t regid, const struct ps_wire_nvtx_attr *attr);

/* End range `id` at `now` on thread t (any thread): writes its PS_WIRE_NVTX_STARTEND record in t's lane;
 * an unknown or already ended id writes PS_WIRE_NVTX_UNBALANCED (flags PS_WIRE_UNBALANCED_END). */
void probe_range_end(struct probe_thread *t, uint64_t id, uint64_t now);

/* In a forked child (single-threaded, from the atfork handler): forget the parent's open start/end ranges.
 * They belong to the parent, which writes them when they end; the child ending one writes an unbalanced end. */
void probe_ranges_forget(void);

#endif
