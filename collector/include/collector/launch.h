/* The launcher of `perfscope record`: run the recorded program (CMD) as a child, wait for it while a caller's
 * tick samples it, and forward the signals meant for it (docs/record.md). No
 * trace, probe or option knowledge: the command's front end (cli/cmd_record.c) wires those in. */
#ifndef PS_LAUNCH_H
#define PS_LAUNCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ps_sigwatch;

/* The signal state CMD gets instead of the recorder's: the mask and the SIGPIPE and SIGXFSZ dispositions
 * that `perfscope record` was started with (it blocks and ignores those itself). */
struct ps_launch_signals {
    const sigset_t *mask;
    const struct sigaction *pipe, *xfsz;
};

/* Fork and exec `argv` (argv[0] looked up in PATH, argv NULL-terminated) with `sig`'s signal state. The
 * child dies with the recorder's forking thread (PR_SET_PDEATHSIG, SIGTERM). Returns 0 with *child set once
 * the exec succeeded; else -errno (-ENOENT not found, -EISDIR a directory, -EACCES not executable, a fork or
 * pipe failure) with one line naming argv[0] in err; the failed child is already reaped. */
int ps_launch_start(char *const argv[], const struct ps_launch_signals *sig, pid_t *child, char *err,
                    size_t errlen);

/* The exit status a shell gives when it cannot run a command (POSIX "Command Search and Execution"), for a
 * failure `rc` of ps_launch_start: 127 not found, 126 found but not runnable. */
int ps_launch_shell_status(int rc);

/* Called by ps_launch_supervise every period and once more when the child has exited (still a zombie, so
 * its final CPU times are readable); `exited` says which. */
typedef void ps_launch_tick_fn(void *ctx, int exited);

/* Wait for `child` to end, calling `tick` (may be NULL) every `period_ns` (> 0) of the monotonic clock, and
 * forward to it each signal of `waitset` (blocked by the caller; SIGCHLD excepted) that it did not get itself:
 * a kernel-sent signal (terminal Ctrl-C) and one sent to the whole process group (`sw` says which, may be
 * NULL: then every process-sent signal is forwarded) already reached a child in the recorder's group; a
 * child that left the group gets everything. Reaps the child; returns its wait status. */
int ps_launch_supervise(pid_t child, const sigset_t *waitset, int64_t period_ns, ps_launch_tick_fn *tick,
                        void *ctx, struct ps_sigwatch *sw);

/* The recorder's exit status for a child's wait status: its exit code, 128+N when signal N killed it, else 1. */
int ps_launch_exit_status(int wstatus);

#endif
