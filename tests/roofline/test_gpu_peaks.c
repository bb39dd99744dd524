/* The GPU peak table (analyses/gpu_peaks.h): device names as the CUDA / HIP runtimes report them (Kineto's
 * deviceProperties name, nsys TARGET_INFO_GPU.name) to the right GPU, the property fallback for empty names, the
 * datasheet values (dense = the vendor's "with sparsity" figure / 2, docs/gpu-peaks.md), and --gpu-spec files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../cases.h"
#include "../check.h"
#include "analyses/gpu_peaks.h"

#define GIB (1024LL * 1024 * 1024)

static const char *key_of(const struct ps_gpu_specs *u, const char *name, int maj, int min, int sms, int64_t mem)
{
    const struct ps_gpu_peak *g = ps_gpu_peak_match(u, name, maj, min, sms, mem, NULL);
    return g ? g->key : "(none)";
}

static void device_names_match_their_gpu(void)
{
    static const char *const pairs[][2] = {
        { "NVIDIA H100 80GB HBM3", "H100 SXM" },   /* the shared h100_* Kineto traces */
        { "NVIDIA H100 PCIe", "H100 PCIe" },
        { "NVIDIA H100 NVL", "H100 NVL" },         /* longest substring: not "H100 ..." SXM */
        { "NVIDIA H200", "H200 SXM" },
        { "NVIDIA H200 NVL", "H200 NVL" },         /* excluded from H200 SXM */
        { "NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB" },
        { "NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB" },
        { "NVIDIA A100-PG509-200", "A100 SXM4 40GB" },   /* a shared trace: 108 SMs, 39.4 GiB */
        { "NVIDIA A100 80GB PCIe", "A100 PCIe 80GB" },
        { "NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB" },
        { "NVIDIA L40S", "L40S" },
        { "NVIDIA B200", "B200" },
        { "NVIDIA GB200", "(none)" },              /* not a B200: another board, no entry */
        { "Tesla V100-SXM2-32GB", "V100 SXM2" },
        { "Tesla V100-DGXS-32GB", "V100 SXM2" },
        { "AMD Instinct MI300X VF", "MI300X" },    /* SR-IOV virtual function (shared mi300_* traces) */
        { "AMD Instinct MI300X", "MI300X" },
        { "AMD Instinct MI325X", "MI325X" },
        { "AMD Instinct MI250X", "MI250X (one GCD)" },
        { "nvidia h100 80gb hbm3", "H100 SXM" },   /* case-insensitive */
        { "NVIDIA GeForce RTX 4090", "(none)" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        CHECK_STR(pairs[i][0], key_of(NULL, pairs[i][0], -1, -1, -1, -1), pairs[i][1]);
}

static void empty_name_falls_back_to_properties(void)
{
    const char *how = NULL;
    /* two shared MI300X vLLM traces: name "", gfx942 (9.4), 304 CUs, 191.5 GiB */
    const struct ps_gpu_peak *g = ps_gpu_peak_match(NULL, "", 9, 4, 304, (int64_t)(191.5 * GIB), &how);
    CHECK_STR("mi300x by properties", g ? g->key : "(none)", "MI300X");
    CHECK_STR(how, "properties");
    /* H100 SXM and H200 share 9.0 and 132 SMs: memory decides (79.2 GiB vs 139.8 GiB) */
    CHECK_STR(key_of(NULL, "", 9, 0, 132, (int64_t)(79.2 * GIB)), "H100 SXM");
    CHECK_STR(key_of(NULL, "", 9, 0, 132, (int64_t)(139.8 * GIB)), "H200 SXM");
    CHECK_STR(key_of(NULL, "", 9, 0, 132, (int64_t)(94 * GIB)), "H100 NVL");
    CHECK_STR("memory unlike any 9.0/132 entry", key_of(NULL, "", 9, 0, 132, 24 * GIB), "(none)");
    CHECK_STR("nothing known", key_of(NULL, NULL, -1, -1, -1, -1), "(none)");
    ps_gpu_peak_match(NULL, "NVIDIA H100 PCIe", -1, -1, -1, -1, &how);
    CHECK_STR(how, "name");
}

