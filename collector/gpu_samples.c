/* PERFSCOPE_GPU_* rows from NVML samples (see gpu_samples.h). */
#include "gpu_samples.h"

#include <errno.h>
#include <stdlib.h>

struct ps_gpu_samples {
    struct ps_tw *w;
    int64_t origin_ns;
    sqlite3_stmt *st_sample, *st_proc, *st_device;
    uint64_t devices_seen;          /* bit i: the PERFSCOPE_GPU_DEVICES row of device i is written */
};

int ps_gpu_samples_new(struct ps_tw *w, int64_t origin_ns, struct ps_gpu_samples **out)
{
    struct ps_gpu_samples *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->w = w;
    g->origin_ns = origin_ns;
    g->st_sample = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_GPU_SAMPLES VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    g->st_proc = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_GPU_PROCESS_SAMPLES VALUES(?,?,?,?)");
    g->st_device = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_GPU_DEVICES VALUES(?,?,?)");
    if (!g->st_sample || !g->st_proc || !g->st_device) {
        free(g);
        return -EIO;
    }
    *out = g;
    return 0;
}

void ps_gpu_samples_free(struct ps_gpu_samples *g)
{
    free(g);                        /* the statements belong to the writer */
}

/* Bind column i to v when `bit` is valid, else NULL. */
static void bind_if(sqlite3_stmt *st, int i, const struct ps_gpu_sample *s, uint32_t bit, int64_t v)
{
    if (s->valid & bit)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

int ps_gpu_samples_write(struct ps_gpu_samples *g, const struct ps_gpu_sample *s)
{
    int64_t t = s->time_ns - g->origin_ns;
    int rc;
    if (s->index < 64 && !(g->devices_seen & (1ull << s->index)) && (s->name[0] || (s->valid & PS_GPU_MEM))) {
        sqlite3_bind_int64(g->st_device, 1, s->index);
        if (s->name[0])
            ps_tw_bind_text(g->st_device, 2, s->name);
        else
            sqlite3_bind_null(g->st_device, 2);
        bind_if(g->st_device, 3, s, PS_GPU_MEM, (int64_t)s->mem_total_bytes);
        if ((rc = ps_tw_exec(g->w, g->st_device)))
            return rc;
        g->devices_seen |= 1ull << s->index;
    }
    sqlite3_stmt *st = g->st_sample;
    sqlite3_bind_int64(st, 1, t);
    sqlite3_bind_int64(st, 2, s->index);
    bind_if(st, 3, s, PS_GPU_UTIL_SM, s->util_sm_pct);
    bind_if(st, 4, s, PS_GPU_UTIL_MEM, s->util_mem_pct);
    bind_if(st, 5, s, PS_GPU_MEM, (int64_t)s->mem_used_bytes);
    bind_if(st, 6, s, PS_GPU_MEM, (int64_t)s->mem_total_bytes);
    bind_if(st, 7, s, PS_GPU_TEMP, s->temp_c);
    bind_if(st, 8, s, PS_GPU_POWER, s->power_mw);
    bind_if(st, 9, s, PS_GPU_POWER_LIMIT, s->power_limit_mw);
    bind_if(st, 10, s, PS_GPU_CLOCK_SM, s->clock_sm_mhz);
    bind_if(st, 11, s, PS_GPU_CLOCK_MEM, s->clock_mem_mhz);
    bind_if(st, 12, s, PS_GPU_PCIE_RX, s->pcie_rx_kbps);
    bind_if(st, 13, s, PS_GPU_PCIE_TX, s->pcie_tx_kbps);
    bind_if(st, 14, s, PS_GPU_THROTTLE, (int64_t)s->throttle);
    bind_if(st, 15, s, PS_GPU_MIG, s->mig_enabled);
    if ((rc = ps_tw_exec(g->w, st)))
        return rc;
    for (size_t i = 0; (s->valid & PS_GPU_PROCS) && i < s->nprocs; i++) {
        sqlite3_bind_int64(g->st_proc, 1, t);
        sqlite3_bind_int64(g->st_proc, 2, s->index);
        sqlite3_bind_int64(g->st_proc, 3, s->procs[i].pid);
        if (s->procs[i].used_bytes >= 0)
            sqlite3_bind_int64(g->st_proc, 4, s->procs[i].used_bytes);
        else
            sqlite3_bind_null(g->st_proc, 4);
        if ((rc = ps_tw_exec(g->w, g->st_proc)))
            return rc;
    }
    return 0;
}
