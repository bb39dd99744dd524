/* The one in-memory trace model: every reader (perfscope / Nsight Systems SQLite, PyTorch profiler JSON)
 * fills it, every analysis (step breakdown, HTA, TraceLens, summaries, verdict) reads it.
 * All times are integer nanoseconds on the trace's own time base; strings are interned ids. */
#ifndef PS_MODEL_H
#define PS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define PS_NONE UINT32_MAX   /* "no index / no string" */

enum ps_format { PS_FORMAT_PERFSCOPE, PS_FORMAT_NSYS, PS_FORMAT_KINETO };

enum ps_gpu_kind { PS_GPU_KERNEL = 0, PS_GPU_MEMCPY = 1, PS_GPU_MEMSET = 2, PS_GPU_SYNC = 3 };

/* Memory kinds use Nsight Systems' ENUM_CUDA_MEM_KIND numbering (not CUPTI's). */
enum ps_mem_kind {
    PS_MEM_PAGEABLE = 0, PS_MEM_PINNED = 1, PS_MEM_DEVICE = 2, PS_MEM_ARRAY = 3, PS_MEM_MANAGED = 4,
    PS_MEM_DEVICE_STATIC = 5, PS_MEM_MANAGED_STATIC = 6, PS_MEM_UNKNOWN = 7
};

/* Copy kinds use ENUM_CUDA_MEMCPY_OPER numbering (same as CUPTI's CUpti_ActivityMemcpyKind). */
enum ps_copy_kind {
    PS_COPY_UNKNOWN = 0, PS_COPY_HTOD = 1, PS_COPY_DTOH = 2, PS_COPY_HTOA = 3, PS_COPY_ATOH = 4,
    PS_COPY_ATOA = 5, PS_COPY_ATOD = 6, PS_COPY_DTOA = 7, PS_COPY_DTOD = 8, PS_COPY_HTOH = 9, PS_COPY_PTOP = 10
};

/* One GPU activity (kernel, memcpy, memset or synchronisation record) as readers hand it in
 * (ps_model_add_gpu) and analyses see it (ps_model_gpu): a decoded view, not the stored form. */
struct ps_gpu_op {
    int64_t start_ns, end_ns;
    uint64_t correlation;   /* CUPTI correlation id (unique within a process only). In a view: the linked
                             * launch's correlation id, 0 when unlinked (the model keeps no other copy) */
    uint64_t bytes;         /* memcpy / memset bytes, else 0 */
    uint32_t name;          /* string id: kernel name (demangled where known); copies e.g. "Memcpy HtoD (Pageable -> Device)" */
    uint32_t stream;        /* index into model.streams */
    uint32_t launch;        /* index into model.api of the call that launched it; set by ps_model_finish; PS_NONE */
    uint8_t kind;           /* enum ps_gpu_kind */
    uint8_t copy_kind;      /* memcpy: enum ps_copy_kind; sync: ENUM_CUPTI_SYNC_TYPE (1 event, 2 stream wait, 3 stream, 4 context) */
    uint8_t src_kind;       /* memcpy source: enum ps_mem_kind */
    uint8_t dst_kind;       /* memcpy destination / memset memory: enum ps_mem_kind */
    uint8_t has_occupancy;  /* 1: the trace estimates the kernel's achieved occupancy (Kineto args) */
    uint8_t occupancy_pct;  /* that estimate, 0..100 % ("est. achieved occupancy %") */
};

/* Stored form of a GPU op: 16 bytes, so a 10-million-kernel trace fits in 160 MB. Everything but the times
 * lives in a shared attribute row (struct ps_gpu_attr): ops of one kernel name on one stream share one row,
 * copies share one per (name, stream, kinds, bytes). An op whose duration does not fit in 32 bits (>= 4.29 s,
 * or a reversed op with end < start) keeps its exact end in its own attribute row (dur_ns == PS_GPU_LONG). */
#define PS_GPU_LONG UINT32_MAX
struct ps_gpu_row {
    int64_t start_ns;
    uint32_t dur_ns;        /* end - start, or PS_GPU_LONG: the end is attr.long_end_ns */
    uint32_t attr;          /* index into model.gpu_attrs */
};

