/* Message strings for the probe: wide (UTF-32) to UTF-8 conversion and the per-thread cache that turns
 * repeated messages into PS_WIRE_LANE_STRING ids, so a push/pop range costs one 40-byte record. */
#include <stdlib.h>
#include <string.h>

#include "probe.h"

#define STRS_MAX 8192               /* content-table slots per thread: at most 4096 distinct strings */

uint32_t probe_utf8_from_wide(const wchar_t *s, char *out, uint32_t cap)
{
    uint32_t n = 0;
    for (; *s; s++) {
        uint32_t c = (uint32_t)*s;
        char b[4];
        uint32_t k;
        if (c >= 0xD800 && c <= 0xDFFF)
            c = 0xFFFD;             /* lone surrogate: not a character (Unicode §3.9 D76) */
        if (c < 0x80) {
            b[0] = (char)c;
            k = 1;
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | (c >> 6));
            b[1] = (char)(0x80 | (c & 0x3F));
            k = 2;
        } else if (c < 0x10000) {
            b[0] = (char)(0xE0 | (c >> 12));
            b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
            k = 3;
        } else if (c <= 0x10FFFF) {
            b[0] = (char)(0xF0 | (c >> 18));
            b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[3] = (char)(0x80 | (c & 0x3F));
            k = 4;
        } else {
            b[0] = (char)0xEF;      /* U+FFFD */
            b[1] = (char)0xBF;
            b[2] = (char)0xBD;
            k = 3;
        }
        if (n + k + 1 > cap)
            break;
        memcpy(out + n, b, k);
        n += k;
    }
    out[n] = '\0';
    return n;
}

/* FNV-1a, 64 bit. */
static uint64_t hash_text(const char *s, uint32_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h | 1;                   /* 0 marks an empty slot */
}

static int strs_grow(struct probe_thread *t)
{
    uint32_t cap = t->nstrs_cap ? t->nstrs_cap * 2 : 64;
    struct probe_str *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (uint32_t i = 0; i < t->nstrs_cap; i++) {
        if (!t->strs[i].hash)
            continue;
        uint32_t j = (uint32_t)t->strs[i].hash & (cap - 1);
        while (n[j].hash)
            j = (j + 1) & (cap - 1);
        n[j] = t->strs[i];
    }
    free(t->strs);
    t->strs = n;
    t->nstrs_cap = cap;
    return 0;
}

/* Define lane string `id` = text in the thread's lane. 0, or -1 if the record was dropped. */
static int emit_lane_string(struct probe_thread *t, uint32_t id, const char *text, uint32_t len)
{
    uint32_t size = (uint32_t)sizeof(struct ps_wire_lane_string) + probe_pad8(len + 1);
    struct ps_wire_lane_string *r = probe_reserve(t, size);
    if (!r)
        return -1;
    r->h = (struct ps_wire_hdr){size, PS_WIRE_LANE_STRING, 0};
    r->id = id;
    r->len = len + 1;
    char *d = (char *)(r + 1);
    memcpy(d, text, len);
    memset(d + len, 0, size - sizeof *r - len);
    ps_ring_commit(&t->w, size);
    return 0;
}

/* Back up over a UTF-8 character cut at the end (continuation bytes 10xxxxxx). */
static uint32_t utf8_cut(const char *s, uint32_t len)
{
    if (len < PROBE_MSG_MAX - 1)
        return len;
    uint32_t n = len;
    while (n > 0 && ((uint8_t)s[n - 1] & 0xC0) == 0x80)
        n--;
    if (n > 0 && ((uint8_t)s[n - 1] & 0x80)) {
        uint8_t lead = (uint8_t)s[n - 1];
        uint32_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (len - (n - 1) < want)
            return n - 1;           /* the last character is incomplete: drop it */
    }
    return len;
}

int probe_msg_slow(struct probe_thread *t, const char *s, uint32_t len, struct probe_ptr_slot *slot,
                   struct probe_msg *m)
{
    len = utf8_cut(s, len);
    uint64_t h = hash_text(s, len);
    if (t->nstrs_cap) {
        for (uint32_t j = (uint32_t)h & (t->nstrs_cap - 1); t->strs[j].hash; j = (j + 1) & (t->nstrs_cap - 1)) {
            struct probe_str *e = &t->strs[j];
            if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) {
                if (slot)
                    *slot = (struct probe_ptr_slot){s, e->text, e->id, len};
                m->flags = PS_WIRE_MSG_LANE;
                m->id = e->id;
                return 0;
            }
        }
    }
    /* New text: keep it if the table has room (bounded memory), else send it inline. */
    uint32_t id = 0;
    char *copy = NULL;
    if ((t->nstrs + 1) * 2 > t->nstrs_cap && (t->nstrs_cap >= STRS_MAX || strs_grow(t) != 0))
        goto inline_msg;
    if (!t->w.ring || !(copy = malloc(len + 1)) || !(id = ps_ring_lane_string_id(&t->w)))
        goto inline_msg;
    memcpy(copy, s, len);
    copy[len] = '\0';
    if (emit_lane_string(t, id, copy, len) != 0) {
        free(copy);
        return -1;
    }
    uint32_t j = (uint32_t)h & (t->nstrs_cap - 1);
    while (t->strs[j].hash)
        j = (j + 1) & (t->nstrs_cap - 1);
    t->strs[j] = (struct probe_str){h, copy, id, len};
    t->nstrs++;
    if (slot)
        *slot = (struct probe_ptr_slot){s, copy, id, len};
    m->flags = PS_WIRE_MSG_LANE;
    m->id = id;
    return 0;
inline_msg:
    free(copy);
    m->flags = PS_WIRE_MSG_INLINE;
    m->text = s;
    m->len = len + 1;
    return 0;
}

void probe_strings_reset(struct probe_thread *t)
{
    for (uint32_t i = 0; i < t->nstrs_cap; i++)
        free(t->strs[i].text);
    free(t->strs);
    t->strs = NULL;
    t->nstrs = t->nstrs_cap = 0;
    memset(t->ptr, 0, sizeof t->ptr);
}
