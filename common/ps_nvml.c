/* The NVML loader and sampler (see ps_nvml.h). Types and constants are declared here from NVIDIA's NVML API
 * reference (docs.nvidia.com/deploy/nvml-api; no nvml.h on build machines); every entry point is looked up with
 * dlsym, newest version first, and a missing one only costs its fields. */
#include "ps_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_time.h"

/* nvml.h values */
enum {
    NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
};
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
#define NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFull

typedef int nvml_ret;
typedef struct nvmlDevice_st *nvml_dev;
struct nvml_util { unsigned int gpu, memory; };
struct nvml_mem_v1 { unsigned long long total, free, used; };
struct nvml_mem_v2 { unsigned int version; unsigned long long total, reserved, free, used; };
/* NVML_STRUCT_VERSION(Memory, 2): sizeof | version << 24 = 0x02000028 */
#define NVML_MEMORY_V2 ((unsigned int)(sizeof(struct nvml_mem_v2) | (2u << 24)))

/* nvmlPciInfo_t of nvmlDeviceGetPciInfo_v2/_v3 (NVML API reference, nvmlPciInfo_t) */
struct nvml_pci {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];                /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
};
/* nvmlProcessUtilizationSample_t (NVML API reference): timeStamp is a CPU time in microseconds */
struct nvml_proc_util {
    unsigned int pid;
    unsigned long long time_us;
    unsigned int sm, mem, enc, dec;
};

#define NVML_NAME_LEN 96            /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define PROC_SLOT_MAX 32            /* the largest process-entry size a driver writes (R535+) */

struct ps_nvml {
    void *lib;
    unsigned count;
    nvml_ret (*shutdown)(void);
    const char *(*error_string)(nvml_ret);
    nvml_ret (*get_handle)(unsigned, nvml_dev *);
    nvml_ret (*get_name)(nvml_dev, char *, unsigned);
    nvml_ret (*get_util)(nvml_dev, struct nvml_util *);
    nvml_ret (*get_mem_v2)(nvml_dev, struct nvml_mem_v2 *);
    nvml_ret (*get_mem)(nvml_dev, struct nvml_mem_v1 *);
    nvml_ret (*get_temp)(nvml_dev, int, unsigned *);
    nvml_ret (*get_power)(nvml_dev, unsigned *);
    nvml_ret (*get_power_limit)(nvml_dev, unsigned *);
    nvml_ret (*get_clock)(nvml_dev, int, unsigned *);
    nvml_ret (*get_pcie)(nvml_dev, int, unsigned *);
    nvml_ret (*get_throttle)(nvml_dev, unsigned long long *);
    nvml_ret (*get_mig)(nvml_dev, unsigned *, unsigned *);
    nvml_ret (*get_procs)(nvml_dev, unsigned *, void *);
    nvml_ret (*get_uuid)(nvml_dev, char *, unsigned);
    nvml_ret (*get_pci)(nvml_dev, struct nvml_pci *);
    nvml_ret (*get_proc_util)(nvml_dev, struct nvml_proc_util *, unsigned *, unsigned long long);
    nvml_ret (*get_max_mig)(nvml_dev, unsigned *);
    nvml_ret (*get_mig_handle)(nvml_dev, unsigned, nvml_dev *);
    nvml_ret (*get_gi_id)(nvml_dev, unsigned *);
    nvml_ret (*get_ci_id)(nvml_dev, unsigned *);
    unsigned procs_version;         /* 1: 16-byte entries; 2/3: 24 or 32 (detected) */
    unsigned char *proc_buf;
    size_t proc_cap;                /* entries */
    struct nvml_proc_util *util_buf;
    size_t util_cap;                /* entries */
    unsigned long long util_seen_us[64];    /* per device: the newest utilisation sample read (lastSeenTimeStamp) */
};

/* The first of `names` the library exports, NULL if none. */
static void *sym(void *lib, const char *const *names, unsigned *which)
{
    for (unsigned i = 0; names[i]; i++) {
        void *p = dlsym(lib, names[i]);
        if (p) {
            if (which)
                *which = i;
            return p;
        }
    }
    return NULL;
}

#define SYM(lib, ...) sym((lib), (const char *const[]){ __VA_ARGS__, NULL }, NULL)

