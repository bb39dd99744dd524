/* The recording pipeline (see collect.h). The drain thread only copies: ring records go into 4 MiB chunks
 * behind a 16-byte entry header, chunks go onto a queue, and the writer thread turns them into rows in one
 * transaction per batch of chunks, so SQLite never slows the draining of the rings. */
#include "collector/collect.h"
#include "collect_impl.h"

#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gpu_rows.h"
#include "maps.h"
#include "gpu_samples.h"
#include "ps_diag.h"
#include "ps_env.h"
#include "ps_schema.h"
#include "ps_ring.h"
#include "ps_time.h"

#define CHUNK_BYTES (4u << 20)
#define QUEUE_MAX_BYTES ((size_t)1 << 30)   /* beyond this the drain waits for the writer (rings then fill) */
#define DRAIN_BURST_RECORDS 4096            /* a drain pass this big loops again at once ... */
#define DRAIN_TRICKLE_SLEEP_NS 5000000      /* ... a smaller one sleeps first: 5 ms of even 10 M ranges/s is 2 MB of
                                               ring, and each wake-up costs the target a little */
#define DRAIN_IDLE_MIN_NS 1000000           /* poll empty rings after 1 ms, backing off ... */
#define DRAIN_IDLE_MAX_NS 20000000          /* ... to 20 ms while they stay empty (idle cost: ~50 wakeups/s) */
#define FLUSH_EVERY_NS 20000000             /* the drain hands its current chunk to the writer this often */
#define SCAN_EVERY_NS 20000000              /* look for new ring files every 20 ms */
#define COMMIT_EVERY_NS 100000000           /* at most 10 commits a second: big transactions */
#define NAMES_EVERY_NS 1000000000              /* PROCESSES / ThreadNames republished once a second */
#define LIVE_OPEN_EVERY_NS 250000000          /* PERFSCOPE_LIVE_OPEN_RANGES refreshed 4 times a second (top) */
#define FINAL_DRAIN_NS 2000000000           /* the last drain's bound when descendants keep writing */


#define MAX_SPARE 32

/* A chunk for at least min_bytes: a spare one when it fits, else fresh memory; `exact` asks for a fresh
 * chunk of exactly min_bytes (small one-off batches such as a sampler tick). */
static struct chunk *chunk_new(struct ps_collect *c, size_t min_bytes, int exact)
{
    if (!exact && min_bytes <= CHUNK_BYTES) {
        pthread_mutex_lock(&c->lock);
        struct chunk *k = c->spare;
        if (k) {
            c->spare = k->next;
            c->n_spare--;
        }
        pthread_mutex_unlock(&c->lock);
        if (k) {
            k->next = NULL;
            k->len = 0;
            return k;
        }
    }
    size_t cap = exact || min_bytes > CHUNK_BYTES ? min_bytes : CHUNK_BYTES;
    struct chunk *k = malloc(sizeof *k + cap);
    if (k) {
        k->next = NULL;
        k->len = 0;
        k->cap = cap;
    }
    return k;
}

