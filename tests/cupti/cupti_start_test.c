/* probe/cupti_capture.c driven through a fake CUPTI function table: start-up order, the buffer callbacks CUPTI
 * would call, the memory cap, another subscriber, a forked child, the clock fallback, the real loader.
 * Usage: cupti_start_test CASE (one ctest per case, each in a fresh process: collection is per process). */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_env.h"
#include "ps_time.h"

#include "cupti_fake_api.h"

static struct sink s;
static void count_log(const char *msg) { (void)msg; f.logs++; }
static const struct ps_cupti_sink test_sink = { sink_emit, &s, count_log };

static const struct ps_wire_cuda_status *status(int i)
{
    return sink_find(&s, PS_WIRE_CUDA_STATUS, i);
}

static CUpti_ActivityKernel10 kernel(uint64_t start, uint64_t end)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start, k.end = end, k.streamId = 7, k.correlationId = 3;
    k.name = "_Z10gemm_tiledPKfS0_Pfiii";
    return k;
}

static void case_active(void)
{
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);       /* idempotent: one subscription */
    CHECK_EQ(f.subscribes, 1);
    CHECK(f.ts && f.ts_seq < f.first_enable_seq);            /* clock registered before any kind */
    uint64_t before = (uint64_t)ps_monotonic_ns(), t = f.ts(), after = (uint64_t)ps_monotonic_ns();
    CHECK(before <= t && t <= after);                        /* the callback is CLOCK_MONOTONIC */
    CHECK_EQ(f.tid_type, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    CHECK_EQ(f.enabled, 10);
    static const CUpti_ActivityKind want[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_OVERHEAD,
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(f.kinds_mask & (1ull << want[i]));
    CHECK_EQ(f.callbacks_enabled, 1);
    CHECK_EQ(f.period_ms, PS_CUPTI_FLUSH_PERIOD_MS);
    CHECK(status(0) && status(0)->state == PS_CUDA_CUPTI_ACTIVE);
    CHECK_EQ(f.logs, 1);

    /* CUPTI asks for a buffer, fills it, hands it back on its worker thread. */
    uint8_t *buf = NULL;
    size_t size = 0, max = 99;
    f.requested(&buf, &size, &max);
    CHECK(buf && size == PS_CUPTI_BUFFER_BYTES && max == 0 && ((uintptr_t)buf & 7) == 0);
    size_t valid = 0;
    CUpti_ActivityKernel10 k = kernel(1000, 2000), z = kernel(0, 0);
    valid = fake_append(buf, valid, &k);
    valid = fake_append(buf, valid, &z);
    f.dropped_once = 5;
    f.completed(NULL, 0, buf, size, valid);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_KERNEL), 1);
    const struct ps_wire_gpu_drops *d = sink_find(&s, PS_WIRE_GPU_DROPS, 0);
    CHECK(d);
    CHECK_EQ(d->cupti_dropped, 5);
    CHECK_EQ(d->zero_timestamp, 1);

    /* cudaDeviceReset destroys unflushed records: a forced flush on its entry, nothing on its exit. */
    CUpti_CallbackData cbd;
    memset(&cbd, 0, sizeof cbd);
    cbd.callbackSite = CUPTI_API_EXIT;
    f.api_cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, &cbd);
    CHECK_EQ(f.forced_flushes, 0);
    cbd.callbackSite = CUPTI_API_ENTER;
    f.api_cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, &cbd);
    CHECK_EQ(f.forced_flushes, 1);

    /* The exit flush is forced and writes the final counters. */
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.forced_flushes, 2);
    d = sink_find(&s, PS_WIRE_GPU_DROPS, 1);
    CHECK(d);
    CHECK_EQ(d->cupti_dropped, 5);
    CHECK_EQ(d->zero_timestamp, 1);
}

/* Another tool holds CUPTI: one clear message naming it, nothing enabled, no flush at exit. */
static void case_busy(void)
{
    f.busy = 1;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EBUSY);
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EBUSY);
    CHECK_EQ(f.subscribes, 1);
    CHECK_EQ(sink_count(&s, PS_WIRE_CUDA_STATUS), 1);
    CHECK_EQ(f.logs, 1);
    const struct ps_wire_cuda_status *st = status(0);
    CHECK_EQ(st->state, PS_CUDA_CUPTI_BUSY);
    const char *msg = (const char *)(st + 1);
    CHECK(strstr(msg, "CUPTI for Nsight Systems"));
    CHECK(strstr(msg, "NVTX"));
    CHECK_EQ(f.enabled, 0);
    CHECK(!f.requested);
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.flushes, 0);
}

