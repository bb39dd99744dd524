/* Benchmark: what the probe adds to a process's first NVTX call, median over fresh processes:
 * (1) InitializeInjectionNvtx2 alone (dlopen excluded): the window in which NVTX's init state says "in
 * progress", so a fork by another thread leaves the child spinning; (2) the first
 * nvtxMarkA as a program sees it (load the probe, init, the ring, the record); (3) fork + _exit of a
 * child after the parent's first NVTX call (the probe's fork handlers).
 * Usage: bench_first_call [PROBE.so [RUNS]]   (default: the built probe, 200 runs). */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "ps_env.h"
#include "ps_time.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Run `fn` in a fresh child RUNS times; each child writes one ns figure to the pipe. Prints the median. */
static void measure(const char *what, int64_t (*fn)(const char *), const char *probe, int runs)
{
    int64_t *v = calloc((size_t)runs, sizeof *v);
    int n = 0;
    for (int i = 0; v && i < runs; i++) {
        int pfd[2];
        if (pipe(pfd) != 0)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            int64_t ns = fn(probe);
            _exit(write(pfd[1], &ns, sizeof ns) == (ssize_t)sizeof ns ? 0 : 1);
        }
        close(pfd[1]);
        if (pid > 0 && read(pfd[0], &v[n], sizeof v[n]) == (ssize_t)sizeof v[n])
            n++;
        close(pfd[0]);
        waitpid(pid, NULL, 0);
    }
    if (n) {
        qsort(v, (size_t)n, sizeof *v, cmp_i64);
        printf("%-52s median %8.1f us   p90 %8.1f us   (%d processes)\n", what, (double)v[n / 2] / 1e3,
               (double)v[n * 9 / 10] / 1e3, n);
    }
    free(v);
}

static int64_t init_only(const char *probe)
{
    void *h = dlopen(probe, RTLD_NOW);
    int (*init)(void *) = h ? (int (*)(void *))dlsym(h, "InitializeInjectionNvtx2") : NULL;
    if (!init)
        return -1;
    int64_t t0 = ps_monotonic_ns();
    init(NULL);                 /* no export table: the probe starts, then declines this (absent) NVTX copy */
    return ps_monotonic_ns() - t0;
}

static int64_t first_mark(const char *probe)
{
    (void)probe;
    int64_t t0 = ps_monotonic_ns();
    nvtxMarkA("first");
    return ps_monotonic_ns() - t0;
}

static int64_t fork_exit(const char *probe)
{
    (void)probe;
    nvtxMarkA("parent");
    int64_t t0 = ps_monotonic_ns();
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return ps_monotonic_ns() - t0;
}

static void clean(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || strlen(e->d_name) > 2) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    const char *probe = argc > 1 ? argv[1] : PS_PROBE_PATH;
    int runs = argc > 2 ? atoi(argv[2]) : 200;
    char dir[] = "/tmp/bench_first_call.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv(PS_ENV_SESSION_DIR, dir, 1);
    setenv("NVTX_INJECTION64_PATH", probe, 1);
    printf("probe %s\n", probe);
    measure("InitializeInjectionNvtx2 alone (NVTX's init window)", init_only, probe, runs);
    clean(dir);
    measure("first nvtxMarkA (load, init, ring, record)", first_mark, probe, runs);
    clean(dir);
    measure("fork + _exit + waitpid after an NVTX call", fork_exit, probe, runs);
    clean(dir);
    rmdir(dir);
    return 0;
}
