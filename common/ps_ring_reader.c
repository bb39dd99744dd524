/* Reader half of the per-process ring (API: ps_ring.h, layout: ps_ring_layout.h), used by the collector:
 * drains each lane's committed records in order, returns drained chunks to the writers' free list, and
 * converts TSC timestamps to CLOCK_MONOTONIC ns with calibration pairs it keeps taking itself.
 * The writer is another process and may be killed at any point, so every offset read from the file is checked. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
};

struct ps_ring_reader {
    char *base;
    size_t bytes;
    struct ps_ring_hdr *hdr;
    struct ps_ring_lane *lanes;
    struct cursor *cur;     /* one per lane */
    struct pair *pairs;     /* calibration pairs, ascending; [0] from the writer */
    size_t npairs, cap_pairs;
};

#define PAIR_SPACING_NS 1000000000  /* keep one pair a second: piecewise-linear across NTP slews */

static uint64_t tsc_now(void)
{
    return ps_ring_clock_now(1);
}

/* Record a fresh pair: the last pair moves forward until it is a second past the one before it. */
static int take_pair(struct ps_ring_reader *r)
{
    struct pair p;
    if (r->hdr->clock != PS_RING_CLOCK_TSC)
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
    err = check_header(r->hdr, r->bytes);
    if (err)
        goto out;
    r->lanes = (struct ps_ring_lane *)(void *)(r->base + r->hdr->lanes_off);
    r->cur = calloc(r->hdr->nlanes, sizeof *r->cur);
    r->cap_pairs = 16;
    r->pairs = malloc(r->cap_pairs * sizeof *r->pairs);
    if (!r->cur || !r->pairs) {
        err = -ENOMEM;
        goto out;
    }
    r->pairs[0].tsc = r->hdr->cal_tsc;
    r->pairs[0].ns = r->hdr->cal_ns;
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
    free(r->pairs);
    free(r);
}

