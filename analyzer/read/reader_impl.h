/* What the readers share, private to analyzer/read/ (and tests/readers/test_json_num.c, test_gz_input.c): the
 * helpers every reader calls, the gzip byte source, the exact conversion of JSON number text, and the format
 * readers' entry points that the dispatcher (reader.c) calls. Declared by file, in the files' order.
 *
 * The files' order: each calls only files before it (tests/layers/check_layers.py: no circle; shared helpers sit
 * below the files that use them, the dispatcher on top).
 *   read_common.c         messages, unplaced counts, NUL escaping and interning (calls only the model)
 *   json_num.c            JSON number text to integers, token scanning, error offsets (kineto_text.h too)
 *   gz_input.c            plain or gzip byte source
 *   json_simd.cc          simdjson's walk of one document (json_simd.h)
 *   json_fast.c           the JSON fast path: bounded windows of the text through json_simd.cc (json_fast.h)
 *   kineto_strings.c      libkineto's strings: categories, copy names, sync kinds (kineto_text.h)
 *   kineto_flows.c        ac2g flows and `M` names, applied after the parse (kineto_text.h)
 *   kineto_memory.c       [memory] records and the memory view's time origin (read_kineto_impl.h)
 *   kineto_events.c       one finished Kineto event into the model (read_kineto_impl.h)
 *   kineto_ops.c          the per-operator model's events, read beside ps_read_kineto
 *   read_kineto.c         the Kineto JSON reader: yajl callbacks, libyajl's parse, ps_read_kineto
 *   read_sqlite_schema.c  the SQLite reader's tables, columns, statements, messages (read_sqlite_impl.h)
 *   read_sqlite_open.c    its hardened connection, and ps_trace_db_*
 *   read_sqlite_ids.c     the file's ids into the model's strings and threads
 *   read_sqlite_ahead.c   a large table read ahead on a second connection and thread
 *   read_sqlite_memory.c  CUDA_GPU_MEMORY_USAGE_EVENTS and NVML memory samples
 *   read_sqlite_meta.c    PERFSCOPE_META and the tables around the activity rows
 *   read_sqlite_python.c  the Python hook's stack samples (PERFSCOPE_PYTHON_*)
 *   read_sqlite.c         the activity tables, ps_read_sqlite
 *   reader.c              ps_read_trace: format detection, dispatch, ps_model_finish; ps_read_kineto_ops
 *   follow.c              following a growing SQLite trace (ps_follow_*) */
#ifndef PS_READER_IMPL_H
#define PS_READER_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

#include "model/idmap.h"
#include "model/model.h"
#include "read/reader.h"

/* ---- read_common.c ---- */

/* printf into err, truncating; always NUL-terminates when errlen > 0. Returns -EINVAL (for `return
 * ps_read_fail(..)` on input the reader cannot read). ps_read_oom: "PATH: out of memory", returns -ENOMEM. */
int ps_read_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ps_read_oom(char *err, size_t errlen, const char *path);

/* Text from a trace keeps all its bytes: model names are C strings, so a NUL byte inside one (which would cut
 * "ProfilerStep#1<NUL>x" to the step "ProfilerStep#1", or "kernel<NUL>cpu_op" to the category "kernel") becomes
 * the two bytes PS_UTF8_NUL (common/ps_utf8.h): never valid text, so a name holding the printable text \x00 stays
 * another name; reports show it as \x00, JSON as \u0000.
 * ps_nul_escape: writes s[0..len) so escaped and a NUL to out (NULL: only counts); returns the escaped length.
 * ps_nul_escape_into: the same into *buf (*cap bytes, grown with realloc, doubling from 256), *n its length; 0 or
 * -ENOMEM (the caller frees *buf).
 * ps_nul_escape_dup: the same in a malloc'ed string: 0 and *out (the caller frees it), or -ENOMEM (*out NULL).
 * ps_intern_bytes: ps_model_intern of the escaped text (PS_NONE when out of memory). */
size_t ps_nul_escape(char *out, const char *s, size_t len);
int ps_nul_escape_into(char **buf, size_t *cap, size_t *n, const char *s, size_t len);
int ps_nul_escape_dup(const char *s, size_t len, char **out);
uint32_t ps_intern_bytes(struct ps_model *m, const char *s, size_t len);

/* Events a reader read but could not place in the model, counted by reason ("overhead (category not
 * modelled)", "NVTX_EVENTS rows without globalTid"): each one increments model.unplaced_events; the reasons and
 * their counts become the model metadata entry "unplaced_events" (ps_unplaced_summary). Reasons beyond
 * the table's size are counted under "other". */
#define PS_UNPLACED_KINDS 24
struct ps_unplaced {
    struct {
        char what[80];
        long long count;
    } kinds[PS_UNPLACED_KINDS];
    int n;
};
void ps_unplaced_count(struct ps_unplaced *u, struct ps_model *m, const char *what);
int ps_unplaced_summary(const struct ps_unplaced *u, struct ps_model *m);   /* 0 or -ENOMEM */

