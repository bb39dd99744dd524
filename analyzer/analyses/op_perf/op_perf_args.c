/* The recorded shape arguments of a cpu_op read back as Python literals (the reader keeps them as Python prints
 * them), TraceLens' dtype tables (TraceLens/PerfModel/utils.py name2bpe, torch_dtype_map) and the model parameters
 * with the text TraceLens' CSVs print for them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op_perf_impl.h"

/* ---- Python literals as the reader keeps them (lists, ints, strings, None, True, False) ---- */

void tl_pv_fini(struct tl_pv *v)
{
    for (size_t k = 0; k < v->n; k++)
        tl_pv_fini(&v->items[k]);
    free(v->items);
    free(v->s);
    memset(v, 0, sizeof *v);
}

/* A quoted string's text from s (just past its opening quote q) up to its closing quote, escapes undone, into
 * out (NULL: only counted); *end (when not NULL): the closing quote, or the text's end when there is none. Returns
 * the number of characters. One walk for both the count and the copy, so the copy never passes the count. */
static size_t unquote(const char *s, char q, char *out, const char **end)
{
    size_t n = 0;
    while (*s && *s != q) {
        char c = *s;
        if (*s == '\\' && s[1]) {
            s++;
            c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
            if (*s == 'x' && s[1] && s[2]) {
                c = (char)strtol((char[]){ s[1], s[2], 0 }, NULL, 16);
                s += 2;
            }
        }
        if (out)
            out[n] = c;
        n++;
        s++;
    }
    if (end)
        *end = s;
    return n;
}

int tl_pv_parse(const char **p, struct tl_pv *v, int depth)
{
    const char *s = *p;
    memset(v, 0, sizeof *v);
    while (*s == ' ')
        s++;
    if (depth > 32)
        return -EINVAL;
    if (*s == '[' || *s == '{') {
        char close = *s == '[' ? ']' : '}';
        v->kind = *s == '[' ? TL_PV_LIST : TL_PV_OTHER;
        s++;
        size_t cap = 0;
        while (*s == ' ')
            s++;
        while (*s && *s != close) {
            if (v->n == cap) {
                cap = cap ? cap * 2 : 4;
                struct tl_pv *items = realloc(v->items, cap * sizeof *items);
                if (!items)
                    return -ENOMEM;
                v->items = items;
            }
            const char *q = s;
            int rc = tl_pv_parse(&q, &v->items[v->n], depth + 1);
            if (rc < 0) {
                tl_pv_fini(&v->items[v->n]);   /* the item is not counted in v->n: free what it holds */
                return rc;
            }
            v->n++;
            s = q;
            while (*s == ' ' || *s == ',' || *s == ':')
                s++;
        }
        if (*s != close)
            return -EINVAL;
        *p = s + 1;
        return 0;
    }
    if (*s == '\'' || *s == '"') {
        char q = *s++;
        size_t len = unquote(s, q, NULL, NULL);   /* the unescaped text's length: its exact room */
        if (!(v->s = malloc(len + 1)))
            return -ENOMEM;
        unquote(s, q, v->s, &s);
        v->s[len] = 0;
        v->kind = TL_PV_STR;
        *p = *s ? s + 1 : s;
        return 0;
    }
    char *end;
    long long x = strtoll(s, &end, 10);
    if (end != s && (*end == ',' || *end == ']' || *end == 0 || *end == ' ' || *end == '}')) {
        v->kind = TL_PV_INT, v->i = x;
        *p = end;
        return 0;
    }
    v->kind = strncmp(s, "None", 4) == 0 ? TL_PV_NONE : strncmp(s, "True", 4) == 0 || strncmp(s, "False", 5) == 0
                                                         ? TL_PV_BOOL : TL_PV_OTHER;
    v->i = strncmp(s, "True", 4) == 0;
    while (*s && *s != ',' && *s != ']' && *s != '}')
        s++;
    *p = s;
    return 0;
}


