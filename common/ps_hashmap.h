/* The one hash map of perfscope: open addressing with linear probing from 64-bit keys to 64-bit values, used
 * by the collector (lanes, string ids, processes, interned text), the readers (source ids -> model indices) and
 * the model and analyses (string pool, GPU attribute rows, name groups). Not thread-safe: one owner each. */
#ifndef PS_HASHMAP_H
#define PS_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

/* Zero-initialise (= empty) before use; power-of-two capacity, grown at 1/2 load. */
struct ps_u64map {
    uint64_t *keys, *vals;
    uint8_t *used;
    size_t cap, len;
};

/* ---- as a map: one value per key ---- */
/* Pointer to the value of `key`, or NULL when absent. Valid until the next insert. */
uint64_t *ps_u64map_get(const struct ps_u64map *m, uint64_t key);
/* Insert or overwrite. Returns 0 or -ENOMEM (the map unchanged). */
int ps_u64map_put(struct ps_u64map *m, uint64_t key, uint64_t val);

/* ---- as a multi-map, for tables keyed by content the caller holds (strings, attribute rows): the key is a
 * hash of the content (ps_hash_bytes), several entries may share it, and the caller compares the content of
 * each candidate. Do not mix with ps_u64map_put on one map. ---- */
/* Add an entry, even when `key` is present. Returns 0 or -ENOMEM. */
int ps_u64map_add(struct ps_u64map *m, uint64_t key, uint64_t val);
/* The entries with `key` in turn: start with *pos = 0; returns a pointer to the next one's value (valid until
 * the next insert), NULL when there is no more. */
uint64_t *ps_u64map_next(const struct ps_u64map *m, uint64_t key, size_t *pos);

/* Free the storage and leave an empty map. */
void ps_u64map_fini(struct ps_u64map *m);

/* Hashes: a 64-bit finaliser (splitmix64's) to spread structured keys, and FNV-1a over bytes. */
uint64_t ps_hash_u64(uint64_t x);
uint64_t ps_hash_bytes(const void *s, size_t len);

#endif
