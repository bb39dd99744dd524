/* NVTX v3 injection: InitializeInjectionNvtx2 fills every CORE and CORE2 slot of each NVTX copy that
 * calls it with the handlers below, which turn marks, push/pop and start/end ranges, names and registered
 * strings into ring records (facts: the NVTX injection interface in nvtx3/nvtxDetail; types: nvtx3/nvToolsExt.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "probe.h"
#include "probe_ranges.h"
#include "probe_registry.h"

#define STACK_MAX (1u << 16)        /* push/pop nesting kept per domain; deeper ranges are counted as dropped */
_Static_assert(STACK_MAX <= PS_RING_OPEN_LEVELS, "the ring reader refuses a mirrored level of STACK_MAX or more");

static uint32_t domain_id(nvtxDomainHandle_t d)
{
    return d ? ((const struct probe_domain *)(const void *)d)->id : 0;
}

void probe_emit_event(struct probe_thread *t, uint16_t type, uint64_t start, uint64_t end, uint32_t tid,
                      uint32_t domain, const struct probe_msg *m, const struct ps_wire_nvtx_attr *attr,
                      const struct ps_wire_nvtx_ext *ext)
{
    int has_attr = attr && (attr->flags || attr->payload_type);
    uint32_t mf = m->flags & PS_WIRE_MSG_MASK;
    uint32_t tlen = mf == PS_WIRE_MSG_INLINE ? m->len : 0;
    uint32_t size = (uint32_t)(sizeof(struct ps_wire_nvtx) + (has_attr ? sizeof *attr : 0) +
                               (ext ? sizeof *ext : 0)) + probe_pad8(tlen);
    struct ps_wire_nvtx *r = probe_reserve(t, size);
    if (!r)
        return;
    *r = (struct ps_wire_nvtx){{size, type, (uint16_t)(mf | (has_attr ? PS_WIRE_HAS_ATTR : 0))},
                               start, end, tid, domain, mf == PS_WIRE_MSG_INLINE ? 0 : m->id, tlen};
    char *p = (char *)(r + 1);
    if (has_attr) {
        memcpy(p, attr, sizeof *attr);
        p += sizeof *attr;
    }
    if (ext) {
        memcpy(p, ext, sizeof *ext);
        p += sizeof *ext;
    }
    if (tlen) {
        memcpy(p, m->text, tlen - 1);   /* text may be cut: write our own NUL */
        memset(p + tlen - 1, 0, probe_pad8(tlen) - tlen + 1);
    }
    ps_ring_commit(&t->w, size);
}

/* A message for a wide string: converted to UTF-8 in the thread's buffer, then cached by content. */
static int msg_wide(struct probe_thread *t, const wchar_t *s, struct probe_msg *m)
{
    if (!s) {
        m->flags = PS_WIRE_MSG_NONE;
        return 0;
    }
    uint32_t len = probe_utf8_from_wide(s, t->utf8, sizeof t->utf8);
    return probe_msg_slow(t, t->utf8, len, NULL, m);
}

/* Colour, category and payload of `a` (fields past a->size are absent: older NVTX clients). */
static void attr_from(const nvtxEventAttributes_t *a, struct ps_wire_nvtx_attr *at)
{
    memset(at, 0, sizeof *at);
    if (!a)
        return;
    if (a->size >= offsetof(nvtxEventAttributes_t, color) + 4 && a->colorType == NVTX_COLOR_ARGB) {
        at->flags |= PS_WIRE_ATTR_COLOR;
        at->color = a->color;
    }
    if (a->size >= offsetof(nvtxEventAttributes_t, category) + 4 && a->category) {
        at->flags |= PS_WIRE_ATTR_CATEGORY;
        at->category = a->category;
    }
    if (a->size >= offsetof(nvtxEventAttributes_t, payload) + 8 && a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 &&
        a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT) {
        at->payload_type = a->payloadType;
        /* 4-byte payloads: keep their 4 bytes, zero the rest (the union's other half is garbage). */
        int four = a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
        memcpy(&at->payload, &a->payload, four ? 4 : 8);
    }
}

static int has_message(const nvtxEventAttributes_t *a)
{
    return a && a->size >= offsetof(nvtxEventAttributes_t, message) + sizeof(a->message);
}

