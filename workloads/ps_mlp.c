/* ps_mlp.c — forward, backward and SGD of the reference trainer's two-layer perceptron, written
 * once against the ps_nn backend table (so the C and CUDA backends run the very same sequence of
 * kernels and copies, which is what `train` counts and prints). */
#include "ps_mlp.h"

#include "ps_rng.h"

#include <errno.h>
#include <math.h>
#include <string.h>

size_t ps_mlp_image_elems(const struct ps_mlp_config *c)
{
    return (size_t)c->full_h * c->full_w;
}

static int upload_init(struct ps_mlp *m, float *dst, size_t n, float bound, uint64_t stream)
{
    struct ps_nn *nn = m->nn;
    float *host = nn->ops->host_alloc(nn, n * sizeof *host);
    if (!host)
        return -ENOMEM;
    uint64_t rng = ps_rng_seed(m->cfg.seed, stream);
    for (size_t i = 0; i < n; i++)
        host[i] = bound > 0.0f ? (2.0f * ps_rng_unit(&rng) - 1.0f) * bound : 0.0f;
    int rc = ps_nn_h2d(nn, dst, host, n * sizeof *host);
    if (rc == 0)
        rc = ps_nn_sync(nn); /* the staging buffer is freed next */
    nn->ops->host_release(nn, host);
    return rc;
}

int ps_mlp_init(struct ps_mlp *m, struct ps_nn *nn, const struct ps_mlp_config *cfg)
{
    memset(m, 0, sizeof *m);
    m->nn = nn;
    m->cfg = *cfg;
    const struct ps_mlp_config *c = &m->cfg;
    if (c->batch < 1 || c->micro_batch < 1 || c->batch % c->micro_batch != 0 || c->in_h < 1 ||
        c->in_w < 1 || c->full_h < c->in_h || c->full_w < c->in_w || c->hidden < 1 ||
        c->classes < 2)
        return -EINVAL;
    size_t in = (size_t)c->in_h * c->in_w, b = (size_t)c->batch, h = (size_t)c->hidden,
           k = (size_t)c->classes;
    void *(*alloc)(struct ps_nn *, size_t) = nn->ops->alloc;
    int rc = -ENOMEM;
    m->w1 = alloc(nn, in * h * 4);
    m->b1 = alloc(nn, h * 4);
    m->w2 = alloc(nn, h * k * 4);
    m->b2 = alloc(nn, k * 4);
    m->gw1 = alloc(nn, in * h * 4);
    m->gb1 = alloc(nn, h * 4);
    m->gw2 = alloc(nn, h * k * 4);
    m->gb2 = alloc(nn, k * 4);
    m->x = alloc(nn, b * in * 4);
    m->h1 = alloc(nn, b * h * 4);
    m->dh1 = alloc(nn, b * h * 4);
    m->logits = alloc(nn, b * k * 4);
    m->dlogits = alloc(nn, b * k * 4);
    m->row_loss = alloc(nn, b * 4);
    m->labels = alloc(nn, b * 4);
    m->host_loss = nn->ops->host_alloc(nn, b * 4);
    int crop = c->full_h != c->in_h || c->full_w != c->in_w;
    m->crop_rng = ps_rng_seed(c->seed, 5);
    if (crop)
        m->x_full = alloc(nn, b * ps_mlp_image_elems(c) * 4);
    if (!m->w1 || !m->b1 || !m->w2 || !m->b2 || !m->gw1 || !m->gb1 || !m->gw2 || !m->gb2 ||
        !m->x || !m->h1 || !m->dh1 || !m->logits || !m->dlogits || !m->row_loss || !m->labels ||
        !m->host_loss || (crop && !m->x_full))
        goto out;
    /* He-uniform: U(-sqrt(6/fan_in), +sqrt(6/fan_in)) (He et al., ICCV 2015). */
    rc = upload_init(m, m->w1, in * h, sqrtf(6.0f / (float)in), 1);
    if (rc == 0)
        rc = upload_init(m, m->b1, h, 0.0f, 2);
    if (rc == 0)
        rc = upload_init(m, m->w2, h * k, sqrtf(6.0f / (float)h), 3);
    if (rc == 0)
        rc = upload_init(m, m->b2, k, 0.0f, 4);
out:
    if (rc != 0)
        ps_mlp_fini(m);
    return rc;
}

int ps_mlp_upload(struct ps_mlp *m, const float *x, const int32_t *labels)
{
    const struct ps_mlp_config *c = &m->cfg;
    float *dst = m->x_full ? m->x_full : m->x;
    int rc = ps_nn_h2d(m->nn, dst, x, (size_t)c->batch * ps_mlp_image_elems(c) * sizeof *x);
    if (rc == 0)
        rc = ps_nn_h2d(m->nn, m->labels, labels, (size_t)c->batch * sizeof *labels);
    return rc;
}

int ps_mlp_upload_images(struct ps_mlp *m, const float *const *images, const int32_t *labels)
{
    const struct ps_mlp_config *c = &m->cfg;
    size_t elems = ps_mlp_image_elems(c);
    float *dst = m->x_full ? m->x_full : m->x;
    int rc = 0;
    for (int i = 0; i < c->batch && rc == 0; i++)
        rc = ps_nn_h2d(m->nn, dst + elems * i, images[i], elems * sizeof *dst);
    if (rc == 0)
        rc = ps_nn_h2d(m->nn, m->labels, labels, (size_t)c->batch * sizeof *labels);
    return rc;
}

