/* Golden counts on the shared real traces (../shared/traces). Every expected number was obtained with an
 * independent tool, written beside it: plain SQL through the sqlite3 CLI for the Nsight Systems export,
 * python3's json + gzip (Decimal for exact ns) for the Kineto files. Exit 77 (skip) without the folder. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "read/reader.h"

struct sums {
    long long n[4];                 /* per enum ps_gpu_kind */
    long long kernels_dev[2], kernel_ns_dev[2];
    long long kernel_ns, copy_bytes_kind[11], copy_n_kind[11], memset_bytes;
    long long api, api_driver, ranges[7], linked_kernels;
    int64_t first_kernel_ns;
};

static void sum_model(const struct ps_model *m, struct sums *s)
{
    memset(s, 0, sizeof *s);
    s->first_kernel_ns = INT64_MAX;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        int dev = m->streams.v[op->stream].device;
        s->n[op->kind]++;
        if (op->kind == PS_GPU_KERNEL) {
            s->kernel_ns += op->end_ns - op->start_ns;
            if (dev >= 0 && dev < 2) {
                s->kernels_dev[dev]++;
                s->kernel_ns_dev[dev] += op->end_ns - op->start_ns;
            }
            if (op->start_ns < s->first_kernel_ns)
                s->first_kernel_ns = op->start_ns;
            s->linked_kernels += op->launch != PS_NONE;
        } else if (op->kind == PS_GPU_MEMCPY) {
            s->copy_bytes_kind[op->copy_kind] += (long long)op->bytes;
            s->copy_n_kind[op->copy_kind]++;
        } else if (op->kind == PS_GPU_MEMSET) {
            s->memset_bytes += (long long)op->bytes;
        }
    }
    for (size_t i = 0; i < m->api.n; i++) {
        s->api++;
        s->api_driver += m->api.v[i].driver;
    }
    for (size_t i = 0; i < m->ranges.n; i++)
        s->ranges[m->ranges.v[i].kind]++;
}

static struct ps_model *load(const char *dir, const char *name)
{
    char path[4096], err[512];
    struct ps_model *m = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (ps_read_trace(path, &m, err, sizeof err) < 0) {
        fprintf(stderr, "cannot read %s: %s\n", path, err);
        check_failures++;
        return NULL;
    }
    return m;
}

static void nsys_h100(const char *dir)
{
    struct sums s;
    struct ps_model *m = load(dir, "nsys/h100_2gpu_1s.sqlite");
    if (!m)
        return;
    sum_model(m, &s);
    CHECK_EQ(m->format, PS_FORMAT_NSYS);
    /* sqlite3 h100_2gpu_1s.sqlite 'SELECT deviceId, count(*), sum("end"-start) FROM CUPTI_ACTIVITY_KIND_KERNEL
     *   GROUP BY deviceId'  ->  0|1721|22385163, 1|1721|22444359 */
    CHECK_EQ(s.n[PS_GPU_KERNEL], 3442);
    CHECK_EQ(s.kernels_dev[0], 1721);
    CHECK_EQ(s.kernel_ns_dev[0], 22385163);
    CHECK_EQ(s.kernels_dev[1], 1721);
    CHECK_EQ(s.kernel_ns_dev[1], 22444359);
    /* 'SELECT copyKind, count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind'
     *   -> 1|450|50950507584, 2|4|18, 8|450|59368472576 */
    CHECK_EQ(s.n[PS_GPU_MEMCPY], 904);
    CHECK_EQ(s.copy_n_kind[PS_COPY_HTOD], 450);
    CHECK_EQ(s.copy_bytes_kind[PS_COPY_HTOD], 50950507584LL);
    CHECK_EQ(s.copy_n_kind[PS_COPY_DTOH], 4);
    CHECK_EQ(s.copy_bytes_kind[PS_COPY_DTOH], 18);
    CHECK_EQ(s.copy_n_kind[PS_COPY_DTOD], 450);
    CHECK_EQ(s.copy_bytes_kind[PS_COPY_DTOD], 59368472576LL);
    /* 'SELECT count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMSET' -> 22|17672;
     * 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION' -> 244 */
    CHECK_EQ(s.n[PS_GPU_MEMSET], 22);
    CHECK_EQ(s.memset_bytes, 17672);
    CHECK_EQ(s.n[PS_GPU_SYNC], 244);
    /* 'SELECT count(*), count(DISTINCT globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME' -> 5796|2 (all eventClass 0) */
    CHECK_EQ(s.api, 5796);
    CHECK_EQ(s.api_driver, 0);
    /* 'SELECT count(*), count(DISTINCT globalTid), min(start), max("end") FROM NVTX_EVENTS WHERE eventType=59'
     *   -> 16782|2|155357596302|156326928226 (every row is a push/pop range) */
    CHECK_EQ(s.ranges[PS_RANGE_NVTX_PUSHPOP], 16782);
    CHECK_EQ(m->ranges.n, 16782);
    CHECK_EQ(m->threads.n, 2);
    if (m->ranges.n) {
        CHECK_EQ(m->ranges.v[0].start_ns, 155357596302LL);
        int64_t max_end = 0;
        for (size_t i = 0; i < m->ranges.n; i++)
            max_end = m->ranges.v[i].end_ns > max_end ? m->ranges.v[i].end_ns : max_end;
        CHECK_EQ(max_end, 156326928226LL);
    }
    /* Kernel -> API link on correlation id AND process:
     * 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
     *   ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)' -> 1632 */
    CHECK_EQ(s.linked_kernels, 1632);
    /* No TARGET_INFO_GPU: devices from deviceId (2 GPUs); 'SELECT count(DISTINCT globalPid), count(DISTINCT
     * deviceId||'/'||streamId||'/'||globalPid)' over the four GPU tables -> 2|7 */
    CHECK_EQ(m->devices.n, 2);
    CHECK_EQ(m->streams.n, 7);
    CHECK_EQ(m->unplaced_events, 0);
    ps_model_free(m);
}