/* The message of `a` for an event written in this thread's lane now (marks, push/pop). */
static int msg_from(struct probe_thread *t, const nvtxEventAttributes_t *a, struct probe_msg *m)
{
    m->flags = PS_WIRE_MSG_NONE;
    if (!has_message(a))
        return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return probe_msg_ascii(t, a->message.ascii, m);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return msg_wide(t, a->message.unicode, m);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        if (a->message.registered) {
            m->flags = PS_WIRE_MSG_REGISTERED;
            m->id = ((const struct probe_regstr *)(const void *)a->message.registered)->id;
        }
        return 0;
    }
    return 0;
}

/* ---- push/pop ---- */

static struct probe_stack *stack_of(struct probe_thread *t, uint32_t domain)
{
    if (domain == 0)
        return &t->dflt;
    if (domain >= t->ndom) {
        uint32_t n = domain + 8;
        struct probe_stack *d = realloc(t->dom, n * sizeof *d);
        if (!d)
            return NULL;
        memset(d + t->ndom, 0, (n - t->ndom) * sizeof *d);
        t->dom = d;
        t->ndom = n;
    }
    return &t->dom[domain];
}

static struct probe_frame *frame_push(struct probe_stack *s)
{
    if (s->depth == s->cap && s->cap < STACK_MAX) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        struct probe_frame *f = realloc(s->f, cap * sizeof *f);
        if (f) {
            s->f = f;
            s->cap = cap;
        }
    }
    if (s->depth < s->cap)
        return &s->f[s->depth++];
    s->depth++;                     /* too deep: kept only as a count, the range is dropped at its pop */
    return NULL;
}

/* Own the frame's inline text (the caller's buffer may be gone at the pop). */
static void frame_own_text(struct probe_frame *f)
{
    if ((f->msg.flags & PS_WIRE_MSG_MASK) != PS_WIRE_MSG_INLINE)
        return;
    char *c = malloc(f->msg.len);
    if (!c) {
        f->msg.flags = PROBE_FRAME_DROPPED;
        return;
    }
    memcpy(c, f->msg.text, f->msg.len - 1);
    c[f->msg.len - 1] = '\0';
    f->msg.text = c;
}

/* Mirror a pushed frame in the ring's open-range table, so a crash inside it still leaves a row (end NULL).
 * An inline message (a thread past its string-cache bound) is mirrored without its text; dropped frames are
 * not mirrored. */
static void frame_mirror(struct probe_thread *t, struct probe_frame *f, uint32_t domain, uint32_t level)
{
    uint32_t kind = f->msg.flags;
    f->open_slot = -1;
    if (kind == PS_WIRE_MSG_LANE || kind == PS_WIRE_MSG_REGISTERED)
        f->open_slot = ps_ring_open_begin(&t->w, f->start, t->tid, domain, level, kind, f->msg.id);
    else if (kind == PS_WIRE_MSG_NONE || kind == PS_WIRE_MSG_INLINE)
        f->open_slot = ps_ring_open_begin(&t->w, f->start, t->tid, domain, level, PS_WIRE_MSG_NONE, 0);
}

static int push_ex(uint64_t now, uint32_t domain, const nvtxEventAttributes_t *a)
{
    struct probe_thread *t = probe_thread_at(&now);
    struct probe_stack *s;
    if (!t || !(s = stack_of(t, domain)))
        return NVTX_NO_PUSH_POP_TRACKING;
    int level = (int)s->depth;
    struct probe_frame *f = frame_push(s);
    if (!f)
        return level;
    f->start = now;
    attr_from(a, &f->attr);
    if (msg_from(t, a, &f->msg) != 0)
        f->msg.flags = PROBE_FRAME_DROPPED;
    frame_own_text(f);
    frame_mirror(t, f, domain, (uint32_t)level);
    return level;
}

static void emit_unbalanced_pop(struct probe_thread *t, uint32_t domain, uint64_t now)
{
    struct ps_wire_nvtx *u = probe_reserve(t, sizeof *u);
    if (!u)
        return;
    *u = (struct ps_wire_nvtx){{sizeof *u, PS_WIRE_NVTX_UNBALANCED, 0}, now, now, t->tid, domain, 0, 0};
    ps_ring_commit(&t->w, sizeof *u);
}

