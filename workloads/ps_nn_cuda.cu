/* ps_nn_cuda.cu — the CUDA backend of the reference workloads' training library: a tiled
 * shared-memory GEMM, bias+ReLU, softmax cross-entropy, SGD and crop kernels on a compute stream,
 * host->device copies on a copy stream (pinned, asynchronous) or cudaMemcpy (pageable, synchronous). */
#include <cuda_runtime.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "ps_nn.h"
}

#include "ps_nn_kernels.cuh"

struct cuda_state {
    cudaStream_t compute; /* every kernel and the pinned D2H copies */
    cudaStream_t copy;    /* pinned H2D copies, ordered before later kernels by an event */
    cudaEvent_t copied;
};

/* Report a failed CUDA call (naming the operation) and turn it into -EIO. */
static int check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    fprintf(stderr, "train: CUDA %s failed: %s (%s)\n", what, cudaGetErrorString(err),
            cudaGetErrorName(err));
    return -EIO;
}

static struct cuda_state *st(struct ps_nn *nn) { return (struct cuda_state *)nn->impl; }

static unsigned blocks_for(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

static void *cu_alloc(struct ps_nn *nn, size_t bytes)
{
    (void)nn;
    void *p = NULL;
    return check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc") == 0 ? p : NULL;
}

static void cu_release(struct ps_nn *nn, void *p)
{
    (void)nn;
    if (p)
        check(cudaFree(p), "cudaFree");
}

static void *cu_host_alloc(struct ps_nn *nn, size_t bytes)
{
    if (nn->copy_mode == PS_NN_PAGEABLE)
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    return check(cudaMallocHost(&p, bytes ? bytes : 1), "cudaMallocHost") == 0 ? p : NULL;
}

static void cu_host_release(struct ps_nn *nn, void *p)
{
    if (nn->copy_mode == PS_NN_PAGEABLE)
        free(p);
    else if (p)
        check(cudaFreeHost(p), "cudaFreeHost");
}

static int cu_h2d(struct ps_nn *nn, void *dst, const void *src, size_t bytes)
{
    struct cuda_state *s = st(nn);
    if (nn->copy_mode == PS_NN_PAGEABLE) /* synchronous: no overlap with anything */
        return check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    int rc = check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s->copy),
                   "cudaMemcpyAsync H2D");
    if (rc == 0)
        rc = check(cudaEventRecord(s->copied, s->copy), "cudaEventRecord");
    if (rc == 0)
        rc = check(cudaStreamWaitEvent(s->compute, s->copied, 0), "cudaStreamWaitEvent");
    return rc;
}

static int cu_d2h(struct ps_nn *nn, void *dst, const void *src, size_t bytes)
{
    if (nn->copy_mode == PS_NN_PAGEABLE)
        return check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st(nn)->compute),
                 "cudaMemcpyAsync D2H");
}

static int launched(const char *kernel) { return check(cudaGetLastError(), kernel); }

static int cu_gemm(struct ps_nn *nn, int ta, int tb, int m, int n, int k, const float *a,
                   const float *b, float *c, int accumulate)
{
    dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE)), block(TILE, TILE);
    cudaStream_t s = st(nn)->compute;
    if (ta) {
        ps_gemm_tn<<<grid, block, 0, s>>>(m, n, k, a, b, c, accumulate);
        return launched("launch of ps_gemm_tn");
    }
    if (tb) {
        ps_gemm_nt<<<grid, block, 0, s>>>(m, n, k, a, b, c, accumulate);
        return launched("launch of ps_gemm_nt");
    }
    ps_gemm_nn<<<grid, block, 0, s>>>(m, n, k, a, b, c, accumulate);
    return launched("launch of ps_gemm_nn");
}

static int cu_bias_relu(struct ps_nn *nn, float *y, const float *b, int rows, int cols, int relu)
{
    ps_bias_relu<<<blocks_for((size_t)rows * cols), THREADS, 0, st(nn)->compute>>>(y, b, rows,
                                                                                    cols, relu);
    return launched("launch of ps_bias_relu");
}

