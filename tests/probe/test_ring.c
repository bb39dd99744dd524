/* Tests of the per-process ring (common/ps_ring*.c) through its writer and reader APIs: wrap-around,
 * exact drop counts, concurrent writers, SIGKILL of a writer, clock conversion, lane reuse.
 * Usage: test_ring CASE (one ctest per case). Expected values come from what each test wrote. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "ps_ring.h"
#include "ps_ring_writer.h"
#include "ps_time.h"
#include "ps_wire.h"

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* A test record: header, writer thread number, sequence number within that writer, filler whose bytes
 * are a function of (thread, seq) so a torn or overwritten record shows. */
struct trec {
    struct ps_wire_hdr h;
    uint32_t thread;
    uint32_t pad;
    uint64_t seq;
};

/* Records dropped, every cause; UINT64_MAX when the counts are nonsense (the ring is corrupt). */
static uint64_t dropped(struct ps_ring_reader *rd)
{
    struct ps_ring_drops d;
    return ps_ring_reader_drops(rd, &d) ? UINT64_MAX : ps_ring_drops_total(&d);
}

static uint8_t fill_byte(uint32_t thread, uint64_t seq, uint32_t i)
{
    return (uint8_t)(thread * 31 + seq * 7 + i);
}

/* Size 24..(24 + 8*k) bytes, varying with seq so records straddle chunk ends in every way. */
static uint32_t rec_size(uint64_t seq, uint32_t spread)
{
    return (uint32_t)(sizeof(struct trec) + 8 * (seq % spread));
}

/* Write one record; 1 if it went in, 0 if dropped. */
static int put(struct ps_ring_wlane *w, uint32_t thread, uint64_t seq, uint32_t size)
{
    struct trec *t = ps_ring_reserve(w, size);
    if (!t)
        return 0;
    t->h.size = size;
    t->h.type = 200;
    t->h.flags = 0;
    t->thread = thread;
    t->pad = 0;
    t->seq = seq;
    for (uint32_t i = sizeof *t; i < size; i++)
        ((uint8_t *)t)[i] = fill_byte(thread, seq, i);
    ps_ring_commit(w, size);
    return 1;
}

static char dir[] = "/tmp/ps-ring-test-XXXXXX";

