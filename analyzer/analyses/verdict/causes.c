/* Where the step goes (analyses/verdict.h ps_causes_compute; docs/report.md "Where the step goes").
 *
 * One sweep over the step's rows in start order: the GPU ops of the analysed process, and on the step thread its
 * CUDA API calls, its ranges (NVTX, record_function, cpu_op, python_function) and its thread-state samples, plus
 * three kinds of made intervals: each launched op's wait between its launch call's return and its start, the
 * idle time a synchronising call's wait exposed after it returned, and each sample's stretch until the next one.
 * Every instant of a step goes to the first role active then, in the order of enum role below, and each role to
 * its cause. Host causes are named by the deepest Python frame (python_function) covering the instant, else the
 * deepest range, else the thread; sync by the op that issued the call; a wait on a stream by the op waiting, and
 * by the op it waits for where the trace says (stream_waits.c).
 * Memory: the made intervals and a stack of open frames; names are summed per string id. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_schema.h"
#include "replay.h"
#include "stream_waits.h"

/* The sweep's roles, highest precedence first (docs/report.md "Where the step goes" gives the reasons). */
enum role {
    R_KERNEL, R_COPY, R_COMM,      /* the GPU at work (the step thread's copy and collective ranges without GPU) */
    R_PRE,                         /* a launched op waiting before its device's or its stream's first traced op
                                    * began */
    R_QUEUE,                       /* a launched op waiting longer than a launch takes */
    R_SYNC,                        /* the step thread in a synchronising call */
    R_SYNC_AFTER,                  /* the idle time after it that its wait exposed */
    R_DATA,                        /* a data-loading range */
    R_WAIT,                        /* a sample found the step thread asleep, blocked or stopped */
    R_LAUNCH,                      /* a CUDA API call of the step thread */
    R_LAUNCH_WAIT,                 /* a launched op waiting within a launch's latency */
    R_HOST,                        /* any other range of the step thread */
    R_RUN,                         /* a sample found the step thread running */
    R_N
};
static const enum ps_cause role_cause[R_N] = {
    PS_CAUSE_KERNEL, PS_CAUSE_COPY, PS_CAUSE_COMM, PS_CAUSE_PRETRACE, PS_CAUSE_STREAM_WAIT, PS_CAUSE_SYNC,
    PS_CAUSE_SYNC, PS_CAUSE_DATA, PS_CAUSE_WAITING, PS_CAUSE_LAUNCH, PS_CAUSE_LAUNCH, PS_CAUSE_HOST, PS_CAUSE_HOST
};
/* The roles that are the step thread's own activity, and what each is as the replay knows it (replay.h); the
 * copy and collective roles are the thread's only without GPU rows. */
#define HOST_ROLES \
    ((1u << R_SYNC) | (1u << R_DATA) | (1u << R_WAIT) | (1u << R_LAUNCH) | (1u << R_HOST) | (1u << R_RUN))
#define HOST_ONLY_ROLES ((1u << R_COPY) | (1u << R_COMM))
static const int8_t role_host_kind[R_N] = {
    [R_KERNEL] = -1, [R_COPY] = PS_HOST_COPY, [R_COMM] = PS_HOST_COMM, [R_PRE] = -1, [R_QUEUE] = -1,
    [R_SYNC] = PS_HOST_SYNC, [R_SYNC_AFTER] = -1, [R_DATA] = PS_HOST_DATA, [R_WAIT] = PS_HOST_WAIT,
    [R_LAUNCH] = PS_HOST_CALL, [R_LAUNCH_WAIT] = -1, [R_HOST] = PS_HOST_COMPUTE, [R_RUN] = PS_HOST_COMPUTE,
};

/* A launched op that starts within this long after its launch call returned, on an idle device, waited on the
 * launch itself (CUDA's launch latency is a few µs), not on other work. */
#define LAUNCH_LATENCY_NS 50000
#define MAX_DEVS 64

#define R_PY_SAMPLE R_N            /* a made interval's role: a Python stack sample (names, no role of its own) */

struct made {                      /* a made interval: a launched op's wait, a sync's exposed idle, a sample */
    int64_t s, e;
    uint32_t name;                 /* what names it (string id, PS_NONE: named by the frames open then) */
    uint32_t call;                 /* a sync's API call (string id); a Python sample's stack; a wait on a stream:
                                    * the op waited for (view index, stream_waits.h); else PS_NONE */
    uint8_t role;
};

struct frame {
    int64_t s, e;
    uint32_t name;
};
struct stack {
    struct frame *v;
    size_t n, cap;
};

