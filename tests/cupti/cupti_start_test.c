/* probe/cupti_capture.c driven through a fake CUPTI function table: start-up order, the buffer callbacks CUPTI
 * would call, the memory cap, another subscriber, a forked child, the clock on each CUPTI version, the flush
 * thread and SIGTERM, the version gate, unsubscribing after a failure, the real loader.
 * Usage: cupti_start_test CASE (one ctest per case, each in a fresh process: collection is per process). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
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
    f.version = 130100;     /* CUDA 13.1: the timestamp callback is fixed */
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);       /* idempotent: one subscription */
    CHECK_EQ(f.subscribes, 1);
    CHECK(f.ts && f.ts_seq < f.first_enable_seq);            /* clock registered before any kind */
    uint64_t before = (uint64_t)ps_monotonic_ns(), t = f.ts(), after = (uint64_t)ps_monotonic_ns();
    CHECK(before <= t && t <= after);                        /* the callback is CLOCK_MONOTONIC */
    CHECK_EQ(f.tid_type, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    CHECK_EQ(f.enabled, 12);
    static const CUpti_ActivityKind want[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_OVERHEAD,
        CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL,
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(f.kinds_mask & (1ull << want[i]));
    /* Devices and contexts created before the probe (CUDA initialised first) are dumped, not lost. */
    CHECK_EQ(f.dumped_mask, (1ull << CUPTI_ACTIVITY_KIND_DEVICE) | (1ull << CUPTI_ACTIVITY_KIND_CONTEXT));
    /* Queries on unfinished work are not synchronisations; cudaGetDevice & co. are noise (Kineto's list). Set
     * after the kinds: enabling RUNTIME/DRIVER later would reset them (cupti_activity.h). */
    CHECK_EQ(f.all_sync_records, 0);
    CHECK(f.runtime_off & (1ull << CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
    CHECK(f.cuCtxGetCurrent_off && f.cuKernelGetAttribute_off && f.cuDevicePrimaryCtxGetState_off);
    CHECK(!(f.runtime_off & (1ull << CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020)));
    CHECK(f.api_filter_seq > f.last_enable_seq);
    CHECK_EQ(f.callbacks_enabled, 1);
    CHECK(status(0) && status(0)->state == PS_CUDA_CUPTI_ACTIVE);
    CHECK(strstr((const char *)(status(0) + 1), "CLOCK_MONOTONIC callback"));
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

static void program_sigterm(int sig) { (void)sig; }

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

    /* SIGTERM in a child: the default action where the probe's handler was (no flush thread there), the program's
     * own handler where the program set one after the probe. */
    struct sigaction cur;
    CHECK(sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL);    /* the probe's */
    for (int own = 0; own < 2; own++) {
        if (own)
            CHECK(signal(SIGTERM, program_sigterm) != SIG_ERR);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            struct sigaction c;
            sigaction(SIGTERM, NULL, &c);
            _exit(c.sa_handler == (own ? program_sigterm : SIG_DFL) ? 0 : 5);
        }
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st));
        CHECK_EQ(WEXITSTATUS(st), 0);
    }
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

/* The last 13.x whose layouts were checked (13.4) is read; the next (13.5) is refused with one line. */
static void case_version_last_known(void)
{
    f.version = 130499;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
}

static void case_version_unknown(void)
{
    f.version = 130500;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -ENOTSUP);
    CHECK_EQ(f.subscribes, 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_CUDA_STATUS), 1);
    CHECK_EQ(status(0)->state, PS_CUDA_CUPTI_UNAVAILABLE);
    const char *msg = (const char *)(status(0) + 1);
    CHECK(strstr(msg, "130500") && strstr(msg, "CUDA 13.5") && strstr(msg, "13.0 to 13.4") &&
          strstr(msg, "NVTX ranges are still recorded"));
}

/* CUPTI 13.0: the timestamp callback loses kernel times (fixed in 13.1), so it is never registered; CUPTI's clock
 * (here 1000 s ahead and 500 ppm fast) is mapped with clock pairs, drift included. */
