/* Private to the SQLite reader (read_sqlite*.c; follow.c): its state while reading one file and the helpers its
 * parts use, declared by file in the files' order (reader_impl.h: each calls only files before it). Every helper
 * that fails sets the message in c->err and returns a negative errno (-EINVAL, -ENOMEM), or PS_NONE where it
 * returns an id. */
#ifndef PS_READ_SQLITE_IMPL_H
#define PS_READ_SQLITE_IMPL_H

#include <sqlite3.h>
#include <stdint.h>

#include "read/reader.h"
#include "reader_impl.h"

#define MAX_COLS 256

/* Whether a second connection sees what c->db sees (ps_sq_open sets it): a WAL-mode file that may still grow
 * (a live recording) gets none, as its rows may differ between two snapshots. */
enum ps_sq_twin { PS_SQ_TWIN_NONE, PS_SQ_TWIN_PLAIN, PS_SQ_TWIN_IMMUTABLE };

/* The integer columns of a trace-table row, each fetched once: v[i] its value, t[i] its type (SQLITE_INTEGER or
 * SQLITE_NULL; v[i] = 0 for NULL), and the row's rowid (the statement's last column). */
#define PS_SQ_ROW_COLS 12
struct ps_sq_row {
    int64_t v[PS_SQ_ROW_COLS];
    int t[PS_SQ_ROW_COLS];
    int64_t rowid;
};

struct sctx {
    sqlite3 *db;
    struct ps_model *m;
    const char *path;
    int64_t *rowid_after;             /* NULL: read every row; else, per table (enum ps_sq_table), only the rows
                                       * with a larger rowid (ps_follow_read: rows appended since the last read) */
    int64_t start_floor;              /* with rowid_after: rows that start before it are not read (INT64_MIN: all) */
    char *err;
    size_t errlen;
    sqlite3_stmt *string_stmt;        /* SELECT value FROM StringIds WHERE id = ? */
    int have_string_ids;
    int have_api;                     /* the API table has rows: GPU rows keep their correlation ids for the link */
    struct ps_idmap strings, threads, streams, copy_names, domains;
    struct ps_unplaced unplaced;
    long long dropped_parts;          /* sum of the other PERFSCOPE_META dropped* keys (-1: none) */
    int dropped_parts_bad;            /* one of them was not a count: the sum is unknown */
    /* the columns of the table being read; generated[i]: column i is computed (GENERATED ALWAYS AS) */
    char *cols[MAX_COLS];
    unsigned char generated[MAX_COLS];
    int ncols;
    /* the work bound (ps_sq_open): SQLite VM steps allowed for this file, and the steps taken so far */
    long long work_budget, work_done;
    int over_budget;                  /* the progress handler stopped a statement */
    int stopped;                      /* ... because the caller asked to stop (ps_read_set_stop) */
    int wal_missing;                  /* a WAL-mode file of an unfinished recording with no -wal beside it */
    int wal_alone;                    /* a WAL-mode file with no -wal beside it, not known to be complete */
    int64_t thread_samples_after;     /* PERFSCOPE_THREAD_SAMPLES rows up to this rowid are read (follow.c) */
    enum ps_sq_twin twin;             /* how a second connection may open the file (ps_sq_open_twin) */
};

/* The activity tables, in the order of ps_sq_tables[]. */
enum ps_sq_table { PS_SQ_KERNEL, PS_SQ_MEMCPY, PS_SQ_MEMSET, PS_SQ_SYNC, PS_SQ_RUNTIME, PS_SQ_NVTX, PS_SQ_TABLES };
extern const char *const ps_sq_tables[PS_SQ_TABLES];

/* ---- read_sqlite_schema.c: tables, columns, statements and the messages that name them ---- */

/* Column text, "" for NULL. */
const char *ps_sq_col_text(sqlite3_stmt *st, int i);
/* "out of memory" message; returns -ENOMEM. */
int ps_sq_oom(struct sctx *c);
/* 1 if `table` exists as a real table, 0 if not, -EINVAL (message set) if the database cannot be read or `table` is
 * a view or a virtual table (reading one runs code the file supplies: docs/readers.md). */
int ps_sq_table_exists(struct sctx *c, const char *table);
/* Load the column names of `table` into c->cols. */
int ps_sq_load_cols(struct sctx *c, const char *table);
/* 1 when column `col` is in c->cols (ps_sq_load_cols), 0 when absent; ps_sq_free_cols empties c->cols. */
int ps_sq_has_col(const struct sctx *c, const char *col);
void ps_sq_free_cols(struct sctx *c);
/* Append `col` (or `fallback` when absent; NULL fallback: the column is required) to the SELECT in sql. */
int ps_sq_add_col(struct sctx *c, char *sql, size_t cap, const char *table, const char *col, const char *fallback);
/* Prepare sql on the file, naming `table` in the message on failure. */
int ps_sq_prepare(struct sctx *c, const char *table, const char *sql, sqlite3_stmt **st);
/* Message for a failed sqlite3_step on `row` of `table` (the work bound's own message when the progress
 * handler stopped it); returns -EINVAL. */
int ps_sq_step_error(struct sctx *c, const char *table, long long row);
/* The "table T, column C, rowid R: text value 'x' where WANT is required" message for column i of the
 * current row of st (whose last column is the rowid), t its sqlite3_column_type. Returns -EINVAL. */
int ps_sq_type_error(struct sctx *c, sqlite3_stmt *st, const char *table, int i, int t, const char *want);

/* ---- read_sqlite_open.c: the connection ---- */

