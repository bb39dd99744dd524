/* PyTorch profiler (Kineto / Chrome trace) JSON reader: streams the file (plain or gzip) through libyajl-style
 * event callbacks, one event object at a time, into the trace model; simdjson drives them over bounded windows
 * (json_fast.h), libyajl's own streaming parse where that path declines (and for every error message). Handles the modern and
 * the pre-2.0 categories, µs timestamps as integers or floats (exact ns), and baseTimeNanoseconds. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>

#include "json_fast.h"
#include "read_kineto_impl.h"

#define JSON_CHUNK (256 * 1024)   /* parser input per call; small files get a buffer their size */
#define JSON_CHUNK_MAX (2 * PS_JSON_TOKEN_MAX)   /* the chunk doubles up to this while a token spans chunks */
#define GZ_CHUNK (128 * 1024)

struct key_name {
    enum role role;
    enum key key;
    const char *text;
    size_t len;
};
#define KN(role, key, text) { role, key, text, sizeof text - 1 }

static const struct key_name key_names[] = {
    KN(R_TOP, K_TRACE_EVENTS, "traceEvents"), KN(R_TOP, K_DEVPROPS, "deviceProperties"),
    KN(R_TOP, K_DIST, "distributedInfo"),     KN(R_TOP, K_BASE_TIME, "baseTimeNanoseconds"),
    KN(R_EVENT, K_PH, "ph"),   KN(R_EVENT, K_CAT, "cat"), KN(R_EVENT, K_NAME, "name"),
    KN(R_EVENT, K_PID, "pid"), KN(R_EVENT, K_TID, "tid"), KN(R_EVENT, K_TS, "ts"),
    KN(R_EVENT, K_DUR, "dur"), KN(R_EVENT, K_ARGS, "args"), KN(R_EVENT, K_ID, "id"),
    KN(R_ARGS, K_CORR, "correlation"), KN(R_ARGS, K_EXT, "External id"), KN(R_ARGS, K_EXT, "external id"),
    KN(R_ARGS, K_STREAM, "stream"),    KN(R_ARGS, K_DEVICE, "device"),   KN(R_ARGS, K_BYTES, "bytes"),
    KN(R_ARGS, K_SYNC_KIND, "cuda_sync_kind"), KN(R_ARGS, K_NAME, "name"),
    KN(R_ARGS, K_OCCUPANCY, "est. achieved occupancy %"),
    KN(R_DEV, K_ID, "id"), KN(R_DEV, K_NAME, "name"), KN(R_DEV, K_TOTAL_MEM, "totalGlobalMem"),
    KN(R_DEV, K_CC_MAJOR, "computeMajor"), KN(R_DEV, K_CC_MINOR, "computeMinor"), KN(R_DEV, K_NUM_SMS, "numSms"),
    KN(R_DIST, K_RANK, "rank"), KN(R_DIST, K_WORLD_SIZE, "world_size"),
    KN(R_ARGS, K_MEM_DEV_TYPE, "Device Type"), KN(R_ARGS, K_MEM_DEV_ID, "Device Id"), KN(R_ARGS, K_MEM_ADDR, "Addr"),
    KN(R_ARGS, K_MEM_BYTES, "Bytes"), KN(R_ARGS, K_MEM_TOTAL_ALLOC, "Total Allocated"),
    KN(R_ARGS, K_MEM_TOTAL_RES, "Total Reserved"),
    KN(R_ARGS, K_IN_NELEMS, "In msg nelems"), KN(R_ARGS, K_OUT_NELEMS, "Out msg nelems"), KN(R_ARGS, K_DTYPE, "dtype"),
    KN(R_ARGS, K_WAIT_STREAM, "wait_on_stream"), KN(R_ARGS, K_WAIT_RECORD, "wait_on_cuda_event_record_corr_id"),
};

/* Args read leniently: a value of another JSON type or out of range leaves the fact unknown, never fails the
 * trace (what a wait waits on names a cause; it is no number the report sums). */
static int lenient_arg(enum key k)
{
    return k == K_WAIT_STREAM || k == K_WAIT_RECORD;
}

/* The element size of a c10 ScalarType name as PyTorch's profiler writes a collective's "dtype" (c10/core/
 * ScalarType.h); 0 for one not listed. */
static int dtype_bytes(const unsigned char *s, size_t len)
{
    static const struct { const char *name; int bytes; } types[] = {
        { "Float", 4 }, { "Half", 2 }, { "BFloat16", 2 }, { "Double", 8 }, { "Int", 4 }, { "Long", 8 },
        { "Short", 2 }, { "Byte", 1 }, { "Char", 1 }, { "Bool", 1 }, { "ComplexHalf", 4 }, { "ComplexFloat", 8 },
        { "ComplexDouble", 16 }, { "Float8_e5m2", 1 }, { "Float8_e4m3fn", 1 }, { "Float8_e5m2fnuz", 1 },
        { "Float8_e4m3fnuz", 1 }, { "UInt16", 2 }, { "UInt32", 4 }, { "UInt64", 8 },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == len && memcmp(types[i].name, s, len) == 0)
            return types[i].bytes;
    return 0;
}

