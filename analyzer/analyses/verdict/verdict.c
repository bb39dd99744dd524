/* The verdict (docs/report.md): per step and for the run, what the GPU waits on most — `kernel` when the Kernel
 * share reaches the threshold, else the largest cause among data-loading, memcpy, communication, sync and
 * host — with the evidence behind it and the fixes, each pointing at what the report shows and bounded by the
 * time its cause takes. The findings are findings.c's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_schema.h"

/* The verdict's groups of one breakdown, before the pre-trace correction. */
static void groups(const int64_t *cat, int64_t sync_ns, int64_t out[PS_BN_UNKNOWN])
{
    out[PS_BN_KERNEL] = cat[PS_CAT_KERNEL];
    out[PS_BN_DATA] = cat[PS_CAT_DATALOADER];
    out[PS_BN_MEMCPY] = cat[PS_CAT_MEMCPY] + cat[PS_CAT_MEMSET];
    out[PS_BN_COMM] = cat[PS_CAT_COMM];
    out[PS_BN_SYNC] = sync_ns;
    out[PS_BN_HOST] = cat[PS_CAT_RUNTIME] + cat[PS_CAT_CPU_EXEC] + cat[PS_CAT_OTHER] - sync_ns;
}

/* The GPU's work queued before the trace is neither the host's nor anything the program can change: the verdict
 * weighs the groups over the rest of the window, taking that work out of host, where the breakdown carved it
 * (backlog.c). A pre-trace time larger than host cannot have come from it and is not taken out. */
/* The bottleneck of groups g summing to `seen`: kernel when its group reaches the threshold, else the largest other. */
static enum ps_bottleneck pick(const int64_t g[PS_BN_UNKNOWN], int64_t seen, double threshold, double *share)
{
    *share = 0;
    if (seen <= 0)
        return PS_BN_UNKNOWN;
    enum ps_bottleneck best = PS_BN_KERNEL;
    if ((double)g[PS_BN_KERNEL] < threshold * (double)seen) {
        best = PS_BN_DATA;
        for (int b = PS_BN_DATA; b < PS_BN_UNKNOWN; b++)
            if (g[b] > g[best])
                best = (enum ps_bottleneck)b;
    }
    *share = (double)g[best] / (double)seen;
    return best;
}

enum ps_bottleneck ps_verdict_classify(const int64_t *cat, int64_t sync_ns, int64_t pretrace_ns, int64_t dur,
                                       double threshold, int64_t g[PS_BN_UNKNOWN], int64_t *seen_ns, double *share)
{
    groups(cat, sync_ns, g);
    g[PS_BN_WAITING] = 0;
    int64_t seen = dur;
    if (pretrace_ns > 0 && pretrace_ns <= g[PS_BN_HOST]) {
        g[PS_BN_HOST] -= pretrace_ns;
        seen -= pretrace_ns;
    }
    *seen_ns = seen;
    return pick(g, seen, threshold, share);
}

enum ps_bottleneck ps_verdict_classify_causes(const int64_t *c, int host_only, int64_t dur, double threshold,
                                              int64_t g[PS_BN_UNKNOWN], int64_t *seen_ns, double *share)
{
    for (int k = 0; k < PS_BN_UNKNOWN; k++)
        g[k] = 0;
    for (int k = 0; k < PS_CAUSE_N; k++) {
        enum ps_bottleneck b = ps_cause_group((enum ps_cause)k, host_only);
        if (b != PS_BN_UNKNOWN)
            g[b] += c[k];
    }
    *seen_ns = dur - c[PS_CAUSE_PRETRACE];
    *share = 0;
    return pick(g, *seen_ns, threshold, share);
}

/* ---- evidence: the top names behind the bottleneck, inside the analysed steps ---- */

/* Append the `k` largest totals to the evidence, then empty the tally. */
static void tally_top(struct ps_report *r, struct ps_tally *t, const char *kind, size_t k)
{
    uint32_t ids[PS_MAX_EVIDENCE];
    int64_t count[PS_MAX_EVIDENCE], total[PS_MAX_EVIDENCE];
    size_t n = ps_tally_top(t, k < PS_MAX_EVIDENCE ? k : PS_MAX_EVIDENCE, 0, ids, count, total);
    for (size_t i = 0; i < n && r->nevidence < PS_MAX_EVIDENCE; i++)
        if (total[i] > 0)
            r->evidence[r->nevidence++] = (struct ps_evidence){ kind, ids[i], count[i], total[i] };
}

/* Host compute's evidence: the ranges that take the compute time (forward, backward, optimizer, the program's own),
 * not data loading: a range inside a data range of its thread (a fetch's __getitem__, collate) is loading; nor a
 * collective range, a wait on one (the Communication category, breakdown.c) or DDP's allreduce span. */
static int compute_ranges(struct ps_report *r, const struct ps_view *v, struct ps_names *names, struct ps_tally *t)
{
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    int64_t *data_end = calloc(v->m->threads.n + 1, sizeof *data_end);
    if (!data_end)
        return -ENOMEM;
    for (size_t i = 0; i < v->nranges; i++) {   /* in start order: a data range is seen before what it holds */
        const struct ps_range *g = ps_view_range(v, i);
        unsigned f = ps_names_flags(names, g->name);
        size_t th = g->thread == PS_NONE ? v->m->threads.n : g->thread;
        if (g->kind == PS_RANGE_NVTX_MARK || g->kind == PS_RANGE_GPU_ANNOTATION)
            continue;
        if (f & PS_NAME_DATA) {
            data_end[th] = g->end_ns > data_end[th] ? g->end_ns : data_end[th];
            continue;
        }
        if (!(f & (PS_NAME_STEP | PS_NAME_COPY | PS_NAME_HOST_COMM | PS_NAME_DDP_ALLREDUCE)) &&
            g->start_ns >= data_end[th] && g->start_ns >= a && g->end_ns <= b)
            ps_tally_add(t, ps_names_group(names, g->name), 1, g->end_ns - g->start_ns);
    }
    free(data_end);
    tally_top(r, t, "range", 3);
    return 0;
}

