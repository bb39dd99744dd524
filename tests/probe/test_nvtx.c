/* NVTX probe tests, event decoding: A/W/registered messages, colours, categories, payloads, domains,
 * push/pop nesting and times, start/end across threads, unbalanced pops, _exit. Usage: test_nvtx CASE. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include "nvtx_harness.h"

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
    /* ids no start returned, with the bit the probe sets on ranges it could not track */
    nvtxRangeEnd((nvtxRangeId_t)-1);
    nvtxRangeEnd((1ull << 63) | 5);
    /* a range that did not fit the open-range table (65536 slots): its end is no unbalanced end, but the same
     * id with one check bit changed is */
    nvtxRangeId_t untracked = 0;
    for (int i = 0; i < 70000 && !(untracked >> 63); i++)
        untracked = nvtxRangeStartA("fill");
    T->flag[1] = (int)(untracked >> 63);
    nvtxRangeEnd(untracked);
    nvtxRangeEnd(untracked ^ (1ull << 50));
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
    CHECK(T->flag[1], "70000 open start/end ranges all fitted the table");
    CHECK(ends == 5, "%d unbalanced ends (unknown id, second end, -1, 1<<63|5, forged untracked id), expected 5",
          ends);
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

static const struct test_case cases[] = {
    { "nvtx_decodes_ascii_wide_and_registered_messages", .fn = nvtx_decodes_ascii_wide_and_registered_messages },
    { "nvtx_keeps_colors_categories_and_payloads", .fn = nvtx_keeps_colors_categories_and_payloads },
    { "nvtx_nests_push_pop_per_domain_with_times", .fn = nvtx_nests_push_pop_per_domain_with_times },
    { "nvtx_ends_start_end_ranges_on_other_threads", .fn = nvtx_ends_start_end_ranges_on_other_threads },
    { "nvtx_records_unbalanced_pops_and_ends", .fn = nvtx_records_unbalanced_pops_and_ends },
    { "nvtx_keeps_closed_ranges_when_program_calls_exit_early",
      .fn = nvtx_keeps_closed_ranges_when_program_calls_exit_early },
};

int main(int argc, char **argv)
{
    return nvtx_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
