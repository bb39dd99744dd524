/* Process and thread life of libperfscope_probe.so: reads the session perfscope record set in the environment,
 * makes the ring on the process's first record (not at NVTX initialisation) and writes PROCESS and THREAD_NAME
 * there, gives a forked child a ring of its own on its first record (forgetting the parent's open ranges), and
 * at thread exit writes the ranges the thread is still inside and releases its lane. The process-wide NVTX
 * registries (domains, registered strings, categories) are probe_registry.c's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "probe_ranges.h"
#include "probe_registry.h"
#include "ps_env.h"
#include "ps_file.h"
#include "ps_ring.h"
#include "ps_time.h"

struct probe_global probe_g;
__thread struct probe_thread *probe_tls __attribute__((tls_model("initial-exec")));

static int log_fd = -1;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_err = -EAGAIN;
/* The ring is made on the process's first record, not in InitializeInjectionNvtx2:
 * `ring_lock` serialises that (and is held across fork), `ring_ready` publishes it once its creator wrote
 * PROCESS, `ring_failed` keeps a process whose ring could not be made from trying on every call. */
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static int ring_ready, ring_failed;
static pthread_key_t thread_key;
static char session_dir[PATH_MAX];
static uint64_t ring_bytes;

void probe_log(const char *fmt, ...)
{
    char buf[1024];
    if (log_fd < 0)
        return;
    int n = snprintf(buf, sizeof buf, "perfscope probe[%d]: ", (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    n += m < (int)(sizeof buf - (size_t)n - 1) ? m : (int)(sizeof buf - (size_t)n - 2);
    buf[n++] = '\n';
    ssize_t w = write(log_fd, buf, (size_t)n);
    (void)w;
}

static void open_log(void)
{
    const char *p = getenv(PS_ENV_LOG);
    if (!p || !*p)
        return;
    if (strcmp(p, "stderr") == 0)
        log_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
    else    /* a regular file only: a FIFO without a reader would block the program here for good */
        log_fd = ps_file_open_regular(p, O_WRONLY | O_CREAT | O_APPEND, "a log file", NULL, 0);
    if (log_fd < 0)
        log_fd = -1;
}

/* Read a small /proc file into buf (NUL-terminated); returns bytes read, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t k = read(fd, buf + n, cap - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

static int32_t env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        char *end;
        if (!v || !*v)
            continue;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (!errno && !*end && x >= 0 && x <= INT32_MAX)
            return (int32_t)x;
    }
    return -1;
}

/* The ring's first record: who this process is. argv is cut to fit one record. */
static void emit_process(struct probe_thread *t)
{
    static const char *const rank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
    static const char *const local[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "SLURM_LOCALID", NULL};
    static const char *const world[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
    char exe[PATH_MAX];
    char *argv = malloc(32 << 10);
    if (!argv) {
        probe_drop(t);
        return;
    }
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = '\0';
    ssize_t al = read_small("/proc/self/cmdline", argv, 32 << 10);
    uint32_t exe_len = (uint32_t)strlen(exe) + 1;
    uint32_t argv_len = al > 0 ? (uint32_t)al : 0;
    uint32_t fixed = (uint32_t)sizeof(struct ps_wire_process) + exe_len + 8;
    uint32_t max = ps_ring_max_record(probe_g.ring);
    uint32_t room = max > fixed ? max - fixed : 0;
    if (argv_len > room) {
        argv_len = room;
        while (argv_len > 0 && argv[argv_len - 1] != '\0')
            argv_len--;             /* keep whole arguments */
    }
    uint32_t size = (uint32_t)sizeof(struct ps_wire_process) + probe_pad8(exe_len + argv_len);
    struct ps_wire_process *p = probe_reserve(t, size);
    if (p) {
        *p = (struct ps_wire_process){
            .h = {size, PS_WIRE_PROCESS, 0},
            .pid = (uint32_t)getpid(),
            .ppid = (uint32_t)getppid(),
            .start_ns = ps_monotonic_ns(),
            .utc_ns = ps_realtime_ns(),
            .exe_len = exe_len,
            .argv_len = argv_len,
            .rank = env_int(rank),
            .local_rank = env_int(local),
            .world_size = env_int(world),
        };
        char *d = (char *)(p + 1);
        memcpy(d, exe, exe_len);
        memcpy(d + exe_len, argv, argv_len);
        memset(d + exe_len + argv_len, 0, size - sizeof *p - exe_len - argv_len);
        ps_ring_commit(&t->w, size);
    }
    free(argv);
}

void probe_emit_thread_name(struct probe_thread *t, uint32_t tid, const char *name)
{
    uint32_t len = (uint32_t)strnlen(name, 1024);
    uint32_t size = (uint32_t)sizeof(struct ps_wire_thread_name) + probe_pad8(len + 1);
    struct ps_wire_thread_name *r = probe_reserve(t, size);
    if (!r)
        return;
    r->h = (struct ps_wire_hdr){size, PS_WIRE_THREAD_NAME, 0};
    r->tid = tid;
    r->name_len = len + 1;
    memcpy(r + 1, name, len);
    memset((char *)(r + 1) + len, 0, size - sizeof *r - len);
    ps_ring_commit(&t->w, size);
}

void probe_emit_name(struct probe_thread *t, uint16_t type, uint32_t domain, uint32_t id, const char *name)
{
    uint32_t len = (uint32_t)strnlen(name, PROBE_MSG_MAX - 1);
    uint32_t size = (uint32_t)sizeof(struct ps_wire_nvtx_name) + probe_pad8(len + 1);
    struct ps_wire_nvtx_name *r = probe_reserve(t, size);
    if (!r)
        return;
    *r = (struct ps_wire_nvtx_name){{size, type, 0}, probe_now(), domain, id, t->tid, len + 1};
    memcpy(r + 1, name, len);
    memset((char *)(r + 1) + len, 0, size - sizeof *r - len);
    ps_ring_commit(&t->w, size);
}

/* Claim a lane in the current ring; the ring's creator writes PROCESS first; then the thread's name. */
static void attach(struct probe_thread *t, int creator)
{
    char path[64], comm[64];
    if (ps_ring_lane_claim(probe_g.ring, t->tid, &t->w) != 0) {
        memset(&t->w, 0, sizeof t->w);
        probe_log("all %u ring lanes are held: thread %u's records are counted as dropped", 1024u, t->tid);
    }
    if (creator)
        emit_process(t);
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", t->tid);
    ssize_t n = read_small(path, comm, sizeof comm);
    if (n > 0 && comm[n - 1] == '\n')
        comm[n - 1] = '\0';
    if (n > 0)
        probe_emit_thread_name(t, t->tid, comm);
}

static void stack_clear(struct probe_stack *s, int free_frames)
{
    for (uint32_t i = 0; i < s->depth && i < s->cap; i++)
        if ((s->f[i].msg.flags & PS_WIRE_MSG_MASK) == PS_WIRE_MSG_INLINE)
            free((char *)s->f[i].msg.text);
    s->depth = 0;
    if (free_frames) {
        free(s->f);
        s->f = NULL;
        s->cap = 0;
    }
}

/* One stack's frames that were never popped, as PS_WIRE_NVTX_OPEN records with their messages and attributes
 * (the open-range slots mirror only 16 per lane, without text or attributes); each frame's slot is freed first. */
static void write_open_stack(struct probe_thread *t, struct probe_stack *s, uint32_t domain)
{
    for (uint32_t i = 0; i < s->depth && i < s->cap; i++) {
        struct probe_frame *f = &s->f[i];
        ps_ring_open_end(&t->w, f->open_slot);
        f->open_slot = -1;
        if (!(f->msg.flags & PROBE_FRAME_DROPPED))
            probe_emit_event(t, PS_WIRE_NVTX_OPEN, f->start, 0, t->tid, domain, &f->msg, &f->attr, NULL);
    }
}

static void write_open_frames(struct probe_thread *t)
{
    write_open_stack(t, &t->dflt, 0);
    for (uint32_t d = 0; d < t->ndom; d++)
        write_open_stack(t, &t->dom[d], d);
}

static void thread_fini(void *p)
{
    struct probe_thread *t = p;
    if (probe_tls == t)
        probe_tls = NULL;
    if (t->w.ring) {
        write_open_frames(t);               /* ranges this thread exits inside: rows now, slots free again */
        ps_ring_open_flush(&t->w);          /* slots of the lane's earlier owners whose records found no room */
        ps_ring_lane_release(&t->w);
    }
    stack_clear(&t->dflt, 1);
    for (uint32_t i = 0; i < t->ndom; i++)
        stack_clear(&t->dom[i], 1);
    free(t->dom);
    probe_strings_reset(t);
    free(t);
}

static int make_ring(void);

/* The process's first record: make the ring (the caller's lane writes PROCESS first, then every domain,
 * registered string and category a forked child inherited), then publish it. Returns 1 when `t` is
 * attached as the creator, 0 when the ring exists (made by another thread), -1 when there is none. */
static int ring_start(struct probe_thread *t)
{
    int made = 0;
    pthread_mutex_lock(&ring_lock);
    if (!__atomic_load_n(&ring_ready, __ATOMIC_ACQUIRE) && !ring_failed) {
        if (make_ring() != 0) {
            __atomic_store_n(&ring_failed, 1, __ATOMIC_RELAXED);
        } else {
            attach(t, 1);
            probe_registry_replay(t);
            __atomic_store_n(&ring_ready, 1, __ATOMIC_RELEASE);
            made = 1;
        }
    }
    pthread_mutex_unlock(&ring_lock);
    return made ? 1 : __atomic_load_n(&ring_ready, __ATOMIC_ACQUIRE) ? 0 : -1;
}

struct probe_thread *probe_thread_slow(void)
{
    if (!__atomic_load_n(&probe_g.on, __ATOMIC_ACQUIRE) || __atomic_load_n(&ring_failed, __ATOMIC_RELAXED))
        return NULL;
    /* A forked child's forking thread keeps its state (fork_child cleared it), found through the key. */
    struct probe_thread *t = pthread_getspecific(thread_key);
    if (!t) {
        if (!(t = calloc(1, sizeof *t)))
            return NULL;
        pthread_setspecific(thread_key, t);
    }
    t->tid = (uint32_t)gettid();
    int made = __atomic_load_n(&ring_ready, __ATOMIC_ACQUIRE) ? 0 : ring_start(t);
    if (made < 0)
        return NULL;
    if (!made)
        attach(t, 0);
    probe_tls = t;
    return t;
}

static uint64_t env_ring_bytes(void)
{
    const char *v = getenv(PS_ENV_RING_BYTES);
    char *end;
    if (!v || !*v)
        return PS_RING_DEFAULT_BYTES;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x == 0) {
        probe_log("%s=%s is not a byte count: using %u", PS_ENV_RING_BYTES, v, PS_RING_DEFAULT_BYTES);
        return PS_RING_DEFAULT_BYTES;
    }
    return x;
}

/* Tell `record` why this process records nothing: one line in the session directory (PS_PROBE_FAILED_FMT).
 * Best effort: a failure here leaves only the log. */
static void report_failure(const char *why)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/" PS_PROBE_FAILED_FMT, session_dir, (unsigned)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    ssize_t w = write(fd, why, strlen(why));
    (void)w;
    close(fd);
}

static int make_ring(void)
{
    char path[PATH_MAX], why[512];
    int err = ps_ring_create(session_dir, ring_bytes, 0, &probe_g.ring, path, sizeof path);
    if (err) {
        if (err == -EINVAL)
            snprintf(why, sizeof why, "a ring of %llu bytes is out of range: from %llu to %llu bytes\n",
                     (unsigned long long)ring_bytes, PS_RING_MIN_BYTES, PS_RING_MAX_BYTES);
        else if (err == -EFBIG)
            snprintf(why, sizeof why, "the file size limit (ulimit -f) is below the smallest ring (%llu bytes)\n",
                     PS_RING_MIN_BYTES);
        else
            snprintf(why, sizeof why, "cannot create a ring of %llu bytes: %s\n", (unsigned long long)ring_bytes,
                     strerror(-err));
        probe_log("%.*s in %s; recording nothing in this process", (int)strlen(why) - 1, why, session_dir);
        report_failure(why);
        return err;
    }
    probe_g.tsc = ps_ring_uses_tsc(probe_g.ring);
    probe_log("recording into %s (%llu bytes, %s clock)", path, (unsigned long long)ring_bytes,
              probe_g.tsc ? "TSC" : "CLOCK_MONOTONIC");
    return 0;
}

/* Held across fork(): the child never inherits a ring half made or a locked registry (same order as
 * ring_start: ring, then registry). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&ring_lock);
    probe_registry_lock();
}

static void fork_parent(void)
{
    probe_registry_unlock();
    pthread_mutex_unlock(&ring_lock);
}

/* The child is single-threaded now: drop the parent's mapping and clear the forking thread's state (its
 * open push/pop and start/end ranges belong to the parent). The child's own ring is made on its first record, so a
 * child that only execs (or exits) costs nothing and is not counted as probed. */
static void fork_child(void)
{
    probe_registry_unlock();
    pthread_mutex_unlock(&ring_lock);
    if (!probe_g.on)
        return;
    struct probe_thread *t = probe_tls;
    ring_ready = 0;
    ps_ring_free(probe_g.ring);
    probe_g.ring = NULL;
    if (t) {
        memset(&t->w, 0, sizeof t->w);     /* it pointed into the parent's ring, unmapped above */
        stack_clear(&t->dflt, 0);
        for (uint32_t i = 0; i < t->ndom; i++)
            stack_clear(&t->dom[i], 0);
        probe_strings_reset(t);
    }
    probe_ranges_forget();                  /* open start/end ranges are the parent's too */
    probe_tls = NULL;                       /* its next record makes the ring (probe_thread_slow) */
}

static void start(void)
{
    const char *dir = getenv(PS_ENV_SESSION_DIR);
    open_log();
    if (!dir || !*dir || strlen(dir) >= sizeof session_dir) {
        probe_log("%s is not set: NVTX calls are not recorded (run the program under perfscope record)",
                  PS_ENV_SESSION_DIR);
        start_err = -ENOENT;
        return;
    }
    strcpy(session_dir, dir);
    ring_bytes = env_ring_bytes();
    probe_g.tsc = ps_ring_clock_is_tsc(0);  /* the first record is stamped before the ring exists */
    if ((start_err = pthread_key_create(&thread_key, thread_fini)) != 0) {
        start_err = -start_err;
        return;
    }
    if ((start_err = pthread_atfork(fork_prepare, fork_parent, fork_child)) != 0) {
        start_err = -start_err;
        return;
    }
    __atomic_store_n(&probe_g.on, 1, __ATOMIC_RELEASE);
}

/* Only what every later call needs, nothing slow: this runs inside the program's first NVTX call, while
 * NVTX's own init state says "in progress" (a fork by another thread then would leave the child spinning;
 * bench/probe/bench_first_call.c). The ring is made by the first record (probe_thread_slow). */
int probe_start(void)
{
    pthread_once(&start_once, start);
    return start_err;
}
