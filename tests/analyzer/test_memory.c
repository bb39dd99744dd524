/* The report's memory view (analyses/memory.c, docs/memory.md).
 *  - plugin_*: the PyTorch profiler TensorBoard plugin's memory view figures on the shared traces, as
 *    ../shared/traces/README.md publishes them (peak to the byte, its time, max reserved, curve points, pairs),
 *    and on h100_bert the plugin's per-operator rows (its definitions, memory_parser.py get_memory_statistics,
 *    worked through by hand for the first rows); skipped when the traces are absent.
 *  - generated_*: a trace written here with a known leak, a known fragmentation event and a known peak above 90 %
 *    of capacity; every expected figure is worked out beside the generator.
 * `test_memory CASE SHARED_DIR`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "analyses/diff.h"
#include "analyses/memory.h"
#include "analyses/report.h"
#include "analyses/ranks.h"
#include "cases.h"
#include "check.h"
#include "model/model.h"
#include "read/reader.h"

static struct ps_model *model;
static struct ps_report rep;

static int load_path(const char *path)
{
    char err[512];
    if (ps_read_trace(path, &model, err, sizeof err) < 0) {
        fprintf(stderr, "reading failed: %s\n", err);
        return 1;
    }
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    if (ps_ranks_report_compute(&rep, model, &o, err, sizeof err) < 0) {
        fprintf(stderr, "analysis failed: %s\n", err);
        return 1;
    }
    return 0;
}

static int load_shared(const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/kineto/%s", dir, file);
    if (access(path, R_OK) != 0)
        return check_shared_missing(path);
    return load_path(path);
}

static const struct ps_mem_device *device(const char *label)
{
    if (!rep.mem) {
        fprintf(stderr, "no memory view\n");
        exit(1);
    }
    for (size_t i = 0; i < rep.mem->ndevs; i++)
        if (!strcmp(rep.mem->devs[i].label, label))
            return &rep.mem->devs[i];
    fprintf(stderr, "no device %s in the memory view\n", label);
    exit(1);
}

static const struct ps_mem_op *op_row(const char *label, const char *name)
{
    for (size_t i = 0; i < rep.mem->nops; i++) {
        const struct ps_mem_op *o = &rep.mem->ops[i];
        if (!strcmp(rep.mem->devs[o->device].label, label) && !strcmp(ps_report_name(&rep, o->name), name))
            return o;
    }
    fprintf(stderr, "no op row %s on %s\n", name, label);
    check_failures++;
    return NULL;
}

/* calls, size increase, self size increase, allocation count, self allocation count, allocation size, self
 * allocation size: the plugin's columns, in bytes. */
static void check_op(const char *label, const char *name, const int64_t want[7])
{
    const struct ps_mem_op *o = op_row(label, name);
    if (!o)
        return;
    int64_t got[7] = { o->calls, o->increase, o->self_increase, o->alloc_count, o->self_alloc_count,
                       o->alloc_bytes, o->self_alloc_bytes };
    for (int k = 0; k < 7; k++)
        if (got[k] != want[k]) {
            fprintf(stderr, "%s %s column %d: %lld, expected %lld\n", label, name, k, (long long)got[k],
                    (long long)want[k]);
            check_failures++;
        }
}

struct plugin_figures {
    const char *file, *device;
    int64_t peak, peak_ns, reserved, capacity;
    size_t points, pairs;
};

static int plugin_case(const char *dir, const struct plugin_figures *f)
{
    int rc = load_shared(dir, f->file);
    if (rc)
        return rc;
    const struct ps_mem_device *d = device(f->device);
    CHECK_EQ("peak allocated (B)", d->peak_allocated_bytes, f->peak);
    /* README: "at 4.776 ms from the first event" (ms, 3 decimals) */
    CHECK_EQ("peak time (µs from the plugin's origin)", (d->peak_allocated_ns + 500) / 1000, f->peak_ns / 1000);
    CHECK_EQ("max reserved (B)", d->peak_reserved_bytes, f->reserved);
    CHECK_EQ("curve points", (int64_t)d->npoints, (int64_t)f->points);
    CHECK_EQ("step-plot points (2n - 1)", 2 * (int64_t)d->npoints - 1, 2 * (int64_t)f->points - 1);
    CHECK_EQ("allocation/free pairs", (int64_t)d->pairs, (int64_t)f->pairs);
    CHECK_EQ("never freed", (int64_t)d->never_freed, 0);
    CHECK_EQ("unpaired frees", (int64_t)d->unpaired_frees, 0);
    CHECK_EQ("capacity (totalGlobalMem)", d->capacity_bytes, f->capacity);
    CHECK_EQ("headroom", d->headroom_bytes, f->capacity - f->peak);
    CHECK_EQ("source kineto", d->source, PS_MEMSRC_KINETO);
    CHECK_EQ("not a running sum", d->running_sum, 0);
    for (size_t i = 0; i < rep.mem->nfindings; i++)   /* 0.1 % of capacity: no OOM risk */
        CHECK(strcmp(rep.mem->findings[i].rule, "oom_risk") != 0);
    return 0;
}