/* Record the first error (naming the event when inside traceEvents); returns 0 to cancel the parse. */
static int fail(struct kctx *c, const char *msg)
{
    if (!c->failed) {
        int in_events = 0;
        for (int i = 0; i < c->depth && i < MAX_FRAMES; i++)
            in_events |= c->roles[i] == R_EVENTS;
        if (in_events)
            ps_read_fail(c->err, c->errlen, "%s: event %lld: %s", c->path, c->index, msg);
        else
            ps_read_fail(c->err, c->errlen, "%s: %s", c->path, msg);
    }
    c->failed = 1;
    return 0;
}

/* fail() for memory that ran out (the read then returns -ENOMEM). */
static int fail_oom(struct kctx *c)
{
    c->out_of_memory |= !c->failed;
    return fail(c, "out of memory");
}

static enum role cur_role(const struct kctx *c)
{
    if (c->overflow || c->depth == 0)
        return R_SKIP;
    return c->roles[c->depth - 1];
}

static enum key cur_key(const struct kctx *c)
{
    return c->keys[c->depth - 1];
}

/* Called first in every callback: yajl's offset is then just after the token being passed (its error offsets
 * are not uniform, so parse errors are placed from here: see error_byte). */
static struct kctx *mark(void *ctx)
{
    struct kctx *c = ctx;
    if (c->h)                        /* none on the fast path, which leaves errors to libyajl (json_fast.h) */
        c->last_end = c->base + (long long)yajl_get_bytes_consumed(c->h);
    return c;
}

static const char *key_text(enum key k)
{
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (key_names[i].key == k)
            return key_names[i].text;
    return "?";
}

/* ---- yajl callbacks ---- */

static int type_error(struct kctx *c, enum key k, const char *want)
{
    char what[96];
    snprintf(what, sizeof what, "\"%s\" is not %s", key_text(k), want);
    return fail(c, what);
}

/* A known key whose value has the wrong JSON type (`got`: "a boolean", "an array", ...): the message says what it
 * must be (role: the container the key is in). */
static int wrong_type(struct kctx *c, enum key k, const char *got)
{
    enum role role = cur_role(c);
    const char *want = role != R_EVENT ? (k == K_NAME || k == K_SYNC_KIND ? "a string" : "a number")
                       : k == K_TS || k == K_DUR ? "a number" : k == K_PID || k == K_TID ? "a number or a string"
                       : k == K_ARGS ? "an object" : "a string";
    char what[128];
    snprintf(what, sizeof what, "\"%s\" is not %s (it is %s)", key_text(k), want, got);
    return fail(c, what);
}

/* An integer field that must lie in [lo, hi] (the range of the model field it goes to): anything else is an
 * error naming the key, never a wrapped or clamped value. */
static int number_field(struct kctx *c, enum key k, const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
    if (ps_parse_int(s, len, out) < 0 || *out < lo || *out > hi) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" is not an integer in range %lld..%lld (%.*s)", key_text(k), (long long)lo,
                 (long long)hi, len > 24 ? 24 : (int)len, s);
        return fail(c, what);
    }
    return 1;
}

/* A [memory] arg (ps_kineto_mem_arg: one that is not an integer drops its record). A size ("Bytes", a free's
 * negative) or total ("Total Allocated", "Total Reserved") beyond PS_MEM_BYTES_MAX either way, int64 or not, is
 * an error naming the key: no memory holds that much, and the memory view's sums must stay in int64. */
static int mem_arg(struct kctx *c, enum key k, const char *s, size_t len)
{
    int64_t v;
    double d = 0;
    char text[64];
    if (k == K_MEM_BYTES || k == K_MEM_TOTAL_ALLOC || k == K_MEM_TOTAL_RES) {
        if (ps_parse_int(s, len, &v) == 0) {
            d = (double)v;
        } else if (len < sizeof text) {   /* a number past int64 (1e30, "1e999") is as implausible */
            char *end;
            memcpy(text, s, len);
            text[len] = '\0';
            d = strtod(text, &end);
            d = end > text && *end == '\0' ? d : 0;
        }
        if (d > (double)PS_MEM_BYTES_MAX || d < -(double)PS_MEM_BYTES_MAX)
            return number_field(c, k, s, len, k == K_MEM_BYTES ? -PS_MEM_BYTES_MAX : 0, PS_MEM_BYTES_MAX, &v);
    }
    ps_kineto_mem_arg(c, k, s, len);
    return 1;
}