static int evidence(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    struct ps_tally t;
    if (ps_tally_init(&t, ps_model_nstrings(m)) < 0)
        return -ENOMEM;
#define IN_WINDOW(x) ((x)->start_ns >= a && (x)->end_ns <= b)
    if (r->bottleneck == PS_BN_KERNEL && !r->has_gpu && compute_ranges(r, v, names, &t) < 0) {
        ps_tally_fini(&t);
        return -ENOMEM;
    }
    switch (r->bottleneck) {
    case PS_BN_DATA:
    case PS_BN_HOST:
        for (size_t i = 0; i < v->nranges; i++) {
            const struct ps_range *g = ps_view_range(v, i);
            unsigned f = ps_names_flags(names, g->name);
            int want = r->bottleneck == PS_BN_DATA ? (f & PS_NAME_DATA) != 0 : !(f & (PS_NAME_DATA | PS_NAME_STEP));
            if (want && g->kind != PS_RANGE_NVTX_MARK && g->kind != PS_RANGE_GPU_ANNOTATION &&
                IN_WINDOW(g))
                ps_tally_add(&t, ps_names_group(names, g->name), 1, g->end_ns - g->start_ns);   /* emit_nvtx: by base */
        }
        tally_top(r, &t, "range", 3);
        if (r->bottleneck == PS_BN_DATA)
            break;
        /* host overhead also shows in the API calls */
        __attribute__((fallthrough));
    case PS_BN_SYNC:
        for (size_t i = 0; i < v->napi; i++) {
            const struct ps_api_call *c = ps_view_api(v, i);
            int sync = (ps_names_flags(names, c->name) & PS_NAME_SYNC_API) != 0;
            if ((r->bottleneck != PS_BN_SYNC || sync) && IN_WINDOW(c))
                ps_tally_add(&t, c->name, 1, c->end_ns - c->start_ns);
        }
        tally_top(r, &t, "api", 3);
        break;
    case PS_BN_MEMCPY:
    case PS_BN_KERNEL:
    case PS_BN_COMM:
        for (size_t i = 0; i < v->ngpu; i++) {
            const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
            int nccl = (ps_names_flags(names, op->name) & PS_NAME_NCCL) != 0;
            int want = r->bottleneck == PS_BN_MEMCPY ? (op->kind == PS_GPU_MEMCPY || op->kind == PS_GPU_MEMSET)
                                                     : op->kind == PS_GPU_KERNEL && nccl == (r->bottleneck == PS_BN_COMM);
            if (want && IN_WINDOW(op))
                ps_tally_add(&t, op->name, 1, op->end_ns - op->start_ns);
        }
        tally_top(r, &t, r->bottleneck == PS_BN_MEMCPY ? "copy" : "kernel", 3);
        if (r->bottleneck == PS_BN_MEMCPY && !r->has_gpu) {   /* host-side copy phases */
            for (size_t i = 0; i < v->nranges; i++) {
                const struct ps_range *g = ps_view_range(v, i);
                if (g->kind != PS_RANGE_GPU_ANNOTATION && (ps_names_flags(names, g->name) & PS_NAME_COPY) &&
                    IN_WINDOW(g))
                    ps_tally_add(&t, ps_names_group(names, g->name), 1, g->end_ns - g->start_ns);
            }
            tally_top(r, &t, "range", 3);
        }
        break;
    case PS_BN_WAITING:   /* where the step thread waited (causes.c), per step times the steady steps */
        for (size_t i = 0; i < r->causes.c[PS_CAUSE_WAITING].ntop && r->nevidence < PS_MAX_EVIDENCE; i++) {
            const struct ps_cause_name *x = &r->causes.c[PS_CAUSE_WAITING].top[i];
            /* a wait inside a collective's range is the collective's (the straggler rule weighs those) */
            if (ps_names_flags(names, x->name) & (PS_NAME_HOST_COMM | PS_NAME_DDP_ALLREDUCE))
                continue;
            r->evidence[r->nevidence++] = (struct ps_evidence){ "range", x->name, (int64_t)r->causes.steps,
                                                                x->ns * (int64_t)r->causes.steps };
        }
        break;
    case PS_BN_UNKNOWN:
        break;
    }
#undef IN_WINDOW
    ps_tally_fini(&t);
    return 0;
}

static int has_evidence(const struct ps_report *r, const char *kind)
{
    for (size_t i = 0; i < r->nevidence; i++)
        if (!strcmp(r->evidence[i].kind, kind))
            return 1;
    return 0;
}

/* Whether the evidence names the model's own work: a module's forward, backward or an optimizer step (the Python
 * hook's ranges, docs/python.md). */
static int model_ranges(const struct ps_report *r)
{
    for (size_t i = 0; i < r->nevidence; i++) {
        const char *n = ps_model_str(r->m, r->evidence[i].name);
        if (!strcmp(r->evidence[i].kind, "range") &&
            (!strncmp(n, "nn.Module: ", 11) || !strcmp(n, "backward") || !strncmp(n, "Optimizer.step#", 15)))
            return 1;
    }
    return 0;
}

