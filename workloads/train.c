/* train.c — perfscope's reference training workload: trains an MLP on a synthetic image data set on
 * disk, with NVTX ranges per step (step > data, h2d, forward, backward, optimizer), and named
 * scenarios that make one bottleneck happen on purpose (docs/workloads.md). */
#include "ps_dataset.h"
#include "ps_loader.h"
#include "ps_mlp.h"
#include "ps_nn.h"
#include "ps_time.h"

#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A scenario's defaults. Figures measured on the 2-core development machine are in docs/workloads.md. */
struct scenario {
    const char *name;
    int steps, batch, micro_batch, hidden, workers, prefetch;
    int img, crop;            /* stored image side, loader crop side (square) */
    int dev_h, dev_w;         /* window cropped on the device (0: none) */
    enum ps_img_codec codec;
    int count;                /* images in the data set */
    int blur_passes, flip, cache, zero_copy;
    float noise;
    enum ps_nn_copy_mode copy;
    int sync_every_kernel;
};

#define SMALL_IMAGES .img = 36, .crop = 32, .codec = PS_IMG_ZLIB, .count = 1024, .flip = 1

/* C backend (the CPU is the device; 2 cores: the main thread plus one loader worker). */
static const struct scenario cpu_scenarios[] = {
    /* one worker doing zlib decode + 10 blur passes + noise per image; a tiny model */
    {.name = "data-bound", .steps = 100, .batch = 64, .micro_batch = 64, .hidden = 32,
     .workers = 1, .prefetch = 2, SMALL_IMAGES, .blur_passes = 10, .noise = 0.05f},
    /* 128x128 images, decoded once into the loader's cache and copied from there one image at a
     * time (pageable: through a bounce buffer); the model reads a random 128x4 strip cut on the
     * device. The loader only picks samples, and its queue of pointer-only batches is deep enough
     * (256 steps, ~0.2 s) to ride out the worker being descheduled on a loaded machine. */
    {.name = "memcpy-bound", .steps = 3000, .batch = 64, .micro_batch = 64, .hidden = 16,
     .workers = 1, .prefetch = 256, .img = 128, .crop = 128, .dev_h = 128, .dev_w = 4,
     .codec = PS_IMG_RAW, .count = 512, .cache = 1, .zero_copy = 1, .copy = PS_NN_PAGEABLE},
    /* a wide hidden layer: large GEMMs dominate */
    {.name = "kernel-bound", .steps = 30, .batch = 256, .micro_batch = 256, .hidden = 1536,
     .workers = 1, .prefetch = 2, SMALL_IMAGES, .noise = 0.05f},
    /* micro-batches of 8 rows: many small kernels, each followed by a device synchronise (a no-op
     * on the C backend, whose kernels are synchronous) */
    {.name = "sync-bound", .steps = 500, .batch = 64, .micro_batch = 8, .hidden = 64,
     .workers = 1, .prefetch = 4, SMALL_IMAGES, .sync_every_kernel = 1},
    /* overhead measurements: many short, steady steps */
    {.name = "balanced", .steps = 600, .batch = 32, .micro_batch = 32, .hidden = 128,
     .workers = 1, .prefetch = 4, SMALL_IMAGES, .noise = 0.05f},
};

