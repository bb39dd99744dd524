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

/* A window over a trace that grows (a recording in progress), read again and again (`perfscope top`): only the
 * activity rows that start at or after from_ns (trace time, ns) — GPU ops, API calls, NVTX ranges — so a step that
 * started before from_ns is left out whole and its inner ranges and ops stay outside every step. Kept by the
 * caller between reads: each activity table's first rowid that can still matter (tables are append-only: every
 * row with an end at or after from_ns has a rowid at or after it), so a read scans the rows of the window and those
 * appended since, not the whole table. Zero-initialise; from_ns must not decrease between reads (then zero the
 * rowids again). Host-sample summaries (model.samples) are not read. */
enum { PS_WINDOW_KERNEL, PS_WINDOW_MEMCPY, PS_WINDOW_MEMSET, PS_WINDOW_SYNC, PS_WINDOW_RUNTIME, PS_WINDOW_NVTX,
       PS_WINDOW_TABLES };
struct ps_read_window {
    int64_t from_ns;                        /* in */
    int64_t rowid_lo[PS_WINDOW_TABLES];     /* in/out */
};

/* Read the window `w` of the SQLite trace `path` into a new, finished model (as ps_read_trace) and advance
 * w->rowid_lo. A Kineto file is read whole. Returns 0 and *out, or -1 with the message in err. */
int ps_read_trace_window(const char *path, struct ps_read_window *w, struct ps_model **out, char *err, size_t errlen);

#endif