/* Merged disjoint intervals of the step thread's ranges inside (a, b) that `want` accepts, in start order, into
 * *out (caller frees) and their number into *nout. 0 or -ENOMEM. */
static int thread_intervals(const struct ps_report *r, int64_t a, int64_t b, struct ps_names *names,
                            int (*want)(const struct ps_report *, struct ps_names *, const struct ps_range *),
                            int64_t (**out)[2], long *nout)
{
    int64_t (*iv)[2] = malloc((r->scope->nranges + 1) * sizeof *iv);
    size_t n = 0;
    if (!iv)
        return -ENOMEM;
    for (size_t i = 0; i < r->scope->nranges; i++) {   /* in start order */
        const struct ps_range *g = ps_view_range(r->scope, i);
        if (g->thread != r->step_thread || g->kind == PS_RANGE_NVTX_MARK || g->end_ns <= a || g->start_ns >= b ||
            !want(r, names, g))
            continue;
        if (n && g->start_ns <= iv[n - 1][1]) {
            iv[n - 1][1] = g->end_ns > iv[n - 1][1] ? g->end_ns : iv[n - 1][1];
        } else {
            iv[n][0] = g->start_ns;
            iv[n++][1] = g->end_ns;
        }
    }
    *out = iv;
    *nout = (long)n;
    return 0;
}

static int inside(int64_t (*iv)[2], long n, int64_t t)
{
    long lo = 0, hi = n;               /* the first interval ending after t */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (iv[mid][1] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && iv[lo][0] <= t;
}

static int not_compute_range(const struct ps_report *r, struct ps_names *names, const struct ps_range *g)
{
    (void)r;
    return (ps_names_flags(names, g->name) & (PS_NAME_DATA | PS_NAME_COPY | PS_NAME_HOST_COMM)) != 0;
}

static int evidence_range(const struct ps_report *r, struct ps_names *names, const struct ps_range *g)
{
    uint32_t group = ps_names_group(names, g->name);
    for (size_t i = 0; i < r->nevidence; i++)
        if (!strcmp(r->evidence[i].kind, "range") && ps_names_group(names, r->evidence[i].name) == group)
            return 1;
    return 0;
}

/* Host compute that is not computing: without GPU rows the Compute group is the step's time outside data loading,
 * copies and collectives, whether or not the step thread ran. perfscope samples each thread's scheduler state
 * (PERFSCOPE_THREAD_SAMPLES, --sample-hz a second, at times that owe nothing to the program): of the step thread's
 * samples inside the analysed steps, those outside its data, copy and collective ranges and in state S, D or T
 * (asleep, blocked or stopped: time.sleep, a lock, I/O, a debugger) estimate the share of the step it spent
 * waiting in host compute. A runnable thread on a busy machine is R and counts as computing. Fills r->host_wait.
 * 0 or -ENOMEM. */
static int host_compute_wait(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    struct ps_host_wait *w = &r->host_wait;
    *w = (struct ps_host_wait){ 0 };
    if (r->has_gpu || m->format != PS_FORMAT_PERFSCOPE || r->nsteps == 0 || r->step_thread == PS_NONE ||
        r->bottleneck != PS_BN_KERNEL)
        return 0;
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    int64_t (*other)[2] = NULL, (*ev)[2] = NULL;
    long nother = 0, nev = 0;
    int rc = thread_intervals(r, a, b, names, not_compute_range, &other, &nother);
    if (rc == 0)
        rc = thread_intervals(r, a, b, names, evidence_range, &ev, &nev);
    if (rc == 0) {
        w->checked = 1;
        for (size_t i = 0; i < m->thread_samples.n; i++) {
            const struct ps_thread_sample *s = &m->thread_samples.v[i];
            if (s->thread != r->step_thread || s->time_ns <= a || s->time_ns >= b)
                continue;
            w->samples++;
            if ((s->state == PS_THREAD_SLEEPING || s->state == PS_THREAD_BLOCKED_IO ||
                 s->state == PS_THREAD_STOPPED) && !inside(other, nother, s->time_ns)) {
                w->waiting++;
                w->in_evidence += inside(ev, nev, s->time_ns);
            }
        }
        if (w->samples)
            w->wait_ns = (int64_t)((double)w->waiting / (double)w->samples * (double)r->avg_dur_ns);
        w->claimed = w->samples >= 8 && w->waiting * 4 >= w->samples;
    }
    free(other);
    free(ev);
    return rc;
}

/* When the ranks are processes of this trace and the analysed one is the rank the others wait for: a sentence
 * saying so (ahead of the verdict's fix: shortening its own work shortens every rank's step); else "". Its excess
 * is the verdict group the several-rank report found (straggler.c), named by the rank's own largest name in it:
 * a sleep is called waiting, not compute. */
static void straggler_sentence(const struct ps_report *r, char *buf, size_t len)
{
    const struct ps_waited_rank *w = &r->waited;
    char in[224];
    buf[0] = '\0';
    if (!w->found || !r->scoped || w->pid != r->pid)
        return;
    ps_excess_in(in, sizeof in, w->group, w->has_gpu, w->name);
    snprintf(buf, len, "This process is rank %d, the one the other ranks wait for: they wait %.1f ms per step for "
             "it, and its %s takes %.1f ms per step longer than theirs (Straggler below); shortening it shortens "
             "every rank's step. ", w->rank, (double)w->waited_for_ns / 1e6, in, (double)w->excess_ns / 1e6);
}

/* The fix for exposed communication when the ranks are processes of this trace: it names the rank the others
 * wait for, what in its step is longer and what shortens it (excess.c), or says no rank is waited for; buf
 * unchanged when the ranks were not analysed. */
static void waited_rank_fix(const struct ps_report *r, char *buf, size_t len)
{
    const struct ps_waited_rank *w = &r->waited;
    char in[224], fix[512];
    if (!w->analysed)
        return;
    if (!w->found) {
        snprintf(buf, len, "Collective communication is exposed, and no rank of this trace is waited for (Ranks in "
                 "this trace): overlap it with backward (DDP bucket size), accumulate gradients over several "
                 "micro-batches (no_sync), use larger batches.");
        return;
    }
    ps_excess_in(in, sizeof in, w->group, w->has_gpu, w->name);
    ps_excess_fix(fix, sizeof fix, w->group, w->has_gpu, w->name);
    /* the path is "pid N" (process_ranks.c); in and fix hold one name each, cut at 160 bytes (excess.c) */
    snprintf(buf, len, "Collective communication is exposed, and most of it is waiting for rank %d (%.32s): the other "
             "ranks wait %.1f ms per step for it, and its %.200s takes %.1f ms per step longer than theirs (Straggler "
             "below): %.380s; then overlap what is left with backward (DDP bucket size).", w->rank, w->path,
             (double)w->waited_for_ns / 1e6, in, (double)w->excess_ns / 1e6, fix);
}

/* The advice perfscope's Python hook has for the run's bottleneck (pytorch.c: worded from the DataLoader's
 * settings, its workers and the copies), whole sentences joined into out while they fit; "" when it has none. */
static void hook_fix(const struct ps_report *r, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; r->py && i < r->py->nadvice; i++) {
        size_t n = strlen(r->py->advice[i]);
        if (r->py->advice_for[i] != r->bottleneck || len + 1 + n >= cap)
            continue;
        snprintf(out + len, cap - len, "%s%s", len ? " " : "", r->py->advice[i]);
        len += n + (len ? 1 : 0);
    }
}

