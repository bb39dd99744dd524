/* PyTorch profiler (Kineto / Chrome trace) JSON reader: streams the file (plain or gzip) through
 * libyajl's event parser, one event object at a time, into the trace model. Handles the modern and
 * the pre-2.0 categories, µs timestamps as integers or floats (exact ns), and baseTimeNanoseconds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>

#include "kineto_text.h"
#include "reader_impl.h"

#define JSON_CHUNK (256 * 1024)   /* parser input per call; small files get a buffer their size */
#define JSON_CHUNK_MAX (128 * 1024 * 1024)   /* the chunk doubles up to this while a token spans chunks */
#define GZ_CHUNK (128 * 1024)
#define MAX_FRAMES 64          /* deeper nesting is tracked by a counter only (skipped content) */

/* What a JSON container is, from where it sits. */
enum role { R_TOP, R_EVENTS, R_EVENT, R_ARGS, R_DEVPROPS, R_DEV, R_DIST, R_SKIP };

enum key {
    K_OTHER, K_TRACE_EVENTS, K_DEVPROPS, K_DIST, K_BASE_TIME,        /* top level */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,          /* event */
    K_CORR, K_EXT, K_STREAM, K_DEVICE, K_BYTES, K_SYNC_KIND, K_OCCUPANCY, /* event args (K_NAME too) */
    K_ID, K_TOTAL_MEM, K_CC_MAJOR, K_CC_MINOR, K_NUM_SMS,           /* deviceProperties (K_NAME too) */
    K_RANK, K_WORLD_SIZE                                            /* distributedInfo */
};

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
};

struct buf {
    char *s;
    size_t n, cap;
};

/* An id field (pid / tid): a number, or a string that may hold one ("25738", "stream 7"). */
struct idval {
    int set, numeric;
    int64_t v;
};

struct event {
    char ph;
    struct buf cat, name, arg_name;
    int has_cat, has_name, has_arg_name, has_ts, has_dur, has_corr, has_ext, has_stream, has_device, has_bytes, has_id;
    int has_occupancy, occupancy_pct;   /* a kernel's "est. achieved occupancy %" (ps_kineto_occupancy) */
    struct idval pid, tid;
    int64_t ts_ns, dur_ns, corr, ext, stream, device, bytes, id;
    int sync_kind;
};

struct kctx {
    struct ps_model *m;
    yajl_handle h;
    long long base;                  /* byte of the JSON where the chunk being parsed starts */
    long long last_end;              /* byte after the last token yajl passed to a callback */
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    int out_of_memory;           /* the failure was memory (fail_oom): the read returns -ENOMEM */

    enum role roles[MAX_FRAMES];
    enum key keys[MAX_FRAMES];       /* the key whose value comes next, per map frame */
    char top_key[64];                /* top-level key text, for metadata */
    int depth;                       /* number of open containers */
    int overflow;                    /* containers open beyond MAX_FRAMES */

    long long index;                 /* event index in traceEvents */
    struct event ev;
    struct ps_device dev;
    int has_base;
    int64_t base_ns;

    struct ps_unplaced unplaced;
    long long ignored[PS_KINETO_N_IGNORED];   /* X events per ps_kineto_ignored_name entry */
    struct ps_kineto_names names;            /* `M` process / thread names */
    struct ps_kflows flows;
    uint32_t last_thread_pid, last_thread_tid, last_thread;   /* one-entry lookup cache */
};

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

/* fail() for memory that ran out. */
static int fail_oom(struct kctx *c)
{
    c->out_of_memory |= !c->failed;
    return fail(c, "out of memory");
}

/* Copy a decoded JSON string, a "\u0000" in it as the four characters \x00 (ps_nul_escape_into): the model's
 * names are C strings, and "kernel\u0000cpu_op" is no kernel. */
