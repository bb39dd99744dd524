/* GPU wire records (types PS_WIRE_GPU_FIRST..LAST of ps_wire.h): compact copies of CUPTI activity records,
 * written by the probe (probe/cupti_capture.c, probe/cupti_convert.c) and turned into Nsight-Systems-style rows by
 * the collector (collector/gpu_rows.c). Layout rules as in ps_wire.h: struct ps_wire_hdr first, sizes multiples of 8. */
#ifndef PS_WIRE_GPU_H
#define PS_WIRE_GPU_H

#include <stdint.h>

#include "ps_wire.h"

/* Times (`*_ns`) are CLOCK_MONOTONIC ns: on CUPTI versions without the zero-timestamp bug the probe registers a
 * CLOCK_MONOTONIC timestamp callback with CUPTI; elsewhere it maps CUPTI's own clock onto CLOCK_MONOTONIC through
 * (CLOCK_MONOTONIC, cuptiGetTimestamp) pairs before writing (probe/cupti_capture.h).
 * Enumerations keep CUPTI's numbering (cupti_activity.h, CUDA 13.0); the collector maps them to nsys'.
 * `name_id` fields are per-process ids defined by PS_WIRE_GPU_STRING records; a record may arrive before
 * its string (records of different writing threads are not ordered), never the reverse order of use. */
enum ps_wire_gpu_type {
    PS_WIRE_GPU_KERNEL = 100,   /* struct ps_wire_gpu_kernel (CUpti_ActivityKernel10) */
    PS_WIRE_GPU_MEMCPY = 101,   /* struct ps_wire_gpu_memcpy (CUpti_ActivityMemcpy6 / MemcpyPtoP4) */
    PS_WIRE_GPU_MEMSET = 102,   /* struct ps_wire_gpu_memset (CUpti_ActivityMemset4) */
    PS_WIRE_GPU_SYNC = 103,     /* struct ps_wire_gpu_sync (CUpti_ActivitySynchronization2) */
    PS_WIRE_GPU_API = 104,      /* struct ps_wire_gpu_api (CUpti_ActivityAPI, runtime or driver) */
    PS_WIRE_GPU_DEVICE = 105,   /* struct ps_wire_gpu_device + device name (CUpti_ActivityDevice5) */
    PS_WIRE_GPU_CONTEXT = 106,  /* struct ps_wire_gpu_context (CUpti_ActivityContext3) */
    PS_WIRE_GPU_STRING = 107,   /* struct ps_wire_gpu_string + text: defines a per-process name_id */
    PS_WIRE_GPU_DROPS = 108,    /* struct ps_wire_gpu_drops: cumulative loss counters of the process */
    PS_WIRE_GPU_OVERHEAD = 109, /* struct ps_wire_gpu_overhead (CUpti_ActivityOverhead3) */
    PS_WIRE_GPU_MEMORY = 110,   /* struct ps_wire_gpu_memory (CUpti_ActivityMemory4: an allocation or release) */
    PS_WIRE_GPU_MEMPOOL = 111,  /* struct ps_wire_gpu_mempool (CUpti_ActivityMemoryPool3) */
};

#define PS_WIRE_GPU_NONE UINT32_MAX     /* an id/field the record does not know (written as SQL NULL) */

struct ps_wire_gpu_kernel {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint32_t device_id, context_id, stream_id, correlation_id;
    uint32_t name_id;                   /* mangled kernel name (PS_WIRE_GPU_STRING, kind KERNEL_NAME) */
    int32_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
    int32_t static_smem_bytes, dynamic_smem_bytes;
    uint32_t local_mem_per_thread_bytes;
    uint32_t shared_mem_executed_bytes;
    uint16_t registers_per_thread;
    uint8_t launch_type;                /* CUpti_ActivityLaunchType: 0 regular, 1 coop single, 2 coop multi, 3 CBL */
    uint8_t cache_config_requested;     /* CUfunc_cache: 0 none, 1 shared, 2 L1, 3 equal */
    uint8_t shmem_limit_config;         /* CUpti_FuncShmemLimitConfig: 0 default, 1 opt-in */
    uint8_t pad8[3];
    uint32_t graph_id;
    uint32_t cluster_x, cluster_y, cluster_z, cluster_scheduling_policy;
    uint64_t local_mem_total_bytes;
    int64_t grid_id;
    uint64_t graph_node_id;
};

