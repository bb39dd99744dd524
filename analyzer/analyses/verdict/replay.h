/* The verdict family's private interface between the causes (causes.c) and the replay that prices their fixes
 * (replay.c; docs/report.md "Expected gains"). */
#ifndef PS_VERDICT_REPLAY_H
#define PS_VERDICT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "inside.h"

struct ps_report;
struct ps_view;
struct ps_names;

/* What the step thread was doing, whatever the GPU did then: the causes' sweep hands out one piece per stretch of
 * one kind and one name. */
enum ps_host_kind {
    PS_HOST_SYNC,                  /* in a synchronising call */
    PS_HOST_DATA,                  /* in a data-loading range */
    PS_HOST_WAIT,                  /* a thread-state sample found it asleep, blocked or stopped */
    PS_HOST_CALL,                  /* in any other CUDA API call (a launch, an allocation) */
    PS_HOST_COMPUTE,               /* in another range, a Python frame, or a sample found it running */
    PS_HOST_COPY,                  /* without GPU rows: in a copy range */
    PS_HOST_COMM,                  /* without GPU rows: in a collective range */
    PS_HOST_KINDS
};

struct ps_host_piece {
    int64_t s, e;
    uint32_t name;                 /* as the causes name it (string id; PS_NONE when unnamed) */
    uint8_t kind;                  /* enum ps_host_kind */
};

struct ps_host_timeline {          /* the step thread's pieces in time order, disjoint; time outside them: unknown */
    struct ps_host_piece *v;
    size_t n, cap;
};

/* replay.c: each cause's and verdict group's expected gain per average steady step (r->causes.c[].gain_ns,
 * .top_gain_ns, r->causes.group_gain_ns): the steady steps replayed in their recorded order (the step thread's
 * pieces h, each GPU stream in its order, every launch before its op, each synchronising call until the op it
 * waited for ends) once as recorded and once without the cause, the difference divided by the steady steps;
 * .top_gain_ns without the cause's time inside inside[c] only: the time the step thread spent in the function a
 * fix moves (ps_function_to_move), its callees too. Needs r->causes (steps, thread, top names) computed. 0 or
 * -ENOMEM. */
int ps_replay_gains(struct ps_report *r, const struct ps_view *sv, struct ps_names *names,
                    const struct ps_host_timeline *h, const struct ps_spans inside[]);

#endif