struct pass {
    const struct ps_report *r;
    const struct ps_model *m;
    struct ps_names *names;
    struct ps_windows *w[PS_CAUSE_N];
    int64_t *tally[PS_CAUSE_N];    /* per string id: time in the steady steps (allocated when first named) */
    uint32_t *sync_call;           /* per string id of a sync issuer: the API call it issued */
    uint8_t *blocking;             /* per API call (model index): 1 when it blocks (ps_blocking_calls) */
    size_t nstr;
    struct stack py, ops;          /* the step thread's open Python frames and other ranges, outermost first */
    uint32_t last_name[R_N];       /* the name of the latest event fed per role */
    uint32_t last_call;            /* the latest synchronising call's name */
    uint32_t fallback;             /* the step thread's name */
    uint32_t sample_name;          /* the running function of the step thread's latest Python stack sample, while
                                    * it holds (until sample_end) */
    int64_t sample_start, sample_end;
    uint32_t sample_range;         /* the innermost range open when it was taken (PS_NONE: none) */
    uint32_t sample_stack;         /* its stack (index into model.py_stacks); PS_NONE while no sample holds */
    int64_t *steady_s, *steady_e;  /* the steady steps' windows, in start order */
    size_t nsteady, cur;
    int64_t best_len[PS_CAUSE_N];  /* per cause: its longest named stretch, its name and Python chain */
    uint32_t best_name[PS_CAUSE_N];
    uint32_t best_chain[PS_CAUSE_N][PS_CAUSE_CHAIN];
    size_t best_nchain[PS_CAUSE_N];
    int64_t python_frames, python_samples;
    struct ps_host_timeline host;  /* what the step thread did in the steady steps, for the replay */
    struct ps_stream_waits *waits; /* what waits on a stream wait for (NULL: the trace does not say) */
    uint32_t last_waited;          /* the op the latest wait on a stream fed waits for (PS_NONE: not known) */
    int oom;
};

static int push(struct stack *k, int64_t s, int64_t e, uint32_t name)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        struct frame *v = realloc(k->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = (struct frame){ s, e, name };
    return 0;
}

static void pop_ended(struct stack *k, int64_t t)
{
    while (k->n && k->v[k->n - 1].e <= t)
        k->n--;
}

/* Time of [s, e) inside the steady steps (pieces come in increasing order: the cursor only moves on). */
static int64_t steady_overlap(struct pass *p, int64_t s, int64_t e)
{
    while (p->cur < p->nsteady && p->steady_e[p->cur] <= s)
        p->cur++;
    int64_t t = 0;
    for (size_t k = p->cur; k < p->nsteady && p->steady_s[k] < e; k++)
        t += ps_overlap(s, e, p->steady_s[k], p->steady_e[k]);
    return t;
}

/* Cause c's chain from the Python stack sample that holds: its innermost PS_CAUSE_CHAIN functions, outermost first. */
static void sample_chain(struct pass *p, enum ps_cause c)
{
    const struct ps_model *m = p->m;
    const struct ps_py_stack *k = &m->py_stacks.v[p->sample_stack];
    uint32_t n = k->n < PS_CAUSE_CHAIN ? k->n : PS_CAUSE_CHAIN;
    p->best_nchain[c] = 0;
    for (uint32_t lv = n; lv-- > 0;) {
        uint32_t fr = (size_t)k->first + lv < m->py_stack_frames.n ? m->py_stack_frames.v[k->first + lv] : PS_NONE;
        if (fr < m->py_frames.n)
            p->best_chain[c][p->best_nchain[c]++] = m->py_frames.v[fr].function;
    }
}

/* Add [s, e)'s steady time to cause c under `name`, keeping the Python chain of the cause's longest stretch. */
static void credit(struct pass *p, enum ps_cause c, uint32_t name, int64_t s, int64_t e)
{
    int64_t t = steady_overlap(p, s, e);
    if (t <= 0 || name == PS_NONE || name >= p->nstr)
        return;
    if (!p->tally[c] && !(p->tally[c] = calloc(p->nstr, sizeof *p->tally[c]))) {
        p->oom = 1;
        return;
    }
    p->tally[c][name] += t;
    if (c == PS_CAUSE_SYNC && p->sync_call)
        p->sync_call[name] = p->last_call;
    if (t > p->best_len[c]) {
        p->best_len[c] = t;
        p->best_name[c] = name;
        size_t from = p->py.n > PS_CAUSE_CHAIN ? p->py.n - PS_CAUSE_CHAIN : 0;
        p->best_nchain[c] = 0;
        for (size_t k = from; k < p->py.n; k++)
            p->best_chain[c][p->best_nchain[c]++] = p->py.v[k].name;
        if (!p->py.n && p->sample_stack != PS_NONE && s < p->sample_end)   /* the sample's stack, outermost first */
            sample_chain(p, c);
    }
}

