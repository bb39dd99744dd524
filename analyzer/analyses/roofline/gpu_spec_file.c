/* `perfscope report --gpu-spec FILE`: GPU peaks from a JSON file (analyses/gpu_peaks.h, docs/gpu-peaks.md), in
 * perfscope's keys or TraceLens' spec-file keys (TraceLens/examples/gpu_arch_example.md: "name", "mem_bw_gbps",
 * "max_achievable_tflops"). Parsed with yajl's tree API; every bad key, type or value is refused by name. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "analyses/gpu_peaks.h"
#include "ps_diag.h"
#include "ps_text_escape.h"

#define SPEC_MAX_BYTES (1 << 20)   /* a spec file lists a few GPUs: a bigger file is not one */

/* What a value of a spec file may be: a positive number that passes the JSON check can still be no GPU's (1e308
 * TFLOPS, 1e-320 GB/s), and it would put an infinite axis in the roofline chart and a 300-digit MFU in the report.
 * The bounds hold every real or announced accelerator with room to spare (docs/gpu-peaks.md "--gpu-spec FILE"). */
struct spec_range {
    double lo, hi;
    const char *range, *why;       /* the bounds as people read them; why they are the bounds */
};
static const struct spec_range tflops_range = {
    1e-3, 1e6, "0.001 to 1,000,000 TFLOPS",
    "a peak of a real or foreseeable accelerator: from 1 GFLOPS to 1 EFLOPS; the largest in the built-in table, "
    "B200 fp4, is 9,000"
};
static const struct spec_range bw_range = {
    1, 1e6, "1 to 1,000,000 GB/s",
    "device memory bandwidth: from 1 GB/s to 1 PB/s; the highest in the built-in table, B200, is 7,700"
};
static const struct spec_range mem_range = {
    1.0 / 16, 65536, "0.0625 to 65,536 GiB",
    "device memory: from 64 MiB to 64 TiB; the largest in the built-in table, MI325X, has 256"
};
static const struct spec_range sm_range = {
    1, 99999, "1 to 99,999", "SMs or CUs of one device; the most in the built-in table, MI300X, has 304"
};

/* The file's bytes, NUL-terminated, into *out (caller frees), how many into *len. 0, -ENOENT / -EIO / -EINVAL (too
 * big), -ENOMEM. */
static int slurp(const char *path, char **out, size_t *len, char *err, size_t errlen)
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
    *len = n;
    return 0;
}

static int positive(yajl_val v, double *x)
{
    if (!YAJL_IS_NUMBER(v) || !isfinite(YAJL_GET_DOUBLE(v)) || YAJL_GET_DOUBLE(v) <= 0)
        return 0;
    *x = YAJL_GET_DOUBLE(v);
    return 1;
}

/* A positive number `what` within r into *x: 0, or -EINVAL with the message naming `what`, the value and the range
 * (or, for a value that is no positive number, what it `must` be). */
static int in_range(yajl_val v, const struct spec_range *r, const char *what, const char *must, double *x, char *msg,
                    size_t msglen)
{
    double y;
    if (!positive(v, &y))
        return ps_err(msg, msglen, -EINVAL, "%s must be %s", what, must);
    if (y < r->lo || y > r->hi)
        return ps_err(msg, msglen, -EINVAL, "%s is %g, outside %s (%s): refused", what, y, r->range, r->why);
    *x = y;
    return 0;
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
        double x = 0;
        if (!(matrix || vector) || !ps_precision_from_name(k + 7, strlen(k + 7), &p))
            return ps_err(msg, msglen, -EINVAL, "%s: unknown key \"%.40s\" (use matrix_ or vector_ with fp64, fp32, "
                          "tf32, bf16, fp16, fp8, int8 or fp4)", what, k);
        char key[80];
        snprintf(key, sizeof key, "%s.%s", what, k);
        if (in_range(obj->u.object.values[i], &tflops_range, key, "a positive number (TFLOPS)", &x, msg, msglen) < 0)
            return -EINVAL;
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
    double x = 0;
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
        if (in_range(v, &sm_range, "\"sm_count\"", "a positive integer", &x, msg, msglen) < 0)
            return -EINVAL;
        if (x != floor(x))
            return ps_err(msg, msglen, -EINVAL, "\"sm_count\" must be a positive integer (%g is not)", x);
        g->sm_count = (int32_t)x;
        return 0;
    }
    if (in_range(v, &mem_range, "\"memory_gib\"", "a positive number (GiB)", &x, msg, msglen) < 0)
        return -EINVAL;
    g->memory_gib = x;
    return 0;
}

