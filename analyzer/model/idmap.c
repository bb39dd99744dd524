/* Source id -> model index (idmap.h) over the common hash map. */
#include "model/idmap.h"
#include "model/model.h"

uint32_t ps_idmap_get(const struct ps_idmap *h, uint64_t key)
{
    const uint64_t *v = ps_u64map_get(&h->map, key);
    return v ? (uint32_t)*v : PS_NONE;
}

int ps_idmap_put(struct ps_idmap *h, uint64_t key, uint32_t val)
{
    return ps_u64map_put(&h->map, key, val);
}

void ps_idmap_fini(struct ps_idmap *h)
{
    ps_u64map_fini(&h->map);
    *h = (struct ps_idmap){ 0 };
}
