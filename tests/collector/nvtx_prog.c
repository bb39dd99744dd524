/* The program `perfscope record` records in the collector's end-to-end tests (record_tests.sh): each mode
 * makes known NVTX calls (nvtx3 headers) or host activity; the script checks the trace against what this
 * file says it did. Usage: nvtx_prog MODE [ARGS]. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static nvtxRangeId_t started;

static void *end_range(void *arg)
{
    (void)arg;
    nvtxRangeEnd(started);     /* ended on another thread than the one that started it */
    return NULL;
}

/* known: what the trace must hold (record_tests.sh checks each line):
 * - 10 x push "outer" { push "inner" {} pop } pop on the main thread: 20 rows of type 59, each inner inside
 *   its outer;
 * - a start/end range "async" started on main, ended on a second thread: 1 row of type 60 whose
 *   endGlobalTid is that thread;
 * - 3 marks "tick" (type 34, end NULL);
 * - domain "mydom" (a type 75 row) with a registered string "regstr" pushed/popped 2 times in it
 *   (textId, domainId of mydom);
 * - 1 wide-string range L"wide-ü" (text 'wide-ü').
 * Total rows of types 59/60/34: 20 + 1 + 3 + 2 + 1 = 27. */
static int known(void)
{
    for (int i = 0; i < 10; i++) {
        nvtxRangePushA("outer");
        nvtxRangePushA("inner");
        nvtxRangePop();
        nvtxRangePop();
    }
    started = nvtxRangeStartA("async");
    pthread_t t;
    pthread_create(&t, NULL, end_range, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < 3; i++)
        nvtxMarkA("tick");
    nvtxDomainHandle_t dom = nvtxDomainCreateA("mydom");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "regstr");
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    for (int i = 0; i < 2; i++) {
        nvtxDomainRangePushEx(dom, &a);
        nvtxDomainRangePop(dom);
    }
    nvtxRangePushW(L"wide-\u00fc");
    nvtxRangePop();
    return 0;
}

/* closed_then_sigkill N FILE: close N push/pop ranges named "r", write N to FILE, then SIGKILL ourselves
 * with one range still open. */
static int closed_then_sigkill(long n, const char *file)
{
    for (long i = 0; i < n; i++) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fprintf(f, "%ld\n", n);
    fclose(f);
    nvtxRangePushA("open-at-kill");
    raise(SIGKILL);
    return 1;
}

/* open_at_crash FILE: die by SIGSEGV inside ranges that were never popped. Writes to FILE, one per line,
 * the (start-ordered) ranges it leaves open and the closed ones it made, so the test can compare:
 * - main thread: push "step", push "forward" (default domain), push the registered string "regstr" in domain
 *   "crashdom" -> 3 open ranges, nested in that order;
 * - thread A: push "loader" and exit without popping -> 1 open range on A's thread;
 * - thread B (started after A exited, so it takes over A's lane and its open-range slots): pushes and pops
 *   20 ranges "closed" -> 20 closed rows, and "loader" must survive B's reuse of the lane;
 * - the main thread then pops nothing and raises SIGSEGV. */
static void *open_and_exit(void *arg)
{
    (void)arg;
    nvtxRangePushA("loader");
    return NULL;
}

static void *push_pop_20(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++) {
        nvtxRangePushA("closed");
        nvtxRangePop();
    }
    return NULL;
}

static int open_at_crash(const char *file)
{
    nvtxRangePushA("step");
    nvtxRangePushA("forward");
    nvtxDomainHandle_t dom = nvtxDomainCreateA("crashdom");
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(dom, "regstr");
    nvtxDomainRangePushEx(dom, &a);
    pthread_t t;
    pthread_create(&t, NULL, open_and_exit, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, push_pop_20, NULL);
    pthread_join(t, NULL);
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fprintf(f, "open step forward regstr loader\nclosed 20\n");
    fclose(f);
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return 1;
}

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* first_range FILE: the process's first NVTX call is a push of "first" (it makes the probe's ring); writes
 * "BEFORE AFTER" (CLOCK_MONOTONIC ns around that push call) to FILE, then pops. */
static int first_range(const char *file)
{
    long long before = mono_ns();
    nvtxRangePushA("first");
    long long after = mono_ns();
    nvtxRangePop();
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fprintf(f, "%lld %lld\n", before, after);
    return fclose(f) != 0;
}

/* threads_exit_open N: N threads one after another (each reuses the lane the one before released), each
 * pushing "te_outer" and "te_inner" and exiting inside both; then main pushes "main_open" and exits with 0
 * without popping. 2N + 1 ranges never end. */
static void *exit_inside_two(void *arg)
{
    (void)arg;
    nvtxRangePushA("te_outer");
    nvtxRangePushA("te_inner");
    return NULL;
}

