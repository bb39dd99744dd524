/* A map from a 64-bit source id to a model index (string ids, processes, threads, streams, devices): the model's
 * find-or-add lookups and the readers' own id maps, over common/ps_hashmap.h with 32-bit values. */
#ifndef PS_IDMAP_H
#define PS_IDMAP_H

#include <stdint.h>

#include "ps_hashmap.h"

/* Zero-initialise; release with ps_idmap_fini. */
struct ps_idmap {
    struct ps_u64map map;
};
/* The index stored for `key`, PS_NONE (UINT32_MAX) when absent: a lookup that cannot fail. */
uint32_t ps_idmap_get(const struct ps_idmap *h, uint64_t key);
/* Store `val` for `key` (replacing any). 0 or -ENOMEM. */
int ps_idmap_put(struct ps_idmap *h, uint64_t key, uint32_t val);
/* Free the map's storage; *h is left empty (zeroed) and may be used again. */
void ps_idmap_fini(struct ps_idmap *h);

#endif
