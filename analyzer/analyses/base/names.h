/* Name classes of `perfscope report` (names.c): which string ids are steps, data-loading or copy ranges,
 * communication kernels, synchronising API calls; and the emit_nvtx suffix rule for grouping names. */
#ifndef PS_NAMES_H
#define PS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/report.h"

/* ---- name classes (names.c) ---- */
#define PS_NAME_STEP 0x01       /* matches --step-range */
#define PS_NAME_DATA 0x02       /* matches --data-range */
#define PS_NAME_COPY 0x04       /* matches --copy-range */
#define PS_NAME_NCCL 0x08       /* contains nccl or rccl, any case (DESIGN: communication kernel) */
#define PS_NAME_HTA_COMPUTE 0x10 /* HTA get_kernel_type == COMPUTATION */
#define PS_NAME_HTA_COMM 0x20   /* HTA get_kernel_type == COMMUNICATION */
#define PS_NAME_TB_COMM_OP 0x40 /* tb NcclOpNameSet / GlooOpNameSet host op */
#define PS_NAME_SYNC_API 0x80   /* a CUDA API call that blocks the host until the device catches up */
#define PS_NAME_ASYNC_API 0x100 /* an API name containing "Async" */
#define PS_NAME_TL_COMM 0x200   /* TraceLens' communication: contains nccl, rccl or cross_device_reduce, any case */
#define PS_NAME_ROCM_COPY 0x400 /* a ROCm copy kernel (__amd_rocclr_copyBuffer, ...): a copy, not compute */
#define PS_NAME_GRAPH_LAUNCH 0x4000 /* an API call replaying a CUDA / HIP graph (cudaGraphLaunch, cuGraphLaunch,
                                     * hipGraphLaunch; any _vNNNN / _ptsz suffix): its GPU ops are graph nodes */
#define PS_NAME_HOST_COMM 0x800 /* a host collective range: "<backend>:<op>" with backend gloo, nccl, mpi or ucc
                                 * (docs/python.md; Kineto's record_function names), or a wait below */
#define PS_NAME_HOST_COMM_WAIT 0x1000 /* the host blocked on a collective: "Work.wait", "Work.wait#<backend>:<op>",
                                       * "ddp:gradient_allreduce_wait" (docs/python.md) */
#define PS_NAME_DDP_ALLREDUCE 0x2000 /* "ddp:gradient_allreduce": DDP's allreduces from the first bucket's launch,
                                      * during backward, to the end of their wait (docs/distributed.md): no
                                      * Communication itself, and no function that computes */

struct ps_names;
/* Compile the three patterns (NULL: default), anchored as ^(RE)$, REG_EXTENDED | REG_ICASE.
 * Returns 0, -EINVAL with a message naming the option and regerror's text, or -ENOMEM. */
int ps_names_new(struct ps_names **out, const struct ps_model *m, const struct ps_report_opts *o,
                 char *err, size_t errlen);
void ps_names_free(struct ps_names *n);    /* NULL is a no-op */
/* The PS_NAME_* bits of string id `id` (computed once per id, then cached). The step / data / copy patterns
 * are matched against the name without a trailing emit_nvtx suffix (ps_names_base_len, report.h). */
unsigned ps_names_flags(struct ps_names *n, uint32_t id);
/* The group of string id `id`: the first id looked up whose name has the same base (ps_names_base_len), so
 * "aten::add, op_id = 5" and "aten::add, op_id = 9" aggregate as one evidence row. O(1) amortised; when memory
 * runs out each id is its own group. */
uint32_t ps_names_group(struct ps_names *n, uint32_t id);

#endif
