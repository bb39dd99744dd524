/* Reader half of the per-process ring (API: ps_ring.h, layout: ps_ring_layout.h), used by the collector:
 * drains each lane's committed records in order, returns drained chunks to the writers' free list, and
 * converts TSC timestamps to CLOCK_MONOTONIC ns with calibration pairs it keeps taking itself.
 * The writer is another process and may be killed at any point, so every offset read from the file is checked. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ps_ring.h"
#include "ps_ring_layout.h"
#include "ps_ring_writer.h"

struct pair {
    uint64_t tsc;
    int64_t ns;
};

struct cursor {
    uint32_t chunk;         /* index + 1 of the chunk being read, 0 = not started */
    uint32_t rpos;          /* offset of the next record in it */
    uint32_t held;          /* holding readers: index + 1 of the lane's oldest chunk not yet released, 0 = none */
};

/* The ring's geometry, copied from the header once, when it was checked: the writer's process can write
 * anything into the mapping later, so nothing that sizes or places a read is ever read from it again. */
struct geometry {
    uint32_t nlanes, nchunks, chunk_bytes, clock, pid;
    uint64_t chunks_off, open_off, pidns;
};

struct ps_ring_reader {
    char *base;
    size_t bytes;
    struct ps_ring_hdr *hdr;    /* live: only its atomics are read after open */
    struct ps_ring_lane *lanes;
    struct geometry g;
    struct cursor *cur;     /* one per lane */
    char *rec;              /* the record being delivered, copied out of the ring (chunk_bytes) */
    int hold;               /* chunks are released by ps_ring_reader_release, not by the drain */
    char corrupt[160];      /* why reading stopped, "" while the ring makes sense */
    uint64_t open_refused;  /* live slots the last open_ranges left out: no writer fills a slot so */
    struct pair *pairs;     /* calibration pairs, ascending; [0] from the writer */
    size_t npairs, cap_pairs;
};

#define PAIR_SPACING_NS 1000000000  /* keep one pair a second: piecewise-linear across NTP slews */
/* A drop count above this (2^48, about 78 hours of 10^9 dropped calls a second) was not counted by a writer. */
#define DROPS_MAX (1ull << 48)
/* A writer counts a dropped record with an atomic add on a counter it shares with its lane (or, lane-less, with
 * every such thread): at most one count per nanosecond per counter, however fast the program. A count above the
 * nanoseconds since the ring was made (plus a margin for clock steps between the writer's pair and ours) was not
 * counted by a writer: the counter was overwritten (one stray byte makes 2^43 of it). */
#define DROPS_PER_NS 1
#define DROPS_MARGIN (1ull << 20)

/* ---- a ring file truncated under the mapping ----
 * The program (or anyone who can write its ring file) may truncate the file while the reader maps it; reading a
 * page past the new end raises SIGBUS in the reader (record would die of it). Every public function that touches
 * the mapping after open runs under a guard: a SIGBUS at an address inside the guarded mapping jumps back to the
 * guard, which marks the ring corrupt, so it is never read again; any other SIGBUS gets the action the process
 * had before (by default the process dies, as it would have). Guards nest (a guarded function calling another). */
struct bus_guard {
    sigjmp_buf jump;
    const char *lo, *hi;
};
static __thread struct bus_guard *volatile bus_guard_active;
static struct sigaction bus_previous;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    struct bus_guard *g = bus_guard_active;
    const char *at = (const char *)si->si_addr;
    (void)uc;
    if (g && si->si_code > 0 && at >= g->lo && at < g->hi)
        siglongjmp(g->jump, 1);
    sigaction(SIGBUS, &bus_previous, NULL);   /* not a ring read: the faulting access runs again and gets it */
    if (si->si_code <= 0)
        raise(sig);                           /* sent by kill(): send it again */
}

static void bus_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;    /* not blocked in the handler: siglongjmp keeps the mask as is */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_previous);
}

/* Fill g for r's mapping; returns the guard active before (restore it when done). */
static struct bus_guard *bus_guard_prepare(const struct ps_ring_reader *r, struct bus_guard *g)
{
    pthread_once(&bus_once, bus_install);
    g->lo = r->base;
    g->hi = r->base + r->bytes;
    return bus_guard_active;
}

