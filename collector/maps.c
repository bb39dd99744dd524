/* The collector's string intern table (over common/ps_hashmap.h) and the growable array helper the row
 * builders and the sampler share. */
#include "maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ps_str *ps_strtab_intern(struct ps_strtab *t, const char *text, size_t len)
{
    uint64_t h = ps_hash_bytes(text, len), *v;
    size_t pos = 0;
    while ((v = ps_u64map_next(&t->by_hash, h, &pos))) {
        struct ps_str *have = (struct ps_str *)(uintptr_t)*v;
        if (strncmp(have->text, text, len) == 0 && have->text[len] == '\0')
            return have;
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
    if (ps_u64map_add(&t->by_hash, h, (uint64_t)(uintptr_t)s) < 0) {
        free(s);
        return NULL;
    }
    return s;
}

void ps_strtab_fini(struct ps_strtab *t)
{
    for (size_t i = 0; i < t->by_hash.cap; i++)
        if (t->by_hash.used[i])
            free((struct ps_str *)(uintptr_t)t->by_hash.vals[i]);
    ps_u64map_fini(&t->by_hash);
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
