/* Test-only stand-in for libnvidia-ml (never installed): built as libnvidia-ml.so.1 in a test directory that
 * tests put on LD_LIBRARY_PATH. It returns the values of a script named by $PS_NVML_STANDIN, one `key=value`
 * a line:
 *   init=ok|mismatch|not_loaded      count=N
 *   gpuI.name=TEXT   gpuI.handle=ok|error   gpuI.util=SM,MEM   gpuI.mem=USED,TOTAL (bytes)   gpuI.temp=C
 *   gpuI.power=MW    gpuI.power_limit=MW    gpuI.clock_sm=MHZ  gpuI.clock_mem=MHZ  gpuI.pcie_rx=KBPS
 *   gpuI.pcie_tx=KBPS  gpuI.throttle=BITS   gpuI.mig=0|1        gpuI.procs=PID:BYTES[:GI:CI],PID:na   gpuI.proc_stride=24|32
 *   gpuI.uuid=TEXT   gpuI.pci=BUSID   gpuI.proc_util=PID:SM:MEM:TIME_US,... (only samples newer than the caller's
 *   lastSeenTimeStamp are returned; none: NVML_ERROR_NOT_FOUND)   gpuI.mig_count=N   gpuI.migK.uuid=TEXT (a MIG
 *   device in slot K; a slot without it has none)   gpuI.migK.gi=ID   gpuI.migK.ci=ID   gpuI.migK.mem=USED,TOTAL
 * A value may be a sequence `a;b;c`: call k of that field returns item min(k, last). `unsupported` returns
 * NVML_ERROR_NOT_SUPPORTED, `error` NVML_ERROR_UNKNOWN. Built twice: the default exports the versioned entry
 * points of a current driver (_v2/_v3, nvmlMemory_v2, ClocksEventReasons); -DSTANDIN_OLD only the old
 * unversioned ones (16-byte process entries, ClocksThrottleReasons), to test the loader's fallbacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))
enum { OK = 0, NOT_SUPPORTED = 3, NOT_FOUND = 6, INSUFFICIENT_SIZE = 7, NOT_LOADED = 9, MISMATCH = 18,
       ARG_VERSION = 25, UNKNOWN = 999 };

#define MAX_KEYS 128
static struct kv { char key[48]; char val[512]; int calls; } kvs[MAX_KEYS];
static int nkv, loaded;

static void load(void)
{
    if (loaded)
        return;
    loaded = 1;
    const char *path = getenv("PS_NVML_STANDIN");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[600];
    while (f && fgets(line, sizeof line, f) && nkv < MAX_KEYS) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq || line[0] == '#')
            continue;
        *eq = '\0';
        snprintf(kvs[nkv].key, sizeof kvs[nkv].key, "%.47s", line);
        snprintf(kvs[nkv].val, sizeof kvs[nkv].val, "%.511s", eq + 1);
        nkv++;
    }
    if (f)
        fclose(f);
}

/* The current item of key (a device's, "gpu0" or "gpu0.mig1", or NULL for a global key), advancing its call
 * count; NULL if absent. */
static const char *get(const char *dev, const char *key, char *buf, size_t len)
{
    char full[64];
    if (dev)
        snprintf(full, sizeof full, "%s.%s", dev, key);
    else
        snprintf(full, sizeof full, "%s", key);
    load();
    for (int i = 0; i < nkv; i++) {
        if (strcmp(kvs[i].key, full))
            continue;
        const char *p = kvs[i].val;
        for (int k = 0; k < kvs[i].calls; k++) {
            const char *semi = strchr(p, ';');
            if (!semi)
                break;
            p = semi + 1;
        }
        kvs[i].calls++;
        size_t n = strcspn(p, ";");
        snprintf(buf, len, "%.*s", (int)n, p);
        return buf;
    }
    return NULL;
}

/* NVML status for a field value: absent or "unsupported" -> NOT_SUPPORTED, "error" -> UNKNOWN, else OK. */
static int status(const char *v)
{
    if (!v || !strcmp(v, "unsupported"))
        return NOT_SUPPORTED;
    return !strcmp(v, "error") ? UNKNOWN : OK;
}

struct dev { char name[24]; };
static struct dev devs[16];
#define DEV(d) (((struct dev *)(d))->name)

static int uint_field(void *d, const char *key, unsigned *out)
{
    char buf[64];
    const char *v = get(DEV(d), key, buf, sizeof buf);
    int rc = status(v);
    if (rc == OK)
        *out = (unsigned)strtoul(v, NULL, 0);
    return rc;
}

static int do_init(void)
{
    char buf[32];
    const char *v = get(NULL, "init", buf, sizeof buf);
    if (v && !strcmp(v, "mismatch"))
        return MISMATCH;
    if (v && !strcmp(v, "not_loaded"))
        return NOT_LOADED;
    return OK;
}

static int do_count(unsigned *n)
{
    char buf[32];
    const char *v = get(NULL, "count", buf, sizeof buf);
    *n = v ? (unsigned)atoi(v) : 0;
    if (*n > 16)
        *n = 16;
    return OK;
}

