/* What a launched op that waited on another stream waited for (stream_waits.h; docs/report.md "Where the step
 * goes"), from the strongest evidence the trace holds:
 *   1. a stream wait (model.h: Kineto `cuda_sync` "Stream Wait Event", Nsight Systems SYNCHRONIZATION syncType 2)
 *      on the op's stream, enqueued after the previous op of that stream was launched and before this one: with
 *      the event's record call (cudaEventRecord's correlation id), the op waited for is the last op launched on
 *      the recording stream before that call; without it, the recording stream's op that ran or had last
 *      finished when the waiting op started;
 *   2. a wait on an event recorded on an unknown stream, or no wait record but a cudaStreamWaitEvent call of the
 *      launch's thread between the stream's previous launch and this one (Kineto leaves some waits out; perfscope's
 *      own traces have no CUDA_EVENT rows): the op of another stream of the device whose end released it, i.e.
 *      that ended at most release_ns before the waiting op started.
 * The trace's numbers are never trusted: a stream, call or op that is not found names nothing, and an op that had
 * ended before the waiting op's launch returned did not hold it up. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/verdict.h"
#include "model/idmap.h"
#include "model/model.h"
#include "model/view.h"
#include "stream_waits.h"

#define FALLBACK_SCAN 256          /* ops looked at, backwards by end, for the op whose end released a wait */

struct key_idx {                   /* a sort key and the index it belongs to */
    int64_t key;
    uint32_t idx;
};

struct tally_row {
    uint32_t stream, name;         /* model stream index, string id */
    int64_t ns;
};

struct ps_stream_waits {
    const struct ps_view *v;
    const struct ps_model *m;
    int64_t release_ns;
    size_t nstreams;
    /* per model stream s, the view's ops (not sync records), [first[s], first[s + 1]) of: */
    size_t *first;
    uint32_t *by_start;            /* view indices in start order */
    struct key_idx *by_launch;     /* (launch call start, view index), launched ops only, in launch order (the
                                    * unlaunched ones' keys are INT64_MAX, after them) */
    struct key_idx *by_end;        /* every op of the view: (end, view index), by end */
    size_t nops;
    /* the stream waits that name a waiting op: (view index of that op, wait) by view index */
    struct key_idx *waiter;
    size_t nwaiter;
    uint32_t *on_stream;           /* per model stream wait: the recording stream (model index), PS_NONE unknown */
    int64_t *record_start;         /* per model stream wait: its record call's start, INT64_MIN unknown */
    struct key_idx *wait_calls;    /* the view's cudaStreamWaitEvent calls: (start, thread), by start */
    size_t nwait_calls;
    uint32_t *memo_op, *memo_waited;   /* per stream: its latest op found waiting, and what for */
    struct ps_idmap tally_ix;      /* (stream << 32 | name) -> index into tally */
    struct tally_row *tally;
    size_t ntally, cap_tally;
};

static int cmp_key(const void *a, const void *b)
{
    const struct key_idx *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The last entry of sorted a[0..n) with key <= k (strict: < k); n when none. */
static size_t last_at_most(const struct key_idx *a, size_t n, int64_t k, int strict)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strict ? a[mid].key < k : a[mid].key <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : n;
}

/* The model stream (pid, device, id): device -1 matches any device. PS_NONE when the trace has none. */
static uint32_t find_stream(const struct ps_model *m, uint32_t pid, int32_t device, int64_t id)
{
    if (id < 0)
        return PS_NONE;
    for (size_t s = 0; s < m->streams.n; s++) {
        const struct ps_stream *x = &m->streams.v[s];
        if (x->pid == pid && x->stream == id && (device < 0 || x->device == device))
            return (uint32_t)s;
    }
    return PS_NONE;
}

/* cudaStreamWaitEvent as the runtime, driver and HIP name it, with or without nsys' _vNNNN suffix. */
static int is_wait_call(const char *name)
{
    static const char *const names[] = { "cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(name, names[i], n) == 0 && (name[n] == '\0' || name[n] == '_'))
            return 1;
    }
    return 0;
}

