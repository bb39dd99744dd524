/* Steps without step markers: training iterations found from the repeating GPU work, for traces
 * with no range matching --step-range (nsys exports of PyTorch runs, plain CUDA programs), or on request
 * (--steps infer). The kernel sequence of the busiest stream is periodic in a training loop: the same kernels, in
 * the same order, once per iteration. Its period P (in operations) is found from names that recur at a fixed
 * distance and checked by how often name[i] == name[i + P]; each period starts where the stream and the host wait
 * longest (data loading, the optimizer's sync). A step then runs from its iteration's first host activity (the
 * launching thread's first host range or launch after the previous iteration's last launch) to the next one's:
 * its host range, which steps.c then extends to the GPU work launched in it as for step ranges; what came before
 * the first step is warm-up, in no step. No clear period: no steps, and the reason. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define MIN_STEPS 3           /* periods needed to call anything a period */
#define MIN_OPS 12            /* GPU operations on the stream */
#define MIN_MATCH 0.90        /* share of steady positions i with name[i] == name[i + P] */
#define TIE_MATCH 0.002       /* a shorter period matching within this of the best wins (2P matches as well as P) */
#define REGULAR_SHARE 0.8     /* a name recurs at its most common distance at least this often */
#define MAX_CANDIDATES 8      /* periods checked (the distances most names share) */
#define MIN_REGULAR_GAPS 0.75 /* share of found periods within 10 % of P */
#define PREAMBLE_SLACK 2      /* the first step's host activity reaches back at most this many times the others' */
#define MAX_REPEATS 16        /* multiples of the shortest period checked against the host's waits */
#define HOST_CONCENTRATION 4  /* a multiple's boundary wait at least this many times each other repeat's */

struct seq {
    uint32_t *op, *name;      /* view index and name of the stream's operations, in start order */
    size_t n;
    uint64_t *launched;       /* bit per API call (model index) that launched an operation on another stream; NULL
                               * when every operation is on this one */
};

struct cand {
    uint32_t gap, names;
};

static int cmp_cand_gap(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return (x->gap > y->gap) - (x->gap < y->gap);
}

static int cmp_cand_names(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->names != y->names)
        return x->names < y->names ? 1 : -1;
    return (x->gap > y->gap) - (x->gap < y->gap);
}

/* The busiest stream's kernels, copies and memsets in view v, and which API calls launched work on the other streams
 * (s->launched, NULL when there is none): only those can begin an iteration before its first operation on the
 * stream (launch_activity), since one stream runs in launch order. Returns 0 or -ENOMEM; s->n 0 when there is no
 * operation. */
static int busiest_stream(const struct ps_view *v, struct seq *s, uint32_t *stream)
{
    const struct ps_model *m = v->m;
    uint32_t *count = calloc(m->streams.n + 1, sizeof *count);
    size_t all = 0;
    if (!count)
        return -ENOMEM;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, ps_view_gpu_row(v, i));
        if (a->kind != PS_GPU_SYNC)
            count[a->stream]++, all++;
    }
    *stream = 0;
    for (size_t k = 1; k < m->streams.n; k++)
        if (count[k] > count[*stream])
            *stream = (uint32_t)k;
    s->n = m->streams.n ? count[*stream] : 0;
    free(count);
    if (s->n == 0)
        return 0;
    s->op = malloc(s->n * sizeof *s->op);
    s->name = malloc(s->n * sizeof *s->name);
    if (s->n < all && !(s->launched = calloc(m->api.n / 64 + 1, sizeof *s->launched)))
        return -ENOMEM;
    if (!s->op || !s->name)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < v->ngpu && (k < s->n || s->launched); i++) {
        uint32_t g = ps_view_gpu_index(v, i);
        const struct ps_gpu_attr *a = ps_view_gpu_attr(v, &v->gpu_rows[g]);
        if (a->kind == PS_GPU_SYNC)
            continue;
        if (a->stream == *stream) {
            s->op[k] = (uint32_t)i;
            s->name[k++] = a->name;
        } else if (s->launched && m->gpu_launch && m->gpu_launch[g] < m->api.n) {
            s->launched[m->gpu_launch[g] / 64] |= (uint64_t)1 << (m->gpu_launch[g] % 64);
        }
    }
    return 0;
}