static int do_handle(unsigned i, void **out)
{
    unsigned n;
    do_count(&n);
    char buf[32];
    if (i >= n)
        return 2;
    snprintf(devs[i].name, sizeof devs[i].name, "gpu%u", i);
    const char *v = get(devs[i].name, "handle", buf, sizeof buf);
    if (v && strcmp(v, "ok"))
        return 15;          /* NVML_ERROR_GPU_IS_LOST */
    *out = &devs[i];
    return OK;
}

API const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case MISMATCH: return "Driver/library version mismatch";
    case NOT_LOADED: return "Driver Not Loaded";
    case NOT_SUPPORTED: return "Not Supported";
    default: return "Unknown Error";
    }
}
API int nvmlShutdown(void) { return OK; }
API int nvmlDeviceGetName(void *d, char *name, unsigned len)
{
    char buf[128];
    const char *v = get(DEV(d), "name", buf, sizeof buf);
    if (status(v))
        return status(v);
    snprintf(name, len, "%s", v);
    return OK;
}
API int nvmlDeviceGetUtilizationRates(void *d, unsigned *u)
{
    char buf[64];
    const char *v = get(DEV(d), "util", buf, sizeof buf);
    if (status(v))
        return status(v);
    return sscanf(v, "%u,%u", &u[0], &u[1]) == 2 ? OK : UNKNOWN;
}
static int mem(void *d, unsigned long long *used, unsigned long long *total)
{
    char buf[64];
    const char *v = get(DEV(d), "mem", buf, sizeof buf);
    if (status(v))
        return status(v);
    return sscanf(v, "%llu,%llu", used, total) == 2 ? OK : UNKNOWN;
}
API int nvmlDeviceGetMemoryInfo(void *d, unsigned long long *m)     /* v1: total, free, used */
{
    unsigned long long used, total;
    int rc = mem(d, &used, &total);
    if (rc == OK) {
        m[0] = total;
        m[1] = total - used;
        m[2] = used;
    }
    return rc;
}
API int nvmlDeviceGetTemperature(void *d, int sensor, unsigned *t)
{
    return sensor == 0 ? uint_field(d, "temp", t) : 2;
}
API int nvmlDeviceGetPowerUsage(void *d, unsigned *mw) { return uint_field(d, "power", mw); }
API int nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned *mw) { return uint_field(d, "power_limit", mw); }
API int nvmlDeviceGetClockInfo(void *d, int type, unsigned *mhz)
{
    return type == 1 ? uint_field(d, "clock_sm", mhz) : type == 2 ? uint_field(d, "clock_mem", mhz) : 2;
}
API int nvmlDeviceGetPcieThroughput(void *d, int counter, unsigned *kbps)
{
    return counter == 1 ? uint_field(d, "pcie_rx", kbps) : counter == 0 ? uint_field(d, "pcie_tx", kbps) : 2;
}
static int throttle(void *d, unsigned long long *r)
{
    unsigned v;
    int rc = uint_field(d, "throttle", &v);
    if (rc == OK)
        *r = v;
    return rc;
}
API int nvmlDeviceGetMigMode(void *d, unsigned *cur, unsigned *pending)
{
    int rc = uint_field(d, "mig", cur);
    if (rc == OK)
        *pending = *cur;
    return rc;
}

/* Write the script's processes as entries of `stride` bytes: pid, padding, used bytes, then (24/32) the MIG
 * instance ids (0xFFFFFFFF: no MIG) and (32) usedGpuCcProtectedMemory 0. */
static int procs(void *d, unsigned *count, void *infos, unsigned stride)
{
    char buf[512], sbuf[16];
    const char *v = get(DEV(d), "procs", buf, sizeof buf);
    if (status(v) && !(v && !*v))
        return status(v);
    const char *s = get(DEV(d), "proc_stride", sbuf, sizeof sbuf);
    if (stride != 16 && s)
        stride = (unsigned)atoi(s);
    unsigned n = 0;
    unsigned pids[64], gi[64], ci[64];
    unsigned long long used[64];
    for (const char *p = v; p && *p && n < 64;) {
        pids[n] = (unsigned)strtoul(p, (char **)&p, 10);
        if (*p == ':')
            p++;
        if (!strncmp(p, "na", 2)) {
            used[n] = ~0ull;
            p += 2;
        } else {
            used[n] = strtoull(p, (char **)&p, 10);
        }
        gi[n] = ci[n] = 0xFFFFFFFFu;
        if (*p == ':') {
            gi[n] = (unsigned)strtoul(p + 1, (char **)&p, 10);
            ci[n] = (unsigned)strtoul(p + 1, (char **)&p, 10);
        }
        n++;
        if (*p == ',')
            p++;
    }
    if (*count < n || !infos) {
        *count = n;
        return n ? INSUFFICIENT_SIZE : OK;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned char *e = (unsigned char *)infos + (size_t)i * stride;
        memset(e, 0, stride);
        memcpy(e, &pids[i], 4);
        memcpy(e + 8, &used[i], 8);
        if (stride >= 24) {
            memcpy(e + 16, &gi[i], 4);
            memcpy(e + 20, &ci[i], 4);
        }
    }
    *count = n;
    return OK;
}

