/* Following a SQLite trace while it is recorded (reader.h: ps_follow_*): one growing model, and the reader state
 * that lets each read take only the rows appended since the one before (the last rowid read per activity table,
 * the maps from the file's ids to the model's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read_sqlite_impl.h"

struct ps_follow {
    char *path;
    struct ps_model *m;
    struct sctx c;                      /* its id maps and unplaced counts persist; the connection does not */
    int64_t rowid_after[PS_SQ_TABLES];  /* the last rowid read from each table (0: none yet) */
    dev_t dev;
    ino_t ino;                          /* the file read so far (0/0: nothing read yet) */
    int meta_read;                      /* PERFSCOPE_META is in the model */
    int64_t skip_before;                /* rows that start before it are not read (INT64_MIN: none) */
};

/* A new, empty growing model and reader state (the file's ids mean nothing to a new model). 0 or -ENOMEM. */
static int follow_restart(struct ps_follow *f)
{
    ps_sq_close(&f->c);
    ps_sq_free_maps(&f->c);
    ps_model_free(f->m);
    memset(&f->c, 0, sizeof f->c);
    memset(f->rowid_after, 0, sizeof f->rowid_after);
    f->dev = 0;
    f->ino = 0;
    f->meta_read = 0;
    f->m = ps_model_new(f->path, PS_FORMAT_PERFSCOPE);
    if (!f->m || ps_model_set_growing(f->m) < 0)
        return -ENOMEM;
    return 0;
}

struct ps_follow *ps_follow_new(const char *path)
{
    struct ps_follow *f = calloc(1, sizeof *f);
    if (f)
        f->skip_before = INT64_MIN;
    if (!f || !(f->path = strdup(path)) || follow_restart(f) < 0) {
        ps_follow_free(f);
        return NULL;
    }
    return f;
}

void ps_follow_free(struct ps_follow *f)
{
    if (!f)
        return;
    ps_sq_close(&f->c);
    ps_sq_free_maps(&f->c);
    ps_model_free(f->m);
    free(f->path);
    free(f);
}

const struct ps_model *ps_follow_model(const struct ps_follow *f)
{
    return f->m;
}

int ps_follow_drop_before(struct ps_follow *f, int64_t cut_ns)
{
    uint32_t hook = ps_model_intern_cstr(f->m, PS_PYTHON_HOOK_DOMAIN);
    return hook == PS_NONE ? -ENOMEM : ps_model_drop_before(f->m, cut_ns, hook);
}

void ps_follow_skip_before(struct ps_follow *f, int64_t t_ns)
{
    if (t_ns > f->skip_before)
        f->skip_before = t_ns;
}

static size_t model_rows(const struct ps_model *m)
{
    return m->gpu.n + m->api.n + m->ranges.n + m->open_ranges.n;
}

/* The last rowid of each activity table as of this read's snapshot into last[] (0: no table, or empty). Sets
 * *shrunk when a table holds fewer rows than were read from it: another file now has this name. 0 or -EINVAL
 * (message set). */
static int last_rowids(struct ps_follow *f, int64_t *last, int *shrunk)
{
    *shrunk = 0;
    for (int t = 0; t < PS_SQ_TABLES; t++) {
        last[t] = 0;
        int exists = ps_sq_table_exists(&f->c, ps_sq_tables[t]);
        if (exists < 0)
            return -EINVAL;
        if (!exists)
            continue;
        char sql[128];
        sqlite3_stmt *st = NULL;
        snprintf(sql, sizeof sql, "SELECT coalesce(max(rowid), 0) FROM \"%s\"", ps_sq_tables[t]);
        if (ps_sq_prepare(&f->c, ps_sq_tables[t], sql, &st) < 0)
            return -EINVAL;
        if (sqlite3_step(st) == SQLITE_ROW)
            last[t] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (last[t] < f->rowid_after[t])
            *shrunk = 1;
    }
    return 0;
}

