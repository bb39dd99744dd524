/* Small containers for the collector: a string intern table that hands out stable pointers and StringIds ids,
 * and a growable-array helper (the u64 -> u64 map is common/ps_hashmap.h).
 * Not thread-safe: one owner thread each. */
#ifndef PS_MAPS_H
#define PS_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_hashmap.h"   /* struct ps_u64map */

/* One interned string: `text` lives until ps_strtab_fini; `id` is its StringIds id (0 until one is
 * given, see trace_writer.h). */
struct ps_str {
    const char *text;
    int64_t id;
};

/* Zero-initialise before use. */
struct ps_strtab {
    struct ps_u64map by_hash;   /* ps_hash_bytes(text) -> struct ps_str * (a multi-map) */
};

/* The interned copy of `text` (`len` bytes, no NUL needed), created on first sight. NULL: out of memory. */
struct ps_str *ps_strtab_intern(struct ps_strtab *t, const char *text, size_t len);
void ps_strtab_fini(struct ps_strtab *t);

/* Make room in the array *arr (*cap elements of `elem` bytes, n in use) for element n: when full, doubles
 * *cap (16 at first) with realloc and zeroes the new elements. Returns 0, or -ENOMEM with *arr and *cap
 * unchanged. The caller owns and frees *arr. */
int ps_array_grow(void **arr, size_t *cap, size_t n, size_t elem);

#endif