struct ps_gpu_attr {
    uint64_t bytes;
    int64_t long_end_ns;    /* the end of the PS_GPU_LONG op that owns this row, else 0 */
    uint32_t name, stream;
    uint8_t kind, copy_kind, src_kind, dst_kind;
    uint8_t is_long;        /* 1: a PS_GPU_LONG op's own row (never shared) */
    uint8_t has_occupancy, occupancy_pct;
};

/* One CUDA runtime or driver API call on a host thread. */
struct ps_api_call {
    int64_t start_ns, end_ns;
    uint64_t correlation;
    uint64_t ext_id;        /* Kineto "External id" (links to a cpu_op / user_annotation), 0 if none */
    uint32_t name;          /* as the source spells it: "cudaLaunchKernel_v7000" (nsys, perfscope) or "cudaLaunchKernel" (Kineto) */
    uint32_t thread;        /* index into model.threads */
    uint8_t driver;         /* 1: driver API (cu*), 0: runtime API (cuda*) */
};

enum ps_range_kind {
    PS_RANGE_NVTX_PUSHPOP = 0,   /* NVTX push/pop range (nsys eventType 59) */
    PS_RANGE_NVTX_STARTEND = 1,  /* NVTX start/end range (60); may end on another thread */
    PS_RANGE_NVTX_MARK = 2,      /* NVTX mark (34): end_ns == start_ns */
    PS_RANGE_USER_ANNOTATION = 3,/* Kineto user_annotation (e.g. ProfilerStep#N in modern traces) */
    PS_RANGE_CPU_OP = 4,         /* Kineto cpu_op / pre-2.0 Operator */
    PS_RANGE_PYTHON = 5,         /* Kineto python_function */
    PS_RANGE_GPU_ANNOTATION = 6  /* Kineto gpu_user_annotation: device side, never a step */
};

/* One named host range (or mark). */
struct ps_range {
    int64_t start_ns, end_ns;
    uint64_t ext_id;        /* Kineto "External id", 0 if none */
    uint32_t name;          /* string id of the message / op name */
    uint32_t thread;        /* index into model.threads (start/end ranges: the thread that started it);
                             * PS_NONE for PS_RANGE_GPU_ANNOTATION (device side: no host thread) */
    uint32_t domain;        /* string id of the NVTX domain, PS_NONE for the default domain */
    uint16_t category;      /* NVTX category (1..65535; 0: none or out of that range) */
    uint8_t kind;           /* enum ps_range_kind */
};

struct ps_process {
    uint32_t pid;
    uint32_t name;          /* string id, PS_NONE if unknown */
    int32_t rank;           /* its distributed rank (RANK, ...) where the reader knows it, else -1 */
    uint32_t ppid;          /* parent pid (perfscope: PERFSCOPE_PROCESS_INFO), 0 unknown */
    int64_t cpu_ns;         /* perfscope host samples: CPU time (user + system) it used, its last cumulative
                             * value; -1 unknown (no samples) */
    int64_t first_sample_ns, last_sample_ns;   /* its first and last host sample; -1 unknown */
};

struct ps_thread {
    uint32_t pid, tid;
    uint32_t name;          /* string id, PS_NONE if unknown */
};

struct ps_stream {
    uint32_t pid;           /* owning process (Kineto: 0, correlation ids are file-global) */
    int32_t device;
    int64_t stream;
};

struct ps_device {
    int32_t id;
    uint32_t name;          /* string id, PS_NONE if unknown */
    int32_t cc_major, cc_minor, sm_count;   /* -1 if unknown */
    int64_t total_mem_bytes;                /* -1 if unknown */
};

/* One NVML utilisation sample of a GPU (perfscope traces: PERFSCOPE_GPU_SAMPLES rows with a utilisation). */
struct ps_nvml_util_sample {
    int64_t time_ns;
    int32_t device;         /* NVML device index */
    int32_t util_pct;       /* 0..100: % of the driver's sample period with a kernel running */
};

/* One host sample of a process (perfscope traces: PERFSCOPE_PROCESS_SAMPLES rows). */
struct ps_host_sample {
    int64_t time_ns;
    int64_t cpu_ns;         /* CPU time (user + system) the process used since it started: cumulative */
    int64_t rss_bytes;      /* resident set size, -1 when the row has none */
    uint32_t pid;
};

