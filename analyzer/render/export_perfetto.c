/* The trace model as Chrome trace-event JSON in Kineto's dialect (export_perfetto.h; mapping in docs/export.md).
 * Tracks: a Chrome "process" per host process (its threads as threads) and per GPU device (its streams as
 * threads, pid = device index, tid = stream id, as Kineto writes them). Events are written as the model is walked;
 * nothing is buffered but one event's text in stdio. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_schema.h"
#include "ps_utf8.h"
#include "render/export_perfetto.h"

struct exp {
    const struct ps_model *m;
    FILE *out;
    int64_t base_ns;             /* "baseTimeNanoseconds": every ts is relative to it */
    int first;                   /* no event written yet (no comma before the next) */
    uint32_t annotation_pid;     /* the GPU "process" that holds gpu_user_annotation ranges */
    struct ps_export_counts n;
};

/* A JSON string: escapes per RFC 8259 §7, each maximal invalid UTF-8 subpart as U+FFFD (ps_utf8.h). Runs of
 * characters that need nothing are written whole. */
static void put_str(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    putc('"', out);
    while (left) {
        size_t run = 0;
        while (run < left && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
            run++;
        if (run) {
            fwrite(p, 1, run, out);
            p += run, left -= run;
            continue;
        }
        unsigned char ch = *p;
        int len = 1;
        if (ch == '"' || ch == '\\') {
            putc('\\', out);
            putc(ch, out);
        } else if (ch < 0x20) {
            fprintf(out, "\\u%04x", ch);
        } else if ((len = ps_utf8_seq(p, left)) > 0) {
            fwrite(p, 1, (size_t)len, out);
        } else {
            fputs(PS_UTF8_REPLACEMENT, out);
            len = -len;
        }
        p += len, left -= (size_t)len;
    }
    putc('"', out);
}

/* Decimal digits of v, written (printf's %" PRIu64 " costs more than the rest of an event). */
static void put_u64(FILE *out, uint64_t v)
{
    char buf[24], *q = buf + sizeof buf;
    do
        *--q = (char)('0' + v % 10);
    while (v /= 10);
    fwrite(q, 1, (size_t)(buf + sizeof buf - q), out);
}

static void put_i64(FILE *out, int64_t v)
{
    if (v < 0)
        putc('-', out);
    put_u64(out, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* ns as microseconds with three decimals: "12.345". */
static void put_us(FILE *out, uint64_t ns)
{
    char frac[5] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10), 0 };
    put_u64(out, ns / 1000);
    fwrite(frac, 1, 4, out);
}

/* A time on the trace's base as microseconds with three decimals (exact ns). */
static void put_ts(struct exp *e, int64_t t_ns)
{
    put_us(e->out, (uint64_t)t_ns - (uint64_t)e->base_ns);   /* t >= base: the base is the earliest time */
}

static void put_dur(FILE *out, int64_t d_ns)
{
    if (d_ns < 0)
        putc('-', out);
    put_us(out, d_ns < 0 ? (uint64_t)0 - (uint64_t)d_ns : (uint64_t)d_ns);
}

/* Start an event object: {"ph":"X","cat":..,"name":..,"pid":..,"tid":.. (the caller adds the rest and '}'). */
static void begin_event(struct exp *e, char ph, const char *cat, const char *name, uint32_t pid, uint32_t tid)
{
    fputs(e->first ? "\n" : ",\n", e->out);
    e->first = 0;
    e->n.events++;
    char head[] = "{\"ph\":\"?\",\"cat\":";
    head[7] = ph;
    fputs(head, e->out);
    put_str(e->out, cat);
    fputs(",\"name\":", e->out);
    put_str(e->out, name);
    fputs(",\"pid\":", e->out);
    put_u64(e->out, pid);
    fputs(",\"tid\":", e->out);
    put_u64(e->out, tid);
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
    for (size_t i = 0; i < m->procs.n; i++) {
        const struct ps_process *p = &m->procs.v[i];
        char fallback[32];
        snprintf(fallback, sizeof fallback, "process %" PRIu32, p->pid);
        begin_event(e, 'M', "__metadata", "process_name", p->pid, 0);
        fputs(",\"args\":{\"name\":", e->out);
        put_str(e->out, p->name != PS_NONE ? ps_model_str(m, p->name) : fallback);
        fputs("}}", e->out);
        if (p->rank >= 0) {
            begin_event(e, 'M', "__metadata", "process_labels", p->pid, 0);
            fprintf(e->out, ",\"args\":{\"labels\":\"rank %" PRId32 "\"}}", p->rank);
        }
    }
    for (size_t i = 0; i < m->threads.n; i++) {
        const struct ps_thread *t = &m->threads.v[i];
        if (t->name == PS_NONE)
            continue;
        begin_event(e, 'M', "__metadata", "thread_name", t->pid, t->tid);
        fputs(",\"args\":{\"name\":", e->out);
        put_str(e->out, ps_model_str(m, t->name));
        fputs("}}", e->out);
    }
    for (size_t i = 0; i < m->devices.n; i++) {
        const struct ps_device *d = &m->devices.v[i];
        char name[512];
        snprintf(name, sizeof name, "GPU %" PRId32 "%s%s", d->id, d->name != PS_NONE ? ": " : "",
                 d->name != PS_NONE ? ps_model_str(m, d->name) : "");
        begin_event(e, 'M', "__metadata", "process_name", device_pid(d->id), 0);
        fputs(",\"args\":{\"name\":", e->out);
        put_str(e->out, name);
        fputs("}}", e->out);
        begin_event(e, 'M', "__metadata", "process_sort_index", device_pid(d->id), 0);
        fprintf(e->out, ",\"args\":{\"sort_index\":%" PRId64 "}}", (int64_t)0x1000000 + d->id);
    }
    for (size_t i = 0; i < m->ranges.n; i++)
        if (m->ranges.v[i].kind == PS_RANGE_GPU_ANNOTATION) {
            begin_event(e, 'M', "__metadata", "thread_name", e->annotation_pid, PS_TID_SPECIAL);
            fputs(",\"args\":{\"name\":\"GPU annotations\"}}", e->out);
            break;
        }
    for (size_t i = 0; i < m->streams.n; i++) {
        const struct ps_stream *s = &m->streams.v[i];
        char name[64];
        snprintf(name, sizeof name, "stream %" PRId64, s->stream);
        begin_event(e, 'M', "__metadata", "thread_name", device_pid(s->device), stream_tid(m, (uint32_t)i));
        fputs(",\"args\":{\"name\":", e->out);
        put_str(e->out, name);
        fputs("}}", e->out);
    }
}

static void write_ranges(struct exp *e)
{
    const struct ps_model *m = e->m;
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *r = &m->ranges.v[i];
        const char *name = ps_model_str(m, r->name);
        if (r->kind == PS_RANGE_GPU_ANNOTATION) {
            begin_event(e, 'X', "gpu_user_annotation", name, e->annotation_pid, PS_TID_SPECIAL);
        } else {
            uint32_t pid = 0, tid = 0;
            if (r->thread != PS_NONE)
                pid = m->threads.v[r->thread].pid, tid = m->threads.v[r->thread].tid;
            const char *cat = r->kind == PS_RANGE_CPU_OP ? "cpu_op" : r->kind == PS_RANGE_PYTHON ? "python_function"
                                                                                                : "user_annotation";
            begin_event(e, r->kind == PS_RANGE_NVTX_MARK ? 'i' : 'X', cat, name, pid, tid);
        }
        fputs(",\"ts\":", e->out);
        put_ts(e, r->start_ns);
        if (r->kind == PS_RANGE_NVTX_MARK) {
            fputs(",\"s\":\"t\"", e->out);
        } else {
            fputs(",\"dur\":", e->out);
            put_dur(e->out, r->end_ns - r->start_ns);
        }
        fputs(",\"args\":{", e->out);
        const char *sep = "";
        if (r->ext_id) {
            fputs("\"External id\":", e->out);
            put_u64(e->out, r->ext_id);
            sep = ",";
        }
        if (r->kind <= PS_RANGE_NVTX_MARK) {
            static const char *const nvtx[] = { "push/pop", "start/end", "mark" };
            fprintf(e->out, "%s\"nvtx\":\"%s\"", sep, nvtx[r->kind]);
            if (r->domain != PS_NONE) {
                fputs(",\"domain\":", e->out);
                put_str(e->out, ps_model_str(m, r->domain));
            }
        }
        fputs("}}", e->out);
    }
}

