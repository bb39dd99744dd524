/* A synthetic probe for the collector benchmark and tests: writes NVTX push/pop records straight into a
 * ring in $PERFSCOPE_SESSION_DIR as fast as it can, bypassing NVTX, so what is measured is `record`'s
 * drain and SQLite writer alone. Usage: ring_storm THREADS RANGES_PER_THREAD [RANGES_PER_SECOND]: with a
 * rate, the threads together pace themselves to it (a sustained load); prints the ranges written. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ps_env.h"
#include "ps_ring.h"
#include "ps_ring_writer.h"
#include "ps_time.h"
#include "ps_wire.h"

static struct ps_ring *ring;
static long per_thread;
static double thread_rate;      /* ranges per second per thread, 0: as fast as possible */

/* Sleep until `done` ranges are due at thread_rate since t0_ns. */
static void pace(int64_t t0_ns, long done)
{
    int64_t due = t0_ns + (int64_t)(done / thread_rate * 1e9);
    int64_t now = ps_monotonic_ns();
    if (due > now) {
        struct timespec ts = { (due - now) / 1000000000, (due - now) % 1000000000 };
        nanosleep(&ts, NULL);
    }
}

static void *storm(void *arg)
{
    (void)arg;
    struct ps_ring_wlane w = { 0 };
    uint32_t tid = (uint32_t)gettid();
    if (ps_ring_lane_claim(ring, tid, &w))
        return NULL;
    static const char name[] = "storm_range";
    uint32_t sid = ps_ring_lane_string_id(&w);
    uint32_t sbytes = (uint32_t)((sizeof(struct ps_wire_lane_string) + sizeof name + 7) & ~7u);
    struct ps_wire_lane_string *s = ps_ring_reserve(&w, sbytes);
    if (s) {
        *s = (struct ps_wire_lane_string){ { sbytes, PS_WIRE_LANE_STRING, 0 }, sid, sizeof name };
        memcpy(s + 1, name, sizeof name);
        ps_ring_commit(&w, sbytes);
    }
    int tsc = ps_ring_uses_tsc(ring);
    int64_t t0 = ps_monotonic_ns();
    for (long i = 0; i < per_thread; i++) {
        if (thread_rate > 0 && i % 1000 == 0)
            pace(t0, i);
        uint64_t start = ps_ring_clock_now(tsc);
        struct ps_wire_nvtx *n = ps_ring_reserve(&w, sizeof *n);
        if (!n)
            continue;
        *n = (struct ps_wire_nvtx){ { sizeof *n, PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_LANE }, start, ps_ring_clock_now(tsc),
                                    tid, 0, sid, 0 };
        ps_ring_commit(&w, sizeof *n);
    }
    ps_ring_lane_release(&w);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: ring_storm THREADS RANGES_PER_THREAD [RANGES_PER_SECOND]\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    per_thread = atol(argv[2]);
    if (threads < 1 || threads > 256)
        return 2;
    thread_rate = argc == 4 ? atof(argv[3]) / threads : 0;
    const char *dir = getenv(PS_ENV_SESSION_DIR);
    const char *bytes = getenv(PS_ENV_RING_BYTES);
    if (!dir) {
        fprintf(stderr, "ring_storm: run me under perfscope record (%s is not set)\n", PS_ENV_SESSION_DIR);
        return 2;
    }
    int rc = ps_ring_create(dir, bytes ? strtoull(bytes, NULL, 10) : PS_RING_DEFAULT_BYTES, 0, &ring, NULL, 0);
    if (rc) {
        fprintf(stderr, "ring_storm: cannot create the ring in %s: %s\n", dir, strerror(-rc));
        return 1;
    }
    pthread_t th[256];
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, storm, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    printf("%ld\n", per_thread * threads);
    ps_ring_free(ring);
    return 0;
}
