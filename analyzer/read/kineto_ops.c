/* The Kineto events of the per-operator performance model (model/op_trace.h), read as TraceLens reads them
 * (TraceLens/Trace2Tree/trace_to_tree.py, util DataLoader: json.load): traceEvents in file order, UID = index in
 * that list, "ts" and "dur" as the JSON numbers parsed to correctly rounded doubles, like Python's float
 * (number_value), and the shape arguments of cpu_ops ("Input Dims", "Input type", "Input Strides", "Concrete
 * Inputs") kept as the text Python's str() prints for them. Callbacks beside the trace model's reader
 * (read_kineto.c), in its pass over the file and after its checks of the text (the same values in the same order,
 * on this thread or on one of their own: json_fast.h): the trace model keeps integer ns and its own order, this
 * keeps TraceLens' numbers, and both keep the events whose times pass the one rule of reader_impl.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_parse.h>

#include "model/op_trace.h"
#include "reader_impl.h"

#define MAXD 24

enum okey { OK_NONE, OK_PH, OK_CAT, OK_NAME, OK_PID, OK_TID, OK_TS, OK_DUR, OK_ID, OK_ARGS,
            OK_CORR, OK_EXT, OK_STREAM, OK_ANAME, OK_LABELS, OK_SEQ, OK_DIMS, OK_TYPES, OK_STRIDES, OK_CONCRETE };

struct text {
    char *s;
    size_t n, cap;
};

/* "ts" or "dur" of the event being read: the double TraceLens takes, and what the one rule for an event's times
 * (reader_impl.h ps_event_times_ok) needs where the doubles do not settle it: the text (n < sizeof text), or its
 * exact ns worked out at once (a longer text; ns_ok 0 when it is no number of µs that fits int64 ns). */
struct time_val {
    double us;
    char text[40];
    size_t n;
    int64_t ns;
    int ns_ok;
    int negative;   /* below zero as written (ps_json_number_negative) */
};

struct octx {
    struct ps_op_trace *t;
    int depth;                    /* open containers */
    int events_depth;             /* depth of the traceEvents array, 0 while not inside it */
    enum okey key;                /* key whose value comes next at the event / args level */
    int in_args;
    uint32_t index;               /* UID of the event being read */
    int decided_link;
    int events_pending;           /* the top-level key just read is traceEvents */
    /* the event being read */
    char ph;
    struct text cat, name, aname;
    int has_ts, has_dur, has_pid, has_tid, has_corr, has_ext, has_stream, has_id, has_aname;
    struct time_val ts, dur;
    int64_t pid, tid, corr, ext, stream, id;
    uint32_t shape[4];            /* string ids of the four shape arguments, PS_NONE absent */
    int64_t seq;                  /* args "Sequence number" (has_seq) */
    int has_seq;
    /* a shape argument being captured as Python text */
    int cap_key, cap_depth;       /* cap_key: index 0..3 into shape, -1 none */
    int first[MAXD];              /* per capture level: no item written yet */
    struct text cap;
    int oom;
};

static int put(struct octx *c, struct text *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return c->oom = 1, 0;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
    return 1;
}

static int set(struct octx *c, struct text *b, const unsigned char *s, size_t n)
{
    b->n = 0;
    return put(c, b, (const char *)s, n);
}

/* Python's repr of a str: single quotes unless the text holds ' and no ". Runs of bytes that need no escape are
 * copied whole. */
static int put_pystr(struct octx *c, const unsigned char *s, size_t n)
{
    int sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
    char q = sq && !dq ? '"' : '\'';
    if (!put(c, &c->cap, &q, 1))
        return 0;
    size_t run = 0;   /* start of the bytes not yet copied */
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = s[i];
        if (ch >= 0x20 && ch != 0x7f && ch != '\\' && ch != (unsigned char)q)
            continue;
        char e[8];
        if (ch == '\\' || ch == (unsigned char)q)
            snprintf(e, sizeof e, "\\%c", ch);
        else if (ch == '\n' || ch == '\r' || ch == '\t')
            snprintf(e, sizeof e, "\\%c", ch == '\n' ? 'n' : ch == '\r' ? 'r' : 't');
        else
            snprintf(e, sizeof e, "\\x%02x", ch);
        if (!put(c, &c->cap, (const char *)s + run, i - run) || !put(c, &c->cap, e, strlen(e)))
            return 0;
        run = i + 1;
    }
    return put(c, &c->cap, (const char *)s + run, n - run) && put(c, &c->cap, &q, 1);
}

