/* Environment variables between `perfscope record` and the probe it injects (docs/design.md). */
#ifndef PS_ENV_H
#define PS_ENV_H

/* Absolute path of the private recording-session directory (mode 0700) that `record` creates under
 * $XDG_RUNTIME_DIR/perfscope/ or /tmp/perfscope-$UID/, named by the recorder's pid. Each probed process
 * creates its ring file there: "ring-<pid>-<n>.ps", n = 0, 1, ... chosen with O_EXCL (an exec keeps the pid). */
#define PS_ENV_SESSION_DIR  "PERFSCOPE_SESSION_DIR"
#define PS_RING_FILE_FMT    "ring-%u-%u.ps"
/* A probe that cannot record (its ring could not be made) appends one line saying why to
 * "probe-failed-<pid>.txt" in the session directory; `record` warns with it. */
#define PS_PROBE_FAILED_FMT "probe-failed-%u.txt"
/* Ring size in bytes per process (decimal; default PS_RING_DEFAULT_BYTES). */
#define PS_ENV_RING_BYTES   "PERFSCOPE_RING_BYTES"
/* When set (to a file path, or "stderr"), the probe logs what it does there; otherwise it is silent. */
#define PS_ENV_LOG          "PERFSCOPE_LOG"
/* Path of libcupti to dlopen instead of libcupti.so.13 / libcupti.so. */
#define PS_ENV_CUPTI_PATH   "PERFSCOPE_CUPTI_PATH"
/* Set by record: NVTX and CUDA injection entry points (absolute path of libperfscope_probe.so). */
#define PS_ENV_NVTX_INJECTION "NVTX_INJECTION64_PATH"
#define PS_ENV_CUDA_INJECTION "CUDA_INJECTION64_PATH"

#endif
