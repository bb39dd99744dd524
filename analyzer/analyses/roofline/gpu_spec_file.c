/* `perfscope report --gpu-spec FILE`: GPU peaks from a JSON file (analyses/gpu_peaks.h, docs/gpu-peaks.md), in
 * perfscope's keys or TraceLens' spec-file keys (TraceLens/examples/gpu_arch_example.md: "name", "mem_bw_gbps",
 * "max_achievable_tflops"). Parsed with yajl's tree API; every bad key, type or value is refused by name. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_tree.h>

#include "analyses/gpu_peaks.h"
#include "ps_diag.h"

#define SPEC_MAX_BYTES (1 << 20)   /* a spec file lists a few GPUs: a bigger file is not one */

/* The file's bytes, NUL-terminated, into *out (caller frees). 0, -ENOENT / -EIO / -EINVAL (too big), -ENOMEM. */
static int slurp(const char *path, char **out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return ps_err(err, errlen, e == ENOENT ? -ENOENT : -EIO, "cannot open %s: %s", path, strerror(e));
    }
    char *buf = malloc(SPEC_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, SPEC_MAX_BYTES + 1, f) : 0;
    int bad = buf && ferror(f);
    fclose(f);
    if (!buf)
        return -ENOMEM;
    if (bad || n > SPEC_MAX_BYTES) {
        free(buf);
        return ps_err(err, errlen, bad ? -EIO : -EINVAL, bad ? "cannot read %s" : "%s: larger than 1 MiB: not a GPU "
                      "spec file", path);
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

static int positive(yajl_val v, double *x)
{
    if (!YAJL_IS_NUMBER(v) || !isfinite(YAJL_GET_DOUBLE(v)) || YAJL_GET_DOUBLE(v) <= 0)
        return 0;
    *x = YAJL_GET_DOUBLE(v);
    return 1;
}

/* "matrix_bf16": 989.4 and the like into g. 0 or -EINVAL (message names the key). */
static int read_peaks(struct ps_gpu_peak *g, yajl_val obj, const char *what, char *msg, size_t msglen)
{
    if (!YAJL_IS_OBJECT(obj))
        return ps_err(msg, msglen, -EINVAL, "%s must be an object of \"matrix_bf16\": TFLOPS and the like", what);
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *k = obj->u.object.keys[i];
        int matrix = !strncmp(k, "matrix_", 7), vector = !strncmp(k, "vector_", 7);
        enum ps_precision p;
        double x;
        if (!(matrix || vector) || !ps_precision_from_name(k + 7, strlen(k + 7), &p))
            return ps_err(msg, msglen, -EINVAL, "%s: unknown key \"%.40s\" (use matrix_ or vector_ with fp64, fp32, "
                          "tf32, bf16, fp16, fp8, int8 or fp4)", what, k);
        if (!positive(obj->u.object.values[i], &x))
            return ps_err(msg, msglen, -EINVAL, "%s.%s must be a positive number (TFLOPS)", what, k);
        (matrix ? g->matrix_tflops : g->vector_tflops)[p] = x;
    }
    return 0;
}

/* "match": a string or an array of at most PS_GPU_MATCH_MAX non-empty strings. */
static int read_match(struct ps_gpu_peak *g, yajl_val v, char *msg, size_t msglen)
{
    size_t n = YAJL_IS_ARRAY(v) ? v->u.array.len : 1;
    if (n == 0 || n > PS_GPU_MATCH_MAX)
        goto bad;
    memset(g->match, 0, sizeof g->match);
    for (size_t i = 0; i < n; i++) {
        yajl_val s = YAJL_IS_ARRAY(v) ? v->u.array.values[i] : v;
        if (!YAJL_IS_STRING(s) || !s->u.string[0] || strlen(s->u.string) >= sizeof g->match[0])
            goto bad;
        strcpy(g->match[i], s->u.string);
    }
    return 0;
bad:
    return ps_err(msg, msglen, -EINVAL, "\"match\" must be a device-name substring or a list of 1 to %d of them "
                  "(each under %zu characters; \"*\" matches any device)", PS_GPU_MATCH_MAX, sizeof g->match[0]);
}

/* The optional fallback keys: "compute_capability": "9.0", "sm_count": 132, "memory_gib": 80. */
static int read_props(struct ps_gpu_peak *g, const char *k, yajl_val v, char *msg, size_t msglen)
{
    double x;
    int maj, min, used;
    if (!strcmp(k, "compute_capability")) {
        if (YAJL_IS_STRING(v) && sscanf(v->u.string, "%d.%d%n", &maj, &min, &used) == 2 && !v->u.string[used] &&
            maj >= 0 && maj < 100 && min >= 0 && min < 100) {
            g->cc_major = maj;
            g->cc_minor = min;
            return 0;
        }
        return ps_err(msg, msglen, -EINVAL, "\"compute_capability\" must be a string like \"9.0\"");
    }
    if (!strcmp(k, "sm_count")) {
        if (positive(v, &x) && x == floor(x) && x < 100000) {
            g->sm_count = (int32_t)x;
            return 0;
        }
        return ps_err(msg, msglen, -EINVAL, "\"sm_count\" must be a positive integer");
    }
    if (positive(v, &x)) {   /* memory_gib */
        g->memory_gib = x;
        return 0;
    }
    return ps_err(msg, msglen, -EINVAL, "\"memory_gib\" must be a positive number");
}

