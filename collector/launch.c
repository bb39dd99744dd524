/* The launcher: fork/exec CMD, wait for it, forward its signals (launch.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/launch.h"
#include "ps_time.h"
#include "collector/session.h"
#include "collector/sigwatch.h"

/* In the child, between fork and exec (async-signal-safe calls only): die with the recorder (SIGTERM when
 * the recorder's thread that forked, its main thread, ends: kill -9, crash), restore the signal state CMD
 * would have had, exec; on failure send errno through the pipe. */
static _Noreturn void exec_child(char *const argv[], pid_t recorder, const struct ps_launch_signals *sig,
                                 int err_fd)
{
    int e;
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
        e = errno;
        goto fail;
    }
    if (getppid() != recorder)      /* the recorder died before prctl took effect */
        _exit(128 + SIGTERM);
    sigaction(SIGPIPE, sig->pipe, NULL);
    sigaction(SIGXFSZ, sig->xfsz, NULL);
    sigprocmask(SIG_SETMASK, sig->mask, NULL);
    execvp(argv[0], argv);
    e = errno;
fail:
    while (write(err_fd, &e, sizeof e) < 0 && errno == EINTR)
        ;
    _exit(127);
}

int ps_launch_start(char *const argv[], const struct ps_launch_signals *sig, pid_t *child, char *err, size_t errlen)
{
    if (!err)
        errlen = 0;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot run '%s': pipe: %s", argv[0], strerror(-rc));
        return rc;
    }
    pid_t recorder = getpid();
    *child = fork();
    if (*child == 0)
        exec_child(argv, recorder, sig, pfd[1]);
    int e = *child < 0 ? errno : 0;
    close(pfd[1]);
    if (*child > 0) {
        ssize_t n;
        while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
            ;
        if (n != (ssize_t)sizeof e)
            e = 0;                  /* the pipe closed on exec: CMD runs */
        else
            while (waitpid(*child, NULL, 0) < 0 && errno == EINTR)
                ;
    }
    close(pfd[0]);
    if (!e)
        return 0;
    if (e == EACCES && ps_session_names_a_directory(argv[0])) {
        /* execve says EACCES for a directory too; a shell says "Is a directory" (status 126). */
        snprintf(err, errlen, "cannot run '%s': it is a directory (give the program inside it, such as %s/train)",
                 argv[0], argv[0]);
        return -EISDIR;
    }
    snprintf(err, errlen, "cannot run '%s': %s%s", argv[0], strerror(e),
             e == ENOENT ? " (check the name, or give a path such as ./prog)" :
             e == EACCES ? " (is it executable? chmod +x)" : "");
    return -e;
}

int ps_launch_shell_status(int rc)
{
    return rc == -ENOENT ? 127 : 126;
}

int ps_launch_supervise(pid_t child, const sigset_t *waitset, int64_t period_ns, ps_launch_tick_fn *tick,
                        void *ctx, struct ps_sigwatch *sw)
{
    int64_t next = ps_monotonic_ns();
    for (;;) {
        siginfo_t si = { 0 };
        /* WNOWAIT: the child stays a zombie so the last tick still sees its final CPU times. */
        int exited = waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == child;
        int64_t now = ps_monotonic_ns();
        if (tick && (exited || now >= next)) {
            tick(ctx, exited);
            next += period_ns;
            if (next < now)
                next = now + period_ns;
        }
        if (exited)
            break;
        int64_t wait = (tick ? next : now + period_ns) - ps_monotonic_ns();
        if (wait < 0)
            wait = 0;
        struct timespec ts = { wait / 1000000000, wait % 1000000000 };
        int sig = sigtimedwait(waitset, &si, &ts);
        if (sig <= 0 || sig == SIGCHLD)
            continue;
        /* Forward only what the child did not get itself. A terminal's Ctrl-C (si_code > 0:
         * the kernel) already reached it, being in our process group; so did a signal a process sent to the
         * whole group (timeout, kill -TERM -PGID, a job-control shell), which the group's helper also got.
         * A child that left our group gets everything forwarded. */
        int in_group = getpgid(child) == getpgrp();
        if (!in_group || (si.si_code <= 0 && !(sw && ps_sigwatch_group_got(sw, sig, si.si_pid, 20))))
            kill(child, sig);
    }
    int wstatus = 0;
    while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
        ;
    return wstatus;
}

int ps_launch_exit_status(int wstatus)
{
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 1;
}