static void write_api_calls(struct exp *e)
{
    const struct ps_model *m = e->m;
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *a = &m->api.v[i];
        const struct ps_thread *t = a->thread != PS_NONE ? &m->threads.v[a->thread] : &no_thread;
        begin_event(e, 'X', a->driver ? "cuda_driver" : "cuda_runtime", ps_model_str(m, a->name), t->pid, t->tid);
        fputs(",\"ts\":", e->out);
        put_ts(e, a->start_ns);
        fputs(",\"dur\":", e->out);
        put_dur(e->out, a->end_ns - a->start_ns);
        fputs(",\"args\":{\"correlation\":", e->out);
        put_u64(e->out, corr_of(m, (uint32_t)i));
        if (a->ext_id) {
            fputs(",\"External id\":", e->out);
            put_u64(e->out, a->ext_id);
        }
        fputs("}}", e->out);
    }
}

static const char *gpu_cat(uint8_t kind)
{
    return kind == PS_GPU_KERNEL ? "kernel" : kind == PS_GPU_MEMCPY ? "gpu_memcpy" : kind == PS_GPU_MEMSET ? "gpu_memset"
                                                                                                       : "cuda_sync";
}

/* GPU op i on its stream track, then its flow arrow from the launching call when it has one. */
static void write_gpu_op(struct exp *e, size_t i)
{
    const struct ps_model *m = e->m;
    struct ps_gpu_op op = ps_model_gpu(m, i);
    const struct ps_stream *s = &m->streams.v[op.stream];
    uint32_t pid = device_pid(s->device), tid = stream_tid(m, op.stream);
    int64_t dur = op.end_ns - op.start_ns;
    begin_event(e, 'X', gpu_cat(op.kind), ps_model_str(m, op.name), pid, tid);
    fputs(",\"ts\":", e->out);
    put_ts(e, op.start_ns);
    fputs(",\"dur\":", e->out);
    put_dur(e->out, dur);
    fputs(",\"args\":{\"device\":", e->out);
    put_i64(e->out, s->device);
    fputs(",\"stream\":", e->out);
    put_i64(e->out, s->stream);
    if (op.launch != PS_NONE) {
        fputs(",\"correlation\":", e->out);
        put_u64(e->out, corr_of(m, op.launch));
        if (m->api.v[op.launch].ext_id) {
            fputs(",\"External id\":", e->out);
            put_u64(e->out, m->api.v[op.launch].ext_id);
        }
    }
    if (op.kind == PS_GPU_MEMCPY || op.kind == PS_GPU_MEMSET) {
        fprintf(e->out, ",\"bytes\":%" PRIu64, op.bytes);
        if (dur > 0)   /* bytes per ns = GB/s (Kineto's "memory bandwidth (GB/s)") */
            fprintf(e->out, ",\"memory bandwidth (GB/s)\":%.6g", (double)op.bytes / (double)dur);
    }
    if (op.kind == PS_GPU_KERNEL && op.has_occupancy)
        fprintf(e->out, ",\"est. achieved occupancy %%\":%u", op.occupancy_pct);
    if (op.kind == PS_GPU_SYNC) {
        static const char *const sync[] = { "Unknown", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync" };
        fprintf(e->out, ",\"cuda_sync_kind\":\"%s\"", sync[op.copy_kind < 5 ? op.copy_kind : 0]);
    }
    fputs("}}", e->out);
    e->n.gpu_ops++;
    if (op.launch == PS_NONE)
        return;
    /* Kineto's ac2g pair: 's' on the launching call's thread at its start, 'f' binding to this op ("bp":"e"). */
    const struct ps_api_call *a = &m->api.v[op.launch];
    const struct ps_thread *t = a->thread != PS_NONE ? &m->threads.v[a->thread] : &no_thread;
    uint64_t id = corr_of(m, op.launch);
    begin_event(e, 's', "ac2g", "ac2g", t->pid, t->tid);
    fputs(",\"id\":", e->out);
    put_u64(e->out, id);
    fputs(",\"ts\":", e->out);
    put_ts(e, a->start_ns);
    fputs("}", e->out);
    begin_event(e, 'f', "ac2g", "ac2g", pid, tid);
    fputs(",\"id\":", e->out);
    put_u64(e->out, id);
    fputs(",\"bp\":\"e\",\"ts\":", e->out);
    put_ts(e, op.start_ns);
    fputs("}", e->out);
    e->n.flows++;
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
            begin_event(e, 'C', "host_sample", "CPU (%)", h->pid, 0);
            fputs(",\"ts\":", e->out);
            put_ts(e, h->time_ns);
            fprintf(e->out, ",\"args\":{\"cpu %%\":%.6g}}",
                    100.0 * (double)(h->cpu_ns - last[j].cpu_ns) / (double)(h->time_ns - last[j].time_ns));
            e->n.counters++;
        }
        last[j].time_ns = h->time_ns, last[j].cpu_ns = h->cpu_ns;
        if (h->rss_bytes >= 0) {
            begin_event(e, 'C', "host_sample", "RSS (bytes)", h->pid, 0);
            fputs(",\"ts\":", e->out);
            put_ts(e, h->time_ns);
            fprintf(e->out, ",\"args\":{\"rss bytes\":%" PRId64 "}}", h->rss_bytes);
            e->n.counters++;
        }
    }
    free(last);
    return 0;
}

