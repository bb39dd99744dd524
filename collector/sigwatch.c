/* The group-signal helper of `perfscope record` (see sigwatch.h). */
#include "collector/sigwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ps_time.h"

struct report {
    int32_t sig, code;
    int32_t sender;
    int32_t pad;
};

#define RECENT_MAX 16

struct ps_sigwatch {
    pid_t pid;
    int fd;                         /* read end of the helper's reports, non-blocking */
    struct {
        struct report r;
        int64_t at_ns;              /* when record read it */
    } recent[RECENT_MAX];
    unsigned n_recent;
};

static _Noreturn void helper(const sigset_t *set, int fd, pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(0);
    prctl(PR_SET_NAME, "perfscope-sigw");
    /* Hold none of record's descriptors (a reader of record's stdout would wait for our EOF too). */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    if (fd > 3)
        close_range(3, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0u, 0);
    sigset_t wait = *set;
    sigdelset(&wait, SIGCHLD);
    for (;;) {
        siginfo_t si;
        int s = sigwaitinfo(&wait, &si);
        if (s <= 0)
            continue;
        struct report r = { s, si.si_code, si.si_pid, 0 };
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(0);               /* record is gone */
    }
}

int ps_sigwatch_start(const sigset_t *set, struct ps_sigwatch **out)
{
    int p[2];
    struct ps_sigwatch *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    if (pipe2(p, O_CLOEXEC) != 0) {
        int e = -errno;
        free(w);
        return e;
    }
    pid_t parent = getpid();
    w->pid = fork();
    if (w->pid == 0) {
        close(p[0]);
        helper(set, p[1], parent);
    }
    int e = w->pid < 0 ? -errno : 0;
    close(p[1]);
    if (e) {
        close(p[0]);
        free(w);
        return e;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    w->fd = p[0];
    *out = w;
    return 0;
}

/* Take the helper's pending reports; forget those older than the window. */
static void read_reports(struct ps_sigwatch *w)
{
    int64_t now = ps_monotonic_ns();
    unsigned keep = 0;
    for (unsigned i = 0; i < w->n_recent; i++)
        if (now - w->recent[i].at_ns <= (int64_t)PS_SIGWATCH_WINDOW_MS * 1000000)
            w->recent[keep++] = w->recent[i];
    w->n_recent = keep;
    struct report r;
    while (read(w->fd, &r, sizeof r) == (ssize_t)sizeof r) {
        if (w->n_recent == RECENT_MAX)
            w->n_recent--;          /* a storm of signals: the newest reports matter */
        for (unsigned i = w->n_recent; i > 0; i--)
            w->recent[i] = w->recent[i - 1];
        w->recent[0].r = r;
        w->recent[0].at_ns = now;
        w->n_recent++;
    }
}

static int seen(const struct ps_sigwatch *w, int sig, pid_t sender)
{
    for (unsigned i = 0; i < w->n_recent; i++)
        if (w->recent[i].r.sig == sig && w->recent[i].r.sender == sender)
            return 1;
    return 0;
}

int ps_sigwatch_group_got(struct ps_sigwatch *w, int sig, pid_t sender, int wait_ms)
{
    int64_t until = ps_monotonic_ns() + (int64_t)wait_ms * 1000000;
    for (;;) {
        read_reports(w);
        if (seen(w, sig, sender))
            return 1;
        int64_t left_ms = (until - ps_monotonic_ns()) / 1000000;
        if (left_ms <= 0)
            return 0;
        struct pollfd pfd = { w->fd, POLLIN, 0 };
        if (poll(&pfd, 1, (int)left_ms) <= 0 || (pfd.revents & (POLLHUP | POLLERR)))
            return read_reports(w), seen(w, sig, sender);
    }
}

void ps_sigwatch_stop(struct ps_sigwatch *w)
{
    if (!w)
        return;
    kill(w->pid, SIGKILL);
    while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    close(w->fd);
    free(w);
}

/* A signal that stops the recording (INT, TERM, HUP, QUIT) pending before CMD started: take it and return
 * its number, else 0. The others stay pending and reach CMD once it runs. */
int ps_sigwatch_take_stop_signal(const sigset_t *waitset)
{
    static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    sigset_t pending, one;
    if (sigpending(&pending) != 0)
        return 0;
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++) {
        if (!sigismember(&pending, stop[i]) || !sigismember(waitset, stop[i]))
            continue;
        sigemptyset(&one);
        sigaddset(&one, stop[i]);
        sigtimedwait(&one, NULL, &(struct timespec){ 0, 0 });
        return stop[i];
    }
    return 0;
}
