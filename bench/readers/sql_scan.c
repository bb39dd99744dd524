/* The floor for reading a perfscope trace's kernels: one plain SELECT of the columns the reader needs from
 * CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid, demangledName), every row
 * stepped and each column fetched as an integer, nothing stored. Prints the rows and the sum of end - start, so
 * the scan cannot be optimised away and can be checked against gen_kernels' total.
 * Usage: sql_scan TRACE.sqlite */
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE.sqlite\n", argv[0]);
        return 2;
    }
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName "
                               "FROM CUPTI_ACTIVITY_KIND_KERNEL", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "sql_scan: %s: %s\n", argv[1], sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    long long rows = 0, total = 0, check = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        rows++;
        total += sqlite3_column_int64(st, 1) - sqlite3_column_int64(st, 0);
        for (int i = 2; i < 7; i++)
            check += sqlite3_column_int64(st, i);
    }
    printf("%s: %lld rows, total kernel time %lld ns (check %lld)\n", argv[1], rows, total, check);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 0;
}
