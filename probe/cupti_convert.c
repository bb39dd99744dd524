/* CUPTI activity record -> GPU wire record. Names are written once per process as PS_WIRE_GPU_STRING
 * records: kernel names keyed by CUPTI's name pointer (checked against the text, since a module unload can
 * reuse an address) and by text, API names keyed by (domain, cbid). Used by probe/cupti_capture.c and the tests. */
#include "cupti_convert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pairs closer than this give no drift (a pair's reading jitters by ~0.1-1 us: over 1 s that is < 1 ppm). */
#define PS_CUPTI_DRIFT_MIN_SPAN_NS 1000000000ll

/* Longest kernel name kept; longer (template-heavy) names are cut there (mangled names are ASCII). */
#define PS_GPU_NAME_MAX 16384

/* Open-addressing map uint64 -> uint32 with linear probing; `used` marks occupied slots. */
struct u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t cap, n;
};

struct ctx_dev {
    uint32_t context_id, device_id;
};

struct ps_cupti_conv {
    ps_cupti_emit_fn emit;
    void *emit_ctx;
    ps_cupti_cbname_fn cbname;
    /* CUPTI clock -> CLOCK_MONOTONIC: none (identity), or the first and the latest (mono, cupti) pair. */
    int npairs;
    int64_t mono0, cupti0, mono1, cupti1;
    struct u64map by_ptr;       /* kernel name pointer -> string id */
    struct u64map by_text;      /* FNV-1a of kernel name -> string id */
    struct u64map by_cbid;      /* (domain << 32 | cbid) -> string id */
    char **texts;               /* string id -> kernel name text (NULL for API names) */
    uint8_t *sent;              /* string id -> 1 once its PS_WIRE_GPU_STRING is in the ring */
    size_t ntexts, texts_cap;
    uint32_t next_id;
    struct ctx_dev *ctxs;
    size_t nctxs, ctxs_cap;
    struct ps_wire_gpu_drops drops;
};

static uint64_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static int map_get(const struct u64map *m, uint64_t key, uint32_t *val)
{
    if (!m->cap)
        return 0;
    for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return 0;
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
    }
}

static int map_put(struct u64map *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct u64map g = { 0 };
        g.cap = m->cap ? m->cap * 2 : 64;
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        g.used = calloc(g.cap, 1);
        if (!g.keys || !g.vals || !g.used) {
            free(g.keys);
            free(g.vals);
            free(g.used);
            return -ENOMEM;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->used[i])
                map_put(&g, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        free(m->used);
        *m = g;
    }
    size_t i = mix64(key) & (m->cap - 1);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i])
        m->n++;
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

