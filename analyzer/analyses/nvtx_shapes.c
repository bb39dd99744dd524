/* PyTorch emit_nvtx range text into op name and input sizes (analyses/nvtx_shapes.h). The text comes from a
 * trace, so it is untrusted: every number and bracket is checked, nothing is read past the NUL. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyses/nvtx_shapes.h"

static const char SEQ[] = ", seq = ", OP_ID[] = ", op_id = ", SIZES[] = ", sizes = [", INPUT_IDS[] = ", input_op_ids = [";

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* A decimal integer (optional '-') at *p: 0 and *p past it, or -EINVAL. */
static int integer(const char **p, int64_t *v)
{
    const char *s = *p;
    int neg = *s == '-';
    s += neg;
    if (!isdigit((unsigned char)*s))
        return -EINVAL;
    uint64_t x = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (x > (UINT64_C(1) << 62))
            return -EINVAL;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = neg ? -(int64_t)x : (int64_t)x;
    *p = s;
    return 0;
}

/* One input's sizes "[d0, d1]" or "[]" at *p (past its '['). */
static int one_input(const char **p, struct ps_nvtx_op *op)
{
    const char *s = *p;
    size_t i = op->ninputs;
    int nd = 0;
    while (*s != ']') {
        int64_t d;
        if (nd && !starts(s, ", "))
            return -EINVAL;
        s += nd ? 2 : 0;
        if (integer(&s, &d) < 0 || d < 0)
            return -EINVAL;
        if (i < PS_NVTX_MAX_INPUTS && nd < PS_NVTX_MAX_DIMS)
            op->dims[i][nd] = d;
        else
            op->truncated = 1;
        nd++;
    }
    if (i < PS_NVTX_MAX_INPUTS)
        op->ndims[i] = nd < PS_NVTX_MAX_DIMS ? nd : PS_NVTX_MAX_DIMS;
    op->ninputs++;
    *p = s + 1;
    return 0;
}

/* "[[...], [...]]" at *p (past the outer '['). */
static int sizes(const char **p, struct ps_nvtx_op *op)
{
    const char *s = *p;
    op->has_sizes = 1;
    while (*s != ']') {
        if (op->ninputs && !starts(s, ", "))
            return -EINVAL;
        s += op->ninputs ? 2 : 0;
        if (*s++ != '[' || one_input(&s, op) < 0)
            return -EINVAL;
    }
    if (op->ninputs > PS_NVTX_MAX_INPUTS) {
        op->truncated = 1;
        op->ninputs = PS_NVTX_MAX_INPUTS;
    }
    *p = s + 1;
    return 0;
}

/* "[(1,0), (7,1)]" at *p (past the '['): checked and skipped. */
static int input_ids(const char **p)
{
    const char *s = *p;
    int n = 0;
    int64_t a, b;
    while (*s != ']') {
        if (n && !starts(s, ", "))
            return -EINVAL;
        s += n ? 2 : 0;
        if (*s++ != '(' || integer(&s, &a) < 0 || *s++ != ',' || integer(&s, &b) < 0 || *s++ != ')')
            return -EINVAL;
        n++;
    }
    *p = s + 1;
    return 0;
}

/* Where the emit_nvtx suffix starts: the first ", seq = ", ", op_id = ", ", sizes = [" or ", input_op_ids = [". */
static const char *suffix(const char *s)
{
    const char *best = NULL;
    const char *const keys[] = { SEQ, OP_ID, SIZES, INPUT_IDS };
    for (size_t i = 0; i < 4; i++) {
        const char *at = strstr(s, keys[i]);
        if (at && (!best || at < best))
            best = at;
    }
    return best;
}

int ps_nvtx_op_parse(const char *s, struct ps_nvtx_op *op)
{
    *op = (struct ps_nvtx_op){ .seq = -1 };
    const char *p = suffix(s);
    op->name_len = p ? (size_t)(p - s) : strlen(s);
    int rc = 0, stage = 0;   /* the parts in PyTorch's order: seq, op_id, sizes, input_op_ids */
    while (p && *p && rc == 0) {
        if (stage < 1 && starts(p, SEQ)) {
            p += strlen(SEQ);
            rc = integer(&p, &op->seq);
            stage = 1;
        } else if (stage < 2 && starts(p, OP_ID)) {
            p += strlen(OP_ID);
            rc = integer(&p, &op->op_id);
            stage = 2;
        } else if (stage < 3 && starts(p, SIZES)) {
            p += strlen(SIZES);
            rc = sizes(&p, op);
            stage = 3;
        } else if (stage < 4 && starts(p, INPUT_IDS)) {
            p += strlen(INPUT_IDS);
            rc = input_ids(&p);
            stage = 4;
        } else {
            rc = -EINVAL;
        }
    }
    if (rc < 0) {
        size_t name_len = op->name_len;
        *op = (struct ps_nvtx_op){ .seq = -1, .name_len = name_len };
    }
    return rc;
}

/* Append like snprintf, counting what does not fit. */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, long long v)
{
    int n = *len < cap ? snprintf(buf + *len, cap - *len, fmt, v) : snprintf(NULL, 0, fmt, v);
    *len += n > 0 ? (size_t)n : 0;
}

size_t ps_nvtx_op_dims_text(const struct ps_nvtx_op *op, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    put(buf, cap, &len, "[", 0);
    for (size_t i = 0; i < op->ninputs; i++) {
        put(buf, cap, &len, i ? ", [" : "[", 0);
        for (int d = 0; d < op->ndims[i]; d++)
            put(buf, cap, &len, d ? ", %lld" : "%lld", (long long)op->dims[i][d]);
        put(buf, cap, &len, "]", 0);
    }
    put(buf, cap, &len, "]", 0);
    return len;
}
