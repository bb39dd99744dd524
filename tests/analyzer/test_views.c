/* Views of the model (model/view.h): which rows a process or starting-time view holds, retimed views, and the
 * one-pass set of process views. Expected rows are listed by hand beside each case (model indices after
 * ps_model_finish sorts each kind by start). Usage: test_views CASE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <unistd.h>

#include "model/view.h"
#include "ps_schema.h"
#include "read/reader.h"
#include "cases.h"
#include "check.h"

static struct ps_model *m;

static void add_api(uint32_t thread, int64_t s, int64_t e, uint64_t corr)
{
    struct ps_api_call c = { .start_ns = s, .end_ns = e, .correlation = corr,
                             .name = ps_model_intern_cstr(m, "cudaLaunchKernel"), .thread = thread };
    if (ps_model_add_api(m, &c) < 0)
        abort();
}

static void add_gpu(uint32_t stream, int64_t s, int64_t e, uint64_t corr)
{
    struct ps_gpu_op op = { .start_ns = s, .end_ns = e, .correlation = corr, .name = ps_model_intern_cstr(m, "k"),
                            .stream = stream, .kind = PS_GPU_KERNEL };
    if (ps_model_add_gpu(m, &op) < 0)
        abort();
}

static void add_range(uint32_t thread, int64_t s, int64_t e, uint8_t kind)
{
    struct ps_range g = { .start_ns = s, .end_ns = e, .name = ps_model_intern_cstr(m, "r"), .thread = thread,
                          .domain = PS_NONE, .kind = kind };
    if (ps_model_add_range(m, &g) < 0)
        abort();
}

/* The view's model indices of one kind, as a string "0,2,5" (empty when none). */
static const char *rows(const struct ps_view *v, int kind)
{
    static char buf[256];
    size_t n = kind == 0 ? v->ngpu : kind == 1 ? v->napi : v->nranges, k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < sizeof buf - 16; i++) {
        uint32_t idx = kind == 0 ? ps_view_gpu_index(v, i) : kind == 1 ? ps_view_api_index(v, i)
                                                                        : ps_view_range_index(v, i);
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%u", i ? "," : "", idx);
    }
    return buf;
}

/* Two processes on their own streams, a device-side range, per-process correlation ids (as nsys / perfscope):
 *   gpu:    0 [0,10) pid 10   1 [5,20) pid 20   2 [30,40) pid 10
 *   api:    0 [0,2) pid 10    1 [3,4) pid 20    2 [25,26) pid 10
 *   ranges: 0 [0,50) pid 10   1 [1,2) device side (gpu_user_annotation)   2 [10,60) pid 20
 * Process 10: gpu 0,2; api 0,2; ranges 0,1 (the device-side one is every process's). Process 20: gpu 1, api 1,
 * ranges 1,2. A launch stays a model index: process 10's GPU op 2 was launched by API call 2. */
static void build_two_processes(int global)
{
    m->correlation_global = global;
    ps_model_process(m, 10);
    ps_model_process(m, 20);
    uint32_t t10 = ps_model_thread(m, 10, 10), t20 = ps_model_thread(m, 20, 21);
    uint32_t s10 = ps_model_stream(m, global ? 0 : 10, 0, 7), s20 = ps_model_stream(m, global ? 0 : 20, 0, 8);
    add_api(t10, 0, 2, 1);
    add_api(t20, 3, 4, global ? 2 : 1);
    add_api(t10, 25, 26, global ? 3 : 2);
    add_gpu(s10, 0, 10, 1);
    add_gpu(s20, 5, 20, global ? 2 : 1);
    add_gpu(s10, 30, 40, global ? 3 : 2);
    add_range(t10, 0, 50, PS_RANGE_NVTX_PUSHPOP);
    add_range(PS_NONE, 1, 2, PS_RANGE_GPU_ANNOTATION);
    add_range(t20, 10, 60, PS_RANGE_NVTX_PUSHPOP);
    if (ps_model_finish(m) < 0)
        abort();
}