/* Candidate periods: for each name, its most common distance between consecutive occurrences (Boyer-Moore majority
 * vote, then counted); names that recur at that distance at least REGULAR_SHARE of the time propose it. The
 * distances most names propose come first. Returns the number of candidates (<= MAX_CANDIDATES) or -ENOMEM. */
static int candidates(const struct ps_model *m, const struct seq *s, struct cand *out)
{
    size_t nstr = ps_model_nstrings(m) + 1, ncand = 0;
    uint32_t *count = calloc(nstr, sizeof *count), *last = calloc(nstr, sizeof *last);
    uint32_t *gap = calloc(nstr, sizeof *gap), *votes = calloc(nstr, sizeof *votes);
    struct cand *all = NULL;
    int rc = -ENOMEM;
    if (!count || !last || !gap || !votes)
        goto out;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t nm = s->name[i] < nstr ? s->name[i] : 0;
        if (last[nm]) {
            uint32_t g = (uint32_t)(i + 1 - last[nm]);
            if (votes[nm] == 0)
                gap[nm] = g, votes[nm] = 1;
            else
                votes[nm] += gap[nm] == g ? 1 : (uint32_t)-1;
        }
        last[nm] = (uint32_t)(i + 1);
        count[nm]++;
    }
    memset(last, 0, nstr * sizeof *last);
    memset(votes, 0, nstr * sizeof *votes);
    for (size_t i = 0; i < s->n; i++) {
        uint32_t nm = s->name[i] < nstr ? s->name[i] : 0;
        if (last[nm] && i + 1 - last[nm] == gap[nm])
            votes[nm]++;
        last[nm] = (uint32_t)(i + 1);
    }
    size_t nall = 0;
    for (size_t k = 0; k < nstr; k++)
        nall += count[k] >= MIN_STEPS;
    if (!(all = malloc((nall + 1) * sizeof *all)))
        goto out;
    nall = 0;
    for (size_t k = 0; k < nstr; k++)
        if (count[k] >= MIN_STEPS && gap[k] > 0 && (size_t)gap[k] * MIN_STEPS <= s->n &&
            votes[k] >= REGULAR_SHARE * (count[k] - 1))
            all[nall++] = (struct cand){ gap[k], 1 };
    qsort(all, nall, sizeof *all, cmp_cand_gap);
    size_t u = 0;
    for (size_t i = 0; i < nall; i++) {
        if (u && all[u - 1].gap == all[i].gap)
            all[u - 1].names++;
        else
            all[u++] = all[i];
    }
    qsort(all, u, sizeof *all, cmp_cand_names);
    ncand = u < MAX_CANDIDATES ? u : MAX_CANDIDATES;
    memcpy(out, all, ncand * sizeof *out);
    rc = (int)ncand;
out:
    free(count);
    free(last);
    free(gap);
    free(votes);
    free(all);
    return rc;
}

/* Share of positions i in [from, n - p) with name[i] == name[i + p]. */
static double match_rate(const struct seq *s, size_t from, size_t p)
{
    size_t same = 0;
    for (size_t i = from; i + p < s->n; i++)
        same += s->name[i] == s->name[i + p];
    return s->n > from + p ? (double)same / (double)(s->n - from - p) : 0;
}

/* How long the stream and the host wait before operation i: the stream's idle gap plus the host's gap between the
 * launches of i - 1 and i (each clipped at 0). */