static void write_counters(struct exp *e)
{
    const struct ps_model *m = e->m;
    for (size_t i = 0; i < m->nvml_util.n; i++) {
        const struct ps_nvml_util_sample *u = &m->nvml_util.v[i];
        begin_event(e, 'C', "gpu_utilization", "GPU utilization (NVML, %)", device_pid(u->device), 0);
        fputs(",\"ts\":", e->out);
        put_ts(e, u->time_ns);
        fprintf(e->out, ",\"args\":{\"util %%\":%" PRId32 "}}", u->util_pct);
        e->n.counters++;
    }
}

/* The earliest time of anything written: GPU ops, API calls and ranges are sorted by start (ps_model_finish);
 * NVML samples are in table order. */
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
    const struct ps_model *m = e->m;
    static const char *const formats[] = { "perfscope", "nsys", "kineto" };
    fprintf(e->out, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\",\"baseTimeNanoseconds\":%" PRId64 ",\n",
            e->base_ns);
    fputs("\"perfscope\":{\"source\":", e->out);
    put_str(e->out, m->path ? m->path : "");
    fprintf(e->out, ",\"source_format\":\"%s\"", formats[m->format <= PS_FORMAT_KINETO ? m->format : 0]);
    for (size_t i = 0; i < m->meta.n; i++) {
        fputs(",", e->out);
        put_str(e->out, m->meta.v[i].key);
        fputs(":", e->out);
        put_str(e->out, m->meta.v[i].value);
    }
    fputs("},\n", e->out);
    if (m->rank >= 0 || m->world_size > 0)
        fprintf(e->out, "\"distributedInfo\":{\"rank\":%" PRId32 ",\"world_size\":%" PRId32 "},\n",
                m->rank >= 0 ? m->rank : 0, m->world_size > 0 ? m->world_size : 1);
    fputs("\"deviceProperties\":[", e->out);
    for (size_t i = 0; i < m->devices.n; i++) {
        const struct ps_device *d = &m->devices.v[i];
        fprintf(e->out, "%s{\"id\":%" PRId32, i ? "," : "", d->id);
        if (d->name != PS_NONE) {
            fputs(",\"name\":", e->out);
            put_str(e->out, ps_model_str(m, d->name));
        }
        if (d->total_mem_bytes >= 0)
            fprintf(e->out, ",\"totalGlobalMem\":%" PRId64, d->total_mem_bytes);
        if (d->cc_major >= 0)
            fprintf(e->out, ",\"computeMajor\":%" PRId32 ",\"computeMinor\":%" PRId32, d->cc_major, d->cc_minor);
        if (d->sm_count >= 0)
            fprintf(e->out, ",\"numSms\":%" PRId32, d->sm_count);
        fputs("}", e->out);
    }
    fputs("],\n", e->out);
}

int ps_export_perfetto(const struct ps_model *m, FILE *out, struct ps_export_counts *counts)
{
    struct exp e = { .m = m, .out = out, .base_ns = earliest(m), .first = 1 };
    e.annotation_pid = m->devices.n ? device_pid(m->devices.v[0].id) : 0;
    write_top_fields(&e);
    fputs("\"traceEvents\":[", out);
    write_metadata_events(&e);
    write_ranges(&e);
    write_api_calls(&e);
    for (size_t i = 0; i < m->gpu.n; i++)
        write_gpu_op(&e, i);
    write_counters(&e);
    int rc = write_host_counters(&e);
    fputs("\n]}\n", out);
    if (counts)
        *counts = e.n;
    return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}
