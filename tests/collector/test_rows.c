/* Unit tests of the collector's translation of probe records (common/ps_wire.h) into trace rows
 * (collector/rows.c), fed with hand-built records; expected rows are written out beside each case from
 * Nsight Systems' encodings (docs/trace-format.md). Usage: test_rows CASE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "ps_globalid.h"
#include "ps_time.h"
#include "ps_wire.h"
#include "collector/rows.h"
#include "collector/sampler.h"
#include "collector/trace_writer.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                                        exit(1); } } while (0)

static char path[256];
static struct ps_tw *tw;
static struct ps_rows *rows;

/* The test clock: a raw timestamp t is CLOCK_MONOTONIC ns 1000 + 2 t; the session starts at 1000, so the
 * stored time of t is 2 t. */
static int64_t test_clock(const void *ctx, uint64_t t)
{
    (void)ctx;
    return 1000 + 2 * (int64_t)t;
}

/* A clock for records whose times are CLOCK_MONOTONIC ns already (as the drain thread converts them). */
static int64_t ps_identity_clock(const void *ctx, uint64_t t)
{
    (void)ctx;
    return (int64_t)t;
}

/* A trace whose session started at CLOCK_MONOTONIC `origin_ns`. */
static void open_trace_at(int64_t origin_ns)
{
    char err[512];
    snprintf(path, sizeof path, "/tmp/ps_test_rows_%d.sqlite", (int)getpid());
    unlink(path);
    CHECK(ps_tw_open(path, &tw, err, sizeof err) == 0);
    CHECK(ps_rows_new(tw, origin_ns, &rows) == 0);
    CHECK(ps_tw_begin(tw) == 0);
}

static void open_trace(void)
{
    open_trace_at(1000);
}

static void close_trace(struct ps_rows_totals *t)
{
    CHECK(ps_rows_finish(rows, t) == 0);
    CHECK(ps_tw_commit(tw) == 0);
    CHECK(ps_tw_finish(tw) == 0);
    ps_rows_free(rows);
    ps_tw_free(tw);
}

/* One integer from a query on the finished trace (sqlite3 opened read-only). */
static int64_t q_int(const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad SQL %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    int64_t v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static int q_text_is(const char *sql, const char *want)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    const char *got = (const char *)sqlite3_column_text(st, 0);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "%s: got '%s', want '%s'\n", sql, got ? got : "(null)", want);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

/* ---- record builders ---- */
static _Alignas(8) char buf[1024];

static const struct ps_wire_hdr *lane_string(uint32_t id, const char *text)
{
    struct ps_wire_lane_string *s = (void *)buf;
    uint32_t len = (uint32_t)strlen(text) + 1;
    *s = (struct ps_wire_lane_string){ { (uint32_t)((sizeof *s + len + 7) & ~7u), PS_WIRE_LANE_STRING, 0 }, id, len };
    memcpy(s + 1, text, len);
    return &s->h;
}

/* An NVTX record; attr/ext/inline message appended in wire order when given. */
static const struct ps_wire_hdr *nvtx(uint16_t type, uint16_t msg, uint64_t start, uint64_t end, uint32_t tid,
                                      uint32_t domain, uint32_t msg_id, const struct ps_wire_nvtx_attr *attr,
                                      const struct ps_wire_nvtx_ext *ext, const char *inline_msg)
{
    memset(buf, 0, sizeof buf);
    struct ps_wire_nvtx *n = (void *)buf;
    size_t off = sizeof *n;
    uint16_t flags = msg | (attr ? PS_WIRE_HAS_ATTR : 0);
    if (attr) {
        memcpy(buf + off, attr, sizeof *attr);
        off += sizeof *attr;
    }
    if (ext) {
        memcpy(buf + off, ext, sizeof *ext);
        off += sizeof *ext;
    }
    uint32_t mlen = inline_msg ? (uint32_t)strlen(inline_msg) + 1 : 0;
    if (inline_msg) {
        memcpy(buf + off, inline_msg, mlen);
        off += mlen;
    }
    *n = (struct ps_wire_nvtx){ { (uint32_t)((off + 7) & ~(size_t)7), type, flags }, start, end, tid, domain, msg_id, mlen };
    return &n->h;
}

static const struct ps_wire_hdr *name_rec(uint16_t type, uint64_t t, uint32_t domain, uint32_t id, uint32_t tid,
                                          const char *name)
{
    struct ps_wire_nvtx_name *n = (void *)buf;
    uint32_t len = (uint32_t)strlen(name) + 1;
    *n = (struct ps_wire_nvtx_name){ { (uint32_t)((sizeof *n + len + 7) & ~7u), type, 0 }, t, domain, id, tid, len };
    memcpy(n + 1, name, len);
    return &n->h;
}

#define PID 4242u
#define GTID(tid) ps_global_tid(PID, tid)

/* Nested push/pop on one thread, written at the pops (inner first): 59 rows, text from the lane strings,
 * times through the clock: stored = 2 * raw. */