static const char *err_text(const struct ps_nvml *n, nvml_ret rc, char *buf, size_t len)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    if (!s) {
        snprintf(buf, len, "NVML error %d", rc);
        s = buf;
    }
    return s;
}

int ps_nvml_open(struct ps_nvml **out, char *why, size_t whylen)
{
    *out = NULL;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, whylen, "no NVIDIA driver: libnvidia-ml.so.1 not found (GPU metrics need the driver's NVML)");
        return PS_NVML_NO_LIBRARY;
    }
    struct ps_nvml *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, whylen, "out of memory loading NVML");
        return PS_NVML_NO_SYMBOLS;          /* the library stays loaded: never dlclose a driver library */
    }
    n->lib = lib;
    nvml_ret (*init)(void) = SYM(lib, "nvmlInit_v2", "nvmlInit");
    nvml_ret (*get_count)(unsigned *) = SYM(lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    n->shutdown = SYM(lib, "nvmlShutdown");
    n->error_string = SYM(lib, "nvmlErrorString");
    n->get_handle = SYM(lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    if (!init || !get_count || !n->shutdown || !n->get_handle) {
        snprintf(why, whylen, "the NVML library found lacks nvmlInit/nvmlDeviceGetCount (a stub or a broken "
                              "driver install?)");
        free(n);
        return PS_NVML_NO_SYMBOLS;
    }
    n->get_name = SYM(lib, "nvmlDeviceGetName");
    n->get_util = SYM(lib, "nvmlDeviceGetUtilizationRates");
    n->get_mem_v2 = SYM(lib, "nvmlDeviceGetMemoryInfo_v2");
    n->get_mem = SYM(lib, "nvmlDeviceGetMemoryInfo");
    n->get_temp = SYM(lib, "nvmlDeviceGetTemperature");
    n->get_power = SYM(lib, "nvmlDeviceGetPowerUsage");
    n->get_power_limit = SYM(lib, "nvmlDeviceGetEnforcedPowerLimit");
    n->get_clock = SYM(lib, "nvmlDeviceGetClockInfo");
    n->get_pcie = SYM(lib, "nvmlDeviceGetPcieThroughput");
    /* Renamed in CUDA 12.2's NVML; the old name stays as a deprecated alias. */
    n->get_throttle = SYM(lib, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    n->get_mig = SYM(lib, "nvmlDeviceGetMigMode");
    unsigned which = 0;
    n->get_procs = sym(lib, (const char *const[]){ "nvmlDeviceGetComputeRunningProcesses_v3",
                                                   "nvmlDeviceGetComputeRunningProcesses_v2",
                                                   "nvmlDeviceGetComputeRunningProcesses", NULL }, &which);
    n->procs_version = which == 2 ? 1 : 3 - which;
    n->get_uuid = SYM(lib, "nvmlDeviceGetUUID");
    n->get_pci = SYM(lib, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
    n->get_proc_util = SYM(lib, "nvmlDeviceGetProcessUtilization");
    n->get_max_mig = SYM(lib, "nvmlDeviceGetMaxMigDeviceCount");
    n->get_mig_handle = SYM(lib, "nvmlDeviceGetMigDeviceHandleByIndex");
    n->get_gi_id = SYM(lib, "nvmlDeviceGetGpuInstanceId");
    n->get_ci_id = SYM(lib, "nvmlDeviceGetComputeInstanceId");
    nvml_ret rc = init();
    if (rc != NVML_SUCCESS) {
        char buf[32];
        const char *s = err_text(n, rc, buf, sizeof buf);
        snprintf(why, whylen, "NVML: %s%s", s,
                 rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH ? " (the driver was upgraded: reboot, or reload the nvidia "
                                                            "kernel module)" :
                 rc == NVML_ERROR_DRIVER_NOT_LOADED ? " (no NVIDIA kernel driver is loaded)" : "");
        free(n);
        return PS_NVML_INIT_FAILED;
    }
    unsigned count = 0;
    if (get_count(&count) != NVML_SUCCESS)
        count = 0;
    n->count = count;
    *out = n;
    return PS_NVML_OK;
}

void ps_nvml_close(struct ps_nvml *n)
{
    if (!n)
        return;
    n->shutdown();
    free(n->proc_buf);
    free(n->util_buf);
    free(n);
}

unsigned ps_nvml_count(const struct ps_nvml *n)
{
    return n ? n->count : 0;
}

unsigned ps_nvml_detect_stride(const unsigned char *buf, size_t cap, unsigned count)
{
    size_t from = (size_t)count * 24, to = (size_t)count * 32;
    for (size_t i = from; i < to && i < cap; i++)
        if (buf[i] != 0xAA)
            return 32;
    return 24;
}

/* The compute process list. The count call (infoCount 0) gives the size; processes can start between the two
 * calls, so the buffer has slack and an INSUFFICIENT_SIZE retries once with the new count. The v2/v3 entry
 * grew from 24 to 32 bytes on R535+ drivers without a version change (nvitop PR #79, pynvml #50): the buffer
 * is pre-filled with 0xAA and the stride read from how far the driver wrote. 0, -ENOMEM, or -EIO (NVML failed). */
static int sample_procs(struct ps_nvml *n, nvml_dev dev, struct ps_gpu_sample *out)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        unsigned count = 0;
        nvml_ret rc = n->get_procs(dev, &count, NULL);
        if (rc == NVML_SUCCESS) {
            out->nprocs = 0;
            return 0;
        }
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
            return -EIO;
        size_t want = (size_t)count + 8;
        if (want > n->proc_cap) {
            unsigned char *b = realloc(n->proc_buf, want * PROC_SLOT_MAX);
            if (!b)
                return -ENOMEM;
            n->proc_buf = b;
            n->proc_cap = want;
        }
        memset(n->proc_buf, 0xAA, n->proc_cap * PROC_SLOT_MAX);
        count = (unsigned)n->proc_cap;
        rc = n->get_procs(dev, &count, n->proc_buf);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
            continue;
        if (rc != NVML_SUCCESS || count > n->proc_cap)
            return -EIO;
        unsigned stride = n->procs_version == 1 ? 16 : ps_nvml_detect_stride(n->proc_buf, n->proc_cap * PROC_SLOT_MAX,
                                                                             count);
        out->nprocs = 0;
        for (unsigned i = 0; i < count && out->nprocs < PS_GPU_MAX_PROCS; i++) {
            const unsigned char *e = n->proc_buf + (size_t)i * stride;
            unsigned int pid, gi = PS_GPU_NO_INSTANCE, ci = PS_GPU_NO_INSTANCE;
            unsigned long long used;
            memcpy(&pid, e, sizeof pid);
            memcpy(&used, e + 8, sizeof used);   /* after pid and its padding in every version */
            if (stride >= 24) {                  /* v2/v3: gpuInstanceId, computeInstanceId (0xFFFFFFFF: no MIG) */
                memcpy(&gi, e + 16, sizeof gi);
                memcpy(&ci, e + 20, sizeof ci);
            }
            out->procs[out->nprocs++] = (struct ps_gpu_proc){
                .pid = pid, .used_bytes = used == NVML_VALUE_NOT_AVAILABLE || used > INT64_MAX ? -1 : (int64_t)used,
                .gpu_instance_id = gi, .compute_instance_id = ci };
        }
        return 0;
    }
    return -EIO;                    /* the list kept growing */
}

/* Per-process SM and memory utilisation of the listed processes (procs[] first): the samples since the last call
 * for this device, the newest per process; a listed process without one used nothing in that time (NVML returns
 * samples only for processes with non-zero utilisation; NVML_ERROR_NOT_FOUND when there are none). */
static int sample_proc_util(struct ps_nvml *n, nvml_dev dev, unsigned index, struct ps_gpu_sample *out)
{
    unsigned long long *seen = index < 64 ? &n->util_seen_us[index] : NULL, since = seen ? *seen : 0;
    unsigned count = 0;
    nvml_ret rc = n->get_proc_util(dev, NULL, &count, since);
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_FOUND)
        count = 0;
    else if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return -1;
    if (count) {
        size_t want = (size_t)count + 16;        /* processes may start between the two calls */
        if (want > n->util_cap) {
            struct nvml_proc_util *b = realloc(n->util_buf, want * sizeof *b);
            if (!b)
                return -1;
            n->util_buf = b;
            n->util_cap = want;
        }
        count = (unsigned)n->util_cap;
        rc = n->get_proc_util(dev, n->util_buf, &count, since);
        if (rc == NVML_ERROR_NOT_FOUND)
            count = 0;
        else if (rc != NVML_SUCCESS || count > n->util_cap)
            return -1;
    }
    for (size_t k = 0; k < out->nprocs; k++) {
        unsigned long long newest = 0;
        out->procs[k].sm_util_pct = out->procs[k].mem_util_pct = 0;
        for (unsigned i = 0; i < count; i++) {
            const struct nvml_proc_util *u = &n->util_buf[i];
            if (u->pid != out->procs[k].pid || u->time_us < newest)
                continue;
            newest = u->time_us;
            out->procs[k].sm_util_pct = u->sm <= 100 ? u->sm : 100;
            out->procs[k].mem_util_pct = u->mem <= 100 ? u->mem : 100;
        }
    }
    for (unsigned i = 0; seen && i < count; i++)
        if (n->util_buf[i].time_us > *seen)
            *seen = n->util_buf[i].time_us;
    return 0;
}

