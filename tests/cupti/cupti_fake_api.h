/* A fake CUPTI function table for the tests: every function aborts when called in a forked child, records
 * what it was asked, and hands the buffer callbacks to the test, which then plays CUPTI's part. */
#ifndef PS_TEST_CUPTI_FAKE_API_H
#define PS_TEST_CUPTI_FAKE_API_H

#include <unistd.h>

#include "cupti_capture.h"
#include "cupti_fake.h"
#include "ps_time.h"

static pid_t parent;
/* Every fake CUPTI function first checks it is not running in a forked child. */
#define GUARD() do { if (getpid() != parent) abort(); } while (0)

static struct {
    uint32_t version;
    int busy, ts_fails, seq, ts_seq, first_enable_seq, enabled, callbacks_enabled;
    unsigned long long kinds_mask;
    CUpti_ActivityThreadIdType tid_type;
    uint32_t period_ms;
    int flushes, forced_flushes, subscribes, logs;
    CUpti_TimestampCallbackFunc ts;
    CUpti_BuffersCallbackRequestFunc requested;
    CUpti_BuffersCallbackCompleteFunc completed;
    CUpti_CallbackFunc api_cb;      /* the subscriber's API callback */
    size_t dropped_once;
    uint64_t cupti_clock_offset;
} f = { .version = 130001 };

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
    *sub = (CUpti_SubscriberHandle)&f;
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
    return CUPTI_SUCCESS;
}
static CUptiResult f_enable(CUpti_ActivityKind k)
{
    GUARD();
    if (!f.first_enable_seq)
        f.first_enable_seq = ++f.seq;
    f.enabled++;
    f.kinds_mask |= 1ull << k;
    return CUPTI_SUCCESS;
}
static CUptiResult f_period(uint32_t ms) { GUARD(); f.period_ms = ms; return CUPTI_SUCCESS; }
static CUptiResult f_flush(uint32_t flag)
{
    GUARD();
    f.flushes++;
    f.forced_flushes += flag == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
    return CUPTI_SUCCESS;
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
static CUptiResult f_timestamp(uint64_t *ns) { GUARD(); *ns = (uint64_t)ps_monotonic_ns() + f.cupti_clock_offset; return CUPTI_SUCCESS; }

static const struct ps_cupti_api fake_api = {
    f_get_version, f_subscribe, f_enable_callback, f_register_ts, f_set_tid, f_register_cbs, f_enable, f_period,
    f_flush, f_next, f_dropped, f_cbname, f_result, f_timestamp,
};

#endif
