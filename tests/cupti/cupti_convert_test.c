/* CUPTI record -> wire record conversion, field by field, on real CUDA 13.0 record structs
 * (cupti_activity.h). Expected values are the ones the test writes into the structs.
 * Usage: cupti_convert_test CASE (one ctest per case). */
#include <errno.h>

#include "cases.h"
#include "cupti_convert.h"
#include "cupti_fake.h"

static const char *gemm = "_Z10gemm_tiledPKfS0_Pfiii";

static struct ps_cupti_conv *conv_new(struct sink *s)
{
    struct ps_cupti_conv *c = NULL;
    CHECK(ps_cupti_conv_new(sink_emit, s, fake_cbname, &c) == 0);
    return c;
}

static CUpti_ActivityKernel10 kernel(uint64_t start, uint64_t end, const char *name, uint32_t corr)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start, k.end = end;
    k.deviceId = 1, k.contextId = 3, k.streamId = 13, k.correlationId = corr;
    k.gridX = 64, k.gridY = 32, k.gridZ = 1, k.blockX = 16, k.blockY = 16, k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 2048, k.dynamicSharedMemory = 512;
    k.localMemoryPerThread = 24, k.localMemoryTotal = 1000, k.localMemoryTotal_v2 = 123456789012ull;
    k.sharedMemoryExecuted = 65536;
    k.gridId = 77, k.graphNodeId = 5, k.graphId = 6;
    k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
    k.cacheConfig.config.requested = 2;
    k.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
    k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1, k.clusterSchedulingPolicy = 1;
    k.name = name;
    return k;
}

static void case_kernel(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityKernel10 k = kernel(1000000123, 1000500456, gemm, 42);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&k) == 0);
    const struct ps_wire_gpu_kernel *w = sink_find(&s, PS_WIRE_GPU_KERNEL, 0);
    CHECK(w);
    CHECK_EQ(w->h.size, sizeof *w);
    CHECK_EQ(w->start_ns, 1000000123);
    CHECK_EQ(w->end_ns, 1000500456);
    CHECK_EQ(w->device_id, 1);
    CHECK_EQ(w->context_id, 3);
    CHECK_EQ(w->stream_id, 13);
    CHECK_EQ(w->correlation_id, 42);
    CHECK_EQ(w->grid_x, 64); CHECK_EQ(w->grid_y, 32); CHECK_EQ(w->grid_z, 1);
    CHECK_EQ(w->block_x, 16); CHECK_EQ(w->block_y, 16); CHECK_EQ(w->block_z, 1);
    CHECK_EQ(w->registers_per_thread, 40);
    CHECK_EQ(w->static_smem_bytes, 2048);
    CHECK_EQ(w->dynamic_smem_bytes, 512);
    CHECK_EQ(w->local_mem_per_thread_bytes, 24);
    CHECK_EQ(w->local_mem_total_bytes, 123456789012ull);     /* the 64-bit _v2 field wins */
    CHECK_EQ(w->shared_mem_executed_bytes, 65536);
    CHECK_EQ(w->grid_id, 77);
    CHECK_EQ(w->graph_node_id, 5);
    CHECK_EQ(w->graph_id, 6);
    CHECK_EQ(w->launch_type, 1);
    CHECK_EQ(w->cache_config_requested, 2);
    CHECK_EQ(w->shmem_limit_config, 1);
    CHECK_EQ(w->cluster_x, 2);
    CHECK_EQ(w->cluster_scheduling_policy, 1);
    CHECK(w->name_id > 0);
    CHECK(sink_string(&s, w->name_id) && !strcmp(sink_string(&s, w->name_id), gemm));
    ps_cupti_conv_free(c);
}