static void process_view_holds_its_rows_and_shared_ones(void)
{
    build_two_processes(0);
    struct ps_view all, p10, p20;
    ps_view_all(&all, m);
    CHECK_EQ("process 10", ps_view_process(&p10, &all, 10), 0);
    CHECK_EQ("process 20", ps_view_process(&p20, &all, 20), 0);
    CHECK_STR("p10 gpu", rows(&p10, 0), "0,2");
    CHECK_STR("p10 api", rows(&p10, 1), "0,2");
    CHECK_STR("p10 ranges", rows(&p10, 2), "0,1");
    CHECK_STR("p20 gpu", rows(&p20, 0), "1");
    CHECK_STR("p20 api", rows(&p20, 1), "1");
    CHECK_STR("p20 ranges", rows(&p20, 2), "1,2");
    CHECK_EQ("p10 pid", p10.pid, 10);
    struct ps_gpu_op op = ps_view_gpu(&p10, 1);
    CHECK_EQ("launch is a model index", op.launch, 2);
    CHECK_EQ("view index of that call", ps_view_find_api(&p10, op.launch), 1);
    CHECK_EQ("a call the view lacks", ps_view_find_api(&p10, 1), PS_NONE);
    CHECK_EQ("first op at or after 1 ns", ps_view_gpu_lower_bound(&p10, 1), 1);
    struct ps_view none;
    CHECK_EQ("no such process", ps_view_process(&none, &all, 99), 0);
    CHECK_STR("empty view gpu", rows(&none, 0), "");
    CHECK_STR("empty view keeps device-side ranges", rows(&none, 2), "1");
    ps_view_fini(&none);
    ps_view_fini(&p10);
    ps_view_fini(&p20);
}

/* Kineto: correlation ids are file-global and streams carry no process, so every GPU op is in both views;
 * API calls and host ranges stay each process's own. */
static void global_correlation_shares_gpu_ops(void)
{
    build_two_processes(1);
    struct ps_view all, p20;
    ps_view_all(&all, m);
    CHECK_EQ("process 20", ps_view_process(&p20, &all, 20), 0);
    CHECK_STR("p20 gpu", rows(&p20, 0), "0,1,2");
    CHECK_STR("p20 api", rows(&p20, 1), "1");
    CHECK(p20.gpu == NULL, "all GPU ops kept: no selection array");
    ps_view_fini(&p20);
}

/* One process holding every row: the view is the model's arrays, nothing allocated. */
static void single_process_view_allocates_nothing(void)
{
    uint32_t t = ps_model_thread(m, 5, 5), s = ps_model_stream(m, 5, 0, 7);
    add_api(t, 0, 2, 1);
    add_gpu(s, 3, 9, 1);
    add_range(t, 0, 10, PS_RANGE_NVTX_PUSHPOP);
    if (ps_model_finish(m) < 0)
        abort();
    struct ps_view all, p;
    ps_view_all(&all, m);
    CHECK_EQ("process 5", ps_view_process(&p, &all, 5), 0);
    CHECK(p.gpu == NULL && p.api == NULL && p.ranges == NULL, "selections allocated for a whole-model view");
    CHECK_EQ("rows", p.ngpu + p.napi + p.nranges, 3);
    ps_view_fini(&p);
}

/* Retiming: every time doubled; model indices hold, the model keeps its times, and an op that grows past
 * 2^32 - 1 ns gets its own long-duration row with the exact end. */
static void double_times(void *ctx, int64_t *s, int64_t *e)
{
    (void)ctx;
    *s *= 2;
    *e *= 2;
}

