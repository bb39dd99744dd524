/* Recorder CPU per GPU row, without a GPU: GPU wire records as the probe writes them (kernels, the runtime API
 * calls that launched them, H2D copies, stream syncs; names sent once) go through a shared-memory ring to
 * `perfscope record`'s own pipeline (drain thread, writer thread, SQLite), and the CPU time of that pipeline is
 * divided by the rows it wrote. Pipeline CPU = process CPU - the producing thread's CPU. Prints the median of
 * 5 runs. Usage: gpu_rows_bench [ROWS] (default 200000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "collector/collect.h"
#include "ps_ring_writer.h"
#include "ps_time.h"
#include "ps_wire_gpu.h"
#include "collector/trace_writer.h"

static int64_t cpu_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t process_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* Write one record, waiting for the drain thread while the lane is full. */
static void put(struct ps_ring_wlane *lane, const struct ps_wire_hdr *rec)
{
    void *p;
    while (!(p = ps_ring_reserve(lane, rec->size)))
        usleep(200);
    memcpy(p, rec, rec->size);
    ps_ring_commit(lane, rec->size);
}

static void put_string(struct ps_ring_wlane *lane, uint32_t id, uint16_t kind, const char *text)
{
    struct { struct ps_wire_gpu_string s; char text[48]; } str;
    memset(&str, 0, sizeof str);
    size_t len = strlen(text);
    str.s.h.size = (uint32_t)((sizeof str.s + len + 1 + 7) & ~(size_t)7);
    str.s.h.type = PS_WIRE_GPU_STRING;
    str.s.h.flags = kind;
    str.s.id = id;
    str.s.len = (uint32_t)len + 1;
    memcpy(str.text, text, len);
    put(lane, &str.s.h);
}

/* One run: returns the pipeline's CPU ns per row written, or -1. */
static double run(long rows)
{
    char dir[] = "/tmp/perfscope-gpu-rows-bench-XXXXXX", trace[64], cmd[96];
    if (!mkdtemp(dir))
        return -1;
    snprintf(trace, sizeof trace, "%s/run.sqlite", dir);
    struct ps_ring *ring = NULL;
    struct ps_ring_wlane lane;
    memset(&lane, 0, sizeof lane);
    struct ps_tw *w = NULL;
    struct ps_collect *c = NULL;
    struct ps_rows_totals t;
    char err[256];
    int64_t origin = ps_monotonic_ns();
    if (ps_ring_create(dir, 64u << 20, PS_RING_FORCE_MONO, &ring, NULL, 0) ||
        ps_ring_lane_claim(ring, (uint32_t)getpid(), &lane) || ps_tw_open(trace, &w, err, sizeof err) ||
        ps_collect_start(dir, origin, w, &c)) {
        fprintf(stderr, "gpu_rows_bench: set-up failed\n");
        return -1;
    }
    int64_t cpu0 = process_cpu_ns(), self0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    static const char *const kernels[] = { "_Z10gemm_tiledPKfS0_Pfiii", "_Z9bias_reluPfPKfii", "_Z7softmaxPKfPfii",
                                           "_Z3sgdPfPKffi" };
    for (uint32_t i = 0; i < 4; i++)
        put_string(&lane, i + 1, PS_WIRE_GPU_STR_KERNEL_NAME, kernels[i]);
    put_string(&lane, 5, PS_WIRE_GPU_STR_API_NAME, "cudaLaunchKernel_v7000");
    uint64_t t0 = (uint64_t)origin + 1000;
    for (long i = 0; i < rows; i++) {
        uint64_t at = t0 + (uint64_t)i * 1000;
        uint32_t corr = (uint32_t)i + 1;
        switch (i % 4) {
        case 0: {
            struct ps_wire_gpu_api a = { .h = { sizeof a, PS_WIRE_GPU_API, 0 }, .start_ns = at, .end_ns = at + 5,
                                         .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .correlation_id = corr,
                                         .cbid = 211, .name_id = 5 };
            put(&lane, &a.h);
            break;
        }
        case 1: {
            struct ps_wire_gpu_kernel k = { .h = { sizeof k, PS_WIRE_GPU_KERNEL, 0 }, .start_ns = at, .end_ns = at + 500,
                                            .stream_id = 7, .correlation_id = corr, .name_id = (uint32_t)(i / 4 % 4) + 1,
                                            .grid_x = 64, .grid_y = 1, .grid_z = 1, .block_x = 256, .block_y = 1,
                                            .block_z = 1, .registers_per_thread = 32 };
            put(&lane, &k.h);
            break;
        }
        case 2: {
            struct ps_wire_gpu_memcpy m = { .h = { sizeof m, PS_WIRE_GPU_MEMCPY, 0 }, .start_ns = at,
                                            .end_ns = at + 800, .bytes = 1 << 20, .copy_count = 1, .stream_id = 7,
                                            .correlation_id = corr, .copy_kind = 1, .src_kind = 2, .dst_kind = 3,
                                            .src_device_id = PS_WIRE_GPU_NONE, .src_context_id = PS_WIRE_GPU_NONE,
                                            .dst_device_id = PS_WIRE_GPU_NONE, .dst_context_id = PS_WIRE_GPU_NONE };
            put(&lane, &m.h);
            break;
        }
        default: {
            struct ps_wire_gpu_sync s = { .h = { sizeof s, PS_WIRE_GPU_SYNC, 0 }, .start_ns = at, .end_ns = at + 300,
                                          .device_id = 0, .context_id = 1, .stream_id = 7, .correlation_id = corr,
                                          .type = 3, .cuda_event_id = UINT32_MAX };
            put(&lane, &s.h);
            break;
        }
        }
    }
    int64_t self = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - self0;
    ps_ring_lane_release(&lane);
    int rc = ps_collect_stop(c, &t) || ps_tw_finish(w);
    int64_t pipeline = process_cpu_ns() - cpu0 - self;
    ps_tw_free(w);
    ps_ring_free(ring);
    long long written = 0;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + (SELECT count(*) FROM "
                               "CUPTI_ACTIVITY_KIND_RUNTIME) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY) + "
                               "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        written = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0 || written != rows) {
        fprintf(stderr, "gpu_rows_bench: %lld of %ld rows written\n", written, rows);
        return -1;
    }
    return (double)pipeline / (double)rows;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 200000;
    double ns[5];
    if (rows <= 0) {
        fprintf(stderr, "usage: gpu_rows_bench [ROWS > 0]\n");
        return 2;
    }
    for (int i = 0; i < 5; i++)
        if ((ns[i] = run(rows)) < 0)
            return 1;
    qsort(ns, 5, sizeof ns[0], cmp);
    printf("gpu_rows_bench: %ld GPU rows (kernel, runtime API, H2D copy, stream sync) through ring -> drain -> "
           "writer -> SQLite: recorder CPU median %.0f ns/row (min %.0f, max %.0f)\n", rows, ns[2], ns[0], ns[4]);
    return 0;
}
