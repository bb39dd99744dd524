/* Reading any supported trace into the model: perfscope and Nsight Systems SQLite exports, and
 * PyTorch profiler (Kineto) JSON, plain or gzip. The format is detected from content, not the name. */
#ifndef PS_READER_H
#define PS_READER_H

#include <stddef.h>

#include "model/model.h"

/* Detect the format of `path` and read it into a new, finished model (ps_model_finish called).
 * Returns 0 and *out (free with ps_model_free), or -1 with a one-line message in err that names the file and
 * the place (table / event index / byte offset) and says what is wrong. Never crashes on bad input. */
int ps_read_trace(const char *path, struct ps_model **out, char *err, size_t errlen);

#endif
