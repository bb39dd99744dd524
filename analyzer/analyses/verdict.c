/* The verdict (DESIGN §4): per step and for the run, what the GPU waits on most — `kernel` when the Kernel
 * share reaches the threshold, else the largest cause among data-loading, memcpy, communication, sync and
 * host — with the evidence behind it, concrete fixes, and the expert findings (pageable async copies,
 * synchronous copies, synchronising calls, GPU gaps, low-utilisation steps, many tiny kernels). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analyses.h"
#include "analyses/sweep.h"

const char *const ps_bottleneck_name[] = { "kernel", "data-loading", "memcpy", "communication", "sync", "host", "unknown" };

enum ps_bottleneck ps_verdict_classify(const int64_t *cat, int64_t sync_ns, int64_t dur, double threshold,
                                       double *share)
{
    *share = 0;
    if (dur <= 0)
        return PS_BN_UNKNOWN;
    if ((double)cat[PS_CAT_KERNEL] >= threshold * (double)dur) {
        *share = (double)cat[PS_CAT_KERNEL] / (double)dur;
        return PS_BN_KERNEL;
    }
    int64_t cause[PS_BN_UNKNOWN] = { 0 };
    cause[PS_BN_DATA] = cat[PS_CAT_DATALOADER];
    cause[PS_BN_MEMCPY] = cat[PS_CAT_MEMCPY] + cat[PS_CAT_MEMSET];
    cause[PS_BN_COMM] = cat[PS_CAT_COMM];
    cause[PS_BN_SYNC] = sync_ns;
    cause[PS_BN_HOST] = cat[PS_CAT_RUNTIME] + cat[PS_CAT_CPU_EXEC] + cat[PS_CAT_OTHER] - sync_ns;
    enum ps_bottleneck best = PS_BN_DATA;
    for (int b = PS_BN_DATA; b < PS_BN_UNKNOWN; b++)
        if (cause[b] > cause[best])
            best = (enum ps_bottleneck)b;
    *share = (double)cause[best] / (double)dur;
    return best;
}

/* ---- evidence: the top names behind the bottleneck, inside the analysed steps ---- */

/* Per-name totals over string ids, touched ids remembered: O(rows + names), no sort. */
struct tally {
    struct { int64_t count, total; } *agg;   /* indexed by string id */
    uint32_t *touched;
    size_t nt, nstrings;
};

static void tally_add(struct tally *t, uint32_t name, int64_t dur)
{
    if (name >= t->nstrings)
        return;
    if (t->agg[name].count++ == 0)
        t->touched[t->nt++] = name;
    t->agg[name].total += dur;
}

/* Append the `k` largest totals to the evidence, then empty the tally. */
static void tally_top(struct ps_report *r, struct tally *t, const char *kind, size_t k)
{
    struct ps_evidence best[PS_MAX_EVIDENCE];
    size_t nbest = 0;
    for (size_t i = 0; i < t->nt; i++) {
        uint32_t id = t->touched[i];
        struct ps_evidence e = { .kind = kind, .name = id, .count = t->agg[id].count, .total_ns = t->agg[id].total };
        t->agg[id].count = t->agg[id].total = 0;
        size_t pos = nbest;
        while (pos > 0 && best[pos - 1].total_ns < e.total_ns)
            pos--;
        if (pos >= k)
            continue;
        if (nbest < k)
            nbest++;
        for (size_t j = nbest - 1; j > pos; j--)
            best[j] = best[j - 1];
        best[pos] = e;
    }
    t->nt = 0;
    for (size_t i = 0; i < nbest && r->nevidence < PS_MAX_EVIDENCE; i++)
        if (best[i].total_ns > 0)
            r->evidence[r->nevidence++] = best[i];
}