int tl_parse_arg(const struct ps_op_trace *t, uint32_t id, struct tl_pv *v, int *has)
{
    *has = id != PS_NONE;
    if (!*has)
        return 0;
    const char *p = ps_op_trace_str(t, id);
    int rc = tl_pv_parse(&p, v, 0);
    return rc < 0 ? rc : v->kind == TL_PV_LIST ? 0 : -EINVAL;
}

/* Item i of a list, or NULL (TraceLens: IndexError / KeyError). */
const struct tl_pv *tl_item(const struct tl_pv *l, int has, size_t i)
{
    return has && l->kind == TL_PV_LIST && i < l->n ? &l->items[i] : NULL;
}

/* A list of ints (a shape or strides): its length; -EINVAL when it is not one. */
int tl_ints(const struct tl_pv *v, int64_t *out, size_t max)
{
    if (!v || v->kind != TL_PV_LIST || v->n > max)
        return -EINVAL;
    for (size_t k = 0; k < v->n; k++) {
        if (v->items[k].kind != TL_PV_INT)
            return -EINVAL;
        out[k] = v->items[k].i;
    }
    return (int)v->n;
}

double tl_prod(const int64_t *x, int n)
{
    double p = 1;
    for (int k = 0; k < n; k++)
        p *= (double)x[k];
    return p;
}

const char *tl_str_at(const struct tl_pv *l, int has, size_t i)
{
    const struct tl_pv *v = tl_item(l, has, i);
    return v && v->kind == TL_PV_STR ? v->s : NULL;
}

/* A Python list's text as the tuple TraceLens' tables print ([[1], []] -> ((1,), ())); NULL text -> "None". */
void tl_tuple_text(struct tl_str *b, const char *s)
{
    int count[64], depth = 0, want = 0;
    if (!s) {
        tl_str_add(b, "None");
        return;
    }
    for (; *s; s++) {
        char ch = *s;
        if (want && ch != ' ' && ch != ']' && depth > 0 && depth <= 64) {
            count[depth - 1]++;
            want = 0;
        }
        if (ch == '\'' || ch == '"') {
            char q = ch;
            tl_str_addf(b, "%c", ch);
            for (s++; *s && *s != q; s++) {
                if (*s == '\\' && s[1])
                    tl_str_addf(b, "%c", *s++);
                tl_str_addf(b, "%c", *s);
            }
            if (*s)
                tl_str_addf(b, "%c", q);
            else
                s--;
            continue;
        }
        if (ch == '[') {
            if (depth < 64)
                count[depth] = 0;
            depth++;
            want = 1;
            tl_str_add(b, "(");
        } else if (ch == ']') {
            depth--;
            tl_str_add(b, depth >= 0 && depth < 64 && count[depth] == 1 ? ",)" : ")");
            want = 0;
        } else {
            if (ch == ',')
                want = 1;
            tl_str_addf(b, "%c", ch);
        }
    }
}

