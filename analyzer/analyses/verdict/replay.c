/* Expected gains by replay (replay.h ps_replay_gains; docs/report.md "Expected gains").
 *
 * A fix's gain is not the time its cause takes: without a data wait the GPU may still be busy with the previous
 * step, without a sync the host may reach its next launch no earlier. So the steady steps are replayed in the
 * order the trace recorded, once as they ran and once with a cause's time taken out, and the gain is the
 * difference per steady step. The replay's rules:
 *   - the step thread runs its pieces (what it did: replay.h) one after the other, a removed piece taking no time;
 *     time the trace says nothing about between them runs as recorded; the steps end when the step thread's last
 *     piece and the GPU's last op have; other threads' launches keep their place relative to the step thread's
 *     time (a backward thread launches when the step thread's backward does);
 *   - each GPU stream runs its ops in their order; an op starts when its stream is free and its launch has
 *     happened: an op whose stream was still busy when its launch began was queued, and starts as long after the
 *     op before it ends as it did, or LAUNCH_NS after its launch when that is later; an op launched onto an idle
 *     stream waited on its launch (or on another stream's work) and starts as long after its launch as it did
 *     (cross-stream waits keep their length); a removed op takes no time;
 *   - a synchronising call of the step thread (a copy to or from pageable memory too: ps_blocking_calls) returns
 *     when the op it waited for ends (the copy it launched itself, else the latest op to end before it returned),
 *     plus the time it took to return; a removed sync does not wait.
 * Replaying the steps as recorded reproduces them (replay_step_ns against step_ns says how closely). Memory: the
 * ops in the steady window and a few arrays of their size. */
#include <errno.h>
#include <stdlib.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "replay.h"

#define LAUNCH_NS 2000    /* a queued op's start after its launch at the soonest (CUDA's launch latency) */
#define SYNC_LOOKBACK 256
#define REPRODUCED 0.25   /* the replay as recorded within this share of the average steady step */ /* ops (by end) looked at for the one a synchronising call waited for */

enum gpu_class { G_KERNEL, G_COPY, G_COMM };

struct rop {                       /* a GPU op of the replay */
    int64_t at;                    /* its launch call's start (its own start when launched outside the trace) */
    int64_t start, end;            /* as recorded */
    int64_t lat, qgap;             /* start after launch when not queued / after the stream's previous op */
    uint32_t stream, launch;       /* model indices; launch PS_NONE when none */
    uint8_t cls, queued;
};

struct rsync {                     /* a synchronising call of the step thread */
    int64_t s, e;
    size_t waits;                  /* index into the ops of the op it waited for; SIZE_MAX: none */
};

struct removal {
    unsigned host;                 /* bit per enum ps_host_kind whose pieces take no time */
    const struct ps_spans *only;   /* NULL: all of those pieces; else only their time inside these spans */
    int unknown;                   /* 1: the step thread's time outside its pieces takes none either */
    int sync;                      /* 1: synchronising calls do not wait */
    unsigned gpu;                  /* bit per enum gpu_class whose ops take no time */
};

struct replay {
    const struct ps_host_timeline *h;
    struct rop *ops;               /* by launch, then start */
    size_t nops;
    struct rsync *syncs;           /* by start */
    size_t nsyncs;
    int64_t *pre_end;              /* per stream: the end of the ops launched before the window */
    int64_t *stream_end;           /* per stream, during a replay */
    size_t nstreams;
    int64_t w0, w1;                /* the steady window */
    int64_t host_end;              /* the step thread's last known activity in it (w0 when none) */
    int64_t nsteady;
};

struct cursor {                    /* the step thread's recorded time t is replayed time r */
    size_t k;                      /* the next piece */
    size_t span;                   /* the first of removal.only's spans not over yet */
    int64_t t, r;
    int64_t sync_s, sync_sr, sync_er;   /* the latest sync passed: its recorded start, replayed start and end */
};

/* What of [t, to) inside piece p (NULL: outside every piece) removal x takes out. */
static int64_t cut(const struct removal *x, struct cursor *c, const struct ps_host_piece *p, int64_t t, int64_t to)
{
    if (!p)
        return x->unknown ? to - t : 0;
    if (!(x->host >> p->kind & 1u))
        return 0;
    if (!x->only)
        return to - t;
    const struct ps_spans *o = x->only;
    while (c->span < o->n && o->v[c->span].e <= t)
        c->span++;
    int64_t in = 0;
    for (size_t k = c->span; k < o->n && o->v[k].s < to; k++)
        in += ps_overlap(t, to, o->v[k].s, o->v[k].e);
    return in;
}

