/* End-to-end tests of the NVTX probe: a forked child makes real NVTX calls (nvtx3 headers) with
 * NVTX_INJECTION64_PATH naming libperfscope_probe.so, noting what it did in a shared page; the parent
 * then reads the session's ring(s) with ps_ring_reader_* and compares. Usage: test_nvtx CASE. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "nvtx_dump.h"
#include "ps_env.h"
#include "ps_ring.h"
#include "ps_time.h"

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define SLACK_NS 2000               /* TSC -> CLOCK_MONOTONIC conversion error allowed (pairs: tens of ns) */

int nvtx_copy_push_pop(const char *msg);    /* tests/probe/nvtx_copy.c: another NVTX copy */

/* What the child did, written by the child, read by the parent after it exits. */
struct truth {
    int64_t before[32], after[32];  /* CLOCK_MONOTONIC around call i */
    int level[32];
    uint64_t id[8];
    uint32_t tid[8];
    uint32_t pid[4];
    int flag[8];
};
static struct truth *T;
static char dir[] = "/tmp/ps-nvtx-test-XXXXXX";
static int argc_g;
static char **argv_g;

static void cleanup_dir(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static uint32_t tid_now(void)
{
    return (uint32_t)gettid();
}

/* Run fn in a child under the probe; returns its exit status. `ring_bytes` may be NULL (default). */
static int run_child(void (*fn)(void), const char *ring_bytes, int with_session, int stderr_fd)
{
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        setenv(PS_ENV_NVTX_INJECTION, PS_PROBE_PATH, 1);
        if (with_session)
            setenv(PS_ENV_SESSION_DIR, dir, 1);
        else
            unsetenv(PS_ENV_SESSION_DIR);
        if (ring_bytes)
            setenv(PS_ENV_RING_BYTES, ring_bytes, 1);
        if (stderr_fd >= 0)
            dup2(stderr_fd, 2);
        fn();
        _exit(0);                   /* not exit: the parent's atexit cleanup must not run here */
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    T->pid[0] = (uint32_t)pid;
    return st;
}

static void run_ok(void (*fn)(void))
{
    int st = run_child(fn, NULL, 1, -1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status %d)", st);
}

/* The only ring of the session, decoded. */
static void load_single(struct dump *d)
{
    char paths[4][4096];
    int n = dump_find_rings(dir, paths, 4);
    CHECK(n == 1, "%d ring files in %s, expected 1", n, dir);
    dump_load(paths[0], d);
    CHECK(d->unresolved == 0, "%ld messages without their definition", d->unresolved);
    CHECK(d->first_is_process, "the first record is not PROCESS");
}

static struct dump_event **find_all(struct dump *d, uint16_t type, const char *text, int *n)
{
    static struct dump_event *out[256];
    *n = 0;
    for (long i = 0; i < d->nev && *n < 256; i++)
        if (d->ev[i].type == type && (!text || (d->ev[i].text && strcmp(d->ev[i].text, text) == 0)))
            out[(*n)++] = &d->ev[i];
    return out;
}

static struct dump_event *find1(struct dump *d, uint16_t type, const char *text)
{
    int n;
    struct dump_event **e = find_all(d, type, text, &n);
    CHECK(n == 1, "%d events of type %u with text \"%s\", expected 1", n, type, text ? text : "(any)");
    return e[0];
}

static const struct dump_name *find_name(struct dump *d, uint16_t type, uint32_t domain, uint32_t id)
{
    for (long i = 0; i < d->nnames; i++)
        if (d->names[i].type == type && d->names[i].domain == domain && d->names[i].id == id)
            return &d->names[i];
    return NULL;
}

static void check_within(const struct dump_event *e, int64_t ns, int call)
{
    CHECK(ns >= T->before[call] - SLACK_NS && ns <= T->after[call] + SLACK_NS,
          "\"%s\": time %lld outside call %d [%lld, %lld]", e->text ? e->text : "", (long long)ns, call,
          (long long)T->before[call], (long long)T->after[call]);
}

#define AROUND(i, call)                                                         \
    do {                                                                        \
        T->before[i] = ps_monotonic_ns();                                       \
        call;                                                                   \
        T->after[i] = ps_monotonic_ns();                                        \
    } while (0)

static nvtxEventAttributes_t attr_ascii(const char *msg)
{
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = msg;
    return a;
}

/* ---- messages: A, W (non-ASCII), registered, Ex ---- */

static void child_messages(void)
{
    nvtxRangePushA("alpha");
    nvtxRangePop();
    nvtxRangePushW(L"données→π");
    nvtxRangePop();
    nvtxDomainHandle_t d = nvtxDomainCreateA("dom");
    nvtxStringHandle_t s = nvtxDomainRegisterStringA(d, "registered-α");
    nvtxEventAttributes_t a = attr_ascii(NULL);
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = s;
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    a.message.registered = nvtxDomainRegisterStringW(NULL, L"wide-ß");
    nvtxMarkEx(&a);
    nvtxMarkA("mark-a");
    nvtxMarkW(L"mark-ω");
    a = attr_ascii("ex-ascii");
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = L"ex-€";
    nvtxRangePushEx(&a);
    nvtxRangePop();
    nvtxRangeEnd(nvtxRangeStartW(L"start-ü"));
}

/* UTF-8 written out by hand: é = C3 A9, → = E2 86 92, π = CF 80, α = CE B1, ß = C3 9F, ω = CF 89,
 * € = E2 82 AC, ü = C3 BC. */
static void nvtx_decodes_ascii_wide_and_registered_messages(void)
{
    struct dump d;
    run_ok(child_messages);
    load_single(&d);
    find1(&d, PS_WIRE_NVTX_RANGE, "alpha");
    find1(&d, PS_WIRE_NVTX_RANGE, "donn\xc3\xa9" "es\xe2\x86\x92\xcf\x80");
    struct dump_event *r = find1(&d, PS_WIRE_NVTX_RANGE, "registered-\xce\xb1");
    CHECK(r->registered && r->domain != 0, "registered range: registered %d domain %u", r->registered, r->domain);
    const struct dump_name *dn = find_name(&d, PS_WIRE_NVTX_DOMAIN, r->domain, r->domain);
    CHECK(dn && strcmp(dn->text, "dom") == 0, "domain %u not named \"dom\"", r->domain);
    struct dump_event *m = find1(&d, PS_WIRE_NVTX_MARK, "wide-\xc3\x9f");
    CHECK(m->registered && m->domain == 0 && m->start_ns == m->end_ns, "registered mark");
    find1(&d, PS_WIRE_NVTX_MARK, "mark-a");
    find1(&d, PS_WIRE_NVTX_MARK, "mark-\xcf\x89");
    find1(&d, PS_WIRE_NVTX_RANGE, "ex-ascii");
    find1(&d, PS_WIRE_NVTX_RANGE, "ex-\xe2\x82\xac");
    find1(&d, PS_WIRE_NVTX_STARTEND, "start-\xc3\xbc");
    CHECK(d.dropped == 0, "dropped %llu", (unsigned long long)d.dropped);
    dump_free(&d);
}

/* ---- colours, categories, payloads ---- */

static void child_attributes(void)
{
    nvtxEventAttributes_t a = attr_ascii("p-u64");
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;
    a.category = 7;
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = 0x1122334455667788ull;
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = attr_ascii("p-i64");
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = -5;
    nvtxMarkEx(&a);
    a = attr_ascii("p-double");
    a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    a.payload.dValue = 2.5;
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = attr_ascii("p-u32");
    a.payload.ullValue = ~0ull;     /* garbage in the union's upper half must not leak */
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
    a.payload.uiValue = 0xDEADBEEFu;
    nvtxRangeEnd(nvtxRangeStartEx(&a));
    a = attr_ascii("p-i32");
    a.payload.ullValue = ~0ull;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
    a.payload.iValue = -7;
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = attr_ascii("p-float");
    a.payload.ullValue = 0;
    a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
    a.payload.fValue = 1.5f;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0x80123456u;
    nvtxRangePushEx(&a);
    nvtxRangePop();
    nvtxNameCategoryA(7, "io");
    nvtxNameCategoryW(8, L"cómputo");
    nvtxDomainHandle_t d = nvtxDomainCreateA("catdom");
    nvtxDomainNameCategoryA(d, 3, "dcat");
    nvtxDomainNameCategoryW(d, 4, L"dcat-ŵ");
}

static void nvtx_keeps_colors_categories_and_payloads(void)
{
    struct dump d;
    run_ok(child_attributes);
    load_single(&d);
    struct dump_event *e = find1(&d, PS_WIRE_NVTX_RANGE, "p-u64");
    CHECK(e->has_attr && e->attr.flags == (PS_WIRE_ATTR_COLOR | PS_WIRE_ATTR_CATEGORY), "u64 flags %u", e->attr.flags);
    CHECK(e->attr.color == 0xFF00FF00u && e->attr.category == 7, "color %x category %u", e->attr.color, e->attr.category);
    CHECK(e->attr.payload_type == 1 && e->attr.payload == 0x1122334455667788ull, "u64 payload");
    e = find1(&d, PS_WIRE_NVTX_MARK, "p-i64");
    CHECK(e->attr.payload_type == 2 && (int64_t)e->attr.payload == -5 && e->attr.flags == 0, "i64 payload");
    e = find1(&d, PS_WIRE_NVTX_RANGE, "p-double");
    double dv;
    memcpy(&dv, &e->attr.payload, 8);
    CHECK(e->attr.payload_type == 3 && dv == 2.5, "double payload %g", dv);
    e = find1(&d, PS_WIRE_NVTX_STARTEND, "p-u32");
    CHECK(e->attr.payload_type == 4 && e->attr.payload == 0xDEADBEEFull, "u32 payload %llx",
          (unsigned long long)e->attr.payload);
    e = find1(&d, PS_WIRE_NVTX_RANGE, "p-i32");
    CHECK(e->attr.payload_type == 5 && e->attr.payload == 0xFFFFFFF9ull, "i32 payload %llx (-7 in 4 bytes)",
          (unsigned long long)e->attr.payload);
    e = find1(&d, PS_WIRE_NVTX_RANGE, "p-float");
    CHECK(e->attr.payload_type == 6 && e->attr.payload == 0x3FC00000ull, "float payload %llx (1.5f)",
          (unsigned long long)e->attr.payload);
    CHECK(e->attr.flags == PS_WIRE_ATTR_COLOR && e->attr.color == 0x80123456u, "float colour");
    const struct dump_name *n = find_name(&d, PS_WIRE_NVTX_CATEGORY, 0, 7);
    CHECK(n && strcmp(n->text, "io") == 0, "category 7");
    n = find_name(&d, PS_WIRE_NVTX_CATEGORY, 0, 8);
    CHECK(n && strcmp(n->text, "c\xc3\xb3mputo") == 0, "category 8 (wide)");
    uint32_t dom = 0;
    for (long i = 0; i < d.nnames; i++)
        if (d.names[i].type == PS_WIRE_NVTX_DOMAIN && strcmp(d.names[i].text, "catdom") == 0)
            dom = d.names[i].id;
    CHECK(dom != 0, "domain catdom not declared");
    n = find_name(&d, PS_WIRE_NVTX_CATEGORY, dom, 3);
    CHECK(n && strcmp(n->text, "dcat") == 0, "domain category 3");
    n = find_name(&d, PS_WIRE_NVTX_CATEGORY, dom, 4);
    CHECK(n && strcmp(n->text, "dcat-\xc5\xb5") == 0, "domain category 4 (wide)");
    dump_free(&d);
}

/* ---- push/pop nesting, times, domains ---- */

static void child_nesting(void)
{
    AROUND(0, T->level[0] = nvtxRangePushA("outer"));
    AROUND(1, T->level[1] = nvtxRangePushA("middle"));
    AROUND(2, T->level[2] = nvtxRangePushA("inner"));
    usleep(2000);
    AROUND(3, T->level[3] = nvtxRangePop());
    AROUND(4, T->level[4] = nvtxRangePop());
    AROUND(5, T->level[5] = nvtxRangePop());
    nvtxDomainHandle_t d = nvtxDomainCreateA("dom1");
    T->flag[0] = d == nvtxDomainCreateA("dom1");
    nvtxDomainHandle_t dw = nvtxDomainCreateW(L"dom-ω");
    T->flag[1] = dw != d && dw != NULL;
    nvtxEventAttributes_t b = attr_ascii("B");
    AROUND(6, nvtxRangePushA("A"));
    AROUND(7, T->level[7] = nvtxDomainRangePushEx(d, &b));
    AROUND(8, nvtxRangePop());      /* ends A: stacks are per domain */
    AROUND(9, nvtxDomainRangePop(d));
    b = attr_ascii("m");
    nvtxDomainMarkEx(dw, &b);
}

static void nvtx_nests_push_pop_per_domain_with_times(void)
{
    struct dump d;
    run_ok(child_nesting);
    load_single(&d);
    CHECK(T->level[0] == 0 && T->level[1] == 1 && T->level[2] == 2, "push levels %d %d %d", T->level[0],
          T->level[1], T->level[2]);
    CHECK(T->level[3] == 2 && T->level[4] == 1 && T->level[5] == 0, "pop levels %d %d %d", T->level[3],
          T->level[4], T->level[5]);
    CHECK(T->level[7] == 0, "first push of a domain is level %d", T->level[7]);
    CHECK(T->flag[0] && T->flag[1], "DomainCreate of one name gives one handle, other names others");
    static const char *const order[] = {"inner", "middle", "outer"};
    int k = 0;
    for (long i = 0; i < d.nev && k < 3; i++)
        if (d.ev[i].type == PS_WIRE_NVTX_RANGE) {
            CHECK(strcmp(d.ev[i].text, order[k]) == 0, "range %d is %s, expected %s", k, d.ev[i].text, order[k]);
            k++;
        }
    const char *names[3] = {"outer", "middle", "inner"};
    for (int i = 0; i < 3; i++) {
        struct dump_event *e = find1(&d, PS_WIRE_NVTX_RANGE, names[i]);
        check_within(e, e->start_ns, i);
        check_within(e, e->end_ns, 5 - i);
        CHECK(e->tid == (uint32_t)T->pid[0] && e->domain == 0, "tid %u domain %u", e->tid, e->domain);
    }
    struct dump_event *in = find1(&d, PS_WIRE_NVTX_RANGE, "inner");
    CHECK(in->end_ns - in->start_ns >= 2000000, "inner lasted %lld ns, slept 2 ms",
          (long long)(in->end_ns - in->start_ns));
    struct dump_event *a = find1(&d, PS_WIRE_NVTX_RANGE, "A"), *b = find1(&d, PS_WIRE_NVTX_RANGE, "B");
    check_within(a, a->end_ns, 8);
    check_within(b, b->end_ns, 9);
    CHECK(a->domain == 0 && b->domain != 0, "domains A %u B %u", a->domain, b->domain);
    const struct dump_name *n = find_name(&d, PS_WIRE_NVTX_DOMAIN, b->domain, b->domain);
    CHECK(n && strcmp(n->text, "dom1") == 0, "B's domain is not dom1");
    int ndom = 0;
    for (long i = 0; i < d.nnames; i++)
        ndom += d.names[i].type == PS_WIRE_NVTX_DOMAIN && strcmp(d.names[i].text, "dom1") == 0;
    CHECK(ndom == 1, "dom1 declared %d times", ndom);
    struct dump_event *m = find1(&d, PS_WIRE_NVTX_MARK, "m");
    n = find_name(&d, PS_WIRE_NVTX_DOMAIN, m->domain, m->domain);
    CHECK(n && strcmp(n->text, "dom-\xcf\x89") == 0, "mark's domain is not dom-ω");
    dump_free(&d);
}

/* ---- start/end across threads ---- */

static void *ender(void *p)
{
    (void)p;
    T->tid[1] = tid_now();
    AROUND(1, nvtxRangeEnd(T->id[0]));
    return NULL;
}

static void *starter(void *p)
{
    uint64_t *ids = p;
    for (int i = 0; i < 1000; i++)
        ids[i] = nvtxRangeStartA("many");
    for (int i = 0; i < 1000; i++)
        nvtxRangeEnd(ids[i]);
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void child_start_end(void)
{
    pthread_t th[4];
    static uint64_t ids[4][1000];
    T->tid[0] = tid_now();
    AROUND(0, T->id[0] = nvtxRangeStartA("cross"));
    pthread_create(&th[0], NULL, ender, NULL);
    pthread_join(th[0], NULL);
    nvtxDomainHandle_t d = nvtxDomainCreateA("sedom");
    nvtxEventAttributes_t a = attr_ascii("dstart");
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFFABCDEFu;
    T->id[1] = nvtxDomainRangeStartEx(d, &a);
    nvtxDomainRangeEnd(d, T->id[1]);
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, starter, ids[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    uint64_t *all = &ids[0][0];
    qsort(all, 4000, sizeof(uint64_t), cmp_u64);
    T->flag[0] = all[0] != 0;
    for (int i = 1; i < 4000; i++)
        if (all[i] == all[i - 1])
            T->flag[0] = 0;
}

static void nvtx_ends_start_end_ranges_on_other_threads(void)
{
    struct dump d;
    run_ok(child_start_end);
    load_single(&d);
    struct dump_event *e = find1(&d, PS_WIRE_NVTX_STARTEND, "cross");
    CHECK(e->tid == T->tid[0] && e->end_tid == T->tid[1], "tid %u end_tid %u, expected %u %u", e->tid, e->end_tid,
          T->tid[0], T->tid[1]);
    CHECK(e->range_id == T->id[0], "range id %llu, nvtxRangeStartA returned %llu", (unsigned long long)e->range_id,
          (unsigned long long)T->id[0]);
    check_within(e, e->start_ns, 0);
    check_within(e, e->end_ns, 1);
    e = find1(&d, PS_WIRE_NVTX_STARTEND, "dstart");
    CHECK(e->domain != 0 && e->range_id == T->id[1] && e->attr.color == 0xFFABCDEFu, "domain start/end");
    CHECK(T->flag[0], "4 threads x 1000 nvtxRangeStartA gave a repeated or zero id");
    long many = 0;
    for (long i = 0; i < d.nev; i++)
        many += d.ev[i].type == PS_WIRE_NVTX_STARTEND && strcmp(d.ev[i].text, "many") == 0;
    CHECK(many == 4000, "%ld of 4000 start/end ranges recorded", many);
    dump_free(&d);
}

/* ---- unbalanced pops and ends ---- */

static void child_unbalanced(void)
{
    T->level[0] = nvtxRangePop();
    T->level[1] = nvtxRangePop();
    T->level[2] = nvtxRangePop();
    nvtxDomainHandle_t d = nvtxDomainCreateA("ubdom");
    T->level[3] = nvtxDomainRangePop(d);
    nvtxRangeEnd(12345678);
    nvtxRangeId_t id = nvtxRangeStartA("once");
    nvtxRangeEnd(id);
    nvtxRangeEnd(id);
    nvtxRangePushA("ok");
    T->level[4] = nvtxRangePop();
}

static void nvtx_records_unbalanced_pops_and_ends(void)
{
    struct dump d;
    run_ok(child_unbalanced);
    load_single(&d);
    for (int i = 0; i < 4; i++)
        CHECK(T->level[i] < 0, "a pop on an empty stack returned %d", T->level[i]);
    CHECK(T->level[4] == 0, "the balanced pop returned %d", T->level[4]);
    int pops = 0, ends = 0, dom_pops = 0;
    for (long i = 0; i < d.nev; i++) {
        if (d.ev[i].type != PS_WIRE_NVTX_UNBALANCED)
            continue;
        if (d.ev[i].flags & PS_WIRE_UNBALANCED_END)
            ends++;
        else
            pops++, dom_pops += d.ev[i].domain != 0;
    }
    CHECK(pops == 4 && dom_pops == 1, "%d unbalanced pops (%d in a domain), expected 4 (1)", pops, dom_pops);
    CHECK(ends == 2, "%d unbalanced ends (unknown id, second end), expected 2", ends);
    find1(&d, PS_WIRE_NVTX_STARTEND, "once");
    find1(&d, PS_WIRE_NVTX_RANGE, "ok");
    dump_free(&d);
}

/* ---- _exit with a range still open ---- */

static void child_exit_early(void)
{
    for (int i = 0; i < 1000; i++) {
        nvtxRangePushA("closed");
        nvtxRangePop();
    }
    nvtxRangePushA("open");
    nvtxMarkA("last");
    _exit(7);
}

static void nvtx_keeps_closed_ranges_when_program_calls_exit_early(void)
{
    struct dump d;
    int st = run_child(child_exit_early, NULL, 1, -1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exit status %d, expected 7", st);
    load_single(&d);
    int n;
    long closed = 0;
    for (long i = 0; i < d.nev; i++)
        closed += d.ev[i].type == PS_WIRE_NVTX_RANGE && strcmp(d.ev[i].text, "closed") == 0;
    CHECK(closed == 1000, "%ld of 1000 closed ranges", closed);
    find1(&d, PS_WIRE_NVTX_MARK, "last");
    find_all(&d, PS_WIRE_NVTX_RANGE, "open", &n);
    CHECK(n == 0, "the range left open was recorded");
    dump_free(&d);
}

/* ---- fork: the child gets its own ring ---- */

static void child_forks(void)
{
    nvtxDomainHandle_t d = nvtxDomainCreateA("shared-dom");
    nvtxRangePushA("before-fork");
    nvtxRangePop();
    nvtxRangePushA("open-across");
    pid_t pid = fork();
    if (pid == 0) {
        nvtxEventAttributes_t a = attr_ascii("gc-range");
        nvtxDomainRangePushEx(d, &a);
        nvtxDomainRangePop(d);
        nvtxRangePushA("gc-plain");
        nvtxRangePop();
        nvtxRangePop();             /* "open-across" belongs to the parent: unbalanced here */
        _exit(0);
    }
    T->pid[1] = (uint32_t)getpid();
    T->pid[2] = (uint32_t)pid;
    int st;
    waitpid(pid, &st, 0);
    T->flag[0] = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    nvtxRangePop();
    nvtxRangePushA("after-fork");
    nvtxRangePop();
}

static int has_range(struct dump *d, const char *text)
{
    for (long i = 0; i < d->nev; i++)
        if (d->ev[i].type == PS_WIRE_NVTX_RANGE && d->ev[i].text && strcmp(d->ev[i].text, text) == 0)
            return 1;
    return 0;
}

static void nvtx_gives_a_forked_child_its_own_ring(void)
{
    char paths[4][4096];
    struct dump a, b;
    run_ok(child_forks);
    CHECK(T->flag[0], "the forked child failed");
    int n = dump_find_rings(dir, paths, 4);
    CHECK(n == 2, "%d ring files, expected 2 (parent and forked child)", n);
    dump_load(paths[0], &a);
    dump_load(paths[1], &b);
    struct dump *p = a.pid == T->pid[1] ? &a : &b, *c = a.pid == T->pid[1] ? &b : &a;
    CHECK(p->pid == T->pid[1] && c->pid == T->pid[2], "ring pids %u %u, expected %u %u", p->pid, c->pid,
          T->pid[1], T->pid[2]);
    CHECK(p->first_is_process && c->first_is_process && c->nprocess == 1, "PROCESS first in each ring");
    CHECK(c->proc.pid == T->pid[2] && c->proc.ppid == T->pid[1], "child PROCESS pid %u ppid %u", c->proc.pid,
          c->proc.ppid);
    CHECK(has_range(p, "before-fork") && has_range(p, "after-fork") && has_range(p, "open-across"), "parent ranges");
    CHECK(!has_range(p, "gc-range") && !has_range(p, "gc-plain"), "child ranges in the parent's ring");
    CHECK(has_range(c, "gc-range") && has_range(c, "gc-plain"), "child ranges missing");
    CHECK(!has_range(c, "before-fork") && !has_range(c, "open-across"), "parent ranges in the child's ring");
    CHECK(c->unresolved == 0 && p->unresolved == 0, "unresolved messages");
    struct dump_event *g = find1(c, PS_WIRE_NVTX_RANGE, "gc-range");
    const struct dump_name *dn = find_name(c, PS_WIRE_NVTX_DOMAIN, g->domain, g->domain);
    CHECK(dn && strcmp(dn->text, "shared-dom") == 0, "the child's ring does not declare the inherited domain");
    int unb = 0;
    for (long i = 0; i < c->nev; i++)
        unb += c->ev[i].type == PS_WIRE_NVTX_UNBALANCED;
    CHECK(unb == 1, "%d unbalanced pops in the child, expected 1", unb);
    dump_free(&a);
    dump_free(&b);
}

/* ---- PROCESS record, thread names, several NVTX copies ---- */

static void *named_thread(void *p)
{
    (void)p;
    prctl(PR_SET_NAME, "comm-thr");
    T->tid[1] = tid_now();
    nvtxMarkA("from-thread");
    return NULL;
}

static void child_process(void)
{
    pthread_t th;
    setenv("RANK", "3", 1);
    setenv("LOCAL_RANK", "1", 1);
    setenv("WORLD_SIZE", "8", 1);
    T->tid[0] = tid_now();
    nvtxNameOsThreadA(tid_now(), "worker-main");
    nvtxNameOsThreadW(4242, L"wörker");
    T->level[0] = nvtx_copy_push_pop("from-copy");
    T->level[1] = nvtxRangePushA("from-exe");
    nvtxRangePop();
    pthread_create(&th, NULL, named_thread, NULL);
    pthread_join(th, NULL);
}

static void nvtx_writes_process_and_thread_records(void)
{
    struct dump d;
    char exe[4096];
    run_ok(child_process);
    load_single(&d);
    CHECK(d.nprocess == 1, "%ld PROCESS records (two NVTX copies, one process)", d.nprocess);
    CHECK(d.proc.pid == T->pid[0] && d.proc.ppid == (uint32_t)getpid(), "pid %u ppid %u", d.proc.pid, d.proc.ppid);
    CHECK(d.proc.rank == 3 && d.proc.local_rank == 1 && d.proc.world_size == 8, "rank %d local %d world %d",
          d.proc.rank, d.proc.local_rank, d.proc.world_size);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    CHECK(strcmp(d.exe, exe) == 0, "exe %s, expected %s", d.exe, exe);
    size_t want = 0;
    for (int i = 0; i < argc_g; i++)
        want += strlen(argv_g[i]) + 1;
    CHECK(d.proc.argv_len == want && strcmp(d.argv, argv_g[0]) == 0 &&
              strcmp(d.argv + strlen(argv_g[0]) + 1, argv_g[1]) == 0, "argv (%u bytes) differs", d.proc.argv_len);
    CHECK(T->level[0] == 0 && T->level[1] == 0, "levels %d %d", T->level[0], T->level[1]);
    CHECK(has_range(&d, "from-copy") && has_range(&d, "from-exe"), "a copy's ranges are missing");
    int main_named = 0, w = 0, comm = 0;
    for (long i = 0; i < d.nnames; i++) {
        const struct dump_name *x = &d.names[i];
        if (x->type != PS_WIRE_THREAD_NAME)
            continue;
        main_named += x->tid == T->tid[0] && strcmp(x->text, "worker-main") == 0;
        w += x->tid == 4242 && strcmp(x->text, "w\xc3\xb6rker") == 0;
        comm += x->tid == T->tid[1] && strcmp(x->text, "comm-thr") == 0;
    }
    CHECK(main_named == 1 && w == 1 && comm == 1, "thread names: main %d wide %d comm %d", main_named, w, comm);
    dump_free(&d);
}

/* ---- a buffer reused with other text ---- */

static void child_same_pointer(void)
{
    static char buf[64];
    static const char *const texts[] = {"one", "two", "one", "longer-text", "x", "x"};
    for (int i = 0; i < 6; i++) {
        strcpy(buf, texts[i]);
        nvtxRangePushA(buf);
        nvtxRangePop();
    }
}

static void nvtx_follows_new_text_at_a_reused_address(void)
{
    static const char *const texts[] = {"one", "two", "one", "longer-text", "x", "x"};
    struct dump d;
    run_ok(child_same_pointer);
    load_single(&d);
    int k = 0;
    for (long i = 0; i < d.nev; i++) {
        if (d.ev[i].type != PS_WIRE_NVTX_RANGE)
            continue;
        CHECK(k < 6 && strcmp(d.ev[i].text, texts[k]) == 0, "range %d is %s, expected %s", k, d.ev[i].text,
              k < 6 ? texts[k] : "nothing");
        k++;
    }
    CHECK(k == 6, "%d ranges", k);
    dump_free(&d);
}

/* ---- 64 threads x 100k ranges, drained while they run ---- */

enum { STORM_THREADS = 64, STORM_RANGES = 100000 };
static pthread_barrier_t storm_barrier;

static void *storm_thread(void *p)
{
    (void)p;
    pthread_barrier_wait(&storm_barrier);
    for (int i = 0; i < STORM_RANGES; i++) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    return NULL;
}

static void child_storm(void)
{
    pthread_t th[STORM_THREADS];
    nvtxMarkA("storm");             /* makes the ring before the threads start */
    pthread_barrier_init(&storm_barrier, NULL, STORM_THREADS);
    for (int i = 0; i < STORM_THREADS; i++)
        pthread_create(&th[i], NULL, storm_thread, NULL);
    for (int i = 0; i < STORM_THREADS; i++)
        pthread_join(th[i], NULL);
}

struct storm {
    uint32_t tid[STORM_THREADS + 1];
    uint64_t count[STORM_THREADS + 1];
    uint64_t last_end[STORM_THREADS + 1];
    int ntid;
    uint64_t ranges;
};

static int storm_rec(void *p, uint32_t lane, const struct ps_wire_hdr *h)
{
    struct storm *s = p;
    (void)lane;
    if (h->type != PS_WIRE_NVTX_RANGE)
        return 0;
    const struct ps_wire_nvtx *r = (const void *)h;
    int i = 0;
    while (i < s->ntid && s->tid[i] != r->tid)
        i++;
    if (i == s->ntid) {
        CHECK(s->ntid < STORM_THREADS, "more than %d threads wrote ranges", STORM_THREADS);
        s->tid[s->ntid++] = r->tid;
    }
    CHECK(h->size == 40 && (h->flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_LANE, "a plain range is %u bytes", h->size);
    CHECK(r->end_tsc >= r->start_tsc && r->end_tsc >= s->last_end[i], "thread %u: ranges out of order", r->tid);
    s->last_end[i] = r->end_tsc;
    s->count[i]++;
    s->ranges++;
    return 0;
}

static void nvtx_records_64_threads_x_100k_ranges_without_loss(void)
{
    static struct storm s;
    char paths[2][4096];
    struct ps_ring_reader *rd = NULL;
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        setenv(PS_ENV_NVTX_INJECTION, PS_PROBE_PATH, 1);
        setenv(PS_ENV_SESSION_DIR, dir, 1);
        child_storm();
        _exit(0);
    }
    int st = 0, done = 0, drains = 0;
    while (!rd) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        if (dump_find_rings(dir, paths, 2) == 1)
            CHECK(ps_ring_reader_open(paths[0], &rd) == 0, "open %s", paths[0]);
        else if (done)
            CHECK(0, "the child exited (status %d) without a ring", st);
        else
            usleep(1000);
    }
    while (!done) {
        CHECK(ps_ring_reader_drain(rd, storm_rec, &s) >= 0, "drain");
        drains++;
        if (waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        else
            usleep(2000);
    }
    CHECK(ps_ring_reader_drain(rd, storm_rec, &s) >= 0, "drain");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    uint64_t dropped = ps_ring_reader_dropped(rd);
    ps_ring_reader_close(rd);
    fprintf(stderr, "%llu ranges in %d drains, %llu dropped\n", (unsigned long long)s.ranges, drains,
            (unsigned long long)dropped);
    CHECK(dropped == 0, "%llu records dropped with the default ring", (unsigned long long)dropped);
    CHECK(s.ntid == STORM_THREADS, "%d threads", s.ntid);
    for (int i = 0; i < s.ntid; i++)
        CHECK(s.count[i] == STORM_RANGES, "thread %u: %llu ranges", s.tid[i], (unsigned long long)s.count[i]);
}

/* ---- a deliberately tiny ring ---- */

static void child_tiny(void)
{
    for (int i = 0; i < 20000; i++) {
        nvtxRangePushA("t");
        nvtxRangePop();
    }
}

/* 256 KiB holds 47 chunks of 4 KiB (see ring_counts_drops_exactly_when_full), about 4700 ranges of
 * 40 bytes: the rest of the 20000 must be counted as dropped, each exactly once. */
static void nvtx_counts_drops_exactly_with_a_tiny_ring(void)
{
    struct dump d;
    int st = run_child(child_tiny, "262144", 1, -1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    load_single(&d);
    long got = 0;
    for (long i = 0; i < d.nev; i++)
        got += d.ev[i].type == PS_WIRE_NVTX_RANGE && strcmp(d.ev[i].text, "t") == 0;
    CHECK(got > 4000 && got < 4794, "%ld ranges fit, expected 47 x 102 less the first records", got);
    CHECK((uint64_t)got + d.dropped == 20000, "%ld recorded + %llu dropped != 20000 ranges", got,
          (unsigned long long)d.dropped);
    dump_free(&d);
}

/* ---- not under perfscope record: silent no-ops ---- */

static void child_no_session(void)
{
    T->level[0] = nvtxRangePushA("x");
    nvtxRangePop();
    nvtxMarkA("y");
}

static void nvtx_without_session_dir_is_silent(void)
{
    char log[4096];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0, "open %s", log);
    int st = run_child(child_no_session, NULL, 0, fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    struct stat sb;
    CHECK(stat(log, &sb) == 0 && sb.st_size == 0, "the probe wrote %lld bytes to stderr unasked",
          (long long)sb.st_size);
    char paths[1][4096];
    CHECK(dump_find_rings(dir, paths, 1) == 0, "a ring appeared without a session directory");
    CHECK(T->level[0] < 0, "push returned level %d with nothing attached", T->level[0]);
    /* Asked to log to stderr, it says why it records nothing. */
    setenv(PS_ENV_LOG, "stderr", 1);
    st = run_child(child_no_session, NULL, 0, fd);
    unsetenv(PS_ENV_LOG);
    close(fd);
    FILE *f = fopen(log, "r");
    char line[512] = "";
    CHECK(f && fgets(line, sizeof line, f), "nothing logged");
    fclose(f);
    CHECK(strstr(line, PS_ENV_SESSION_DIR), "log line does not name %s: %s", PS_ENV_SESSION_DIR, line);
}

/* ---- exec: same pid, a second ring ---- */

static void child_execs(void)
{
    nvtxRangePushA("pre-exec");
    nvtxRangePop();
    execl("/proc/self/exe", argv_g[0], "--exec-child", (char *)NULL);
    _exit(99);
}

static void nvtx_gives_an_execd_program_a_second_ring(void)
{
    char paths[4][4096];
    struct dump a, b;
    run_ok(child_execs);
    int n = dump_find_rings(dir, paths, 4);
    CHECK(n == 2, "%d ring files, expected 2 (before and after exec)", n);
    dump_load(paths[0], &a);
    dump_load(paths[1], &b);
    CHECK(a.pid == T->pid[0] && b.pid == T->pid[0], "ring pids %u %u, expected both %u", a.pid, b.pid, T->pid[0]);
    struct dump *pre = has_range(&a, "pre-exec") ? &a : &b, *post = pre == &a ? &b : &a;
    CHECK(has_range(pre, "pre-exec") && !has_range(pre, "post-exec"), "first program's ring");
    CHECK(has_range(post, "post-exec") && !has_range(post, "pre-exec"), "exec'd program's ring");
    CHECK(strstr(post->argv + strlen(post->argv) + 1, "--exec-child") != NULL, "exec'd argv not in its PROCESS");
    char want[4096];
    snprintf(want, sizeof want, "%s/" PS_RING_FILE_FMT, dir, T->pid[0], 1u);
    CHECK(strcmp(paths[0], want) == 0 || strcmp(paths[1], want) == 0, "no %s", want);
    dump_free(&a);
    dump_free(&b);
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    {"nvtx_gives_an_execd_program_a_second_ring", nvtx_gives_an_execd_program_a_second_ring},
    {"nvtx_decodes_ascii_wide_and_registered_messages", nvtx_decodes_ascii_wide_and_registered_messages},
    {"nvtx_keeps_colors_categories_and_payloads", nvtx_keeps_colors_categories_and_payloads},
    {"nvtx_nests_push_pop_per_domain_with_times", nvtx_nests_push_pop_per_domain_with_times},
    {"nvtx_ends_start_end_ranges_on_other_threads", nvtx_ends_start_end_ranges_on_other_threads},
    {"nvtx_records_unbalanced_pops_and_ends", nvtx_records_unbalanced_pops_and_ends},
    {"nvtx_keeps_closed_ranges_when_program_calls_exit_early", nvtx_keeps_closed_ranges_when_program_calls_exit_early},
    {"nvtx_gives_a_forked_child_its_own_ring", nvtx_gives_a_forked_child_its_own_ring},
    {"nvtx_writes_process_and_thread_records", nvtx_writes_process_and_thread_records},
    {"nvtx_follows_new_text_at_a_reused_address", nvtx_follows_new_text_at_a_reused_address},
    {"nvtx_records_64_threads_x_100k_ranges_without_loss", nvtx_records_64_threads_x_100k_ranges_without_loss},
    {"nvtx_counts_drops_exactly_with_a_tiny_ring", nvtx_counts_drops_exactly_with_a_tiny_ring},
    {"nvtx_without_session_dir_is_silent", nvtx_without_session_dir_is_silent},
};

int main(int argc, char **argv)
{
    argc_g = argc;
    argv_g = argv;
    if (argc == 2 && strcmp(argv[1], "--exec-child") == 0) {
        nvtxRangePushA("post-exec");    /* the exec'd program of nvtx_gives_an_execd_program_a_second_ring */
        nvtxRangePop();
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        T = mmap(NULL, sizeof *T, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        CHECK(T != MAP_FAILED, "mmap");
        CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
        atexit(cleanup_dir);
        unsetenv(PS_ENV_LOG);
        cases[i].fn();
        return 0;
    }
    fprintf(stderr, "%s: no test case %s\n", argv[0], argv[1]);
    return 2;
}