int ps_mlp_forward(struct ps_mlp *m)
{
    const struct ps_mlp_config *c = &m->cfg;
    struct ps_nn *nn = m->nn;
    int in = c->in_h * c->in_w, h = c->hidden, k = c->classes, mb = c->micro_batch, rc = 0;
    if (m->x_full)
        rc = ps_nn_crop(nn, m->x, m->x_full, c->batch, c->full_h, c->full_w,
                        ps_rng_below(&m->crop_rng, c->full_h - c->in_h + 1),
                        ps_rng_below(&m->crop_rng, c->full_w - c->in_w + 1), c->in_h, c->in_w);
    for (int r = 0; rc == 0 && r < c->batch; r += mb) {
        float *x = m->x + (size_t)r * in, *h1 = m->h1 + (size_t)r * h;
        float *logits = m->logits + (size_t)r * k;
        rc = ps_nn_gemm(nn, 0, 0, mb, h, in, x, m->w1, h1, 0);
        if (rc == 0)
            rc = ps_nn_bias_relu(nn, h1, m->b1, mb, h, 1);
        if (rc == 0)
            rc = ps_nn_gemm(nn, 0, 0, mb, k, h, h1, m->w2, logits, 0);
        if (rc == 0)
            rc = ps_nn_bias_relu(nn, logits, m->b2, mb, k, 0);
        if (rc == 0)
            rc = ps_nn_softmax_ce(nn, logits, m->labels + r, mb, k, 1.0f / (float)c->batch,
                                  m->dlogits + (size_t)r * k, m->row_loss + r);
    }
    if (rc == 0)
        rc = ps_nn_d2h(nn, m->host_loss, m->row_loss, (size_t)c->batch * sizeof *m->host_loss);
    return rc;
}

int ps_mlp_backward(struct ps_mlp *m)
{
    const struct ps_mlp_config *c = &m->cfg;
    struct ps_nn *nn = m->nn;
    int in = c->in_h * c->in_w, h = c->hidden, k = c->classes, mb = c->micro_batch, rc = 0;
    for (int r = 0; rc == 0 && r < c->batch; r += mb) {
        int acc = r > 0;
        const float *x = m->x + (size_t)r * in, *h1 = m->h1 + (size_t)r * h;
        const float *dlogits = m->dlogits + (size_t)r * k;
        float *dh1 = m->dh1 + (size_t)r * h;
        rc = ps_nn_gemm(nn, 1, 0, h, k, mb, h1, dlogits, m->gw2, acc); /* gW2 = H1^T dZ */
        if (rc == 0)
            rc = ps_nn_col_sum(nn, m->gb2, dlogits, mb, k, acc);
        if (rc == 0)
            rc = ps_nn_gemm(nn, 0, 1, mb, h, k, dlogits, m->w2, dh1, 0); /* dH1 = dZ W2^T */
        if (rc == 0)
            rc = ps_nn_relu_grad(nn, dh1, h1, (size_t)mb * h);
        if (rc == 0)
            rc = ps_nn_gemm(nn, 1, 0, in, h, mb, x, dh1, m->gw1, acc); /* gW1 = X^T dH1 */
        if (rc == 0)
            rc = ps_nn_col_sum(nn, m->gb1, dh1, mb, h, acc);
    }
    return rc;
}

int ps_mlp_optimize(struct ps_mlp *m, float *loss)
{
    const struct ps_mlp_config *c = &m->cfg;
    struct ps_nn *nn = m->nn;
    size_t in = (size_t)c->in_h * c->in_w, h = (size_t)c->hidden, k = (size_t)c->classes;
    int rc = ps_nn_sgd(nn, m->w1, m->gw1, in * h, c->lr);
    if (rc == 0)
        rc = ps_nn_sgd(nn, m->b1, m->gb1, h, c->lr);
    if (rc == 0)
        rc = ps_nn_sgd(nn, m->w2, m->gw2, h * k, c->lr);
    if (rc == 0)
        rc = ps_nn_sgd(nn, m->b2, m->gb2, k, c->lr);
    if (rc == 0)
        rc = ps_nn_sync(nn);
    if (rc != 0)
        return rc;
    double sum = 0.0;
    for (int r = 0; r < c->batch; r++)
        sum += m->host_loss[r];
    *loss = (float)(sum / c->batch);
    return 0;
}

void ps_mlp_fini(struct ps_mlp *m)
{
    struct ps_nn *nn = m->nn;
    if (!nn)
        return;
    float *dev[] = {m->w1, m->b1, m->w2, m->b2, m->gw1, m->gb1, m->gw2, m->gb2,
                    m->x_full, m->x, m->h1, m->logits, m->dlogits, m->dh1, m->row_loss};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        nn->ops->release(nn, dev[i]);
    nn->ops->release(nn, m->labels);
    nn->ops->host_release(nn, m->host_loss);
    memset(m, 0, sizeof *m);
}