/* The per-stream lists of the view's ops. 0 or -ENOMEM. */
static int index_ops(struct ps_stream_waits *sw)
{
    const struct ps_view *v = sw->v;
    size_t ns = sw->nstreams, n = 0;
    if (!(sw->first = calloc(ns + 2, sizeof *sw->first)))
        return -ENOMEM;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, ps_view_gpu_row(v, i));
        if (a->kind != PS_GPU_SYNC && a->stream < ns) {
            sw->first[a->stream + 1]++;
            n++;
        }
    }
    for (size_t s = 0; s < ns; s++)
        sw->first[s + 1] += sw->first[s];
    sw->nops = n;
    size_t *fill = malloc((ns + 1) * sizeof *fill);
    sw->by_start = malloc((n + 1) * sizeof *sw->by_start);
    sw->by_launch = malloc((n + 1) * sizeof *sw->by_launch);
    sw->by_end = malloc((n + 1) * sizeof *sw->by_end);
    if (!fill || !sw->by_start || !sw->by_launch || !sw->by_end) {
        free(fill);
        return -ENOMEM;
    }
    memcpy(fill, sw->first, ns * sizeof *fill);
    size_t k = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind == PS_GPU_SYNC || op.stream >= ns)
            continue;
        size_t at = fill[op.stream]++;
        sw->by_start[at] = (uint32_t)i;
        sw->by_launch[at] = (struct key_idx){
            op.launch != PS_NONE ? ps_view_api_at(v, op.launch)->start_ns : INT64_MAX, (uint32_t)i };
        sw->by_end[k++] = (struct key_idx){ op.end_ns, (uint32_t)i };
    }
    free(fill);
    for (size_t s = 0; s < ns; s++)
        if (sw->first[s + 1] > sw->first[s])
            qsort(sw->by_launch + sw->first[s], sw->first[s + 1] - sw->first[s], sizeof *sw->by_launch, cmp_key);
    if (n)
        qsort(sw->by_end, n, sizeof *sw->by_end, cmp_key);
    return 0;
}

/* Each stream wait of the model: its recording stream, its record call's start, and the op that waits on it (the
 * first op of its stream launched after the wait was enqueued). 0 or -ENOMEM. */
static int index_waits(struct ps_stream_waits *sw)
{
    const struct ps_model *m = sw->m;
    size_t nw = m->stream_waits.n;
    sw->on_stream = malloc((nw + 1) * sizeof *sw->on_stream);
    sw->record_start = malloc((nw + 1) * sizeof *sw->record_start);
    sw->waiter = malloc((nw + 1) * sizeof *sw->waiter);
    struct key_idx *by_corr = malloc((nw + 1) * sizeof *by_corr);
    if (!sw->on_stream || !sw->record_start || !sw->waiter || !by_corr) {
        free(by_corr);
        return -ENOMEM;
    }
    size_t ncorr = 0;
    for (size_t w = 0; w < nw; w++) {
        const struct ps_stream_wait *x = &m->stream_waits.v[w];
        uint32_t s = find_stream(m, x->pid, x->device, x->stream);
        sw->on_stream[w] = find_stream(m, x->pid, x->device, x->on_stream);
        if (sw->on_stream[w] == PS_NONE)   /* an event of another device's stream */
            sw->on_stream[w] = find_stream(m, x->pid, -1, x->on_stream);
        sw->record_start[w] = INT64_MIN;
        if (x->record_corr > 0 && x->record_corr <= INT64_MAX)
            by_corr[ncorr++] = (struct key_idx){ (int64_t)x->record_corr, (uint32_t)w };
        if (s == PS_NONE || s >= sw->nstreams)
            continue;
        const struct key_idx *l = sw->by_launch + sw->first[s];
        size_t n = sw->first[s + 1] - sw->first[s], j = last_at_most(l, n, x->time_ns, 1);
        j = j == n ? 0 : j + 1;   /* the first launched at or after the wait */
        if (j < n && l[j].key != INT64_MAX)
            sw->waiter[sw->nwaiter++] = (struct key_idx){ l[j].idx, (uint32_t)w };
    }
    if (sw->nwaiter)
        qsort(sw->waiter, sw->nwaiter, sizeof *sw->waiter, cmp_key);
    if (ncorr) {   /* the record calls: one pass over the calls, each looked up among the waits' correlation ids */
        qsort(by_corr, ncorr, sizeof *by_corr, cmp_key);
        for (uint32_t k = 0; k < m->api.n; k++) {
            const struct ps_api_call *a = ps_view_api_at(sw->v, k);
            if (a->correlation == 0 || a->correlation > INT64_MAX)
                continue;
            size_t j = last_at_most(by_corr, ncorr, (int64_t)a->correlation, 0);
            for (; j < ncorr && by_corr[j].key == (int64_t)a->correlation; j--) {
                uint32_t w = by_corr[j].idx;
                uint32_t pid = a->thread < m->threads.n ? m->threads.v[a->thread].pid : 0;
                if ((m->correlation_global || pid == m->stream_waits.v[w].pid) &&
                    sw->record_start[w] == INT64_MIN)
                    sw->record_start[w] = a->start_ns;
                if (j == 0)
                    break;
            }
        }
    }
    free(by_corr);
    return 0;
}

