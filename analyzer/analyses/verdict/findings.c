/* The expert findings of `perfscope report` (docs/report.md "Findings"): pageable and synchronous
 * copies, synchronising calls, GPU idle gaps, low-utilisation time slices with what the host did meanwhile,
 * slow copies against the link's peak, launch-bound streams, tiny kernels, matrix math without Tensor Cores and
 * kernels of low estimated occupancy. Each carries the time its cause takes inside the analysed window (overlaps
 * counted once), that time's share of the window (severity "info" under --info-below), its rows, and a fix whose
 * expected gain is bounded by that time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

#define MAX_DEVS 64
#define PS_SLICES 20                   /* time slices of a run without steps (docs/report.md) */
#define LAUNCH_BOUND_MIN_KERNELS 100   /* a stream with fewer kernels is never called launch-bound */
#define TINY_MIN_KERNELS 1000          /* tiny_kernels: at least this many kernels, half of them tiny */
#define SLOW_COPY_MIN_BYTES (1 << 20)  /* smaller copies are latency-bound: their rate says nothing of the link */

/* ---- cost: a running union of a finding's intervals (given in start order), clipped to the window ---- */
struct cost {
    struct ps_run u;
    int64_t a, b, ns;
};

static void cost_add(struct cost *c, int64_t s, int64_t e)
{
    int64_t ps, pe;
    if (ps_run_add(&c->u, s, e, &ps, &pe))
        c->ns += ps_overlap(ps, pe, c->a, c->b);
}

static int64_t cost_total(struct cost *c)
{
    int64_t ps, pe;
    if (ps_run_flush(&c->u, &ps, &pe))
        c->ns += ps_overlap(ps, pe, c->a, c->b);
    return c->ns;
}

static struct cost cost_in(const struct ps_report *r)
{
    return (struct cost){ .a = r->window_start_ns, .b = r->window_end_ns };
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
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

/* Append a finding whose rows were gathered in `acc`, with its cost; the severity follows the cost's share of the
 * window. NULL when PS_MAX_FINDINGS are already there (the caller then writes nothing). */
static struct ps_finding *add_finding(struct ps_report *r, const struct ps_finding *acc, const char *rule,
                                      int64_t cost_ns, int64_t gain_ns)
{
    if (r->nfindings == PS_MAX_FINDINGS)
        return NULL;
    int64_t window = r->window_end_ns - r->window_start_ns;
    struct ps_finding *f = &r->findings[r->nfindings++];
    *f = *acc;
    f->rule = rule;
    f->cost_ns = cost_ns < window ? cost_ns : window;
    f->share = window > 0 ? (double)f->cost_ns / (double)window : NAN;
    f->gain_ns = gain_ns < f->cost_ns ? gain_ns : f->cost_ns;
    f->severity = window > 0 && f->share >= r->opts.info_share ? "warning" : "info";
    return f;
}

/* The finding's cost, as every summary ends: "; 12.300 ms, 4.1 % of the analysed window". */
static const char *cost_text(const struct ps_finding *f, char *buf, size_t cap)
{
    if (isnan(f->share))
        snprintf(buf, cap, "%.3f ms (empty analysed window)", ms(f->cost_ns));
    else
        snprintf(buf, cap, "%.3f ms, %.1f %% of the analysed window", ms(f->cost_ns), 100.0 * f->share);
    return buf;
}

/* ---- copies: pageable async copies, synchronous copies and memsets ---- */

static void copy_findings(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct ps_finding pageable = { 0 }, sync = { 0 };
    struct cost cp = cost_in(r), cs = cost_in(r);
    int64_t np = 0, bp = 0, ns = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        if ((op->kind != PS_GPU_MEMCPY && op->kind != PS_GPU_MEMSET) || op->launch == PS_NONE)
            continue;
        unsigned f = ps_names_flags(names, ps_view_api_at(v, op->launch)->name);
        struct ps_row row = { op->name, op->start_ns, op->end_ns - op->start_ns, (int64_t)op->bytes, 0 };
        if (op->kind == PS_GPU_MEMCPY && (f & PS_NAME_ASYNC_API) &&
            (op->src_kind == PS_MEM_PAGEABLE || op->dst_kind == PS_MEM_PAGEABLE)) {
            np++, bp += (int64_t)op->bytes;
            cost_add(&cp, op->start_ns, op->end_ns);
            keep_row(&pageable, row);
        }
        if (f & PS_NAME_SYNC_API) {
            ns++;
            cost_add(&cs, op->start_ns, op->end_ns);
            keep_row(&sync, row);
        }
    }
    struct ps_finding *f;
    char c[96];
    /* the GPU time of pageable copies bounds what pinning gains (pinned copies also run faster) */
    if (np && (f = add_finding(r, &pageable, "pageable_memcpy", cost_total(&cp), cost_total(&cp)))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld asynchronous copies use pageable host memory (%.3f MB): the driver stages them through a "
                 "pinned buffer and the host waits; %s",
                 (long long)np, (double)bp / 1e6, cost_text(f, c, sizeof c));
        snprintf(f->fix, sizeof f->fix,
                 "Allocate the host buffers of the copies listed under pageable_memcpy pinned (%s): at most %.3f ms, "
                 "%s", r->advice.python ? "pin_memory=True, cudaHostAlloc" : "cudaHostAlloc or cudaHostRegister",
                 ps_report_per_step_ms(r, f->gain_ns), ps_report_bound_by_replay(r, f, PS_CAUSE_COPY, "the time those copies take"));
    }
    if (ns && (f = add_finding(r, &sync, "sync_memcpy", cost_total(&cs), cost_total(&cs)))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld copies or memsets were issued by synchronous calls (cudaMemcpy / cudaMemset): the host "
                 "blocks until each finishes; %s", (long long)ns, cost_text(f, c, sizeof c));
        snprintf(f->fix, sizeof f->fix,
                 "Issue the copies listed under sync_memcpy with the Async forms on a stream (non_blocking=True) "
                 "so the host goes on: at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
                 ps_report_bound_by_replay(r, f, PS_CAUSE_COPY, "the time they take"));
    }
}

