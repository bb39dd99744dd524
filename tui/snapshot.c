/* The --snapshot JSON (see snapshot.h), written through the JSON writer `perfscope report` and `export` use
 * (render/json_writer.h: yajl's generator, text from traces and /proc made valid UTF-8 with U+FFFD). */
#include "tui/snapshot.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "ps_nvml.h"
#include "render/json_writer.h"

#define SNAPSHOT_VERSION 1

static void key(struct ps_jw *w, const char *k)
{
    ps_jw_key(w, k);
}

static void kint(struct ps_jw *w, const char *k, int valid, long long v)
{
    key(w, k);
    if (valid)
        ps_jw_int(w, v);
    else
        ps_jw_null(w);
}

static void knum(struct ps_jw *w, const char *k, int valid, double v)
{
    key(w, k);
    if (valid && isfinite(v))
        ps_jw_double(w, v);
    else
        ps_jw_null(w);
}

static void kstr(struct ps_jw *w, const char *k, const char *v)
{
    key(w, k);
    if (v)
        ps_jw_str(w, v);
    else
        ps_jw_null(w);
}

static void history(struct ps_jw *w, const char *k, const struct tui_history *h)
{
    key(w, k);
    ps_jw_array_open(w);
    for (size_t i = h->n; i-- > 0;) {   /* oldest first */
        double v;
        if (tui_history_get(h, i, &v))
            ps_jw_double(w, v);
        else
            ps_jw_null(w);
    }
    ps_jw_array_close(w);
}

static void host(struct ps_jw *w, const struct tui_top *t)
{
    const struct tui_host *h = &t->host;
    key(w, "host");
    ps_jw_map_open(w);
    kstr(w, "hostname", t->hostname);
    knum(w, "cpu_percent", h->cpu_valid, h->total_pct);
    key(w, "cpu_percent_per_core");
    ps_jw_array_open(w);
    for (int i = 0; i < h->ncpu; i++)
        if (h->cpu_valid)
            ps_jw_double(w, h->cpu_pct[i]);
        else
            ps_jw_null(w);
    ps_jw_array_close(w);
    int mv = h->mem_total >= 0 && h->mem_available >= 0;
    kint(w, "mem_total_bytes", h->mem_total >= 0, h->mem_total);
    kint(w, "mem_used_bytes", mv, h->mem_total - h->mem_available);
    kint(w, "mem_available_bytes", h->mem_available >= 0, h->mem_available);
    kint(w, "swap_total_bytes", h->swap_total >= 0, h->swap_total);
    kint(w, "swap_used_bytes", h->swap_total >= 0 && h->swap_free >= 0, h->swap_total - h->swap_free);
    key(w, "load");
    if (h->load_valid) {
        ps_jw_array_open(w);
        for (int i = 0; i < 3; i++)
            ps_jw_double(w, h->load[i]);
        ps_jw_array_close(w);
    } else {
        ps_jw_null(w);
    }
    history(w, "cpu_percent_history", &t->host_cpu);
    ps_jw_map_close(w);
}