API int nvmlDeviceGetUUID(void *d, char *uuid, unsigned len)
{
    char buf[128];
    const char *v = get(DEV(d), "uuid", buf, sizeof buf);
    if (status(v))
        return status(v);
    snprintf(uuid, len, "%s", v);
    return OK;
}

#ifndef STANDIN_OLD
/* nvmlPciInfo_t: busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32] */
API int nvmlDeviceGetPciInfo_v3(void *d, unsigned char *pci)
{
    char buf[64];
    const char *v = get(DEV(d), "pci", buf, sizeof buf);
    if (status(v))
        return status(v);
    memset(pci, 0, 68);
    snprintf((char *)pci, 16, "%.15s", v);
    snprintf((char *)pci + 36, 32, "%s", v);
    return OK;
}

/* nvmlProcessUtilizationSample_t: pid, (pad), timeStamp (us), smUtil, memUtil, encUtil, decUtil = 32 bytes */
API int nvmlDeviceGetProcessUtilization(void *d, unsigned char *util, unsigned *count, unsigned long long last)
{
    char buf[512];
    const char *v = get(DEV(d), "proc_util", buf, sizeof buf);
    if (status(v) && !(v && !*v))
        return status(v);
    unsigned n = 0, pid[64], sm[64], mem[64];
    unsigned long long ts[64];
    for (const char *p = v; *p && n < 64;) {
        pid[n] = (unsigned)strtoul(p, (char **)&p, 10);
        sm[n] = (unsigned)strtoul(p + 1, (char **)&p, 10);
        mem[n] = (unsigned)strtoul(p + 1, (char **)&p, 10);
        ts[n] = strtoull(p + 1, (char **)&p, 10);
        if (ts[n] > last)
            n++;
        if (*p == ',')
            p++;
    }
    if (!n)
        return NOT_FOUND;
    if (!util || *count < n) {
        *count = n;
        return INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned char *e = util + (size_t)i * 32;
        memset(e, 0, 32);
        memcpy(e, &pid[i], 4);
        memcpy(e + 8, &ts[i], 8);
        memcpy(e + 16, &sm[i], 4);
        memcpy(e + 20, &mem[i], 4);
    }
    *count = n;
    return OK;
}

static struct dev migs[16][8];
API int nvmlDeviceGetMaxMigDeviceCount(void *d, unsigned *count) { return uint_field(d, "mig_count", count); }
API int nvmlDeviceGetMigDeviceHandleByIndex(void *d, unsigned k, void **out)
{
    char key[16], buf[128];
    int parent = (int)(((struct dev *)d - devs));
    snprintf(key, sizeof key, "mig%u.uuid", k);
    if (parent < 0 || parent >= 16 || k >= 8 || !get(DEV(d), key, buf, sizeof buf))
        return NOT_FOUND;
    snprintf(migs[parent][k].name, sizeof migs[parent][k].name, "%.8s.mig%u", DEV(d), k);
    *out = &migs[parent][k];
    return OK;
}
API int nvmlDeviceGetGpuInstanceId(void *d, unsigned *id) { return uint_field(d, "gi", id); }
API int nvmlDeviceGetComputeInstanceId(void *d, unsigned *id) { return uint_field(d, "ci", id); }

API int nvmlInit_v2(void) { return do_init(); }
API int nvmlDeviceGetCount_v2(unsigned *n) { return do_count(n); }
API int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **out) { return do_handle(i, out); }
API int nvmlDeviceGetMemoryInfo_v2(void *d, unsigned long long *m)   /* { unsigned version; total, reserved, free, used } */
{
    unsigned version;
    memcpy(&version, m, sizeof version);
    if (version != (40u | (2u << 24)))
        return ARG_VERSION;
    unsigned long long used, total;
    int rc = mem(d, &used, &total);
    if (rc == OK) {
        m[1] = total;
        m[2] = 0;
        m[3] = total - used;
        m[4] = used;
    }
    return rc;
}
API int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *r) { return throttle(d, r); }
API int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *count, void *infos)
{
    return procs(d, count, infos, 24);
}
#else
API int nvmlInit(void) { return do_init(); }
API int nvmlDeviceGetCount(unsigned *n) { return do_count(n); }
API int nvmlDeviceGetHandleByIndex(unsigned i, void **out) { return do_handle(i, out); }
API int nvmlDeviceGetCurrentClocksThrottleReasons(void *d, unsigned long long *r) { return throttle(d, r); }
API int nvmlDeviceGetComputeRunningProcesses(void *d, unsigned *count, void *infos)
{
    return procs(d, count, infos, 16);
}
#endif