static void map_fini(struct u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

int ps_cupti_conv_new(ps_cupti_emit_fn emit, void *emit_ctx, ps_cupti_cbname_fn cbname, struct ps_cupti_conv **out)
{
    struct ps_cupti_conv *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->emit = emit;
    c->emit_ctx = emit_ctx;
    c->cbname = cbname;
    c->next_id = 1;
    c->drops.h.size = sizeof c->drops;
    c->drops.h.type = PS_WIRE_GPU_DROPS;
    *out = c;
    return 0;
}

void ps_cupti_conv_free(struct ps_cupti_conv *c)
{
    if (!c)
        return;
    map_fini(&c->by_ptr);
    map_fini(&c->by_text);
    map_fini(&c->by_cbid);
    for (size_t i = 0; i < c->ntexts; i++)
        free(c->texts[i]);
    free(c->texts);
    free(c->sent);
    free(c->ctxs);
    free(c);
}

void ps_cupti_conv_clock_pair(struct ps_cupti_conv *c, int64_t mono_ns, int64_t cupti_ns)
{
    if (c->npairs == 0) {
        c->mono0 = mono_ns, c->cupti0 = cupti_ns;
        c->npairs = 1;
    } else if (cupti_ns - c->cupti0 >= PS_CUPTI_DRIFT_MIN_SPAN_NS) {
        c->mono1 = mono_ns, c->cupti1 = cupti_ns;
        c->npairs = 2;
    }
}

int64_t ps_cupti_conv_map_time(const struct ps_cupti_conv *c, uint64_t cupti_ns)
{
    if (c->npairs == 0)
        return (int64_t)cupti_ns;
    int64_t off0 = c->mono0 - c->cupti0;
    if (c->npairs == 1)
        return (int64_t)cupti_ns + off0;
    /* The offset moves linearly from the first pair to the latest (drift of one clock against the other);
     * in double: drift x elapsed overflows int64 after hours, and the result needs ns, not exact products. */
    double slope = (double)((c->mono1 - c->cupti1) - off0) / (double)(c->cupti1 - c->cupti0);
    return (int64_t)cupti_ns + off0 + (int64_t)(slope * (double)((int64_t)cupti_ns - c->cupti0));
}

/* 0 when the ring took the record, 1 when it was refused (counted in ring_full: a full ring is not an error
 * of the conversion). */
static int emit(struct ps_cupti_conv *c, const struct ps_wire_hdr *rec)
{
    if (c->emit(c->emit_ctx, rec) != 0) {
        c->drops.ring_full++;
        return 1;
    }
    return 0;
}

/* Write a PS_WIRE_GPU_STRING record for `id`: 0 written, 1 refused by the ring, -ENOMEM. */
static int emit_string(struct ps_cupti_conv *c, uint32_t id, uint16_t kind, const char *text, size_t len)
{
    size_t size = (sizeof(struct ps_wire_gpu_string) + len + 1 + 7) & ~(size_t)7;
    struct ps_wire_gpu_string *s = calloc(1, size);
    if (!s)
        return -ENOMEM;
    s->h.size = (uint32_t)size;
    s->h.type = PS_WIRE_GPU_STRING;
    s->h.flags = kind;
    s->id = id;
    s->len = (uint32_t)len + 1;
    memcpy(s + 1, text, len);
    int rc = emit(c, &s->h);
    free(s);
    return rc;
}

/* A new string id with room in texts[] / sent[]; its text (a kernel name's copy, or NULL) is set by the caller. */
static int new_string_id(struct ps_cupti_conv *c, uint32_t *id)
{
    if (c->next_id >= c->texts_cap) {
        size_t cap = c->texts_cap ? c->texts_cap * 2 : 64;
        while (cap <= c->next_id)
            cap *= 2;
        char **t = realloc(c->texts, cap * sizeof *t);
        if (!t)
            return -ENOMEM;
        c->texts = t;
        uint8_t *sent = realloc(c->sent, cap);
        if (!sent)
            return -ENOMEM;
        c->sent = sent;
        memset(t + c->texts_cap, 0, (cap - c->texts_cap) * sizeof *t);
        memset(sent + c->texts_cap, 0, cap - c->texts_cap);
        c->texts_cap = cap;
    }
    *id = c->next_id++;
    c->ntexts = *id + 1;
    return 0;
}

/* Send the string of `id` unless it is already in the ring. A string the ring refused is sent again with the
 * next record that uses it (same id: the collector resolves names that arrive after their users). */
static int send_string(struct ps_cupti_conv *c, uint32_t id, uint16_t kind, const char *text)
{
    if (c->sent[id])
        return 0;
    int rc = emit_string(c, id, kind, text, strnlen(text, PS_GPU_NAME_MAX));
    if (rc == 0)
        c->sent[id] = 1;
    return rc < 0 ? rc : 0;
}

/* The string id of a kernel name, defining it on first use. */
static int kernel_name_id(struct ps_cupti_conv *c, const char *name, uint32_t *id)
{
    uint32_t v;
    if (!name)
        name = "";
    if (map_get(&c->by_ptr, (uintptr_t)name, &v) && v < c->ntexts && c->texts[v] && !strcmp(c->texts[v], name)) {
        *id = v;
        return c->sent[v] ? 0 : send_string(c, v, PS_WIRE_GPU_STR_KERNEL_NAME, name);
    }
    uint64_t h = fnv1a(name);
    if (!(map_get(&c->by_text, h, &v) && v < c->ntexts && c->texts[v] && !strcmp(c->texts[v], name))) {
        char *copy = strndup(name, PS_GPU_NAME_MAX);
        if (!copy || new_string_id(c, &v) < 0) {
            free(copy);
            return -ENOMEM;
        }
        c->texts[v] = copy;
        if (map_put(&c->by_text, h, v) < 0)
            return -ENOMEM;
    }
    if (map_put(&c->by_ptr, (uintptr_t)name, v) < 0)
        return -ENOMEM;
    *id = v;
    return send_string(c, v, PS_WIRE_GPU_STR_KERNEL_NAME, c->texts[v]);
}

/* The string id of an API name (cuptiGetCallbackName, e.g. "cudaLaunchKernel_v7000"). */
static int api_name_id(struct ps_cupti_conv *c, CUpti_CallbackDomain domain, uint32_t cbid, uint32_t *id)
{
    uint64_t key = (uint64_t)domain << 32 | cbid;
    uint32_t v;
    int known = map_get(&c->by_cbid, key, &v);
    if (known && c->sent[v]) {
        *id = v;
        return 0;
    }
    const char *name = NULL;
    char fallback[48];
    if (!c->cbname || c->cbname(domain, cbid, &name) != CUPTI_SUCCESS || !name) {
        snprintf(fallback, sizeof fallback, "cbid:%s:%u",
                 domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime", cbid);
        name = fallback;
    }
    if (!known && (new_string_id(c, &v) < 0 || map_put(&c->by_cbid, key, v) < 0))
        return -ENOMEM;
    *id = v;
    return send_string(c, v, PS_WIRE_GPU_STR_API_NAME, name);
}

static uint32_t context_device(const struct ps_cupti_conv *c, uint32_t context_id)
{
    for (size_t i = 0; i < c->nctxs; i++)
        if (c->ctxs[i].context_id == context_id)
            return c->ctxs[i].device_id;
    return PS_WIRE_GPU_NONE;
}

static int remember_context(struct ps_cupti_conv *c, uint32_t context_id, uint32_t device_id)
{
    for (size_t i = 0; i < c->nctxs; i++)
        if (c->ctxs[i].context_id == context_id) {
            c->ctxs[i].device_id = device_id;
            return 0;
        }
    if (c->nctxs == c->ctxs_cap) {
        size_t cap = c->ctxs_cap ? c->ctxs_cap * 2 : 8;
        struct ctx_dev *t = realloc(c->ctxs, cap * sizeof *t);
        if (!t)
            return -ENOMEM;
        c->ctxs = t;
        c->ctxs_cap = cap;
    }
    c->ctxs[c->nctxs++] = (struct ctx_dev){ context_id, device_id };
    return 0;
}

/* 1 when the record carries timing; else counts it. */
static int timed(struct ps_cupti_conv *c, uint64_t start, uint64_t end)
{
    if (start == 0 || end == 0 || end < start) {
        c->drops.zero_timestamp++;
        return 0;
    }
    return 1;
}

#define HDR(rec, t) do { (rec).h.size = sizeof(rec); (rec).h.type = (t); } while (0)

/* start/end moved onto the host clock; every timed CUPTI record names them alike. */
#define COPY_SPAN(c, w, r) do { \
        if ((c)->npairs) { \
            (w).start_ns = (uint64_t)ps_cupti_conv_map_time((c), (r)->start); \
            (w).end_ns = (uint64_t)ps_cupti_conv_map_time((c), (r)->end); \
        } else { \
            (w).start_ns = (r)->start; \
            (w).end_ns = (r)->end; \
        } \
    } while (0)

/* The ids that kernel, memcpy, peer memcpy and memset records carry under the same CUPTI names. */
#define COPY_STREAM_IDS(w, r) do { \
        (w).device_id = (r)->deviceId; \
        (w).context_id = (r)->contextId; \
        (w).stream_id = (r)->streamId; \
        (w).correlation_id = (r)->correlationId; \
    } while (0)

