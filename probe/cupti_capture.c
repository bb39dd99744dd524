/* CUPTI activity collection for the probe: load libcupti, subscribe, hand out activity buffers under a
 * memory cap, convert completed buffers into GPU wire records, flush them every period from a helper thread,
 * at exit and on SIGTERM. Rules and their sources:
 * docs/gpu-capture.md (forced flush, fork, finalize, single subscriber, buffers, the versions read). */
#include "cupti_capture.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_layout.h"
#include "ps_time.h"
#include "ps_wire.h"

/* One collection per process: CUPTI's buffer callbacks carry no user data. */
static struct {
    struct ps_cupti_api api;
    struct ps_cupti_sink sink;
    struct ps_cupti_conv *conv;     /* guarded by lock */
    pthread_mutex_t lock;
    pid_t owner;                    /* the process that started CUPTI; a forked child differs */
    CUpti_SubscriberHandle sub;
    int map_clock;                  /* CUPTI's own clock, mapped with clock pairs (no timestamp callback) */
    int clock_registered;           /* perfscope's timestamp callback is CUPTI's clock */
    int flush_periodically;         /* cuptiActivityFlushAll is safe to call while the program runs */
    atomic_int active;
    atomic_int forked_child;
    atomic_int exit_flushed;
    atomic_size_t outstanding_bytes;
    size_t cap_bytes;
    atomic_uint_fast64_t buffers_refused;
    struct ps_wire_gpu_drops last_drops; /* guarded by lock: what the last DROPS record said */
    /* The flush thread, woken early by stop or SIGTERM. */
    pthread_t flusher;
    atomic_int flusher_running;
    atomic_int stop, sigterm;
    sem_t wake;
    int sigterm_installed;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_result = -EIO;
static const struct ps_cupti_api *start_api;
static const struct ps_cupti_sink *start_sink;

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

static void on_sigterm(int sig);

static void atfork_child(void)
{
    /* The child has no CUPTI worker thread (a flush there hangs, HPCToolkit #195) and no flush thread. */
    atomic_store(&g.forked_child, 1);
    atomic_store(&g.flusher_running, 0);
    struct sigaction cur;
    /* The child has no flush thread to hand SIGTERM to: the default action, unless the program set its own. */
    if (g.sigterm_installed && sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == on_sigterm)
        signal(SIGTERM, SIG_DFL);
}

/* Take a (CLOCK_MONOTONIC, CUPTI clock) pair when CUPTI's own clock is mapped: of three readings the one with
 * the shortest bracket (least disturbed); caller holds g.lock. */
static void clock_pair_locked(void)
{
    int64_t best_mono = 0, best_cupti = 0, best_span = INT64_MAX;
    if (!g.map_clock || !g.conv)
        return;
    for (int i = 0; i < 3; i++) {
        uint64_t cupti_ns = 0;
        int64_t t0 = ps_monotonic_ns();
        if (g.api.get_timestamp(&cupti_ns) != CUPTI_SUCCESS)
            return;
        int64_t t1 = ps_monotonic_ns();
        if (t1 - t0 < best_span)
            best_span = t1 - t0, best_mono = t0 + (t1 - t0) / 2, best_cupti = (int64_t)cupti_ns;
    }
    ps_cupti_conv_clock_pair(g.conv, best_mono, best_cupti);
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
    CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL,   /* allocations and releases (few: cudaMalloc & co.) */
};

/* The flush thread: a default flush every period (returns every buffer whose records are complete); on SIGTERM
 * the exit flush, then the signal's default action. */
static void *flush_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);   /* the program's signals go to its own threads */
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)PS_CUPTI_FLUSH_PERIOD_MS % 1000 * 1000000;
        until.tv_sec += PS_CUPTI_FLUSH_PERIOD_MS / 1000 + until.tv_nsec / 1000000000;
        until.tv_nsec %= 1000000000;
        while (sem_clockwait(&g.wake, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR)
            ;
        if (atomic_load(&g.sigterm)) {
            signal(SIGTERM, SIG_DFL);    /* first: a second SIGTERM kills at once, even if the flush hangs */
            atomic_store(&g.flusher_running, 0);
            ps_cupti_flush_at_exit();
            kill(getpid(), SIGTERM);
            return NULL;
        }
        if (atomic_load(&g.stop))
            return NULL;
        ps_cupti_periodic_flush();
    }
}