/* A kernel name is written once per process: same pointer, or same text at another address. */
static void case_kernel_names_once(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    char copy[64];
    strcpy(copy, gemm);
    CUpti_ActivityKernel10 a = kernel(10, 20, gemm, 1), b = kernel(30, 40, gemm, 2), d = kernel(50, 60, copy, 3),
                           e = kernel(70, 80, "_Z4reluPfi", 4);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&a) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&b) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&d) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&e) == 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_KERNEL), 4);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_STRING), 2);
    const struct ps_wire_gpu_kernel *k0 = sink_find(&s, PS_WIRE_GPU_KERNEL, 0), *k2 = sink_find(&s, PS_WIRE_GPU_KERNEL, 2),
                                    *k3 = sink_find(&s, PS_WIRE_GPU_KERNEL, 3);
    CHECK_EQ(k0->name_id, k2->name_id);
    CHECK(k3->name_id != k0->name_id);
    CHECK(!strcmp(sink_string(&s, k3->name_id), "_Z4reluPfi"));
    /* The string record comes before the first record that uses it. */
    CHECK_EQ(s.recs[0]->type, PS_WIRE_GPU_STRING);
    CHECK_EQ(s.recs[0]->flags, PS_WIRE_GPU_STR_KERNEL_NAME);
    /* A name pointer reused for another text (module unloaded, another loaded) gets the new text. */
    strcpy(copy, "_Z4reluPfi");
    CUpti_ActivityKernel10 f = kernel(90, 95, copy, 5);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&f) == 0);
    CHECK_EQ(((const struct ps_wire_gpu_kernel *)sink_find(&s, PS_WIRE_GPU_KERNEL, 4))->name_id, k3->name_id);
    ps_cupti_conv_free(c);
}

static void case_memcpy(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
    m.bytes = 67108864;
    m.start = 5000, m.end = 9000;
    m.deviceId = 0, m.contextId = 1, m.streamId = 7, m.correlationId = 99, m.runtimeCorrelationId = 98;
    m.graphNodeId = 11, m.graphId = 12, m.copyCount = 0;    /* 0 from an older driver means one copy */
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&m) == 0);
    const struct ps_wire_gpu_memcpy *w = sink_find(&s, PS_WIRE_GPU_MEMCPY, 0);
    CHECK(w);
    CHECK_EQ(w->h.flags, 0);
    CHECK_EQ(w->start_ns, 5000); CHECK_EQ(w->end_ns, 9000);
    CHECK_EQ(w->bytes, 67108864);
    CHECK_EQ(w->copy_count, 1);
    CHECK_EQ(w->copy_kind, 1);
    CHECK_EQ(w->src_kind, 1);   /* CUPTI numbering on the wire; the collector maps it */
    CHECK_EQ(w->dst_kind, 3);
    CHECK_EQ(w->cupti_flags, 1);
    CHECK_EQ(w->stream_id, 7); CHECK_EQ(w->context_id, 1);
    CHECK_EQ(w->correlation_id, 99);            /* the driver API record's */
    CHECK_EQ(w->runtime_correlation_id, 98);    /* the runtime API record's (cupti_activity.h, Memcpy6) */
    CHECK_EQ(w->src_device_id, PS_WIRE_GPU_NONE);
    CHECK_EQ(w->graph_node_id, 11); CHECK_EQ(w->graph_id, 12);

    CUpti_ActivityMemcpyPtoP4 p;
    memset(&p, 0, sizeof p);
    p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p.bytes = 4096, p.start = 100, p.end = 350;
    p.deviceId = 0, p.contextId = 1, p.streamId = 9, p.correlationId = 100;
    p.srcDeviceId = 0, p.srcContextId = 1, p.dstDeviceId = 1, p.dstContextId = 2;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&p) == 0);
    w = sink_find(&s, PS_WIRE_GPU_MEMCPY, 1);
    CHECK(w);
    CHECK_EQ(w->h.flags, PS_WIRE_GPU_MEMCPY_PEER);
    CHECK_EQ(w->copy_kind, 10);
    CHECK_EQ(w->bytes, 4096);
    CHECK_EQ(w->src_device_id, 0); CHECK_EQ(w->src_context_id, 1);
    CHECK_EQ(w->dst_device_id, 1); CHECK_EQ(w->dst_context_id, 2);
    CHECK_EQ(w->stream_id, 9);
    ps_cupti_conv_free(c);
}

