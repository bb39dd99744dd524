/* ps_loader.c — worker threads and the in-order prefetch queue of the reference workloads' loader.
 * Batch i always goes to slot i % P and is filled only once batch i - P has been released, so the
 * consumer sees batches in order whatever the workers' timing, and the data are deterministic. */
#include "ps_loader.h"

#include "ps_dataset.h"
#include "ps_rng.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_READY };

struct slot {
    struct ps_batch batch;
    enum slot_state state;
    int64_t next; /* the batch index allowed to fill this slot next */
};

struct ps_loader {
    struct ps_loader_config cfg;
    pthread_mutex_t mu;
    pthread_cond_t ready_cv; /* a batch became ready, or a worker failed */
    pthread_cond_t free_cv;  /* a slot was released, or stop */
    struct slot *slots;
    float **cache;      /* [count] decoded images as floats in [0,1], when cfg.cache */
    pthread_t *threads;
    int started;        /* threads running */
    int64_t next_claim; /* next batch index a worker takes */
    int64_t next_give;  /* next batch index the consumer takes */
    int stop, failed;
};

struct worker_buf {
    uint8_t *pixels; /* decoded image */
    float *tmp;      /* blur scratch */
};

/* 3x3 box blur of img [h,w] (edges clamp), via tmp. */
static void blur(float *img, float *tmp, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    s += img[yy * w + xx];
                }
            }
            tmp[y * w + x] = s * (1.0f / 9.0f);
        }
    memcpy(img, tmp, (size_t)w * h * sizeof *img);
}

/* Read and decode sample `sample` into wb->pixels; *label gets its class. Returns 0, or -errno
 * after printing which file failed and why. */
static int decode_one(const struct ps_loader_config *c, struct worker_buf *wb, int sample,
                      int *label)
{
    char path[4096];
    uint8_t *file = NULL;
    size_t len = 0;
    struct ps_img_info info;
    int rc = ps_dataset_image_path(c->set_dir, sample, path, sizeof path);
    if (rc == 0)
        rc = ps_dataset_read_file(path, &file, &len);
    if (rc != 0) {
        fprintf(stderr, "train: loader cannot read %s: %s (delete the data dir to regenerate it)\n",
                path, strerror(-rc));
        return rc;
    }
    rc = ps_img_decode(file, len, &info, wb->pixels, (size_t)c->img_w * c->img_h);
    free(file);
    if (rc == 0 && (info.width != c->img_w || info.height != c->img_h))
        rc = -EBADMSG;
    if (rc != 0) {
        fprintf(stderr, "train: loader cannot decode %s: %s (expected a %dx%d PSI1 image; delete "
                        "the data dir to regenerate it)\n", path, strerror(-rc), c->img_w, c->img_h);
        return rc;
    }
    *label = info.label;
    return 0;
}

/* The decoded image of `sample` as floats, from the cache (filling it on first use; the label is
 * kept in the slot after the pixels) or freshly decoded into fresh. NULL after a failure. */