/* The step thread's piece [s, e) of kind k named `name`, joined to the one before when it continues it. */
static void host_add(struct pass *p, int k, uint32_t name, int64_t s, int64_t e)
{
    struct ps_host_timeline *h = &p->host;
    s = s > p->steady_s[0] ? s : p->steady_s[0];
    e = e < p->steady_e[p->nsteady - 1] ? e : p->steady_e[p->nsteady - 1];
    if (e <= s)
        return;
    struct ps_host_piece *last = h->n ? &h->v[h->n - 1] : NULL;
    if (last && last->e == s && last->kind == k && last->name == name) {
        last->e = e;
        return;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        struct ps_host_piece *v = realloc(h->v, cap * sizeof *v);
        if (!v) {
            p->oom = 1;
            return;
        }
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = (struct ps_host_piece){ s, e, name, (uint8_t)k };
}

/* Name [s, e) by the frames open then: the deepest Python frame, else the function perfscope's Python stack
 * sample found running, else the deepest range, else `fallback`; a frame that ends inside names its part only.
 * Each part is credited to cause c when `to_cause`, and is the step thread's piece of kind k when k >= 0. */
static void name_by_frames(struct pass *p, enum ps_cause c, uint32_t fallback, int64_t s, int64_t e, int to_cause,
                           int k)
{
    for (int64_t t = s; t < e;) {
        pop_ended(&p->py, t);
        pop_ended(&p->ops, t);
        const struct frame *f = p->py.n && p->py.v[p->py.n - 1].s <= t ? &p->py.v[p->py.n - 1] : NULL;
        uint32_t name;
        int64_t to;
        /* a sample names its stretch only inside the range it was taken in, or one of the same name (the next
         * Dataset __getitem__ of a batch): one taken before another range began says nothing of that range */
        const struct frame *o = p->ops.n && p->ops.v[p->ops.n - 1].s <= t ? &p->ops.v[p->ops.n - 1] : NULL;
        if (!f && t < p->sample_end && (!o || p->sample_start >= o->s || o->name == p->sample_range)) {
            to = p->sample_end < e ? p->sample_end : e;
            name = p->sample_name;
        } else {
            if (!f && p->ops.n && p->ops.v[p->ops.n - 1].s <= t)
                f = &p->ops.v[p->ops.n - 1];
            to = f && f->e < e ? f->e : e;
            name = f ? f->name : fallback;
        }
        if (to_cause)
            credit(p, c, name, t, to);
        if (k >= 0)
            host_add(p, k, name, t, to);
        t = to;
    }
}

/* A piece of the sweep: its time to the cause of the first role active, and what the step thread did then to the
 * host timeline the replay reads. */
static void piece(void *ctx, int64_t s, int64_t e, unsigned active)
{
    struct pass *p = ctx;
    int role = __builtin_ctz(active);
    enum ps_cause c = role_cause[role];
    unsigned host = active & (HOST_ROLES | (p->r->causes.host_only ? HOST_ONLY_ROLES : 0u));
    int hrole = host ? __builtin_ctz(host) : -1, k = hrole >= 0 ? role_host_kind[hrole] : -1;
    uint32_t fallback = hrole == R_DATA ? p->last_name[R_DATA] : p->fallback;
    ps_windows_piece(p->w[c], s, e);
    switch (role) {
    case R_PRE: case R_QUEUE: case R_SYNC: case R_SYNC_AFTER: case R_LAUNCH:
        credit(p, c, p->last_name[role], s, e);
        if (role == R_QUEUE && ps_stream_waits_credit(p->waits, p->last_waited, steady_overlap(p, s, e)) < 0)
            p->oom = 1;
        break;
    case R_LAUNCH_WAIT:
        credit(p, c, p->last_name[R_LAUNCH], s, e);
        break;
    case R_DATA: case R_WAIT: case R_HOST: case R_RUN:   /* the step thread's own: named once for both */
        name_by_frames(p, c, fallback, s, e, 1, k);
        return;
    default:
        break;
    }
    if (k < 0)
        return;
    if (hrole == R_SYNC || hrole == R_LAUNCH)
        host_add(p, k, p->last_name[hrole], s, e);
    else
        name_by_frames(p, c, fallback, s, e, 0, k);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_made(const void *a, const void *b)
{
    const struct made *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* The step thread: the thread of the step ranges, else the one with the most API calls, else the most ranges;
 * PS_NONE when the rows hold neither (every thread is then read). */
static uint32_t step_thread(const struct ps_report *r, const struct ps_view *v)
{
    if (r->step_thread != PS_NONE)
        return r->step_thread;
    size_t nt = v->m->threads.n;
    uint32_t *count = calloc(nt + 1, sizeof *count), best = PS_NONE;
    if (!count)
        return PS_NONE;
    for (size_t i = 0; i < v->napi; i++)
        if (ps_view_api(v, i)->thread < nt)
            count[ps_view_api(v, i)->thread] += 1024;
    for (size_t i = 0; i < v->nranges; i++)
        if (ps_view_range(v, i)->thread < nt)
            count[ps_view_range(v, i)->thread]++;
    for (uint32_t t = 0; t < nt; t++)
        if (count[t] && (best == PS_NONE || count[t] > count[best]))
            best = t;
    free(count);
    return best;
}

static int on_thread(const struct pass *p, uint32_t thread)
{
    return p->r->causes.thread == PS_NONE || thread == p->r->causes.thread;
}

/* The start of the first GPU op (not a synchronisation record) of v at or after t; INT64_MAX when none. */
static int64_t next_gpu_start(const struct ps_view *v, int64_t t)
{
    for (size_t i = ps_view_gpu_lower_bound(v, t); i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        if (ps_view_gpu_attr(v, g)->kind != PS_GPU_SYNC)
            return g->start_ns;
    }
    return INT64_MAX;
}

struct made_list {
    struct made *v;
    size_t n, cap;
};

static int add_made(struct made_list *l, int64_t s, int64_t e, uint32_t name, uint32_t call, int role)
{
    if (e <= s && role != R_PY_SAMPLE)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct made *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct made){ s, e, name, call, (uint8_t)role };
    return 0;
}

/* Each launched op's wait from its launch call's return to its start, with the role its length and place give; a
 * wait on a stream for an op the trace names (sw) is that op's until it ended (`call`), the rest the waiting op's. */
static int made_queue_waits(const struct ps_report *r, const struct ps_view *v, struct ps_names *names,
                            struct ps_stream_waits *sw, struct made_list *l)
{
    const struct ps_model *m = v->m;
    int32_t dev[MAX_DEVS];
    int64_t first_busy[MAX_DEVS];
    size_t ndev = 0;
    uint8_t *stream_ran = calloc(m->streams.n + 1, 1);   /* a traced op of the stream began already */
    int rc = stream_ran ? 0 : -ENOMEM;
    for (size_t i = 0; i < v->ngpu && rc == 0; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind == PS_GPU_SYNC)
            continue;
        int stream_first = op.stream < m->streams.n && !stream_ran[op.stream];
        if (op.stream < m->streams.n)
            stream_ran[op.stream] = 1;
        size_t d = 0;
        while (d < ndev && dev[d] != m->streams.v[op.stream].device)
            d++;
        if (d == ndev && ndev < MAX_DEVS) {
            dev[ndev] = m->streams.v[op.stream].device;
            first_busy[ndev++] = INT64_MAX;
        }
        if (d < ndev && op.end_ns > op.start_ns && first_busy[d] == INT64_MAX)
            first_busy[d] = op.start_ns;
        if (op.launch == PS_NONE)
            continue;
        const struct ps_api_call *a = ps_view_api_at(v, op.launch);
        int64_t wait = op.start_ns - a->end_ns;
        int device_first = d < ndev && op.start_ns <= first_busy[d];
        /* the first traced op of its device or stream that waited: behind work the trace does not hold (launched
         * before the trace began, or an event recorded by it) */
        int role = wait < LAUNCH_LATENCY_NS || (ps_names_flags(names, a->name) & PS_NAME_GRAPH_LAUNCH)
                       ? R_LAUNCH_WAIT
                   : device_first || stream_first ? R_PRE
                                                  : R_QUEUE;
        /* the device's first op waiting: its device ran work from before the trace since the rows analysed began
         * (as backlog.c takes it: the launch call and what preceded it ran while that work did) */
        int64_t from = role == R_PRE && device_first && r->run_start_ns < a->end_ns ? r->run_start_ns : a->end_ns;
        int64_t until = from;
        uint32_t waited = role == R_QUEUE ? ps_stream_waits_on(sw, i, a->end_ns, &until) : PS_NONE;
        if (waited != PS_NONE)
            rc = add_made(l, from, until, op.name, waited, role);
        if (rc == 0)
            rc = add_made(l, until, op.start_ns, role == R_LAUNCH_WAIT ? PS_NONE : op.name, PS_NONE, role);
    }
    free(stream_ran);
    return rc;
}

/* The step thread's Python stack samples (perfscope's Python hook, PERFSCOPE_PYTHON_SAMPLES) inside [a, b): each
 * names its running function over its stretch. */
static int made_py_samples(struct pass *p, int64_t a, int64_t b, struct made_list *l)
{
    const struct ps_model *m = p->m;
    size_t *idx, n;
    int64_t *end;
    int rc = p->r->causes.thread == PS_NONE ? 0
             : ps_sample_stretches(m->py_samples.v, m->py_samples.n, ps_py_sample_time, p->r->causes.thread, &idx, &end, &n);
    if (p->r->causes.thread == PS_NONE || rc < 0)
        return rc;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const struct ps_py_sample *s = &m->py_samples.v[idx[k]];
        if (s->time_ns < a || s->time_ns >= b || s->stack >= m->py_stacks.n)
            continue;
        const struct ps_py_stack *st = &m->py_stacks.v[s->stack];
        uint32_t fr = st->n && st->first < m->py_stack_frames.n ? m->py_stack_frames.v[st->first] : PS_NONE;
        if (fr < m->py_frames.n) {
            rc = add_made(l, s->time_ns, end[k], m->py_frames.v[fr].function, s->stack, R_PY_SAMPLE);
            p->python_samples++;
        }
    }
    free(idx);
    free(end);
    return rc;
}

