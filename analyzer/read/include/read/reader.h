/* Reading any supported trace into the model: perfscope and Nsight Systems SQLite exports, and
 * PyTorch profiler (Kineto) JSON, plain or gzip. The format is detected from content, not the name. */
#ifndef PS_READER_H
#define PS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Detect the format of `path` and read it into a new, finished model (ps_model_finish called).
 * Returns 0 and *out (free with ps_model_free), or a negative errno with a one-line message in err that names the
 * file and the place (table / event index / byte offset) and says what is wrong: -EINVAL for a file that is not a
 * trace it can read (its events spanning more than PS_MODEL_MAX_SPAN_NS included), -ENOMEM, or open's / read's
 * errno (-ENOENT, -EACCES, -EIO, ...). Never crashes on bad input. */
int ps_read_trace(const char *path, struct ps_model **out, char *err, size_t errlen);

/* The parser of Kineto JSON: simdjson over bounded windows, libyajl where that path declines and for every error
 * message (AUTO, what ps_read_trace uses); libyajl's streaming parse only (YAJL: the reference the fast path is
 * tested against, tests/readers/test_kineto_parsers.c); or the simdjson path only (SIMDJSON: -ENOTSUP where it
 * declines, for that test). All give the same model. */
enum ps_json_parser { PS_JSON_PARSER_AUTO, PS_JSON_PARSER_YAJL, PS_JSON_PARSER_SIMDJSON };
struct ps_read_opts {
    enum ps_json_parser parser;
    int op_events;   /* 1: a Kineto trace's model also gets op_events, the events ps_read_kineto_ops would read,
                      * from the same pass over the file (NULL when memory ran out for them only) */
};
/* ps_read_trace with options (NULL: the defaults, all zero). */
int ps_read_trace_with(const char *path, const struct ps_read_opts *o, struct ps_model **out, char *err,
                       size_t errlen);

/* ---- following a trace while it is recorded (`perfscope top`) ----
 * One growing model (model.h: ps_model_set_growing) of a perfscope or Nsight Systems SQLite trace, to which each
 * ps_follow_read adds the rows appended to the activity tables (GPU ops, CUDA API calls, NVTX events) since the
 * previous read: by rowid (the tables are append-only while a recording runs), through a read-only connection
 * opened for the read and closed after it (a recording switches its file out of WAL mode at the end, which
 * needs the only connection), in one read transaction (every table as of one moment). The reader's maps
 * (StringIds ids, threads, streams, NVTX domains) are kept between reads. After each read the model equals
 * ps_read_trace of the same file at that moment (tests/tui/test_live_follow.c), but for what a follower does not
 * read: PERFSCOPE_META is read once (the first successful read), host and GPU samples are not read, and the
 * unplaced-row reasons are counted (model.unplaced_events) but not listed. */
struct ps_follow;

/* Follow `path` (copied; nothing is read yet). NULL when out of memory. Free with ps_follow_free. */
struct ps_follow *ps_follow_new(const char *path);
void ps_follow_free(struct ps_follow *f);   /* NULL is a no-op */

/* Read what was appended since the last read into the model and finish it. Returns the rows added (>= 0), or a
 * negative errno (as ps_read_trace's) with a message in err (the file cannot be opened or read, is not SQLite, is
 * corrupt). A file replaced by another (a new inode, or a table with fewer rows than already read: a new recording
 * under the same name) starts a new model: *restarted (may be NULL) is then set to 1, else 0. After a failed read
 * the model is emptied and the next read starts over, so rows are never counted twice. */
long ps_follow_read(struct ps_follow *f, int *restarted, char *err, size_t errlen);

/* The model as of the last read (empty before the first). Valid until the next ps_follow_read,
 * ps_follow_drop_before or ps_follow_free. */
const struct ps_model *ps_follow_model(const struct ps_follow *f);

/* Drop the rows that start before cut_ns (ps_model_drop_before), but the Python hook's marks (its configuration,
 * DataLoader settings: run facts the report's PyTorch section reads from before its window). 0 or -ENOMEM. */
int ps_follow_drop_before(struct ps_follow *f, int64_t cut_ns);

/* From the next read on, do not read the rows that start before t_ns (a floor that only rises: a smaller t_ns
 * is ignored), but NVTX marks outside the default domain (run facts such as the Python hook's: few). With it, the first read of a long recording loads only its recent rows (the tables are still
 * scanned once, by SQLite, without keeping the older rows), and rows written late that start before it are not
 * added. The model then equals a whole read of the rows that start at or after the floor. */
void ps_follow_skip_before(struct ps_follow *f, int64_t t_ns);

/* ---- the per-operator performance model's events (model/op_trace.h) ----
 * Read the Kineto JSON trace `path` (plain or gzip) as TraceLens reads it: the cpu_op, runtime/driver, kernel,
 * memcpy and memset complete events in file order with their float64 µs times and traceEvents index, the cpu_ops'
 * shape arguments, the ac2g flows and the process / thread names. They are read beside the trace model, as
 * ps_read_trace_with's op_events: a file ps_read_trace refuses is refused with the same message, and an event whose
 * times the model leaves out (a negative dur: docs/readers.md, "Timestamps") is left out. Returns 0 and *out (free
 * with ps_op_trace_free), or a negative errno with a one-line message in err naming the file (-EINVAL: not a
 * Kineto trace this reader takes, a SQLite trace included; -ENOMEM; open's errno). */
struct ps_op_trace;
int ps_read_kineto_ops(const char *path, struct ps_op_trace **out, char *err, size_t errlen);

/* ---- stopping a read, and a hardened connection for a caller's own queries (`perfscope top`) ---- */

/* Every SQLite statement of this reader (ps_read_trace, ps_follow_read, ps_trace_db_*) asks stop(arg) every 1000
 * SQLite VM steps; a non-zero answer interrupts it (the read then fails with -EINVAL, "reading stopped on
 * request"). For a program that must quit promptly on a key or signal however large or crafted the file. One
 * setting per process (stop NULL: none); stop must be async-signal-safe to read what a handler writes. */
void ps_read_set_stop(int (*stop)(void *), void *arg);

/* A read-only SQLite connection to an untrusted trace file with the reader's own defences (docs/readers.md:
 * untrusted-schema settings, views and triggers off, no extensions, a bound on SQLite steps proportional to the
 * file's size, the stop request above; WAL-mode files opened as the reader opens them). 0 and *out (close with
 * ps_trace_db_close), or a negative errno with one line in err naming the file. */
struct ps_trace_db;
struct sqlite3;
int ps_trace_db_open(const char *path, struct ps_trace_db **out, char *err, size_t errlen);
/* The connection, valid until ps_trace_db_close; the caller's statements are bounded as the reader's. */
struct sqlite3 *ps_trace_db_sqlite(struct ps_trace_db *db);
/* 1 if `table` is a real table, 0 if absent, -EINVAL with the message in err when it is a view or a virtual table
 * (reading one runs code stored in the file) or the schema cannot be read. */
int ps_trace_db_has_table(struct ps_trace_db *db, const char *table, char *err, size_t errlen);
void ps_trace_db_close(struct ps_trace_db *db);   /* NULL is a no-op */

#endif
