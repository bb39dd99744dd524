/* Open-addressing hash map (ps_hashmap.h): linear probing, power-of-two capacity, grown at 1/2 load. */
#include "ps_hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t ps_hash_u64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t ps_hash_bytes(const void *s, size_t len)
{
    const unsigned char *p = s;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t *ps_u64map_next(const struct ps_u64map *m, uint64_t key, size_t *pos)
{
    if (!m->cap)
        return NULL;
    /* *pos counts the slots probed so far from the key's home slot */
    for (size_t i = (ps_hash_u64(key) + *pos) & (m->cap - 1); *pos < m->cap; i = (i + 1) & (m->cap - 1)) {
        ++*pos;
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return &m->vals[i];
    }
    return NULL;
}

uint64_t *ps_u64map_get(const struct ps_u64map *m, uint64_t key)
{
    size_t pos = 0;
    return ps_u64map_next(m, key, &pos);
}

/* Place an entry in a map with room for it (no growth, no duplicate check). */
static void place(struct ps_u64map *m, uint64_t key, uint64_t val)
{
    size_t i = ps_hash_u64(key) & (m->cap - 1);
    while (m->used[i])
        i = (i + 1) & (m->cap - 1);
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->len++;
}

static int reserve_one(struct ps_u64map *m)
{
    if ((m->len + 1) * 2 <= m->cap)
        return 0;
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
            place(&n, m->keys[i], m->vals[i]);
    ps_u64map_fini(m);
    *m = n;
    return 0;
}

int ps_u64map_put(struct ps_u64map *m, uint64_t key, uint64_t val)
{
    uint64_t *have = ps_u64map_get(m, key);
    if (have) {
        *have = val;
        return 0;
    }
    if (reserve_one(m) < 0)
        return -ENOMEM;
    place(m, key, val);
    return 0;
}

int ps_u64map_add(struct ps_u64map *m, uint64_t key, uint64_t val)
{
    if (reserve_one(m) < 0)
        return -ENOMEM;
    place(m, key, val);
    return 0;
}

void ps_u64map_fini(struct ps_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
