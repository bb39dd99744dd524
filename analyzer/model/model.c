/* The trace model's storage: growable arrays, an interning string pool, find-or-add lookups,
 * and the final sort + API→GPU correlation link shared by every reader. */
#include "model/model.h"
#include "model/op_trace.h"
#include "model_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- string pool: open-addressing hash over an arena of NUL-terminated strings ---- */

struct ps_strpool {
    char **strs;          /* id -> string (points into chunks) */
    size_t n, cap;
    struct ps_u64map by_hash;   /* ps_hash_bytes(string) -> id (a multi-map: strings may share a hash) */
    char *chunk;          /* current arena chunk */
    size_t chunk_used, chunk_size;
    char **chunks;        /* all chunks, for freeing */
    size_t nchunks;
};

static void strpool_free(struct ps_strpool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    free(p->strs);
    ps_u64map_fini(&p->by_hash);
    free(p);
}

static char *strpool_store(struct ps_strpool *p, const char *s, size_t len)
{
    if (p->chunk_used + len + 1 > p->chunk_size) {
        size_t size = len + 1 > 65536 ? len + 1 : 65536;
        char **chunks = realloc(p->chunks, (p->nchunks + 1) * sizeof *chunks);
        if (!chunks)
            return NULL;
        p->chunks = chunks;
        char *chunk = malloc(size);
        if (!chunk)
            return NULL;
        p->chunks[p->nchunks++] = chunk;
        p->chunk = chunk;
        p->chunk_size = size;
        p->chunk_used = 0;
    }
    char *dst = p->chunk + p->chunk_used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    p->chunk_used += len + 1;
    return dst;
}

uint32_t ps_model_intern(struct ps_model *m, const char *s, size_t len)
{
    struct ps_strpool *p = m->strings;
    uint64_t h = ps_hash_bytes(s, len), *v;
    size_t pos = 0;
    while ((v = ps_u64map_next(&p->by_hash, h, &pos))) {
        const char *cand = p->strs[*v];
        if (strncmp(cand, s, len) == 0 && cand[len] == '\0')
            return (uint32_t)*v;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        char **strs = realloc(p->strs, cap * sizeof *strs);
        if (!strs)
            return PS_NONE;
        p->strs = strs;
        p->cap = cap;
    }
    char *copy = strpool_store(p, s, len);
    if (!copy || p->n >= PS_NONE - 1 || ps_u64map_add(&p->by_hash, h, p->n) < 0)
        return PS_NONE;
    p->strs[p->n] = copy;
    return (uint32_t)p->n++;
}

uint32_t ps_model_intern_cstr(struct ps_model *m, const char *s)
{
    return ps_model_intern(m, s, strlen(s));
}

const char *ps_model_str(const struct ps_model *m, uint32_t id)
{
    if (id == PS_NONE || id >= m->strings->n)
        return "";
    return m->strings->strs[id];
}

size_t ps_model_nstrings(const struct ps_model *m)
{
    return m->strings->n;
}

/* ---- arrays ---- */

static int vec_grow(void **v, size_t *cap, size_t n, size_t item)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 256;
    void *nv = realloc(*v, ncap * item);
    if (!nv)
        return -ENOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

/* Capacity for `more` items past n (no change when there is room already). */
static int vec_reserve(void **v, size_t *cap, size_t n, size_t more, size_t item)
{
    if (more > SIZE_MAX / item - n - 1)
        return -ENOMEM;
    if (n + more <= *cap)
        return 0;
    void *nv = realloc(*v, (n + more) * item);
    if (!nv)
        return -ENOMEM;
    *v = nv;
    *cap = n + more;
    return 0;
}

#define VEC_PUSH(vec, item)                                                                  \
    (vec_grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v) < 0                    \
         ? -ENOMEM                                                                           \
         : ((vec).v[(vec).n++] = (item), 0))