/* Host compute's fix when the step thread's samples say it waits (r->host_wait): the sentence saying so into
 * off_cpu and where the waits lie into where (*ev then points at it); or, with too few samples to tell, the
 * generic host-compute fix with that caveat. Both stay "" otherwise. */
static void host_wait_fix(const struct ps_report *r, const char *host_compute, char *off_cpu, size_t off_len,
                          char *where, size_t where_len, const char **ev)
{
    const struct ps_host_wait *w = &r->host_wait;
    if (w->claimed) {
        snprintf(off_cpu, off_len, "Much of this host compute is not computing: in %zu of %zu samples of "
                 "the step thread's state during the analysed steps it was asleep, blocked or stopped (S, D or T) "
                 "outside its data, copy and collective ranges, about %.1f ms of the %.1f ms of host compute per "
                 "step: it waits for something no range shows (time.sleep, a lock or the GIL, file or network I/O, "
                 "another process, a debugger); find what with py-spy dump --native or perf sched, then remove the "
                 "wait.", w->waiting, w->samples, (double)w->wait_ns / 1e6,
                 (double)r->avg.cat_ns[PS_CAT_KERNEL] / 1e6);
        int outside = w->in_evidence * 2 < w->waiting;
        snprintf(where, where_len, outside
                 ? "the step's code outside the ranges under Evidence: only %zu of the %zu waiting samples lie "
                   "inside them%s"
                 : "the ranges under Evidence: %zu of the %zu waiting samples lie inside them%s",
                 w->in_evidence, w->waiting, outside && r->py && !model_ranges(r)
                 ? " (--python-hooks=modules records a range per top-level module, forward's too)" : "");
        *ev = where;
    } else if (w->checked && w->samples < 8) {
        snprintf(off_cpu, off_len, "%s Whether the step thread computed or waited is not known here: %zu "
                 "samples of its state in the analysed steps, 8 needed (record with --sample-hz 20 or more, or "
                 "more steps).", host_compute, w->samples);
    }
}

/* The cause of the verdict's group that names where the host spends it (causes.c): data loading, host compute,
 * sync or waiting; PS_CAUSE_N for the others. */
static enum ps_cause named_cause(const struct ps_report *r)
{
    switch (r->bottleneck) {
    case PS_BN_DATA: return PS_CAUSE_DATA;
    case PS_BN_SYNC: return PS_CAUSE_SYNC;
    case PS_BN_WAITING: return PS_CAUSE_WAITING;
    case PS_BN_HOST: return PS_CAUSE_HOST;
    case PS_BN_KERNEL: return r->has_gpu ? PS_CAUSE_N : PS_CAUSE_HOST;
    default: return PS_CAUSE_N;
    }
}

/* "f, where Where the step goes puts most of it (12.000 ms per step)" for the verdict's cause: 1 when written. */
static int cause_named(const struct ps_report *r, char *buf, size_t len)
{
    enum ps_cause c = named_cause(r);
    /* only a name the ranges under Evidence do not give already: a Python function, or the op behind a sync */
    int python = r->causes.python_frames > 0 || r->causes.python_samples > 0;
    if (c == PS_CAUSE_N || !r->causes.computed || !r->causes.c[c].ntop || (!python && c != PS_CAUSE_SYNC))
        return 0;
    const struct ps_cause_name *x = &r->causes.c[c].top[0];
    snprintf(buf, len, "%s, where Where the step goes puts most of it (%.3f ms per step)",
             ps_model_str(r->m, x->name), (double)x->ns / 1e6);
    return 1;
}