/* CUDA backend (an H200 with 16 host cores): the same bottlenecks, sized for the GPU. */
static const struct scenario cuda_scenarios[] = {
    {.name = "data-bound", .steps = 60, .batch = 128, .micro_batch = 128, .hidden = 256,
     .workers = 2, .prefetch = 2, SMALL_IMAGES, .blur_passes = 10, .noise = 0.05f},
    /* one collated 16 MiB pageable cudaMemcpy per step (per-image copies would make the runtime
     * API's overhead, not the copies, the largest cost) */
    {.name = "memcpy-bound", .steps = 60, .batch = 256, .micro_batch = 256, .hidden = 64,
     .workers = 4, .prefetch = 8, .img = 128, .crop = 128, .dev_h = 128, .dev_w = 4,
     .codec = PS_IMG_RAW, .count = 512, .cache = 1, .copy = PS_NN_PAGEABLE},
    {.name = "kernel-bound", .steps = 30, .batch = 512, .micro_batch = 512, .hidden = 16384,
     .workers = 4, .prefetch = 4, SMALL_IMAGES, .noise = 0.05f},
    {.name = "sync-bound", .steps = 60, .batch = 256, .micro_batch = 8, .hidden = 256,
     .workers = 4, .prefetch = 4, SMALL_IMAGES, .sync_every_kernel = 1},
    {.name = "balanced", .steps = 300, .batch = 128, .micro_batch = 128, .hidden = 1024,
     .workers = 4, .prefetch = 4, SMALL_IMAGES, .noise = 0.05f},
};
#define N_SCENARIOS (sizeof cpu_scenarios / sizeof cpu_scenarios[0])

#define CLASSES 10

struct options {
    const char *scenario, *backend, *data_dir;
    int steps, batch, micro_batch, hidden, workers, prefetch; /* -1: the scenario's default */
    uint64_t seed;
    float lr;
};

/* Ranges opened by this process (nvtxRangePushA calls), printed for comparison with the trace. */
static uint64_t g_ranges_opened;

static void range_push(const char *name)
{
    nvtxRangePushA(name);
    g_ranges_opened++;
}

static void usage(FILE *f)
{
    fputs("usage: train [--scenario NAME] [--backend cpu|cuda|auto] [--steps N] [--batch N]\n"
          "             [--micro-batch N] [--hidden N] [--workers N] [--prefetch N] [--seed N]\n"
          "             [--lr X] [--data-dir DIR]\n"
          "scenarios: data-bound memcpy-bound kernel-bound sync-bound balanced (default)\n"
          "Trains an MLP on a synthetic image data set kept in DIR (default $XDG_CACHE_HOME/\n"
          "perfscope-workloads, else /tmp/perfscope-workloads-$UID). See docs/workloads.md.\n",
          f);
}

static int parse_int(const char *opt, const char *s, int min, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > INT_MAX) {
        fprintf(stderr, "train: %s needs an integer >= %d, got '%s'\n", opt, min, s);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"scenario", required_argument, 0, 's'}, {"backend", required_argument, 0, 'b'},
        {"steps", required_argument, 0, 'n'},    {"batch", required_argument, 0, 'B'},
        {"micro-batch", required_argument, 0, 'm'}, {"hidden", required_argument, 0, 'H'},
        {"workers", required_argument, 0, 'w'},  {"prefetch", required_argument, 0, 'p'},
        {"seed", required_argument, 0, 'S'},     {"lr", required_argument, 0, 'l'},
        {"data-dir", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (struct options){"balanced", "auto", NULL, -1, -1, -1, -1, -1, -1, 1, 0.1f};
    int c, rc = 0, seed = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': o->scenario = optarg; break;
        case 'b': o->backend = optarg; break;
        case 'd': o->data_dir = optarg; break;
        case 'n': rc = parse_int("--steps", optarg, 1, &o->steps); break;
        case 'B': rc = parse_int("--batch", optarg, 1, &o->batch); break;
        case 'm': rc = parse_int("--micro-batch", optarg, 1, &o->micro_batch); break;
        case 'H': rc = parse_int("--hidden", optarg, 1, &o->hidden); break;
        case 'w': rc = parse_int("--workers", optarg, 1, &o->workers); break;
        case 'p': rc = parse_int("--prefetch", optarg, 1, &o->prefetch); break;
        case 'S': rc = parse_int("--seed", optarg, 0, &seed); break;
        case 'l': {
            char *end;
            o->lr = strtof(optarg, &end);
            if (*end || end == optarg || !(o->lr > 0.0f && o->lr < 100.0f)) {
                fprintf(stderr, "train: --lr needs a number in (0, 100), got '%s'\n", optarg);
                rc = -EINVAL;
            }
            break;
        }
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -EINVAL;
        }
    }
    if (rc == 0 && optind < argc) {
        fprintf(stderr, "train: unexpected argument '%s'\n", argv[optind]);
        rc = -EINVAL;
    }
    o->seed = (uint64_t)seed;
    if (rc == 0 && strcmp(o->backend, "cpu") && strcmp(o->backend, "cuda") &&
        strcmp(o->backend, "auto")) {
        fprintf(stderr, "train: --backend must be cpu, cuda or auto, got '%s'\n", o->backend);
        rc = -EINVAL;
    }
    return rc;
}