static int case_plugin_h100_bert(const char *dir)
{
    /* ../shared/traces/README.md: 101,305,344 B at 4.776 ms; max reserved 121,634,816 B; 218 points (435 as a
     * step plot); 109 pairs, none unpaired; capacity 81,079.8 MB (85,018,279,936 B). */
    struct plugin_figures f = { "h100_bert_small_inference.pt.trace.json.gz", "GPU0", 101305344, 4776000,
                                121634816, 85018279936ll, 218, 109 };
    int rc = plugin_case(dir, &f);
    if (rc)
        return rc;
    const struct ps_mem_device *d = device("GPU0");
    CHECK_STR("peak op", ps_report_name(&rep, d->peak_op), "aten::empty");
    CHECK_STR("its parent (label aten::addmm (aten::empty))", ps_report_name(&rep, d->peak_op_parent), "aten::addmm");
    CHECK_STR("peak step", ps_report_name(&rep, d->peak_step), "ProfilerStep#6");
    /* The plugin's table, GPU0, in KB as it shows them x 1024: aten::empty 75 calls, 28072.0 KB in every size
     * column, 60 allocations; aten::gelu 5, 2397.0 KB; aten::add 9, 1269.0 KB; flash attention: 582.0 KB with
     * children only (8 allocations, none of its own); aten::embedding 3 calls, 423.0 KB with children. */
    check_op("GPU0", "aten::empty", (int64_t[7]){ 75, 28072 * 1024, 28072 * 1024, 60, 60, 28072 * 1024, 28072 * 1024 });
    check_op("GPU0", "aten::gelu", (int64_t[7]){ 5, 2397 * 1024, 2397 * 1024, 5, 5, 2397 * 1024, 2397 * 1024 });
    check_op("GPU0", "aten::add", (int64_t[7]){ 9, 1269 * 1024, 1269 * 1024, 9, 9, 1269 * 1024, 1269 * 1024 });
    check_op("GPU0", "aten::_flash_attention_forward", (int64_t[7]){ 4, 582 * 1024, 0, 8, 0, 582 * 1024, 0 });
    check_op("GPU0", "aten::embedding", (int64_t[7]){ 3, 423 * 1024, 0, 3, 0, 423 * 1024, 0 });
    /* the plugin's default order: self size increase descending */
    CHECK_STR("first row", ps_report_name(&rep, rep.mem->ops[0].name), "aten::empty");
    return 0;
}

static int case_plugin_h100_falconsai(const char *dir)
{
    /* README: 231,332,864 B at 1.870 ms; max reserved 245,366,784 B; 572 points (1,143 step plot); 286 pairs */
    struct plugin_figures f = { "h100_falconsai_inference.pt.trace.json.gz", "GPU0", 231332864, 1870000,
                                245366784, 85018279936ll, 572, 286 };
    return plugin_case(dir, &f);
}

static int case_plugin_mi300_bert(const char *dir)
{
    /* README: device 0 (Device Type 6, HIP): 146,394,112 B at 4.258 ms; max reserved 224,395,264 B; 234 points.
     * Pairs: every allocation of the 234 GPU records is freed (117); MI300X capacity 205,571,227,648 B. */
    struct plugin_figures f = { "mi300_bert_small_inference.pt.trace.json.gz", "GPU0", 146394112, 4258000,
                                224395264, 205571227648ll, 234, 117 };
    int rc = plugin_case(dir, &f);
    if (rc == 0)
        CHECK_EQ("HIP device type kept", device("GPU0")->device_type, 6);
    return rc;
}

/* ---- the generated trace ----
 * Capacity C = 16 GiB; before the trace the program holds W = 4 GiB allocated and R0 = 8 GiB reserved. Four steps
 * ProfilerStep#1..#4 on thread 1, step s (0..3) from S = T0 + 100 + 10000 s µs (T0 = 1 000 000 µs, the profiler's
 * own span, the plugin's origin), 9000 µs long. In each step:
 *   aten::empty [S+1000, S+1020) allocates A = 2 GiB at S+1010 (one address, reused every step)
 *   aten::mm    [S+2000, S+2030) allocates T = 1 GiB at S+2010;  aten::relu [S+3000, S+3020) frees it at S+3010
 *   aten::cat   [S+4000, S+4020) allocates L = 64 MiB at S+4010, never freed: the leak
 *   step 2 only: aten::add [S+5000, S+5020) allocates F = 1.5 GiB at S+5010 (freed at S+5510, outside any op);
 *                reserved grows by F although the cache holds 8 - 4 - 2 - 1/8... = 1.875 GiB free: fragmentation
 *   step 3 only: aten::bmm [S+6000, S+6020) allocates P = 15 GiB - (6 GiB + 3 L) at S+6010 (freed at S+6510)
 *   A freed at S+8010 (outside any op)
 * Reserved follows a caching allocator: served from the cache when reserved - allocated >= size, else it grows by
 * the size; past C the cache is released (reserved = allocated). Step 1 also allocates 16 B on the CPU at S+1015
 * inside aten::empty, freed at S+1018. */
#define GIB (1ll << 30)
#define MIB (1ll << 20)
#define CAP (16 * GIB)
#define W (4 * GIB)
#define R0 (8 * GIB)
#define A_ (2 * GIB)
#define T_ (1 * GIB)
#define L_ (64 * MIB)
#define F_ (3 * GIB / 2)
#define P_ (15 * GIB - (6 * GIB + 3 * L_))

struct gen {
    FILE *f;
    int hip, old;
    long long alloc, reserved, next_addr;
};

static void gen_mem(struct gen *g, long long ts, long long bytes, long long addr, int fragment)
{
    if (bytes > 0) {
        long long cached = g->reserved - g->alloc;
        g->alloc += bytes;
        if (fragment || cached < bytes)
            g->reserved = g->reserved + bytes > CAP ? g->alloc : g->reserved + bytes;
    } else {
        g->alloc += bytes;
    }
    fprintf(g->f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, "
            "\"tid\": 1, \"ts\": %lld, \"args\": {\"Device Type\": %d, \"Device Id\": 0, \"Bytes\": %lld",
            ts, g->hip ? 6 : 1, bytes);
    if (!g->old)
        fprintf(g->f, ", \"Addr\": %lld, \"Total Allocated\": %lld, \"Total Reserved\": %lld", addr, g->alloc,
                g->reserved);
    fprintf(g->f, "}}");
}

