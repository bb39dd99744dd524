/* PERFSCOPE_GPU_* rows from NVML samples (see gpu_samples.h). */
#include "gpu_samples.h"

#include <errno.h>
#include <stdlib.h>

struct ps_gpu_samples {
    struct ps_tw *w;
    int64_t origin_ns;
    sqlite3_stmt *st_sample, *st_proc, *st_device, *st_mig;
    uint64_t devices_seen;          /* bit i: the PERFSCOPE_GPU_DEVICES row of device i is written */
    uint64_t migs_seen;             /* bit i: device i's PERFSCOPE_GPU_MIG_DEVICES rows are written */
};

int ps_gpu_samples_new(struct ps_tw *w, int64_t origin_ns, struct ps_gpu_samples **out)
{
    struct ps_gpu_samples *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->w = w;
    g->origin_ns = origin_ns;
    g->st_sample = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_GPU_SAMPLES VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    g->st_proc = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_GPU_PROCESS_SAMPLES VALUES(?,?,?,?,?,?,?,?)");
    g->st_device = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_GPU_DEVICES VALUES(?,?,?,?,?)");
    g->st_mig = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_GPU_MIG_DEVICES VALUES(?,?,?,?,?)");
    if (!g->st_sample || !g->st_proc || !g->st_device || !g->st_mig) {
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

/* Bind column i to text when `valid`, else NULL. */
static void bind_text_if(sqlite3_stmt *st, int i, int valid, const char *v)
{
    if (valid && *v)
        ps_tw_bind_text(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* A bound 32-bit id, NULL when it is PS_GPU_NO_INSTANCE. */
static void bind_instance(sqlite3_stmt *st, int i, uint32_t id)
{
    if (id != PS_GPU_NO_INSTANCE)
        sqlite3_bind_int64(st, i, id);
    else
        sqlite3_bind_null(st, i);
}

/* The device's PERFSCOPE_GPU_DEVICES row (name, memory, UUID and PCI bus id: the UUID joins TARGET_INFO_GPU) and its
 * MIG devices, the first time they are seen. */
static int write_device(struct ps_gpu_samples *g, const struct ps_gpu_sample *s)
{
    int rc;
    if (s->index >= 64)
        return 0;
    if (!(g->devices_seen & (1ull << s->index)) && (s->name[0] || (s->valid & (PS_GPU_MEM | PS_GPU_UUID)))) {
        sqlite3_bind_int64(g->st_device, 1, s->index);
        bind_text_if(g->st_device, 2, 1, s->name);
        bind_if(g->st_device, 3, s, PS_GPU_MEM, (int64_t)s->mem_total_bytes);
        bind_text_if(g->st_device, 4, s->valid & PS_GPU_UUID, s->uuid);
        bind_text_if(g->st_device, 5, s->valid & PS_GPU_PCI, s->pci_bus_id);
        if ((rc = ps_tw_exec(g->w, g->st_device)))
            return rc;
        g->devices_seen |= 1ull << s->index;
    }
    if (!(g->migs_seen & (1ull << s->index)) && s->nmig) {
        for (size_t k = 0; k < s->nmig && k < PS_GPU_MAX_MIG; k++) {
            const struct ps_gpu_mig *m = &s->mig[k];
            if (!m->uuid[0])
                continue;
            sqlite3_bind_int64(g->st_mig, 1, s->index);
            sqlite3_bind_text(g->st_mig, 2, m->uuid, -1, SQLITE_TRANSIENT);
            bind_instance(g->st_mig, 3, m->gpu_instance_id);
            bind_instance(g->st_mig, 4, m->compute_instance_id);
            if (m->mem_valid)
                sqlite3_bind_int64(g->st_mig, 5, (int64_t)m->mem_total_bytes);
            else
                sqlite3_bind_null(g->st_mig, 5);
            if ((rc = ps_tw_exec(g->w, g->st_mig)))
                return rc;
        }
        g->migs_seen |= 1ull << s->index;
    }
    return 0;
}

int ps_gpu_samples_write(struct ps_gpu_samples *g, const struct ps_gpu_sample *s)
{
    int64_t t = s->time_ns - g->origin_ns;
    int rc;
    if ((rc = write_device(g, s)))
        return rc;
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
        const struct ps_gpu_proc *p = &s->procs[i];
        sqlite3_bind_int64(g->st_proc, 1, t);
        sqlite3_bind_int64(g->st_proc, 2, s->index);
        sqlite3_bind_int64(g->st_proc, 3, p->pid);
        if (p->used_bytes >= 0)
            sqlite3_bind_int64(g->st_proc, 4, p->used_bytes);
        else
            sqlite3_bind_null(g->st_proc, 4);
        bind_if(g->st_proc, 5, s, PS_GPU_PROC_UTIL, p->sm_util_pct);
        bind_if(g->st_proc, 6, s, PS_GPU_PROC_UTIL, p->mem_util_pct);
        bind_instance(g->st_proc, 7, p->gpu_instance_id);
        bind_instance(g->st_proc, 8, p->compute_instance_id);
        if ((rc = ps_tw_exec(g->w, g->st_proc)))
            return rc;
    }
    return 0;
}