__attribute__((format(printf, 2, 3))) static int set_corrupt(struct ps_ring_reader *r, const char *fmt, ...);

/* After a SIGBUS in r's mapping: the outer guard again, and the ring corrupt. Returns -EBADMSG. */
static int bus_fault(struct ps_ring_reader *r, struct bus_guard *outer)
{
    bus_guard_active = outer;
    return set_corrupt(r, "its file was truncated under the mapping: SIGBUS reading it");
}

static uint64_t tsc_now(void)
{
    return ps_ring_clock_now(1);
}

/* Record a fresh pair: the last pair moves forward until it is a second past the one before it. */
static int take_pair(struct ps_ring_reader *r)
{
    struct pair p;
    if (r->g.clock != PS_RING_CLOCK_TSC)
        return 0;
    ps_ring_take_pair(tsc_now, &p.tsc, &p.ns);
    if (p.tsc <= r->pairs[r->npairs - 1].tsc)
        return 0;
    if (r->npairs >= 2 && r->pairs[r->npairs - 1].ns - r->pairs[r->npairs - 2].ns < PAIR_SPACING_NS) {
        r->pairs[r->npairs - 1] = p;
        return 0;
    }
    if (r->npairs == r->cap_pairs) {
        size_t cap = r->cap_pairs * 2;
        struct pair *np = realloc(r->pairs, cap * sizeof *np);
        if (!np)
            return -ENOMEM;
        r->pairs = np;
        r->cap_pairs = cap;
    }
    r->pairs[r->npairs++] = p;
    return 0;
}

static int check_header(const struct ps_ring_hdr *h, size_t file_bytes)
{
    if (file_bytes < PS_RING_HDR_BYTES || h->magic != PS_RING_MAGIC || h->layout != PS_RING_LAYOUT ||
        h->wire_version != PS_WIRE_VERSION)
        return -EPROTO;
    if (h->file_bytes != file_bytes || h->nlanes == 0 || h->nlanes > 65536 ||
        h->chunk_bytes < PS_RING_CHUNK_MIN || h->chunk_bytes > PS_RING_CHUNK_MAX || h->chunk_bytes % 8 ||
        h->lanes_off != PS_RING_HDR_BYTES ||
        h->open_off != h->lanes_off + (uint64_t)h->nlanes * sizeof(struct ps_ring_lane) ||
        h->chunks_off < h->open_off + (uint64_t)h->nlanes * PS_RING_OPEN_SLOTS * sizeof(struct ps_ring_open) ||
        h->chunks_off + (uint64_t)h->nchunks * h->chunk_bytes > file_bytes ||
        (h->clock != PS_RING_CLOCK_TSC && h->clock != PS_RING_CLOCK_MONO))
        return -EPROTO;
    return 0;
}

int ps_ring_reader_open(const char *path, struct ps_ring_reader **out)
{
    struct ps_ring_reader *r = calloc(1, sizeof *r);
    struct stat st;
    int err = 0;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (!r) {
        err = -ENOMEM;
        goto out;
    }
    if (fd < 0 || fstat(fd, &st) != 0) {
        err = -errno;
        goto out;
    }
    if ((uint64_t)st.st_size < PS_RING_HDR_BYTES) {
        err = -EPROTO;
        goto out;
    }
    r->bytes = (size_t)st.st_size;
    r->base = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) {
        r->base = NULL;
        err = -errno;
        goto out;
    }
    r->hdr = (struct ps_ring_hdr *)(void *)r->base;
    /* Check a private copy: the header in the mapping may change between a check and a use. */
    struct ps_ring_hdr h;
    memcpy(&h, r->hdr, sizeof h);
    err = check_header(&h, r->bytes);
    if (err)
        goto out;
    r->g = (struct geometry){ h.nlanes, h.nchunks, h.chunk_bytes, h.clock, h.pid, h.chunks_off, h.open_off,
                              h.pidns };
    r->lanes = (struct ps_ring_lane *)(void *)(r->base + h.lanes_off);
    r->cur = calloc(h.nlanes, sizeof *r->cur);
    r->rec = malloc(h.chunk_bytes);
    r->cap_pairs = 16;
    r->pairs = malloc(r->cap_pairs * sizeof *r->pairs);
    if (!r->cur || !r->rec || !r->pairs) {
        err = -ENOMEM;
        goto out;
    }
    r->pairs[0].tsc = h.cal_tsc;
    r->pairs[0].ns = h.cal_ns;
    r->npairs = 1;
    err = take_pair(r);