/* The step thread's thread-state samples inside [a, b): asleep, blocked or stopped (S, D, T) over its stretch is
 * waiting, running (R) is host compute. */
static int made_samples(const struct pass *p, int64_t a, int64_t b, struct made_list *l)
{
    const struct ps_model *m = p->m;
    size_t *idx, n;
    int64_t *end;
    int rc = p->r->causes.thread == PS_NONE ? 0
             : ps_sample_stretches(m->thread_samples.v, m->thread_samples.n, ps_thread_sample_time, p->r->causes.thread, &idx,
                         &end, &n);
    if (p->r->causes.thread == PS_NONE || rc < 0)
        return rc;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const struct ps_thread_sample *s = &m->thread_samples.v[idx[k]];
        if (s->time_ns < a || s->time_ns >= b)
            continue;
        int wait = s->state == PS_THREAD_SLEEPING || s->state == PS_THREAD_BLOCKED_IO || s->state == PS_THREAD_STOPPED;
        if (wait || s->state == PS_THREAD_RUNNING)
            rc = add_made(l, s->time_ns, end[k], PS_NONE, PS_NONE, wait ? R_WAIT : R_RUN);
    }
    free(idx);
    free(end);
    return rc;
}

/* The step thread's ranges that the causes read (NVTX, record_function, cpu_op, python_function; not step ranges,
 * marks or device-side copies); *role gets theirs. */
