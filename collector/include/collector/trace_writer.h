/* The trace writer: the one SQLite connection that writes a perfscope trace (docs/trace-format.md), with the
 * pragmas, the schema, statements prepared once, batched transactions and the StringIds table.
 * Used by one thread at a time: `record` before and after the recording, the collector's writer thread during it
 * (rows.c; gpu_rows.c for the CUPTI tables), `record --recover`. Not thread-safe. */
#ifndef PS_TRACE_WRITER_H
#define PS_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct ps_tw;
struct ps_str;                      /* an interned string (collector/maps.h, private) */

/* Create the trace at `path` (the file must not exist or be empty; the caller decides about -f), set the
 * pragmas (page_size 64 KiB, WAL, synchronous=NORMAL), create the schema and fill the ENUM tables.
 * Returns 0 and *out (free with ps_tw_free), or -errno / -EIO with a message naming the file in err. */
int ps_tw_open(const char *path, struct ps_tw **out, char *err, size_t errlen);

/* Open an existing trace to go on writing it (`perfscope record --recover`): pragmas as ps_tw_open, no schema;
 * new StringIds ids follow the largest one used or reserved (PERFSCOPE_RECOVERY_REGISTERED). Same returns. */
int ps_tw_reopen(const char *path, struct ps_tw **out, char *err, size_t errlen);

/* Run SQL without results (sqlite3_exec); 0 or -EIO with "<what>" in the message. */
int ps_tw_sql(struct ps_tw *w, const char *sql, const char *what);
/* The connection, for reading (recovery reads back what a dead recorder kept). */
sqlite3 *ps_tw_db(struct ps_tw *w);

/* Close the connection (committing nothing that is open) and free everything. NULL is a no-op. */
void ps_tw_free(struct ps_tw *w);

/* Transactions. Rows are only ever written inside one: ps_tw_begin before, ps_tw_commit after.
 * Both return 0 or -EIO (message in ps_tw_errmsg). */
int ps_tw_begin(struct ps_tw *w);
int ps_tw_commit(struct ps_tw *w);

/* A statement prepared once (SQLITE_PREPARE_PERSISTENT) and finalised by ps_tw_free; NULL on an SQL error
 * (message in ps_tw_errmsg). For writers of other tables (gpu_rows.c). */
sqlite3_stmt *ps_tw_prepare(struct ps_tw *w, const char *sql);

/* Bind `s` (NUL-terminated) as TEXT parameter i of st, each invalid UTF-8 subpart replaced (common/ps_utf8.h):
 * Python's sqlite3 and pandas cannot read a column holding invalid UTF-8. Valid text, the usual case, is bound
 * without a copy (it must outlive the statement's next step). Every TEXT the writer stores goes through it:
 * ps_tw_string_define, ps_tw_meta and the row writers. */
void ps_tw_bind_text(sqlite3_stmt *st, int i, const char *s);

/* sqlite3_step + sqlite3_reset of an INSERT; 0 or -EIO (message in ps_tw_errmsg). Bindings are kept. */
int ps_tw_exec(struct ps_tw *w, sqlite3_stmt *st);

/* Intern `text` (`len` bytes, need not be NUL-terminated) without writing it: the returned string lives as
 * long as the writer. NULL: out of memory. */
struct ps_str *ps_tw_intern(struct ps_tw *w, const char *text, size_t len);

/* The StringIds id of `text`, writing its StringIds row the first time. Returns the id (> 0) or -errno. */
int64_t ps_tw_string_id(struct ps_tw *w, const char *text, size_t len);

/* A fresh StringIds id whose row is written later with ps_tw_string_define (for strings referenced before
 * they are defined, such as NVTX registered strings read from another thread's lane). */
int64_t ps_tw_string_reserve(struct ps_tw *w);
int ps_tw_string_define(struct ps_tw *w, int64_t id, const char *text);

/* PERFSCOPE_META row (insert or replace). 0 or -EIO. */
int ps_tw_meta(struct ps_tw *w, const char *name, const char *value);
int ps_tw_meta_i64(struct ps_tw *w, const char *name, int64_t value);

/* After the last commit: create the secondary indexes, checkpoint the WAL into the main file and switch to
 * journal_mode=DELETE, so the trace is one self-contained file that reads from a read-only directory.
 * 0, -EIO, or -EBUSY when another connection kept the trace in WAL mode (complete and valid, but readers
 * need a writable directory); the message is in ps_tw_errmsg. */
int ps_tw_finish(struct ps_tw *w);

/* The last error, "<path>: <what>" (one line), valid until the next call. */
const char *ps_tw_errmsg(const struct ps_tw *w);

#endif
