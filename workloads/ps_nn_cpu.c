/* ps_nn_cpu.c — the plain C backend of the training library: the CPU is the "device", device buffers
 * are host memory, kernels are blocked loops (built with -O3 so the inner loops vectorise), copies are
 * memcpy. Pageable copies go through a bounce buffer, as the CUDA driver stages pageable memory. */
#include "ps_nn.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pageable H2D/D2H: the CUDA driver copies pageable memory through a pinned staging buffer in
 * chunks (CUDA Runtime API docs, "API synchronization behavior"); 2 MiB chunks model that path. */
#define BOUNCE_BYTES (2u << 20)

/* GEMM blocking: a KB x NB panel of B (256 x 512 floats = 512 KiB) stays in L2 while MB rows of
 * C (64 x 512 floats = 128 KiB) are updated; the innermost loop runs over a contiguous row. */
#define MB 64
#define KB 256
#define NB 512

struct cpu {
    float *scratch; /* B^T for gemm NT */
    size_t scratch_len;
    unsigned char *bounce;
};

static void *cpu_alloc(struct ps_nn *nn, size_t bytes)
{
    (void)nn;
    return malloc(bytes ? bytes : 1);
}

static void cpu_release(struct ps_nn *nn, void *p)
{
    (void)nn;
    free(p);
}

static int cpu_copy(struct ps_nn *nn, void *dst, const void *src, size_t bytes)
{
    struct cpu *c = nn->impl;
    if (nn->copy_mode == PS_NN_PINNED) {
        memcpy(dst, src, bytes);
        return 0;
    }
    for (size_t off = 0; off < bytes; off += BOUNCE_BYTES) {
        size_t len = bytes - off < BOUNCE_BYTES ? bytes - off : BOUNCE_BYTES;
        memcpy(c->bounce, (const unsigned char *)src + off, len);
        memcpy((unsigned char *)dst + off, c->bounce, len);
    }
    return 0;
}

/* C[m,n] += A[m,k] B[k,n] over the block rows i0..i1, k0..k1, j0..j1. */
static void gemm_nn_block(int n, int k, const float *restrict a, const float *restrict b,
                          float *restrict c, int i0, int i1, int k0, int k1, int j0, int j1)
{
    for (int i = i0; i < i1; i++) {
        float *restrict crow = c + (size_t)i * n;
        for (int kk = k0; kk < k1; kk++) {
            const float av = a[(size_t)i * k + kk];
            const float *restrict brow = b + (size_t)kk * n;
            for (int j = j0; j < j1; j++)
                crow[j] += av * brow[j];
        }
    }
}

/* C[m,n] += A^T B with A stored [k,m]. */
static void gemm_tn_block(int m, int n, const float *restrict a, const float *restrict b,
                          float *restrict c, int i0, int i1, int k0, int k1, int j0, int j1)
{
    for (int i = i0; i < i1; i++) {
        float *restrict crow = c + (size_t)i * n;
        for (int kk = k0; kk < k1; kk++) {
            const float av = a[(size_t)kk * m + i];
            const float *restrict brow = b + (size_t)kk * n;
            for (int j = j0; j < j1; j++)
                crow[j] += av * brow[j];
        }
    }
}

static int min_int(int a, int b) { return a < b ? a : b; }

static int cpu_gemm(struct ps_nn *nn, int ta, int tb, int m, int n, int k, const float *a,
                    const float *b, float *c, int accumulate)
{
    struct cpu *cs = nn->impl;
    if (tb) { /* C = A B^T: transpose B [n,k] into scratch [k,n], then the NN loops */
        size_t need = (size_t)n * k;
        if (need > cs->scratch_len) {
            float *p = realloc(cs->scratch, need * sizeof *p);
            if (!p)
                return -ENOMEM;
            cs->scratch = p;
            cs->scratch_len = need;
        }
        for (int j = 0; j < n; j++)
            for (int kk = 0; kk < k; kk++)
                cs->scratch[(size_t)kk * n + j] = b[(size_t)j * k + kk];
        b = cs->scratch;
    }
    if (!accumulate)
        memset(c, 0, (size_t)m * n * sizeof *c);
    for (int j0 = 0; j0 < n; j0 += NB)
        for (int k0 = 0; k0 < k; k0 += KB)
            for (int i0 = 0; i0 < m; i0 += MB) {
                int i1 = min_int(i0 + MB, m), k1 = min_int(k0 + KB, k), j1 = min_int(j0 + NB, n);
                if (ta)
                    gemm_tn_block(m, n, a, b, c, i0, i1, k0, k1, j0, j1);
                else
                    gemm_nn_block(n, k, a, b, c, i0, i1, k0, k1, j0, j1);
            }
    return 0;
}

