/* The Kineto JSON reader's own state, shared by its two files (read_kineto.c: the yajl callbacks and the parse;
 * kineto_events.c: one finished event into the model). Private to analyzer/read/. */
#ifndef PS_READ_KINETO_IMPL_H
#define PS_READ_KINETO_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

#include "kineto_text.h"
#include "reader_impl.h"

#define MAX_FRAMES 64          /* deeper nesting is tracked by a counter only (skipped content) */

/* What a JSON container is, from where it sits. */
enum role { R_TOP, R_EVENTS, R_EVENT, R_ARGS, R_DEVPROPS, R_DEV, R_DIST, R_SKIP };

enum key {
    K_OTHER, K_TRACE_EVENTS, K_DEVPROPS, K_DIST, K_BASE_TIME,        /* top level */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,          /* event */
    K_CORR, K_EXT, K_STREAM, K_DEVICE, K_BYTES, K_SYNC_KIND, K_OCCUPANCY, /* event args (K_NAME too) */
    K_ID, K_TOTAL_MEM, K_CC_MAJOR, K_CC_MINOR, K_NUM_SMS,           /* deviceProperties (K_NAME too) */
    K_RANK, K_WORLD_SIZE,                                           /* distributedInfo */
    K_MEM_DEV_TYPE, K_MEM_DEV_ID, K_MEM_ADDR, K_MEM_BYTES, K_MEM_TOTAL_ALLOC, K_MEM_TOTAL_RES,  /* [memory] args */
    K_IN_NELEMS, K_OUT_NELEMS, K_DTYPE,                             /* collective args (record_param_comms) */
    K_WAIT_STREAM, K_WAIT_RECORD    /* cuda_sync args: what a wait waits on; one of another type or range is left out */
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
    int dur_negative;                   /* "dur" is below zero as written (ps_event_times_ok) */
    int sync_kind;
    /* a [memory] instant's args (kineto_memory.c); mem_set: bit (k - K_MEM_DEV_TYPE) per arg read */
    int mem_set, mem_bad;
    int64_t mem_dev_type, mem_dev_id, mem_addr, mem_bytes, mem_total_alloc, mem_total_res;
    int64_t in_nelems, out_nelems;      /* a collective's "In msg nelems" / "Out msg nelems"; 0 unknown */
    int dtype_bytes;                    /* its "dtype" element size in bytes; 0 unknown */
    int64_t wait_stream;                /* a cuda_sync's "wait_on_stream": the stream the event was recorded on; -1
                                         * unknown (absent, negative, past uint32, not an integer) */
    int64_t wait_record;                /* its "wait_on_cuda_event_record_corr_id": the cudaEventRecord call's
                                         * correlation id; 0 unknown (absent, not positive, not an integer) */
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

/* Copy a decoded JSON string, a "\u0000" in it as PS_UTF8_NUL (ps_nul_escape_into): the model's names are C
 * strings, and "kernel\u0000cpu_op" is no kernel. b = s[0..len); 0 or -ENOMEM. Inline: it runs for every
 * event's category and name (read_kineto.c, kineto_events.c). */
static inline int ps_kineto_buf_set(struct buf *b, const unsigned char *s, size_t len)
{
    return ps_nul_escape_into(&b->s, &b->cap, &b->n, (const char *)s, len);
}

/* kineto_events.c: the event just closed (c->ev) into the model, or counted as unplaced; c->index moves on to the
 * next event. 0, or -ENOMEM (the caller records the failure: the read then returns -ENOMEM). */
int ps_kineto_finish_event(struct kctx *c);
/* kineto_memory.c: a [memory] args value (K_MEM_*): stored, or marked bad (the record is then counted unplaced,
 * never an error of the whole trace). Cannot fail. */
void ps_kineto_mem_arg(struct kctx *c, enum key k, const char *s, size_t len);
/* kineto_memory.c: the event just closed, for the memory view: a [memory] instant into the model's memory events,
 * and every event the PyTorch profiler's TensorBoard plugin parses into the model's memory time origin. 0 or
 * -ENOMEM. */
int ps_kineto_memory_note(struct kctx *c);
/* kineto_events.c: an empty event for the next one, its buffers kept. */
void ps_kineto_event_reset(struct event *e);

#endif
