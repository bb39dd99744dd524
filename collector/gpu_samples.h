/* The GPU samples of `perfscope record`: NVML readings (common/ps_nvml.h) taken by the recorder's main thread
 * at --sample-hz and written by the writer thread into PERFSCOPE_GPU_SAMPLES, PERFSCOPE_GPU_PROCESS_SAMPLES and
 * PERFSCOPE_GPU_DEVICES (docs/trace-format.md). Fields NVML could not give are stored as NULL. */
#ifndef PS_GPU_SAMPLES_H
#define PS_GPU_SAMPLES_H

#include <stdint.h>

#include "ps_nvml.h"
#include "collector/trace_writer.h"

struct ps_gpu_samples;

/* Statements on writer `w`; stored times are s->time_ns - origin_ns. 0 and *out, or -EIO (ps_tw_errmsg) /
 * -ENOMEM. */
int ps_gpu_samples_new(struct ps_tw *w, int64_t origin_ns, struct ps_gpu_samples **out);
void ps_gpu_samples_free(struct ps_gpu_samples *g);     /* NULL is a no-op */

/* Write one device sample (and its device row the first time the device is seen). Call inside a transaction.
 * 0 or -EIO. */
int ps_gpu_samples_write(struct ps_gpu_samples *g, const struct ps_gpu_sample *s);

#endif
