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

/* New converter. `cbname` may be NULL (API rows then get "cbid:<domain>:<n>" names). `clock_offset_ns` is
 * added to every CUPTI timestamp (0 when CUPTI uses perfscope's CLOCK_MONOTONIC callback).
 * Returns 0 and *out, or -ENOMEM. Not thread-safe: the caller serialises calls on one converter. */
int ps_cupti_conv_new(ps_cupti_emit_fn emit, void *emit_ctx, ps_cupti_cbname_fn cbname,
                      int64_t clock_offset_ns, struct ps_cupti_conv **out);
void ps_cupti_conv_free(struct ps_cupti_conv *c);   /* NULL is a no-op */

/* Convert one activity record and emit it (after the PS_WIRE_GPU_STRING records it needs, each written
 * once per process). Records without timing (start or end 0, or end < start) are dropped and counted;
 * kinds perfscope does not convert are counted. Returns 0, or -ENOMEM (the record is lost and counted). */
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