static void queue_push(struct ps_collect *c, struct chunk *k)
{
    pthread_mutex_lock(&c->lock);
    k->next = NULL;
    if (c->tail)
        c->tail->next = k;
    else
        c->head = k;
    c->tail = k;
    c->queued_bytes += k->cap;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* Append one entry to chunk *kp (replacing it by a fresh one when full: the full one goes to the queue).
 * Returns the copy of the payload, or NULL when out of memory. */
static void *put_ent(struct ps_collect *c, struct chunk **kp, uint16_t kind, uint32_t ring, uint32_t lane,
                     const void *payload, size_t len)
{
    size_t need = (sizeof(struct ent) + len + 7) & ~(size_t)7;
    if (*kp && (*kp)->len + need > (*kp)->cap) {
        queue_push(c, *kp);
        *kp = NULL;
    }
    if (!*kp && !(*kp = chunk_new(c, need, 0)))
        return NULL;
    struct chunk *k = *kp;
    struct ent *e = (struct ent *)(k->data + k->len);
    e->size = (uint32_t)need;
    e->kind = kind;
    e->pad = 0;
    e->ring = ring;
    e->lane = lane;
    if (len)
        memcpy(e + 1, payload, len);
    k->len += need;
    return e + 1;
}

/* ---- drain thread ---- */

struct drain_ctx {
    struct ps_collect *c;
    uint32_t ring;
    uint32_t lane;                  /* the lane of the last record copied ... */
    int have_lane;                  /* ... if any: its position goes in the stream when the drain leaves it */
};

/* The reader's calibration moves with each drain, so raw probe timestamps are turned into CLOCK_MONOTONIC
 * ns here, in the copy, while the drain that delivered them is current. */
static void convert_times(struct ps_wire_hdr *rec, const struct ps_ring_reader *r)
{
    switch (rec->type) {
    case PS_WIRE_NVTX_RANGE:
    case PS_WIRE_NVTX_STARTEND:
    case PS_WIRE_NVTX_MARK:
    case PS_WIRE_NVTX_UNBALANCED:
        if (rec->size >= sizeof(struct ps_wire_nvtx)) {
            struct ps_wire_nvtx *n = (void *)rec;
            n->start_tsc = (uint64_t)ps_ring_reader_to_ns(r, n->start_tsc);
            n->end_tsc = (uint64_t)ps_ring_reader_to_ns(r, n->end_tsc);
        }
        break;
    case PS_WIRE_NVTX_OPEN:             /* made by the reader: full size, no end */
        ((struct ps_wire_nvtx *)(void *)rec)->start_tsc =
            (uint64_t)ps_ring_reader_to_ns(r, ((struct ps_wire_nvtx *)(void *)rec)->start_tsc);
        break;
    case PS_WIRE_NVTX_DOMAIN:
    case PS_WIRE_NVTX_REGISTERED:
    case PS_WIRE_NVTX_CATEGORY:
        if (rec->size >= sizeof(struct ps_wire_nvtx_name)) {
            struct ps_wire_nvtx_name *n = (void *)rec;
            n->tsc = (uint64_t)ps_ring_reader_to_ns(r, n->tsc);
        }
        break;
    case PS_WIRE_PY_FRAME:              /* both: the tsc right after the header */
    case PS_WIRE_PY_SAMPLE:
        if (rec->size >= sizeof(struct ps_wire_py_frame)) {
            struct ps_wire_py_frame *f = (void *)rec;
            f->tsc = (uint64_t)ps_ring_reader_to_ns(r, f->tsc);
        }
        break;
    default:   /* GPU records carry CUPTI timestamps already in CLOCK_MONOTONIC ns (ps_wire_gpu.h) */
        break;
    }
}

/* After the records of a lane: where its drain stands, so that the writer can store that place with those
 * records' rows and then hand the chunks before it back. */
static void put_pos(struct drain_ctx *d)
{
    if (!d->have_lane)
        return;
    struct ring_pos p = { d->c->rings[d->ring].reader, d->lane, { 0, 0 } };
    ps_ring_reader_position(p.reader, d->lane, &p.pos);
    put_ent(d->c, &d->c->cur, ENT_RING_POS, d->ring, d->lane, &p, sizeof p);
    d->have_lane = 0;
}

static int drain_one(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec)
{
    struct drain_ctx *d = ctx;
    struct ps_collect *c = d->c;
    if (d->have_lane && d->lane != lane)
        put_pos(d);
    /* A chunk handed to the writer ends with the place of the lane whose records it holds: the writer may
     * commit it without the next one, and a recovery resumes each lane from the place stored with its rows
     * (a record past it would be stored twice). So each record leaves room for that place after it. */
    size_t pos_bytes = (sizeof(struct ent) + sizeof(struct ring_pos) + 7) & ~(size_t)7;
    size_t need = ((sizeof(struct ent) + rec->size + 7) & ~(size_t)7) + pos_bytes;
    if (c->cur && c->cur->len + need > c->cur->cap) {
        put_pos(d);                 /* this lane's place: before `rec` */
        queue_push(c, c->cur);
        c->cur = NULL;
    }
    struct ps_wire_hdr *copy = put_ent(c, &c->cur, ENT_WIRE, d->ring, lane, rec, rec->size);
    if (!copy)
        return -ENOMEM;
    convert_times(copy, c->rings[d->ring].reader);
    d->lane = lane;
    d->have_lane = 1;
    atomic_fetch_add_explicit(&c->drained, 1, memory_order_relaxed);
    return 0;
}

static int live_open_one(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec)
{
    struct drain_ctx *d = ctx;
    struct ps_collect *c = d->c;
    struct ps_wire_hdr *copy = put_ent(c, &c->cur, ENT_LIVE_OPEN, d->ring, lane, rec, rec->size);
    if (!copy)
        return -ENOMEM;
    convert_times(copy, c->rings[d->ring].reader);
    return 0;
}

/* The push/pop ranges open right now, for `perfscope top` (PERFSCOPE_LIVE_OPEN_RANGES). Read from the rings'
 * open-range tables while the programs run, so a range may close (or a slot be reused) during the read: a
 * display, not a record (the records of ranges are the NVTX_EVENTS rows). `final`: only clear the table. */
static void live_open_snapshot(struct ps_collect *c, int final)
{
    if (!put_ent(c, &c->cur, ENT_LIVE_CLEAR, 0, 0, "", 0) || final)
        return;
    for (size_t i = 0; i < c->n_rings; i++) {
        struct drain_ctx d = { .c = c, .ring = (uint32_t)i };
        if (!c->rings[i].reader || c->rings[i].corrupt)
            continue;               /* gone (recovery) or no longer read */
        if (ps_ring_reader_open_ranges(c->rings[i].reader, live_open_one, &d) < 0)
            return;
    }
}

static int ring_known(const struct ps_collect *c, const char *name)
{
    for (size_t i = 0; i < c->n_rings; i++)
        if (strcmp(c->rings[i].name, name) == 0)
            return 1;
    return 0;
}

/* 1 when process `pid` still maps the ring file `name` (its writer is alive: not exited, not a zombie, not
 * another process that reused the pid, and not a pid of another PID namespace), else 0. */
static int ring_writer_alive(uint32_t pid, const char *name)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%u/maps", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = strlen(name);
    int alive = 0;
    while (!alive && fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\n");
        alive = len > n && line[len - n - 1] == '/' && memcmp(line + len - n, name, n) == 0;
    }
    fclose(f);
    return alive;
}

