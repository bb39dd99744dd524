/* `perfscope export --format perfetto`: the trace model as Chrome trace-event JSON (the format ui.perfetto.dev and
 * chrome://tracing open), written with Kineto's categories and args so that perfscope's own Kineto reader reads it
 * back into the same model for the report (docs/export.md says what maps to what). */
#ifndef PS_EXPORT_PERFETTO_H
#define PS_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

/* What an export wrote (for the caller's summary line and the tests). */
struct ps_export_counts {
    int64_t events;        /* trace events written (metadata, slices, instants, flows, counters) */
    int64_t gpu_ops;       /* kernels, copies, memsets and syncs (X events on stream tracks) */
    int64_t flows;         /* ac2g flow arrows (one 's' + one 'f' each): GPU ops linked to their launch */
    int64_t counters;      /* counter samples (C events) */
};

/* Write the finished model `m` to `out` as one JSON object {"traceEvents": [...], ...}, event by event as the model
 * is walked: memory use beyond the model is constant. Times: "ts"/"dur" in microseconds with three decimals
 * (exact ns) relative to "baseTimeNanoseconds" (the trace's earliest time). Text that is not UTF-8 is written with
 * U+FFFD for each invalid part (RFC 8259 §8.1: JSON text is UTF-8). Returns 0, -EIO when writing to `out`
 * failed (the caller's message names the file), or -ENOMEM. `counts` (may be NULL) gets what was written. */
int ps_export_perfetto(const struct ps_model *m, FILE *out, struct ps_export_counts *counts);

#endif