static int host_frame(const struct pass *p, const struct ps_range *g, int *role)
{
    if (g->kind == PS_RANGE_NVTX_MARK || g->kind == PS_RANGE_GPU_ANNOTATION || g->end_ns <= g->start_ns ||
        !on_thread(p, g->thread))
        return 0;
    unsigned f = ps_names_flags(p->names, g->name);
    if (f & PS_NAME_STEP)
        return 0;
    int host_only = p->r->causes.host_only;
    *role = (f & PS_NAME_COPY) && host_only          ? R_COPY
          : (f & PS_NAME_HOST_COMM) && host_only     ? R_COMM
          : (f & PS_NAME_DATA)                       ? R_DATA
                                                     : R_HOST;
    return 1;
}

/* Each synchronising call of the step thread, named by the op or range that issued it (the deepest one open when
 * it began, else the call), and the idle time its wait exposed: after it returns, the GPU idles until its next
 * op, and without the call the host would have reached its next launch as much earlier as it waited. So the
 * first min(the call's length, that gap) of the gap is the call's; the rest is what the host did then. */
static int made_syncs(struct pass *p, const struct ps_view *v, struct made_list *l)
{
    struct stack ops = { 0 };
    size_t ai = 0, ri = 0;
    int rc = 0, role;
    while (rc == 0 && (ai < v->napi || ri < v->nranges)) {
        const struct ps_api_call *a = ai < v->napi ? ps_view_api(v, ai) : NULL;
        const struct ps_range *g = ri < v->nranges ? ps_view_range(v, ri) : NULL;
        if (g && (!a || g->start_ns <= a->start_ns)) {
            ri++;
            if (host_frame(p, g, &role) && g->kind != PS_RANGE_PYTHON) {
                pop_ended(&ops, g->start_ns);
                rc = push(&ops, g->start_ns, g->end_ns, g->name);
            }
            continue;
        }
        ai++;
        if (!on_thread(p, a->thread) || !p->blocking[ps_view_api_index(v, ai - 1)])
            continue;
        pop_ended(&ops, a->start_ns);
        uint32_t issuer = ops.n ? ops.v[ops.n - 1].name : a->name;
        int64_t gap = p->r->causes.host_only ? 0 : next_gpu_start(v, a->end_ns), len = a->end_ns - a->start_ns;
        int64_t exposed = gap > a->end_ns ? (gap - a->end_ns < len ? gap - a->end_ns : len) : 0;
        if ((rc = add_made(l, a->start_ns, a->end_ns, issuer, a->name, R_SYNC)) == 0)
            rc = add_made(l, a->end_ns, a->end_ns + exposed, issuer, a->name, R_SYNC_AFTER);
    }
    free(ops.v);
    return rc;
}