/* Warn about probed processes still running now that CMD has exited (daemons, background jobs): what they
 * record from now on is not in the trace. Once per pid (an exec'd process has two rings). */
static void report_still_running(struct ps_collect *c)
{
    for (size_t i = 0; i < c->n_rings; i++) {
        if (!c->rings[i].reader)
            continue;
        uint32_t pid = ps_ring_reader_pid(c->rings[i].reader);
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = c->rings[k].reader && ps_ring_reader_pid(c->rings[k].reader) == pid;
        if (seen || !ring_writer_alive(pid, c->rings[i].name))
            continue;
        char path[64], comm[64] = "?";
        snprintf(path, sizeof path, "/proc/%u/comm", pid);
        FILE *f = fopen(path, "re");
        if (f && fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = '\0';
        if (f)
            fclose(f);
        ps_diag("perfscope record: warning: process %u (%s) was still running when CMD exited: its later "
                "records are not in the trace (make CMD wait for its children)", pid, comm);
        put_ent(c, &c->cur, ENT_RING_ALIVE, (uint32_t)i, 0, &pid, sizeof pid);
    }
}

/* Open ring files not seen before. A file the probe has not finished initialising fails to open and is
 * tried again at the next scan; `final` reports the ones that never opened. */
static void scan_dir(struct ps_collect *c, int final)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        unsigned pid, n;
        int end = 0;
        if (sscanf(de->d_name, PS_RING_FILE_FMT "%n", &pid, &n, &end) != 2 || !end || de->d_name[end] ||
            ring_known(c, de->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->dir, de->d_name);
        struct ps_ring_reader *r = NULL;
        int rc = ps_ring_reader_open(path, &r);
        if (rc) {
            if (final)
                ps_diag("perfscope record: warning: cannot read ring %s: %s (its records are lost)",
                path, strerror(-rc));
            continue;
        }
        if (c->n_rings == c->cap_rings) {
            size_t cap = c->cap_rings ? c->cap_rings * 2 : 16;
            struct ring_file *nr = realloc(c->rings, cap * sizeof *nr);
            if (!nr) {
                ps_ring_reader_close(r);
                break;
            }
            c->rings = nr;
            c->cap_rings = cap;
        }
        char *name = strdup(de->d_name);
        uint64_t ns = ps_ring_reader_pidns(r);
        struct ring_open ro = { r, ps_ring_reader_pid(r), ns && c->pidns && ns != c->pidns, "" };
        snprintf(ro.file, sizeof ro.file, "%.63s", de->d_name);  /* PS_RING_FILE_FMT: 30 bytes at most */
        ps_ring_reader_hold_chunks(r);      /* a chunk goes back to the probe once its rows are committed */
        if (ro.other_pidns)
            ps_diag("perfscope record: warning: ring %s comes from a process in another PID namespace "
                    "(unshare -p, a container): its rows are stored under its pid there, %u, which may be "
                    "another process's pid here; its host samples are under its host pid", path, ro.pid);
        if (!name || !put_ent(c, &c->cur, ENT_RING_OPEN, (uint32_t)c->n_rings, 0, &ro, sizeof ro)) {
            free(name);
            ps_ring_reader_close(r);
            break;
        }
        c->rings[c->n_rings++] = (struct ring_file){ name, r, 0 };
    }
    closedir(d);
}