static int pop_common(struct probe_thread *t, struct probe_stack *s, uint32_t domain, uint64_t now)
{
    if (s->depth == 0) {
        emit_unbalanced_pop(t, domain, now);
        return -1;
    }
    uint32_t level = --s->depth;
    if (level >= s->cap) {
        probe_drop_limit(t);
        return (int)level;
    }
    struct probe_frame *f = &s->f[level];
    /* Unmirror first: a crash before the record is committed then loses this range (as before mirroring
     * existed), never stores it twice. */
    ps_ring_open_end(&t->w, f->open_slot);
    if (f->msg.flags == PS_WIRE_MSG_LANE && !f->attr.flags && !f->attr.payload_type) {
        /* The hot case: one 40-byte record. */
        struct ps_wire_nvtx *r = probe_reserve(t, sizeof *r);
        if (r) {
            *r = (struct ps_wire_nvtx){{sizeof *r, PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_LANE}, f->start, now, t->tid,
                                       domain, f->msg.id, 0};
            ps_ring_commit(&t->w, sizeof *r);
        }
        return (int)level;
    }
    if (f->msg.flags & PROBE_FRAME_DROPPED)
        probe_drop(t);
    else
        probe_emit_event(t, PS_WIRE_NVTX_RANGE, f->start, now, t->tid, domain, &f->msg, &f->attr, NULL);
    if ((f->msg.flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_INLINE)
        free((char *)f->msg.text);
    return (int)level;
}

static int NVTX_API push_a(const char *msg)
{
    uint64_t now = probe_now();
    struct probe_thread *t = probe_thread_at(&now);
    if (!t)
        return NVTX_NO_PUSH_POP_TRACKING;
    struct probe_stack *s = &t->dflt;
    int level = (int)s->depth;
    struct probe_frame *f = frame_push(s);
    if (!f)
        return level;
    f->start = now;
    f->attr.flags = 0;
    f->attr.payload_type = 0;
    if (probe_msg_ascii(t, msg, &f->msg) != 0)
        f->msg.flags = PROBE_FRAME_DROPPED;
    else if (f->msg.flags != PS_WIRE_MSG_LANE)
        frame_own_text(f);
    frame_mirror(t, f, 0, (uint32_t)level);
    return level;
}

int probe_push_text(uint64_t now, const char *text, const struct ps_wire_nvtx_attr *attr)
{
    struct probe_thread *t = probe_thread_at(&now);
    if (!t)
        return NVTX_NO_PUSH_POP_TRACKING;
    struct probe_stack *s = &t->dflt;
    int level = (int)s->depth;
    struct probe_frame *f = frame_push(s);
    if (!f)
        return level;
    f->start = now;
    f->attr = *attr;
    if (probe_msg_ascii(t, text, &f->msg) != 0)
        f->msg.flags = PROBE_FRAME_DROPPED;
    else if (f->msg.flags != PS_WIRE_MSG_LANE)
        frame_own_text(f);
    frame_mirror(t, f, 0, (uint32_t)level);
    return level;
}

int probe_pop_default(uint64_t now)
{
    struct probe_thread *t = probe_thread();
    if (!t)
        return NVTX_NO_PUSH_POP_TRACKING;
    return pop_common(t, &t->dflt, 0, now);
}

static int NVTX_API push_w(const wchar_t *msg)
{
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_UNICODE, .message.unicode = msg};
    return push_ex(probe_now(), 0, &a);
}

static int NVTX_API push_attr(const nvtxEventAttributes_t *a)
{
    return push_ex(probe_now(), 0, a);
}

static int NVTX_API pop(void)
{
    uint64_t now = probe_now();
    struct probe_thread *t = probe_thread();
    if (!t)
        return NVTX_NO_PUSH_POP_TRACKING;
    return pop_common(t, &t->dflt, 0, now);
}

static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    return push_ex(probe_now(), domain_id(d), a);
}

static int NVTX_API domain_pop(nvtxDomainHandle_t d)
{
    uint64_t now = probe_now();
    struct probe_thread *t = probe_thread();
    struct probe_stack *s;
    if (!t || !(s = stack_of(t, domain_id(d))))
        return NVTX_NO_PUSH_POP_TRACKING;
    return pop_common(t, s, domain_id(d), now);
}

/* ---- marks ---- */

static void mark_ex(uint64_t now, uint32_t domain, const nvtxEventAttributes_t *a)
{
    struct probe_thread *t = probe_thread_at(&now);
    struct probe_msg m;
    struct ps_wire_nvtx_attr at;
    if (!t)
        return;
    attr_from(a, &at);
    if (msg_from(t, a, &m) != 0) {
        probe_drop(t);
        return;
    }
    probe_emit_event(t, PS_WIRE_NVTX_MARK, now, now, t->tid, domain, &m, &at, NULL);
}

static void NVTX_API mark_a(const char *msg)
{
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = msg};
    mark_ex(probe_now(), 0, &a);
}

static void NVTX_API mark_w(const wchar_t *msg)
{
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_UNICODE, .message.unicode = msg};
    mark_ex(probe_now(), 0, &a);
}