static void gpus(struct ps_jw *w, const struct tui_top *t)
{
    key(w, "gpu");
    ps_jw_map_open(w);
    kstr(w, "status", t->nvml_status == PS_NVML_OK ? "ok" : "unavailable");
    kstr(w, "message", t->nvml_status == PS_NVML_OK ? NULL : t->nvml_why);
    key(w, "devices");
    ps_jw_array_open(w);
    for (unsigned i = 0; i < t->ngpu; i++) {
        const struct ps_gpu_sample *s = &t->gpu[i].s;
        unsigned v = t->gpu[i].ok ? s->valid : 0;
        char thr[160];
        ps_jw_map_open(w);
        kint(w, "index", 1, i);
        kstr(w, "name", s->name[0] ? s->name : NULL);
        key(w, "responding");
        ps_jw_bool(w, t->gpu[i].ok);
        kint(w, "util_sm_percent", v & PS_GPU_UTIL_SM, s->util_sm_pct);
        kint(w, "util_memory_percent", v & PS_GPU_UTIL_MEM, s->util_mem_pct);
        kint(w, "memory_used_bytes", v & PS_GPU_MEM, (long long)s->mem_used_bytes);
        kint(w, "memory_total_bytes", v & PS_GPU_MEM, (long long)s->mem_total_bytes);
        kint(w, "temperature_c", v & PS_GPU_TEMP, s->temp_c);
        kint(w, "power_mw", v & PS_GPU_POWER, s->power_mw);
        kint(w, "power_limit_mw", v & PS_GPU_POWER_LIMIT, s->power_limit_mw);
        kint(w, "clock_sm_mhz", v & PS_GPU_CLOCK_SM, s->clock_sm_mhz);
        kint(w, "clock_memory_mhz", v & PS_GPU_CLOCK_MEM, s->clock_mem_mhz);
        kint(w, "pcie_rx_kbps", v & PS_GPU_PCIE_RX, s->pcie_rx_kbps);
        kint(w, "pcie_tx_kbps", v & PS_GPU_PCIE_TX, s->pcie_tx_kbps);
        kint(w, "throttle_reasons", v & PS_GPU_THROTTLE, (long long)s->throttle);
        kstr(w, "throttle", v & PS_GPU_THROTTLE ? ps_nvml_throttle_text(s->throttle, thr, sizeof thr) : NULL);
        kstr(w, "uuid", v & PS_GPU_UUID ? s->uuid : NULL);
        kstr(w, "pci_bus_id", v & PS_GPU_PCI ? s->pci_bus_id : NULL);
        key(w, "mig_enabled");
        if (v & PS_GPU_MIG)
            ps_jw_bool(w, s->mig_enabled);
        else
            ps_jw_null(w);
        key(w, "mig_devices");
        ps_jw_array_open(w);
        for (size_t k = 0; (v & PS_GPU_MIG) && s->mig_enabled && k < s->nmig; k++) {
            const struct ps_gpu_mig *m = &s->mig[k];
            ps_jw_map_open(w);
            kstr(w, "uuid", m->uuid[0] ? m->uuid : NULL);
            kint(w, "gpu_instance_id", m->gpu_instance_id != PS_GPU_NO_INSTANCE, m->gpu_instance_id);
            kint(w, "compute_instance_id", m->compute_instance_id != PS_GPU_NO_INSTANCE, m->compute_instance_id);
            kint(w, "memory_used_bytes", m->mem_valid, (long long)m->mem_used_bytes);
            kint(w, "memory_total_bytes", m->mem_valid, (long long)m->mem_total_bytes);
            ps_jw_map_close(w);
        }
        ps_jw_array_close(w);
        key(w, "processes");
        if (v & PS_GPU_PROCS) {
            ps_jw_array_open(w);
            for (size_t k = 0; k < s->nprocs; k++) {
                const struct ps_gpu_proc *p = &s->procs[k];
                int mig = p->gpu_instance_id != PS_GPU_NO_INSTANCE;
                ps_jw_map_open(w);
                kint(w, "pid", 1, p->pid);
                kint(w, "used_memory_bytes", p->used_bytes >= 0, p->used_bytes);
                kint(w, "sm_util_percent", v & PS_GPU_PROC_UTIL, p->sm_util_pct);
                kint(w, "memory_util_percent", v & PS_GPU_PROC_UTIL, p->mem_util_pct);
                kint(w, "gpu_instance_id", mig, p->gpu_instance_id);
                kint(w, "compute_instance_id", mig && p->compute_instance_id != PS_GPU_NO_INSTANCE,
                     p->compute_instance_id);
                ps_jw_map_close(w);
            }
            ps_jw_array_close(w);
        } else {
            ps_jw_null(w);
        }
        history(w, "util_history", &t->gpu[i].util);
        history(w, "memory_percent_history", &t->gpu[i].mem_pct);
        history(w, "power_w_history", &t->gpu[i].power_w);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

static void processes(struct ps_jw *w, const struct tui_top *t)
{
    static const char *const states[] = { "running", "sleeping", "blocked_io", "stopped", "zombie", "idle", "other" };
    _Static_assert(sizeof states / sizeof *states == PS_THREAD_STATES, "a name per enum ps_thread_state");
    key(w, "recorded_processes");
    ps_jw_array_open(w);
    for (size_t i = 0; t->procs && i < t->nproc_rows; i++) {
        const struct tui_proc *p = &t->proc_rows[i];
        ps_jw_map_open(w);
        kint(w, "pid", 1, p->pid);
        kint(w, "ppid", 1, p->ppid);
        kint(w, "depth", 1, p->depth);
        kstr(w, "name", p->comm);
        kint(w, "child_processes", 1, p->children);
        knum(w, "cpu_percent", p->cpu_pct >= 0, p->cpu_pct);
        kint(w, "rss_bytes", p->rss_bytes >= 0, p->rss_bytes);
        knum(w, "read_bytes_per_s", p->read_bps >= 0, p->read_bps);
        knum(w, "write_bytes_per_s", p->write_bps >= 0, p->write_bps);
        kint(w, "threads", 1, p->threads);
        key(w, "thread_states");
        ps_jw_map_open(w);
        for (int s = 0; s < PS_THREAD_STATES; s++)
            kint(w, states[s], 1, p->states[s]);
        ps_jw_map_close(w);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

/* The report of the window as `top` keeps it: steps, breakdown, the verdict's groups, verdict and fix, top kernels,
 * PyTorch's memory (the numbers are the report's: top computes none). */
static void analysis(struct ps_jw *w, const struct tui_live *l)
{
    ps_jw_map_open(w);
    kint(w, "steps", 1, (long long)l->nsteps);
    key(w, "whole_window");
    ps_jw_bool(w, l->whole_run);
    kint(w, "step_avg_ns", 1, l->avg_dur_ns);
    key(w, "breakdown_ns");
    ps_jw_map_open(w);
    for (int i = 0; i < PS_CAT_N; i++)
        kint(w, ps_cat_key[i], 1, l->cat_ns[i]);
    ps_jw_map_close(w);
    kint(w, "sync_ns", 1, l->sync_ns);
    key(w, "groups_ns");
    ps_jw_map_open(w);
    for (int i = 0; i < PS_BN_UNKNOWN; i++)
        kint(w, ps_bottleneck_name[i], 1, l->group_ns[i]);
    ps_jw_map_close(w);
    kstr(w, "bottleneck", ps_bottleneck_name[l->bottleneck]);
    knum(w, "share", 1, l->share);
    knum(w, "gpu_utilization", !isnan(l->gpu_util), l->gpu_util);
    kstr(w, "fix", l->fix[0] ? l->fix : NULL);
    kstr(w, "cause", l->cause[0] ? l->cause : NULL);
    key(w, "top_kernels");
    ps_jw_array_open(w);
    for (size_t i = 0; i < l->nkernels; i++) {
        ps_jw_map_open(w);
        kstr(w, "name", l->kernels[i].name);
        kint(w, "count", 1, l->kernels[i].count);
        kint(w, "total_ns", 1, l->kernels[i].total_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    key(w, "torch_memory");   /* the Python hook's allocator statistics (docs/memory.md) */
    ps_jw_array_open(w);
    for (size_t i = 0; i < l->ntorch_mem; i++) {
        ps_jw_map_open(w);
        kint(w, "device", 1, l->torch_mem[i].device);
        kint(w, "allocated_bytes", 1, l->torch_mem[i].allocated);
        kint(w, "reserved_bytes", l->torch_mem[i].reserved >= 0, l->torch_mem[i].reserved);
        kint(w, "peak_allocated_bytes", 1, l->torch_mem[i].peak);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

static void recording(struct ps_jw *w, const struct tui_top *t)
{
    key(w, "sessions");
    ps_jw_array_open(w);
    for (size_t i = 0; i < t->nsessions; i++) {
        ps_jw_map_open(w);
        kint(w, "recorder_pid", 1, t->sessions[i].recorder_pid);
        kstr(w, "trace", t->sessions[i].trace);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    key(w, "recording");
    if (!t->watching) {
        ps_jw_null(w);
        return;
    }
    const struct tui_live *l = &t->live;
    static const char *const state[] = { "none", "recording", "ended", "error" };
    _Static_assert(sizeof state / sizeof *state == TUI_LIVE_ERROR + 1, "a name per enum tui_live_state");
    ps_jw_map_open(w);
    kstr(w, "trace", l->trace);
    kstr(w, "why_this_one", t->watch_reason[0] ? t->watch_reason : NULL);
    kstr(w, "state", state[l->state]);
    kstr(w, "message", l->message[0] ? l->message : NULL);
    kstr(w, "command_line", l->command[0] ? l->command : NULL);
    kint(w, "recorder_pid", l->recorder_pid != 0, l->recorder_pid);
    kint(w, "window_ns", 1, l->window_ns);
    kint(w, "window_end_ns", l->now_ns > 0 && l->now_ns < INT64_MAX / 2, l->now_ns);
    kint(w, "unplaced_rows", 1, l->unplaced);
    key(w, "analysis");
    if (!l->have_report) {
        ps_jw_null(w);
    } else {
        analysis(w, l);
    }
    history(w, "step_ms_history", &l->step_ms);
    key(w, "open_nvtx_ranges");
    if (!l->have_open_table) {
        ps_jw_null(w);
    } else {
        ps_jw_array_open(w);
        for (size_t i = 0; i < l->nstacks; i++) {
            ps_jw_map_open(w);
            kint(w, "pid", 1, l->stacks[i].pid);
            kint(w, "tid", 1, l->stacks[i].tid);
            kstr(w, "thread_name", l->stacks[i].thread[0] ? l->stacks[i].thread : NULL);
            kstr(w, "stack", l->stacks[i].stack);
            ps_jw_map_close(w);
        }
        ps_jw_array_close(w);
    }
    ps_jw_map_close(w);
}

int tui_snapshot_write(const struct tui_top *t, FILE *out)
{
    struct ps_jw *w = ps_jw_new(out);
    if (!w)
        return -ENOMEM;
    ps_jw_map_open(w);
    kint(w, "perfscope_top_version", 1, SNAPSHOT_VERSION);
    kint(w, "iterations", 1, t->samples);
    knum(w, "interval_s", 1, t->interval_s);
    host(w, t);
    gpus(w, t);
    processes(w, t);
    recording(w, t);
    kstr(w, "status", t->status[0] ? t->status : NULL);
    ps_jw_map_close(w);
    return ps_jw_free(w) < 0 ? -EIO : 0;
}
