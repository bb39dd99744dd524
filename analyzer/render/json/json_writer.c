/* The JSON writer (json_writer.h) over yajl's generator. yajl prints through a callback, one piece per call:
 * a separator ("," or ":") alone, a container bracket alone, a number or literal whole, and a string as its
 * opening quote, its escaped body in pieces and its closing quote. The callback lays the pieces out; it knows a
 * string's body from the other pieces because the writer marks its string calls. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "ps_utf8.h"
#include "render/json_writer.h"

#define MAX_DEPTH 64

struct ps_jw {
    yajl_gen g;
    FILE *out;
    int failed;                    /* a generator error: no further calls */
    int in_string;                 /* inside a ps_jw string call: 1 before its opening quote, 2 after */
    int depth;
    char open[MAX_DEPTH];          /* '{' or '[' per depth (1: the root) */
    int pending;                   /* in an array of the root: 1 before its first element, 2 after a comma */
    char nest[MAX_DEPTH];          /* the containers the calls opened: yajl does not check that a close matches */
    int nnest;
};

static void put(struct ps_jw *w, const char *s, size_t len)
{
    fwrite(s, 1, len, w->out);
}

static void print_piece(void *ctx, const char *s, size_t len)
{
    struct ps_jw *w = ctx;
    if (w->in_string == 2) {       /* the string's body and closing quote, as yajl escaped them */
        put(w, s, len);
        return;
    }
    if (w->in_string == 1 && len == 1 && s[0] == '"')
        w->in_string = 2;
    char c = len == 1 ? s[0] : 0;
    if (w->pending && c != '}' && c != ']' && c != ',') {   /* an element of an array of the root */
        if (c == '{' || c == '[')
            put(w, "\n    ", 5);  /* objects each on a line */
        else if (w->pending == 2)
            put(w, " ", 1);        /* numbers and strings inline */
        w->pending = 0;
    }
    if (c == ',') {
        if (w->depth == 1)
            put(w, ",\n  ", 4);
        else if (w->depth == 2 && w->open[2] == '[')
            put(w, ",", 1), w->pending = 2;
        else
            put(w, ", ", 2);
    } else if (c == ':') {
        put(w, ": ", 2);
    } else if (c == '{' || c == '[') {
        put(w, s, 1);
        if (++w->depth < MAX_DEPTH)
            w->open[w->depth] = c;
        if (w->depth == 1)
            put(w, "\n  ", 3);
        else if (w->depth == 2 && c == '[')
            w->pending = 1;
    } else if (c == '}' || c == ']') {
        w->pending = 0;
        if (w->depth == 1)
            put(w, "\n", 1);
        put(w, s, 1);
        if (w->depth > 0)
            w->depth--;
    } else {
        put(w, s, len);
    }
}

struct ps_jw *ps_jw_new(FILE *out)
{
    struct ps_jw *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->out = out;
    if (!(w->g = yajl_gen_alloc(NULL))) {
        free(w);
        return NULL;
    }
    yajl_gen_config(w->g, yajl_gen_print_callback, print_piece, w);
    yajl_gen_config(w->g, yajl_gen_validate_utf8, 1);   /* a guard: strings are made valid before */
    return w;
}

int ps_jw_free(struct ps_jw *w)
{
    if (!w)
        return 0;
    int rc = 0;
    if (w->failed || w->nnest != 0)
        rc = -EINVAL;
    else
        fputc('\n', w->out);
    if (rc == 0 && ferror(w->out))
        rc = -EIO;
    yajl_gen_free(w->g);
    free(w);
    return rc;
}

static void check(struct ps_jw *w, yajl_gen_status st)
{
    if (st != yajl_gen_status_ok)
        w->failed = 1;
}

static int push(struct ps_jw *w, char c)
{
    if (w->failed || w->nnest >= MAX_DEPTH)
        return w->failed = 1, 0;
    w->nest[w->nnest++] = c;
    return 1;
}

static int pop(struct ps_jw *w, char c)
{
    if (w->failed || w->nnest == 0 || w->nest[w->nnest - 1] != c)
        return w->failed = 1, 0;
    w->nnest--;
    return 1;
}

void ps_jw_map_open(struct ps_jw *w)
{
    if (push(w, '{'))
        check(w, yajl_gen_map_open(w->g));
}

