/* The records the probe writes into its per-process ring and the collector reads (docs/design.md).
 * Every record starts with struct ps_wire_hdr; sizes are multiples of 8; strings follow the fixed part,
 * UTF-8, NUL-terminated, counted in `size`. Timestamps (`*_tsc`) are raw probe clock ticks, converted to
 * CLOCK_MONOTONIC ns by the ring reader (ps_ring_reader_to_ns); times already in ns say so (`_ns`).
 * A "lane" is one writing thread's part of the ring: records of one lane are read in the order written. */
#ifndef PS_WIRE_H
#define PS_WIRE_H

#include <stdint.h>

#define PS_WIRE_VERSION 3          /* 2: ps_wire_gpu_device carries MIG and visibility fields; 3: Python stack
                                      samples (PS_WIRE_PY_FRAME, PS_WIRE_PY_SAMPLE) */

enum ps_wire_type {
    PS_WIRE_PROCESS = 1,        /* struct ps_wire_process + exe path + NUL-separated argv (argv_len bytes) */
    PS_WIRE_THREAD_NAME = 2,    /* struct ps_wire_thread_name + name */
    PS_WIRE_NVTX_RANGE = 3,     /* struct ps_wire_nvtx [+ attr] [+ inline message]: a push/pop range, written at its pop */
    PS_WIRE_NVTX_STARTEND = 4,  /* struct ps_wire_nvtx [+ attr] + struct ps_wire_nvtx_ext [+ message]: written at its end */
    PS_WIRE_NVTX_MARK = 5,      /* struct ps_wire_nvtx [+ attr] [+ message]; end_tsc == start_tsc */
    PS_WIRE_NVTX_DOMAIN = 6,    /* struct ps_wire_nvtx_name (id = domain id) + domain name */
    PS_WIRE_NVTX_REGISTERED = 7,/* struct ps_wire_nvtx_name (id = registered string id, process-wide) + the string */
    PS_WIRE_NVTX_CATEGORY = 8,  /* struct ps_wire_nvtx_name (id = category id) + category name */
    PS_WIRE_NVTX_UNBALANCED = 9,/* struct ps_wire_nvtx (no message): a pop on an empty stack, or an end of an unknown id
                                   (h.flags PS_WIRE_UNBALANCED_END) */
    PS_WIRE_CUDA_STATUS = 10,   /* struct ps_wire_cuda_status + message: InitializeInjection ran / CUPTI state */
    PS_WIRE_LANE_STRING = 11,   /* struct ps_wire_lane_string + text: defines a string id local to the writing
                                   thread's lane, written before the first record that uses it */
    PS_WIRE_NVTX_OPEN = 12,     /* struct ps_wire_nvtx (no attr, no inline message; end_tsc 0): a push/pop range
                                   never popped. Written by a thread that exits inside it (ps_ring_open_flush), or
                                   made by the reader from the open-range table once the process is gone
                                   (ps_ring_reader_open_ranges) */
    PS_WIRE_PY_FRAME = 13,      /* struct ps_wire_py_frame + file + function: a Python code location of the process,
                                   written in a lane before the first PS_WIRE_PY_SAMPLE of that lane that names it */
    PS_WIRE_PY_SAMPLE = 14,     /* struct ps_wire_py_sample + n uint32_t frame ids (innermost first), padded to 8:
                                   one thread's Python stack, sampled by the Python hook (docs/python.md) */
    /* 100..199: GPU records converted from CUPTI activity records (probe/cupti_*.c, collector GPU tables). */
    PS_WIRE_GPU_FIRST = 100,
    PS_WIRE_GPU_LAST = 199,
};

struct ps_wire_hdr {
    uint32_t size;              /* whole record, header included, multiple of 8 */
    uint16_t type;              /* enum ps_wire_type */
    uint16_t flags;             /* type-specific */
};

struct ps_wire_process {
    struct ps_wire_hdr h;
    uint32_t pid, ppid;
    int64_t start_ns;           /* CLOCK_MONOTONIC when the probe attached */
    int64_t utc_ns;             /* CLOCK_REALTIME at the same moment */
    uint32_t exe_len;           /* bytes of exe path incl. NUL */
    uint32_t argv_len;          /* bytes of NUL-separated argv after it */
    int32_t rank, local_rank, world_size;   /* from RANK / LOCAL_RANK / WORLD_SIZE (or OMPI_/SLURM_), -1 */
    uint32_t pad;
};

struct ps_wire_thread_name {
    struct ps_wire_hdr h;
    uint32_t tid;
    uint32_t name_len;          /* bytes incl. NUL */
};

/* struct ps_wire_nvtx, h.flags: where the message is, and what follows the fixed part (in this order:
 * attr, ext, inline message). */