static void case_clock_13_0(void)
{
    f.version = 130001;
    f.cupti_clock_offset = 1000000000000ull;
    f.cupti_clock_base = ps_monotonic_ns();
    f.cupti_clock_ppm = 500;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    CHECK_EQ(f.ts_seq, 0);          /* never registered */
    CHECK(strstr((const char *)(status(0) + 1), "clock pairs"));
    usleep(1100000);
    ps_cupti_periodic_flush();      /* a pair 1.1 s later: CUPTI gained 550 us */
    int64_t at = ps_monotonic_ns() - 50000000;   /* a kernel 50 ms ago, 5 us long on CUPTI's clock */
    CUpti_ActivityKernel10 k = kernel(fake_cupti_clock(at), fake_cupti_clock(at) + 5000);
    fake_hold(&k);
    ps_cupti_periodic_flush();
    const struct ps_wire_gpu_kernel *w = sink_find(&s, PS_WIRE_GPU_KERNEL, 0);
    CHECK(w);
    long long err = (long long)w->start_ns - (long long)at;
    /* Without the drift the error would be 525 us (500 ppm of 1.05 s); with it, pair-reading jitter only. */
    if (err < -20000 || err > 20000) {
        fprintf(stderr, "kernel start off by %lld ns\n", err);
        exit(1);
    }
    ps_cupti_flush_at_exit();
}

