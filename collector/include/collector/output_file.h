/* The trace file `perfscope record -o` writes: claimed (created and locked) before CMD runs, removed with its
 * SQLite side files when no trace is left behind (docs/record.md); and the check of an output that a command
 * would replace (record, export). */
#ifndef PS_OUTPUT_FILE_H
#define PS_OUTPUT_FILE_H

#include <stddef.h>

/* Create the trace file `path` empty (O_EXCL) and lock it (flock, exclusive) for the whole recording, so that
 * a second recorder given the same -o fails before it runs CMD instead of replacing the file under the first
 * one. An existing file is refused without `force` (-EEXIST); anything but a regular file (or a link to one) is
 * refused even with it (-EINVAL), since replacing a device, FIFO or directory would destroy it; a trace being
 * written by another recorder (locked) is never replaced (-EBUSY). Stale -wal/-shm/-journal side files are
 * removed once the name is ours. Returns the locked descriptor (the caller closes it at the end: then another
 * recorder may replace the file), or -errno (those, or open's error) with one line naming the file in err. */
int ps_output_claim(const char *path, int force, char *err, size_t errlen);

/* 1 when `path` exists and is not a regular file, nor a link to one, nor a dangling link (a directory, device,
 * FIFO or socket, or a link to one), with what it is in `what` ("is a FIFO", "is a symbolic link to a character
 * device"): a command that puts a new file in its place would destroy it. Else 0. */
int ps_output_not_regular(const char *path, char *what, size_t len);

/* Remove the trace `path` and its -wal, -shm and -journal side files; missing ones are ignored. */
void ps_output_unlink(const char *path);

#endif