/* One read of the open file, in a read transaction. 0 or a negative errno (message set). */
static int read_appended(struct ps_follow *f, int64_t *last, int *shrunk)
{
    struct sctx *c = &f->c;
    int is_perfscope = ps_sq_table_exists(c, "PERFSCOPE_META");
    c->have_string_ids = ps_sq_table_exists(c, "StringIds");
    if (is_perfscope < 0 || c->have_string_ids < 0 || last_rowids(f, last, shrunk) < 0 || *shrunk)
        return -EINVAL;
    /* GPU rows keep their correlation ids whenever there is an API table: its rows may come in a later read */
    if ((c->have_api = ps_sq_table_exists(c, ps_sq_tables[PS_SQ_RUNTIME])) < 0)
        return -EINVAL;
    f->m->format = is_perfscope ? PS_FORMAT_PERFSCOPE : PS_FORMAT_NSYS;
    if (c->have_string_ids &&
        ps_sq_prepare(c, "StringIds", "SELECT value FROM StringIds WHERE id = ?", &c->string_stmt) < 0)
        return -EINVAL;
    if (is_perfscope && !f->meta_read) {
        if (ps_sq_read_meta(c) < 0)
            return -EINVAL;
        f->meta_read = 1;
    }
    c->rowid_after = f->rowid_after;
    c->start_floor = f->skip_before;
    int rc = ps_sq_read_activity(c);
    c->rowid_after = NULL;
    if (rc == 0 && is_perfscope)   /* top's fix is the report's: the same thread samples (new rows only) */
        rc = ps_sq_read_thread_samples(c);
    return rc < 0 ? rc : ps_sq_read_host_tables(c, 0);
}

long ps_follow_read(struct ps_follow *f, int *restarted, char *err, size_t errlen)
{
    struct stat st;
    int64_t last[PS_SQ_TABLES];
    int shrunk = 0, again = 0;
    if (restarted)
        *restarted = 0;
    if (stat(f->path, &st) < 0) {
        int e = errno;
        ps_read_fail(err, errlen, "%s: cannot open: %s", f->path, strerror(e));
        return -e;
    }
    if (!S_ISREG(st.st_mode))
        return ps_read_fail(err, errlen, "%s: not a regular file", f->path);
    if ((f->dev || f->ino) && (st.st_dev != f->dev || st.st_ino != f->ino)) {
        again = 1;
        f->skip_before = INT64_MIN;     /* a floor on another recording's clock */
        if (follow_restart(f) < 0)
            return ps_read_oom(err, errlen, f->path);
    }
    for (;;) {
        size_t before = model_rows(f->m);
        f->c.m = f->m;
        f->c.path = f->path;
        f->c.err = err;
        f->c.errlen = errlen;
        int rc = ps_sq_open(&f->c);
        if (rc == 0 && sqlite3_exec(f->c.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
            rc = ps_read_fail(err, errlen, "%s: cannot start a read: %s", f->path, sqlite3_errmsg(f->c.db));
        if (rc == 0)
            rc = read_appended(f, last, &shrunk);
        ps_sq_close(&f->c);   /* ends the read transaction */
        if (rc == 0 && (rc = ps_model_finish(f->m)) < 0)
            ps_read_fail(err, errlen, "%s: out of memory while merging new rows", f->path);
        if (rc == 0) {
            memcpy(f->rowid_after, last, sizeof last);
            f->dev = st.st_dev;
            f->ino = st.st_ino;
            if (restarted)
                *restarted = again;
            return (long)(model_rows(f->m) - before);
        }
        /* the rows of a failed read may be in the model in part: start over, once more at once for a file that
         * was replaced, else at the next read */
        int replaced = shrunk && !again;
        if (follow_restart(f) < 0)
            return ps_read_oom(err, errlen, f->path);
        if (!replaced)
            return rc;
        again = 1;
        f->skip_before = INT64_MIN;
    }
}