static int evidence(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    int64_t a = r->steps[0].start_ns, b = r->steps[r->nsteps - 1].end_ns;
    struct tally t = { .nstrings = ps_model_nstrings(m) };
    t.agg = calloc(t.nstrings + 1, sizeof *t.agg);
    t.touched = malloc((t.nstrings + 1) * sizeof *t.touched);
    if (!t.agg || !t.touched) {
        free(t.agg);
        free(t.touched);
        return -ENOMEM;
    }
#define IN_WINDOW(x) ((x)->start_ns >= a && (x)->end_ns <= b)
    if (r->bottleneck == PS_BN_KERNEL && !r->has_gpu) {   /* host compute: the compute ranges */
        for (size_t i = 0; i < m->ranges.n; i++) {
            const struct ps_range *g = &m->ranges.v[i];
            unsigned f = ps_names_flags(names, g->name);
            if (!(f & (PS_NAME_DATA | PS_NAME_STEP | PS_NAME_COPY)) && g->kind != PS_RANGE_NVTX_MARK &&
                g->kind != PS_RANGE_GPU_ANNOTATION && ps_report_thread_in_scope(r, g->thread) && IN_WINDOW(g))
                tally_add(&t, ps_names_group(names, g->name), g->end_ns - g->start_ns);
        }
        tally_top(r, &t, "range", 3);
    }
    switch (r->bottleneck) {
    case PS_BN_DATA:
    case PS_BN_HOST:
        for (size_t i = 0; i < m->ranges.n; i++) {
            const struct ps_range *g = &m->ranges.v[i];
            unsigned f = ps_names_flags(names, g->name);
            int want = r->bottleneck == PS_BN_DATA ? (f & PS_NAME_DATA) != 0 : !(f & (PS_NAME_DATA | PS_NAME_STEP));
            if (want && g->kind != PS_RANGE_NVTX_MARK && g->kind != PS_RANGE_GPU_ANNOTATION &&
                ps_report_thread_in_scope(r, g->thread) && IN_WINDOW(g))
                tally_add(&t, ps_names_group(names, g->name), g->end_ns - g->start_ns);   /* emit_nvtx: by base */
        }
        tally_top(r, &t, "range", 3);
        if (r->bottleneck == PS_BN_DATA)
            break;
        /* host overhead also shows in the API calls */
        __attribute__((fallthrough));
    case PS_BN_SYNC:
        for (size_t i = 0; i < m->api.n; i++) {
            const struct ps_api_call *c = &m->api.v[i];
            int sync = (ps_names_flags(names, c->name) & PS_NAME_SYNC_API) != 0;
            if ((r->bottleneck != PS_BN_SYNC || sync) && ps_report_thread_in_scope(r, c->thread) && IN_WINDOW(c))
                tally_add(&t, c->name, c->end_ns - c->start_ns);
        }
        tally_top(r, &t, "api", 3);
        break;
    case PS_BN_MEMCPY:
    case PS_BN_KERNEL:
    case PS_BN_COMM:
        for (size_t i = 0; i < m->gpu.n; i++) {
            const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
            int nccl = (ps_names_flags(names, op->name) & PS_NAME_NCCL) != 0;
            int want = r->bottleneck == PS_BN_MEMCPY ? (op->kind == PS_GPU_MEMCPY || op->kind == PS_GPU_MEMSET)
                                                     : op->kind == PS_GPU_KERNEL && nccl == (r->bottleneck == PS_BN_COMM);
            if (want && ps_report_gpu_in_scope(r, op) && IN_WINDOW(op))
                tally_add(&t, op->name, op->end_ns - op->start_ns);
        }
        tally_top(r, &t, r->bottleneck == PS_BN_MEMCPY ? "copy" : "kernel", 3);
        if (r->bottleneck == PS_BN_MEMCPY && !r->has_gpu) {   /* host-side copy phases */
            for (size_t i = 0; i < m->ranges.n; i++) {
                const struct ps_range *g = &m->ranges.v[i];
                if (g->kind != PS_RANGE_GPU_ANNOTATION && (ps_names_flags(names, g->name) & PS_NAME_COPY) &&
                    ps_report_thread_in_scope(r, g->thread) && IN_WINDOW(g))
                    tally_add(&t, ps_names_group(names, g->name), g->end_ns - g->start_ns);
            }
            tally_top(r, &t, "range", 3);
        }
        break;
    case PS_BN_UNKNOWN:
        break;
    }
#undef IN_WINDOW
    free(t.agg);
    free(t.touched);
    return 0;
}

