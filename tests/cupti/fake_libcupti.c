/* A stand-in libcupti for whole-process tests without a GPU: exports the CUPTI functions the probe dlsyms
 * (PERFSCOPE_CUPTI_PATH points here). On the first flush, default or forced (its records are complete), it hands
 * the probe one buffer of real CUDA 13.0 records (device twice, as dumped and as emitted at initialisation; a
 * context; a kernel and one without timestamps; an H2D copy with its driver and runtime correlation ids; the runtime API calls; a stream
 * query on unfinished work) timed 1 ms before the flush. Its API version is 130001 (CUDA 13.0 Update 1), so the
 * probe keeps its clock, which runs 5 s ahead of CLOCK_MONOTONIC, unless it registers a timestamp callback.
 * FAKE_CUPTI_BUSY=1: cuptiSubscribe_v2 answers CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39).
 * FAKE_CUPTI_INCOMPLETE=1: the buffer holds an unfinished record, so only a forced flush returns it.
 * fake_cupti_handed_over() (not CUPTI's) says whether the probe has taken that buffer, for a test program. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#define EXPORT __attribute__((visibility("default")))

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static CUpti_TimestampCallbackFunc clock_cb;
static int delivered;
static atomic_int handed_over;      /* the probe's completion callback has returned the buffer */

EXPORT int fake_cupti_handed_over(void) { return atomic_load(&handed_over); }

/* CUPTI's clock: the registered callback's, else CLOCK_MONOTONIC + 5 s. */
static uint64_t fake_clock(void)
{
    struct timespec ts;
    if (clock_cb)
        return clock_cb();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 5000000000u;
}

static size_t rec_size(CUpti_ActivityKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_RUNTIME: case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    default: return 0;
    }
}

static size_t append(uint8_t *buf, size_t valid, const void *rec)
{
    size_t n = rec_size(((const CUpti_Activity *)rec)->kind);
    memcpy(buf + valid, rec, n);
    return valid + ((n + 7) & ~(size_t)7);
}

EXPORT CUptiResult cuptiGetVersion(uint32_t *v) { *v = 130001; return CUPTI_SUCCESS; }

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *u,
                                     CUpti_SubscriberParams *p)
{
    (void)cb, (void)u;
    if (getenv("FAKE_CUPTI_BUSY")) {
        if (p && p->oldSubscriberName && p->oldSubscriberSize > 24)
            strcpy(p->oldSubscriberName, "CUPTI for Nsight Systems");
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    }
    *sub = (CUpti_SubscriberHandle)&requested;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s) { (void)s; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind k) { (void)k; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityEnableAllSyncRecords(uint8_t e) { (void)e; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId c, uint8_t e) { (void)c, (void)e; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId c, uint8_t e) { (void)c, (void)e; return CUPTI_SUCCESS; }

EXPORT CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d, CUpti_CallbackId c)
{
    (void)e, (void)s, (void)d, (void)c;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) { clock_cb = f; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) { (void)t; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) { (void)k; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s) { (void)r; *s = "fake"; return CUPTI_SUCCESS; }
EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *d)
{
    (void)c, (void)s;
    *d = 0;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *ns)
{
    *ns = fake_clock();
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r, CUpti_BuffersCallbackCompleteFunc c)
{
    requested = r, completed = c;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        *name = "cudaLaunchKernel_v7000";
    else if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020)
        *name = "cudaMemcpyAsync_v3020";
    else if (d == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2)
        *name = "cuMemcpyHtoDAsync_v2";
    else
        return CUPTI_ERROR_INVALID_PARAMETER;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    size_t off = *rec ? (size_t)((uint8_t *)*rec - buf) + ((rec_size((*rec)->kind) + 7) & ~(size_t)7) : 0;
    if (off >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(buf + off);
    return CUPTI_SUCCESS;
}

/* The first flush (the probe's periodic default flush, or the forced one at exit): one buffer, timed by CUPTI's
 * clock (the probe's callback when it registered one). */
EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    uint8_t *buf = NULL;
    size_t size = 0, max = 0, valid = 0;
    if (delivered || !requested || (getenv("FAKE_CUPTI_INCOMPLETE") && !(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)))
        return CUPTI_SUCCESS;
    requested(&buf, &size, &max);
    if (!buf)
        return CUPTI_SUCCESS;
    delivered = 1;
    uint64_t now = fake_clock() - 1000000;
    CUpti_ActivityDevice5 dev = { .kind = CUPTI_ACTIVITY_KIND_DEVICE, .id = 0, .name = "Fake GPU",
                                  .numMultiprocessors = 132, .computeCapabilityMajor = 9, .isCudaVisible = 1 };
    dev.uuid.bytes[0] = 0x5a;
    valid = append(buf, valid, &dev);
    valid = append(buf, valid, &dev);       /* dumped by EnableAndDump and emitted at initialisation */
    CUpti_ActivityContext3 ctx = { .kind = CUPTI_ACTIVITY_KIND_CONTEXT, .contextId = 1, .deviceId = 0 };
    valid = append(buf, valid, &ctx);
    CUpti_ActivityAPI api = { .kind = CUPTI_ACTIVITY_KIND_RUNTIME,
                              .cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, .start = now - 1000000,
                              .end = now - 990000, .processId = (uint32_t)getpid(),
                              .threadId = (uint32_t)getpid(), .correlationId = 7 };
    valid = append(buf, valid, &api);
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = now - 900000, k.end = now - 400000, k.contextId = 1, k.streamId = 7, k.correlationId = 7;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    k.name = "_Z10gemm_tiledPKfS0_Pfiii";
    valid = append(buf, valid, &k);
    CUpti_ActivityKernel10 untimed = k;
    untimed.start = untimed.end = 0, untimed.correlationId = 11;   /* "could not be collected": counted, left out */
    valid = append(buf, valid, &untimed);
    /* cudaMemcpyAsync (runtime, correlation 9) calling cuMemcpyHtoDAsync (driver, correlation 8). */
    api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, api.start = now - 350000, api.end = now - 340000;
    api.correlationId = 9;
    valid = append(buf, valid, &api);
    CUpti_ActivityAPI drv = api;
    drv.kind = CUPTI_ACTIVITY_KIND_DRIVER, drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2;
    drv.start = now - 348000, drv.end = now - 342000, drv.correlationId = 8;
    valid = append(buf, valid, &drv);
    CUpti_ActivityMemcpy6 m = { .kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                                .srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                .dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, .bytes = 4096,
                                .start = now - 300000, .end = now - 200000, .contextId = 1, .streamId = 7,
                                .correlationId = 8, .runtimeCorrelationId = 9, .copyCount = 1 };
    valid = append(buf, valid, &m);
    CUpti_ActivitySynchronization2 q = { .kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                         .type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE,
                                         .start = now - 150000, .end = now - 149000, .contextId = 1, .streamId = 7,
                                         .correlationId = 10, .cudaEventId = 0xFFFFFFFFu,
                                         .returnValue = 600 };      /* cudaStreamQuery: CUDA_ERROR_NOT_READY */
    valid = append(buf, valid, &q);
    completed(NULL, 0, buf, size, valid);
    atomic_store(&handed_over, 1);
    return CUPTI_SUCCESS;
}
