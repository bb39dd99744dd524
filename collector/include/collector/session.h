/* The recording session of `perfscope record`: its private directory (docs/design.md), the probe's path, the
 * injection environment, and the expansion of the -o name. */
#ifndef PS_SESSION_H
#define PS_SESSION_H

#include <stddef.h>

/* Create the private session directory $XDG_RUNTIME_DIR/perfscope/<pid> (else /tmp/perfscope-<uid>/<pid>),
 * mode 0700, replacing a stale one left by a dead recorder of the same pid, and first removing those of other
 * recorders that are dead (pid-named directories of this user, mode 0700, whose pid does not exist). Writes its absolute path to
 * buf. Returns 0 or -errno with one line naming the directory in err. */
int ps_session_dir_create(char *buf, size_t len, char *err, size_t errlen);

/* Where session directories live: $XDG_RUNTIME_DIR/perfscope when XDG_RUNTIME_DIR is a writable directory,
 * else /tmp/perfscope-<uid> (written to buf; `perfscope top` scans it for live recordings). */
void ps_session_base_dir(char *buf, size_t len);

/* The file in a session directory naming the trace being written: its absolute path and a newline. */
#define PS_SESSION_TRACE_FILE "trace"

/* Write PS_SESSION_TRACE_FILE into `dir` (atomically: a reader sees the whole name or no file) naming `trace`
 * (made absolute). 0 or -errno. */
int ps_session_write_trace_name(const char *dir, const char *trace);

/* Read PS_SESSION_TRACE_FILE of the session directory `dir`: the trace's path (without the newline) into buf.
 * 0, -ENODATA when the file is empty, or open's -errno (-ENOENT: no trace named yet). */
int ps_session_read_trace_name(const char *dir, char *buf, size_t len);

/* Remove the session directory and the ring files in it. */
void ps_session_dir_remove(const char *dir);

/* Warn through ps_diag, once per process, about processes whose probe could not record (the PS_PROBE_FAILED_FMT
 * files the probe leaves in `dir`): "process N: the probe could not record (reason)". Returns how many. */
unsigned ps_session_report_probe_failures(const char *dir);

/* Absolute path of libperfscope_probe.so: $PERFSCOPE_PROBE, else next to the perfscope binary
 * (<bin>/, <bin>/../probe/ in the build tree, <bin>/../lib/perfscope/ in an installed or relocated tree and in
 * the prefix a wheel is pip-installed into (scripts/build-wheel.sh lays it out so),
 * <bin>/../lib/); never a path fixed at build time, so a copied tree uses its own probe. Returns 0, or -ENOENT with the places tried written to `tried`. A $PERFSCOPE_PROBE
 * that cannot be read (-errno) or is not the probe (-ENOEXEC: not an ELF file naming the NVTX injection
 * entry point) is an error, with no fallback; `tried` then holds it. */
int ps_session_find_probe(char *buf, size_t len, char *tried, size_t tried_len);

/* Expand %p (the recorder's pid), %h (host name), %r (rank: RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID,
 * else 0) and %% in `pattern`. Returns 0, or -EINVAL (an unknown % sequence) or -ENAMETOOLONG with one line
 * naming the pattern in err. */
int ps_session_expand_output(const char *pattern, char *buf, size_t len, char *err, size_t errlen);

/* The rank this recorder runs as: the first non-empty one of RANK, OMPI_COMM_WORLD_RANK and SLURM_PROCID in
 * its environment, else NULL. */
const char *ps_session_rank_env(void);

/* 1 when CMD's name is the path of a directory, or a name without '/' whose first match on $PATH (as execvp
 * searches it, an empty entry meaning the current directory) is a directory; else 0. For a clear message
 * where execve says only EACCES. */
int ps_session_names_a_directory(const char *name);

#endif