/* The fields CUpti_ActivityMemcpy6 and CUpti_ActivityMemcpyPtoP4 share under the same names. */
#define COPY_MEMCPY_FIELDS(w, m) do { \
        (w).bytes = (m)->bytes; \
        (w).copy_kind = (m)->copyKind; \
        (w).src_kind = (m)->srcKind; \
        (w).dst_kind = (m)->dstKind; \
        (w).cupti_flags = (m)->flags; \
        (w).graph_id = (m)->graphId; \
        (w).graph_node_id = (m)->graphNodeId; \
    } while (0)

static int conv_kernel(struct ps_cupti_conv *c, const CUpti_ActivityKernel10 *k)
{
    if (!timed(c, k->start, k->end))
        return 0;
    struct ps_wire_gpu_kernel w = { 0 };
    HDR(w, PS_WIRE_GPU_KERNEL);
    int rc = kernel_name_id(c, k->name, &w.name_id);
    if (rc < 0)
        return rc;
    COPY_SPAN(c, w, k);
    COPY_STREAM_IDS(w, k);
    w.grid_x = k->gridX, w.grid_y = k->gridY, w.grid_z = k->gridZ;
    w.block_x = k->blockX, w.block_y = k->blockY, w.block_z = k->blockZ;
    w.static_smem_bytes = k->staticSharedMemory;
    w.dynamic_smem_bytes = k->dynamicSharedMemory;
    w.local_mem_per_thread_bytes = k->localMemoryPerThread;
    w.shared_mem_executed_bytes = k->sharedMemoryExecuted;
    w.registers_per_thread = k->registersPerThread;
    w.launch_type = k->launchType;
    w.cache_config_requested = k->cacheConfig.config.requested;
    w.shmem_limit_config = (uint8_t)k->shmemLimitConfig;
    w.graph_id = k->graphId;
    w.cluster_x = k->clusterX, w.cluster_y = k->clusterY, w.cluster_z = k->clusterZ;
    w.cluster_scheduling_policy = k->clusterSchedulingPolicy;
    /* localMemoryTotal_v2 supersedes the 32-bit localMemoryTotal (cupti_activity.h, Kernel10). */
    w.local_mem_total_bytes = k->localMemoryTotal_v2 ? k->localMemoryTotal_v2 : k->localMemoryTotal;
    w.grid_id = k->gridId;
    w.graph_node_id = k->graphNodeId;
    return emit(c, &w.h);
}