static void case_memset_sync(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityMemset4 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.value = 0xab, m.bytes = 1 << 20, m.start = 10, m.end = 30;
    m.deviceId = 2, m.contextId = 4, m.streamId = 14, m.correlationId = 5;
    m.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC, m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&m) == 0);
    const struct ps_wire_gpu_memset *w = sink_find(&s, PS_WIRE_GPU_MEMSET, 0);
    CHECK(w);
    CHECK_EQ(w->value, 0xab); CHECK_EQ(w->bytes, 1 << 20);
    CHECK_EQ(w->start_ns, 10); CHECK_EQ(w->end_ns, 30);
    CHECK_EQ(w->device_id, 2); CHECK_EQ(w->stream_id, 14); CHECK_EQ(w->correlation_id, 5);
    CHECK_EQ(w->cupti_flags, 1); CHECK_EQ(w->memory_kind, 5);

    /* A sync record has no deviceId: it comes from the context's CONTEXT record. */
    CUpti_ActivitySynchronization2 y;
    memset(&y, 0, sizeof y);
    y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    y.start = 400, y.end = 900, y.correlationId = 8, y.contextId = 4, y.streamId = 14;
    y.cudaEventId = 3, y.cudaEventSyncId = 33, y.returnValue = 0;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&y) == 0);
    const struct ps_wire_gpu_sync *ws = sink_find(&s, PS_WIRE_GPU_SYNC, 0);
    CHECK(ws);
    CHECK_EQ(ws->device_id, PS_WIRE_GPU_NONE);      /* no CONTEXT record seen yet */
    CUpti_ActivityContext3 x;
    memset(&x, 0, sizeof x);
    x.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    x.contextId = 4, x.deviceId = 2, x.nullStreamId = 7, x.numMultiprocessors = 132;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&x) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&y) == 0);
    ws = sink_find(&s, PS_WIRE_GPU_SYNC, 1);
    CHECK_EQ(ws->device_id, 2);
    CHECK_EQ(ws->type, 3);
    CHECK_EQ(ws->start_ns, 400); CHECK_EQ(ws->end_ns, 900);
    CHECK_EQ(ws->stream_id, 14); CHECK_EQ(ws->correlation_id, 8); CHECK_EQ(ws->context_id, 4);
    CHECK_EQ(ws->cuda_event_id, 3); CHECK_EQ(ws->cuda_event_sync_id, 33);
    const struct ps_wire_gpu_context *wc = sink_find(&s, PS_WIRE_GPU_CONTEXT, 0);
    CHECK(wc);
    CHECK_EQ(wc->context_id, 4); CHECK_EQ(wc->device_id, 2); CHECK_EQ(wc->null_stream_id, 7);
    CHECK_EQ(wc->num_multiprocessors, 132);
    ps_cupti_conv_free(c);
}

static void case_api(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    a.start = 700, a.end = 760, a.processId = 4242, a.threadId = 4243, a.correlationId = 42, a.returnValue = 0;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&a) == 0);
    a.start = 800, a.end = 810, a.correlationId = 43;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&a) == 0);
    CUpti_ActivityAPI d = a;
    d.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    d.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    d.returnValue = 1;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&d) == 0);
    d.cbid = 99999;     /* an id the name lookup does not know */
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&d) == 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_API), 4);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_STRING), 3);     /* one per (domain, cbid) */
    const struct ps_wire_gpu_api *w = sink_find(&s, PS_WIRE_GPU_API, 0);
    CHECK_EQ(w->h.flags, 0);
    CHECK_EQ(w->start_ns, 700); CHECK_EQ(w->end_ns, 760);
    CHECK_EQ(w->pid, 4242); CHECK_EQ(w->tid, 4243); CHECK_EQ(w->correlation_id, 42);
    CHECK_EQ(w->cbid, 211);
    CHECK(!strcmp(sink_string(&s, w->name_id), "cudaLaunchKernel_v7000"));
    CHECK_EQ(((const struct ps_wire_gpu_api *)sink_find(&s, PS_WIRE_GPU_API, 1))->name_id, w->name_id);
    w = sink_find(&s, PS_WIRE_GPU_API, 2);
    CHECK_EQ(w->h.flags, PS_WIRE_GPU_API_DRIVER);
    CHECK_EQ(w->return_value, 1);
    CHECK(!strcmp(sink_string(&s, w->name_id), "cuLaunchKernel"));
    w = sink_find(&s, PS_WIRE_GPU_API, 3);
    CHECK(!strcmp(sink_string(&s, w->name_id), "cbid:driver:99999"));
    ps_cupti_conv_free(c);
}

