/* The NVTX probe tests' harness (see nvtx_harness.h): child runner, ring loading, event lookups, main. */
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

#include "nvtx_harness.h"
#include "ps_env.h"
#include "ps_ring.h"
#include "ps_time.h"

struct truth *T;
char dir[] = "/tmp/ps-nvtx-test-XXXXXX";
int argc_g;
char **argv_g;
const char *session_override;

static void cleanup_dir(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

uint32_t tid_now(void)
{
    return (uint32_t)gettid();
}

/* Run fn in a child under the probe; returns its exit status. `ring_bytes` may be NULL (default). */
int run_child(void (*fn)(void), const char *ring_bytes, int with_session, int stderr_fd)
{
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        setenv(PS_ENV_NVTX_INJECTION, PS_PROBE_PATH, 1);
        if (session_override)
            setenv(PS_ENV_SESSION_DIR, session_override, 1);
        else if (with_session)
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

void run_ok(void (*fn)(void))
{
    int st = run_child(fn, NULL, 1, -1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status %d)", st);
}

/* The only ring of the session, decoded. */
void load_single(struct dump *d)
{
    char paths[4][4096];
    int n = dump_find_rings(dir, paths, 4);
    CHECK(n == 1, "%d ring files in %s, expected 1", n, dir);
    dump_load(paths[0], d);
    CHECK(d->unresolved == 0, "%ld messages without their definition", d->unresolved);
    CHECK(d->first_is_process, "the first record is not PROCESS");
}

struct dump_event **find_all(struct dump *d, uint16_t type, const char *text, int *n)
{
    static struct dump_event *out[256];
    *n = 0;
    for (long i = 0; i < d->nev && *n < 256; i++)
        if (d->ev[i].type == type && (!text || (d->ev[i].text && strcmp(d->ev[i].text, text) == 0)))
            out[(*n)++] = &d->ev[i];
    return out;
}

struct dump_event *find1(struct dump *d, uint16_t type, const char *text)
{
    int n;
    struct dump_event **e = find_all(d, type, text, &n);
    CHECK(n == 1, "%d events of type %u with text \"%s\", expected 1", n, type, text ? text : "(any)");
    return e[0];
}

const struct dump_name *find_name(struct dump *d, uint16_t type, uint32_t domain, uint32_t id)
{
    for (long i = 0; i < d->nnames; i++)
        if (d->names[i].type == type && d->names[i].domain == domain && d->names[i].id == id)
            return &d->names[i];
    return NULL;
}

void check_within(const struct dump_event *e, int64_t ns, int call)
{
    CHECK(ns >= T->before[call] - SLACK_NS && ns <= T->after[call] + SLACK_NS,
          "\"%s\": time %lld outside call %d [%lld, %lld]", e->text ? e->text : "", (long long)ns, call,
          (long long)T->before[call], (long long)T->after[call]);
}


nvtxEventAttributes_t attr_ascii(const char *msg)
{
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = msg;
    return a;
}

int has_range(struct dump *d, const char *text)
{
    for (long i = 0; i < d->nev; i++)
        if (d->ev[i].type == PS_WIRE_NVTX_RANGE && d->ev[i].text && strcmp(d->ev[i].text, text) == 0)
            return 1;
    return 0;
}

static int new_session(void)
{
    T = mmap(NULL, sizeof *T, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(T != MAP_FAILED, "mmap");
    CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    atexit(cleanup_dir);
    unsetenv(PS_ENV_LOG);
    return 0;
}

int nvtx_test_main(int argc, char **argv, const struct test_case *cases, size_t n)
{
    static const struct case_hooks hooks = { .setup = new_session };
    argc_g = argc;
    argv_g = argv;
    return run_cases(cases, n, argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
