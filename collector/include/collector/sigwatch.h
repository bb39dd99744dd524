/* Which signals reached `perfscope record`'s whole process group, so that record forwards to CMD only the
 * signals CMD did not get itself. A signal sent to the group (GNU timeout, `kill -TERM -PGID`, a job-control
 * shell's `kill %1`, systemd or Slurm signalling every process) reaches CMD directly when CMD shares record's
 * group; one sent to record's pid alone does not. siginfo cannot tell the two apart, so a helper process in the
 * group, with the signals blocked, reports every signal it receives: what it also got went to the group. */
#ifndef PS_SIGWATCH_H
#define PS_SIGWATCH_H

#include <signal.h>
#include <sys/types.h>

struct ps_sigwatch;

/* Fork the helper into the caller's process group. The caller must have blocked `set` (the helper inherits
 * the mask and waits for those signals, SIGCHLD excepted); call before starting threads. The helper dies
 * with the caller (PR_SET_PDEATHSIG) and holds no descriptor of the caller's but its report pipe.
 * Returns 0 and *out, or -errno (then forward as before: every signal sent by a process). */
int ps_sigwatch_start(const sigset_t *set, struct ps_sigwatch **out);

/* 1 when the helper received signal `sig` from process `sender` within PS_SIGWATCH_WINDOW_MS of now (waiting
 * up to `wait_ms` for its report: the kernel signals a group's members one after another), else 0. A report
 * is not used up: the same group signal covers a second copy sent to record's pid alone just before it (GNU
 * timeout signals its child, then the group). */
int ps_sigwatch_group_got(struct ps_sigwatch *w, int sig, pid_t sender, int wait_ms);
#define PS_SIGWATCH_WINDOW_MS 250

/* A signal that stops a recording (INT, TERM, HUP, QUIT) pending and blocked in `waitset` (the caller's
 * mask), before CMD started: take it and return its number, else 0. The others stay pending (they reach CMD
 * once it runs). */
int ps_sigwatch_take_stop_signal(const sigset_t *waitset);

/* Kill and reap the helper, free everything. NULL is a no-op. */
void ps_sigwatch_stop(struct ps_sigwatch *w);

#endif