/* CUPTI 13.2 refuses the timestamp callback: its clock is shifted onto CLOCK_MONOTONIC. */
static void case_clock_fallback(void)
{
    f.version = 130200;
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

/* Threads of this process (/proc/self/task entries). */
static int threads_now(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* The flush thread streams: a partly filled buffer CUPTI holds (its periodic flush would return only full ones)
 * reaches the ring from a periodic flush, before any exit flush (the loop waits for it, however long the
 * machine takes: a flush thread that never flushes fails by the test's timeout). */
static void case_periodic_flush(void)
{
    int threads_before = threads_now();
    f.version = 130100;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    CUpti_ActivityKernel10 k = kernel(1000, 2000);
    fake_hold(&k);
    while (!sink_find(&s, PS_WIRE_GPU_KERNEL, 0))
        usleep(10000);
    CHECK_EQ(f.forced_flushes, 0);
    CHECK(f.flushes >= 1);
    ps_cupti_flush_at_exit();       /* stops and joins the thread, then the forced flush */
    CHECK_EQ(f.forced_flushes, 1);
    CHECK_EQ(threads_now(), threads_before);    /* the flush thread is gone: no tick after the exit flush */
}

/* SIGTERM from a launcher: the records still in CUPTI (an incomplete buffer: only a forced flush returns it) reach
 * the ring, then SIGTERM kills the process as it would have. The process under test is a child; its records
 * come back through a pipe. */
static int pipe_fd = -1;
static int pipe_emit(void *ctx, const struct ps_wire_hdr *rec)
{
    (void)ctx;
    uint16_t type = rec->type;
    return write(pipe_fd, &type, sizeof type) == sizeof type ? 0 : -1;
}

static void case_sigterm(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        parent = getpid();
        pipe_fd = fds[1];
        static const struct ps_cupti_sink pipe_sink = { pipe_emit, NULL, NULL };
        f.version = 130100;
        if (ps_cupti_start(&fake_api, &pipe_sink) != 0)
            _exit(3);
        CUpti_ActivityKernel10 k = kernel(1000, 2000);
        f.held_incomplete = 1;
        fake_hold(&k);
        uint16_t ready = 0;
        if (write(pipe_fd, &ready, sizeof ready) != sizeof ready)
            _exit(4);
        for (;;)
            pause();
    }
    close(fds[1]);
    uint16_t type = 1;
    CHECK(read(fds[0], &type, sizeof type) == sizeof type);
    while (type != 0)       /* the status record, then the ready mark */
        CHECK(read(fds[0], &type, sizeof type) == sizeof type);
    CHECK(kill(pid, SIGTERM) == 0);
    int kernels = 0, drops = 0;
    while (read(fds[0], &type, sizeof type) == sizeof type) {
        kernels += type == PS_WIRE_GPU_KERNEL;
        drops += type == PS_WIRE_GPU_DROPS;
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    CHECK_EQ(kernels, 1);
    CHECK(drops >= 1);      /* the final loss counters */
}

/* CUPTI fails after the subscription: perfscope gives the subscription back (another tool may want CUPTI). */
static void case_unsubscribe_on_failure(void)
{
    f.version = 130100;     /* a version that takes perfscope's clock callback: none may be left behind */
    f.fail_register = 1;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EIO);
    CHECK_EQ(f.subscribes, 1);
    CHECK_EQ(f.unsubscribes, 1);
    CHECK_EQ(f.ts_seq, 0);  /* the buffer callbacks are registered before the clock, which CUPTI cannot take back */
    CHECK_EQ(status(0)->state, PS_CUDA_CUPTI_UNAVAILABLE);
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.flushes, 0);
}

/* The real loader: a library that is not CUPTI gives a reason; the toolkit's libcupti.so.13 resolves every
 * function. Skips (77) where no libcupti is installed. */
static void case_load(void)
{
    struct ps_cupti_api api;
    char why[768];
    int rc = ps_cupti_load("libm.so.6", &api, why, sizeof why);     /* before any libcupti is in the process */
    CHECK(rc == -ENOSYS && strstr(why, "cuptiGetVersion"));
    rc = ps_cupti_load(getenv(PS_ENV_CUPTI_PATH), &api, why, sizeof why);
    if (rc == -ENOENT) {
        fprintf(stderr, "SKIP: no libcupti to load (%s)\n", why);
        exit(77);
    }
    CHECK(rc == 0);
    uint32_t v = 0;
    CHECK(api.get_version(&v) == CUPTI_SUCCESS && v >= 130000);
    rc = ps_cupti_load("/nonexistent/libcupti.so", &api, why, sizeof why);
    CHECK(rc == 0);     /* the one already loaded */
    CHECK(strstr(api.origin, "already loaded by the program"));
}

/* PyTorch's process: `import torch` has loaded the wheel's libcupti.so.13 (here a stand-in with that soname).
 * The probe uses that one, even with PERFSCOPE_CUPTI_PATH naming another copy: never two CUPTIs in a process. */
static void case_load_loaded(void)
{
    const char *torch_copy = getenv("FAKE_LIBCUPTI13"), *other = getenv("FAKE_LIBCUPTI_OTHER");
    CHECK(torch_copy && other);
    void *h = dlopen(torch_copy, RTLD_NOW | RTLD_GLOBAL);
    CHECK(h);
    struct ps_cupti_api api;
    char why[768];
    CHECK(ps_cupti_load(other, &api, why, sizeof why) == 0);
    CHECK((void *)api.get_version == dlsym(h, "cuptiGetVersion"));
    CHECK((void *)api.flush_all == dlsym(h, "cuptiActivityFlushAll"));
    CHECK(strstr(api.origin, "already loaded by the program") && strstr(api.origin, torch_copy));
}

/* The one failure after perfscope's clock is CUPTI's (no activity kind can be enabled): CUPTI gets its own clock
 * back, CLOCK_REALTIME on Linux (cupti_activity.h, cuptiActivityRegisterTimestampCallback), so a tool that
 * subscribes after perfscope gives up does not get CLOCK_MONOTONIC timestamps. */
static void case_clock_restored(void)
{
    f.version = 130100;
    f.enable_fails = 1;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EIO);
    CHECK_EQ(f.unsubscribes, 1);
    CHECK(f.ts);
    struct timespec a, b;
    clock_gettime(CLOCK_REALTIME, &a);
    uint64_t t = f.ts();
    clock_gettime(CLOCK_REALTIME, &b);
    CHECK((uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec <= t);
    CHECK(t <= (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec);
    CHECK(strstr((const char *)(status(0) + 1), "enabled no activity kind"));
}

/* Inside cuInit cuptiActivityEnableAndDump may fail: DEVICE and CONTEXT are then enabled plainly, so device rows
 * exist and synchronisation rows keep their device; the status message says the dump failed. */
static void case_dump_fallback(void)
{
    f.dump_fails = 1;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    CHECK_EQ(f.enabled, 12);
    CHECK(f.kinds_mask & (1ull << CUPTI_ACTIVITY_KIND_DEVICE));
    CHECK(f.kinds_mask & (1ull << CUPTI_ACTIVITY_KIND_CONTEXT));
    CHECK_EQ(f.dumped_mask, 0);
    const char *msg = (const char *)(status(0) + 1);
    CHECK(strstr(msg, "12 of 12 activity kinds") && strstr(msg, "cuptiActivityEnableAndDump failed"));
    ps_cupti_flush_at_exit();
}

/* CUPTI 13 on a driver older than R580 fails at subscribe: the message names the driver and what CUDA 13 needs. */
static void case_old_driver(void)
{
    f.subscribe_error = CUPTI_ERROR_NOT_INITIALIZED;
    f.driver = "570.133.20";
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EIO);
    CHECK_EQ(status(0)->state, PS_CUDA_CUPTI_UNAVAILABLE);
    const char *msg = (const char *)(status(0) + 1);
    CHECK(strstr(msg, "cuptiSubscribe_v2 failed") && strstr(msg, "the NVIDIA driver is 570.133.20") &&
          strstr(msg, "R580 or newer") && strstr(msg, "NVTX ranges are still recorded"));
    CHECK_EQ(f.enabled, 0);
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.flushes, 0);
}

