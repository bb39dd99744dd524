/* ps_nn.c — backend-independent wrappers of the training library: they count every operation and
 * copy (the exact figures `train` prints, which the GPU check compares with the trace) and insert the
 * device synchronise after each kernel that the sync-bound scenario asks for. */
#include "ps_nn.h"

#include <errno.h>

const char *const ps_nn_kernel_names[PS_NN_K_COUNT] = {
    [PS_NN_K_GEMM_NN] = "ps_gemm_nn",       [PS_NN_K_GEMM_TN] = "ps_gemm_tn",
    [PS_NN_K_GEMM_NT] = "ps_gemm_nt",       [PS_NN_K_BIAS_RELU] = "ps_bias_relu",
    [PS_NN_K_RELU_GRAD] = "ps_relu_grad",   [PS_NN_K_COL_SUM] = "ps_col_sum",
    [PS_NN_K_SOFTMAX_CE] = "ps_softmax_ce", [PS_NN_K_SGD] = "ps_sgd",
    [PS_NN_K_CROP] = "ps_crop",
};

/* Count a kernel that ran (rc == 0) and apply the sync-bound policy. */
static int after_kernel(struct ps_nn *nn, enum ps_nn_kernel k, int rc)
{
    if (rc != 0)
        return rc;
    nn->stats.kernels[k]++;
    if (nn->sync_every_kernel)
        return ps_nn_sync(nn);
    return 0;
}

int ps_nn_h2d(struct ps_nn *nn, void *d_dst, const void *src, size_t bytes)
{
    int rc = nn->ops->h2d(nn, d_dst, src, bytes);
    if (rc == 0) {
        nn->stats.h2d_bytes += bytes;
        nn->stats.h2d_copies++;
    }
    return rc;
}

int ps_nn_d2h(struct ps_nn *nn, void *dst, const void *d_src, size_t bytes)
{
    int rc = nn->ops->d2h(nn, dst, d_src, bytes);
    if (rc == 0) {
        nn->stats.d2h_bytes += bytes;
        nn->stats.d2h_copies++;
    }
    return rc;
}

int ps_nn_gemm(struct ps_nn *nn, int ta, int tb, int m, int n, int k, const float *d_a,
               const float *d_b, float *d_c, int accumulate)
{
    if ((ta && tb) || m <= 0 || n <= 0 || k <= 0)
        return -EINVAL;
    enum ps_nn_kernel kind = ta ? PS_NN_K_GEMM_TN : tb ? PS_NN_K_GEMM_NT : PS_NN_K_GEMM_NN;
    return after_kernel(nn, kind, nn->ops->gemm(nn, ta, tb, m, n, k, d_a, d_b, d_c, accumulate));
}

int ps_nn_bias_relu(struct ps_nn *nn, float *d_y, const float *d_b, int rows, int cols, int relu)
{
    return after_kernel(nn, PS_NN_K_BIAS_RELU, nn->ops->bias_relu(nn, d_y, d_b, rows, cols, relu));
}

int ps_nn_relu_grad(struct ps_nn *nn, float *d_dy, const float *d_y, size_t n)
{
    return after_kernel(nn, PS_NN_K_RELU_GRAD, nn->ops->relu_grad(nn, d_dy, d_y, n));
}

int ps_nn_col_sum(struct ps_nn *nn, float *d_out, const float *d_x, int rows, int cols,
                  int accumulate)
{
    return after_kernel(nn, PS_NN_K_COL_SUM,
                        nn->ops->col_sum(nn, d_out, d_x, rows, cols, accumulate));
}

int ps_nn_softmax_ce(struct ps_nn *nn, const float *d_logits, const int32_t *d_labels, int rows,
                     int classes, float scale, float *d_dlogits, float *d_row_loss)
{
    return after_kernel(nn, PS_NN_K_SOFTMAX_CE,
                        nn->ops->softmax_ce(nn, d_logits, d_labels, rows, classes, scale,
                                            d_dlogits, d_row_loss));
}

int ps_nn_sgd(struct ps_nn *nn, float *d_w, const float *d_g, size_t n, float lr)
{
    return after_kernel(nn, PS_NN_K_SGD, nn->ops->sgd(nn, d_w, d_g, n, lr));
}

int ps_nn_crop(struct ps_nn *nn, float *d_dst, const float *d_src, int n, int h, int w, int y0,
               int x0, int ch, int cw)
{
    if (y0 < 0 || x0 < 0 || ch < 1 || cw < 1 || y0 + ch > h || x0 + cw > w)
        return -EINVAL;
    return after_kernel(nn, PS_NN_K_CROP,
                        nn->ops->crop(nn, d_dst, d_src, n, h, w, y0, x0, ch, cw));
}

int ps_nn_sync(struct ps_nn *nn)
{
    nn->stats.syncs++;
    return nn->ops->sync(nn);
}

uint64_t ps_nn_kernels_total(const struct ps_nn *nn)
{
    uint64_t total = 0;
    for (int k = 0; k < PS_NN_K_COUNT; k++)
        total += nn->stats.kernels[k];
    return total;
}

void ps_nn_close(struct ps_nn *nn)
{
    if (nn->ops && nn->ops->close)
        nn->ops->close(nn);
    nn->ops = NULL;
    nn->impl = NULL;
}