static void rows_push_pop_ranges_become_eventtype_59_with_text(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 3, lane_string(1, "step")) == 0);
    CHECK(ps_rows_wire(rows, 0, 3, lane_string(2, "forward")) == 0);
    CHECK(ps_rows_wire(rows, 0, 3, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_LANE, 20, 30, 77, 0, 2, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 3, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_LANE, 10, 50, 77, 0, 1, NULL, NULL, NULL)) == 0);
    /* Lane 4 reuses id 1 for another string: ids are per lane. */
    CHECK(ps_rows_wire(rows, 0, 4, lane_string(1, "data")) == 0);
    CHECK(ps_rows_wire(rows, 0, 4, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_LANE, 60, 61, 78, 0, 1, NULL, NULL, NULL)) == 0);
    /* An inline (non-ASCII) message. */
    CHECK(ps_rows_wire(rows, 0, 4, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_INLINE, 70, 71, 78, 0, 0, NULL, NULL, "Größe")) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.nvtx_rows == 4);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59") == 4);
    CHECK(q_int("SELECT start FROM NVTX_EVENTS WHERE text = 'step'") == 20);
    CHECK(q_int("SELECT \"end\" FROM NVTX_EVENTS WHERE text = 'step'") == 100);
    CHECK(q_int("SELECT start FROM NVTX_EVENTS WHERE text = 'forward'") == 40);
    CHECK(q_int("SELECT globalTid FROM NVTX_EVENTS WHERE text = 'forward'") == GTID(77));
    CHECK(q_int("SELECT globalTid FROM NVTX_EVENTS WHERE text = 'data'") == GTID(78));
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE text = 'Größe' AND textId IS NULL AND domainId = 0") == 1);
    /* Nesting: forward lies inside step. */
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS a, NVTX_EVENTS b WHERE a.text = 'forward' AND b.text = 'step'"
                " AND a.start >= b.start AND a.\"end\" <= b.\"end\"") == 1);
    unlink(path);
}

/* A registered string used on lane 1 before lane 2's registration record is read: textId still resolves;
 * a registered string never defined gets a placeholder so the join never fails. */
static void rows_registered_strings_resolve_across_lanes(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 1, nvtx(PS_WIRE_NVTX_MARK, PS_WIRE_MSG_REGISTERED, 5, 5, 90, 1, 7, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 2, name_rec(PS_WIRE_NVTX_REGISTERED, 1, 1, 7, 91, "ncclAllReduce")) == 0);
    CHECK(ps_rows_wire(rows, 0, 1, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_REGISTERED, 6, 9, 90, 1, 7, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 1, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_REGISTERED, 6, 9, 90, 1, 8, NULL, NULL, NULL)) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId"
                " WHERE s.value = 'ncclAllReduce' AND n.text IS NULL AND n.domainId = 1") == 2);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND \"end\" IS NULL AND start = 10") == 1);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId") == 3);
    CHECK(t.unresolved_strings == 1);
    unlink(path);
}

/* Start/end across threads (60, rangeId, endGlobalTid), domain (75) and category (33) rows, attributes. */
static void rows_startend_domain_category_and_attributes(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, name_rec(PS_WIRE_NVTX_DOMAIN, 2, 5, 5, 100, "mydomain")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, name_rec(PS_WIRE_NVTX_CATEGORY, 3, 5, 12, 100, "io")) == 0);
    struct ps_wire_nvtx_ext ext = { 99, 101, 0 };
    struct ps_wire_nvtx_attr color = { PS_WIRE_ATTR_COLOR | PS_WIRE_ATTR_CATEGORY, 12, 0xFF00FF00u, 3, 0 };
    double d = 2.5;
    memcpy(&color.payload, &d, sizeof d);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_STARTEND, PS_WIRE_MSG_INLINE, 10, 40, 100, 5, 0, &color, &ext, "load")) == 0);
    struct ps_wire_nvtx_attr i32 = { 0, 0, 0, 5, (uint32_t)-7 };
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_MARK, PS_WIRE_MSG_INLINE, 11, 11, 100, 0, 0, &i32, NULL, "m")) == 0);
    struct ps_wire_nvtx_attr u64 = { 0, 0, 0, 1, 1ull << 40 };
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_NONE, 12, 13, 100, 0, 0, &u64, NULL, NULL)) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(q_int("SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'mydomain'") == 5);
    CHECK(q_int("SELECT category FROM NVTX_EVENTS WHERE eventType = 33 AND text = 'io' AND domainId = 5") == 12);
    CHECK(q_int("SELECT rangeId FROM NVTX_EVENTS WHERE eventType = 60") == 99);
    CHECK(q_int("SELECT endGlobalTid FROM NVTX_EVENTS WHERE eventType = 60") == GTID(101));
    CHECK(q_int("SELECT globalTid FROM NVTX_EVENTS WHERE eventType = 60") == GTID(100));
    CHECK(q_int("SELECT color FROM NVTX_EVENTS WHERE eventType = 60") == 0xFF00FF00);
    CHECK(q_int("SELECT category FROM NVTX_EVENTS WHERE eventType = 60") == 12);
    CHECK(q_int("SELECT doubleValue * 10 FROM NVTX_EVENTS WHERE eventType = 60") == 25);
    CHECK(q_int("SELECT \"end\" - start FROM NVTX_EVENTS WHERE eventType = 60") == 60);
    CHECK(q_int("SELECT int32Value FROM NVTX_EVENTS WHERE eventType = 34") == -7);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND \"end\" IS NULL AND color IS NULL") == 1);
    CHECK(q_int("SELECT uint64Value FROM NVTX_EVENTS WHERE eventType = 59 AND text IS NULL") == 1ll << 40);
    CHECK(q_int("SELECT count(*) FROM ENUM_NSYS_EVENT_TYPE WHERE id IN (33, 34, 59, 60, 75)") == 5);
    unlink(path);
}

