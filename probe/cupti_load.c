/* Finding libcupti for the probe (see ps_cupti_load in cupti_capture.h): never a second CUPTI in a process, never
 * a CUDA 13 CUPTI in a process that runs an older CUDA runtime; and the NVIDIA driver's version for messages. */
#include "cupti_capture.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file a loaded symbol comes from. */
static const char *library_of(void *sym)
{
    Dl_info info;
    return sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "?";
}

/* What the loaded objects say about the process's CUDA version: a CUDA runtime or CUPTI of CUDA 13, and the
 * first one of an older major version (libcudart.so.12, libcupti.so.12, libcudart.so.11.0, libcupti.so.11.8). */
struct cuda_libs {
    int has13;
    unsigned other_major;
    char other[384];
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct cuda_libs *c = arg;
    const char *path = info->dlpi_name, *base;
    if (!path || !*path)
        return 0;
    base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t prefix = !strncmp(base, "libcudart.so.", 13) ? 13 : !strncmp(base, "libcupti.so.", 12) ? 12 : 0;
    if (!prefix || !isdigit((unsigned char)base[prefix]))
        return 0;
    /* The file may carry a year-numbered version (libcupti.so.2024.1.1 of CUDA 12.4): only 1..13 is a CUDA major. */
    unsigned long major = strtoul(base + prefix, NULL, 10);
    if (major == 13)
        c->has13 = 1;
    else if (major >= 1 && major < 13 && !c->other_major) {
        c->other_major = (unsigned)major;
        snprintf(c->other, sizeof c->other, "%s", path);
    }
    return 0;
}

int ps_cupti_load(const char *path, struct ps_cupti_api *api, char *why, size_t why_len)
{
    static const char toolkit[] = "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13";
    const char *tried[5];
    size_t n = 0;
    memset(api, 0, sizeof *api);
    /* Never a second instance: a copy already in the process (PyTorch's wheel) is the one to use. */
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    const char *how = "already loaded by the program";
    if (!h) {
        /* A CUDA 12 program (a cu12x PyTorch wheel) has its own runtime and libcupti.so.12 loaded: a CUDA 13 CUPTI
         * next to them reads a runtime it was not built for, and CUPTI 12's records have other layouts. */
        struct cuda_libs libs = { 0 };
        dl_iterate_phdr(scan_object, &libs);
        if (libs.other_major && !libs.has13) {
            snprintf(why, why_len, "CUDA %u process: GPU capture needs CUDA 13 (R580+): the program runs with %s, "
                     "so perfscope loads no CUPTI into it (no GPU rows; NVTX ranges are still recorded); run a CUDA 13 "
                     "build of the program (PyTorch: a cu13x wheel)", libs.other_major, libs.other);
            return -ENOTSUP;
        }
        if (path && *path)
            tried[n++] = path;
        tried[n++] = "libcupti.so.13";
        tried[n++] = toolkit;
        tried[n++] = "libcupti.so";
        for (size_t i = 0; i < n && !h; i++) {
            h = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
            how = path && *path && i == 0 ? "PERFSCOPE_CUPTI_PATH" : "loaded by perfscope";
        }
    }
    if (!h) {
        char list[512] = "";
        for (size_t i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", tried[i]);
        snprintf(why, why_len, "cannot load libcupti (no libcupti.so.13 in the process; tried %s): %s; set "
                 "PERFSCOPE_CUPTI_PATH to the libcupti.so.13 of a CUDA 13 install (e.g. "
                 "/usr/local/cuda/extras/CUPTI/lib64 or the nvidia/cu13/lib folder of the PyTorch wheel)",
                 list, dlerror());
        return -ENOENT;
    }
    /* Never dlclose: CUDA 13.0 segfaults at shutdown when libcupti is unloaded (PAPI PR #594). */
    struct { void **slot; const char *name; int optional; } syms[] = {
        { (void **)&api->get_version, "cuptiGetVersion", 0 },
        { (void **)&api->subscribe_v2, "cuptiSubscribe_v2", 0 },
        { (void **)&api->unsubscribe, "cuptiUnsubscribe", 0 },
        { (void **)&api->enable_callback, "cuptiEnableCallback", 0 },
        { (void **)&api->register_timestamp_callback, "cuptiActivityRegisterTimestampCallback", 0 },
        { (void **)&api->set_thread_id_type, "cuptiSetThreadIdType", 0 },
        { (void **)&api->register_callbacks, "cuptiActivityRegisterCallbacks", 0 },
        { (void **)&api->activity_enable, "cuptiActivityEnable", 0 },
        { (void **)&api->flush_all, "cuptiActivityFlushAll", 0 },
        { (void **)&api->get_next_record, "cuptiActivityGetNextRecord", 0 },
        { (void **)&api->get_num_dropped, "cuptiActivityGetNumDroppedRecords", 0 },
        { (void **)&api->get_callback_name, "cuptiGetCallbackName", 0 },
        { (void **)&api->get_result_string, "cuptiGetResultString", 0 },
        { (void **)&api->get_timestamp, "cuptiGetTimestamp", 0 },
        { (void **)&api->enable_and_dump, "cuptiActivityEnableAndDump", 1 },
        { (void **)&api->enable_all_sync_records, "cuptiActivityEnableAllSyncRecords", 1 },
        { (void **)&api->enable_runtime_api, "cuptiActivityEnableRuntimeApi", 1 },
        { (void **)&api->enable_driver_api, "cuptiActivityEnableDriverApi", 1 },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(h, syms[i].name);
        if (!*syms[i].slot && !syms[i].optional) {
            snprintf(why, why_len, "%s has no %s (a CUPTI older than CUDA 13?): set PERFSCOPE_CUPTI_PATH to a "
                     "CUDA 13 libcupti.so.13", library_of(dlsym(h, "cuptiGetVersion")), syms[i].name);
            return -ENOSYS;
        }
    }
    api->driver_version = ps_nvidia_driver_version;
    snprintf(api->origin, sizeof api->origin, "%s, %s", library_of((void *)api->get_version), how);
    return 0;
}

/* The first token of `line` that starts with a digit and holds a dot ("580.65.06"), into buf. */
static int version_token(const char *line, char *buf, size_t len)
{
    for (const char *p = line; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > line && !isspace((unsigned char)p[-1])))
            continue;
        size_t n = strspn(p, "0123456789.");
        if (n > 2 && memchr(p, '.', n) && n < len) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            return 0;
        }
    }
    return -ENOENT;
}

int ps_nvidia_driver_version(char *buf, size_t len)
{
    /* The kernel module's version (sysfs), else the first line of /proc/driver/nvidia/version: "NVRM version:
     * NVIDIA UNIX [Open Kernel Module for] x86_64 Kernel Module  580.65.06  <date>". Files, not the driver API:
     * this runs inside cuInit. */
    static const char *const files[] = { "/sys/module/nvidia/version", "/proc/driver/nvidia/version" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char line[256];
        FILE *f = fopen(files[i], "re");
        if (!f)
            continue;
        int ok = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        if (ok && version_token(line, buf, len) == 0)
            return 0;
    }
    return -ENOENT;
}