/* One perfscope thread sample (PERFSCOPE_THREAD_SAMPLES): the thread's scheduler state when sampled. */
struct ps_thread_sample {
    int64_t time_ns;
    uint32_t thread;        /* index into model.threads */
    uint8_t state;          /* enum ps_thread_state (common/ps_schema.h); an unknown id reads as PS_THREAD_OTHER */
};

/* The largest memory size or total a reader takes from a memory record: 2^50 bytes (1 PiB), more than any device
 * or host holds, so that the memory view's sums over records cannot pass int64 before saturating (docs/memory.md,
 * docs/readers.md); a larger one is refused as the readers refuse other impossible values. */
#define PS_MEM_BYTES_MAX (1ll << 50)

/* One memory event (memory.c): a Kineto `[memory]` instant (one caching-allocator allocation or free, with the
 * allocator's totals after it) or one row of Nsight Systems' CUDA_GPU_MEMORY_USAGE_EVENTS (a driver-level
 * allocation or release; perfscope's own traces write the same table from CUPTI memory records). */
struct ps_mem_event {
    int64_t time_ns;
    int64_t bytes;             /* > 0 an allocation, <= 0 a free (Kineto writes a free's Bytes negative; nsys rows
                                * are stored here with the released size negated) */
    int64_t total_allocated;   /* Kineto "Total Allocated": bytes allocated on the device after the event; -1 absent */
    int64_t total_reserved;    /* Kineto "Total Reserved": bytes the allocator holds after it; -1 absent */
    uint64_t addr;             /* the block's address, when has_addr */
    uint32_t pid, tid;         /* the host thread it was recorded on, as the trace writes it (has_tid) */
    int32_t device;            /* the trace's device id (-1: the host) */
    uint8_t device_type;       /* c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP, ... (nsys rows: 1) */
    uint8_t has_addr, has_tid;
    uint8_t mem_kind;          /* nsys rows: enum ps_mem_kind; Kineto: PS_MEM_UNKNOWN */
    uint8_t pool;              /* nsys rows: 1 when the row comes from a stream-ordered memory pool */
};

/* One NVML memory sample of a GPU (perfscope traces: PERFSCOPE_GPU_SAMPLES rows with memUsedBytes). */
struct ps_nvml_mem_sample {
    int64_t time_ns;
    int64_t used_bytes;        /* nvmlDeviceGetMemoryInfo used: every process's allocations and contexts */
    int64_t total_bytes;       /* its total; -1 unknown */
    int32_t device;            /* NVML device index */
};

/* Python stack samples of perfscope's Python hook (perfscope traces: PERFSCOPE_PYTHON_FRAMES, _STACKS, _SAMPLES;
 * docs/trace-format.md, docs/python.md "Stack samples"; read by analyzer/read/read_sqlite_python.c). Three arrays of
 * the model, owned by it and freed by ps_model_free (no pointer into them survives it; an add may move them):
 *   py_samples -> (stack) py_stacks -> (first, n) py_stack_frames -> (each an index) py_frames.
 * Frames and stacks are shared by every thread and process of the trace (one per distinct location / sequence).
 * Every index a reader stores is valid: rows naming what the file does not define are left out and counted in
 * unplaced_events. Empty arrays when the trace has none (other formats, --python-stack-hz 0, no hook).
 *
 * A code location: */
struct ps_py_frame {
    uint32_t file;          /* string id (ps_model_str): the code's file name as Python has it (co_filename: a
                             * path, "<string>", "<frozen runpy>"); never PS_NONE ("" for a NULL in the file) */
    uint32_t function;      /* string id: the function's qualified name (co_qualname on Python >= 3.11:
                             * "Trainer.step", "main.<locals>.loop", "<module>"); never PS_NONE (as file) */
    int32_t line;           /* the line being run, 1-based; -1 unknown */
};

/* A stack: py_stack_frames.v[first .. first + n), each an index into py_frames, innermost first: level 0 is the
 * function running when sampled, level 1 its caller, ..., n - 1 the outermost frame kept (ps_model_py_frame_at).
 * n >= 1. */
struct ps_py_stack {
    uint32_t first, n;
};

