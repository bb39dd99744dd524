/* Writer half of the per-process ring (layout: ps_ring_layout.h, API: ps_ring_writer.h): file creation,
 * clock calibration, lanes, and the lock-free chunk allocator. Runs inside the probed program, so it
 * never blocks, never prints, and reports failures as -errno / dropped-record counts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "ps_env.h"
#include "ps_ring.h"
#include "ps_ring_layout.h"
#include "ps_ring_writer.h"
#include "ps_wire.h"

struct ps_ring {
    char *base;
    size_t bytes;
    int tsc;
    char path[4096];                /* the ring's final name: chunks are backed through it, never through a
                                       descriptor kept open (the program may close or reuse its number) */
    struct ps_ring_hdr *hdr;
    struct ps_ring_lane *lanes;
};

/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in all P/C-states (Intel SDM vol. 3
 * §18.17.1, AMD APM vol. 3 "Invariant TSC"), so ticks map linearly to CLOCK_MONOTONIC. */
static int tsc_is_invariant(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

int ps_ring_clock_is_tsc(uint32_t flags)
{
    return !(flags & PS_RING_FORCE_MONO) && tsc_is_invariant();
}

static uint64_t tsc_now(void)
{
    return ps_ring_clock_now(1);
}

#define OPEN_TABLE_BYTES ((uint64_t)PS_RING_LANES * PS_RING_OPEN_SLOTS * sizeof(struct ps_ring_open))

_Static_assert(PS_RING_MIN_BYTES == PS_RING_HDR_BYTES + PS_RING_LANES * sizeof(struct ps_ring_lane) +
                                    OPEN_TABLE_BYTES + PS_RING_MIN_CHUNKS * PS_RING_CHUNK_MIN,
               "ps_ring.h's minimum matches the layout");

static uint32_t pick_chunk_bytes(uint64_t bytes)
{
    uint32_t c = PS_RING_CHUNK_MAX;
    while (c > PS_RING_CHUNK_MIN && (uint64_t)c * 1024 > bytes)
        c /= 2;
    return c;
}

/* A ring's shape: chunk size and count, where the open-range table and the chunks start. */
struct ring_shape {
    uint32_t chunk;
    uint64_t nchunks, open_off, meta;   /* meta: header + lane table + open-range table, where the chunks start */
};

/* The shape for a file of at most `bytes`. Growing a file past RLIMIT_FSIZE raises SIGXFSZ, whose default action
 * kills the program: the ring fits the limit, or fails when even the smallest ring would not. 0, -EFBIG or
 * -EINVAL. */
static int ring_shape(uint64_t bytes, struct ring_shape *g)
{
    struct rlimit fsize;
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY && bytes > fsize.rlim_cur) {
        if (fsize.rlim_cur < PS_RING_MIN_BYTES)
            return -EFBIG;
        bytes = fsize.rlim_cur;
    }
    g->chunk = pick_chunk_bytes(bytes);
    g->open_off = PS_RING_HDR_BYTES + (uint64_t)PS_RING_LANES * sizeof(struct ps_ring_lane);
    g->meta = g->open_off + OPEN_TABLE_BYTES;
    if (bytes < g->meta + (uint64_t)PS_RING_MIN_CHUNKS * g->chunk || bytes > PS_RING_MAX_BYTES)
        return -EINVAL;
    g->nchunks = (bytes - g->meta) / g->chunk;
    return g->nchunks > UINT32_MAX - 1 ? -EINVAL : 0;
}

/* Create the ring's file under a hidden name in `dir` (written to tmp), so that a reader scanning the directory
 * never opens a half-made ring. Processes in other PID namespaces may share pid and tid (both 1): the clock makes
 * the name unique, and O_EXCL makes sure. The descriptor, or -errno. */
static int create_hidden(const char *dir, uint32_t pid, char *tmp, size_t tmp_size)
{
    for (int tries = 0;; tries++) {
        int len = snprintf(tmp, tmp_size, "%s/.ring-%u-%d-%llx.tmp", dir, pid, (int)gettid(),
                           (unsigned long long)ps_ring_clock_now(0) + (unsigned long long)tries);
        if (len < 0 || (size_t)len >= tmp_size)
            return -ENAMETOOLONG;
        int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST || tries == 100)
            return -errno;
    }
}

