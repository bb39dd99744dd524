/* Hand-built Kineto (PyTorch profiler) traces, a few events each, with the expected model written by
 * hand beside them: modern and pre-2.0 categories, relative vs absolute time, out-of-order and
 * zero-length events, nested ranges, gzip detected by content; then malformed inputs. */
#include "tinyfs.h"

/* Modern trace; times relative to baseTimeNanoseconds = 10^12 ns, which comes AFTER traceEvents. */
static const char modern[] =
    "{\"schemaVersion\": 1,\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"Tiny GPU\", \"totalGlobalMem\": 1000, \"computeMajor\": 9,"
    "   \"computeMinor\": 0, \"numSms\": 132, \"regsPerBlock\": 65536}],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 4, \"pg_config\": [{\"ranks\": [0, 1]}]},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 30.5, \"dur\": 10,"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 12, \"External id\": 3, \"grid\": [1, 2, 3]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, \"tid\": 101,"
    "   \"ts\": 0, \"dur\": 100, \"args\": {\"External id\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 101, \"ts\": 5.25,"
    "   \"dur\": 20.0005, \"args\": {\"External id\": 2, \"Input Dims\": [[2, 2], []], \"Python parent id\": null}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 101, \"ts\": 6,"
    "   \"dur\": 4, \"args\": {\"correlation\": 11, \"External id\": 2, \"cbid\": 211}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 101, \"ts\": 12,"
    "   \"dur\": 4, \"args\": {\"correlation\": 12, \"External id\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, \"ts\": 20.001, \"dur\": 0,"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 8,"
    "   \"ts\": 41, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 13, \"bytes\": 4096}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 44, \"dur\": 1,"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 14, \"bytes\": 64}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, \"tid\": 7, \"ts\": 46, \"dur\": 3,"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 15, \"cuda_sync_kind\": \"Stream Sync\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"pid\": 100, \"tid\": 102, \"ts\": 50,"
    "   \"dur\": 1, \"args\": {\"correlation\": 16}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 0, \"tid\": 7, \"ts\": 20,"
    "   \"dur\": 30},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): step\", \"pid\": 100, \"tid\": 101,"
    "   \"ts\": 1, \"dur\": 90},\n"
    "  {\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Buffer Flush\", \"pid\": -1, \"tid\": 0, \"ts\": 60, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"no ts\", \"pid\": 0, \"tid\": 7, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"no stream\", \"pid\": \"Spans\", \"tid\": \"x\", \"ts\": 70, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\","
    "   \"ts\": 0, \"dur\": 200},\n"
    "  {\"ph\": \"s\", \"id\": 11, \"pid\": 100, \"tid\": 101, \"ts\": 6, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"f\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 20.001, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 100, \"tid\": 101, \"ts\": 3},\n"
    "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 100, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
    "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 100, \"tid\": 101, \"args\": {\"name\": \"main thread\"}}\n"
    " ],\n"
    " \"traceName\": \"tiny\", \"baseTimeNanoseconds\": 1000000000000}\n";

#define B 1000000000000LL

