/* GPU memory rows (gpu_memory_rows.c): CUPTI memory and memory-pool records -> Nsight Systems'
 * CUDA_GPU_MEMORY_USAGE_EVENTS / CUDA_GPU_MEMORY_POOL_EVENTS. Private to the collector; gpu_rows.c calls it. */
#ifndef PS_GPU_MEMORY_ROWS_H
#define PS_GPU_MEMORY_ROWS_H

#include "gpu_rows.h"

struct ps_gpu_memory_rows {
    int created;
    sqlite3_stmt *st_usage, *st_pool;   /* finalised by the trace writer (ps_tw_prepare) */
};

/* Write the row of one PS_WIRE_GPU_MEMORY / _MEMPOOL record (tables created on the first). 0 written (or an invalid
 * operation skipped), 1 not such a record or too short, -EIO / -ENOMEM when writing failed. */
int ps_gpu_memory_rows_write(struct ps_gpu_memory_rows *g, struct ps_tw *w, const struct ps_gpu_src *src,
                             const struct ps_wire_hdr *rec);

#endif