static void retimed_view_keeps_indices(void)
{
    uint32_t t = ps_model_thread(m, 1, 1), s = ps_model_stream(m, 1, 0, 7);
    add_api(t, 10, 12, 1);
    add_gpu(s, 20, 30, 1);
    add_gpu(s, 40, 40 + 3000000000ll, 2);   /* 3 s: 6 s once doubled, past 32 bits */
    add_range(t, 0, 100, PS_RANGE_NVTX_PUSHPOP);
    if (ps_model_finish(m) < 0)
        abort();
    struct ps_view v;
    ps_view_all(&v, m);
    CHECK_EQ("retime", ps_view_retime(&v, double_times, NULL), 0);
    struct ps_gpu_op a = ps_view_gpu(&v, 0), b = ps_view_gpu(&v, 1);
    CHECK_EQ("op 0 start", a.start_ns, 40);
    CHECK_EQ("op 0 end", a.end_ns, 60);
    CHECK_EQ("op 1 end", b.end_ns, 80 + 6000000000ll);
    CHECK_EQ("op 0 launch", a.launch, 0);
    CHECK_EQ("call at model index 0", ps_view_api_at(&v, 0)->start_ns, 20);
    CHECK_EQ("range", ps_view_range(&v, 0)->end_ns, 200);
    CHECK_EQ("model op 1 end unchanged", ps_model_gpu(m, 1).end_ns, 40 + 3000000000ll);
    CHECK_EQ("model call unchanged", m->api.v[0].start_ns, 10);
    CHECK_EQ("retimed twice", ps_view_retime(&v, double_times, NULL), -EINVAL);
    ps_view_fini(&v);
}

/* The one-pass set equals ps_view_process for every process, on a model of 7 processes whose rows interleave
 * (row i belongs to process i % 7, some processes have no rows of a kind), plus device-side ranges. */
static void view_set_equals_process_views(void)
{
    uint32_t pids[] = { 3, 4, 5, 6, 7, 8, 9 }, th[7], st[7];
    for (int p = 0; p < 7; p++) {
        th[p] = ps_model_thread(m, pids[p], pids[p]);
        st[p] = ps_model_stream(m, pids[p], 0, 7);
    }
    for (int i = 0; i < 200; i++) {
        add_api(th[i % 7], i * 3, i * 3 + 1, (uint64_t)i + 1);
        if (i % 7 != 4)
            add_gpu(st[i % 7], i * 3 + 1, i * 3 + 2, (uint64_t)i + 1);
        add_range(i % 5 == 0 ? PS_NONE : th[(i * 3) % 7], i, i + 5,
                  i % 5 == 0 ? PS_RANGE_GPU_ANNOTATION : PS_RANGE_NVTX_PUSHPOP);
    }
    if (ps_model_finish(m) < 0)
        abort();
    struct ps_view all;
    struct ps_view_set set;
    ps_view_all(&all, m);
    uint32_t want[] = { 3, 5, 7, 9 };   /* a subset: the others' rows go nowhere */
    CHECK_EQ("set", ps_view_set_by_process(&set, &all, want, 4), 0);
    CHECK_EQ("views", set.n, 4);
    for (size_t p = 0; p < set.n; p++) {
        struct ps_view one;
        char a[3][256];
        CHECK_EQ("process view", ps_view_process(&one, &all, want[p]), 0);
        for (int k = 0; k < 3; k++) {
            snprintf(a[k], sizeof a[k], "%s", rows(&one, k));
            CHECK(!strcmp(a[k], rows(&set.views[p], k)), "pid %u kind %d: set %s, alone %s", want[p], k,
                  rows(&set.views[p], k), a[k]);
        }
        CHECK_EQ("pid", set.views[p].pid, want[p]);
        ps_view_fini(&one);
    }
    CHECK_EQ("process 7 has no GPU op", set.views[2].ngpu, 0);
    ps_view_set_fini(&set);
}

/* Through the reader: a perfscope trace (the collector's schema) whose PERFSCOPE_PROCESS_INFO gives pid 10 rank 0,
 * pid 11 rank 1 and pid 12 no rank (NULL), each with one NVTX range. Each process gets its rank (pid 12: -1), and
 * pid 11's process view holds its range only. */