#define PINNED_SHARE 0.95

/* The generic fix where the trace contradicts parts of fix[] (r->advice, advice_facts.c): copies that already come
 * from pinned memory, a program without Python (no DataLoader, pin_memory or .item() to change); NULL otherwise. */
static const char *program_fix(const struct ps_report *r)
{
    const struct ps_advice_facts *a = &r->advice;
    if (r->bottleneck == PS_BN_KERNEL && r->has_gpu && a->rocm)
        return "The device is busy computing: speed up the kernels that take the most time; run matrix math in "
               "bf16 / fp16 (AMP) on the GPU's Matrix Cores where it is not already (hipBLASLt / rocBLAS kernels "
               "name their types), fuse small element-wise kernels (torch.compile).";
    /* pinned: at least PINNED_SHARE of the copies' time (a few small pageable ones do not make the fix) */
    int pinned = a->host_copy_ns > 0 && (double)a->pinned_copy_ns >= PINNED_SHARE * (double)a->host_copy_ns;
    if (r->bottleneck == PS_BN_MEMCPY && pinned)
        return a->python ? "Host<->device copies stall the step, and they already come from pinned (page-locked) "
                           "memory: copy with non_blocking=True on a side stream so transfers overlap compute, batch "
                           "small copies into fewer large ones, keep tensors on the GPU between steps."
                         : "Host<->device copies stall the step, and they already come from pinned (page-locked) "
                           "memory: issue them with cudaMemcpyAsync on a stream of their own so they overlap "
                           "kernels, batch small copies into fewer large ones, keep data on the GPU between steps.";
    if (a->python)
        return NULL;
    if (r->bottleneck == PS_BN_DATA)
        return "The step waits for input data: load, decode and augment the next batches ahead of the step on "
               "background threads (a prefetch queue of a few batches), move decoding / augmentation onto the GPU, "
               "cache preprocessed samples.";
    if (r->bottleneck == PS_BN_MEMCPY)
        return "Host<->device copies stall the step: copy from pinned (page-locked) memory (cudaHostAlloc, "
               "cudaHostRegister) with cudaMemcpyAsync on a stream of their own so transfers overlap kernels, batch "
               "small copies, keep data on the GPU between steps.";
    if (r->bottleneck == PS_BN_SYNC)
        return "The host synchronises with the GPU and then leaves it idle: remove cudaDeviceSynchronize / "
               "cudaStreamSynchronize and synchronous cudaMemcpy from the step; wait on CUDA events only where a "
               "result is needed, and copy with cudaMemcpyAsync.";
    return NULL;
}

/* Host compute the causes name by a Python function outside the model (not forward, backward, an optimizer step
 * or an ATen op in its chain): the fix is to take that function off the step thread (docs/report.md "What to
 * do"). 1 when written into buf. */
static int python_function_fix(const struct ps_report *r, char *buf, size_t len)
{
    enum ps_cause c = named_cause(r);
    const struct ps_cause_stat *st = c == PS_CAUSE_HOST ? &r->causes.c[c] : NULL;
    int python = r->causes.python_frames > 0 || r->causes.python_samples > 0;
    if (!st || st->function == PS_NONE || !python || st->top_gain_ns <= 0 || 4 * st->top_gain_ns < r->max_gain_ns)
        return 0;
    snprintf(buf, len, "The step thread spends about %.3f ms per step in %.120s, Python outside the model, while "
             "%s: take it off the step thread: move it into a Dataset's __getitem__ served by DataLoader workers "
             "(num_workers >= 1, so it runs for the next batches while this one computes), or prepare the next "
             "batch with it while the %s works on this one; cache what it computes if its input repeats.",
             (double)st->top_gain_ns / 1e6, ps_model_str(r->m, st->function),
             r->has_gpu ? "the GPU waits" : "the model waits", r->has_gpu ? "GPU" : "model");
    return 1;
}

/* A sync verdict whose largest blocking call is a copy to or from pageable memory (causes.c, inside.c
 * ps_blocking_calls): the fix is pinned memory and an asynchronous copy, naming the op that issued it. 1 when
 * written into buf. */
static int pageable_copy_fix(const struct ps_report *r, char *buf, size_t len)
{
    const struct ps_cause_stat *st = &r->causes.c[PS_CAUSE_SYNC];
    const char *call = r->bottleneck == PS_BN_SYNC && st->ntop && st->call != PS_NONE ? ps_model_str(r->m, st->call)
                                                                                       : NULL;
    if (!call || !strstr(call, "emcpy"))
        return 0;
    if (r->advice.python)
        snprintf(buf, len, "The host blocks in %.60s issued by %.120s: a copy to or from pageable host memory waits "
                 "for the GPU's earlier work and for the copy itself. Copy into a pinned buffer with "
                 "non_blocking=True (x.to('cpu', non_blocking=True) into a pin_memory() tensor; inputs from "
                 "pinned memory), record a CUDA event after it, and read the result only where it is needed (a step "
                 "later, or every N steps for logging).", call,
                 ps_model_str(r->m, st->top[0].name));
    else
        snprintf(buf, len, "The host blocks in %.60s issued by %.120s: a copy to or from pageable host memory waits "
                 "for the GPU's earlier work and for the copy itself. Copy into pinned memory (cudaHostAlloc, "
                 "cudaHostRegister) with cudaMemcpyAsync, record a CUDA event after it and wait on the event only "
                 "where the data is needed.", call, ps_model_str(r->m, st->top[0].name));
    return 1;
}

