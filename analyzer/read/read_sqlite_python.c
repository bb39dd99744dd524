/* SQLite reader, perfscope's Python stack samples (docs/trace-format.md): PERFSCOPE_PYTHON_FRAMES, _STACKS and
 * _SAMPLES into model.py_frames, py_stacks (with py_stack_frames) and py_samples. Optional: a trace recorded before
 * them, or an nsys export, has none. Calls read_sqlite_ids.c and read_sqlite_schema.c (read_sqlite_impl.h).
 *
 * The file is untrusted (docs/readers.md): a value of the wrong type is an error naming the table, column and rowid;
 * rows that name what is not there (a frame or stack id no row defines, a stack without one of its levels, a
 * sample shallower than its stack) are left out and counted (model.unplaced_events). */
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/idmap.h"
#include "read_sqlite_impl.h"

#define FRAMES "PERFSCOPE_PYTHON_FRAMES"
#define STACKS "PERFSCOPE_PYTHON_STACKS"
#define SAMPLES "PERFSCOPE_PYTHON_SAMPLES"

struct py_read {
    struct sctx *c;
    struct ps_idmap frames;         /* file frame id -> index in model.py_frames */
    struct ps_idmap stacks;         /* file stack id -> index in model.py_stacks */
    int64_t stack;                  /* the file stack being gathered (its rows come in level order) */
    int bad;                        /* ... and one of its rows was unusable: it is left out */
    uint32_t *levels;               /* its frames so far */
    size_t n, cap;
};

/* Prepare `sql` (its last column the rowid) and call row() for each row; every column in `int_cols` (a bit per
 * column) must hold an integer or NULL, every one in `text_cols` text or NULL. 0, or -EINVAL / -ENOMEM (message
 * set). */
static int each_row(struct py_read *r, const char *table, const char *sql, unsigned int_cols, unsigned text_cols,
                    int (*row)(struct py_read *, sqlite3_stmt *))
{
    struct sctx *c = r->c;
    sqlite3_stmt *st = NULL;
    int rc = ps_sq_prepare(c, table, sql, &st);
    long long n = 0;
    while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        rc = 0;
        for (int i = 0; !rc && i < sqlite3_column_count(st) - 1; i++) {
            int t = sqlite3_column_type(st, i);
            if ((int_cols >> i & 1u) && t != SQLITE_INTEGER && t != SQLITE_NULL)
                rc = ps_sq_type_error(c, st, table, i, t, "an integer");
            else if ((text_cols >> i & 1u) && t != SQLITE_TEXT && t != SQLITE_NULL)
                rc = ps_sq_type_error(c, st, table, i, t, "text");
        }
        if (!rc)
            rc = row(r, st);
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = ps_sq_step_error(c, table, n + 1);
    sqlite3_finalize(st);
    return rc;
}

static void left_out(struct py_read *r, const char *what)
{
    ps_unplaced_count(&r->c->unplaced, r->c->m, what);
}

/* (id, file, line, function, rowid) */
static int frame_row(struct py_read *r, sqlite3_stmt *st)
{
    struct sctx *c = r->c;
    int64_t id = sqlite3_column_int64(st, 0), line = sqlite3_column_int64(st, 2);
    if (sqlite3_column_type(st, 0) == SQLITE_NULL || ps_idmap_get(&r->frames, (uint64_t)id) != PS_NONE) {
        left_out(r, FRAMES " rows without an id of their own");
        return 0;
    }
    struct ps_py_frame f = { ps_sq_intern_col(c, st, 1), ps_sq_intern_col(c, st, 3), -1 };
    if (sqlite3_column_type(st, 2) == SQLITE_INTEGER && line >= 1 && line <= INT32_MAX)
        f.line = (int32_t)line;
    if (f.file == PS_NONE || f.function == PS_NONE || ps_model_add_py_frame(c->m, &f) < 0 ||
        ps_idmap_put(&r->frames, (uint64_t)id, (uint32_t)(c->m->py_frames.n - 1)) < 0)
        return ps_sq_oom(c);
    return 0;
}

/* The stack gathered so far into the model, unless one of its rows was unusable. */
static int stack_done(struct py_read *r)
{
    struct sctx *c = r->c;
    int rc = 0;
    if (r->bad || !r->n)
        left_out(r, STACKS " stacks with a level missing or an unknown frame");
    else if (ps_model_add_py_stack(c->m, r->levels, (uint32_t)r->n) < 0 ||
             ps_idmap_put(&r->stacks, (uint64_t)r->stack, (uint32_t)(c->m->py_stacks.n - 1)) < 0)
        rc = ps_sq_oom(c);
    r->n = 0;
    r->bad = 0;
    return rc;
}