/* Move the step thread on to recorded time T. */
static void advance(const struct replay *rp, const struct removal *x, struct cursor *c, int64_t T)
{
    const struct ps_host_timeline *h = rp->h;
    while (c->t < T) {
        if (c->k < h->n && h->v[c->k].e <= c->t) {
            c->k++;
            continue;
        }
        const struct ps_host_piece *p = c->k < h->n && h->v[c->k].s <= c->t ? &h->v[c->k] : NULL;
        int64_t to = p ? (p->e < T ? p->e : T) : c->k < h->n && h->v[c->k].s < T ? h->v[c->k].s : T;
        c->r += to - c->t - cut(x, c, p, c->t, to);
        c->t = to;
    }
}

/* Replayed time of recorded time T on the step thread (T may lie in the sync just passed). */
static int64_t replayed_at(const struct replay *rp, const struct removal *x, struct cursor *c, int64_t T)
{
    if (T >= c->t) {
        advance(rp, x, c, T);
        return c->r;
    }
    if (T >= c->sync_s) {
        int64_t r = c->sync_sr + (T - c->sync_s);
        return r < c->sync_er ? r : c->sync_er;
    }
    return c->r - (c->t - T) > c->sync_er ? c->r - (c->t - T) : c->r;
}

/* The steady window's length replayed under removal x. ends gets each op's replayed end. */
static int64_t replay_once(const struct replay *rp, const struct removal *x, int64_t *ends)
{
    struct cursor c = { .t = rp->w0, .r = rp->w0, .sync_s = INT64_MAX, .sync_sr = rp->w0, .sync_er = rp->w0 };
    for (size_t s = 0; s < rp->nstreams; s++)
        rp->stream_end[s] = rp->pre_end[s];
    int64_t last = rp->w0;
    size_t oi = 0, si = 0;
    while (oi < rp->nops || si < rp->nsyncs) {
        if (oi < rp->nops && (si == rp->nsyncs || rp->ops[oi].at <= rp->syncs[si].s)) {
            const struct rop *o = &rp->ops[oi];
            int64_t launch = replayed_at(rp, x, &c, o->at), free_at = rp->stream_end[o->stream];
            int64_t start = o->queued ? free_at + o->qgap : free_at;
            int64_t ready = launch + o->lat;
            start = start > ready ? start : ready;
            int64_t end = start + ((x->gpu >> o->cls & 1u) ? 0 : o->end - o->start);
            ends[oi++] = end;
            rp->stream_end[o->stream] = end;
            last = end > last ? end : last;
            continue;
        }
        const struct rsync *y = &rp->syncs[si++];
        if (y->e <= c.t)   /* inside a call already replayed */
            continue;
        int64_t s = replayed_at(rp, x, &c, y->s), e;
        const struct rop *w = y->waits != SIZE_MAX ? &rp->ops[y->waits] : NULL;
        if (!w) {
            e = s + (y->e - y->s);
        } else {
            int64_t lag = y->e > w->end ? y->e - w->end : 0, done = ends[y->waits];
            if (x->sync)
                e = s + (lag < y->e - y->s ? lag : y->e - y->s);
            else
                e = (done > s ? done : s) + lag;
        }
        c.sync_s = y->s;
        c.sync_sr = s;
        c.sync_er = e;
        c.t = y->e;
        c.r = e;
    }
    int64_t host = replayed_at(rp, x, &c, rp->host_end);
    last = host > last ? host : last;
    return last - rp->w0;
}

static int cmp_rop(const void *a, const void *b)
{
    const struct rop *x = a, *y = b;
    if (x->at != y->at)
        return (x->at > y->at) - (x->at < y->at);
    return (x->start > y->start) - (x->start < y->start);
}

struct by_end {
    int64_t end;
    size_t op;
};
static int cmp_by_end(const void *a, const void *b)
{
    const struct by_end *x = a, *y = b;
    return (x->end > y->end) - (x->end < y->end);
}

static int gpu_class(struct ps_names *names, const struct ps_gpu_op *op)
{
    if (op->kind == PS_GPU_MEMCPY || op->kind == PS_GPU_MEMSET)
        return G_COPY;
    if (op->kind != PS_GPU_KERNEL)
        return -1;
    unsigned f = ps_names_flags(names, op->name);
    return f & PS_NAME_ROCM_COPY ? G_COPY : f & PS_NAME_NCCL ? G_COMM : G_KERNEL;
}

/* The ops launched in [w0, host_end) (their launch call's start, or their own start without one), and the end
 * of those launched before on each stream. */