/* SIGTERM (installed only over the default action): wake the flush thread for the exit flush. Where no flush
 * thread runs (a forked child, after the exit flush) the default action, at once. Async-signal-safe. */
static void on_sigterm(int sig)
{
    if (getpid() != g.owner || !atomic_load(&g.flusher_running)) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    atomic_store(&g.sigterm, 1);
    sem_post(&g.wake);
}

static void start_flush_thread(void)
{
    if (sem_init(&g.wake, 0, 0) != 0)
        return;
    atomic_store(&g.flusher_running, 1);
    if (pthread_create(&g.flusher, NULL, flush_main, NULL) != 0) {
        atomic_store(&g.flusher_running, 0);
        return;
    }
    struct sigaction old, sa = { .sa_handler = on_sigterm, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
        g.sigterm_installed = sigaction(SIGTERM, &sa, NULL) == 0;
}

/* Kinds whose records exist only for what is created after enabling them: enabled with
 * cuptiActivityEnableAndDump, which also dumps the devices and contexts that already exist. When that fails (it
 * may inside cuInit, where the probe starts), plain cuptiActivityEnable: without DEVICE and CONTEXT records there
 * are no TARGET_INFO_GPU rows and synchronisation rows have no device. `dump_failed` gets the first such error. */
static CUptiResult enable_kind(CUpti_ActivityKind kind, CUptiResult *dump_failed)
{
    int dump = kind == CUPTI_ACTIVITY_KIND_DEVICE || kind == CUPTI_ACTIVITY_KIND_CONTEXT;
    if (dump && g.api.enable_and_dump) {
        CUptiResult r = g.api.enable_and_dump(kind);
        if (r == CUPTI_SUCCESS)
            return r;
        if (*dump_failed == CUPTI_SUCCESS)
            *dump_failed = r;
    }
    return g.api.activity_enable(kind);
}

/* High-rate API calls that say nothing about where time goes (PyTorch's profiler turns off the same ones,
 * pytorch/kineto CuptiActivityApi.cpp). */
static void quiet_noise(void)
{
    if (g.api.enable_all_sync_records)
        g.api.enable_all_sync_records(0);    /* no records of event/stream queries on unfinished work */
    if (g.api.enable_runtime_api)
        g.api.enable_runtime_api(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0);
    if (g.api.enable_driver_api) {
        g.api.enable_driver_api(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, 0);
        g.api.enable_driver_api(CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute, 0);
        g.api.enable_driver_api(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState, 0);
    }
}

/* CUPTI's own clock on Linux: "clock_gettime(CLOCK_REALTIME)" (cupti_activity.h,
 * cuptiActivityRegisterTimestampCallback). There is no way to unregister a callback (NULL is refused). */
static uint64_t CUPTIAPI cupti_default_timestamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A failure after subscribing: give CUPTI back as it was (its default clock, no subscription: another tool,
 * e.g. torch.profiler later in the program, may want it), say why. */
static int fail_subscribed(uint32_t state, const char *msg, int rc)
{
    if (g.clock_registered)
        g.api.register_timestamp_callback(cupti_default_timestamp);
    g.clock_registered = 0;
    g.api.unsubscribe(g.sub);
    g.sub = NULL;
    ps_cupti_status(&g.sink, state, msg);
    return rc;
}

/* "CUDA 13.2" for CUPTI API 130200 (xxyyzz from CUDA 13 on, cupti_version.h); "CUDA 12.9 or older" before. */
static void version_text(uint32_t version, char *buf, size_t len)
{
    if (version >= 10000)
        snprintf(buf, len, "CUDA %u.%u", version / 10000, version / 100 % 100);
    else
        snprintf(buf, len, "CUDA 12.9 or older");
}

/* Why cuptiSubscribe_v2 failed when no other tool holds CUPTI: most often a driver older than CUDA 13 needs. */
static void subscribe_failed(CUptiResult r, char *msg, size_t len)
{
    char drv[64];
    int known = g.api.driver_version && g.api.driver_version(drv, sizeof drv) == 0;
    int old = known && strtoul(drv, NULL, 10) < PS_CUDA13_DRIVER_MAJOR;
    snprintf(msg, len, "cuptiSubscribe_v2 failed: %s (%d): %s%s%s: no GPU rows, NVTX ranges are still recorded%s",
             result_string(r), (int)r,
             old ? "the NVIDIA driver is " : "CUDA 13's CUPTI needs an R580 or newer NVIDIA driver (driver: ",
             known ? drv : "unknown", old ? ", CUDA 13's CUPTI needs R580 or newer" : ")",
             old ? "; install an R580+ driver (or the cuda-compat package's R580+ libcuda)" : "");
}

/* Enable every kind of `kinds`; returns how many CUPTI took, lists the others as " kind:error" in `failed`. */
static size_t enable_kinds(char *failed, size_t len, CUptiResult *dump_failed)
{
    size_t enabled = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CUptiResult r = enable_kind(kinds[i], dump_failed);
        if (r == CUPTI_SUCCESS)
            enabled++;
        else
            snprintf(failed + strlen(failed), len - strlen(failed), " %d:%s", (int)kinds[i], result_string(r));
    }
    return enabled;
}