static const struct scenario *find_scenario(const struct scenario *table, const char *name)
{
    for (size_t i = 0; i < N_SCENARIOS; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* Open the backend --backend asks for; prints which one and why. */
static int open_backend(const char *want, struct ps_nn *nn, enum ps_nn_copy_mode mode)
{
    char why[256] = "";
    if (strcmp(want, "cpu") != 0) {
        int rc = ps_nn_open_cuda(nn, mode, why, sizeof why);
        if (rc == 0) {
            printf("backend=cuda (%s)\n", why);
            return 0;
        }
        if (strcmp(want, "cuda") == 0) {
            fprintf(stderr, "train: --backend cuda: %s (use --backend cpu or auto to run on the "
                            "CPU)\n", why);
            return rc;
        }
    }
    int rc = ps_nn_open_cpu(nn, mode);
    if (rc == 0)
        printf("backend=cpu (%s)\n", strcmp(want, "cpu") == 0 ? "asked for" : why);
    return rc;
}

static void default_data_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, cap, "%s/perfscope-workloads", xdg);
    else
        snprintf(buf, cap, "/tmp/perfscope-workloads-%u", (unsigned)getuid());
}

enum phase { PH_DATA, PH_H2D, PH_FORWARD, PH_BACKWARD, PH_OPTIMIZER, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"data", "h2d", "forward", "backward",
                                                  "optimizer"};

static void *loader_alloc(void *ctx, size_t bytes)
{
    struct ps_nn *nn = ctx;
    return nn->ops->host_alloc(nn, bytes);
}

static void loader_release(void *ctx, void *p)
{
    struct ps_nn *nn = ctx;
    nn->ops->host_release(nn, p);
}

/* The training loop: `steps` steps of 6 NVTX ranges each. phase_ns[] and *step_ns get wall times. */
static int train_loop(struct ps_loader *ld, struct ps_mlp *mlp, int steps, float *loss_first,
                      double *loss_last, int64_t *phase_ns, int64_t *step_ns)
{
    int rc = 0;
    int tail = steps < 5 ? steps : 5; /* loss_end: mean of the last 5 steps (batches are noisy) */
    for (int s = 0; s < steps && rc == 0; s++) {
        struct ps_batch *b = NULL;
        float loss = 0.0f;
        int64_t t[PH_COUNT + 1];
        range_push("step");
        t[0] = ps_monotonic_ns();
        for (int p = 0; p < PH_COUNT && rc == 0; p++) {
            range_push(phase_names[p]);
            switch (p) {
            case PH_DATA: rc = ps_loader_next(ld, &b); break;
            case PH_H2D:
                rc = b->images ? ps_mlp_upload_images(mlp, b->images, b->labels)
                               : ps_mlp_upload(mlp, b->x, b->labels);
                break;
            case PH_FORWARD: rc = ps_mlp_forward(mlp); break;
            case PH_BACKWARD: rc = ps_mlp_backward(mlp); break;
            case PH_OPTIMIZER: rc = ps_mlp_optimize(mlp, &loss); break;
            }
            nvtxRangePop();
            t[p + 1] = ps_monotonic_ns();
            phase_ns[p] += t[p + 1] - t[p];
        }
        nvtxRangePop();
        *step_ns += ps_monotonic_ns() - t[0];
        /* Hand the batch back after the step (its copies completed in the optimizer's synchronise):
         * waking a loader worker can cost hundreds of us on a busy VM, which is not step time. */
        if (b)
            ps_loader_release(ld, b);
        if (rc == 0 && s == 0)
            *loss_first = loss;
        if (rc == 0 && s >= steps - tail)
            *loss_last += loss / tail;
    }
    return rc;
}

