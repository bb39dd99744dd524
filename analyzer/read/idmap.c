/* A small open-addressing hash map from 64-bit keys to 32-bit values, used by the readers to map
 * source ids (StringIds ids, globalTids, stream keys, NVTX domains) to model indices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/reader_impl.h"

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;                     /* murmur3 fmix64 */
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

uint32_t ps_idmap_get(const struct ps_idmap *h, uint64_t key)
{
    if (!h->cap)
        return PS_NONE;
    for (size_t i = mix64(key) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (h->vals[i] == PS_NONE)
            return PS_NONE;
        if (h->keys[i] == key)
            return h->vals[i];
    }
}

int ps_idmap_put(struct ps_idmap *h, uint64_t key, uint32_t val)
{
    if ((h->n + 1) * 2 > h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 256;
        uint64_t *keys = malloc(cap * sizeof *keys);
        uint32_t *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -ENOMEM;
        }
        memset(vals, 0xff, cap * sizeof *vals);
        for (size_t j = 0; j < h->cap; j++) {
            if (h->vals[j] == PS_NONE)
                continue;
            size_t i = mix64(h->keys[j]) & (cap - 1);
            while (vals[i] != PS_NONE)
                i = (i + 1) & (cap - 1);
            keys[i] = h->keys[j];
            vals[i] = h->vals[j];
        }
        free(h->keys);
        free(h->vals);
        h->keys = keys;
        h->vals = vals;
        h->cap = cap;
    }
    size_t i = mix64(key) & (h->cap - 1);
    while (h->vals[i] != PS_NONE && h->keys[i] != key)
        i = (i + 1) & (h->cap - 1);
    if (h->vals[i] == PS_NONE)
        h->n++;
    h->keys[i] = key;
    h->vals[i] = val;
    return 0;
}

void ps_idmap_free(struct ps_idmap *h)
{
    free(h->keys);
    free(h->vals);
}
