/* The verdict family's private interface to inside.c: the step thread's samples as stretches of time, the time
 * it spent inside one function, the function a fix moves, and the calls that block the host (docs/report.md
 * "Where the step goes", "Expected gains"). */
#ifndef PS_VERDICT_INSIDE_H
#define PS_VERDICT_INSIDE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_view;
struct ps_names;
struct ps_model;
struct ps_causes;

struct ps_span {
    int64_t s, e;
};
struct ps_spans {                  /* sorted, disjoint */
    struct ps_span *v;
    size_t n, cap;
};

/* inside.c: one thread's samples as stretches: *idx gets the table indices of thread t's samples (table order,
 * which is time order within a thread: model/model.h) and *end, for each, the end of the time it stands for: the
 * next sample's time, at most twice the median interval (a gap in sampling is no state). time_of(base, i) reads
 * sample i's time and thread. *n 0 when the thread has fewer than two samples. The caller frees *idx and *end
 * (also on error). 0 or -ENOMEM. */
int ps_sample_stretches(const void *base, size_t count,
                        void (*time_of)(const void *, size_t, int64_t *, uint32_t *), uint32_t t, size_t **idx,
                        int64_t **end, size_t *n);
/* inside.c: time_of for model.py_samples and model.thread_samples. */
void ps_py_sample_time(const void *base, size_t i, int64_t *time, uint32_t *thread);
void ps_thread_sample_time(const void *base, size_t i, int64_t *time, uint32_t *thread);
/* inside.c: *out (emptied first; the caller frees out->v) gets the time thread spent inside `name` (a string id)
 * at any depth within [a, b): its ranges of that name (NVTX, record_function, python_function), else (no such
 * range: their times are exact) the stretches of its Python stack samples with a frame of that function; sorted
 * and merged. 0 or -ENOMEM. */
int ps_inside_spans(const struct ps_view *v, uint32_t thread, uint32_t name, int64_t a, int64_t b,
                    struct ps_spans *out);

/* inside.c: 1 when string id `name` names the model's own work (forward, backward, an optimizer, ATen, autograd,
 * a built-in tensor method): no function a fix moves off the step thread. */
int ps_model_function(const struct ps_model *m, uint32_t name);
/* inside.c: the function a fix of cause c moves (cs->c[c].function) and the time the step thread spent in it
 * within [a, b) (*out, emptied first; the caller frees out->v): for host compute, walking top[0]'s chain outward,
 * the outermost frame neither the model's (ps_model_function) nor the loop around the steps (inside for 90 % of
 * [a, b) or more) that holds more than 5 % more of the steps than the one it calls (a list comprehension around
 * the function is not it), PS_NONE when top[0] itself is the model's; for the other causes top[0]'s time, function
 * PS_NONE. 0 or -ENOMEM. */
int ps_function_to_move(struct ps_causes *cs, const struct ps_view *v, enum ps_cause c, int64_t a, int64_t b,
                        struct ps_spans *out);

/* inside.c: per API call (model index; m->api.n bytes, the caller frees), 1 when the host blocks in it until GPU
 * work is done: the synchronising calls (PS_NAME_SYNC_API) and the copies to or from pageable host memory, Async or
 * not. NULL when out of memory. */
uint8_t *ps_blocking_calls(const struct ps_view *v, struct ps_names *names);

#endif
