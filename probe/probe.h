/* Internal interface of libperfscope_probe.so: process-wide state (the ring, registries), per-thread
 * state (lane, NVTX push/pop stacks, lane-string cache) and the record emitters the NVTX callbacks use.
 * Nothing here is exported from the library (hidden visibility; probe.map lists the entry points). */
#ifndef PS_PROBE_H
#define PS_PROBE_H

#include <stdint.h>
#include <wchar.h>

#include "ps_ring_writer.h"
#include "ps_wire.h"

/* A message as the wire carries it: flags PS_WIRE_MSG_*; `id` for LANE/REGISTERED; `text`/`len`
 * (bytes incl. NUL) for INLINE. In a push/pop frame or an open start/end range `text` is owned. */
struct probe_msg {
    uint32_t flags;
    uint32_t id;
    const char *text;
    uint32_t len;
};

#define PROBE_FRAME_DROPPED 0x80u   /* probe_msg.flags: a record it needs was dropped; drop this one too */

struct probe_frame {
    uint64_t start;                 /* ring clock */
    struct probe_msg msg;
    struct ps_wire_nvtx_attr attr;  /* attr.flags == 0 and payload_type == 0: no attr block */
    int32_t open_slot;              /* the ring's open-range slot mirroring this frame, or -1 */
};

struct probe_stack {
    struct probe_frame *f;
    uint32_t depth;                 /* may exceed cap: frames past the cap are counted as dropped */
    uint32_t cap;
};

struct probe_ptr_slot {             /* lane-string cache keyed on the caller's pointer */
    const char *ptr;
    const char *text;               /* our copy, to verify the content has not changed */
    uint32_t id;
    uint32_t len;                   /* strlen */
};

struct probe_str {                  /* lane-string cache keyed on the content */
    uint64_t hash;
    char *text;
    uint32_t id;
    uint32_t len;
};

#define PROBE_PTR_SLOTS 256
#define PROBE_MSG_MAX 4096          /* longer messages are cut at a UTF-8 character boundary */

struct probe_thread {
    struct ps_ring_wlane w;         /* w.ring == NULL: no lane, records are counted as dropped */
    uint32_t tid;
    struct probe_stack dflt;        /* the default domain's push/pop stack */
    struct probe_stack *dom;        /* other domains' stacks, indexed by domain id */
    uint32_t ndom;
    struct probe_ptr_slot ptr[PROBE_PTR_SLOTS];
    struct probe_str *strs;         /* open addressing, nstrs_cap slots, at most half full */
    uint32_t nstrs, nstrs_cap;
    char utf8[PROBE_MSG_MAX];       /* wide-string conversion buffer */
};

/* Process-wide state. `on` is 0 before InitializeInjectionNvtx2 succeeds and after a failure. */
struct probe_global {
    int on;
    int tsc;                        /* ring timestamps are TSC ticks */
    struct ps_ring *ring;
};
extern struct probe_global probe_g;
/* initial-exec: one %fs load per call instead of a TLSDESC call (docs/probe.md, "Why the cost varies"); glibc
 * keeps surplus static TLS for dlopen'ed libraries, and this pointer is all the probe puts there. */
extern __thread struct probe_thread *probe_tls __attribute__((tls_model("initial-exec")));

/* Start the probe once per process (session directory, thread key, fork handlers; the ring and its PROCESS
 * record come with the first record, probe_thread_slow). 0, or -errno: stay off. */
int probe_start(void);
/* The calling thread's state, created (lane claimed, THREAD_NAME written; the process's ring made first if this
 * is the process's first record) on its first record.
 * NULL when the probe is off or memory is short. */
struct probe_thread *probe_thread_slow(void);
static inline struct probe_thread *probe_thread(void)
{
    struct probe_thread *t = probe_tls;
    return t ? t : probe_thread_slow();
}
/* probe_thread() for a record that starts at `*now`: when the thread's state (and maybe the process's ring)
 * had to be made first, `*now` is taken again afterwards, so that set-up (milliseconds for a ring) is never
 * counted in the user's range. */
static inline uint64_t probe_now(void);
static inline struct probe_thread *probe_thread_at(uint64_t *now)
{
    struct probe_thread *t = probe_tls;
    if (t)
        return t;
    t = probe_thread_slow();
    *now = probe_now();
    return t;
}
/* Log to $PERFSCOPE_LOG (a path or "stderr"); silent when unset. */
void probe_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline uint64_t probe_now(void)
{
    return ps_ring_clock_now(probe_g.tsc);
}