/* (stackId, level, frameId, rowid), in (stackId, level) order: a stack's levels are 0, 1, ... */
static int stack_row(struct py_read *r, sqlite3_stmt *st)
{
    int64_t stack = sqlite3_column_int64(st, 0), level = sqlite3_column_int64(st, 1);
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
        left_out(r, STACKS " rows without a stackId");
        return 0;
    }
    int rc = 0;
    if ((r->n || r->bad) && stack != r->stack && (rc = stack_done(r)) < 0)
        return rc;
    r->stack = stack;
    uint32_t frame = sqlite3_column_type(st, 2) == SQLITE_NULL ? PS_NONE
                   : ps_idmap_get(&r->frames, (uint64_t)sqlite3_column_int64(st, 2));
    if (r->bad || sqlite3_column_type(st, 1) == SQLITE_NULL || level != (int64_t)r->n || frame == PS_NONE ||
        r->n >= UINT32_MAX) {
        r->bad = 1;
        return 0;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        uint32_t *v = realloc(r->levels, cap * sizeof *v);
        if (!v)
            return ps_sq_oom(r->c);
        r->levels = v;
        r->cap = cap;
    }
    r->levels[r->n++] = frame;
    return 0;
}

/* (timestamp, globalTid, stackId, depth, rowid) */
static int sample_row(struct py_read *r, sqlite3_stmt *st)
{
    struct sctx *c = r->c;
    for (int i = 0; i < 4; i++)
        if (sqlite3_column_type(st, i) == SQLITE_NULL) {
            left_out(r, SAMPLES " rows with a NULL");
            return 0;
        }
    struct ps_py_sample s = { .time_ns = sqlite3_column_int64(st, 0),
                              .stack = ps_idmap_get(&r->stacks, (uint64_t)sqlite3_column_int64(st, 2)) };
    int64_t depth = sqlite3_column_int64(st, 3);
    if (s.stack == PS_NONE || depth < (int64_t)c->m->py_stacks.v[s.stack].n || depth > UINT32_MAX) {
        left_out(r, SAMPLES " rows naming no stack, or shallower than their stack");
        return 0;
    }
    s.depth = (uint32_t)depth;
    if ((s.thread = ps_sq_thread_of(c, sqlite3_column_int64(st, 1))) == PS_NONE ||
        ps_model_add_py_sample(c->m, &s) < 0)
        return ps_sq_oom(c);
    return 0;
}

int ps_sq_read_python(struct sctx *c)
{
    static const char *const tables[] = { FRAMES, STACKS, SAMPLES };
    static const char *const cols[][4] = { { "id", "file", "line", "function" }, { "stackId", "level", "frameId" },
                                           { "timestamp", "globalTid", "stackId", "depth" } };
    static const int ncols[] = { 4, 3, 4 };
    char sql[3][256];
    for (int t = 0; t < 3; t++) {
        int rc = ps_sq_table_exists(c, tables[t]);
        if (rc <= 0)
            return rc;              /* all three, or none of them */
        if (ps_sq_load_cols(c, tables[t]) < 0)
            return -EINVAL;
        snprintf(sql[t], sizeof sql[t], "SELECT ");
        for (int i = 0; i < ncols[t]; i++)
            if (ps_sq_add_col(c, sql[t], sizeof sql[t], tables[t], cols[t][i], NULL) < 0)
                return -EINVAL;
        snprintf(sql[t] + strlen(sql[t]), sizeof sql[t] - strlen(sql[t]), ", rowid FROM %s%s", tables[t],
                 t == 1 ? " ORDER BY \"stackId\", \"level\"" : "");
    }
    struct py_read r = { .c = c };
    int rc = each_row(&r, FRAMES, sql[0], 1u << 0 | 1u << 2, 1u << 1 | 1u << 3, frame_row);
    if (!rc && !(rc = each_row(&r, STACKS, sql[1], 7u, 0, stack_row)) && (r.n || r.bad))
        rc = stack_done(&r);
    if (!rc)
        rc = each_row(&r, SAMPLES, sql[2], 15u, 0, sample_row);
    ps_idmap_fini(&r.frames);
    ps_idmap_fini(&r.stacks);
    free(r.levels);
    return rc;
}