/* A ring whose reading stopped on nonsense (the program wrote over its mapping): say so once and count it;
 * the other rings are read on. */
void ps_collect_ring_corrupt(struct ps_collect *c, size_t i)
{
    struct ring_file *f = &c->rings[i];
    if (f->corrupt)
        return;
    f->corrupt = 1;
    ps_diag("perfscope record: warning: process %u overwrote its ring %s (%s): its records from here "
            "on, its open ranges and its drop counts are lost; the rest of the recording goes on",
            ps_ring_reader_pid(f->reader), f->name, ps_ring_reader_corrupt(f->reader));
    put_ent(c, &c->cur, ENT_RING_CORRUPT, (uint32_t)i, 0, NULL, 0);
}

/* Drain every known ring once; returns the number of records copied. */
static long drain_all(struct ps_collect *c)
{
    long total = 0;
    for (size_t i = 0; i < c->n_rings; i++) {
        if (c->rings[i].corrupt || !c->rings[i].reader)
            continue;
        struct drain_ctx d = { c, (uint32_t)i, 0, 0 };
        long n = ps_ring_reader_drain(c->rings[i].reader, drain_one, &d);
        put_pos(&d);
        if (n > 0)
            total += n;
        else if (n == -EBADMSG)
            ps_collect_ring_corrupt(c, i);
    }
    return total;
}

static void flush_cur(struct ps_collect *c)
{
    if (c->cur && c->cur->len) {
        queue_push(c, c->cur);
        c->cur = NULL;
    }
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };
    nanosleep(&ts, NULL);
}