static void gen_cpu_mem(struct gen *g, long long ts, long long bytes)
{
    fprintf(g->f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, "
            "\"tid\": 1, \"ts\": %lld, \"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Bytes\": %lld", ts, bytes);
    if (!g->old)
        fprintf(g->f, ", \"Addr\": 20480, \"Total Allocated\": %lld, \"Total Reserved\": 0", bytes > 0 ? 16ll : 0ll);
    fprintf(g->f, "}}");
}

static void gen_op(struct gen *g, const char *name, long long ts, long long dur)
{
    fprintf(g->f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
            "\"dur\": %lld}", name, ts, dur);
}

static long long new_addr(struct gen *g)
{
    return g->next_addr += 0x100000000ll;
}

static void gen_step(struct gen *g, int s, long long addr_a)
{
    long long S = 1000000 + 100 + 10000ll * s;
    fprintf(g->f, ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
            "\"tid\": 1, \"ts\": %lld, \"dur\": 9000}", s + 1, S);
    gen_op(g, "aten::empty", S + 1000, 20);
    gen_mem(g, S + 1010, A_, addr_a, 0);
    if (s == 0) {
        gen_cpu_mem(g, S + 1015, 16);
        gen_cpu_mem(g, S + 1018, -16);
    }
    gen_op(g, "aten::mm", S + 2000, 30);
    long long addr_t = new_addr(g);
    gen_mem(g, S + 2010, T_, addr_t, 0);
    gen_op(g, "aten::relu", S + 3000, 20);
    gen_mem(g, S + 3010, -T_, addr_t, 0);
    gen_op(g, "aten::cat", S + 4000, 20);
    gen_mem(g, S + 4010, L_, new_addr(g), 0);
    if (s == 1) {
        gen_op(g, "aten::add", S + 5000, 20);
        long long addr_f = new_addr(g);
        gen_mem(g, S + 5010, F_, addr_f, 1);
        gen_mem(g, S + 5510, -F_, addr_f, 0);
    }
    if (s == 2) {
        gen_op(g, "aten::bmm", S + 6000, 20);
        long long addr_p = new_addr(g);
        gen_mem(g, S + 6010, P_, addr_p, 0);
        gen_mem(g, S + 6510, -P_, addr_p, 0);
    }
    gen_mem(g, S + 8010, -A_, addr_a, 0);
}

static int generate(const char *path, int hip, int old)
{
    struct gen g = { .f = fopen(path, "w"), .hip = hip, .old = old, .alloc = W, .reserved = R0,
                     .next_addr = 0x7f0000000000ll };
    if (!g.f)
        return -1;
    fprintf(g.f, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Synthetic GPU\", "
            "\"totalGlobalMem\": %lld, \"computeMajor\": 9}],\n\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"Trace\", "
            "\"name\": \"PyTorch Profiler (0)\", \"pid\": 1, \"tid\": 1, \"ts\": 1000000, \"dur\": 50000}", CAP);
    long long addr_a = new_addr(&g);
    for (int s = 0; s < 4; s++)
        gen_step(&g, s, addr_a);
    fprintf(g.f, "\n]}\n");
    return fclose(g.f);
}

static const struct ps_mem_finding *finding(const char *rule)
{
    for (size_t i = 0; i < rep.mem->nfindings; i++)
        if (!strcmp(rep.mem->findings[i].rule, rule))
            return &rep.mem->findings[i];
    return NULL;
}

static int load_generated(int hip, int old)
{
    char path[] = "/tmp/perfscope-memtest-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    int rc = generate(path, hip, old) == 0 ? load_path(path) : 1;
    unlink(path);
    return rc;
}