/* The MIG devices of a GPU in MIG mode: UUID, instance ids, memory. Slots without a device are skipped. */
static void sample_mig(struct ps_nvml *n, nvml_dev dev, struct ps_gpu_sample *out)
{
    unsigned max = 0;
    out->nmig = 0;
    if (!n->get_max_mig || !n->get_mig_handle || n->get_max_mig(dev, &max) != NVML_SUCCESS)
        return;
    for (unsigned i = 0; i < max && out->nmig < PS_GPU_MAX_MIG; i++) {
        nvml_dev mig = NULL;
        if (n->get_mig_handle(dev, i, &mig) != NVML_SUCCESS || !mig)
            continue;
        struct ps_gpu_mig *m = &out->mig[out->nmig++];
        memset(m, 0, sizeof *m);
        m->gpu_instance_id = m->compute_instance_id = PS_GPU_NO_INSTANCE;
        if (n->get_uuid && n->get_uuid(mig, m->uuid, sizeof m->uuid) == NVML_SUCCESS)
            m->uuid[sizeof m->uuid - 1] = '\0';
        else
            m->uuid[0] = '\0';
        unsigned v;
        if (n->get_gi_id && n->get_gi_id(mig, &v) == NVML_SUCCESS)
            m->gpu_instance_id = v;
        if (n->get_ci_id && n->get_ci_id(mig, &v) == NVML_SUCCESS)
            m->compute_instance_id = v;
        struct nvml_mem_v2 m2 = { .version = NVML_MEMORY_V2 };
        struct nvml_mem_v1 m1;
        if (n->get_mem_v2 && n->get_mem_v2(mig, &m2) == NVML_SUCCESS)
            m->mem_valid = 1, m->mem_used_bytes = m2.used, m->mem_total_bytes = m2.total;
        else if (n->get_mem && n->get_mem(mig, &m1) == NVML_SUCCESS)
            m->mem_valid = 1, m->mem_used_bytes = m1.used, m->mem_total_bytes = m1.total;
    }
}

