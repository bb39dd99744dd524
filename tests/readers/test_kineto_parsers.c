/* The Kineto reader's two parsers give the same model: every shared Kineto trace (../shared/traces/kineto) and
 * the hand-built ones given on the command line are read with the simdjson path alone (PS_JSON_PARSER_SIMDJSON,
 * which fails rather than hand a text to libyajl) and with libyajl alone, and the finished models are compared
 * whole: every GPU op, API call, range, open range, process, thread, stream, device, memory event, metadata entry,
 * flow link and the scalar facts, field by field, strings by their text; and the per-operator model's events each
 * collects in the same pass equal those of a pass of their own (ps_read_kineto_ops). Then generated traces of several windows
 * (json_fast.h cuts them into chunks), valid and damaged in each of the chunk kinds: read the default way
 * (PS_JSON_PARSER_AUTO), each must give libyajl's model or libyajl's own message, byte for byte.
 * Usage: test_kineto_parsers TRACES_DIR. Exit 77 (skip) without the folder, after the generated traces. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/op_trace.h"
#include "read/reader.h"

static const char *str(const struct ps_model *m, uint32_t id)
{
    return id == PS_NONE ? "(none)" : ps_model_str(m, id);
}

#define SAME(what, i, field) CHECK((a)->field == (b)->field, "%s: %s %zu: " #field " %lld != %lld", path, what, i, \
                                   (long long)(a)->field, (long long)(b)->field)
#define SAME_STR(what, i, field) CHECK(strcmp(str(x, (a)->field), str(y, (b)->field)) == 0, "%s: %s %zu: " #field \
                                       " \"%s\" != \"%s\"", path, what, i, str(x, (a)->field), str(y, (b)->field))

static void same_gpu(const char *path, const struct ps_model *x, const struct ps_model *y)
{
    for (size_t i = 0; i < x->gpu.n && i < y->gpu.n; i++) {
        const struct ps_gpu_op oa = ps_model_gpu(x, i), ob = ps_model_gpu(y, i), *a = &oa, *b = &ob;
        SAME("gpu", i, start_ns); SAME("gpu", i, end_ns); SAME("gpu", i, correlation); SAME("gpu", i, bytes);
        SAME_STR("gpu", i, name); SAME("gpu", i, stream); SAME("gpu", i, launch); SAME("gpu", i, kind);
        SAME("gpu", i, copy_kind); SAME("gpu", i, src_kind); SAME("gpu", i, dst_kind);
        SAME("gpu", i, has_occupancy); SAME("gpu", i, occupancy_pct);
    }
}

static void same_api_ranges(const char *path, const struct ps_model *x, const struct ps_model *y)
{
    for (size_t i = 0; i < x->api.n && i < y->api.n; i++) {
        const struct ps_api_call *a = &x->api.v[i], *b = &y->api.v[i];
        SAME("api", i, start_ns); SAME("api", i, end_ns); SAME("api", i, correlation); SAME("api", i, ext_id);
        SAME_STR("api", i, name); SAME("api", i, thread); SAME("api", i, driver);
    }
    for (int open = 0; open < 2; open++) {
        const struct ps_range *ra = open ? x->open_ranges.v : x->ranges.v, *rb = open ? y->open_ranges.v : y->ranges.v;
        size_t n = open ? x->open_ranges.n : x->ranges.n, nb = open ? y->open_ranges.n : y->ranges.n;
        for (size_t i = 0; i < n && i < nb; i++) {
            const struct ps_range *a = &ra[i], *b = &rb[i];
            SAME("range", i, start_ns); SAME("range", i, end_ns); SAME("range", i, ext_id); SAME_STR("range", i, name);
            SAME("range", i, thread); SAME_STR("range", i, domain); SAME("range", i, category); SAME("range", i, kind);
        }
    }
}

static void same_places(const char *path, const struct ps_model *x, const struct ps_model *y)
{
    for (size_t i = 0; i < x->procs.n && i < y->procs.n; i++) {
        const struct ps_process *a = &x->procs.v[i], *b = &y->procs.v[i];
        SAME("process", i, pid); SAME_STR("process", i, name); SAME("process", i, rank); SAME("process", i, ppid);
    }
    for (size_t i = 0; i < x->threads.n && i < y->threads.n; i++) {
        const struct ps_thread *a = &x->threads.v[i], *b = &y->threads.v[i];
        SAME("thread", i, pid); SAME("thread", i, tid); SAME_STR("thread", i, name);
    }
    for (size_t i = 0; i < x->streams.n && i < y->streams.n; i++) {
        const struct ps_stream *a = &x->streams.v[i], *b = &y->streams.v[i];
        SAME("stream", i, pid); SAME("stream", i, device); SAME("stream", i, stream);
    }
    for (size_t i = 0; i < x->devices.n && i < y->devices.n; i++) {
        const struct ps_device *a = &x->devices.v[i], *b = &y->devices.v[i];
        SAME("device", i, id); SAME_STR("device", i, name); SAME("device", i, cc_major); SAME("device", i, cc_minor);
        SAME("device", i, sm_count); SAME("device", i, total_mem_bytes);
    }
}

static void same_rest(const char *path, const struct ps_model *x, const struct ps_model *y)
{
    for (size_t i = 0; i < x->mem_events.n && i < y->mem_events.n; i++) {
        const struct ps_mem_event *a = &x->mem_events.v[i], *b = &y->mem_events.v[i];
        SAME("mem", i, time_ns); SAME("mem", i, bytes); SAME("mem", i, total_allocated);
        SAME("mem", i, total_reserved); SAME("mem", i, addr); SAME("mem", i, pid); SAME("mem", i, tid);
        SAME("mem", i, device); SAME("mem", i, device_type); SAME("mem", i, has_addr); SAME("mem", i, has_tid);
    }
    for (size_t i = 0; i < x->meta.n && i < y->meta.n; i++) {
        CHECK_STR(x->meta.v[i].key, y->meta.v[i].key);
        CHECK_STR(x->meta.v[i].value, y->meta.v[i].value);
    }
    for (size_t i = 0; i < x->nflow_linked && i < y->nflow_linked; i++)
        CHECK_EQ(x->flow_linked[i], y->flow_linked[i]);
    const struct ps_model *a = x, *b = y;
    size_t z = 0;
    SAME("model", z, rank); SAME("model", z, world_size); SAME("model", z, unplaced_events);
    SAME("model", z, has_flows); SAME("model", z, has_mem_origin); SAME("model", z, mem_origin_ns);
    SAME("model", z, gpu.n); SAME("model", z, api.n); SAME("model", z, ranges.n); SAME("model", z, open_ranges.n);
    SAME("model", z, procs.n); SAME("model", z, threads.n); SAME("model", z, streams.n); SAME("model", z, devices.n);
    SAME("model", z, mem_events.n); SAME("model", z, meta.n); SAME("model", z, nflow_linked);
    CHECK_EQ(ps_model_nstrings(x), ps_model_nstrings(y));
}

/* The trace read with `parser`, the per-operator model's events collected in the same pass. */
static int read_with(const char *path, enum ps_json_parser parser, struct ps_model **m, char *err, size_t errlen)
{
    return ps_read_trace_with(path, &(struct ps_read_opts){ .parser = parser, .op_events = 1 }, m, err, errlen);
}