/* ---- synchronising calls: their cost is the analysed steps' sync time (the GPU idle while the host waits) ---- */

static void sync_api_finding(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    struct ps_finding acc = { 0 }, *f;
    int64_t n = 0, held = 0, sync_ns = 0;
    for (size_t i = 0; i < v->napi; i++) {
        const struct ps_api_call *a = ps_view_api(v, i);
        if (!(ps_names_flags(names, a->name) & PS_NAME_SYNC_API) || !strstr(ps_model_str(m, a->name), "Synchronize"))
            continue;
        n++, held += a->end_ns - a->start_ns;
        keep_row(&acc, (struct ps_row){ a->name, a->start_ns, a->end_ns - a->start_ns, -1, 0 });
    }
    for (size_t i = 0; i < r->nsteps; i++)
        sync_ns += r->steps[i].sync_ns;
    char c[96];
    if (n && (f = add_finding(r, &acc, "sync_api", sync_ns, sync_ns))) {
        snprintf(f->summary, sizeof f->summary,
                 "%lld synchronising API calls (device / stream / event synchronize) held the host for %.3f ms; "
                 "the GPU sat idle around them (from each call to the next GPU work: the steps' sync time) for %s", (long long)n, ms(held),
                 cost_text(f, c, sizeof c));
        snprintf(f->fix, sizeof f->fix,
                 "Remove the synchronize calls listed under sync_api from the step (or wait on CUDA events only "
                 "where a result is needed): at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
                 ps_report_bound_by_replay(r, f, PS_CAUSE_SYNC, "the sync time"));
    }
}

/* ---- GPU idle gaps of at least --gap-threshold-ms, per device; the cost is their union in the window ---- */

static int gap_finding(struct ps_report *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    struct ps_finding acc = { 0 }, *f;
    struct ps_ivls gaps = { 0 };
    int64_t n = 0, total = 0;
    int32_t ids[MAX_DEVS];
    size_t nd = 0;
    int rc = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        int32_t dev = m->streams.v[ps_view_gpu_attr(v, ps_view_gpu_row(v, i))->stream].device;
        size_t d = 0;
        while (d < nd && ids[d] != dev)
            d++;
        if (d == nd && nd < MAX_DEVS)
            ids[nd++] = dev;
    }
    for (size_t d = 0; d < nd && rc == 0; d++) {
        struct ps_run busy = { 0 };
        int64_t ps, pe, prev_end = 0;
        int have_prev = 0;
        for (size_t i = 0; i <= v->ngpu && rc == 0; i++) {
            int done;
            if (i < v->ngpu) {
                const struct ps_gpu_op op = ps_view_gpu(v, i);
                if (m->streams.v[op.stream].device != ids[d])
                    continue;
                done = ps_run_add(&busy, op.start_ns, op.end_ns, &ps, &pe);
            } else {
                done = ps_run_flush(&busy, &ps, &pe);
            }
            if (!done)
                continue;
            int64_t gap = ps - prev_end;
            if (have_prev && gap >= r->opts.gap_ns && gap > 0 &&
                gap - ps_backlog_within(r, prev_end, ps) >= r->opts.gap_ns) {   /* not GPU work before the trace */
                n++, total += gap;
                keep_row(&acc, (struct ps_row){ PS_NONE, prev_end, gap, -1, 0 });
                rc = ps_ivls_push(&gaps, prev_end, ps);
            }
            have_prev = 1;
            prev_end = pe;
        }
    }
    ps_ivls_normalize(&gaps);
    int64_t cost = ps_ivls_within(&gaps, r->window_start_ns, r->window_end_ns);
    ps_ivls_fini(&gaps);
    char c[96];
    if (rc == 0 && n && (f = add_finding(r, &acc, "gpu_gap", cost, cost))) {
        snprintf(f->summary, sizeof f->summary, "%lld GPU idle gaps of %.6g ms or more, %.3f ms in all; inside the "
                 "analysed window %s", (long long)n, ms(r->opts.gap_ns), ms(total), cost_text(f, c, sizeof c));
        snprintf(f->fix, sizeof f->fix,
                 "Find what the host does during the gaps listed under gpu_gap (the ranges and calls at those "
                 "times) and overlap it with GPU work: at most %.3f ms, the gaps' time", ps_report_per_step_ms(r, f->gain_ns));
    }
    return rc;
}