/* One thread's Python stack at one instant. */
struct ps_py_sample {
    int64_t time_ns;        /* when the stack was read: ns on the trace's clock, the clock of ranges' start_ns and
                             * end_ns (compare directly: s.time_ns >= r.start_ns && s.time_ns < r.end_ns); taken
                             * just before the read, as the file has it (not range-checked) */
    uint32_t thread;        /* index into model.threads: threads.v[thread].pid / .tid, the OS ids (the tid of the
                             * thread's ranges; tid == pid: the process's main thread); never PS_NONE */
    uint32_t stack;         /* index into model.py_stacks; never PS_NONE */
    uint32_t depth;         /* frames on the thread's stack then, >= its stack's n; more when the hook cut the stack
                             * (it keeps the innermost 64): the outermost depth - n frames are not known */
};

/* One wait of a stream on a CUDA event (cudaStreamWaitEvent) as the trace records it: Kineto's `cuda_sync` events of
 * kind "Stream Wait Event" (args `stream`, `wait_on_stream`, `wait_on_cuda_event_record_corr_id`), Nsight Systems'
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows of syncType 2 joined to the CUPTI_ACTIVITY_KIND_CUDA_EVENT row of the
 * event's record (read/read_sqlite_waits.c). Stream ids are the trace's own numbers, not indices: a stream the trace
 * never ran an op on is named here and in no other table; the analyses look them up (analyses/verdict/
 * stream_waits.c) and ignore one they do not find. Read from the file, never trusted. */
struct ps_stream_wait {
    int64_t time_ns;        /* when the wait was enqueued (the record's start: the cudaStreamWaitEvent call) */
    uint64_t record_corr;   /* correlation id of the cudaEventRecord call that recorded the event (in process pid;
                             * Kineto: file-wide); 0 unknown */
    int64_t stream;         /* the stream that waits, as the trace numbers it */
    int64_t on_stream;      /* the stream the event was recorded on, as the trace numbers it; -1 unknown */
    uint32_t pid;           /* the process of both streams (Kineto: 0, as its streams) */
    int32_t device;
};

struct ps_meta_kv {
    char *key, *value;
};

/* Growable array of fixed-size items. */
#define PS_VEC(type) struct { type *v; size_t n, cap; }

struct ps_strpool;
struct ps_gpu_build;