static void recommend(struct ps_report *r)
{
    static const char *const fix[] = {
        [PS_BN_KERNEL] = "The device is busy computing: speed up the top kernels below; use mixed precision (AMP, bf16) "
                         "so matrix math runs on Tensor Cores; fuse small element-wise kernels (torch.compile).",
        [PS_BN_DATA] = "The step waits for input data: use more DataLoader workers (num_workers) and prefetching "
                       "(prefetch_factor), pin_memory=True, and move decoding / augmentation off the training thread "
                       "or onto the GPU; cache preprocessed samples.",
        [PS_BN_MEMCPY] = "Host<->device copies stall the step: copy from pinned (page-locked) memory with "
                         "non_blocking=True so transfers overlap compute, batch small copies, keep tensors on the GPU "
                         "between steps.",
        [PS_BN_COMM] = "Collective communication is exposed: overlap it with backward (DDP bucket size), accumulate "
                       "gradients over several micro-batches (no_sync), use larger batches or gradient compression.",
        [PS_BN_SYNC] = "The host synchronises with the GPU and then leaves it idle: remove .item(), .cpu(), "
                       "printing GPU tensors and explicit synchronize calls from the step; use non_blocking copies "
                       "and CUDA events.",
        [PS_BN_HOST] = "The GPU waits for the host to launch work: capture the step in CUDA graphs (torch.compile "
                       "mode=\"reduce-overhead\"), fuse operators into fewer, larger kernels, use larger batches, and "
                       "profile the Python side of the step.",
    };
    /* Without GPU rows the `kernel` group is the host's own compute (DESIGN §4): GPU advice would not apply. */
    static const char host_compute[] =
        "The host is busy computing (no GPU rows in this trace): profile the hot functions (the ranges below, "
        "perf record / py-spy), vectorise them or call optimised libraries (BLAS, oneDNN, NumPy / PyTorch ops "
        "instead of Python loops), use more threads (OMP_NUM_THREADS, torch.set_num_threads); or run the model "
        "on the GPU.";
    /* Advice worded from what perfscope's Python hook saw (the loader's settings, its workers, the copies)
     * comes first; for data loading it replaces the generic fix. */
    size_t specific = 0;
    for (size_t i = 0; r->py && i < r->py->nadvice && r->nrecs < PS_MAX_RECS - 2; i++)
        if (r->py->advice_for[i] == r->bottleneck) {
            r->recs[r->nrecs++] = r->py->advice[i];
            specific++;
        }
    if (r->bottleneck == PS_BN_KERNEL && !r->has_gpu)
        r->recs[r->nrecs++] = host_compute;
    else if (r->bottleneck != PS_BN_UNKNOWN && !(specific && r->bottleneck == PS_BN_DATA))
        r->recs[r->nrecs++] = fix[r->bottleneck];
    if (r->bottleneck != PS_BN_KERNEL && !isnan(r->gpu_util) && r->gpu_util < 0.5)
        r->recs[r->nrecs++] = "GPU utilisation is below 50 %: once the bottleneck above is fixed, a larger batch "
                              "size keeps the GPU busier (tb's low-utilisation rule).";
}

/* ---- findings ---- */

/* Append a finding whose rows were gathered in `acc`; NULL when PS_MAX_FINDINGS are already there. */
static struct ps_finding *add_finding(struct ps_report *r, const struct ps_finding *acc, const char *rule,
                                      const char *severity)
{
    if (r->nfindings == PS_MAX_FINDINGS)
        return NULL;
    struct ps_finding *f = &r->findings[r->nfindings++];
    *f = *acc;
    f->rule = rule;
    f->severity = severity;
    return f;
}

/* Keep the PS_FINDING_ROWS longest rows. */
static void keep_row(struct ps_finding *f, struct ps_row row)
{
    size_t pos = f->nrows;
    while (pos > 0 && f->rows[pos - 1].dur_ns < row.dur_ns)
        pos--;
    if (pos >= PS_FINDING_ROWS)
        return;
    if (f->nrows < PS_FINDING_ROWS)
        f->nrows++;
    for (size_t j = f->nrows - 1; j > pos; j--)
        f->rows[j] = f->rows[j - 1];
    f->rows[pos] = row;
}

#define PS_PAGEABLE_NOTE_SHARE 0.01
static void copy_findings(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    struct ps_finding pageable = { 0 }, sync = { 0 };
    int64_t np = 0, bp = 0, tp = 0, ns = 0, ts = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        if ((op->kind != PS_GPU_MEMCPY && op->kind != PS_GPU_MEMSET) || op->launch == PS_NONE)
            continue;
        unsigned f = ps_names_flags(names, m->api.v[op->launch].name);
        struct ps_row row = { op->name, op->start_ns, op->end_ns - op->start_ns, (int64_t)op->bytes, 0 };
        if (op->kind == PS_GPU_MEMCPY && (f & PS_NAME_ASYNC_API) &&
            (op->src_kind == PS_MEM_PAGEABLE || op->dst_kind == PS_MEM_PAGEABLE)) {
            np++, bp += (int64_t)op->bytes, tp += row.dur_ns;
            keep_row(&pageable, row);
        }
        if (f & PS_NAME_SYNC_API) {
            ns++, ts += row.dur_ns;
            keep_row(&sync, row);
        }
    }
    /* Negligible (under PS_PAGEABLE_NOTE_SHARE of the run, e.g. nsys' 4 copies of 3 KB in 3 µs): a note ("info"),
     * not a warning. */
    struct ps_finding *f;
    int minor = (double)tp < PS_PAGEABLE_NOTE_SHARE * (double)(r->run_end_ns - r->run_start_ns);
    if (np && (f = add_finding(r, &pageable, "pageable_memcpy", minor ? "info" : "warning"))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld asynchronous copies use pageable host memory (%.3f MB, %.3f ms on the GPU): the driver stages "
                 "them and the host waits; allocate the host buffers pinned (pin_memory=True / cudaHostAlloc)%s",
                 (long long)np, (double)bp / 1e6, (double)tp / 1e6,
                 minor ? "; negligible here (under 1 % of the run)" : "");
    }
    if (ns && (f = add_finding(r, &sync, "sync_memcpy", "warning"))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld copies or memsets were issued by synchronous calls (cudaMemcpy / cudaMemset, %.3f ms on the "
                 "GPU): the host blocks until each finishes; use the Async forms on a stream",
                 (long long)ns, (double)ts / 1e6);
    }
}