static int buf_set(struct buf *b, const unsigned char *s, size_t len)
{
    return ps_nul_escape_into(&b->s, &b->cap, &b->n, (const char *)s, len);
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

/* ---- the event -> model step ---- */

static void count_unplaced(struct kctx *c, const char *what)
{
    ps_unplaced_count(&c->unplaced, c->m, what);
}

static void unplaced_cat(struct kctx *c, const char *why)
{
    char what[80];
    snprintf(what, sizeof what, "%.24s %.40s", c->ev.has_cat ? c->ev.cat.s : "(no cat)", why);
    count_unplaced(c, what);
}

static enum ps_kineto_cat lookup_cat(const struct event *e)
{
    return e->has_cat ? ps_kineto_category(e->cat.s) : PS_KCAT_UNKNOWN;
}

static uint32_t thread_of(struct kctx *c, uint32_t pid, uint32_t tid)
{
    if (c->last_thread != PS_NONE && c->last_thread_pid == pid && c->last_thread_tid == tid)
        return c->last_thread;
    c->last_thread = ps_model_thread(c->m, pid, tid);
    c->last_thread_pid = pid;
    c->last_thread_tid = tid;
    return c->last_thread;
}

/* `M` metadata: process and thread names, applied at the end to the CPU processes/threads that exist
 * (GPU "processes" are device indices and get no process entry). */
static int finish_meta_event(struct kctx *c)
{
    struct event *e = &c->ev;
    if (!e->has_name || !e->has_arg_name || !e->pid.numeric)
        return 0;
    int is_proc = strcmp(e->name.s, "process_name") == 0, is_thread = strcmp(e->name.s, "thread_name") == 0;
    if (!is_proc && !is_thread)
        return 0;
    if (is_thread && !e->tid.numeric)
        return 0;
    uint32_t name = ps_model_intern(c->m, e->arg_name.s, e->arg_name.n);
    if (name == PS_NONE)
        return -ENOMEM;
    struct ps_kineto_named item = { (uint32_t)e->pid.v, is_thread ? (uint32_t)e->tid.v : 0, name };
    return ps_kineto_names_add(&c->names, is_thread, item);
}

static int finish_gpu_event(struct kctx *c, enum ps_kineto_cat cat, int64_t start, int64_t end)
{
    struct event *e = &c->ev;
    int64_t device = e->has_device ? e->device : e->pid.v;
    int64_t stream = e->has_stream ? e->stream : e->tid.v;
    if ((!e->has_device && !e->pid.numeric) || (!e->has_stream && !e->tid.numeric)) {
        unplaced_cat(c, "without device/stream");
        return 0;
    }
    if (device > INT32_MAX) {        /* no "device" arg and a pid (as uint32) that is no device index */
        unplaced_cat(c, "with a pid that is no device index");
        return 0;
    }
    struct ps_gpu_op op = { .start_ns = start, .end_ns = end, .correlation = e->has_corr ? (uint64_t)e->corr : 0,
                            .bytes = e->has_bytes ? (uint64_t)e->bytes : 0 };
    op.has_occupancy = cat == PS_KCAT_KERNEL && e->has_occupancy;
    op.occupancy_pct = (uint8_t)e->occupancy_pct;
    op.kind = cat == PS_KCAT_KERNEL ? PS_GPU_KERNEL : cat == PS_KCAT_MEMCPY ? PS_GPU_MEMCPY
              : cat == PS_KCAT_MEMSET ? PS_GPU_MEMSET : PS_GPU_SYNC;
    if (cat == PS_KCAT_MEMCPY || cat == PS_KCAT_MEMSET)
        ps_kineto_parse_copy_name(e->name.s, &op);
    if (cat == PS_KCAT_SYNC)
        op.copy_kind = (uint8_t)e->sync_kind;
    if (e->has_corr && e->pid.numeric && e->tid.numeric &&
        ps_kflows_gpu(&c->flows, (uint64_t)e->corr, (uint32_t)e->pid.v, (uint32_t)e->tid.v) < 0)
        return -ENOMEM;
    op.name = ps_model_intern(c->m, e->name.s, e->name.n);
    /* Correlation ids are file-global in Kineto traces: streams all belong to "process" 0. */
    op.stream = ps_model_stream(c->m, 0, (int32_t)device, stream);
    if (op.name == PS_NONE || op.stream == PS_NONE || ps_model_device(c->m, (int32_t)device) == PS_NONE)
        return -ENOMEM;
    return ps_model_add_gpu(c->m, &op);
}

static int finish_x_event(struct kctx *c)
{
    struct event *e = &c->ev;
    /* The legacy (pre-Kineto) profiler writes host ops only, without `cat`, under "pid": "CPU functions" */
    int legacy = !e->has_cat;
    enum ps_kineto_cat cat = legacy ? PS_KCAT_CPU_OP : lookup_cat(e);
    if (cat == PS_KCAT_TRACE)
        return 0;                    /* the profiler's own "PyTorch Profiler (0)" span */
    if (cat == PS_KCAT_UNKNOWN) {
        int ig = e->has_cat ? ps_kineto_ignored_index(e->cat.s) : -1;
        if (ig >= 0) {
            c->ignored[ig]++;
            return 0;
        }
        unplaced_cat(c, "(category not modelled)");
        return 0;
    }
    if (!e->has_ts || !e->has_dur) {
        unplaced_cat(c, e->has_ts ? "without dur" : "without ts");
        return 0;
    }
    if (e->dur_ns < 0 || e->ts_ns > INT64_MAX - e->dur_ns) {
        unplaced_cat(c, "with negative dur");
        return 0;
    }
    if (!e->has_name)
        buf_set(&e->name, (const unsigned char *)"", 0);
    if (!e->name.s)
        return -ENOMEM;
    int64_t start = e->ts_ns, end = e->ts_ns + e->dur_ns;
    if (cat == PS_KCAT_KERNEL || cat == PS_KCAT_MEMCPY || cat == PS_KCAT_MEMSET || cat == PS_KCAT_SYNC)
        return finish_gpu_event(c, cat, start, end);
    if (cat == PS_KCAT_GPU_ANN) {
        /* Device-side copy of a host annotation: no host thread (thread = PS_NONE); never a step. */
        struct ps_range r = { .start_ns = start, .end_ns = end, .ext_id = e->has_ext ? (uint64_t)e->ext : 0,
                              .name = ps_model_intern(c->m, e->name.s, e->name.n), .thread = PS_NONE,
                              .domain = PS_NONE, .kind = PS_RANGE_GPU_ANNOTATION };
        return r.name == PS_NONE ? -ENOMEM : ps_model_add_range(c->m, &r);
    }
    if ((!e->pid.numeric && !legacy) || !e->tid.numeric) {
        unplaced_cat(c, "without numeric pid/tid");
        return 0;
    }
    uint32_t thread = thread_of(c, e->pid.numeric ? (uint32_t)e->pid.v : 0, (uint32_t)e->tid.v);
    uint32_t name = ps_model_intern(c->m, e->name.s, e->name.n);
    if (thread == PS_NONE || name == PS_NONE)
        return -ENOMEM;
    if (cat == PS_KCAT_RUNTIME || cat == PS_KCAT_DRIVER) {
        struct ps_api_call call = { .start_ns = start, .end_ns = end,
                                    .correlation = e->has_corr ? (uint64_t)e->corr : 0,
                                    .ext_id = e->has_ext ? (uint64_t)e->ext : 0, .name = name, .thread = thread,
                                    .driver = cat == PS_KCAT_DRIVER };
        return ps_model_add_api(c->m, &call);
    }
    struct ps_range r = { .start_ns = start, .end_ns = end, .ext_id = e->has_ext ? (uint64_t)e->ext : 0,
                          .name = name, .thread = thread, .domain = PS_NONE };
    r.kind = cat == PS_KCAT_CPU_OP     ? PS_RANGE_CPU_OP
           : cat == PS_KCAT_USER_ANN ? PS_RANGE_USER_ANNOTATION
                                     : PS_RANGE_PYTHON;
    return ps_model_add_range(c->m, &r);
}

static int finish_event(struct kctx *c)
{
    int rc = 0;
    switch (c->ev.ph) {
    case 'X':
        rc = finish_x_event(c);
        break;
    case 'M':
        rc = finish_meta_event(c);
        break;
    case 's': case 'f':              /* ac2g flows: TraceLens' CPU -> GPU links */
        if (c->ev.has_cat && c->ev.has_id && strcmp(c->ev.cat.s, "ac2g") == 0 &&
            (c->ev.ph == 's' || (c->ev.pid.numeric && c->ev.tid.numeric)))
            rc = ps_kflows_flow(&c->flows, c->ev.ph == 's', (uint64_t)c->ev.id, (uint32_t)c->ev.pid.v,
                                (uint32_t)c->ev.tid.v);
        break;
    case 'i': case 'I': case 't': case 'C':
        break;                       /* instants, counters: nothing to place */
    case 0:
        count_unplaced(c, "event without ph");
        break;
    default: {
        char what[48];
        snprintf(what, sizeof what, "ph '%c' events", c->ev.ph);   /* '?': not one printable character */
        count_unplaced(c, what);
    }
    }
    if (rc < 0)
        return fail_oom(c);
    c->index++;
    return 1;
}

static void event_reset(struct event *e)
{
    struct buf cat = e->cat, name = e->name, arg_name = e->arg_name;
    memset(e, 0, sizeof *e);
    e->cat = cat, e->name = name, e->arg_name = arg_name;
    e->cat.n = e->name.n = e->arg_name.n = 0;
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
    case K_OCCUPANCY: e->occupancy_pct = ps_kineto_occupancy(s, len); e->has_occupancy = e->occupancy_pct >= 0;
        return 1;   /* an estimate: one that is not a percentage is left out, never an error */
    default: return 1;
    }
}

