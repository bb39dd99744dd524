/* Opening a file named by a user or an environment variable, for the commands (cli/), the collector and the
 * probe: a FIFO, device or directory given where a file is expected is refused at once instead of blocking an
 * open() (a FIFO without a peer blocks it for good) or a read (docs/design.md, "Untrusted input"). */
#ifndef PS_FILE_H
#define PS_FILE_H

#include <stddef.h>

/* Open `path` with `flags` (O_RDONLY, or O_WRONLY | O_CREAT | O_APPEND ...: a file created is made mode 0600),
 * O_CLOEXEC and, for the open itself, O_NONBLOCK, so that a FIFO cannot block it; then refuse anything that is not
 * a regular file. O_NONBLOCK is cleared again unless `flags` holds it (a regular file ignores it anyway).
 * Returns the descriptor, or -errno with one line in err (NULL: none) naming the file:
 *   "PATH: cannot open: REASON"                                       (open's errno: -ENOENT, -EACCES, -ENXIO ...)
 *   "PATH: is a directory, not WHAT"                                   (-EISDIR; `what`, e.g. "a trace file")
 *   "PATH: not a regular file (a pipe or FIFO): perfscope reads regular files; write it to a file first and give
 *    that file's name"
 *                                                                      (-EINVAL; also devices and sockets) */
int ps_file_open_regular(const char *path, int flags, const char *what, char *err, size_t errlen);

/* What a file of mode `mode` (st_mode) is, as a phrase ("a pipe or FIFO", "a character device", ...); NULL for a
 * regular file. */
const char *ps_file_kind(unsigned mode);

#endif