/* Process, thread name, CUDA status, unbalanced pops, drops over two rings of one pid (an exec: the later
 * image describes the process), a malformed record and a GPU record nobody understands yet. */
static void rows_process_rows_count_drops_and_unknown_records(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_ring_open(rows, 1, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_ring_open(rows, 2, PID + 1, test_clock, NULL) == 0);
    /* PS_WIRE_PROCESS: exe "/usr/bin/python3", argv "python3\0train.py\0", rank 3 of 8 */
    struct ps_wire_process *p = (void *)buf;
    const char exe[] = "/usr/bin/python3", argv[] = "python3\0train.py";
    *p = (struct ps_wire_process){ { (uint32_t)((sizeof *p + sizeof exe + sizeof argv + 7) & ~7u), PS_WIRE_PROCESS, 0 },
                                   PID, 1, 5000, 0, sizeof exe, sizeof argv, 3, 1, 8, 0 };
    memcpy(p + 1, exe, sizeof exe);
    memcpy((char *)(p + 1) + sizeof exe, argv, sizeof argv);
    CHECK(ps_rows_wire(rows, 1, 0, &p->h) == 0);
    /* Ring 0 is the image before the exec (attached earlier, at 2000), drained after: it must not win. */
    const char sh[] = "/bin/sh", shargv[] = "sh\0-c\0x";
    *p = (struct ps_wire_process){ { (uint32_t)((sizeof *p + sizeof sh + sizeof shargv + 7) & ~7u), PS_WIRE_PROCESS, 0 },
                                   PID, 1, 2000, 0, sizeof sh, sizeof shargv, -1, -1, -1, 0 };
    memcpy(p + 1, sh, sizeof sh);
    memcpy((char *)(p + 1) + sizeof sh, shargv, sizeof shargv);
    CHECK(ps_rows_wire(rows, 0, 0, &p->h) == 0);
    struct ps_wire_thread_name *tn = (void *)buf;
    *tn = (struct ps_wire_thread_name){ { sizeof *tn + 8, PS_WIRE_THREAD_NAME, 0 }, 4343, 7 };
    memcpy(tn + 1, "loader", 7);
    CHECK(ps_rows_wire(rows, 1, 0, &tn->h) == 0);
    struct ps_wire_cuda_status *cs = (void *)buf;
    *cs = (struct ps_wire_cuda_status){ { sizeof *cs + 16, PS_WIRE_CUDA_STATUS, 0 }, 1, PS_CUDA_CUPTI_BUSY, 11 };
    memcpy(cs + 1, "nsys holds", 11);
    CHECK(ps_rows_wire(rows, 1, 0, &cs->h) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, nvtx(PS_WIRE_NVTX_UNBALANCED, 0, 1, 1, PID, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, nvtx(PS_WIRE_NVTX_UNBALANCED, 0, 1, 1, PID, 0, 0, NULL, NULL, NULL)) == 0);
    /* Malformed: an inline message longer than the record. */
    struct ps_wire_nvtx *bad = (void *)buf;
    *bad = (struct ps_wire_nvtx){ { sizeof *bad, PS_WIRE_NVTX_RANGE, PS_WIRE_MSG_INLINE }, 1, 2, PID, 0, 0, 100 };
    CHECK(ps_rows_wire(rows, 0, 0, &bad->h) == 0);
    struct ps_wire_hdr gpu = { 8, PS_WIRE_GPU_FIRST + 1, 0 };
    CHECK(ps_rows_wire(rows, 2, 0, &gpu) == 0);
    /* By cause (full, no lane, limits, alloc): 10 = 4 + 3 + 2 + 1; ring 1's 5 then 6 (a later, final count
     * replaces the earlier one); 1. Totals: 17 = full 4+6+1, no lane 3, limits 2, alloc 1. */
    ps_rows_ring_dropped(rows, 0, &(struct ps_ring_drops){ 4, 3, 2, 1 });
    ps_rows_ring_dropped(rows, 1, &(struct ps_ring_drops){ 5, 0, 0, 0 });
    ps_rows_ring_dropped(rows, 1, &(struct ps_ring_drops){ 6, 0, 0, 0 });
    ps_rows_ring_dropped(rows, 2, &(struct ps_ring_drops){ 1, 0, 0, 0 });
    struct ps_thread_sample ts = { .time_ns = 3000, .pid = PID, .tid = 4344, .state = 2, .cpu_user_ns = 10,
                                   .cpu_system_ns = -1, .comm = "worker" };
    CHECK(ps_rows_thread_sample(rows, &ts) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.drops.full == 11 && t.drops.nolane == 3 && t.drops.limit == 2 && t.drops.alloc == 1);
    CHECK(q_int("SELECT value FROM PERFSCOPE_META WHERE name = 'dropped_records.no_lane'") == 3);
    CHECK(q_int("SELECT value FROM PERFSCOPE_META WHERE name = 'dropped_records.probe_limits'") == 2);
    CHECK(t.dropped == 17 && t.unbalanced == 2 && t.unknown == 2 && t.processes == 2 && t.probed_processes == 1);
    CHECK(t.rank == 3 && t.local_rank == 1 && t.world_size == 8 && t.cuda_injected_processes == 1);
    CHECK(q_int("SELECT droppedRecords FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242") == 16);
    CHECK(q_int("SELECT rings FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242") == 2);
    CHECK(q_int("SELECT unbalancedNvtx FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242") == 2);
    CHECK(q_int("SELECT unknownRecords FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4243") == 1);
    CHECK(q_int("SELECT cuptiState FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242") == PS_CUDA_CUPTI_BUSY);
    CHECK(q_int("SELECT attachTime FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242") == 4000);
    CHECK(q_text_is("SELECT commandLine FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242", "python3 train.py"));
    CHECK(q_text_is("SELECT cuptiMessage FROM PERFSCOPE_PROCESS_INFO WHERE pid = 4242", "nsys holds"));
    CHECK(q_text_is("SELECT name FROM PROCESSES WHERE pid = 4242", "python3"));
    CHECK(q_int("SELECT globalPid FROM PROCESSES WHERE pid = 4242") == ps_global_pid(PID));
    CHECK(q_text_is("SELECT value FROM PERFSCOPE_META WHERE name = 'dropped_records.pid.4242'", "16"));
    CHECK(q_text_is("SELECT value FROM PERFSCOPE_META WHERE name = 'cuda_state.pid.4242'", "cupti_busy"));
    CHECK(q_text_is("SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId"
                    " WHERE t.globalTid = 281546145665271", "loader"));   /* 2^48 + 4242 * 2^24 + 4343 */
    CHECK(q_int("SELECT priority FROM ThreadNames WHERE globalTid = 281546145665271") == 1);
    CHECK(q_text_is("SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId"
                    " WHERE t.globalTid = 281546145665272", "worker"));
    CHECK(q_int("SELECT timestamp FROM PERFSCOPE_THREAD_SAMPLES") == 2000);
    CHECK(q_int("SELECT cpuSystemNs FROM PERFSCOPE_THREAD_SAMPLES") == -999);   /* unavailable -> NULL */
    unlink(path);
}

