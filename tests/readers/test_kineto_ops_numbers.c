/* The per-operator model's numbers and argument text, as TraceLens gets them from Python's json.load:
 *  - "ts" and "dur" are the doubles strtod gives for the JSON text (correctly rounded, as Python's float): checked
 *    bit for bit against the C library's strtod of the very text written, for 20,000 generated numbers of 1 to 19
 *    digits with 0 to 12 after the point, negative ones and exponents among them (each within what the trace
 *    model takes: times within +-5e8 µs of 0, so that the events span less than 2^50 ns, and durations not
 *    negative: model/model.h, docs/readers.md "Timestamps");
 *  - integer fields (args "correlation") are the double's integer part, so a 17-digit id comes out as its nearest
 *    double: checked against (int64_t)strtod;
 *  - "Input type" lists keep the text Python's str() prints: quotes, backslashes, control characters escaped
 *    (the expected text is what python3 printed for str() of the same list).
 * Usage: test_kineto_ops_numbers (writes its trace in $TMPDIR or /tmp). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/op_trace.h"
#include "read/reader.h"

#define N 20000

/* A JSON number's text for case i (deterministic: a linear congruential generator seeded by i). */
static void number_text_of(uint64_t i, char *out, size_t cap)
{
    uint64_t x = (uint64_t)i * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
    int digits = 1 + (int)(x % 19), frac = (int)((x >> 8) % 13), neg = (x >> 16) % 5 == 0, expo = (x >> 20) % 11 == 0;
    if (frac >= digits)
        frac = digits - 1;
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    for (int d = 0; d < digits; d++) {
        if (d == digits - frac && frac)
            out[n++] = '.';
        x = x * 2862933555777941757ull + 3037000493ull;
        out[n++] = (char)('0' + (d == 0 && digits - frac > 1 ? 1 + (x >> 33) % 9 : (x >> 33) % 10));
    }
    if (expo)
        n += (size_t)snprintf(out + n, cap - n, "e%d", (int)((x >> 40) % 9) - 4);
    out[n] = 0;
}

/* number_text_of for case i, or for the first case after it whose value lies in [lo, hi] (what the trace model
 * takes for the field it goes to). */
static void number_text(int i, double lo, double hi, char *out, size_t cap)
{
    for (uint64_t k = (uint64_t)i;; k += 1000003) {
        number_text_of(k, out, cap);
        double v = strtod(out, NULL);
        if (v >= lo && v <= hi)
            return;
    }
}

static const char *const types_json =
    "[\"it's\", \"a\\\"b\", \"tab\\t\", \"back\\\\slash\", \"\\u0001\", \"both '\\\"\", \"plain\", \"x\\u007fy\", "
    "\"nl\\n\"]";
/* python3: str(["it's", 'a"b', 'tab\t', 'back\\slash', '\x01', 'both \'"', 'plain', 'x\x7fy', 'nl\n']) */
static const char *const types_python =
    "[\"it's\", 'a\"b', 'tab\\t', 'back\\\\slash', '\\x01', 'both \\'\"', 'plain', 'x\\x7fy', 'nl\\n']";

int main(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/ps-kineto-ops-numbers-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return 1;
    static char ts[N][40], dur[N][40], id[N][40];
    fprintf(f, "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
               "\"tid\": 2, \"ts\": 5, \"dur\": 1, \"args\": {\"Input type\": %s}}", types_json);
    for (int i = 0; i < N; i++) {
        number_text(2 * i, -5e8, 5e8, ts[i], sizeof ts[i]);
        number_text(2 * i + 1, 0, 1e8, dur[i], sizeof dur[i]);
        number_text(7 * i + 3, 0, 9.2e18, id[i], sizeof id[i]);   /* correlation: 0..2^63-1 */
        if (strchr(id[i], '.') || strchr(id[i], 'e'))   /* integer fields: digits only, up to 19 */
            snprintf(id[i], sizeof id[i], "%d%s", i + 1, i % 3 ? "" : "12345678901234");
        fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %s, "
                   "\"dur\": %s, \"args\": {\"correlation\": %s, \"stream\": 7}}", ts[i], dur[i], id[i]);
    }
    fputs("\n]}\n", f);
    CHECK(fclose(f) == 0, "cannot write %s", path);

    struct ps_op_trace *t = NULL;
    char err[512] = "";
    int rc = ps_read_kineto_ops(path, &t, err, sizeof err);
    CHECK(rc == 0 && t, "ps_read_kineto_ops: %s", err);
    if (rc == 0 && t) {
        CHECK_EQ(t->ev.n, (size_t)N + 1);
        size_t bad_ts = 0, bad_dur = 0, bad_id = 0;
        for (size_t i = 1; i < t->ev.n && i <= N; i++) {
            const struct ps_op_event *e = &t->ev.v[i];
            double want_ts = strtod(ts[i - 1], NULL), want_dur = strtod(dur[i - 1], NULL);
            int64_t want_id = (int64_t)strtod(id[i - 1], NULL);
            if (memcmp(&e->ts_us, &want_ts, sizeof want_ts) != 0 && bad_ts++ < 5)
                CHECK(0, "event %zu: ts %s read as %.17g, strtod gives %.17g", i, ts[i - 1], e->ts_us, want_ts);
            if (memcmp(&e->dur_us, &want_dur, sizeof want_dur) != 0 && bad_dur++ < 5)
                CHECK(0, "event %zu: dur %s read as %.17g, strtod gives %.17g", i, dur[i - 1], e->dur_us, want_dur);
            if ((!e->has_corr || e->corr != want_id) && bad_id++ < 5)
                CHECK(0, "event %zu: correlation %s read as %lld (present: %d), want %lld", i, id[i - 1],
                      (long long)e->corr, e->has_corr, (long long)want_id);
        }
        printf("%zu events: %zu ts, %zu dur, %zu integer fields differ from strtod\n", t->ev.n - 1, bad_ts, bad_dur,
               bad_id);
        const struct ps_op_event *op = &t->ev.v[0];
        CHECK(op->args != PS_NONE && op->args < t->args.n, "the cpu_op has no arguments");
        if (op->args != PS_NONE && op->args < t->args.n)
            CHECK_STR(ps_op_trace_str(t, t->args.v[op->args].types), types_python);
    }
    ps_op_trace_free(t);
    unlink(path);
    return check_failures != 0;
}