#define SAME_OP(what, i, field) CHECK(a->field == b->field, "%s: %s %zu: " #field " differs", path, what, i)

/* The per-operator model's events: those of the shared pass (x) equal a pass of their own (ps_read_kineto_ops). */
static void same_op_events(const char *path, const struct ps_op_trace *x)
{
    struct ps_op_trace *y = NULL;
    char err[512];
    CHECK(x != NULL, "%s: no op_events from the shared pass", path);
    CHECK(ps_read_kineto_ops(path, &y, err, sizeof err) == 0, "%s: ps_read_kineto_ops: %s", path, err);
    if (x && y) {
        CHECK_EQ(x->ev.n, y->ev.n);
        for (size_t i = 0; i < x->ev.n && i < y->ev.n; i++) {
            const struct ps_op_event *a = &x->ev.v[i], *b = &y->ev.v[i];
            SAME_OP("op event", i, ts_us); SAME_OP("op event", i, dur_us); SAME_OP("op event", i, pid);
            SAME_OP("op event", i, tid); SAME_OP("op event", i, corr); SAME_OP("op event", i, ext);
            SAME_OP("op event", i, stream); SAME_OP("op event", i, uid); SAME_OP("op event", i, cat);
            SAME_OP("op event", i, has_pid_tid); SAME_OP("op event", i, has_corr); SAME_OP("op event", i, has_ext);
            SAME_OP("op event", i, has_stream); SAME_OP("op event", i, args); SAME_OP("op event", i, seq);
            SAME_OP("op event", i, has_seq);
            CHECK_STR(ps_op_trace_str(x, a->name), ps_op_trace_str(y, b->name));
        }
        CHECK_EQ(x->args.n, y->args.n);
        for (size_t i = 0; i < x->args.n && i < y->args.n; i++) {
            const struct ps_op_args *a = &x->args.v[i], *b = &y->args.v[i];
            CHECK_STR(ps_op_trace_str(x, a->dims), ps_op_trace_str(y, b->dims));
            CHECK_STR(ps_op_trace_str(x, a->types), ps_op_trace_str(y, b->types));
            CHECK_STR(ps_op_trace_str(x, a->strides), ps_op_trace_str(y, b->strides));
            CHECK_STR(ps_op_trace_str(x, a->concrete), ps_op_trace_str(y, b->concrete));
        }
        CHECK_EQ(x->flows.n, y->flows.n);
        for (size_t i = 0; i < x->flows.n && i < y->flows.n; i++) {
            const struct ps_op_flow *a = &x->flows.v[i], *b = &y->flows.v[i];
            SAME_OP("flow", i, id); SAME_OP("flow", i, pid); SAME_OP("flow", i, tid); SAME_OP("flow", i, is_start);
            SAME_OP("flow", i, has_pid_tid);
        }
        CHECK_EQ(x->meta.n, y->meta.n);
        for (size_t i = 0; i < x->meta.n && i < y->meta.n; i++) {
            const struct ps_op_meta *a = &x->meta.v[i], *b = &y->meta.v[i];
            SAME_OP("meta", i, pid); SAME_OP("meta", i, tid); SAME_OP("meta", i, kind);
            CHECK_STR(ps_op_trace_str(x, a->value), ps_op_trace_str(y, b->value));
        }
        CHECK_EQ(x->link_by_ext, y->link_by_ext);
    }
    ps_op_trace_free(y);
}