/* ---- dtypes (utils.py name2bpe, torch_dtype_map) ---- */
int tl_bpe(const char *dtype)
{
    static const struct { const char *n; int b; } map[] = {
        { "double", 8 }, { "long int", 8 }, { "float", 4 }, { "scalar", 4 }, { "int", 4 }, { "c10::half", 2 },
        { "c10::bfloat16", 2 }, { "c10::float8_e4m3fnuz", 1 }, { "c10::float8_e4m3fn", 1 },
        { "c10::float8_e5m2", 1 }, { "c10::float8_e8m0fnu", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
        { "fp8", 1 }, { "c10::float4_e2m1fn_x2", 1 }, { "fp4", 1 } };
    for (size_t k = 0; dtype && k < sizeof map / sizeof map[0]; k++)
        if (strcasecmp(dtype, map[k].n) == 0)
            return map[k].b;
    return 0;
}

const char *tl_precision(const char *dtype)
{
    static const struct { const char *n, *p; } map[] = {
        { "float", "fp32" }, { "double", "fp64" }, { "c10::half", "fp16" }, { "c10::bfloat16", "bf16" },
        { "c10::float8_e4m3fnuz", "fp8" }, { "unsigned char", "fp8" }, { "fp8", "fp8" },
        { "c10::float8_e4m3fn", "fp8" }, { "fp4", "fp4" }, { "mxfp4", "fp4" }, { "c10::float4_e2m1fn_x2", "fp4" } };
    for (size_t k = 0; dtype && k < sizeof map / sizeof map[0]; k++)
        if (strcasecmp(dtype, map[k].n) == 0)
            return map[k].p;
    return "";
}

/* ---- parameters ---- */
int tl_param(struct tl_call *c, const char *key, const char *repr, int is_str)
{
    if (c->np >= TL_MAX_PARAMS)
        return -E2BIG;   /* a model with more parameters than a call holds: not the input's fault */
    char *r = repr ? strdup(repr) : NULL;
    if (repr && !r)
        return -ENOMEM;
    c->p[c->np++] = (struct tl_param){ key, r, (uint8_t)is_str };
    return 0;
}

int tl_p_int(struct tl_call *c, const char *key, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    return tl_param(c, key, b, 0);
}

int tl_p_bool(struct tl_call *c, const char *key, int v)
{
    return tl_param(c, key, v ? "True" : "False", 0);
}

int tl_p_ints(struct tl_call *c, const char *key, const int64_t *x, int n)
{
    char b[512];
    size_t o = 0;
    if (n < 0)
        return tl_param(c, key, NULL, 0);
    o += (size_t)snprintf(b + o, sizeof b - o, "(");
    for (int k = 0; k < n && o < sizeof b; k++)
        o += (size_t)snprintf(b + o, sizeof b - o, "%s%lld", k ? ", " : "", (long long)x[k]);
    if (o < sizeof b)
        snprintf(b + o, sizeof b - o, n == 1 ? ",)" : ")");
    return tl_param(c, key, b, 0);
}

static void pyrepr_str(struct tl_str *b, const char *s)
{
    if (!s) {
        tl_str_add(b, "None");
        return;
    }
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    tl_str_addf(b, "%c", q);
    for (; *s; s++) {
        if (*s == '\\' || *s == q)
            tl_str_addf(b, "\\%c", *s);
        else if (*s == '\n')
            tl_str_add(b, "\\n");
        else if ((unsigned char)*s < 0x20)
            tl_str_addf(b, "\\x%02x", (unsigned char)*s);
        else
            tl_str_addf(b, "%c", *s);
    }
    tl_str_addf(b, "%c", q);
}

/* A tuple of dtype strings (NULL: None). */
int tl_p_strs(struct tl_call *c, const char *key, const char *const *s, int n)
{
    struct tl_str b = { 0 };
    tl_str_add(&b, "(");
    for (int k = 0; k < n; k++) {
        if (k)
            tl_str_add(&b, ", ");
        pyrepr_str(&b, s[k]);
    }
    tl_str_add(&b, n == 1 ? ",)" : ")");
    int rc = b.oom ? -ENOMEM : tl_param(c, key, b.s, 0);
    free(b.s);
    return rc;
}

int tl_p_float(struct tl_call *c, const char *key, double v)
{
    char b[40];
    tl_repr(v, b);
    return tl_param(c, key, b, 0);
}

void tl_call_fini(struct tl_call *c)
{
    for (int k = 0; k < c->np; k++)
        free(c->p[k].repr);
    memset(c, 0, sizeof *c);
}

int tl_params_dict(const struct tl_call *c, char **out)
{
    struct tl_str b = { 0 };
    tl_str_add(&b, "{");
    for (int p = 0; p < c->np; p++) {
        tl_str_addf(&b, "%s'%s': ", p ? ", " : "", c->p[p].key);
        if (!c->p[p].repr)
            tl_str_add(&b, "None");
        else if (c->p[p].is_str)
            tl_str_addf(&b, "'%s'", c->p[p].repr);
        else
            tl_str_add(&b, c->p[p].repr);
    }
    tl_str_add(&b, "}");
    return tl_str_take(&b, out);
}


int tl_eval_bool(const char *s, int *out)
{
    if (s && strcmp(s, "True") == 0)
        return *out = 1, 0;
    if (s && strcmp(s, "False") == 0)
        return *out = 0, 0;
    return -EINVAL;
}