/* Fill the header of the mapped ring r (its magic last, with release order: a reader that sees it sees the rest). */
static void init_header(struct ps_ring *r, uint32_t pid, const struct ring_shape *g)
{
    struct ps_ring_hdr *h = r->hdr;
    h->layout = PS_RING_LAYOUT;
    h->wire_version = PS_WIRE_VERSION;
    h->pid = pid;
    struct stat ns;
    h->pidns = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
    h->clock = r->tsc ? PS_RING_CLOCK_TSC : PS_RING_CLOCK_MONO;
    h->file_bytes = r->bytes;
    h->chunk_bytes = g->chunk;
    h->nchunks = (uint32_t)g->nchunks;
    h->nlanes = PS_RING_LANES;
    h->lanes_off = PS_RING_HDR_BYTES;
    h->open_off = g->open_off;
    h->chunks_off = g->meta;
    if (r->tsc)
        ps_ring_take_pair(tsc_now, &h->cal_tsc, &h->cal_ns);
    atomic_store_explicit((_Atomic uint64_t *)&h->magic, PS_RING_MAGIC, memory_order_release);
}

/* Give the finished ring `tmp` its name: ring-<pid>-<n>.ps with the first free n (an exec'd program keeps its pid
 * and makes another ring), written to name. 0 or -errno. */
static int publish(const char *dir, uint32_t pid, const char *tmp, char *name, size_t name_size)
{
    for (unsigned n = 0;; n++) {
        int len = snprintf(name, name_size, "%s/" PS_RING_FILE_FMT, dir, pid, n);
        if (len < 0 || (size_t)len >= name_size)
            return -ENAMETOOLONG;
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno == EINVAL && link(tmp, name) == 0) {     /* file system without RENAME_NOREPLACE */
            unlink(tmp);
            return 0;
        }
        if (errno != EEXIST || n > 100000)
            return -errno;
    }
}

int ps_ring_create(const char *dir, uint64_t bytes, uint32_t flags, struct ps_ring **out,
                   char *path, size_t path_size)
{
    char name[4096], tmp[4096];
    struct ring_shape g;
    uint32_t pid = (uint32_t)getpid();
    int err = ring_shape(bytes, &g);
    if (err)
        return err;
    struct ps_ring *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    int fd = create_hidden(dir, pid, tmp, sizeof tmp);
    if (fd < 0) {
        ps_ring_free(r);
        return fd;
    }
    r->bytes = g.meta + g.nchunks * g.chunk;
    /* Back the header, lane table and open-range table now, so a full file system shows here and not as SIGBUS
     * later. */
    if (ftruncate(fd, (off_t)r->bytes) != 0 || (fallocate(fd, 0, 0, (off_t)g.meta) != 0 && errno != EOPNOTSUPP)) {
        err = -errno;
        goto out_unlink;
    }
    r->base = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) {
        r->base = NULL;
        err = -errno;
        goto out_unlink;
    }
    /* The mapping keeps the file; the descriptor would be a number the program may close or reuse. */
    close(fd);
    fd = -1;
    r->hdr = (struct ps_ring_hdr *)(void *)r->base;
    r->lanes = (struct ps_ring_lane *)(void *)(r->base + PS_RING_HDR_BYTES);
    r->tsc = ps_ring_clock_is_tsc(flags);
    init_header(r, pid, &g);
    if ((err = publish(dir, pid, tmp, name, sizeof name)))
        goto out_unlink;
    snprintf(r->path, sizeof r->path, "%s", name);
    if (path && snprintf(path, path_size, "%s", name) >= (int)path_size) {
        unlink(name);
        ps_ring_free(r);
        return -ENAMETOOLONG;
    }
    *out = r;
    return 0;

out_unlink:
    unlink(tmp);
    if (fd >= 0)
        close(fd);
    ps_ring_free(r);
    return err;
}

void ps_ring_free(struct ps_ring *r)
{
    if (!r)
        return;
    if (r->base)
        munmap(r->base, r->bytes);
    free(r);
}

uint32_t ps_ring_max_record(const struct ps_ring *r)
{
    return r->hdr->chunk_bytes - (uint32_t)sizeof(struct ps_ring_chunk);
}

