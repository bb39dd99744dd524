/* One finished event of a Kineto trace into the model (read_kineto_impl.h): metadata events name processes and
 * threads, complete events become GPU ops, API calls or host ranges by category, and what the model has no place
 * for is counted by reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_kineto_impl.h"

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
    int64_t nelems = e->in_nelems > e->out_nelems ? e->in_nelems : e->out_nelems, msg;
    if (cat == PS_KCAT_KERNEL && e->dtype_bytes > 0 && nelems > 0 &&   /* a collective kernel's message size */
        !__builtin_mul_overflow(nelems, (int64_t)e->dtype_bytes, &msg))
        op.bytes = (uint64_t)msg;
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
    /* A stream's wait on an event (cudaStreamWaitEvent): what it waits on, as far as the args say
     * (analyses/verdict/stream_waits.c looks the streams and the record call up, and ignores what it cannot find) */
    if (cat == PS_KCAT_SYNC && e->sync_kind == 2 /* "Stream Wait Event" */ && stream >= 0 && stream < UINT32_MAX) {
        struct ps_stream_wait w = { .time_ns = start, .record_corr = (uint64_t)e->wait_record, .stream = stream,
                                    .on_stream = e->wait_stream, .pid = 0, .device = (int32_t)device };
        if (ps_model_add_stream_wait(c->m, &w) < 0)
            return -ENOMEM;
    }
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
        int ig;
        if (e->has_cat && ps_kineto_ignored_index(e->cat.s, &ig)) {
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
    if (!ps_event_times_ok(e->ts_ns, e->dur_ns, e->dur_negative)) {
        unplaced_cat(c, "with negative dur");
        return 0;
    }
    if (!e->has_name)
        ps_kineto_buf_set(&e->name, (const unsigned char *)"", 0);
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

int ps_kineto_finish_event(struct kctx *c)
{
    int rc = ps_kineto_memory_note(c);
    if (rc < 0)
        return rc;
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
        return rc;
    c->index++;
    return 0;
}

void ps_kineto_event_reset(struct event *e)
{
    struct buf cat = e->cat, name = e->name, arg_name = e->arg_name;
    memset(e, 0, sizeof *e);
    e->cat = cat, e->name = name, e->arg_name = arg_name;
    e->cat.n = e->name.n = e->arg_name.n = 0;
    e->wait_stream = -1;
}
