/* The NVML module (common/ps_nvml.c) against the test-only stand-in (nvml_standin.c): every field read, N/A
 * (not valid) for unsupported and failing fields and MIG, both process-entry sizes, the old unversioned entry
 * points, and the one-line reasons for a failed init. Each scenario runs in a forked child, because the
 * stand-in reads its script once per process. Expected values are the scripts' own numbers. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "ps_nvml.h"

static const char *tmpdir;

/* Write `script` to a file, point the stand-in at it, run fn in a child; returns the child's check_failures. */
static int scenario(const char *name, const char *script, void (*fn)(void))
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.nvml", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(script, f) < 0 || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("PS_NVML_STANDIN", path, 1);
        fn();
        _exit(check_failures ? 1 : 0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "scenario %s failed\n", name);
        return 1;
    }
    return 0;
}

static struct ps_nvml *open_ok(void)
{
    struct ps_nvml *n = NULL;
    char why[256] = "";
    int rc = ps_nvml_open(&n, why, sizeof why);
    CHECK(rc == PS_NVML_OK, "ps_nvml_open = %d (%s)", rc, why);
    return n;
}

static void every_field(void)
{
    struct ps_nvml *n = open_ok();
    if (!n)
        return;
    CHECK_EQ("count", ps_nvml_count(n), 2);
    struct ps_gpu_sample s;
    CHECK_EQ("sample gpu0", ps_nvml_sample(n, 0, &s), 0);
    CHECK_STR("name", s.name, "NVIDIA H200");
    unsigned all = PS_GPU_UTIL_SM | PS_GPU_UTIL_MEM | PS_GPU_MEM | PS_GPU_TEMP | PS_GPU_POWER | PS_GPU_POWER_LIMIT |
                   PS_GPU_CLOCK_SM | PS_GPU_CLOCK_MEM | PS_GPU_PCIE_RX | PS_GPU_PCIE_TX | PS_GPU_THROTTLE |
                   PS_GPU_PROCS | PS_GPU_MIG | PS_GPU_UUID | PS_GPU_PCI | PS_GPU_PROC_UTIL;
    CHECK_EQ("valid", s.valid, all);
    CHECK_EQ("util sm", s.util_sm_pct, 87);
    CHECK_EQ("util mem", s.util_mem_pct, 41);
    CHECK_EQ("mem used", s.mem_used_bytes, 17179869184ull);
    CHECK_EQ("mem total", s.mem_total_bytes, 150754820096ull);
    CHECK_EQ("temp", s.temp_c, 61);
    CHECK_EQ("power", s.power_mw, 412345);
    CHECK_EQ("power limit", s.power_limit_mw, 700000);
    CHECK_EQ("clock sm", s.clock_sm_mhz, 1980);
    CHECK_EQ("clock mem", s.clock_mem_mhz, 3201);
    CHECK_EQ("pcie rx", s.pcie_rx_kbps, 123456);
    CHECK_EQ("pcie tx", s.pcie_tx_kbps, 7890);
    CHECK_EQ("throttle", s.throttle, 0x44);
    CHECK_EQ("mig", s.mig_enabled, 0);
    CHECK_EQ("nprocs", s.nprocs, 2);
    CHECK_EQ("proc0 pid", s.procs[0].pid, 4242);
    CHECK_EQ("proc0 bytes", s.procs[0].used_bytes, 1073741824);
    CHECK_EQ("proc1 pid", s.procs[1].pid, 4243);
    CHECK_EQ("proc1 bytes (NVML_VALUE_NOT_AVAILABLE)", s.procs[1].used_bytes, -1);
    /* the stand-in writes entries 24 bytes apart: the second entry is right only when read at that stride */
    CHECK_STR("uuid", s.uuid, "GPU-5a000000-0000-0000-0000-000000000077");
    CHECK_STR("pci bus id", s.pci_bus_id, "00000000:19:00.0");
    CHECK_EQ("proc0 not on a MIG instance", s.procs[0].gpu_instance_id, PS_GPU_NO_INSTANCE);
    /* 4242's newest sample (time 1000) is 87 % SM, not the older 60 %; 4243 had no sample: it used nothing */
    CHECK_EQ("proc0 sm", s.procs[0].sm_util_pct, 87);
    CHECK_EQ("proc0 mem", s.procs[0].mem_util_pct, 30);
    CHECK_EQ("proc1 sm", s.procs[1].sm_util_pct, 0);
    CHECK_EQ("nmig without MIG", s.nmig, 0);
    /* gpu1: a MIG-enabled device: utilisation and power unsupported, temperature failing */
    CHECK_EQ("sample gpu1", ps_nvml_sample(n, 1, &s), 0);
    CHECK(!(s.valid & (PS_GPU_UTIL_SM | PS_GPU_UTIL_MEM)), "MIG utilisation must be N/A (valid %#x)", s.valid);
    CHECK(!(s.valid & PS_GPU_POWER), "unsupported power must be N/A");
    CHECK(!(s.valid & PS_GPU_TEMP), "failing temperature must be N/A");
    CHECK(s.valid & PS_GPU_MIG, "MIG mode read");
    CHECK_EQ("mig", s.mig_enabled, 1);
    CHECK(s.valid & PS_GPU_MEM, "memory read");
    CHECK_EQ("mem used", s.mem_used_bytes, 1000);
    CHECK(!(s.valid & PS_GPU_PROC_UTIL), "per-process utilisation unsupported under MIG: N/A");
    /* its MIG devices: slots 0 and 2 hold one, slot 1 none */
    CHECK_EQ("nmig", s.nmig, 2);
    CHECK_STR("mig0 uuid", s.mig[0].uuid, "MIG-e1000000-0000-0000-0000-000000000001");
    CHECK_EQ("mig0 gi", s.mig[0].gpu_instance_id, 1);
    CHECK_EQ("mig0 ci", s.mig[0].compute_instance_id, 0);
    CHECK(s.mig[0].mem_valid, "mig0 memory");
    CHECK_EQ("mig0 mem total", s.mig[0].mem_total_bytes, 20000);
    CHECK_STR("mig1 uuid", s.mig[1].uuid, "MIG-e2000000-0000-0000-0000-000000000002");
    CHECK_EQ("mig1 gi", s.mig[1].gpu_instance_id, 2);
    CHECK(!s.mig[1].mem_valid, "mig1 memory unsupported");
    CHECK_EQ("nprocs", s.nprocs, 1);
    CHECK_EQ("proc on MIG gi", s.procs[0].gpu_instance_id, 2);
    CHECK_EQ("proc on MIG ci", s.procs[0].compute_instance_id, 0);
    CHECK_EQ("sample gpu2", ps_nvml_sample(n, 2, &s), -EINVAL);
    ps_nvml_close(n);
}