static int collect_ops(struct replay *rp, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    rp->nstreams = m->streams.n;
    int64_t *prev = calloc(rp->nstreams + 1, sizeof *prev);
    rp->pre_end = calloc(rp->nstreams + 1, sizeof *rp->pre_end);
    rp->stream_end = calloc(rp->nstreams + 1, sizeof *rp->stream_end);
    rp->ops = malloc((v->ngpu + 1) * sizeof *rp->ops);
    if (!prev || !rp->pre_end || !rp->stream_end || !rp->ops) {
        free(prev);
        return -ENOMEM;
    }
    for (size_t s = 0; s < rp->nstreams; s++)
        prev[s] = rp->pre_end[s] = INT64_MIN;
    for (size_t i = 0; i < v->ngpu; i++) {   /* start order */
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        int cls = gpu_class(names, &op);
        if (cls < 0 || op.stream >= rp->nstreams || op.end_ns < op.start_ns)
            continue;
        const struct ps_api_call *a = op.launch != PS_NONE ? ps_view_api_at(v, op.launch) : NULL;
        int64_t at = a && a->start_ns <= op.start_ns ? a->start_ns : op.start_ns, pe = prev[op.stream];
        prev[op.stream] = op.end_ns > pe ? op.end_ns : pe;
        if (at < rp->w0) {
            rp->pre_end[op.stream] = prev[op.stream];
            continue;
        }
        if (at >= rp->w1)
            continue;
        struct rop *o = &rp->ops[rp->nops++];
        *o = (struct rop){ .at = at, .start = op.start_ns, .end = op.end_ns, .stream = op.stream,
                           .launch = a ? op.launch : PS_NONE, .cls = (uint8_t)cls };
        o->queued = pe != INT64_MIN && pe > at;   /* its stream was busy when its launch began */
        o->qgap = o->queued && op.start_ns > pe ? op.start_ns - pe : 0;
        o->lat = op.start_ns - at;
        if (o->queued && o->lat > LAUNCH_NS)
            o->lat = LAUNCH_NS;
    }
    free(prev);
    if (rp->nops)
        qsort(rp->ops, rp->nops, sizeof *rp->ops, cmp_rop);
    return 0;
}

/* The step thread's synchronising calls in the window, each with the op it waited for. */
static int collect_syncs(struct replay *rp, const struct ps_report *r, const struct ps_view *v,
                         const uint8_t *blocking)
{
    struct by_end *by_end = malloc((rp->nops + 1) * sizeof *by_end);
    rp->syncs = malloc((v->napi + 1) * sizeof *rp->syncs);
    if (!by_end || !rp->syncs) {
        free(by_end);
        return -ENOMEM;
    }
    for (size_t i = 0; i < rp->nops; i++)
        by_end[i] = (struct by_end){ rp->ops[i].end, i };
    if (rp->nops)
        qsort(by_end, rp->nops, sizeof *by_end, cmp_by_end);
    for (size_t i = 0; i < v->napi; i++) {
        const struct ps_api_call *a = ps_view_api(v, i);
        uint32_t idx = ps_view_api_index(v, i);
        if (a->thread != r->causes.thread || a->start_ns < rp->w0 || a->start_ns >= rp->w1 ||
            a->end_ns < a->start_ns || !blocking[idx])
            continue;
        struct rsync *y = &rp->syncs[rp->nsyncs++];
        *y = (struct rsync){ a->start_ns, a->end_ns, SIZE_MAX };
        size_t lo = 0, hi = rp->nops;   /* the first op launched at the call's start: a blocking copy's own */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rp->ops[mid].at < a->start_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < rp->nops && rp->ops[k].at == a->start_ns; k++)
            if (rp->ops[k].launch == idx && (y->waits == SIZE_MAX || rp->ops[k].end > rp->ops[y->waits].end))
                y->waits = k;
        if (y->waits != SIZE_MAX)
            continue;
        lo = 0, hi = rp->nops;          /* else the latest op launched before it to end before it returned */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (by_end[mid].end <= a->end_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo, seen = 0; k-- > 0 && seen < SYNC_LOOKBACK; seen++) {
            const struct rop *o = &rp->ops[by_end[k].op];
            if (o->end <= a->start_ns)
                break;
            if (o->at < a->start_ns) {
                y->waits = by_end[k].op;
                break;
            }
        }
    }
    free(by_end);
    return 0;
}

/* The saving per steady step of removal x against the replay as recorded (base), never below 0. */
static int64_t gain(const struct replay *rp, const struct removal *x, int64_t base, int64_t *ends)
{
    int64_t len = replay_once(rp, x, ends), saved = base - len;
    return saved > 0 ? (saved + rp->nsteady / 2) / rp->nsteady : 0;
}

