/* Programs that do what real programs do and a probe must survive: close every descriptor
 * (daemons, launchers), set a file-size limit (batch systems), emit bytes that are not UTF-8.
 * Run by tests/collector/hostile_tests.sh under `perfscope record`; each mode says what it did. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "ps_ring_layout.h"

static void ranges(const char *msg, long n)
{
    for (long i = 0; i < n; i++) {
        nvtxRangePushA(msg);
        nvtxRangePop();
    }
}

/* closefds FILE N: one range "start" (the probe makes its ring), close every descriptor from 3 up, open FILE
 * (it gets the lowest number, the ring's old one), write "hello\n" (6 bytes), then N ranges "r" with FILE
 * still open. A probe that kept the ring's descriptor extends FILE with zeros. */
static int closefds(const char *file, long n)
{
    ranges("start", 1);
    struct rlimit l;
    int max = getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur < 65536 ? (int)l.rlim_cur : 65536;
    for (int fd = 3; fd < max; fd++)
        close(fd);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "hello\n", 6) != 6)
        return 1;
    ranges("r", n);
    return close(fd) != 0;
}

/* dup2 FILE N: stdin closed before the first NVTX call (so the ring's descriptor would be 0), then FILE
 * opened and moved onto 0 with dup2 (a stdin redirect), "hello\n" written through 0, then N ranges "r". */
static int dup2_stdin(const char *file, long n)
{
    close(0);
    ranges("start", 1);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (fd != 0 && (dup2(fd, 0) != 0 || close(fd) != 0)) || write(0, "hello\n", 6) != 6)
        return 1;
    ranges("r", n);
    return 0;
}

/* fsize BYTES N: set RLIMIT_FSIZE's soft limit to BYTES (-1: unlimited) before the first NVTX call, make N
 * ranges "f", print "survived". */
static int fsize(long bytes, long n)
{
    struct rlimit l;
    if (getrlimit(RLIMIT_FSIZE, &l) != 0)
        return 1;
    l.rlim_cur = bytes < 0 ? l.rlim_max : (rlim_t)bytes;
    if (setrlimit(RLIMIT_FSIZE, &l) != 0)
        return 1;
    ranges("f", n);
    puts("survived");
    return 0;
}

/* Wait until `file` exists: the test creates it once it has seen what it waits for (no clock decides). */
static void wait_for_file(const char *file)
{
    while (access(file, F_OK) != 0)
        usleep(10000);
}

/* A thread that names itself "w-データローダー" (23 bytes): Linux keeps 15, cutting the second ー (E3 83 BC)
 * after its first byte; it makes no NVTX call, so only the sampler names it: it lives until the file arg
 * exists (the test creates it once the trace holds the name). */
static void *cut_name(void *arg)
{
    prctl(PR_SET_NAME, "w-\xE3\x83\x87\xE3\x83\xBC\xE3\x82\xBF\xE3\x83\xAD\xE3\x83\xBC\xE3\x83\x80\xE3\x83\xBC");
    wait_for_file(arg);
    return NULL;
}

/* badutf8 FILE [ARG]: bytes that are not UTF-8 everywhere NVTX takes text: the main thread's NVTX name "bad\xFF\xFE
 * name", a domain "dom\xFF", a registered string "reg\xC3(" (pushed in that domain), a category
 * "cat\xED\xA0\x80" (an encoded surrogate), a pushed range "msg\xFF\xFE\xC3(" and a valid mark "ok \xC3\xA9";
 * a second thread's OS name cut mid-character (cut_name, until FILE exists); ARG (the test passes one with a
 * bad byte) is in the command line. */
static int badutf8(const char *file)
{
    pthread_t th;
    if (pthread_create(&th, NULL, cut_name, (void *)file) != 0)
        return 1;
    nvtxNameOsThreadA((uint32_t)gettid(), "bad\xFF\xFE name");
    nvtxDomainHandle_t d = nvtxDomainCreateA("dom\xFF");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "reg\xC3(");
    nvtxDomainNameCategoryA(d, 7, "cat\xED\xA0\x80");
    nvtxEventAttributes_t a = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                .messageType = NVTX_MESSAGE_TYPE_REGISTERED, .message.registered = reg };
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    ranges("msg\xFF\xFE\xC3(", 1);
    nvtxMarkA("ok \xC3\xA9");
    return pthread_join(th, NULL) != 0;
}

/* forkexec N: one mark "go", then N children that exec /bin/true and one that _exits, one at a time (a
 * launcher; a DataLoader worker that dies at once). None of the children makes an NVTX call. */
static int forkexec(int n)
{
    nvtxMarkA("go");
    for (int i = 0; i <= n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            if (i < n)
                execl("/bin/true", "true", (char *)NULL);
            _exit(0);
        }
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    return 0;
}