/* Room for a record in the thread's lane, or NULL (already counted as dropped). */
static inline void *probe_reserve(struct probe_thread *t, uint32_t bytes)
{
    if (t->w.ring)
        return ps_ring_reserve(&t->w, bytes);
    ps_ring_drop_nolane(probe_g.ring, 1);
    return NULL;
}

static inline void probe_drop(struct probe_thread *t)
{
    if (t->w.ring)
        ps_ring_lane_drop(&t->w, 1);
    else
        ps_ring_drop_nolane(probe_g.ring, 1);
}

/* A record beyond the probe's limits (nesting depth, start/end table), counted apart from a full ring. */
static inline void probe_drop_limit(struct probe_thread *t)
{
    if (t->w.ring)
        ps_ring_lane_drop_limit(&t->w, 1);
    else
        ps_ring_drop_nolane(probe_g.ring, 1);
}

static inline uint32_t probe_pad8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

/* Write an NVTX event record (PS_WIRE_NVTX_RANGE / _STARTEND / _MARK): the fixed part, then the attr
 * block when `attr` carries anything, then `ext` (start/end only), then an inline message. Drops (counted)
 * when the lane is full. */
void probe_emit_event(struct probe_thread *t, uint16_t type, uint64_t start, uint64_t end, uint32_t tid,
                      uint32_t domain, const struct probe_msg *m, const struct ps_wire_nvtx_attr *attr,
                      const struct ps_wire_nvtx_ext *ext);

/* Write a name record (PS_WIRE_NVTX_DOMAIN / _REGISTERED / _CATEGORY) or a PS_WIRE_THREAD_NAME. */
void probe_emit_name(struct probe_thread *t, uint16_t type, uint32_t domain, uint32_t id, const char *name);
void probe_emit_thread_name(struct probe_thread *t, uint32_t tid, const char *name);

/* nvtx_inject.c: a push and a pop on the thread's default-domain NVTX stack (the stack nvtxRangePush uses, so
 * the language hooks' ranges nest with the program's own NVTX ranges). `text` is UTF-8 (NULL: no message),
 * `attr` its attributes (flags 0 and payload_type 0: none). Return the nesting level as nvtxRangePush/Pop do
 * (negative: not recorded). */
int probe_push_text(uint64_t now, const char *text, const struct ps_wire_nvtx_attr *attr);
int probe_pop_default(uint64_t now);

/* ---- probe_strings.c ---- */
/* UTF-32 (Linux wchar_t) to UTF-8 in `out` (`cap` bytes, NUL-terminated, cut at a character boundary);
 * invalid code points become U+FFFD. Returns the length without the NUL. */
uint32_t probe_utf8_from_wide(const wchar_t *s, char *out, uint32_t cap);
/* A message for `s` in the thread's lane: a cached PS_WIRE_LANE_STRING id (defining it now if new), or
 * PS_WIRE_MSG_INLINE pointing at `s` when the cache is full. 0, or -1 when the definition was dropped. */
int probe_msg_slow(struct probe_thread *t, const char *s, uint32_t len, struct probe_ptr_slot *slot,
                   struct probe_msg *m);
void probe_strings_reset(struct probe_thread *t);

static inline uint32_t probe_ptr_hash(const char *p)
{
    return (uint32_t)(((uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 56) & (PROBE_PTR_SLOTS - 1);
}

/* The hot path: a message for a UTF-8/ASCII string, keyed on its address and checked byte by byte
 * against our copy, so a buffer reused for other text is noticed (never reads past s's NUL). */
static inline int probe_msg_ascii(struct probe_thread *t, const char *s, struct probe_msg *m)
{
    if (!s) {
        m->flags = PS_WIRE_MSG_NONE;
        return 0;
    }
    struct probe_ptr_slot *p = &t->ptr[probe_ptr_hash(s)];
    if (p->ptr == s) {
        uint32_t i = 0;
        while (i < p->len && p->text[i] == s[i])
            i++;
        if (i == p->len && s[i] == '\0') {
            m->flags = PS_WIRE_MSG_LANE;
            m->id = p->id;
            return 0;
        }
    }
    uint32_t len = 0;
    while (len < PROBE_MSG_MAX - 1 && s[len])
        len++;
    return probe_msg_slow(t, s, len, p, m);
}

#endif