/* The fix's expected gain (docs/report.md "Expected gains"): the replay's saving without the verdict's group
 * (r->max_gain_ns), against the time the group takes, and without the function the fix names alone; the group's
 * time as the bound where the steps were not replayed. */
static void expected_gain(const struct ps_report *r, const char *what, int function_fix, char *buf, size_t len)
{
    const char *per = r->whole_run ? "over the run" : "per step", *of = r->whole_run ? "the run" : "the average step";
    int64_t step = r->verdict_step_ns, now = r->avg.group_ns[r->bottleneck], gain = r->max_gain_ns;
    double pct = step > 0 ? 100.0 * (double)gain / (double)step : NAN;
    if (!r->causes.replayed) {
        snprintf(buf, len, "at most %.3f ms %s (%.1f %% of %s), the time %s takes now.", (double)gain / 1e6, per, pct,
                 of, what);
        return;
    }
    enum ps_cause c = named_cause(r);
    const struct ps_cause_stat *st = c < PS_CAUSE_N ? &r->causes.c[c] : NULL;
    char alone[160] = "";
    int python = r->causes.python_frames > 0 || r->causes.python_samples > 0;
    if (function_fix) {   /* the fix moves the function: its replay first, the whole group's after it */
        snprintf(buf, len, "about %.3f ms %s (%.1f %% of %s): the steps replayed without %.120s (what it calls "
                 "too); without all %s (%.3f ms of it now), about %.3f ms.", (double)st->top_gain_ns / 1e6,
                 per, step > 0 ? 100.0 * (double)st->top_gain_ns / (double)step : NAN, of,
                 ps_model_str(r->m, st->function), what, (double)now / 1e6, (double)gain / 1e6);
        return;
    }
    uint32_t alone_name = st && st->function != PS_NONE ? st->function : st && st->ntop ? st->top[0].name : PS_NONE;
    if (alone_name != PS_NONE && st->top_gain_ns >= 0 && python && st->top_gain_ns < gain)
        snprintf(alone, sizeof alone, "; without %.60s alone, about %.3f ms", ps_model_str(r->m, alone_name),
                 (double)st->top_gain_ns / 1e6);
    int part = 2 * gain < now;   /* the rest of the step holds it up too */
    snprintf(buf, len, "about %.3f ms %s (%.1f %% of %s): the %s replayed without %s (%.3f ms of it now)%s%s.",
             (double)gain / 1e6, per, pct, of, r->whole_run ? "run" : "steps", what, (double)now / 1e6,
             part && r->bottleneck == PS_BN_KERNEL && r->has_gpu && r->graphs.launches > 0
                 ? "; the host's work between the graph replays then takes nearly as long: shorten it too"
             : part && r->bottleneck == PS_BN_KERNEL && r->has_gpu
                 ? "; the host's work and launches then take nearly as long: shorten them too (CUDA graphs, "
                   "torch.compile)"
             : part ? (r->whole_run ? "; the rest of the run then takes nearly as long"
                                    : "; the rest of the step then takes nearly as long") : "",
             alone);
}

/* The verdict's fix, naming what the report shows for it (the evidence rows, else the step table's column) and
 * its expected gain, bounded by the cause's time. Where the Python hook has advice for the bottleneck, that
 * advice is the fix (it names the loader's settings and the num_workers to try) in place of the generic one. */
