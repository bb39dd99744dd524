/* GPU rows: the CUPTI-derived ring records (types PS_WIRE_GPU_FIRST..PS_WIRE_GPU_LAST) become the
 * CUPTI_ACTIVITY_KIND_* / TARGET_INFO_GPU tables here. The writer thread calls this for every such record. */
#ifndef PS_GPU_ROWS_H
#define PS_GPU_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_wire.h"
#include "collector/rows.h"
#include "collector/trace_writer.h"

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

/* At the end of the run, inside the last transaction: define the StringIds of kernel/API names whose string
 * record never arrived ("[perfscope: name not recorded]"), and write the per-process GPU loss counters to
 * PERFSCOPE_META (gpu_dropped_records.pid.N = CUPTI-dropped + ring-full + invalid records, and
 * gpu_cupti_dropped_records / gpu_buffers_refused / gpu_records_without_timestamps / gpu_unknown_kind_records
 * .pid.N) plus run totals gpu_dropped_records and gpu_records_without_timestamps when any process sent GPU
 * counters. *dropped: the run's GPU records lost. 0 or -EIO / -ENOMEM. */
int ps_gpu_rows_finish(struct ps_gpu_rows *g, uint64_t *dropped);

/* nsys' ENUM_CUDA_MEM_KIND id of a CUPTI CUpti_ActivityMemoryKind (PAGEABLE 1 -> 0, PINNED 2 -> 1,
 * DEVICE 3 -> 2, ARRAY 4 -> 3, MANAGED 5 -> 4, DEVICE_STATIC 6 -> 5, MANAGED_STATIC 7 -> 6, else -> 7 Unknown). */
int ps_gpu_nsys_mem_kind(unsigned cupti_kind);

/* The short name of a demangled kernel name (nsys' shortName): the base name without return type, scopes,
 * template arguments and parameters ("void ns::gemm<float>(float*)" -> "gemm"). Writes at most out_len
 * bytes including the NUL; returns 0. */
int ps_gpu_short_name(const char *demangled, char *out, size_t out_len);

#endif