/* The role of a GPU op: kernels, copies (ROCm's copy kernels too) and collectives (-1: a synchronisation record). */
static int gpu_role(struct ps_names *names, const struct ps_gpu_op *op)
{
    if (op->kind == PS_GPU_MEMCPY || op->kind == PS_GPU_MEMSET)
        return R_COPY;
    if (op->kind != PS_GPU_KERNEL)
        return -1;
    unsigned f = ps_names_flags(names, op->name);
    return f & PS_NAME_ROCM_COPY ? R_COPY : f & PS_NAME_NCCL ? R_COMM : R_KERNEL;
}

/* Feed the sweep every event in start order: a merge of the GPU ops, API calls, ranges and made intervals. */
static int feed(struct pass *p, const struct ps_view *v, struct ps_sweep *w, const struct made_list *l)
{
    size_t gi = p->r->causes.host_only ? v->ngpu : 0, ai = 0, ri = 0, mi = 0;
    int role;
    for (;;) {
        int64_t gs = gi < v->ngpu ? ps_view_gpu_row(v, gi)->start_ns : INT64_MAX;
        int64_t as = ai < v->napi ? ps_view_api(v, ai)->start_ns : INT64_MAX;
        int64_t rs = ri < v->nranges ? ps_view_range(v, ri)->start_ns : INT64_MAX;
        int64_t ms = mi < l->n ? l->v[mi].s : INT64_MAX;
        if (gs == INT64_MAX && as == INT64_MAX && rs == INT64_MAX && ms == INT64_MAX)
            return p->oom ? -ENOMEM : 0;
        if (gs <= as && gs <= rs && gs <= ms) {
            const struct ps_gpu_op op = ps_view_gpu(v, gi++);
            ps_sweep_add(w, gpu_role(p->names, &op), op.start_ns, op.end_ns);
        } else if (as <= rs && as <= ms) {
            const struct ps_api_call *a = ps_view_api(v, ai++);
            if (on_thread(p, a->thread) && !p->blocking[ps_view_api_index(v, ai - 1)]) {
                ps_sweep_add(w, R_LAUNCH, a->start_ns, a->end_ns);
                p->last_name[R_LAUNCH] = a->name;
            }
        } else if (rs <= ms) {
            const struct ps_range *g = ps_view_range(v, ri++);
            if (!host_frame(p, g, &role))
                continue;
            ps_sweep_add(w, role, g->start_ns, g->end_ns);
            if (role == R_DATA)
                p->last_name[R_DATA] = g->name;
            struct stack *k = g->kind == PS_RANGE_PYTHON ? &p->py : &p->ops;
            p->python_frames += g->kind == PS_RANGE_PYTHON;
            pop_ended(k, g->start_ns);
            if (push(k, g->start_ns, g->end_ns, g->name) < 0)
                return -ENOMEM;
        } else {
            const struct made *x = &l->v[mi++];
            if (x->role == R_PY_SAMPLE) {   /* the sweep hands out what came before x->s first */
                ps_sweep_add(w, R_RUN, x->s, x->e);   /* the thread ran Python then: host compute */
                p->sample_name = x->name;
                p->sample_start = x->s;
                pop_ended(&p->ops, x->s);
                p->sample_range = p->ops.n ? p->ops.v[p->ops.n - 1].name : PS_NONE;
                p->sample_end = x->e;
                p->sample_stack = x->call;
                continue;
            }
            ps_sweep_add(w, x->role, x->s, x->e);
            if (x->name != PS_NONE)
                p->last_name[x->role] = x->name;
            if (x->role == R_QUEUE)
                p->last_waited = x->call;
            if (x->role == R_SYNC || x->role == R_SYNC_AFTER)
                p->last_call = x->call;
        }
    }
}

/* Start-up: leading steps, each more than twice the median of the steps after it (worker start-up, first-step
 * warm-up, the allocator growing), at most half of them and never leaving fewer than two. */
static size_t startup_steps(const struct ps_report *r)
{
    size_t n = r->nsteps, k = 0;
    int64_t *d = malloc((n + 1) * sizeof *d);
    if (!d)
        return 0;
    while (k < n / 2 && n - k - 1 >= 2) {
        size_t m = 0;
        for (size_t i = k + 1; i < n; i++)
            d[m++] = r->steps[i].end_ns - r->steps[i].start_ns;
        qsort(d, m, sizeof *d, cmp_i64);
        int64_t median = d[m / 2];
        if (r->steps[k].end_ns - r->steps[k].start_ns <= 2 * median)
            break;
        k++;
    }
    free(d);
    return k;
}

/* The chain of the step thread's first Python stack sample holding function `name` (at any level: the chain ends
 * with it), as cause c's best. */