void ps_jw_map_close(struct ps_jw *w)
{
    if (pop(w, '{'))
        check(w, yajl_gen_map_close(w->g));
}

void ps_jw_array_open(struct ps_jw *w)
{
    if (push(w, '['))
        check(w, yajl_gen_array_open(w->g));
}

void ps_jw_array_close(struct ps_jw *w)
{
    if (pop(w, '['))
        check(w, yajl_gen_array_close(w->g));
}

void ps_jw_null(struct ps_jw *w)
{
    if (!w->failed)
        check(w, yajl_gen_null(w->g));
}

void ps_jw_bool(struct ps_jw *w, int v)
{
    if (!w->failed)
        check(w, yajl_gen_bool(w->g, v != 0));
}

void ps_jw_int(struct ps_jw *w, int64_t v)
{
    if (!w->failed)
        check(w, yajl_gen_integer(w->g, (long long)v));
}

void ps_jw_double(struct ps_jw *w, double v)
{
    char buf[32];
    if (w->failed)
        return;
    if (!isfinite(v)) {
        ps_jw_null(w);
        return;
    }
    int n = snprintf(buf, sizeof buf, "%.6g", v);
    check(w, yajl_gen_number(w->g, buf, (size_t)n));
}

void ps_jw_number(struct ps_jw *w, const char *num)
{
    if (!w->failed)
        check(w, yajl_gen_number(w->g, num, strlen(num)));
}

/* Give yajl the string with each maximal invalid UTF-8 subpart (a Latin-1 byte in a command line, a name cut
 * mid-character) replaced by one U+FFFD: common/ps_utf8.h's policy, the collector's too; a NUL inside a name
 * (PS_UTF8_NUL) as the NUL it stands for, which yajl writes as \u0000. */
static void string_piece(struct ps_jw *w, const char *s, size_t len)
{
    size_t fixed_len = 0;
    char *fixed = ps_utf8_valid(s, len) ? NULL : ps_utf8_dup_nul(s, len, &fixed_len);
    if (!ps_utf8_valid(s, len) && !fixed) {
        w->failed = 1;
        return;
    }
    w->in_string = 1;
    check(w, yajl_gen_string(w->g, (const unsigned char *)(fixed ? fixed : s), fixed ? fixed_len : len));
    w->in_string = 0;
    free(fixed);
}

void ps_jw_strn(struct ps_jw *w, const char *s, size_t len)
{
    if (w->failed)
        return;
    const char *nul = memchr(s, '\0', len);
    string_piece(w, s, nul ? (size_t)(nul - s) : len);
}

void ps_jw_str(struct ps_jw *w, const char *s)
{
    if (!s)
        ps_jw_null(w);
    else if (!w->failed)
        string_piece(w, s, strlen(s));
}

void ps_jw_key(struct ps_jw *w, const char *key)
{
    ps_jw_str(w, key);
}

void ps_jw_kint(struct ps_jw *w, const char *key, int64_t v)
{
    ps_jw_key(w, key);
    ps_jw_int(w, v);
}

void ps_jw_kdouble(struct ps_jw *w, const char *key, double v)
{
    ps_jw_key(w, key);
    ps_jw_double(w, v);
}

void ps_jw_kstr(struct ps_jw *w, const char *key, const char *s)
{
    ps_jw_key(w, key);
    ps_jw_str(w, s);
}

void ps_jw_kbool(struct ps_jw *w, const char *key, int v)
{
    ps_jw_key(w, key);
    ps_jw_bool(w, v);
}

void ps_jw_knull(struct ps_jw *w, const char *key)
{
    ps_jw_key(w, key);
    ps_jw_null(w);
}

void ps_jw_kint_or_null(struct ps_jw *w, const char *key, int64_t v)
{
    ps_jw_key(w, key);
    v >= 0 ? ps_jw_int(w, v) : ps_jw_null(w);
}

void ps_jw_kdouble_exact(struct ps_jw *w, const char *key, double v)
{
    char buf[40];
    ps_jw_key(w, key);
    if (w->failed)
        return;
    if (!isfinite(v)) {
        ps_jw_null(w);
        return;
    }
    int n = snprintf(buf, sizeof buf, "%.17g", v);
    check(w, yajl_gen_number(w->g, buf, (size_t)n));
}