static int64_t wait_before(const struct ps_view *v, const struct seq *s, size_t i)
{
    if (i == 0)
        return 0;
    struct ps_gpu_op a = ps_view_gpu(v, s->op[i - 1]), b = ps_view_gpu(v, s->op[i]);
    int64_t w = b.start_ns > a.end_ns ? b.start_ns - a.end_ns : 0;
    if (a.launch != PS_NONE && b.launch != PS_NONE) {
        int64_t h = ps_view_api_at(v, b.launch)->start_ns - ps_view_api_at(v, a.launch)->end_ns;
        w += h > 0 ? h : 0;
    }
    return w;
}

/* Occurrences of name[q .. q + w) in the sequence, at least p / 2 apart (whole: 0.9 p), into occ (capacity
 * n / (p / 2) + 1). Returns their number. */
static size_t find_gram(const struct seq *s, size_t q, size_t w, size_t p, uint32_t *occ, int whole)
{
    size_t k = 0, skip = whole ? p - p / 10 : p / 2 ? p / 2 : 1;   /* whole: the gram recurs inside the period too */
    for (size_t i = 0; i + w <= s->n;) {
        if (s->name[i] == s->name[q] && memcmp(&s->name[i], &s->name[q], w * sizeof *s->name) == 0) {
            occ[k++] = (uint32_t)i;
            i += skip;
        } else {
            i++;
        }
    }
    return k;
}

static void note(struct ps_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ps_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->steps_note, sizeof r->steps_note, fmt, ap);
    va_end(ap);
}

/* ---- where each step begins (docs/report.md "Steps inferred without markers", step 7) ----
 * Gap j lies between the previous iteration's last launch and the launch of period j's first operation. Host
 * activity of that launch's thread in the gap (a host range, or a launch on another stream) is iteration j's, unless
 * it lies inside the previous iteration's host ranges; the step begins at the earliest. Unrecorded time in the gap is
 * nobody's activity and stays in the step before (a step ends where the next begins). */
struct gap {
    int64_t lo;         /* activity starting before this is the previous iteration's: the end of its last launch on
                         * the stream, raised to the end of the thread's ranges begun before that which close in the
                         * gap (the optimizer's, loss.item()'s) */
    int64_t launch_ns;  /* the start of the launch of the period's first operation (the operation's own start
                         * without a launch in the view) */
    int64_t first_ns;   /* the iteration's first host activity: a range or a launch in [lo, launch_ns] */
    uint32_t thread;    /* the launching thread; PS_NONE: no launch, the step starts at its operation */
    uint32_t call;      /* the launch's view index */
};

/* Host ranges that are host activity: NVTX, user annotations, cpu_op and python_function (not marks, not the device's
 * gpu_user_annotation). Step ranges too, under --steps infer: recorded like any range. */
static int activity(uint8_t kind)
{
    return kind == PS_RANGE_NVTX_PUSHPOP || kind == PS_RANGE_NVTX_STARTEND || kind == PS_RANGE_USER_ANNOTATION ||
           kind == PS_RANGE_CPU_OP || kind == PS_RANGE_PYTHON;
}

/* Gap j's launch, thread and lower bound: the end of the launch of the last operation before the period's on the
 * stream (one stream runs in launch order, so that is the previous iteration's last launch on it); else the
 * previous gap's launch (the first: none). */
static void gaps_init(const struct ps_view *v, const struct seq *s, const uint32_t *occ, size_t nocc, struct gap *gp)
{
    for (size_t j = 0; j < nocc; j++) {
        struct gap *g = &gp[j];
        struct ps_gpu_op op = ps_view_gpu(v, s->op[occ[j]]);
        uint32_t call = op.launch == PS_NONE ? PS_NONE : ps_view_find_api(v, op.launch);
        *g = (struct gap){ .lo = j ? gp[j - 1].launch_ns : INT64_MIN, .launch_ns = op.start_ns,
                           .first_ns = op.start_ns, .thread = PS_NONE, .call = call };
        if (call == PS_NONE)
            continue;
        const struct ps_api_call *c = ps_view_api(v, call);
        g->thread = c->thread;
        g->launch_ns = g->first_ns = c->start_ns;
        for (size_t i = occ[j]; i-- > (j ? occ[j - 1] : 0);) {
            struct ps_gpu_op p = ps_view_gpu(v, s->op[i]);
            if (p.launch != PS_NONE) {
                g->lo = ps_view_api_at(v, p.launch)->end_ns;
                break;
            }
        }
    }
}