static int conv_memcpy(struct ps_cupti_conv *c, const CUpti_ActivityMemcpy6 *m)
{
    if (!timed(c, m->start, m->end))
        return 0;
    struct ps_wire_gpu_memcpy w = { 0 };
    HDR(w, PS_WIRE_GPU_MEMCPY);
    COPY_SPAN(c, w, m);
    COPY_STREAM_IDS(w, m);
    COPY_MEMCPY_FIELDS(w, m);
    w.runtime_correlation_id = m->runtimeCorrelationId;
    w.copy_count = m->copyCount ? m->copyCount : 1;
    w.src_device_id = w.src_context_id = w.dst_device_id = w.dst_context_id = PS_WIRE_GPU_NONE;
    return emit(c, &w.h);
}

static int conv_peer(struct ps_cupti_conv *c, const CUpti_ActivityMemcpyPtoP4 *m)
{
    if (!timed(c, m->start, m->end))
        return 0;
    struct ps_wire_gpu_memcpy w = { 0 };
    HDR(w, PS_WIRE_GPU_MEMCPY);
    w.h.flags = PS_WIRE_GPU_MEMCPY_PEER;
    COPY_SPAN(c, w, m);
    COPY_STREAM_IDS(w, m);
    COPY_MEMCPY_FIELDS(w, m);
    w.copy_count = 1;
    w.src_device_id = m->srcDeviceId;
    w.src_context_id = m->srcContextId;
    w.dst_device_id = m->dstDeviceId;
    w.dst_context_id = m->dstContextId;
    return emit(c, &w.h);
}