struct ps_model {
    char *path;                     /* the file read (owned) */
    enum ps_format format;
    PS_VEC(struct ps_gpu_row) gpu;  /* sorted by (start, end) after ps_model_finish; read with ps_model_gpu */
    PS_VEC(struct ps_gpu_attr) gpu_attrs;
    uint32_t *gpu_launch;           /* per op (parallel to gpu): index into api or PS_NONE; NULL when no op
                                     * has a launch (set by ps_model_finish) */
    PS_VEC(struct ps_api_call) api;
    PS_VEC(struct ps_range) ranges;
    PS_VEC(struct ps_range) open_ranges; /* NVTX ranges never ended (end NULL in the trace: the program crashed,
                                     * was killed or exited inside them); end_ns = -1; in no analysis, listed by
                                     * the report; by (thread, start) after ps_model_finish */
    PS_VEC(struct ps_process) procs;
    PS_VEC(struct ps_thread) threads;
    PS_VEC(struct ps_stream) streams;
    PS_VEC(struct ps_device) devices;
    PS_VEC(struct ps_meta_kv) meta; /* source metadata worth showing (perfscope: PERFSCOPE_META rows) */
    PS_VEC(struct ps_nvml_util_sample) nvml_util;  /* NVML samples in table (time) order; empty without them */
    PS_VEC(struct ps_host_sample) host_samples;    /* host samples in table order (per process: time order);
                                     * empty without them (`perfscope export` writes them as counters) */
    PS_VEC(struct ps_thread_sample) thread_samples;   /* thread samples in table order (per thread: time order);
                                     * empty without them */
    PS_VEC(struct ps_py_sample) py_samples;   /* Python stack samples in table order: each process's in time
                                     * order (one sampling thread per process writes them), not sorted
                                     * across processes; empty without them */
    PS_VEC(struct ps_py_stack) py_stacks;     /* the stacks they name */
    PS_VEC(uint32_t) py_stack_frames;         /* the stacks' frames (indexes into py_frames) */
    PS_VEC(struct ps_py_frame) py_frames;     /* the code locations the stacks name */
    int32_t rank, local_rank, world_size;   /* -1 when unknown */
    int64_t dropped_records;        /* records lost while recording (probe rings + CUPTI), -1 unknown */
    int64_t unplaced_events;        /* events the reader read but could not place in the model (reported) */
    struct {                        /* perfscope host samples (PERFSCOPE_PROCESS_SAMPLES); n 0: none */
        int64_t n;                  /* sample rows */
        int64_t first_ns, last_ns;  /* first and last sample timestamp */
        int64_t cpu_ns;             /* CPU time (user + system) the sampled processes used, summed: each
                                     * process's last cumulative value */
    } samples;
    int correlation_global;         /* 1: correlation ids are unique file-wide (Kineto); 0: per process */
    int has_flows;                  /* Kineto: the trace holds ac2g flow events (CPU launch -> GPU op arrows) */
    uint64_t *flow_linked;          /* Kineto, sorted ascending: correlation ids with a complete ac2g flow (an 's'
                                     * and an 'f' event with that id) whose 'f' lands on (pid, tid) of a GPU event
                                     * with that correlation: TraceLens' link rule (trace_to_tree.py
                                     * _find_corresponding_output_event). NULL when none; owned by the model */
    size_t nflow_linked;
    struct ps_strpool *strings;
    struct ps_gpu_build *gpu_build; /* reader-time state (attribute index, correlation ids, process / thread /
                                     * stream / device lookup maps); freed by finish */
    /* ---- memory events (analyses/memory.c): empty when the trace has none ---- */
    PS_VEC(struct ps_mem_event) mem_events;   /* in the trace's order (Kineto: file order) */
    int has_mem_origin;             /* Kineto: mem_origin_ns is set */
    int64_t mem_origin_ns;          /* Kineto: the smallest ts of the events the PyTorch profiler's TensorBoard
                                     * plugin parses (its profiler_start_ts: complete events of its categories, the
                                     * profiler's own span included, and [memory] instants): its memory curve's 0 */
    PS_VEC(struct ps_nvml_mem_sample) nvml_mem;   /* NVML memory samples in table order; empty without them */
    PS_VEC(struct ps_stream_wait) stream_waits;   /* in the trace's order; empty when it records none (a growing
                                     * model reads none) */
    struct ps_op_trace *op_events;  /* Kineto: the per-operator model's events (model/op_trace.h), read in the same
                                     * pass when asked (read/reader.h: ps_read_opts.op_events); NULL otherwise.
                                     * Owned by the model; ps_model_take_op_events hands them over */
};

/* Allocate an empty model for `path` (copied). Returns NULL on out-of-memory. Free with ps_model_free. */
struct ps_model *ps_model_new(const char *path, enum ps_format format);
void ps_model_free(struct ps_model *m);   /* NULL is a no-op */
/* m->op_events, which the caller then owns (ps_op_trace_free); m keeps none. NULL when it has none: cannot
 * fail. */
struct ps_op_trace *ps_model_take_op_events(struct ps_model *m);

/* Intern a string of `len` bytes (need not be NUL-terminated). Returns its id, PS_NONE on out-of-memory.
 * Equal strings get equal ids, so names compare by id. */
uint32_t ps_model_intern(struct ps_model *m, const char *s, size_t len);
uint32_t ps_model_intern_cstr(struct ps_model *m, const char *s);
/* The string for an id; "" for PS_NONE. Valid until ps_model_free. */
const char *ps_model_str(const struct ps_model *m, uint32_t id);
size_t ps_model_nstrings(const struct ps_model *m);

/* Find-or-add lookups; each returns an index, PS_NONE on out-of-memory. */
uint32_t ps_model_process(struct ps_model *m, uint32_t pid);
uint32_t ps_model_thread(struct ps_model *m, uint32_t pid, uint32_t tid);
uint32_t ps_model_stream(struct ps_model *m, uint32_t pid, int32_t device, int64_t stream);
uint32_t ps_model_device(struct ps_model *m, int32_t id);   /* fields other than id start unknown (-1) */

