/* ps_loader.h — the reference workloads' data loader: N worker threads read PSI1 files, decode them
 * and augment them (random crop, horizontal flip, Gaussian noise, optional blur passes) into batches
 * held in a prefetch queue of P slots, delivered to the training loop in order. */
#ifndef PS_LOADER_H
#define PS_LOADER_H

#include <stddef.h>
#include <stdint.h>

struct ps_loader_config {
    const char *set_dir;     /* data set directory (ps_dataset_ensure) */
    int count;               /* images in the set */
    int img_w, img_h;        /* stored image size; every file must match */
    int out_w, out_h;        /* size after the random crop (<= stored size) */
    int batch;               /* images per batch */
    int workers;             /* worker threads, >= 1 */
    int prefetch;            /* batches in flight (queue slots), >= 1 */
    uint64_t seed;           /* sampling and augmentation are deterministic in (seed, batch index) */
    int flip;                /* random horizontal flips */
    float noise;             /* std of additive Gaussian noise, in [0,1] pixel units; 0 = none */
    int blur_passes;         /* 3x3 box-blur passes after decoding (costly augmentation) */
    int cache;               /* an in-memory data set: every file is read and decoded once, by
                              * ps_loader_new */
    int zero_copy;           /* with cache and no augmentation (no crop, flip, noise, blur): hand
                              * out pointers to the cached images instead of collating a copy */
    /* Allocator for batch buffers (page-locked memory on CUDA with pinned copies); ctx is passed back. */
    void *(*alloc)(void *ctx, size_t bytes);
    void (*release)(void *ctx, void *ptr);
    void *alloc_ctx;
};

struct ps_batch {
    int64_t index;   /* 0, 1, 2, ... in delivery order */
    float *x;        /* [batch, out_h * out_w], pixel values in [0,1] plus noise; NULL with
                      * zero_copy */
    const float **images; /* zero_copy: [batch] pointers to out_h * out_w floats; else NULL */
    int32_t *labels; /* [batch] */
};

struct ps_loader;

/* Decode the whole set when cfg->cache, then start the workers. Returns 0 and *out, or -EINVAL
 * (bad config, or zero_copy without cache or with augmentation), -EIO (a file could not be read or
 * decoded: a message names it), -ENOMEM, -errno from pthread_create; nothing is left running on
 * failure. */
int ps_loader_new(const struct ps_loader_config *cfg, struct ps_loader **out);

/* Wait for the next batch in order (blocks while the workers are behind). Returns 0 and *out, or
 * -EIO when a worker failed (it printed which file and why). The batch stays valid until
 * ps_loader_release; release batches in the order they were returned. */
int ps_loader_next(struct ps_loader *ld, struct ps_batch **out);

/* Hand a batch's slot back to the workers. */
void ps_loader_release(struct ps_loader *ld, struct ps_batch *b);

/* Stop and join the workers, free the slots. NULL is a no-op. */
void ps_loader_free(struct ps_loader *ld);

#endif