/* A forked child never calls CUPTI: every fake function aborts there. */
static void case_fork(void)
{
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    uint8_t *buf = NULL;
    size_t size = 0, max = 0;
    f.requested(&buf, &size, &max);
    CUpti_ActivityKernel10 k = kernel(10, 20);
    size_t valid = fake_append(buf, 0, &k);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        ps_cupti_flush_at_exit();
        f.completed(NULL, 0, buf, size, valid);     /* even a stray completion converts nothing */
        _exit(sink_count(&s, PS_WIRE_GPU_KERNEL) == 0 ? 0 : 3);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));          /* SIGABRT here means the child called CUPTI */
    CHECK_EQ(WEXITSTATUS(st), 0);
    f.completed(NULL, 0, buf, size, valid);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_KERNEL), 1);
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.forced_flushes, 1);
}

/* PERFSCOPE_CUPTI_BUFFER_MB=8 with 4 MiB buffers: two in flight, the third refused and counted. */
static void case_cap(void)
{
    setenv(PS_ENV_CUPTI_BUFFER_MB, "8", 1);
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    uint8_t *b[4] = { 0 };
    size_t size[4] = { 0 }, max = 0;
    f.requested(&b[0], &size[0], &max);
    f.requested(&b[1], &size[1], &max);
    f.requested(&b[2], &size[2], &max);
    CHECK(b[0] && b[1]);
    CHECK(!b[2] && size[2] == 0);
    f.completed(NULL, 0, b[0], size[0], 0);
    f.requested(&b[3], &size[3], &max);
    CHECK(b[3]);
    f.completed(NULL, 0, b[1], size[1], 0);
    f.completed(NULL, 0, b[3], size[3], 0);
    ps_cupti_flush_at_exit();
    const struct ps_wire_gpu_drops *w = sink_find(&s, PS_WIRE_GPU_DROPS, sink_count(&s, PS_WIRE_GPU_DROPS) - 1);
    CHECK(w);
    CHECK_EQ(w->buffers_refused, 1);
}

/* A CUPTI of another major version has other record layouts: refuse, say why. */
static void case_version(void)
{
    f.version = 28;     /* CUDA 12.9 Update 1 (cupti_version.h) */
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -ENOTSUP);
    CHECK_EQ(f.subscribes, 0);
    CHECK_EQ(status(0)->state, PS_CUDA_CUPTI_UNAVAILABLE);
    CHECK(strstr((const char *)(status(0) + 1), "PERFSCOPE_CUPTI_PATH"));
}

/* CUPTI refuses the timestamp callback: its clock is shifted onto CLOCK_MONOTONIC. */
static void case_clock_fallback(void)
{
    f.ts_fails = 1;
    f.cupti_clock_offset = 1000000000000ull;   /* CUPTI's clock 1000 s ahead (as CLOCK_REALTIME would be) */
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    uint8_t *buf = NULL;
    size_t size = 0, max = 0;
    f.requested(&buf, &size, &max);
    uint64_t now = (uint64_t)ps_monotonic_ns();
    CUpti_ActivityKernel10 k = kernel(now + f.cupti_clock_offset, now + f.cupti_clock_offset + 500);
    f.completed(NULL, 0, buf, size, fake_append(buf, 0, &k));
    const struct ps_wire_gpu_kernel *w = sink_find(&s, PS_WIRE_GPU_KERNEL, 0);
    CHECK(w);
    long long err = (long long)w->start_ns - (long long)now;
    CHECK(err > -1000000 && err < 1000000);    /* within 1 ms: the offset is measured at start */
    CHECK_EQ(w->end_ns - w->start_ns, 500);
}

/* The real loader: the toolkit's libcupti.so.13 resolves every function; a library that is not CUPTI
 * gives a reason. Skips (77) where no libcupti is installed. */
static void case_load(void)
{
    struct ps_cupti_api api;
    char why[512];
    int rc = ps_cupti_load(getenv(PS_ENV_CUPTI_PATH), &api, why, sizeof why);
    if (rc == -ENOENT) {
        fprintf(stderr, "skip: %s\n", why);
        exit(77);
    }
    CHECK(rc == 0);
    uint32_t v = 0;
    CHECK(api.get_version(&v) == CUPTI_SUCCESS && v >= 130000);
    rc = ps_cupti_load("libm.so.6", &api, why, sizeof why);
    CHECK(rc == -ENOSYS && strstr(why, "cuptiGetVersion"));
    rc = ps_cupti_load("/nonexistent/libcupti.so", &api, why, sizeof why);
    CHECK(rc == 0);     /* falls back to libcupti.so.13 */
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        { "active", case_active }, { "busy", case_busy }, { "fork", case_fork }, { "cap", case_cap },
        { "version", case_version }, { "clock_fallback", case_clock_fallback }, { "load", case_load },
    };
    parent = getpid();
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[1], cases[i].name)) {
            cases[i].fn();
            return 0;
        }
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}