struct ps_model *ps_model_new(const char *path, enum ps_format format)
{
    struct ps_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->format = format;
    m->rank = m->local_rank = m->world_size = -1;
    m->dropped_records = -1;
    m->strings = calloc(1, sizeof *m->strings);
    m->path = strdup(path ? path : "");
    if (!m->strings || !m->path) {
        ps_model_free(m);
        return NULL;
    }
    return m;
}

struct ps_op_trace *ps_model_take_op_events(struct ps_model *m)
{
    struct ps_op_trace *t = m->op_events;
    m->op_events = NULL;
    return t;
}

void ps_model_free(struct ps_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->meta.n; i++) {
        free(m->meta.v[i].key);
        free(m->meta.v[i].value);
    }
    free(m->meta.v);
    free(m->gpu.v);
    free(m->gpu_attrs.v);
    free(m->gpu_launch);
    free(m->flow_linked);
    ps_op_trace_free(m->op_events);
    ps_model_build_free(m);
    free(m->api.v);
    free(m->ranges.v);
    free(m->open_ranges.v);
    free(m->procs.v);
    free(m->threads.v);
    free(m->streams.v);
    free(m->devices.v);
    free(m->nvml_util.v);
    free(m->host_samples.v);
    free(m->thread_samples.v);
    free(m->py_samples.v);
    free(m->py_stacks.v);
    free(m->py_stack_frames.v);
    free(m->py_frames.v);
    free(m->mem_events.v);
    free(m->nvml_mem.v);
    free(m->stream_waits.v);
    strpool_free(m->strings);
    free(m->path);
    free(m);
}

/* Processes, threads, streams and devices are few (tens to thousands): a linear scan from the
 * most recently added entry is fast enough and keeps the model simple. */
/* ---- reader-time state: lookup indexes of the find-or-add calls and of GPU attribute rows ---- */

static struct ps_gpu_build *build_state(struct ps_model *m)
{
    if (!m->gpu_build)
        m->gpu_build = calloc(1, sizeof *m->gpu_build);
    return m->gpu_build;
}

void ps_model_build_free(struct ps_model *m)
{
    if (!m->gpu_build)
        return;
    ps_u64map_fini(&m->gpu_build->attrs);
    free(m->gpu_build->corr);
    ps_idmap_fini(&m->gpu_build->procs);
    ps_idmap_fini(&m->gpu_build->threads);
    ps_idmap_fini(&m->gpu_build->streams);
    ps_idmap_fini(&m->gpu_build->devices);
    ps_u64map_fini(&m->gpu_build->calls);   /* a growing model's (grow.c) */
    free(m->gpu_build->pending.v);
    free(m->gpu_build);
    m->gpu_build = NULL;
}

/* A stream's (pid, device, stream) hashed to the 64-bit key of its map entry; a lookup checks the fields, and
 * falls back to a linear search on the (rare) collision. */
static uint64_t stream_key(uint32_t pid, int32_t device, int64_t stream)
{
    uint64_t h = ((uint64_t)pid << 32 | (uint32_t)device) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)stream * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 31);
}

/* Hash lookups of processes (by pid), threads (by pid << 32 | tid), streams and devices, kept in the reader-time
 * state: a linear search per lookup made 20000 processes quadratic. Rows pushed since the last
 * call (or all of them, after ps_model_finish freed the state) are indexed first; a later row with the same key
 * wins, as the backward searches did (rows are find-or-add: keys do not repeat). */
