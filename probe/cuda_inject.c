/* The CUDA injection entry point of libperfscope_probe.so: the CUDA driver calls InitializeInjection during
 * cuInit when CUDA_INJECTION64_PATH names the probe (`perfscope record` sets it). It records that CUDA
 * injection happened, loads libcupti at run time and starts activity collection into the process's ring. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_capture.h"
#include "probe.h"
#include "ps_env.h"

/* GPU records go to the calling thread's lane (CUPTI's worker thread gets its own). */
static int cuda_emit(void *ctx, const struct ps_wire_hdr *rec)
{
    (void)ctx;
    struct probe_thread *t = probe_thread();
    if (!t)
        return -1;
    void *p = probe_reserve(t, rec->size);
    if (!p)
        return -1;
    memcpy(p, rec, rec->size);
    ps_ring_commit(&t->w, rec->size);
    return 0;
}

static void cuda_log(const char *msg)
{
    probe_log("%s", msg);
}

static const struct ps_cupti_sink sink = { cuda_emit, NULL, cuda_log };
static struct ps_cupti_api api;

/* Returns 1 always: the program must run whatever happens to perfscope (NVIDIA's injection sample returns
 * 1, also on repeated calls). Only CUPTI is called here, never the CUDA driver (we are inside cuInit). */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static atomic_int called;
    char why[512];
    if (atomic_exchange(&called, 1))
        return 1;
    if (probe_start() != 0)
        return 1;       /* no recording session (or no ring): nothing to record into */
    ps_cupti_status(&sink, PS_CUDA_INJECTED, "the CUDA driver called InitializeInjection");
    int rc = ps_cupti_load(getenv(PS_ENV_CUPTI_PATH), &api, why, sizeof why);
    if (rc < 0) {
        char msg[640];
        /* -ENOTSUP (a CUDA 12 process) comes as a whole message; the others say what was tried. */
        snprintf(msg, sizeof msg, "%s%s", rc == -ENOTSUP ? "" : "no GPU rows (NVTX ranges are still recorded): ", why);
        ps_cupti_status(&sink, PS_CUDA_CUPTI_UNAVAILABLE, msg);
        return 1;
    }
    /* Registered inside InitializeInjection as NVIDIA's sample does, so it runs before the CUDA runtime's
     * own teardown (atexit handlers run last-registered first). */
    atexit(ps_cupti_flush_at_exit);
    ps_cupti_start(&api, &sink);
    return 1;
}
