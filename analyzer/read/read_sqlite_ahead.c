/* Reading a large activity table on two cores: a thread steps the table's SELECT on a second connection to the file
 * (ps_sq_open_twin) and hands its rows over in blocks, while the reader's thread turns the rows before them into
 * the model. SQLite's own work (the VM, the b-tree, decoding the records) is then off the reader's thread, which
 * keeps the rest: a 10-million-kernel trace spends about as long in each (docs/readers.md, "Reading speed and
 * memory").
 *
 * The thread hands over only rows whose every column is an integer or NULL. At anything else (another type, an
 * SQLite error, the work bound, a stop request) it stops, and the reader steps its own statement past the rows it
 * was given and reads on alone: every message is the one the reader alone gives. Both connections read the same
 * snapshot: the second one is opened only where no writer can change the file (ps_sq_open: not a WAL-mode file
 * that may still grow). */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read_sqlite_impl.h"

#define BLOCK_ROWS 4096
#define BLOCKS 4                  /* blocks in flight: 4 x 4096 x 144 bytes */

struct block {
    struct ps_sq_row rows[BLOCK_ROWS];
    size_t n;
};

struct ps_sq_ahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sqlite3 *db;
    sqlite3_stmt *st;
    int ncols;
    struct block blocks[BLOCKS];
    size_t filled, taken;         /* blocks handed over, blocks the reader has finished with (filled - taken <= BLOCKS) */
    /* the reader's side, never touched by the thread: the block it reads (blocks[taken % BLOCKS]), its rows */
    struct block *cur;
    size_t cur_n, at;
    int ended;                    /* the thread has stopped: every block it filled is counted in filled */
    int done;                     /* ... because the statement returned SQLITE_DONE */
    int cancel;                   /* the reader wants no more rows */
    long long delivered;          /* rows the reader has taken */
    long long work_budget, work_done;
    int64_t rows;                 /* the table's rows at the start (count(*)), 0 unknown */
};

static long long rows_read_ahead;   /* every read-ahead's rows, for ps_sq_ahead_rows */

int64_t ps_sq_ahead_row_count(const struct ps_sq_ahead *a)
{
    return a->rows;
}

long long ps_sq_ahead_rows(void)
{
    return __atomic_load_n(&rows_read_ahead, __ATOMIC_RELAXED);
}

static int work_bound(void *arg)
{
    struct ps_sq_ahead *a = arg;
    a->work_done += PS_SQ_WORK_STEP;
    /* cancel is read without the lock: a late look only costs one more progress call */
    return a->work_done > a->work_budget || __atomic_load_n(&a->cancel, __ATOMIC_RELAXED) || ps_sq_stop_requested();
}

/* One row of the statement into r: 1, or 0 when a column holds something other than an integer or NULL. */
static int take_row(struct ps_sq_ahead *a, struct ps_sq_row *r)
{
    for (int i = 0; i < a->ncols; i++) {
        sqlite3_value *x = sqlite3_column_value(a->st, i);
        int t = r->t[i] = sqlite3_value_type(x);
        if (t != SQLITE_INTEGER && t != SQLITE_NULL)
            return 0;
        r->v[i] = sqlite3_value_int64(x);
    }
    r->rowid = sqlite3_column_int64(a->st, a->ncols);
    return 1;
}

static void *ahead_main(void *arg)
{
    struct ps_sq_ahead *a = arg;
    int rc = SQLITE_ROW, done = 0;
    while (rc == SQLITE_ROW) {
        pthread_mutex_lock(&a->mu);
        while (a->filled - a->taken == BLOCKS && !__atomic_load_n(&a->cancel, __ATOMIC_RELAXED))
            pthread_cond_wait(&a->cv, &a->mu);
        int cancel = __atomic_load_n(&a->cancel, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&a->mu);
        if (cancel)
            break;
        struct block *b = &a->blocks[a->filled % BLOCKS];   /* the reader is not in it: it is free */
        b->n = 0;
        while (b->n < BLOCK_ROWS && (rc = sqlite3_step(a->st)) == SQLITE_ROW && take_row(a, &b->rows[b->n]))
            b->n++;
        done = rc == SQLITE_DONE;
        if (rc == SQLITE_ROW && b->n < BLOCK_ROWS)
            rc = SQLITE_MISUSE;   /* a row it does not hand over: stop after the rows before it */
        pthread_mutex_lock(&a->mu);
        if (b->n)
            a->filled++;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    pthread_mutex_lock(&a->mu);
    a->ended = 1;
    a->done = done;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* `what` of the table (an aggregate: "max(rowid)", "count(*)"), 0 when empty or unknown (an SQLite error). */
static int64_t table_figure(sqlite3 *db, const char *table, const char *what)
{
    char sql[256];
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\"", what, table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int ps_sq_ahead_start(struct sctx *c, const char *table, const char *sql, int ncols, int64_t min_rows,
                      struct ps_sq_ahead **out)
{
    *out = NULL;
    if (c->rowid_after || ncols > PS_SQ_ROW_COLS || sqlite3_threadsafe() == 0 ||
        sysconf(_SC_NPROCESSORS_ONLN) < 2 || table_figure(c->db, table, "max(rowid)") < min_rows)
        return 0;
    struct ps_sq_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return 0;
    /* the rows themselves, not the largest rowid a file may claim: count(*) counts the b-tree's cells without
     * decoding a record (10 M kernel rows: 0.06 s) */
    a->rows = table_figure(c->db, table, "count(*)");
    a->ncols = ncols;
    a->work_budget = c->work_budget - c->work_done;
    if (ps_sq_open_twin(c, &a->db) < 0 || !a->db ||
        sqlite3_prepare_v3(a->db, sql, -1, 0, &a->st, NULL) != SQLITE_OK || sqlite3_column_count(a->st) != ncols + 1)
        goto fail;
    sqlite3_progress_handler(a->db, PS_SQ_WORK_STEP, work_bound, a);
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    if (pthread_create(&a->thread, NULL, ahead_main, a) == 0) {
        *out = a;
        return 1;
    }
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
fail:
    sqlite3_finalize(a->st);
    sqlite3_close(a->db);
    free(a);
    return 0;
}

int ps_sq_ahead_next(struct ps_sq_ahead *a, struct ps_sq_row *r, int *done, long long *delivered)
{
    if (!a->cur || a->at == a->cur_n) {
        pthread_mutex_lock(&a->mu);
        if (a->cur) {             /* finished with this block: it is the thread's again */
            a->taken++;
            a->cur = NULL;
            pthread_cond_broadcast(&a->cv);
        }
        while (a->taken == a->filled && !a->ended)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->taken < a->filled) {
            a->cur = &a->blocks[a->taken % BLOCKS];
            a->cur_n = a->cur->n;
            a->at = 0;
        }
        *done = a->done;
        pthread_mutex_unlock(&a->mu);
        if (!a->cur) {
            *delivered = a->delivered;
            return 0;
        }
    }
    *r = a->cur->rows[a->at++];
    a->delivered++;
    return 1;
}

void ps_sq_ahead_end(struct sctx *c, struct ps_sq_ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    __atomic_store_n(&a->cancel, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    c->work_done += a->work_done;
    __atomic_add_fetch(&rows_read_ahead, a->delivered, __ATOMIC_RELAXED);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    sqlite3_finalize(a->st);
    sqlite3_close(a->db);
    free(a);
}