void *ps_collect_drain_main(void *arg)
{
    struct ps_collect *c = arg;
    /* A target with more busy threads than cores would starve a normal-priority drain (CFS shares the CPU
     * per thread) and fill its rings: run the drain as a real-time thread where allowed (root, or
     * RLIMIT_RTPRIO). It only copies and sleeps, so it cannot monopolise a core for long. */
    struct sched_param sp = { .sched_priority = 1 };
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    int64_t last_scan = 0, last_flush = 0, last_live = 0, idle_ns = DRAIN_IDLE_MIN_NS;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        int stop = c->stop_drain;
        while (!stop && c->queued_bytes > QUEUE_MAX_BYTES) {
            pthread_cond_wait(&c->cond, &c->lock);
            stop = c->stop_drain;
        }
        pthread_mutex_unlock(&c->lock);
        if (stop)
            break;
        /* A new ring's records wait in the ring until found; 20 ms of them fit in any sane ring. */
        int64_t now = ps_monotonic_ns();
        if (now - last_scan >= SCAN_EVERY_NS) {
            scan_dir(c, 0);
            last_scan = now;
        }
        long n = drain_all(c);
        if (now - last_live >= LIVE_OPEN_EVERY_NS) {
            live_open_snapshot(c, 0);     /* after the drain: the lanes' strings are defined first */
            last_live = now;
        }
        /* Hand the writer a chunk every FLUSH_EVERY_NS (it commits every COMMIT_EVERY_NS anyway), not after
         * every pass: one chunk per millisecond of trickle would churn 4 MiB allocations and page faults. */
        if (now - last_flush >= FLUSH_EVERY_NS) {
            flush_cur(c);
            last_flush = now;
        }
        if (n >= DRAIN_BURST_RECORDS) {
            idle_ns = DRAIN_IDLE_MIN_NS;     /* a burst: go straight back for more */
        } else if (n > 0) {
            idle_ns = DRAIN_IDLE_MIN_NS;     /* a trickle: let it collect */
            sleep_ns(DRAIN_TRICKLE_SLEEP_NS);
        } else {
            sleep_ns(idle_ns);
            idle_ns = idle_ns * 2 > DRAIN_IDLE_MAX_NS ? DRAIN_IDLE_MAX_NS : idle_ns * 2;
        }
    }
    /* Final pass: the target has exited; take everything, then the exact dropped counts. A descendant that
     * outlives the target may go on writing: stop after FINAL_DRAIN_NS regardless. */
    scan_dir(c, 1);
    int64_t until = ps_monotonic_ns() + FINAL_DRAIN_NS;
    while (drain_all(c) > 0 && ps_monotonic_ns() < until)
        ;
    /* Ranges pushed and never popped (the process crashed, was killed, or exited inside them): after the
     * lane's records, so their strings are defined first. */
    for (size_t i = 0; i < c->n_rings; i++) {
        struct drain_ctx d = { c, (uint32_t)i, 0, 0 };
        if (!c->rings[i].reader || c->rings[i].corrupt)
            continue;
        if (ps_ring_reader_open_ranges(c->rings[i].reader, drain_one, &d) == -EBADMSG) {
            ps_collect_ring_corrupt(c, i);
            continue;
        }
        uint64_t refused = ps_ring_reader_open_refused(c->rings[i].reader);
        if (refused)
            put_ent(c, &c->cur, ENT_RING_REFUSED, (uint32_t)i, 0, &refused, sizeof refused);
    }
    for (size_t i = 0; i < c->n_rings; i++) {
        struct ps_ring_drops drops;
        if (!c->rings[i].reader)
            continue;               /* recovery: a ring file that is gone */
        if (!c->rings[i].corrupt && ps_ring_reader_drops(c->rings[i].reader, &drops) == 0)
            put_ent(c, &c->cur, ENT_RING_DROPPED, (uint32_t)i, 0, &drops, sizeof drops);
        else
            ps_collect_ring_corrupt(c, i);
    }
    report_still_running(c);
    live_open_snapshot(c, 1);
    flush_cur(c);
    pthread_mutex_lock(&c->lock);
    c->drain_done = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* ---- writer thread ---- */

/* Times were converted by the drain thread (convert_times). */
int64_t ps_collect_ns_clock(const void *ctx, uint64_t ns)
{
    (void)ctx;
    return (int64_t)ns;
}