/* A number in `args` (also given as a string holding exactly an integer, as ROCm's tracer writes "bytes": "128"). */
static int arg_number(struct kctx *c, enum key k, const char *s, size_t len)
{
    struct event *e = &c->ev;
    switch (k) {
    case K_CORR: e->has_corr = 1; return number_field(c, k, s, len, 0, INT64_MAX, &e->corr);
    case K_EXT: e->has_ext = 1; return number_field(c, k, s, len, 0, INT64_MAX, &e->ext);
    case K_STREAM: e->has_stream = 1; return number_field(c, k, s, len, INT64_MIN, INT64_MAX, &e->stream);
    case K_DEVICE: e->has_device = 1; return number_field(c, k, s, len, 0, INT32_MAX, &e->device);
    case K_BYTES: e->has_bytes = 1; return number_field(c, k, s, len, 0, INT64_MAX, &e->bytes);
    case K_OCCUPANCY: e->has_occupancy = ps_kineto_occupancy(s, len, &e->occupancy_pct);
        return 1;   /* an estimate: one that is not a percentage is left out, never an error */
    case K_MEM_DEV_TYPE: case K_MEM_DEV_ID: case K_MEM_ADDR: case K_MEM_BYTES: case K_MEM_TOTAL_ALLOC:
    case K_MEM_TOTAL_RES: return mem_arg(c, k, s, len);
    case K_WAIT_STREAM: case K_WAIT_RECORD: {   /* Kineto writes -1 for "unknown" (stream and correlation alike) */
        int64_t v;
        int ok = ps_parse_int(s, len, &v) == 0;
        if (k == K_WAIT_STREAM)
            e->wait_stream = ok && v >= 0 && v < UINT32_MAX ? v : -1;   /* CUPTI stream ids are uint32 */
        else
            e->wait_record = ok && v > 0 ? v : 0;
        return 1;
    }
    case K_IN_NELEMS: case K_OUT_NELEMS: {   /* a message size: one out of range is left out, never an error */
        int64_t v;
        if (ps_parse_int(s, len, &v) == 0 && v > 0)
            *(k == K_IN_NELEMS ? &e->in_nelems : &e->out_nelems) = v;
        return 1;
    }
    default: return 1;
    }
}

static int top_meta(struct kctx *c, const char *s, size_t len)
{
    char key[80], *value;
    snprintf(key, sizeof key, "kineto.%s", c->top_key);
    int rc = ps_nul_escape_dup(s, len, &value);
    if (rc == 0)
        rc = ps_model_add_meta(c->m, key, value);
    free(value);
    return rc < 0 ? fail_oom(c) : 1;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    struct kctx *c = mark(ctx);
    struct event *e = &c->ev;
    enum role role = cur_role(c);
    if (role == R_SKIP)
        return 1;
    if (role == R_EVENTS)
        return fail(c, "the event is not an object");
    enum key k = cur_key(c);
    int64_t v;
    if (role == R_EVENT && k == K_ARGS)
        return wrong_type(c, k, "a number");
    switch (role) {
    case R_TOP:
        if (k == K_BASE_TIME) {
            c->has_base = 1;
            int rc = number_field(c, k, s, len, INT64_MIN, INT64_MAX, &c->base_ns);
            return rc == 1 ? top_meta(c, s, len) : rc;   /* kept: --compat tb redoes tb's float µs arithmetic */
        }
        return top_meta(c, s, len);
    case R_EVENT:
        if (k == K_TS || k == K_DUR) {
            if (ps_parse_us_to_ns(s, len, k == K_TS ? &e->ts_ns : &e->dur_ns) < 0)
                return type_error(c, k, "a number of µs in range");
            *(k == K_TS ? &e->has_ts : &e->has_dur) = 1;
            if (k == K_DUR)
                e->dur_negative = s[0] == '-' && ps_json_number_negative(s, len);
        } else if (k == K_PID || k == K_TID) {
            struct idval *id = k == K_PID ? &e->pid : &e->tid;
            /* OS ids are stored as uint32; some traces print 32-bit thread ids as negative int32 values. */
            if (!number_field(c, k, s, len, INT32_MIN, UINT32_MAX, &id->v))
                return 0;
            id->set = id->numeric = 1;
            id->v = (int64_t)(uint32_t)id->v;
        } else if (k == K_ID) {
            e->has_id = ps_parse_int(s, len, &e->id) == 0 && e->id >= 0;   /* other ids: not a flow TraceLens links */
        } else if (k == K_PH || k == K_CAT || k == K_NAME) {
            return type_error(c, k, "a string");
        }
        return 1;
    case R_ARGS:
        return arg_number(c, k, s, len);
    case R_DEV:
        if (k == K_ID || k == K_TOTAL_MEM || k == K_CC_MAJOR || k == K_CC_MINOR || k == K_NUM_SMS) {
            if (!number_field(c, k, s, len, k == K_ID ? 0 : -1, k == K_TOTAL_MEM ? INT64_MAX : INT32_MAX, &v))
                return 0;
            if (k == K_ID) c->dev.id = (int32_t)v;
            if (k == K_TOTAL_MEM) c->dev.total_mem_bytes = v;
            if (k == K_CC_MAJOR) c->dev.cc_major = (int32_t)v;
            if (k == K_CC_MINOR) c->dev.cc_minor = (int32_t)v;
            if (k == K_NUM_SMS) c->dev.sm_count = (int32_t)v;
        }
        return 1;
    case R_DIST:
        if (k == K_RANK || k == K_WORLD_SIZE) {
            if (!number_field(c, k, s, len, 0, INT32_MAX, &v))
                return 0;
            *(k == K_RANK ? &c->m->rank : &c->m->world_size) = (int32_t)v;
        }
        return 1;
    default:
        return 1;
    }
}