#define PS_WIRE_MSG_NONE        0x0   /* no message */
#define PS_WIRE_MSG_LANE        0x1   /* msg_id is a PS_WIRE_LANE_STRING id of the writing thread's lane */
#define PS_WIRE_MSG_REGISTERED  0x2   /* msg_id is a PS_WIRE_NVTX_REGISTERED id (nvtxDomainRegisterString) */
#define PS_WIRE_MSG_INLINE      0x3   /* msg_len bytes of UTF-8 (incl. NUL) follow */
#define PS_WIRE_MSG_MASK        0x3
#define PS_WIRE_HAS_ATTR        0x4   /* a struct ps_wire_nvtx_attr follows the fixed part */
#define PS_WIRE_UNBALANCED_END  0x8   /* PS_WIRE_NVTX_UNBALANCED: an end of an unknown or ended range id (else a pop) */
#define PS_WIRE_OPEN_SLOT       0x10  /* PS_WIRE_NVTX_OPEN made by the ring reader from an open-range slot (never
                                         written by the probe): nothing framed it, so its reader checks its thread and
                                         domain against what the ring's records defined (collector/rows.c) */

/* The hot record: 40 bytes for a plain push/pop range. */
struct ps_wire_nvtx {
    struct ps_wire_hdr h;
    uint64_t start_tsc, end_tsc;
    uint32_t tid;               /* thread that pushed / started / marked (gettid) */
    uint32_t domain_id;         /* 0 = default domain */
    uint32_t msg_id;
    uint32_t msg_len;           /* PS_WIRE_MSG_INLINE: bytes incl. NUL; else 0 */
};

/* ps_wire_nvtx_attr.flags */
#define PS_WIRE_ATTR_COLOR      0x1   /* color is valid (ARGB) */
#define PS_WIRE_ATTR_CATEGORY   0x2   /* category is valid */

/* NVTX event attributes beyond the message. payload_type is nvtxPayloadType_t:
 * 0 none, 1 u64, 2 i64, 3 double, 4 u32, 5 i32, 6 float; payload holds the raw 8 bytes of the union. */
struct ps_wire_nvtx_attr {
    uint32_t flags;
    uint32_t category;
    uint32_t color;
    int32_t payload_type;
    uint64_t payload;
};

/* Start/end ranges: the id nvtxRangeStart returned and the thread that ended the range. */
struct ps_wire_nvtx_ext {
    uint64_t range_id;
    uint32_t end_tid;
    uint32_t pad;
};

struct ps_wire_nvtx_name {
    struct ps_wire_hdr h;
    uint64_t tsc;
    uint32_t domain_id;         /* domain it belongs to (0 default); for PS_WIRE_NVTX_DOMAIN, == id */
    uint32_t id;
    uint32_t tid;
    uint32_t name_len;          /* bytes incl. NUL */
};

struct ps_wire_lane_string {
    struct ps_wire_hdr h;
    uint32_t id;                /* > 0, unique within the lane */
    uint32_t len;               /* bytes incl. NUL */
};

/* A Python code location (file, line, function) the Python hook numbered: `id` > 0, unique within the process
 * (the hook never gives one id two locations). */
struct ps_wire_py_frame {
    struct ps_wire_hdr h;
    uint64_t tsc;               /* when it was defined */
    uint32_t id;
    uint32_t line;              /* 1-based; 0: unknown */
    uint32_t file_len;          /* bytes of the file name incl. NUL */
    uint32_t function_len;      /* bytes of the function's qualified name incl. NUL, right after the file */
};

/* The most frame ids one sample carries: the innermost ones of a deeper stack (`depth` says how deep it was). */
#define PS_WIRE_PY_STACK_MAX 128

/* One thread's Python stack at `tsc`, written by the hook's sampling thread (not the sampled one). */
struct ps_wire_py_sample {
    struct ps_wire_hdr h;
    uint64_t tsc;
    uint32_t tid;               /* the sampled thread (gettid), 1..2^24-1 */
    uint32_t depth;             /* frames on its stack, >= n (more: the outer ones were cut) */
    uint32_t n;                 /* frame ids that follow, 1..PS_WIRE_PY_STACK_MAX */
    uint32_t pad;               /* 0 */
};

/* ps_wire_cuda_status.state */
enum ps_cuda_state {
    PS_CUDA_INJECTED = 1,       /* the driver called InitializeInjection */
    PS_CUDA_CUPTI_ACTIVE = 2,   /* CUPTI activity collection enabled */
    PS_CUDA_CUPTI_UNAVAILABLE = 3, /* libcupti missing / failed: message says why; NVTX goes on */
    PS_CUDA_CUPTI_BUSY = 4,     /* another CUPTI subscriber (nsys, ncu, Kineto...): message names it */
};

struct ps_wire_cuda_status {
    struct ps_wire_hdr h;
    int64_t time_ns;            /* CLOCK_MONOTONIC */
    uint32_t state;             /* enum ps_cuda_state */
    uint32_t msg_len;
};

#endif