/* Records no probe wrote (collector/rows.c): the test clock makes raw t into 1000 + 2 t ns, the session starts at
 * 1000 ns and "now" is CLOCK_MONOTONIC, so raw 2^61 (4.6e18 ns, 146 years) is after now and raw -10^6 (as
 * unsigned: -2e6 ns) is before the session, past the 1 ms the clock conversion may err by. Left out and counted
 * (9 + 3 = 12): a range starting before the session, one ending after now, one ending before it starts, a mark
 * after now, an unbalanced pop after now, a domain record after now, and open ranges made from open-range slots
 * (PS_WIRE_OPEN_SLOT) on thread 99 (never seen) or in domain 9 (never defined) or domain 6 (its record was one of
 * those left out); plus 3 slots the ring reader refused. Kept: slot ranges on thread 77 (a thread name) in domain
 * 5 (a domain record) and in domain 7 (restored, as a recovery does), one on thread 78 (seen in a range it wrote),
 * a range at the session's very start, and an open range the probe wrote into a chunk (no PS_WIRE_OPEN_SLOT: its
 * thread and domain may be defined later in the drain). */
static void rows_leave_out_records_no_probe_wrote(void)
{
    const uint64_t after_now = 1ull << 61, before = (uint64_t)(int64_t)-1000000;
    const uint16_t slot = PS_WIRE_MSG_NONE | PS_WIRE_OPEN_SLOT;
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    struct ps_wire_thread_name *tn = (void *)buf;
    *tn = (struct ps_wire_thread_name){ { sizeof *tn + 8, PS_WIRE_THREAD_NAME, 0 }, 77, 5 };
    memcpy(tn + 1, "main", 5);
    CHECK(ps_rows_wire(rows, 0, 0, &tn->h) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, name_rec(PS_WIRE_NVTX_DOMAIN, 1, 5, 5, 77, "dom5")) == 0);
    CHECK(ps_rows_restore_domain(rows, PID, 7) == 0);
    /* left out */
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_RANGE, 0, before, 10, 77, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_RANGE, 0, 10, after_now, 77, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_RANGE, 0, 20, 19, 77, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_MARK, 0, after_now, after_now, 77, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_UNBALANCED, 0, after_now, after_now, 77, 0, 0, NULL, NULL,
                                        NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, name_rec(PS_WIRE_NVTX_DOMAIN, after_now, 6, 6, 77, "dom6")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_OPEN, slot, 30, 0, 99, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_OPEN, slot, 31, 0, 77, 9, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_OPEN, slot, 32, 0, 77, 6, 0, NULL, NULL, NULL)) == 0);
    ps_rows_ring_refused(rows, 0, 3);
    /* kept */
    CHECK(ps_rows_wire(rows, 0, 1, nvtx(PS_WIRE_NVTX_RANGE, 0, 0, 40, 78, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_OPEN, slot, 41, 0, 77, 5, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, nvtx(PS_WIRE_NVTX_OPEN, slot, 42, 0, 77, 7, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 1, nvtx(PS_WIRE_NVTX_OPEN, slot, 43, 0, 78, 0, 0, NULL, NULL, NULL)) == 0);
    CHECK(ps_rows_wire(rows, 0, 2, nvtx(PS_WIRE_NVTX_OPEN, PS_WIRE_MSG_NONE, 44, 0, 99, 8, 0, NULL, NULL, NULL)) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.invalid == 12);
    CHECK(q_int("SELECT value FROM PERFSCOPE_META WHERE name = 'invalid_records'") == 12);
    CHECK(t.unbalanced == 0 && t.unknown == 0);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75") == 1);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND \"end\" = 80 AND start = 0") == 1);
    CHECK(q_text_is("SELECT group_concat(start || ':' || (globalTid % 16777216) || ':' || domainId, ' ') FROM"
                    " (SELECT * FROM NVTX_EVENTS WHERE eventType = 59 AND \"end\" IS NULL ORDER BY start)",
                "82:77:5 84:77:7 86:78:0 88:99:8"));
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS") == 6);
    CHECK(t.unterminated == 4);
    unlink(path);
}