/* Inside a capture: the separator before an item of the innermost list. */
static int cap_item(struct octx *c)
{
    int lvl = c->depth - c->cap_depth;
    if (lvl <= 0 || lvl >= MAXD)
        return 1;
    if (!c->first[lvl] && !put(c, &c->cap, ", ", 2))
        return 0;
    c->first[lvl] = 0;
    return 1;
}

static int at_event(const struct octx *c)
{
    return c->events_depth && c->depth == c->events_depth + 1;
}

static int at_args(const struct octx *c)
{
    return c->events_depth && c->in_args && c->depth == c->events_depth + 2;
}

/* A shape argument's value is complete: keep its text. */
static int cap_done(struct octx *c)
{
    uint32_t id = ps_op_trace_intern(c->t, c->cap.s ? c->cap.s : "", c->cap.n);
    if (id == PS_NONE)
        return c->oom = 1, 0;
    c->shape[c->cap_key] = id;
    c->cap_key = -1;
    return 1;
}

static int scalar(struct octx *c, const char *txt, size_t n, int is_str)
{
    if (c->cap_key >= 0 && c->depth >= c->cap_depth) {
        if (!cap_item(c) || !(is_str ? put_pystr(c, (const unsigned char *)txt, n) : put(c, &c->cap, txt, n)))
            return 0;
        return c->depth == c->cap_depth ? cap_done(c) : 1;   /* a value that is no list */
    }
    if (c->events_depth && c->depth == c->events_depth)
        c->index++;                   /* an event that is no object: counted, never read */
    return 1;
}

/* A JSON number's text as the double strtod gives (correctly rounded). The common short form -ddd.ddd with at
 * most 15 digits is worked out here: its digits are an integer below 2^53 and the divisor a power of ten below
 * 10^16, both exact doubles, so one IEEE division rounds the exact quotient once, as strtod does (Clinger, "How to
 * Read Floating Point Numbers Accurately", PLDI 1990: the fast path). Anything else goes to strtod (a copy on the
 * heap for 64 bytes or more: the readers take numbers of up to PS_JSON_TOKEN_MAX). Returns 1, 0 for text strtod
 * does not take whole, or -ENOMEM. */
static int number_value(const char *s, size_t n, double *out)
{
    static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                    1e15 };
    size_t i = s[0] == '-' && n > 1, digits = 0, frac = 0;
    int dot = 0;
    uint64_t w = 0;
    for (; i < n && digits <= 15; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            w = 10 * w + (uint64_t)(s[i] - '0');
            digits++;
            frac += dot;
        } else if (s[i] == '.' && !dot && digits) {
            dot = 1;
        } else {
            break;
        }
    }
    if (i == n && digits && digits <= 15 && s[n - 1] != '.') {
        double d = (double)w / pow10[frac];
        *out = s[0] == '-' ? -d : d;
        return 1;
    }
    char small[64], *b = n < sizeof small ? small : malloc(n + 1);
    if (!b)
        return -ENOMEM;
    memcpy(b, s, n);
    b[n] = 0;
    char *end;
    *out = strtod(b, &end);
    int whole = *end == 0;
    if (b != small)
        free(b);
    return whole;
}

/* "ts" or "dur": its double, and its text or exact ns for times_ok. 1, 0 when strtod does not take the text (no
 * time), or -ENOMEM. */
static int time_set(struct time_val *t, const char *s, size_t n)
{
    int rc = number_value(s, n, &t->us);
    if (rc != 1)
        return rc;
    t->negative = s[0] == '-' && ps_json_number_negative(s, n);
    t->n = n < sizeof t->text ? n : 0;
    if (t->n)
        memcpy(t->text, s, n);
    else
        t->ns_ok = ps_parse_us_to_ns(s, n, &t->ns) == 0;
    return 1;
}

static int time_ns(const struct time_val *t, int64_t *ns)
{
    if (!t->n) {
        *ns = t->ns;
        return t->ns_ok;
    }
    return ps_parse_us_to_ns(t->text, t->n, ns) == 0;
}

/* ps_event_times_ok for the event's ts and dur, as the trace model's reader applies it to the same text: from the
 * doubles where they settle it (ts within ±4e15 µs, dur not below zero as written and below 4e15 µs: the exact ns,
 * whatever their rounding, are then an end below 8.1e18 ns; epoch µs, 1.7e15 in 2024, are inside), else exactly
 * from the texts. */
