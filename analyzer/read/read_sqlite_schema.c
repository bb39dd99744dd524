/* The SQLite reader's checks of a trace's schema and values (read_sqlite_impl.h): only real tables are read (a view
 * or virtual table runs code stored in the file), every column read must exist and hold stored values (not a
 * generated column), every value the type the reader needs; and the messages that name the table, column and
 * rowid when one does not. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_text_escape.h"
#include "read_sqlite_impl.h"

/* Column text, "" for NULL (also when SQLite runs out of memory converting it). */
const char *ps_sq_col_text(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? s : "";
}

int ps_sq_oom(struct sctx *c)
{
    return ps_read_oom(c->err, c->errlen, c->path);
}

/* 1 if `table` exists as a real table, 0 if not, -EINVAL (message set) if the database cannot be read or `table` is a
 * view or a virtual table: selecting from either runs code stored in the file (a recursive view never ends), so
 * only tables with their own b-tree (type 'table', rootpage > 0; a virtual table's rootpage is 0) are read. */
int ps_sq_table_exists(struct sctx *c, const char *table)
{
    sqlite3_stmt *st = NULL;
    int found = -EINVAL;
    const char *what = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT type, rootpage FROM sqlite_master WHERE type IN ('table','view') AND "
                           "name = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        found = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EINVAL;
        if (found == 1 && strcmp(ps_sq_col_text(st, 0), "table") != 0)
            what = "a view";
        else if (found == 1 && sqlite3_column_int64(st, 1) <= 0)
            what = "a virtual table";
    }
    if (found < 0)
        ps_read_fail(c->err, c->errlen, "%s: not a readable SQLite database (looking for table %s): %s", c->path,
                     table, c->over_budget ? "the schema is too large" : sqlite3_errmsg(c->db));
    else if (what)
        found = ps_read_fail(c->err, c->errlen, "%s: %s is %s, not a table: perfscope reads only real tables (a "
                             "view or virtual table runs code stored in the file); nsys and perfscope write tables",
                             c->path, table, what);
    sqlite3_finalize(st);
    return found;
}

void ps_sq_free_cols(struct sctx *c)
{
    for (int i = 0; i < c->ncols; i++)
        free(c->cols[i]);
    c->ncols = 0;
}

/* Load the column names of `table` into c->cols, and which of them are generated (pragma_table_xinfo's hidden
 * 2 or 3: GENERATED ALWAYS AS, computed on every read by an expression stored in the file). */
int ps_sq_load_cols(struct sctx *c, const char *table)
{
    sqlite3_stmt *st = NULL;
    ps_sq_free_cols(c);
    if (sqlite3_prepare_v2(c->db, "SELECT name, hidden FROM pragma_table_xinfo(?)", -1, &st, NULL) != SQLITE_OK)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: cannot read its columns: %s", c->path, table,
                            sqlite3_errmsg(c->db));
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && c->ncols < MAX_COLS) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int64_t hidden = sqlite3_column_int64(st, 1);
        if (!name)
            continue;
        c->generated[c->ncols] = hidden == 2 || hidden == 3;
        if (!(c->cols[c->ncols++] = strdup(name))) {
            sqlite3_finalize(st);
            return ps_sq_oom(c);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: cannot read its columns: %s", c->path, table,
                            sqlite3_errmsg(c->db));
    return 0;
}

/* The index of `col` in c->cols, -1 when absent. */
static int col_index(const struct sctx *c, const char *col)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->cols[i], col) == 0)
            return i;
    return -1;
}

int ps_sq_has_col(const struct sctx *c, const char *col)
{
    return col_index(c, col) >= 0;
}

/* Append `"col"` (or `fallback` if the column is absent, or an error if fallback is NULL) to the SELECT list. */
int ps_sq_add_col(struct sctx *c, char *sql, size_t cap, const char *table, const char *col, const char *fallback)
{
    size_t len = strlen(sql);
    const char *sep = sql[len - 1] == ' ' ? "" : ", ";
    int i = col_index(c, col);
    if (i >= 0 && c->generated[i])
        return ps_read_fail(c->err, c->errlen, "%s: table %s, column %s is a generated column (computed by an "
                            "expression stored in the file): nsys and perfscope store their values; not read",
                            c->path, table, col);
    if (i >= 0)
        snprintf(sql + len, cap - len, "%s\"%s\"", sep, col);
    else if (fallback)
        snprintf(sql + len, cap - len, "%s%s", sep, fallback);
    else
        return ps_read_fail(c->err, c->errlen, "%s: table %s has no column \"%s\" (unsupported schema version?)",
                            c->path, table, col);
    return 0;
}

int ps_sq_prepare(struct sctx *c, const char *table, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v3(c->db, sql, -1, 0, st, NULL) != SQLITE_OK)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: cannot query: %s", c->path, table,
                            sqlite3_errmsg(c->db));
    return 0;
}

int ps_sq_step_error(struct sctx *c, const char *table, long long row)
{
    if (c->stopped)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: reading stopped on request", c->path, table);
    if (c->over_budget)
        return ps_read_fail(c->err, c->errlen, "%s: table %s: reading this file took more than %lld SQLite steps, far "
                            "more than a trace of its size needs (a table without the index nsys and perfscope "
                            "create, such as StringIds without its primary key, or a crafted file): stopped",
                            c->path, table, c->work_budget);
    return ps_read_fail(c->err, c->errlen, "%s: table %s, row %lld: %s", c->path, table, row,
                        sqlite3_errmsg(c->db));
}

/* Name of a SQLite value type, for messages. */
static const char *type_name(int t)
{
    return t == SQLITE_TEXT ? "text" : t == SQLITE_FLOAT ? "real" : t == SQLITE_BLOB ? "blob" : "integer";
}

/* The message for column i of the current row holding a value of the wrong type (t) where `want` is
 * required, naming the table, the column and the rowid (the statement's last column). Returns -EINVAL. */
int ps_sq_type_error(struct sctx *c, sqlite3_stmt *st, const char *table, int i, int t, const char *want)
{
    char value[64] = "";
    if (t != SQLITE_BLOB)
        ps_text_escape(ps_sq_col_text(st, i), value, sizeof value, NULL);
    return ps_read_fail(c->err, c->errlen, "%s: table %s, column %s, rowid %lld: %s value%s%s%s where %s is "
                        "required: the trace is corrupt", c->path, table, sqlite3_column_name(st, i),
                        (long long)sqlite3_column_int64(st, sqlite3_column_count(st) - 1), type_name(t),
                        t == SQLITE_BLOB ? "" : " '", value, t == SQLITE_BLOB ? "" : "'", want);
}
