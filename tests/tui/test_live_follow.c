/* Following a trace while it is recorded (reader.h: ps_follow_*), as `perfscope top` does: a generated trace grows
 * in batches the way a recording's tables do (WAL mode, a writer connection held open, ranges written when they
 * end, kernels written before or after the CUDA API call that launched them, new StringIds as names appear, a
 * named NVTX domain, two processes reusing the same correlation ids). After each batch the followed model must hold
 * exactly the rows of a read of the whole file at that moment (ps_read_trace: the ground truth), and the read must
 * say how many rows it added (the generator's count). Then: a file replaced by a new recording starts a new model,
 * a missing file and a corrupt row are one-line errors. */
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../model_compare.h"
#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/view.h"
#include "ps_schema.h"
#include "read/reader.h"

static sqlite3 *db;

static void exec(const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, msg);
        exit(1);
    }
}

static void execf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void execf(const char *fmt, ...)
{
    char sql[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    exec(sql);
}

/* The CUPTI tables with the columns the reader takes (collector/gpu_rows.c has the full ones). */
static const char cupti_tables[] =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, deviceId INTEGER,"
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, deviceId INTEGER,"
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,"
    " dstKind INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, eventClass INTEGER,"
    " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);";

static void create_trace(const char *path)
{
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        exit(1);
    exec("PRAGMA journal_mode=WAL");
    exec(ps_schema_sql);
    exec(cupti_tables);
    exec("INSERT INTO PERFSCOPE_META VALUES('recording_complete', '0')");
    exec("INSERT INTO StringIds VALUES(1, 'cudaLaunchKernel_v7000'), (2, 'step'), (3, 'data')");
}

static long long gtid(int pid)
{
    return (1ll << 48) | ((long long)pid << 24) | pid;
}

static uint64_t rng = 2463534242u;
static unsigned next_rand(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static int next_name = 10;

/* Step k of process pid: a "data" range, then 4 launches and their kernels (1 in 4 written before its call; a
 * new kernel name every few steps), an H2D copy, a mark, a range in the "io" domain, and the step range written
 * last. Returns the rows it adds to the model (all but the domain's own row). */
static long add_step(int pid, int k, long long corr_base)
{
    long long t0 = (long long)k * 10000000, rows = 0;
    execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, textId, globalTid, domainId) VALUES(%lld, %lld, 59, 3,"
          " %lld, 0)", t0 + 1000, t0 + 3000000, gtid(pid));
    rows++;
    if (k % 3 == 0) {
        execf("INSERT INTO StringIds VALUES(%d, 'kernel_%d')", next_name, next_name);
        next_name++;
    }
    for (int i = 0; i < 4; i++) {
        long long t = t0 + 3100000 + i * 1000000, corr = corr_base + k * 4 + i;
        int before = next_rand(4) == 0;
        char kernel[256];
        snprintf(kernel, sizeof kernel, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(%lld, %lld, 0, %d, %lld, %lld,"
                 " %d)", t + 20000, t + 20000 + 500000 + next_rand(3) * 1000, 7 + i % 2, corr, gtid(pid) & ~0xffffffll,
                 10 + next_rand((unsigned)(next_name - 10)));
        if (before)
            exec(kernel);
        execf("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(%lld, %lld, 0, %lld, %lld, 1)", t, t + 8000, gtid(pid),
              corr);
        if (!before)
            exec(kernel);
        rows += 2;
    }
    execf("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(%lld, %lld, 0, 7, 0, %lld, 4096, 1, 1, 2)", t0 + 2000000,
          t0 + 2001000, gtid(pid) & ~0xffffffll);
    execf("INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId) VALUES(%lld, 34, 'mark', %lld, 0)",
          t0 + 5, gtid(pid));
    execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) VALUES(%lld, %lld, 59,"
          " 'read', %lld, 1)", t0 + 10, t0 + 20, gtid(pid));
    execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, textId, globalTid, domainId) VALUES(%lld, %lld, 59, 2,"
          " %lld, 0)", t0, t0 + 9000000, gtid(pid));
    return rows + 4;
}