/* thread_exit_deep: a thread pushes "d0" .. "d19" (20 deep: past the 16 open-range slots of a lane), the
 * last one with a colour, and exits inside all of them. 20 ranges never end, named, d19 with its colour. */
static void *exit_inside_twenty(void *arg)
{
    (void)arg;
    char name[8];
    for (int i = 0; i < 19; i++) {
        snprintf(name, sizeof name, "d%d", i);
        nvtxRangePushA(name);
    }
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "d19";
    nvtxRangePushEx(&a);
    return NULL;
}

static int thread_exit_deep(void)
{
    pthread_t t;
    pthread_create(&t, NULL, exit_inside_twenty, NULL);
    pthread_join(t, NULL);
    return 0;
}

static int threads_exit_open(int n)
{
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, NULL, exit_inside_two, NULL);
        pthread_join(t, NULL);
    }
    nvtxRangePushA("main_open");
    return 0;
}

/* inline_open: 5000 distinct names pushed and popped (a thread's string cache keeps 4096, the rest go inline),
 * then push "late_open" (inline too) and exit with 0 inside it: 1 range never ends, stored without its text. */
static int inline_open(void)
{
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "n%d", i);
        nvtxRangePushA(name);
        nvtxRangePop();
    }
    nvtxRangePushA("late_open");
    return 0;
}

/* fork_startend: start "parent_startend", fork; the child ends that id (it is the parent's: an unbalanced end)
 * and exits; the parent then ends it. 1 start/end row, the parent's; 1 unbalanced end, the child's. */
static int fork_startend(void)
{
    nvtxRangeId_t id = nvtxRangeStartA("parent_startend");
    pid_t p = fork();
    if (p == 0) {
        nvtxRangeEnd(id);
        _exit(0);
    }
    if (p < 0 || waitpid(p, NULL, 0) != p)
        return 1;
    nvtxRangeEnd(id);
    return 0;
}

static long per_thread;

static void *storm(void *arg)
{
    (void)arg;
    for (long i = 0; i < per_thread; i++) {
        nvtxRangePushA("s");
        nvtxRangePop();
    }
    return NULL;
}

/* threads T N: T threads each close N push/pop ranges "s". */
static int threads(int t, long n)
{
    pthread_t th[256];
    per_thread = n;
    if (t < 1 || t > 256)
        return 2;
    for (int i = 0; i < t; i++)
        pthread_create(&th[i], NULL, storm, NULL);
    for (int i = 0; i < t; i++)
        pthread_join(th[i], NULL);
    return 0;
}

static nvtxDomainHandle_t storm_dom;
static nvtxStringHandle_t storm_str;
static pthread_barrier_t storm_barrier;

static void *reg_storm(void *arg)
{
    (void)arg;
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = storm_str;
    nvtxDomainRangePushEx(storm_dom, &a);   /* attaches the thread: its thread-name record goes now */
    pthread_barrier_wait(&storm_barrier);   /* the storm starts once every thread has attached */
    nvtxDomainRangePop(storm_dom);
    for (long i = 1; i < per_thread; i++) {
        nvtxDomainRangePushEx(storm_dom, &a);
        nvtxDomainRangePop(storm_dom);
    }
    return NULL;
}

/* registered_storm T N: T threads each close N push/pop ranges whose message is the registered string "s"
 * of domain "storm". Every thread attaches (its thread-name record) and the domain and registration are
 * written before the storm starts (the barriers), so every record written during the storm is a range
 * record: with a tiny ring, each lost range is exactly one dropped record. Records already committed are
 * never dropped, drained by `record` yet or not, so nothing waits for the drain. */
static int registered_storm(int t, long n)
{
    pthread_t th[256];
    per_thread = n;
    if (t < 1 || t > 256 || n < 1)
        return 2;
    storm_dom = nvtxDomainCreateA("storm");
    storm_str = nvtxDomainRegisterStringA(storm_dom, "s");
    pthread_barrier_init(&storm_barrier, NULL, (unsigned)t + 1);
    for (int i = 0; i < t; i++)
        pthread_create(&th[i], NULL, reg_storm, NULL);
    pthread_barrier_wait(&storm_barrier);
    for (int i = 0; i < t; i++)
        pthread_join(th[i], NULL);
    return 0;
}

/* unbalanced_exit: 5 ranges "ok" closed; 3 pops on an empty stack; ends of 3 never-started ids (123456789, and -1
 * and 1<<63|5, which carry the probe's untracked-range bit); a range left open; then _exit(3) without any exit
 * handler. */
static int unbalanced_exit(void)
{
    for (int i = 0; i < 5; i++) {
        nvtxRangePushA("ok");
        nvtxRangePop();
    }
    for (int i = 0; i < 3; i++)
        nvtxRangePop();
    nvtxRangeEnd((nvtxRangeId_t)123456789);
    nvtxRangeEnd((nvtxRangeId_t)-1);
    nvtxRangeEnd((nvtxRangeId_t)((1ull << 63) | 5));
    nvtxRangePushA("left-open");
    _exit(3);
}