static int times_ok(const struct octx *c)
{
    if (c->dur.negative)
        return 0;
    if (c->ts.us > -4e15 && c->ts.us < 4e15 && c->dur.us < 4e15)
        return 1;
    int64_t ts, dur;
    return time_ns(&c->ts, &ts) && time_ns(&c->dur, &dur) && ps_event_times_ok(ts, dur, 0);
}

static int num_field(const char *s, size_t n, int64_t *out)
{
    double d;
    if (n >= 40 || number_value(s, n, &d) != 1 || d != d || d < -9.2e18 || d > 9.2e18)
        return 0;
    *out = (int64_t)d;
    return 1;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    struct octx *c = ctx;
    if (c->cap_key >= 0 && c->depth >= c->cap_depth)
        return scalar(c, s, n, 0);
    if (at_event(c)) {
        if (c->key == OK_TS || c->key == OK_DUR) {
            int rc = time_set(c->key == OK_TS ? &c->ts : &c->dur, s, n);
            if (rc < 0)
                return c->oom = 1, 0;
            *(c->key == OK_TS ? &c->has_ts : &c->has_dur) = rc;
        } else if (c->key == OK_PID)
            c->has_pid = num_field(s, n, &c->pid);
        else if (c->key == OK_TID)
            c->has_tid = num_field(s, n, &c->tid);
        else if (c->key == OK_ID)
            c->has_id = num_field(s, n, &c->id);
        return 1;
    }
    if (at_args(c)) {
        if (c->key == OK_CORR)
            c->has_corr = num_field(s, n, &c->corr);
        else if (c->key == OK_EXT)
            c->has_ext = num_field(s, n, &c->ext);
        else if (c->key == OK_STREAM)
            c->has_stream = num_field(s, n, &c->stream);
        else if (c->key == OK_SEQ)
            c->has_seq = num_field(s, n, &c->seq);
        return 1;
    }
    return scalar(c, s, n, 0);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    struct octx *c = ctx;
    if (c->cap_key >= 0 && c->depth >= c->cap_depth)
        return scalar(c, (const char *)s, n, 1);
    if (at_event(c)) {
        if (c->key == OK_PH)
            c->ph = n == 1 ? (char)s[0] : '?';
        else if (c->key == OK_CAT)
            return set(c, &c->cat, s, n);
        else if (c->key == OK_NAME)
            return set(c, &c->name, s, n);
        return 1;
    }
    if (at_args(c)) {
        if (c->key == OK_ANAME || c->key == OK_LABELS) {
            c->has_aname = 1;
            return set(c, &c->aname, s, n);
        }
        return 1;
    }
    return scalar(c, (const char *)s, n, 1);
}

static int cb_bool(void *ctx, int v)
{
    return scalar(ctx, v ? "True" : "False", v ? 4 : 5, 0);
}

static int cb_null(void *ctx)
{
    return scalar(ctx, "None", 4, 0);
}

static void event_reset(struct octx *c)
{
    c->ph = 0;
    c->cat.n = c->name.n = c->aname.n = 0;
    if (c->cat.s)
        c->cat.s[0] = 0;
    if (c->name.s)
        c->name.s[0] = 0;
    c->has_ts = c->has_dur = c->has_pid = c->has_tid = c->has_corr = c->has_ext = c->has_stream = 0;
    c->has_id = c->has_aname = 0;
    c->has_seq = 0;
    c->shape[0] = c->shape[1] = c->shape[2] = c->shape[3] = PS_NONE;
    c->cap_key = -1;
    c->in_args = 0;
}

static int open_c(struct octx *c, int is_map)
{
    if (c->cap_key >= 0 && c->depth >= c->cap_depth) {
        if (!cap_item(c) || !put(c, &c->cap, is_map ? "{" : "[", 1))
            return 0;
        int lvl = c->depth + 1 - c->cap_depth;
        if (lvl < MAXD)
            c->first[lvl] = 1;
    } else if (c->events_depth && c->depth == c->events_depth) {
        event_reset(c);
    } else if (at_event(c) && c->key == OK_ARGS && is_map) {
        c->in_args = 1;
    } else if (c->depth == 1 && c->events_pending && !is_map && !c->events_depth) {
        c->events_depth = 2;
    }
    c->depth++;
    return 1;
}

static int finish_event(struct octx *c);

