/* GPU rows: the CUPTI-derived ring records (types PS_WIRE_GPU_FIRST..PS_WIRE_GPU_LAST) become the
 * CUPTI_ACTIVITY_KIND_* / TARGET_INFO_GPU tables here. The writer thread calls this for every such record. */
#ifndef PS_GPU_ROWS_H
#define PS_GPU_ROWS_H

#include <stdint.h>

#include "ps_wire.h"
#include "rows.h"
#include "trace_writer.h"

struct ps_gpu_rows;

/* The process a GPU record came from. */
struct ps_gpu_src {
    uint32_t pid;
    int64_t global_pid;         /* ps_global_pid(pid) */
    int64_t origin_ns;          /* stored time = CLOCK_MONOTONIC ns - origin_ns */
};

/* State kept across records (prepared statements, caches); tables are created on first use.
 * Returns 0 and *out (free with ps_gpu_rows_free) or -ENOMEM. */
int ps_gpu_rows_new(struct ps_tw *w, struct ps_gpu_rows **out);
void ps_gpu_rows_free(struct ps_gpu_rows *g);   /* NULL is a no-op */

/* Write the rows of one GPU record. Returns 0 when written, 1 when the record type is not understood
 * (the caller counts it in PERFSCOPE_PROCESS_INFO.unknownRecords), -EIO / -ENOMEM when writing failed. */
int ps_gpu_rows_write(struct ps_gpu_rows *g, const struct ps_gpu_src *src, const struct ps_wire_hdr *rec);

/* Called by the drain thread on the in-memory copy of each GPU record, while the ring's clock calibration
 * is current: turn any raw probe timestamps (`*_tsc` fields) into CLOCK_MONOTONIC ns in place with
 * `clock(ctx, tsc)`. Fields already in ns stay as they are. */
void ps_gpu_rows_to_ns(struct ps_wire_hdr *rec, ps_rows_clock_fn clock, const void *ctx);

#endif