/* ---- time slices of low GPU utilisation (the steps; without steps PS_SLICES equal slices of the run), with the
 * host ranges and API calls that ran meanwhile; the cost is the slices' time without kernels ---- */

/* First slice (of n sorted, disjoint ones) whose end is after t. */
static size_t slice_at(const int64_t *end, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (end[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Tally the time each host range / API call name spent inside the low slices (low[i] set). */
static void host_meanwhile(const struct ps_view *v, struct ps_names *names, const int64_t *start, const int64_t *end,
                           const uint8_t *low, size_t n, struct ps_tally *t)
{
    for (size_t i = 0; i < v->nranges + v->napi; i++) {
        int64_t s, e;
        uint32_t name;
        if (i < v->nranges) {
            const struct ps_range *g = ps_view_range(v, i);
            if (g->kind == PS_RANGE_NVTX_MARK || g->kind == PS_RANGE_GPU_ANNOTATION || g->kind == PS_RANGE_PYTHON ||
                (ps_names_flags(names, g->name) & PS_NAME_STEP))
                continue;
            s = g->start_ns, e = g->end_ns, name = ps_names_group(names, g->name);
        } else {
            const struct ps_api_call *a = ps_view_api(v, i - v->nranges);
            s = a->start_ns, e = a->end_ns, name = a->name;
        }
        int64_t in = 0;
        for (size_t k = slice_at(end, n, s); k < n && start[k] < e; k++)
            if (low[k])
                in += ps_overlap(s, e, start[k], end[k]);
        if (in > 0)
            ps_tally_add(t, name, 1, in);
    }
}

static int low_util_finding(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    struct ps_finding acc = { 0 }, *f;
    size_t slices = r->whole_run ? PS_SLICES : r->nsteps, n = 0;
    if (!r->has_gpu)
        return 0;
    int64_t a = r->window_start_ns, span = r->window_end_ns - a, idle = 0;
    int64_t *start = malloc((slices + 1) * sizeof *start), *end = malloc((slices + 1) * sizeof *end);
    uint8_t *low = calloc(slices + 1, 1);
    struct ps_windows *busy = NULL;
    struct ps_tally t = { 0 };
    int rc = -ENOMEM;
    if (!start || !end || !low)
        goto out;
    for (size_t i = 0; i < slices; i++) {
        start[i] = r->whole_run ? a + span * (int64_t)i / (int64_t)slices : r->steps[i].start_ns;
        end[i] = r->whole_run ? a + span * (int64_t)(i + 1) / (int64_t)slices : r->steps[i].end_ns;
    }
    if ((rc = ps_windows_new(&busy, start, end, slices)) < 0)
        goto out;
    struct ps_run k = { 0 };   /* running union of the kernels (start order) */
    int64_t ps, pe;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        if (ps_view_gpu_attr(v, g)->kind == PS_GPU_KERNEL && ps_run_add(&k, g->start_ns, ps_view_row_end(v, g), &ps, &pe))
            ps_windows_piece(busy, ps, pe);
    }
    if (ps_run_flush(&k, &ps, &pe))
        ps_windows_piece(busy, ps, pe);
    for (size_t i = 0; i < slices; i++) {
        int64_t s = start[i], e = end[i], b = ps_windows_get(busy, i) + ps_backlog_within(r, s, e);   /* backlog.c */
        if (e <= s || (double)b >= r->opts.low_util * (double)(e - s))
            continue;
        low[i] = 1;
        n++, idle += (e - s) - b;
        keep_row(&acc, (struct ps_row){ r->whole_run ? PS_NONE : r->steps[i].name, s, e - s, -1, 0 });
    }
    rc = 0;
    if (!n)
        goto out;
    if ((rc = ps_tally_init(&t, ps_model_nstrings(v->m))) < 0)
        goto out;
    host_meanwhile(v, names, start, end, low, slices, &t);
    uint32_t ids[3];
    int64_t cnt[3], tot[3];
    size_t nh = ps_tally_top(&t, 3, 0, ids, cnt, tot);
    char host[200] = "", c[96];
    for (size_t i = 0; i < nh; i++) {   /* a range group shows its base name (no emit_nvtx suffix) */
        const char *name = ps_model_str(v->m, ids[i]);
        size_t len = ps_names_base_len(name);
        snprintf(host + strlen(host), sizeof host - strlen(host), "%s%.*s %.3f ms", i ? ", " : "",
                 (int)(len < 60 ? len : 60), name, ms(tot[i]));
    }
    if ((f = add_finding(r, &acc, "low_gpu_utilization", idle, idle))) {
        snprintf(f->summary, sizeof f->summary,
                 "in %zu of %zu %s the GPU ran kernels less than %.0f %% of the time; meanwhile the host was in %s; "
                 "the time without kernels there: %s",
                 n, slices, r->whole_run ? "equal time slices of the run" : "steps", 100.0 * r->opts.low_util,
                 nh ? host : "no recorded range or call", cost_text(f, c, sizeof c));
        snprintf(f->fix, sizeof f->fix,
                 "Overlap what the host does in the slices listed under low_gpu_utilization (%s) with GPU work, "
                 "or give the GPU more work per step (a larger batch): at most %.3f ms, their time without kernels",
                 nh ? "see its summary" : "no range recorded there: add NVTX ranges", ps_report_per_step_ms(r, f->gain_ns));
    }
out:
    ps_tally_fini(&t);
    ps_windows_free(busy);
    free(start);
    free(end);
    free(low);
    return rc;
}

/* ---- copies far below the link's peak for their direction and memory kind ---- */

struct copy_group {
    uint8_t copy_kind, src_kind, dst_kind;
    int64_t count, bytes, ns;
};
/* Groups a trace can hold: HtoD or DtoH, from pinned or pageable host memory (peak_gbps is 0 for the others),
 * times every memory kind of the device side (enum ps_mem_kind, PS_MEM_UNKNOWN the last). */
#define SLOW_COPY_GROUPS (2 * 2 * (PS_MEM_UNKNOWN + 1))

/* The peak a copy could reach, GB/s: host<->device copies only (pinned: the link; pageable: half of it, the driver
 * stages it through a pinned buffer); 0 for the others (device memory bandwidth is not known from the trace). */
static double peak_gbps(const struct ps_report *r, const struct ps_gpu_op *op)
{
    if (op->copy_kind != PS_COPY_HTOD && op->copy_kind != PS_COPY_DTOH)
        return 0;
    uint8_t host = op->copy_kind == PS_COPY_HTOD ? op->src_kind : op->dst_kind;
    return host == PS_MEM_PINNED ? r->opts.link_gbps : host == PS_MEM_PAGEABLE ? r->opts.link_gbps / 2 : 0;
}

static void slow_copy_finding(struct ps_report *r, const struct ps_view *v)
{
    struct copy_group g[SLOW_COPY_GROUPS];
    size_t ng = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_MEMCPY || op.bytes < SLOW_COPY_MIN_BYTES || peak_gbps(r, &op) <= 0)
            continue;
        size_t k = 0;
        while (k < ng && !(g[k].copy_kind == op.copy_kind && g[k].src_kind == op.src_kind && g[k].dst_kind == op.dst_kind))
            k++;
        if (k == ng) {
            if (ng == sizeof g / sizeof g[0])
                continue;
            g[ng++] = (struct copy_group){ op.copy_kind, op.src_kind, op.dst_kind, 0, 0, 0 };
        }
        g[k].count++, g[k].bytes += (int64_t)op.bytes, g[k].ns += op.end_ns - op.start_ns;
    }
    uint8_t slow[SLOW_COPY_GROUPS] = { 0 };
    size_t nslow = 0, slow_pageable = 0;
    char groups[240] = "";
    for (size_t k = 0; k < ng; k++) {
        struct ps_gpu_op key = { .copy_kind = g[k].copy_kind, .src_kind = g[k].src_kind, .dst_kind = g[k].dst_kind };
        double peak = peak_gbps(r, &key), rate = g[k].ns > 0 ? (double)g[k].bytes / (double)g[k].ns : INFINITY;
        if (rate >= r->opts.slow_copy_share * peak)
            continue;
        slow[k] = 1;
        nslow++;
        struct ps_copy_stat cs = { .kind = PS_GPU_MEMCPY, .copy_kind = g[k].copy_kind };
        uint8_t host = g[k].copy_kind == PS_COPY_HTOD ? g[k].src_kind : g[k].dst_kind;
        slow_pageable += host == PS_MEM_PAGEABLE;
        snprintf(groups + strlen(groups), sizeof groups - strlen(groups), "%s%lld %s copies with %s host memory at "
                 "%.2f GB/s (%.0f %% of %.1f)", nslow > 1 ? "; " : "", (long long)g[k].count, ps_copy_kind_name(&cs),
                 ps_mem_kind_name(host), rate, 100.0 * rate / peak, peak);
    }
    if (!nslow)
        return;
    struct ps_finding acc = { 0 }, *f;
    struct cost c = cost_in(r);
    int64_t gain = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_MEMCPY || op.bytes < SLOW_COPY_MIN_BYTES || peak_gbps(r, &op) <= 0)
            continue;
        size_t k = 0;
        while (k < ng && !(g[k].copy_kind == op.copy_kind && g[k].src_kind == op.src_kind && g[k].dst_kind == op.dst_kind))
            k++;
        if (k == ng || !slow[k])
            continue;
        int64_t at_peak = (int64_t)((double)op.bytes / peak_gbps(r, &op));   /* bytes / (GB/s) = ns */
        cost_add(&c, op.start_ns, op.end_ns);
        gain += op.end_ns - op.start_ns > at_peak ? op.end_ns - op.start_ns - at_peak : 0;
        keep_row(&acc, (struct ps_row){ op.name, op.start_ns, op.end_ns - op.start_ns, (int64_t)op.bytes, 0 });
    }
    char ct[96];
    if ((f = add_finding(r, &acc, "slow_memcpy", cost_total(&c), gain))) {
        snprintf(f->summary, sizeof f->summary,
                 "copies of 1 MiB or more ran far below the link's peak (--link-gbps %.1f; under %.0f %% of it): "
                 "%s; %s", r->opts.link_gbps, 100.0 * r->opts.slow_copy_share, groups, cost_text(f, ct, sizeof ct));
        snprintf(f->fix, sizeof f->fix,
                 "Copy the data listed under slow_memcpy %sin large transfers, and check the GPU's PCIe link "
                 "(nvidia-smi -q: Link Width / Generation) and its NUMA placement: at most %.3f ms, %s",
                 slow_pageable ? "from pinned memory " : "(already pinned) ", ps_report_per_step_ms(r, f->gain_ns),
                 ps_report_bound_by_replay(r, f, PS_CAUSE_COPY, "what those copies would save at the peak"));
    }
}