static int close_c(struct octx *c, int is_map)
{
    c->depth--;
    if (c->cap_key >= 0 && c->depth >= c->cap_depth) {
        if (!put(c, &c->cap, is_map ? "}" : "]", 1))
            return 0;
        return c->depth == c->cap_depth ? cap_done(c) : 1;
    }
    if (c->events_depth && c->depth == c->events_depth + 1 && c->in_args)
        c->in_args = 0;
    else if (c->events_depth && c->depth == c->events_depth)
        return finish_event(c);
    else if (c->events_depth && c->depth == c->events_depth - 1)
        c->events_depth = 0;
    return 1;
}

static int cb_start_map(void *ctx) { return open_c(ctx, 1); }
static int cb_start_array(void *ctx) { return open_c(ctx, 0); }
static int cb_end_map(void *ctx) { return close_c(ctx, 1); }
static int cb_end_array(void *ctx) { return close_c(ctx, 0); }

#define KEY(k, s, args) { k, s, sizeof s - 1, args }
static const struct { enum okey k; const char *s; size_t len; int args; } keys[] = {
    KEY(OK_PH, "ph", 0), KEY(OK_CAT, "cat", 0), KEY(OK_NAME, "name", 0), KEY(OK_PID, "pid", 0), KEY(OK_TID, "tid", 0),
    KEY(OK_TS, "ts", 0), KEY(OK_DUR, "dur", 0), KEY(OK_ID, "id", 0), KEY(OK_ARGS, "args", 0),
    KEY(OK_CORR, "correlation", 1), KEY(OK_EXT, "External id", 1), KEY(OK_STREAM, "stream", 1),
    KEY(OK_ANAME, "name", 1), KEY(OK_LABELS, "labels", 1),
    KEY(OK_SEQ, "Sequence number", 1), KEY(OK_DIMS, "Input Dims", 1),
    KEY(OK_TYPES, "Input type", 1), KEY(OK_STRIDES, "Input Strides", 1), KEY(OK_CONCRETE, "Concrete Inputs", 1),
};

/* keys by (args, text): open addressing, built once (a key is looked up for every member of every event). */
#define KEY_SLOTS 64
static uint8_t key_slot[KEY_SLOTS];      /* 1 + index into keys; 0: empty */
static pthread_once_t key_slots_once = PTHREAD_ONCE_INIT;

static unsigned key_hash(int args, const unsigned char *s, size_t n)
{
    return ((unsigned)args * 29u + (unsigned)n * 31u + s[0] * 7u + s[n - 1]) & (KEY_SLOTS - 1);
}

static void key_slots_build(void)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        unsigned h = key_hash(keys[i].args, (const unsigned char *)keys[i].s, keys[i].len);
        while (key_slot[h])
            h = (h + 1) & (KEY_SLOTS - 1);
        key_slot[h] = (uint8_t)(i + 1);
    }
}