/* Random bytes framed as NVTX records (a valid size and type, the rest random, as a program that writes over its
 * ring's chunks could leave) never become rows: each is left out (invalid_records) or, when its own framing fails
 * (an inline message longer than the record), counted as unknown. 20000 records, a fixed seed; the session starts
 * now, so a random time falls in it with a probability of about 2^-40 (a few ms of 2^64 ns). */
static void rows_never_store_random_nvtx_records(void)
{
    static const uint16_t types[] = { PS_WIRE_NVTX_RANGE, PS_WIRE_NVTX_STARTEND, PS_WIRE_NVTX_MARK, PS_WIRE_NVTX_OPEN,
                                      PS_WIRE_NVTX_UNBALANCED, PS_WIRE_NVTX_DOMAIN, PS_WIRE_NVTX_CATEGORY };
    uint64_t x = 0x9e3779b97f4a7c15ull;
    const int n = 20000;
    open_trace_at(ps_monotonic_ns());
    CHECK(ps_rows_ring_open(rows, 0, PID, ps_identity_clock, NULL) == 0);
    for (int i = 0; i < n; i++) {
        _Alignas(8) unsigned char rec[128];
        for (size_t k = 0; k < sizeof rec; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;      /* xorshift64 */
            rec[k] = (unsigned char)x;
        }
        struct ps_wire_hdr *h = (void *)rec;
        h->size = sizeof rec;
        h->type = types[(unsigned)i % (sizeof types / sizeof *types)];
        rec[sizeof rec - 1] = 0;                          /* a name's text can end */
        CHECK(ps_rows_wire(rows, 0, (uint32_t)i % 4, h) == 0);
    }
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.nvtx_rows == 0);
    CHECK(q_int("SELECT count(*) FROM NVTX_EVENTS") == 0);
    if (t.invalid + t.unknown != (uint64_t)n)
        fprintf(stderr, "invalid %llu + unknown %llu != %d\n", (unsigned long long)t.invalid,
                (unsigned long long)t.unknown, n);
    CHECK(t.invalid + t.unknown == (uint64_t)n);
    CHECK(t.invalid > 0);
    unlink(path);
}

/* ---- Python stack samples (collector/rows_python.c) ---- */

/* A PS_WIRE_PY_FRAME record: location `id` of the process = (file, line, function), at raw time t. */
static const struct ps_wire_hdr *py_frame(uint64_t t, uint32_t id, const char *file, uint32_t line, const char *fn)
{
    memset(buf, 0, sizeof buf);
    struct ps_wire_py_frame *f = (void *)buf;
    uint32_t fl = (uint32_t)strlen(file) + 1, nl = (uint32_t)strlen(fn) + 1;
    *f = (struct ps_wire_py_frame){ { (uint32_t)((sizeof *f + fl + nl + 7) & ~7u), PS_WIRE_PY_FRAME, 0 }, t, id, line,
                                    fl, nl };
    memcpy(f + 1, file, fl);
    memcpy((char *)(f + 1) + fl, fn, nl);
    return &f->h;
}