/* The latest place of a lane's drain in the open transaction (ENT_RING_POS). */
static int pend_pos(struct ps_collect *c, uint32_t ring, const struct ring_pos *p)
{
    uint64_t key = (uint64_t)ring << 32 | p->lane;
    uint64_t *at = ps_u64map_get(&c->pend_at, key);
    if (at) {
        c->pend[*at].p = *p;
        return 0;
    }
    if (ps_array_grow((void **)&c->pend, &c->cap_pend, c->n_pend, sizeof *c->pend) ||
        ps_u64map_put(&c->pend_at, key, c->n_pend))
        return -ENOMEM;
    c->pend[c->n_pend++] = (struct pending_pos){ ring, *p };
    return 0;
}

/* Before the commit: each lane's place goes in the trace with the rows before it, and how far the trace
 * got (for the report of a recording whose recorder dies before the next commit). */
static int store_progress(struct ps_collect *c)
{
    for (size_t i = 0; i < c->n_pend; i++) {
        const struct pending_pos *p = &c->pend[i];
        sqlite3_bind_int64(c->st_lane, 1, p->ring);
        sqlite3_bind_int64(c->st_lane, 2, p->p.lane);
        sqlite3_bind_int64(c->st_lane, 3, p->p.pos.chunk);
        sqlite3_bind_int64(c->st_lane, 4, p->p.pos.offset);
        int rc = ps_tw_exec(c->w, c->st_lane);
        if (rc)
            return rc;
    }
    uint64_t drained = atomic_load_explicit(&c->drained, memory_order_relaxed);
    int rc = ps_tw_meta_i64(c->w, "progress.stored_until_ns", ps_monotonic_ns() - c->origin_ns);
    return rc ? rc : ps_tw_meta_i64(c->w, "progress.records_not_stored",
                                    (int64_t)(drained > c->written ? drained - c->written : 0));
}

/* After the commit: the chunks before each stored place go back to the probe. */
static void release_committed(struct ps_collect *c)
{
    for (size_t i = 0; i < c->n_pend; i++)
        ps_ring_reader_release(c->pend[i].p.reader, c->pend[i].p.lane, &c->pend[i].p.pos);
    c->n_pend = 0;
    ps_u64map_fini(&c->pend_at);
    memset(&c->pend_at, 0, sizeof c->pend_at);
}

static int write_chunk(struct ps_collect *c, const struct chunk *k)
{
    for (size_t off = 0; off < k->len;) {
        const struct ent *e = (const void *)(k->data + off);
        const void *p = e + 1;
        int rc = 0;
        switch (e->kind) {
        case ENT_WIRE:
            rc = ps_rows_wire(c->rows, e->ring, e->lane, p);
            c->written++;
            break;
        case ENT_RING_OPEN: {
            const struct ring_open *ro = p;
            rc = ps_rows_ring_open(c->rows, e->ring, ro->pid, ps_collect_ns_clock, NULL);
            if (!rc && ro->other_pidns)
                ps_rows_ring_other_pidns(c->rows);
            if (!rc) {
                sqlite3_bind_int64(c->st_ring, 1, e->ring);
                ps_tw_bind_text(c->st_ring, 2, ro->file);
                sqlite3_bind_int64(c->st_ring, 3, ro->pid);
                sqlite3_bind_int(c->st_ring, 4, (int)ro->other_pidns);
                rc = ps_tw_exec(c->w, c->st_ring);
            }
            break;
        }
        case ENT_RING_POS: {
            struct ring_pos pos;
            memcpy(&pos, p, sizeof pos);
            rc = pend_pos(c, e->ring, &pos);
            break;
        }
        case ENT_RING_DROPPED: {
            struct ps_ring_drops drops;
            memcpy(&drops, p, sizeof drops);
            ps_rows_ring_dropped(c->rows, e->ring, &drops);
            break;
        }
        case ENT_RING_REFUSED: {
            uint64_t n;
            memcpy(&n, p, sizeof n);
            ps_rows_ring_refused(c->rows, e->ring, n);
            break;
        }
        case ENT_RING_ALIVE:
            ps_rows_ring_still_running(c->rows, e->ring);
            break;
        case ENT_RING_CORRUPT:
            ps_rows_ring_corrupt(c->rows, e->ring);
            break;
        case ENT_PSAMPLE:
            rc = ps_rows_proc_sample(c->rows, p);
            break;
        case ENT_TSAMPLE:
            rc = ps_rows_thread_sample(c->rows, p);
            break;
        case ENT_LIVE_CLEAR:
            rc = ps_rows_live_open_clear(c->rows);
            break;
        case ENT_LIVE_OPEN:
            rc = ps_rows_live_open(c->rows, e->ring, e->lane, p);
            break;
        case ENT_GSAMPLE:
            if (!c->gpu_samples)
                rc = ps_gpu_samples_new(c->w, c->origin_ns, &c->gpu_samples);
            if (!rc)
                rc = ps_gpu_samples_write(c->gpu_samples, p);
            break;
        }
        if (rc)
            return rc;
        off += e->size;
    }
    return 0;
}

