/* A fake CUPTI function table for the tests: every function aborts when called in a forked child, records
 * what it was asked, and hands the buffer callbacks to the test, which then plays CUPTI's part. */
#ifndef PS_TEST_CUPTI_FAKE_API_H
#define PS_TEST_CUPTI_FAKE_API_H

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "cupti_capture.h"
#include "cupti_fake.h"
#include "ps_time.h"

static pid_t parent;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;  /* f.held: the test thread and the flush thread */
/* Every fake CUPTI function first checks it is not running in a forked child. */
#define GUARD() do { if (getpid() != parent) abort(); } while (0)

static struct {
    uint32_t version;
    int busy, ts_fails, seq, ts_seq, first_enable_seq, last_enable_seq, enabled, callbacks_enabled;
    int fail_register;                  /* cuptiActivityRegisterCallbacks fails */
    CUptiResult subscribe_error;        /* cuptiSubscribe_v2 fails with this (an old driver) */
    int dump_fails;                     /* cuptiActivityEnableAndDump fails (as it may inside cuInit) */
    int enable_fails;                   /* cuptiActivityEnable fails for every kind */
    const char *driver;                 /* what the driver-version reader gives; NULL: unknown */
    unsigned long long kinds_mask, dumped_mask;
    CUpti_ActivityThreadIdType tid_type;
    int flushes, forced_flushes, subscribes, unsubscribes, logs;
    int all_sync_records;               /* last cuptiActivityEnableAllSyncRecords argument, -1 never called */
    int api_filter_seq;                 /* when the first per-API setting came */
    unsigned long long runtime_off, driver_off;   /* cbids < 64 turned off / bit 63: any larger one */
    int cuCtxGetCurrent_off, cuKernelGetAttribute_off, cuDevicePrimaryCtxGetState_off;
    /* A buffer CUPTI holds, partly filled: a default flush hands it over when its records are complete. */
    uint8_t *held;
    size_t held_size, held_valid;
    int held_incomplete;
    CUpti_TimestampCallbackFunc ts;
    CUpti_BuffersCallbackRequestFunc requested;
    CUpti_BuffersCallbackCompleteFunc completed;
    CUpti_CallbackFunc api_cb;      /* the subscriber's API callback */
    size_t dropped_once;
    uint64_t cupti_clock_offset;
    int64_t cupti_clock_base;           /* CUPTI's clock runs fast by cupti_clock_ppm after this CLOCK_MONOTONIC time */
    int64_t cupti_clock_ppm;
} f = { .version = 130001, .all_sync_records = -1 };