/* ---- launch-bound streams, tiny kernels: the GPU waiting for launches ----
 * Per stream in start order (HTA's idle rule): the gap before a kernel whose launch call began after the stream
 * drained is time the stream waited for the host. Only gaps shorter than --gap-threshold-ms count: a longer one
 * is the host doing something else (data loading, a sync), which gpu_gap and the verdict report. */

struct stream_launch {
    int64_t kernels, shorter, prev_end, wait_ns;
    int seen;
};

/* The eager kernels of the launch-bound streams that ran shorter than their launch call, by name. */
static void tally_shorter(const struct ps_report *r, const struct ps_view *v, struct ps_names *names,
                          const struct stream_launch *s, struct ps_tally *shorter)
{
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        const struct stream_launch *x = &s[op.stream];
        if (op.kind != PS_GPU_KERNEL || op.launch == PS_NONE || x->kernels < LAUNCH_BOUND_MIN_KERNELS ||
            (double)x->shorter < r->opts.launch_bound_share * (double)x->kernels || ps_graph_launched(v, names, &op))
            continue;
        const struct ps_api_call *call = ps_view_api_at(v, op.launch);
        if (op.end_ns - op.start_ns < call->end_ns - call->start_ns)
            ps_tally_add(shorter, op.name, 1, op.end_ns - op.start_ns);
    }
}

