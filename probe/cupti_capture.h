/* CUPTI activity collection inside the probe: libcupti is dlopen'ed at run time (never linked, never
 * dlclose'd, never cuptiFinalize'd), its functions called through a table so tests can put fakes there.
 * One collection per process (CUPTI's buffer callbacks carry no user data); docs/gpu-capture.md. */
#ifndef PS_CUPTI_CAPTURE_H
#define PS_CUPTI_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "cupti_convert.h"

/* Memory cap for CUPTI activity buffers in flight, MiB (decimal; default PS_CUPTI_DEFAULT_CAP_MB). Past
 * the cap bufferRequested hands out no buffer: CUPTI drops records and counts them (allowed from CUPTI
 * API 27 on: returning NULL crashed older CUPTI, pytorch/kineto #1362). */
#define PS_ENV_CUPTI_BUFFER_MB "PERFSCOPE_CUPTI_BUFFER_MB"
#define PS_CUPTI_DEFAULT_CAP_MB 256
#define PS_CUPTI_BUFFER_BYTES (4u << 20)    /* one activity buffer (NVIDIA's samples use 1-8 MiB) */
/* A helper thread calls cuptiActivityFlushAll(0) this often: CUPTI's own periodic flush
 * (cuptiActivityFlushPeriod) "can return only those activity buffers which are full" (cupti_activity.h), while
 * a default flush returns every buffer whose records are complete, "buffers need not to be full". */
#define PS_CUPTI_FLUSH_PERIOD_MS 500

/* The CUPTI functions perfscope calls (signatures from cupti_activity.h / cupti_callbacks.h, CUDA 13.0).
 * The last four may be NULL (a libcupti without them): perfscope then does without what they give. */
struct ps_cupti_api {
    CUptiResult (*get_version)(uint32_t *version);
    CUptiResult (*subscribe_v2)(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *userdata,
                                CUpti_SubscriberParams *params);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle sub);
    CUptiResult (*enable_callback)(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain,
                                   CUpti_CallbackId cbid);
    CUptiResult (*register_timestamp_callback)(CUpti_TimestampCallbackFunc fn);
    CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType type);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc requested,
                                      CUpti_BuffersCallbackCompleteFunc completed);
    CUptiResult (*activity_enable)(CUpti_ActivityKind kind);
    CUptiResult (*flush_all)(uint32_t flag);
    CUptiResult (*get_next_record)(uint8_t *buffer, size_t valid_bytes, CUpti_Activity **record);
    CUptiResult (*get_num_dropped)(CUcontext ctx, uint32_t stream, size_t *dropped);
    CUptiResult (*get_callback_name)(CUpti_CallbackDomain domain, uint32_t cbid, const char **name);
    CUptiResult (*get_result_string)(CUptiResult result, const char **str);
    CUptiResult (*get_timestamp)(uint64_t *ns);
    /* optional */
    CUptiResult (*enable_and_dump)(CUpti_ActivityKind kind);
    CUptiResult (*enable_all_sync_records)(uint8_t enable);
    CUptiResult (*enable_runtime_api)(CUpti_CallbackId cbid, uint8_t enable);
    CUptiResult (*enable_driver_api)(CUpti_CallbackId cbid, uint8_t enable);
    /* The NVIDIA driver's version ("580.65.06") for messages: ps_nvidia_driver_version, or a test's. */
    int (*driver_version)(char *buf, size_t len);
    char origin[384];       /* which library, for the status message ("" for a test table) */
};

