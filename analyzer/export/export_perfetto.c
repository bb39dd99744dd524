/* The trace model as Chrome trace-event JSON in Kineto's dialect (export_perfetto.h; mapping in docs/export.md).
 * Tracks: a Chrome "process" per host process (its threads as threads) and per GPU device (its streams as
 * threads, pid = device index, tid = stream id, as Kineto writes them). Events are written as the model is walked;
 * nothing is buffered but stdio's buffer. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_utf8.h"
#include "export/export_perfetto.h"
#include "render/json_writer.h"


/* ---- the export ---- */

struct exp {
    const struct ps_model *m;
    struct ps_jw *w;
    int64_t base_ns;             /* "baseTimeNanoseconds": every ts is relative to it */
    uint32_t annotation_pid;     /* the GPU "process" that holds gpu_user_annotation ranges */
    struct ps_export_counts n;
};

/* ns as microseconds with three decimals ("12.345": exact ns) into buf (32 bytes). */
static const char *fmt_us(char *buf, int64_t ns)
{
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, 32, "%s%llu.%03u", ns < 0 ? "-" : "", (unsigned long long)(mag / 1000), (unsigned)(mag % 1000));
    return buf;
}

/* "ts": a time on the trace's base (t >= base: the base is the earliest time). */
static void put_ts(struct exp *e, int64_t t_ns)
{
    char buf[32];
    ps_jw_key(e->w, "ts");
    ps_jw_number(e->w, fmt_us(buf, (int64_t)((uint64_t)t_ns - (uint64_t)e->base_ns)));
}

static void put_dur(struct exp *e, int64_t d_ns)
{
    char buf[32];
    ps_jw_key(e->w, "dur");
    ps_jw_number(e->w, fmt_us(buf, d_ns));
}

/* Open an event object with its ph, cat, name, pid and tid (the caller adds the rest and closes it). */
static void begin_event(struct exp *e, const char *ph, const char *cat, const char *name, uint32_t pid, uint32_t tid)
{
    e->n.events++;
    ps_jw_map_open(e->w);
    ps_jw_kstr(e->w, "ph", ph);
    ps_jw_kstr(e->w, "cat", cat);
    ps_jw_kstr(e->w, "name", name);
    ps_jw_kint(e->w, "pid", pid);
    ps_jw_kint(e->w, "tid", tid);
}

/* A metadata event {"ph":"M", ..., "args":{key: value}}, value a string or (str NULL) the number num. */
static void meta_event(struct exp *e, const char *what, uint32_t pid, uint32_t tid, const char *key, const char *str,
                       int64_t num)
{
    begin_event(e, "M", "__metadata", what, pid, tid);
    ps_jw_key(e->w, "args");
    ps_jw_map_open(e->w);
    if (str)
        ps_jw_kstr(e->w, key, str);
    else
        ps_jw_kint(e->w, key, num);
    ps_jw_map_close(e->w);
    ps_jw_map_close(e->w);
}

/* Chrome tids on a GPU "process": a stream's CUDA id when it is below PS_TID_SPECIAL, else a tid above it from its
 * index; PS_TID_SPECIAL itself holds the device's gpu_user_annotation ranges. */
#define PS_TID_SPECIAL ((uint32_t)UINT32_MAX - 65536)
static uint32_t stream_tid(const struct ps_model *m, uint32_t s)
{
    int64_t id = m->streams.v[s].stream;
    return id >= 0 && id < (int64_t)PS_TID_SPECIAL ? (uint32_t)id : UINT32_MAX - (uint32_t)(s % 65535);
}

static const struct ps_thread no_thread = { 0, 0, PS_NONE };   /* pid 0 / tid 0 for a call without a thread */

static uint32_t device_pid(int32_t device)
{
    return (uint32_t)device;
}