/* pid/tid strings: "25738" (pre-2.0 traces), "stream 7" (pre-2.0 GPU tids), or a label ("Spans"). Digits out of
 * the id range are the same error as the number would be (1 ok, 0 failed). */
static int id_from_string(struct kctx *c, enum key k, struct idval *id, const unsigned char *s, size_t len)
{
    id->set = 1;
    id->numeric = 0;
    if (len > 7 && memcmp(s, "stream ", 7) == 0)
        s += 7, len -= 7;
    size_t i = len > 1 && s[0] == '-';
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i < len || len == 0)
        return 1;                   /* a label */
    /* as the number would be: uint32, or a negative int32 taken modulo 2^32 */
    if (!number_field(c, k, (const char *)s, len, INT32_MIN, UINT32_MAX, &id->v))
        return 0;
    id->v = (int64_t)(uint32_t)id->v;
    id->numeric = 1;
    return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    struct kctx *c = mark(ctx);
    struct event *e = &c->ev;
    enum role role = cur_role(c);
    if (role == R_SKIP)
        return 1;
    if (role == R_EVENTS)
        return fail(c, "the event is not an object");
    enum key k = cur_key(c);
    int rc = 0;
    switch (role) {
    case R_TOP:
        return top_meta(c, (const char *)s, len);
    case R_EVENT:
        switch (k) {
        case K_PH: e->ph = len == 1 && s[0] > ' ' && s[0] < 127 ? (char)s[0] : len ? '?' : 0; break;
        case K_ARGS: return wrong_type(c, k, "a string");
        case K_CAT: e->has_cat = 1; rc = ps_kineto_buf_set(&e->cat, s, len); break;
        case K_NAME: e->has_name = 1; rc = ps_kineto_buf_set(&e->name, s, len); break;
        case K_PID: return id_from_string(c, k, &e->pid, s, len);
        case K_TID: return id_from_string(c, k, &e->tid, s, len);
        case K_TS: case K_DUR: return type_error(c, k, "a number");
        default: break;
        }
        break;
    case R_ARGS:
        if (k == K_SYNC_KIND)
            e->sync_kind = ps_kineto_sync_kind(s, len);
        else if (k == K_DTYPE)
            e->dtype_bytes = dtype_bytes(s, len);
        else if (k == K_NAME)
            e->has_arg_name = 1, rc = ps_kineto_buf_set(&e->arg_name, s, len);
        else if (lenient_arg(k))
            return arg_number(c, k, (const char *)s, len);   /* "7" as 7; "abc" leaves it unknown */
        else if (k >= K_MEM_DEV_TYPE)   /* [memory] args: a bad one drops that record only, a huge size fails */
            return mem_arg(c, k, (const char *)s, len);
        else if (k != K_OTHER && ps_json_integer_text(s, len))
            return arg_number(c, k, (const char *)s, len);
        else if (k != K_OTHER && k != K_OCCUPANCY && k != K_IN_NELEMS && k != K_OUT_NELEMS)   /* left out */
            return type_error(c, k, "a number (or a string holding exactly an integer)");
        break;
    case R_DEV:
        if (k == K_NAME && (c->dev.name = ps_intern_bytes(c->m, (const char *)s, len)) == PS_NONE)
            rc = -ENOMEM;
        else if (k != K_NAME && k != K_OTHER)   /* "numSms": "132": never a silently unknown value */
            return wrong_type(c, k, "a string");
        break;
    case R_DIST:
        if (k != K_OTHER)
            return wrong_type(c, k, "a string");
        break;
    default:
        break;
    }
    return rc < 0 ? fail_oom(c) : 1;
}

static int cb_bool(void *ctx, int v)
{
    struct kctx *c = mark(ctx);
    (void)v;
    enum role role = cur_role(c);
    if (role == R_EVENTS)
        return fail(c, "the event is not an object");
    if (role != R_SKIP && role != R_TOP && role != R_DEVPROPS && cur_key(c) != K_OTHER &&
        !(role == R_ARGS && lenient_arg(cur_key(c))))
        return wrong_type(c, cur_key(c), "a boolean");
    return 1;
}