int ps_stream_waits_new(const struct ps_view *v, int64_t release_ns, struct ps_stream_waits **out)
{
    const struct ps_model *m = v->m;
    *out = NULL;
    size_t ncalls = 0;
    struct key_idx *calls = NULL;
    for (size_t i = 0; i < v->napi; i++) {
        const struct ps_api_call *a = ps_view_api(v, i);
        if (!is_wait_call(ps_model_str(m, a->name)))
            continue;
        if (!calls && !(calls = malloc((v->napi - i) * sizeof *calls)))
            return -ENOMEM;
        calls[ncalls++] = (struct key_idx){ a->start_ns, a->thread };   /* by start: the view's order */
    }
    if (!ncalls && !m->stream_waits.n)
        return 0;
    struct ps_stream_waits *sw = calloc(1, sizeof *sw);
    if (!sw) {
        free(calls);
        return -ENOMEM;
    }
    sw->v = v, sw->m = m, sw->release_ns = release_ns, sw->nstreams = m->streams.n;
    sw->wait_calls = calls, sw->nwait_calls = ncalls;
    sw->memo_op = malloc((sw->nstreams + 1) * sizeof *sw->memo_op);
    sw->memo_waited = malloc((sw->nstreams + 1) * sizeof *sw->memo_waited);
    if (!sw->memo_op || !sw->memo_waited || index_ops(sw) < 0 || index_waits(sw) < 0) {
        ps_stream_waits_free(sw);
        return -ENOMEM;
    }
    for (size_t s = 0; s < sw->nstreams; s++)
        sw->memo_op[s] = sw->memo_waited[s] = PS_NONE;
    *out = sw;
    return 0;
}

void ps_stream_waits_free(struct ps_stream_waits *sw)
{
    if (!sw)
        return;
    free(sw->first);
    free(sw->by_start);
    free(sw->by_launch);
    free(sw->by_end);
    free(sw->waiter);
    free(sw->on_stream);
    free(sw->record_start);
    free(sw->wait_calls);
    free(sw->memo_op);
    free(sw->memo_waited);
    ps_idmap_fini(&sw->tally_ix);
    free(sw->tally);
    free(sw);
}

/* The op of another stream of op's device and process whose end released op: the latest to end at or before
 * op's start, no more than release_ns before it. PS_NONE when none. */
static uint32_t releasing_op(const struct ps_stream_waits *sw, const struct ps_gpu_op *op)
{
    const struct ps_stream *own = &sw->m->streams.v[op->stream];
    size_t j = last_at_most(sw->by_end, sw->nops, op->start_ns, 0);
    for (size_t seen = 0; j < sw->nops && seen < FALLBACK_SCAN; seen++, j = j ? j - 1 : sw->nops) {
        if (sw->by_end[j].key < op->start_ns - sw->release_ns)
            break;
        const struct ps_gpu_op x = ps_view_gpu(sw->v, sw->by_end[j].idx);
        const struct ps_stream *s = &sw->m->streams.v[x.stream];
        if (x.stream != op->stream && s->device == own->device && s->pid == own->pid)
            return sw->by_end[j].idx;
    }
    return PS_NONE;
}

/* The op that stream wait w names for waiting op `op`: rule 1 of the file's comment (*guess 0), rule 2 for a wait
 * on an unknown stream (*guess 1), else PS_NONE. */
static uint32_t named_op(const struct ps_stream_waits *sw, size_t w, const struct ps_gpu_op *op, int *guess)
{
    uint32_t on = sw->on_stream[w];
    *guess = on == PS_NONE;
    if (on == PS_NONE || on == op->stream || on >= sw->nstreams)
        return on == PS_NONE ? releasing_op(sw, op) : PS_NONE;
    size_t lo = sw->first[on], n = sw->first[on + 1] - lo, j;
    if (sw->record_start[w] != INT64_MIN) {   /* launched before the record call: what the event marks */
        j = last_at_most(sw->by_launch + lo, n, sw->record_start[w], 1);
        return j < n ? sw->by_launch[lo + j].idx : PS_NONE;
    }
    /* running when op started, or the last to finish before: by start, the last that started before op */
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (ps_view_gpu_row(sw->v, sw->by_start[lo + mid])->start_ns < op->start_ns)
            a = mid + 1;
        else
            b = mid;
    }
    return a ? sw->by_start[lo + a - 1] : PS_NONE;
}

/* A cudaStreamWaitEvent call of `thread` in (after, before]. */
static int wait_call_between(const struct ps_stream_waits *sw, uint32_t thread, int64_t after, int64_t before)
{
    size_t j = last_at_most(sw->wait_calls, sw->nwait_calls, before, 0);
    for (; j < sw->nwait_calls && sw->wait_calls[j].key > after; j = j ? j - 1 : sw->nwait_calls)
        if (sw->wait_calls[j].idx == thread)
            return 1;
    return 0;
}