/* The options given on the command line override the scenario's values. 0, or -EINVAL after a message. */
static int apply_options(struct scenario *sc, const struct options *o)
{
    if (o->steps > 0) sc->steps = o->steps;
    if (o->batch > 0) {
        /* micro-batches follow the batch unless the scenario splits it and the split still fits */
        if (sc->micro_batch == sc->batch || o->batch % sc->micro_batch != 0)
            sc->micro_batch = o->batch;
        sc->batch = o->batch;
    }
    if (o->micro_batch > 0) sc->micro_batch = o->micro_batch;
    if (o->hidden > 0) sc->hidden = o->hidden;
    if (o->workers > 0) sc->workers = o->workers;
    if (o->prefetch > 0) sc->prefetch = o->prefetch;
    if (sc->micro_batch > sc->batch || sc->batch % sc->micro_batch != 0) {
        fprintf(stderr, "train: --micro-batch %d must divide --batch %d\n", sc->micro_batch,
                sc->batch);
        return -EINVAL;
    }
    return 0;
}

/* The run's summary on stdout: the ground truth the tests compare a trace's analysis with. */
static void print_summary(const struct ps_nn *nn, int steps, float loss_first, double loss_last,
                          const int64_t phase_ns[PH_COUNT], int64_t step_ns)
{
    double step = step_ns > 0 ? (double)step_ns : 1.0;
    int64_t compute = step_ns - phase_ns[PH_DATA] - phase_ns[PH_H2D];
    printf("steps=%d\n", steps);
    printf("loss_start=%.4f loss_end=%.4f\n", loss_first, loss_last);
    printf("nvtx_ranges_opened=%llu\n", (unsigned long long)g_ranges_opened);
    printf("phase_share data=%.3f h2d=%.3f compute=%.3f\n", phase_ns[PH_DATA] / step,
           phase_ns[PH_H2D] / step, compute / step);
    printf("phase_ms step=%.1f", step_ns / 1e6);
    for (int p = 0; p < PH_COUNT; p++)
        printf(" %s=%.1f", phase_names[p], phase_ns[p] / 1e6);
    printf("\n");
    printf("kernels_launched=%llu\n", (unsigned long long)ps_nn_kernels_total(nn));
    for (int k = 0; k < PS_NN_K_COUNT; k++)
        if (nn->stats.kernels[k])
            printf("kernel name=%s count=%llu\n", ps_nn_kernel_names[k],
                   (unsigned long long)nn->stats.kernels[k]);
    printf("copies h2d_bytes=%llu h2d_count=%llu d2h_bytes=%llu d2h_count=%llu syncs=%llu\n",
           (unsigned long long)nn->stats.h2d_bytes, (unsigned long long)nn->stats.h2d_copies,
           (unsigned long long)nn->stats.d2h_bytes, (unsigned long long)nn->stats.d2h_copies,
           (unsigned long long)nn->stats.syncs);
}