static void sync_api_finding(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    struct ps_finding acc = { 0 };
    int64_t n = 0, t = 0;
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *c = &m->api.v[i];
        const char *s = ps_model_str(m, c->name);
        if (!(ps_names_flags(names, c->name) & PS_NAME_SYNC_API) || !strstr(s, "Synchronize"))
            continue;
        n++, t += c->end_ns - c->start_ns;
        keep_row(&acc, (struct ps_row){ c->name, c->start_ns, c->end_ns - c->start_ns, -1, 0 });
    }
    struct ps_finding *f;
    if (n && (f = add_finding(r, &acc, "sync_api", "info"))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld synchronising API calls (device / stream / event synchronize) held the host for %.3f ms",
                 (long long)n, (double)t / 1e6);
    }
}

#define MAX_DEVS 64
/* Idle gaps between the merged busy pieces of each device (all GPU rows), one pass per device in the order
 * devices first appear; the pieces come out of a running union since the rows are in start order. */
static int gap_finding(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_finding acc = { 0 }, *f;
    int64_t n = 0, t = 0;
    int32_t ids[MAX_DEVS];
    size_t nd = 0;
    for (size_t i = 0; i < m->gpu.n; i++) {
        int32_t dev = m->streams.v[m->gpu_attrs.v[m->gpu.v[i].attr].stream].device;
        size_t d = 0;
        while (d < nd && ids[d] != dev)
            d++;
        if (d == nd && nd < MAX_DEVS)
            ids[nd++] = dev;
    }
    for (size_t d = 0; d < nd; d++) {
        struct ps_run busy = { 0 };
        int64_t ps, pe, prev_end = 0;
        int have_prev = 0;
        for (size_t i = 0; i <= m->gpu.n; i++) {
            int done;
            if (i < m->gpu.n) {
                const struct ps_gpu_op op = ps_model_gpu(m, i);
                if (m->streams.v[op.stream].device != ids[d])
                    continue;
                done = ps_run_add(&busy, op.start_ns, op.end_ns, &ps, &pe);
            } else {
                done = ps_run_flush(&busy, &ps, &pe);
            }
            if (!done)
                continue;
            int64_t gap = ps - prev_end;
            if (have_prev && gap >= r->opts.gap_ns) {
                n++, t += gap;
                keep_row(&acc, (struct ps_row){ PS_NONE, prev_end, gap, -1, 0 });
            }
            have_prev = 1;
            prev_end = pe;
        }
    }
    if (n && (f = add_finding(r, &acc, "gpu_gap", "warning")))
        snprintf(f->summary, sizeof f->summary, "%lld GPU idle gaps of %.6g ms or more, %.3f ms in all",
                 (long long)n, (double)r->opts.gap_ns / 1e6, (double)t / 1e6);   /* %g: 0.0001 ms stays visible */
    return 0;
}

/* Time slices in which kernels ran less than half the time: the steps, or without steps PS_SLICES equal slices
 * of the run (DESIGN §4: "fixed time slices for timelines"). */