struct kineto_expect {
    const char *file;
    long long kernels, memcpy, memset, api, driver, cpu_op, user_ann, gpu_ann, python, unplaced;
    long long kernel_ns, memcpy_bytes;
    int64_t first_kernel_ns;
    int rank, world_size, devices;
};

/* Expected values: in ../shared/traces/kineto, this command (run once; its output is copied below):
 *   python3 -c '
 *   import json,gzip,sys,collections as C;from decimal import Decimal as D,ROUND_HALF_EVEN as H
 *   for f in sys.argv[1:]:
 *    d=json.load(gzip.open(f),parse_float=D);b=d.get("baseTimeNanoseconds",0);ns=lambda v:int((D(v)*1000).quantize(D(1),rounding=H));X=[e for e in d["traceEvents"] if e.get("ph")=="X"];k=[e for e in X if e["cat"] in("kernel","Kernel")];print(f,dict(C.Counter(e["cat"] for e in X)),sum(ns(e["dur"]) for e in k),min(b+ns(e["ts"]) for e in k),sum(e["args"]["bytes"] for e in X if e["cat"] in("gpu_memcpy","Memcpy")),len(d.get("deviceProperties",[])),d.get("distributedInfo",{}).get("rank"),d.get("distributedInfo",{}).get("world_size"))
 *   ' *.gz
 * printing per file: X events by cat; kernel time (ns, exact via Decimal); first kernel start (ns, absolute);
 * memcpy bytes; number of deviceProperties; rank; world size. For example:
 *   resnet50_workers0.pt.trace.json.gz {'Operator': 23646, 'Memcpy': 12, 'Runtime': 11923, 'Kernel': 8772,
 *     'Memset': 312, 'Trace': 1} 591532000 1623142623531625000 115607040 4 None None
 *   h100_owlv2_inference.pt.trace.json.gz {'user_annotation': 7, 'cpu_op': 24378, 'python_function': 65313,
 *     'cuda_runtime': 8567, 'gpu_memset': 750, 'kernel': 4330, 'overhead': 2, 'cuda_driver': 725, 'gpu_memcpy': 85,
 *     'gpu_user_annotation': 1, 'Trace': 1} 551451628 1752829952234460955 177315930 1 None None
 * "overhead" (2 events in the OWLv2 trace: CUPTI's overhead samples) is ignored by design, counted in the
 * metadata entry "ignored_events", not unplaced; "Trace" is the profiler's own span, ignored.
 * API calls = cuda_runtime + cuda_driver (pre-2.0: Runtime). */