static const char every_field_script[] =
    "init=ok\ncount=2\n"
    "gpu0.name=NVIDIA H200\ngpu0.util=87,41\ngpu0.mem=17179869184,150754820096\ngpu0.temp=61\n"
    "gpu0.power=412345\ngpu0.power_limit=700000\ngpu0.clock_sm=1980\ngpu0.clock_mem=3201\n"
    "gpu0.pcie_rx=123456\ngpu0.pcie_tx=7890\ngpu0.throttle=0x44\ngpu0.mig=0\ngpu0.procs=4242:1073741824,4243:na\n"
    "gpu0.uuid=GPU-5a000000-0000-0000-0000-000000000077\ngpu0.pci=00000000:19:00.0\n"
    "gpu0.proc_util=4242:60:20:900,4242:87:30:1000,9999:50:5:1000\n"
    "gpu1.name=NVIDIA A100 MIG\ngpu1.util=unsupported\ngpu1.mem=1000,40000\ngpu1.temp=error\n"
    "gpu1.power=unsupported\ngpu1.mig=1\ngpu1.procs=777:500:2:0\ngpu1.proc_util=unsupported\ngpu1.mig_count=7\n"
    "gpu1.mig0.uuid=MIG-e1000000-0000-0000-0000-000000000001\ngpu1.mig0.gi=1\ngpu1.mig0.ci=0\n"
    "gpu1.mig0.mem=500,20000\ngpu1.mig2.uuid=MIG-e2000000-0000-0000-0000-000000000002\ngpu1.mig2.gi=2\n"
    "gpu1.mig2.ci=0\n";

static void wide_proc_entries(void)
{
    struct ps_nvml *n = open_ok();
    if (!n)
        return;
    struct ps_gpu_sample s;
    ps_nvml_sample(n, 0, &s);
    /* the stand-in writes entries 32 bytes apart: the second entry is right only when read at that stride */
    CHECK_EQ("nprocs", s.nprocs, 3);
    CHECK_EQ("proc1 pid", s.procs[1].pid, 22);
    CHECK_EQ("proc1 bytes", s.procs[1].used_bytes, 2000);
    CHECK_EQ("proc2 pid", s.procs[2].pid, 33);
    CHECK_EQ("proc2 bytes", s.procs[2].used_bytes, 3000);
    ps_nvml_close(n);
}

static void sequence_and_errors(void)
{
    struct ps_nvml *n = open_ok();
    if (!n)
        return;
    struct ps_gpu_sample s;
    ps_nvml_sample(n, 0, &s);
    CHECK_EQ("util call 1", s.util_sm_pct, 10);
    ps_nvml_sample(n, 0, &s);
    CHECK_EQ("util call 2", s.util_sm_pct, 20);
    ps_nvml_sample(n, 0, &s);
    CHECK(!(s.valid & PS_GPU_UTIL_SM), "util call 3 fails: N/A");
    CHECK(!(s.valid & (PS_GPU_POWER | PS_GPU_CLOCK_SM | PS_GPU_PROCS)), "fields the script lacks are N/A");
    CHECK_EQ("lost gpu", ps_nvml_sample(n, 1, &s), -ENODEV);
    CHECK_EQ("lost gpu valid", s.valid, 0);
    ps_nvml_close(n);
}

/* The second sample asks only for utilisation samples newer than the newest of the first (lastSeenTimeStamp):
 * the stand-in's second answer repeats the old sample (time 1000), which must not count again. */
