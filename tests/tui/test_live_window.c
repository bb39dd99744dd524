/* The window read `perfscope top` uses on a growing trace (ps_read_trace_window): a generated trace grows in
 * batches like a recording; after each batch the window [from, ...) is read with the rowid bounds carried over,
 * and must hold exactly the rows a plain SQL count says start at or after `from`, the same as a read without the
 * bounds, while the bounds advance. Ground truth: the generator's own arithmetic and SQL over the same file. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "analyses/report.h"
#include "ps_schema.h"
#include "read/reader.h"

#define MS 1000000ll
#define STEPS_PER_BATCH 25

static sqlite3 *db;

static void exec(const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, msg);
        exit(1);
    }
}

/* Steps k in [first, first + n): "data" [10k, 10k+6] ms then "step" [10k, 10k+9] ms, in the order a recorder
 * writes them (a range is written at its pop: the inner one first). */
static void add_steps(int first, int n)
{
    char sql[256];
    exec("BEGIN");
    for (int k = first; k < first + n; k++) {
        snprintf(sql, sizeof sql, "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) "
                                  "VALUES(%lld, %lld, 59, 'data', %lld, 0)", k * 10 * MS, (k * 10 + 6) * MS,
                 (1ll << 48) | (100ll << 24) | 100);
        exec(sql);
        snprintf(sql, sizeof sql, "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) "
                                  "VALUES(%lld, %lld, 59, 'step', %lld, 0)", k * 10 * MS, (k * 10 + 9) * MS,
                 (1ll << 48) | (100ll << 24) | 100);
        exec(sql);
    }
    exec("COMMIT");
}

static long long count_from(long long from)
{
    sqlite3_stmt *st;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM NVTX_EVENTS WHERE start >= %lld AND eventType = 59", from);
    sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_step(st);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int main(void)
{
    char path[] = "/tmp/ps_live_window_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return 1;
    exec("PRAGMA journal_mode=WAL");
    exec(ps_schema_sql);
    struct ps_read_window w = { 0 };
    char err[512];
    int64_t prev_lo = 0;
    for (int batch = 0; batch < 4; batch++) {
        add_steps(batch * STEPS_PER_BATCH, STEPS_PER_BATCH);
        /* the window: the last 100 ms of the trace so far = the last 10 steps (each starts at 10k ms) */
        long long end = (long long)(batch + 1) * STEPS_PER_BATCH * 10 * MS;
        w.from_ns = end - 100 * MS;
        struct ps_model *m = NULL, *fresh = NULL;
        CHECK(ps_read_trace_window(path, &w, &m, err, sizeof err) == 0, "window read: %s", err);
        struct ps_read_window unbounded = { .from_ns = w.from_ns };
        CHECK(ps_read_trace_window(path, &unbounded, &fresh, err, sizeof err) == 0, "fresh read: %s", err);
        if (!m || !fresh)
            return 1;
        CHECK_EQ("ranges in the window (2 per step x 10 steps)", m->ranges.n, 20);
        CHECK_EQ("ranges = SQL count", m->ranges.n, count_from(w.from_ns));
        CHECK_EQ("same as a read without rowid bounds", m->ranges.n, fresh->ranges.n);
        struct ps_report r;
        struct ps_report_opts o;
        ps_report_opts_default(&o);
        CHECK(ps_report_build(&r, m, &o, err, sizeof err) == 0, "report: %s", err);
        CHECK_EQ("steps in the window", r.nsteps, 10);
        CHECK_EQ("bottleneck", r.bottleneck, PS_BN_DATA);        /* 6 of 9 ms data, the rest host-side "other" */
        ps_report_fini(&r);
        /* the bound: the first row ending at or after from, i.e. the "data" row of the first step in the window */
        long long want_lo = (long long)(batch * STEPS_PER_BATCH + STEPS_PER_BATCH - 10) * 2 + 1;
        CHECK_EQ("NVTX rowid bound", w.rowid_lo[PS_WINDOW_NVTX], want_lo);
        CHECK(w.rowid_lo[PS_WINDOW_NVTX] > prev_lo, "the bound advances (%lld)", (long long)w.rowid_lo[PS_WINDOW_NVTX]);
        prev_lo = w.rowid_lo[PS_WINDOW_NVTX];
        ps_model_free(m);
        ps_model_free(fresh);
    }
    /* a range that started long ago and ended now (an epoch) is appended last: it starts before the window, so it
     * stays out, and the bound does not skip rows that are in it */
    exec("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) VALUES(0, 1000000000, 59, "
         "'epoch', 281479271677028, 0)");
    struct ps_model *m = NULL;
    CHECK(ps_read_trace_window(path, &w, &m, err, sizeof err) == 0, "read: %s", err);
    CHECK_EQ("the epoch range stays out", m ? (long long)m->ranges.n : -1, 20);
    ps_model_free(m);
    sqlite3_close(db);
    unlink(path);
    char side[64];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return check_failures != 0;
}
