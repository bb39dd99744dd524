/* Probe records and host samples -> trace rows (see rows.h). NVTX encodings follow Nsight Systems'
 * export (docs/trace-format.md): plain messages in `text`, registered strings in `textId`,
 * eventType 59 push/pop, 60 start/end (rangeId, endGlobalTid), 34 mark (end NULL), 75 domain, 33 category. */
#include "collector/rows.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_rows.h"
#include "maps.h"
#include "ps_globalid.h"
#include "ps_schema.h"
#include "ps_time.h"
#include "rows_impl.h"


int ps_rows_new(struct ps_tw *w, int64_t origin_ns, struct ps_rows **out)
{
    struct ps_rows *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    r->w = w;
    r->origin_ns = origin_ns;
    int rc = ps_gpu_rows_new(w, &r->gpu);
    if (rc)
        goto out;
    rc = -EIO;
    /* Constants in the SQL instead of bound values: fewer binds on the hottest path (+10 % rows/s). */
    r->st_range = ps_tw_prepare(w, "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid, domainId)"
                                   " VALUES(?, ?, " PS_SQL_INT(PS_NSYS_NVTX_PUSHPOP) ", ?, ?, ?)");
    r->st_mark = ps_tw_prepare(w, "INSERT INTO NVTX_EVENTS(start, eventType, text, globalTid, domainId)"
                                  " VALUES(?, " PS_SQL_INT(PS_NSYS_NVTX_MARK) ", ?, ?, ?)");
    r->st_full = ps_tw_prepare(w, "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, rangeId, category, color,"
                                  " text, globalTid, endGlobalTid, textId, domainId, uint64Value, int64Value,"
                                  " doubleValue, uint32Value, int32Value, floatValue)"
                                  " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    r->st_psample = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_PROCESS_SAMPLES VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    r->st_tsample = ps_tw_prepare(w, "INSERT INTO PERFSCOPE_THREAD_SAMPLES VALUES(?, ?, ?, ?, ?)");
    if (!r->st_range || !r->st_mark || !r->st_full || !r->st_psample || !r->st_tsample)
        goto out;
    *out = r;
    return 0;
out:
    ps_rows_free(r);
    return rc;
}

void ps_rows_free(struct ps_rows *r)
{
    if (!r)
        return;
    ps_rows_py_free(r);
    for (size_t i = 0; i < r->n_rings; i++) {
        ps_u64map_fini(&r->rings[i].lane_strings);
        ps_u64map_fini(&r->rings[i].registered);
    }
    for (size_t i = 0; i < r->n_procs; i++) {
        free(r->procs[i].exe);
        free(r->procs[i].cmdline);
        free(r->procs[i].comm);
        free(r->procs[i].cuda_msg);
        ps_u64map_fini(&r->procs[i].domains);
    }
    free(r->rings);
    free(r->procs);
    free(r->threads);
    ps_u64map_fini(&r->proc_by_pid);
    ps_u64map_fini(&r->thread_by_gtid);
    ps_gpu_rows_free(r->gpu);
    free(r);
}

/* The process entry of `pid`, created on first sight. -ENOMEM on failure, else its index. */
long ps_rows_proc_index(struct ps_rows *r, uint32_t pid)
{
    uint64_t *have = ps_u64map_get(&r->proc_by_pid, pid);
    if (have)
        return (long)*have;
    if (ps_array_grow((void **)&r->procs, &r->cap_procs, r->n_procs, sizeof *r->procs) ||
        ps_u64map_put(&r->proc_by_pid, pid, r->n_procs))
        return -ENOMEM;
    struct proc *p = &r->procs[r->n_procs];
    p->pid = pid;
    p->rank = p->local_rank = p->world_size = -1;
    return (long)r->n_procs++;
}

struct thread *ps_rows_thread_get(struct ps_rows *r, uint32_t pid, uint32_t tid)
{
    int64_t gtid = ps_global_tid(pid, tid);
    uint64_t *have = ps_u64map_get(&r->thread_by_gtid, (uint64_t)gtid);
    if (have)
        return &r->threads[*have];
    if (ps_array_grow((void **)&r->threads, &r->cap_threads, r->n_threads, sizeof *r->threads) ||
        ps_u64map_put(&r->thread_by_gtid, (uint64_t)gtid, r->n_threads))
        return NULL;
    struct thread *t = &r->threads[r->n_threads++];
    t->gtid = gtid;
    return t;
}

int ps_rows_ring_open(struct ps_rows *r, uint32_t ring, uint32_t pid, ps_rows_clock_fn clock,
                      const void *clock_ctx)
{
    if (ring != r->n_rings)
        return -EINVAL;
    if (ps_array_grow((void **)&r->rings, &r->cap_rings, r->n_rings, sizeof *r->rings))
        return -ENOMEM;
    long pi = ps_rows_proc_index(r, pid);
    if (pi < 0)
        return (int)pi;
    struct ring *g = &r->rings[r->n_rings++];
    g->pid = pid;
    g->proc = (size_t)pi;
    g->clock = clock;
    g->clock_ctx = clock_ctx;
    r->procs[pi].rings++;
    return 0;
}

void ps_rows_ring_other_pidns(struct ps_rows *r)
{
    r->other_pidns_rings++;
}

void ps_rows_ring_corrupt(struct ps_rows *r, uint32_t ring)
{
    if (ring < r->n_rings)
        r->corrupt_rings++;
}

void ps_rows_ring_still_running(struct ps_rows *r, uint32_t ring)
{
    if (ring < r->n_rings)
        r->procs[r->rings[ring].proc].still_running = 1;
}

void ps_rows_ring_refused(struct ps_rows *r, uint32_t ring, uint64_t n)
{
    if (ring < r->n_rings)
        r->procs[r->rings[ring].proc].invalid += n;
}

int ps_rows_restore_domain(struct ps_rows *r, uint32_t pid, uint32_t domain)
{
    uint64_t *pi = ps_u64map_get(&r->proc_by_pid, pid);
    return pi ? ps_u64map_put(&r->procs[*pi].domains, domain, 1) : 0;
}

void ps_rows_ring_dropped(struct ps_rows *r, uint32_t ring, const struct ps_ring_drops *d)
{
    if (ring >= r->n_rings)
        return;
    struct ring *g = &r->rings[ring];
    struct ps_ring_drops *p = &r->procs[g->proc].drops;
    p->full += d->full - g->drops.full;
    p->nolane += d->nolane - g->drops.nolane;
    p->limit += d->limit - g->drops.limit;
    p->alloc += d->alloc - g->drops.alloc;
    r->procs[g->proc].dropped += ps_ring_drops_total(d) - ps_ring_drops_total(&g->drops);
    g->drops = *d;
}

static int64_t stored_ns(const struct ps_rows *r, const struct ring *g, uint64_t tsc)
{
    return g->clock(g->clock_ctx, tsc) - r->origin_ns;
}

/* ---- Records no probe wrote ----
 * A ring is the program's memory: a stray pointer, or anyone who can write the ring file, can leave bytes there
 * that frame as records (docs/design.md, "Untrusted input"). The ring reader checks the framing (sizes, links,
 * an open-range slot's fields); here a record must also fit the session: its times after the session started and
 * not after now (256 KiB of random bytes over a ring's open-range table gave starts of 1e17 to 5e18 ns), a
 * push/pop range ending after it starts, and a range the reader made from an open-range slot (PS_WIRE_OPEN_SLOT)
 * on a thread and in a domain the ring's records made known. Records that fail are left out and counted
 * (invalid_records, docs/trace-format.md). A record the probe wrote into a chunk is not held to its thread and
 * domain: lanes are read in index order, so the definition may come later in the same drain (docs/probe.md,
 * "Reader"); an open-range slot is read after every lane is drained. */

/* The clock conversion's error (within 2 us: docs/probe.md, "Clock"), with room to spare. */
#define TIME_SLACK_NS 1000000

/* 1 when CLOCK_MONOTONIC `ns` lies between the session's start (record takes it before CMD runs) and now. */
int ps_rows_in_session(struct ps_rows *r, int64_t ns)
{
    if (ns < r->origin_ns - TIME_SLACK_NS)
        return 0;
    if (ns <= r->now_ns + TIME_SLACK_NS)
        return 1;
    r->now_ns = ps_monotonic_ns();      /* once a batch: records come in time order per lane */
    return ns <= r->now_ns + TIME_SLACK_NS;
}

/* 1 when thread `tid` of ring g's process is known: it wrote a thread name or a record taken before, or was
 * sampled. */
static int thread_known(const struct ps_rows *r, const struct ring *g, uint32_t tid)
{
    return ps_u64map_get(&r->thread_by_gtid, (uint64_t)ps_global_tid(g->pid, tid)) != NULL;
}

/* A record of thread `tid` was taken: the thread is known. 0 or -ENOMEM. */
static int thread_seen(struct ps_rows *r, struct ring *g, uint32_t tid)
{
    int64_t gtid = ps_global_tid(g->pid, tid);
    if (gtid == g->seen_gtid)
        return 0;
    if (!ps_rows_thread_get(r, g->pid, tid))
        return -ENOMEM;
    g->seen_gtid = gtid;
    return 0;
}

static int domain_known(const struct ps_rows *r, const struct ring *g, uint32_t domain)
{
    return domain == 0 || ps_u64map_get(&r->procs[g->proc].domains, domain) != NULL;
}

/* 1 when an NVTX event record fits the session (see above). */
static int nvtx_event_valid(struct ps_rows *r, const struct ring *g, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_nvtx *n = (const void *)rec;
    int64_t start = g->clock(g->clock_ctx, n->start_tsc);
    if (!ps_rows_in_session(r, start))
        return 0;
    if (rec->type == PS_WIRE_NVTX_RANGE || rec->type == PS_WIRE_NVTX_STARTEND) {
        int64_t end = g->clock(g->clock_ctx, n->end_tsc);
        /* a start/end range may end on another CPU than it started: no order asked of the two */
        if (!ps_rows_in_session(r, end) || (rec->type == PS_WIRE_NVTX_RANGE && end < start))
            return 0;
    }
    if (rec->type == PS_WIRE_NVTX_OPEN && (rec->flags & PS_WIRE_OPEN_SLOT))
        return thread_known(r, g, n->tid) && domain_known(r, g, n->domain_id);
    return 1;
}

/* The StringIds id of registered string `id` of ring g, reserved on first reference (and kept in
 * PERFSCOPE_RECOVERY_REGISTERED when state is kept). */
static int64_t registered_sid(struct ps_rows *r, struct ring *g, uint32_t id)
{
    uint64_t *have = ps_u64map_get(&g->registered, id);
    if (have)
        return (int64_t)(*have >> 1);
    int64_t sid = ps_tw_string_reserve(r->w);
    if (ps_u64map_put(&g->registered, id, (uint64_t)sid << 1))
        return -ENOMEM;
    if (r->st_regmap) {
        sqlite3_bind_int64(r->st_regmap, 1, g - r->rings);
        sqlite3_bind_int64(r->st_regmap, 2, id);
        sqlite3_bind_int64(r->st_regmap, 3, sid);
        int rc = ps_tw_exec(r->w, r->st_regmap);
        if (rc)
            return rc;
    }
    return sid;
}

int ps_rows_keep_state(struct ps_rows *r)
{
    r->st_state = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_RECOVERY_STATE VALUES(?, ?, ?)");
    r->st_regmap = ps_tw_prepare(r->w, "INSERT OR REPLACE INTO PERFSCOPE_RECOVERY_REGISTERED VALUES(?, ?, ?)");
    return r->st_state && r->st_regmap ? 0 : -EIO;
}

int ps_rows_restore_registered(struct ps_rows *r, uint32_t ring, uint32_t id, int64_t sid, int defined)
{
    if (ring >= r->n_rings || sid <= 0)
        return -EINVAL;
    return ps_u64map_put(&r->rings[ring].registered, id, (uint64_t)sid << 1 | (defined ? 1 : 0));
}

/* A record whose state later records need (lane strings, process, thread and CUDA records, Python frames): kept in
 * PERFSCOPE_RECOVERY_STATE, with the rows, when state is kept. */
static int keep_state(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec)
{
    if (!r->st_state || r->replaying)
        return 0;
    sqlite3_bind_int64(r->st_state, 1, ring);
    sqlite3_bind_int64(r->st_state, 2, lane);
    sqlite3_bind_blob(r->st_state, 3, rec, (int)rec->size, SQLITE_STATIC);
    return ps_tw_exec(r->w, r->st_state);
}

/* ps_tw_intern of `s` with invalid UTF-8 replaced. NULL: no memory. */
struct ps_str *ps_rows_intern_utf8(struct ps_rows *r, const char *s)
{
    size_t n = strlen(s);
    if (ps_utf8_valid(s, n))
        return ps_tw_intern(r->w, s, n);
    char *fixed = ps_utf8_dup(s, n);
    struct ps_str *in = fixed ? ps_tw_intern(r->w, fixed, strlen(fixed)) : NULL;
    free(fixed);
    return in;
}

/* strdup with invalid UTF-8 replaced. */
char *ps_rows_dup_utf8(const char *s)
{
    return ps_utf8_dup(s, strlen(s));
}

/* Bounded string at `off` of a record: NULL unless `len` bytes (NUL included) fit in the record. */
static const char *rec_str(const struct ps_wire_hdr *rec, size_t off, uint32_t len)
{
    if (len == 0 || off > rec->size || len > rec->size - off)
        return NULL;
    const char *s = (const char *)rec + off;
    return memchr(s, '\0', len) ? s : NULL;
}

static int bind_payload(sqlite3_stmt *st, const struct ps_wire_nvtx_attr *a)
{
    double d;
    float f;
    int64_t i64;
    switch (a->payload_type) {
    case 1:     /* NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: stored as the same 64 bits, signed */
    case 2:
        memcpy(&i64, &a->payload, sizeof i64);
        return sqlite3_bind_int64(st, a->payload_type == 1 ? 12 : 13, i64);
    case 3:
        memcpy(&d, &a->payload, sizeof d);
        return sqlite3_bind_double(st, 14, d);
    case 4:
        return sqlite3_bind_int64(st, 15, (uint32_t)a->payload);
    case 5:
        return sqlite3_bind_int64(st, 16, (int32_t)(uint32_t)a->payload);
    case 6:
        memcpy(&f, &a->payload, sizeof f);
        return sqlite3_bind_double(st, 17, f);
    default:
        return SQLITE_OK;
    }
}

/* NVTX range, start/end range, mark. */
static int nvtx_event(struct ps_rows *r, struct ring *g, uint32_t lane, const struct ps_wire_hdr *rec)
{
    struct proc *p = &r->procs[g->proc];
    const struct ps_wire_nvtx *n = (const void *)rec;
    size_t off = sizeof *n;
    const struct ps_wire_nvtx_attr *attr = NULL;
    const struct ps_wire_nvtx_ext *ext = NULL;
    if (rec->size < off)
        goto bad;
    if (rec->flags & PS_WIRE_HAS_ATTR) {
        if (rec->size < off + sizeof *attr)
            goto bad;
        attr = (const void *)((const char *)rec + off);
        off += sizeof *attr;
    }
    if (rec->type == PS_WIRE_NVTX_STARTEND) {
        if (rec->size < off + sizeof *ext)
            goto bad;
        ext = (const void *)((const char *)rec + off);
        off += sizeof *ext;
    }
    if (!nvtx_event_valid(r, g, rec)) {
        p->invalid++;
        return 0;
    }
    int rc = thread_seen(r, g, n->tid);
    if (rc)
        return rc;
    const char *text = NULL;
    int64_t text_id = 0;
    switch (rec->flags & PS_WIRE_MSG_MASK) {
    case PS_WIRE_MSG_LANE: {
        uint64_t *s = ps_u64map_get(&g->lane_strings, (uint64_t)lane << 32 | n->msg_id);
        if (s)
            text = ((const struct ps_str *)(uintptr_t)*s)->text;
        else
            r->unresolved_strings++;    /* its definition was dropped with a full ring */
        break;
    }
    case PS_WIRE_MSG_REGISTERED:
        if ((text_id = registered_sid(r, g, n->msg_id)) < 0)
            return (int)text_id;
        break;
    case PS_WIRE_MSG_INLINE:
        if (!(text = rec_str(rec, off, n->msg_len)))
            goto bad;
        break;
    }
    int open = rec->type == PS_WIRE_NVTX_OPEN;     /* never popped: end NULL, as nsys stores unterminated ranges */
    int type = rec->type == PS_WIRE_NVTX_RANGE || open ? PS_NSYS_NVTX_PUSHPOP
             : rec->type == PS_WIRE_NVTX_STARTEND ? PS_NSYS_NVTX_STARTEND : PS_NSYS_NVTX_MARK;
    int64_t start = stored_ns(r, g, n->start_tsc);
    int64_t gtid = ps_global_tid(g->pid, n->tid);
    sqlite3_stmt *st;
    if (!attr && !ext && !text_id) {
        int i = 1;
        st = type == PS_NSYS_NVTX_MARK ? r->st_mark : r->st_range;
        sqlite3_bind_int64(st, i++, start);
        if (open)
            sqlite3_bind_null(st, i++);
        else if (type != PS_NSYS_NVTX_MARK)
            sqlite3_bind_int64(st, i++, stored_ns(r, g, n->end_tsc));
        if (text)
            ps_tw_bind_text(st, i++, text);
        else
            sqlite3_bind_null(st, i++);
        sqlite3_bind_int64(st, i++, gtid);
        sqlite3_bind_int64(st, i, n->domain_id);
    } else {
        st = r->st_full;
        sqlite3_clear_bindings(st);
        sqlite3_bind_int64(st, 1, start);
        if (type != PS_NSYS_NVTX_MARK && !open)
            sqlite3_bind_int64(st, 2, stored_ns(r, g, n->end_tsc));
        sqlite3_bind_int(st, 3, type);
        if (ext) {
            sqlite3_bind_int64(st, 4, (int64_t)ext->range_id);
            sqlite3_bind_int64(st, 9, ps_global_tid(g->pid, ext->end_tid));
        }
        if (attr && (attr->flags & PS_WIRE_ATTR_CATEGORY))
            sqlite3_bind_int64(st, 5, attr->category);
        if (attr && (attr->flags & PS_WIRE_ATTR_COLOR))
            sqlite3_bind_int64(st, 6, attr->color);
        if (text)
            ps_tw_bind_text(st, 7, text);
        sqlite3_bind_int64(st, 8, gtid);
        if (text_id)
            sqlite3_bind_int64(st, 10, text_id);
        sqlite3_bind_int64(st, 11, n->domain_id);
        if (attr)
            bind_payload(st, attr);
    }
    r->nvtx_rows++;
    p->unterminated += (uint64_t)open;
    return ps_tw_exec(r->w, st);
bad:
    p->unknown++;
    return 0;
}

int ps_rows_live_open_clear(struct ps_rows *r)
{
    if (!r->st_live_clear && !(r->st_live_clear = ps_tw_prepare(r->w, "DELETE FROM PERFSCOPE_LIVE_OPEN_RANGES")))
        return -EIO;
    return ps_tw_exec(r->w, r->st_live_clear);
}

int ps_rows_live_open(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec)
{
    if (ring >= r->n_rings || rec->type != PS_WIRE_NVTX_OPEN || rec->size < sizeof(struct ps_wire_nvtx))
        return 0;
    if (!r->st_live_open &&
        !(r->st_live_open = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_LIVE_OPEN_RANGES VALUES(?, ?, ?, ?, ?)")))
        return -EIO;
    struct ring *g = &r->rings[ring];
    const struct ps_wire_nvtx *n = (const void *)rec;
    if (!nvtx_event_valid(r, g, rec))
        return 0;                   /* a display: nothing counted (the final drain counts what is left out) */
    sqlite3_stmt *st = r->st_live_open;
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, ps_global_tid(g->pid, n->tid));
    sqlite3_bind_int64(st, 2, stored_ns(r, g, n->start_tsc));
    if ((rec->flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_LANE) {
        uint64_t *str = ps_u64map_get(&g->lane_strings, (uint64_t)lane << 32 | n->msg_id);
        if (str)
            ps_tw_bind_text(st, 3, ((const struct ps_str *)(uintptr_t)*str)->text);
    } else if ((rec->flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_REGISTERED) {
        /* only an id already seen: a slot read mid-update may hold any id, and reserving one for it would leave
         * a StringIds id that is never defined (counted as an unresolved string at the end) */
        uint64_t *have = ps_u64map_get(&g->registered, n->msg_id);
        if (have)
            sqlite3_bind_int64(st, 4, (int64_t)(*have >> 1));
    }
    sqlite3_bind_int64(st, 5, n->domain_id);
    return ps_tw_exec(r->w, st);
}

/* Domain creation (75), category name (33), registered string (StringIds). */
static int nvtx_name(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_nvtx_name *n = (const void *)rec;
    const char *name = rec->size >= sizeof *n ? rec_str(rec, sizeof *n, n->name_len) : NULL;
    if (!name) {
        r->procs[g->proc].unknown++;
        return 0;
    }
    if (!ps_rows_in_session(r, g->clock(g->clock_ctx, n->tsc))) {
        r->procs[g->proc].invalid++;
        return 0;
    }
    int rc = thread_seen(r, g, n->tid);
    if (rc)
        return rc;
    if (rec->type == PS_WIRE_NVTX_DOMAIN && ps_u64map_put(&r->procs[g->proc].domains, n->id, 1))
        return -ENOMEM;
    if (rec->type == PS_WIRE_NVTX_REGISTERED) {
        int64_t sid = registered_sid(r, g, n->id);
        if (sid < 0)
            return (int)sid;
        uint64_t *v = ps_u64map_get(&g->registered, n->id);
        if (*v & 1)
            return 0;               /* registered twice: NVTX returns the same handle, keep the first */
        *v |= 1;
        char *fixed = ps_rows_dup_utf8(name);
        if (!fixed)
            return -ENOMEM;
        rc = ps_tw_string_define(r->w, sid, fixed);
        free(fixed);
        return rc;
    }
    sqlite3_stmt *st = r->st_full;
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, stored_ns(r, g, n->tsc));
    sqlite3_bind_int(st, 3, rec->type == PS_WIRE_NVTX_DOMAIN ? PS_NSYS_NVTX_DOMAIN_CREATE : PS_NSYS_NVTX_CATEGORY);
    if (rec->type == PS_WIRE_NVTX_CATEGORY)
        sqlite3_bind_int64(st, 5, n->id);
    ps_tw_bind_text(st, 7, name);
    sqlite3_bind_int64(st, 8, ps_global_tid(g->pid, n->tid));
    sqlite3_bind_int64(st, 11, rec->type == PS_WIRE_NVTX_DOMAIN ? n->id : n->domain_id);
    r->nvtx_rows++;
    return ps_tw_exec(r->w, st);
}

static char *join_argv(const char *argv, uint32_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, argv, len);
    s[len] = '\0';
    for (uint32_t i = 0; i + 1 < len; i++)
        if (s[i] == '\0')
            s[i] = ' ';
    if (ps_utf8_valid(s, strlen(s)))
        return s;
    char *fixed = ps_rows_dup_utf8(s);          /* file names in argv are bytes on Linux */
    free(s);
    return fixed;
}

static int process_rec(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    struct proc *p = &r->procs[g->proc];
    const struct ps_wire_process *w = (const void *)rec;
    const char *exe = rec->size >= sizeof *w ? rec_str(rec, sizeof *w, w->exe_len) : NULL;
    if (!exe || w->argv_len > rec->size - sizeof *w - w->exe_len) {
        p->unknown++;
        return 0;
    }
    /* An exec gives the same pid a new ring: the latest image (the last to attach) describes the process,
     * whatever order the rings are drained in. */
    if (p->probed && w->start_ns - r->origin_ns < p->attach_ns)
        return 0;
    free(p->exe);
    free(p->cmdline);
    p->exe = ps_rows_dup_utf8(exe);
    p->cmdline = w->argv_len ? join_argv(exe + w->exe_len, w->argv_len) : strdup("");
    if (!p->exe || !p->cmdline)
        return -ENOMEM;
    p->probed = 1;
    p->ppid = w->ppid;
    p->attach_ns = w->start_ns - r->origin_ns;
    p->rank = w->rank;
    p->local_rank = w->local_rank;
    p->world_size = w->world_size;
    return 0;
}

static int thread_name_rec(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_thread_name *n = (const void *)rec;
    const char *name = rec->size >= sizeof *n ? rec_str(rec, sizeof *n, n->name_len) : NULL;
    if (!name) {
        r->procs[g->proc].unknown++;
        return 0;
    }
    struct thread *t = ps_rows_thread_get(r, g->pid, n->tid);
    if (!t || !(t->nvtx_name = ps_rows_intern_utf8(r, name)))
        return -ENOMEM;
    return 0;
}

static int cuda_status_rec(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    struct proc *p = &r->procs[g->proc];
    const struct ps_wire_cuda_status *c = (const void *)rec;
    if (rec->size < sizeof *c) {
        p->unknown++;
        return 0;
    }
    const char *msg = c->msg_len ? rec_str(rec, sizeof *c, c->msg_len) : NULL;
    p->cuda_injected = 1;
    p->cuda_state = (int)c->state;
    if (msg && *msg) {
        free(p->cuda_msg);
        if (!(p->cuda_msg = ps_rows_dup_utf8(msg)))
            return -ENOMEM;
    }
    return 0;
}

static int lane_string_rec(struct ps_rows *r, struct ring *g, uint32_t lane, const struct ps_wire_hdr *rec)
{
    const struct ps_wire_lane_string *s = (const void *)rec;
    const char *text = rec->size >= sizeof *s ? rec_str(rec, sizeof *s, s->len) : NULL;
    if (!text) {
        r->procs[g->proc].unknown++;
        return 0;
    }
    struct ps_str *in = ps_rows_intern_utf8(r, text);
    if (!in || ps_u64map_put(&g->lane_strings, (uint64_t)lane << 32 | s->id, (uint64_t)(uintptr_t)in))
        return -ENOMEM;
    return 0;
}

int ps_rows_restore_record(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec)
{
    switch (rec->type) {
    case PS_WIRE_LANE_STRING:
    case PS_WIRE_PROCESS:
    case PS_WIRE_THREAD_NAME:
    case PS_WIRE_CUDA_STATUS:
    case PS_WIRE_PY_FRAME:
        break;
    default:
        return -EINVAL;
    }
    r->replaying = 1;
    int rc = ps_rows_wire(r, ring, lane, rec);
    r->replaying = 0;
    return rc;
}

int ps_rows_wire(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec)
{
    if (ring >= r->n_rings)
        return -EINVAL;
    struct ring *g = &r->rings[ring];
    int rc;
    switch (rec->type) {
    case PS_WIRE_LANE_STRING:
    case PS_WIRE_PROCESS:
    case PS_WIRE_THREAD_NAME:
    case PS_WIRE_CUDA_STATUS:
    case PS_WIRE_PY_FRAME:          /* its id -> frame row map: later samples name it */
        if ((rc = keep_state(r, ring, lane, rec)))
            return rc;
        break;
    }
    switch (rec->type) {
    case PS_WIRE_NVTX_RANGE:
    case PS_WIRE_NVTX_STARTEND:
    case PS_WIRE_NVTX_MARK:
    case PS_WIRE_NVTX_OPEN:
        return nvtx_event(r, g, lane, rec);
    case PS_WIRE_LANE_STRING:
        return lane_string_rec(r, g, lane, rec);
    case PS_WIRE_NVTX_DOMAIN:
    case PS_WIRE_NVTX_REGISTERED:
    case PS_WIRE_NVTX_CATEGORY:
        return nvtx_name(r, g, rec);
    case PS_WIRE_NVTX_UNBALANCED:
        if (rec->size >= sizeof(struct ps_wire_nvtx) &&
            !ps_rows_in_session(r, g->clock(g->clock_ctx, ((const struct ps_wire_nvtx *)(const void *)rec)->start_tsc)))
            r->procs[g->proc].invalid++;
        else
            r->procs[g->proc].unbalanced++;
        return 0;
    case PS_WIRE_PROCESS:
        return process_rec(r, g, rec);
    case PS_WIRE_THREAD_NAME:
        return thread_name_rec(r, g, rec);
    case PS_WIRE_CUDA_STATUS:
        return cuda_status_rec(r, g, rec);
    case PS_WIRE_PY_FRAME:
        return ps_rows_py_frame(r, g, rec);
    case PS_WIRE_PY_SAMPLE:
        return ps_rows_py_sample(r, g, rec);
    }
    if (rec->type >= PS_WIRE_GPU_FIRST && rec->type <= PS_WIRE_GPU_LAST) {
        struct ps_gpu_src src = { g->pid, ps_global_pid(g->pid), r->origin_ns };
        int rc = ps_gpu_rows_write(r->gpu, &src, rec);
        if (rc <= 0)
            return rc;
    }
    r->procs[g->proc].unknown++;
    return 0;
}