/* struct ps_wire_gpu_memcpy, h.flags */
#define PS_WIRE_GPU_MEMCPY_PEER 0x1     /* from MEMCPY2: src/dst device and context are valid */

struct ps_wire_gpu_memcpy {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint64_t bytes;
    uint64_t copy_count;                /* copies folded into the record (batched memcpy APIs); 1 otherwise */
    uint32_t device_id, context_id, stream_id;
    uint32_t correlation_id;            /* the DRIVER API record's id (CUpti_ActivityMemcpy6.correlationId) */
    uint32_t runtime_correlation_id;    /* the RUNTIME API record's id, 0 when no runtime call launched it */
    uint32_t pad32;
    uint8_t copy_kind;                  /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ... */
    uint8_t src_kind, dst_kind;         /* CUpti_ActivityMemoryKind: 1 pageable, 2 pinned, 3 device, ... */
    uint8_t cupti_flags;                /* CUpti_ActivityFlag: bit 0 = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC */
    uint32_t graph_id;
    uint32_t src_device_id, src_context_id, dst_device_id, dst_context_id;   /* peer copies only */
    uint64_t graph_node_id;
};

struct ps_wire_gpu_memset {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint64_t bytes;
    uint32_t device_id, context_id, stream_id, correlation_id;
    uint32_t value;
    uint16_t cupti_flags;               /* bit 0 = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC */
    uint16_t memory_kind;               /* CUpti_ActivityMemoryKind */
    uint32_t graph_id;
    uint32_t pad32;
    uint64_t graph_node_id;
};

struct ps_wire_gpu_sync {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint32_t device_id;                 /* from the context's CONTEXT record; PS_WIRE_GPU_NONE if unseen */
    uint32_t context_id, stream_id, correlation_id;
    uint32_t type;                      /* CUpti_ActivitySynchronizationType: 1 event, 2 stream wait, 3 stream, 4 ctx */
    uint32_t cuda_event_id;
    uint64_t cuda_event_sync_id;
    uint32_t return_value;
    uint32_t pad32;
};

/* struct ps_wire_gpu_api, h.flags */
#define PS_WIRE_GPU_API_DRIVER 0x1      /* a driver API call (CUPTI_ACTIVITY_KIND_DRIVER); else runtime */

struct ps_wire_gpu_api {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint32_t pid, tid;                  /* tid: OS thread id (cuptiSetThreadIdType(SYSTEM)) */
    uint32_t correlation_id;
    uint32_t return_value;              /* cudaError_t / CUresult */
    uint32_t cbid;                      /* CUPTI callback id in its domain */
    uint32_t name_id;                   /* PS_WIRE_GPU_STRING (kind API_NAME): cuptiGetCallbackName's name */
};

struct ps_wire_gpu_device {
    struct ps_wire_hdr h;
    uint64_t global_memory_bytes;
    uint64_t global_memory_bandwidth_kbps;  /* CUPTI: KB/s */
    uint32_t id;                        /* CUDA device ordinal (deviceId of the other records) */
    uint32_t compute_major, compute_minor;
    uint32_t sm_count;
    uint32_t core_clock_khz;            /* CUPTI: kHz */
    uint32_t l2_cache_bytes;
    uint32_t constant_memory_bytes;
    uint32_t max_ipc;
    uint32_t max_registers_per_block, max_shmem_per_block_bytes;
    uint32_t max_shmem_per_sm_bytes, max_registers_per_sm;
    uint32_t threads_per_warp, async_engines;
    uint32_t max_warps_per_sm, max_blocks_per_sm, max_threads_per_block;
    uint32_t max_block_dim[3], max_grid_dim[3];
    uint32_t name_len;                  /* bytes of the name incl. NUL, after the fixed part */
    uint8_t uuid[16];
    /* MIG (CUpti_ActivityDevice5): the instance's ids (UINT32_MAX when MIG is off) and UUID */
    uint32_t gpu_instance_id, compute_instance_id;
    uint8_t mig_uuid[16];
    uint8_t is_cuda_visible;            /* 0: the device is hidden from this process (CUDA_VISIBLE_DEVICES) */
    uint8_t is_mig_enabled;
    uint8_t pad8[6];
};