static void report_write_error(struct ps_collect *c, int rc)
{
    if (rc == -EIO)
        ps_diag("perfscope record: %s", ps_tw_errmsg(c->w));
    else
        ps_diag("perfscope record: writing the trace failed: %s", strerror(-rc));
}

void *ps_collect_writer_main(void *arg)
{
    struct ps_collect *c = arg;
    int64_t last_commit = ps_monotonic_ns(), last_names = 0;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (!c->head && !c->drain_done)
            pthread_cond_wait(&c->cond, &c->lock);
        struct chunk *batch = c->head;
        int done = c->drain_done && !batch;
        c->head = c->tail = NULL;
        pthread_mutex_unlock(&c->lock);
        if (done)
            break;
        int rc = c->write_error ? c->write_error : ps_tw_begin(c->w);
        for (struct chunk *k = batch, *next; k; k = next) {
            next = k->next;
            if (!rc)
                rc = write_chunk(c, k);
            pthread_mutex_lock(&c->lock);
            c->queued_bytes -= k->cap;
            if (k->cap == CHUNK_BYTES && c->n_spare < MAX_SPARE) {
                k->next = c->spare;
                c->spare = k;
                c->n_spare++;
                k = NULL;
            }
            pthread_cond_broadcast(&c->cond);
            pthread_mutex_unlock(&c->lock);
            free(k);
        }
        if (!rc && ps_monotonic_ns() - last_names >= NAMES_EVERY_NS) {
            rc = ps_rows_publish_names(c->rows);
            last_names = ps_monotonic_ns();
        }
        if (!rc && !c->write_error)
            rc = store_progress(c);
        if (!c->write_error && (rc || (rc = ps_tw_commit(c->w)))) {
            report_write_error(c, rc);
            c->write_error = rc;
        }
        if (!c->write_error)
            release_committed(c);
        /* Let rows accumulate so transactions stay big, unless the drain is finishing. */
        int64_t wait = COMMIT_EVERY_NS - (ps_monotonic_ns() - last_commit);
        last_commit = ps_monotonic_ns();
        pthread_mutex_lock(&c->lock);
        int finishing = c->drain_done || c->stop_drain;
        pthread_mutex_unlock(&c->lock);
        if (wait > 0 && !finishing)
            sleep_ns(wait);
    }
    return NULL;
}

/* ---- lifecycle ---- */