out:
    if (fd >= 0)
        close(fd);
    if (err) {
        ps_ring_reader_close(r);
        return err;
    }
    *out = r;
    return 0;
}

void ps_ring_reader_close(struct ps_ring_reader *r)
{
    if (!r)
        return;
    if (r->base)
        munmap(r->base, r->bytes);
    free(r->cur);
    free(r->rec);
    free(r->pairs);
    free(r);
}

void ps_ring_reader_hold_chunks(struct ps_ring_reader *r)
{
    r->hold = 1;
}

const char *ps_ring_reader_corrupt(const struct ps_ring_reader *r)
{
    return r->corrupt[0] ? r->corrupt : NULL;
}

/* Stop reading the ring for good; returns -EBADMSG. */
static int set_corrupt(struct ps_ring_reader *r, const char *fmt, ...)
{
    if (!r->corrupt[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->corrupt, sizeof r->corrupt, fmt, ap);
        va_end(ap);
    }
    return -EBADMSG;
}

static struct ps_ring_chunk *chunk_at(const struct ps_ring_reader *r, uint32_t idx1)
{
    if (idx1 == 0 || idx1 > r->g.nchunks)
        return NULL;
    return (struct ps_ring_chunk *)(void *)(r->base + r->g.chunks_off + (uint64_t)(idx1 - 1) * r->g.chunk_bytes);
}

static void chunk_free(struct ps_ring_reader *r, uint32_t idx1, struct ps_ring_chunk *c)
{
    _Atomic uint64_t *head = &r->hdr->free_head;
    uint64_t old = atomic_load_explicit(head, memory_order_relaxed);
    uint64_t nw;
    do {
        atomic_store_explicit(&c->free_next, (uint32_t)old, memory_order_relaxed);
        nw = (((old >> 32) + 1) << 32) | idx1;
    } while (!atomic_compare_exchange_weak_explicit(head, &old, nw, memory_order_release, memory_order_relaxed));
}

/* The lanes to read: lanes_used, which the writers only raise, within the copied nlanes. */
static uint32_t lanes_used(struct ps_ring_reader *r)
{
    uint32_t used = atomic_load_explicit(&r->hdr->lanes_used, memory_order_acquire);
    if (used > r->g.nlanes) {
        set_corrupt(r, "it claims %u lanes of %u", used, r->g.nlanes);
        return r->g.nlanes;
    }
    return used;
}

/* Drain one lane; returns the records delivered, or -EBADMSG (the ring is corrupt); a non-zero value from fn
 * stops it and lands in *stop. Every value read from the mapping is read once and checked before use. */