/* The host ranges' part of gaps 1 .. n - 1, in one pass over the view's ranges (sorted by start): a range begun
 * before a gap's lower bound that closes in the gap raises the bound (whatever starts inside it is the previous
 * iteration's); a range starting in gap g at or after its bound is iteration g's activity. */
static void range_activity(const struct ps_view *v, struct gap *gp, size_t n)
{
    size_t g = 1;
    for (size_t i = 0; i < v->nranges && g < n; i++) {
        const struct ps_range *r = ps_view_range(v, i);
        if (!activity(r->kind))
            continue;
        while (g < n && gp[g].launch_ns < r->start_ns)
            g++;
        if (g == n)
            break;
        size_t h = g;   /* the gap the range ends in: the first whose launch is at or after its end */
        if (r->end_ns > gp[g].launch_ns) {
            size_t lo = g + 1, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (gp[mid].launch_ns < r->end_ns)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            h = lo;
        }
        if (h < n && r->thread == gp[h].thread && r->start_ns < gp[h].lo && r->end_ns > gp[h].lo)
            gp[h].lo = r->end_ns;
        if (r->thread == gp[g].thread && r->start_ns >= gp[g].lo && r->start_ns < gp[g].first_ns)
            gp[g].first_ns = r->start_ns;
    }
}

/* The launches' part of gap g: the thread's calls in [lo, launch) that launched work on another stream (the batch's
 * copy on a copy stream). Calls that launch nothing (a sync, an event query) do not begin an iteration: a sync
 * after the last launch waits for the previous iteration's work (loss.item()). */
static void launch_activity(const struct ps_view *v, const struct seq *s, struct gap *g)
{
    if (g->thread == PS_NONE || !s->launched)
        return;
    for (size_t k = g->call; k-- > 0;) {
        const struct ps_api_call *c = ps_view_api(v, k);
        uint32_t idx = ps_view_api_index(v, k);
        if (c->start_ns < g->lo)
            break;
        if (c->thread == g->thread && c->start_ns < g->first_ns && (s->launched[idx / 64] >> (idx % 64) & 1))
            g->first_ns = c->start_ns;
    }
}

/* Gap 0, whose iteration has no previous one: warm-up is not a step. Host activity before the last launch that
 * precedes the first period (and inside ranges begun before it) is warm-up, as for the other gaps; so is activity
 * that ended before the first launch and begins more than PREAMBLE_SLACK times the longest of the other iterations'
 * preambles (their first activity to their first launch) before it (model loading, setting up the DataLoader; a range
 * across that point is warm-up whole). The iteration's own ranges, open at its first launch and closed by the next
 * iteration's (its ProfilerStep, a train_step function), are its activity however early they begin. One pass over
 * the ranges up to the first launch. */
static void first_gap(const struct ps_view *v, const struct seq *s, struct gap *gp, size_t nocc)
{
    struct gap *g = &gp[0];
    int64_t longest = 0, next = nocc > 1 ? gp[1].launch_ns : INT64_MAX;
    for (size_t j = 1; j < nocc; j++)
        if (gp[j].thread != PS_NONE && gp[j].launch_ns - gp[j].first_ns > longest)
            longest = gp[j].launch_ns - gp[j].first_ns;
    if (g->thread == PS_NONE)
        return;
    int64_t reach = g->launch_ns - PREAMBLE_SLACK * longest;
    for (size_t i = 0; i < v->nranges; i++) {
        const struct ps_range *r = ps_view_range(v, i);
        if (r->start_ns > g->launch_ns)
            break;
        if (r->thread != g->thread || !activity(r->kind))
            continue;
        int own = r->end_ns > g->launch_ns && r->end_ns <= next;
        if (r->start_ns < g->lo) {
            if (r->end_ns > g->lo && r->end_ns <= g->launch_ns)
                g->lo = r->end_ns;
        } else if (r->start_ns < reach && !own) {
            if (r->end_ns > reach && r->end_ns <= g->launch_ns)
                reach = r->end_ns;
        } else if (r->start_ns < g->first_ns) {
            g->first_ns = r->start_ns;
        }
    }
    g->lo = reach > g->lo ? reach : g->lo;
    launch_activity(v, s, g);
}