static void NVTX_API mark_attr(const nvtxEventAttributes_t *a)
{
    mark_ex(probe_now(), 0, a);
}

static void NVTX_API domain_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    mark_ex(probe_now(), domain_id(d), a);
}

/* ---- start/end ---- */

static nvtxRangeId_t start_ex(uint64_t now, uint32_t domain, const nvtxEventAttributes_t *a)
{
    struct probe_thread *t = probe_thread_at(&now);
    struct ps_wire_nvtx_attr at;
    const char *text = NULL;
    uint32_t regid = 0;
    if (!t)
        return 0;
    attr_from(a, &at);
    if (has_message(a)) {
        if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
            text = a->message.ascii;
        else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode) {
            probe_utf8_from_wide(a->message.unicode, t->utf8, sizeof t->utf8);
            text = t->utf8;
        }
        else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered)
            regid = ((const struct probe_regstr *)(const void *)a->message.registered)->id;
    }
    return probe_range_start(t, domain, now, text, regid, &at);
}

static nvtxRangeId_t NVTX_API start_a(const char *msg)
{
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = msg};
    return start_ex(probe_now(), 0, &a);
}

static nvtxRangeId_t NVTX_API start_w(const wchar_t *msg)
{
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_UNICODE, .message.unicode = msg};
    return start_ex(probe_now(), 0, &a);
}

static nvtxRangeId_t NVTX_API start_attr(const nvtxEventAttributes_t *a)
{
    return start_ex(probe_now(), 0, a);
}

static nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    return start_ex(probe_now(), domain_id(d), a);
}

static void NVTX_API range_end(nvtxRangeId_t id)
{
    uint64_t now = probe_now();
    struct probe_thread *t = probe_thread();
    if (t)
        probe_range_end(t, id, now);
}

static void NVTX_API domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;                        /* the range remembers its domain */
    range_end(id);
}

/* ---- names, domains, registered strings ---- */

static void NVTX_API name_category_a(uint32_t id, const char *name)
{
    if (name)
        probe_category_name(probe_thread(), 0, id, name);
}

static void NVTX_API name_category_w(uint32_t id, const wchar_t *name)
{
    struct probe_thread *t = probe_thread();
    if (t && name) {
        probe_utf8_from_wide(name, t->utf8, sizeof t->utf8);
        probe_category_name(t, 0, id, t->utf8);
    }
}

static void NVTX_API domain_name_category_a(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
    if (name)
        probe_category_name(probe_thread(), domain_id(d), id, name);
}

static void NVTX_API domain_name_category_w(nvtxDomainHandle_t d, uint32_t id, const wchar_t *name)
{
    struct probe_thread *t = probe_thread();
    if (t && name) {
        probe_utf8_from_wide(name, t->utf8, sizeof t->utf8);
        probe_category_name(t, domain_id(d), id, t->utf8);
    }
}

static void NVTX_API name_thread_a(uint32_t tid, const char *name)
{
    struct probe_thread *t = probe_thread();
    if (t && name)
        probe_emit_thread_name(t, tid, name);
}

static void NVTX_API name_thread_w(uint32_t tid, const wchar_t *name)
{
    struct probe_thread *t = probe_thread();
    if (t && name) {
        probe_utf8_from_wide(name, t->utf8, sizeof t->utf8);
        probe_emit_thread_name(t, tid, t->utf8);
    }
}

static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name)
{
    return name ? (nvtxDomainHandle_t)(void *)probe_domain_create(probe_thread(), name) : NULL;
}

static nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t *name)
{
    char buf[PROBE_MSG_MAX];
    if (!name)
        return NULL;
    probe_utf8_from_wide(name, buf, sizeof buf);
    return (nvtxDomainHandle_t)(void *)probe_domain_create(probe_thread(), buf);
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t d)
{
    (void)d;                        /* handles live as long as the process: events may still name them */
}

static nvtxStringHandle_t NVTX_API register_string_a(nvtxDomainHandle_t d, const char *s)
{
    return s ? (nvtxStringHandle_t)(void *)probe_string_register(probe_thread(), domain_id(d), s) : NULL;
}

static nvtxStringHandle_t NVTX_API register_string_w(nvtxDomainHandle_t d, const wchar_t *s)
{
    char buf[PROBE_MSG_MAX];
    if (!s)
        return NULL;
    probe_utf8_from_wide(s, buf, sizeof buf);
    return (nvtxStringHandle_t)(void *)probe_string_register(probe_thread(), domain_id(d), buf);
}

