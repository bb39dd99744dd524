/* PyTorch's per-op NVTX range text (torch.autograd.profiler.emit_nvtx(record_shapes=True), also in Nsight
 * Systems exports of runs profiled with --pytorch): op name and input sizes (nvtx_shapes.c). The text is made by
 * torch/csrc/profiler/util.cpp getNvtxStr:
 *   NAME[, seq = N][, op_id = N][, sizes = [[d0, d1, ...], [], ...]][, input_op_ids = [(id,nr), ...]]
 * each part optional and in that order; a non-tensor argument's sizes are "[]". Example:
 *   "aten::addmm, seq = 12, sizes = [[64], [32, 128], [128, 64], [], []]" */
#ifndef PS_NVTX_SHAPES_H
#define PS_NVTX_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#define PS_NVTX_MAX_INPUTS 16
#define PS_NVTX_MAX_DIMS 8

struct ps_nvtx_op {
    size_t name_len;               /* the op name: the text's first name_len bytes ("aten::addmm") */
    int64_t seq;                   /* ", seq = N"; -1 when absent */
    int64_t op_id;                 /* ", op_id = N"; 0 when absent */
    int has_sizes;                 /* ", sizes = [...]" present */
    size_t ninputs;                /* inputs listed (at most PS_NVTX_MAX_INPUTS kept) */
    int ndims[PS_NVTX_MAX_INPUTS]; /* 0: a non-tensor argument or a 0-dim tensor ("[]") */
    int64_t dims[PS_NVTX_MAX_INPUTS][PS_NVTX_MAX_DIMS];
    int truncated;                 /* more inputs or dimensions than kept (ninputs / ndims hold what fit) */
};

/* Parse range text `s` (NUL-terminated) into *op. Text without an emit_nvtx suffix is an op name with nothing
 * else (name_len = strlen). 0, or -EINVAL when a suffix is malformed (op then holds the name only): sizes that
 * are not a list of lists of non-negative integers, a seq or op_id that is not an integer, trailing bytes. */
int ps_nvtx_op_parse(const char *s, struct ps_nvtx_op *op);

/* The sizes as the PyTorch profiler's Kineto traces print "Input Dims" ("[[32, 64], [], [128, 64]]") into buf;
 * the length it needs (snprintf's rule), so buf may be cut when cap is too small. */
size_t ps_nvtx_op_dims_text(const struct ps_nvtx_op *op, char *buf, size_t cap);

#endif
