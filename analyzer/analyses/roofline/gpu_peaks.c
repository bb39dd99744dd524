/* The built-in GPU peak table and the match from a trace's device name (analyses/gpu_peaks.h). Every value and
 * its public source is listed in docs/gpu-peaks.md; change both together. Dense peaks: half of a vendor figure
 * given "with sparsity". */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "analyses/gpu_peaks.h"

const char *const ps_precision_name[PS_PREC_N] = { "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4" };

int ps_precision_from_name(const char *name, size_t len, enum ps_precision *prec)
{
    for (int p = 0; p < PS_PREC_N; p++)
        if (strlen(ps_precision_name[p]) == len && !memcmp(ps_precision_name[p], name, len)) {
            *prec = (enum ps_precision)p;
            return 1;
        }
    return 0;
}

#define N NAN
/* Peaks in ps_precision order: fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4. */
#define PEAKS(fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4) { fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4 }
#define SRC "docs/gpu-peaks.md"

static const struct ps_gpu_peak builtin[] = {
    { "H100 SXM", { "H100 80GB HBM3", "H100 SXM" }, { "" }, 9, 0, 132, 80, 3350,
      PEAKS(66.9, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9, N), PEAKS(33.5, 66.9, N, 133.8, 133.8, N, N, N), SRC },
    { "H100 PCIe", { "H100 PCIe" }, { "" }, 9, 0, 114, 80, 2000,
      PEAKS(51.2, 51.2, 378, 756.5, 756.5, 1513, 1513, N), PEAKS(25.6, 51.2, N, 102.4, 102.4, N, N, N), SRC },
    { "H100 NVL", { "H100 NVL" }, { "" }, 9, 0, 132, 94, 3900,
      PEAKS(60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, N), PEAKS(30, 60, N, 120, 120, N, N, N), SRC },
    { "H200 SXM", { "H200" }, { "H200 NVL" }, 9, 0, 132, 141, 4800,
      PEAKS(66.9, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9, N), PEAKS(33.5, 66.9, N, 133.8, 133.8, N, N, N), SRC },
    { "H200 NVL", { "H200 NVL" }, { "" }, 9, 0, 132, 141, 4800,
      PEAKS(60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, N), PEAKS(30, 60, N, 120, 120, N, N, N), SRC },
    { "A100 SXM4 80GB", { "A100-SXM4-80GB", "A100-SXM-80GB", "A100 80GB HBM2e" }, { "" }, 8, 0, 108, 80, 2039,
      PEAKS(19.5, 19.5, 156, 312, 312, N, 624, N), PEAKS(9.7, 19.5, N, 39, 78, N, N, N), SRC },
    { "A100 SXM4 40GB", { "A100-SXM4-40GB", "A100-PG509-200" }, { "" }, 8, 0, 108, 40, 1555,
      PEAKS(19.5, 19.5, 156, 312, 312, N, 624, N), PEAKS(9.7, 19.5, N, 39, 78, N, N, N), SRC },
    { "A100 PCIe 80GB", { "A100 80GB PCIe", "A100-PCIE-80GB" }, { "" }, 8, 0, 108, 80, 1935,
      PEAKS(19.5, 19.5, 156, 312, 312, N, 624, N), PEAKS(9.7, 19.5, N, 39, 78, N, N, N), SRC },
    { "A100 PCIe 40GB", { "A100-PCIE-40GB", "A100 40GB PCIe" }, { "" }, 8, 0, 108, 40, 1555,
      PEAKS(19.5, 19.5, 156, 312, 312, N, 624, N), PEAKS(9.7, 19.5, N, 39, 78, N, N, N), SRC },
    { "L40S", { "L40S" }, { "" }, 8, 9, 142, 48, 864,
      PEAKS(N, 91.6, 183, 362.05, 362.05, 733, 733, N), PEAKS(N, 91.6, N, N, N, N, N, N), SRC },
    { "B200", { "B200" }, { "GB200" }, 10, 0, 148, 180, 7700,
      PEAKS(37, 75, 1100, 2250, 2250, 4500, 4500, 9000), PEAKS(37, 75, N, N, N, N, N, N), SRC },
    { "V100 SXM2", { "V100-SXM2", "V100 SXM2", "V100-DGXS" }, { "" }, 7, 0, 80, 0, 900,
      PEAKS(7.8, 15.7, N, N, 125, N, N, N), PEAKS(7.8, 15.7, N, N, N, N, N, N), SRC },
    { "V100 PCIe", { "V100-PCIE", "V100 PCIe" }, { "" }, 7, 0, 80, 0, 900,
      PEAKS(7, 14, N, N, 112, N, N, N), PEAKS(7, 14, N, N, N, N, N, N), SRC },
    /* ROCm shows each of an MI250X's two GCDs as a device of its own (110 CUs, 64 GB): per-GCD halves */
    { "MI250X (one GCD)", { "MI250X" }, { "" }, 9, 0, 110, 64, 1638.4,
      PEAKS(47.85, 47.85, N, 191.5, 191.5, N, 191.5, N), PEAKS(23.95, 23.95, N, N, N, N, N, N), SRC },
    { "MI300X", { "MI300X" }, { "" }, 9, 4, 304, 192, 5300,
      PEAKS(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, N), PEAKS(81.7, 163.4, N, N, N, N, N, N), SRC },
    { "MI325X", { "MI325X" }, { "" }, 9, 4, 304, 256, 6000,
      PEAKS(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, N), PEAKS(81.7, 163.4, N, N, N, N, N, N), SRC },
};
#undef N