static int owners_index(struct ps_model *m, struct ps_gpu_build *b)
{
    for (; b->nstreams < m->streams.n; b->nstreams++) {
        const struct ps_stream *s = &m->streams.v[b->nstreams];
        if (ps_idmap_put(&b->streams, stream_key(s->pid, s->device, s->stream), (uint32_t)b->nstreams) < 0)
            return -ENOMEM;
    }
    for (; b->ndevices < m->devices.n; b->ndevices++)
        if (ps_idmap_put(&b->devices, (uint32_t)m->devices.v[b->ndevices].id, (uint32_t)b->ndevices) < 0)
            return -ENOMEM;
    for (; b->nprocs < m->procs.n; b->nprocs++)
        if (ps_idmap_put(&b->procs, m->procs.v[b->nprocs].pid, (uint32_t)b->nprocs) < 0)
            return -ENOMEM;
    for (; b->nthreads < m->threads.n; b->nthreads++) {
        const struct ps_thread *t = &m->threads.v[b->nthreads];
        if (ps_idmap_put(&b->threads, (uint64_t)t->pid << 32 | t->tid, (uint32_t)b->nthreads) < 0)
            return -ENOMEM;
    }
    return 0;
}

uint32_t ps_model_process(struct ps_model *m, uint32_t pid)
{
    struct ps_gpu_build *b = build_state(m);
    if (!b || owners_index(m, b) < 0)
        return PS_NONE;
    uint32_t i = ps_idmap_get(&b->procs, pid);
    if (i != PS_NONE)
        return i;
    struct ps_process p = { .pid = pid, .name = PS_NONE, .rank = -1, .cpu_ns = -1, .first_sample_ns = -1,
                            .last_sample_ns = -1 };
    return VEC_PUSH(m->procs, p) < 0 || owners_index(m, b) < 0 ? PS_NONE : (uint32_t)(m->procs.n - 1);
}

uint32_t ps_model_thread(struct ps_model *m, uint32_t pid, uint32_t tid)
{
    struct ps_gpu_build *b = build_state(m);
    if (!b || owners_index(m, b) < 0)
        return PS_NONE;
    uint32_t i = ps_idmap_get(&b->threads, (uint64_t)pid << 32 | tid);
    if (i != PS_NONE)
        return i;
    struct ps_thread t = { .pid = pid, .tid = tid, .name = PS_NONE };
    return VEC_PUSH(m->threads, t) < 0 || owners_index(m, b) < 0 ? PS_NONE : (uint32_t)(m->threads.n - 1);
}

static int stream_is(const struct ps_stream *s, uint32_t pid, int32_t device, int64_t stream)
{
    return s->pid == pid && s->device == device && s->stream == stream;
}

uint32_t ps_model_stream(struct ps_model *m, uint32_t pid, int32_t device, int64_t stream)
{
    struct ps_gpu_build *b = build_state(m);
    if (!b || owners_index(m, b) < 0)
        return PS_NONE;
    uint32_t i = ps_idmap_get(&b->streams, stream_key(pid, device, stream));
    if (i != PS_NONE && stream_is(&m->streams.v[i], pid, device, stream))
        return i;
    for (size_t k = m->streams.n; i != PS_NONE && k-- > 0;)   /* a hash collision: search */
        if (stream_is(&m->streams.v[k], pid, device, stream))
            return (uint32_t)k;
    struct ps_stream s = { .pid = pid, .device = device, .stream = stream };
    return VEC_PUSH(m->streams, s) < 0 || owners_index(m, b) < 0 ? PS_NONE : (uint32_t)(m->streams.n - 1);
}

uint32_t ps_model_device(struct ps_model *m, int32_t id)
{
    struct ps_gpu_build *b = build_state(m);
    if (!b || owners_index(m, b) < 0)
        return PS_NONE;
    uint32_t i = ps_idmap_get(&b->devices, (uint32_t)id);
    if (i != PS_NONE)
        return i;
    struct ps_device d = { .id = id, .name = PS_NONE, .cc_major = -1, .cc_minor = -1, .sm_count = -1,
                           .total_mem_bytes = -1 };
    return VEC_PUSH(m->devices, d) < 0 || owners_index(m, b) < 0 ? PS_NONE : (uint32_t)(m->devices.n - 1);
}

/* ---- GPU ops: 16-byte rows + shared attribute rows (see model.h) ---- */