static int top_meta(struct kctx *c, const char *s, size_t len)
{
    char key[80], *value = ps_nul_escape_dup(s, len);
    snprintf(key, sizeof key, "kineto.%s", c->top_key);
    int rc = value ? ps_model_add_meta(c->m, key, value) : -ENOMEM;
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
        case K_CAT: e->has_cat = 1; rc = buf_set(&e->cat, s, len); break;
        case K_NAME: e->has_name = 1; rc = buf_set(&e->name, s, len); break;
        case K_PID: return id_from_string(c, k, &e->pid, s, len);
        case K_TID: return id_from_string(c, k, &e->tid, s, len);
        case K_TS: case K_DUR: return type_error(c, k, "a number");
        default: break;
        }
        break;
    case R_ARGS:
        if (k == K_SYNC_KIND)
            e->sync_kind = ps_kineto_sync_kind(s, len);
        else if (k == K_NAME)
            e->has_arg_name = 1, rc = buf_set(&e->arg_name, s, len);
        else if (k != K_OTHER && ps_json_integer_text(s, len))
            return arg_number(c, k, (const char *)s, len);
        else if (k != K_OTHER && k != K_OCCUPANCY)   /* a textual estimate is left out */
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
    if (role != R_SKIP && role != R_TOP && role != R_DEVPROPS && cur_key(c) != K_OTHER)
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
        event_reset(&c->ev);
    } else if (parent == R_EVENT) {
        enum key k = cur_key(c);
        if (k == K_ARGS && is_map)
            role = R_ARGS;
        else if (k != K_OTHER)       /* "args": [1,2] would lose the event's correlation without a word */
            return wrong_type(c, k, is_map ? "an object" : "an array");
    } else if ((parent == R_ARGS || parent == R_DEV || parent == R_DIST) && cur_key(c) != K_OTHER) {
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
        return finish_event(c);
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

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    struct kctx *c = mark(ctx);
    enum role role = cur_role(c);
    if (role == R_SKIP)
        return 1;
    enum key k = K_OTHER;
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (key_names[i].len == len && key_names[i].role == role && memcmp(key_names[i].text, s, len) == 0) {
            k = key_names[i].key;
            break;
        }
    c->keys[c->depth - 1] = k;
    if (role == R_TOP)
        snprintf(c->top_key, sizeof c->top_key, "%.*s", len > 60 ? 60 : (int)len, (const char *)s);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null, .yajl_boolean = cb_bool, .yajl_number = cb_number, .yajl_string = cb_string,
    .yajl_start_map = cb_start_map, .yajl_map_key = cb_map_key, .yajl_end_map = cb_end,
    .yajl_start_array = cb_start_array, .yajl_end_array = cb_end,
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

/* The Trace Event Format's JSON Array Format may lack its closing ']' ("to support tracing systems that can not
 * cleanly finish writing the trace"): accepted when the text ends after a complete event (or the '[' or a ','). */
static int open_array_is_complete(const struct kctx *c, const struct ps_json_scan *st)
{
    return !c->failed && !c->overflow && c->depth == 1 && c->roles[0] == R_EVENTS && !st->in_str && !st->in_lit &&
           (st->last == '}' || st->last == ',' || st->last == '[');
}

int ps_read_kineto(const char *path, int fd, int gzip, struct ps_model *m, char *err, size_t errlen)
{
    struct kctx c = { .m = m, .path = path, .err = err, .errlen = errlen, .last_thread = PS_NONE };
    struct stat st;
    struct ps_json_scan sc = { .tok_start = -1 };
    size_t file_size = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : JSON_CHUNK;
    /* gzip of JSON inflates ~10-40x: a small compressed file still gets the full parser chunk */
    size_t cap = gzip ? JSON_CHUNK : (file_size + 1 < JSON_CHUNK ? file_size + 1 : JSON_CHUNK), have = 0;
    struct ps_gz_input *in = ps_gz_open(fd, gzip, file_size < GZ_CHUNK ? file_size + 1 : GZ_CHUNK);
    unsigned char *chunk = malloc(cap);
    size_t last_n = 0, skip = 0;     /* the chunk last given to yajl: chunk + skip, last_n bytes, at c.base */
    long long offset = 0;            /* bytes of JSON read so far (a byte-order mark included) */
    int rc = -EINVAL, eof = 0;
    c.h = yajl_alloc(&callbacks, NULL, &c);
    m->format = PS_FORMAT_KINETO;
    m->correlation_global = 1;
    if (!in || !chunk || !c.h) {
        rc = ps_read_oom(err, errlen, path);
        goto out;
    }
    while (!eof) {
        long n = ps_gz_read(in, (char *)chunk + have, cap - have, path, err, errlen);
        if (n < 0) {
            rc = (int)n;
            goto out;
        }
        eof = n == 0;
        int mid = ps_json_scan_bytes(&sc, chunk + have, (size_t)n, have);
        have += (size_t)n;
        if (!eof && mid && have < cap)
            continue;                /* fill the chunk while its end is inside a token */
        if (have == 0)
            break;
        /* a UTF-8 byte-order mark (RFC 8259 §8.1: a parser may ignore it) */
        skip = offset == 0 && have >= 3 && !memcmp(chunk, "\xef\xbb\xbf", 3) ? 3 : 0;
        c.base = offset + (long long)skip;
        last_n = have - skip;
        if (yajl_parse(c.h, chunk + skip, last_n) != yajl_status_ok) {
            if (!c.failed)
                parse_error(&c, chunk + skip, last_n, 0);
            goto out;
        }
        offset += (long long)have;
        have = 0;
        /* a token open since before this chunk: double the next one, so that yajl's re-scans of it sum to
         * about twice its length */
        if (!eof && mid && sc.tok_start < 0 && cap < JSON_CHUNK_MAX) {
            unsigned char *bigger = realloc(chunk, cap * 2);
            if (!bigger) {
                rc = ps_read_oom(err, errlen, path);
                goto out;
            }
            chunk = bigger;
            cap *= 2;
        }
        sc.tok_start = -1;
    }
    if (yajl_complete_parse(c.h) != yajl_status_ok && !open_array_is_complete(&c, &sc)) {
        if (!c.failed)
            parse_error(&c, chunk + skip, last_n, 1);
        goto out;
    }
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
    free(c.ev.cat.s);
    free(c.ev.name.s);
    free(c.ev.arg_name.s);
    ps_kineto_names_fini(&c.names);
    ps_kflows_fini(&c.flows);
    if (c.h)
        yajl_free(c.h);
    free(chunk);
    ps_gz_close(in);
    return rc;
}
