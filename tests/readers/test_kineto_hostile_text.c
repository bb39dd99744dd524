/* The Kineto readers against hostile text (the hardening issue): one rule on both JSON parsers for text that is not
 * UTF-8 and for strings and numbers longer than 16 MiB (docs/readers.md, "Strings and numbers: length and UTF-8"),
 * and one rule for an event's times that the trace model and the per-operator model (`export --format tracelens`)
 * share (docs/readers.md, "Timestamps"). Usage: test_kineto_hostile_text CASE. */
#include <errno.h>

#include "cases.h"
#include "model/op_trace.h"
#include "ps_utf8.h"
#include "tinyfs.h"

#define EV_STEP "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, " \
                "\"ts\": 0, \"dur\": 100}"
/* docs/readers.md: the longest string (its bytes between the quotes, as written) or number the readers take */
#define TOKEN_MAX ((size_t)16 << 20)

/* Read `path` with one JSON parser: 0 and *m (ps_model_free it), or the read's negative errno and the message. */
static int read_with(const char *path, enum ps_json_parser parser, struct ps_model **m, char *err, size_t errlen)
{
    *m = NULL;
    err[0] = '\0';
    return ps_read_trace_with(path, &(struct ps_read_opts){ .parser = parser }, m, err, errlen);
}

/* The name of the trace's one cpu_op range ("" when there is none). */
static const char *op_name(const struct ps_model *m)
{
    for (size_t i = 0; i < m->ranges.n; i++)
        if (m->ranges.v[i].kind == PS_RANGE_CPU_OP)
            return ps_model_str(m, m->ranges.v[i].name);
    return "";
}

/* A trace whose cpu_op (event 1) is named `name` (JSON text between the quotes) and whose first arg is `key`. */
static size_t name_trace(char *buf, size_t cap, const char *name, const char *key)
{
    return (size_t)snprintf(buf, cap, "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                            "\"%s\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"%s\": 1}}]}", name, key);
}

/* #11: overlong forms, encoded surrogates, bytes no UTF-8 has and \u escapes of half a surrogate pair were taken by
 * libyajl (C0 AF, ED A0 80 into names, printed raw) where simdjson declined them; FF FE was refused. Now both
 * refuse all of them: the simdjson path declines, libyajl's read names the byte. Valid text reads alike on both. */
