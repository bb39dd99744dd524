/* CPU-only perfscope traces through the real reader and the analyses: a generator writes NVTX_EVENTS the way the
 * reference workloads do (step > data, h2d, forward, backward, optimizer on the main thread; a loader thread
 * with its own ranges) with known phase lengths, so each scenario's breakdown and verdict are known by
 * construction. Also: the text report says there are no GPU rows and where the recording metadata is. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "check.h"
#include "read/reader.h"

#define GTID(pid, tid) ((1ll << 48) | ((long long)(pid) << 24) | (long long)(tid))

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s\n", msg);
        exit(1);
    }
}

static void nvtx(sqlite3 *db, long long start_us, long long end_us, const char *text, int tid)
{
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO NVTX_EVENTS VALUES (%lld, %lld, 59, '%s', NULL, %lld, 0);",
             start_us * 1000, end_us * 1000, text, GTID(100, tid));
    exec(db, sql);
}

/* Ten steps of `step_us`, each: data, h2d, then forward/backward/optimizer splitting the rest 2:2:1.
 * The loader thread (tid 101) holds a "data" range over the whole run: it must not count. */
static void write_trace(const char *path, long long data_us, long long h2d_us, long long step_us)
{
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        exit(1);
    exec(db, "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
             "text TEXT, textId INTEGER, globalTid INTEGER, domainId INTEGER);"
             "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
             "CREATE TABLE PERFSCOPE_META(key TEXT NOT NULL, value TEXT);"
             "INSERT INTO PERFSCOPE_META VALUES ('cuda_injection', 'not called: no CUDA driver in this process');"
             "BEGIN;");
    long long t = 0, compute = step_us - data_us - h2d_us;
    for (int i = 0; i < 10; i++, t += step_us) {
        nvtx(db, t, t + step_us, "step", 100);
        nvtx(db, t, t + data_us, "data", 100);
        nvtx(db, t + data_us, t + data_us + h2d_us, "h2d", 100);
        long long f = t + data_us + h2d_us;
        nvtx(db, f, f + compute * 2 / 5, "forward", 100);
        nvtx(db, f + compute * 2 / 5, f + compute * 4 / 5, "backward", 100);
        nvtx(db, f + compute * 4 / 5, t + step_us, "optimizer", 100);
    }
    nvtx(db, 0, t, "data", 101);
    exec(db, "COMMIT;");
    sqlite3_close(db);
}

static void scenario(const char *dir, const char *name, long long data_us, long long h2d_us, const char *want)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s.sqlite", dir, name);
    write_trace(path, data_us, h2d_us, 1000);
    struct ps_model *m = NULL;
    struct ps_report r;
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    if (ps_read_trace(path, &m, err, sizeof err) < 0 || ps_ranks_report_compute(&r, m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", name, err);
        exit(1);
    }
    CHECK(r.nsteps == 10, "%s: %zu steps, expected 10", name, r.nsteps);
    CHECK(r.avg.cat_ns[PS_CAT_DATALOADER] == data_us * 1000, "%s: DataLoader %lld ns, expected %lld", name,
          (long long)r.avg.cat_ns[PS_CAT_DATALOADER], data_us * 1000);
    CHECK(r.avg.cat_ns[PS_CAT_MEMCPY] == h2d_us * 1000, "%s: Memcpy %lld ns", name, (long long)r.avg.cat_ns[PS_CAT_MEMCPY]);
    CHECK(r.avg.cat_ns[PS_CAT_KERNEL] == (1000 - data_us - h2d_us) * 1000, "%s: Kernel %lld ns", name,
          (long long)r.avg.cat_ns[PS_CAT_KERNEL]);
    CHECK(!strcmp(ps_bottleneck_name[r.bottleneck], want), "%s: verdict %s, expected %s", name,
          ps_bottleneck_name[r.bottleneck], want);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ps_report_write_text(f, &r);
    fclose(f);
    CHECK(strstr(text, "No GPU rows") != NULL, "%s: the text report does not say there are no GPU rows", name);
    /* the raw metadata is not dumped; the text points to where all of it is */
    CHECK(strstr(text, "cuda_injection = not called") == NULL, "%s: the text report dumps raw metadata", name);
    CHECK(strstr(text, "(all 1 metadata entries: run.meta in --format json)") != NULL,
          "%s: the text report does not say where the metadata is", name);
    free(text);
    ps_report_fini(&r);
    ps_model_free(m);
    unlink(path);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    /* data 600 µs of 1000 -> data-loading; h2d 500 -> memcpy; data 50 + h2d 50 -> Kernel 90 % -> kernel */
    scenario(dir, "data_bound", 600, 100, "data-loading");
    scenario(dir, "memcpy_bound", 100, 500, "memcpy");
    scenario(dir, "kernel_bound", 50, 50, "kernel");
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
