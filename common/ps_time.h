/* Clocks shared by the probe, the collector and the analyzer.
 * perfscope has one time base: CLOCK_MONOTONIC in nanoseconds (docs/design.md). */
#ifndef PS_TIME_H
#define PS_TIME_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now, ns. Never fails on Linux. */
static inline int64_t ps_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_REALTIME now, ns since the UTC epoch. */
static inline int64_t ps_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