static void refuses_text_that_is_not_utf8_on_both_parsers(void)
{
    static const struct {
        const char *file, *text, *shown;   /* shown: what the message quotes */
    } bad[] = {
        { "ff_fe.json", "a\xff\xfe" "b", "0xFF" },
        { "overlong_slash.json", "a\xc0\xaf" "b", "0xC0" },
        { "overlong_nul.json", "a\xc0\x80" "b", "0xC0" },   /* the model's own NUL stand-in: never from a file */
        { "encoded_surrogate.json", "a\xed\xa0\x80" "b", "0xED 0xA0" },
        { "above_u10ffff.json", "a\xf4\x90\x80\x80" "b", "0xF4 0x90" },
        { "continuation_alone.json", "a\x80" "b", "0x80" },
        { "cut_by_the_quote.json", "a\xe2\x82", "0xE2 0x82 0x22" },
        { "lone_high_escape.json", "a\\ud800b", "\\ud800" },
        { "lone_low_escape.json", "a\\udc00b", "\\udc00" },
        { "two_high_escapes.json", "a\\ud800\\ud800b", "\\ud800" },
        { "high_then_a_letter_escape.json", "a\\ud800\\u0041", "\\ud800" },
        { "high_then_newline_escape.json", "a\\ud800\\nb", "\\ud800" },
        { "high_at_the_end.json", "a\\ud800", "\\ud800" },
    };
    char text[1024], err[512], want[96];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int in_key = 0; in_key < 2; in_key++) {
            size_t n = in_key ? name_trace(text, sizeof text, "op", bad[i].text)
                              : name_trace(text, sizeof text, bad[i].text, "x");
            /* the byte named: the first of the bad part, right after the 'a' that starts it */
            size_t at = (size_t)(strstr(text, in_key ? "{\"a" : "\"a") - text) + (in_key ? 3 : 2);
            char file[64];
            snprintf(file, sizeof file, "%s%s", in_key ? "key_" : "", bad[i].file);
            const char *path = tiny_write(file, text, n);
            struct ps_model *m;
            CHECK(read_with(path, PS_JSON_PARSER_SIMDJSON, &m, err, sizeof err) == -ENOTSUP,
                  "%s: the simdjson path took it", file);
            ps_model_free(m);
            CHECK(read_with(path, PS_JSON_PARSER_YAJL, &m, err, sizeof err) == -EINVAL, "%s: libyajl took it", file);
            ps_model_free(m);
            snprintf(want, sizeof want, "byte %zu of the JSON (event 1): invalid JSON: a string holds %s", at,
                     bad[i].shown);
            CHECK_CONTAINS(err, want);
            CHECK_STR(tiny_read_err(path), err);   /* ps_read_trace: the fast path declines, libyajl says why */
        }
    }
    /* well-formed text, raw or escaped, reads alike on both (a pair of escapes is one character; \u0000 a NUL,
     * held as C0 80) */
    static const struct {
        const char *text, *held;
    } good[] = {
        { "caf\xc3\xa9", "caf\xc3\xa9" }, { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
        { "\\ud83d\\ude00", "\xf0\x9f\x98\x80" }, { "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
        { "\xed\x9f\xbf", "\xed\x9f\xbf" }, { "\xee\x80\x80", "\xee\x80\x80" }, { "\\uffff", "\xef\xbf\xbf" },
        { "a\\u0000b", "a\xc0\x80" "b" }, { "\\ud800\\udc00", "\xf0\x90\x80\x80" },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t n = name_trace(text, sizeof text, good[i].text, "x");
        const char *path = tiny_write("good.json", text, n);
        for (int p = PS_JSON_PARSER_YAJL; p <= PS_JSON_PARSER_SIMDJSON; p++) {
            struct ps_model *m;
            int rc = read_with(path, (enum ps_json_parser)p, &m, err, sizeof err);
            CHECK(rc == 0, "%s (parser %d): %s", good[i].text, p, err);
            if (rc == 0)
                CHECK_STR(op_name(m), good[i].held);
            ps_model_free(m);
        }
    }
}

/* The streaming check (ps_utf8_next, libyajl's path) takes exactly the texts the whole-text check (ps_utf8_valid)
 * takes: every sequence of one to three bytes, and of four bytes every lead with every second byte and a few
 * third and fourth ones. */
static void utf8_stream_check_agrees_with_the_whole_text_check(void)
{
    static const unsigned char some[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0,
                                          0xED, 0xF0, 0xF4, 0xF5, 0xFF };
    long mismatches = 0;
    unsigned char s[4];
    for (unsigned long x = 0; x < (1ul << 24) + (1ul << 16) + 256; x++) {
        size_t n = x < 256 ? 1 : x < 256 + (1ul << 16) ? 2 : 3;
        unsigned long v = n == 1 ? x : n == 2 ? x - 256 : x - 256 - (1ul << 16);
        for (size_t k = 0; k < n; k++)
            s[k] = (unsigned char)(v >> (8 * k));
        struct ps_utf8_stream u = { 0 };
        int ok = 1;
        for (size_t k = 0; k < n && ok; k++)
            ok = ps_utf8_next(&u, s[k]);
        ok = ok && u.need == 0;
        if (ok != ps_utf8_valid((const char *)s, n) && mismatches++ < 5)
            CHECK(0, "%zu bytes %02x %02x %02x: stream %d, whole %d", n, s[0], s[1], s[2], ok, !ok);
    }
    for (unsigned lead = 0xF0; lead <= 0xFF; lead++)
        for (unsigned b1 = 0; b1 < 256; b1++)
            for (size_t j = 0; j < sizeof some; j++)
                for (size_t k = 0; k < sizeof some; k++) {
                    s[0] = (unsigned char)lead, s[1] = (unsigned char)b1, s[2] = some[j], s[3] = some[k];
                    struct ps_utf8_stream u = { 0 };
                    int ok = 1;
                    for (size_t i = 0; i < 4 && ok; i++)
                        ok = ps_utf8_next(&u, s[i]);
                    ok = ok && u.need == 0;
                    if (ok != ps_utf8_valid((const char *)s, 4) && mismatches++ < 5)
                        CHECK(0, "%02x %02x %02x %02x: stream %d, whole %d", s[0], s[1], s[2], s[3], ok, !ok);
                }
    CHECK_EQ(mismatches, 0);
}

/* A trace with one cpu_op (event 1) whose name, or the value of its arg "x", is `body` (n bytes, raw). */
static const char *long_token_trace(const char *file, const char *body, size_t n, int as_number)
{
    static const char head_name[] = "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"";
    static const char tail_name[] = "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
    static const char head_num[] = "{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                   "\"op\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"x\": ";
    static const char tail_num[] = "}}]}";
    const char *head = as_number ? head_num : head_name, *tail = as_number ? tail_num : tail_name;
    size_t nh = strlen(head), nt = strlen(tail);
    char *text = malloc(nh + n + nt);
    if (!text) {
        CHECK(0, "out of memory");
        exit(1);
    }
    memcpy(text, head, nh);
    memcpy(text + nh, body, n);
    memcpy(text + nh + n, tail, nt);
    const char *path = tiny_write(file, text, nh + n + nt);
    free(text);
    return path;
}

/* The three parsers on a file that holds one token too long, starting at byte `at` (`what`: "string", "number"). */
static void expect_too_long(const char *path, size_t at, const char *what)
{
    char err[512], want[128];
    struct ps_model *m;
    CHECK(read_with(path, PS_JSON_PARSER_SIMDJSON, &m, err, sizeof err) == -ENOTSUP, "%s: the simdjson path took it",
          path);
    ps_model_free(m);
    CHECK(read_with(path, PS_JSON_PARSER_YAJL, &m, err, sizeof err) == -EINVAL, "%s: libyajl took it", path);
    ps_model_free(m);
    snprintf(want, sizeof want, "byte %zu of the JSON (event 1): a %s longer than 16 MiB starts here", at, what);
    CHECK_CONTAINS(err, want);
    CHECK_STR(tiny_read_err(path), err);
}

/* #2: a string or number of any length reached libyajl, which holds a token whole (a 1 GB name took 5.26 GB, a
 * 10 GB one crashed). 16 MiB between the quotes is taken by both parsers, one byte more refused by both, whether
 * the bytes are plain or escapes (the text is measured as written: 16 MiB of \u0041 is 2.7 MB of name); numbers
 * alike. The byte named is the token's first (the opening quote, the first digit). */
static void takes_strings_and_numbers_of_16_mib_and_refuses_longer_on_both_parsers(void)
{
    char *body = malloc(TOKEN_MAX + 8), err[512];
    if (!body)
        return;
    const size_t name_at = strlen("{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": ");
    const size_t num_at = strlen("{\"traceEvents\": [" EV_STEP ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                 "\"op\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"x\": ");
    /* plain: exactly TOKEN_MAX bytes read whole, one more refused */
    memset(body, 'a', TOKEN_MAX + 1);
    const char *path = long_token_trace("plain_max.json", body, TOKEN_MAX, 0);
    for (int p = PS_JSON_PARSER_AUTO; p <= PS_JSON_PARSER_SIMDJSON; p++) {
        struct ps_model *m;
        int rc = read_with(path, (enum ps_json_parser)p, &m, err, sizeof err);
        CHECK(rc == 0, "a name of 16 MiB (parser %d): %s", p, err);
        if (rc == 0)
            CHECK_EQ(strlen(op_name(m)), TOKEN_MAX);
        ps_model_free(m);
    }
    expect_too_long(long_token_trace("plain_over.json", body, TOKEN_MAX + 1, 0), name_at, "string");
    /* escapes: 2,796,202 "\u0041" and 4 more bytes are 16 MiB + 1 as written, a name of 2.8 MB */
    size_t n = 0;
    while (n + 6 <= TOKEN_MAX)
        memcpy(body + n, "\\u0041", 6), n += 6;
    memcpy(body + n, "aaaaaa", TOKEN_MAX + 1 - n);
    expect_too_long(long_token_trace("escaped_over.json", body, TOKEN_MAX + 1, 0), name_at, "string");
    path = long_token_trace("escaped_max.json", body, TOKEN_MAX, 0);
    struct ps_model *m = tiny_read(path);
    if (m)
        CHECK_EQ(strlen(op_name(m)), TOKEN_MAX / 6 + TOKEN_MAX % 6);
    ps_model_free(m);
    /* a number: "0." and digits, TOKEN_MAX in all, in an arg the reader does not judge */
    memset(body, '1', TOKEN_MAX + 1);
    body[0] = '0', body[1] = '.';
    path = long_token_trace("number_max.json", body, TOKEN_MAX, 1);
    for (int p = PS_JSON_PARSER_YAJL; p <= PS_JSON_PARSER_SIMDJSON; p++) {
        CHECK(read_with(path, (enum ps_json_parser)p, &m, err, sizeof err) == 0, "a number of 16 MiB (parser %d): %s",
              p, err);
        ps_model_free(m);
    }
    expect_too_long(long_token_trace("number_over.json", body, TOKEN_MAX + 1, 1), num_at, "number");
    free(body);
}

/* A Tracelens-readable trace: a cpu_op launching three kernels through runtime calls linked by ac2g flows; the
 * second kernel (event 6) has `dur` and starts at `ts`. */
static const char *ops_trace(const char *file, const char *ts, const char *dur)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                "\"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 100, \"args\": {\"Input Dims\": "
                                "[[4, 4], [4, 4]], \"Input type\": [\"float\", \"float\"]}}");
    for (int k = 1; k <= 3; k++) {
        n += (size_t)snprintf(text + n, sizeof text - n, ", {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                              "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": "
                              "{\"correlation\": %d}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_%d\", "
                              "\"pid\": 0, \"tid\": 7, \"ts\": %s, \"dur\": %s, \"args\": {\"correlation\": %d, "
                              "\"stream\": 7}}, {\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": %d, "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %d}, {\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": "
                              "\"ac2g\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %d, \"bp\": \"e\"}", 8 + 3 * k, k,
                              k, k == 2 ? ts : k == 1 ? "20" : "40", k == 2 ? dur : "4", k, k, 8 + 3 * k, k,
                              10 + 10 * k);
    }
    n += (size_t)snprintf(text + n, sizeof text - n, "]}");
    return tiny_write(file, text, n);
}

