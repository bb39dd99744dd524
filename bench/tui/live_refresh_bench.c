/* The cost of one `perfscope top` refresh on a long recording, printed, never asserted: a generated trace holds
 * PRELOAD seconds of a training loop (100 steps/s; per step a data range, a step range, 4 kernels and their 4
 * CUDA API calls, one H2D copy), then grows by one second of rows before each of REFRESHES refreshes. A refresh
 * is measured two ways, each followed by the report over the rows starting in the last 10 s:
 *   follow — the growing model (ps_follow_read: the rows appended since the last refresh, merged; what top does);
 *   whole  — the whole file read again into a fresh model (ps_read_trace), what a top without it would do.
 * Printed: CPU ms per refresh (median), the rows the followed model holds, and peak RSS of this process.
 * Usage: live_refresh_bench [PRELOAD_S (default 600)] [REFRESHES (default 10)] */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/view.h"
#include "ps_schema.h"
#include "read/reader.h"

#define STEPS_PER_S 100
#define STEP_NS (1000000000ll / STEPS_PER_S)
#define WINDOW_NS 10000000000ll

static sqlite3 *db;
static sqlite3_stmt *ins_nvtx, *ins_kernel, *ins_api, *ins_copy;

static void exec(const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, msg);
        exit(1);
    }
}

static void prepare(const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
}

static void run(sqlite3_stmt *st, int n, const long long *v)
{
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    sqlite3_step(st);
    sqlite3_reset(st);
}

/* Steps [first, first + n), in the order a recorder writes them (a range when it ends). */
static void append_steps(long long first, long long n)
{
    const long long tid = (1ll << 48) | (100ll << 24) | 100, pid = (1ll << 48) | (100ll << 24);
    exec("BEGIN");
    for (long long k = first; k < first + n; k++) {
        long long t0 = k * STEP_NS;
        run(ins_nvtx, 4, (long long[]){ t0, t0 + 3000000, 3, tid });
        run(ins_copy, 3, (long long[]){ t0 + 3100000, t0 + 3200000, pid });
        for (int i = 0; i < 4; i++) {
            long long t = t0 + 3300000 + i * 1500000, corr = k * 4 + i + 1;
            run(ins_api, 4, (long long[]){ t, t + 8000, tid, corr });
            run(ins_kernel, 5, (long long[]){ t + 20000, t + 1000000, corr, pid, 10 + i });
        }
        run(ins_nvtx, 4, (long long[]){ t0, t0 + STEP_NS - 100000, 2, tid });
    }
    exec("COMMIT");
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The report over the rows of `m` starting in the last window before `now`. */
static void window_report(const struct ps_model *m, long long now)
{
    struct ps_view all, win;
    struct ps_report r;
    struct ps_report_opts o;
    char err[256];
    ps_view_all(&all, m);
    ps_report_opts_default(&o);
    if (ps_view_starting(&win, &all, now - WINDOW_NS, INT64_MAX) < 0 ||
        ps_ranks_report_compute_view(&r, &win, &o, err, sizeof err) < 0) {
        fprintf(stderr, "report: %s\n", err);
        exit(1);
    }
    if (r.nsteps < STEPS_PER_S * 9)
        fprintf(stderr, "unexpected: %zu steps in the window\n", r.nsteps);
    ps_report_fini(&r);
    ps_view_fini(&win);
}

int main(int argc, char **argv)
{
    long long preload = argc > 1 ? atoll(argv[1]) : 600;
    int refreshes = argc > 2 ? atoi(argv[2]) : 10;
    char path[] = "/tmp/ps_live_refresh_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || preload < 11 || refreshes < 1)
        return 2;
    close(fd);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return 1;
    exec("PRAGMA journal_mode=WAL");
    exec(ps_schema_sql);
    exec("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER,"
         " srcKind INTEGER, dstKind INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
         " eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
         "INSERT INTO StringIds VALUES(1, 'cudaLaunchKernel_v7000'), (2, 'step'), (3, 'data'), (10, 'gemm'),"
         " (11, 'conv'), (12, 'relu'), (13, 'softmax');");
    prepare("INSERT INTO NVTX_EVENTS(start, \"end\", eventType, textId, globalTid, domainId) VALUES(?, ?, 59, ?, ?, 0)",
            &ins_nvtx);
    prepare("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?, ?, 0, 7, ?, ?, ?)", &ins_kernel);
    prepare("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?, ?, 0, ?, ?, 1)", &ins_api);
    prepare("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(?, ?, 0, 7, 0, ?, 1048576, 1, 1, 2)", &ins_copy);
    long long steps = preload * STEPS_PER_S;
    append_steps(0, steps);

    struct ps_follow *f = ps_follow_new(path);
    char err[512];
    double *follow_ms = calloc((size_t)refreshes, sizeof *follow_ms), *whole_ms = calloc((size_t)refreshes, sizeof *whole_ms);
    long long now = steps * STEP_NS;
    double t = cpu_ms();
    ps_follow_skip_before(f, now - 2 * WINDOW_NS);   /* top attaching late: only the rows of the last windows */
    if (ps_follow_read(f, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    window_report(ps_follow_model(f), now);
    printf("first_refresh_ms %.1f (attaching after %lld s: the tables scanned once, the last 20 s kept)\n",
           cpu_ms() - t, preload);
    size_t held_max = 0;
    for (int i = 0; i < refreshes; i++) {
        append_steps(steps, STEPS_PER_S);
        steps += STEPS_PER_S;
        now = steps * STEP_NS;
        t = cpu_ms();
        ps_follow_skip_before(f, now - 2 * WINDOW_NS);
        if (ps_follow_read(f, NULL, err, sizeof err) < 0 ||
            (i % 10 == 0 && ps_follow_drop_before(f, now - 2 * WINDOW_NS) < 0)) {   /* top: once a window */
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        window_report(ps_follow_model(f), now);
        follow_ms[i] = cpu_ms() - t;
        const struct ps_model *m = ps_follow_model(f);
        size_t held = m->gpu.n + m->api.n + m->ranges.n;
        held_max = held > held_max ? held : held_max;
        struct ps_model *whole = NULL;
        t = cpu_ms();
        if (ps_read_trace(path, &whole, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        window_report(whole, now);
        whole_ms[i] = cpu_ms() - t;
        ps_model_free(whole);
    }
    qsort(follow_ms, (size_t)refreshes, sizeof *follow_ms, cmp_double);
    qsort(whole_ms, (size_t)refreshes, sizeof *whole_ms, cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("trace_rows %lld (%lld s at %d steps/s, 11 rows per step)\n", steps * 11, steps / STEPS_PER_S, STEPS_PER_S);
    printf("refresh_follow_ms_median %.2f (1 s of new rows merged + report over the last 10 s)\n",
           follow_ms[refreshes / 2]);
    printf("refresh_whole_read_ms_median %.2f (the whole file read again + the same report)\n", whole_ms[refreshes / 2]);
    printf("followed_model_rows_max %zu (rows of the last 20-30 s)\n", held_max);
    printf("peak_rss_mb %.1f (this process: both ways)\n", (double)ru.ru_maxrss / 1024);
    ps_follow_free(f);
    free(follow_ms);
    free(whole_ms);
    sqlite3_finalize(ins_nvtx);
    sqlite3_finalize(ins_kernel);
    sqlite3_finalize(ins_api);
    sqlite3_finalize(ins_copy);
    sqlite3_close(db);
    unlink(path);
    char side[64];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return 0;
}
