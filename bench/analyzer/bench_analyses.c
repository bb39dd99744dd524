/* Analysis speed: `bench_analyses FILE` times reading and analysing a trace separately; `bench_analyses -n N`
 * analyses a synthetic model of N kernels (N launches, two streams, a step per 1000 kernels, a data range per
 * step). Prints wall and CPU seconds and peak RSS (MB); the goals are in the analyzer's issue (0.3 s / 60 MB for
 * resnet50_workers0, 5 s / 200 MB for 10 million kernels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "read/reader.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static struct ps_model *synthetic(long n)
{
    struct ps_model *m = ps_model_new("synthetic", PS_FORMAT_PERFSCOPE);
    uint32_t t = ps_model_thread(m, 1, 1), s[2] = { ps_model_stream(m, 1, 0, 7), ps_model_stream(m, 1, 0, 13) };
    uint32_t names[8], launch = ps_model_intern_cstr(m, "cudaLaunchKernel_v7000");
    uint32_t step = ps_model_intern_cstr(m, "step"), data = ps_model_intern_cstr(m, "data");
    for (int i = 0; i < 8; i++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_%d", i);
        names[i] = ps_model_intern_cstr(m, name);
    }
    for (long i = 0; i < n; i++) {
        int64_t t0 = i * 10000;   /* 10 µs per kernel slot */
        if (i % 1000 == 0) {
            struct ps_range st = { .start_ns = t0, .end_ns = t0 + 1000 * 10000, .name = step, .thread = t,
                                   .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
            struct ps_range d = { .start_ns = t0, .end_ns = t0 + 500000, .name = data, .thread = t,
                                  .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
            ps_model_add_range(m, &st);
            ps_model_add_range(m, &d);
        }
        struct ps_api_call c = { .start_ns = t0 + 600000, .end_ns = t0 + 603000, .correlation = (uint64_t)i + 1,
                                 .name = launch, .thread = t };
        struct ps_gpu_op k = { .start_ns = t0 + 700000, .end_ns = t0 + 700000 + 5000 + (i % 7) * 1000,
                               .correlation = (uint64_t)i + 1, .name = names[i % 8], .stream = s[i % 2],
                               .kind = PS_GPU_KERNEL };
        if (ps_model_add_api(m, &c) < 0 || ps_model_add_gpu(m, &k) < 0) {
            fprintf(stderr, "out of memory at %ld kernels\n", i);
            exit(1);
        }
    }
    return m;
}

int main(int argc, char **argv)
{
    struct ps_model *m = NULL;
    char err[512];
    double t0 = now(), t1, c1;
    if (argc == 3 && !strcmp(argv[1], "-n")) {
        m = synthetic(atol(argv[2]));
        if (ps_model_finish(m) < 0)
            return 1;
        t1 = now(), c1 = cpu();
        printf("synthetic model of %s kernels built in %.3f s\n", argv[2], t1 - t0);
    } else if (argc == 2) {
        if (ps_read_trace(argv[1], &m, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        t1 = now(), c1 = cpu();
        printf("read %s in %.3f s\n", argv[1], t1 - t0);
    } else {
        fprintf(stderr, "usage: bench_analyses FILE | bench_analyses -n KERNELS\n");
        return 2;
    }
    struct ps_report r;
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    if (ps_ranks_report_compute(&r, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t2 = now(), c2 = cpu();
    printf("analyses %.3f s wall (%.3f s CPU), %zu events, %zu steps, verdict %s\n", t2 - t1, c2 - c1, r.nevents,
           r.nsteps, ps_bottleneck_name[r.bottleneck]);
    /* each format of the renderer table: time to render (best of 5) and the output's size */
    struct ps_render_opts ro = { .width = 100 };
    for (size_t i = 0; ps_renderer_at(i); i++) {
        double best = 1e9;
        size_t len = 0;
        for (int rep = 0; rep < 5; rep++) {
            char *buf = NULL;
            FILE *f = open_memstream(&buf, &len);
            double a = now();
            ps_renderer_at(i)->report(f, &r, &ro);
            fclose(f);
            double b = now();
            best = b - a < best ? b - a : best;
            free(buf);
        }
        printf("render --format %-5s %8.3f ms, %9zu bytes\n", ps_renderer_at(i)->name, best * 1e3, len);
    }
    printf("peak RSS %.1f MB\n", peak_mb());
    /* what finding steps without markers costs on its own: the period of the busiest stream's kernel
     * sequence and its boundaries, as `--steps infer` runs it before the breakdown */
    struct ps_report ri = { .m = m, .opts = o, .run_start_ns = r.run_start_ns, .run_end_ns = r.run_end_ns };
    struct ps_view whole;
    ps_view_all(&whole, m);
    double c4 = cpu();
    int irc = ps_steps_infer(&ri, &whole);
    printf("step inference %.3f s CPU: %s\n", cpu() - c4,
           irc < 0 ? "out of memory" : ri.steps_inferred ? ri.steps_note : ri.steps_note[0] ? ri.steps_note : "-");
    free(ri.steps);
    ps_report_fini(&r);
    ps_model_free(m);
    return 0;
}