#define GT(pid, tid) "((1<<48)|(" #pid "<<24)|" #tid ")"
static void process_ranks_of_a_recorded_trace(void)
{
    char path[] = "/tmp/ps-test-views-XXXXXX";
    int fd = mkstemp(path);
    sqlite3 *db = NULL;
    char *msg = NULL;
    if (fd < 0 || sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, ps_schema_sql, NULL, NULL, &msg) ||
        sqlite3_exec(db,
                     "INSERT INTO PERFSCOPE_META VALUES ('schema_version', '1');"
                     "INSERT INTO PERFSCOPE_PROCESS_INFO(globalPid, pid, rank, rings, droppedRecords, unbalancedNvtx,"
                     " unknownRecords, cudaInjected) VALUES (1, 10, 0, 1, 0, 0, 0, 0), (2, 11, 1, 1, 0, 0, 0, 0),"
                     " (3, 12, NULL, 1, 0, 0, 0, 0);"
                     "INSERT INTO NVTX_EVENTS(start, \"end\", eventType, text, globalTid) VALUES"
                     " (0, 10, 59, 'a', " GT(10, 10) "), (5, 15, 59, 'b', " GT(11, 11) "), (7, 9, 59, 'c', " GT(12, 12) ");",
                     NULL, NULL, &msg)) {
        fprintf(stderr, "building %s: %s\n", path, msg ? msg : "open failed");
        exit(1);
    }
    sqlite3_close(db);
    close(fd);
    struct ps_model *t = NULL;
    char err[256];
    int rc = ps_read_trace(path, &t, err, sizeof err);
    unlink(path);
    CHECK(rc == 0, "read: %s", err);
    if (rc)
        return;
    if (ps_model_finish(t) < 0)
        abort();
    struct ps_view all, p11;
    ps_view_all(&all, t);
    CHECK_EQ("process 11 view", ps_view_process(&p11, &all, 11), 0);
    CHECK_EQ("process 11 ranges", p11.nranges, 1);
    if (p11.nranges == 1)
        CHECK_STR("process 11 range", ps_model_str(t, ps_view_range(&p11, 0)->name), "b");
    for (size_t i = 0; i < t->procs.n; i++) {
        const struct ps_process *p = &t->procs.v[i];
        CHECK_EQ("process rank", p->rank, p->pid == 10 ? 0 : p->pid == 11 ? 1 : -1);
    }
    ps_view_fini(&p11);
    ps_model_free(t);
}

/* Rows STARTING in the slice (ps_view_starting), over build_two_processes(0):
 *   gpu starts 0, 5, 30; api starts 0, 3, 25; ranges start 0, 1, 10. Launches: gpu 0 -> api 0, 1 -> 1, 2 -> 2.
 *   [3, 30): gpu 1 (5); api 1, 2 (3, 25); ranges 2 (10). gpu 1's launch, api 1, starts inside: kept.
 *   [4, 100): gpu 1, 2; api 2; ranges 2. gpu 1's launch (api 1 at 3) starts before: read as none, correlation 0;
 *   gpu 2's launch is api 2 (view index 0). [5, 5) holds nothing (a row at 5 does not start before 5). */
