/* ps_report_build / ps_report_build_view: runs the analyses over views of one model (all of it, or the caller's
 * view: a time slice for `top`) in dependency order (steps -> breakdown -> HTA -> TraceLens -> summaries ->
 * verdict -> ranks) and owns the results the renderers print. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analyses.h"
#include "ps_schema.h"

/* Longest run analysed: 2^50 ns, about 13 days. Longer spans come from corrupt timestamps, and bounding the span
 * keeps every sum of durations far from int64 overflow. */
#define PS_MAX_SPAN_NS (1ll << 50)

void ps_report_opts_default(struct ps_report_opts *o)
{
    *o = (struct ps_report_opts){ .top_n = 10, .kernel_threshold = 0.8, .gap_ns = 1000000, .tiny_kernel_ns = 10000,
                                  .info_share = 0.02, .low_util = 0.5, .launch_bound_share = 0.5, .link_gbps = 25,
                                  .slow_copy_share = 0.25, .low_occupancy_pct = 25 };
}

const char *ps_format_name(enum ps_format f)
{
    return f == PS_FORMAT_NSYS ? "nsys" : f == PS_FORMAT_KINETO ? "kineto" : "perfscope";
}

const char *ps_copy_kind_name(const struct ps_copy_stat *c)
{
    if (c->kind == PS_GPU_MEMSET)
        return "Memset";
    return c->copy_kind < PS_NSYS_COPY_KINDS ? ps_nsys_copy_kind[c->copy_kind].key : "unknown";
}

const char *ps_mem_kind_name(uint8_t kind)
{
    return kind < PS_NSYS_MEM_KINDS ? ps_nsys_mem_kind[kind].key : "unknown";
}

const char *ps_report_meta(const struct ps_report *r, const char *key)
{
    for (size_t i = 0; i < r->m->meta.n; i++)
        if (!strcmp(r->m->meta.v[i].key, key))
            return r->m->meta.v[i].value;
    return NULL;
}

int64_t ps_report_kineto_base_ns(const struct ps_report *r)
{
    const char *v = ps_report_meta(r, "kineto.baseTimeNanoseconds");
    return v ? strtoll(v, NULL, 10) : 0;
}

int ps_report_recording_complete(const struct ps_report *r)
{
    const char *v = ps_report_meta(r, "recording_complete");
    return !v ? -1 : !strcmp(v, "1") ? 1 : !strcmp(v, "0") ? 0 : -1;
}

int ps_report_meta_int(const struct ps_report *r, const char *key, long long lo, long long hi, long long *v)
{
    const char *s = ps_report_meta(r, key);
    char *end;
    if (!s)
        return 0;
    if (*s == '\0' || isspace((unsigned char)*s))   /* NULL values are read as "" */
        return -1;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)            /* '1e3', 'abc', beyond int64 */
        return -1;
    *v = x;
    return x < lo || x > hi ? -2 : 1;
}

void ps_report_child_status(const struct ps_report *r, struct ps_child_status *st)
{
    long long v = 0;
    /* docs/trace-format.md: child_exit_code is the exit code (0..255), -1 when a signal killed the program;
     * child_signal the signal (0: none). Linux signals are 1..64 (SIGRTMAX). */
    int code = ps_report_meta_int(r, "child_exit_code", -1, 255, &v);
    *st = (struct ps_child_status){ .recorded = code != 0, .code = code == 1 ? (long)v : 0, .code_known = code == 1 };
    int sig = ps_report_meta_int(r, "child_signal", 0, 64, &v);
    st->recorded |= sig != 0;
    st->sig_known = sig == 1;
    st->sig = sig == 1 || sig == -2 ? (long)v : 0;
    st->sig_out_of_range = sig == -2;
}

size_t ps_report_process_ranks(const struct ps_report *r, int32_t *one)
{
    const struct ps_model *m = r->m;
    size_t n = 0;
    int32_t first = -1;
    for (size_t i = 0; i < m->procs.n; i++) {
        int32_t k = m->procs.v[i].rank;
        if (k < 0 || k == first)
            continue;
        if (first < 0) {
            first = k;
            n = 1;
            continue;
        }
        size_t j = 0;   /* a new rank unless an earlier process had it */
        while (j < i && m->procs.v[j].rank != k)
            j++;
        n += j == i;
    }
    *one = first;
    return n;
}