static void compare_with_whole_read(const char *path, struct ps_follow *f, const char *when)
{
    struct ps_model *whole = NULL;
    char err[512];
    CHECK(ps_read_trace(path, &whole, err, sizeof err) == 0, "%s", err);
    if (whole)
        models_same_rows(ps_follow_model(f), whole, when);
    ps_model_free(whole);
}

static void test_follows_appended_rows(const char *path)
{
    char err[512];
    create_trace(path);
    struct ps_follow *f = ps_follow_new(path);
    int restarted = -1;
    CHECK_EQ("rows of an empty trace", ps_follow_read(f, &restarted, err, sizeof err), 0);
    CHECK_EQ(restarted, 0);
    for (int pid = 100; pid <= 101; pid++)
        execf("INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId) VALUES(0, 75, 'io', %lld, 1)",
              gtid(pid));
    int k = 0;
    for (int batch = 0; batch < 12; batch++) {
        long want = 0;
        exec("BEGIN");
        for (int n = 1 + batch % 4; n > 0; n--, k++)
            for (int pid = 100; pid <= 101; pid++)
                want += add_step(pid, k, 1000);   /* both processes: the same correlation ids */
        exec("COMMIT");
        long got = ps_follow_read(f, &restarted, err, sizeof err);
        CHECK(got >= 0, "%s", err);
        CHECK_EQ("rows added by the read", got, want);
        char when[64];
        snprintf(when, sizeof when, "after batch %d (%d steps)", batch, k);
        compare_with_whole_read(path, f, when);
    }
    const struct ps_model *m = ps_follow_model(f);
    CHECK_EQ("kernels (4 per step, 2 processes)", m->gpu.n, (size_t)k * 2 * 5);   /* + 1 copy per step */
    CHECK_EQ("every kernel linked", compare_linked(m), (size_t)k * 2 * 4);
    CHECK_EQ("nothing new", ps_follow_read(f, &restarted, err, sizeof err), 0);

    /* a new recording under the same name: a new model, its rows only */
    sqlite3_close(db);
    create_trace(path);
    add_step(100, 0, 1);
    CHECK_EQ("rows of the new recording", ps_follow_read(f, &restarted, err, sizeof err), 13);
    CHECK_EQ("restarted", restarted, 1);
    compare_with_whole_read(path, f, "after the file was replaced");

    /* a corrupt row: an error naming it; the next read starts over and meets it again */
    exec("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid) VALUES('soon', 5, 59, 'x', 1)");
    CHECK_EQ(ps_follow_read(f, &restarted, err, sizeof err), -EINVAL);   /* a trace it cannot read */
    CHECK_CONTAINS(err, "NVTX_EVENTS");
    CHECK_CONTAINS(err, "rowid");
    CHECK_EQ("emptied after a failed read", ps_follow_model(f)->ranges.n, 0);
    CHECK_EQ(ps_follow_read(f, &restarted, err, sizeof err), -EINVAL);
    sqlite3_close(db);
    ps_follow_free(f);

    /* a missing file */
    unlink(path);
    f = ps_follow_new(path);
    CHECK_EQ(ps_follow_read(f, &restarted, err, sizeof err), -ENOENT);   /* stat's errno */
    CHECK_CONTAINS(err, "cannot open");
    ps_follow_free(f);
}

/* top's window on the followed model: steps k of 10 ms ("data" 6 ms inside a "step" of 9 ms) appended 25 at a
 * time; the last 100 ms after each batch hold exactly the last 10 steps (each starts at 10k ms), whose bottleneck is
 * data loading (6 of 9 ms). A range that started long ago and ends now (an epoch), appended last, starts before
 * the window: it stays out, and so do older rows dropped from the model — but the Python hook's mark (domain
 * "perfscope", a run fact the report's PyTorch section reads from before its window), which is kept. */