static int cb_null(void *ctx)
{
    struct kctx *c = mark(ctx);
    if (cur_role(c) == R_EVENTS)
        return fail(c, "the event is not an object");
    return 1;                        /* null = absent */
}

static int open_container(struct kctx *c, int is_map)
{
    enum role parent = c->depth ? cur_role(c) : R_TOP, role = R_SKIP;
    if (c->overflow || c->depth == MAX_FRAMES) {
        c->overflow++;
        return 1;
    }
    if (c->depth == 0) {
        role = is_map ? R_TOP : R_EVENTS;     /* a bare array is the Chrome trace "JSON array format" */
    } else if (parent == R_TOP) {
        enum key k = cur_key(c);
        if (k == K_TRACE_EVENTS && !is_map)
            role = R_EVENTS;
        else if (k == K_DEVPROPS && !is_map)
            role = R_DEVPROPS;
        else if (k == K_DIST && is_map)
            role = R_DIST;
    } else if (parent == R_EVENTS) {
        if (!is_map)
            return fail(c, "the event is not an object");
        role = R_EVENT;
        ps_kineto_event_reset(&c->ev);
    } else if (parent == R_EVENT) {
        enum key k = cur_key(c);
        if (k == K_ARGS && is_map)
            role = R_ARGS;
        else if (k != K_OTHER)       /* "args": [1,2] would lose the event's correlation without a word */
            return wrong_type(c, k, is_map ? "an object" : "an array");
    } else if ((parent == R_ARGS || parent == R_DEV || parent == R_DIST) && cur_key(c) != K_OTHER &&
               !(parent == R_ARGS && lenient_arg(cur_key(c)))) {
        return wrong_type(c, cur_key(c), is_map ? "an object" : "an array");
    } else if (parent == R_DEVPROPS && is_map) {
        role = R_DEV;
        c->dev = (struct ps_device){ .id = -1, .name = PS_NONE, .cc_major = -1, .cc_minor = -1, .sm_count = -1,
                                     .total_mem_bytes = -1 };
    }
    c->roles[c->depth] = role;
    c->keys[c->depth] = K_OTHER;
    c->depth++;
    return 1;
}

static int close_container(struct kctx *c)
{
    if (c->overflow) {
        c->overflow--;
        return 1;
    }
    enum role role = c->roles[--c->depth];
    if (role == R_EVENT)
        return ps_kineto_finish_event(c) < 0 ? fail_oom(c) : 1;
    if (role == R_DEV && c->dev.id >= 0) {
        uint32_t i = ps_model_device(c->m, c->dev.id);
        if (i == PS_NONE)
            return fail_oom(c);
        c->m->devices.v[i] = c->dev;
    }
    return 1;
}

static int cb_start_map(void *ctx) { return open_container(mark(ctx), 1); }
static int cb_start_array(void *ctx) { return open_container(mark(ctx), 0); }
static int cb_end(void *ctx) { return close_container(mark(ctx)); }

/* key_names by (role, text): open addressing, built once (a key is looked up for every member of every event). */
#define KEY_SLOTS 256
static uint8_t key_slot[KEY_SLOTS];      /* 1 + index into key_names; 0: empty */
static pthread_once_t key_slots_once = PTHREAD_ONCE_INIT;

static unsigned key_hash(enum role role, const unsigned char *s, size_t len)
{
    return ((unsigned)role * 61u + (unsigned)len * 31u + s[0] * 7u + s[len - 1]) & (KEY_SLOTS - 1);
}

static void key_slots_build(void)
{
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
        unsigned h = key_hash(key_names[i].role, (const unsigned char *)key_names[i].text, key_names[i].len);
        while (key_slot[h])
            h = (h + 1) & (KEY_SLOTS - 1);
        key_slot[h] = (uint8_t)(i + 1);
    }
}

static enum key lookup_key(enum role role, const unsigned char *s, size_t len)
{
    if (len == 0)
        return K_OTHER;
    pthread_once(&key_slots_once, key_slots_build);
    for (unsigned h = key_hash(role, s, len); key_slot[h]; h = (h + 1) & (KEY_SLOTS - 1)) {
        const struct key_name *k = &key_names[key_slot[h] - 1];
        if (k->len == len && k->role == role && memcmp(k->text, s, len) == 0)
            return k->key;
    }
    return K_OTHER;
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    struct kctx *c = mark(ctx);
    enum role role = cur_role(c);
    if (role == R_SKIP)
        return 1;
    c->keys[c->depth - 1] = lookup_key(role, s, len);
    if (role == R_TOP)
        snprintf(c->top_key, sizeof c->top_key, "%.*s", len > 60 ? 60 : (int)len, (const char *)s);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null, .yajl_boolean = cb_bool, .yajl_number = cb_number, .yajl_string = cb_string,
    .yajl_start_map = cb_start_map, .yajl_map_key = cb_map_key, .yajl_end_map = cb_end,
    .yajl_start_array = cb_start_array, .yajl_end_array = cb_end,
};

