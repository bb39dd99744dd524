/* PerfscopeHookApi: the table perfscope's Python hook (python/perfscope_hook) calls through ctypes; each
 * function records what an NVTX call would, on the calling thread's lane. Nothing here can fail loudly: a
 * probe that is off makes every call a no-op. */
#include <stddef.h>

#include "hook_api.h"
#include "probe.h"
#include "probe_registry.h"

#define PAYLOAD_TYPE_INT64 2        /* NVTX_PAYLOAD_TYPE_INT64 (nvtx3/nvToolsExt.h) */

static uint64_t hook_now(void)
{
    return probe_now();
}

static void attr_of(uint32_t category, int64_t payload, struct ps_wire_nvtx_attr *a)
{
    *a = (struct ps_wire_nvtx_attr){ 0 };
    if (category) {
        a->flags = PS_WIRE_ATTR_CATEGORY;
        a->category = category;
    }
    if (payload >= 0) {
        a->payload_type = PAYLOAD_TYPE_INT64;
        a->payload = (uint64_t)payload;
    }
}

static int hook_push(const char *text)
{
    static const struct ps_wire_nvtx_attr none;
    return probe_push_text(probe_now(), text, &none);
}

static int hook_push_attr(const char *text, uint32_t category, int64_t payload)
{
    struct ps_wire_nvtx_attr a;
    attr_of(category, payload, &a);
    return probe_push_text(probe_now(), text, &a);
}

static int hook_pop(void)
{
    return probe_pop_default(probe_now());
}

static void hook_range(const char *text, uint64_t start, uint64_t end)
{
    struct probe_thread *t = probe_thread();
    struct probe_msg m;
    if (!t || end < start)
        return;
    if (probe_msg_ascii(t, text, &m) != 0) {
        probe_drop(t);
        return;
    }
    probe_emit_event(t, PS_WIRE_NVTX_RANGE, start, end, t->tid, 0, &m, NULL, NULL);
}

static void hook_mark(const char *domain, const char *text)
{
    uint64_t now = probe_now();
    struct probe_thread *t = probe_thread_at(&now);
    struct probe_domain *d;
    struct probe_msg m;
    if (!t || !domain || !(d = probe_domain_create(t, domain)))
        return;
    if (probe_msg_ascii(t, text, &m) != 0) {
        probe_drop(t);
        return;
    }
    probe_emit_event(t, PS_WIRE_NVTX_MARK, now, now, t->tid, d->id, &m, NULL, NULL);
}

static void hook_name_category(uint32_t id, const char *name)
{
    struct probe_thread *t = probe_thread();
    if (t && name)
        probe_category_name(t, 0, id, name);
}

static const struct ps_hook_api api = {
    .version = PS_HOOK_API_VERSION,
    .size = sizeof(struct ps_hook_api),
    .now = hook_now,
    .push = hook_push,
    .push_attr = hook_push_attr,
    .pop = hook_pop,
    .range = hook_range,
    .mark = hook_mark,
    .name_category = hook_name_category,
};

/* The table for `version` (1), or NULL: a version this probe does not know, or the probe cannot record (the
 * program does not run under perfscope record; see PERFSCOPE_LOG). Safe from any thread, any number of times. */
__attribute__((visibility("default"))) const struct ps_hook_api *PerfscopeHookApi(uint32_t version)
{
    if (version != PS_HOOK_API_VERSION || probe_start() != 0)
        return NULL;
    return &api;
}
