/* Kineto reader cases from a fresh user's findings: integers out of the
 * model field's range, by-design categories, exact error byte offsets, the JSON Array Format without its ']'
 * and a name far longer than the parser chunk. Usage: test_kineto_edge_cases CASE. */
#include "cases.h"
#include "tinyfs.h"

#define EV_STEP "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, " \
                "\"ts\": 0, \"dur\": 100}"

/* One kernel event whose args hold `args`, after a step: the kernel is event 1. */
static const char *kernel_trace(char *buf, size_t cap, const char *args)
{
    snprintf(buf, cap, "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": "
                       "\"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 1, "
                       "\"args\": {%s}}]}", args);
    return buf;
}

static void expect_range_error(const char *file, const char *args, const char *key)
{
    char text[1024], want[96];
    kernel_trace(text, sizeof text, args);
    const char *err = tiny_read_err(tiny_write(file, text, strlen(text)));
    snprintf(want, sizeof want, "event 1: \"%s\" is not an integer in range", key);
    CHECK_CONTAINS(err, want);
    CHECK_CONTAINS(err, file);
}

/* #7: 99999999999 is 1215752191 mod 2^32 and -5 bytes used to become 0: both must be errors. */
static void out_of_range_integers_are_errors(void)
{
    expect_range_error("device.json", "\"device\": 99999999999, \"stream\": 7", "device");
    expect_range_error("device_neg.json", "\"device\": -1, \"stream\": 7", "device");
    expect_range_error("bytes.json", "\"device\": 0, \"stream\": 7, \"bytes\": -5", "bytes");
    expect_range_error("corr.json", "\"device\": 0, \"stream\": 7, \"correlation\": -1", "correlation");
    expect_range_error("ext.json", "\"device\": 0, \"stream\": 7, \"External id\": -3", "External id");
    expect_range_error("corr_big.json", "\"device\": 0, \"stream\": 7, \"correlation\": 1e19", "correlation");
    /* pid/tid: uint32 in the model; negative int32 values (how some traces print thread ids) still map */
    const char pid[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 4294967296, "
                       "\"tid\": 1, \"ts\": 0, \"dur\": 1}]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("pid.json", pid, strlen(pid))), "event 0: \"pid\" is not an integer in range");
    /* the same pid as a digit string (pre-2.0 traces write ids so) is the same error */
    const char spid[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": \"4294967296\", "
                        "\"tid\": 1, \"ts\": 0, \"dur\": 1}]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("spid.json", spid, strlen(spid))),
                   "event 0: \"pid\" is not an integer in range -2147483648..4294967295 (4294967296)");
    const char stid[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
                        "\"tid\": \"-2147483649\", \"ts\": 0, \"dur\": 1}]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("stid.json", stid, strlen(stid))), "event 0: \"tid\" is not an integer in range");
    /* "-1" as a string maps like the number -1: tid 4294967295 */
    const char sneg[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
                        "\"tid\": \"-1\", \"ts\": 0, \"dur\": 1}]}";
    struct ps_model *ms = tiny_read(tiny_write("sneg.json", sneg, strlen(sneg)));
    CHECK(ms && ms->threads.n == 1 && ms->threads.v[0].tid == 4294967295u);   /* tid "-1" is 4294967295 */
    ps_model_free(ms);
    /* ... and a file whose only event cannot be placed (a GPU event without a device: pid 4294967295 is no
     * device index) says so, not "not a PyTorch profiler trace?" */
    const char gone[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 4294967295, "
                        "\"tid\": 7, \"ts\": 0, \"dur\": 1}]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("gone.json", gone, strlen(gone))), "none of its 1 trace events could be placed");
    const char tid[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
                       "\"tid\": -2147483649, \"ts\": 0, \"dur\": 1}]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("tid.json", tid, strlen(tid))), "event 0: \"tid\" is not an integer in range");
    const char rank[] = "{\"distributedInfo\": {\"rank\": 4294967297}, \"traceEvents\": [" EV_STEP "]}";
    CHECK_CONTAINS(tiny_read_err(tiny_write("rank.json", rank, strlen(rank))), "\"rank\" is not an integer in range");
    /* in range: the values arrive unchanged (tid -247463936 as uint32 = 4047503360) */
    char text[1024];
    kernel_trace(text, sizeof text, "\"device\": 2147483647, \"stream\": 7, \"bytes\": 9223372036854775807");
    struct ps_model *m = tiny_read(tiny_write("edge.json", text, strlen(text)));
    if (m && m->gpu.n == 1) {
        struct ps_gpu_op op = ps_model_gpu(m, 0);
        CHECK_EQ(m->streams.v[op.stream].device, 2147483647);
        CHECK_EQ(op.bytes, 9223372036854775807LL);
    }
    ps_model_free(m);
    const char neg_tid[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
                           "\"tid\": -247463936, \"ts\": 0, \"dur\": 1}]}";
    m = tiny_read(tiny_write("neg_tid.json", neg_tid, strlen(neg_tid)));
    if (m && m->threads.n == 1)
        CHECK_EQ(m->threads.v[0].tid, 4047503360LL);
    ps_model_free(m);
}

/* #14: libkineto's "overhead" (CUPTI overhead samples) and "cuda_profiler_range" events are no step time: counted
 * apart, never unplaced. A category of another device runtime ("xpu_runtime") is work the model misses: unplaced. */
static void by_design_categories_are_not_unplaced(void)
{
    const char text[] =
        "{\"traceEvents\": [" EV_STEP ","
        " {\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Buffer Flush\", \"pid\": -1, \"tid\": 0, \"ts\": 1, \"dur\": 2},"
        " {\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Instrumentation\", \"pid\": -1, \"tid\": 0, \"ts\": 5, \"dur\": 2},"
        " {\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"r\", \"pid\": 0, \"tid\": 0, \"ts\": 5, \"dur\": 2}"
        "]}";
    struct ps_model *m = tiny_read(tiny_write("overhead.json", text, strlen(text)));
    if (m) {
        CHECK_EQ(m->unplaced_events, 0);
        CHECK_STR(meta_value(m, "unplaced_events"), "");
        CHECK_STR(meta_value(m, "ignored_events"), "overhead: 2; cuda_profiler_range: 1");
        CHECK_EQ(m->ranges.n, 1);
    }
    ps_model_free(m);
    const char xpu[] = "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"xpu_runtime\", \"name\": \"x\", "
                       "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}";
    m = tiny_read(tiny_write("xpu.json", xpu, strlen(xpu)));
    if (m) {
        CHECK_EQ(m->unplaced_events, 1);
        CHECK_STR(meta_value(m, "ignored_events"), "");
    }
    ps_model_free(m);
}

/* "byte N" must be the 0-based offset of the offending byte, found here by searching the text. */
static void expect_at(const char *file, const char *text, size_t at, const char *what)
{
    char want[64];
    snprintf(want, sizeof want, "byte %zu of the JSON", at);
    const char *err = tiny_read_err(tiny_write(file, text, strlen(text)));
    CHECK_CONTAINS(err, want);
    CHECK_CONTAINS(err, what);
}

/* #15: NaN at 0-based 121 was reported as byte 122; trailing garbage one late too. */
static void error_offsets_are_exact_zero_based(void)
{
    const char nan[] = "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"dur\": NaN}]}";
    expect_at("nan.json", nan, (size_t)(strstr(nan, "NaN") - nan), "invalid char");
    const char garbage[] = "{\"traceEvents\": [" EV_STEP "]}garbage";
    expect_at("garbage.json", garbage, (size_t)(strstr(garbage, "garbage") - garbage), "trailing garbage");
    const char ctrl[] = "{\"traceEvents\": [{\"name\": \"a\x01\"}]}";
    expect_at("ctrl.json", ctrl, (size_t)(strchr(ctrl, '\x01') - ctrl), "invalid character inside string");
    const char comma[] = "{\"traceEvents\": [{\"ph\": \"X\"},, {}]}";
    expect_at("comma.json", comma, (size_t)(strstr(comma, ",,") - comma) + 1, "unallowed token");
    const char colon[] = "{\"traceEvents\": [{\"ph\" \"X\"}]}";
    expect_at("colon.json", colon, (size_t)(strstr(colon, "\"X\"") - colon), "colon");
    const char number[] = "{\"traceEvents\": [{\"ts\": 1 2}]}";
    expect_at("number.json", number, (size_t)(strstr(number, "2}") - number), "parse error");
    const char string[] = "{\"traceEvents\": [{\"ts\": 1 \"xy\"}]}";
    expect_at("string.json", string, (size_t)(strstr(string, "\"xy") - string), "parse error");
    const char lit[] = "{\"other\": [1 true], \"traceEvents\": []}";
    expect_at("lit.json", lit, (size_t)(strstr(lit, "true") - lit), "parse error");
    const char key[] = "{\"traceEvents\": [{\"a\": 1, }]}";
    expect_at("key.json", key, (size_t)(strstr(key, "}]") - key), "object key");
    const char lead[] = "{\"traceEvents\": [ , 1]}";
    expect_at("lead.json", lead, (size_t)(strstr(lead, ",") - lead), "unallowed token");
    const char sep[] = "{\"traceEvents\" , []}";
    expect_at("sep.json", sep, (size_t)(strstr(sep, ",") - sep), "colon");
    const char tail_num[] = "{\"traceEvents\": [" EV_STEP "]}  123";
    expect_at("tail_num.json", tail_num, (size_t)(strstr(tail_num, "123") - tail_num), "trailing garbage");
    const char bad_num[] = "{\"traceEvents\": [{\"ts\": 1.}]}";
    expect_at("bad_num.json", bad_num, (size_t)(strstr(bad_num, ".}") - bad_num) + 1, "decimal point");
    /* a byte-order mark counts: the offsets are of the file's bytes */
    const char bom[] = "\xef\xbb\xbf{\"traceEvents\": [{\"ph\": \"X\", \"dur\": NaN}]}";
    expect_at("bom.json", bom, (size_t)(strstr(bom, "NaN") - bom), "invalid char");
    const char cut[] = "{\"traceEvents\": [" EV_STEP ", {\"ph\": ";
    char want[64];
    snprintf(want, sizeof want, "ends after %zu bytes", strlen(cut));
    CHECK_CONTAINS(tiny_read_err(tiny_write("cut.json", cut, strlen(cut))), want);
}

/* #18: the Trace Event Format's JSON Array Format may end without ']' (after an event, or a ','); a text cut
 * inside an event is still truncated. */
static void array_format_without_closing_bracket(void)
{
    const char *texts[] = { "[" EV_STEP ", " EV_STEP, "[" EV_STEP ", " EV_STEP ",\n", "[" EV_STEP ", " EV_STEP "]" };
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "arr%d.json", i);
        struct ps_model *m = tiny_read(tiny_write(name, texts[i], strlen(texts[i])));
        if (m)
            CHECK_EQ(m->ranges.n, 2);
        ps_model_free(m);
    }
    const char cut[] = "[" EV_STEP ", {\"ph\": \"X\", \"na";
    CHECK_CONTAINS(tiny_read_err(tiny_write("arr_cut.json", cut, strlen(cut))), "truncated JSON");
    const char cut_str[] = "[" EV_STEP ", \"abc";
    CHECK_CONTAINS(tiny_read_err(tiny_write("arr_cut_str.json", cut_str, strlen(cut_str))), "truncated JSON");
    /* the object form still needs its closing brackets */
    const char obj[] = "{\"traceEvents\": [" EV_STEP;
    CHECK_CONTAINS(tiny_read_err(tiny_write("obj_cut.json", obj, strlen(obj))), "truncated JSON");
}

/* #9b: a name of 3 MB (12 parser chunks of 256 KB) with escapes on the way, plain and gzip, arrives whole. */
static void long_name_across_chunks(void)
{
    size_t n = 3 * 1024 * 1024;
    const char head[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"";
    const char tail[] = "\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 5}, " EV_STEP "]}";
    char *text = malloc(sizeof head + n + sizeof tail);
    if (!text)
        return;
    memcpy(text, head, sizeof head - 1);
    char *p = text + sizeof head - 1;
    for (size_t i = 0; i < n; i++)
        p[i] = i % 100000 == 99998 ? '\\' : i % 100000 == 99999 ? '"' : 'a';   /* \" every 100000 bytes: one " */
    memcpy(p + n, tail, sizeof tail);
    size_t quotes = n / 100000;   /* each \" decodes to one byte: the name has n - quotes bytes */
    for (int gz = 0; gz < 2; gz++) {
        const char *path = gz ? tiny_write_gz("long.json.gz", text) : tiny_write("long.json", text, strlen(text));
        struct ps_model *m = tiny_read(path);
        if (m && m->ranges.n == 2) {
            const char *a = ps_model_str(m, m->ranges.v[0].name), *b = ps_model_str(m, m->ranges.v[1].name);
            const char *name = strlen(a) > strlen(b) ? a : b;
            CHECK_EQ(strlen(name), n - quotes);
            CHECK_EQ(name[99998], '"');
            CHECK_EQ(name[0], 'a');
        } else {
            CHECK(m && m->ranges.n == 2);
        }
        ps_model_free(m);
    }
    free(text);
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "out_of_range_integers_are_errors", .fn = out_of_range_integers_are_errors },
        { "by_design_categories_are_not_unplaced", .fn = by_design_categories_are_not_unplaced },
        { "error_offsets_are_exact_zero_based", .fn = error_offsets_are_exact_zero_based },
        { "array_format_without_closing_bracket", .fn = array_format_without_closing_bracket },
        { "long_name_across_chunks", .fn = long_name_across_chunks },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