static void datasheet_values(void)
{
    const struct ps_gpu_peak *h = ps_gpu_peak_match(NULL, "NVIDIA H100 80GB HBM3", -1, -1, -1, -1, NULL);
    /* NVIDIA H100 datasheet, SXM: BF16 1,979 TFLOPS and FP8 3,958 "with sparsity"; FP64 Tensor Core 67; 3.35 TB/s */
    CHECK_NEAR("H100 bf16 dense", ps_gpu_peak_tflops(h, 1, PS_PREC_BF16), 1979.0 / 2, 0.2);
    CHECK_NEAR("H100 fp8 dense", ps_gpu_peak_tflops(h, 1, PS_PREC_FP8), 3958.0 / 2, 0.2);
    CHECK_NEAR("H100 fp64 tensor", ps_gpu_peak_tflops(h, 1, PS_PREC_FP64), 67, 0.2);
    CHECK_NEAR("H100 bandwidth", h->mem_gbps, 3350, 0);
    CHECK(isnan(ps_gpu_peak_tflops(h, 1, PS_PREC_FP4)), "H100 has no fp4");
    const struct ps_gpu_peak *a = ps_gpu_peak_match(NULL, "NVIDIA A100-SXM4-80GB", -1, -1, -1, -1, NULL);
    /* A100 datasheet: BF16 Tensor Core 312 (dense), TF32 156, 2,039 GB/s for the 80 GB SXM */
    CHECK_NEAR(ps_gpu_peak_tflops(a, 1, PS_PREC_BF16), 312, 0);
    CHECK_NEAR(ps_gpu_peak_tflops(a, 1, PS_PREC_TF32), 156, 0);
    CHECK_NEAR(a->mem_gbps, 2039, 0);
    const struct ps_gpu_peak *m = ps_gpu_peak_match(NULL, "AMD Instinct MI300X", -1, -1, -1, -1, NULL);
    /* AMD MI300X data sheet: FP16 1,307.4 dense, 5.3 TB/s */
    CHECK_NEAR(ps_gpu_peak_tflops(m, 1, PS_PREC_FP16), 1307.4, 0);
    CHECK_NEAR(m->mem_gbps, 5300, 0);
    CHECK(isnan(ps_gpu_peak_tflops(m, 1, (enum ps_precision)PS_PREC_N)), "unknown precision");
}

/* Write `text` to a temporary file; its path into path (PATH_MAX). */
static void write_tmp(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/ps_gpu_spec_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_EQ((long long)write(fd, text, strlen(text)), (long long)strlen(text));
        close(fd);
    }
}

static int load(struct ps_gpu_specs *s, const char *text, char *err, size_t errlen)
{
    char path[64];
    write_tmp(path, text);
    int rc = ps_gpu_specs_load(s, path, err, errlen);
    unlink(path);
    return rc;
}

static void spec_file_overrides_and_adds(void)
{
    struct ps_gpu_specs s = { 0 };
    char err[400] = "";
    /* an override of a built-in (only the bandwidth), a new GPU, and TraceLens' own spec-file keys */
    int rc = load(&s, "{\"gpus\": [{\"name\": \"h100 sxm\", \"mem_bw_gbps\": 3000},"
                      " {\"name\": \"RTX 4090\", \"mem_bw_gbps\": 1008, \"peak_tflops\": {\"matrix_bf16\": 165.2},"
                      "  \"match\": [\"GeForce RTX 4090\"]}]}", err, sizeof err);
    CHECK(rc == 0, "%s", err);
    CHECK_EQ(s.n, 2);
    const struct ps_gpu_peak *g = ps_gpu_peak_match(&s, "NVIDIA H100 80GB HBM3", -1, -1, -1, -1, NULL);
    CHECK_NEAR("overridden bandwidth", g ? g->mem_gbps : NAN, 3000, 0);
    CHECK_NEAR("kept built-in peak", g ? g->matrix_tflops[PS_PREC_BF16] : NAN, 989.4, 0);
    CHECK(g && strstr(g->source, "/tmp/ps_gpu_spec_"), "source is the file");
    g = ps_gpu_peak_match(&s, "NVIDIA GeForce RTX 4090", -1, -1, -1, -1, NULL);
    CHECK_NEAR("added GPU", g ? g->matrix_tflops[PS_PREC_BF16] : NAN, 165.2, 0);
    CHECK(g && isnan(g->matrix_tflops[PS_PREC_FP16]), "added GPU: unknown fp16");
    rc = load(&s, "{\"name\": \"MI300X\", \"mem_bw_gbps\": 5300, \"_reference\": \"measured\","
                  " \"max_achievable_tflops\": {\"matrix_bf16\": 708, \"vector_fp32\": 81}}", err, sizeof err);
    CHECK(rc == 0, "%s", err);
    g = ps_gpu_peak_match(&s, "AMD Instinct MI300X VF", -1, -1, -1, -1, NULL);
    CHECK_NEAR("TraceLens MAF", g ? g->matrix_tflops[PS_PREC_BF16] : NAN, 708, 0);
    CHECK_NEAR(g ? g->vector_tflops[PS_PREC_FP32] : NAN, 81, 0);
    rc = load(&s, "[{\"name\": \"lab card\", \"match\": \"*\", \"mem_bw_gbps\": 100, "
                  "\"peak_tflops\": {\"matrix_fp16\": 10}}]", err, sizeof err);
    CHECK(rc == 0, "%s", err);
    CHECK_STR("\"*\" wins over every name", key_of(&s, "NVIDIA H100 80GB HBM3", -1, -1, -1, -1), "lab card");
    ps_gpu_specs_fini(&s);
    CHECK(s.v == NULL && s.n == 0);
}

