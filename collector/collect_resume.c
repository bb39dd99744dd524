/* `perfscope record --recover`'s part of the pipeline (collect.h, ps_collect_resume): rebuild the state a dead
 * recorder kept in its trace (PERFSCOPE_RECOVERY_* tables), then run the drain's final pass over its rings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/collect.h"
#include "collect_impl.h"
#include "ps_diag.h"
#include "ps_globalid.h"
#include "ps_schema.h"
#include "ps_wire.h"

/* One column-typed row callback per SELECT; 0 or -EIO. */
static int each_row(struct ps_tw *w, const char *sql, int (*fn)(struct ps_collect *, sqlite3_stmt *),
                    struct ps_collect *c)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(ps_tw_db(w), sql, -1, &st, NULL) == SQLITE_OK ? 0 : -EIO;
    int step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = fn(c, st);
    if (!rc && step != SQLITE_DONE)
        rc = -EIO;
    sqlite3_finalize(st);
    return rc;
}

/* A ring the dead recorder had found, in its order; a file that is gone keeps its number (no reader). */
static int resume_ring(struct ps_collect *c, sqlite3_stmt *st)
{
    uint32_t ring = (uint32_t)sqlite3_column_int64(st, 0);
    const char *file = (const char *)sqlite3_column_text(st, 1);
    uint32_t pid = (uint32_t)sqlite3_column_int64(st, 2);
    if (ring != c->n_rings || !file || strchr(file, '/'))
        return -EPROTO;
    if (ps_array_grow((void **)&c->rings, &c->cap_rings, c->n_rings, sizeof *c->rings))
        return -ENOMEM;
    char path[4096];
    struct ps_ring_reader *r = NULL;
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    int orc = ps_ring_reader_open(path, &r);
    if (orc)
        ps_diag("perfscope record: warning: cannot read ring %s: %s (its records after the recorder's "
                "last commit are lost)", path, strerror(-orc));
    else
        ps_ring_reader_hold_chunks(r);
    char *name = strdup(file);
    if (!name) {
        ps_ring_reader_close(r);
        return -ENOMEM;
    }
    c->rings[c->n_rings++] = (struct ring_file){ name, r, 0 };
    int rc = ps_rows_ring_open(c->rows, ring, pid, ps_collect_ns_clock, NULL);
    if (!rc && sqlite3_column_int(st, 3))
        ps_rows_ring_other_pidns(c->rows);
    return rc;
}

static int resume_state(struct ps_collect *c, sqlite3_stmt *st)
{
    uint32_t ring = (uint32_t)sqlite3_column_int64(st, 0), lane = (uint32_t)sqlite3_column_int64(st, 1);
    int n = sqlite3_column_bytes(st, 2);
    const void *blob = sqlite3_column_blob(st, 2);
    struct ps_wire_hdr h;
    if (n < (int)sizeof h || n % 8 || !blob)
        return -EPROTO;
    memcpy(&h, blob, sizeof h);
    if (h.size != (uint32_t)n)
        return -EPROTO;
    void *rec = malloc((size_t)n);      /* aligned for the record's fields */
    if (!rec)
        return -ENOMEM;
    memcpy(rec, blob, (size_t)n);
    int rc = ps_rows_restore_record(c->rows, ring, lane, rec);
    free(rec);
    return rc;
}

static int resume_registered(struct ps_collect *c, sqlite3_stmt *st)
{
    return ps_rows_restore_registered(c->rows, (uint32_t)sqlite3_column_int64(st, 0),
                                      (uint32_t)sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                                      sqlite3_column_int(st, 3));
}

/* A Python frame row the dead recorder wrote (in id order): kept Python frame records find it. */
static int resume_py_frame(struct ps_collect *c, sqlite3_stmt *st)
{
    int rc = ps_rows_restore_py_frame(c->rows, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                                      sqlite3_column_int64(st, 2), (const char *)sqlite3_column_text(st, 3));
    return rc == -EINVAL ? -EPROTO : rc;
}

static int resume_py_stacks(struct ps_collect *c, sqlite3_stmt *st)
{
    int rc = ps_rows_restore_py_stacks(c->rows, sqlite3_column_int64(st, 0));
    return rc == -EINVAL ? -EPROTO : rc;
}