static void check_modern(struct ps_model *m)
{
    if (!m)
        return;
    CHECK_EQ(m->format, PS_FORMAT_KINETO);
    CHECK_EQ(m->correlation_global, 1);
    /* GPU ops sorted by start: k1 (20.001 µs, zero length), k2 (30.5), memcpy (41), memset (44), sync (46) */
    CHECK_EQ(m->gpu.n, 5);
    if (m->gpu.n == 5) {
        struct ps_gpu_op g[5];
        for (size_t k = 0; k < 5; k++)
            g[k] = ps_model_gpu(m, k);
        CHECK_STR(ps_model_str(m, g[0].name), "k1");
        CHECK_EQ(g[0].start_ns, B + 20001);
        CHECK_EQ(g[0].end_ns, B + 20001);
        CHECK_STR(ps_model_str(m, g[1].name), "k2");
        CHECK_EQ(g[1].start_ns, B + 30500);
        CHECK_EQ(g[1].end_ns, B + 40500);
        CHECK_EQ(g[2].kind, PS_GPU_MEMCPY);
        CHECK_EQ(g[2].copy_kind, PS_COPY_HTOD);
        CHECK_EQ(g[2].src_kind, PS_MEM_PAGEABLE);
        CHECK_EQ(g[2].dst_kind, PS_MEM_DEVICE);
        CHECK_EQ(g[2].bytes, 4096);
        CHECK_EQ(m->streams.v[g[2].stream].stream, 8);
        CHECK_EQ(m->streams.v[g[2].stream].device, 0);
        CHECK_EQ(g[3].kind, PS_GPU_MEMSET);
        CHECK_EQ(g[3].dst_kind, PS_MEM_DEVICE);
        CHECK_EQ(g[3].bytes, 64);
        CHECK_EQ(g[4].kind, PS_GPU_SYNC);
        CHECK_EQ(g[4].copy_kind, 3);          /* ENUM_CUPTI_SYNC_TYPE 3: stream sync */
        CHECK_EQ(m->streams.v[g[4].stream].stream, 7);
        /* correlation 11 -> the first cudaLaunchKernel (6 µs), 12 -> the second (12 µs) */
        CHECK(g[0].launch != PS_NONE && m->api.v[g[0].launch].start_ns == B + 6000);
        CHECK(g[1].launch != PS_NONE && m->api.v[g[1].launch].start_ns == B + 12000);
        CHECK_EQ(g[2].launch, PS_NONE);       /* correlation 13: no API call in the trace */
    }
    CHECK_EQ(m->api.n, 3);
    if (m->api.n == 3) {
        CHECK_EQ(m->api.v[0].ext_id, 2);
        CHECK_EQ(m->api.v[0].driver, 0);
        CHECK_EQ(m->api.v[2].driver, 1);      /* cuLaunchKernel at 50 µs, thread 102 */
        CHECK_EQ(m->threads.v[m->api.v[2].thread].tid, 102);
    }
    /* ranges by start: ProfilerStep#1 (0..100 µs), python (1..91), aten::mm (5.25 µs, dur 20.0005 µs =
     * 20000.5 ns -> 20000 ns, half to even), the GPU copy of ProfilerStep#1 (20..50, no host thread) */
    CHECK_EQ(m->ranges.n, 4);
    if (m->ranges.n == 4) {
        const struct ps_range *r = m->ranges.v;
        CHECK_EQ(r[0].kind, PS_RANGE_USER_ANNOTATION);
        CHECK_EQ(r[0].end_ns, B + 100000);
        CHECK_EQ(r[0].ext_id, 1);
        CHECK_EQ(r[1].kind, PS_RANGE_PYTHON);
        CHECK_EQ(r[2].kind, PS_RANGE_CPU_OP);
        CHECK_EQ(r[2].start_ns, B + 5250);
        CHECK_EQ(r[2].end_ns, B + 25250);
        CHECK_EQ(r[2].thread, r[0].thread);   /* nested on the same thread */
        CHECK_EQ(r[3].kind, PS_RANGE_GPU_ANNOTATION);
        CHECK_EQ(r[3].thread, PS_NONE);
        CHECK_STR(ps_model_str(m, r[3].name), "ProfilerStep#1");
    }
    /* kernel without ts, kernel without device/stream: 2 unplaced, listed by category; "overhead" (CUPTI's own
     * overhead samples) is ignored by design: counted apart, never a reason for the "could not be placed" warning */
    CHECK_EQ(m->unplaced_events, 2);
    CHECK(strstr(meta_value(m, "unplaced_events"), "overhead") == NULL);
    CHECK_STR(meta_value(m, "ignored_events"), "overhead: 1");
    CHECK_CONTAINS(meta_value(m, "unplaced_events"), "kernel without ts: 1");
    CHECK_CONTAINS(meta_value(m, "unplaced_events"), "kernel without device/stream: 1");
    /* CPU process 100 named; the GPU "process" 0 gets no process entry */
    CHECK_EQ(m->procs.n, 1);
    CHECK_EQ(m->procs.v[0].pid, 100);
    CHECK_STR(ps_model_str(m, m->procs.v[0].name), "python3");
    CHECK_EQ(m->threads.n, 2);
    for (size_t i = 0; i < m->threads.n; i++)
        if (m->threads.v[i].tid == 101)
            CHECK_STR(ps_model_str(m, m->threads.v[i].name), "main thread");
    CHECK_EQ(m->streams.n, 2);
    CHECK_EQ(m->devices.n, 1);
    CHECK_STR(ps_model_str(m, m->devices.v[0].name), "Tiny GPU");
    CHECK_EQ(m->devices.v[0].sm_count, 132);
    CHECK_EQ(m->devices.v[0].cc_major, 9);
    CHECK_EQ(m->devices.v[0].total_mem_bytes, 1000);
    CHECK_EQ(m->rank, 1);
    CHECK_EQ(m->world_size, 4);
    CHECK_STR(meta_value(m, "kineto.traceName"), "tiny");
}

