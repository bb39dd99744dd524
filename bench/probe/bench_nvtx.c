/* Benchmark: cost of an NVTX push+pop pair (nvtxRangePushA + nvtxRangePop) with libperfscope_probe.so
 * attached versus no tool, median ns per pair over batches; plus the clocks for scale.
 * Usage: bench_nvtx [PAIRS]   (default 2,000,000). Each mode runs in a fresh child process.
 * BENCH_NVTX_WRITER_CPU / BENCH_NVTX_READER_CPU=N pin the thread making the calls / the draining thread to
 * CPU N (docs/probe.md, "Why the cost varies"); the ring memory the writer touched is printed per mode. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <nvtx3/nvToolsExt.h>

#include "ps_env.h"
#include "ps_ring.h"
#include "ps_time.h"

#define BATCH 1000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and 90th percentile of ns per operation over batches of BATCH operations. */
static void report(const char *what, double *per, long nb, double *out)
{
    qsort(per, (size_t)nb, sizeof *per, cmp_double);
    printf("%-44s median %6.1f ns   p90 %6.1f ns   (%ld batches of %d)\n", what, per[nb / 2], per[nb * 9 / 10], nb,
           BATCH);
    if (out)
        *out = per[nb / 2];
}

/* The collector's part: drain the ring every millisecond into nothing, so that chunks are recycled. */
static atomic_int stop_reader;

static int count_rec(void *ctx, uint32_t lane, const struct ps_wire_hdr *h)
{
    (void)lane;
    (void)h;
    ++*(long *)ctx;
    return 0;
}

/* Pin the calling thread to the CPU named by environment variable `var`, if set. */
static void pin(const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(v), &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        fprintf(stderr, "bench_nvtx: cannot pin to CPU %s\n", v);
}

/* MiB of ring memory allocated (chunks first touched, never recycled), from the ring file's blocks. */
static double ring_mib(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    double mib = 0;
    char path[4400];
    struct stat st;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "ring-", 5) == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (stat(path, &st) == 0)
                mib += st.st_blocks * 512.0 / (1 << 20);
        }
    if (d)
        closedir(d);
    return mib;
}

static void *reader_main(void *p)
{
    struct ps_ring_reader *r = p;
    long n = 0;
    pin("BENCH_NVTX_READER_CPU");
    while (!atomic_load(&stop_reader)) {
        ps_ring_reader_drain(r, count_rec, &n);
        usleep(1000);
    }
    ps_ring_reader_drain(r, count_rec, &n);
    return NULL;
}

static struct ps_ring_reader *open_ring(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct ps_ring_reader *r = NULL;
    char path[4400];
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "ring-", 5) == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (ps_ring_reader_open(path, &r) != 0)
                r = NULL;
        }
    if (d)
        closedir(d);
    return r;
}

#if defined(__x86_64__)
/* What a push+pop pair cannot do without: two TSC reads and one 40-byte record stored and published, into
 * a 64 KiB buffer (a chunk). Batches of it alternate with probe batches, so both see the same machine. */
static uint64_t floor_chunk[8192];
static _Atomic uint32_t floor_committed;

static double floor_batch(void)
{
    static uint32_t pos;
    int64_t t0 = ps_monotonic_ns();
    for (int i = 0; i < BATCH; i++) {
        uint64_t start = __rdtsc();
        uint64_t end = __rdtsc();
        if (pos + 5 > sizeof floor_chunk / sizeof floor_chunk[0])
            pos = 0;
        floor_chunk[pos] = 40;
        floor_chunk[pos + 1] = start;
        floor_chunk[pos + 2] = end;
        floor_chunk[pos + 3] = 1;
        floor_chunk[pos + 4] = 0;
        pos += 5;
        atomic_store_explicit(&floor_committed, pos, memory_order_release);
    }
    return (double)(ps_monotonic_ns() - t0) / BATCH;
}
#endif

