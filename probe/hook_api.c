/* PerfscopeHookApi: the table perfscope's Python hook (python/perfscope_hook) calls through ctypes; each
 * function records what an NVTX call would, on the calling thread's lane. Nothing here can fail loudly: a
 * probe that is off makes every call a no-op. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "hook_api.h"
#include "probe.h"
#include "probe_registry.h"
#include "ps_time.h"

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

/* A text of the hook, cut at PROBE_MSG_MAX - 1 bytes (the collector replaces a UTF-8 character cut there). */
static uint32_t text_len(const char *s)
{
    return (uint32_t)strnlen(s, PROBE_MSG_MAX - 1);
}

static int hook_py_frame(uint32_t id, const char *file, uint32_t line, const char *function)
{
    uint64_t now = probe_now();
    struct probe_thread *t;
    if (!id || !file || !function || !(t = probe_thread_at(&now)))
        return -1;
    uint32_t fl = text_len(file), nl = text_len(function);
    uint32_t size = (uint32_t)sizeof(struct ps_wire_py_frame) + probe_pad8(fl + 1 + nl + 1);
    struct ps_wire_py_frame *r = probe_reserve(t, size);
    if (!r)
        return -1;
    *r = (struct ps_wire_py_frame){ { size, PS_WIRE_PY_FRAME, 0 }, now, id, line, fl + 1, nl + 1 };
    char *d = (char *)(r + 1);
    memcpy(d, file, fl);
    d[fl] = '\0';
    memcpy(d + fl + 1, function, nl);
    memset(d + fl + 1 + nl, 0, size - sizeof *r - fl - 1 - nl);
    ps_ring_commit(&t->w, size);
    return 0;
}

static int hook_py_sample(uint64_t time, uint32_t tid, const uint32_t *frames, uint32_t n, uint32_t depth)
{
    struct probe_thread *t;
    if (!frames || !n || !tid || tid > 0xFFFFFFu || !(t = probe_thread()))
        return -1;
    if (n > PS_WIRE_PY_STACK_MAX)
        n = PS_WIRE_PY_STACK_MAX;
    if (depth < n)
        depth = n;
    uint32_t size = (uint32_t)sizeof(struct ps_wire_py_sample) + probe_pad8(n * (uint32_t)sizeof *frames);
    struct ps_wire_py_sample *r = probe_reserve(t, size);
    if (!r)
        return -1;
    *r = (struct ps_wire_py_sample){ { size, PS_WIRE_PY_SAMPLE, 0 }, time, tid, depth, n, 0 };
    uint32_t *ids = (uint32_t *)(r + 1);
    memcpy(ids, frames, n * sizeof *frames);
    if (n & 1)
        ids[n] = 0;
    ps_ring_commit(&t->w, size);
    return 0;
}

static void hook_sleep_until(int64_t until_ns, void (*then)(unsigned long), unsigned long arg)
{
    int64_t latest = ps_monotonic_ns() + 60 * (int64_t)1000000000;
    if (until_ns > latest)
        until_ns = latest;
    struct timespec ts = { (time_t)(until_ns / 1000000000), (long)(until_ns % 1000000000) };
    if (until_ns > 0)
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    if (then)
        then(arg);
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
    .py_frame = hook_py_frame,
    .py_sample = hook_py_sample,
    .sleep_until = hook_sleep_until,
};

/* The table for `version` (1 or 2: a caller of version 1 reads only its members; the table says version 2 and its
 * size), or NULL: a version this probe does not know, or the probe cannot record (the program does not run under
 * perfscope record; see PERFSCOPE_LOG). Safe from any thread, any number of times. */
__attribute__((visibility("default"))) const struct ps_hook_api *PerfscopeHookApi(uint32_t version)
{
    if (version < 1 || version > PS_HOOK_API_VERSION || probe_start() != 0)
        return NULL;
    return &api;
}