static int conv_memset(struct ps_cupti_conv *c, const CUpti_ActivityMemset4 *m)
{
    if (!timed(c, m->start, m->end))
        return 0;
    struct ps_wire_gpu_memset w = { 0 };
    HDR(w, PS_WIRE_GPU_MEMSET);
    COPY_SPAN(c, w, m);
    COPY_STREAM_IDS(w, m);
    w.bytes = m->bytes;
    w.value = m->value;
    w.cupti_flags = m->flags;
    w.memory_kind = m->memoryKind;
    w.graph_id = m->graphId;
    w.graph_node_id = m->graphNodeId;
    return emit(c, &w.h);
}

static int conv_sync(struct ps_cupti_conv *c, const CUpti_ActivitySynchronization2 *s)
{
    /* cudaEventQuery / cudaStreamQuery on unfinished work (CUDA_ERROR_NOT_READY): polling, not a wait. The probe
     * asks CUPTI not to record these (cuptiActivityEnableAllSyncRecords(0)); a CUPTI that still does is filtered. */
    if (s->returnValue == CUDA_ERROR_NOT_READY) {
        c->drops.sync_not_ready++;
        return 0;
    }
    if (!timed(c, s->start, s->end))
        return 0;
    struct ps_wire_gpu_sync w = { 0 };
    HDR(w, PS_WIRE_GPU_SYNC);
    COPY_SPAN(c, w, s);
    w.device_id = context_device(c, s->contextId);
    w.context_id = s->contextId;
    w.stream_id = s->streamId;
    w.correlation_id = s->correlationId;
    w.type = (uint32_t)s->type;
    w.cuda_event_id = s->cudaEventId;
    w.cuda_event_sync_id = s->cudaEventSyncId;
    w.return_value = s->returnValue;
    return emit(c, &w.h);
}

static int conv_api(struct ps_cupti_conv *c, const CUpti_ActivityAPI *a, int driver)
{
    if (!timed(c, a->start, a->end))
        return 0;
    struct ps_wire_gpu_api w = { 0 };
    HDR(w, PS_WIRE_GPU_API);
    w.h.flags = driver ? PS_WIRE_GPU_API_DRIVER : 0;
    int rc = api_name_id(c, driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &w.name_id);
    if (rc < 0)
        return rc;
    COPY_SPAN(c, w, a);
    w.pid = a->processId;
    w.tid = a->threadId;
    w.correlation_id = a->correlationId;
    w.return_value = a->returnValue;
    w.cbid = a->cbid;
    return emit(c, &w.h);
}

static int conv_device(struct ps_cupti_conv *c, const CUpti_ActivityDevice5 *d)
{
    const char *name = d->name ? d->name : "";
    size_t len = strnlen(name, 255);
    size_t size = (sizeof(struct ps_wire_gpu_device) + len + 1 + 7) & ~(size_t)7;
    struct ps_wire_gpu_device *w = calloc(1, size);
    if (!w)
        return -ENOMEM;
    w->h.size = (uint32_t)size;
    w->h.type = PS_WIRE_GPU_DEVICE;
    w->global_memory_bytes = d->globalMemorySize;
    w->global_memory_bandwidth_kbps = d->globalMemoryBandwidth;
    w->id = d->id;
    w->compute_major = d->computeCapabilityMajor;
    w->compute_minor = d->computeCapabilityMinor;
    w->sm_count = d->numMultiprocessors;
    w->core_clock_khz = d->coreClockRate;
    w->l2_cache_bytes = d->l2CacheSize;
    w->constant_memory_bytes = d->constantMemorySize;
    w->max_ipc = d->maxIPC;
    w->max_registers_per_block = d->maxRegistersPerBlock;
    w->max_shmem_per_block_bytes = d->maxSharedMemoryPerBlock;
    w->max_shmem_per_sm_bytes = d->maxSharedMemoryPerMultiprocessor;
    w->max_registers_per_sm = d->maxRegistersPerMultiprocessor;
    w->threads_per_warp = d->numThreadsPerWarp;
    w->async_engines = d->numMemcpyEngines;
    w->max_warps_per_sm = d->maxWarpsPerMultiprocessor;
    w->max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
    w->max_threads_per_block = d->maxThreadsPerBlock;
    w->max_block_dim[0] = d->maxBlockDimX, w->max_block_dim[1] = d->maxBlockDimY, w->max_block_dim[2] = d->maxBlockDimZ;
    w->max_grid_dim[0] = d->maxGridDimX, w->max_grid_dim[1] = d->maxGridDimY, w->max_grid_dim[2] = d->maxGridDimZ;
    w->name_len = (uint32_t)len + 1;
    memcpy(w->uuid, d->uuid.bytes, sizeof w->uuid);
    w->gpu_instance_id = d->gpuInstanceId;
    w->compute_instance_id = d->computeInstanceId;
    memcpy(w->mig_uuid, d->migUuid.bytes, sizeof w->mig_uuid);
    w->is_cuda_visible = d->isCudaVisible;
    w->is_mig_enabled = d->isMigEnabled;
    memcpy(w + 1, name, len);
    int rc = emit(c, &w->h);
    free(w);
    return rc;
}