static void collect_free(struct ps_collect *c)
{
    for (size_t i = 0; i < c->n_rings; i++) {
        ps_ring_reader_close(c->rings[i].reader);
        free(c->rings[i].name);
    }
    for (struct chunk *k = c->head, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    for (struct chunk *k = c->spare, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    free(c->cur);
    free(c->rings);
    free(c->pend);
    ps_u64map_fini(&c->pend_at);
    ps_rows_free(c->rows);
    ps_gpu_samples_free(c->gpu_samples);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c->dir);
    free(c);
}

int ps_collect_start(const char *session_dir, int64_t origin_ns, struct ps_tw *w, struct ps_collect **out)
{
    struct ps_collect *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->w = w;
    c->origin_ns = origin_ns;
    int rc = -ENOMEM;
    struct stat ns;
    c->pidns = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
    if (!(c->dir = strdup(session_dir)) || (rc = ps_rows_new(w, origin_ns, &c->rows)) ||
        (rc = ps_rows_keep_state(c->rows)))
        goto fail;
    c->st_ring = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_RECOVERY_RINGS VALUES(?, ?, ?, ?)");
    c->st_lane = ps_tw_prepare(w, "INSERT OR REPLACE INTO PERFSCOPE_RECOVERY_LANES VALUES(?, ?, ?, ?)");
    if (!c->st_ring || !c->st_lane) {
        rc = -EIO;
        goto fail;
    }
    if ((rc = -pthread_create(&c->writer_thread, NULL, ps_collect_writer_main, c)))
        goto fail;
    c->writer_started = 1;
    if ((rc = -pthread_create(&c->drain_thread, NULL, ps_collect_drain_main, c)))
        goto fail;
    c->drain_started = 1;
    *out = c;
    return 0;
fail:
    ps_diag("perfscope record: cannot start the recording threads: %s", strerror(-rc));
    if (rc == -EIO)
        ps_diag("perfscope record: %s", ps_tw_errmsg(w));
    ps_collect_stop(c, &(struct ps_rows_totals){ 0 });
    return rc;
}

int ps_collect_post_samples(struct ps_collect *c, const struct ps_proc_sample *ps, size_t np,
                            const struct ps_thread_sample *ts, size_t nt)
{
    if (!np && !nt)
        return 0;
    size_t bytes = np * ((sizeof(struct ent) + sizeof *ps + 7) & ~(size_t)7) +
                   nt * ((sizeof(struct ent) + sizeof *ts + 7) & ~(size_t)7);
    struct chunk *k = chunk_new(c, bytes, 1);
    if (!k)
        return -ENOMEM;
    for (size_t i = 0; i < np; i++)
        put_ent(c, &k, ENT_PSAMPLE, 0, 0, &ps[i], sizeof ps[i]);
    for (size_t i = 0; i < nt; i++)
        put_ent(c, &k, ENT_TSAMPLE, 0, 0, &ts[i], sizeof ts[i]);
    queue_push(c, k);
    return 0;
}

int ps_collect_post_gpu_samples(struct ps_collect *c, const struct ps_gpu_sample *s, size_t n)
{
    if (!n)
        return 0;
    struct chunk *k = chunk_new(c, n * ((sizeof(struct ent) + sizeof *s + 7) & ~(size_t)7), 1);
    if (!k)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        put_ent(c, &k, ENT_GSAMPLE, 0, 0, &s[i], sizeof s[i]);
    queue_push(c, k);
    return 0;
}

int ps_collect_stop(struct ps_collect *c, struct ps_rows_totals *t)
{
    pthread_mutex_lock(&c->lock);
    c->stop_drain = 1;
    if (!c->drain_started)
        c->drain_done = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    if (c->drain_started)
        pthread_join(c->drain_thread, NULL);
    if (c->writer_started)
        pthread_join(c->writer_thread, NULL);
    int rc = c->write_error;
    if (!rc && c->rows) {
        /* Every ring is drained into the trace now; a recorder that dies before its run rows leaves this mark,
         * so that a recovery writes those and not the process rows again. */
        if (!(rc = ps_tw_begin(c->w)) && !(rc = ps_rows_finish(c->rows, t)) &&
            !(rc = ps_tw_meta(c->w, "recovery.rows_finished", "1")))
            rc = ps_tw_commit(c->w);
        if (rc)
            report_write_error(c, rc);
    }
    t->salvaged = c->written;
    collect_free(c);
    return rc;
}

int ps_collect_forget_recovery(struct ps_tw *w)
{
    int rc = ps_tw_sql(w, ps_schema_recovery_drop_sql, "dropping the recovery tables");
    return rc ? rc : ps_tw_sql(w, "DELETE FROM PERFSCOPE_META WHERE name LIKE 'progress.%' OR name LIKE 'recovery.%'",
                               "removing the progress rows");
}
