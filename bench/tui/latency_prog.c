/* For bench/tui/top_figures.sh: every `period` ms push the NVTX range "marker", print the CLOCK_MONOTONIC ns of
 * the push (one line, flushed), hold it `hold` ms, pop it. `top` shows the range in its open-ranges stack; the
 * script measures how long after the printed time it appears. Usage: latency_prog COUNT PERIOD_MS HOLD_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int count = atoi(argv[1]);
    long period = atol(argv[2]), hold = atol(argv[3]);
    nvtxRangePushA("warmup");      /* the first NVTX call initialises the injection */
    nvtxRangePop();
    for (int i = 0; i < count; i++) {
        sleep_ms(period - hold);
        nvtxRangePushA("marker");
        printf("%lld\n", now_ns());
        fflush(stdout);
        sleep_ms(hold);
        nvtxRangePop();
    }
    return 0;
}