/* A PS_WIRE_PY_SAMPLE record: thread `tid`'s stack at raw time t, `n` frame ids innermost first, `depth` deep. */
static const struct ps_wire_hdr *py_sample(uint64_t t, uint32_t tid, uint32_t depth, uint32_t n, const uint32_t *ids)
{
    memset(buf, 0, sizeof buf);
    struct ps_wire_py_sample *w = (void *)buf;
    *w = (struct ps_wire_py_sample){ { (uint32_t)((sizeof *w + 4 * n + 7) & ~7u), PS_WIRE_PY_SAMPLE, 0 }, t, tid,
                                     depth, n, 0 };
    memcpy(w + 1, ids, 4 * n);
    return &w->h;
}

/* Two processes (rings 0 and 1) number the same code locations differently: the trace has one frame row per
 * (file, line, function) and one stack per sequence of frames, whichever process sampled it. Process 4242: main
 * (t.py:9) -> step (t.py:5) -> preprocess (t.py:2), sampled twice on thread 4242 and once, one level up, on
 * thread 4250; process 4243 (its ids 7, 8, 9 for the same three) once at full depth, and once 100 deep, of which the
 * probe sent the innermost 2. Times: stored = 2 * raw. A line of 0 is unknown: NULL. */
static void rows_python_samples_share_frames_and_stacks_across_processes(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_ring_open(rows, 1, PID + 1, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_frame(1, 1, "t.py", 2, "preprocess")) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_frame(1, 2, "t.py", 5, "step")) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_frame(1, 3, "t.py", 9, "main")) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_sample(10, PID, 3, 3, (const uint32_t[]){ 1, 2, 3 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_sample(20, PID, 3, 3, (const uint32_t[]){ 1, 2, 3 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 5, py_sample(20, 4250, 2, 2, (const uint32_t[]){ 2, 3 })) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_frame(2, 9, "t.py", 9, "main")) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_frame(2, 8, "t.py", 5, "step")) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_frame(2, 7, "t.py", 2, "preprocess")) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_frame(2, 6, "<frozen runpy>", 0, "_run_code")) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_sample(30, PID + 1, 3, 3, (const uint32_t[]){ 7, 8, 9 })) == 0);
    CHECK(ps_rows_wire(rows, 1, 0, py_sample(40, PID + 1, 100, 2, (const uint32_t[]){ 7, 6 })) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.invalid == 0 && t.unknown == 0);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_FRAMES") == 4);
    CHECK(q_text_is("SELECT group_concat(id || ':' || file || ':' || coalesce(line, 'NULL') || ':' || function, ' ')"
                    " FROM (SELECT * FROM PERFSCOPE_PYTHON_FRAMES ORDER BY id)",
                    "1:t.py:2:preprocess 2:t.py:5:step 3:t.py:9:main 4:<frozen runpy>:NULL:_run_code"));
    CHECK(q_text_is("SELECT group_concat(stackId || '.' || level || '=' || frameId, ' ') FROM"
                    " (SELECT * FROM PERFSCOPE_PYTHON_STACKS ORDER BY stackId, level)",
                    "1.0=1 1.1=2 1.2=3 2.0=2 2.1=3 3.0=1 3.1=4"));
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_SAMPLES WHERE globalTid >> 48 <> 1") == 0);
    CHECK(q_text_is("SELECT group_concat(timestamp || ':' || (globalTid >> 24 & 16777215) || '/' ||"
                    " (globalTid & 16777215) || ':' || stackId || ':' || depth, ' ')"
                    " FROM (SELECT * FROM PERFSCOPE_PYTHON_SAMPLES ORDER BY rowid)",
                    "20:4242/4242:1:3 40:4242/4242:1:3 40:4242/4250:2:2 60:4243/4243:1:3 80:4243/4243:3:100"));
    /* the docs' query (docs/trace-format.md): the innermost function of each sample, by count */
    CHECK(q_text_is("SELECT group_concat(function || '=' || n, ' ') FROM (SELECT f.function, count(*) AS n"
                    " FROM PERFSCOPE_PYTHON_SAMPLES s JOIN PERFSCOPE_PYTHON_STACKS k ON k.stackId = s.stackId"
                    " AND k.level = 0 JOIN PERFSCOPE_PYTHON_FRAMES f ON f.id = k.frameId GROUP BY f.id"
                    " ORDER BY n DESC, f.function)", "preprocess=4 step=1"));
    unlink(path);
}

/* Python records that are malformed (unknown: their framing fails) or that no probe wrote (invalid: the probe
 * never writes them so, hook_api.c), each counted once and written nowhere. Kept: one frame and one sample. */