/* The correlation id written for API call i: the source's own id where ids are unique file-wide (Kineto) or the
 * trace has one process; else (several processes whose CUPTI ids may collide) the call's index + 1, so that the
 * Kineto reader, which links by file-wide id, links exactly the pairs the model links. */
static uint64_t corr_of(const struct ps_model *m, uint32_t api)
{
    return m->correlation_global || m->procs.n <= 1 ? m->api.v[api].correlation : (uint64_t)api + 1;
}

static void write_metadata_events(struct exp *e)
{
    const struct ps_model *m = e->m;
    char name[512];
    for (size_t i = 0; i < m->procs.n; i++) {
        const struct ps_process *p = &m->procs.v[i];
        snprintf(name, sizeof name, "process %" PRIu32, p->pid);
        meta_event(e, "process_name", p->pid, 0, "name", p->name != PS_NONE ? ps_model_str(m, p->name) : name, 0);
        if (p->rank >= 0) {
            snprintf(name, sizeof name, "rank %" PRId32, p->rank);
            meta_event(e, "process_labels", p->pid, 0, "labels", name, 0);
        }
    }
    for (size_t i = 0; i < m->threads.n; i++) {
        const struct ps_thread *t = &m->threads.v[i];
        if (t->name != PS_NONE)
            meta_event(e, "thread_name", t->pid, t->tid, "name", ps_model_str(m, t->name), 0);
    }
    for (size_t i = 0; i < m->devices.n; i++) {
        const struct ps_device *d = &m->devices.v[i];
        snprintf(name, sizeof name, "GPU %" PRId32 "%s%s", d->id, d->name != PS_NONE ? ": " : "",
                 d->name != PS_NONE ? ps_model_str(m, d->name) : "");
        meta_event(e, "process_name", device_pid(d->id), 0, "name", name, 0);
        meta_event(e, "process_sort_index", device_pid(d->id), 0, "sort_index", NULL, (int64_t)0x1000000 + d->id);
    }
    for (size_t i = 0; i < m->ranges.n; i++)
        if (m->ranges.v[i].kind == PS_RANGE_GPU_ANNOTATION) {
            meta_event(e, "thread_name", e->annotation_pid, PS_TID_SPECIAL, "name", "GPU annotations", 0);
            break;
        }
    for (size_t i = 0; i < m->streams.n; i++) {
        const struct ps_stream *s = &m->streams.v[i];
        snprintf(name, sizeof name, "stream %" PRId64, s->stream);
        meta_event(e, "thread_name", device_pid(s->device), stream_tid(m, (uint32_t)i), "name", name, 0);
    }
}

static void write_ranges(struct exp *e)
{
    const struct ps_model *m = e->m;
    static const char *const nvtx[] = { "push/pop", "start/end", "mark" };
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *r = &m->ranges.v[i];
        const char *name = ps_model_str(m, r->name);
        if (r->kind == PS_RANGE_GPU_ANNOTATION) {
            begin_event(e, "X", "gpu_user_annotation", name, e->annotation_pid, PS_TID_SPECIAL);
        } else {
            const struct ps_thread *t = r->thread != PS_NONE ? &m->threads.v[r->thread] : &no_thread;
            const char *cat = r->kind == PS_RANGE_CPU_OP ? "cpu_op" : r->kind == PS_RANGE_PYTHON ? "python_function"
                                                                                                : "user_annotation";
            begin_event(e, r->kind == PS_RANGE_NVTX_MARK ? "i" : "X", cat, name, t->pid, t->tid);
        }
        put_ts(e, r->start_ns);
        if (r->kind == PS_RANGE_NVTX_MARK)
            ps_jw_kstr(e->w, "s", "t");   /* an instant on its thread's track */
        else
            put_dur(e, r->end_ns - r->start_ns);
        ps_jw_key(e->w, "args");
        ps_jw_map_open(e->w);
        if (r->ext_id)
            ps_jw_kint(e->w, "External id", (int64_t)r->ext_id);
        if (r->kind <= PS_RANGE_NVTX_MARK) {
            ps_jw_kstr(e->w, "nvtx", nvtx[r->kind]);
            if (r->domain != PS_NONE)
                ps_jw_kstr(e->w, "domain", ps_model_str(m, r->domain));
            if (r->category)
                ps_jw_kint(e->w, "category", r->category);
        }
        ps_jw_map_close(e->w);
        ps_jw_map_close(e->w);
    }
}