/* Hand-worked figures of the generated trace (see above). */
static int generated_case(int hip)
{
    if (load_generated(hip, 0))
        return 1;
    const struct ps_mem_device *d = device("GPU0");
    CHECK_EQ("device type", d->device_type, hip ? 6 : 1);
    /* 6 records per step (A, T, -T, L, -A) + F pair in step 2 + P pair in step 3: 4 x 5 + 2 + 2 = 24 */
    CHECK_EQ("points", (int64_t)d->npoints, 24);
    /* peak: W + A + 3 L (three leaks by step 3's bmm) + P = 4 + 2 + 15 - 6 = 15 GiB, at T0 + 20100 + 6010 µs */
    CHECK_EQ("peak", d->peak_allocated_bytes, 15 * GIB);
    CHECK_EQ("peak time", d->peak_allocated_ns, 26110000);
    CHECK_STR("peak op", ps_report_name(&rep, d->peak_op), "aten::bmm");
    CHECK_STR("peak step", ps_report_name(&rep, d->peak_step), "ProfilerStep#3");
    /* reserved passes C at P: the cache is released, reserved = allocated = 15 GiB */
    CHECK_EQ("max reserved", d->peak_reserved_bytes, 15 * GIB);
    CHECK_EQ("capacity", d->capacity_bytes, CAP);
    CHECK_EQ("headroom", d->headroom_bytes, 1 * GIB);
    /* pairs: A x4, T x4, F, P = 10; the four L never freed, all by aten::cat */
    CHECK_EQ("pairs", (int64_t)d->pairs, 10);
    CHECK_EQ("never freed", (int64_t)d->never_freed, 4);
    CHECK_EQ("never freed bytes", d->never_freed_bytes, 4 * L_);
    CHECK_STR("never freed by", ps_report_name(&rep, d->never_freed_op), "aten::cat");
    /* step ends: W + L, W + 2L, W + 3L, W + 4L */
    CHECK_EQ("step ends", (int64_t)d->nstep_ends, 4);
    for (size_t i = 0; i < d->nstep_ends && i < 4; i++)
        CHECK_EQ("allocated at a step's end", d->step_ends[i].allocated, W + (int64_t)(i + 1) * L_);
    /* fragmentation: before F, reserved R0 + A... = the cache held 15/8 GiB free, reserved still grew by F */
    CHECK_EQ("fragmentation events", (int64_t)d->fragmentation_events, 1);
    CHECK_EQ("fragmenting allocation", d->fragmentation_bytes, F_);
    CHECK_EQ("cached before it", d->fragmentation_cached, 15 * GIB / 8);
    CHECK_STR("fragmenting op", ps_report_name(&rep, d->fragmentation_op), "aten::add");
    /* the frees of A and F and P outside any op: 4 + 1 + 1 = 6 records no operator holds */
    CHECK_EQ("unattributed", (int64_t)rep.mem->unattributed, 6);
    check_op("GPU0", "aten::empty", (int64_t[7]){ 4, 4 * A_, 4 * A_, 4, 4, 4 * A_, 4 * A_ });
    check_op("GPU0", "aten::mm", (int64_t[7]){ 4, 4 * T_, 4 * T_, 4, 4, 4 * T_, 4 * T_ });
    check_op("GPU0", "aten::relu", (int64_t[7]){ 4, -4 * T_, -4 * T_, 0, 0, 0, 0 });
    check_op("GPU0", "aten::cat", (int64_t[7]){ 4, 4 * L_, 4 * L_, 4, 4, 4 * L_, 4 * L_ });
    check_op("GPU0", "aten::add", (int64_t[7]){ 1, F_, F_, 1, 1, F_, F_ });
    check_op("GPU0", "aten::bmm", (int64_t[7]){ 1, P_, P_, 1, 1, P_, P_ });
    const struct ps_mem_device *cpu = device("CPU");
    CHECK_EQ("CPU points", (int64_t)cpu->npoints, 2);
    CHECK_EQ("CPU pairs", (int64_t)cpu->pairs, 1);
    CHECK_EQ("CPU peak", cpu->peak_allocated_bytes, 16);
    /* findings: 15/16 = 93.75 % > 90 %; one fragmentation event; +64 MiB at every step's end */
    const struct ps_mem_finding *f = finding("oom_risk");
    CHECK(f != NULL);
    if (f) {
        CHECK_CONTAINS(f->summary, "93.8 %");
        CHECK_CONTAINS(f->summary, "aten::bmm");
        CHECK_CONTAINS(f->summary, "ProfilerStep#3");
    }
    CHECK((f = finding("fragmentation")) != NULL);
    if (f) {
        CHECK_CONTAINS(f->summary, "aten::add");
        CHECK_CONTAINS(f->fix, hip ? "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True"
                                   : "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    }
    CHECK((f = finding("memory_leak")) != NULL);
    if (f) {
        CHECK_EQ("leak growth", f->bytes, 3 * L_);
        CHECK_CONTAINS(f->summary, "+64.0 MiB per step");
        CHECK_CONTAINS(f->fix, "aten::cat allocates 256.0 MiB");
    }
    CHECK(finding("memory_headroom") == NULL);   /* 1 GiB free: no room for a larger batch */
    /* the three warnings join the report's recommendations, after the verdict's fix */
    size_t memory_recs = 0;
    for (size_t i = 0; i < rep.nrecs; i++)
        memory_recs += strncmp(rep.recs[i], "GPU memory: ", 12) == 0;
    CHECK_EQ("memory recommendations", (int64_t)memory_recs, 3);
    return 0;
}

static int case_generated_leak_fragmentation_oom(void)
{
    return generated_case(0);
}

static int case_generated_hip_device_type(void)
{
    return generated_case(1);
}

/* Sizes only (PyTorch before 1.10): no curve; the running sum of sizes peaks at 15 GiB - W (the memory held
 * before the trace is not seen) at the same time, and ends at the four leaks. */
static int case_generated_sizes_only_running_sum(void)
{
    if (load_generated(0, 1))
        return 1;
    const struct ps_mem_device *d = device("GPU0");
    CHECK_EQ("running sum", d->running_sum, 1);
    CHECK_EQ("points", (int64_t)d->npoints, 0);
    CHECK_EQ("running-sum peak", d->peak_allocated_bytes, 15 * GIB - W);
    CHECK_EQ("its time", d->peak_allocated_ns, 26110000);
    CHECK_EQ("final running sum", d->running_sum_final, 4 * L_);
    CHECK_EQ("no reserved", d->peak_reserved_bytes, -1);
    CHECK_EQ("no headroom from a lower bound", d->headroom_bytes, -1);
    CHECK(finding("oom_risk") == NULL);   /* a running sum is no allocated peak */
    return 0;
}

/* diff: the generated trace (peak 15 GiB, reserved 15 GiB) before, its sizes-only variant after (running-sum peak
 * 15 GiB - W = 11 GiB, no reserved): GPU0 -4 GiB, the memory held before the trace that a running sum cannot see. */
/* Operators that start at the same microsecond as their child (aten::linear and the aten::addmm it calls; a
 * three-deep convolution chain), written child first as a profiler may order them: the plugin's tree puts the
 * longer one above (op_tree.py sorts by start, then by end descending), so the record inside belongs to the
 * innermost op by itself and to the others with children. Allocations: 1 MiB inside addmm, 2 MiB inside
 * _convolution. */
static int case_operator_and_child_starting_together(void)
{
    char path[] = "/tmp/perfscope-memtest-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    static const char *const ops[][3] = {   /* name, ts, dur: children first */
        { "aten::addmm", "1100", "50" }, { "aten::linear", "1100", "100" },
        { "aten::_convolution", "1300", "100" }, { "aten::convolution", "1300", "150" }, { "aten::conv2d", "1300", "200" },
    };
    fprintf(f, "{\"schemaVersion\": 1, \"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"user_annotation\", "
            "\"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000}");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %s, \"dur\": %s}", ops[i][0], ops[i][1], ops[i][2]);
    fprintf(f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
            "\"pid\": 1, \"tid\": 1, \"ts\": 1120, \"args\": {\"Device Type\": 1, \"Device Id\": 0, "
            "\"Bytes\": %lld, \"Addr\": 4096, \"Total Allocated\": %lld, \"Total Reserved\": %lld}}",
            MIB, MIB, 4 * MIB);
    fprintf(f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
            "\"pid\": 1, \"tid\": 1, \"ts\": 1310, \"args\": {\"Device Type\": 1, \"Device Id\": 0, "
            "\"Bytes\": %lld, \"Addr\": 8192, \"Total Allocated\": %lld, \"Total Reserved\": %lld}}\n]}\n",
            2 * MIB, 3 * MIB, 4 * MIB);
    int rc = fclose(f) == 0 ? load_path(path) : 1;
    unlink(path);
    if (rc)
        return rc;
    /* calls, increase, self increase, allocations, self allocations, bytes allocated, self bytes allocated */
    check_op("GPU0", "aten::addmm", (int64_t[7]){ 1, MIB, MIB, 1, 1, MIB, MIB });
    check_op("GPU0", "aten::linear", (int64_t[7]){ 1, MIB, 0, 1, 0, MIB, 0 });
    check_op("GPU0", "aten::_convolution", (int64_t[7]){ 1, 2 * MIB, 2 * MIB, 1, 1, 2 * MIB, 2 * MIB });
    check_op("GPU0", "aten::convolution", (int64_t[7]){ 1, 2 * MIB, 0, 1, 0, 2 * MIB, 0 });
    check_op("GPU0", "aten::conv2d", (int64_t[7]){ 1, 2 * MIB, 0, 1, 0, 2 * MIB, 0 });
    CHECK_EQ("unattributed", (int64_t)rep.mem->unattributed, 0);
    return 0;
}