/* The steps between consecutive occurrences (and the last one, when a whole period follows it) into r->steps:
 * each from its iteration's first host activity to the next one's; the last to its last launch. Returns the
 * number of steps, 0 when they are out of order, or -ENOMEM. */
static int make_steps(struct ps_report *r, const struct ps_view *v, const struct seq *s, const uint32_t *occ,
                      size_t nocc, size_t p)
{
    size_t n = nocc - 1 + (occ[nocc - 1] + p <= s->n);
    struct ps_step *steps = calloc(n + 1, sizeof *steps);
    struct gap *gp = malloc(nocc * sizeof *gp);
    if (!steps || !gp) {
        free(steps);
        free(gp);
        return -ENOMEM;
    }
    gaps_init(v, s, occ, nocc, gp);
    range_activity(v, gp, nocc);
    for (size_t j = 1; j < nocc; j++)
        launch_activity(v, s, &gp[j]);
    first_gap(v, s, gp, nocc);
    for (size_t j = 0; j < n; j++) {
        struct ps_step *st = &steps[j];
        st->name = st->range = PS_NONE;
        st->start_ns = st->host_start_ns = gp[j].first_ns;
        if (j + 1 < nocc) {
            st->end_ns = gp[j + 1].first_ns;
            st->device_ops = occ[j + 1] - occ[j];
        } else {   /* the last period: to the end of its last launch (its work on the device, without launches) */
            st->end_ns = st->start_ns;
            for (size_t i = occ[j]; i < occ[j] + p; i++) {
                struct ps_gpu_op g = ps_view_gpu(v, s->op[i]);
                int64_t e = g.launch != PS_NONE ? ps_view_api_at(v, g.launch)->end_ns : g.end_ns;
                st->end_ns = e > st->end_ns ? e : st->end_ns;
            }
            st->device_ops = (int64_t)p;
        }
        st->host_end_ns = st->end_ns;
        if (st->end_ns <= st->start_ns || (j && st->start_ns < steps[j - 1].end_ns)) {
            free(steps);
            free(gp);
            return 0;   /* out of order: no clear steps */
        }
    }
    free(gp);
    free(r->steps);
    r->steps = steps;
    r->nsteps = n;
    return (int)n;
}

/* The period among the candidates: the shortest whose match rate over the steady part (from `from` on) is within
 * TIE_MATCH of the best; *best gets the best rate. 0 when there is no candidate. */
static size_t best_period(const struct seq *s, size_t from, const struct cand *cand, int nc, double *best)
{
    double rate[MAX_CANDIDATES];
    *best = 0;
    for (int k = 0; k < nc; k++) {
        rate[k] = match_rate(s, from, cand[k].gap);
        *best = rate[k] > *best ? rate[k] : *best;
    }
    size_t p = 0;
    for (int k = 0; k < nc; k++)
        if (rate[k] >= *best - TIE_MATCH && (p == 0 || cand[k].gap < p))
            p = cand[k].gap;
    return p;
}

/* The phase of period p: the offset in the period before which the stream and the host wait longest, over the
 * steady part. 0 with *phase set, or -ENOMEM. */
static int period_phase(const struct ps_view *v, const struct seq *s, size_t from, size_t p, size_t *phase)
{
    int64_t *wait = calloc(p, sizeof *wait);
    if (!wait)
        return -ENOMEM;
    for (size_t i = from; i < s->n; i++)
        wait[(i - from) % p] += wait_before(v, s, i);
    *phase = 0;
    for (size_t k = 1; k < p; k++)
        *phase = wait[k] > wait[*phase] ? k : *phase;
    free(wait);
    return 0;
}