static void write_api_calls(struct exp *e)
{
    const struct ps_model *m = e->m;
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *a = &m->api.v[i];
        const struct ps_thread *t = a->thread != PS_NONE ? &m->threads.v[a->thread] : &no_thread;
        begin_event(e, "X", a->driver ? "cuda_driver" : "cuda_runtime", ps_model_str(m, a->name), t->pid, t->tid);
        put_ts(e, a->start_ns);
        put_dur(e, a->end_ns - a->start_ns);
        ps_jw_key(e->w, "args");
        ps_jw_map_open(e->w);
        ps_jw_kint(e->w, "correlation", (int64_t)corr_of(m, (uint32_t)i));
        if (a->ext_id)
            ps_jw_kint(e->w, "External id", (int64_t)a->ext_id);
        ps_jw_map_close(e->w);
        ps_jw_map_close(e->w);
    }
}

static const char *gpu_cat(uint8_t kind)
{
    return kind == PS_GPU_KERNEL ? "kernel" : kind == PS_GPU_MEMCPY ? "gpu_memcpy" : kind == PS_GPU_MEMSET ? "gpu_memset"
                                                                                                       : "cuda_sync";
}

/* One end of Kineto's ac2g flow pair ("s" on the launching call's thread at its start; "f" binding to the GPU op,
 * "bp":"e"), id = the correlation id. */
static void flow_event(struct exp *e, const char *ph, uint32_t pid, uint32_t tid, uint64_t id, int64_t t_ns)
{
    begin_event(e, ph, "ac2g", "ac2g", pid, tid);
    ps_jw_kint(e->w, "id", (int64_t)id);
    if (ph[0] == 'f')
        ps_jw_kstr(e->w, "bp", "e");
    put_ts(e, t_ns);
    ps_jw_map_close(e->w);
}