/* #4: `export --format tracelens` read the operator events on its own and took what `report` refuses: a dur of
 * +-1e400 became inf / -inf (and UBSan fired in op_perf_short.c's histogram), 1e300 and 9.2e18 absurd times, a
 * negative dur a negative kernel time. Now the operator events are read beside the trace model, in its pass: a
 * file the model's read refuses is refused with the same message, and an event the model leaves out for its times
 * is left out of the operator events too. */
static void operator_events_are_the_events_the_model_keeps(void)
{
    char err[512], oerr[512];
    /* beyond +-2^63 ns, +-9.2e15 µs */
    static const char *const refused[] = { "1e400", "-1e400", "1e300", "9.2e18", "9.3e15", "-9.3e15" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *path = ops_trace("refused.json", "30", refused[i]);
        snprintf(err, sizeof err, "%s", tiny_read_err(path));
        CHECK_CONTAINS(err, "event 6: \"dur\" is not a number of µs in range");
        struct ps_op_trace *t = NULL;
        CHECK(ps_read_kineto_ops(path, &t, oerr, sizeof oerr) == -EINVAL, "dur %s: the operator events took it",
              refused[i]);
        CHECK_STR(oerr, err);
        ps_op_trace_free(t);
    }
    /* events 23 days apart (2e12 µs): report refused the file, export wrote it */
    const char *path = ops_trace("span.json", "2000000000000", "4");
    snprintf(err, sizeof err, "%s", tiny_read_err(path));
    CHECK_CONTAINS(err, "the events span more than 13 days");
    struct ps_op_trace *t = NULL;
    CHECK(ps_read_kineto_ops(path, &t, oerr, sizeof oerr) == -EINVAL);
    CHECK_STR(oerr, err);
    ps_op_trace_free(t);
    /* left out by both: a dur below zero however it rounds, and an end past int64 ns (the times near its end, so
     * that the events span less than 13 days: the 808 ns end at 2^63 ns, the 807 ns one just fits) */
    static const struct {
        const char *ts, *dur;
        int kept;
    } cases[] = {
        { "30", "-5", 0 }, { "30", "-0.0004", 0 }, { "30", "-1e-400", 0 }, { "30", "-0", 1 }, { "30", "0.0004", 1 },
        { "30", "4", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        path = ops_trace("kept.json", cases[i].ts, cases[i].dur);
        struct ps_model *m = tiny_read(path);
        if (m) {
            CHECK(m->gpu.n == (size_t)(2 + cases[i].kept) && m->unplaced_events == !cases[i].kept,
                  "dur %s: %zu kernels in the model, %lld unplaced", cases[i].dur, m->gpu.n, (long long)m->unplaced_events);
        }
        ps_model_free(m);
        t = NULL;
        CHECK(ps_read_kineto_ops(path, &t, oerr, sizeof oerr) == 0, "%s", oerr);
        if (t) {
            size_t kernels = 0, negative = 0;
            for (size_t k = 0; k < t->ev.n; k++) {
                kernels += t->ev.v[k].cat == PS_OPEV_KERNEL;
                negative += t->ev.v[k].dur_us < 0;
            }
            CHECK(kernels == (size_t)(2 + cases[i].kept) && negative == 0,
                  "dur %s: %zu kernels in the operator events, %zu negative", cases[i].dur, kernels, negative);
        }
        ps_op_trace_free(t);
    }
    /* the end's limit, exactly: 9223372036854775 µs + 0.807 µs is 2^63 - 1 ns, + 0.808 µs one past it (the
     * doubles cannot tell them apart: the exact ns decide) */
    static const char far[] =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 9223372036850000, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"fits\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": 9223372036854775, \"dur\": 0.807}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
        "\"past\", \"pid\": 0, \"tid\": 7, \"ts\": 9223372036854775, \"dur\": 0.808}]}";
    path = tiny_write("far.json", far, strlen(far));
    struct ps_model *m = tiny_read(path);
    if (m) {
        CHECK_EQ(m->gpu.n, (size_t)1);
        CHECK_EQ(m->unplaced_events, 1);
    }
    ps_model_free(m);
    t = NULL;
    CHECK(ps_read_kineto_ops(path, &t, oerr, sizeof oerr) == 0, "%s", oerr);
    if (t) {
        CHECK_EQ(t->ev.n, (size_t)2);
        if (t->ev.n == 2)
            CHECK_STR(ps_op_trace_str(t, t->ev.v[1].name), "fits");
    }
    ps_op_trace_free(t);
    /* a SQLite file is no Kineto trace: said at once */
    static const char sqlite_head[] = "SQLite format 3";
    path = tiny_write("trace.sqlite", sqlite_head, sizeof sqlite_head);
    CHECK(ps_read_kineto_ops(path, &t, oerr, sizeof oerr) == -EINVAL);
    CHECK_CONTAINS(oerr, "a SQLite trace, not PyTorch profiler (Kineto) JSON");
}

static int setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "refuses_text_that_is_not_utf8_on_both_parsers", .fn = refuses_text_that_is_not_utf8_on_both_parsers },
        { "utf8_stream_check_agrees_with_the_whole_text_check", .fn = utf8_stream_check_agrees_with_the_whole_text_check },
        { "takes_strings_and_numbers_of_16_mib_and_refuses_longer_on_both_parsers",
          .fn = takes_strings_and_numbers_of_16_mib_and_refuses_longer_on_both_parsers },
        { "operator_events_are_the_events_the_model_keeps", .fn = operator_events_are_the_events_the_model_keeps },
    };
    static const struct case_hooks hooks = { .setup = setup, .teardown = tiny_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
