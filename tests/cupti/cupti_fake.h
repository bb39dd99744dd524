/* Test helpers for the CUPTI tests: a record sink that keeps every wire record, a fake activity buffer
 * holding real CUPTI 13.0 record structs back to back, and its iterator (cuptiActivityGetNextRecord's role). */
#ifndef PS_TEST_CUPTI_FAKE_H
#define PS_TEST_CUPTI_FAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "ps_wire_gpu.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                                         exit(1); } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
        fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); exit(1); } } while (0)

/* Every record emitted, copied. */
struct sink {
    struct ps_wire_hdr *recs[256];
    int n;
    int refuse;         /* when set, emit reports a full ring */
    size_t used;
    _Alignas(8) uint8_t arena[1 << 16];
};

static inline int sink_emit(void *ctx, const struct ps_wire_hdr *rec)
{
    struct sink *s = ctx;
    if (s->refuse || s->n == 256 || s->used + rec->size > sizeof s->arena)
        return -1;
    s->recs[s->n] = (struct ps_wire_hdr *)(s->arena + s->used);
    s->used += (rec->size + 7) & ~(size_t)7;
    memcpy(s->recs[s->n], rec, rec->size);
    s->n++;
    return 0;
}

/* The i-th record of `type` (0-based), or NULL. */
static inline const void *sink_find(const struct sink *s, int type, int i)
{
    for (int k = 0; k < s->n; k++)
        if (s->recs[k]->type == type && i-- == 0)
            return s->recs[k];
    return NULL;
}

static inline int sink_count(const struct sink *s, int type)
{
    int n = 0;
    for (int k = 0; k < s->n; k++)
        n += s->recs[k]->type == type;
    return n;
}

/* The text of the PS_WIRE_GPU_STRING with `id`, or NULL. */
static inline const char *sink_string(const struct sink *s, uint32_t id)
{
    for (int k = 0; k < s->n; k++)
        if (s->recs[k]->type == PS_WIRE_GPU_STRING && ((const struct ps_wire_gpu_string *)s->recs[k])->id == id)
            return (const char *)((const struct ps_wire_gpu_string *)s->recs[k] + 1);
    return NULL;
}

/* Size of the CUPTI struct of a kind, as the fake buffer lays them out. */
static inline size_t fake_record_size(CUpti_ActivityKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_RUNTIME: case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL: return sizeof(CUpti_ActivityMemoryPool3);
    default: return 0;
    }
}

/* Append a record to a buffer; returns the new valid size. */
static inline size_t fake_append(uint8_t *buf, size_t valid, const void *rec)
{
    size_t n = fake_record_size(((const CUpti_Activity *)rec)->kind);
    memcpy(buf + valid, rec, n);
    return valid + ((n + 7) & ~(size_t)7);
}

/* cuptiActivityGetNextRecord over a fake buffer. */
static inline CUptiResult fake_next(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    size_t off = 0;
    if (*rec)
        off = (size_t)((uint8_t *)*rec - buf) + ((fake_record_size((*rec)->kind) + 7) & ~(size_t)7);
    if (off >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(buf + off);
    if (!fake_record_size((*rec)->kind))
        return CUPTI_ERROR_INVALID_KIND;
    return CUPTI_SUCCESS;
}

/* cuptiGetCallbackName for the ids the tests use (names as CUDA 13.0's cupti_*_cbid.h spell them). */
static inline CUptiResult fake_cbname(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        *name = "cudaLaunchKernel_v7000";
    else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020)
        *name = "cudaMemcpyAsync_v3020";
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
        *name = "cuLaunchKernel";
    else
        return CUPTI_ERROR_INVALID_PARAMETER;
    return CUPTI_SUCCESS;
}

#endif