/* GPU op i on its stream track, then its flow arrow from the launching call when it has one. */
static void write_gpu_op(struct exp *e, size_t i)
{
    static const char *const sync[] = { "Unknown", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync" };
    const struct ps_model *m = e->m;
    struct ps_gpu_op op = ps_model_gpu(m, i);
    const struct ps_stream *s = &m->streams.v[op.stream];
    uint32_t pid = device_pid(s->device), tid = stream_tid(m, op.stream);
    int64_t dur = op.end_ns - op.start_ns;
    begin_event(e, "X", gpu_cat(op.kind), ps_model_str(m, op.name), pid, tid);
    put_ts(e, op.start_ns);
    put_dur(e, dur);
    ps_jw_key(e->w, "args");
    ps_jw_map_open(e->w);
    ps_jw_kint(e->w, "device", s->device);
    ps_jw_kint(e->w, "stream", s->stream);
    if (op.launch != PS_NONE) {
        ps_jw_kint(e->w, "correlation", (int64_t)corr_of(m, op.launch));
        if (m->api.v[op.launch].ext_id)
            ps_jw_kint(e->w, "External id", (int64_t)m->api.v[op.launch].ext_id);
    }
    if (op.kind == PS_GPU_MEMCPY || op.kind == PS_GPU_MEMSET) {
        ps_jw_kint(e->w, "bytes", (int64_t)op.bytes);
        if (dur > 0)   /* bytes per ns = GB/s (Kineto's "memory bandwidth (GB/s)") */
            ps_jw_kdouble(e->w, "memory bandwidth (GB/s)", (double)op.bytes / (double)dur);
    }
    if (op.kind == PS_GPU_KERNEL && op.has_occupancy)
        ps_jw_kint(e->w, "est. achieved occupancy %", op.occupancy_pct);
    if (op.kind == PS_GPU_SYNC)
        ps_jw_kstr(e->w, "cuda_sync_kind", sync[op.copy_kind < 5 ? op.copy_kind : 0]);
    ps_jw_map_close(e->w);
    ps_jw_map_close(e->w);
    e->n.gpu_ops++;
    if (op.launch == PS_NONE)
        return;
    const struct ps_api_call *a = &m->api.v[op.launch];
    const struct ps_thread *t = a->thread != PS_NONE ? &m->threads.v[a->thread] : &no_thread;
    flow_event(e, "s", t->pid, t->tid, corr_of(m, op.launch), a->start_ns);
    flow_event(e, "f", pid, tid, corr_of(m, op.launch), op.start_ns);
    e->n.flows++;
}

/* A counter sample {"ph":"C", name, pid, ts, "args":{key: value}}. */
static void counter_event(struct exp *e, const char *cat, const char *name, uint32_t pid, int64_t t_ns,
                          const char *key, double value)
{
    begin_event(e, "C", cat, name, pid, 0);
    put_ts(e, t_ns);
    ps_jw_key(e->w, "args");
    ps_jw_map_open(e->w);
    if (value == (double)(int64_t)value)
        ps_jw_kint(e->w, key, (int64_t)value);
    else
        ps_jw_kdouble(e->w, key, value);
    ps_jw_map_close(e->w);
    ps_jw_map_close(e->w);
    e->n.counters++;
}

/* The previous sample of a process (for CPU use between samples): few processes, a linear scan. */
struct last_sample {
    uint32_t pid;
    int64_t time_ns, cpu_ns;
};

/* Host samples as two counters on the process's track: "CPU (%)" = CPU time used since the process's previous
 * sample / the time between them, in % of one core (from its second sample on), and "RSS (bytes)". Returns 0 or
 * -ENOMEM. */
static int write_host_counters(struct exp *e)
{
    const struct ps_model *m = e->m;
    struct last_sample *last = NULL;
    size_t nlast = 0, cap = 0;
    for (size_t i = 0; i < m->host_samples.n; i++) {
        const struct ps_host_sample *h = &m->host_samples.v[i];
        size_t j = 0;
        while (j < nlast && last[j].pid != h->pid)
            j++;
        if (j == nlast) {
            if (nlast == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                struct last_sample *v = realloc(last, ncap * sizeof *v);
                if (!v) {
                    free(last);
                    return -ENOMEM;
                }
                last = v, cap = ncap;
            }
            last[nlast++] = (struct last_sample){ h->pid, h->time_ns, -1 };
        } else if (h->time_ns > last[j].time_ns && last[j].cpu_ns >= 0 && h->cpu_ns >= last[j].cpu_ns) {
            counter_event(e, "host_sample", "CPU (%)", h->pid, h->time_ns, "cpu %",
                          100.0 * (double)(h->cpu_ns - last[j].cpu_ns) / (double)(h->time_ns - last[j].time_ns));
        }
        last[j].time_ns = h->time_ns, last[j].cpu_ns = h->cpu_ns;
        if (h->rss_bytes >= 0)
            counter_event(e, "host_sample", "RSS (bytes)", h->pid, h->time_ns, "rss bytes", (double)h->rss_bytes);
    }
    free(last);
    return 0;
}

/* The earliest time of anything written: GPU ops, API calls and ranges are sorted by start (ps_model_finish);
 * samples are in table order. */
static int64_t earliest(const struct ps_model *m)
{
    int64_t t = INT64_MAX;
    if (m->gpu.n && m->gpu.v[0].start_ns < t)
        t = m->gpu.v[0].start_ns;
    if (m->api.n && m->api.v[0].start_ns < t)
        t = m->api.v[0].start_ns;
    if (m->ranges.n && m->ranges.v[0].start_ns < t)
        t = m->ranges.v[0].start_ns;
    for (size_t i = 0; i < m->nvml_util.n; i++)
        if (m->nvml_util.v[i].time_ns < t)
            t = m->nvml_util.v[i].time_ns;
    for (size_t i = 0; i < m->host_samples.n; i++)
        if (m->host_samples.v[i].time_ns < t)
            t = m->host_samples.v[i].time_ns;
    return t == INT64_MAX ? 0 : t;
}

static void write_top_fields(struct exp *e)
{
    static const char *const formats[] = { "perfscope", "nsys", "kineto" };
    const struct ps_model *m = e->m;
    struct ps_jw *w = e->w;
    ps_jw_kint(w, "schemaVersion", 1);
    ps_jw_kstr(w, "displayTimeUnit", "ns");
    ps_jw_kint(w, "baseTimeNanoseconds", e->base_ns);
    ps_jw_key(w, "perfscope");
    ps_jw_map_open(w);
    ps_jw_kstr(w, "source", m->path ? m->path : "");
    ps_jw_kstr(w, "source_format", formats[m->format <= PS_FORMAT_KINETO ? m->format : 0]);
    for (size_t i = 0; i < m->meta.n; i++)
        ps_jw_kstr(w, m->meta.v[i].key, m->meta.v[i].value);
    ps_jw_map_close(w);
    if (m->rank >= 0 || m->world_size > 0) {
        ps_jw_key(w, "distributedInfo");
        ps_jw_map_open(w);
        ps_jw_kint(w, "rank", m->rank >= 0 ? m->rank : 0);
        ps_jw_kint(w, "world_size", m->world_size > 0 ? m->world_size : 1);
        ps_jw_map_close(w);
    }
    ps_jw_key(w, "deviceProperties");
    ps_jw_array_open(w);
    for (size_t i = 0; i < m->devices.n; i++) {
        const struct ps_device *d = &m->devices.v[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "id", d->id);
        if (d->name != PS_NONE)
            ps_jw_kstr(w, "name", ps_model_str(m, d->name));
        if (d->total_mem_bytes >= 0)
            ps_jw_kint(w, "totalGlobalMem", d->total_mem_bytes);
        if (d->cc_major >= 0) {
            ps_jw_kint(w, "computeMajor", d->cc_major);
            ps_jw_kint(w, "computeMinor", d->cc_minor);
        }
        if (d->sm_count >= 0)
            ps_jw_kint(w, "numSms", d->sm_count);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

int ps_export_perfetto(const struct ps_model *m, FILE *out, struct ps_export_counts *counts)
{
    struct exp e = { .m = m, .w = ps_jw_new(out), .base_ns = earliest(m) };
    if (!e.w)
        return -ENOMEM;
    e.annotation_pid = m->devices.n ? device_pid(m->devices.v[0].id) : 0;
    ps_jw_map_open(e.w);
    write_top_fields(&e);
    ps_jw_key(e.w, "traceEvents");
    ps_jw_array_open(e.w);
    write_metadata_events(&e);
    write_ranges(&e);
    write_api_calls(&e);
    for (size_t i = 0; i < m->gpu.n; i++)
        write_gpu_op(&e, i);
    for (size_t i = 0; i < m->nvml_util.n; i++)
        counter_event(&e, "gpu_utilization", "GPU utilization (NVML, %)", device_pid(m->nvml_util.v[i].device),
                      m->nvml_util.v[i].time_ns, "util %", m->nvml_util.v[i].util_pct);
    int rc = write_host_counters(&e);
    ps_jw_array_close(e.w);
    ps_jw_map_close(e.w);
    int wrc = ps_jw_free(e.w);
    if (counts)
        *counts = e.n;
    return rc < 0 ? rc : wrc;
}