static void proc_util_since_last(void)
{
    struct ps_nvml *n = open_ok();
    if (!n)
        return;
    struct ps_gpu_sample s;
    ps_nvml_sample(n, 0, &s);
    CHECK(s.valid & PS_GPU_PROC_UTIL, "per-process utilisation read");
    CHECK_EQ("first sm", s.procs[0].sm_util_pct, 40);
    ps_nvml_sample(n, 0, &s);
    CHECK(s.valid & PS_GPU_PROC_UTIL, "no new sample (NVML_ERROR_NOT_FOUND) is 0 %%, not N/A");
    CHECK_EQ("second sm", s.procs[0].sm_util_pct, 0);
    ps_nvml_sample(n, 0, &s);
    CHECK_EQ("third sm", s.procs[0].sm_util_pct, 75);
    ps_nvml_close(n);
}

static void old_driver(void)
{
    struct ps_nvml *n = open_ok();
    if (!n)
        return;
    struct ps_gpu_sample s;
    ps_nvml_sample(n, 0, &s);
    CHECK(s.valid & PS_GPU_MEM, "memory through nvmlDeviceGetMemoryInfo (v1)");
    CHECK_EQ("mem used", s.mem_used_bytes, 5000);
    CHECK_EQ("mem total", s.mem_total_bytes, 8000);
    CHECK(s.valid & PS_GPU_THROTTLE, "throttle through the old name");
    CHECK_EQ("throttle", s.throttle, 4);
    /* the stand-in writes entries 16 bytes apart: the second entry is right only when read at that stride */
    CHECK_EQ("nprocs", s.nprocs, 2);
    CHECK_EQ("proc1 pid", s.procs[1].pid, 8);
    CHECK_EQ("proc1 bytes", s.procs[1].used_bytes, 900);
    CHECK_EQ("v1 entries carry no MIG ids", s.procs[1].gpu_instance_id, PS_GPU_NO_INSTANCE);
    CHECK(!(s.valid & (PS_GPU_PCI | PS_GPU_PROC_UTIL)), "no PCI info or process utilisation entry points");
    ps_nvml_close(n);
}

static void init_fails(void)
{
    struct ps_nvml *n = NULL;
    char why[256] = "";
    CHECK_EQ("open", ps_nvml_open(&n, why, sizeof why), PS_NVML_INIT_FAILED);
    CHECK(n == NULL, "no handle");
    CHECK(strstr(why, "Driver/library version mismatch") && strstr(why, "reboot"), "why: %s", why);
}

static void no_library(void)
{
    struct ps_nvml *n = NULL;
    char why[256] = "";
    CHECK_EQ("open", ps_nvml_open(&n, why, sizeof why), PS_NVML_NO_LIBRARY);
    CHECK(strstr(why, "libnvidia-ml.so.1"), "why: %s", why);
}

static void pure_functions(void)
{
    char buf[128];
    CHECK_STR("throttle 0", ps_nvml_throttle_text(0, buf, sizeof buf), "none");
    CHECK_STR("throttle 0x44", ps_nvml_throttle_text(0x44, buf, sizeof buf), "sw-power-cap,hw-thermal");
    CHECK_STR("throttle unknown bit", ps_nvml_throttle_text(0x1001, buf, sizeof buf), "gpu-idle,other(0x1000)");
    unsigned char b[96];
    memset(b, 0xAA, sizeof b);
    memset(b, 0, 48);               /* two 24-byte entries */
    CHECK_EQ("stride 24", ps_nvml_detect_stride(b, sizeof b, 2), 24);
    b[60] = 0;                      /* the driver wrote into the second half of entry 2's 32-byte slot */
    CHECK_EQ("stride 32", ps_nvml_detect_stride(b, sizeof b, 2), 32);
}

int main(int argc, char **argv)
{
    tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *mode = argc > 1 ? argv[1] : "standin";
    int failed = 0;
    pure_functions();
    if (!strcmp(mode, "none")) {
        void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW);
        if (real) {
            printf("SKIP: a real libnvidia-ml.so.1 is installed (the no-NVML case cannot be tested here)\n");
            return 77;
        }
        failed += scenario("none", "", no_library);
    } else if (!strcmp(mode, "old")) {
        failed += scenario("old", "count=1\ngpu0.mem=5000,8000\ngpu0.throttle=4\ngpu0.procs=7:100,8:900\n", old_driver);
    } else {
        failed += scenario("every_field", every_field_script, every_field);
        failed += scenario("wide", "count=1\ngpu0.procs=11:1000,22:2000,33:3000\ngpu0.proc_stride=32\n",
                           wide_proc_entries);
        failed += scenario("sequence", "count=2\ngpu0.util=10,1;20,2;error\ngpu1.handle=error\n",
                           sequence_and_errors);
        failed += scenario("mismatch", "init=mismatch\n", init_fails);
        failed += scenario("since_last", "count=1\ngpu0.procs=5:100\n"
                           "gpu0.proc_util=5:40:1:1000;5:40:1:1000;5:40:1:1000;5:40:1:1000,5:75:2:3000\n", proc_util_since_last);
    }
    return failed || check_failures;
}
