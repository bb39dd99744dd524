/* Cost of the probe's CUPTI conversion per activity record, without a GPU: buffers of real CUDA 13.0 kernel
 * and runtime-API records (as CUPTI hands them to bufferCompleted) converted into wire records and copied into
 * a reused buffer (the ring's own write cost is the probe's benchmark; a fresh ring adds page faults).
 * Prints ns per record (median of 9 passes), with CUPTI's times as written (CUPTI 13.1+: the CLOCK_MONOTONIC callback)
 * and mapped through clock pairs (CUPTI 13.0); tests/gpu/run.sh measures the whole cost on a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_convert.h"
#include "ps_time.h"

#define RECORDS 20000

static const char *const names[] = { "_Z10gemm_tiledPKfS0_Pfiii", "_Z9bias_reluPfPKfii", "_Z7softmaxPKfPfii",
                                     "_Z3sgdPfPKffi" };
static uint8_t *buf;
static size_t rec_size[2] = { sizeof(CUpti_ActivityKernel10), sizeof(CUpti_ActivityAPI) };

static CUptiResult next(uint8_t *b, size_t valid, CUpti_Activity **rec)
{
    size_t off = 0;
    if (*rec)
        off = (size_t)((uint8_t *)*rec - b) +
              (((*rec)->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? rec_size[1] : rec_size[0]) + 7) / 8 * 8;
    if (off >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(b + off);
    return CUPTI_SUCCESS;
}

static CUptiResult cbname(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
    (void)d, (void)cbid;
    *name = "cudaLaunchKernel_v7000";
    return CUPTI_SUCCESS;
}

static uint8_t sink[1 << 16] __attribute__((aligned(8)));
static size_t sink_pos;

static int emit(void *ctx, const struct ps_wire_hdr *rec)
{
    (void)ctx;
    if (sink_pos + rec->size > sizeof sink)
        sink_pos = 0;
    memcpy(sink + sink_pos, rec, rec->size);
    sink_pos += rec->size;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    size_t valid = 0;
    buf = aligned_alloc(8, RECORDS * 256);
    for (int i = 0; i < RECORDS; i++) {
        if (i % 2 == 0) {
            CUpti_ActivityKernel10 k;
            memset(&k, 0, sizeof k);
            k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
            k.start = 1000 + (uint64_t)i * 100, k.end = k.start + 50, k.streamId = 7, k.correlationId = (uint32_t)i;
            k.name = names[(i / 2) % 4];
            memcpy(buf + valid, &k, sizeof k);
            valid += (sizeof k + 7) / 8 * 8;
        } else {
            CUpti_ActivityAPI a;
            memset(&a, 0, sizeof a);
            a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
            a.cbid = 211, a.start = 900 + (uint64_t)i * 100, a.end = a.start + 5, a.correlationId = (uint32_t)i;
            memcpy(buf + valid, &a, sizeof a);
            valid += (sizeof a + 7) / 8 * 8;
        }
    }
    for (int pairs = 0; pairs < 2; pairs++) {
        double ns[9];
        for (int pass = 0; pass < 9; pass++) {
            struct ps_cupti_conv *c;
            if (ps_cupti_conv_new(emit, NULL, cbname, &c))
                return 1;
            if (pairs) {    /* CUPTI's clock 1 s ahead and 100 ppm fast */
                ps_cupti_conv_clock_pair(c, 1000000000ll, 2000000000ll);
                ps_cupti_conv_clock_pair(c, 2999900000ll, 4000000000ll);
            }
            /* The first buffer also defines the names; time the second, as in a long run. */
            long n = ps_cupti_conv_buffer(c, next, buf, valid);
            int64_t t0 = ps_monotonic_ns();
            n += ps_cupti_conv_buffer(c, next, buf, valid);
            int64_t t1 = ps_monotonic_ns();
            struct ps_wire_gpu_drops d;
            ps_cupti_conv_drops(c, &d);
            if (n != 2 * RECORDS || d.ring_full) {
                fprintf(stderr, "cupti_convert_bench: converted %ld of 2 x %d\n", n, RECORDS);
                return 1;
            }
            ns[pass] = (double)(t1 - t0) / RECORDS;
            ps_cupti_conv_free(c);
        }
        qsort(ns, 9, sizeof ns[0], cmp);
        printf("cupti_convert_bench: %d records (kernels + runtime API, 4 kernel names) -> wire records, clock %s: "
               "median %.1f ns/record (min %.1f, max %.1f)\n", RECORDS,
               pairs ? "pairs (CUPTI 13.0)" : "callback (CUPTI 13.1+)", ns[4], ns[0], ns[8]);
    }
    free(buf);
    return 0;
}