/* The status record of a started collection: the library, the kinds, the clock, CUDA 13.0 GA's missing flushes. */
static void say_active(uint32_t version, const char *vtext, size_t enabled, const char *failed,
                       CUptiResult dump_failed)
{
    char msg[1536], dump[160] = "";
    if (dump_failed != CUPTI_SUCCESS)
        snprintf(dump, sizeof dump, "; cuptiActivityEnableAndDump failed (%s): devices and contexts enabled "
                 "without a dump of those created before", result_string(dump_failed));
    snprintf(msg, sizeof msg, "CUPTI %u (%s) active (%s), %zu of %zu activity kinds%s%s%s%s; clock: %s%s", version,
             vtext, g.api.origin[0] ? g.api.origin : "libcupti", enabled, sizeof kinds / sizeof kinds[0],
             failed[0] ? " (failed:" : "", failed, failed[0] ? ")" : "", dump,
             !g.map_clock ? "CLOCK_MONOTONIC callback"
             : version < PS_CUPTI_VERSION_TIMESTAMP_CALLBACK_FIXED
                 ? "CUPTI's, mapped with clock pairs (its timestamp callback loses kernel times before CUPTI 13.1)"
                 : "CUPTI's, mapped with clock pairs (timestamp callback refused)",
             g.flush_periodically ? ""
             : "; CUDA 13.0 GA: no periodic flush (a cuptiActivityFlushAll crash, fixed in 13.0 Update 1): GPU rows "
               "arrive as CUPTI's buffers fill and at exit, and cudaDeviceSynchronize/cuCtxSynchronize have no "
               "synchronization rows; update to CUDA 13.0 Update 1 or later");
    ps_cupti_status(&g.sink, PS_CUDA_CUPTI_ACTIVE, msg);
}