static void starting_view_holds_rows_starting_inside(void)
{
    build_two_processes(0);
    struct ps_view all, a, b, e, bad;
    ps_view_all(&all, m);
    CHECK_EQ("[3, 30)", ps_view_starting(&a, &all, 3, 30), 0);
    CHECK_STR("[3, 30) gpu", rows(&a, 0), "1");
    CHECK_STR("[3, 30) api", rows(&a, 1), "1,2");
    CHECK_STR("[3, 30) ranges", rows(&a, 2), "2");
    CHECK_EQ("[3, 30) launch of gpu 1 kept", ps_view_gpu(&a, 0).launch, 1);
    CHECK_EQ("[3, 30) start", a.start_ns, 3);
    CHECK_EQ("[3, 30) end", a.end_ns, 30);
    CHECK_EQ("[4, 100)", ps_view_starting(&b, &all, 4, 100), 0);
    CHECK_STR("[4, 100) gpu", rows(&b, 0), "1,2");
    CHECK_STR("[4, 100) api", rows(&b, 1), "2");
    CHECK_STR("[4, 100) ranges", rows(&b, 2), "2");
    struct ps_gpu_op op1 = ps_view_gpu(&b, 0), op2 = ps_view_gpu(&b, 1);
    CHECK_EQ("launch before the slice: none", op1.launch, PS_NONE);
    CHECK_EQ("its correlation", op1.correlation, 0);
    CHECK_EQ("launch inside", op2.launch, 2);
    CHECK_EQ("its correlation", op2.correlation, 2);
    CHECK_EQ("view index of api 2", ps_view_find_api(&b, 2), 0);
    CHECK_EQ("api 1 not in the slice", ps_view_find_api(&b, 1), PS_NONE);
    CHECK_EQ("api 0 not in the slice", ps_view_find_api(&b, 0), PS_NONE);
    CHECK_EQ("first op at or after 6", ps_view_gpu_lower_bound(&b, 6), 1);
    CHECK_EQ("[5, 5)", ps_view_starting(&e, &all, 5, 5), 0);
    CHECK_EQ("[5, 5) rows", e.ngpu + e.napi + e.nranges, 0);
    CHECK_EQ("[5, 5) lower bound", ps_view_gpu_lower_bound(&e, 0), 0);
    CHECK_EQ("end before start", ps_view_starting(&bad, &all, 30, 3), -EINVAL);
    struct ps_view every;
    CHECK_EQ("[first start, end)", ps_view_starting(&every, &all, 0, INT64_MAX), 0);
    CHECK(every.gpu == NULL && every.api == NULL && every.ranges == NULL, "a slice keeping every row allocates");
    CHECK_EQ("every launch kept", ps_view_gpu(&every, 0).launch, 0);
    ps_view_fini(&bad);   /* nothing to free: fine */
    ps_view_fini(&a);
    ps_view_fini(&b);
    ps_view_fini(&e);
}

/* Slices compose with process views and with each other:
 *   process 10 (gpu 0,2; api 0,2; ranges 0,1) sliced [1, 100): gpu 2, api 2, ranges 1 — its own copy of the
 *   indices (the process view has a selection), the same rows as process 10 of the slice [1, 100);
 *   [4, 100) sliced again [20, 100): gpu 2, api 2, no range, gpu 2's launch kept;
 *   one-pass process views of the slice [4, 100) equal ps_view_process of it (pid 10: gpu 2, api 2, ranges none;
 *   pid 20: gpu 1, api none, ranges 2). A copy outlives the view it was made from. */