/* The Python stack tables of a trace that has them (a trace made before them has none, and no such records). */
static int resume_python(struct ps_tw *w, struct ps_collect *c)
{
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                      " ('PERFSCOPE_PYTHON_FRAMES', 'PERFSCOPE_PYTHON_STACKS')";
    int have = sqlite3_prepare_v2(ps_tw_db(w), sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
             ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (have < 0)
        return -EIO;
    if (have < 2)
        return 0;
    int rc = each_row(w, "SELECT id, file, coalesce(line, 0), function FROM PERFSCOPE_PYTHON_FRAMES ORDER BY id",
                      resume_py_frame, c);
    return rc ? rc : each_row(w, "SELECT coalesce(max(stackId), 0) FROM PERFSCOPE_PYTHON_STACKS", resume_py_stacks, c);
}

/* A domain the dead recorder stored (an NVTX_EVENTS row of type 75): the open-range slots read now may be in it. */
static int resume_domain(struct ps_collect *c, sqlite3_stmt *st)
{
    return ps_rows_restore_domain(c->rows, ps_global_to_pid(sqlite3_column_int64(st, 1)),
                                  (uint32_t)sqlite3_column_int64(st, 0));
}

/* Where the dead recorder's stored rows of each lane end: the drain goes on from there. */
static int resume_lane(struct ps_collect *c, sqlite3_stmt *st)
{
    uint32_t ring = (uint32_t)sqlite3_column_int64(st, 0), lane = (uint32_t)sqlite3_column_int64(st, 1);
    struct ps_ring_pos pos = { (uint32_t)sqlite3_column_int64(st, 2), (uint32_t)sqlite3_column_int64(st, 3) };
    if (ring >= c->n_rings || !c->rings[ring].reader)
        return 0;
    int rc = ps_ring_reader_seek(c->rings[ring].reader, lane, &pos);
    if (rc) {
        ps_diag("perfscope record: warning: ring %s, lane %u: the stored place (chunk %u, offset %u) is "
                "not in the ring any more (%s): its records are not recovered", c->rings[ring].name,
                lane, pos.chunk, pos.offset, strerror(-rc));
        ps_collect_ring_corrupt(c, ring);
    }
    return 0;
}

int ps_collect_resume(const char *session_dir, int64_t origin_ns, struct ps_tw *w, struct ps_rows_totals *t)
{
    struct ps_collect *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->w = w;
    c->origin_ns = origin_ns;
    c->stop_drain = 1;              /* the drain thread makes its final pass at once */
    struct stat ns;
    c->pidns = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
    int rc = -ENOMEM;
    if (!(c->dir = strdup(session_dir)) || (rc = ps_rows_new(w, origin_ns, &c->rows)))
        goto fail;
    c->st_ring = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_RECOVERY_RINGS VALUES(?, ?, ?, ?)");
    c->st_lane = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_RECOVERY_LANES VALUES(?, ?, ?, ?)");
    rc = -EIO;
    if (!c->st_ring || !c->st_lane ||
        (rc = each_row(w, "SELECT ring, file, pid, otherPidns FROM PERFSCOPE_RECOVERY_RINGS ORDER BY ring",
                       resume_ring, c)) ||
        (rc = resume_python(w, c)) ||
        (rc = each_row(w, "SELECT ring, lane, record FROM PERFSCOPE_RECOVERY_STATE ORDER BY rowid", resume_state, c)) ||
        (rc = each_row(w, "SELECT r.ring, r.id, r.sid, s.id IS NOT NULL FROM PERFSCOPE_RECOVERY_REGISTERED r"
                          " LEFT JOIN StringIds s ON s.id = r.sid", resume_registered, c)) ||
        (rc = each_row(w, "SELECT DISTINCT domainId, globalTid FROM NVTX_EVENTS"
                          " WHERE eventType = " PS_SQL_INT(PS_NSYS_NVTX_DOMAIN_CREATE), resume_domain, c)) ||
        (rc = each_row(w, "SELECT ring, lane, chunk, offset FROM PERFSCOPE_RECOVERY_LANES", resume_lane, c)))
        goto fail;
    if ((rc = -pthread_create(&c->writer_thread, NULL, ps_collect_writer_main, c)))
        goto fail;
    c->writer_started = 1;
    if ((rc = -pthread_create(&c->drain_thread, NULL, ps_collect_drain_main, c)))
        goto fail;
    c->drain_started = 1;
    return ps_collect_stop(c, t);
fail:
    if (rc == -EPROTO)
        ps_diag("perfscope record: the recovery tables of the trace make no sense: nothing recovered");
    else if (rc == -EIO)
        ps_diag("perfscope record: %s", ps_tw_errmsg(w));
    c->write_error = rc ? rc : -EIO;    /* write nothing more: the trace stays as the dead recorder left it */
    return ps_collect_stop(c, t);
}