/* launch_bound_stream: nstreams streams are launch-bound (most of their eager kernels ran shorter than their
 * launch), the worst (most waiting) is stream index `worst`; they waited `wait` ns for launches. */
static void launch_bound_finding(struct ps_report *r, const struct ps_view *v, struct ps_names *names,
                                 struct stream_launch *s, struct ps_tally *shorter, int64_t nstreams, int64_t wait,
                                 size_t worst)
{
    uint32_t ids[PS_FINDING_ROWS];
    int64_t cnt[PS_FINDING_ROWS], tot[PS_FINDING_ROWS];
    char c[96];
    struct ps_finding acc = { 0 }, *f;
    tally_shorter(r, v, names, s, shorter);
    size_t n = ps_tally_top(shorter, PS_FINDING_ROWS, 1, ids, cnt, tot);
    for (size_t i = 0; i < n; i++)
        acc.rows[acc.nrows++] = (struct ps_row){ ids[i], -1, tot[i], -1, cnt[i] };
    const struct ps_stream *st = &v->m->streams.v[worst];
    if (!(f = add_finding(r, &acc, "launch_bound_stream", wait, wait)))
        return;
    snprintf(f->summary, sizeof f->summary,
             "%lld %s launch-bound (at least %.0f %% of %s eagerly launched kernels ran shorter than "
             "the call that launched them); on stream %lld of device %d %lld of %lld did; the stream%s waited for "
             "launches for %s", (long long)nstreams, nstreams == 1 ? "stream is" : "streams are",
             100.0 * r->opts.launch_bound_share, nstreams == 1 ? "its" : "their", (long long)st->stream,
             st->device, (long long)s[worst].shorter, (long long)s[worst].kernels, nstreams == 1 ? "" : "s",
             cost_text(f, c, sizeof c));
    snprintf(f->fix, sizeof f->fix,
             "Launch the kernels listed under launch_bound_stream in fewer, larger launches: %s or fuse "
             "them: at most %.3f ms, the time the stream%s waited for launches",
             r->graphs.launches ? "capture them into the CUDA graphs the program already replays"
                                : "capture the step in a CUDA graph (torch.compile mode=\"reduce-overhead\", "
                                  "torch.cuda.graphs)", ps_report_per_step_ms(r, f->gain_ns), nstreams == 1 ? "" : "s");
}