static uint64_t attr_hash(const struct ps_gpu_attr *a)
{
    uint64_t h = a->bytes * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)a->name << 32 | a->stream) * 0xc2b2ae3d27d4eb4full;
    h ^= ((uint64_t)a->kind << 24 | (uint64_t)a->copy_kind << 16 | (uint64_t)a->src_kind << 8 | a->dst_kind) *
         0x165667b19e3779f9ull;
    return h ^ (h >> 29);
}

static int attr_equal(const struct ps_gpu_attr *a, const struct ps_gpu_attr *b)
{
    return a->bytes == b->bytes && !a->is_long && !b->is_long && a->name == b->name &&
           a->stream == b->stream && a->kind == b->kind && a->copy_kind == b->copy_kind &&
           a->src_kind == b->src_kind && a->dst_kind == b->dst_kind && a->has_occupancy == b->has_occupancy &&
           a->occupancy_pct == b->occupancy_pct;
}

/* Index the attributes added since the last call (all of them after a finish freed the index). */
static int attr_index(struct ps_model *m)
{
    struct ps_gpu_build *b = m->gpu_build;
    for (; b->nattrs < m->gpu_attrs.n; b->nattrs++) {
        const struct ps_gpu_attr *a = &m->gpu_attrs.v[b->nattrs];
        if (!a->is_long && ps_u64map_add(&b->attrs, attr_hash(a), b->nattrs) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* Find-or-add the attribute row `a` (long rows are always added). Returns its index, PS_NONE on out-of-memory. */
static uint32_t attr_get(struct ps_model *m, const struct ps_gpu_attr *a)
{
    struct ps_gpu_build *b = m->gpu_build;
    if (!a->is_long) {
        if (attr_index(m) < 0)
            return PS_NONE;
        uint64_t *v;
        size_t pos = 0;
        while ((v = ps_u64map_next(&b->attrs, attr_hash(a), &pos)))
            if (attr_equal(&m->gpu_attrs.v[*v], a))
                return (uint32_t)*v;
    }
    if (m->gpu_attrs.n >= PS_NONE - 1 || VEC_PUSH(m->gpu_attrs, *a) < 0)
        return PS_NONE;
    return (uint32_t)(m->gpu_attrs.n - 1);
}

/* Row for [start, end) with the attributes `a` (made an own long row here when the duration needs it). */
static int make_row(struct ps_model *m, int64_t start, int64_t end, struct ps_gpu_attr *a, struct ps_gpu_row *row)
{
    int64_t dur;
    int fits = !__builtin_sub_overflow(end, start, &dur) && dur >= 0 && dur < PS_GPU_LONG;
    a->is_long = !fits;
    a->long_end_ns = fits ? 0 : end;
    row->start_ns = start;
    row->dur_ns = fits ? (uint32_t)dur : PS_GPU_LONG;
    row->attr = attr_get(m, a);
    return row->attr == PS_NONE ? -ENOMEM : 0;
}

int ps_model_add_gpu(struct ps_model *m, const struct ps_gpu_op *op)
{
    if (!m->gpu_build && !(m->gpu_build = calloc(1, sizeof *m->gpu_build)))
        return -ENOMEM;
    struct ps_gpu_build *b = m->gpu_build;
    struct ps_gpu_attr a = { .bytes = op->bytes, .name = op->name, .stream = op->stream, .kind = op->kind,
                             .copy_kind = op->copy_kind, .src_kind = op->src_kind, .dst_kind = op->dst_kind,
                             .has_occupancy = op->has_occupancy != 0,
                             .occupancy_pct = op->has_occupancy ? op->occupancy_pct : 0 };
    struct ps_gpu_row row;
    if (make_row(m, op->start_ns, op->end_ns, &a, &row) < 0 || VEC_PUSH(m->gpu, row) < 0)
        return -ENOMEM;
    if (b->corr && b->corr_cap < m->gpu.cap) {
        uint64_t *corr = realloc(b->corr, m->gpu.cap * sizeof *corr);
        if (!corr) {
            m->gpu.n--;   /* not added: the arrays stay parallel */
            return -ENOMEM;
        }
        b->corr = corr;
        b->corr_cap = m->gpu.cap;
    }
    if (op->correlation && !b->corr) {   /* the first op with a correlation id: earlier ones had none (zeros) */
        if (!(b->corr = calloc(m->gpu.cap, sizeof *b->corr))) {
            m->gpu.n--;
            return -ENOMEM;
        }
        b->corr_cap = m->gpu.cap;
    }
    if (b->corr)
        b->corr[m->gpu.n - 1] = op->correlation;
    if (b->gpu_rising == m->gpu.n - 1 && (m->gpu.n == 1 || row.start_ns > m->gpu.v[m->gpu.n - 2].start_ns))
        b->gpu_rising = m->gpu.n;
    return 0;
}

int ps_model_reserve(struct ps_model *m, size_t gpu_ops, size_t api_calls)
{
    if (gpu_ops && vec_reserve((void **)&m->gpu.v, &m->gpu.cap, m->gpu.n, gpu_ops, sizeof *m->gpu.v) < 0)
        return -ENOMEM;
    struct ps_gpu_build *b = m->gpu_build;
    if (b && b->corr && b->corr_cap < m->gpu.cap) {   /* the correlation ids stay parallel (ps_model_add_gpu) */
        uint64_t *corr = realloc(b->corr, m->gpu.cap * sizeof *corr);
        if (!corr)
            return -ENOMEM;
        b->corr = corr;
        b->corr_cap = m->gpu.cap;
    }
    if (api_calls && vec_reserve((void **)&m->api.v, &m->api.cap, m->api.n, api_calls, sizeof *m->api.v) < 0)
        return -ENOMEM;
    return 0;
}

int ps_model_gpu_retime(struct ps_model *m, size_t i, int64_t start_ns, int64_t end_ns)
{
    struct ps_gpu_row *g = &m->gpu.v[i];
    struct ps_gpu_attr a = m->gpu_attrs.v[g->attr];
    if (m->gpu_build && m->gpu_build->gpu_rising > i)
        m->gpu_build->gpu_rising = i;   /* row i may now be out of order */
    int64_t dur;
    int fits = !__builtin_sub_overflow(end_ns, start_ns, &dur) && dur >= 0 && dur < PS_GPU_LONG;
    g->start_ns = start_ns;
    g->dur_ns = fits ? (uint32_t)dur : PS_GPU_LONG;
    if (fits && !a.is_long)
        return 0;
    /* a new attribute row (no index needed: a duplicate row only costs its 32 bytes) */
    a.is_long = !fits;
    a.long_end_ns = fits ? 0 : end_ns;
    if (m->gpu_attrs.n >= PS_NONE - 1 || VEC_PUSH(m->gpu_attrs, a) < 0)
        return -ENOMEM;
    g->attr = (uint32_t)(m->gpu_attrs.n - 1);
    return 0;
}

int ps_model_add_api(struct ps_model *m, const struct ps_api_call *call)
{
    return VEC_PUSH(m->api, *call);
}

int ps_model_add_range(struct ps_model *m, const struct ps_range *r)
{
    return VEC_PUSH(m->ranges, *r);
}

int ps_model_add_open_range(struct ps_model *m, const struct ps_range *r)
{
    return VEC_PUSH(m->open_ranges, *r);
}

int ps_model_add_nvml_util(struct ps_model *m, const struct ps_nvml_util_sample *s)
{
    return VEC_PUSH(m->nvml_util, *s);
}

int ps_model_add_host_sample(struct ps_model *m, const struct ps_host_sample *s)
{
    return VEC_PUSH(m->host_samples, *s);
}

int ps_model_add_thread_sample(struct ps_model *m, const struct ps_thread_sample *s)
{
    return VEC_PUSH(m->thread_samples, *s);
}

int ps_model_add_py_frame(struct ps_model *m, const struct ps_py_frame *f)
{
    return m->py_frames.n >= PS_NONE ? -ENOMEM : VEC_PUSH(m->py_frames, *f);
}

int ps_model_add_py_stack(struct ps_model *m, const uint32_t *frames, uint32_t n)
{
    if (m->py_stacks.n >= PS_NONE || m->py_stack_frames.n > (size_t)UINT32_MAX - n ||
        vec_reserve((void **)&m->py_stack_frames.v, &m->py_stack_frames.cap, m->py_stack_frames.n, n,
                    sizeof *m->py_stack_frames.v) < 0)
        return -ENOMEM;
    struct ps_py_stack k = { (uint32_t)m->py_stack_frames.n, n };
    if (VEC_PUSH(m->py_stacks, k) < 0)
        return -ENOMEM;
    if (n)
        memcpy(m->py_stack_frames.v + m->py_stack_frames.n, frames, n * sizeof *frames);
    m->py_stack_frames.n += n;
    return 0;
}

int ps_model_add_py_sample(struct ps_model *m, const struct ps_py_sample *s)
{
    return VEC_PUSH(m->py_samples, *s);
}

int ps_model_add_mem_event(struct ps_model *m, const struct ps_mem_event *e)
{
    return VEC_PUSH(m->mem_events, *e);
}

int ps_model_add_nvml_mem(struct ps_model *m, const struct ps_nvml_mem_sample *s)
{
    return VEC_PUSH(m->nvml_mem, *s);
}

int ps_model_add_stream_wait(struct ps_model *m, const struct ps_stream_wait *w)
{
    return VEC_PUSH(m->stream_waits, *w);
}

int ps_model_add_meta(struct ps_model *m, const char *key, const char *value)
{
    struct ps_meta_kv kv = { strdup(key), strdup(value ? value : "") };
    if (!kv.key || !kv.value || VEC_PUSH(m->meta, kv) < 0) {
        free(kv.key);
        free(kv.value);
        return -ENOMEM;
    }
    return 0;
}

int ps_model_shift_times(struct ps_model *m, int64_t base)
{
#define SHIFT(vec)                                                                          \
    for (size_t i = 0; i < (vec).n; i++) {                                                  \
        if (__builtin_add_overflow((vec).v[i].start_ns, base, &(vec).v[i].start_ns) ||      \
            __builtin_add_overflow((vec).v[i].end_ns, base, &(vec).v[i].end_ns))            \
            return -ERANGE;                                                                 \
    }
    for (size_t i = 0; i < m->gpu.n; i++) {   /* GPU rows store start + duration: the duration stays */
        struct ps_gpu_op op = ps_model_gpu(m, i);
        int64_t start, end;
        if (__builtin_add_overflow(op.start_ns, base, &start) || __builtin_add_overflow(op.end_ns, base, &end))
            return -ERANGE;
        m->gpu.v[i].start_ns = start;
        if (m->gpu.v[i].dur_ns == PS_GPU_LONG)   /* a long op's own attribute row holds its end */
            m->gpu_attrs.v[m->gpu.v[i].attr].long_end_ns = end;
    }
    SHIFT(m->api)
    SHIFT(m->ranges)
#undef SHIFT
    for (size_t i = 0; i < m->mem_events.n; i++)
        if (__builtin_add_overflow(m->mem_events.v[i].time_ns, base, &m->mem_events.v[i].time_ns))
            return -ERANGE;
    for (size_t i = 0; i < m->stream_waits.n; i++)
        if (__builtin_add_overflow(m->stream_waits.v[i].time_ns, base, &m->stream_waits.v[i].time_ns))
            return -ERANGE;
    if (m->has_mem_origin && __builtin_add_overflow(m->mem_origin_ns, base, &m->mem_origin_ns))
        return -ERANGE;
    return 0;
}