static struct ps_ring_chunk *chunk_at(struct ps_ring_reader *r, uint32_t idx1)
{
    if (idx1 == 0 || idx1 > r->hdr->nchunks)
        return NULL;
    return (struct ps_ring_chunk *)(void *)(r->base + r->hdr->chunks_off +
                                            (uint64_t)(idx1 - 1) * r->hdr->chunk_bytes);
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

/* Drain one lane; returns the records delivered; a non-zero value from fn stops it and lands in *stop. */
static long drain_lane(struct ps_ring_reader *r, uint32_t lane,
                       int (*fn)(void *, uint32_t, const struct ps_wire_hdr *), void *ctx, int *stop)
{
    struct ps_ring_lane *l = &r->lanes[lane];
    struct cursor *cu = &r->cur[lane];
    uint32_t chunk_bytes = r->hdr->chunk_bytes;
    long n = 0;
    uint32_t hops = 0;
    if (!cu->chunk) {
        cu->chunk = atomic_load_explicit(&l->first_chunk, memory_order_acquire);
        cu->rpos = sizeof(struct ps_ring_chunk);
    }
    for (;;) {
        struct ps_ring_chunk *c = chunk_at(r, cu->chunk);
        if (!c)
            return n;
        /* next first: once it is set, committed is final. */
        uint32_t next = atomic_load_explicit(&c->next, memory_order_acquire);
        uint32_t end = atomic_load_explicit(&c->committed, memory_order_acquire);
        if (end > chunk_bytes)
            end = chunk_bytes;      /* a corrupt chunk: read what fits, never past it */
        while (cu->rpos + sizeof(struct ps_wire_hdr) <= end) {
            const struct ps_wire_hdr *rec = (const void *)((const char *)c + cu->rpos);
            if (rec->size < sizeof *rec || rec->size % 8 || rec->size > end - cu->rpos) {
                cu->rpos = end;     /* cannot happen with a live writer; skip the chunk's rest */
                break;
            }
            int rc = fn(ctx, lane, rec);
            if (rc) {
                *stop = rc;
                return n;
            }
            cu->rpos += rec->size;
            n++;
        }
        if (!next || next == cu->chunk || ++hops > r->hdr->nchunks)
            return n;               /* the writer is still here, or a corrupt link loops */
        cu->chunk = next;
        cu->rpos = sizeof(struct ps_ring_chunk);
        atomic_store_explicit(&l->first_chunk, next, memory_order_release);
        chunk_free(r, (uint32_t)((char *)c - (r->base + r->hdr->chunks_off)) / chunk_bytes + 1, c);
    }
}

long ps_ring_reader_drain(struct ps_ring_reader *r,
                          int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx)
{
    long total = 0;
    int stop = 0;
    int err = take_pair(r);
    if (err)
        return err;
    uint32_t used = atomic_load_explicit(&r->hdr->lanes_used, memory_order_acquire);
    if (used > r->hdr->nlanes)
        used = r->hdr->nlanes;
    for (uint32_t i = 0; i < used && !stop; i++)
        total += drain_lane(r, i, fn, ctx, &stop);
    return stop ? stop : total;
}

long ps_ring_reader_open_ranges(struct ps_ring_reader *r,
                                int (*fn)(void *ctx, uint32_t lane, const struct ps_wire_hdr *rec), void *ctx)
{
    const struct ps_ring_open *slots = (const struct ps_ring_open *)(const void *)(r->base + r->hdr->open_off);
    uint32_t used = atomic_load_explicit(&r->hdr->lanes_used, memory_order_acquire);
    long n = 0;
    for (uint32_t i = 0; i < used && i < r->hdr->nlanes; i++) {
        for (uint32_t k = 0; k < PS_RING_OPEN_SLOTS; k++) {
            const struct ps_ring_open *o = &slots[(uint64_t)i * PS_RING_OPEN_SLOTS + k];
            uint32_t state = atomic_load_explicit(&o->state, memory_order_acquire);
            if (!(state & PS_RING_OPEN_LIVE))
                continue;
            uint32_t kind = state & PS_WIRE_MSG_MASK;
            if (kind == PS_WIRE_MSG_INLINE)
                kind = PS_WIRE_MSG_NONE;            /* a writer never stores it; a corrupt slot might */
            struct ps_wire_nvtx rec = {{sizeof rec, PS_WIRE_NVTX_OPEN, (uint16_t)kind}, o->start_tsc, 0, o->tid,
                                       o->domain_id, kind == PS_WIRE_MSG_NONE ? 0 : o->msg_id, 0};
            int rc = fn(ctx, i, &rec.h);
            if (rc)
                return rc;
            n++;
        }
    }
    return n;
}

uint64_t ps_ring_reader_dropped(const struct ps_ring_reader *r)
{
    uint64_t n = atomic_load_explicit(&r->hdr->dropped_nolane, memory_order_relaxed);
    uint32_t used = atomic_load_explicit(&r->hdr->lanes_used, memory_order_acquire);
    for (uint32_t i = 0; i < used && i < r->hdr->nlanes; i++)
        n += atomic_load_explicit(&r->lanes[i].dropped, memory_order_relaxed);
    return n;
}

void ps_ring_reader_drops(const struct ps_ring_reader *r, struct ps_ring_drops *out)
{
    uint64_t all = 0;
    *out = (struct ps_ring_drops){ .nolane = atomic_load_explicit(&r->hdr->dropped_nolane, memory_order_relaxed) };
    uint32_t used = atomic_load_explicit(&r->hdr->lanes_used, memory_order_acquire);
    for (uint32_t i = 0; i < used && i < r->hdr->nlanes; i++) {
        all += atomic_load_explicit(&r->lanes[i].dropped, memory_order_relaxed);
        out->limit += atomic_load_explicit(&r->lanes[i].dropped_limit, memory_order_relaxed);
        out->alloc += atomic_load_explicit(&r->lanes[i].dropped_alloc, memory_order_relaxed);
    }
    /* The causes are counted just before the total: a writer still running may be between the two. */
    out->full = all >= out->limit + out->alloc ? all - out->limit - out->alloc : 0;
}

uint64_t ps_ring_reader_pidns(const struct ps_ring_reader *r)
{
    return r->hdr->pidns;
}

uint32_t ps_ring_reader_pid(const struct ps_ring_reader *r)
{
    return r->hdr->pid;
}

int64_t ps_ring_reader_to_ns(const struct ps_ring_reader *r, uint64_t tsc)
{
    if (r->hdr->clock != PS_RING_CLOCK_TSC)
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
