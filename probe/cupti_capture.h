/* CUPTI activity collection inside the probe: libcupti is dlopen'ed at run time (never linked, never
 * dlclose'd, never cuptiFinalize'd), its functions called through a table so tests can put fakes there.
 * One collection per process (CUPTI's buffer callbacks carry no user data); DESIGN §2 "CUPTI hygiene". */
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
#define PS_CUPTI_FLUSH_PERIOD_MS 500        /* cuptiActivityFlushPeriod: a long run streams its records */

/* The CUPTI functions perfscope calls (signatures from cupti_activity.h / cupti_callbacks.h, CUDA 13.0). */
struct ps_cupti_api {
    CUptiResult (*get_version)(uint32_t *version);
    CUptiResult (*subscribe_v2)(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *userdata,
                                CUpti_SubscriberParams *params);
    CUptiResult (*enable_callback)(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain,
                                   CUpti_CallbackId cbid);
    CUptiResult (*register_timestamp_callback)(CUpti_TimestampCallbackFunc fn);
    CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType type);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc requested,
                                      CUpti_BuffersCallbackCompleteFunc completed);
    CUptiResult (*activity_enable)(CUpti_ActivityKind kind);
    CUptiResult (*flush_period)(uint32_t ms);
    CUptiResult (*flush_all)(uint32_t flag);
    CUptiResult (*get_next_record)(uint8_t *buffer, size_t valid_bytes, CUpti_Activity **record);
    CUptiResult (*get_num_dropped)(CUcontext ctx, uint32_t stream, size_t *dropped);
    CUptiResult (*get_callback_name)(CUpti_CallbackDomain domain, uint32_t cbid, const char **name);
    CUptiResult (*get_result_string)(CUptiResult result, const char **str);
    CUptiResult (*get_timestamp)(uint64_t *ns);
};

/* dlopen libcupti: `path` if non-NULL (PERFSCOPE_CUPTI_PATH), else libcupti.so.13, then libcupti.so, and
 * fill `api`. The library stays loaded for the life of the process. Returns 0, or -ENOENT / -ENOSYS with a
 * reason in `why` (what was tried and what to do). */
int ps_cupti_load(const char *path, struct ps_cupti_api *api, char *why, size_t why_len);

/* Where the collection writes its records (the probe's ring) and its one-line log messages. */
struct ps_cupti_sink {
    ps_cupti_emit_fn emit;
    void *emit_ctx;
    void (*log)(const char *msg);   /* NULL: silent */
};

/* Write a PS_WIRE_CUDA_STATUS record (enum ps_cuda_state) with a message, and log it once. */
void ps_cupti_status(const struct ps_cupti_sink *sink, uint32_t state, const char *msg);

/* Start activity collection with `api` (copied): check the CUPTI version (13.x, the record layouts this
 * probe was built with), subscribe as "perfscope", register the CLOCK_MONOTONIC timestamp callback,
 * SYSTEM thread ids, the buffer callbacks, enable the activity kinds, the cudaDeviceReset flush and the
 * periodic flush; pthread_atfork marks a forked child so it never calls CUPTI. Writes one status record:
 * PS_CUDA_CUPTI_ACTIVE, _BUSY (another subscriber holds CUPTI; the message names it) or _UNAVAILABLE.
 * Returns 0 when active; -EBUSY (another subscriber), -ENOTSUP (CUPTI's API version cannot be read or is not
 * 13.x), -ENOMEM, or -EIO (cuptiSubscribe_v2 or cuptiActivityRegisterCallbacks failed, or no activity kind
 * could be enabled). Only the first call per process does anything (later calls return the first result).
 * NVTX recording is independent of the result. */
int ps_cupti_start(const struct ps_cupti_api *api, const struct ps_cupti_sink *sink);

/* Forced flush of every CUPTI buffer (cuptiActivityFlushAll(FORCED)) and the final loss counters; for the
 * atexit handler. A no-op when collection is not active or in a forked child. */
void ps_cupti_flush_at_exit(void);

#endif