static void bad_spec_files_are_refused_by_name(void)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        { "{\"name\": \"H100 SXM\", \"mem_bw_gbps\": ", "not JSON" },
        { "{\"name\": \"H100 SXM\", \"mem_bw_gbps\": -3}", "\"mem_bw_gbps\" must be a positive number" },
        { "{\"name\": \"H100 SXM\", \"peak_tflops\": {\"matrix_bf17\": 1}}", "unknown key \"matrix_bf17\"" },
        { "{\"name\": \"H100 SXM\", \"peak_tflops\": {\"matrix_bf16\": \"fast\"}}", "matrix_bf16 must be a positive" },
        { "{\"name\": \"H100 SXM\", \"bandwidth\": 1}", "unknown key \"bandwidth\"" },
        { "{\"name\": \"my gpu\", \"mem_bw_gbps\": 100}", "needs \"mem_bw_gbps\" and at least one \"matrix_*\"" },
        { "{\"mem_bw_gbps\": 100}", "with a \"name\"" },
        { "[]", "no GPU in the file" },
        { "[{\"name\": \"H100 SXM\"}, 3]", "GPU entry 2: must be an object" },
        { "{\"name\": \"x\", \"match\": [], \"mem_bw_gbps\": 1, \"peak_tflops\": {\"matrix_fp16\": 1}}", "\"match\"" },
        { "{\"name\": \"H100 SXM\", \"compute_capability\": \"nine\"}", "like \"9.0\"" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ps_gpu_specs s = { 0 };
        char err[400] = "";
        int rc = load(&s, bad[i].text, err, sizeof err);
        CHECK_EQ(bad[i].text, rc, -EINVAL);
        CHECK(strstr(err, bad[i].says) != NULL, "'%s' says '%s'", bad[i].text, err);
        CHECK_EQ("nothing added", s.n, 0);
        ps_gpu_specs_fini(&s);
    }
    struct ps_gpu_specs s = { 0 };
    char err[400] = "";
    CHECK_EQ(ps_gpu_specs_load(&s, "/nonexistent/spec.json", err, sizeof err), -ENOENT);
    CHECK_CONTAINS(err, "cannot open /nonexistent/spec.json");
}

/* A positive number can still be no GPU's: 1e308 TFLOPS or 1e-320 GB/s put +inf on the HTML roofline's axis (its grid
 * loop then never ended) and a 1e-300 TFLOPS peak printed a 300-digit MFU. Each value of a spec file has a range
 * (gpu_spec_file.c, docs/gpu-peaks.md): its bounds are read, a value past one is refused by field, value and range. */
static void spec_values_outside_their_range_are_refused_by_field_value_and_range(void)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        { "{\"name\": \"H100 SXM\", \"peak_tflops\": {\"matrix_bf16\": 1e308}}",
          "peak_tflops.matrix_bf16 is 1e+308, outside 0.001 to 1,000,000 TFLOPS (a peak of a real or foreseeable" },
        { "{\"name\": \"H100 SXM\", \"max_achievable_tflops\": {\"vector_fp64\": 1e-300}}",
          "max_achievable_tflops.vector_fp64 is 1e-300, outside 0.001 to 1,000,000 TFLOPS" },
        { "{\"name\": \"H100 SXM\", \"peak_tflops\": {\"matrix_fp8\": 1000001}}", "is 1e+06, outside 0.001 to" },
        { "{\"name\": \"H100 SXM\", \"mem_bw_gbps\": 1e-320}",
          "\"mem_bw_gbps\" is 9.99989e-321, outside 1 to 1,000,000 GB/s (device memory bandwidth" },
        { "{\"name\": \"H100 SXM\", \"mem_bw_gbps\": 0.5}", "\"mem_bw_gbps\" is 0.5, outside 1 to 1,000,000 GB/s" },
        { "{\"name\": \"H100 SXM\", \"mem_bw_gbps\": 2e6}", "\"mem_bw_gbps\" is 2e+06, outside" },
        { "{\"name\": \"H100 SXM\", \"memory_gib\": 1e9}", "\"memory_gib\" is 1e+09, outside 0.0625 to 65,536 GiB" },
        { "{\"name\": \"H100 SXM\", \"memory_gib\": 0.01}", "\"memory_gib\" is 0.01, outside" },
        { "{\"name\": \"H100 SXM\", \"sm_count\": 100000}", "\"sm_count\" is 100000, outside 1 to 99,999" },
        { "{\"name\": \"H100 SXM\", \"sm_count\": 1.5}", "\"sm_count\" must be a positive integer (1.5 is not)" },
        { "[{\"name\": \"x\", \"mem_bw_gbps\": 100, \"peak_tflops\": {\"matrix_fp16\": 1}},"
          " {\"name\": \"y\", \"mem_bw_gbps\": 100, \"peak_tflops\": {\"matrix_fp16\": 1e7}}]",
          "GPU entry 2: peak_tflops.matrix_fp16 is 1e+07" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ps_gpu_specs s = { 0 };
        char err[600] = "";
        CHECK_EQ(bad[i].text, load(&s, bad[i].text, err, sizeof err), -EINVAL);
        CHECK(strstr(err, bad[i].says) != NULL, "'%s' says '%s'", bad[i].text, err);
        CHECK_EQ("nothing added", s.n, 0);
        ps_gpu_specs_fini(&s);
    }
    /* the bounds themselves are values a GPU may have */
    struct ps_gpu_specs s = { 0 };
    char err[600] = "";
    int rc = load(&s, "{\"name\": \"edge\", \"mem_bw_gbps\": 1, \"memory_gib\": 0.0625, \"sm_count\": 99999,"
                      " \"peak_tflops\": {\"matrix_fp4\": 1000000, \"vector_fp64\": 0.001}}", err, sizeof err);
    CHECK(rc == 0, "%s", err);
    rc = load(&s, "{\"name\": \"edge2\", \"mem_bw_gbps\": 1000000, \"memory_gib\": 65536,"
                  " \"peak_tflops\": {\"matrix_bf16\": 0.001}}", err, sizeof err);
    CHECK(rc == 0, "%s", err);
    CHECK_EQ(s.n, 2);
    ps_gpu_specs_fini(&s);
}