static int case_diff_compares_peaks(void)
{
    if (load_generated(0, 0))
        return 1;
    struct ps_model *before_model = model;
    struct ps_report before = rep;
    if (load_generated(0, 1))
        return 1;
    struct ps_diff d = { 0 };
    CHECK_EQ(ps_diff_memory(&d, &before, &rep), 0);
    const struct ps_diff_memory *gpu = NULL;
    for (size_t i = 0; i < d.nmemory; i++)
        if (!strcmp(d.memory[i].label, "GPU0"))
            gpu = &d.memory[i];
    CHECK(gpu != NULL);
    if (gpu) {
        CHECK_EQ("before", gpu->before_peak, 15 * GIB);
        CHECK_EQ("after", gpu->after_peak, 15 * GIB - W);
        CHECK_EQ("reserved before", gpu->before_reserved, 15 * GIB);
        CHECK_EQ("reserved after (unknown)", gpu->after_reserved, -1);
        CHECK_EQ("capacity", gpu->capacity, CAP);
    }
    CHECK_EQ("devices (GPU0, CPU)", (int64_t)d.nmemory, 2);
    free(d.memory);
    ps_report_fini(&before);
    ps_model_free(before_model);
    return 0;
}

/* An Nsight Systems export with CUDA_GPU_MEMORY_USAGE_EVENTS (nsys profile --cuda-memory-usage=true; the layout of
 * NVIDIA's SQLite schema reference), one kernel at 0 ns so the report's time origin is 0. Rows (start, device, bytes,
 * memKind, operation, address), worked by hand in (start, operation, rowid) order, device-resident kinds only:
 *   device 0: 100 +2 GiB -> 2; 200 +1 GiB -> 3 GiB (the allocation sorts before the release at the same ns: the
 *   peak, at 200 ns); 200 -2 GiB -> 1; 300 pinned host 4 KiB: not the device's; 500 -1 GiB -> 0; 600 +512 B
 *   device static -> 512 B, never freed. 5 points, 2 pairs, 1 never freed (512 B).
 *   device 1: 400 +3 GiB: 1 point, peak 3 GiB, never freed. */