static void compare(const char *path)
{
    struct ps_model *fast = NULL, *yajl = NULL;
    char err_fast[512], err_yajl[512];
    int rc_fast = read_with(path, PS_JSON_PARSER_SIMDJSON, &fast, err_fast, sizeof err_fast);
    int rc_yajl = read_with(path, PS_JSON_PARSER_YAJL, &yajl, err_yajl, sizeof err_yajl);
    CHECK(rc_fast == 0, "%s: simdjson path: %s", path, err_fast);
    CHECK(rc_yajl == 0, "%s: libyajl: %s", path, err_yajl);
    if (rc_fast == 0 && rc_yajl == 0) {
        same_gpu(path, fast, yajl);
        same_api_ranges(path, fast, yajl);
        same_places(path, fast, yajl);
        same_rest(path, fast, yajl);
        same_op_events(path, fast->op_events);
        same_op_events(path, yajl->op_events);
        printf("%s: same model (%zu GPU ops, %zu API calls, %zu ranges)\n", path, fast->gpu.n, fast->api.n,
               fast->ranges.n);
    }
    ps_model_free(fast);
    ps_model_free(yajl);
}

/* A scratch file in $TMPDIR (or /tmp) named after `stem` and this process, opened for writing (NULL: it could not
 * be); its path goes to path. */