/* tiny_kernels: ntiny of nk kernels ran shorter than --tiny-kernel-us; the GPU waited tiny_wait ns for their
 * launches. */
static void tiny_kernels_finding(struct ps_report *r, struct ps_tally *tiny, int64_t nk, int64_t ntiny,
                                 int64_t tiny_wait)
{
    uint32_t ids[PS_FINDING_ROWS];
    int64_t cnt[PS_FINDING_ROWS], tot[PS_FINDING_ROWS];
    char c[96];
    struct ps_finding acc = { 0 }, *f;
    size_t n = ps_tally_top(tiny, PS_FINDING_ROWS, 1, ids, cnt, tot);   /* by count: each name's short launches */
    for (size_t i = 0; i < n; i++)
        acc.rows[acc.nrows++] = (struct ps_row){ ids[i], -1, tot[i], -1, cnt[i] };
    if (!(f = add_finding(r, &acc, "tiny_kernels", tiny_wait, tiny_wait)))
        return;
    snprintf(f->summary, sizeof f->summary,
             "%lld of %lld kernels run shorter than %.6g us (rows: each name's short launches only); the "
             "GPU waited for their launches for %s", (long long)ntiny, (long long)nk,
             (double)r->opts.tiny_kernel_ns / 1e3, cost_text(f, c, sizeof c));
    snprintf(f->fix, sizeof f->fix,
             "Fuse the short kernels listed under tiny_kernels (torch.compile) or %s: at most %.3f ms, the "
             "time the GPU waited for their launches",
             r->graphs.launches ? "capture them into the CUDA graphs the program already replays"
                                : "replay them as a CUDA graph", ps_report_per_step_ms(r, f->gain_ns));
}