/* The same failure on an R580 driver: no claim that the driver is too old, the requirement is still stated. */
static void case_subscribe_fails_new_driver(void)
{
    f.subscribe_error = CUPTI_ERROR_UNKNOWN;
    f.driver = "580.65.06";
    CHECK(ps_cupti_start(&fake_api, &test_sink) == -EIO);
    const char *msg = (const char *)(status(0) + 1);
    CHECK(!strstr(msg, "the NVIDIA driver is") && strstr(msg, "needs an R580 or newer NVIDIA driver (driver: 580.65.06)"));
}

/* CUDA 13.0 GA (API 130000): cuptiActivityFlushAll may crash while the program runs (fixed in 13.0 Update 1), so the
 * flush thread only takes clock pairs; the buffers come at exit (forced flush). The trace says so. */
static void case_flush_13_0_ga(void)
{
    f.version = 130000;
    CHECK(ps_cupti_start(&fake_api, &test_sink) == 0);
    const char *msg = (const char *)(status(0) + 1);
    CHECK(strstr(msg, "CUDA 13.0 GA: no periodic flush") && strstr(msg, "13.0 Update 1"));
    CUpti_ActivityKernel10 k = kernel(1000, 2000);
    fake_hold(&k);
    ps_cupti_periodic_flush();
    CHECK_EQ(f.flushes, 0);
    CHECK(!sink_find(&s, PS_WIRE_GPU_KERNEL, 0));
    ps_cupti_flush_at_exit();
    CHECK_EQ(f.forced_flushes, 1);
    CHECK_EQ(f.flushes, 1);
    CHECK(sink_find(&s, PS_WIRE_GPU_KERNEL, 0));
}

/* A CUDA 12 program (a cu12x PyTorch wheel: its libcudart.so.12 is loaded; here a stand-in with that soname): the
 * loader loads no CUPTI (not even the one PERFSCOPE_CUPTI_PATH names) and says why in one message. A process that
 * also holds a CUDA 13 runtime is a CUDA 13 process. */
static void case_cuda12_process(void)
{
    const char *cudart12 = getenv("FAKE_CUDART12"), *cudart13 = getenv("FAKE_CUDART13");
    const char *cupti = getenv("FAKE_LIBCUPTI_OTHER");
    CHECK(cudart12 && cudart13 && cupti);
    CHECK(dlopen(cudart12, RTLD_NOW | RTLD_GLOBAL));
    struct ps_cupti_api api;
    char why[768];
    CHECK(ps_cupti_load(cupti, &api, why, sizeof why) == -ENOTSUP);
    CHECK(strstr(why, "CUDA 12 process: GPU capture needs CUDA 13 (R580+)") && strstr(why, cudart12));
    CHECK(!dlopen(cupti, RTLD_NOW | RTLD_NOLOAD));      /* nothing loaded */
    CHECK(dlopen(cudart13, RTLD_NOW | RTLD_GLOBAL));
    CHECK(ps_cupti_load(cupti, &api, why, sizeof why) == 0);
    CHECK(strstr(api.origin, "PERFSCOPE_CUPTI_PATH"));
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "active", .fn = case_active },
        { "busy", .fn = case_busy },
        { "fork", .fn = case_fork },
        { "cap", .fn = case_cap },
        { "version", .fn = case_version },
        { "clock_fallback", .fn = case_clock_fallback },
        { "load", .fn = case_load },
        { "version_last_known", .fn = case_version_last_known }, { "version_unknown", .fn = case_version_unknown },
        { "clock_13_0", .fn = case_clock_13_0 },
        { "periodic_flush", .fn = case_periodic_flush },
        { "sigterm", .fn = case_sigterm },
        { "unsubscribe", .fn = case_unsubscribe_on_failure }, { "load_loaded", .fn = case_load_loaded },
        { "clock_restored", .fn = case_clock_restored }, { "dump_fallback", .fn = case_dump_fallback },
        { "old_driver", .fn = case_old_driver },
        { "subscribe_fails_new_driver", .fn = case_subscribe_fails_new_driver },
        { "flush_13_0_ga", .fn = case_flush_13_0_ga }, { "cuda12_process", .fn = case_cuda12_process },
    };
    parent = getpid();
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