struct ps_wire_gpu_context {
    struct ps_wire_hdr h;
    uint32_t context_id, device_id;
    uint32_t parent_context_id;
    uint16_t null_stream_id;
    uint16_t num_multiprocessors;
    uint8_t is_green_context;
    uint8_t pad8[7];
};

/* struct ps_wire_gpu_string, h.flags: what the string names */
#define PS_WIRE_GPU_STR_KERNEL_NAME 1   /* a mangled kernel name (as CUPTI gives it) */
#define PS_WIRE_GPU_STR_API_NAME 2      /* a CUDA runtime/driver API name, e.g. cudaLaunchKernel_v7000 */

struct ps_wire_gpu_string {
    struct ps_wire_hdr h;
    uint32_t id;                        /* > 0, unique within the process */
    uint32_t len;                       /* bytes incl. NUL */
};

/* Cumulative per process; the last one written holds the totals. */
struct ps_wire_gpu_drops {
    struct ps_wire_hdr h;
    uint64_t cupti_dropped;             /* cuptiActivityGetNumDroppedRecords, summed */
    uint64_t zero_timestamp;            /* records with start = end = 0 (no timing collected), not written */
    uint64_t buffers_refused;           /* bufferRequested past the memory cap (CUPTI then drops records) */
    uint64_t invalid_records;           /* buffers that ended on an incomplete/invalid record */
    uint64_t unknown_kinds;             /* activity kinds perfscope does not convert */
    uint64_t ring_full;                 /* GPU records the ring refused (also in the ring's own count) */
    uint64_t sync_not_ready;            /* event/stream query records whose work had not completed (not written) */
};

struct ps_wire_gpu_overhead {
    struct ps_wire_hdr h;
    uint64_t start_ns, end_ns;
    uint32_t overhead_kind;             /* CUpti_ActivityOverheadKind (a bit value: 1 driver compiler, 1<<16 buffer flush, ...) */
    uint32_t object_kind;               /* CUpti_ActivityObjectKind: 1 process, 2 thread, ... */
    uint32_t pid_or_device, tid_or_context;  /* objectId: pt.processId/threadId or dcs.deviceId/contextId */
    uint32_t correlation_id;
    uint32_t pad32;
};

/* One device memory allocation or release (CUPTI_ACTIVITY_KIND_MEMORY2). Pool fields are set when pool_type is not
 * 0 (the block comes from a stream-ordered memory pool). */
struct ps_wire_gpu_memory {
    struct ps_wire_hdr h;
    uint64_t timestamp_ns;
    uint64_t address, bytes, pc;
    uint64_t pool_address, pool_release_threshold;
    uint64_t pool_size_or_pid;          /* LOCAL pool: its size; IMPORTED pool: the exporting process id */
    uint64_t pool_utilized_bytes;
    uint32_t pid, device_id, context_id, stream_id, correlation_id;
    uint8_t operation;                  /* CUpti_ActivityMemoryOperationType: 1 allocation, 2 release */
    uint8_t memory_kind;                /* CUpti_ActivityMemoryKind: 3 device, ... */
    uint8_t pool_type;                  /* CUpti_ActivityMemoryPoolType: 0 none, 1 local, 2 imported */
    uint8_t is_async;
};

/* A stream-ordered memory pool created, destroyed or trimmed (CUPTI_ACTIVITY_KIND_MEMORY_POOL). */
struct ps_wire_gpu_mempool {
    struct ps_wire_hdr h;
    uint64_t timestamp_ns;
    uint64_t address, size, release_threshold, utilized_bytes, min_bytes_to_keep;
    uint32_t pid, device_id, correlation_id;
    uint8_t operation;                  /* CUpti_ActivityMemoryPoolOperationType: 1 created, 2 destroyed, 3 trimmed */
    uint8_t pool_type;                  /* 1 local, 2 imported */
    uint8_t is_managed;
    uint8_t pad8;
};

#endif