/* ---- the trace model and the per-operator model's events in one pass ----
 * Each value goes to the reader's callback, then to kineto_ops.c's; the read stops when the reader's refuses a
 * value, and only the events are dropped when theirs does (as a separate ps_read_kineto_ops would fail alone). */

struct tee {
    struct kctx *k;
    struct ps_kineto_ops *ops;
    const yajl_callbacks *ocb;
    int ops_failed;
};

static int tee_ops(struct tee *t, int ok)
{
    t->ops_failed |= !ok;
    return 1;
}

#define TEE_OPS(t, call) ((t)->ops_failed || tee_ops((t), (t)->ocb->call))
static int tee_null(void *x)
{
    struct tee *t = x;
    return cb_null(t->k) && TEE_OPS(t, yajl_null(t->ops));
}
static int tee_bool(void *x, int v)
{
    struct tee *t = x;
    return cb_bool(t->k, v) && TEE_OPS(t, yajl_boolean(t->ops, v));
}
static int tee_number(void *x, const char *s, size_t len)
{
    struct tee *t = x;
    return cb_number(t->k, s, len) && TEE_OPS(t, yajl_number(t->ops, s, len));
}
static int tee_string(void *x, const unsigned char *s, size_t len)
{
    struct tee *t = x;
    return cb_string(t->k, s, len) && TEE_OPS(t, yajl_string(t->ops, s, len));
}
static int tee_key(void *x, const unsigned char *s, size_t len)
{
    struct tee *t = x;
    return cb_map_key(t->k, s, len) && TEE_OPS(t, yajl_map_key(t->ops, s, len));
}
static int tee_start_map(void *x)
{
    struct tee *t = x;
    return cb_start_map(t->k) && TEE_OPS(t, yajl_start_map(t->ops));
}
static int tee_end_map(void *x)
{
    struct tee *t = x;
    return cb_end(t->k) && TEE_OPS(t, yajl_end_map(t->ops));
}
static int tee_start_array(void *x)
{
    struct tee *t = x;
    return cb_start_array(t->k) && TEE_OPS(t, yajl_start_array(t->ops));
}
static int tee_end_array(void *x)
{
    struct tee *t = x;
    return cb_end(t->k) && TEE_OPS(t, yajl_end_array(t->ops));
}

static const yajl_callbacks tee_callbacks = {
    .yajl_null = tee_null, .yajl_boolean = tee_bool, .yajl_number = tee_number, .yajl_string = tee_string,
    .yajl_start_map = tee_start_map, .yajl_map_key = tee_key, .yajl_end_map = tee_end_map,
    .yajl_start_array = tee_start_array, .yajl_end_array = tee_end_array,
};

/* ---- after the parse ---- */

/* "overhead: 2; cuda_profiler_range: 1" as the metadata entry "ignored_events" (none: no entry). */
static int ignored_summary(const struct kctx *c)
{
    char text[PS_KINETO_N_IGNORED * 48] = "";
    size_t off = 0;
    for (int i = 0; i < PS_KINETO_N_IGNORED; i++)
        if (c->ignored[i])
            off += (size_t)snprintf(text + off, sizeof text - off, "%s%s: %lld", off ? "; " : "",
                                    ps_kineto_ignored_name(i), c->ignored[i]);
    return off ? ps_model_add_meta(c->m, "ignored_events", text) : 0;
}

static int finish_model(struct kctx *c)
{
    struct ps_model *m = c->m;
    if (c->has_base && ps_model_shift_times(m, c->base_ns) < 0)
        return ps_read_fail(c->err, c->errlen, "%s: baseTimeNanoseconds %lld + event times overflow int64 ns",
                            c->path, (long long)c->base_ns);
    for (size_t i = 0; i < m->threads.n; i++)
        if (ps_model_process(m, m->threads.v[i].pid) == PS_NONE)
            goto oom;
    if (ps_kineto_names_apply(m, &c->names) < 0 ||
        ps_kflows_finish(&c->flows, m) < 0 || ps_unplaced_summary(&c->unplaced, m) < 0 || ignored_summary(c) < 0)
        goto oom;
    return 0;
oom:
    return ps_read_oom(c->err, c->errlen, c->path);
}