static const float *cached_image(struct ps_loader *ld, struct worker_buf *wb, int sample,
                                 int *label)
{
    const struct ps_loader_config *c = &ld->cfg;
    size_t n = (size_t)c->img_w * c->img_h;
    float *img = __atomic_load_n(&ld->cache[sample], __ATOMIC_ACQUIRE);
    if (!img) {
        int lab;
        float *fresh = malloc((n + 1) * sizeof *fresh);
        if (!fresh || decode_one(c, wb, sample, &lab) != 0) {
            free(fresh);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            fresh[i] = (float)wb->pixels[i] * (1.0f / 255.0f);
        fresh[n] = (float)lab;
        float *expected = NULL;
        if (__atomic_compare_exchange_n(&ld->cache[sample], &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            img = fresh;
        } else { /* another worker decoded it first */
            free(fresh);
            img = expected;
        }
    }
    *label = (int)img[n];
    return img;
}

/* Read, decode and augment sample `sample` into out [out_h*out_w]. Returns 0 or -errno. */
static int load_one(struct ps_loader *ld, struct worker_buf *wb, int sample, uint64_t *rng,
                    float *out, int32_t *label)
{
    const struct ps_loader_config *c = &ld->cfg;
    const float *cached = NULL;
    int lab;
    if (c->cache) {
        cached = cached_image(ld, wb, sample, &lab);
        if (!cached)
            return -EIO;
    } else if (decode_one(c, wb, sample, &lab) != 0) {
        return -EIO;
    }
    *label = lab;
    int ox = ps_rng_below(rng, c->img_w - c->out_w + 1);
    int oy = ps_rng_below(rng, c->img_h - c->out_h + 1);
    int flip = c->flip && (ps_rng_next(rng) & 1);
    if (cached && !flip && c->out_w == c->img_w) /* whole rows: one copy */
        memcpy(out, cached + (size_t)oy * c->img_w, (size_t)c->out_h * c->img_w * sizeof *out);
    else
    for (int y = 0; y < c->out_h; y++) {
        size_t at = (size_t)(oy + y) * c->img_w + ox;
        float *dst = out + (size_t)y * c->out_w;
        if (cached && !flip)
            memcpy(dst, cached + at, (size_t)c->out_w * sizeof *dst);
        else if (cached)
            for (int x = 0; x < c->out_w; x++)
                dst[x] = cached[at + c->out_w - 1 - x];
        else
            for (int x = 0; x < c->out_w; x++)
                dst[x] = (float)wb->pixels[at + (flip ? c->out_w - 1 - x : x)] * (1.0f / 255.0f);
    }
    for (int p = 0; p < c->blur_passes; p++)
        blur(out, wb->tmp, c->out_w, c->out_h);
    size_t n = (size_t)c->out_w * c->out_h;
    if (c->noise > 0.0f)
        for (size_t i = 0; i + 1 < n; i += 2) { /* Box-Muller: two normal deviates per draw */
            float u1 = ps_rng_unit(rng) + 1e-7f, u2 = ps_rng_unit(rng);
            float r = sqrtf(-2.0f * logf(u1)) * c->noise;
            out[i] += r * cosf(6.2831853f * u2);
            out[i + 1] += r * sinf(6.2831853f * u2);
        }
    return 0;
}

static int fill(struct ps_loader *ld, struct worker_buf *wb, struct ps_batch *b, int64_t index)
{
    const struct ps_loader_config *c = &ld->cfg;
    size_t per = (size_t)c->out_w * c->out_h;
    for (int i = 0; i < c->batch; i++) {
        uint64_t rng = ps_rng_seed(c->seed, (uint64_t)index * (uint64_t)c->batch + (uint64_t)i);
        int sample = (int)(ps_rng_next(&rng) % (uint64_t)c->count), label;
        if (c->zero_copy) {
            b->images[i] = cached_image(ld, wb, sample, &label);
            if (!b->images[i])
                return -EIO;
            b->labels[i] = label;
            continue;
        }
        int rc = load_one(ld, wb, sample, &rng, b->x + per * i, &b->labels[i]);
        if (rc != 0)
            return rc;
    }
    b->index = index;
    return 0;
}

static void *worker_main(void *arg)
{
    struct ps_loader *ld = arg;
    const struct ps_loader_config *c = &ld->cfg;
    struct worker_buf wb = {
        .pixels = malloc((size_t)c->img_w * c->img_h),
        .tmp = malloc((size_t)c->out_w * c->out_h * sizeof(float)),
    };
    pthread_mutex_lock(&ld->mu);
    if (!wb.pixels || !wb.tmp) {
        fprintf(stderr, "train: loader worker out of memory\n");
        ld->failed = 1;
        pthread_cond_broadcast(&ld->ready_cv);
    }
    while (!ld->stop && !ld->failed) {
        int64_t index = ld->next_claim++;
        struct slot *s = &ld->slots[index % c->prefetch];
        while (!ld->stop && !ld->failed && !(s->state == SLOT_FREE && s->next == index))
            pthread_cond_wait(&ld->free_cv, &ld->mu);
        if (ld->stop || ld->failed)
            break;
        s->state = SLOT_FILLING;
        pthread_mutex_unlock(&ld->mu);
        int rc = fill(ld, &wb, &s->batch, index);
        pthread_mutex_lock(&ld->mu);
        if (rc != 0)
            ld->failed = 1;
        else
            s->state = SLOT_READY;
        pthread_cond_broadcast(&ld->ready_cv);
        if (ld->failed) /* other workers must stop too */
            pthread_cond_broadcast(&ld->free_cv);
    }
    pthread_mutex_unlock(&ld->mu);
    free(wb.pixels);
    free(wb.tmp);
    return NULL;
}

static void *plain_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    return malloc(bytes);
}

static void plain_release(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

int ps_loader_new(const struct ps_loader_config *cfg, struct ps_loader **out)
{
    int rc = 0;
    *out = NULL;
    if (cfg->count < 1 || cfg->batch < 1 || cfg->workers < 1 || cfg->prefetch < 1 ||
        cfg->out_w < 1 || cfg->out_h < 1 || cfg->out_w > cfg->img_w || cfg->out_h > cfg->img_h)
        return -EINVAL;
    if (cfg->zero_copy && (!cfg->cache || cfg->out_w != cfg->img_w || cfg->out_h != cfg->img_h ||
                           cfg->flip || cfg->noise > 0.0f || cfg->blur_passes > 0))
        return -EINVAL;
    struct ps_loader *ld = calloc(1, sizeof *ld);
    if (!ld)
        return -ENOMEM;
    ld->cfg = *cfg;
    if (!ld->cfg.alloc) {
        ld->cfg.alloc = plain_alloc;
        ld->cfg.release = plain_release;
    }
    pthread_mutex_init(&ld->mu, NULL);
    pthread_cond_init(&ld->ready_cv, NULL);
    pthread_cond_init(&ld->free_cv, NULL);
    ld->slots = calloc((size_t)cfg->prefetch, sizeof *ld->slots);
    ld->threads = calloc((size_t)cfg->workers, sizeof *ld->threads);
    if (cfg->cache)
        ld->cache = calloc((size_t)cfg->count, sizeof *ld->cache);
    if (!ld->slots || !ld->threads || (cfg->cache && !ld->cache)) {
        rc = -ENOMEM;
        goto out;
    }
    size_t xbytes = (size_t)cfg->batch * cfg->out_w * cfg->out_h * sizeof(float);
    for (int i = 0; i < cfg->prefetch; i++) {
        struct slot *s = &ld->slots[i];
        s->next = i;
        s->batch.labels = ld->cfg.alloc(ld->cfg.alloc_ctx, (size_t)cfg->batch * sizeof(int32_t));
        if (cfg->zero_copy)
            s->batch.images = calloc((size_t)cfg->batch, sizeof *s->batch.images);
        else
            s->batch.x = ld->cfg.alloc(ld->cfg.alloc_ctx, xbytes);
        if (!s->batch.labels || (!s->batch.x && !s->batch.images)) {
            rc = -ENOMEM;
            goto out;
        }
        if (s->batch.x) /* fault the pages in now, not inside the first steps */
            memset(s->batch.x, 0, xbytes);
    }
    if (cfg->cache) { /* an in-memory data set: decode it all before the first step */
        struct worker_buf wb = {.pixels = malloc((size_t)cfg->img_w * cfg->img_h)};
        int label;
        for (int i = 0; i < cfg->count && rc == 0; i++)
            if (!wb.pixels || !cached_image(ld, &wb, i, &label))
                rc = wb.pixels ? -EIO : -ENOMEM;
        free(wb.pixels);
        if (rc != 0)
            goto out;
    }
    for (int i = 0; i < cfg->workers; i++) {
        rc = -pthread_create(&ld->threads[i], NULL, worker_main, ld);
        if (rc != 0)
            goto out;
        ld->started++;
        char name[16];
        if (snprintf(name, sizeof name, "ps-loader-%d", i) < (int)sizeof name)
            pthread_setname_np(ld->threads[i], name);
    }
    *out = ld;
    return 0;
out:
    ps_loader_free(ld);
    return rc;
}

int ps_loader_next(struct ps_loader *ld, struct ps_batch **out)
{
    int rc = 0;
    pthread_mutex_lock(&ld->mu);
    struct slot *s = &ld->slots[ld->next_give % ld->cfg.prefetch];
    while (!ld->failed && !(s->state == SLOT_READY && s->batch.index == ld->next_give))
        pthread_cond_wait(&ld->ready_cv, &ld->mu);
    if (ld->failed) {
        rc = -EIO;
    } else {
        *out = &s->batch;
        ld->next_give++;
    }
    pthread_mutex_unlock(&ld->mu);
    return rc;
}

void ps_loader_release(struct ps_loader *ld, struct ps_batch *b)
{
    pthread_mutex_lock(&ld->mu);
    struct slot *s = &ld->slots[b->index % ld->cfg.prefetch];
    s->state = SLOT_FREE;
    s->next = b->index + ld->cfg.prefetch;
    pthread_cond_broadcast(&ld->free_cv);
    pthread_mutex_unlock(&ld->mu);
}

void ps_loader_free(struct ps_loader *ld)
{
    if (!ld)
        return;
    pthread_mutex_lock(&ld->mu);
    ld->stop = 1;
    pthread_cond_broadcast(&ld->free_cv);
    pthread_mutex_unlock(&ld->mu);
    for (int i = 0; i < ld->started; i++)
        pthread_join(ld->threads[i], NULL);
    if (ld->slots)
        for (int i = 0; i < ld->cfg.prefetch; i++) {
            if (ld->slots[i].batch.x)
                ld->cfg.release(ld->cfg.alloc_ctx, ld->slots[i].batch.x);
            if (ld->slots[i].batch.labels)
                ld->cfg.release(ld->cfg.alloc_ctx, ld->slots[i].batch.labels);
            free(ld->slots[i].batch.images);
        }
    if (ld->cache)
        for (int i = 0; i < ld->cfg.count; i++)
            free(ld->cache[i]);
    free(ld->cache);
    free(ld->slots);
    free(ld->threads);
    pthread_cond_destroy(&ld->ready_cv);
    pthread_cond_destroy(&ld->free_cv);
    pthread_mutex_destroy(&ld->mu);
    free(ld);
}