static void ranges(const char *name, long n)
{
    for (long i = 0; i < n; i++) {
        nvtxRangePushA(name);
        nvtxRangePop();
    }
}

/* tree N: like a DataLoader and a launcher: 2 forked children each close N ranges "forked", 1 child that
 * execs this program (`nvtx_prog ranges exec N`) closes N ranges "exec", and the parent, after its first
 * NVTX call, closes N ranges "parent". 4 probed processes, N rows of each name, each name from one pid. */
static int tree(const char *self, long n)
{
    nvtxRangePushA("parent");
    nvtxRangePop();
    for (int i = 0; i < 2; i++)
        if (fork() == 0) {
            ranges("forked", n);
            _exit(0);
        }
    char count[32];
    snprintf(count, sizeof count, "%ld", n);
    if (fork() == 0) {
        execl(self, self, "ranges", "exec", count, (char *)NULL);
        _exit(127);
    }
    ranges("parent", n - 1);
    int st, bad = 0;
    while (wait(&st) > 0)
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    return bad;
}

/* burn SECONDS: spin until this process has used SECONDS of CPU time. */
static int burn(double s)
{
    volatile unsigned long x = 0;
    while (cpu_s() < s)
        for (int i = 0; i < 10000; i++)
            x += (unsigned long)i;
    return x == 1;      /* never: x only keeps the loop from being optimised away */
}

/* steps N SLEEP_MS BURN_MS: N ranges "step", each holding a range "compute" in which the process first uses BURN_MS
 * of CPU time, then sleeps SLEEP_MS (usleep: state S). No GPU work: the report's Compute is host compute. */
static int steps(int n, double sleep_ms, double burn_ms)
{
    for (int i = 0; i < n; i++) {
        nvtxRangePushA("step");
        nvtxRangePushA("compute");
        if (burn(cpu_s() + burn_ms / 1e3))
            return 1;
        usleep((useconds_t)(sleep_ms * 1e3));
        nvtxRangePop();
        nvtxRangePop();
    }
    return 0;
}

/* Write TEXT to FILE whole: through FILE.tmp and a rename, so that a test polling FILE never reads half of it. */
static int say(const char *file, const char *text)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", file) >= (int)sizeof tmp)
        return 1;
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        return 1;
    return rename(tmp, file) != 0;
}

static int say_pid(const char *file)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    return say(file, pid);
}

/* count_signals FILE: count the SIGINTs and SIGTERMs it gets (handlers, as Python's KeyboardInterrupt);
 * writes "ready" to FILE once the handlers are in place; waits for the first signal, then 500 ms for a second
 * copy (the duplicate a recorder that forwards a group's signal would send: nothing tells when it would have
 * come), writes "INT=<n> TERM=<m>" to FILE and exits 0. */
static volatile sig_atomic_t n_int, n_term;
static void count_signal(int sig)
{
    if (sig == SIGINT)
        n_int++;
    else
        n_term++;
}

static int count_signals(const char *file)
{
    struct sigaction sa = { .sa_handler = count_signal };
    sigset_t counted, old;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&counted);
    sigaddset(&counted, SIGINT);
    sigaddset(&counted, SIGTERM);
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
        sigprocmask(SIG_BLOCK, &counted, &old) || say(file, "ready\n"))
        return 1;
    sigdelset(&old, SIGINT);
    sigdelset(&old, SIGTERM);
    while (!n_int && !n_term)       /* blocked outside sigsuspend: no signal slips in before it sleeps */
        sigsuspend(&old);
    sigprocmask(SIG_UNBLOCK, &counted, NULL);
    for (int i = 0; i < 50; i++)    /* 500 ms for a second copy to arrive */
        usleep(10000);
    char counts[64];
    snprintf(counts, sizeof counts, "INT=%d TERM=%d\n", (int)n_int, (int)n_term);
    return say(file, counts);
}

/* sleep S [FILE]: writes its pid to FILE (when given) once running, then sleeps S seconds. */
static int sleep_s(double s, const char *file)
{
    if (file && say_pid(file))
        return 1;
    usleep((useconds_t)(s * 1e6));
    return 0;
}

/* held_when_killed N FILE: push "held", close N ranges "r" inside it, write its pid to FILE, then wait in "held" until
 * a signal ends it (the recorder's death sends SIGTERM: PR_SET_PDEATHSIG). N closed rows and 1 range never ended. */
static int held_when_killed(long n, const char *file)
{
    nvtxRangePushA("held");
    ranges("r", n);
    if (say_pid(file))
        return 1;
    for (;;)
        pause();
}