#define PS_SLICES 20
static int low_util_finding(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_finding acc = { 0 }, *f;
    int64_t n = 0, slices = r->whole_run ? PS_SLICES : (int64_t)r->nsteps;
    if (!r->has_gpu)
        return 0;
    int64_t a = r->steps[0].start_ns, span = r->steps[r->nsteps - 1].end_ns - a;
    int64_t *start = malloc((size_t)(slices + 1) * sizeof *start), *end = malloc((size_t)(slices + 1) * sizeof *end);
    struct ps_windows *busy = NULL;
    int rc = -ENOMEM;
    if (!start || !end)
        goto out;
    for (int64_t i = 0; i < slices; i++) {
        start[i] = r->whole_run ? a + span * i / slices : r->steps[i].start_ns;
        end[i] = r->whole_run ? a + span * (i + 1) / slices : r->steps[i].end_ns;
    }
    if (!(busy = ps_windows_new(start, end, (size_t)slices)))
        goto out;
    struct ps_run k = { 0 };   /* running union of the kernels (start order) */
    int64_t ps, pe;
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op = ps_model_gpu(m, i);
        if (op.kind == PS_GPU_KERNEL && ps_report_gpu_in_scope(r, &op) && ps_run_add(&k, op.start_ns, op.end_ns, &ps, &pe))
            ps_windows_piece(busy, ps, pe);
    }
    if (ps_run_flush(&k, &ps, &pe))
        ps_windows_piece(busy, ps, pe);
    for (int64_t i = 0; i < slices; i++) {
        int64_t s = start[i], e = end[i], b = ps_windows_get(busy, (size_t)i);
        if (e <= s || b >= (e - s) - b)
            continue;
        n++;
        keep_row(&acc, (struct ps_row){ r->whole_run ? PS_NONE : r->steps[i].name, s, e - s, -1, 0 });
    }
    if (n && (f = add_finding(r, &acc, "low_gpu_utilization", "warning")))
        snprintf(f->summary, sizeof f->summary, "in %lld of %lld %s the GPU ran kernels less than half the time",
                 (long long)n, (long long)slices, r->whole_run ? "equal time slices of the run" : "steps");
    rc = 0;
out:
    ps_windows_free(busy);
    free(start);
    free(end);
    return rc;
}

/* Launch-bound: at least 1000 kernels, half of them or more shorter than tiny_kernel_ns. Rows: the kernel names
 * with the most short launches, each with the count and total time of its short launches only (a name's long
 * launches are not launch-bound), so the rows never add up past the headline count. */
static int tiny_kernel_finding(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    int64_t n = 0, tiny = 0;
    struct tally t = { .nstrings = ps_model_nstrings(m) };
    struct ps_finding acc = { 0 }, *f;
    for (size_t i = 0; i < m->gpu.n; i++)
        if (m->gpu_attrs.v[m->gpu.v[i].attr].kind == PS_GPU_KERNEL)
            n++, tiny += ps_gpu_row_dur(m, &m->gpu.v[i]) < r->opts.tiny_kernel_ns;
    if (n < 1000 || 2 * tiny < n)
        return 0;
    t.agg = calloc(t.nstrings + 1, sizeof *t.agg);
    t.touched = malloc((t.nstrings + 1) * sizeof *t.touched);
    if (!t.agg || !t.touched) {
        free(t.agg);
        free(t.touched);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op = ps_model_gpu(m, i);
        if (op.kind == PS_GPU_KERNEL && op.end_ns - op.start_ns < r->opts.tiny_kernel_ns)
            tally_add(&t, op.name, op.end_ns - op.start_ns);
    }
    for (size_t k = 0; k < t.nt; k++) {   /* rank by count (keep_row ranks by dur_ns: put the count there) ... */
        uint32_t id = t.touched[k];
        keep_row(&acc, (struct ps_row){ id, -1, t.agg[id].count, -1, t.agg[id].count });
    }
    for (size_t k = 0; k < acc.nrows; k++)   /* ... then report the short launches' total time */
        acc.rows[k].dur_ns = t.agg[acc.rows[k].name].total;
    free(t.agg);
    free(t.touched);
    if (!(f = add_finding(r, &acc, "tiny_kernels", "info")))
        return 0;
    snprintf(f->summary, sizeof f->summary,
             "%lld of %lld kernels run shorter than %.6g us: launch overhead dominates; fuse them or use CUDA graphs "
             "(rows: each name's short launches only)",
             (long long)tiny, (long long)n, (double)r->opts.tiny_kernel_ns / 1e3);
    return 0;
}

int ps_verdict_compute(struct ps_report *r, struct ps_names *names)
{
    double th = r->opts.kernel_threshold;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        s->bottleneck = ps_verdict_classify(s->cat_ns, s->sync_ns, s->end_ns - s->start_ns, th, &s->share);
    }
    r->bottleneck = ps_verdict_classify(r->avg.cat_ns, r->avg.sync_ns, r->avg_dur_ns, th, &r->share);
    r->avg.bottleneck = r->bottleneck;
    r->avg.share = r->share;
    int rc = evidence(r, names);
    if (rc < 0)
        return rc;
    recommend(r);
    copy_findings(r, names);
    sync_api_finding(r, names);
    rc = gap_finding(r);
    if (rc == 0)
        rc = low_util_finding(r);
    if (rc == 0)
        rc = tiny_kernel_finding(r);
    return rc;
}