void ps_report_rank(const struct ps_report *r, int32_t *rank, int32_t *world_size)
{
    long long v;
    int32_t one;
    *rank = ps_report_process_ranks(r, &one) >= 2 ? -1 : r->m->rank;   /* around a launcher: no one rank */
    *world_size = r->m->world_size;
    if (*rank >= 0 && ps_report_meta_int(r, "rank", 0, INT32_MAX - 1, &v) < 0)   /* perfscope meta: garbage read as 0 */
        *rank = -1;
    if (ps_report_meta_int(r, "world_size", 1, INT32_MAX, &v) < 0)
        *world_size = -1;
}

int64_t ps_report_gpu_untimed_records(const struct ps_report *r)
{
    long long v;
    return ps_report_meta_int(r, "gpu_records_without_timestamps", 0, INT64_MAX, &v) == 1 ? v : -1;
}

int64_t ps_report_dropped_records(const struct ps_report *r)
{
    long long v;
    const struct ps_model *m = r->m;
    int total = ps_report_meta_int(r, "dropped_records", 0, INT64_MAX, &v);
    if (total < 0)
        return -1;
    if (total == 0)   /* the per-process keys the reader summed instead: each must be a count */
        for (size_t i = 0; i < m->meta.n; i++)
            if (!strncmp(m->meta.v[i].key, "dropped", 7) &&
                ps_report_meta_int(r, m->meta.v[i].key, 0, INT64_MAX, &v) < 0)
                return -1;
    return m->dropped_records;
}

const char ps_report_compat_tb_note[] =
    "--compat tb finds communication as tb does, by linking kernels to Kineto's NCCL host ops (nccl:all_reduce, "
    "...) through their External id; this trace is not a Kineto trace and has no such ids, so Communication is 0 "
    "under --compat tb and NCCL kernels count as Kernel. Without --compat tb, kernels named nccl / rccl count as "
    "Communication.";

int ps_report_compat_tb_no_comm(const struct ps_report *r)
{
    return r->opts.compat_tb && r->m->format != PS_FORMAT_KINETO;
}

struct ps_device_stat *ps_report_device(struct ps_report *r, int32_t device)
{
    for (size_t i = 0; i < r->ndevs; i++)
        if (r->devs[i].device == device)
            return &r->devs[i];
    struct ps_device_stat *v = realloc(r->devs, (r->ndevs + 1) * sizeof *v);
    if (!v)
        return NULL;
    r->devs = v;
    size_t pos = r->ndevs++;
    while (pos > 0 && r->devs[pos - 1].device > device) {   /* keep devices in id order */
        r->devs[pos] = r->devs[pos - 1];
        pos--;
    }
    r->devs[pos] = (struct ps_device_stat){ .device = device, .gpu_util = NAN };
    return &r->devs[pos];
}

/* The span of the analysed rows (r->all): first start .. last end; 0, 0 without rows. */
static void run_span(struct ps_report *r)
{
    const struct ps_view *v = &r->all;
    int64_t a = INT64_MAX, b = INT64_MIN;
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_row *g = ps_view_gpu_row(v, i);
        int64_t end = ps_view_row_end(v, g);
        a = g->start_ns < a ? g->start_ns : a;
        b = end > b ? end : b;
    }
    for (size_t i = 0; i < v->napi; i++) {
        const struct ps_api_call *c = ps_view_api(v, i);
        a = c->start_ns < a ? c->start_ns : a;
        b = c->end_ns > b ? c->end_ns : b;
    }
    for (size_t i = 0; i < v->nranges; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        a = g->start_ns < a ? g->start_ns : a;
        b = g->end_ns > b ? g->end_ns : b;
    }
    if (a > b)
        a = b = 0;
    r->run_start_ns = a;
    r->run_end_ns = b;
    r->nevents = v->ngpu + v->napi + v->nranges;
}

