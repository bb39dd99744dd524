/* GPU metrics through NVML, shared by `perfscope record` (PERFSCOPE_GPU_SAMPLES) and `perfscope top`.
 * libnvidia-ml is dlopen'ed at run time (libnvidia-ml.so.1 first: the unversioned name is often only the CUDA
 * toolkit's stub), versioned symbols fall back to older ones, and every field has a validity bit: a field the
 * device does not support (MIG, a consumer board) or that fails is "not valid", never a fake 0. */
#ifndef PS_NVML_H
#define PS_NVML_H

#include <stddef.h>
#include <stdint.h>

struct ps_nvml;

/* Why there is no NVML (ps_nvml_open's return). */
enum ps_nvml_status {
    PS_NVML_OK = 0,
    PS_NVML_NO_LIBRARY = -1,        /* neither libnvidia-ml.so.1 nor libnvidia-ml.so loads (no driver) */
    PS_NVML_NO_SYMBOLS = -2,        /* it loads but lacks nvmlInit / nvmlShutdown / the device calls */
    PS_NVML_INIT_FAILED = -3,       /* nvmlInit failed: "Driver/library version mismatch", driver not loaded, ... */
};

/* Load NVML and initialise it. Returns PS_NVML_OK and *out (free with ps_nvml_close), or a negative
 * enum ps_nvml_status with one line in `why` saying what is missing and what to do, e.g.
 * "no NVIDIA driver: libnvidia-ml.so.1 not found" or "NVML: Driver/library version mismatch (reboot, or
 * reload the nvidia kernel module, after a driver upgrade)". Zero devices is success (count 0). */
int ps_nvml_open(struct ps_nvml **out, char *why, size_t whylen);
void ps_nvml_close(struct ps_nvml *n);      /* nvmlShutdown, never dlclose (drivers misbehave); NULL: no-op */

/* Devices NVML enumerates (after ps_nvml_open). */
unsigned ps_nvml_count(const struct ps_nvml *n);

/* Validity bits of struct ps_gpu_sample. */
enum ps_gpu_field {
    PS_GPU_UTIL_SM = 1u << 0,       /* util_sm_pct (nvmlUtilizationRates.gpu) */
    PS_GPU_UTIL_MEM = 1u << 1,      /* util_mem_pct (.memory) */
    PS_GPU_MEM = 1u << 2,           /* mem_used_bytes, mem_total_bytes */
    PS_GPU_TEMP = 1u << 3,
    PS_GPU_POWER = 1u << 4,
    PS_GPU_POWER_LIMIT = 1u << 5,
    PS_GPU_CLOCK_SM = 1u << 6,
    PS_GPU_CLOCK_MEM = 1u << 7,
    PS_GPU_PCIE_RX = 1u << 8,
    PS_GPU_PCIE_TX = 1u << 9,
    PS_GPU_THROTTLE = 1u << 10,
    PS_GPU_PROCS = 1u << 11,        /* procs[0..nprocs) is the device's compute process list */
    PS_GPU_MIG = 1u << 12,          /* mig_enabled */
    PS_GPU_UUID = 1u << 13,         /* uuid */
    PS_GPU_PCI = 1u << 14,          /* pci_bus_id */
    PS_GPU_PROC_UTIL = 1u << 15,    /* procs[].sm_util_pct / mem_util_pct (nvmlDeviceGetProcessUtilization) */
};

#define PS_GPU_MAX_PROCS 64
#define PS_GPU_MAX_MIG 8            /* MIG devices per GPU (7 on A100/H100/H200) */
#define PS_GPU_NO_INSTANCE UINT32_MAX

struct ps_gpu_proc {
    uint32_t pid;                   /* host pid (NVML reports host pids even inside a container) */
    int64_t used_bytes;             /* GPU memory; -1: not available (NVML_VALUE_NOT_AVAILABLE, MIG without
                                       permission) */
    /* MIG instance the process runs on (nvmlProcessInfo_v2_t); PS_GPU_NO_INSTANCE without MIG or a v1 entry */
    uint32_t gpu_instance_id, compute_instance_id;
    /* % of the driver's last sample period the process used the SMs / memory (valid with PS_GPU_PROC_UTIL; a
     * process without a utilisation sample since the previous call used none: 0) */
    uint32_t sm_util_pct, mem_util_pct;
};

/* A MIG device (compute instance) of a GPU in MIG mode, as CUDA_VISIBLE_DEVICES=MIG-... names it. */
struct ps_gpu_mig {
    char uuid[96];                  /* "MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; "" unknown */
    uint32_t gpu_instance_id, compute_instance_id;  /* PS_GPU_NO_INSTANCE unknown */
    int mem_valid;
    uint64_t mem_used_bytes, mem_total_bytes;
};

struct ps_gpu_sample {
    int64_t time_ns;                /* CLOCK_MONOTONIC when sampled */
    uint32_t index;                 /* NVML device index */
    uint32_t valid;                 /* enum ps_gpu_field bits */
    char name[96];                  /* "" when unknown */
    uint32_t util_sm_pct, util_mem_pct;     /* %, averaged by the driver over its last 1/6..1 s */
    uint64_t mem_used_bytes, mem_total_bytes;
    uint32_t temp_c;
    uint32_t power_mw, power_limit_mw;      /* milliwatts (limit: the enforced one) */
    uint32_t clock_sm_mhz, clock_mem_mhz;
    uint32_t pcie_rx_kbps, pcie_tx_kbps;    /* KB/s over the driver's last 20 ms window */
    uint64_t throttle;              /* nvmlClocksEventReasons bits (ps_nvml_throttle_text) */
    int mig_enabled;                /* 1 MIG mode on, 0 off (valid with PS_GPU_MIG) */
    char uuid[96];                  /* "GPU-xxxxxxxx-..." (nvmlDeviceGetUUID): joins TARGET_INFO_GPU.uuid */
    char pci_bus_id[32];            /* "00000000:19:00.0" (nvmlPciInfo_t.busId), as nvidia-smi's pci.bus_id */
    size_t nprocs;
    struct ps_gpu_proc procs[PS_GPU_MAX_PROCS];
    size_t nmig;                    /* MIG devices found when mig_enabled */
    struct ps_gpu_mig mig[PS_GPU_MAX_MIG];
};

/* Read every field of device `index` (< ps_nvml_count) into *out; the fields that fail are left out of
 * out->valid. Per-process SM utilisation covers the samples NVML took since the previous call for that device (the
 * newest sample of each process; the first call reads the driver's whole sample buffer). Returns 0, -EINVAL (no
 * such device) or -ENODEV (the handle itself cannot be had: a lost GPU; *out then holds only index and time). */
int ps_nvml_sample(struct ps_nvml *n, unsigned index, struct ps_gpu_sample *out);

/* The names of the set throttle-reason bits, comma-separated ("sw-power-cap,hw-thermal"), "none" for 0,
 * written to buf (always NUL-terminated). Bits from nvml.h's nvmlClocksEventReason* constants. Returns buf. */
const char *ps_nvml_throttle_text(uint64_t reasons, char *buf, size_t len);

/* Size of one entry the driver wrote, from a buffer of `cap` bytes pre-filled with 0xAA holding `count`
 * entries: 32 when any byte past count*24 changed, else 24 (exposed for tests). */
unsigned ps_nvml_detect_stride(const unsigned char *buf, size_t cap, unsigned count);

#endif
