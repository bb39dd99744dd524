/* NVTX start/end ranges: process-wide ids, and a lock-free table of open ranges so that a range started on
 * one thread can end on any other (PyTorch ends device ranges from a CUDA callback thread). The record is
 * written at the end, by the ending thread, with its message inline (lane ids are the starting lane's). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_ranges.h"

#define SLOTS (1u << 16)            /* ranges open at once; more are counted as dropped */
#define TOMB UINT64_MAX             /* a slot whose range has ended (keeps probe chains intact) */
#define UNTRACKED (1ull << 63)      /* id bit: the range did not fit the table, its record was dropped */
#define SEQ_MASK ((1ull << 48) - 1) /* an untracked id: UNTRACKED | check << 48 | the id it would have had */

struct open_range {
    uint64_t start;
    uint32_t tid, domain;
    struct ps_wire_nvtx_attr attr;
    uint32_t regid;                 /* registered message id, or 0 */
    uint32_t len;                   /* inline message bytes incl. NUL, or 0 */
    char text[];
};

struct slot {
    _Atomic uint64_t id;
    struct open_range *_Atomic r;
};

static struct slot slots[SLOTS];    /* 1 MiB of .bss, paged in only where used */
static _Atomic uint64_t last_id;
static _Atomic int any_started;     /* a range was ever started: the table may hold something */

static uint32_t slot_of(uint64_t id)
{
    return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 48) & (SLOTS - 1);
}

/* The 15 check bits of an untracked id (never 0): an id the program makes up (-1, 1 << 63 | 5) rarely has both
 * the right check and a sequence number already handed out, so its end is counted as unbalanced. */
static uint64_t untracked_id(uint64_t seq)
{
    seq &= SEQ_MASK;
    uint64_t check = ((seq * 0xD6E8FEB86659FD93ull) >> 49) | 1;
    return UNTRACKED | check << 48 | seq;
}

uint64_t probe_range_start(struct probe_thread *t, uint32_t domain, uint64_t now, const char *text,
                           uint32_t regid, const struct ps_wire_nvtx_attr *attr)
{
    uint64_t id = atomic_fetch_add_explicit(&last_id, 1, memory_order_relaxed) + 1;
    uint32_t len = text ? (uint32_t)strnlen(text, PROBE_MSG_MAX - 1) + 1 : 0;
    struct open_range *r = malloc(sizeof *r + len);
    if (!r)
        goto untracked;
    r->start = now;
    r->tid = t->tid;
    r->domain = domain;
    r->attr = *attr;
    r->regid = regid;
    r->len = len;
    if (len) {
        memcpy(r->text, text, len - 1);
        r->text[len - 1] = '\0';
    }
    for (uint32_t i = 0, s = slot_of(id); i < SLOTS; i++, s = (s + 1) & (SLOTS - 1)) {
        uint64_t cur = atomic_load_explicit(&slots[s].id, memory_order_relaxed);
        if ((cur == 0 || cur == TOMB) &&
            atomic_compare_exchange_strong_explicit(&slots[s].id, &cur, id, memory_order_relaxed,
                                                    memory_order_relaxed)) {
            /* The id reaches an ending thread only through the program, after this store. */
            atomic_store_explicit(&slots[s].r, r, memory_order_release);
            if (!atomic_load_explicit(&any_started, memory_order_relaxed))
                atomic_store_explicit(&any_started, 1, memory_order_relaxed);
            return id;
        }
    }
    free(r);
untracked:
    probe_drop_limit(t);
    return untracked_id(id);
}

static void emit_unbalanced_end(struct probe_thread *t, uint64_t now)
{
    struct ps_wire_nvtx *u = probe_reserve(t, sizeof *u);
    if (!u)
        return;
    *u = (struct ps_wire_nvtx){{sizeof *u, PS_WIRE_NVTX_UNBALANCED, PS_WIRE_UNBALANCED_END}, now, now, t->tid,
                               0, 0, 0};
    ps_ring_commit(&t->w, sizeof *u);
}

void probe_range_end(struct probe_thread *t, uint64_t id, uint64_t now)
{
    if (id & UNTRACKED) {
        uint64_t seq = id & SEQ_MASK;
        if (seq == 0 || seq > atomic_load_explicit(&last_id, memory_order_relaxed) || untracked_id(seq) != id)
            emit_unbalanced_end(t, now);   /* an id no start returned */
        return;                     /* else counted as dropped when it started */
    }
    struct open_range *r = NULL;
    for (uint32_t i = 0, s = slot_of(id); i < SLOTS; i++, s = (s + 1) & (SLOTS - 1)) {
        uint64_t cur = atomic_load_explicit(&slots[s].id, memory_order_acquire);
        if (cur == 0)
            break;
        if (cur != id)
            continue;
        r = atomic_load_explicit(&slots[s].r, memory_order_acquire);
        if (!atomic_compare_exchange_strong_explicit(&slots[s].id, &cur, TOMB, memory_order_acq_rel,
                                                     memory_order_relaxed))
            r = NULL;               /* another thread ended it at the same moment */
        break;
    }
    if (!r) {
        emit_unbalanced_end(t, now);
        return;
    }
    struct probe_msg m = {PS_WIRE_MSG_NONE, 0, NULL, 0};
    if (r->regid)
        m = (struct probe_msg){PS_WIRE_MSG_REGISTERED, r->regid, NULL, 0};
    else if (r->len)
        m = (struct probe_msg){PS_WIRE_MSG_INLINE, 0, r->text, r->len};
    struct ps_wire_nvtx_ext ext = {id, t->tid, 0};
    probe_emit_event(t, PS_WIRE_NVTX_STARTEND, r->start, now, r->tid, r->domain, &m, &r->attr, &ext);
    free(r);
}

void probe_ranges_forget(void)
{
    if (!atomic_load_explicit(&any_started, memory_order_relaxed))
        return;
    for (uint32_t s = 0; s < SLOTS; s++) {
        if (atomic_load_explicit(&slots[s].id, memory_order_relaxed) == 0)
            continue;               /* never used: reading it costs no page copy */
        uint64_t id = atomic_load_explicit(&slots[s].id, memory_order_relaxed);
        if (id != TOMB)
            free(atomic_load_explicit(&slots[s].r, memory_order_relaxed));
        atomic_store_explicit(&slots[s].r, NULL, memory_order_relaxed);
        atomic_store_explicit(&slots[s].id, 0, memory_order_relaxed);
    }
}