/* ---- --compat tb on Kineto traces: tb's float64 µs arithmetic ----
 * tb_plugin keeps `ts` and `dur` as Python floats in µs (as written in the JSON, i.e. relative to
 * baseTimeNanoseconds when the trace has one) and computes end = ts + dur in float64. On absolute
 * ns-resolution timestamps (~1.7e15 µs) a float64 holds only multiples of 0.25 µs, which moves tb's
 * step breakdown by several µs. Every float64 in that range is a whole number of ns, so redoing tb's
 * rounding on the times gives tb's numbers exactly with integer arithmetic afterwards. */
static int64_t us_double_to_ns(double us)
{
    double q = floor(us);
    return (int64_t)q * 1000 + llround((us - q) * 1000.0);   /* us - q is exact */
}

static void tb_round(int64_t base, int64_t *start, int64_t *end)
{
    double ts = ps_ns_to_us_double(*start - base), dur = (double)(*end - *start) / 1000.0;
    *start = base + us_double_to_ns(ts);
    *end = base + us_double_to_ns(ts + dur);
}

/* ps_view_retime's callback: a time pair as tb sees it (ctx: baseTimeNanoseconds). */
static void tb_retime(void *ctx, int64_t *start, int64_t *end)
{
    tb_round(*(const int64_t *)ctx, start, end);
}

/* The view steps and their breakdown are computed on: the analysed process (the one holding most step ranges),
 * with tb's rounded times under --compat tb on Kineto traces. */
static int steps_view(const struct ps_report *r, int tb_times, int64_t *tb_base, struct ps_view *v)
{
    int rc = r->scoped ? ps_view_process(v, &r->all, r->pid) : ps_view_copy(v, &r->all);
    if (rc == 0 && tb_times && (rc = ps_view_retime(v, tb_retime, tb_base)) < 0)
        ps_view_fini(v);
    return rc;
}

/* Steps inferred from the kernel sequence of the whole trace (--steps auto without step ranges, --steps infer),
 * seen as the steps are (tb's times under --compat tb). Inference names the process the steps belong to: the
 * analysed process (r->scope) and the steps' view *sv become that process's before the steps get their windows. */
static int infer_steps(struct ps_report *r, int tb_times, int64_t *tb_base, struct ps_view *sv)
{
    struct ps_view whole = { 0 };
    const struct ps_view *from = sv;
    uint32_t pid = r->pid;
    int scoped = r->scoped, rc = 0;
    if (scoped) {   /* --steps infer beside step ranges: the ranges' process view is not the whole trace */
        r->scoped = 0;
        rc = steps_view(r, tb_times, tb_base, &whole);
        r->scoped = 1;
        from = &whole;
    }
    if (rc < 0 || (rc = ps_steps_infer(r, from)) < 0 || !r->steps_inferred)
        goto out;
    if (r->scoped != scoped || r->pid != pid) {
        ps_view_fini(&r->scope);
        ps_view_fini(sv);
        rc = r->scoped ? ps_view_process(&r->scope, &r->all, r->pid) : ps_view_copy(&r->scope, &r->all);
        if (rc < 0)
            goto out;
        if ((rc = steps_view(r, tb_times, tb_base, sv)) < 0)
            goto out;
    }
    rc = ps_steps_windows(r, sv);
out:
    ps_view_fini(&whole);
    return rc;
}

int ps_report_build(struct ps_report *r, const struct ps_model *m, const struct ps_report_opts *o,
                    char *err, size_t errlen)
{
    struct ps_view all;
    ps_view_all(&all, m);
    return ps_report_build_view(r, &all, o, err, errlen);
}