static int case_nsys_memory_usage_table(void)
{
    char path[] = "/tmp/perfscope-memtest-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    sqlite3 *db = NULL;
    char sql[4096];
    int n = snprintf(sql, sizeof sql,
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 1000, 0, 7, 1, %lld, 1);"
        "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL,"
        " bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, name TEXT,"
        " correlationId INTEGER, localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,"
        " localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER,"
        " importedMemoryPoolProcessId INTEGER);", (1ll << 48) | (1ll << 24));
    static const long long rows[][6] = {   /* start, device, bytes, memKind, operation, address */
        { 100, 0, 2 * GIB, 2, 0, 0xA }, { 200, 0, 1 * GIB, 2, 0, 0xB }, { 200, 0, 2 * GIB, 2, 1, 0xA },
        { 300, 0, 4096, 1, 0, 0xC }, { 400, 1, 3 * GIB, 2, 0, 0xD }, { 500, 0, 1 * GIB, 2, 1, 0xB },
        { 600, 0, 512, 5, 0, 0xE } };
    /* inserted with the release at 200 first: the reader's order, not the table's, must put the allocation first */
    static const int insert_order[] = { 0, 2, 1, 3, 4, 5, 6 };
    for (size_t k = 0; k < 7; k++) {
        const long long *r = rows[insert_order[k]];
        n += snprintf(sql + n, sizeof sql - (size_t)n, "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid,"
                      " deviceId, contextId, address, pc, bytes, memKind, memoryOperationType) VALUES (%lld, %lld, "
                      "%lld, 1, %lld, 0, %lld, %lld, %lld);", r[0], (1ll << 48) | (1ll << 24), r[1], r[5], r[2], r[3],
                      r[4]);
    }
    int ok = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    int rc = ok ? load_path(path) : 1;
    unlink(path);
    if (rc)
        return rc;
    const struct ps_mem_device *d = device("GPU0");
    CHECK_EQ("source", d->source, PS_MEMSRC_NSYS);
    CHECK_EQ("points", (int64_t)d->npoints, 5);
    CHECK_EQ("peak", d->peak_allocated_bytes, 3 * GIB);
    CHECK_EQ("peak time", d->peak_allocated_ns, 200);
    CHECK_EQ("pairs", (int64_t)d->pairs, 2);
    CHECK_EQ("never freed", (int64_t)d->never_freed, 1);
    CHECK_EQ("never freed bytes", d->never_freed_bytes, 512);
    CHECK_EQ("no reserved figure", d->peak_reserved_bytes, -1);
    const struct ps_mem_device *d1 = device("GPU1");
    CHECK_EQ("device 1 points", (int64_t)d1->npoints, 1);
    CHECK_EQ("device 1 peak", d1->peak_allocated_bytes, 3 * GIB);
    CHECK_EQ("devices (pinned host memory is no device's)", (int64_t)rep.mem->ndevs, 2);
    return 0;
}

/* perfscope's NVML memory samples (PERFSCOPE_GPU_SAMPLES memUsedBytes, memTotalBytes) of device 0 at 0, 1 and 2 s:
 * 10, 75 and 20 GiB used of 80 GiB: peak 75 GiB at 1 s (the run starts at 0 with its step), 93.75 % of capacity
 * (OOM risk), headroom 5 GiB. */
static int case_nvml_memory_samples(void)
{
    char path[] = "/tmp/perfscope-memtest-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    sqlite3 *db = NULL;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
             " text TEXT, textId INTEGER, globalTid INTEGER, domainId INTEGER);"
             "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
             "CREATE TABLE PERFSCOPE_GPU_SAMPLES(timestamp INTEGER NOT NULL, deviceIndex INTEGER NOT NULL,"
             " utilGpuPercent INTEGER, memUsedBytes INTEGER, memTotalBytes INTEGER);"
             "INSERT INTO PERFSCOPE_GPU_SAMPLES VALUES (0, 0, 0, %lld, %lld), (1000000000, 0, 50, %lld, %lld),"
             " (2000000000, 0, 100, %lld, %lld);"
             "INSERT INTO NVTX_EVENTS VALUES (0, 2000000000, 59, 'step', NULL, ((1<<48)|(7<<24)|7), 0);",
             10 * GIB, 80 * GIB, 75 * GIB, 80 * GIB, 20 * GIB, 80 * GIB);
    int ok = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    int rc = ok ? load_path(path) : 1;
    unlink(path);
    if (rc)
        return rc;
    const struct ps_mem_device *d = device("GPU0 (NVML)");
    CHECK_EQ("source", d->source, PS_MEMSRC_NVML);
    CHECK_EQ("points", (int64_t)d->npoints, 3);
    CHECK_EQ("peak used", d->peak_allocated_bytes, 75 * GIB);
    CHECK_EQ("at", d->peak_allocated_ns, 1000000000);
    CHECK_EQ("capacity", d->capacity_bytes, 80 * GIB);
    CHECK_EQ("headroom", d->headroom_bytes, 5 * GIB);
    const struct ps_mem_finding *f = finding("oom_risk");
    CHECK(f != NULL);
    if (f)
        CHECK_CONTAINS(f->summary, "93.8 %");
    return 0;
}

/* The Python hook's `cuda memory` marks (docs/python.md) at three step boundaries, 1, 2 and 3 s after a step range
 * that starts the run at 0: allocated 1, 1.5, 1 GiB; reserved 2 GiB; max_allocated 3, 5, 5 GiB; max_reserved 4, 6,
 * 6 GiB. The peak is 5 GiB, first seen at 2 s; reserved 6 GiB; device 0 holds 16 GiB: headroom 11 GiB. */
