/* The Kineto events of the per-operator performance model (model/op_trace.h): growable arrays and a string pool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/op_trace.h"

struct ps_op_trace *ps_op_trace_new(void)
{
    return calloc(1, sizeof(struct ps_op_trace));
}

void ps_op_trace_free(struct ps_op_trace *t)
{
    if (!t)
        return;
    free(t->ev.v);
    free(t->args.v);
    free(t->flows.v);
    free(t->meta.v);
    free(t->text);
    free(t->offs);
    free(t->hash);
    free(t);
}

static int grow(void **v, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*v, n * item);
    if (!p)
        return -ENOMEM;
    *v = p;
    *cap = n;
    return 0;
}

#define APPEND(vec, item) \
    (grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? -ENOMEM : ((vec).v[(vec).n++] = *(item), 0))

int ps_op_trace_add_event(struct ps_op_trace *t, const struct ps_op_event *e) { return APPEND(t->ev, e); }
int ps_op_trace_add_args(struct ps_op_trace *t, const struct ps_op_args *a) { return APPEND(t->args, a); }
int ps_op_trace_add_flow(struct ps_op_trace *t, const struct ps_op_flow *f) { return APPEND(t->flows, f); }
int ps_op_trace_add_meta(struct ps_op_trace *t, const struct ps_op_meta *m) { return APPEND(t->meta, m); }

static uint32_t hash_of(const char *s, size_t len)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int rehash(struct ps_op_trace *t)
{
    size_t cap = t->hash_cap ? t->hash_cap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -ENOMEM;
    for (size_t id = 0; id < t->nstr; id++) {
        const char *s = t->text + t->offs[id];
        size_t i = hash_of(s, strlen(s)) & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = (uint32_t)id + 1;
    }
    free(t->hash);
    t->hash = h;
    t->hash_cap = cap;
    return 0;
}

uint32_t ps_op_trace_intern(struct ps_op_trace *t, const char *s, size_t len)
{
    if ((t->nstr + 1) * 2 > t->hash_cap && rehash(t) < 0)
        return PS_NONE;
    size_t i = hash_of(s, len) & (t->hash_cap - 1);
    for (; t->hash[i]; i = (i + 1) & (t->hash_cap - 1)) {
        const char *x = t->text + t->offs[t->hash[i] - 1];
        if (strncmp(x, s, len) == 0 && x[len] == 0)
            return t->hash[i] - 1;
    }
    if (t->nstr >= UINT32_MAX - 1 || grow((void **)&t->text, &t->text_cap, t->text_n + len + 1, 1) ||
        grow((void **)&t->offs, &t->str_cap, t->nstr + 1, sizeof *t->offs))
        return PS_NONE;
    memcpy(t->text + t->text_n, s, len);
    t->text[t->text_n + len] = 0;
    t->offs[t->nstr] = (uint32_t)t->text_n;
    t->text_n += len + 1;
    t->hash[i] = (uint32_t)t->nstr + 1;
    return (uint32_t)t->nstr++;
}

const char *ps_op_trace_str(const struct ps_op_trace *t, uint32_t id)
{
    return id == PS_NONE || id >= t->nstr ? "" : t->text + t->offs[id];
}
