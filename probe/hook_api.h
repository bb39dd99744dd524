/* The one C entry perfscope's language hooks call (docs/design.md: "a minimal C entry for perfscope's own language
 * hooks"): python/perfscope_hook loads libperfscope_probe.so with ctypes and records its ranges through this
 * table, so they land in the same ring, thread lanes and NVTX push/pop stacks as the program's own NVTX calls.
 * ABI: the layout below is fixed for PS_HOOK_API_VERSION 1; later versions only append members. */
#ifndef PS_HOOK_API_H
#define PS_HOOK_API_H

#include <stdint.h>

#define PS_HOOK_API_VERSION 1

struct ps_hook_api {
    uint32_t version;               /* PS_HOOK_API_VERSION */
    uint32_t size;                  /* sizeof(struct ps_hook_api) */
    /* The probe's clock now (ring ticks: TSC or CLOCK_MONOTONIC ns; opaque to the hook, only passed back). */
    uint64_t (*now)(void);
    /* Push a range on the calling thread's default-domain NVTX stack (eventType 59 when popped). `text`: UTF-8,
     * NUL-terminated (NULL: no message). Returns the nesting level (negative: not recorded). One argument, a
     * pointer: ctypes passes it without argtypes conversion, the cheapest call from Python. */
    int (*push)(const char *text);
    /* push() with attributes: `category` the NVTX category (0: none), `payload` an int64 payload (int64Value), or
     * negative for none. */
    int (*push_attr)(const char *text, uint32_t category, int64_t payload);
    /* Pop the innermost range of that stack (an empty stack writes nothing and is counted as unbalanced). */
    int (*pop)(void);
    /* A finished range [start, end] (ticks from now()) on the calling thread, stored as a push/pop range: for
     * ranges the hook only knows the extent of at their end (steps). */
    void (*range)(const char *text, uint64_t start, uint64_t end);
    /* A mark (eventType 34) with `text` in NVTX domain `domain` (created on first use). */
    void (*mark)(const char *domain, const char *text);
    /* Name category `id` of the default domain (eventType 33). */
    void (*name_category)(uint32_t id, const char *name);
};

#endif