/* deep N: N nested pushes "d", then N pops: the probe keeps 65536 levels, the rest are dropped. */
static int deep(long n)
{
    for (long i = 0; i < n; i++)
        nvtxRangePushA("d");
    for (long i = 0; i < n; i++)
        nvtxRangePop();
    return 0;
}

/* background FILE: a child that outlives this program: it makes a mark "bg" (so it has a ring), tells the
 * parent, which then exits at once, and makes another mark "late" once FILE exists (the test creates it after
 * `record` has written the trace). Prints the child's pid. */
static int background(const char *file)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        nvtxMarkA("bg");
        close(pfd[1]);
        wait_for_file(file);
        nvtxMarkA("late");
        _exit(0);
    }
    close(pfd[1]);
    char c;
    if (pid < 0 || read(pfd[0], &c, 1) != 0)    /* EOF: the child made its mark */
        return 1;
    printf("%d\n", (int)pid);
    return 0;
}

/* registry N: N domains "domI", each with a registered string "sI" and a category I named "cI", then all
 * of them asked for again: exit 3 unless each name gives back its first handle. Then one push/pop of each
 * registered string in its domain. (Past the registries' first resizes: 64 slots, at most half full.) */
static int registry(int n)
{
    nvtxDomainHandle_t *d = calloc((size_t)n, sizeof *d);
    nvtxStringHandle_t *s = calloc((size_t)n, sizeof *s);
    char name[32];
    if (!d || !s)
        return 1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            snprintf(name, sizeof name, "dom%d", i);
            nvtxDomainHandle_t dh = nvtxDomainCreateA(name);
            snprintf(name, sizeof name, "s%d", i);
            nvtxStringHandle_t sh = nvtxDomainRegisterStringA(dh, name);
            if (pass && (dh != d[i] || sh != s[i]))
                return 3;
            d[i] = dh;
            s[i] = sh;
            snprintf(name, sizeof name, "c%d", i);
            if (!pass)
                nvtxDomainNameCategoryA(dh, (uint32_t)i, name);
        }
    for (int i = 0; i < n; i++) {
        nvtxEventAttributes_t a = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                    .messageType = NVTX_MESSAGE_TYPE_REGISTERED, .message.registered = s[i] };
        nvtxDomainRangePushEx(d[i], &a);
        nvtxDomainRangePop(d[i]);
    }
    free(d);
    free(s);
    return 0;
}

/* xfsz_disposition: exit 0 when SIGXFSZ has its default action (kill), 3 when it is ignored or caught. */
static int xfsz_disposition(void)
{
    struct sigaction sa;
    if (sigaction(SIGXFSZ, NULL, &sa) != 0)
        return 1;
    return sa.sa_handler == SIG_DFL ? 0 : 3;
}

/* The start of this process's ring mapping (its path holds "/ring-" and ends in ".ps"), or NULL; its file's path
 * into path[0..cap). */
static char *own_ring(char *path, size_t cap)
{
    FILE *f = fopen("/proc/self/maps", "re");
    char line[4096];
    char *base = NULL;
    while (f && !base && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line);
        char *slash = strchr(line, '/');
        if (slash && strstr(line, "/ring-") && n > 3 && !strcmp(line + n - 3, ".ps")) {
            base = (char *)(uintptr_t)strtoull(line, NULL, 16);
            snprintf(path, cap, "%s", slash);
        }
    }
    if (f)
        fclose(f);
    return base;
}

/* A forked child (*kid) makes n ranges "sibling" in its own ring while this process makes 3000 ranges "before" and
 * waits until the recorder has opened its ring and handed a drained chunk back (3000 records fill more than one
 * chunk), so what is done to the ring next hits a ring the recorder reads. Returns the ring's header (its file's
 * path in path[0..cap)), NULL on failure. */
static struct ps_ring_hdr *ring_being_read(long n, pid_t *kid, char *path, size_t cap)
{
    *kid = fork();
    if (*kid == 0) {
        ranges("sibling", n);
        _exit(0);
    }
    ranges("before", 3000);
    struct ps_ring_hdr *h = (struct ps_ring_hdr *)(void *)own_ring(path, cap);
    if (!h || *kid < 0)
        return NULL;
    while (!(uint32_t)atomic_load(&h->free_head))
        usleep(1000);
    return h;
}