static int cpu_bias_relu(struct ps_nn *nn, float *y, const float *b, int rows, int cols, int relu)
{
    (void)nn;
    for (int r = 0; r < rows; r++) {
        float *restrict row = y + (size_t)r * cols;
        for (int j = 0; j < cols; j++) {
            float v = row[j] + b[j];
            row[j] = relu && v < 0.0f ? 0.0f : v;
        }
    }
    return 0;
}

static int cpu_relu_grad(struct ps_nn *nn, float *dy, const float *y, size_t n)
{
    (void)nn;
    for (size_t i = 0; i < n; i++)
        if (!(y[i] > 0.0f))
            dy[i] = 0.0f;
    return 0;
}

static int cpu_col_sum(struct ps_nn *nn, float *out, const float *x, int rows, int cols,
                       int accumulate)
{
    (void)nn;
    if (!accumulate)
        memset(out, 0, (size_t)cols * sizeof *out);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            out[j] += x[(size_t)r * cols + j];
    return 0;
}

static int cpu_softmax_ce(struct ps_nn *nn, const float *logits, const int32_t *labels, int rows,
                          int classes, float scale, float *dlogits, float *row_loss)
{
    (void)nn;
    for (int r = 0; r < rows; r++) {
        const float *z = logits + (size_t)r * classes;
        float *dz = dlogits + (size_t)r * classes;
        float mx = z[0];
        for (int j = 1; j < classes; j++)
            mx = z[j] > mx ? z[j] : mx;
        double sum = 0.0;
        for (int j = 0; j < classes; j++)
            sum += exp((double)(z[j] - mx));
        int y = labels[r];
        row_loss[r] = (float)(log(sum) - (double)(z[y] - mx));
        for (int j = 0; j < classes; j++) {
            double p = exp((double)(z[j] - mx)) / sum;
            dz[j] = (float)((p - (j == y ? 1.0 : 0.0)) * scale);
        }
    }
    return 0;
}

static int cpu_sgd(struct ps_nn *nn, float *w, const float *g, size_t n, float lr)
{
    (void)nn;
    for (size_t i = 0; i < n; i++)
        w[i] -= lr * g[i];
    return 0;
}

static int cpu_crop(struct ps_nn *nn, float *dst, const float *src, int n, int h, int w, int y0,
                    int x0, int ch, int cw)
{
    (void)nn;
    for (int img = 0; img < n; img++)
        for (int y = 0; y < ch; y++)
            memcpy(dst + ((size_t)img * ch + y) * cw,
                   src + ((size_t)img * h + y0 + y) * w + x0, (size_t)cw * sizeof *dst);
    return 0;
}

static int cpu_sync(struct ps_nn *nn)
{
    (void)nn; /* every operation is synchronous */
    return 0;
}

static void cpu_close(struct ps_nn *nn)
{
    struct cpu *c = nn->impl;
    if (!c)
        return;
    free(c->scratch);
    free(c->bounce);
    free(c);
}

static const struct ps_nn_ops cpu_ops = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .release = cpu_release,
    .host_alloc = cpu_alloc,
    .host_release = cpu_release,
    .h2d = cpu_copy,
    .d2h = cpu_copy,
    .gemm = cpu_gemm,
    .bias_relu = cpu_bias_relu,
    .relu_grad = cpu_relu_grad,
    .col_sum = cpu_col_sum,
    .softmax_ce = cpu_softmax_ce,
    .sgd = cpu_sgd,
    .crop = cpu_crop,
    .sync = cpu_sync,
    .close = cpu_close,
};

int ps_nn_open_cpu(struct ps_nn *nn, enum ps_nn_copy_mode mode)
{
    memset(nn, 0, sizeof *nn);
    struct cpu *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->bounce = malloc(BOUNCE_BYTES);
    if (!c->bounce) {
        free(c);
        return -ENOMEM;
    }
    nn->ops = &cpu_ops;
    nn->impl = c;
    nn->copy_mode = mode;
    return 0;
}