static CUptiResult f_get_version(uint32_t *v) { GUARD(); *v = f.version; return CUPTI_SUCCESS; }
static CUptiResult f_subscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *u, CUpti_SubscriberParams *p)
{
    GUARD();
    (void)u;
    f.subscribes++;
    f.api_cb = cb;
    CHECK(p && p->structSize == CUpti_SubscriberParams_STRUCT_SIZE && !strcmp(p->subscriberName, "perfscope"));
    if (f.busy) {
        snprintf(p->oldSubscriberName, p->oldSubscriberSize, "CUPTI for Nsight Systems");
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;     /* = 39 */
    }
    if (f.subscribe_error != CUPTI_SUCCESS)
        return f.subscribe_error;
    *sub = (CUpti_SubscriberHandle)&f;
    return CUPTI_SUCCESS;
}
static CUptiResult f_unsubscribe(CUpti_SubscriberHandle sub)
{
    GUARD();
    CHECK(sub == (CUpti_SubscriberHandle)&f);
    f.unsubscribes++;
    return CUPTI_SUCCESS;
}
static CUptiResult f_enable_callback(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    GUARD();
    CHECK(on == 1 && s == (CUpti_SubscriberHandle)&f && d == CUPTI_CB_DOMAIN_RUNTIME_API &&
          id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    f.callbacks_enabled++;
    return CUPTI_SUCCESS;
}
static CUptiResult f_register_ts(CUpti_TimestampCallbackFunc fn)
{
    GUARD();
    f.ts_seq = ++f.seq;
    if (f.ts_fails)
        return CUPTI_ERROR_NOT_SUPPORTED;
    f.ts = fn;
    return CUPTI_SUCCESS;
}
static CUptiResult f_set_tid(CUpti_ActivityThreadIdType t) { GUARD(); f.tid_type = t; return CUPTI_SUCCESS; }
static CUptiResult f_register_cbs(CUpti_BuffersCallbackRequestFunc r, CUpti_BuffersCallbackCompleteFunc c)
{
    GUARD();
    f.requested = r, f.completed = c;
    return f.fail_register ? CUPTI_ERROR_UNKNOWN : CUPTI_SUCCESS;
}
static CUptiResult f_enable(CUpti_ActivityKind k)
{
    GUARD();
    if (!f.first_enable_seq)
        f.first_enable_seq = ++f.seq;
    f.last_enable_seq = ++f.seq;
    if (f.enable_fails)
        return CUPTI_ERROR_NOT_INITIALIZED;
    f.enabled++;
    f.kinds_mask |= 1ull << k;
    return CUPTI_SUCCESS;
}
static CUptiResult f_enable_and_dump(CUpti_ActivityKind k)
{
    GUARD();
    if (f.dump_fails)
        return CUPTI_ERROR_NOT_INITIALIZED;
    f.dumped_mask |= 1ull << k;
    return f_enable(k);
}
static CUptiResult f_all_sync(uint8_t on) { GUARD(); f.all_sync_records = on; return CUPTI_SUCCESS; }
static CUptiResult f_runtime_api(CUpti_CallbackId cbid, uint8_t on)
{
    GUARD();
    if (!f.api_filter_seq)
        f.api_filter_seq = ++f.seq;
    if (!on)
        f.runtime_off |= 1ull << (cbid < 63 ? cbid : 63);
    return CUPTI_SUCCESS;
}
static CUptiResult f_driver_api(CUpti_CallbackId cbid, uint8_t on)
{
    GUARD();
    if (!f.api_filter_seq)
        f.api_filter_seq = ++f.seq;
    f.cuCtxGetCurrent_off |= !on && cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent;
    f.cuKernelGetAttribute_off |= !on && cbid == CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute;
    f.cuDevicePrimaryCtxGetState_off |= !on && cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState;
    return CUPTI_SUCCESS;
}
/* As cupti_activity.h describes cuptiActivityFlushAll: a default flush (0) returns the buffers whose records are
 * all complete, full or not; a forced flush returns every buffer. */
static CUptiResult f_flush(uint32_t flag)
{
    GUARD();
    f.flushes++;
    f.forced_flushes += flag == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
    pthread_mutex_lock(&held_lock);
    if (f.held && (flag == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED || !f.held_incomplete)) {
        uint8_t *b = f.held;
        f.held = NULL;
        f.completed(NULL, 0, b, f.held_size, f.held_valid);
    }
    pthread_mutex_unlock(&held_lock);
    return CUPTI_SUCCESS;
}
/* CUPTI asks the probe for a buffer and keeps it, partly filled with `rec` (a record of fake_record_size). */
static inline void fake_hold(const void *rec)
{
    size_t max = 0, size = 0;
    uint8_t *b = NULL;
    f.requested(&b, &size, &max);
    CHECK(b);
    size_t valid = fake_append(b, 0, rec);
    pthread_mutex_lock(&held_lock);
    f.held_size = size, f.held_valid = valid, f.held = b;
    pthread_mutex_unlock(&held_lock);
}
static CUptiResult f_next(uint8_t *b, size_t v, CUpti_Activity **r) { GUARD(); return fake_next(b, v, r); }
static CUptiResult f_dropped(CUcontext c, uint32_t s, size_t *d)
{
    GUARD();
    (void)c, (void)s;
    *d = f.dropped_once;     /* CUPTI resets its count on each call */
    f.dropped_once = 0;
    return CUPTI_SUCCESS;
}
static CUptiResult f_cbname(CUpti_CallbackDomain d, uint32_t id, const char **n) { GUARD(); return fake_cbname(d, id, n); }
static CUptiResult f_result(CUptiResult r, const char **s) { GUARD(); (void)r; *s = "fake error"; return CUPTI_SUCCESS; }
/* CUPTI's clock at CLOCK_MONOTONIC time `mono`: offset, plus drift when set. */
static inline uint64_t fake_cupti_clock(int64_t mono)
{
    int64_t drift = f.cupti_clock_ppm ? (mono - f.cupti_clock_base) / 1000000 * f.cupti_clock_ppm : 0;
    return (uint64_t)(mono + drift) + f.cupti_clock_offset;
}
static CUptiResult f_timestamp(uint64_t *ns) { GUARD(); *ns = fake_cupti_clock(ps_monotonic_ns()); return CUPTI_SUCCESS; }
static int f_driver_version(char *buf, size_t len)
{
    if (!f.driver)
        return -ENOENT;
    snprintf(buf, len, "%s", f.driver);
    return 0;
}

static const struct ps_cupti_api fake_api = {
    .get_version = f_get_version, .subscribe_v2 = f_subscribe, .unsubscribe = f_unsubscribe,
    .enable_callback = f_enable_callback, .register_timestamp_callback = f_register_ts,
    .set_thread_id_type = f_set_tid, .register_callbacks = f_register_cbs, .activity_enable = f_enable,
    .flush_all = f_flush, .get_next_record = f_next, .get_num_dropped = f_dropped, .get_callback_name = f_cbname,
    .get_result_string = f_result, .get_timestamp = f_timestamp, .enable_and_dump = f_enable_and_dump,
    .enable_all_sync_records = f_all_sync, .enable_runtime_api = f_runtime_api, .enable_driver_api = f_driver_api,
    .driver_version = f_driver_version,
};

#endif