static void verdict_fix(struct ps_report *r)
{
    static const char *const fix[] = {
        [PS_BN_KERNEL] = "The device is busy computing: speed up the kernels that take the most time; use mixed "
                         "precision (AMP, bf16) so matrix math runs on Tensor Cores; fuse small element-wise "
                         "kernels (torch.compile).",
        [PS_BN_DATA] = "The step waits for input data: use more DataLoader workers (num_workers) and prefetching "
                       "(prefetch_factor), pin_memory=True, and move decoding / augmentation off the training "
                       "thread or onto the GPU; cache preprocessed samples.",
        [PS_BN_MEMCPY] = "Host<->device copies stall the step: copy from pinned (page-locked) memory with "
                         "non_blocking=True so transfers overlap compute, batch small copies, keep tensors on the "
                         "GPU between steps.",
        [PS_BN_COMM] = "Collective communication is exposed: in synchronous training much of it can be waiting for "
                       "a slower rank (report every rank's file together, perfscope report run.*.sqlite, to name "
                       "it); otherwise overlap it with backward (DDP bucket size), accumulate gradients over several "
                       "micro-batches (no_sync), use larger batches.",
        [PS_BN_SYNC] = "The host synchronises with the GPU and then leaves it idle: remove .item(), .cpu(), "
                       "printing GPU tensors and explicit synchronize calls from the step; use non_blocking "
                       "copies and CUDA events.",
        [PS_BN_HOST] = "The GPU waits for the host to launch work: capture the step in CUDA graphs (torch.compile "
                       "mode=\"reduce-overhead\"), fuse operators into fewer, larger kernels, use larger batches.",
        [PS_BN_WAITING] = "The step thread sleeps or waits (a lock, a queue, I/O) instead of working: remove the "
                          "sleep, shorten what holds the lock or move the I/O off the step thread.",
    };
    /* Without GPU rows the `kernel` group is the host's own compute (docs/report.md): GPU advice would not apply. */
    static const char host_compute[] =
        "The host is busy computing (no GPU rows in this trace): profile the hot functions (perf record, "
        "py-spy), vectorise them or call optimised libraries (BLAS, oneDNN, NumPy / PyTorch ops instead of "
        "Python loops), use more threads (OMP_NUM_THREADS, torch.set_num_threads); or run the model on the GPU.";
    static const char *const column[] = {
        [PS_BN_KERNEL] = "the Kernel column of the steps", [PS_BN_DATA] = "the DataLoader column of the steps",
        [PS_BN_MEMCPY] = "the Memcpy and Memset columns of the steps",
        [PS_BN_COMM] = "the Communication column of the steps", [PS_BN_SYNC] = "the sync column of the steps",
        [PS_BN_HOST] = "the Runtime, CPU Exec and Other columns of the steps",
        [PS_BN_WAITING] = "the waiting line of Where the step goes",
    };
    static const char *const what[] = {
        [PS_BN_KERNEL] = "the kernels", [PS_BN_DATA] = "data loading", [PS_BN_MEMCPY] = "the copies",
        [PS_BN_COMM] = "exposed communication", [PS_BN_SYNC] = "synchronisation",
        [PS_BN_HOST] = "host-side work", [PS_BN_WAITING] = "waiting",
    };
    if (r->bottleneck == PS_BN_UNKNOWN || r->avg_dur_ns <= 0)
        return;
    int host = r->bottleneck == PS_BN_KERNEL && !r->has_gpu;
    const char *ev = has_evidence(r, "kernel") ? "the kernels under Evidence"
                     : has_evidence(r, "copy")  ? "the copies under Evidence"
                     : has_evidence(r, "range") ? (host ? "the ranges under Evidence: the hot functions"
                                                        : "the ranges under Evidence")
                     : has_evidence(r, "api")   ? "the API calls under Evidence"
                     : host                     ? "the Compute column of the steps"
                                                : column[r->bottleneck];
    char named[320];
    if (cause_named(r, named, sizeof named))
        ev = named;
    char hook[PS_REC_LEN - 256 - sizeof named];   /* the rest of the sentence fits in 256 */
    if (host && r->py && !model_ranges(r))   /* the hook ran without --python-hooks=modules */
        ev = "the ranges under Evidence (no forward range: record with --python-hooks=modules for one per top-level "
             "module)";
    hook_fix(r, hook, sizeof hook);
    int from_hook = hook[0] != '\0';
    if (!hook[0] && r->bottleneck == PS_BN_COMM)   /* the ranks are processes of this trace: it names the one */
        waited_rank_fix(r, hook, sizeof hook);
    if (!hook[0] && r->bottleneck == PS_BN_HOST && r->graphs.launches > 0)   /* never advise what it does */
        snprintf(hook, sizeof hook, "The GPU waits for the host to launch work, and the program already replays "
                 "CUDA graphs (%lld graph launches ran %lld kernels, %.1f %% of GPU time): capture the eager work "
                 "between the replays too (%lld kernels launched one by one: fewer graph breaks under torch.compile, "
                 "whole-step instead of piecewise graphs), fuse operators, use larger batches.",
                 (long long)r->graphs.launches, (long long)r->graphs.kernels, 100.0 * r->graphs.share,
                 (long long)r->graphs.eager_kernels);
    char off_cpu[640] = "", straggler[560], where[224] = "";
    const struct ps_host_wait *w = &r->host_wait;
    if (host)
        host_wait_fix(r, host_compute, off_cpu, sizeof off_cpu, where, sizeof where, &ev);
    int function_fix = !off_cpu[0] && python_function_fix(r, off_cpu, sizeof off_cpu);   /* for the generic one */
    if (!off_cpu[0])
        pageable_copy_fix(r, off_cpu, sizeof off_cpu);
    straggler_sentence(r, straggler, sizeof straggler);
    char waits[96] = "", expected[320];
    /* without steps the window is the run: never "per step" (docs/report.md "What to do") */
    const char *per = r->whole_run ? "over the run" : "per step";
    if (host && w->claimed)
        snprintf(waits, sizeof waits, "about %.3f ms %s from the waits alone; ", (double)w->wait_ns / 1e6, per);
    expected_gain(r, host ? "host compute" : what[r->bottleneck], function_fix, expected, sizeof expected);
    const char *generic = program_fix(r);
    /* a host verdict made mostly of time the trace says nothing about: the fix is a guess until it is known */
    char unknown[224] = "";
    int64_t unexplained = r->causes.computed ? r->causes.c[PS_CAUSE_UNEXPLAINED].ns : 0;
    if (r->bottleneck == PS_BN_HOST && 2 * unexplained > r->avg.group_ns[PS_BN_HOST])
        snprintf(unknown, sizeof unknown, " But %.3f ms of the %.3f ms is time the trace records nothing the step "
                 "thread does (unexplained): record its Python stacks (perfscope record) or add ranges there first.",
                 (double)unexplained / 1e6, (double)r->avg.group_ns[PS_BN_HOST] / 1e6);
    snprintf(r->recs[r->nrecs++], PS_REC_LEN, "%s%s%s Look at %s%s. Expected gain: %s%s", straggler,
             off_cpu[0] ? off_cpu : host ? host_compute : hook[0] ? hook : generic ? generic : fix[r->bottleneck],
             unknown, ev, from_hook ? " and the PyTorch section" : "", waits, expected);
    for (size_t i = 0; from_hook && !off_cpu[0] && !host && i < r->py->nadvice; i++)   /* said once, in the fix */
        r->py->advice_in_fix[i] = strstr(hook, r->py->advice[i]) != NULL;
}