size_t ps_gpu_peaks_builtin(const struct ps_gpu_peak **v)
{
    *v = builtin;
    return sizeof builtin / sizeof builtin[0];
}

double ps_gpu_peak_tflops(const struct ps_gpu_peak *g, int matrix, enum ps_precision p)
{
    if (!g || (unsigned)p >= PS_PREC_N)
        return NAN;
    return matrix ? g->matrix_tflops[p] : g->vector_tflops[p];
}

/* Is `needle` (non-empty) in `hay`, ignoring ASCII case? */
static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; n && *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* The length of g's longest match substring in `name` (1 for "*"), 0 when none or an exclude is in it. */
static size_t name_score(const struct ps_gpu_peak *g, const char *name)
{
    size_t best = 0;
    for (size_t i = 0; i < sizeof g->exclude / sizeof g->exclude[0]; i++)
        if (g->exclude[i][0] && contains_nocase(name, g->exclude[i]))
            return 0;
    for (size_t i = 0; i < PS_GPU_MATCH_MAX; i++) {
        size_t len = strlen(g->match[i]);
        if (!strcmp(g->match[i], "*"))
            len = (size_t)1 << 20;   /* "*": this GPU for any device, over every name match */
        else if (!len || !contains_nocase(name, g->match[i]))
            continue;
        if (len > best)
            best = len;
    }
    return best;
}

/* By properties: same compute capability and SM/CU count, memory within 15 % when both are known. */
static int props_match(const struct ps_gpu_peak *g, int32_t cc_major, int32_t cc_minor, int32_t sm_count,
                       int64_t mem_bytes)
{
    if (cc_major < 0 || sm_count <= 0 || g->cc_major != cc_major || g->cc_minor != cc_minor ||
        g->sm_count != sm_count)
        return 0;
    if (mem_bytes <= 0 || g->memory_gib <= 0)
        return 1;
    double gib = (double)mem_bytes / (1024.0 * 1024 * 1024);
    return fabs(gib - g->memory_gib) <= 0.15 * g->memory_gib;
}

const struct ps_gpu_peak *ps_gpu_peak_match(const struct ps_gpu_specs *user, const char *name, int32_t cc_major,
                                            int32_t cc_minor, int32_t sm_count, int64_t mem_bytes,
                                            const char **how)
{
    const struct ps_gpu_peak *tables[2] = { user ? user->v : NULL, builtin };
    size_t lens[2] = { user ? user->n : 0, sizeof builtin / sizeof builtin[0] };
    const struct ps_gpu_peak *best = NULL;
    size_t best_len = 0;
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < lens[t]; i++) {
            size_t s = name_score(&tables[t][i], name ? name : "");
            if (s > best_len) {
                best = &tables[t][i];
                best_len = s;
            }
        }
    if (how)
        *how = best ? "name" : "none";
    for (int t = 0; !best && t < 2; t++)
        for (size_t i = 0; !best && i < lens[t]; i++)
            if (props_match(&tables[t][i], cc_major, cc_minor, sm_count, mem_bytes)) {
                best = &tables[t][i];
                if (how)
                    *how = "properties";
            }
    return best;
}