/* Open c->path read-only into c->db (0, or -EINVAL with the message set; the caller closes c->db either way). */
int ps_sq_open(struct sctx *c);
/* A second read-only connection to c's file, opened as c->db was and with its defensive settings but without
 * the work bound (its user sets its own): 0 and *db (sqlite3_close it), NULL when c->twin says no second
 * connection sees what c->db sees; or -ENOMEM / -EIO when it cannot be opened (*db NULL). Either way without one
 * the caller reads on c->db alone. */
int ps_sq_open_twin(const struct sctx *c, sqlite3 **db);
/* SQLite VM steps between two calls of a connection's progress handler (the work bound's unit). */
#define PS_SQ_WORK_STEP 1000
/* 1 when the reader's caller asked it to stop (ps_read_set_stop). */
int ps_sq_stop_requested(void);
/* Close the file (statements, column list, connection); the id maps stay (ps_sq_free_maps frees them). */
void ps_sq_close(struct sctx *c);

/* ---- read_sqlite_ids.c: the file's ids into the model's strings and threads ---- */

/* Intern text of len bytes into the model, each embedded NUL written as PS_UTF8_NUL (model
 * names are C strings). ps_sq_intern_col: column i of st ("" for NULL). PS_NONE when out of memory. */
uint32_t ps_sq_intern(struct sctx *c, const char *s, size_t len);
uint32_t ps_sq_intern_col(struct sctx *c, sqlite3_stmt *st, int i);
/* The model string for StringIds id `sid` (table.col names the column it came from): 0 and *id, or a negative
 * errno with the message set (-EINVAL: no StringIds table, or it cannot be read; -ENOMEM). An id StringIds lacks
 * is the string "(StringIds N missing)". */
int ps_sq_string_of(struct sctx *c, int64_t sid, const char *table, const char *col, uint32_t *id);
/* The model thread for an nsys globalTid. */
uint32_t ps_sq_thread_of(struct sctx *c, int64_t global_tid);

/* ---- read_sqlite_ahead.c: rows of one SELECT read ahead by a thread on a second connection ---- */

struct ps_sq_ahead;
/* Start reading `sql` (ncols integer-or-NULL columns, then the rowid) ahead, when the table holds at least
 * min_rows rows (by its largest rowid), c reads the whole file (no c->rowid_after) and a second connection and
 * thread are to be had: 1 and *out; else 0 and *out NULL (the caller steps its own statement). Cannot fail: a
 * read-ahead that cannot be had is none. */
int ps_sq_ahead_start(struct sctx *c, const char *table, const char *sql, int ncols, int64_t min_rows,
                      struct ps_sq_ahead **out);
/* The table's rows, counted when the read-ahead started (SELECT count(*)); 0 when the count failed. */
int64_t ps_sq_ahead_row_count(const struct ps_sq_ahead *a);
/* The next row read ahead into *r: 1; 0 when the read-ahead has no more: *done 1 when the statement ended
 * (SQLITE_DONE), else 0 and *delivered rows were given, after which the caller reads on with its own statement
 * (a row with another type, an SQLite error, the work bound, a stop: the caller's own step then meets it and
 * says so as it always did). */
int ps_sq_ahead_next(struct ps_sq_ahead *a, struct ps_sq_row *r, int *done, long long *delivered);
/* Stop and free the read-ahead (NULL: nothing); its SQLite steps count into c's work bound. */
void ps_sq_ahead_end(struct sctx *c, struct ps_sq_ahead *a);
/* Rows every read-ahead of this process has handed over so far (the tests' proof that it ran). */
long long ps_sq_ahead_rows(void);

/* ---- read_sqlite_memory.c ---- */

/* CUDA_GPU_MEMORY_USAGE_EVENTS (optional) into the model's memory events. 0 or -EINVAL / -ENOMEM with the message
 * set. */
int ps_sq_read_memory(struct sctx *c);

/* ---- read_sqlite_meta.c: the tables around the activity rows ---- */

/* PERFSCOPE_META, and the optional process/thread/device/sample tables. 0, or -EINVAL with the message set. */
int ps_sq_read_meta(struct sctx *c);
int ps_sq_read_host_tables(struct sctx *c, int is_perfscope);
/* PERFSCOPE_THREAD_SAMPLES rows after rowid c->thread_samples_after (optional table), of the threads the activity
 * rows named, into model.thread_samples; c->thread_samples_after moves to the last row read. Read only on traces
 * without GPU rows (where they tell host compute's waiting from its computing: analyses/verdict.c). 0, or -EINVAL
 * with the message set. */
int ps_sq_read_thread_samples(struct sctx *c);

/* ---- read_sqlite_python.c ---- */

/* The Python hook's stack samples (PERFSCOPE_PYTHON_FRAMES, _STACKS, _SAMPLES: all three, or none read) into
 * model.py_frames, py_stacks and py_samples; rows naming what no row defines are counted as unplaced. 0, or
 * -EINVAL / -ENOMEM with the message set. */
int ps_sq_read_python(struct sctx *c);

/* ---- read_sqlite_waits.c ---- */

/* The stream waits of CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (optional), each with the stream and record call of
 * CUPTI_ACTIVITY_KIND_CUDA_EVENT's matching row where the file has one, into model.stream_waits. 0, or -EINVAL /
 * -ENOMEM with the message set. */
int ps_sq_read_stream_waits(struct sctx *c);

/* ---- read_sqlite.c: the activity tables, and the whole file (reader_impl.h: ps_read_sqlite) ---- */

/* The GPU op, API call and NVTX tables (c->rowid_after: their new rows) into c->m, and a process for every thread
 * and stream owner. 0, or a negative errno (message set). */
int ps_sq_read_activity(struct sctx *c);
/* Free the id maps (strings, threads, streams, copy names, NVTX domains). */
void ps_sq_free_maps(struct sctx *c);

#endif
