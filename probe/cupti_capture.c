/* CUPTI activity collection for the probe: load libcupti, subscribe, hand out activity buffers under a
 * memory cap, convert completed buffers into GPU wire records, flush at exit. Rules and their sources:
 * shared/notes/cupti-nvtx-nvml.md §1.3 (forced flush, fork, finalize, single subscriber, buffers). */
#include "cupti_capture.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ps_time.h"
#include "ps_wire.h"

/* One collection per process: CUPTI's buffer callbacks carry no user data. */
static struct {
    struct ps_cupti_api api;
    struct ps_cupti_sink sink;
    struct ps_cupti_conv *conv;     /* guarded by lock */
    pthread_mutex_t lock;
    pid_t owner;                    /* the process that started CUPTI; a forked child differs */
    atomic_int active;
    atomic_int forked_child;
    atomic_size_t outstanding_bytes;
    size_t cap_bytes;
    atomic_uint_fast64_t buffers_refused;
    struct ps_wire_gpu_drops last_drops; /* guarded by lock: what the last DROPS record said */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_result = -EIO;
static const struct ps_cupti_api *start_api;
static const struct ps_cupti_sink *start_sink;

int ps_cupti_load(const char *path, struct ps_cupti_api *api, char *why, size_t why_len)
{
    const char *tried[3];
    size_t n = 0;
    void *h = NULL;
    if (path && *path)
        tried[n++] = path;
    tried[n++] = "libcupti.so.13";
    tried[n++] = "libcupti.so";
    for (size_t i = 0; i < n && !h; i++)
        h = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, why_len, "cannot load libcupti (tried %s%s%s%s%s): %s; set PERFSCOPE_CUPTI_PATH to the "
                 "libcupti.so.13 of a CUDA 13 install (e.g. /usr/local/cuda/extras/CUPTI/lib64 or the "
                 "nvidia/cu13/lib folder of the PyTorch wheel)", tried[0], n > 1 ? ", " : "", n > 1 ? tried[1] : "",
                 n > 2 ? ", " : "", n > 2 ? tried[2] : "", dlerror());
        return -ENOENT;
    }
    /* Never dlclose: CUDA 13.0 segfaults at shutdown when libcupti is unloaded (PAPI PR #594). */
    struct { void **slot; const char *name; } syms[] = {
        { (void **)&api->get_version, "cuptiGetVersion" },
        { (void **)&api->subscribe_v2, "cuptiSubscribe_v2" },
        { (void **)&api->enable_callback, "cuptiEnableCallback" },
        { (void **)&api->register_timestamp_callback, "cuptiActivityRegisterTimestampCallback" },
        { (void **)&api->set_thread_id_type, "cuptiSetThreadIdType" },
        { (void **)&api->register_callbacks, "cuptiActivityRegisterCallbacks" },
        { (void **)&api->activity_enable, "cuptiActivityEnable" },
        { (void **)&api->flush_period, "cuptiActivityFlushPeriod" },
        { (void **)&api->flush_all, "cuptiActivityFlushAll" },
        { (void **)&api->get_next_record, "cuptiActivityGetNextRecord" },
        { (void **)&api->get_num_dropped, "cuptiActivityGetNumDroppedRecords" },
        { (void **)&api->get_callback_name, "cuptiGetCallbackName" },
        { (void **)&api->get_result_string, "cuptiGetResultString" },
        { (void **)&api->get_timestamp, "cuptiGetTimestamp" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(h, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(why, why_len, "libcupti has no %s (a CUPTI older than CUDA 13?): set PERFSCOPE_CUPTI_PATH "
                     "to a CUDA 13 libcupti.so.13", syms[i].name);
            return -ENOSYS;
        }
    }
    return 0;
}

void ps_cupti_status(const struct ps_cupti_sink *sink, uint32_t state, const char *msg)
{
    size_t len = strlen(msg);
    size_t size = (sizeof(struct ps_wire_cuda_status) + len + 1 + 7) & ~(size_t)7;
    struct ps_wire_cuda_status *s = calloc(1, size);
    if (s) {
        s->h.size = (uint32_t)size;
        s->h.type = PS_WIRE_CUDA_STATUS;
        s->time_ns = ps_monotonic_ns();
        s->state = state;
        s->msg_len = (uint32_t)len + 1;
        memcpy(s + 1, msg, len);
        sink->emit(sink->emit_ctx, &s->h);
        free(s);
    }
    if (sink->log)
        sink->log(msg);
}

