/* GPU peak throughput and memory bandwidth for rooflines and MFU (gpu_peaks.c, gpu_spec_file.c): a built-in table
 * of vendor datasheet peaks (every value's public source in docs/gpu-peaks.md), matched from the trace's device
 * name, and user spec files (`perfscope report --gpu-spec FILE`) that override or add GPUs. */
#ifndef PS_GPU_PEAKS_H
#define PS_GPU_PEAKS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Precisions of a peak, in TraceLens' "Compute Spec" spelling after "matrix_" / "vector_"
 * (TraceLens/PerfModel/perf_model.py): ps_precision_name[p] is "fp64", "fp32", ... */
enum ps_precision {
    PS_PREC_FP64, PS_PREC_FP32, PS_PREC_TF32, PS_PREC_BF16, PS_PREC_FP16, PS_PREC_FP8, PS_PREC_INT8, PS_PREC_FP4,
    PS_PREC_N
};
extern const char *const ps_precision_name[PS_PREC_N];
/* The precision named by name[0..len) ("bf16" -> PS_PREC_BF16; exact, lower case): 1 and *prec when it is one, 0
 * when not. Cannot fail. */
int ps_precision_from_name(const char *name, size_t len, enum ps_precision *prec);

#define PS_GPU_MATCH_MAX 4
/* One GPU's dense (no 2:4 sparsity) peaks. TFLOPS (TOPS for int8); NAN where the vendor publishes none. */
struct ps_gpu_peak {
    char key[32];                  /* "H100 SXM": the name reports show */
    char match[PS_GPU_MATCH_MAX][40];   /* substrings of the device name (case-insensitive); "" unused; "*": any */
    char exclude[2][16];           /* a device name holding one of these is not this GPU ("GB200" for B200) */
    int32_t cc_major, cc_minor;    /* compute capability (AMD: gfx9.4 -> 9, 4); -1 unknown */
    int32_t sm_count;              /* SMs (AMD: CUs) of the device as the runtime reports it; -1 unknown */
    double memory_gib;             /* device memory the runtime reports, GiB (for the fallback match); 0 unknown */
    double mem_gbps;               /* memory bandwidth, GB/s (1e9 bytes/s) */
    double matrix_tflops[PS_PREC_N];   /* tensor / matrix cores; fp32: FP32 CUDA cores where there is no fp32
                                        * matrix path (NVIDIA: an fp32 GEMM without TF32 runs there) */
    double vector_tflops[PS_PREC_N];   /* non-matrix (CUDA core / vector ALU) peaks */
    char source[PATH_MAX];         /* where the numbers come from: "docs/gpu-peaks.md" or the spec file (whole,
                                    * however long its path) */
};

/* GPUs from spec files, tried before the built-in table (ps_gpu_peaks_load). */
struct ps_gpu_specs {
    struct ps_gpu_peak *v;
    size_t n;
};

/* The built-in table (docs/gpu-peaks.md): *v points at it; returns its length. */
size_t ps_gpu_peaks_builtin(const struct ps_gpu_peak **v);

/* The GPU peaks for a device (docs/gpu-peaks.md "Matching"): the entry of `user` (may be NULL), then of the built-in
 * table, one of whose match substrings is in `name` (case-insensitive) and none of whose excludes is, the longest
 * substring winning ("H100 NVL" over "H100", user entries over built-in ones at equal length); an entry matching
 * "*" matches any device. With no name match (an empty or unknown name): the entry with the same compute
 * capability and SM/CU count whose memory is within 15 % of `mem_bytes` (H100 SXM and H200 differ only there).
 * cc_major, sm_count -1 and mem_bytes -1 when unknown. *how (may be NULL) gets "name", "properties" or "none".
 * A lookup that cannot fail: the entry (in `user` or the built-in table), NULL when nothing matches. */
const struct ps_gpu_peak *ps_gpu_peak_match(const struct ps_gpu_specs *user, const char *name, int32_t cc_major,
                                            int32_t cc_minor, int32_t sm_count, int64_t mem_bytes,
                                            const char **how);

/* The peak for matrix (matrix 1) or vector work in precision p, TFLOPS; NAN when the GPU has none published. */
double ps_gpu_peak_tflops(const struct ps_gpu_peak *g, int matrix, enum ps_precision p);

/* Read a spec file (docs/gpu-peaks.md "--gpu-spec"): a JSON object, or an array of them, or {"gpus": [...]}:
 *   {"name": "H100 SXM", "match": ["H100 80GB HBM3"], "mem_bw_gbps": 3350,
 *    "peak_tflops": {"matrix_bf16": 989.4, "vector_fp32": 66.9, ...}}
 * "max_achievable_tflops" is read as "peak_tflops" (TraceLens' spec files: TraceLens/examples/gpu_arch_example.md).
 * An entry whose name is a built-in key (case-insensitive) starts from that GPU and replaces the values it gives;
 * another entry is a new GPU and must give mem_bw_gbps and one matrix peak, and matches its "match" substrings
 * (default: its name). Appends to *s (ps_gpu_specs_fini frees). 0; -ENOENT / -EIO (the file), -EINVAL (not JSON, a
 * wrong key, type or value: the message names the file and the entry), -ENOMEM; *s unchanged on failure. */
int ps_gpu_specs_load(struct ps_gpu_specs *s, const char *path, char *err, size_t errlen);
void ps_gpu_specs_fini(struct ps_gpu_specs *s);

#endif