/* Pre-2.0 trace: absolute µs, string tids ("25738", "stream 7"), "external id" in lower case. */
static const char old_style[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"ProfilerStep#5\", \"pid\": 25738, \"tid\": \"25738\","
    "  \"ts\": 1623142623460111, \"dur\": 100, \"args\": {\"External id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 25738, \"tid\": \"25738\","
    "  \"ts\": 1623142623460120, \"dur\": 20, \"args\": {\"correlation\": 34417, \"external id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\", \"pid\": 0, \"tid\": \"stream 7\","
    "  \"ts\": 1623142623460130, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 34417, \"bytes\": 100}},\n"
    " {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"kern\", \"pid\": 1, \"tid\": \"stream 9\", \"ts\": 1623142623460140,"
    "  \"dur\": 2, \"args\": {\"correlation\": 34418}}\n"
    "]}";

static void check_old_style(struct ps_model *m)
{
    if (!m)
        return;
    CHECK_EQ(m->gpu.n, 2);
    CHECK_EQ(m->api.n, 1);
    CHECK_EQ(m->ranges.n, 1);
    if (m->gpu.n != 2 || m->api.n != 1)
        return;
    const struct ps_gpu_op g0 = ps_model_gpu(m, 0), g1 = ps_model_gpu(m, 1);
    CHECK_EQ(m->ranges.v[0].kind, PS_RANGE_CPU_OP);
    CHECK_EQ(m->ranges.v[0].start_ns, 1623142623460111000LL);
    CHECK_EQ(m->api.v[0].ext_id, 2);
    CHECK_EQ(m->threads.v[m->api.v[0].thread].tid, 25738);
    CHECK_EQ(g0.copy_kind, PS_COPY_DTOH);
    CHECK_EQ(g0.src_kind, PS_MEM_DEVICE);
    CHECK_EQ(g0.dst_kind, PS_MEM_PINNED);
    CHECK_EQ(g0.launch, 0);
    /* no device/stream args: device from pid (1), stream from tid "stream 9" */
    CHECK_EQ(m->streams.v[g1.stream].device, 1);
    CHECK_EQ(m->streams.v[g1.stream].stream, 9);
    CHECK_EQ(g1.launch, PS_NONE);
}

static void check_error(const char *name, const char *content, size_t len, const char *want)
{
    const char *path = tiny_write(name, content, len);
    const char *err = tiny_read_err(path);
    CHECK_CONTAINS(err, want);
    CHECK_CONTAINS(err, name);                 /* names the file */
}

static void malformed(void)
{
    /* truncated JSON (cut inside the 3rd event) */
    check_error("cut.json", modern, 600, "truncated JSON");
    /* truncated gzip: half of a valid .gz */
    const char *gz = tiny_write_gz("full.json.gz", modern);
    FILE *f = fopen(gz, "rb");
    char buf[8192];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    check_error("cut.json.gz", buf, n / 2, "truncated gzip");
    /* corrupt gzip: valid header, garbage deflate data */
    char bad[64] = { 0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    memset(bad + 10, 0xff, sizeof bad - 10);
    check_error("corrupt.gz", bad, sizeof bad, "corrupt gzip");
    /* wrong types */
    const char ts_string[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 1},"
                             " {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": \"12\", \"dur\": 1}]}";
    check_error("ts_string.json", ts_string, strlen(ts_string), "event 1: \"ts\" is not a number");
    const char corr_string[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 1,"
                               " \"args\": {\"correlation\": \"abc\"}}]}";
    check_error("corr.json", corr_string, strlen(corr_string), "event 0: \"correlation\" is not a number");
    const char dur_bool[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": true}]}";
    check_error("dur_bool.json", dur_bool, strlen(dur_bool), "event 0: \"dur\" is not");
    const char ts_array[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": [1]}]}";
    check_error("ts_array.json", ts_array, strlen(ts_array), "\"ts\" is not a number");
    const char not_object[] = "{\"traceEvents\": [{\"ph\": \"i\"}, 1]}";
    check_error("not_object.json", not_object, strlen(not_object), "event 1: the event is not an object");
    const char bad_syntax[] = "{\"traceEvents\": [{\"ph\": \"X\",, }]}";
    check_error("syntax.json", bad_syntax, strlen(bad_syntax), "invalid JSON");
    const char ts_range[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e300}]}";
    check_error("ts_range.json", ts_range, strlen(ts_range), "\"ts\" is not a number of µs in range");
    check_error("no_events.json", "{\"traceEvents\": []}", 19, "without trace events");
    check_error("other.json", "{\"a\": 1}", 8, "without trace events");
    check_error("empty.json", "", 0, "empty file");
    check_error("blank.json", " \n\t ", 4, "empty file");
    check_error("text.txt", "hello world", 11, "unknown format");
    const char *err = tiny_read_err("/nonexistent/ps-readers/trace.json");
    CHECK_CONTAINS(err, "cannot open");
    CHECK_CONTAINS(err, "/nonexistent/ps-readers/trace.json");
}

int main(void)
{
    tiny_init();
    struct ps_model *m = tiny_read(tiny_write("modern.json", modern, strlen(modern)));
    check_modern(m);
    ps_model_free(m);
    /* gzip detected by content, whatever the name says; plain JSON under a .gz-less odd name */
    m = tiny_read(tiny_write_gz("compressed_but_named.json", modern));
    check_modern(m);
    ps_model_free(m);
    /* two concatenated gzip members (as `cat a.gz b.gz` makes) are one stream, as for gzip(1) */
    {
        size_t half = strlen(modern) / 2;
        char *first = strndup(modern, half);
        const char *a = tiny_write_gz("part1.gz", first), *b = tiny_write_gz("part2.gz", modern + half);
        char both[16384 + 512];
        size_t n = 0;
        for (int i = 0; i < 2; i++) {
            FILE *f = fopen(i ? b : a, "rb");
            n += f ? fread(both + n, 1, sizeof both - n, f) : 0;
            if (f)
                fclose(f);
        }
        free(first);
        m = tiny_read(tiny_write("two_members.gz", both, n));
        check_modern(m);
        ps_model_free(m);
        /* zero padding after the last member is ignored, as gzip(1) does */
        memset(both + n, 0, 512);
        m = tiny_read(tiny_write("padded.gz", both, n + 512));
        check_modern(m);
        ps_model_free(m);
    }
    m = tiny_read(tiny_write("old.trace", old_style, strlen(old_style)));
    check_old_style(m);
    ps_model_free(m);
    /* Chrome's JSON array format: a bare array of events */
    const char array_form[] = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1.5,"
                              " \"dur\": 2.25}]";
    m = tiny_read(tiny_write("array.json", array_form, strlen(array_form)));
    if (m) {
        CHECK_EQ(m->gpu.n, 1);
        CHECK_EQ(ps_model_gpu(m, 0).start_ns, 1500);
        CHECK_EQ(ps_model_gpu(m, 0).end_ns, 3750);
    }
    ps_model_free(m);
    /* 30 distinct unknown categories: 23 reasons listed by name, the 7 others lumped as "other" */
    {
        char many[8192];
        size_t off = (size_t)snprintf(many, sizeof many, "{\"traceEvents\": [");
        for (int i = 0; i < 30; i++)
            off += (size_t)snprintf(many + off, sizeof many - off,
                                    "{\"ph\": \"X\", \"cat\": \"odd%02d\", \"ts\": 1, \"dur\": 1},", i);
        snprintf(many + off, sizeof many - off, "%s", "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                 " \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}]}");
        m = tiny_read(tiny_write("many_unplaced.json", many, strlen(many)));
        if (m) {
            CHECK_EQ(m->unplaced_events, 30);
            CHECK_CONTAINS(meta_value(m, "unplaced_events"), "odd22 (category not modelled): 1; other: 7");
        }
        ps_model_free(m);
    }
    malformed();
    tiny_cleanup();
    return check_failures ? 1 : 0;
}