static void case_device(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof d);
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0, d.name = "NVIDIA H200";
    d.computeCapabilityMajor = 9, d.computeCapabilityMinor = 0;
    d.numMultiprocessors = 132, d.globalMemorySize = 150754820096ull, d.globalMemoryBandwidth = 4800000000ull;
    d.coreClockRate = 1980000, d.l2CacheSize = 52428800, d.numThreadsPerWarp = 32, d.numMemcpyEngines = 7;
    d.maxThreadsPerBlock = 1024, d.maxGridDimX = 2147483647;
    for (int i = 0; i < 16; i++)
        d.uuid.bytes[i] = (char)(0x10 + i), d.migUuid.bytes[i] = (char)(0xa0 + i);
    d.isCudaVisible = 1, d.isMigEnabled = 1, d.gpuInstanceId = 3, d.computeInstanceId = 0;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&d) == 0);
    const struct ps_wire_gpu_device *w = sink_find(&s, PS_WIRE_GPU_DEVICE, 0);
    CHECK(w);
    CHECK_EQ(w->h.size % 8, 0);
    CHECK(!strcmp((const char *)(w + 1), "NVIDIA H200"));
    CHECK_EQ(w->name_len, 12);
    CHECK_EQ(w->compute_major, 9); CHECK_EQ(w->compute_minor, 0);
    CHECK_EQ(w->sm_count, 132);
    CHECK_EQ(w->global_memory_bytes, 150754820096ull);
    CHECK_EQ(w->global_memory_bandwidth_kbps, 4800000000ull);
    CHECK_EQ(w->core_clock_khz, 1980000);
    CHECK_EQ(w->l2_cache_bytes, 52428800);
    CHECK_EQ(w->async_engines, 7);
    CHECK_EQ(w->max_grid_dim[0], 2147483647);
    CHECK_EQ(w->uuid[0], 0x10); CHECK_EQ(w->uuid[15], 0x1f);
    /* A MIG instance: its ids and UUID ride along (TARGET_INFO_GPU keys MIG instances by their own UUID). */
    CHECK_EQ(w->is_cuda_visible, 1); CHECK_EQ(w->is_mig_enabled, 1);
    CHECK_EQ(w->gpu_instance_id, 3); CHECK_EQ(w->compute_instance_id, 0);
    CHECK_EQ(w->mig_uuid[0], 0xa0); CHECK_EQ(w->mig_uuid[15], 0xaf);
    ps_cupti_conv_free(c);
}

/* start = end = 0 (no timing collected), or only one of them: dropped and counted, nothing emitted. */
static void case_zero_timestamps(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityKernel10 k0 = kernel(0, 0, gemm, 1), k1 = kernel(500, 0, gemm, 2), ok = kernel(500, 600, gemm, 3);
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&k0) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&k1) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&m) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&ok) == 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_KERNEL), 1);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_MEMCPY), 0);
    struct ps_wire_gpu_drops d;
    ps_cupti_conv_drops(c, &d);
    CHECK_EQ(d.zero_timestamp, 3);
    CHECK(ps_cupti_conv_emit_drops(c, 4) == 0);
    const struct ps_wire_gpu_drops *w = sink_find(&s, PS_WIRE_GPU_DROPS, 0);
    CHECK(w);
    CHECK_EQ(w->zero_timestamp, 3);
    CHECK_EQ(w->buffers_refused, 4);
    ps_cupti_conv_free(c);
}