/* A string of the file (a key or a value) holding a NUL character (\u0000): yajl's tree keeps strings as C strings,
 * so "Z\u0000Y" would silently be the name "Z". Found with yajl's event parser, which gives each string's length;
 * `frames` follows the nesting to say which entry and key hold it. */
#define SCAN_DEPTH 8
struct scan_frame {
    int is_map;
    long index;                    /* arrays: the element being read */
    char key[48];                  /* maps: the key being read */
};
struct nul_scan {
    struct scan_frame frames[SCAN_DEPTH];
    int depth;
    int found;                     /* the string below holds a NUL */
    size_t entry;                  /* 1-based GPU entry of the string, 0 when not inside one */
    char key[48];                  /* the key of the innermost object around it */
    char shown[96];                /* the string, NUL as \u0000, cut */
    size_t before_nul;             /* bytes of shown before its first NUL: what a C string would hold */
};

static void scan_value(struct nul_scan *c)
{
    if (c->depth > 0 && c->depth <= SCAN_DEPTH && !c->frames[c->depth - 1].is_map)
        c->frames[c->depth - 1].index++;
}

static int scan_found(struct nul_scan *c, const unsigned char *str, size_t len, int is_key)
{
    if (!memchr(str, 0, len))
        return 1;
    c->found = 1;
    c->before_nul = (size_t)((const unsigned char *)memchr(str, 0, len) - str);
    size_t n = 0;   /* the string with each NUL written \u0000 and other bytes kept, at most 40 of them */
    for (size_t i = 0; i < len && i < 40 && n + 7 < sizeof c->shown; i++) {
        if (str[i])
            c->shown[n++] = (char)str[i];
        else
            n += (size_t)snprintf(c->shown + n, sizeof c->shown - n, "\\u0000");
    }
    c->shown[n] = '\0';
    if (len > 40)
        snprintf(c->shown + n, sizeof c->shown - n, "...");
    const int d = c->depth < SCAN_DEPTH ? c->depth : SCAN_DEPTH;
    if (d >= 1 && !c->frames[0].is_map)                              /* [ {entry}, ... ] */
        c->entry = (size_t)c->frames[0].index + 1;
    else if (d >= 2 && !strcmp(c->frames[0].key, "gpus") && !c->frames[1].is_map)   /* {"gpus": [...]} */
        c->entry = (size_t)c->frames[1].index + 1;
    else if (d >= 1)                                                  /* one entry, the object itself */
        c->entry = 1;
    c->key[0] = '\0';
    for (int i = d - 1; !is_key && i >= 0; i--)
        if (c->frames[i].is_map) {
            snprintf(c->key, sizeof c->key, "%s", c->frames[i].key);
            break;
        }
    return 0;   /* stops the parse */
}

static int scan_null(void *ctx)
{
    scan_value(ctx);
    return 1;
}

static int scan_bool(void *ctx, int b)
{
    (void)b;
    scan_value(ctx);
    return 1;
}

static int scan_number(void *ctx, const char *s, size_t len)
{
    (void)s, (void)len;
    scan_value(ctx);
    return 1;
}

static int scan_string(void *ctx, const unsigned char *str, size_t len)
{
    scan_value(ctx);
    return scan_found(ctx, str, len, 0);
}