static void first_sample_chain(struct pass *p, enum ps_cause c, uint32_t name)
{
    const struct ps_model *m = p->m;
    for (size_t i = 0; i < m->py_samples.n; i++) {
        const struct ps_py_sample *s = &m->py_samples.v[i];
        if (s->thread != p->r->causes.thread || s->stack >= m->py_stacks.n)
            continue;
        const struct ps_py_stack *k = &m->py_stacks.v[s->stack];
        for (uint32_t lv = 0; lv < k->n; lv++) {   /* the function at any level: its callers end the chain */
            size_t at = (size_t)k->first + lv;
            uint32_t fr = at < m->py_stack_frames.n ? m->py_stack_frames.v[at] : PS_NONE;
            if (fr >= m->py_frames.n || m->py_frames.v[fr].function != name)
                continue;
            uint32_t top = lv + PS_CAUSE_CHAIN < k->n ? lv + PS_CAUSE_CHAIN : k->n;
            p->best_nchain[c] = 0;
            for (uint32_t up = top; up-- > lv;) {
                size_t f = (size_t)k->first + up;
                uint32_t g = f < m->py_stack_frames.n ? m->py_stack_frames.v[f] : PS_NONE;
                if (g < m->py_frames.n)
                    p->best_chain[c][p->best_nchain[c]++] = m->py_frames.v[g].function;
            }
            p->best_name[c] = name;
            return;
        }
    }
}

static int cmp_name_desc(const void *a, const void *b)
{
    const struct ps_cause_name *x = a, *y = b;
    return (x->ns < y->ns) - (x->ns > y->ns);
}

/* Each cause's largest names per average steady step, and the Python chain of the first. */
static void top_names(struct pass *p, struct ps_causes *cs)
{
    int64_t n = (int64_t)cs->steps;
    for (int c = 0; c < PS_CAUSE_N; c++) {
        struct ps_cause_stat *st = &cs->c[c];
        st->ntop = 0;
        st->function = PS_NONE;
        for (size_t id = 0; p->tally[c] && id < p->nstr; id++) {
            int64_t ns = (p->tally[c][id] + n / 2) / n;
            if (ns <= 0)
                continue;
            struct ps_cause_name x = { (uint32_t)id, ns };
            if (st->ntop < PS_CAUSE_TOP)
                st->top[st->ntop++] = x;
            else if (ns > st->top[PS_CAUSE_TOP - 1].ns)
                st->top[PS_CAUSE_TOP - 1] = x;
            else
                continue;
            qsort(st->top, st->ntop, sizeof *st->top, cmp_name_desc);
        }
        st->nchain = 0;
        if (st->ntop && p->best_name[c] != st->top[0].name)
            first_sample_chain(p, (enum ps_cause)c, st->top[0].name);
        if (st->ntop && p->best_name[c] == st->top[0].name && p->best_nchain[c]) {
            memcpy(st->chain, p->best_chain[c], p->best_nchain[c] * sizeof *st->chain);
            st->nchain = p->best_nchain[c];
        }
        st->call = c == PS_CAUSE_SYNC && st->ntop && p->sync_call ? p->sync_call[st->top[0].name] : PS_NONE;
    }
}

/* Per step: the causes from the sweep's windows; what no role covered is unexplained (host compute of the step
 * thread, by its name, without GPU rows). Then the steady steps' averages, summing to the average steady step. */
static void step_causes(struct pass *p, struct ps_report *r)
{
    struct ps_causes *cs = &r->causes;
    enum ps_cause rest = cs->host_only ? PS_CAUSE_HOST : PS_CAUSE_UNEXPLAINED;
    int64_t sum[PS_CAUSE_N] = { 0 }, dur = 0, rest_named = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        int64_t d = s->end_ns - s->start_ns, parts = 0;
        for (int c = 0; c < PS_CAUSE_N; c++)
            parts += s->cause_ns[c] = ps_windows_get(p->w[c], i);
        int64_t left = d - parts > 0 ? d - parts : 0;
        s->cause_ns[rest] += left;
        if (s->startup)
            continue;
        dur += d;
        rest_named += left;
        for (int c = 0; c < PS_CAUSE_N; c++)
            sum[c] += s->cause_ns[c];
    }
    if (cs->host_only && rest_named > 0 && p->fallback != PS_NONE && p->fallback < p->nstr &&
        (p->tally[rest] || (p->tally[rest] = calloc(p->nstr, sizeof *p->tally[rest]))))
        p->tally[rest][p->fallback] += rest_named;
    int64_t n = (int64_t)cs->steps, parts = 0;
    cs->step_ns = n ? (dur + n / 2) / n : 0;
    for (int c = 0; c < PS_CAUSE_N; c++)
        parts += cs->c[c].ns = n ? (sum[c] + n / 2) / n : 0;
    /* rounding: the cause that took the rest absorbs it, else the largest */
    int64_t fix = cs->step_ns - parts;
    int big = rest;
    for (int c = 0; c < PS_CAUSE_N && cs->c[rest].ns + fix < 0; c++)
        big = cs->c[c].ns > cs->c[big].ns ? c : big;
    cs->c[big].ns += fix;
    for (int c = 0; c < PS_CAUSE_N; c++)
        cs->c[c].share = cs->step_ns > 0 ? (double)cs->c[c].ns / (double)cs->step_ns : NAN;
}