/* Report a yajl error; p[0..n) is the last chunk given to yajl (at_end: the error came at the end of the text). */
static void parse_error(struct kctx *c, const unsigned char *p, size_t n, int at_end)
{
    unsigned char *msg = yajl_get_error(c->h, 0, p, n);
    const char *text = msg ? (const char *)msg : "parse error";
    while (*text == ' ' || *text == '\n')
        text++;
    if (at_end && strstr(text, "premature EOF"))
        ps_read_fail(c->err, c->errlen, "%s: truncated JSON: the text ends after %lld bytes inside an unfinished "
                     "value (event %lld)", c->path, c->base + (long long)n, c->index);
    else
        ps_read_fail(c->err, c->errlen, "%s: byte %lld of the JSON (event %lld): invalid JSON: %.120s", c->path,
                     ps_json_error_byte(p, n, at_end ? n : yajl_get_bytes_consumed(c->h), c->base, c->last_end, text), c->index, text);
    if (msg)
        yajl_free_error(c->h, msg);
    char *nl = c->err ? strchr(c->err, '\n') : NULL;
    if (nl)
        *nl = '\0';
}

/* The text breaks a rule of kineto_text.h's enum ps_json_flaw at sc->flaw_at (libyajl took the bytes before it). */
static void flaw_error(struct kctx *c, const struct ps_json_scan *sc)
{
    static const char *const what[] = { [PS_JSON_FLAW_LONG_STRING] = "string", [PS_JSON_FLAW_LONG_NUMBER] = "number" };
    char max[32];
    snprintf(max, sizeof max, PS_JSON_TOKEN_MAX % (1 << 20) ? "%zu bytes" : "%zu MiB",
             PS_JSON_TOKEN_MAX % (1 << 20) ? PS_JSON_TOKEN_MAX : PS_JSON_TOKEN_MAX >> 20);
    if (sc->flaw == PS_JSON_FLAW_LONG_STRING || sc->flaw == PS_JSON_FLAW_LONG_NUMBER)
        ps_read_fail(c->err, c->errlen, "%s: byte %lld of the JSON (event %lld): a %s longer than %s starts here: "
                     "perfscope reads strings and numbers of up to %s (a profiler writes names and arguments of a "
                     "few KB): a damaged or crafted file?", c->path, sc->flaw_at, c->index, what[sc->flaw], max, max);
    else if (sc->flaw == PS_JSON_FLAW_UTF8)
        ps_read_fail(c->err, c->errlen, "%s: byte %lld of the JSON (event %lld): invalid JSON: a string holds %s, "
                     "which is not UTF-8 (RFC 3629: no overlong forms, no encoded UTF-16 surrogates, no bytes C0, C1, "
                     "F5 to FF)", c->path, sc->flaw_at, c->index, sc->flaw_text);
    else
        ps_read_fail(c->err, c->errlen, "%s: byte %lld of the JSON (event %lld): invalid JSON: a string holds %s, "
                     "half of a UTF-16 surrogate pair without its other half: no character (RFC 8259 section 8.2)",
                     c->path, sc->flaw_at, c->index, sc->flaw_text);
    c->failed = 1;
}

/* The Trace Event Format's JSON Array Format may lack its closing ']' ("to support tracing systems that can not
 * cleanly finish writing the trace"): accepted when the text ends after a complete event (or the '[' or a ','). */
static int open_array_is_complete(const struct kctx *c, const struct ps_json_scan *st)
{
    return !c->failed && !c->overflow && c->depth == 1 && c->roles[0] == R_EVENTS && !st->in_str && !st->in_lit &&
           (st->last == '}' || st->last == ',' || st->last == '[');
}

/* The text through libyajl, chunk by chunk, into callbacks cb on ctx (c's, or a tee holding c): 0, or a negative
 * errno (message set). */