static int cu_relu_grad(struct ps_nn *nn, float *dy, const float *y, size_t n)
{
    ps_relu_grad<<<blocks_for(n), THREADS, 0, st(nn)->compute>>>(dy, y, n);
    return launched("launch of ps_relu_grad");
}

static int cu_col_sum(struct ps_nn *nn, float *out, const float *x, int rows, int cols,
                      int accumulate)
{
    ps_col_sum<<<blocks_for((size_t)cols), THREADS, 0, st(nn)->compute>>>(out, x, rows, cols,
                                                                           accumulate);
    return launched("launch of ps_col_sum");
}

static int cu_softmax_ce(struct ps_nn *nn, const float *logits, const int32_t *labels, int rows,
                         int classes, float scale, float *dlogits, float *row_loss)
{
    ps_softmax_ce<<<blocks_for((size_t)rows), THREADS, 0, st(nn)->compute>>>(
        logits, (const int *)labels, rows, classes, scale, dlogits, row_loss);
    return launched("launch of ps_softmax_ce");
}

static int cu_sgd(struct ps_nn *nn, float *w, const float *g, size_t n, float lr)
{
    ps_sgd<<<blocks_for(n), THREADS, 0, st(nn)->compute>>>(w, g, n, lr);
    return launched("launch of ps_sgd");
}

static int cu_crop(struct ps_nn *nn, float *dst, const float *src, int n, int h, int w, int y0,
                   int x0, int ch, int cw)
{
    ps_crop<<<blocks_for((size_t)n * ch * cw), THREADS, 0, st(nn)->compute>>>(dst, src, n, h, w,
                                                                               y0, x0, ch, cw);
    return launched("launch of ps_crop");
}

static int cu_sync(struct ps_nn *nn)
{
    (void)nn;
    return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static void cu_close(struct ps_nn *nn)
{
    struct cuda_state *s = st(nn);
    if (!s)
        return;
    if (s->copied)
        cudaEventDestroy(s->copied);
    if (s->copy)
        cudaStreamDestroy(s->copy);
    if (s->compute)
        cudaStreamDestroy(s->compute);
    free(s);
}

static const struct ps_nn_ops cuda_ops = {
    "cuda",        cu_alloc,   cu_release,    cu_host_alloc, cu_host_release,
    cu_h2d,        cu_d2h,     cu_gemm,       cu_bias_relu,  cu_relu_grad,
    cu_col_sum,    cu_softmax_ce, cu_sgd,     cu_crop,       cu_sync,
    cu_close,
};

extern "C" int ps_nn_open_cuda(struct ps_nn *nn, enum ps_nn_copy_mode mode, char *why,
                               size_t why_len)
{
    memset(nn, 0, sizeof *nn);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        snprintf(why, why_len, "no CUDA device (cudaGetDeviceCount: %s)",
                 err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return -ENODEV;
    }
    cudaDeviceProp prop;
    struct cuda_state *s = (struct cuda_state *)calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    err = cudaSetDevice(0);
    if (err == cudaSuccess)
        err = cudaGetDeviceProperties(&prop, 0);
    /* The compute stream is a blocking stream: it synchronises with the legacy default stream,
     * on which the pageable cudaMemcpy runs, so kernels never start before a pageable H2D's DMA
     * has finished (cudaMemcpy from pageable memory may return before it has: CUDA Runtime API,
     * "API synchronization behavior"). */
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&s->compute, cudaStreamDefault);
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking);
    if (err == cudaSuccess)
        err = cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming);
    if (err != cudaSuccess) {
        snprintf(why, why_len, "CUDA device 0 unusable: %s", cudaGetErrorString(err));
        nn->impl = s;
        cu_close(nn);
        nn->impl = NULL;
        return -ENODEV;
    }
    snprintf(why, why_len, "device 0: %s, sm_%d%d, %d device(s)", prop.name, prop.major,
             prop.minor, count);
    nn->ops = &cuda_ops;
    nn->impl = s;
    nn->copy_mode = mode;
    return 0;
}