/* Append one item (copied). Return 0, or -ENOMEM. A GPU op is stored as a row + shared attribute row (its
 * correlation id kept until ps_model_finish); op->launch is ignored: ps_model_finish sets it. */
int ps_model_add_gpu(struct ps_model *m, const struct ps_gpu_op *op);
/* Room for gpu_ops more GPU ops (and their correlation ids) and api_calls more API calls, for a reader that knows
 * how many a table holds: later adds then never move the rows. A hint: 0, or -ENOMEM when the room could not be
 * had (nothing is lost; adds grow the arrays as they would have). */
int ps_model_reserve(struct ps_model *m, size_t gpu_ops, size_t api_calls);
int ps_model_add_api(struct ps_model *m, const struct ps_api_call *call);
int ps_model_add_range(struct ps_model *m, const struct ps_range *r);
int ps_model_add_open_range(struct ps_model *m, const struct ps_range *r);   /* to open_ranges */
/* Add `base` ns to every time of the GPU ops, API calls, ranges, memory events and stream waits (Kineto
 * timestamps relative to baseTimeNanoseconds). 0, or -ERANGE when a time would overflow int64 (the model is then
 * partly shifted). */
int ps_model_shift_times(struct ps_model *m, int64_t base);
int ps_model_add_meta(struct ps_model *m, const char *key, const char *value);
int ps_model_add_nvml_util(struct ps_model *m, const struct ps_nvml_util_sample *s);
int ps_model_add_host_sample(struct ps_model *m, const struct ps_host_sample *s);
int ps_model_add_thread_sample(struct ps_model *m, const struct ps_thread_sample *s);   /* 0 or -ENOMEM */
/* Python stack samples: a code location (its index: py_frames.n - 1 after the call), a stack of `n` frames (indexes
 * into py_frames, innermost first; its index: py_stacks.n - 1), a sample (its stack an index into py_stacks).
 * 0 or -ENOMEM. */
int ps_model_add_py_frame(struct ps_model *m, const struct ps_py_frame *f);
int ps_model_add_py_stack(struct ps_model *m, const uint32_t *frames, uint32_t n);
int ps_model_add_py_sample(struct ps_model *m, const struct ps_py_sample *s);
int ps_model_add_mem_event(struct ps_model *m, const struct ps_mem_event *e);   /* 0 or -ENOMEM */
int ps_model_add_nvml_mem(struct ps_model *m, const struct ps_nvml_mem_sample *s);   /* 0 or -ENOMEM */
int ps_model_add_stream_wait(struct ps_model *m, const struct ps_stream_wait *w);   /* 0 or -ENOMEM */

/* The longest span of a trace's events (the first start to the last end of its GPU ops, API calls and ranges) the
 * analyzer takes: 2^50 ns, about 13 days. Longer spans come from corrupt timestamps, and bounding the span keeps
 * every sum of durations far from int64 overflow. ps_read_trace refuses a longer trace (read/reader.h), the report
 * a longer model read otherwise (analyses/report/pipeline.c: `top`'s growing one). */
#define PS_MODEL_MAX_SPAN_NS (1ll << 50)

/* Call once after reading: sorts gpu, api and ranges by (start, end) and links each GPU op to the API call
 * with the same correlation id in the same process (any process if correlation_global) in gpu_launch (the
 * lowest-index call when several carry the id), then frees the correlation ids and the attribute index.
 * A growing model (ps_model_set_growing) may be finished again after more rows are added: see there.
 * Return 0 or -ENOMEM. */
int ps_model_finish(struct ps_model *m);

/* ---- a model that grows: `perfscope top` follows a recording's trace as rows are appended to it ----
 * ps_model_set_growing (on a new model, before any row is added) makes every ps_model_finish keep what the next
 * one needs (correlation ids, the attribute and lookup indexes, the calls by correlation id), so that rows added
 * after a finish can be finished in turn: each kind's new rows are sorted and merged into the sorted rows (the
 * rows they sort before move; model indices of API calls change, and gpu_launch follows), new GPU ops are linked
 * to their launches, and ops read before their launch's row are linked when it arrives. After each finish the
 * model equals one read in one go from the same rows (tests/analyzer/test_model_growth.c), except that a launch
 * call that arrives after its op links only when no other call with the same correlation id was read before it.
 * The cost of a finish follows the rows added and the rows they displace (plus one pass over the GPU links when
 * an API call sorts among the merged ones), not the model's size. gpu_launch is kept allocated once there is a
 * GPU op. 0, -EINVAL (the model holds rows already), -ENOMEM. */
