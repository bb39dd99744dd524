/* ps_nn_kernels.cuh — the CUDA kernels of the training library's CUDA backend, kept apart from
 * the host code so that tests/workloads can also compile them as plain C++ and run them under a
 * thread-per-CUDA-thread emulation on machines without a GPU. Launch shapes: GEMM blocks of
 * TILE x TILE threads on a (ceil(n/TILE), ceil(m/TILE)) grid; the rest 1-D blocks of THREADS. */
#ifndef PS_NN_KERNELS_CUH
#define PS_NN_KERNELS_CUH

#include <stddef.h>

/* The emulation test compiles these with smaller values (fewer host threads); the code is written
 * for any positive values. */
#ifndef TILE
#define TILE 32     /* GEMM tile: TILE x TILE outputs per block, one per thread */
#endif
#ifndef THREADS
#define THREADS 256 /* element-wise kernels */
#endif

/* C[m,n] (+)= op(A) op(B), row-major; TA: A stored [k,m]; TB: B stored [n,k]. Each tile load is
 * arranged so that consecutive threads read consecutive addresses (coalesced) in both layouts. */
template <int TA, int TB>
__device__ void gemm_tiled(int m, int n, int k, const float *a, const float *b, float *c, int acc)
{
    __shared__ float as[TILE][TILE + 1]; /* as[row][kk]; +1 avoids shared-memory bank conflicts */
    __shared__ float bs[TILE][TILE + 1]; /* bs[kk][col] */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        if (TA) {
            int r = row0 + tx, kk = t + ty;
            as[tx][ty] = (r < m && kk < k) ? a[(size_t)kk * m + r] : 0.0f;
        } else {
            int r = row0 + ty, kk = t + tx;
            as[ty][tx] = (r < m && kk < k) ? a[(size_t)r * k + kk] : 0.0f;
        }
        if (TB) {
            int col = col0 + ty, kk = t + tx;
            bs[tx][ty] = (col < n && kk < k) ? b[(size_t)col * k + kk] : 0.0f;
        } else {
            int col = col0 + tx, kk = t + ty;
            bs[ty][tx] = (col < n && kk < k) ? b[(size_t)kk * n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int i = 0; i < TILE; i++)
            sum += as[ty][i] * bs[i][tx];
        __syncthreads();
    }
    int r = row0 + ty, col = col0 + tx;
    if (r < m && col < n) {
        float *out = c + (size_t)r * n + col;
        *out = acc ? *out + sum : sum;
    }
}

extern "C" __global__ void ps_gemm_nn(int m, int n, int k, const float *a, const float *b,
                                      float *c, int acc)
{
    gemm_tiled<0, 0>(m, n, k, a, b, c, acc);
}

extern "C" __global__ void ps_gemm_tn(int m, int n, int k, const float *a, const float *b,
                                      float *c, int acc)
{
    gemm_tiled<1, 0>(m, n, k, a, b, c, acc);
}

extern "C" __global__ void ps_gemm_nt(int m, int n, int k, const float *a, const float *b,
                                      float *c, int acc)
{
    gemm_tiled<0, 1>(m, n, k, a, b, c, acc);
}

extern "C" __global__ void ps_bias_relu(float *y, const float *b, int rows, int cols, int relu)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    float v = y[i] + b[i % cols];
    y[i] = relu && v < 0.0f ? 0.0f : v;
}

extern "C" __global__ void ps_relu_grad(float *dy, const float *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(y[i] > 0.0f))
        dy[i] = 0.0f;
}

/* One thread per column: consecutive threads read consecutive addresses of each row. */
extern "C" __global__ void ps_col_sum(float *out, const float *x, int rows, int cols, int acc)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols)
        return;
    float s = 0.0f;
    for (int r = 0; r < rows; r++)
        s += x[(size_t)r * cols + j];
    out[j] = acc ? out[j] + s : s;
}

/* One thread per row (the class count is small). */
extern "C" __global__ void ps_softmax_ce(const float *logits, const int *labels, int rows,
                                         int classes, float scale, float *dlogits, float *row_loss)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *z = logits + (size_t)r * classes;
    float *dz = dlogits + (size_t)r * classes;
    float mx = z[0];
    for (int j = 1; j < classes; j++)
        mx = fmaxf(mx, z[j]);
    float sum = 0.0f;
    for (int j = 0; j < classes; j++)
        sum += expf(z[j] - mx);
    int y = labels[r];
    row_loss[r] = logf(sum) - (z[y] - mx);
    for (int j = 0; j < classes; j++)
        dz[j] = (expf(z[j] - mx) / sum - (j == y ? 1.0f : 0.0f)) * scale;
}

extern "C" __global__ void ps_sgd(float *w, const float *g, size_t n, float lr)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] -= lr * g[i];
}

extern "C" __global__ void ps_crop(float *dst, const float *src, int n, int h, int w, int y0,
                                   int x0, int ch, int cw)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n * ch * cw)
        return;
    size_t img = i / ((size_t)ch * cw);
    int y = (int)(i / cw % ch), x = (int)(i % cw);
    dst[i] = src[(img * h + y0 + y) * w + x0 + x];
}

#endif