static int case_torch_allocator_marks(void)
{
    model = ps_model_new("hook.sqlite", PS_FORMAT_PERFSCOPE);
    if (!model)
        return 1;
    uint32_t thread = ps_model_thread(model, 7, 7), dom = ps_model_intern_cstr(model, "perfscope");
    struct ps_range step = { .start_ns = 0, .end_ns = 3000000000ll, .name = ps_model_intern_cstr(model, "step"),
                             .thread = thread, .domain = PS_NONE, .kind = PS_RANGE_NVTX_PUSHPOP };
    ps_model_add_range(model, &step);
    static const char *const marks[] = {
        "cuda memory step=1 device=0 allocated=1073741824 reserved=2147483648 max_allocated=3221225472 "
        "max_reserved=4294967296 alloc_retries=0 ooms=0",
        "cuda memory step=2 device=0 allocated=1610612736 reserved=2147483648 max_allocated=5368709120 "
        "max_reserved=6442450944 alloc_retries=0 ooms=0",
        "cuda memory step=3 device=0 allocated=1073741824 reserved=2147483648 max_allocated=5368709120 "
        "max_reserved=6442450944 alloc_retries=0 ooms=0",
    };
    for (int i = 0; i < 3; i++) {
        struct ps_range g = { .start_ns = (i + 1) * 1000000000ll, .end_ns = (i + 1) * 1000000000ll,
                              .name = ps_model_intern_cstr(model, marks[i]), .thread = thread, .domain = dom,
                              .kind = PS_RANGE_NVTX_MARK };
        ps_model_add_range(model, &g);
    }
    uint32_t dev0 = ps_model_device(model, 0);
    model->devices.v[dev0].total_mem_bytes = 16 * GIB;
    ps_model_process(model, 7);
    char err[256];
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    if (ps_model_finish(model) < 0 || ps_ranks_report_compute(&rep, model, &o, err, sizeof err) < 0)
        return 1;
    const struct ps_mem_device *d = device("GPU0 (torch)");
    CHECK_EQ("source", d->source, PS_MEMSRC_TORCH);
    CHECK_EQ("points", (int64_t)d->npoints, 3);
    CHECK_EQ("peak (max_allocated)", d->peak_allocated_bytes, 5 * GIB);
    CHECK_EQ("first seen at", d->peak_allocated_ns, 2000000000);
    CHECK_EQ("max reserved", d->peak_reserved_bytes, 6 * GIB);
    CHECK_EQ("allocated at the 2nd boundary", d->curve[1].allocated, 3 * GIB / 2);
    CHECK_EQ("capacity", d->capacity_bytes, 16 * GIB);
    CHECK_EQ("headroom", d->headroom_bytes, 11 * GIB);
    return 0;
}

/* A Kineto trace of one step [1000, 2000) µs holding aten::zeros [1100, 1900) and inside it aten::empty
 * [1200, 1800), then `records` (each a [memory] instant's args after "Device Type": 1, "Device Id": 0), each at
 * 1300 µs + its index ns, in aten::empty. 0, or -1 when the file could not be written. */