/* ---- json_num.c (its token scanning: kineto_text.h) ---- */

/* Exact decimal-µs -> integer-ns conversion of a JSON number's text (no floating point):
 * "12.345" -> 12345, "1623143089861.123" -> 1623143089861123000, "1.5e3" -> 1500000.
 * Digits below 1 ns are rounded half to even. Returns 0, or -EINVAL if the text is not a JSON number
 * or the result does not fit in int64. */
int ps_parse_us_to_ns(const char *s, size_t len, int64_t *out_ns);
/* Exact JSON integer (also "7.0", "1e3"); -EINVAL if not an integer or out of int64 range. */
int ps_parse_int(const char *s, size_t len, int64_t *out);
/* 1 when s[0..len) is exactly a decimal integer (an optional '-', then 1 to 20 digits: no sign '+', space, fraction,
 * exponent or hex), as ROCm's tracer writes args numbers in strings ("bytes": "128"); else 0. */
int ps_json_integer_text(const unsigned char *s, size_t len);
/* 1 when the JSON number s[0..len) is below zero: a minus sign and a digit other than 0 before any exponent
 * ("-0.0004" is, "-0" and "-0.0e5" are not), however close to zero it rounds. */
int ps_json_number_negative(const char *s, size_t len);
/* The one rule for a Kineto event's times, for each reader of them (the trace model's, kineto_events.c; the
 * per-operator model's, kineto_ops.c), so that report and export see the same events (docs/readers.md,
 * "Timestamps"): "ts" and "dur" are JSON numbers of µs whose exact ns fit int64 (ps_parse_us_to_ns; any other
 * number refuses the file), and an event has a place only when its dur is not below zero as written
 * (dur_negative: ps_json_number_negative; "-0.0004" is 0 ns, but a TraceLens table would show it negative) and its
 * end, ts + dur, fits int64 ns (else it is unplaced: "with negative dur"). 1 when it has. */
static inline int ps_event_times_ok(int64_t ts_ns, int64_t dur_ns, int dur_negative)
{
    return !dur_negative && dur_ns >= 0 && ts_ns <= INT64_MAX - dur_ns;
}

/* ---- gz_input.c ---- */

/* Byte source for the JSON reader: plain or gzip (streamed through zlib), read chunk by chunk.
 * ps_gz_read returns bytes placed in buf (0 at a clean end), or a negative errno (-EINVAL for a truncated or corrupt
 * gzip stream, the read's errno for a read error) with a message in err naming the compressed byte offset. */
struct ps_gz_input;
/* chunk: bytes of compressed input read at a time. 0 and *out (ps_gz_close it; it does not own fd), or -ENOMEM
 * (*out NULL). */
int ps_gz_open(int fd, int gzip, size_t chunk, struct ps_gz_input **out);
long ps_gz_read(struct ps_gz_input *in, char *buf, size_t len, const char *path, char *err, size_t errlen);
void ps_gz_close(struct ps_gz_input *in);             /* NULL is a no-op */

/* ---- kineto_ops.c ---- */

/* The per-operator model's event callbacks on a context of their own, for the pass ps_read_kineto drives:
 * new (0 and *out, or -ENOMEM), the callbacks (cannot fail), and finish (ok: the pass succeeded): 0 and *out the
 * events when ok (the caller frees them; NULL when !ok: the pass failed, there is nothing to hand over), or -ENOMEM
 * when memory ran out for the events (*out NULL); the context is freed either way (ops NULL: 0, *out NULL). */
struct ps_kineto_ops;
int ps_kineto_ops_new(struct ps_kineto_ops **out);
const yajl_callbacks *ps_kineto_ops_callbacks(void);
int ps_kineto_ops_finish(struct ps_kineto_ops *ops, int ok, struct ps_op_trace **out);

/* ---- read_kineto.c and read_sqlite.c: the format readers, for reader.c ---- */

/* Each reader fills a fresh model `m` (created by reader.c) from `path`, without calling ps_model_finish.
 * Returns 0, or a negative errno (-EINVAL: the trace is not one it can read; -ENOMEM; -EIO and the like: a read
 * failed) with a one-line message in err (errlen bytes) that names the file and the place. */
int ps_read_sqlite(const char *path, struct ps_model *m, char *err, size_t errlen);
/* `fd` is open on `path` at offset 0; `gzip` says the content starts with the gzip magic 1f 8b.
 * ops (may be NULL): the per-operator model's events are collected in the same pass (kineto_ops.c's callbacks
 * beside the reader's) and, when the read succeeds, become m->op_events; ops is consumed either way.
 * *declined: 1 when the fast path (parser AUTO or SIMDJSON) declined the text (0 is returned, m holds a partial
 * read): read it again, from offset 0, with PS_JSON_PARSER_YAJL into a new model; else 0. */
int ps_read_kineto(const char *path, int fd, int gzip, enum ps_json_parser parser, struct ps_kineto_ops *ops,
                   struct ps_model *m, int *declined, char *err, size_t errlen);

#endif