/* Then the fixes of the costliest warnings (findings are sorted by cost). */
static void finding_fixes(struct ps_report *r)
{
    for (size_t i = 0; i < r->nfindings && r->nrecs < PS_MAX_RECS; i++) {
        const struct ps_finding *f = &r->findings[i];
        if (strcmp(f->severity, "warning") || !f->fix[0] || ps_report_per_step_ms(r, f->gain_ns) < 0.0005)
            continue;   /* a fix that saves nothing the report can print is no fix */
        ps_report_add_finding_fix(r, f);
    }
}

/* Each step's verdict and the average step's, with the groups every format prints (ps_verdict_classify). */
static void step_verdicts(struct ps_report *r)
{
    double th = r->opts.kernel_threshold;
    const struct ps_causes *cs = &r->causes;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        s->bottleneck = ps_verdict_classify_causes(s->cause_ns, cs->host_only, s->end_ns - s->start_ns, th,
                                                   s->group_ns, &s->seen_ns, &s->share);
    }
    /* the average: of the steady steps (start-up left out: causes.c) */
    struct ps_step *a = &r->avg;
    int64_t avg[PS_CAUSE_N];
    for (int c = 0; c < PS_CAUSE_N; c++)
        avg[c] = cs->c[c].ns;
    a->bottleneck = ps_verdict_classify_causes(avg, cs->host_only, cs->step_ns, th, a->group_ns, &a->seen_ns,
                                               &a->share);
    r->bottleneck = a->bottleneck;
    r->share = a->share;
}

enum ps_bottleneck ps_verdict_all_steps(const struct ps_report *r, int64_t g[PS_BN_UNKNOWN], int64_t *seen_ns,
                                        double *share)
{
    int64_t sum[PS_CAUSE_N] = { 0 }, avg[PS_CAUSE_N], n = (int64_t)r->nsteps, parts = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        for (int c = 0; c < PS_CAUSE_N; c++)
            sum[c] += r->steps[i].cause_ns[c];
    int big = 0;
    for (int c = 0; c < PS_CAUSE_N; c++) {
        parts += avg[c] = n ? (sum[c] + n / 2) / n : 0;
        big = avg[c] > avg[big] ? c : big;
    }
    avg[big] += r->avg_dur_ns - parts;   /* the rounding, to the largest: the causes sum to the average step */
    return ps_verdict_classify_causes(avg, r->causes.host_only, r->avg_dur_ns, r->opts.kernel_threshold, g, seen_ns,
                                      share);
}

int ps_verdict_steps_compute(struct ps_report *r, struct ps_names *names, struct ps_view *sv)
{
    int rc = ps_steps_compute(r, names, sv);
    if (rc == 0 && r->has_gpu)   /* GPU work the trace does not hold: the breakdown keeps it out of sync */
        rc = ps_backlog_find(r, sv);
    if (rc == 0)
        rc = ps_breakdown_compute(r, sv, names);
    if (rc == 0)
        rc = ps_causes_compute(r, sv, names);
    if (rc == 0)
        step_verdicts(r);
    return rc;
}

/* The verdict as a sentence's parts (docs/report.md "Verdict"): the compute share beside the bottleneck, and the
 * most that removing the cause could save: its group of the average step, which the share is of. */
static void verdict_line(struct ps_report *r)
{
    r->verdict_step_ns = r->causes.computed ? r->causes.step_ns : r->avg_dur_ns;
    r->verdict_left_out_ns = r->verdict_step_ns - r->avg.seen_ns;
    r->kernel_share = r->verdict_step_ns > 0 ? (double)r->avg.group_ns[PS_BN_KERNEL] / (double)r->verdict_step_ns
                                             : NAN;
    /* what removing it saves: the replay's (replay.c), else the time it takes */
    r->max_gain_ns = r->bottleneck == PS_BN_UNKNOWN ? -1
                     : r->causes.replayed         ? r->causes.group_gain_ns[r->bottleneck]
                                                  : r->avg.group_ns[r->bottleneck];
    r->max_gain_share = r->bottleneck == PS_BN_UNKNOWN || r->verdict_step_ns <= 0
                            ? NAN
                            : (double)r->max_gain_ns / (double)r->verdict_step_ns;
    if (r->bottleneck != PS_BN_UNKNOWN)
        r->verdict_reason = NULL;
    else if (r->all->nranges == 0 && !r->has_gpu)
        r->verdict_reason = "nothing to break down: no ranges and no GPU activity";
    else if (r->whole_run)
        r->verdict_reason = "zero-length window: nothing to classify";
    else
        r->verdict_reason = "zero-length steps: nothing to classify";
}

int ps_verdict_compute(struct ps_report *r, struct ps_names *names)
{
    r->window_start_ns = r->steps[0].start_ns;
    r->window_end_ns = r->steps[r->nsteps - 1].end_ns > r->window_start_ns ? r->steps[r->nsteps - 1].end_ns
                                                                           : r->window_start_ns;
    verdict_line(r);
    int rc = evidence(r, r->scope, names);
    if (rc == 0)
        rc = host_compute_wait(r, names);
    return rc;
}

void ps_recommendations_compute(struct ps_report *r)
{
    verdict_fix(r);
    finding_fixes(r);
}
