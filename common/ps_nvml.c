/* The NVML loader and sampler (see ps_nvml.h). Types and constants are declared here from the public nvml.h
 * (no nvml.h on build machines; ../shared/notes/cupti-nvtx-nvml.md §4 lists them); every entry point is looked
 * up with dlsym, newest version first, and a missing one only costs its fields. */
#include "ps_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_time.h"

/* nvml.h values */
enum {
    NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_INSUFFICIENT_SIZE = 7,
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
    unsigned procs_version;         /* 1: 16-byte entries; 2/3: 24 or 32 (detected) */
    unsigned char *proc_buf;
    size_t proc_cap;                /* entries */
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
            unsigned int pid;
            unsigned long long used;
            memcpy(&pid, e, sizeof pid);
            memcpy(&used, e + 8, sizeof used);   /* after pid and its padding in every version */
            out->procs[out->nprocs++] = (struct ps_gpu_proc){
                pid, used == NVML_VALUE_NOT_AVAILABLE || used > INT64_MAX ? -1 : (int64_t)used };
        }
        return 0;
    }
    return -EIO;                    /* the list kept growing */
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
    }
    if (n->get_procs && sample_procs(n, dev, out) == 0)
        out->valid |= PS_GPU_PROCS;
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