static int conv_context(struct ps_cupti_conv *c, const CUpti_ActivityContext3 *x)
{
    struct ps_wire_gpu_context w = { 0 };
    HDR(w, PS_WIRE_GPU_CONTEXT);
    w.context_id = x->contextId;
    w.device_id = x->deviceId;
    w.parent_context_id = x->parentContextId;
    w.null_stream_id = x->nullStreamId;
    w.num_multiprocessors = x->numMultiprocessors;
    w.is_green_context = x->isGreenContext;
    int rc = remember_context(c, x->contextId, x->deviceId);
    if (rc < 0)
        return rc;
    return emit(c, &w.h);
}

static int conv_overhead(struct ps_cupti_conv *c, const CUpti_ActivityOverhead3 *o)
{
    if (!timed(c, o->start, o->end))
        return 0;
    struct ps_wire_gpu_overhead w = { 0 };
    HDR(w, PS_WIRE_GPU_OVERHEAD);
    COPY_SPAN(c, w, o);
    w.overhead_kind = (uint32_t)o->overheadKind;
    w.object_kind = (uint32_t)o->objectKind;
    if (o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
        w.pid_or_device = o->objectId.pt.processId;
        w.tid_or_context = o->objectId.pt.threadId;
    } else {
        w.pid_or_device = o->objectId.dcs.deviceId;
        w.tid_or_context = o->objectId.dcs.contextId;
    }
    w.correlation_id = o->correlationId;
    return emit(c, &w.h);
}

static uint64_t one_time(const struct ps_cupti_conv *c, uint64_t t)
{
    return c->npairs ? (uint64_t)ps_cupti_conv_map_time(c, t) : t;
}

static int conv_memory(struct ps_cupti_conv *c, const CUpti_ActivityMemory4 *r)
{
    if (!timed(c, r->timestamp, r->timestamp))
        return 0;
    struct ps_wire_gpu_memory w = { 0 };
    HDR(w, PS_WIRE_GPU_MEMORY);
    w.timestamp_ns = one_time(c, r->timestamp);
    w.address = r->address, w.bytes = r->bytes, w.pc = r->PC;
    w.pid = r->processId, w.device_id = r->deviceId, w.context_id = r->contextId, w.stream_id = r->streamId;
    w.correlation_id = r->correlationId;
    w.operation = (uint8_t)r->memoryOperationType;
    w.memory_kind = (uint8_t)r->memoryKind;
    w.is_async = (uint8_t)(r->isAsync != 0);
    w.pool_type = (uint8_t)r->memoryPoolConfig.memoryPoolType;
    if (w.pool_type) {
        w.pool_address = r->memoryPoolConfig.address;
        w.pool_release_threshold = r->memoryPoolConfig.releaseThreshold;
        w.pool_size_or_pid = r->memoryPoolConfig.pool.size;
        w.pool_utilized_bytes = r->memoryPoolConfig.utilizedSize;
    }
    return emit(c, &w.h);
}

