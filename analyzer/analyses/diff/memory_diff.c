/* `perfscope diff`'s memory part: each memory device (by label) of either run with its peak allocated and max
 * reserved before and after, and the change of the peak (analyses/diff.h struct ps_diff_memory). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/diff.h"
#include "analyses/memory.h"

/* The row of memory device `label` into *out, added when new. 0 or -ENOMEM. */
static int slot(struct ps_diff *d, const char *label, struct ps_diff_memory **out)
{
    for (size_t i = 0; i < d->nmemory; i++)
        if (!strcmp(d->memory[i].label, label)) {
            *out = &d->memory[i];
            return 0;
        }
    struct ps_diff_memory *v = realloc(d->memory, (d->nmemory + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    d->memory = v;
    struct ps_diff_memory *m = &v[d->nmemory++];
    *m = (struct ps_diff_memory){ .before_peak = -1, .after_peak = -1, .before_reserved = -1,
                                  .after_reserved = -1, .capacity = -1 };
    snprintf(m->label, sizeof m->label, "%s", label);
    *out = m;
    return 0;
}

int ps_diff_memory(struct ps_diff *d, const struct ps_report *before, const struct ps_report *after)
{
    const struct ps_report *side[2] = { before, after };
    for (int s = 0; s < 2; s++) {
        const struct ps_memory *mem = side[s]->mem;
        for (size_t i = 0; mem && i < mem->ndevs; i++) {
            const struct ps_mem_device *dev = &mem->devs[i];
            struct ps_diff_memory *m;
            int rc = slot(d, dev->label, &m);
            if (rc < 0)
                return rc;
            *(s ? &m->after_peak : &m->before_peak) = dev->peak_allocated_bytes;
            *(s ? &m->after_reserved : &m->before_reserved) = dev->peak_reserved_bytes;
            if (dev->capacity_bytes > 0)
                m->capacity = dev->capacity_bytes;
        }
    }
    for (size_t i = 0; i < d->nmemory; i++) {
        struct ps_diff_memory *m = &d->memory[i];
        m->has_delta = m->before_peak >= 0 && m->after_peak >= 0;
        m->delta_bytes = m->has_delta ? m->after_peak - m->before_peak : 0;
    }
    return 0;
}