/* `floor` (may be NULL): also time floor batches, one after each pair batch, into floor[0 .. nb). */
static void bench_pairs(long pairs, double *per, double *floor, double *median_out, const char *label)
{
    long nb = pairs / BATCH;
    nvtxRangePushA("warm-up");      /* the first call loads the injection (or finds none) */
    nvtxRangePop();
    for (long b = 0; b < nb; b++) {
        int64_t t0 = ps_monotonic_ns();
        for (int i = 0; i < BATCH; i++) {
            nvtxRangePushA("step");
            nvtxRangePop();
        }
        per[b] = (double)(ps_monotonic_ns() - t0) / BATCH;
#if defined(__x86_64__)
        if (floor)
            floor[b] = floor_batch();
#endif
    }
    report(label, per, nb, median_out);
#if defined(__x86_64__)
    if (floor)
        report("    floor: 2 rdtsc + a 40-byte record, per pair", floor, nb, NULL);
#endif
}


static void bench_clocks(double *per, long nb)
{
    for (long b = 0; b < nb; b++) {
        int64_t t0 = ps_monotonic_ns();
        for (int i = 0; i < BATCH; i++)
            (void)ps_monotonic_ns();
        per[b] = (double)(ps_monotonic_ns() - t0) / BATCH;
    }
    report("clock_gettime(CLOCK_MONOTONIC), per call", per, nb, NULL);
#if defined(__x86_64__)
    volatile uint64_t sink = 0;
    for (long b = 0; b < nb; b++) {
        int64_t t0 = ps_monotonic_ns();
        for (int i = 0; i < BATCH; i++)
            sink += __rdtsc();
        per[b] = (double)(ps_monotonic_ns() - t0) / BATCH;
    }
    report("rdtsc, per call", per, nb, NULL);
    if (sink == 1)
        printf("(unlikely TSC value)\n");  /* keeps the reads */
#endif
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 2000000;
    if (pairs < BATCH * 10) {
        fprintf(stderr, "bench_nvtx: PAIRS must be at least %d\n", BATCH * 10);
        return 2;
    }
    double *per = malloc((size_t)(pairs / BATCH) * sizeof *per);
    double *medians = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char dir[4096];                 /* the ring's directory: $TMPDIR (a tmpfs, as $XDG_RUNTIME_DIR is), else /tmp */
    snprintf(dir, sizeof dir, "%s/ps-bench-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!per || medians == MAP_FAILED || !mkdtemp(dir)) {
        fprintf(stderr, "bench_nvtx: out of memory or cannot create a directory in /tmp\n");
        return 1;
    }
    bench_clocks(per, pairs / BATCH);
    fflush(stdout);
    static const char *const label[] = {
        "nvtxRangePushA+Pop, no tool, per pair",
        "  probe attached, ring drained (as in record)",
        "  probe attached, no reader (fresh pages)",
    };
    for (int mode = 0; mode < 3; mode++) {
        pid_t pid = fork();
        if (pid == 0) {
            pthread_t th;
            struct ps_ring_reader *r = NULL;
            if (mode > 0) {
                setenv(PS_ENV_NVTX_INJECTION, PS_PROBE_PATH, 1);
                setenv(PS_ENV_SESSION_DIR, dir, 1);
            } else {
                unsetenv(PS_ENV_NVTX_INJECTION);
            }
            pin("BENCH_NVTX_WRITER_CPU");
            nvtxMarkA("start");     /* loads the probe, which makes the ring */
            if (mode == 1 && (!(r = open_ring(dir)) || pthread_create(&th, NULL, reader_main, r) != 0)) {
                fprintf(stderr, "bench_nvtx: cannot drain the ring in %s\n", dir);
                _exit(1);
            }
            double *floor = mode == 1 ? malloc((size_t)(pairs / BATCH) * sizeof *floor) : NULL;
            bench_pairs(pairs, per, floor, &medians[mode], label[mode]);
            free(floor);
            if (r) {
                atomic_store(&stop_reader, 1);
                pthread_join(th, NULL);
                ps_ring_reader_close(r);
            }
            if (mode > 0)
                printf("    ring memory touched: %.1f MiB for %.1f MiB of records\n", ring_mib(dir),
                       pairs * 40.0 / (1 << 20));
            fflush(stdout);
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench_nvtx: mode %d failed (status %d)\n", mode, st);
            return 1;
        }
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -f %s/ring-*", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_nvtx: could not empty %s\n", dir);
    }
    printf("probe attached, drained: %.1f ns per pair (goal <= 40 ns); overhead over no tool %.1f ns\n", medians[1],
           medians[1] - medians[0]);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_nvtx: could not remove %s\n", dir);
    free(per);
    return 0;
}
