/* Hash tables for the collector (see maps.h): linear probing, power-of-two capacity, grown at 1/2 load.
 * Keys are mixed with a 64-bit finaliser (splitmix64) and strings hashed with FNV-1a. Also the growable
 * array helper the row builders and the sampler share. */
#include "maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t *ps_u64map_get(const struct ps_u64map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return &m->vals[i];
    }
}

static int u64map_grow(struct ps_u64map *m)
{
    struct ps_u64map n = { .cap = m->cap ? m->cap * 2 : 64 };
    n.keys = malloc(n.cap * sizeof *n.keys);
    n.vals = malloc(n.cap * sizeof *n.vals);
    n.used = calloc(n.cap, 1);
    if (!n.keys || !n.vals || !n.used) {
        ps_u64map_fini(&n);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            ps_u64map_put(&n, m->keys[i], m->vals[i]);   /* cannot grow: n is at most 1/4 full */
    ps_u64map_fini(m);
    *m = n;
    return 0;
}

int ps_u64map_put(struct ps_u64map *m, uint64_t key, uint64_t val)
{
    if ((m->len + 1) * 2 > m->cap) {
        int rc = u64map_grow(m);
        if (rc)
            return rc;
    }
    size_t i = mix64(key) & (m->cap - 1);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->len++;
    }
    m->vals[i] = val;
    return 0;
}

void ps_u64map_fini(struct ps_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static int strtab_grow(struct ps_strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    struct ps_str **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        struct ps_str *s = t->slots[i];
        if (!s)
            continue;
        size_t j = fnv1a(s->text, strlen(s->text)) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

struct ps_str *ps_strtab_intern(struct ps_strtab *t, const char *text, size_t len)
{
    if ((t->len + 1) * 2 > t->cap && strtab_grow(t))
        return NULL;
    size_t i = fnv1a(text, len) & (t->cap - 1);
    for (; t->slots[i]; i = (i + 1) & (t->cap - 1)) {
        const char *have = t->slots[i]->text;
        if (strncmp(have, text, len) == 0 && have[len] == '\0')
            return t->slots[i];
    }
    /* One allocation: the struct, then the text. */
    struct ps_str *s = malloc(sizeof *s + len + 1);
    if (!s)
        return NULL;
    char *copy = (char *)(s + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->text = copy;
    s->id = 0;
    t->slots[i] = s;
    t->len++;
    return s;
}

void ps_strtab_fini(struct ps_strtab *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i]);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

int ps_array_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -ENOMEM;
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return 0;
}
