/* ps_mlp.h — the model the reference trainer trains: a two-layer perceptron (input -> hidden ReLU ->
 * class logits) with softmax cross-entropy and plain SGD, run through the ps_nn backend table. Each
 * call is one phase of a training step, so the trainer can put an NVTX range around it. */
#ifndef PS_MLP_H
#define PS_MLP_H

#include "ps_nn.h"

#include <stdint.h>

struct ps_mlp_config {
    int batch;       /* rows per step */
    int micro_batch; /* rows per forward/backward pass (gradient accumulation); divides batch */
    int in_h, in_w;  /* model input: in_h * in_w features */
    int full_h, full_w; /* uploaded images; larger than the input: a random window is cropped on
                         * the device each step */
    int hidden, classes;
    float lr;
    uint64_t seed;   /* weight initialisation */
};

struct ps_mlp {
    struct ps_nn *nn;
    struct ps_mlp_config cfg;
    float *w1, *b1, *w2, *b2;     /* device parameters: w1 [in, hidden], w2 [hidden, classes] */
    float *gw1, *gb1, *gw2, *gb2; /* device gradients */
    float *x_full;                /* device [batch, full_h*full_w] when cropping, else NULL */
    float *x, *h1, *logits, *dlogits, *dh1, *row_loss; /* device activations */
    int32_t *labels;              /* device [batch] */
    float *host_loss;             /* host [batch] (staging memory of the copy mode) */
    uint64_t crop_rng;            /* device-crop offsets */
};

/* Allocate and initialise (He-uniform weights from cfg->seed, zero biases; uploaded with H2D copies
 * counted in nn->stats). Returns 0, -EINVAL for inconsistent sizes, -ENOMEM, or a device error;
 * on failure everything allocated is released. */
int ps_mlp_init(struct ps_mlp *m, struct ps_nn *nn, const struct ps_mlp_config *cfg);

/* Elements of one uploaded input image (full_h * full_w). */
size_t ps_mlp_image_elems(const struct ps_mlp_config *cfg);

/* Phase h2d: copy one batch (x [batch, image elems], labels [batch]) to the device: 2 H2D copies. */
int ps_mlp_upload(struct ps_mlp *m, const float *x, const int32_t *labels);

/* Phase h2d, zero-copy loader: one H2D copy per image (images[batch], each image elems floats,
 * e.g. straight from the loader's cache), then the labels: batch + 1 H2D copies. */
int ps_mlp_upload_images(struct ps_mlp *m, const float *const *images, const int32_t *labels);

/* Phase forward: (device crop,) both layers and the loss per micro-batch; queues the D2H copy of the
 * per-row losses. */
int ps_mlp_forward(struct ps_mlp *m);

/* Phase backward: gradients of the mean loss, accumulated over micro-batches. */
int ps_mlp_backward(struct ps_mlp *m);

/* Phase optimizer: SGD on the 4 parameter tensors, then a device synchronise; *loss gets the mean
 * loss of the batch (computed in forward). */
int ps_mlp_optimize(struct ps_mlp *m, float *loss);

/* Release everything; safe on a zeroed or partly initialised model. */
void ps_mlp_fini(struct ps_mlp *m);

#endif