static int write_memory_trace(const char *path, const char *const *records, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"schemaVersion\": 1, \"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"user_annotation\", "
            "\"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000},\n"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::zeros\", \"pid\": 1, \"tid\": 1, \"ts\": 1100, "
            "\"dur\": 800},\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": 1200, \"dur\": 600}");
    for (size_t i = 0; i < n; i++)
        fprintf(f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                "\"pid\": 1, \"tid\": 1, \"ts\": %zu.%03zu, \"args\": {\"Device Type\": 1, \"Device Id\": 0, %s}}",
                1300 + i / 1000, i % 1000, records[i]);
    fprintf(f, "\n]}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* The read of a trace of these records fails, its message holding `want`. */
static void refused(const char *label, const char *const *records, size_t n, const char *want)
{
    char path[] = "/tmp/perfscope-memtest-XXXXXX", err[512] = "";
    int fd = mkstemp(path);
    struct ps_model *m = NULL;
    if (fd < 0 || close(fd) < 0 || write_memory_trace(path, records, n) < 0) {
        CHECK(0, "%s: the trace could not be written", label);
        return;
    }
    int rc = ps_read_trace(path, &m, err, sizeof err);
    unlink(path);
    CHECK(rc < 0, "%s: read, not refused", label);
    CHECK(strstr(err, want) != NULL, "%s: message \"%s\", expected it to hold \"%s\"", label, err, want);
    ps_model_free(m);
}

#define PIB (1ll << 50)

/* A memory record's size or total beyond 1 PiB (PS_MEM_BYTES_MAX, more than any device or host holds) is refused,
 * naming the event, the key, the range and the value, as the readers refuse other impossible values: two
 * allocations of 2^63 - 1 bytes used to overflow the per-operator sums (never_freed_bytes -2). A size of exactly
 * 1 PiB is read. Nsight Systems' table the same way, by table, column and rowid. */
static int case_sizes_past_a_pebibyte_are_refused_naming_the_event(void)
{
    char ok[160], huge_total[160];
    snprintf(ok, sizeof ok, "\"Bytes\": %lld, \"Addr\": 4096, \"Total Allocated\": %lld, \"Total Reserved\": %lld",
             PIB, PIB, PIB);
    const char *max_alloc = "\"Bytes\": 9223372036854775807, \"Addr\": 8192, \"Total Allocated\": 1, "
                            "\"Total Reserved\": 1";
    refused("2^63 - 1 bytes", (const char *[]){ ok, max_alloc }, 2,
            "event 4: \"Bytes\" is not an integer in range -1125899906842624..1125899906842624 (9223372036854775807)");
    refused("a free of 2^63 bytes", (const char *[]){ "\"Bytes\": -9223372036854775808, \"Addr\": 4096" }, 1,
            "event 3: \"Bytes\" is not an integer in range -1125899906842624..1125899906842624 "
            "(-9223372036854775808)");
    refused("as a string, past int64", (const char *[]){ "\"Bytes\": \"99999999999999999999\"" }, 1,
            "\"Bytes\" is not an integer in range -1125899906842624..1125899906842624 (99999999999999999999)");
    snprintf(huge_total, sizeof huge_total, "\"Bytes\": 16, \"Addr\": 4096, \"Total Allocated\": 16, "
             "\"Total Reserved\": %lld", PIB + 1);
    refused("a total one past 1 PiB", (const char *[]){ huge_total }, 1,
            "event 3: \"Total Reserved\" is not an integer in range 0..1125899906842624 (1125899906842625)");
    refused("1e30", (const char *[]){ "\"Bytes\": 16, \"Addr\": 4096, \"Total Allocated\": 1e30" }, 1,
            "event 3: \"Total Allocated\" is not an integer in range 0..1125899906842624 (1e30)");

    char path[] = "/tmp/perfscope-memtest-XXXXXX";   /* exactly 1 PiB: read */
    int fd = mkstemp(path);
    int rc = fd >= 0 && close(fd) == 0 && write_memory_trace(path, (const char *[]){ ok }, 1) == 0 ? load_path(path) : 1;
    unlink(path);
    if (rc)
        return rc;
    CHECK_EQ("1 PiB peak", device("GPU0")->peak_allocated_bytes, PIB);
    CHECK_EQ("1 PiB never freed", device("GPU0")->never_freed_bytes, PIB);

    char db_path[] = "/tmp/perfscope-memtest-XXXXXX", sql[2048], err[512] = "";
    fd = mkstemp(db_path);
    if (fd < 0)
        return 1;
    close(fd);
    snprintf(sql, sizeof sql,
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 1000, 0, 7, 1, %lld, 1);"
        "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL,"
        " bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL);"
        "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (100, %lld, 0, 1, 10, 0, 4096, 2, 0);"
        "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (200, %lld, 0, 1, 11, 0, 9223372036854775807, 2, 0);",
        (1ll << 48) | (1ll << 24), (1ll << 48) | (1ll << 24), (1ll << 48) | (1ll << 24));
    sqlite3 *db = NULL;
    int ok_db = sqlite3_open(db_path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    struct ps_model *m = NULL;
    rc = ok_db ? ps_read_trace(db_path, &m, err, sizeof err) : 0;
    unlink(db_path);
    CHECK(ok_db, "the nsys export written");
    CHECK(rc < 0, "the nsys row of 2^63 - 1 bytes read, not refused");
    CHECK_CONTAINS(err, "table CUDA_GPU_MEMORY_USAGE_EVENTS, column bytes, rowid 2: 9223372036854775807 is out of "
                        "range (0 to 1125899906842624)");
    ps_model_free(m);
    return 0;
}

/* Sums over records that would pass int64 stay at INT64_MAX (a bound: at least that much), never wrap to a
 * negative size: 8,200 allocations of 1 PiB each, at their own addresses, never freed, inside aten::empty inside
 * aten::zeros. By hand: 8,192 x 2^50 = 2^63 already passes INT64_MAX, so never_freed_bytes, aten::empty's self and
 * total size increase and allocation bytes, and aten::zeros' totals are INT64_MAX; the counts are exact (8,200
 * allocations, 8,200 never freed; aten::zeros allocates nothing itself). diff of the report with itself: a peak
 * change of 0. */
static int case_sums_saturate_instead_of_wrapping(void)
{
    enum { N = 8200 };
    static char text[N][128];
    static const char *records[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(text[i], sizeof text[i], "\"Bytes\": %lld, \"Addr\": %zu, \"Total Allocated\": %lld, "
                 "\"Total Reserved\": %lld", PIB, 4096 * (i + 1), PIB, PIB);
        records[i] = text[i];
    }
    char path[] = "/tmp/perfscope-memtest-XXXXXX";
    int fd = mkstemp(path);
    int rc = fd >= 0 && close(fd) == 0 && write_memory_trace(path, records, N) == 0 ? load_path(path) : 1;
    unlink(path);
    if (rc)
        return rc;
    const struct ps_mem_device *d = device("GPU0");
    CHECK_EQ("never freed", (int64_t)d->never_freed, N);
    CHECK_EQ("never freed bytes", d->never_freed_bytes, INT64_MAX);
    CHECK_EQ("the operator holding them", d->never_freed_op_bytes, INT64_MAX);
    CHECK_STR(ps_report_name(&rep, d->never_freed_op), "aten::empty");
    /* calls, size increase, self size increase, allocations, self allocations, bytes, self bytes */
    check_op("GPU0", "aten::empty", (int64_t[7]){ 1, INT64_MAX, INT64_MAX, N, N, INT64_MAX, INT64_MAX });
    check_op("GPU0", "aten::zeros", (int64_t[7]){ 1, INT64_MAX, 0, N, 0, INT64_MAX, 0 });
    struct ps_diff df = { 0 };
    CHECK_EQ(ps_diff_memory(&df, &rep, &rep), 0);
    CHECK(df.nmemory == 1 && df.memory[0].has_delta && df.memory[0].delta_bytes == 0, "diff with itself");
    free(df.memory);
    return 0;
}

static void free_report_and_model(void)
{
    if (rep.m)
        ps_report_fini(&rep);
    ps_model_free(model);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "plugin_h100_bert", .fn_arg = case_plugin_h100_bert },
        { "plugin_h100_falconsai", .fn_arg = case_plugin_h100_falconsai },
        { "plugin_mi300_bert", .fn_arg = case_plugin_mi300_bert },
        { "generated_leak_fragmentation_oom", .fn_status = case_generated_leak_fragmentation_oom },
        { "generated_hip_device_type", .fn_status = case_generated_hip_device_type },
        { "generated_sizes_only_running_sum", .fn_status = case_generated_sizes_only_running_sum },
        { "diff_compares_peaks", .fn_status = case_diff_compares_peaks },
        { "nsys_memory_usage_table", .fn_status = case_nsys_memory_usage_table },
        { "nvml_memory_samples", .fn_status = case_nvml_memory_samples },
        { "torch_allocator_marks", .fn_status = case_torch_allocator_marks },
        { "operator_and_child_starting_together", .fn_status = case_operator_and_child_starting_together },
        { "sizes_past_a_pebibyte_are_refused_naming_the_event",
          .fn_status = case_sizes_past_a_pebibyte_are_refused_naming_the_event },
        { "sums_saturate_instead_of_wrapping", .fn_status = case_sums_saturate_instead_of_wrapping },
    };
    static const struct case_hooks hooks = { .teardown = free_report_and_model };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : "../shared",
                     &hooks);
}