static long drain_lane(struct ps_ring_reader *r, uint32_t lane,
                       int (*fn)(void *, uint32_t, const struct ps_wire_hdr *), void *ctx, int *stop)
{
    struct ps_ring_lane *l = &r->lanes[lane];
    struct cursor *cu = &r->cur[lane];
    const uint32_t chunk_bytes = r->g.chunk_bytes;
    long n = 0;
    uint32_t hops = 0;
    if (!cu->chunk) {
        uint32_t first = atomic_load_explicit(&l->first_chunk, memory_order_acquire);
        if (!first)
            return 0;               /* no record yet */
        if (!chunk_at(r, first))
            return set_corrupt(r, "lane %u starts at chunk %u of %u", lane, first, r->g.nchunks);
        cu->chunk = cu->held = first;
        cu->rpos = sizeof(struct ps_ring_chunk);
    }
    for (;;) {
        struct ps_ring_chunk *c = chunk_at(r, cu->chunk);
        /* next first: once it is set, committed is final. */
        uint32_t next = atomic_load_explicit(&c->next, memory_order_acquire);
        uint32_t end = atomic_load_explicit(&c->committed, memory_order_acquire);
        if (end > chunk_bytes || end % 8 || end < cu->rpos)
            return set_corrupt(r, "chunk %u of lane %u ends at %u (read up to %u, chunk of %u bytes)",
                               cu->chunk, lane, end, cu->rpos, chunk_bytes);
        while (cu->rpos + sizeof(struct ps_wire_hdr) <= end) {
            const char *at = (const char *)c + cu->rpos;
            struct ps_wire_hdr h;
            memcpy(&h, at, sizeof h);               /* the size is read once: the copy below uses it */
            if (h.size < sizeof h || h.size % 8 || h.size > end - cu->rpos)
                return set_corrupt(r, "a record of %u bytes at %u in chunk %u of lane %u (chunk ends at %u)",
                                   h.size, cu->rpos, cu->chunk, lane, end);
            memcpy(r->rec, at, h.size);
            ((struct ps_wire_hdr *)(void *)r->rec)->size = h.size;
            int rc = fn(ctx, lane, (const struct ps_wire_hdr *)(const void *)r->rec);
            if (rc) {
                *stop = rc;
                return n;
            }
            cu->rpos += h.size;
            n++;
        }
        if (!next)
            return n;               /* the writer is still in this chunk */
        if (cu->rpos != end)
            return set_corrupt(r, "chunk %u of lane %u has %u bytes after its last record", cu->chunk, lane,
                               end - cu->rpos);
        if (!chunk_at(r, next) || next == cu->chunk)
            return set_corrupt(r, "chunk %u of lane %u links to chunk %u of %u", cu->chunk, lane, next,
                               r->g.nchunks);
        if (++hops > r->g.nchunks)
            return n;               /* a writer refilling the chunks freed behind us: the next pass goes on */
        uint32_t done = cu->chunk;
        cu->chunk = next;
        cu->rpos = sizeof(struct ps_ring_chunk);
        if (!r->hold) {
            atomic_store_explicit(&l->first_chunk, next, memory_order_release);
            chunk_free(r, done, c);
            cu->held = next;
        }
    }
}

static long drain(struct ps_ring_reader *r, int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec),
                  void *ctx)
{
    long total = 0;
    int stop = 0;
    if (r->corrupt[0])
        return -EBADMSG;
    int err = take_pair(r);
    if (err)
        return err;
    uint32_t used = lanes_used(r);
    for (uint32_t i = 0; i < used && !stop; i++) {
        long n = drain_lane(r, i, fn, ctx, &stop);
        if (n < 0)
            return n;
        total += n;
    }
    return stop ? stop : r->corrupt[0] ? -EBADMSG : total;
}

void ps_ring_reader_position(const struct ps_ring_reader *r, uint32_t lane, struct ps_ring_pos *out)
{
    *out = lane < r->g.nlanes ? (struct ps_ring_pos){ r->cur[lane].chunk, r->cur[lane].rpos }
                              : (struct ps_ring_pos){ 0, 0 };
}

static void release(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *upto)
{
    if (lane >= r->g.nlanes || !r->cur[lane].held || !chunk_at(r, upto->chunk))
        return;
    struct cursor *cu = &r->cur[lane];
    for (uint32_t hops = 0; cu->held != upto->chunk && hops <= r->g.nchunks; hops++) {
        struct ps_ring_chunk *c = chunk_at(r, cu->held);
        uint32_t next = c ? atomic_load_explicit(&c->next, memory_order_acquire) : 0;
        if (!chunk_at(r, next))
            return;                 /* corrupt: keep the chunks rather than free one a lane still uses */
        atomic_store_explicit(&r->lanes[lane].first_chunk, next, memory_order_release);
        chunk_free(r, cu->held, c);
        cu->held = next;
    }
}

static int seek(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *pos)
{
    if (lane >= r->g.nlanes || !chunk_at(r, pos->chunk) || pos->offset < sizeof(struct ps_ring_chunk) ||
        pos->offset > r->g.chunk_bytes || pos->offset % 8)
        return -EINVAL;
    uint32_t c = atomic_load_explicit(&r->lanes[lane].first_chunk, memory_order_acquire);
    for (uint32_t hops = 0; c != pos->chunk; hops++) {
        const struct ps_ring_chunk *k = chunk_at(r, c);
        if (!k || hops > r->g.nchunks)
            return -ENOENT;         /* pos is not on the lane's chain of chunks */
        c = atomic_load_explicit(&k->next, memory_order_acquire);
    }
    r->cur[lane] = (struct cursor){ pos->chunk, pos->offset,
                                    atomic_load_explicit(&r->lanes[lane].first_chunk, memory_order_acquire) };
    return 0;
}