int ps_ring_uses_tsc(const struct ps_ring *r)
{
    return r->tsc;
}

static struct ps_ring_chunk *chunk_at(struct ps_ring *r, uint32_t idx)
{
    return (struct ps_ring_chunk *)(void *)(r->base + r->hdr->chunks_off + (uint64_t)idx * r->hdr->chunk_bytes);
}

static void wlane_attach(struct ps_ring_wlane *w, uint32_t idx1)
{
    struct ps_ring_chunk *c = chunk_at(w->ring, idx1 - 1);
    w->data = (char *)c;
    w->pos = atomic_load_explicit(&c->committed, memory_order_relaxed);
    w->limit = w->ring->hdr->chunk_bytes;
}

int ps_ring_lane_claim(struct ps_ring *r, uint32_t tid, struct ps_ring_wlane *w)
{
    struct ps_ring_hdr *h = r->hdr;
    for (uint32_t i = 0; i < PS_RING_LANES; i++) {
        struct ps_ring_lane *l = &r->lanes[i];
        uint32_t expect = 0;
        if (atomic_load_explicit(&l->owned, memory_order_relaxed) ||
            !atomic_compare_exchange_strong_explicit(&l->owned, &expect, 1, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        uint32_t used = atomic_load_explicit(&h->lanes_used, memory_order_relaxed);
        while (used < i + 1 &&
               !atomic_compare_exchange_weak_explicit(&h->lanes_used, &used, i + 1, memory_order_release,
                                                      memory_order_relaxed))
            ;
        memset(w, 0, sizeof *w);
        w->ring = r;
        w->lane = l;
        w->index = i;
        l->tid = tid;
        /* Slots a previous owner left live are ranges it never popped (it exited inside them): keep them. */
        w->open = (struct ps_ring_open *)(void *)(r->base + h->open_off) + (uint64_t)i * PS_RING_OPEN_SLOTS;
        for (uint32_t k = 0; k < PS_RING_OPEN_SLOTS; k++)
            if (atomic_load_explicit(&w->open[k].state, memory_order_relaxed))
                w->open_used |= 1u << k;
        uint32_t cur = atomic_load_explicit(&l->cur_chunk, memory_order_relaxed);
        if (cur)
            wlane_attach(w, cur);
        return 0;
    }
    return -EBUSY;
}

void ps_ring_lane_release(struct ps_ring_wlane *w)
{
    if (w->lane)
        atomic_store_explicit(&w->lane->owned, 0, memory_order_release);
    memset(w, 0, sizeof *w);
}

uint32_t ps_ring_open_flush(struct ps_ring_wlane *w)
{
    uint32_t n = 0;
    for (uint32_t k = 0; w->open && k < PS_RING_OPEN_SLOTS; k++) {
        if (!(w->open_used & (1u << k)))
            continue;
        struct ps_ring_open *o = &w->open[k];
        uint32_t kind = atomic_load_explicit(&o->state, memory_order_relaxed) & PS_WIRE_MSG_MASK;
        struct ps_wire_nvtx *rec = ps_ring_reserve(w, sizeof *rec);
        if (!rec)
            continue;
        *rec = (struct ps_wire_nvtx){{sizeof *rec, PS_WIRE_NVTX_OPEN, (uint16_t)kind}, o->start_tsc, 0, o->tid,
                                     o->domain_id, o->msg_id, 0};
        /* Free the slot first: a crash between the two loses this one range, never stores it twice. */
        ps_ring_open_end(w, (int)k);
        ps_ring_commit(w, sizeof *rec);
        n++;
    }
    return n;
}

uint32_t ps_ring_lane_string_id(struct ps_ring_wlane *w)
{
    if (w->lane->next_string_id == UINT32_MAX)
        return 0;
    return ++w->lane->next_string_id;
}

void ps_ring_drop_nolane(struct ps_ring *r, uint64_t n)
{
    atomic_fetch_add_explicit(&r->hdr->dropped_nolane, n, memory_order_relaxed);
}

void ps_ring_lane_drop(struct ps_ring_wlane *w, uint64_t n)
{
    atomic_fetch_add_explicit(&w->lane->dropped, n, memory_order_relaxed);
}

void ps_ring_lane_drop_limit(struct ps_ring_wlane *w, uint64_t n)
{
    atomic_fetch_add_explicit(&w->lane->dropped_limit, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->lane->dropped, n, memory_order_relaxed);
}

/* A page of a sparse file that cannot be allocated would raise SIGBUS in the program: allocate the bytes
 * [off, off + len) of the ring before first use, 0 or -errno (the file system is full: the chunk is given
 * up). Through the mapping (MADV_POPULATE_WRITE, Linux 5.14: an error instead of SIGBUS), else by opening
 * the ring by its name for the one fallocate. Never through a descriptor kept from ps_ring_create: the
 * program may have closed that number and opened its own file on it. */
static int chunk_back(struct ps_ring *r, uint64_t off, uint32_t len)
{
    if (madvise(r->base + off, len, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno != EINVAL)
        return -errno;
    int fd = open(r->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    int err = fallocate(fd, 0, (off_t)off, len) != 0 && errno != EOPNOTSUPP ? -errno : 0;
    close(fd);
    return err;
}

/* Pop the free list (chunks the reader drained; LIFO keeps the resident set small), else take a chunk
 * never used before and back it with memory. Returns index + 1, or 0 when none is left (*alloc_failed:
 * because a fresh chunk could not be backed). */
static uint32_t chunk_get(struct ps_ring *r, int *alloc_failed)
{
    struct ps_ring_hdr *h = r->hdr;
    uint64_t head = atomic_load_explicit(&h->free_head, memory_order_acquire);
    while ((uint32_t)head) {
        uint32_t idx1 = (uint32_t)head;
        uint32_t next = atomic_load_explicit(&chunk_at(r, idx1 - 1)->free_next, memory_order_relaxed);
        uint64_t tagged = (((head >> 32) + 1) << 32) | next;
        if (atomic_compare_exchange_weak_explicit(&h->free_head, &head, tagged, memory_order_acquire,
                                                  memory_order_acquire))
            return idx1;
    }
    uint32_t fresh = atomic_load_explicit(&h->fresh_next, memory_order_relaxed);
    while (fresh < h->nchunks) {
        if (!atomic_compare_exchange_weak_explicit(&h->fresh_next, &fresh, fresh + 1, memory_order_relaxed,
                                                   memory_order_relaxed))
            continue;
        if (chunk_back(r, h->chunks_off + (uint64_t)fresh * h->chunk_bytes, h->chunk_bytes) != 0) {
            *alloc_failed = 1;
            return 0;
        }
        return fresh + 1;
    }
    return 0;
}

void *ps_ring_reserve_slow(struct ps_ring_wlane *w, uint32_t bytes)
{
    struct ps_ring *r = w->ring;
    int alloc_failed = 0;
    if (!r || bytes > r->hdr->chunk_bytes - sizeof(struct ps_ring_chunk))
        goto drop;
    uint32_t idx1 = chunk_get(r, &alloc_failed);
    if (!idx1)
        goto drop;
    struct ps_ring_chunk *c = chunk_at(r, idx1 - 1);
    atomic_store_explicit(&c->committed, (uint32_t)sizeof *c, memory_order_relaxed);
    atomic_store_explicit(&c->next, 0, memory_order_relaxed);
    c->lane = w->index;
    atomic_store_explicit(&w->lane->cur_chunk, idx1, memory_order_relaxed);
    /* Link it: the reader follows first_chunk, then each chunk's next, and frees a chunk only once its
     * next is set, i.e. once its owner has left it for good. */
    if (w->data)
        atomic_store_explicit(&((struct ps_ring_chunk *)(void *)w->data)->next, idx1, memory_order_release);
    else
        atomic_store_explicit(&w->lane->first_chunk, idx1, memory_order_release);
    w->data = (char *)c;
    w->pos = sizeof *c;
    w->limit = r->hdr->chunk_bytes;
    return w->data + w->pos;
drop:
    if (w->lane && alloc_failed)
        atomic_fetch_add_explicit(&w->lane->dropped_alloc, 1, memory_order_relaxed);
    if (w->lane)
        ps_ring_lane_drop(w, 1);
    return NULL;
}