/* Repeated identical layers make the kernel sequence periodic at one layer: the shortest period p may be a part of
 * the host's iteration. The host's structure decides: for k = 2.. (k p at most a third of the steady part), the wait
 * profile of period k p (period_phase's waits per offset) is checked at its longest wait's offset against the same
 * offset one, two, ... p later; when the longest wait is HOST_CONCENTRATION times each of those (the host's idle gap
 * comes once every k p operations, not every p), k p is the period. Returns k (1: p stands). 0 with *k, or -ENOMEM. */
static int host_repeats(const struct ps_view *v, const struct seq *s, size_t from, size_t p, size_t *k)
{
    *k = 1;
    size_t steady = s->n - from;
    int64_t *wait = malloc(MAX_REPEATS * p * sizeof *wait);
    if (!wait)
        return -ENOMEM;
    for (size_t r = 2; r <= MAX_REPEATS && r * p * MIN_STEPS <= steady; r++) {
        size_t q = r * p, top = 0;
        memset(wait, 0, q * sizeof *wait);
        for (size_t i = from; i < s->n; i++)
            wait[(i - from) % q] += wait_before(v, s, i);
        for (size_t j = 1; j < q; j++)
            top = wait[j] > wait[top] ? j : top;
        int alone = wait[top] > 0;
        for (size_t j = 1; j < r && alone; j++)
            alone = wait[top] >= HOST_CONCENTRATION * wait[(top + j * p) % q];
        if (alone) {
            *k = r;
            break;
        }
    }
    free(wait);
    return 0;
}

/* Where the period starts recur from operation q on: the occurrences (into occ) of the shortest n-gram at q (16,
 * 64, then a whole period of operations) that recurs regularly (MIN_REGULAR_GAPS of its gaps within 10 % of p);
 * *regular gets the regular gaps of the last tried. `whole`: p is several repeats of a shorter sequence
 * (host_repeats), so an occurrence is looked for only 0.9 p after the one before. Returns the occurrences. */
static size_t period_starts(const struct seq *s, size_t q, size_t p, uint32_t *occ, size_t *regular, int whole)
{
    static const size_t widths[] = { 16, 64, SIZE_MAX };
    size_t nocc = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        size_t w = widths[wi] < p ? widths[wi] : p;
        if (q + w > s->n)
            w = s->n - q;
        nocc = find_gram(s, q, w, p, occ, whole);
        *regular = 0;
        for (size_t j = 0; j + 1 < nocc; j++)
            *regular += (occ[j + 1] - occ[j]) * 10 >= p * 9 && (occ[j + 1] - occ[j]) * 10 <= p * 11;
        if ((nocc >= MIN_STEPS && *regular >= MIN_REGULAR_GAPS * (nocc - 1)) || w == p)
            break;
    }
    return nocc;
}

/* The inferred steps are the report's: where they came from, and the process and thread they belong to (the
 * thread that launched the first period's first operation; without one, the stream's process). */