/* Find libcupti and fill `api`, in this order (the first that loads wins):
 *   1. a libcupti.so.13 the process has already loaded (dlopen RTLD_NOLOAD: `import torch` loads the wheel's
 *      copy), so the process never holds two CUPTI instances;
 *   2. none when the process runs an older CUDA: a libcudart.so.N or libcupti.so.N with N < 13 is loaded (a cu12x
 *      PyTorch wheel) and no CUDA 13 one: returns -ENOTSUP, `why` is the whole message ("CUDA 12 process: GPU
 *      capture needs CUDA 13 (R580+): ..."). A CUDA 12 program with a static runtime is not recognised;
 *   3. `path` if non-NULL and non-empty (PERFSCOPE_CUPTI_PATH);
 *   4. libcupti.so.13 on the dynamic linker's path, then the CUDA toolkit's
 *      /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13, then libcupti.so.
 * The library stays loaded for the life of the process. Returns 0 (api->origin says which library and why;
 * api->driver_version = ps_nvidia_driver_version), or -ENOTSUP / -ENOENT / -ENOSYS with a reason in `why` (what
 * was found or tried and what to do). */
int ps_cupti_load(const char *path, struct ps_cupti_api *api, char *why, size_t why_len);

/* The loaded NVIDIA kernel driver's version ("580.65.06") from /sys/module/nvidia/version or
 * /proc/driver/nvidia/version (files: safe inside cuInit). 0, or -ENOENT (no driver, or a format not known). */
int ps_nvidia_driver_version(char *buf, size_t len);

/* Where the collection writes its records (the probe's ring) and its one-line log messages. */
struct ps_cupti_sink {
    ps_cupti_emit_fn emit;
    void *emit_ctx;
    void (*log)(const char *msg);   /* NULL: silent */
};

/* Write a PS_WIRE_CUDA_STATUS record (enum ps_cuda_state) with a message, and log it once. */
void ps_cupti_status(const struct ps_cupti_sink *sink, uint32_t state, const char *msg);

/* Start activity collection with `api` (copied):
 *   - check the CUPTI version is one whose record layouts are known (probe/cupti_layout.h: 13.0 to 13.4);
 *   - subscribe as "perfscope" (cudaDeviceReset flush callback);
 *   - clock: from CUPTI 13.1 on, register the CLOCK_MONOTONIC timestamp callback; before (invalid zero kernel
 *     timestamps with the callback, CUPTI 12.6u2-13.0) or when refused, keep CUPTI's clock and map it with
 *     (CLOCK_MONOTONIC, cuptiGetTimestamp) pairs taken at start, every flush period and before the exit flush;
 *   - SYSTEM thread ids, the buffer callbacks, the activity kinds (DEVICE and CONTEXT with
 *     cuptiActivityEnableAndDump, so devices initialised before the probe still get records);
 *   - no records of event/stream queries on unfinished work (cuptiActivityEnableAllSyncRecords(0)) nor of
 *     cudaGetDevice, cuCtxGetCurrent, cuKernelGetAttribute, cuDevicePrimaryCtxGetState (as PyTorch's profiler);
 *   - the flush thread (cuptiActivityFlushAll(0) every PS_CUPTI_FLUSH_PERIOD_MS); a SIGTERM handler when
 *     SIGTERM's disposition is the default: the flush thread does the exit flush, then SIGTERM kills the
 *     process as it would have (a second SIGTERM kills it at once);
 *   - pthread_atfork marks a forked child so it never calls CUPTI.
 * On a failure after subscribing, unsubscribes. Writes one status record: PS_CUDA_CUPTI_ACTIVE, _BUSY (another
 * subscriber holds CUPTI; the message names it) or _UNAVAILABLE. Returns 0 when active, -EBUSY, -ENOTSUP
 * (version), -ENOMEM or -EIO; only the first call per process does anything (later calls return the first
 * result). NVTX recording is independent of the result. */
int ps_cupti_start(const struct ps_cupti_api *api, const struct ps_cupti_sink *sink);

/* One tick of the flush thread (tests call it directly): a clock pair when CUPTI's clock is mapped, then
 * cuptiActivityFlushAll(0). A no-op when collection is not active or in a forked child. */
void ps_cupti_periodic_flush(void);

/* Stop the flush thread, take a last clock pair, force-flush every CUPTI buffer
 * (cuptiActivityFlushAll(FORCED)) and write the final loss counters; for the atexit handler (and SIGTERM).
 * Runs once; a no-op when collection is not active or in a forked child. */
void ps_cupti_flush_at_exit(void);

#endif