/* Resource naming (CORE2 6/7) has no wire record yet: accepted and ignored. */
static nvtxResourceHandle_t NVTX_API resource_create(nvtxDomainHandle_t d, nvtxResourceAttributes_t *a)
{
    (void)d;
    (void)a;
    return NULL;
}

static void NVTX_API resource_destroy(nvtxResourceHandle_t r)
{
    (void)r;
}

static void NVTX_API initialize(const void *reserved)
{
    (void)reserved;
}

/* ---- the entry point ---- */

struct slot_fn {
    unsigned id;
    NvtxFunctionPointer fn;
};

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

static const struct slot_fn core[] = {
    {NVTX_CBID_CORE_MarkEx, FN(mark_attr)},           {NVTX_CBID_CORE_MarkA, FN(mark_a)},
    {NVTX_CBID_CORE_MarkW, FN(mark_w)},               {NVTX_CBID_CORE_RangeStartEx, FN(start_attr)},
    {NVTX_CBID_CORE_RangeStartA, FN(start_a)},        {NVTX_CBID_CORE_RangeStartW, FN(start_w)},
    {NVTX_CBID_CORE_RangeEnd, FN(range_end)},         {NVTX_CBID_CORE_RangePushEx, FN(push_attr)},
    {NVTX_CBID_CORE_RangePushA, FN(push_a)},          {NVTX_CBID_CORE_RangePushW, FN(push_w)},
    {NVTX_CBID_CORE_RangePop, FN(pop)},               {NVTX_CBID_CORE_NameCategoryA, FN(name_category_a)},
    {NVTX_CBID_CORE_NameCategoryW, FN(name_category_w)}, {NVTX_CBID_CORE_NameOsThreadA, FN(name_thread_a)},
    {NVTX_CBID_CORE_NameOsThreadW, FN(name_thread_w)},
};

static const struct slot_fn core2[] = {
    {NVTX_CBID_CORE2_DomainMarkEx, FN(domain_mark)},
    {NVTX_CBID_CORE2_DomainRangeStartEx, FN(domain_start)},
    {NVTX_CBID_CORE2_DomainRangeEnd, FN(domain_end)},
    {NVTX_CBID_CORE2_DomainRangePushEx, FN(domain_push)},
    {NVTX_CBID_CORE2_DomainRangePop, FN(domain_pop)},
    {NVTX_CBID_CORE2_DomainResourceCreate, FN(resource_create)},
    {NVTX_CBID_CORE2_DomainResourceDestroy, FN(resource_destroy)},
    {NVTX_CBID_CORE2_DomainNameCategoryA, FN(domain_name_category_a)},
    {NVTX_CBID_CORE2_DomainNameCategoryW, FN(domain_name_category_w)},
    {NVTX_CBID_CORE2_DomainRegisterStringA, FN(register_string_a)},
    {NVTX_CBID_CORE2_DomainRegisterStringW, FN(register_string_w)},
    {NVTX_CBID_CORE2_DomainCreateA, FN(domain_create_a)},
    {NVTX_CBID_CORE2_DomainCreateW, FN(domain_create_w)},
    {NVTX_CBID_CORE2_DomainDestroy, FN(domain_destroy)},
    {NVTX_CBID_CORE2_Initialize, FN(initialize)},
};

/* Write our handlers into one module's table; slots the client lacks (older NVTX) are skipped. */
static int fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule mod, const struct slot_fn *fns, size_t n)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(mod, &table, &size) || !table)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (fns[i].id < size && table[fns[i].id])
            *table[fns[i].id] = fns[i].fn;
    return 0;
}

/* Called by each NVTX copy in the process on its first NVTX call (NVTX_INJECTION64_PATH). Returns 1 when
 * this copy's calls are now recorded, 0 to leave them no-ops (not under perfscope record, or the probe
 * could not start: see PERFSCOPE_LOG). Safe to call any number of times, from any thread. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    int err = probe_start();
    if (err)
        return 0;
    const NvtxExportTableCallbacks *cb = get_table ? get_table(NVTX_ETID_CALLBACKS) : NULL;
    if (!cb || cb->struct_size < sizeof *cb) {
        probe_log("this NVTX copy has no callback table: its calls are not recorded");
        return 0;
    }
    if (fill(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]) != 0 ||
        fill(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]) != 0) {
        probe_log("this NVTX copy refused its CORE/CORE2 tables: its calls are not recorded");
        return 0;
    }
    return 1;
}