static void adopt_steps(struct ps_report *r, const struct ps_view *v, const struct seq *s, const uint32_t *occ,
                        uint32_t stream, size_t p, double best, int made, size_t repeats)
{
    const struct ps_model *m = v->m;
    const struct ps_stream *st = &m->streams.v[stream];
    struct ps_gpu_op first = ps_view_gpu(v, s->op[occ[0]]);
    r->steps_inferred = 1;
    r->whole_run = 0;
    r->infer_period_ops = (int64_t)p;
    r->infer_match = best;
    r->infer_device = st->device;
    r->infer_stream = st->stream;
    r->step_thread = first.launch != PS_NONE ? ps_view_api_at(v, first.launch)->thread : PS_NONE;
    r->step_threads = r->step_thread != PS_NONE;
    if (r->step_thread != PS_NONE) {
        r->scoped = 1;
        r->pid = m->threads.v[r->step_thread].pid;
    } else if (!m->correlation_global) {
        r->scoped = 1;
        r->pid = st->pid;
    }
    char host[160] = "";
    if (repeats > 1)   /* the host's structure decided (host_repeats) */
        snprintf(host, sizeof host, ", %zu repeats of a %zu-operation sequence: the host's idle gap comes once per "
                 "period", repeats, p / repeats);
    char before[160] = "";
    int64_t warmup_ns = r->steps[0].host_start_ns - r->run_start_ns;
    if (warmup_ns > 0)   /* docs/report.md: what came before the first step is warm-up, in no step */
        snprintf(before, sizeof before, "; what came before the first step (%.3f ms from the first event, %u "
                 "operations of the stream) is warm-up, in no step", (double)warmup_ns / 1e6, occ[0]);
    note(r, "%d steps inferred from the repeating kernel sequence of device %d stream %lld: a period of %zu GPU "
            "operations (%.1f %% of them repeat one period later%s); each step starts at its iteration's first "
            "host activity (the launching thread's first range or launch after the previous iteration's last "
            "launch)%s", made, st->device, (long long)st->stream, p, 100.0 * best, host, before);
}

int ps_steps_infer(struct ps_report *r, const struct ps_view *v)
{
    struct seq s = { 0 };
    struct cand cand[MAX_CANDIDATES];
    uint32_t stream = 0, *occ = NULL;
    size_t phase = 0, regular = 0;
    double best = 0;
    int rc = -ENOMEM;
    if (busiest_stream(v, &s, &stream) < 0)
        goto out;
    rc = 0;
    if (s.n < MIN_OPS) {
        note(r, "no steps inferred: %zu GPU operations on the busiest stream, too few to find a period", s.n);
        goto out;
    }
    int nc = candidates(v->m, &s, cand);
    if (nc < 0) {
        rc = -ENOMEM;
        goto out;
    }
    size_t from = s.n / 3;   /* the steady part: a warm-up phase does not repeat */
    size_t p = best_period(&s, from, cand, nc, &best);
    if (nc == 0 || best < MIN_MATCH) {
        note(r, "no steps inferred: the kernel sequence of the busiest stream does not repeat (best match %.1f %% of "
                "operations%s, %.0f %% needed)", 100.0 * best, nc ? "" : ": no kernel recurs at a fixed distance",
             100.0 * MIN_MATCH);
        goto out;
    }
    size_t repeats = 1;
    if ((rc = host_repeats(v, &s, from, p, &repeats)) < 0)
        goto out;
    p *= repeats;
    if ((rc = period_phase(v, &s, from, p, &phase)) < 0)
        goto out;
    if (!(occ = malloc((s.n / (p / 2 ? p / 2 : 1) + 2) * sizeof *occ))) {
        rc = -ENOMEM;
        goto out;
    }
    size_t nocc = period_starts(&s, from + phase, p, occ, &regular, repeats > 1);
    if (nocc < MIN_STEPS || regular < MIN_REGULAR_GAPS * (nocc - 1)) {
        note(r, "no steps inferred: a period of %zu operations matches %.1f %% of the busiest stream, but its start "
                "recurs irregularly (%zu of %zu repeats within 10 %% of the period)", p, 100.0 * best, regular,
             nocc ? nocc - 1 : 0);
        goto out;
    }
    int made = make_steps(r, v, &s, occ, nocc, p);
    if (made < 0)
        rc = -ENOMEM;
    else if (made < MIN_STEPS)
        note(r, "no steps inferred: a period of %zu operations repeats, but fewer than %d whole periods lie in order",
             p, MIN_STEPS);
    else
        adopt_steps(r, v, &s, occ, stream, p, best, made, repeats);
out:
    free(s.op);
    free(s.name);
    free(s.launched);
    free(occ);
    return rc;
}
