/* The one C entry perfscope's language hooks call (docs/design.md: "a minimal C entry for perfscope's own language
 * hooks"): python/perfscope_hook loads libperfscope_probe.so with ctypes and records its ranges through this
 * table, so they land in the same ring, thread lanes and NVTX push/pop stacks as the program's own NVTX calls.
 * ABI: the layout below is fixed for PS_HOOK_API_VERSION 1; later versions only append members, so a table of
 * version N holds every member of versions 1..N and `size` says how much of it there is. */
#ifndef PS_HOOK_API_H
#define PS_HOOK_API_H

#include <stdint.h>

#define PS_HOOK_API_VERSION 2          /* 2: py_frame, py_sample, sleep_until */

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
    /* ---- version 2: Python stack samples (docs/python.md "Stack samples") ---- */
    /* Define Python code location `id` (> 0, unique within the process: the hook numbers them) as `file`, 1-based
     * `line` (0: unknown) and `function` (UTF-8, NUL-terminated, each cut at 4095 bytes): one PS_WIRE_PY_FRAME on
     * the calling thread's lane. Returns 0, or -1 when nothing was written (probe off, ring full: counted as
     * dropped; a NULL or 0 argument): the hook must not use the id in a sample until a definition is written. */
    int (*py_frame)(uint32_t id, const char *file, uint32_t line, const char *function);
    /* One stack sample of thread `tid` (the OS thread id, not the caller) taken at `time` (now()'s ticks):
     * `frames`, `n` ids defined by py_frame on the calling thread, innermost first, of a stack `depth` frames deep
     * (depth >= n; frames past PS_WIRE_PY_STACK_MAX are cut, the innermost kept). One PS_WIRE_PY_SAMPLE on the
     * calling thread's lane. Returns 0, or -1 when nothing was written (as py_frame; n 0, tid 0 or >= 2^24). */
    int (*py_sample)(uint64_t time, uint32_t tid, const uint32_t *frames, uint32_t n, uint32_t depth);
    /* Sleep until CLOCK_MONOTONIC `until_ns` (at most 60 s from now), then call then(arg) when `then` is not NULL,
     * and return. The hook's sampling thread waits here with the GIL let go (ctypes, CFUNCTYPE) and passes
     * CPython's _PyEval_SetSwitchInterval as `then`, so that the thread running Python code hands the GIL over
     * within `arg` µs instead of the switch interval (5 ms), and the sample is taken when it was due. */
    void (*sleep_until)(int64_t until_ns, void (*then)(unsigned long), unsigned long arg);
};

#endif
