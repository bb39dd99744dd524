/* Reading any supported trace into the model: perfscope and Nsight Systems SQLite exports, and
 * PyTorch profiler (Kineto) JSON, plain or gzip. The format is detected from content, not the name. */
#ifndef PS_READER_H
#define PS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Detect the format of `path` and read it into a new, finished model (ps_model_finish called).
 * Returns 0 and *out (free with ps_model_free), or -1 with a one-line message in err that names the file and
 * the place (table / event index / byte offset) and says what is wrong. Never crashes on bad input. */
int ps_read_trace(const char *path, struct ps_model **out, char *err, size_t errlen);

/* The same, keeping only the activity rows that start at or after `from_ns` (trace time, ns): GPU ops, API calls
 * and NVTX ranges of SQLite traces (a Kineto file is read whole). The window view `perfscope top` analyses: a
 * step that started before from_ns is left out whole, its inner ranges and ops stay outside every step.
 * INT64_MIN reads everything (= ps_read_trace). */
int ps_read_trace_window(const char *path, int64_t from_ns, struct ps_model **out, char *err, size_t errlen);

#endif