static int child_succeeded(pid_t kid)
{
    int st;
    return waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* scribble header|counts|onebyte|chunk N: a forked child makes N ranges "sibling" in its own ring (untouched) while
 * this process makes 3000 ranges "before", waits for the recorder to free a drained chunk, and overwrites
 * part of its own ring as a stray pointer would: `header` the geometry (chunk count and offset, lane count:
 * a reader that re-reads them reads 1 TiB past the mapping), `counts` every used lane's drop counts with
 * 41799811430613058, `onebyte` one byte of lane 0's drop count (bit 43); then 100 ranges "after"; `chunk` then
 * sets the committed offset of its lane's current chunk to 0xfffffff8 (after the last commit, which would set it right again). Waits for the child; exit 0. */
static int scribble(const char *what, long n)
{
    pid_t kid;
    char path[4096];
    struct ps_ring_hdr *h = ring_being_read(n, &kid, path, sizeof path);
    if (!h)
        return 1;
    struct ps_ring_lane *lanes = (struct ps_ring_lane *)(void *)((char *)h + h->lanes_off);
    if (!strcmp(what, "header")) {
        h->nchunks = 0xffffffffu;
        h->chunks_off = 1ull << 40;
        h->nlanes = 0xffffffffu;
        h->open_off = 1ull << 41;
        atomic_store(&h->lanes_used, 0x7fffffffu);
    } else if (!strcmp(what, "counts")) {
        for (uint32_t i = 0; i < atomic_load(&h->lanes_used) && i < PS_RING_LANES; i++)
            atomic_store(&lanes[i].dropped, 41799811430613058ull);
    } else if (!strcmp(what, "onebyte")) {   /* byte 5 of lane 0's count: 2^43 = 8796093022208 more */
        ((unsigned char *)&lanes[0].dropped)[5] ^= 0x08;
    } else if (strcmp(what, "chunk")) {
        return 2;
    }
    ranges("after", 100);
    if (!strcmp(what, "chunk")) {  /* after the last commit, which would set it right again */
        uint32_t cur = atomic_load(&lanes[0].cur_chunk);
        struct ps_ring_chunk *c = (struct ps_ring_chunk *)(void *)((char *)h + h->chunks_off +
                                                                  (uint64_t)(cur - 1) * h->chunk_bytes);
        atomic_store(&c->committed, 0xfffffff8u);
    }
    return child_succeeded(kid) ? 0 : 1;
}

/* truncate N LOG: a forked child makes N ranges "sibling" in its own ring while this process makes 3000 ranges
 * "before", waits for the recorder to free a drained chunk, and truncates its own ring file to the end of its header
 * and lane tables: every chunk is gone from under the mappings (a reader touching one gets SIGBUS). Once LOG (the
 * recorder's stderr) says the recorder found the file truncated, it gives the file its size back (zero pages: the
 * probe's own writes at exit must not fault) and waits for the child; exit 0. */
static int saw_truncation(const char *log)
{
    char line[1024];
    int seen = 0;
    FILE *f = fopen(log, "r");
    while (f && !seen && fgets(line, sizeof line, f))
        seen = strstr(line, "its file was truncated") != NULL;
    if (f)
        fclose(f);
    return seen;
}

static int truncate_ring(long n, const char *log)
{
    pid_t kid;
    char path[4096];
    struct ps_ring_hdr *h = ring_being_read(n, &kid, path, sizeof path);
    if (!h)
        return 1;
    off_t full = (off_t)(h->chunks_off + (uint64_t)h->nchunks * h->chunk_bytes);
    if (truncate(path, (off_t)h->chunks_off) != 0)
        return 1;
    while (!saw_truncation(log))
        usleep(10000);
    if (truncate(path, full) != 0)
        return 1;
    return child_succeeded(kid) ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "closefds") && argc == 4)
        return closefds(argv[2], atol(argv[3]));
    if (!strcmp(mode, "dup2") && argc == 4)
        return dup2_stdin(argv[2], atol(argv[3]));
    if (!strcmp(mode, "fsize") && argc == 4)
        return fsize(atol(argv[2]), atol(argv[3]));
    if (!strcmp(mode, "badutf8") && argc >= 3)
        return badutf8(argv[2]);
    if (!strcmp(mode, "forkexec") && argc == 3)
        return forkexec(atoi(argv[2]));
    if (!strcmp(mode, "deep") && argc == 3)
        return deep(atol(argv[2]));
    if (!strcmp(mode, "background") && argc == 3)
        return background(argv[2]);
    if (!strcmp(mode, "registry") && argc == 3)
        return registry(atoi(argv[2]));
    if (!strcmp(mode, "xfsz_disposition"))
        return xfsz_disposition();
    if (!strcmp(mode, "truncate") && argc == 4)
        return truncate_ring(atol(argv[2]), argv[3]);
    if (!strcmp(mode, "scribble") && argc == 4)
        return scribble(argv[2], atol(argv[3]));
    fprintf(stderr, "usage: hostile_prog closefds FILE N | dup2 FILE N | fsize BYTES N | badutf8 FILE [ARG] |"
                    " forkexec N | deep N | background FILE | registry N |"
                    " xfsz_disposition | scribble header|counts|chunk N | truncate N LOG\n");
    return 2;
}
