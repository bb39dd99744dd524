/* NVTX probe tests, processes and load: fork and exec rings, the PROCESS and THREAD_NAME records, several
 * NVTX copies, message buffers reused, 64 threads x 100k ranges, a tiny ring's drops, no session directory.
 * Usage: test_nvtx_proc CASE (or --exec-child: the program the exec test runs). */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include "nvtx_harness.h"
#include "ps_env.h"
#include "ps_ring.h"

int nvtx_copy_push_pop(const char *msg);    /* tests/probe/nvtx_copy.c: another NVTX copy */

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
    struct ps_ring_drops drops;
    uint64_t dropped = ps_ring_reader_drops(rd, &drops) ? UINT64_MAX : ps_ring_drops_total(&drops);
    ps_ring_reader_close(rd);
    struct stat sb;
    CHECK(stat(paths[0], &sb) == 0, "stat %s", paths[0]);
    fprintf(stderr, "%llu ranges in %d drains, %llu dropped; ring file %lld MiB virtual, %lld MiB allocated\n",
            (unsigned long long)s.ranges, drains, (unsigned long long)dropped, (long long)sb.st_size >> 20,
            (long long)sb.st_blocks * 512 >> 20);
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

/* 768 KiB holds 47 chunks of 4 KiB (see ring_counts_drops_exactly_when_full), about 4700 ranges of
 * 40 bytes: the rest of the 20000 must be counted as dropped, each exactly once. */
static void nvtx_counts_drops_exactly_with_a_tiny_ring(void)
{
    struct dump d;
    int st = run_child(child_tiny, "786432", 1, -1);
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
    /* A session directory that cannot hold a ring, or a ring size too small to be a ring: the program
     * still runs normally and nothing is written to its stderr. */
    session_override = "/nonexistent/perfscope-session";
    st = run_child(child_no_session, NULL, 1, fd);
    session_override = NULL;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d with a missing session directory", st);
    st = run_child(child_no_session, "12", 1, fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d with a 12-byte ring", st);
    st = run_child(child_no_session, "lots", 1, fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d with a bad ring size", st);
    CHECK(stat(log, &sb) == 0 && sb.st_size == 0, "the probe wrote %lld bytes to stderr unasked",
          (long long)sb.st_size);
    CHECK(dump_find_rings(dir, paths, 1) == 1, "a bad PERFSCOPE_RING_BYTES should fall back to the default");
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

static const struct test_case cases[] = {
    { "nvtx_gives_a_forked_child_its_own_ring", .fn = nvtx_gives_a_forked_child_its_own_ring },
    { "nvtx_gives_an_execd_program_a_second_ring", .fn = nvtx_gives_an_execd_program_a_second_ring },
    { "nvtx_writes_process_and_thread_records", .fn = nvtx_writes_process_and_thread_records },
    { "nvtx_follows_new_text_at_a_reused_address", .fn = nvtx_follows_new_text_at_a_reused_address },
    { "nvtx_records_64_threads_x_100k_ranges_without_loss", .fn = nvtx_records_64_threads_x_100k_ranges_without_loss },
    { "nvtx_counts_drops_exactly_with_a_tiny_ring", .fn = nvtx_counts_drops_exactly_with_a_tiny_ring },
    { "nvtx_without_session_dir_is_silent", .fn = nvtx_without_session_dir_is_silent },
};

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--exec-child") == 0) {
        nvtxRangePushA("post-exec");    /* the exec'd program of nvtx_gives_an_execd_program_a_second_ring */
        nvtxRangePop();
        return 0;
    }
    return nvtx_test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