static int launch_findings(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    const struct ps_model *m = v->m;
    struct stream_launch *s = calloc(m->streams.n + 1, sizeof *s);
    struct ps_tally shorter = { 0 }, tiny = { 0 };
    int64_t nk = 0, ntiny = 0, tiny_wait = 0;
    int rc = -ENOMEM;
    if (!s || ps_tally_init(&shorter, ps_model_nstrings(m)) < 0 || ps_tally_init(&tiny, ps_model_nstrings(m)) < 0)
        goto out;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_KERNEL)
            continue;
        struct stream_launch *x = &s[op.stream];
        int64_t dur = op.end_ns - op.start_ns, wait = 0;
        if (ps_graph_launched(v, names, &op)) {   /* a graph node: one launch ran them all (graphs.c) */
            x->prev_end = op.end_ns > x->prev_end ? op.end_ns : x->prev_end;
            x->seen = 1;
            continue;
        }
        const struct ps_api_call *call = op.launch != PS_NONE ? ps_view_api_at(v, op.launch) : NULL;
        if (x->seen && call && call->start_ns > x->prev_end && op.start_ns > x->prev_end &&
            op.start_ns - x->prev_end < r->opts.gap_ns)   /* longer waits are gpu_gap's: the host was busy */
            wait = ps_overlap(x->prev_end, op.start_ns, r->window_start_ns, r->window_end_ns);
        x->seen = 1;
        x->prev_end = op.end_ns > x->prev_end ? op.end_ns : x->prev_end;
        x->kernels++;
        x->wait_ns += wait;
        nk++;
        if (call && dur < call->end_ns - call->start_ns)
            x->shorter++;
        if (dur < r->opts.tiny_kernel_ns) {
            ntiny++, tiny_wait += wait;
            ps_tally_add(&tiny, op.name, 1, dur);
        }
    }
    /* second pass for the launch-bound streams' kernels that ran shorter than their launch */
    int64_t nstreams = 0, wait = 0;
    size_t worst = 0;
    for (size_t k = 0; k < m->streams.n; k++) {
        if (s[k].kernels < LAUNCH_BOUND_MIN_KERNELS ||
            (double)s[k].shorter < r->opts.launch_bound_share * (double)s[k].kernels)
            continue;
        nstreams++, wait += s[k].wait_ns;
        if (nstreams == 1 || s[k].wait_ns > s[worst].wait_ns)
            worst = k;
    }
    if (nstreams)
        launch_bound_finding(r, v, names, s, &shorter, nstreams, wait, worst);
    if (nk >= TINY_MIN_KERNELS && 2 * ntiny >= nk)
        tiny_kernels_finding(r, &tiny, nk, ntiny, tiny_wait);
    rc = 0;
out:
    free(s);
    ps_tally_fini(&shorter);
    ps_tally_fini(&tiny);
    return rc;
}

/* ---- kernels: matrix math without Tensor Cores, low estimated occupancy ----
 * Names follow cuBLAS / cuDNN / CUTLASS: "sgemm" / "dgemm" / "scudnn" / "simt" mark a GEMM or convolution run on
 * the CUDA cores (e.g. ampere_sgemm_128x64_nn, implicit_convolve_sgemm, volta_scudnn_128x64_relu_interior_nn_v1,
 * cutlass_80_simt_sgemm_...), while Tensor Core
 * kernels say tensorop, hmma, xmma, gmma, s1688 / s16816 / h1688 / h16816 / i8816 (e.g.
 * cutlass_80_tensorop_s1688gemm_..., sm80_xmma_gemm_...). */
static int tensor_core(const char *name)
{
    static const char *const tc[] = { "tensorop", "hmma", "xmma", "gmma", "1688", "16816", "8816", "imma", "dmma" };
    for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++)
        if (strcasestr(name, tc[i]))
            return 1;
    return 0;
}

static int simt_matmul(const char *name)
{
    return (strcasestr(name, "sgemm") || strcasestr(name, "dgemm") || strcasestr(name, "scudnn") ||
            (strcasestr(name, "simt") && (strcasestr(name, "gemm") || strcasestr(name, "conv")))) &&
           !tensor_core(name);
}