static void rows_python_records_no_probe_wrote_are_left_out(void)
{
    const uint64_t after_now = 1ull << 61;
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_frame(1, 1, "a.py", 1, "f")) == 0);
    /* unknown (5): a file longer than the record, a file without its NUL, no function, a sample of 0 frames, one
     * of more frames than a record may carry, one whose frames run past the record */
    struct ps_wire_py_frame *f = (void *)py_frame(1, 2, "a.py", 2, "g");
    f->file_len = 500;
    CHECK(ps_rows_wire(rows, 0, 0, &f->h) == 0);
    f = (void *)py_frame(1, 2, "a.py", 2, "g");
    ((char *)(f + 1))[4] = 'x';
    CHECK(ps_rows_wire(rows, 0, 0, &f->h) == 0);
    f = (void *)py_frame(1, 2, "a.py", 2, "g");
    f->function_len = 0;
    CHECK(ps_rows_wire(rows, 0, 0, &f->h) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, PID, 1, 0, (const uint32_t[]){ 1 })) == 0);
    struct ps_wire_py_sample *w = (void *)py_sample(5, PID, 1, 1, (const uint32_t[]){ 1 });
    w->n = PS_WIRE_PY_STACK_MAX + 1;
    CHECK(ps_rows_wire(rows, 0, 0, &w->h) == 0);
    w = (void *)py_sample(5, PID, 3, 1, (const uint32_t[]){ 1 });
    w->n = 3;
    CHECK(ps_rows_wire(rows, 0, 0, &w->h) == 0);
    /* invalid (7): a frame id 0, a frame defined after now, samples of thread 0, of a thread globalTid cannot
     * hold, shallower than the frames sent, naming a location never defined, taken after now */
    CHECK(ps_rows_wire(rows, 0, 0, py_frame(1, 0, "a.py", 3, "h")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_frame(after_now, 3, "a.py", 3, "h")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, 0, 1, 1, (const uint32_t[]){ 1 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, 1u << 24, 1, 1, (const uint32_t[]){ 1 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, PID, 1, 2, (const uint32_t[]){ 1, 1 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, PID, 2, 2, (const uint32_t[]){ 1, 3 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(after_now, PID, 1, 1, (const uint32_t[]){ 1 })) == 0);
    /* kept */
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(6, PID, 1, 1, (const uint32_t[]){ 1 })) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.unknown == 6 && t.invalid == 7);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_FRAMES") == 1);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_STACKS") == 1);
    CHECK(q_int("SELECT timestamp FROM PERFSCOPE_PYTHON_SAMPLES") == 12);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_SAMPLES") == 1);
    unlink(path);
}

/* Random bytes framed as Python records never become rows: each is left out (invalid) or counted as unknown
 * (as rows_never_store_random_nvtx_records for NVTX records). */
static void rows_never_store_random_python_records(void)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    const int n = 20000;
    open_trace_at(ps_monotonic_ns());
    CHECK(ps_rows_ring_open(rows, 0, PID, ps_identity_clock, NULL) == 0);
    for (int i = 0; i < n; i++) {
        _Alignas(8) unsigned char rec[136];
        for (size_t k = 0; k < sizeof rec; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;      /* xorshift64 */
            rec[k] = (unsigned char)x;
        }
        struct ps_wire_hdr *h = (void *)rec;
        h->size = sizeof rec;
        h->type = i % 2 ? PS_WIRE_PY_SAMPLE : PS_WIRE_PY_FRAME;
        if (i % 2)
            ((struct ps_wire_py_sample *)(void *)rec)->n = 1 + (uint32_t)i % 26;     /* frames that fit */
        rec[sizeof rec - 1] = 0;
        CHECK(ps_rows_wire(rows, 0, 0, h) == 0);
    }
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_SAMPLES") == 0);
    CHECK(q_int("SELECT count(*) FROM PERFSCOPE_PYTHON_FRAMES") == 0);
    CHECK(t.invalid + t.unknown == (uint64_t)n);
    CHECK(t.invalid > 0 && t.unknown > 0);
    unlink(path);
}

/* record --recover: a new ps_rows goes on with the frame rows a dead recorder wrote (restored in id order) and a
 * kept frame record (restored: it writes nothing); a sample naming it gets the old frame row, a new location the
 * next id, a new stack the id after the last one written (even for frames an old stack holds). */
static void rows_python_frames_go_on_after_a_recovery(void)
{
    open_trace();
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_frame(1, 5, "a.py", 1, "f")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(2, PID, 1, 1, (const uint32_t[]){ 5 })) == 0);
    ps_rows_free(rows);
    CHECK(ps_rows_new(tw, 1000, &rows) == 0);
    CHECK(ps_rows_ring_open(rows, 0, PID, test_clock, NULL) == 0);
    CHECK(ps_rows_restore_py_frame(rows, 2, "a.py", 1, "f") == -EINVAL);    /* out of id order */
    CHECK(ps_rows_restore_py_frame(rows, 1, "a.py", 1, "f") == 0);
    CHECK(ps_rows_restore_py_stacks(rows, 1) == 0);
    CHECK(ps_rows_restore_record(rows, 0, 0, py_frame(1, 5, "a.py", 1, "f")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_frame(3, 6, "a.py", 7, "g")) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(4, PID, 1, 1, (const uint32_t[]){ 5 })) == 0);
    CHECK(ps_rows_wire(rows, 0, 0, py_sample(5, PID, 2, 2, (const uint32_t[]){ 6, 5 })) == 0);
    struct ps_rows_totals t;
    close_trace(&t);
    CHECK(t.invalid == 0 && t.unknown == 0);
    CHECK(q_text_is("SELECT group_concat(id || ':' || function, ' ') FROM PERFSCOPE_PYTHON_FRAMES", "1:f 2:g"));
    CHECK(q_text_is("SELECT group_concat(stackId || '.' || level || '=' || frameId, ' ') FROM"
                    " (SELECT * FROM PERFSCOPE_PYTHON_STACKS ORDER BY stackId, level)", "1.0=1 2.0=1 3.0=2 3.1=1"));
    CHECK(q_text_is("SELECT group_concat(stackId, ' ') FROM PERFSCOPE_PYTHON_SAMPLES", "1 2 3"));
    unlink(path);
}