/* CUPTI may call back only in the process that started it, and never after a fork. */
static int cupti_usable(void)
{
    return atomic_load(&g.active) && !atomic_load(&g.forked_child) && getpid() == g.owner;
}

static void atfork_child(void)
{
    /* The child has no CUPTI worker thread: a flush there hangs (HPCToolkit #195). */
    atomic_store(&g.forked_child, 1);
}

static uint64_t CUPTIAPI monotonic_timestamp(void)
{
    return (uint64_t)ps_monotonic_ns();
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;   /* as many as fit */
    size_t before = atomic_fetch_add(&g.outstanding_bytes, PS_CUPTI_BUFFER_BYTES);
    uint8_t *b = NULL;
    if (before + PS_CUPTI_BUFFER_BYTES <= g.cap_bytes)
        b = aligned_alloc(8, PS_CUPTI_BUFFER_BYTES);   /* records are 8-byte aligned */
    if (!b) {
        atomic_fetch_sub(&g.outstanding_bytes, PS_CUPTI_BUFFER_BYTES);
        atomic_fetch_add(&g.buffers_refused, 1);
        *buffer = NULL;
        *size = 0;
        return;
    }
    *buffer = b;
    *size = PS_CUPTI_BUFFER_BYTES;
}

/* Emit the loss counters when they changed; caller holds g.lock. */
static void emit_drops_if_changed(int always)
{
    struct ps_wire_gpu_drops d;
    ps_cupti_conv_drops(g.conv, &d);
    d.buffers_refused = atomic_load(&g.buffers_refused);
    if (!always && !memcmp(&d, &g.last_drops, sizeof d))
        return;
    ps_cupti_conv_emit_drops(g.conv, d.buffers_refused);
    g.last_drops = d;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    if (!atomic_load(&g.forked_child)) {
        pthread_mutex_lock(&g.lock);
        if (g.conv) {
            ps_cupti_conv_buffer(g.conv, g.api.get_next_record, buffer, valid);
            size_t dropped = 0;
            if (g.api.get_num_dropped(ctx, stream, &dropped) == CUPTI_SUCCESS)
                ps_cupti_conv_add_cupti_dropped(g.conv, dropped);
            emit_drops_if_changed(0);
        }
        pthread_mutex_unlock(&g.lock);
    }
    if (buffer) {
        free(buffer);   /* only here: CUPTI owns a buffer until it completes it (pytorch PR #195207) */
        atomic_fetch_sub(&g.outstanding_bytes, PS_CUPTI_BUFFER_BYTES);
    }
}