static int scan_start(void *ctx, int is_map)
{
    struct nul_scan *c = ctx;
    scan_value(c);
    if (c->depth < SCAN_DEPTH)
        c->frames[c->depth] = (struct scan_frame){ .is_map = is_map, .index = -1 };
    c->depth++;
    return 1;
}

static int scan_start_map(void *ctx)
{
    return scan_start(ctx, 1);
}

static int scan_start_array(void *ctx)
{
    return scan_start(ctx, 0);
}

static int scan_key(void *ctx, const unsigned char *key, size_t len)
{
    struct nul_scan *c = ctx;
    if (c->depth > 0 && c->depth <= SCAN_DEPTH)
        snprintf(c->frames[c->depth - 1].key, sizeof c->frames[0].key, "%.*s", (int)len, (const char *)key);
    return scan_found(c, key, len, 1);
}

static int scan_end(void *ctx)
{
    ((struct nul_scan *)ctx)->depth--;
    return 1;
}

/* -EINVAL with the message (the file's name first) when a string of the JSON text[0..len) holds a NUL; 0 when none
 * does (a text yajl_tree_parse accepted). */
static int refuse_nul_strings(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    static const yajl_callbacks cb = {
        .yajl_null = scan_null, .yajl_boolean = scan_bool, .yajl_number = scan_number, .yajl_string = scan_string,
        .yajl_start_map = scan_start_map, .yajl_map_key = scan_key, .yajl_end_map = scan_end,
        .yajl_start_array = scan_start_array, .yajl_end_array = scan_end,
    };
    struct nul_scan c = { .depth = 0 };
    yajl_handle h = yajl_alloc(&cb, NULL, &c);
    if (!h)
        return -ENOMEM;
    if (yajl_parse(h, (const unsigned char *)text, len) == yajl_status_ok)
        yajl_complete_parse(h);
    yajl_free(h);
    if (!c.found)
        return 0;
    char shown[sizeof c.shown * 4];
    ps_text_escape(c.shown, shown, sizeof shown, NULL);
    char where[80] = "";
    if (c.entry)
        snprintf(where, sizeof where, "GPU entry %zu: ", c.entry);
    char raw[sizeof c.shown], cut[sizeof shown];   /* shown's bytes before the NUL (at most 40) */
    snprintf(raw, sizeof raw, "%.*s", (int)(c.before_nul < 40 ? c.before_nul : 40), c.shown);
    ps_text_escape(raw, cut, sizeof cut, NULL);
    if (c.key[0])
        snprintf(err, errlen, "%s: %s\"%s\" holds a NUL character (\\u0000): \"%s\" would be read as \"%s\": "
                 "refused", path, where, c.key, shown, cut);
    else
        snprintf(err, errlen, "%s: %sthe key \"%s\" holds a NUL character (\\u0000): refused", path, where, shown);
    return -EINVAL;
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
            rc = in_range(v, &bw_range, "\"mem_bw_gbps\"", "a positive number (GB/s)", &g->mem_gbps, msg, msglen);
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
    size_t len = 0;
    int rc = slurp(path, &text, &len, err, errlen);
    if (rc < 0)
        return rc;
    if (memchr(text, 0, len)) {   /* yajl_tree_parse would stop there and read what comes before */
        snprintf(err, errlen, "%s: a NUL byte at offset %zu: not a JSON text", path,
                 (size_t)((const char *)memchr(text, 0, len) - text));
        free(text);
        return -EINVAL;
    }
    yajl_val root = yajl_tree_parse(text, perr, sizeof perr);
    if (!root) {
        free(text);
        perr[strcspn(perr, "\n")] = '\0';
        return ps_err(err, errlen, -EINVAL, "%s: not JSON (%s)", path, perr[0] ? perr : "parse error");
    }
    rc = refuse_nul_strings(path, text, len, err, errlen);
    free(text);
    if (rc < 0) {
        yajl_tree_free(root);
        return rc;
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
