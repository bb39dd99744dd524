/* test_cuda_kernels.cpp — the CUDA backend's kernels (workloads/ps_nn_kernels.cuh) checked on a
 * machine without a GPU: compiled as plain C++ and run block by block with one host thread per CUDA
 * thread, __shared__ arrays shared by the block's threads and __syncthreads() a barrier, then compared
 * with naive references and the same hand values as the C backend's tests. Element-wise sizes span
 * several blocks so the index arithmetic across blocks is exercised too. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <vector>

namespace {
struct dim3_emu {
    unsigned x, y, z;
};
thread_local dim3_emu threadIdx, blockIdx;
dim3_emu blockDim;
pthread_barrier_t block_barrier;
} // namespace

/* CUDA's execution-space keywords, emulated: one block runs at a time, so function-level statics
 * are exactly the block's shared memory. */
#define __global__
#define __device__
#define __shared__ static
#define __syncthreads() pthread_barrier_wait(&block_barrier)
/* 4x4-thread GEMM tiles and 8-thread blocks instead of 32x32 and 256: the kernels take both as
 * parameters, and 1024 host threads per block would make this test take minutes. */
#define TILE 4
#define THREADS 8
#include "ps_nn_kernels.cuh"

namespace {
struct thread_arg {
    unsigned tx, ty, bx, by;
    const std::function<void()> *kernel;
};

void *thread_main(void *p)
{
    const thread_arg *a = static_cast<const thread_arg *>(p);
    threadIdx = {a->tx, a->ty, 0};
    blockIdx = {a->bx, a->by, 0};
    (*a->kernel)();
    return nullptr;
}

/* kernel<<<(gx, gy), (bx, by)>>>: each block's threads run concurrently, blocks one after another. */
int launch(unsigned gx, unsigned gy, unsigned bx, unsigned by, const std::function<void()> &kernel)
{
    blockDim = {bx, by, 1};
    unsigned n = bx * by;
    for (unsigned j = 0; j < gy; j++)
        for (unsigned i = 0; i < gx; i++) {
            std::vector<pthread_t> threads(n);
            std::vector<thread_arg> args(n);
            pthread_barrier_init(&block_barrier, nullptr, n);
            for (unsigned t = 0; t < n; t++) {
                args[t] = {t % bx, t / bx, i, j, &kernel};
                if (pthread_create(&threads[t], nullptr, thread_main, &args[t]) != 0) {
                    fprintf(stderr, "cannot start emulated CUDA thread %u\n", t);
                    exit(2);
                }
            }
            for (pthread_t &t : threads)
                pthread_join(t, nullptr);
            pthread_barrier_destroy(&block_barrier);
        }
    return 0;
}

int launch_1d(size_t n, const std::function<void()> &kernel)
{
    return launch((unsigned)((n + THREADS - 1) / THREADS), 1, THREADS, 1, kernel);
}

float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int check_gemm(int ta, int tb, int m, int n, int k, int acc)
{
    unsigned seed = (unsigned)(m * 131 + n * 7 + k);
    std::vector<float> a((size_t)m * k), b((size_t)k * n), c((size_t)m * n, 0.5f);
    for (float &v : a)
        v = frand(&seed);
    for (float &v : b)
        v = frand(&seed);
    launch((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE), TILE, TILE, [&] {
        if (ta)
            ps_gemm_tn(m, n, k, a.data(), b.data(), c.data(), acc);
        else if (tb)
            ps_gemm_nt(m, n, k, a.data(), b.data(), c.data(), acc);
        else
            ps_gemm_nn(m, n, k, a.data(), b.data(), c.data(), acc);
    });
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = acc ? 0.5 : 0.0;
            for (int q = 0; q < k; q++)
                want += (double)(ta ? a[(size_t)q * m + i] : a[(size_t)i * k + q]) *
                        (tb ? b[(size_t)j * k + q] : b[(size_t)q * n + j]);
            if (fabs(want - c[(size_t)i * n + j]) > 1e-5 * k + 1e-5) {
                fprintf(stderr, "gemm ta=%d tb=%d %dx%dx%d acc=%d: C[%d,%d]=%g want %g\n", ta, tb,
                        m, n, k, acc, i, j, c[(size_t)i * n + j], want);
                return 1;
            }
        }
    return 0;
}

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);            \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int check_elementwise()
{
    /* the same hand values as test_nn.c's elementwise and softmax cases */
    float y[6] = {1, -2, 0.5f, -1, 3, -0.25f}, b[3] = {0.5f, 1, -1};
    const float relu_want[6] = {1.5f, 0, 0, 0, 4, 0};
    launch_1d(6, [&] { ps_bias_relu(y, b, 2, 3, 1); });
    for (int i = 0; i < 6; i++)
        EXPECT(y[i] == relu_want[i]);
    float dy[6] = {1, 2, 3, 4, 5, 6};
    const float dy_want[6] = {1, 0, 0, 0, 5, 0};
    launch_1d(6, [&] { ps_relu_grad(dy, relu_want, 6); });
    for (int i = 0; i < 6; i++)
        EXPECT(dy[i] == dy_want[i]);
    const float m[6] = {1, 2, 3, 4, 5, 6};
    float cs[3] = {99, 99, 99};
    launch_1d(3, [&] { ps_col_sum(cs, m, 2, 3, 0); });
    EXPECT(cs[0] == 5 && cs[1] == 7 && cs[2] == 9);
    launch_1d(3, [&] { ps_col_sum(cs, m, 2, 3, 1); });
    EXPECT(cs[0] == 10 && cs[1] == 14 && cs[2] == 18);
    float z[4] = {2, 2, 2, 2}, d[4], loss;
    int label = 2;
    launch_1d(1, [&] { ps_softmax_ce(z, &label, 1, 4, 1.0f, d, &loss); });
    EXPECT(fabsf(loss - 1.3862944f) < 1e-6f && fabsf(d[0] - 0.25f) < 1e-6f &&
           fabsf(d[2] + 0.75f) < 1e-6f);
    float w[2] = {1, -1}, g[2] = {2, -4};
    launch_1d(2, [&] { ps_sgd(w, g, 2, 0.1f); });
    EXPECT(fabsf(w[0] - 0.8f) < 1e-7f && fabsf(w[1] + 0.6f) < 1e-7f);
    float src[24], dst[8];
    for (int i = 0; i < 2; i++)
        for (int yy = 0; yy < 3; yy++)
            for (int xx = 0; xx < 4; xx++)
                src[i * 12 + yy * 4 + xx] = (float)(100 * i + 10 * yy + xx);
    launch_1d(8, [&] { ps_crop(dst, src, 2, 3, 4, 1, 2, 2, 2); });
    /* 37 elements over 5 blocks of 8: w[i] = i - 0.5 * (2 i) = 0 everywhere, bias row r col c */
    std::vector<float> big_w(37), big_g(37), rows(5 * 7), bias(7);
    for (int i = 0; i < 37; i++)
        big_w[i] = (float)i, big_g[i] = (float)(2 * i);
    launch_1d(37, [&] { ps_sgd(big_w.data(), big_g.data(), 37, 0.5f); });
    for (int i = 0; i < 37; i++)
        EXPECT(big_w[i] == 0.0f);
    for (int i = 0; i < 35; i++)
        rows[i] = (float)(i / 7) * 10.0f; /* row r holds 10 r */
    for (int c = 0; c < 7; c++)
        bias[c] = (float)c;
    launch_1d(35, [&] { ps_bias_relu(rows.data(), bias.data(), 5, 7, 0); });
    for (int i = 0; i < 35; i++)
        EXPECT(rows[i] == (float)(i / 7) * 10.0f + (float)(i % 7));
    const float crop_want[8] = {12, 13, 22, 23, 112, 113, 122, 123};
    for (int i = 0; i < 8; i++)
        EXPECT(dst[i] == crop_want[i]);
    return 0;
}
} // namespace

int main()
{
    /* exact tiles, and partial tiles in every dimension (with TILE 4: 10 = 2 tiles + 2, 13 = 3 + 1) */
    static const int sizes[][3] = {{1, 1, 1}, {8, 8, 8}, {3, 5, 7}, {10, 9, 13}, {2, 17, 6}};
    for (const auto &s : sizes)
        for (int layout = 0; layout < 3; layout++)
            for (int acc = 0; acc < 2; acc++)
                if (check_gemm(layout == 1, layout == 2, s[0], s[1], s[2], acc) != 0)
                    return 1;
    return check_elementwise();
}