static FILE *scratch(const char *stem, char *path, size_t cap)
{
    snprintf(path, cap, "%s/ps-kineto-%s-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", stem, (int)getpid());
    return fopen(path, "w");
}

/* A trace of n events (about 330 bytes each: n = 10000 spans several of the fast path's windows), keys before and
 * after traceEvents; `damage` is written in place of event `at`'s "args" value (NULL: none), `after` after the
 * top-level object. Returns the path (static) or NULL. */
static const char *generate(int n, int at, const char *damage, const char *after)
{
    static char path[256];
    FILE *f = scratch("parsers", path, sizeof path);
    if (!f)
        return NULL;
    fprintf(f, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU \\\"0\\\"\", "
               "\"totalGlobalMem\": 85, \"numSms\": 132}],\n\"traceEvents\": [\n");
    for (int i = 0; i < n; i++) {
        int gpu = i % 2;
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op_%d \\\"q\\\" \\\\ \\u00e9 },{ [\", "
                   "\"pid\": %d, \"tid\": %d, \"ts\": %d.%03d, \"dur\": 1.5, \"args\": ",
                i ? ",\n" : "", gpu ? "kernel" : "cuda_runtime", i % 50, gpu ? 0 : 100, gpu ? 7 : 101, 1000 + i, i % 1000);
        if (i == at && damage)
            fputs(damage, f);
        else
            fprintf(f, "{\"correlation\": %d, \"device\": 0, \"stream\": 7, \"Input Dims\": [[1, 2], [], [3]], "
                       "\"flags\": [true, false, null, -0.5e-3], \"nested\": {\"a\": {\"b\": [{}]}}}", i / 2 + 1);
        fputs("}", f);
    }
    fprintf(f, "\n], \"traceName\": \"t\", \"baseTimeNanoseconds\": 1000}%s\n", after ? after : "");
    return fclose(f) == 0 ? path : NULL;
}

/* The default read of the generated trace equals libyajl's: the same model, or the same message. */
static void same_as_yajl(const char *what, int n, int at, const char *damage, const char *after)
{
    const char *path = generate(n, at, damage, after);
    CHECK(path != NULL, "%s: cannot write the trace", what);
    if (!path)
        return;
    struct ps_model *a = NULL, *y = NULL;
    char err_a[512] = "", err_y[512] = "";
    int rc_a = read_with(path, PS_JSON_PARSER_AUTO, &a, err_a, sizeof err_a);
    int rc_y = read_with(path, PS_JSON_PARSER_YAJL, &y, err_y, sizeof err_y);
    CHECK(rc_a == rc_y, "%s: default read %d (%s), libyajl %d (%s)", what, rc_a, err_a, rc_y, err_y);
    CHECK_STR(err_a, err_y);
    if (rc_a == 0 && rc_y == 0) {
        same_gpu(what, a, y);
        same_api_ranges(what, a, y);
        same_places(what, a, y);
        same_rest(what, a, y);
    }
    printf("%s: %s\n", what, rc_y == 0 ? "same model" : err_y);
    ps_model_free(a);
    ps_model_free(y);
    unlink(path);
}

/* Strings with runs of backslashes at every offset of the fast path's 64-byte scan blocks: event i's name is
 * i % 64 x's, then i / 64 % 4 + 1 escaped backslashes, an escaped quote and the brackets and comma of an element
 * boundary ("},{ ["); its args hold a string that ends in i % 3 + 1 escaped backslashes right before its closing
 * quote (an even run of raw backslashes, which escapes no quote). The simdjson path alone (no libyajl to fall back
 * to) must read it, and its model must equal libyajl's. The names are checked against the text written. */