static void test_window_report_of_followed_model(const char *path)
{
    const long long ms = 1000000;
    char err[512];
    create_trace(path);
    struct ps_follow *f = ps_follow_new(path);
    struct ps_report r;
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    execf("INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId) VALUES(0, 75, 'perfscope', %lld, 2)",
          gtid(100));
    execf("INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId) VALUES(1, 34, 'python hook cores=2',"
          " %lld, 2)", gtid(100));
    for (int batch = 0; batch < 4; batch++) {
        exec("BEGIN");
        for (int k = batch * 25; k < batch * 25 + 25; k++) {
            execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, textId, globalTid, domainId) VALUES(%lld, %lld,"
                  " 59, 3, %lld, 0)", k * 10 * ms, (k * 10 + 6) * ms, gtid(100));
            execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, textId, globalTid, domainId) VALUES(%lld, %lld,"
                  " 59, 2, %lld, 0)", k * 10 * ms, (k * 10 + 9) * ms, gtid(100));
        }
        exec("COMMIT");
        CHECK_EQ("rows added (and the hook's mark)", ps_follow_read(f, NULL, err, sizeof err), batch ? 50 : 51);
        long long end = (batch + 1) * 250 * ms;
        CHECK(ps_follow_drop_before(f, end - 200 * ms) == 0);   /* keeps the last 20 steps */
        CHECK_EQ("ranges kept after the drop (20 steps and the hook's mark)", ps_follow_model(f)->ranges.n, 41);
        struct ps_view all, window;
        ps_view_all(&all, ps_follow_model(f));
        CHECK(ps_view_starting(&window, &all, end - 100 * ms, INT64_MAX) == 0);
        CHECK_EQ("ranges in the window (2 per step x 10 steps)", window.nranges, 20);
        CHECK(ps_ranks_report_compute_view(&r, &window, &o, err, sizeof err) == 0, "report: %s", err);
        CHECK_EQ("steps in the window", r.nsteps, 10);
        CHECK_EQ("average step (ms)", r.avg_dur_ns, 9 * ms);
        CHECK_EQ("DataLoader time per step (ms)", r.avg.cat_ns[PS_CAT_DATALOADER], 6 * ms);
        CHECK_EQ("bottleneck", r.bottleneck, PS_BN_DATA);
        ps_report_fini(&r);
        ps_view_fini(&window);
    }
    execf("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId) VALUES(0, %lld, 59, 'epoch',"
          " %lld, 0)", 1000 * ms, gtid(100));
    CHECK_EQ("the epoch range is read", ps_follow_read(f, NULL, err, sizeof err), 1);
    struct ps_view all, window;
    ps_view_all(&all, ps_follow_model(f));
    CHECK(ps_view_starting(&window, &all, 900 * ms, INT64_MAX) == 0);
    CHECK_EQ("the epoch range stays out of the window", window.nranges, 20);
    ps_view_fini(&window);
    /* attached late: a second follower that skips the rows before 800 ms reads only the last 20 steps (and not the
     * epoch range), the rows the first one holds after its drop */
    struct ps_follow *late = ps_follow_new(path);
    ps_follow_skip_before(late, 800 * ms);
    CHECK_EQ("rows read by the late follower (2 x 20 steps and the hook's mark)",
             ps_follow_read(late, NULL, err, sizeof err), 41);
    CHECK(ps_follow_drop_before(f, 800 * ms) == 0);
    models_same_rows(ps_follow_model(late), ps_follow_model(f), "a late follower");
    ps_follow_free(late);
    sqlite3_close(db);
    ps_follow_free(f);
}

int main(void)
{
    char path[] = "/tmp/ps_live_follow_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    test_follows_appended_rows(path);
    test_window_report_of_followed_model(path);
    char side[64];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return check_failures != 0;
}