/* blocked FIFO FILE: writes its pid to FILE, then reads the FIFO to its end and exits 0. The test holds the
 * FIFO open for writing: the program sleeps (state S) in read() exactly as long as the test needs, and ends
 * when the test closes it, not by a clock. */
static int blocked(const char *fifo, const char *file)
{
    if (say_pid(file))
        return 1;
    FILE *f = fopen(fifo, "r");
    if (!f)
        return 1;
    while (fgetc(f) != EOF)
        ;
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "known"))
        return known();
    if (!strcmp(mode, "closed_then_sigkill") && argc == 4)
        return closed_then_sigkill(atol(argv[2]), argv[3]);
    if (!strcmp(mode, "thread_exit_deep"))
        return thread_exit_deep();
    if (!strcmp(mode, "fork_startend"))
        return fork_startend();
    if (!strcmp(mode, "inline_open"))
        return inline_open();
    if (!strcmp(mode, "threads_exit_open") && argc == 3)
        return threads_exit_open(atoi(argv[2]));
    if (!strcmp(mode, "ranges_ignoring_sigterm") && argc == 5) {
        /* ranges_ignoring_sigterm NAME N FILE: writes its pid to FILE, makes N ranges NAME, waits until its
         * parent, the recorder, is gone (it ignores the recorder's PR_SET_PDEATHSIG SIGTERM; the test kills the
         * recorder), makes N more, then creates FILE.done: 2N ranges, N of them made after the recorder died. */
        signal(SIGTERM, SIG_IGN);
        char done[4096];
        pid_t parent = getppid();
        if (say_pid(argv[4]) || snprintf(done, sizeof done, "%s.done", argv[4]) >= (int)sizeof done)
            return 1;
        ranges(argv[2], atol(argv[3]));
        while (getppid() == parent)
            usleep(1000);
        ranges(argv[2], atol(argv[3]));
        return say(done, "");
    }
    if (!strcmp(mode, "count_signals") && argc == 3)
        return count_signals(argv[2]);
    if (!strcmp(mode, "first_range") && argc == 3)
        return first_range(argv[2]);
    if (!strcmp(mode, "open_at_crash") && argc == 3)
        return open_at_crash(argv[2]);
    if (!strcmp(mode, "threads") && argc == 4)
        return threads(atoi(argv[2]), atol(argv[3]));
    if (!strcmp(mode, "registered_storm") && argc == 4)
        return registered_storm(atoi(argv[2]), atol(argv[3]));
    if (!strcmp(mode, "tree") && argc == 3)
        return tree(argv[0], atol(argv[2]));
    if (!strcmp(mode, "ranges") && argc == 4) {
        ranges(argv[2], atol(argv[3]));
        return 0;
    }
    if (!strcmp(mode, "unbalanced_exit"))
        return unbalanced_exit();
    if (!strcmp(mode, "burn") && argc == 3)
        return burn(atof(argv[2]));
    if (!strcmp(mode, "steps") && argc == 5)
        return steps(atoi(argv[2]), atof(argv[3]), atof(argv[4]));
    if (!strcmp(mode, "sleep") && (argc == 3 || argc == 4))
        return sleep_s(atof(argv[2]), argc == 4 ? argv[3] : NULL);
    if (!strcmp(mode, "held_when_killed") && argc == 4)
        return held_when_killed(atol(argv[2]), argv[3]);
    if (!strcmp(mode, "blocked") && argc == 4)
        return blocked(argv[2], argv[3]);
    if (!strcmp(mode, "clock")) {
        /* clock: print CLOCK_MONOTONIC in ns (the clock of record's samples) for a test script */
        printf("%lld\n", mono_ns());
        return 0;
    }
    if (!strcmp(mode, "write") && argc == 4) {
        /* write FILE MIB: write MIB MiB to FILE in 1 MiB write() calls and exit. `record` samples the exited
         * child once more before reaping it (collector/launch.c: waitid WNOWAIT), so that sample has the full
         * count, however late the periodic ones come. */
        static char block[1 << 20];
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return 1;
        setvbuf(f, NULL, _IONBF, 0);
        for (int i = 0; i < atoi(argv[3]); i++)
            if (fwrite(block, 1, sizeof block, f) != sizeof block)
                return 1;
        return fclose(f) != 0;
    }
    if (!strcmp(mode, "exit") && argc == 3)
        return atoi(argv[2]);
    if (!strcmp(mode, "signal") && argc == 3) {
        signal(atoi(argv[2]), SIG_DFL);
        raise(atoi(argv[2]));
        return 1;
    }
    fprintf(stderr, "usage: nvtx_prog known | closed_then_sigkill N FILE | threads T N | unbalanced_exit |"
                    " registered_storm T N | tree N | ranges NAME N | burn S | sleep S [FILE] | blocked FIFO FILE |"
                    " held_when_killed N FILE | clock | exit CODE | signal N\n");
    return 2;
}
