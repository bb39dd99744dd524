/* One hook for the diagnostics (warnings, errors) of perfscope's library code (collector modules, tui sampling):
 * by default each goes to stderr as one line; `perfscope top` installs a hook that shows them in its status line,
 * so no library message tears its ncurses screen. Errors a caller reports go back in its err buffer instead,
 * written by ps_err; commands (cli/) print their own messages directly. */
#ifndef PS_DIAG_H
#define PS_DIAG_H

#include <stddef.h>

/* Receives one message, without a trailing newline. Calls are serialised (never two at once). */
typedef void (*ps_diag_fn)(void *ctx, const char *line);

/* Send later diagnostics to fn(ctx, line); NULL restores stderr. */
void ps_diag_set_hook(ps_diag_fn fn, void *ctx);

/* One diagnostic (printf format; a trailing newline in it is dropped): to the hook, else to stderr + "\n".
 * Safe from any thread. */
void ps_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one way a library function fails with a message (docs/design.md section 4, "Errors"; libbpf's libbpf_err()):
 * writes the message (printf format, one line, no newline) into the caller's err buffer of errlen bytes, cut to fit
 * and NUL-terminated, when err is not NULL and errlen > 0, and returns rc, a negative errno, unchanged. A failure
 * then reads `return ps_err(err, errlen, -EINVAL, "%s: ...", path);`. No argument may point into err. Safe from any
 * thread (it writes only err). */
int ps_err(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
