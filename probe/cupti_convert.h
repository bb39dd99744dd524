/* CUPTI activity record -> perfscope GPU wire record (common/ps_wire_gpu.h), for the probe's
 * bufferCompleted callback. Pure conversion: no CUPTI call except the callback-name lookup passed in,
 * so tests feed it buffers of real CUPTI structs (cupti_activity.h, CUDA 13.0) without a GPU. */
#ifndef PS_CUPTI_CONVERT_H
#define PS_CUPTI_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "ps_wire_gpu.h"

struct ps_cupti_conv;

/* Where converted records go (the probe's ring writer). Returns 0, or non-zero when the record was not
 * stored (ring full): the converter counts it in ps_wire_gpu_drops.ring_full and goes on. */
typedef int (*ps_cupti_emit_fn)(void *ctx, const struct ps_wire_hdr *rec);
/* cuptiGetCallbackName's signature: the CUPTI name of an API callback id. */
typedef CUptiResult (*ps_cupti_cbname_fn)(CUpti_CallbackDomain domain, uint32_t cbid, const char **name);
/* cuptiActivityGetNextRecord's signature: the buffer iterator (tests inject their own). */
typedef CUptiResult (*ps_cupti_next_fn)(uint8_t *buffer, size_t valid_bytes, CUpti_Activity **record);

/* New converter. `cbname` may be NULL (API rows then get "cbid:<domain>:<n>" names). CUPTI timestamps are
 * written as they are (CUPTI uses perfscope's CLOCK_MONOTONIC callback) until ps_cupti_conv_clock_pair gives
 * a pair. Returns 0 and *out, or -ENOMEM. Not thread-safe: the caller serialises calls on one converter. */
int ps_cupti_conv_new(ps_cupti_emit_fn emit, void *emit_ctx, ps_cupti_cbname_fn cbname, struct ps_cupti_conv **out);
/* A (CLOCK_MONOTONIC ns, cuptiGetTimestamp ns) pair read at the same moment (the probe takes one at start,
 * every flush period and before the exit flush). From then on CUPTI times are mapped onto CLOCK_MONOTONIC:
 * one pair = a fixed offset; a later pair at least 1 s of CUPTI time after the first = the offset moves
 * linearly from the first pair to the latest such pair (drift-corrected; extrapolated past it). */
void ps_cupti_conv_clock_pair(struct ps_cupti_conv *c, int64_t mono_ns, int64_t cupti_ns);
/* A CUPTI timestamp (ns) on CLOCK_MONOTONIC, as the records are written. */
int64_t ps_cupti_conv_map_time(const struct ps_cupti_conv *c, uint64_t cupti_ns);
void ps_cupti_conv_free(struct ps_cupti_conv *c);   /* NULL is a no-op */

/* Convert one activity record and emit it (after the PS_WIRE_GPU_STRING records it needs, each written
 * once per process: a string the ring refused is sent again with the next record that uses it). Records
 * without timing (start or end 0, or end < start) are dropped and counted, as are event/stream queries on
 * unfinished work (returnValue CUDA_ERROR_NOT_READY) and kinds perfscope does not convert. Records are read
 * through CUDA 13.0's structs: every field read keeps its offset in the later 13.x layouts
 * (probe/cupti_layout.h). Returns 0, or -ENOMEM (the record is lost and counted). */
int ps_cupti_conv_record(struct ps_cupti_conv *c, const CUpti_Activity *rec);

/* Convert every record of a completed CUPTI buffer, iterating with `next` (cuptiActivityGetNextRecord)
 * until CUPTI_ERROR_MAX_LIMIT_REACHED; any other error ends the buffer and counts one invalid record.
 * Returns the number of records read (converted or dropped). */
long ps_cupti_conv_buffer(struct ps_cupti_conv *c, ps_cupti_next_fn next, uint8_t *buffer, size_t valid_bytes);

/* Add records CUPTI itself dropped (cuptiActivityGetNumDroppedRecords) to the running total. */
void ps_cupti_conv_add_cupti_dropped(struct ps_cupti_conv *c, uint64_t n);

/* Emit the cumulative loss counters (PS_WIRE_GPU_DROPS); `buffers_refused` comes from bufferRequested.
 * Returns the emit function's result. */
int ps_cupti_conv_emit_drops(struct ps_cupti_conv *c, uint64_t buffers_refused);

/* The counters so far (tests, logs). */
void ps_cupti_conv_drops(const struct ps_cupti_conv *c, struct ps_wire_gpu_drops *out);

#endif