static void backslash_runs_at_every_block_offset(void)
{
    static char path[256];
    FILE *f = scratch("backslashes", path, sizeof path);
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    const int n = 12000;   /* ~190 bytes each: several of the fast path's windows */
    /* 64 x's: a name's padding, to each block offset */
    static const char xs[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    fputs("{\"traceEvents\": [", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%.*s", i ? ",\n" : "", i % 64, xs);
        for (int k = 0; k < i / 64 % 4 + 1; k++)
            fputs("\\\\", f);
        fprintf(f, "\\\"},{ [\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d, "
                   "\"stream\": 7, \"v\": \"", 10 * i, i + 1);
        for (int k = 0; k < i % 3 + 1; k++)
            fputs("\\\\", f);
        fputs("\"}}", f);
    }
    fputs("]}\n", f);
    CHECK(fclose(f) == 0, "cannot write %s", path);
    struct ps_model *a = NULL, *y = NULL;
    char err_a[512] = "", err_y[512] = "";
    CHECK(read_with(path, PS_JSON_PARSER_SIMDJSON, &a, err_a, sizeof err_a) == 0,
          "backslash runs: the simdjson path declined them: %s", err_a);
    CHECK(read_with(path, PS_JSON_PARSER_YAJL, &y, err_y, sizeof err_y) == 0, "backslash runs: libyajl: %s", err_y);
    if (a && y) {
        same_gpu("backslash runs", a, y);
        same_api_ranges("backslash runs", a, y);
        same_rest("backslash runs", a, y);
        CHECK_EQ(a->gpu.n, (size_t)n);
        for (size_t i = 0; i < a->gpu.n && i < (size_t)n; i += 997) {   /* rows in time order: row i is event i */
            char want[128];
            int len = snprintf(want, sizeof want, "%.*s", (int)(i % 64), xs);
            for (size_t k = 0; k < i / 64 % 4 + 1; k++)
                want[len++] = '\\';
            snprintf(want + len, sizeof want - (size_t)len, "\"},{ [");
            CHECK_STR(str(a, ps_model_gpu(a, i).name), want);
        }
    }
    printf("backslash runs at every block offset: %zu kernels\n", a ? a->gpu.n : 0);
    ps_model_free(a);
    ps_model_free(y);
    unlink(path);
}

/* Top-level keys before "traceEvents" that fill more than the fast path's first window (256 KiB): with 600 KB of
 * them the window grows to find the array and the simdjson path alone reads the trace (the model equals
 * libyajl's); with 1.2 MB (past the 1 MiB the fast path looks through) it declines, and the default read still
 * gives libyajl's model. */
static void keys_before_the_events(size_t preamble, int simdjson_reads_it)
{
    char path[256];
    FILE *f = scratch("preamble", path, sizeof path);
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fputs("{\"schemaVersion\": 1, \"padding\": \"", f);
    for (size_t i = 0; i < preamble; i++)
        fputc('x', f);
    fputs("\", \"traceEvents\": [", f);
    for (int i = 0; i < 4000; i++)   /* ~250 KB of events: more than one window after the keys */
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, "
                   "\"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}", i ? ",\n" : "", i % 9, 10 * i);
    fputs("]}\n", f);
    CHECK(fclose(f) == 0, "cannot write %s", path);
    struct ps_model *s = NULL, *a = NULL, *y = NULL;
    char err_s[512] = "", err_a[512] = "", err_y[512] = "";
    int rc_s = read_with(path, PS_JSON_PARSER_SIMDJSON, &s, err_s, sizeof err_s);
    CHECK(read_with(path, PS_JSON_PARSER_AUTO, &a, err_a, sizeof err_a) == 0, "default read: %s", err_a);
    CHECK(read_with(path, PS_JSON_PARSER_YAJL, &y, err_y, sizeof err_y) == 0, "libyajl: %s", err_y);
    CHECK((rc_s == 0) == simdjson_reads_it, "%zu bytes of keys before the events: the simdjson path %s (%s)",
          preamble, rc_s == 0 ? "read it" : "declined", err_s);
    if (a && y) {
        CHECK_EQ(y->gpu.n, 4000);
        same_gpu("keys before the events (default read)", a, y);
        same_rest("keys before the events (default read)", a, y);
    }
    if (s && y)
        same_gpu("keys before the events (simdjson)", s, y);
    printf("%zu bytes of keys before the events: simdjson path %s\n", preamble, rc_s == 0 ? "read it" : "declined");
    ps_model_free(s);
    ps_model_free(a);
    ps_model_free(y);
    unlink(path);
}

