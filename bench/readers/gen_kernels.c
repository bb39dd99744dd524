/* Writes a synthetic perfscope-format trace with a known content, for the reader benchmark:
 * N kernel rows (default 10 million) on one device, 4 streams, 100 kernel names, in the
 * CUPTI_ACTIVITY_KIND_KERNEL table of docs/trace-format.md, plus StringIds, PERFSCOPE_META and one NVTX
 * `step` push/pop range per 10,000 kernels. Kernel i: stream 7 + i % 4, name id i % 100,
 * start 1000 * i ns, duration 500 + i % 1000 ns, correlation i + 1.
 * So total kernel time = sum over i of (500 + i % 1000); the program prints it. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ps_globalid.h"

static int exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "gen_kernels: %s: %s\n", sql, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.sqlite [KERNELS]\n", argv[0]);
        return 2;
    }
    long long n = argc > 2 ? atoll(argv[2]) : 10000000;
    sqlite3 *db = NULL;
    sqlite3_stmt *k = NULL, *s = NULL, *r = NULL;
    unlink(argv[1]);
    if (sqlite3_open(argv[1], &db) != SQLITE_OK)
        return 1;
    if (exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=65536; BEGIN;") < 0 ||
        exec(db, "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
                 "CREATE TABLE PERFSCOPE_META(key TEXT NOT NULL, value TEXT);"
                 "INSERT INTO PERFSCOPE_META VALUES ('schema_version', '1'), ('generator', 'gen_kernels');"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL,"
                 " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
                 " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
                 " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER);"
                 "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
                 " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,"
                 " endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);") < 0)
        return 1;
    if (sqlite3_prepare_v2(db, "INSERT INTO StringIds VALUES (?, ?)", -1, &s, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 0, ?, ?, ?, ?, ?, NULL)",
                           -1, &k, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, 'step', ?, NULL, NULL, 0)",
                           -1, &r, NULL) != SQLITE_OK)
        return 1;
    for (int i = 0; i < 100; i++) {
        char name[64];
        snprintf(name, sizeof name, "void synthetic_kernel_%02d<float, 128>(float const*, float*, int)", i);
        sqlite3_bind_int(s, 1, i);
        sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_step(s);
        sqlite3_reset(s);
    }
    int64_t gpid = ps_global_pid(4242), gtid = ps_global_tid(4242, 4242);
    long long total_ns = 0;
    for (long long i = 0; i < n; i++) {
        long long start = 1000 * i, dur = 500 + i % 1000;
        total_ns += dur;
        sqlite3_bind_int64(k, 1, start);
        sqlite3_bind_int64(k, 2, start + dur);
        sqlite3_bind_int64(k, 3, 7 + i % 4);
        sqlite3_bind_int64(k, 4, i + 1);
        sqlite3_bind_int64(k, 5, gpid);
        sqlite3_bind_int64(k, 6, i % 100);
        sqlite3_bind_int64(k, 7, i % 100);
        if (sqlite3_step(k) != SQLITE_DONE)
            return 1;
        sqlite3_reset(k);
        if (i % 10000 == 0) {
            sqlite3_bind_int64(r, 1, start);
            sqlite3_bind_int64(r, 2, start + 10000 * 1000LL - 1);
            sqlite3_bind_int64(r, 3, gtid);
            sqlite3_step(r);
            sqlite3_reset(r);
        }
    }
    sqlite3_finalize(s);
    sqlite3_finalize(k);
    sqlite3_finalize(r);
    if (exec(db, "COMMIT;") < 0)
        return 1;
    sqlite3_close(db);
    printf("%s: %lld kernels, total kernel time %lld ns, %lld step ranges\n", argv[1], n, total_ns,
           (n + 9999) / 10000);
    return 0;
}