static void starting_view_composes_with_process_views(void)
{
    build_two_processes(0);
    struct ps_view all, p10, p10s, s1, s1p10, s4, s4s20, cp, cp_all, rt;
    ps_view_all(&all, m);
    CHECK_EQ("process 10", ps_view_process(&p10, &all, 10), 0);
    CHECK_EQ("its slice", ps_view_starting(&p10s, &p10, 1, 100), 0);
    CHECK_STR("p10 slice gpu", rows(&p10s, 0), "2");
    CHECK_STR("p10 slice api", rows(&p10s, 1), "2");
    CHECK_STR("p10 slice ranges", rows(&p10s, 2), "1");
    CHECK(p10s.gpu && p10s.gpu != p10.gpu, "the slice owns its indices");
    CHECK_EQ("slice", ps_view_starting(&s1, &all, 1, 100), 0);
    CHECK_EQ("process 10 of it", ps_view_process(&s1p10, &s1, 10), 0);
    for (int k = 0; k < 3; k++) {
        char sliced_process[256];
        snprintf(sliced_process, sizeof sliced_process, "%s", rows(&p10s, k));
        CHECK_STR("same rows either way", rows(&s1p10, k), sliced_process);
    }
    CHECK_EQ("[4, 100)", ps_view_starting(&s4, &all, 4, 100), 0);
    CHECK_EQ("[20, 100) of it", ps_view_starting(&s4s20, &s4, 20, 100), 0);
    CHECK_STR("slice of slice gpu", rows(&s4s20, 0), "2");
    CHECK_STR("slice of slice api", rows(&s4s20, 1), "2");
    CHECK_STR("slice of slice ranges", rows(&s4s20, 2), "");
    CHECK_EQ("launch kept", ps_view_gpu(&s4s20, 0).launch, 2);
    CHECK_EQ("window start", s4s20.start_ns, 20);
    struct ps_view_set set;
    const uint32_t pids[2] = { 10, 20 };
    CHECK_EQ("set of the slice", ps_view_set_by_process(&set, &s4, pids, 2), 0);
    const char *want[2][3] = { { "2", "2", "" }, { "1", "", "2" } };
    for (size_t p = 0; p < 2; p++) {
        struct ps_view one;
        CHECK_EQ("process view of the slice", ps_view_process(&one, &s4, pids[p]), 0);
        for (int k = 0; k < 3; k++) {
            char got[256];
            snprintf(got, sizeof got, "%s", rows(&set.views[p], k));
            CHECK_STR("set view", got, want[p][k]);
            CHECK_STR("process view", rows(&one, k), want[p][k]);
        }
        ps_view_fini(&one);
    }
    ps_view_set_fini(&set);
    CHECK_EQ("copy", ps_view_copy(&cp, &p10s), 0);
    ps_view_fini(&p10s);
    CHECK_STR("the copy keeps the rows", rows(&cp, 0), "2");
    CHECK_STR("the copy keeps the ranges", rows(&cp, 2), "1");
    CHECK_EQ("copy of the whole model", ps_view_copy(&cp_all, &all), 0);
    CHECK(cp_all.gpu == NULL && cp_all.owned[0] == NULL, "copying no selection allocates nothing");
    ps_view_all(&rt, m);
    CHECK_EQ("retime", ps_view_retime(&rt, double_times, NULL), 0);
    struct ps_view cp_rt;
    CHECK_EQ("a retimed view is not copied", ps_view_copy(&cp_rt, &rt), -EINVAL);
    ps_view_fini(&rt);
    ps_view_fini(&cp);
    ps_view_fini(&cp_all);
    ps_view_fini(&s4s20);
    ps_view_fini(&s4);
    ps_view_fini(&s1p10);
    ps_view_fini(&s1);
    ps_view_fini(&p10);
}

static int new_model(void)
{
    m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    return m ? 0 : 1;
}

static void free_model(void)
{
    ps_model_free(m);
    m = NULL;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "process_view_holds_its_rows_and_shared_ones", .fn = process_view_holds_its_rows_and_shared_ones },
        { "global_correlation_shares_gpu_ops", .fn = global_correlation_shares_gpu_ops },
        { "single_process_view_allocates_nothing", .fn = single_process_view_allocates_nothing },
        { "retimed_view_keeps_indices", .fn = retimed_view_keeps_indices },
        { "view_set_equals_process_views", .fn = view_set_equals_process_views },
        { "process_ranks_of_a_recorded_trace", .fn = process_ranks_of_a_recorded_trace },
        { "starting_view_holds_rows_starting_inside", .fn = starting_view_holds_rows_starting_inside },
        { "starting_view_composes_with_process_views", .fn = starting_view_composes_with_process_views },
    };
    static const struct case_hooks hooks = { .setup = new_model, .teardown = free_model };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