/* The built-in GPU called `name` (case-insensitive), NULL when none. */
static const struct ps_gpu_peak *builtin_named(const char *name)
{
    const struct ps_gpu_peak *v;
    size_t n = ps_gpu_peaks_builtin(&v);
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(v[i].key, name))
            return &v[i];
    return NULL;
}

static int has_matrix_peak(const struct ps_gpu_peak *g)
{
    for (int p = 0; p < PS_PREC_N; p++)
        if (!isnan(g->matrix_tflops[p]))
            return 1;
    return 0;
}

/* One entry into *g. 0 or -EINVAL with the reason in msg. */
static int read_entry(struct ps_gpu_peak *g, yajl_val e, const char *path, char *msg, size_t msglen)
{
    const char *name_path[] = { "name", NULL };
    yajl_val name = YAJL_IS_OBJECT(e) ? yajl_tree_get(e, name_path, yajl_t_any) : NULL;
    if (!YAJL_IS_OBJECT(e) || !YAJL_IS_STRING(name) || !name->u.string[0] ||
        strlen(name->u.string) >= sizeof g->key)
        return ps_err(msg, msglen, -EINVAL, "must be an object with a \"name\" (a string of 1 to %zu characters)",
                      sizeof g->key - 1);
    const struct ps_gpu_peak *base = builtin_named(name->u.string);
    if (base) {
        *g = *base;
    } else {
        *g = (struct ps_gpu_peak){ .cc_major = -1, .cc_minor = -1, .sm_count = -1, .mem_gbps = NAN };
        for (int p = 0; p < PS_PREC_N; p++)
            g->matrix_tflops[p] = g->vector_tflops[p] = NAN;
        strcpy(g->match[0], name->u.string);
    }
    strcpy(g->key, name->u.string);
    snprintf(g->source, sizeof g->source, "%s", path);
    for (size_t i = 0; i < e->u.object.len; i++) {
        const char *k = e->u.object.keys[i];
        yajl_val v = e->u.object.values[i];
        int rc = 0;
        if (!strcmp(k, "name") || k[0] == '_')
            continue;                                  /* "_reference", "_comment": notes for people */
        if (!strcmp(k, "mem_bw_gbps")) {
            if (!positive(v, &g->mem_gbps))
                rc = ps_err(msg, msglen, -EINVAL, "\"mem_bw_gbps\" must be a positive number (GB/s)");
        } else if (!strcmp(k, "peak_tflops") || !strcmp(k, "max_achievable_tflops")) {
            rc = read_peaks(g, v, k, msg, msglen);
        } else if (!strcmp(k, "match")) {
            rc = read_match(g, v, msg, msglen);
        } else if (!strcmp(k, "compute_capability") || !strcmp(k, "sm_count") || !strcmp(k, "memory_gib")) {
            rc = read_props(g, k, v, msg, msglen);
        } else {
            rc = ps_err(msg, msglen, -EINVAL, "unknown key \"%.40s\" (use name, match, mem_bw_gbps, peak_tflops, "
                        "max_achievable_tflops, compute_capability, sm_count, memory_gib)", k);
        }
        if (rc < 0)
            return rc;
    }
    if (!base && (isnan(g->mem_gbps) || !has_matrix_peak(g)))
        return ps_err(msg, msglen, -EINVAL, "\"%s\" is not a built-in GPU, so it needs \"mem_bw_gbps\" and at least "
                      "one \"matrix_*\" peak", g->key);
    return 0;
}

int ps_gpu_specs_load(struct ps_gpu_specs *s, const char *path, char *err, size_t errlen)
{
    char perr[256] = "", msg[320] = "";
    char *text = NULL;
    int rc = slurp(path, &text, err, errlen);
    if (rc < 0)
        return rc;
    yajl_val root = yajl_tree_parse(text, perr, sizeof perr);
    free(text);
    if (!root) {
        perr[strcspn(perr, "\n")] = '\0';
        return ps_err(err, errlen, -EINVAL, "%s: not JSON (%s)", path, perr[0] ? perr : "parse error");
    }
    const char *gpus_path[] = { "gpus", NULL };
    yajl_val list = YAJL_IS_OBJECT(root) ? yajl_tree_get(root, gpus_path, yajl_t_array) : NULL;
    if (!list)
        list = root;
    size_t n = YAJL_IS_ARRAY(list) ? list->u.array.len : 1;
    if (n == 0) {
        yajl_tree_free(root);
        return ps_err(err, errlen, -EINVAL, "%s: no GPU in the file", path);
    }
    struct ps_gpu_peak *v = realloc(s->v, (s->n + n) * sizeof *v);
    if (!v) {
        yajl_tree_free(root);
        return -ENOMEM;
    }
    s->v = v;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        yajl_val e = YAJL_IS_ARRAY(list) ? list->u.array.values[i] : list;
        if ((rc = read_entry(&v[s->n + i], e, path, msg, sizeof msg)) < 0)
            ps_err(err, errlen, rc, "%s: GPU entry %zu: %s", path, i + 1, msg);
    }
    if (rc == 0)
        s->n += n;
    yajl_tree_free(root);
    return rc;
}

void ps_gpu_specs_fini(struct ps_gpu_specs *s)
{
    free(s->v);
    *s = (struct ps_gpu_specs){ 0 };
}