static enum okey lookup_key(int args, const unsigned char *s, size_t n)
{
    if (n == 0)
        return OK_NONE;
    pthread_once(&key_slots_once, key_slots_build);
    for (unsigned h = key_hash(args, s, n); key_slot[h]; h = (h + 1) & (KEY_SLOTS - 1)) {
        size_t i = key_slot[h] - 1u;
        if (keys[i].len == n && keys[i].args == args && memcmp(keys[i].s, s, n) == 0)
            return keys[i].k;
    }
    return OK_NONE;
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
    struct octx *c = ctx;
    if (c->cap_key >= 0 && c->depth > c->cap_depth) {
        int lvl = c->depth - c->cap_depth;   /* a map inside a shape argument (Kineto writes none) */
        if (lvl < MAXD && !c->first[lvl] && !put(c, &c->cap, ", ", 2))
            return 0;
        if (lvl < MAXD)
            c->first[lvl] = 1;
        return put_pystr(c, s, n) && put(c, &c->cap, ": ", 2);
    }
    c->key = OK_NONE;
    if (c->depth == 1 && !c->events_depth) {
        c->events_pending = n == 11 && memcmp(s, "traceEvents", 11) == 0;
        return 1;
    }
    int args = at_args(c);
    if (!args && !at_event(c))
        return 1;
    c->key = lookup_key(args, s, n);
    if (args && c->key >= OK_DIMS) {
        c->cap_key = (int)(c->key - OK_DIMS);
        c->cap_depth = c->depth;
        c->cap.n = 0;
        c->first[0] = 1;
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string, cb_start_map, cb_key, cb_end_map, cb_start_array,
    cb_end_array,
};

static int cat_of(const char *cat)
{
    static const char *const names[] = { "cpu_op", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy",
                                         "gpu_memset" };
    for (int i = 0; i < 6; i++)
        if (strcmp(cat, names[i]) == 0)
            return i;
    return -1;
}

static int add_x(struct octx *c, int cat)
{
    struct ps_op_event e = { .ts_us = c->ts.us, .dur_us = c->dur.us, .pid = c->pid, .tid = c->tid, .corr = c->corr,
                             .ext = c->ext, .stream = c->stream, .uid = c->index, .args = PS_NONE,
                             .cat = (uint8_t)cat, .has_pid_tid = c->has_pid && c->has_tid,
                             .has_corr = (uint8_t)c->has_corr, .has_ext = (uint8_t)c->has_ext,
                             .has_stream = (uint8_t)c->has_stream, .seq = c->seq,
                             .has_seq = (uint8_t)c->has_seq };
    e.name = ps_op_trace_intern(c->t, c->name.s ? c->name.s : "", c->name.n);
    if (e.name == PS_NONE)
        return -ENOMEM;
    if (cat == PS_OPEV_CPU_OP) {
        struct ps_op_args a = { c->shape[0], c->shape[1], c->shape[2], c->shape[3] };
        e.args = (uint32_t)c->t->args.n;
        if (ps_op_trace_add_args(c->t, &a) < 0)
            return -ENOMEM;
    }
    if ((cat == PS_OPEV_RUNTIME || cat == PS_OPEV_DRIVER) && !c->decided_link && c->name.s &&
        strcasestr(c->name.s, "launch")) {
        c->decided_link = 1;             /* TraceLens _set_linking_key: the first launch call decides */
        c->t->link_by_ext = !c->has_corr;
    }
    return ps_op_trace_add_event(c->t, &e);
}

static int finish_event(struct octx *c)
{
    int rc = 0;
    const char *cat = c->cat.s && c->cat.n ? c->cat.s : "";
    int k = cat_of(cat);
    if (c->ph == 'X' && k >= 0 && c->has_ts && c->has_dur && times_ok(c))   /* else unplaced in the model too */
        rc = add_x(c, k);
    else if ((c->ph == 's' || c->ph == 'f') && c->has_id && strcmp(cat, "ac2g") == 0) {
        struct ps_op_flow f = { c->id, c->pid, c->tid, c->ph == 's', c->has_pid && c->has_tid };
        rc = ps_op_trace_add_flow(c->t, &f);
    } else if (c->ph == 'M' && c->has_aname && c->has_pid && c->name.s) {
        int kind = strcmp(c->name.s, "process_name") == 0 ? PS_OPMETA_PROCESS_NAME
                   : strcmp(c->name.s, "process_labels") == 0 ? PS_OPMETA_PROCESS_LABELS
                   : strcmp(c->name.s, "thread_name") == 0 ? PS_OPMETA_THREAD_NAME : -1;
        if (kind >= 0) {
            struct ps_op_meta m = { c->pid, kind == PS_OPMETA_THREAD_NAME ? c->tid : 0,
                                    ps_op_trace_intern(c->t, c->aname.s, c->aname.n), (uint8_t)kind };
            rc = m.value == PS_NONE ? -ENOMEM : ps_op_trace_add_meta(c->t, &m);
        }
    }
    c->index++;
    if (rc < 0)
        c->oom = 1;
    return rc == 0;
}

static void octx_fini(struct octx *c)
{
    free(c->cat.s);
    free(c->name.s);
    free(c->aname.s);
    free(c->cap.s);
}

int ps_kineto_ops_new(struct ps_kineto_ops **out)
{
    struct octx *c = calloc(1, sizeof *c);
    *out = NULL;
    if (c && !(c->t = ps_op_trace_new())) {
        free(c);
        c = NULL;
    }
    if (!c)
        return -ENOMEM;
    c->cap_key = -1;
    *out = (struct ps_kineto_ops *)c;
    return 0;
}

const yajl_callbacks *ps_kineto_ops_callbacks(void)
{
    return &callbacks;
}

int ps_kineto_ops_finish(struct ps_kineto_ops *ops, int ok, struct ps_op_trace **out)
{
    struct octx *c = (struct octx *)ops;
    int rc = c && ok && c->oom ? -ENOMEM : 0;
    *out = NULL;
    if (!c)
        return 0;
    if (ok && !c->oom)
        *out = c->t;
    else
        ps_op_trace_free(c->t);
    octx_fini(c);
    free(c);
    return rc;
}