int main(int argc, char **argv)
{
    struct options o;
    struct ps_nn nn = {0};
    struct ps_mlp mlp = {0};
    struct ps_loader *ld = NULL;
    char data_dir[2048], set_dir[4096];
    int rc = parse_args(argc, argv, &o), generated = 0;
    if (rc != 0)
        return 2;
    if (!find_scenario(cpu_scenarios, o.scenario)) {
        fprintf(stderr, "train: unknown scenario '%s' (data-bound, memcpy-bound, kernel-bound, "
                        "sync-bound, balanced)\n", o.scenario);
        return 2;
    }
    /* The copy mode is a property of the scenario, the same on both backends. */
    rc = open_backend(o.backend, &nn, find_scenario(cpu_scenarios, o.scenario)->copy);
    if (rc != 0)
        return 1;
    int on_cuda = strcmp(nn.ops->name, "cuda") == 0;
    struct scenario sc = *find_scenario(on_cuda ? cuda_scenarios : cpu_scenarios, o.scenario);
    if (apply_options(&sc, &o) != 0) {
        ps_nn_close(&nn);
        return 2;
    }
    nn.sync_every_kernel = sc.sync_every_kernel;

    if (o.data_dir && snprintf(data_dir, sizeof data_dir, "%s", o.data_dir) >= (int)sizeof data_dir) {
        fprintf(stderr, "train: --data-dir is longer than %zu bytes\n", sizeof data_dir - 1);
        ps_nn_close(&nn);
        return 2;
    }
    if (!o.data_dir)
        default_data_dir(data_dir, sizeof data_dir);
    struct ps_dataset_spec spec = {sc.img, sc.img, sc.count, CLASSES, sc.codec, 1};
    int64_t t0 = ps_monotonic_ns();
    rc = ps_dataset_ensure(data_dir, &spec, set_dir, sizeof set_dir, &generated);
    if (rc != 0)
        goto out;
    printf("dataset dir=%s images=%d size=%dx%d codec=%s generated=%s ms=%.1f\n", set_dir,
           sc.count, sc.img, sc.img, sc.codec == PS_IMG_ZLIB ? "zlib" : "raw",
           generated ? "yes" : "no", (double)(ps_monotonic_ns() - t0) / 1e6);

    struct ps_mlp_config mc = {sc.batch, sc.micro_batch, sc.dev_h ? sc.dev_h : sc.crop,
                               sc.dev_w ? sc.dev_w : sc.crop, sc.crop, sc.crop, sc.hidden,
                               CLASSES, o.lr, o.seed};
    rc = ps_mlp_init(&mlp, &nn, &mc);
    if (rc != 0) {
        fprintf(stderr, "train: cannot set up the model (batch %d, hidden %d): %s\n", sc.batch,
                sc.hidden, strerror(-rc));
        goto out;
    }
    struct ps_loader_config lc = {
        .set_dir = set_dir, .count = sc.count, .img_w = sc.img, .img_h = sc.img,
        .out_w = sc.crop, .out_h = sc.crop, .batch = sc.batch, .workers = sc.workers,
        .prefetch = sc.prefetch, .seed = o.seed, .flip = sc.flip, .noise = sc.noise,
        .blur_passes = sc.blur_passes, .cache = sc.cache, .zero_copy = sc.zero_copy,
        .alloc = loader_alloc, .release = loader_release, .alloc_ctx = &nn};
    rc = ps_loader_new(&lc, &ld);
    if (rc != 0) {
        fprintf(stderr, "train: cannot start the loader: %s\n", strerror(-rc));
        goto out;
    }
    printf("scenario=%s steps=%d batch=%d micro_batch=%d hidden=%d workers=%d prefetch=%d "
           "image=%dx%d input=%dx%d copy=%s sync_every_kernel=%d\n", sc.name, sc.steps, sc.batch,
           sc.micro_batch, sc.hidden, sc.workers, sc.prefetch, sc.crop, sc.crop, mc.in_h, mc.in_w,
           sc.copy == PS_NN_PINNED ? "pinned" : "pageable", sc.sync_every_kernel);
    fflush(stdout);

    int64_t phase_ns[PH_COUNT] = {0}, step_ns = 0;
    float loss_first = 0.0f;
    double loss_last = 0.0;
    rc = train_loop(ld, &mlp, sc.steps, &loss_first, &loss_last, phase_ns, &step_ns);
    if (rc != 0) {
        fprintf(stderr, "train: training step failed: %s\n", strerror(-rc));
        goto out;
    }
    print_summary(&nn, sc.steps, loss_first, loss_last, phase_ns, step_ns);
out:
    ps_loader_free(ld);
    ps_mlp_fini(&mlp);
    ps_nn_close(&nn);
    if (fflush(stdout) != 0) {
        perror("train: writing the summary");
        return 1;
    }
    return rc == 0 ? 0 : 1;
}