/* /proc/PID/stat with a ')' and spaces inside comm (proc(5): comm is the text between the first '(' and
 * the last ')'). Fields: 3 state, 4 ppid, 14 utime, 15 stime, 20 num_threads, 24 rss. */
static void sampler_parses_stat_with_parens_in_comm(void)
{
    const char *line = "123 (a) b (c)) S 7 123 123 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 5 0 1000 4096 77 "
                       "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
    struct ps_stat st;
    CHECK(ps_sampler_parse_stat(line, &st) == 0);
    CHECK(strcmp(st.comm, "a) b (c)") == 0);
    CHECK(st.state == 'S' && st.ppid == 7 && st.utime_ticks == 250 && st.stime_ticks == 30);
    CHECK(st.num_threads == 5 && st.rss_pages == 77);
    CHECK(ps_sampler_state('D') == 2 && ps_sampler_state('R') == 0 && ps_sampler_state('S') == 1);
    CHECK(ps_sampler_parse_stat("garbage", &st) != 0);
    CHECK(ps_sampler_parse_stat("1 (x) S 2 3", &st) != 0);
}

/* The Unicode Standard, ch. 3, Table 3-8 ("U+FFFD for non-shortest form sequences" and the maximal-subpart
 * example): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 -> a FFFD FFFD FFFD b FFFD c FFFD FFFD d. Plus RFC 3629's
 * invalid forms: an overlong '/' (C0 AF), a surrogate (ED A0 80: three subparts), above U+10FFFF (F4 90 80 80). */
static void rows_replace_invalid_utf8_per_maximal_subpart(void)
{
    static const char in[] = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    static const char want[] = "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd";
    char *got = ps_utf8_dup(in, strlen(in));
    CHECK(got && strcmp(got, want) == 0);
    free(got);
    CHECK(!ps_utf8_valid(in, strlen(in)));
    static const char forms[] = "\xC0\xAF|\xED\xA0\x80|\xF4\x90\x80\x80";
    got = ps_utf8_dup(forms, strlen(forms));
    CHECK(got && strcmp(got, "\uFFFD\uFFFD|\uFFFD\uFFFD\uFFFD|\uFFFD\uFFFD\uFFFD\uFFFD") == 0);
    free(got);
    /* Valid text is kept byte for byte: ASCII, 2-, 3- and 4-byte characters, the largest code point. */
    static const char ok[] = "step Gr\xC3\xB6\xC3\x9F" "e \xE3\x83\x87 \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF";
    CHECK(ps_utf8_valid(ok, strlen(ok)));
    got = ps_utf8_dup(ok, strlen(ok));
    CHECK(got && strcmp(got, ok) == 0);
    free(got);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "rows_push_pop_ranges_become_eventtype_59_with_text",
          .fn = rows_push_pop_ranges_become_eventtype_59_with_text },
        { "rows_registered_strings_resolve_across_lanes", .fn = rows_registered_strings_resolve_across_lanes },
        { "rows_startend_domain_category_and_attributes", .fn = rows_startend_domain_category_and_attributes },
        { "rows_process_rows_count_drops_and_unknown_records",
          .fn = rows_process_rows_count_drops_and_unknown_records },
        { "sampler_parses_stat_with_parens_in_comm", .fn = sampler_parses_stat_with_parens_in_comm },
        { "rows_replace_invalid_utf8_per_maximal_subpart", .fn = rows_replace_invalid_utf8_per_maximal_subpart },
        { "rows_leave_out_records_no_probe_wrote", .fn = rows_leave_out_records_no_probe_wrote },
        { "rows_never_store_random_nvtx_records", .fn = rows_never_store_random_nvtx_records },
        { "rows_python_samples_share_frames_and_stacks_across_processes",
          .fn = rows_python_samples_share_frames_and_stacks_across_processes },
        { "rows_python_records_no_probe_wrote_are_left_out", .fn = rows_python_records_no_probe_wrote_are_left_out },
        { "rows_never_store_random_python_records", .fn = rows_never_store_random_python_records },
        { "rows_python_frames_go_on_after_a_recovery", .fn = rows_python_frames_go_on_after_a_recovery },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}