/* yajl's tree keeps strings as C strings: "Z\u0000Y" as a name was silently the GPU "Z". A string (or key) holding a
 * NUL is refused, naming the entry and the key and showing what it would have been read as; so is a NUL byte in the
 * file, before which yajl would stop reading. */
static void spec_strings_holding_a_nul_are_refused(void)
{
    static const struct {
        const char *text;
        size_t len;                 /* 0: strlen */
        const char *says;
    } bad[] = {
        { "{\"name\": \"Z\\u0000Y\", \"match\": \"*\", \"mem_bw_gbps\": 1000, \"peak_tflops\": {\"matrix_bf16\": 100}}", 0,
          "GPU entry 1: \"name\" holds a NUL character (\\u0000): \"Z\\u0000Y\" would be read as \"Z\": refused" },
        { "{\"gpus\": [{\"name\": \"H100 SXM\"}, {\"name\": \"x\", \"match\": [\"a\", \"b\\u0000\"]}]}", 0,
          "GPU entry 2: \"match\" holds a NUL character (\\u0000): \"b\\u0000\" would be read as \"b\"" },
        { "[{\"name\": \"H100 SXM\"}, {\"name\": \"H100 SXM\", \"mem_bw_gbps\\u0000x\": 5}]", 0,
          "GPU entry 2: the key \"mem_bw_gbps\\u0000x\" holds a NUL character" },
        { "{\"name\": \"H100 SXM\"}\0{\"name\": \"x\"}", 34, "a NUL byte at offset 20: not a JSON text" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ps_gpu_specs s = { 0 };
        char err[600] = "", path[] = "/tmp/ps_gpu_spec_nul_XXXXXX";
        int fd = mkstemp(path);
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        CHECK(fd >= 0 && write(fd, bad[i].text, len) == (ssize_t)len, "writing %s", path);
        if (fd >= 0)
            close(fd);
        CHECK_EQ(bad[i].says, ps_gpu_specs_load(&s, path, err, sizeof err), -EINVAL);
        CHECK(strstr(err, bad[i].says) != NULL, "case %zu says '%s'", i, err);
        CHECK_EQ("nothing added", s.n, 0);
        unlink(path);
        ps_gpu_specs_fini(&s);
    }
}

static const struct test_case cases[] = {
    { "device_names_match_their_gpu", .fn = device_names_match_their_gpu },
    { "empty_name_falls_back_to_properties", .fn = empty_name_falls_back_to_properties },
    { "datasheet_values", .fn = datasheet_values },
    { "spec_file_overrides_and_adds", .fn = spec_file_overrides_and_adds },
    { "bad_spec_files_are_refused_by_name", .fn = bad_spec_files_are_refused_by_name },
    { "spec_values_outside_their_range_are_refused_by_field_value_and_range",
      .fn = spec_values_outside_their_range_are_refused_by_field_value_and_range },
    { "spec_strings_holding_a_nul_are_refused", .fn = spec_strings_holding_a_nul_are_refused },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .all_when_none = 1 };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