static const struct kineto_expect kineto[] = {
    { "kineto/resnet50_workers0.pt.trace.json.gz", 8772, 12, 312, 11923, 0, 23646, 0, 0, 0, 0,
      591532000, 115607040, 1623142623531625000LL, -1, -1, 4 },
    { "kineto/resnet50_workers4.pt.trace.json.gz", 8868, 12, 378, 12085, 0, 20562, 0, 0, 0, 0,
      594868000, 115607040, 1623212388476227000LL, -1, -1, 4 },
    { "kineto/ddp_resnet_ns_resolution.pt.trace.json.gz", 4350, 1600, 145, 15329, 0, 23910, 70, 15, 0, 0,
      468153602, 512205160, 1712195495505582988LL, 0, 1, 8 },
    { "kineto/nccl_2rank.pt.trace.json.gz", 2700, 960, 114, 8740, 0, 14346, 42, 30, 0, 0,
      162532340, 307323096, 1716423322422880181LL, 0, 2, 8 },
    { "kineto/h100_owlv2_inference.pt.trace.json.gz", 4330, 85, 750, 8567 + 725, 725, 24378, 7, 1, 65313, 0,
      551451628, 177315930, 1752829952234460955LL, -1, -1, 1 },
    /* ROCm: "bytes": "1" on its one gpu_memcpy and on hipMemcpyWithStream (string args); HIP calls
     * are cuda_runtime; deviceProperties lists device 0, its events run on device 2: 2 devices. The command above
     * prints: {'user_annotation': 1, 'cpu_op': 4619, 'python_function': 4266, 'cuda_runtime': 1707, 'kernel': 1516,
     * 'gpu_memcpy': 1, 'gpu_user_annotation': 1, 'Trace': 1} 43062042 1753652182127176383 1 1 None None
     * (with int() around "bytes"). */
    { "kineto/mi300_qwen_inference.pt.trace.json.gz", 1516, 1, 0, 1707, 0, 4619, 1, 1, 4266, 0,
      43062042, 1, 1753652182127176383LL, -1, -1, 2 },
};

static void kineto_file(const char *dir, const struct kineto_expect *e)
{
    struct sums s;
    struct ps_model *m = load(dir, e->file);
    if (!m)
        return;
    fprintf(stderr, "checking %s\n", e->file);
    sum_model(m, &s);
    CHECK_EQ(m->format, PS_FORMAT_KINETO);
    CHECK_EQ(m->correlation_global, 1);
    CHECK_EQ(s.n[PS_GPU_KERNEL], e->kernels);
    CHECK_EQ(s.n[PS_GPU_MEMCPY], e->memcpy);
    CHECK_EQ(s.n[PS_GPU_MEMSET], e->memset);
    CHECK_EQ(s.api, e->api);
    CHECK_EQ(s.api_driver, e->driver);
    CHECK_EQ(s.ranges[PS_RANGE_CPU_OP], e->cpu_op);
    CHECK_EQ(s.ranges[PS_RANGE_USER_ANNOTATION], e->user_ann);
    CHECK_EQ(s.ranges[PS_RANGE_GPU_ANNOTATION], e->gpu_ann);
    CHECK_EQ(s.ranges[PS_RANGE_PYTHON], e->python);
    CHECK_EQ(m->unplaced_events, e->unplaced);
    if (strstr(e->file, "owlv2")) {   /* its 2 "overhead" events, counted apart */
        const char *ignored = "";
        for (size_t i = 0; i < m->meta.n; i++)
            if (strcmp(m->meta.v[i].key, "ignored_events") == 0)
                ignored = m->meta.v[i].value;
        CHECK_STR(ignored, "overhead: 2");
    }
    CHECK_EQ(s.kernel_ns, e->kernel_ns);
    long long bytes = 0;
    for (int k = 0; k < 11; k++)
        bytes += s.copy_bytes_kind[k];
    CHECK_EQ(bytes, e->memcpy_bytes);
    CHECK_EQ(s.first_kernel_ns, e->first_kernel_ns);
    CHECK_EQ(m->rank, e->rank);
    CHECK_EQ(m->world_size, e->world_size);
    CHECK_EQ(m->devices.n, e->devices);
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    struct stat st;
    if (argc < 2 || stat(argv[1], &st) != 0) {
        return check_shared_missing(argc > 1 ? argv[1] : "(no shared folder given)");
    }
    nsys_h100(argv[1]);
    for (size_t i = 0; i < sizeof kineto / sizeof kineto[0]; i++)
        kineto_file(argv[1], &kineto[i]);
    return check_failures ? 1 : 0;
}