static int parse_yajl(struct kctx *c, int fd, int gzip, const yajl_callbacks *cb, void *ctx)
{
    struct stat st;
    struct ps_json_scan sc = { .tok_start = -1 };
    size_t file_size = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : JSON_CHUNK;
    /* gzip of JSON inflates ~10-40x: a small compressed file still gets the full parser chunk */
    size_t cap = gzip ? JSON_CHUNK : (file_size + 1 < JSON_CHUNK ? file_size + 1 : JSON_CHUNK), have = 0;
    struct ps_gz_input *in;
    int in_rc = ps_gz_open(fd, gzip, file_size < GZ_CHUNK ? file_size + 1 : GZ_CHUNK, &in);
    unsigned char *chunk = malloc(cap);
    size_t last_n = 0, skip = 0;     /* the chunk last given to yajl: chunk + skip, last_n bytes, at c->base */
    long long offset = 0;            /* bytes of JSON read so far (a byte-order mark included) */
    int rc = -EINVAL, eof = 0;
    c->h = yajl_alloc(cb, NULL, ctx);
    if (in_rc < 0 || !chunk || !c->h) {
        rc = ps_read_oom(c->err, c->errlen, c->path);
        goto out;
    }
    while (!eof) {
        long n = ps_gz_read(in, (char *)chunk + have, cap - have, c->path, c->err, c->errlen);
        if (n < 0) {
            rc = (int)n;
            goto out;
        }
        eof = n == 0;
        /* up to the first byte that breaks a rule libyajl does not check (kineto_text.h: a token longer than
         * PS_JSON_TOKEN_MAX, text that is not UTF-8): libyajl reads the bytes before it, then the read stops */
        size_t scanned = ps_json_scan_bytes(&sc, chunk + have, (size_t)n, have);
        int mid = ps_json_scan_mid(&sc), flawed = sc.flaw != PS_JSON_FLAW_NONE;
        have += scanned;
        if (!eof && !flawed && mid && have < cap)
            continue;                /* fill the chunk while its end is inside a token */
        if (have == 0 && !flawed)
            break;
        /* a UTF-8 byte-order mark (RFC 8259 §8.1: a parser may ignore it) */
        skip = offset == 0 && have >= 3 && !memcmp(chunk, "\xef\xbb\xbf", 3) ? 3 : 0;
        c->base = offset + (long long)skip;
        last_n = have - skip;
        if (yajl_parse(c->h, chunk + skip, last_n) != yajl_status_ok) {
            if (!c->failed)
                parse_error(c, chunk + skip, last_n, 0);
            goto out;
        }
        if (flawed) {
            flaw_error(c, &sc);
            goto out;
        }
        offset += (long long)have;
        have = 0;
        /* a token open since before this chunk: double the next one, so that yajl's re-scans of it sum to
         * about twice its length */
        if (!eof && mid && sc.tok_start < 0 && cap < JSON_CHUNK_MAX) {
            unsigned char *bigger = realloc(chunk, cap * 2);
            if (!bigger) {
                rc = ps_read_oom(c->err, c->errlen, c->path);
                goto out;
            }
            chunk = bigger;
            cap *= 2;
        }
        sc.tok_start = -1;
    }
    if (yajl_complete_parse(c->h) != yajl_status_ok && !open_array_is_complete(c, &sc)) {
        if (!c->failed)
            parse_error(c, chunk + skip, last_n, 1);
        goto out;
    }
    rc = 0;
out:
    free(chunk);
    ps_gz_close(in);
    return rc;
}

int ps_read_kineto(const char *path, int fd, int gzip, enum ps_json_parser parser, struct ps_kineto_ops *ops,
                   struct ps_model *m, int *declined, char *err, size_t errlen)
{
    struct kctx c = { .m = m, .path = path, .err = err, .errlen = errlen, .last_thread = PS_NONE };
    struct tee t = { .k = &c, .ops = ops, .ocb = ps_kineto_ops_callbacks() };
    const yajl_callbacks *cb = ops ? &tee_callbacks : &callbacks;
    void *ctx = ops ? (void *)&t : (void *)&c;
    int rc;
    m->format = PS_FORMAT_KINETO;
    m->correlation_global = 1;
    *declined = 0;
    if (parser != PS_JSON_PARSER_YAJL) {
        /* the operator events on a thread of their own where there is a second core (json_fast.h) */
        rc = ops && sysconf(_SC_NPROCESSORS_ONLN) > 1
                 ? ps_json_fast_parse_side(fd, gzip, &callbacks, &c, t.ocb, ops, declined, &t.ops_failed)
                 : ps_json_fast_parse(fd, gzip, cb, ctx, declined);
        if (rc == -ENOMEM)
            rc = ps_read_oom(err, errlen, path);
    } else {
        rc = parse_yajl(&c, fd, gzip, cb, ctx);
    }
    if (rc != 0 || *declined)
        goto out;
    rc = -EINVAL;
    if (m->gpu.n + m->api.n + m->ranges.n == 0 && m->unplaced_events > 0) {
        /* the counts by reason, as the metadata entry "unplaced_events" words them */
        const char *why = ps_unplaced_summary(&c.unplaced, m) == 0 && m->meta.n ? m->meta.v[m->meta.n - 1].value : "?";
        rc = ps_read_fail(err, errlen, "%s: none of its %lld trace events could be placed (%s): nothing to report",
                          path, (long long)m->unplaced_events, why);
        goto out;
    }
    if (m->gpu.n + m->api.n + m->ranges.n == 0) {
        rc = ps_read_fail(err, errlen, "%s: JSON without trace events (no \"traceEvents\" with any CPU or GPU "
                          "event): not a PyTorch profiler trace?", path);
        goto out;
    }
    rc = finish_model(&c);
out:
    if (rc < 0 && c.out_of_memory)
        rc = -ENOMEM;
    /* out of memory for the events only: the model goes without them (reader.h), the read succeeds */
    (void)ps_kineto_ops_finish(ops, rc == 0 && !*declined && !t.ops_failed, &m->op_events);
    free(c.ev.cat.s);
    free(c.ev.name.s);
    free(c.ev.arg_name.s);
    ps_kineto_names_fini(&c.names);
    ps_kflows_fini(&c.flows);
    if (c.h)
        yajl_free(c.h);
    return rc;
}
