/* A CUDA program with known GPU work, for the GPU capture check: 10 launches of `scale`, one 1 MiB H2D copy
 * from pageable memory, one 1 MiB D2H copy into pinned memory, one 1 MiB memset, a device synchronise.
 * Exits 77 (ctest's skip code) when there is no CUDA device, 1 on a CUDA error. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
        fprintf(stderr, "cuda_kernels: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

int main(void)
{
    const int n = 1 << 18;              /* 1 MiB of floats */
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    float *host = (float *)calloc(n, sizeof(float)), *pinned = NULL, *dev = NULL;
    CK(cudaMallocHost(&pinned, n * sizeof(float)));
    CK(cudaMalloc(&dev, n * sizeof(float)));
    nvtxRangePushA("gpu_work");
    CK(cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dev, 0, n * sizeof(float)));
    for (int i = 0; i < 10; i++)
        scale<<<(n + 255) / 256, 256>>>(dev, 2.0f, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(pinned, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaDeviceSynchronize());
    nvtxRangePop();
    printf("kernels=10 h2d_bytes=%d d2h_bytes=%d memset_bytes=%d\n", n * 4, n * 4, n * 4);
    CK(cudaFree(dev));
    CK(cudaFreeHost(pinned));
    free(host);
    return 0;
}