static int start(const struct ps_cupti_api *api, const struct ps_cupti_sink *sink)
{
    char msg[1536], vtext[32];
    uint32_t version = 0;
    CUptiResult r;
    g.api = *api;
    g.sink = *sink;
    g.owner = getpid();
    g.cap_bytes = cap_from_env();

    r = g.api.get_version(&version);
    version_text(version, vtext, sizeof vtext);
    /* CUDA 13 numbers the API xxyyzz (cupti_version.h); the record layouts read are known up to 13.4. */
    if (r != CUPTI_SUCCESS || version < PS_CUPTI_VERSION_FIRST || version >= PS_CUPTI_VERSION_END) {
        snprintf(msg, sizeof msg, "CUPTI API version %u (%s, %s) has record layouts perfscope does not know: it reads "
                 "CUDA 13.0 to 13.4 (API %u to %u): no GPU rows, NVTX ranges are still recorded; set "
                 "PERFSCOPE_CUPTI_PATH to a CUDA 13.0-13.4 libcupti.so.13", version, vtext,
                 g.api.origin[0] ? g.api.origin : "libcupti", PS_CUPTI_VERSION_FIRST, PS_CUPTI_VERSION_END - 1);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -ENOTSUP;
    }

    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
    CUpti_SubscriberParams params = {
        .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
        .subscriberName = "perfscope",
        .oldSubscriberName = old,
        .oldSubscriberSize = sizeof old,
    };
    r = g.api.subscribe_v2(&g.sub, api_callback, NULL, &params);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        snprintf(msg, sizeof msg, "CUPTI is already in use by %s (only one CUPTI subscriber per "
                 "process): no GPU rows, NVTX ranges are still recorded; run without that tool (nsys, ncu, "
                 "compute-sanitizer, an active torch.profiler) to get GPU activity",
                 old[0] ? old : "another tool (it did not give its name)");
        ps_cupti_status(sink, PS_CUDA_CUPTI_BUSY, msg);
        return -EBUSY;
    }
    if (r != CUPTI_SUCCESS) {
        subscribe_failed(r, msg, sizeof msg);
        ps_cupti_status(sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return -EIO;
    }

    /* What can fail comes before the clock callback, which CUPTI cannot take back (fail_subscribed restores
     * CUPTI's default clock for the one failure after it). */
    if (ps_cupti_conv_new(sink->emit, sink->emit_ctx, g.api.get_callback_name, &g.conv) < 0)
        return fail_subscribed(PS_CUDA_CUPTI_UNAVAILABLE, "out of memory starting CUPTI: no GPU rows", -ENOMEM);
    r = g.api.register_callbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        snprintf(msg, sizeof msg, "cuptiActivityRegisterCallbacks failed: %s (%d): no GPU rows",
                 result_string(r), (int)r);
        return fail_subscribed(PS_CUDA_CUPTI_UNAVAILABLE, msg, -EIO);
    }
    /* Clock. The callback gives invalid (zero) kernel timestamps before CUPTI 13.1 (cupti_layout.h); it is
     * registered once per process and before any kind is enabled (re-registering corrupts timestamps,
     * pytorch #192021). Without it CUPTI's clock is mapped through clock pairs. */
    g.clock_registered = version >= PS_CUPTI_VERSION_TIMESTAMP_CALLBACK_FIXED &&
                         g.api.register_timestamp_callback(monotonic_timestamp) == CUPTI_SUCCESS;
    g.map_clock = !g.clock_registered;
    g.flush_periodically = version >= PS_CUPTI_VERSION_FLUSH_FIXED;
    g.api.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    pthread_mutex_lock(&g.lock);
    clock_pair_locked();
    pthread_mutex_unlock(&g.lock);
    pthread_atfork(NULL, NULL, atfork_child);
    char failed[256] = "";
    CUptiResult dump_failed = CUPTI_SUCCESS;
    size_t enabled = enable_kinds(failed, sizeof failed, &dump_failed);
    if (!enabled) {
        snprintf(msg, sizeof msg, "CUPTI enabled no activity kind (kind:error%s): no GPU rows", failed);
        return fail_subscribed(PS_CUDA_CUPTI_UNAVAILABLE, msg, -EIO);
    }
    quiet_noise();      /* after the kinds: enabling RUNTIME/DRIVER resets the per-API settings */
    g.api.enable_callback(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    atomic_store(&g.active, 1);
    start_flush_thread();
    say_active(version, vtext, enabled, failed, dump_failed);
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

void ps_cupti_periodic_flush(void)
{
    if (!cupti_usable() || atomic_load(&g.exit_flushed))
        return;
    pthread_mutex_lock(&g.lock);
    clock_pair_locked();
    pthread_mutex_unlock(&g.lock);
    if (g.flush_periodically)
        g.api.flush_all(0);
}

void ps_cupti_flush_at_exit(void)
{
    if (!cupti_usable())
        return;     /* never call CUPTI in a forked child, not even at exit */
    if (atomic_exchange(&g.flusher_running, 0) && !pthread_equal(pthread_self(), g.flusher)) {
        atomic_store(&g.stop, 1);
        sem_post(&g.wake);
        pthread_join(g.flusher, NULL);
    }
    if (atomic_exchange(&g.exit_flushed, 1))
        return;
    pthread_mutex_lock(&g.lock);
    clock_pair_locked();
    pthread_mutex_unlock(&g.lock);
    /* FORCED: a normal flush withholds buffers holding an incomplete record (tensorflow PR #11945). */
    g.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&g.lock);
    size_t dropped = 0;
    if (g.api.get_num_dropped(NULL, 0, &dropped) == CUPTI_SUCCESS)
        ps_cupti_conv_add_cupti_dropped(g.conv, dropped);
    emit_drops_if_changed(1);
    pthread_mutex_unlock(&g.lock);
}