static int kernel_findings(struct ps_report *r, const struct ps_view *v)
{
    const struct ps_model *m = v->m;
    size_t nstr = ps_model_nstrings(m);
    /* per string id, the name's classes, found once: NAME_SEEN, then NAME_SIMT_MATMUL / NAME_TENSOR_CORE */
    enum { NAME_SEEN = 1, NAME_SIMT_MATMUL = 2, NAME_TENSOR_CORE = 4 };
    uint8_t *cls = calloc(nstr + 1, 1);
    struct ps_tally ts = { 0 }, to = { 0 };
    struct cost cs = cost_in(r), co = cost_in(r);
    int64_t ns = 0, no = 0, nocc = 0;
    int rc = -ENOMEM;
    if (!cls || ps_tally_init(&ts, nstr) < 0 || ps_tally_init(&to, nstr) < 0)
        goto out;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_KERNEL || op.name >= nstr)
            continue;
        if (!cls[op.name]) {
            const char *name = ps_model_str(m, op.name);
            cls[op.name] = NAME_SEEN | (simt_matmul(name) ? NAME_SIMT_MATMUL : 0) |
                           (tensor_core(name) ? NAME_TENSOR_CORE : 0);
        }
        if (cls[op.name] & NAME_SIMT_MATMUL) {
            ns++;
            cost_add(&cs, op.start_ns, op.end_ns);
            ps_tally_add(&ts, op.name, 1, op.end_ns - op.start_ns);
        }
        if (op.has_occupancy) {
            nocc++;
            /* Tensor Core GEMMs run few large tiles per SM by design: their low occupancy is not a problem */
            if (op.occupancy_pct < r->opts.low_occupancy_pct && !(cls[op.name] & NAME_TENSOR_CORE)) {
                no++;
                cost_add(&co, op.start_ns, op.end_ns);
                ps_tally_add(&to, op.name, 1, op.end_ns - op.start_ns);
            }
        }
    }
    uint32_t ids[PS_FINDING_ROWS];
    int64_t cnt[PS_FINDING_ROWS], tot[PS_FINDING_ROWS];
    char c[96];
    struct ps_finding *f;
    if (ns) {
        struct ps_finding acc = { 0 };
        size_t n = ps_tally_top(&ts, PS_FINDING_ROWS, 0, ids, cnt, tot);
        for (size_t i = 0; i < n; i++)
            acc.rows[acc.nrows++] = (struct ps_row){ ids[i], -1, tot[i], -1, cnt[i] };
        int64_t cost = cost_total(&cs);
        int pre_ampere = m->devices.n > 0;   /* every known device before compute capability 8.0: no TF32, no bf16 */
        for (size_t d = 0; d < m->devices.n; d++)
            pre_ampere &= m->devices.v[d].cc_major >= 0 && m->devices.v[d].cc_major < 8;
        if ((f = add_finding(r, &acc, "no_tensor_cores", cost, cost))) {
            const char *why = ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "the time they take");
            snprintf(f->summary, sizeof f->summary,
                     "%lld matrix-multiply / convolution kernels ran on the CUDA cores, not the Tensor Cores (their "
                     "names say sgemm / dgemm / scudnn / simt); %s", (long long)ns, cost_text(f, c, sizeof c));
            snprintf(f->fix, sizeof f->fix, "Let the kernels listed under no_tensor_cores use Tensor Cores: %s: at most "
                     "%.3f ms, %s",
                     pre_ampere ? "mixed precision with fp16 (torch.autocast(dtype=torch.float16) and a GradScaler; "
                                  "this GPU predates TF32 and bf16)"
                                : "mixed precision (torch.autocast with bf16 / fp16) or TF32 "
                                  "(torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True)",
                     ps_report_per_step_ms(r, f->gain_ns), why);
        }
    }
    if (no) {
        struct ps_finding acc = { 0 };
        size_t n = ps_tally_top(&to, PS_FINDING_ROWS, 0, ids, cnt, tot);
        for (size_t i = 0; i < n; i++)
            acc.rows[acc.nrows++] = (struct ps_row){ ids[i], -1, tot[i], -1, cnt[i] };
        int64_t cost = cost_total(&co);
        if ((f = add_finding(r, &acc, "low_occupancy", cost, cost))) {
            const char *why = ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "the time they take");
            snprintf(f->summary, sizeof f->summary,
                     "%lld of %lld kernels with an occupancy estimate in the trace ran below %.0f %% estimated "
                     "achieved occupancy (the profiler's 'est. achieved occupancy %%'); %s", (long long)no,
                     (long long)nocc, r->opts.low_occupancy_pct, cost_text(f, c, sizeof c));
            snprintf(f->fix, sizeof f->fix,
                     "Give the kernels listed under low_occupancy more parallel work (larger batches, more blocks) "
                     "or fewer registers / less shared memory per block: at most %.3f ms, %s",
                     ps_report_per_step_ms(r, f->gain_ns), why);
        }
    }
    rc = 0;
out:
    free(cls);
    ps_tally_fini(&ts);
    ps_tally_fini(&to);
    return rc;
}

static int cmp_cost(const void *a, const void *b)
{
    const struct ps_finding *x = a, *y = b;
    if (x->cost_ns != y->cost_ns)
        return (x->cost_ns < y->cost_ns) - (x->cost_ns > y->cost_ns);
    return strcmp(x->rule, y->rule);
}

int ps_findings_compute(struct ps_report *r, struct ps_names *names)
{
    copy_findings(r, r->all, names);
    sync_api_finding(r, r->all, names);
    slow_copy_finding(r, r->all);
    int rc = gap_finding(r, r->all);
    if (rc == 0)
        rc = low_util_finding(r, r->scope, names);
    if (rc == 0)
        rc = launch_findings(r, r->all, names);
    if (rc == 0)
        rc = kernel_findings(r, r->all);
    qsort(r->findings, r->nfindings, sizeof *r->findings, cmp_cost);   /* costliest first */
    ps_report_findings_per_step(r);
    return rc;
}
