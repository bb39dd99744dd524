/* A CUDA program (static cudart) for the no-GPU record test: asks for the device count, opens two NVTX
 * ranges, prints what CUDA said and exits 3 (a status `record` must pass through). */
#include <stdio.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

int main(void)
{
    nvtxRangePushA("outer");
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    nvtxRangePushA("inner");
    nvtxRangePop();
    nvtxRangePop();
    printf("cuda_error=%d devices=%d\n", (int)e, n);
    return 3;
}