static void CUPTIAPI api_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *cbdata)
{
    (void)userdata;
    const CUpti_CallbackData *d = cbdata;
    /* cudaDeviceReset destroys the context and its unflushed records: flush on entry (NVIDIA's sample). */
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
        d && d->callbackSite == CUPTI_API_ENTER && cupti_usable())
        g.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static const char *result_string(CUptiResult r)
{
    const char *s = NULL;
    if (g.api.get_result_string && g.api.get_result_string(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}

static size_t cap_from_env(void)
{
    const char *v = getenv(PS_ENV_CUPTI_BUFFER_MB);
    char *end;
    unsigned long long mb = v ? strtoull(v, &end, 10) : 0;
    if (!v || end == v || *end || mb == 0 || mb > (1ull << 20))
        mb = PS_CUPTI_DEFAULT_CAP_MB;
    return (size_t)mb << 20;
}

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,     /* emitted at creation: enable first */
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_OVERHEAD,
};

static int start(const struct ps_cupti_api *api, const struct ps_cupti_sink *sink)
{
    char msg[512];
    uint32_t version = 0;
    CUptiResult r;
    g.api = *api;
    g.sink = *sink;
    g.owner = getpid();
    g.cap_bytes = cap_from_env();

    r = g.api.get_version(&version);
    /* CUDA 13 numbers the API xxyyzz (cupti_version.h); the record structs used here are 13.0's. */
    if (r != CUPTI_SUCCESS || version < 130000 || version >= 140000) {
        snprintf(msg, sizeof msg, "CUPTI API version %u is not 13.x (perfscope reads CUDA 13 activity "
                 "records): no GPU rows; set PERFSCOPE_CUPTI_PATH to a CUDA 13 libcupti.so.13", version);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -ENOTSUP;
    }

    CUpti_SubscriberHandle sub = NULL;
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
    CUpti_SubscriberParams params = {
        .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
        .subscriberName = "perfscope",
        .oldSubscriberName = old,
        .oldSubscriberSize = sizeof old,
    };
    r = g.api.subscribe_v2(&sub, api_callback, NULL, &params);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        snprintf(msg, sizeof msg, "CUPTI is already in use by %s (only one CUPTI subscriber per "
                 "process): no GPU rows, NVTX ranges are still recorded; run without that tool (nsys, ncu, "
                 "compute-sanitizer, an active torch.profiler) to get GPU activity",
                 old[0] ? old : "another tool (it did not give its name)");
        ps_cupti_status(sink, PS_CUDA_CUPTI_BUSY, msg);
        return -EBUSY;
    }
    if (r != CUPTI_SUCCESS) {
        snprintf(msg, sizeof msg, "cuptiSubscribe_v2 failed: %s (%d): no GPU rows, NVTX goes on",
                 result_string(r), (int)r);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -EIO;
    }

    /* Once per process and before any kind is enabled (re-registering corrupts timestamps, pytorch #192021).
     * If CUPTI refuses, keep its clock and shift it onto CLOCK_MONOTONIC by the offset measured now. */
    int64_t offset = 0;
    if (g.api.register_timestamp_callback(monotonic_timestamp) != CUPTI_SUCCESS) {
        uint64_t cupti_ns = 0;
        int64_t t0 = ps_monotonic_ns();
        if (g.api.get_timestamp(&cupti_ns) == CUPTI_SUCCESS)
            offset = (t0 + ps_monotonic_ns()) / 2 - (int64_t)cupti_ns;
    }
    g.api.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);

    if (ps_cupti_conv_new(sink->emit, sink->emit_ctx, g.api.get_callback_name, offset, &g.conv) < 0) {
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, "out of memory starting CUPTI: no GPU rows");
        return -ENOMEM;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    r = g.api.register_callbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        snprintf(msg, sizeof msg, "cuptiActivityRegisterCallbacks failed: %s (%d): no GPU rows",
                 result_string(r), (int)r);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -EIO;
    }
    size_t enabled = 0;
    char failed[256] = "";
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        r = g.api.activity_enable(kinds[i]);
        if (r == CUPTI_SUCCESS)
            enabled++;
        else
            snprintf(failed + strlen(failed), sizeof failed - strlen(failed), " %d:%s", (int)kinds[i],
                     result_string(r));
    }
    if (!enabled) {
        snprintf(msg, sizeof msg, "CUPTI enabled no activity kind (kind:error%s): no GPU rows", failed);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -EIO;
    }
    g.api.enable_callback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    g.api.flush_period(PS_CUPTI_FLUSH_PERIOD_MS);
    atomic_store(&g.active, 1);
    snprintf(msg, sizeof msg, "CUPTI %u active, %zu of %zu activity kinds%s%s%s", version, enabled,
             sizeof kinds / sizeof kinds[0], failed[0] ? " (failed:" : "", failed, failed[0] ? ")" : "");
    ps_cupti_status(sink, PS_CUDA_CUPTI_ACTIVE, msg);
    return 0;
}

static void start_once_fn(void)
{
    start_result = start(start_api, start_sink);
}

int ps_cupti_start(const struct ps_cupti_api *api, const struct ps_cupti_sink *sink)
{
    start_api = api;
    start_sink = sink;
    pthread_once(&start_once, start_once_fn);
    return start_result;
}

void ps_cupti_flush_at_exit(void)
{
    if (!cupti_usable())
        return;     /* never call CUPTI in a forked child, not even at exit */
    /* FORCED: a normal flush withholds buffers holding an incomplete record (tensorflow PR #11945). */
    g.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&g.lock);
    size_t dropped = 0;
    if (g.api.get_num_dropped(NULL, 0, &dropped) == CUPTI_SUCCESS)
        ps_cupti_conv_add_cupti_dropped(g.conv, dropped);
    emit_drops_if_changed(1);
    pthread_mutex_unlock(&g.lock);
}