/* What removing each cause, and each verdict group, takes out. */
static void removals(const struct ps_causes *cs, struct removal cause[PS_CAUSE_N], struct removal group[PS_BN_UNKNOWN])
{
    for (int c = 0; c < PS_CAUSE_N; c++)
        cause[c] = (struct removal){ 0 };
    cause[PS_CAUSE_KERNEL].gpu = 1u << G_KERNEL;
    cause[PS_CAUSE_COPY].gpu = 1u << G_COPY;
    cause[PS_CAUSE_COPY].host = 1u << PS_HOST_COPY;
    cause[PS_CAUSE_COMM].gpu = 1u << G_COMM;
    cause[PS_CAUSE_COMM].host = 1u << PS_HOST_COMM;
    cause[PS_CAUSE_SYNC].sync = 1;
    cause[PS_CAUSE_DATA].host = 1u << PS_HOST_DATA;
    cause[PS_CAUSE_WAITING].host = 1u << PS_HOST_WAIT;
    cause[PS_CAUSE_LAUNCH].host = 1u << PS_HOST_CALL;
    cause[PS_CAUSE_HOST].host = 1u << PS_HOST_COMPUTE;
    /* a verdict group takes out all of its causes, as the verdict groups them (ps_cause_group); the
     * unexplained time is the step thread's time the trace says nothing about */
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        group[g] = (struct removal){ 0 };
    for (int c = 0; c < PS_CAUSE_N; c++) {
        enum ps_bottleneck g = ps_cause_group((enum ps_cause)c, cs->host_only);
        if (g == PS_BN_UNKNOWN)
            continue;
        group[g].host |= cause[c].host;
        group[g].gpu |= cause[c].gpu;
        group[g].sync |= cause[c].sync;
        group[g].unknown |= c == PS_CAUSE_UNEXPLAINED;
    }
}

/* No gains: every cause's and group's -1. */
static void unpriced(struct ps_causes *cs)
{
    for (int c = 0; c < PS_CAUSE_N; c++)
        cs->c[c].gain_ns = cs->c[c].top_gain_ns = -1;
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        cs->group_gain_ns[g] = -1;
}

static void replay_all(const struct replay *rp, struct ps_causes *cs, const struct ps_spans inside[], int64_t *ends)
{
    struct removal none = { 0 }, cause[PS_CAUSE_N], group[PS_BN_UNKNOWN];
    int64_t base = replay_once(rp, &none, ends);
    cs->replay_step_ns = (base + rp->nsteady / 2) / rp->nsteady;
    removals(cs, cause, group);
    for (int c = 0; c < PS_CAUSE_N; c++) {
        struct removal *x = &cause[c];
        int replayable = x->host || x->gpu || x->sync;
        cs->c[c].gain_ns = !replayable ? -1 : cs->c[c].ns > 0 ? gain(rp, x, base, ends) : 0;
        cs->c[c].top_gain_ns = -1;
        if (replayable && x->host && !x->gpu && inside[c].n) {   /* a host cause's first name alone */
            x->only = &inside[c];
            cs->c[c].top_gain_ns = gain(rp, x, base, ends);
        }
    }
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        cs->group_gain_ns[g] = gain(rp, &group[g], base, ends);
}

int ps_replay_gains(struct ps_report *r, const struct ps_view *sv, struct ps_names *names,
                    const struct ps_host_timeline *h, const struct ps_spans inside[])
{
    struct ps_causes *cs = &r->causes;
    cs->replayed = 0;
    unpriced(cs);
    size_t first = cs->startup_steps, last = r->nsteps - 1;
    if (!cs->computed || cs->steps == 0 || first > last)
        return 0;
    struct replay rp = { .h = h, .w0 = r->steps[first].start_ns, .w1 = r->steps[last].end_ns,
                         .nsteady = (int64_t)cs->steps };
    /* the steps end with the step thread's last known activity or the GPU's last op, not with a step range that
     * outlasts both: time the trace says nothing of at the end is no work a replay must wait for */
    rp.host_end = h->n ? h->v[h->n - 1].e : rp.w0;
    int64_t *ends = NULL;
    int rc = collect_ops(&rp, sv, names);
    uint8_t *blocking = rc == 0 ? ps_blocking_calls(sv, names) : NULL;
    if (rc == 0 && !blocking)
        rc = -ENOMEM;
    if (rc == 0)
        rc = collect_syncs(&rp, r, sv, blocking);
    free(blocking);
    if (rc == 0 && !(ends = malloc((rp.nops + 1) * sizeof *ends)))
        rc = -ENOMEM;
    if (rc == 0)
        replay_all(&rp, cs, inside, ends);
    /* a replay that does not reproduce the steps as recorded (within REPRODUCED of them: the step thread or its
     * launches not in the trace) prices nothing: the gains stay unknown */
    int64_t off = rc == 0 ? cs->replay_step_ns - cs->step_ns : 0;
    if (rc == 0 && cs->step_ns > 0 && (double)(off < 0 ? -off : off) <= REPRODUCED * (double)cs->step_ns) {
        cs->replayed = 1;
    } else {
        unpriced(cs);
    }
    free(ends);
    free(rp.ops);
    free(rp.syncs);
    free(rp.pre_end);
    free(rp.stream_end);
    return rc;
}