/* A whole buffer through the iterator; an unknown kind in the middle is counted and skipped, an
 * invalid (incomplete) record ends the buffer. One clock pair shifts every timestamp. */
static void case_buffer(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = NULL;
    CHECK(ps_cupti_conv_new(sink_emit, &s, fake_cbname, &c) == 0);
    ps_cupti_conv_clock_pair(c, 0, 1000);     /* CLOCK_MONOTONIC 0 = CUPTI 1000: every time 1000 ns earlier */
    static uint8_t buf[4096] __attribute__((aligned(8)));
    size_t valid = 0;
    CUpti_ActivityKernel10 k = kernel(5000, 6000, gemm, 1);
    valid = fake_append(buf, valid, &k);
    CUpti_ActivityOverhead3 o;
    memset(&o, 0, sizeof o);
    o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    o.objectId.pt.processId = 10, o.objectId.pt.threadId = 11;
    o.start = 2000, o.end = 2500;
    valid = fake_append(buf, valid, &o);
    CHECK_EQ(ps_cupti_conv_buffer(c, fake_next, buf, valid), 2);
    const struct ps_wire_gpu_kernel *w = sink_find(&s, PS_WIRE_GPU_KERNEL, 0);
    CHECK_EQ(w->start_ns, 4000); CHECK_EQ(w->end_ns, 5000);
    const struct ps_wire_gpu_overhead *wo = sink_find(&s, PS_WIRE_GPU_OVERHEAD, 0);
    CHECK(wo);
    CHECK_EQ(wo->start_ns, 1000); CHECK_EQ(wo->overhead_kind, 1 << 16);
    CHECK_EQ(wo->pid_or_device, 10); CHECK_EQ(wo->tid_or_context, 11);
    /* A record of a kind the fake iterator cannot size: CUPTI_ERROR_INVALID_KIND ends the buffer. */
    CUpti_ActivityAPI bad;
    memset(&bad, 0, sizeof bad);
    bad.kind = CUPTI_ACTIVITY_KIND_MARKER;
    memcpy(buf + valid, &bad, sizeof bad);
    CHECK_EQ(ps_cupti_conv_buffer(c, fake_next, buf, valid + sizeof bad), 2);
    struct ps_wire_gpu_drops d;
    ps_cupti_conv_drops(c, &d);
    CHECK_EQ(d.invalid_records, 1);
    /* An unknown but well-formed kind is counted. */
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&bad) == 0);
    ps_cupti_conv_drops(c, &d);
    CHECK_EQ(d.unknown_kinds, 1);
    /* A full ring: counted as ring_full, conversion goes on. */
    s.refuse = 1;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&k) == 0);
    ps_cupti_conv_drops(c, &d);
    CHECK_EQ(d.ring_full, 1);
    ps_cupti_conv_free(c);
}

/* cudaEventQuery / cudaStreamQuery on unfinished work come back as sync records with CUDA_ERROR_NOT_READY (600):
 * polling, not waiting: counted, not written. A completed query (0) and a real wait are written. */
static void case_sync_not_ready(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivitySynchronization2 y;
    memset(&y, 0, sizeof y);
    y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
    y.start = 100, y.end = 103, y.contextId = 1, y.streamId = 7, y.cudaEventId = 5;
    for (uint32_t i = 0; i < 5; i++) {         /* five polls of an unfinished event */
        y.correlationId = 10 + i, y.returnValue = 600;
        CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&y) == 0);
    }
    y.correlationId = 20, y.returnValue = 0;   /* the poll that found it done */
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&y) == 0);
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, y.correlationId = 21, y.end = 5000;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&y) == 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_SYNC), 2);
    CHECK_EQ(((const struct ps_wire_gpu_sync *)sink_find(&s, PS_WIRE_GPU_SYNC, 0))->correlation_id, 20);
    struct ps_wire_gpu_drops d;
    ps_cupti_conv_drops(c, &d);
    CHECK_EQ(d.sync_not_ready, 5);
    CHECK_EQ(d.zero_timestamp, 0);
    ps_cupti_conv_free(c);
}

