/* ps_nn_nocuda.c — the CUDA entry point of the training library in builds without nvcc: it reports
 * that this build has no CUDA backend, so `train --backend auto` falls back to the C backend. */
#include "ps_nn.h"

#include <errno.h>
#include <stdio.h>

int ps_nn_open_cuda(struct ps_nn *nn, enum ps_nn_copy_mode mode, char *why, size_t why_len)
{
    (void)nn;
    (void)mode;
    snprintf(why, why_len, "this build has no CUDA backend (nvcc was not found at configure time)");
    return -ENOSYS;
}