/* 1 when a live slot is one a writer fills (ps_ring_open_begin): the state holds the live bit and a message kind of a
 * mirrored range (lane string, registered string or none: never inline), no message id with no message, a level the
 * probe's stacks reach, a thread, and zero padding. Anything else is bytes the program wrote over the table: a
 * random slot passes with a probability of about 2^-77. Times, threads and domains are the collector's to check
 * (collector/rows.c): it knows the session and what the ring's records defined. */
static int open_slot_framed(const struct ps_ring_open *o)
{
    uint32_t kind = o->state & ~PS_RING_OPEN_LIVE;
    return (kind == PS_WIRE_MSG_NONE || kind == PS_WIRE_MSG_LANE || kind == PS_WIRE_MSG_REGISTERED) &&
           (kind != PS_WIRE_MSG_NONE || o->msg_id == 0) && o->level < PS_RING_OPEN_LEVELS && o->tid != 0 &&
           o->pad == 0;
}

static long open_ranges(struct ps_ring_reader *r,
                        int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx)
{
    const struct ps_ring_open *slots = (const struct ps_ring_open *)(const void *)(r->base + r->g.open_off);
    uint32_t used = lanes_used(r);
    long n = 0;
    r->open_refused = 0;
    if (r->corrupt[0])
        return -EBADMSG;
    for (uint32_t i = 0; i < used; i++) {
        for (uint32_t k = 0; k < PS_RING_OPEN_SLOTS; k++) {
            struct ps_ring_open o;
            memcpy(&o, &slots[(uint64_t)i * PS_RING_OPEN_SLOTS + k], sizeof o);   /* one read of the slot */
            if (!(o.state & PS_RING_OPEN_LIVE))
                continue;
            if (!open_slot_framed(&o)) {
                r->open_refused++;
                continue;
            }
            uint32_t kind = o.state & PS_WIRE_MSG_MASK;
            struct ps_wire_nvtx rec = {{sizeof rec, PS_WIRE_NVTX_OPEN, (uint16_t)(kind | PS_WIRE_OPEN_SLOT)},
                                       o.start_tsc, 0, o.tid, o.domain_id, o.msg_id, 0};
            int rc = fn(ctx, i, &rec.h);
            if (rc)
                return rc;
            n++;
        }
    }
    return n;
}

/* The largest drop count a writer could have reached by now (DROPS_PER_NS since the ring's calibration pair,
 * never above DROPS_MAX). */
static uint64_t drops_bound(const struct ps_ring_reader *r)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, made = r->pairs[0].ns;
    uint64_t elapsed = now > made ? (uint64_t)(now - made) : 0;
    uint64_t bound = elapsed > DROPS_MAX / DROPS_PER_NS ? DROPS_MAX : elapsed * DROPS_PER_NS + DROPS_MARGIN;
    return bound < DROPS_MAX ? bound : DROPS_MAX;
}

/* Each lane's counts, checked: a cause larger than the total, or a count no writer could have reached,
 * marks the ring corrupt (and its counts unknown: -EBADMSG). */
