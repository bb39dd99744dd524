/* Reader benchmark: reads each trace given on the command line with ps_read_trace and prints the read
 * time (wall), the process's peak RSS so far, and what the model holds. Figures, not a pass/fail test. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "read/reader.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int status = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char err[512];
        struct ps_model *m = NULL;
        double t0 = now_s();
        int rc = ps_read_trace(argv[i], &m, err, sizeof err);
        double dt = now_s() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        if (rc < 0) {
            fprintf(stderr, "%s\n", err);
            status = 1;
            continue;
        }
        size_t kinds[4] = { 0 };
        long long kernel_ns = 0;
        for (size_t k = 0; k < m->gpu.n; k++) {
            const struct ps_gpu_op op = ps_model_gpu(m, k);
            kinds[op.kind]++;
            if (op.kind == PS_GPU_KERNEL)
                kernel_ns += op.end_ns - op.start_ns;
        }
        printf("%s: read %.3f s, peak RSS %.1f MB; gpu %zu (kernel %zu memcpy %zu memset %zu sync %zu), api %zu, "
               "ranges %zu, threads %zu, procs %zu, streams %zu, devices %zu, strings %zu, unplaced %lld; "
               "total kernel time %lld ns\n",
               argv[i], dt, (double)ru.ru_maxrss / 1024.0, m->gpu.n, kinds[0], kinds[1], kinds[2], kinds[3],
               m->api.n, m->ranges.n, m->threads.n, m->procs.n, m->streams.n, m->devices.n,
               ps_model_nstrings(m), (long long)m->unplaced_events, kernel_ns);
        for (size_t k = 0; k < m->meta.n; k++)
            if (strcmp(m->meta.v[k].key, "unplaced_events") == 0)
                printf("  unplaced: %s\n", m->meta.v[k].value);
        ps_model_free(m);
    }
    return status;
}