/* UUID and PCI bus id: what identifies the device beside other tools (TARGET_INFO_GPU, nvidia-smi). */
static void sample_ids(struct ps_nvml *n, nvml_dev dev, struct ps_gpu_sample *out)
{
    if (n->get_uuid && n->get_uuid(dev, out->uuid, sizeof out->uuid) == NVML_SUCCESS) {
        out->uuid[sizeof out->uuid - 1] = '\0';
        out->valid |= PS_GPU_UUID;
    }
    struct nvml_pci pci;
    if (n->get_pci && n->get_pci(dev, &pci) == NVML_SUCCESS) {
        snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%.*s", (int)sizeof pci.bus_id, pci.bus_id);
        out->valid |= PS_GPU_PCI;
    }
}

int ps_nvml_sample(struct ps_nvml *n, unsigned index, struct ps_gpu_sample *out)
{
    memset(out, 0, sizeof *out);
    out->index = index;
    out->time_ns = ps_monotonic_ns();
    if (!n || index >= n->count)
        return -EINVAL;
    nvml_dev dev = NULL;
    if (n->get_handle(index, &dev) != NVML_SUCCESS)
        return -ENODEV;
    if (n->get_name && n->get_name(dev, out->name, sizeof out->name) == NVML_SUCCESS)
        out->name[sizeof out->name - 1] = '\0';
    else
        out->name[0] = '\0';
    struct nvml_util u;
    if (n->get_util && n->get_util(dev, &u) == NVML_SUCCESS && u.gpu <= 100 && u.memory <= 100) {
        out->util_sm_pct = u.gpu;
        out->util_mem_pct = u.memory;
        out->valid |= PS_GPU_UTIL_SM | PS_GPU_UTIL_MEM;
    }
    struct nvml_mem_v2 m2 = { .version = NVML_MEMORY_V2 };
    struct nvml_mem_v1 m1;
    if (n->get_mem_v2 && n->get_mem_v2(dev, &m2) == NVML_SUCCESS) {
        out->mem_used_bytes = m2.used;
        out->mem_total_bytes = m2.total;
        out->valid |= PS_GPU_MEM;
    } else if (n->get_mem && n->get_mem(dev, &m1) == NVML_SUCCESS) {
        out->mem_used_bytes = m1.used;
        out->mem_total_bytes = m1.total;
        out->valid |= PS_GPU_MEM;
    }
    unsigned v;
    if (n->get_temp && n->get_temp(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
        out->temp_c = v;
        out->valid |= PS_GPU_TEMP;
    }
    if (n->get_power && n->get_power(dev, &v) == NVML_SUCCESS) {
        out->power_mw = v;
        out->valid |= PS_GPU_POWER;
    }
    if (n->get_power_limit && n->get_power_limit(dev, &v) == NVML_SUCCESS) {
        out->power_limit_mw = v;
        out->valid |= PS_GPU_POWER_LIMIT;
    }
    if (n->get_clock && n->get_clock(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
        out->clock_sm_mhz = v;
        out->valid |= PS_GPU_CLOCK_SM;
    }
    if (n->get_clock && n->get_clock(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) {
        out->clock_mem_mhz = v;
        out->valid |= PS_GPU_CLOCK_MEM;
    }
    if (n->get_pcie && n->get_pcie(dev, NVML_PCIE_UTIL_RX_BYTES, &v) == NVML_SUCCESS) {
        out->pcie_rx_kbps = v;
        out->valid |= PS_GPU_PCIE_RX;
    }
    if (n->get_pcie && n->get_pcie(dev, NVML_PCIE_UTIL_TX_BYTES, &v) == NVML_SUCCESS) {
        out->pcie_tx_kbps = v;
        out->valid |= PS_GPU_PCIE_TX;
    }
    unsigned long long reasons;
    if (n->get_throttle && n->get_throttle(dev, &reasons) == NVML_SUCCESS) {
        out->throttle = reasons;
        out->valid |= PS_GPU_THROTTLE;
    }
    unsigned cur, pending;
    if (n->get_mig && n->get_mig(dev, &cur, &pending) == NVML_SUCCESS) {
        out->mig_enabled = cur == 1;
        out->valid |= PS_GPU_MIG;
        if (out->mig_enabled)
            sample_mig(n, dev, out);
    }
    sample_ids(n, dev, out);
    if (n->get_procs && sample_procs(n, dev, out) == 0) {
        out->valid |= PS_GPU_PROCS;
        if (n->get_proc_util && sample_proc_util(n, dev, index, out) == 0)
            out->valid |= PS_GPU_PROC_UTIL;
    }
    return 0;
}

const char *ps_nvml_throttle_text(uint64_t reasons, char *buf, size_t len)
{
    /* nvml.h nvmlClocksEventReason* bits */
    static const struct { uint64_t bit; const char *name; } names[] = {
        { 0x1, "gpu-idle" }, { 0x2, "app-clocks" }, { 0x4, "sw-power-cap" }, { 0x8, "hw-slowdown" },
        { 0x10, "sync-boost" }, { 0x20, "sw-thermal" }, { 0x40, "hw-thermal" }, { 0x80, "hw-power-brake" },
        { 0x100, "display-clocks" },
    };
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    uint64_t known = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        known |= names[i].bit;
        if ((reasons & names[i].bit) && off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", names[i].name);
    }
    if ((reasons & ~known) && off < len)
        off += (size_t)snprintf(buf + off, len - off, "%sother(0x%llx)", off ? "," : "",
                                (unsigned long long)(reasons & ~known));
    if (!reasons && len)
        snprintf(buf, len, "none");
    return buf;
}