static int drops(struct ps_ring_reader *r, struct ps_ring_drops *out)
{
    uint64_t all = 0, bound = drops_bound(r);
    *out = (struct ps_ring_drops){ .nolane = atomic_load_explicit(&r->hdr->dropped_nolane, memory_order_relaxed) };
    if (out->nolane > bound)
        set_corrupt(r, "its lane-less drop count is %llu", (unsigned long long)out->nolane);
    uint32_t used = lanes_used(r);
    for (uint32_t i = 0; i < used && !r->corrupt[0]; i++) {
        uint64_t lim = atomic_load_explicit(&r->lanes[i].dropped_limit, memory_order_relaxed);
        uint64_t alloc = atomic_load_explicit(&r->lanes[i].dropped_alloc, memory_order_relaxed);
        uint64_t lane_all = atomic_load_explicit(&r->lanes[i].dropped, memory_order_relaxed);
        if (lane_all > bound || lim > bound || alloc > bound)
            set_corrupt(r, "lane %u's drop counts are %llu (%llu, %llu)", i, (unsigned long long)lane_all,
                        (unsigned long long)lim, (unsigned long long)alloc);
        all += lane_all;
        out->limit += lim;
        out->alloc += alloc;
    }
    if (r->corrupt[0]) {
        *out = (struct ps_ring_drops){ 0 };
        return -EBADMSG;
    }
    /* The causes are counted just before the total: a writer still running may be between the two. */
    out->full = all >= out->limit + out->alloc ? all - out->limit - out->alloc : 0;
    return 0;
}

/* ---- the public functions that touch the mapping, each under the SIGBUS guard ---- */

long ps_ring_reader_drain(struct ps_ring_reader *r,
                          int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx)
{
    struct bus_guard g, *outer = bus_guard_prepare(r, &g);
    if (sigsetjmp(g.jump, 0))
        return bus_fault(r, outer);
    bus_guard_active = &g;
    long n = drain(r, fn, ctx);
    bus_guard_active = outer;
    return n;
}

void ps_ring_reader_release(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *upto)
{
    struct bus_guard g, *outer = bus_guard_prepare(r, &g);
    if (sigsetjmp(g.jump, 0)) {
        bus_fault(r, outer);
        return;
    }
    bus_guard_active = &g;
    release(r, lane, upto);
    bus_guard_active = outer;
}

int ps_ring_reader_seek(struct ps_ring_reader *r, uint32_t lane, const struct ps_ring_pos *pos)
{
    struct bus_guard g, *outer = bus_guard_prepare(r, &g);
    if (sigsetjmp(g.jump, 0))
        return bus_fault(r, outer);
    bus_guard_active = &g;
    int rc = seek(r, lane, pos);
    bus_guard_active = outer;
    return rc;
}

long ps_ring_reader_open_ranges(struct ps_ring_reader *r,
                                int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx)
{
    struct bus_guard g, *outer = bus_guard_prepare(r, &g);
    if (sigsetjmp(g.jump, 0))
        return bus_fault(r, outer);
    bus_guard_active = &g;
    long n = open_ranges(r, fn, ctx);
    bus_guard_active = outer;
    return n;
}

int ps_ring_reader_drops(struct ps_ring_reader *r, struct ps_ring_drops *out)
{
    struct bus_guard g, *outer = bus_guard_prepare(r, &g);
    if (sigsetjmp(g.jump, 0)) {
        *out = (struct ps_ring_drops){ 0 };
        return bus_fault(r, outer);
    }
    bus_guard_active = &g;
    int rc = drops(r, out);
    bus_guard_active = outer;
    return rc;
}

uint64_t ps_ring_reader_open_refused(const struct ps_ring_reader *r)
{
    return r->open_refused;
}

uint64_t ps_ring_reader_pidns(const struct ps_ring_reader *r)
{
    return r->g.pidns;
}

uint32_t ps_ring_reader_pid(const struct ps_ring_reader *r)
{
    return r->g.pid;
}

int64_t ps_ring_reader_to_ns(const struct ps_ring_reader *r, uint64_t tsc)
{
    if (r->g.clock != PS_RING_CLOCK_TSC)
        return (int64_t)tsc;
    /* The segment holding tsc (binary search), or the first/last one to extrapolate. */
    size_t lo = 0, hi = r->npairs - 1;
    if (r->npairs < 2)
        return r->pairs[0].ns;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->pairs[mid].tsc <= tsc)
            lo = mid;
        else
            hi = mid;
    }
    const struct pair *a = &r->pairs[lo], *b = &r->pairs[hi];
    __int128 dt = (__int128)tsc - (__int128)a->tsc;
    __int128 dns = (__int128)(b->ns - a->ns) * dt;
    __int128 span = (__int128)(b->tsc - a->tsc);
    /* round to nearest */
    __int128 q = dns >= 0 ? (dns + span / 2) / span : (dns - span / 2) / span;
    return a->ns + (int64_t)q;
}