uint32_t ps_stream_waits_on(struct ps_stream_waits *sw, size_t i, int64_t launch_end_ns, int64_t *until_ns)
{
    if (!sw)
        return PS_NONE;
    const struct ps_gpu_op op = ps_view_gpu(sw->v, i);
    if (op.stream >= sw->nstreams || op.launch == PS_NONE)
        return PS_NONE;
    uint32_t best = PS_NONE, found_record = 0;
    int64_t best_end = INT64_MIN;
    int best_guess = 1, guess;
    size_t j = last_at_most(sw->waiter, sw->nwaiter, (int64_t)i, 0);
    for (; j < sw->nwaiter && sw->waiter[j].key == (int64_t)i; j = j ? j - 1 : sw->nwaiter) {
        found_record = 1;   /* several waits: a named stream over a guess, then the op that ended last */
        uint32_t x = named_op(sw, sw->waiter[j].idx, &op, &guess);
        int64_t end = x != PS_NONE ? ps_view_row_end(sw->v, ps_view_gpu_row(sw->v, x)) : INT64_MIN;
        if (x != PS_NONE && (guess < best_guess || (guess == best_guess && end > best_end)))
            best = x, best_end = end, best_guess = guess;
    }
    const struct ps_api_call *launch = ps_view_api_at(sw->v, op.launch);
    if (!found_record) {
        /* no wait record: the stream's previous launch, then a cudaStreamWaitEvent call before this one */
        const struct key_idx *l = sw->by_launch + sw->first[op.stream];
        size_t n = sw->first[op.stream + 1] - sw->first[op.stream], k = last_at_most(l, n, launch->start_ns, 1);
        int64_t prev = k < n ? l[k].key : INT64_MIN;
        uint32_t ahead = sw->memo_op[op.stream];
        if (ahead != PS_NONE && ps_view_gpu_row(sw->v, ahead)->start_ns > launch_end_ns &&
            k < n && l[k].idx == ahead)   /* queued behind the stream's waiting op: waits for the same */
            best = sw->memo_waited[op.stream];
        else if (wait_call_between(sw, launch->thread, prev, launch->start_ns))
            best = releasing_op(sw, &op);
    }
    if (best == PS_NONE)
        return PS_NONE;
    const struct ps_gpu_row *g = ps_view_gpu_row(sw->v, best);
    int64_t end = ps_view_row_end(sw->v, g);
    if (end <= launch_end_ns || g->start_ns >= op.start_ns)   /* over before the launch returned, or after op */
        return PS_NONE;
    sw->memo_op[op.stream] = (uint32_t)i;
    sw->memo_waited[op.stream] = best;
    /* its wait until that op ended and released it: later than a release takes, it waits on something else */
    *until_ns = end < op.start_ns - sw->release_ns ? end + sw->release_ns : op.start_ns;
    return best;
}

int ps_stream_waits_credit(struct ps_stream_waits *sw, uint32_t waited, int64_t ns)
{
    if (!sw || waited == PS_NONE || ns <= 0)
        return 0;
    const struct ps_gpu_op op = ps_view_gpu(sw->v, waited);
    uint64_t key = (uint64_t)op.stream << 32 | op.name;
    uint32_t k = ps_idmap_get(&sw->tally_ix, key);
    if (k == PS_NONE) {
        if (sw->ntally == sw->cap_tally) {
            size_t cap = sw->cap_tally ? 2 * sw->cap_tally : 16;
            struct tally_row *t = realloc(sw->tally, cap * sizeof *t);
            if (!t)
                return -ENOMEM;
            sw->tally = t, sw->cap_tally = cap;
        }
        k = (uint32_t)sw->ntally;
        if (ps_idmap_put(&sw->tally_ix, key, k) < 0)
            return -ENOMEM;
        sw->tally[sw->ntally++] = (struct tally_row){ op.stream, op.name, 0 };
    }
    sw->tally[k].ns += ns;
    return 0;
}

void ps_stream_waits_top(const struct ps_stream_waits *sw, int64_t steps, struct ps_cause_stat *st)
{
    st->nwaits_on = 0;
    for (size_t k = 0; sw && steps > 0 && k < sw->ntally; k++) {
        int64_t ns = (sw->tally[k].ns + steps / 2) / steps;
        if (ns <= 0)
            continue;
        const struct ps_stream *s = &sw->m->streams.v[sw->tally[k].stream];
        struct ps_cause_wait_on x = { s->stream, s->device, sw->tally[k].name, ns };
        size_t at = st->nwaits_on < PS_CAUSE_TOP ? st->nwaits_on++ : PS_CAUSE_TOP;
        if (at == PS_CAUSE_TOP) {
            if (ns <= st->waits_on[PS_CAUSE_TOP - 1].ns)
                continue;
            at = PS_CAUSE_TOP - 1;
        }
        while (at > 0 && st->waits_on[at - 1].ns < ns) {   /* largest first; ties keep the first found */
            st->waits_on[at] = st->waits_on[at - 1];
            at--;
        }
        st->waits_on[at] = x;
    }
}