static void cleanup_dir(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static struct ps_ring *make_ring(uint64_t bytes, uint32_t flags, char *path)
{
    struct ps_ring *r = NULL;
    int err = ps_ring_create(dir, bytes, flags, &r, path, 4096);
    CHECK(err == 0, "ps_ring_create(%s, %llu): %s", dir, (unsigned long long)bytes, strerror(-err));
    return r;
}

/* Reader-side expectations: per writer thread, the next sequence number. */
struct expect {
    uint64_t next[64];
    uint64_t records;
    uint32_t spread;
    uint32_t fixed;         /* every record has this size, if non-zero */
    uint32_t lane_of[64];
    int lane_known[64];
};

static int check_rec(void *ctx, uint32_t lane, const struct ps_wire_hdr *h)
{
    struct expect *e = ctx;
    const struct trec *t = (const void *)h;
    CHECK(h->type == 200 && h->size >= sizeof *t, "unexpected record type %u size %u", h->type, h->size);
    CHECK(t->thread < 64, "thread %u", t->thread);
    CHECK(t->seq == e->next[t->thread], "thread %u: seq %llu, expected %llu (lost or reordered)", t->thread,
          (unsigned long long)t->seq, (unsigned long long)e->next[t->thread]);
    CHECK(h->size == (e->fixed ? e->fixed : rec_size(t->seq, e->spread)), "size %u for seq %llu", h->size, (unsigned long long)t->seq);
    for (uint32_t i = sizeof *t; i < h->size; i++)
        CHECK(((const uint8_t *)t)[i] == fill_byte(t->thread, t->seq, i), "torn record seq %llu byte %u",
              (unsigned long long)t->seq, i);
    if (!e->lane_known[t->thread]) {
        e->lane_known[t->thread] = 1;
        e->lane_of[t->thread] = lane;
    }
    CHECK(e->lane_of[t->thread] == lane, "thread %u moved from lane %u to %u", t->thread, e->lane_of[t->thread], lane);
    e->next[t->thread]++;
    e->records++;
    return 0;
}

/* 300k records of 24..88 bytes (~17 MB) through a 1 MiB ring (1 MiB less 580 KiB of header, lane table and
 * open-range table: 111 chunks of 4 KiB), drained every 1000 records: the chunks are reused about 30 times
 * over; every record arrives once, in order, intact. */
static void ring_wraps_around_in_order(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(1 << 20, 0, path);
    struct ps_ring_reader *rd = NULL;
    struct ps_ring_wlane w = {0};
    struct expect e = {.spread = 9};
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open %s", path);
    CHECK(ps_ring_lane_claim(r, 1, &w) == 0, "claim");
    uint64_t bytes = 0;
    for (uint64_t s = 0; s < 300000; s++) {
        CHECK(put(&w, 0, s, rec_size(s, e.spread)), "dropped seq %llu", (unsigned long long)s);
        bytes += rec_size(s, e.spread);
        if (s % 1000 == 999)
            CHECK(ps_ring_reader_drain(rd, check_rec, &e) >= 0, "drain");
    }
    CHECK(ps_ring_reader_drain(rd, check_rec, &e) >= 0, "drain");
    CHECK(e.records == 300000, "got %llu records", (unsigned long long)e.records);
    CHECK(bytes > 30 * (444 << 10), "wrote only %llu bytes", (unsigned long long)bytes);
    CHECK(dropped(rd) == 0, "dropped %llu", (unsigned long long)dropped(rd));
    CHECK(ps_ring_reader_pid(rd) == (uint32_t)getpid(), "pid");
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

static int count_rec(void *ctx, uint32_t lane, const struct ps_wire_hdr *h)
{
    (void)lane;
    return check_rec(ctx, 0, h);
}

/* No reader: a 768 KiB ring has (786432 - 4096 header - 1024*64 lane table - 1024*16*32 open-range table)
 * / 4096 = 47 chunks of 4 KiB
 * (the chunk size for rings under 64 MiB is bytes/1024 rounded down to a power of two, at least 4 KiB).
 * Each chunk holds (4096 - 16) / 40 = 102 records of 40 bytes, so 47 * 102 = 4794 go in and the rest of
 * 10000 are dropped, counted exactly. After a drain the chunks are free again and writing resumes. */
static void ring_counts_drops_exactly_when_full(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(768 << 10, 0, path);
    struct ps_ring_reader *rd = NULL;
    struct ps_ring_wlane w = {0};
    struct expect e = {.fixed = 40};
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    CHECK(ps_ring_lane_claim(r, 1, &w) == 0, "claim");
    uint64_t in = 0;
    for (uint64_t s = 0; s < 10000; s++)
        in += (uint64_t)put(&w, 0, in, 40);
    CHECK(in == 4794, "%llu records went in, expected 47 chunks x 102 = 4794", (unsigned long long)in);
    CHECK(dropped(rd) == 10000 - 4794, "dropped %llu, expected 5206",
          (unsigned long long)dropped(rd));
    CHECK(ps_ring_reader_drain(rd, count_rec, &e) == 4794, "drained %llu", (unsigned long long)e.records);
    /* 46 chunks went back to the free list (the writer still holds the last one, which is full). */
    uint64_t more = 0;
    for (uint64_t s = 0; s < 1000; s++)
        more += (uint64_t)put(&w, 0, in + more, 40);
    CHECK(more == 1000, "after the drain only %llu of 1000 went in", (unsigned long long)more);
    CHECK(ps_ring_reader_drain(rd, count_rec, &e) == 1000, "second drain");
    CHECK(dropped(rd) == 5206, "dropped changed to %llu", (unsigned long long)dropped(rd));
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

static atomic_int writers_done;

struct writer_arg {
    struct ps_ring *ring;
    uint32_t thread;
    uint64_t n;
    uint32_t spread;
};

static void *writer_main(void *p)
{
    struct writer_arg *a = p;
    struct ps_ring_wlane w = {0};
    CHECK(ps_ring_lane_claim(a->ring, a->thread + 100, &w) == 0, "claim");
    for (uint64_t s = 0; s < a->n; s++)
        CHECK(put(&w, a->thread, s, rec_size(s, a->spread)), "thread %u dropped seq %llu", a->thread,
              (unsigned long long)s);
    ps_ring_lane_release(&w);
    atomic_fetch_add(&writers_done, 1);
    return NULL;
}

/* 16 threads x 100k records of 24..56 bytes through the default ring while this thread drains: all
 * 1.6M arrive, each thread's records in order and in one lane, none torn, none dropped. */
static void ring_keeps_each_writers_order_under_concurrency(void)
{
    char path[4096];
    enum { T = 16, N = 100000 };
    struct ps_ring *r = make_ring(PS_RING_DEFAULT_BYTES, 0, path);
    struct ps_ring_reader *rd = NULL;
    pthread_t th[T];
    struct writer_arg a[T];
    struct expect e = {.spread = 5};
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    for (int i = 0; i < T; i++) {
        a[i] = (struct writer_arg){r, (uint32_t)i, N, e.spread};
        CHECK(pthread_create(&th[i], NULL, writer_main, &a[i]) == 0, "pthread_create");
    }
    while (atomic_load(&writers_done) < T) {
        CHECK(ps_ring_reader_drain(rd, check_rec, &e) >= 0, "drain");
        usleep(2000);
    }
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    CHECK(ps_ring_reader_drain(rd, check_rec, &e) >= 0, "drain");
    CHECK(e.records == (uint64_t)T * N, "got %llu of %d records", (unsigned long long)e.records, T * N);
    for (int i = 0; i < T; i++)
        CHECK(e.next[i] == N, "thread %d: %llu records", i, (unsigned long long)e.next[i]);
    CHECK(dropped(rd) == 0, "dropped %llu", (unsigned long long)dropped(rd));
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

/* A child process writes numbered records and, after each commit, stores how many it has committed in
 * a shared page; the parent SIGKILLs it once 100000 are committed: mid-run, or (a parent that ran late) in the
 * pause after record 200000. The reader must then hold exactly records 0..k-1 with k the last published count
 * or one more (killed between commit and count), none torn. */
static void ring_keeps_committed_records_after_sigkill(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(PS_RING_DEFAULT_BYTES, 0, path);
    _Atomic uint64_t *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(count != MAP_FAILED, "mmap");
    atomic_store(count, 0);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        struct ps_ring_wlane w = {0};
        if (ps_ring_lane_claim(r, 1, &w) != 0)
            _exit(3);
        for (uint64_t s = 0;; s++) {
            if (!put(&w, 0, s, rec_size(s, 7)))
                _exit(4);                       /* ring full: the parent waited too long */
            atomic_store(count, s + 1);
            while (s == 200000)
                pause();                        /* the parent is late: wait for its kill, never fill the ring */
        }
    }
    while (atomic_load(count) < 100000)
        usleep(1000);
    kill(pid, SIGKILL);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "child exited with status %d instead of dying", st);
    uint64_t k = atomic_load(count);
    struct ps_ring_reader *rd = NULL;
    struct expect e = {.spread = 7};
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    CHECK(ps_ring_reader_drain(rd, check_rec, &e) >= 0, "drain");
    CHECK(e.records == k || e.records == k + 1, "reader got %llu records, the writer had committed %llu",
          (unsigned long long)e.records, (unsigned long long)k);
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

struct stamped {
    struct ps_wire_hdr h;
    uint32_t pad[2];
    uint64_t tsc;
    int64_t before_ns, after_ns;
};

static int check_stamp(void *ctx, uint32_t lane, const struct ps_wire_hdr *h)
{
    const struct ps_ring_reader *rd = ctx;
    const struct stamped *s = (const void *)h;
    (void)lane;
    int64_t ns = ps_ring_reader_to_ns(rd, s->tsc);
    /* Allow 2 us either side: pair uncertainty (tens of ns) times a short calibration span. */
    CHECK(ns >= s->before_ns - 2000 && ns <= s->after_ns + 2000,
          "timestamp converts to %lld, taken between %lld and %lld", (long long)ns, (long long)s->before_ns,
          (long long)s->after_ns);
    return 0;
}

/* Stamps taken in the ring's clock (TSC where invariant, else CLOCK_MONOTONIC; both forced in turn)
 * convert to CLOCK_MONOTONIC ns that fall between clock_gettime reads taken around them. */
static void ring_converts_timestamps_to_monotonic_ns(void)
{
    for (int pass = 0; pass < 2; pass++) {
        char path[4096];
        struct ps_ring *r = make_ring(1 << 20, pass ? PS_RING_FORCE_MONO : 0, path);
        struct ps_ring_wlane w = {0};
        struct ps_ring_reader *rd = NULL;
        int tsc = ps_ring_uses_tsc(r);
        CHECK(!pass || !tsc, "PS_RING_FORCE_MONO ignored");
        CHECK(ps_ring_lane_claim(r, 1, &w) == 0, "claim");
        for (int i = 0; i < 50; i++) {
            struct stamped *s = ps_ring_reserve(&w, sizeof *s);
            CHECK(s, "reserve");
            s->h = (struct ps_wire_hdr){sizeof *s, 201, 0};
            s->before_ns = ps_monotonic_ns();
            s->tsc = ps_ring_clock_now(tsc);
            s->after_ns = ps_monotonic_ns();
            ps_ring_commit(&w, sizeof *s);
            usleep(1000);
        }
        CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
        CHECK(ps_ring_reader_drain(rd, check_stamp, rd) == 50, "drain");
        ps_ring_reader_close(rd);
        ps_ring_free(r);
    }
}

struct lane_strings {
    uint32_t lane;
    uint32_t max_id;
    uint64_t records;
};

/* A thread that exits gives its lane back; the next thread resumes it: string ids keep growing (ids
 * are per lane, so a reused id would rename the earlier thread's strings) and records stay in order. */
static void ring_reuses_lanes_without_reusing_string_ids(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(1 << 20, 0, path);
    struct ps_ring_wlane w = {0};
    struct ps_ring_reader *rd = NULL;
    struct expect e = {.spread = 3};
    CHECK(ps_ring_lane_claim(r, 1, &w) == 0, "claim");
    uint32_t lane = w.index;
    CHECK(ps_ring_lane_string_id(&w) == 1 && ps_ring_lane_string_id(&w) == 2, "first ids are 1, 2");
    for (uint64_t s = 0; s < 10; s++)
        CHECK(put(&w, 0, s, rec_size(s, 3)), "put");
    ps_ring_lane_release(&w);
    CHECK(ps_ring_lane_claim(r, 2, &w) == 0, "claim again");
    CHECK(w.index == lane, "lane %u instead of the released %u", w.index, lane);
    CHECK(ps_ring_lane_string_id(&w) == 3, "string id restarted");
    for (uint64_t s = 10; s < 20; s++)
        CHECK(put(&w, 0, s, rec_size(s, 3)), "put");
    struct ps_ring_wlane w2 = {0};
    CHECK(ps_ring_lane_claim(r, 3, &w2) == 0 && w2.index != lane, "a second thread shares the lane");
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    CHECK(ps_ring_reader_drain(rd, check_rec, &e) == 20, "drain");
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

struct open_seen {
    int n;
    struct ps_wire_nvtx rec[20];
    uint32_t lane[20];
};

static int collect_open(void *ctx, uint32_t lane, const struct ps_wire_hdr *h)
{
    struct open_seen *o = ctx;
    CHECK(h->type == PS_WIRE_NVTX_OPEN && h->size == sizeof(struct ps_wire_nvtx), "type %u size %u", h->type, h->size);
    CHECK(o->n < 20, "more than 16 open ranges reported");
    memcpy(&o->rec[o->n], h, sizeof o->rec[0]);
    o->lane[o->n++] = lane;
    return 0;
}

/* The open-range table: a lane's thread mirrors three pushes (A: lane string 5; B: registered string 9 in
 * domain 3; C: no message) and pops B, then exits inside A and C. The next owner of the lane must keep A and
 * C live and take B's freed slot (slot 1) for its push D; with 16 slots, 13 more pushes fill the table and the
 * 14th is not mirrored. The reader reports, in slot order: A, D, C, then the 13. */
static void ring_keeps_open_ranges_for_the_reader(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(1 << 20, 0, path);
    struct ps_ring_wlane w = {0};
    CHECK(ps_ring_lane_claim(r, 7, &w) == 0, "claim");
    uint32_t lane = w.index;
    CHECK(ps_ring_open_begin(&w, 100, 7, 0, 0, PS_WIRE_MSG_LANE, 5) == 0, "A in slot 0");
    int b = ps_ring_open_begin(&w, 200, 7, 3, 1, PS_WIRE_MSG_REGISTERED, 9);
    CHECK(b == 1, "B in slot %d", b);
    CHECK(ps_ring_open_begin(&w, 300, 7, 0, 2, PS_WIRE_MSG_NONE, 0) == 2, "C in slot 2");
    ps_ring_open_end(&w, b);
    ps_ring_lane_release(&w);
    CHECK(ps_ring_lane_claim(r, 8, &w) == 0 && w.index == lane, "the same lane again");
    CHECK(ps_ring_open_begin(&w, 400, 8, 0, 0, PS_WIRE_MSG_LANE, 1) == 1, "D takes B's freed slot");
    for (int i = 0; i < 13; i++)
        CHECK(ps_ring_open_begin(&w, 500 + (uint64_t)i, 8, 0, 1 + (uint32_t)i, PS_WIRE_MSG_LANE, 2) == 3 + i,
              "push %d", i);
    CHECK(ps_ring_open_begin(&w, 600, 8, 0, 14, PS_WIRE_MSG_LANE, 2) == -EBUSY, "a 17th open range got a slot");
    ps_ring_open_end(&w, -1);           /* an unmirrored pop: no-op */
    struct ps_ring_reader *rd = NULL;
    struct open_seen o = {0};
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    CHECK(ps_ring_reader_open_ranges(rd, collect_open, &o) == 16, "reported %d open ranges, want 16", o.n);
    const struct ps_wire_nvtx *a = &o.rec[0], *d = &o.rec[1], *c = &o.rec[2];
    CHECK(o.lane[0] == lane && a->start_tsc == 100 && a->end_tsc == 0 && a->tid == 7 && a->domain_id == 0 &&
          (a->h.flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_LANE && a->msg_id == 5, "A");
    CHECK(d->start_tsc == 400 && d->tid == 8 && d->msg_id == 1, "D");
    CHECK(c->start_tsc == 300 && c->tid == 7 && (c->h.flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_NONE && c->msg_id == 0,
          "C");
    CHECK(o.rec[15].start_tsc == 512 && o.rec[15].tid == 8, "the last of the 13");
    ps_ring_reader_close(rd);
    ps_ring_free(r);
}

/* Random bytes over the open-range table (a stray pointer in the program, or bytes written into the ring file) never
 * come out as an open range. Three lanes in use mirror four ranges (lane 0: slots 0 to 2; lane 1: slot 0; lane 2:
 * none). Each of 300 rounds (a fixed seed) writes random bytes over every other slot of the first 8 lanes (every
 * third round with a live state of a message kind a writer stores, so that the other fields decide); the reader
 * reports exactly the four ranges, each marked PS_WIRE_OPEN_SLOT, and counts as refused exactly the random slots of
 * the lanes in use whose state has the live bit (counted here from the bytes written). */
static void ring_reader_refuses_open_slots_no_writer_filled(void)
{
    char path[4096];
    struct ps_ring *r = make_ring(1 << 20, 0, path);
    struct ps_ring_wlane w[3] = {{0}};
    for (uint32_t i = 0; i < 3; i++)
        CHECK(ps_ring_lane_claim(r, 100 + i, &w[i]) == 0 && w[i].index == i, "lane %u", i);
    static const struct { uint32_t lane, slot, tid, domain, level, kind, msg; uint64_t start; } known[] = {
        { 0, 0, 100, 0, 0, PS_WIRE_MSG_LANE, 5, 1000 },
        { 0, 1, 100, 3, 0, PS_WIRE_MSG_REGISTERED, 9, 1001 },
        { 1, 0, 101, 0, 0, PS_WIRE_MSG_NONE, 0, 1002 },
        { 0, 2, 100, 0, 1, PS_WIRE_MSG_NONE, 0, 1003 },
    };
    const size_t nknown = sizeof known / sizeof *known;
    for (size_t k = 0; k < nknown; k++)
        CHECK(ps_ring_open_begin(&w[known[k].lane], known[k].start, known[k].tid, known[k].domain, known[k].level,
                                 known[k].kind, known[k].msg) == (int)known[k].slot, "range %zu", k);
    struct ps_ring_hdr h;
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0 && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h, "header");
    struct ps_ring_reader *rd = NULL;
    CHECK(ps_ring_reader_open(path, &rd) == 0, "open");
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 300; round++) {
        uint64_t live = 0;
        for (uint32_t lane = 0; lane < 8; lane++) {
            for (uint32_t k = 0; k < PS_RING_OPEN_SLOTS; k++) {
                int mine = 0;
                for (size_t i = 0; i < nknown; i++)
                    mine |= known[i].lane == lane && known[i].slot == k;
                if (mine)
                    continue;
                struct ps_ring_open o;
                uint64_t words[sizeof o / 8];
                for (size_t i = 0; i < sizeof o / 8; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;      /* xorshift64 */
                    words[i] = x;
                }
                memcpy(&o, words, sizeof o);
                if (round % 3 == 1)             /* a live slot with a writer's message kind: the other fields decide */
                    o.state = PS_RING_OPEN_LIVE | (uint32_t)(round / 3 % 3);
                live += lane < 3 && (o.state & PS_RING_OPEN_LIVE);
                off_t at = (off_t)(h.open_off + ((uint64_t)lane * PS_RING_OPEN_SLOTS + k) * sizeof o);
                CHECK(pwrite(fd, &o, sizeof o, at) == (ssize_t)sizeof o, "pwrite");
            }
        }
        struct open_seen o = {0};
        long n = ps_ring_reader_open_ranges(rd, collect_open, &o);
        CHECK(n == (long)nknown, "round %d: %ld open ranges reported, want %zu", round, n, nknown);
        for (size_t i = 0; i < nknown; i++) {
            const struct ps_wire_nvtx *got = &o.rec[i];
            int found = 0;
            for (size_t k = 0; k < nknown && !found; k++)
                found = o.lane[i] == known[k].lane && got->start_tsc == known[k].start && got->tid == known[k].tid &&
                        got->domain_id == known[k].domain && got->msg_id == known[k].msg &&
                        got->h.flags == (known[k].kind | PS_WIRE_OPEN_SLOT);
            CHECK(found, "round %d: an open range no writer mirrored: lane %u start %llu tid %u domain %u", round,
                  o.lane[i], (unsigned long long)got->start_tsc, got->tid, got->domain_id);
        }
        CHECK(ps_ring_reader_open_refused(rd) == live, "round %d: %llu slots refused, want %llu", round,
              (unsigned long long)ps_ring_reader_open_refused(rd), (unsigned long long)live);
    }
    close(fd);
    ps_ring_reader_close(rd);
    for (uint32_t i = 0; i < 3; i++)
        ps_ring_lane_release(&w[i]);
    ps_ring_free(r);
}

/* A file that is not a ring (or is cut short) is refused with -EPROTO, never mapped blindly. */
static void ring_reader_rejects_foreign_files(void)
{
    char path[4096];
    struct ps_ring_reader *rd = NULL;
    snprintf(path, sizeof path, "%s/not-a-ring.ps", dir);
    FILE *f = fopen(path, "w");
    CHECK(f, "fopen");
    for (int i = 0; i < 8192; i++)
        fputc('x', f);
    fclose(f);
    CHECK(ps_ring_reader_open(path, &rd) == -EPROTO, "foreign file accepted");
    struct ps_ring *r = make_ring(1 << 20, 0, path);
    CHECK(truncate(path, 100000) == 0, "truncate");
    CHECK(ps_ring_reader_open(path, &rd) == -EPROTO, "truncated ring accepted");
    snprintf(path, sizeof path, "%s/missing.ps", dir);
    CHECK(ps_ring_reader_open(path, &rd) == -ENOENT, "missing file");
    ps_ring_free(r);
}

static int make_dir(void)
{
    CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    atexit(cleanup_dir);
    return 0;
}

static const struct test_case cases[] = {
    { "ring_wraps_around_in_order", .fn = ring_wraps_around_in_order },
    { "ring_counts_drops_exactly_when_full", .fn = ring_counts_drops_exactly_when_full },
    { "ring_keeps_each_writers_order_under_concurrency", .fn = ring_keeps_each_writers_order_under_concurrency },
    { "ring_keeps_committed_records_after_sigkill", .fn = ring_keeps_committed_records_after_sigkill },
    { "ring_converts_timestamps_to_monotonic_ns", .fn = ring_converts_timestamps_to_monotonic_ns },
    { "ring_reuses_lanes_without_reusing_string_ids", .fn = ring_reuses_lanes_without_reusing_string_ids },
    { "ring_reader_rejects_foreign_files", .fn = ring_reader_rejects_foreign_files },
    { "ring_keeps_open_ranges_for_the_reader", .fn = ring_keeps_open_ranges_for_the_reader },
    { "ring_reader_refuses_open_slots_no_writer_filled", .fn = ring_reader_refuses_open_slots_no_writer_filled },
};

int main(int argc, char **argv)
{
    static const struct case_hooks hooks = { .setup = make_dir };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