static int conv_mempool(struct ps_cupti_conv *c, const CUpti_ActivityMemoryPool3 *r)
{
    if (!timed(c, r->timestamp, r->timestamp))
        return 0;
    struct ps_wire_gpu_mempool w = { 0 };
    HDR(w, PS_WIRE_GPU_MEMPOOL);
    w.timestamp_ns = one_time(c, r->timestamp);
    w.address = r->address, w.size = r->size, w.release_threshold = r->releaseThreshold;
    w.utilized_bytes = r->utilizedSize, w.min_bytes_to_keep = r->minBytesToKeep;
    w.pid = r->processId, w.device_id = r->deviceId, w.correlation_id = r->correlationId;
    w.operation = (uint8_t)r->memoryPoolOperationType;
    w.pool_type = (uint8_t)r->memoryPoolType;
    w.is_managed = r->isManagedPool;
    return emit(c, &w.h);
}

int ps_cupti_conv_record(struct ps_cupti_conv *c, const CUpti_Activity *rec)
{
    int rc;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        rc = conv_kernel(c, (const CUpti_ActivityKernel10 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        rc = conv_memcpy(c, (const CUpti_ActivityMemcpy6 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        rc = conv_peer(c, (const CUpti_ActivityMemcpyPtoP4 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        rc = conv_memset(c, (const CUpti_ActivityMemset4 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        rc = conv_sync(c, (const CUpti_ActivitySynchronization2 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        rc = conv_api(c, (const CUpti_ActivityAPI *)rec, rec->kind == CUPTI_ACTIVITY_KIND_DRIVER);
        break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
        rc = conv_device(c, (const CUpti_ActivityDevice5 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
        rc = conv_context(c, (const CUpti_ActivityContext3 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        rc = conv_overhead(c, (const CUpti_ActivityOverhead3 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        rc = conv_memory(c, (const CUpti_ActivityMemory4 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
        rc = conv_mempool(c, (const CUpti_ActivityMemoryPool3 *)rec);
        break;
    default:
        c->drops.unknown_kinds++;
        return 0;
    }
    if (rc < 0) {
        c->drops.invalid_records++;
        return rc;
    }
    return 0;
}

long ps_cupti_conv_buffer(struct ps_cupti_conv *c, ps_cupti_next_fn next, uint8_t *buffer, size_t valid_bytes)
{
    CUpti_Activity *rec = NULL;
    long n = 0;
    if (!buffer || !valid_bytes)
        return 0;
    for (;;) {
        CUptiResult r = next(buffer, valid_bytes, &rec);
        if (r == CUPTI_ERROR_MAX_LIMIT_REACHED)
            break;
        if (r != CUPTI_SUCCESS || !rec) {
            c->drops.invalid_records++;     /* CUPTI_ERROR_INVALID_KIND: incomplete record; the rest is lost */
            break;
        }
        ps_cupti_conv_record(c, rec);
        n++;
    }
    return n;
}

void ps_cupti_conv_add_cupti_dropped(struct ps_cupti_conv *c, uint64_t n)
{
    c->drops.cupti_dropped += n;
}

int ps_cupti_conv_emit_drops(struct ps_cupti_conv *c, uint64_t buffers_refused)
{
    c->drops.buffers_refused = buffers_refused;
    return c->emit(c->emit_ctx, &c->drops.h);
}

void ps_cupti_conv_drops(const struct ps_cupti_conv *c, struct ps_wire_gpu_drops *out)
{
    *out = c->drops;
}

_Static_assert(sizeof(struct ps_wire_gpu_kernel) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_memcpy) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_memset) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_sync) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_api) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_device) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_context) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_string) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_drops) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_overhead) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_memory) % 8 == 0, "wire records are multiples of 8 bytes");
_Static_assert(sizeof(struct ps_wire_gpu_mempool) % 8 == 0, "wire records are multiples of 8 bytes");