/* The ring refuses a name's string record (full): the name is sent again, with the same id, by the next record
 * that uses it, so that record and the earlier one both get their name (kernel and API names alike). */
static void case_dropped_name_resent(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CUpti_ActivityKernel10 a = kernel(10, 20, gemm, 1), b = kernel(30, 40, gemm, 2), d = kernel(50, 60, gemm, 3);
    CUpti_ActivityAPI api;
    memset(&api, 0, sizeof api);
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    api.start = 5, api.end = 8, api.correlationId = 1;
    s.refuse = 1;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&a) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&api) == 0);
    s.refuse = 0;
    CHECK_EQ(s.n, 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&b) == 0);
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&d) == 0);
    api.correlationId = 2;
    CHECK(ps_cupti_conv_record(c, (CUpti_Activity *)&api) == 0);
    CHECK_EQ(sink_count(&s, PS_WIRE_GPU_STRING), 2);     /* each name once more, then never again */
    const struct ps_wire_gpu_kernel *kb = sink_find(&s, PS_WIRE_GPU_KERNEL, 0), *kd = sink_find(&s, PS_WIRE_GPU_KERNEL, 1);
    CHECK(kb && kd && kb->name_id == kd->name_id);
    CHECK(sink_string(&s, kb->name_id) && !strcmp(sink_string(&s, kb->name_id), gemm));
    const struct ps_wire_gpu_api *wa = sink_find(&s, PS_WIRE_GPU_API, 0);
    CHECK(wa && sink_string(&s, wa->name_id) && !strcmp(sink_string(&s, wa->name_id), "cudaLaunchKernel_v7000"));
    struct ps_wire_gpu_drops dr;
    ps_cupti_conv_drops(c, &dr);
    CHECK_EQ(dr.ring_full, 4);      /* string + kernel, string + API record */
    ps_cupti_conv_free(c);
}

/* Clock pairs: CUPTI's clock is 1 s ahead at the first pair and 1.0001 s ahead one CUPTI second later (100 ppm
 * fast): the offset moves linearly between the pairs and goes on moving past the last. Hand calculation beside
 * each check. */
static void case_clock_pairs(void)
{
    static struct sink s;
    struct ps_cupti_conv *c = conv_new(&s);
    CHECK_EQ(ps_cupti_conv_map_time(c, 5000), 5000);                       /* no pair: as CUPTI gives it */
    ps_cupti_conv_clock_pair(c, 10000000000ll, 11000000000ll);
    CHECK_EQ(ps_cupti_conv_map_time(c, 11000000500ull), 10000000500ll);    /* one pair: offset -1 s */
    ps_cupti_conv_clock_pair(c, 10999900000ll, 12000000000ll);
    /* 0.5 CUPTI s after the first pair: offset -1 s - 50 us -> 11.5 s - 1.00005 s */
    CHECK_EQ(ps_cupti_conv_map_time(c, 11500000000ull), 10499950000ll);
    /* 2 CUPTI s after the first pair (1 s past the last): offset -1 s - 200 us -> 13 s - 1.0002 s */
    CHECK_EQ(ps_cupti_conv_map_time(c, 13000000000ull), 11999800000ll);
    ps_cupti_conv_free(c);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "kernel", .fn = case_kernel },
        { "kernel_names_once", .fn = case_kernel_names_once },
        { "memcpy", .fn = case_memcpy },
        { "memset_sync", .fn = case_memset_sync }, { "api", .fn = case_api }, { "device", .fn = case_device },
        { "zero_timestamps", .fn = case_zero_timestamps }, { "buffer", .fn = case_buffer },
        { "sync_not_ready", .fn = case_sync_not_ready }, { "dropped_name_resent", .fn = case_dropped_name_resent },
        { "clock_pairs", .fn = case_clock_pairs },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