static void generated_traces(void)
{
    char deep[4200] = "{\"x\": ";
    int d = (int)strlen(deep);
    for (int i = 0; i < 2000; i++, d++)
        deep[d] = '[';
    for (int i = 0; i < 2000; i++)
        deep[d++] = ']';
    deep[d++] = '}';
    deep[d] = 0;
    same_as_yajl("valid, one window", 100, -1, NULL, NULL);
    same_as_yajl("valid, several windows", 10000, -1, NULL, NULL);
    struct ps_model *m = NULL;
    char err[512];
    const char *path = generate(10000, -1, NULL, NULL);
    CHECK(path && read_with(path, PS_JSON_PARSER_SIMDJSON, &m, err, sizeof err) == 0,
          "the simdjson path declined a valid trace of several windows: %s", err);
    ps_model_free(m);
    if (path)
        unlink(path);
    for (int at = 50; at < 10000; at += 4900) {   /* in the first window's chunk, and in a later one */
        char what[96];
        static const struct { const char *name, *args; } bad[] = {
            { "a number that is not JSON", "{\"x\": 1.2.3}" }, { "a bare word", "{\"x\": nul}" },
            { "a bad escape", "{\"x\": \"\\q\"}" }, { "a raw NUL in a string", "{\"x\": \"a\0b\"}" },
            { "a raw tab in a string", "{\"x\": \"a\tb\"}" }, { "a lone surrogate", "{\"x\": \"\\ud800\"}" },
            { "a huge number", "{\"correlation\": 1e400}" }, { "a huge integer", "{\"correlation\": 123456789012345678901234567890}" },
            { "args that are a string", "\"args\"" }, { "an unclosed object", "{\"x\": [}" },
            { "a missing comma", "{\"x\": 1 \"y\": 2}" }, { "invalid UTF-8", "{\"x\": \"\xc3\x28\"}" },
            { "a NUL escape in a name", "{\"name\": \"a\\u0000b\"}" },
        };
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            snprintf(what, sizeof what, "%s at event %d", bad[k].name, at);
            same_as_yajl(what, 10000, at, bad[k].args, NULL);
        }
        snprintf(what, sizeof what, "2000 nested arrays in args at event %d", at);
        same_as_yajl(what, 10000, at, deep, NULL);
    }
    same_as_yajl("trailing garbage", 10000, -1, NULL, " x");
    same_as_yajl("a second object after the first", 10000, -1, NULL, " {}");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: %s TRACES_DIR [TRACE...]\n", argv[0]), 2;
    generated_traces();
    backslash_runs_at_every_block_offset();
    keys_before_the_events(600000, 1);
    keys_before_the_events(1200000, 0);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kineto", argv[1]);
    DIR *d = opendir(dir);
    if (!d)
        return fprintf(stderr, "%s: %s: skipped\n", dir, strerror(errno)), check_failures ? 1 : 77;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 8 && strcmp(e->d_name + len - 8, ".json.gz") == 0) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            compare(path);
            n++;
        }
    }
    closedir(d);
    for (int i = 2; i < argc; i++, n++)
        compare(argv[i]);
    CHECK(n >= 10, "only %d Kineto traces in %s", n, dir);
    return check_failures != 0;
}