int ps_report_build_view(struct ps_report *r, const struct ps_view *rows, const struct ps_report_opts *o,
                         char *err, size_t errlen)
{
    const struct ps_model *m = rows->m;
    struct ps_names *names = NULL;
    struct ps_view sv = { 0 };
    memset(r, 0, sizeof *r);
    r->m = m;
    r->opts = *o;
    r->gpu_util = r->comm_comp_overlap = NAN;
    int rc = ps_view_copy(&r->all, rows);
    if (rc == -EINVAL) {
        snprintf(err, errlen, "%s: a retimed view cannot be analysed (the report retimes its own rows under "
                              "--compat tb)", m->path);
        goto out;
    }
    if (rc < 0 || (rc = ps_names_new(&names, m, o, err, errlen)) < 0)
        goto out;
    for (size_t i = 0; i < r->all.ngpu && !r->has_gpu; i++)
        r->has_gpu = ps_view_gpu_attr(&r->all, ps_view_gpu_row(&r->all, i))->kind != PS_GPU_SYNC;
    run_span(r);
    int64_t span;
    if (__builtin_sub_overflow(r->run_end_ns, r->run_start_ns, &span) || span > PS_MAX_SPAN_NS) {
        snprintf(err, errlen, "%s: the events span more than %d days (first start %lld ns, last end %lld ns): "
                              "its timestamps look corrupt", m->path, (int)(PS_MAX_SPAN_NS / 86400000000000ll),
                 (long long)r->run_start_ns, (long long)r->run_end_ns);
        rc = -EINVAL;
        goto out;
    }
    if ((rc = ps_steps_pick_process(&r->all, names, &r->pid, &r->step_ranges_found)) < 0)
        goto out;
    r->scoped = r->pid != PS_NONE;
    rc = r->scoped ? ps_view_process(&r->scope, &r->all, r->pid) : ps_view_copy(&r->scope, &r->all);
    if (rc < 0)
        goto out;
    int64_t tb_base = 0;
    int tb_times = o->compat_tb && m->format == PS_FORMAT_KINETO;
    if (tb_times)
        tb_base = ps_report_kineto_base_ns(r);
    if ((rc = steps_view(r, tb_times, &tb_base, &sv)) < 0)
        goto out;
    if ((rc = ps_steps_find(r, &sv, names)) == 0 && ps_steps_want_inference(r))
        rc = infer_steps(r, tb_times, &tb_base, &sv);
    if (rc == 0)   /* steps and the step breakdown as tb computes them */
        rc = ps_breakdown_compute(r, &sv, names);
    if (rc == 0 && (rc = ps_hta_compute(r, &r->all, names)) == 0 &&
        (rc = ps_tracelens_compute(r, &r->all, names)) == 0 && (rc = ps_summary_compute(r, &r->all)) == 0 &&
        (rc = ps_pytorch_compute(r, &r->all, &r->scope, names)) == 0 &&
        (rc = ps_verdict_compute(r, names)) == 0)
        rc = ps_ranks_compute(r, names);
    if (rc == 0)
        rc = ps_nvml_util_compute(r);
    if (rc == 0)
        rc = ps_util_compute(r);
    if (rc == 0)
        rc = ps_messages_compute(r);
out:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory while analysing %s", m->path);
    ps_names_free(names);
    ps_view_fini(&sv);
    if (rc < 0)
        ps_report_fini(r);
    return rc;
}

void ps_report_fini(struct ps_report *r)
{
    ps_messages_fini(r);
    free(r->util);
    r->util = NULL;
    r->nutil = 0;
    ps_view_fini(&r->scope);
    ps_view_fini(&r->all);
    free(r->steps);
    free(r->devs);
    free(r->idle);
    free(r->kernels);
    free(r->copies);
    free(r->ranks);
    free(r->stragglers);
    ps_pytorch_free(r->py);
    r->py = NULL;
    free(r->nvml_util);
    r->nvml_util = NULL;
    r->nnvml_util = 0;
    r->ranks = NULL;
    r->stragglers = NULL;
    r->nranks = r->nstragglers = 0;
    r->steps = NULL;
    r->devs = NULL;
    r->idle = NULL;
    r->kernels = NULL;
    r->copies = NULL;
    r->nsteps = r->ndevs = r->nidle = r->nkernels = r->ncopies = 0;
}