int ps_model_set_growing(struct ps_model *m);

/* Drop the GPU ops, API calls and ranges that start before cut_ns from a growing, finished model (older rows of
 * a live window: memory stays bounded), but the NVTX marks of domain `keep_domain` (a string id; PS_NONE: none):
 * run facts such as the Python hook's configuration and DataLoader settings (PS_PYTHON_HOOK_DOMAIN), few by
 * nature. Ops whose launch is dropped read unlinked (launch PS_NONE); open ranges, strings, processes, threads,
 * streams and attribute rows stay. O(rows kept): call it when the dropped part is a good share of the rows.
 * 0, -EINVAL (not a growing model, or rows added since the last finish), -ENOMEM. */
int ps_model_drop_before(struct ps_model *m, int64_t cut_ns, uint32_t keep_domain);

/* The NVTX domain of the marks perfscope's Python hook writes (docs/python.md): its configuration and each
 * DataLoader iterator's settings. */
#define PS_PYTHON_HOOK_DOMAIN "perfscope"

/* ---- reading GPU ops ---- */

/* End of a row (exact: the end the reader gave), and its duration (end - start; as the reader gave them,
 * so it overflows only for times a report rejects first as corrupt). */
static inline int64_t ps_gpu_row_end(const struct ps_model *m, const struct ps_gpu_row *g)
{
    return g->dur_ns != PS_GPU_LONG ? g->start_ns + (int64_t)g->dur_ns : m->gpu_attrs.v[g->attr].long_end_ns;
}

static inline int64_t ps_gpu_row_dur(const struct ps_model *m, const struct ps_gpu_row *g)
{
    return g->dur_ns != PS_GPU_LONG ? (int64_t)g->dur_ns : m->gpu_attrs.v[g->attr].long_end_ns - g->start_ns;
}

/* The decoded GPU op i (i < m->gpu.n), all fields of struct ps_gpu_op filled. */
static inline struct ps_gpu_op ps_model_gpu(const struct ps_model *m, size_t i)
{
    const struct ps_gpu_row *g = &m->gpu.v[i];
    const struct ps_gpu_attr *a = &m->gpu_attrs.v[g->attr];
    struct ps_gpu_op op = { .start_ns = g->start_ns, .end_ns = ps_gpu_row_end(m, g),
                            .bytes = a->bytes, .name = a->name, .stream = a->stream,
                            .launch = m->gpu_launch ? m->gpu_launch[i] : PS_NONE, .kind = a->kind,
                            .copy_kind = a->copy_kind, .src_kind = a->src_kind, .dst_kind = a->dst_kind,
                            .has_occupancy = a->has_occupancy, .occupancy_pct = a->occupancy_pct };
    op.correlation = op.launch != PS_NONE ? m->api.v[op.launch].correlation : 0;
    return op;
}

/* 1 when correlation id `corr` is in m->flow_linked (binary search), else 0. */
static inline int ps_model_flow_linked(const struct ps_model *m, uint64_t corr)
{
    size_t lo = 0, hi = m->nflow_linked;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->flow_linked[mid] < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nflow_linked && m->flow_linked[lo] == corr;
}

/* The code location at `level` (0: innermost) of Python sample s: an index into py_frames, or PS_NONE past the
 * frames its stack holds. */
static inline uint32_t ps_model_py_frame_at(const struct ps_model *m, const struct ps_py_sample *s, uint32_t level)
{
    const struct ps_py_stack *k = &m->py_stacks.v[s->stack];
    return level < k->n ? m->py_stack_frames.v[k->first + level] : PS_NONE;
}

/* Give GPU op i new times (the order is not restored: callers keep it). Returns 0 or -ENOMEM. */
int ps_model_gpu_retime(struct ps_model *m, size_t i, int64_t start_ns, int64_t end_ns);

#endif