int ps_causes_compute(struct ps_report *r, const struct ps_view *sv, struct ps_names *names)
{
    struct ps_causes *cs = &r->causes;
    *cs = (struct ps_causes){ .host_only = !r->has_gpu, .thread = PS_NONE, .thread_name = PS_NONE };
    if (r->nsteps == 0)
        return 0;
    cs->thread = step_thread(r, sv);
    cs->thread_name = cs->thread != PS_NONE ? sv->m->threads.v[cs->thread].name : PS_NONE;
    size_t n = r->nsteps, k0 = r->whole_run ? 0 : startup_steps(r);
    cs->startup_steps = k0;
    cs->steps = n - k0;
    struct pass p = { .r = r, .m = sv->m, .names = names, .nstr = ps_model_nstrings(sv->m),
                      .fallback = cs->thread_name };
    for (int i = 0; i < R_N; i++)
        p.last_name[i] = PS_NONE;
    p.last_call = PS_NONE;
    p.last_waited = PS_NONE;
    p.sample_stack = PS_NONE;
    struct made_list l = { 0 };
    int64_t *start = malloc(n * sizeof *start), *end = malloc(n * sizeof *end);
    int rc = -ENOMEM;
    p.steady_s = malloc(n * sizeof *p.steady_s);
    p.steady_e = malloc(n * sizeof *p.steady_e);
    p.sync_call = calloc(p.nstr + 1, sizeof *p.sync_call);
    p.blocking = ps_blocking_calls(sv, names);
    if (!start || !end || !p.steady_s || !p.steady_e || !p.sync_call || !p.blocking)
        goto out;
    for (size_t i = 0; i < n; i++) {
        r->steps[i].startup = i < k0;
        start[i] = r->steps[i].start_ns;
        end[i] = r->steps[i].end_ns;
        if (i < k0) {
            cs->startup_ns += end[i] - start[i];
        } else {
            p.steady_s[p.nsteady] = start[i];
            p.steady_e[p.nsteady++] = end[i];
        }
    }
    for (int c = 0; c < PS_CAUSE_N; c++)
        if ((rc = ps_windows_new(&p.w[c], start, end, n)) < 0)
            goto out;
    if ((!cs->host_only && ((rc = ps_stream_waits_new(sv, LAUNCH_LATENCY_NS, &p.waits)) < 0 ||
                            (rc = made_queue_waits(r, sv, names, p.waits, &l)) < 0)) ||
        (rc = made_syncs(&p, sv, &l)) < 0 ||
        (rc = made_samples(&p, start[0], end[n - 1], &l)) < 0 ||
        (rc = made_py_samples(&p, start[0], end[n - 1], &l)) < 0)
        goto out;
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_made);
    struct ps_sweep w;
    ps_sweep_init(&w, R_N, piece, &p);
    rc = feed(&p, sv, &w, &l);
    ps_sweep_finish(&w);
    if (rc < 0 || p.oom) {
        rc = -ENOMEM;
        goto out;
    }
    step_causes(&p, r);
    top_names(&p, cs);
    ps_stream_waits_top(p.waits, (int64_t)cs->steps, &cs->c[PS_CAUSE_STREAM_WAIT]);
    cs->startup_excess_ns = cs->startup_ns - (int64_t)k0 * cs->step_ns;
    cs->python_frames = p.python_frames;
    cs->python_samples = p.python_samples;
    cs->computed = 1;
    struct ps_spans inside[PS_CAUSE_N] = { { 0 } };   /* the time in what a fix of each host cause moves */
    static const enum ps_cause named[] = { PS_CAUSE_HOST, PS_CAUSE_DATA, PS_CAUSE_WAITING };
    rc = 0;
    for (size_t i = 0; i < sizeof named / sizeof *named && rc == 0; i++)
        rc = ps_function_to_move(cs, sv, named[i], p.steady_s[0], p.steady_e[p.nsteady - 1], &inside[named[i]]);
    if (rc == 0)
        rc = ps_replay_gains(r, sv, names, &p.host, inside);
    for (int c = 0; c < PS_CAUSE_N; c++)
        free(inside[c].v);
out:
    for (int c = 0; c < PS_CAUSE_N; c++) {
        ps_windows_free(p.w[c]);
        free(p.tally[c]);
    }
    ps_stream_waits_free(p.waits);
    free(p.sync_call);
    free(p.blocking);
    free(p.host.v);
    free(p.py.v);
    free(p.ops.v);
    free(p.steady_s);
    free(p.steady_e);
    free(l.v);
    free(start);
    free(end);
    return rc;
}
