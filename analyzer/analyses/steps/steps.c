/* Steps (docs/report.md): host-side ranges matching --step-range, and their windows as the PyTorch profiler
 * TensorBoard plugin computes them (tb_plugin event_parser.py _find_device_steps / _update_steps_duration):
 * start = max(previous step end, host start), end extended to the end of the GPU work launched by runtime
 * calls inside the host range; trailing steps without GPU work dropped, and the last step dropped when it
 * has fewer than 0.8x the previous step's GPU events. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* Host-side range kinds that can be steps (never a gpu_user_annotation, a mark or a python_function). */
static int host_range_kind(uint8_t kind)
{
    return kind == PS_RANGE_NVTX_PUSHPOP || kind == PS_RANGE_NVTX_STARTEND || kind == PS_RANGE_USER_ANNOTATION ||
           kind == PS_RANGE_CPU_OP;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The key (a pid or a thread index) that owns most of the n keys, the lowest winning a tie; *count gets how many
 * it owns and *distinct how many different keys there are. `keys` is sorted in place. */
static uint32_t most_common(uint32_t *keys, size_t n, size_t *count, size_t *distinct)
{
    uint32_t best = PS_NONE;
    qsort(keys, n, sizeof *keys, cmp_u32);
    *count = *distinct = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && keys[j] == keys[i])
            j++;
        if (j - i > *count) {
            *count = j - i;
            best = keys[i];
        }
        (*distinct)++;
        i = j;
    }
    return best;
}

int ps_steps_pick_process(const struct ps_view *v, struct ps_names *names, uint32_t *pid, size_t *found)
{
    const struct ps_model *m = v->m;
    size_t count, distinct, n = 0;
    uint32_t *keys = malloc((v->nranges + 1) * sizeof *keys);
    if (!keys)
        return -ENOMEM;
    for (size_t i = 0; i < v->nranges; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        if (host_range_kind(g->kind) && (ps_names_flags(names, g->name) & PS_NAME_STEP))
            keys[n++] = m->threads.v[g->thread].pid;
    }
    *found = n;
    *pid = n ? most_common(keys, n, &count, &distinct) : PS_NONE;
    free(keys);
    return 0;
}

/* The thread whose step ranges are analysed: the one holding most of the view's step ranges idx[0..n) (view
 * indices; steps are one sequence (docs/report.md), as in the tb plugin; step ranges of other threads run concurrently
 * and are not nested in this sequence). Returns 0 or -ENOMEM. */
static int pick_step_thread(struct ps_report *r, const struct ps_view *v, const uint32_t *idx, size_t n)
{
    size_t count, distinct;
    uint32_t *keys = malloc((n + 1) * sizeof *keys);
    if (!keys)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        keys[i] = ps_view_range(v, idx[i])->thread;
    r->step_thread = n ? most_common(keys, n, &count, &distinct) : PS_NONE;
    r->step_threads = n ? distinct : 0;
    free(keys);
    return 0;
}

/* tb's step-to-device mapping over view v (the analysed process). Fills device_ops per step and returns the
 * initial prev_step_end in *prev (0 / no GPU work matched: returns 0 and *use_gpu = 0). API calls are counted by
 * view index; a GPU op's launch (a model index) is found in the view, absent when another process made it. */
static int find_device_steps(struct ps_report *r, const struct ps_view *v, int64_t *dev_min, int64_t *dev_max,
                             int *use_gpu, int64_t *prev)
{
    int rc = -ENOMEM;
    int64_t *api_min = malloc((v->napi + 1) * sizeof *api_min);
    int64_t *api_max = malloc((v->napi + 1) * sizeof *api_max);
    uint32_t *api_n = calloc(v->napi + 1, sizeof *api_n);
    uint8_t *matched = calloc(v->napi + 1, 1);
    if (!api_min || !api_max || !api_n || !matched)
        goto out;
    for (size_t i = 0; i < v->napi; i++) {
        api_min[i] = INT64_MAX;
        api_max[i] = INT64_MIN;
    }
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
        uint32_t a;
        if (op->kind == PS_GPU_SYNC || op->launch == PS_NONE || (a = ps_view_find_api(v, op->launch)) == PS_NONE)
            continue;
        api_min[a] = op->start_ns < api_min[a] ? op->start_ns : api_min[a];
        api_max[a] = op->end_ns > api_max[a] ? op->end_ns : api_max[a];
        api_n[a]++;
    }
    size_t is = 0, ia = 0, any = 0;
    int64_t cur_min = INT64_MAX, cur_max = INT64_MIN;
    while (is < r->nsteps && ia < v->napi) {
        const struct ps_api_call *c = ps_view_api(v, ia);
        if (c->driver) {
            ia++;
            continue;
        }
        struct ps_step *s = &r->steps[is];
        if (c->start_ns < s->host_start_ns) {
            ia++;                               /* before the step, or straddling its start */
        } else if (c->end_ns <= s->host_end_ns) {
            if (api_n[ia]) {                    /* inside: its GPU work belongs to the step */
                cur_min = api_min[ia] < cur_min ? api_min[ia] : cur_min;
                cur_max = api_max[ia] > cur_max ? api_max[ia] : cur_max;
                matched[ia] = 1;
                s->device_ops += api_n[ia];
                any = 1;
            }
            ia++;
        } else if (c->start_ns < s->host_end_ns) {
            ia++;                               /* straddles the step's end */
        } else {
            dev_min[is] = cur_min;
            dev_max[is] = cur_max;
            is++;
            cur_min = INT64_MAX;
            cur_max = INT64_MIN;
        }
    }
    for (; is < r->nsteps; is++) {
        dev_min[is] = cur_min;
        dev_max[is] = cur_max;
        cur_min = INT64_MAX;
        cur_max = INT64_MIN;
    }
    *use_gpu = any != 0;
    *prev = 0;
    if (any) {
        /* the end of GPU work launched outside every step and finished before step 0's first GPU work */
        *prev = r->steps[0].host_start_ns;
        if (dev_min[0] != INT64_MAX) {
            for (size_t i = 0; i < v->ngpu; i++) {
                const struct ps_gpu_op op_ = ps_view_gpu(v, i), *op = &op_;
                if (op->kind == PS_GPU_SYNC)
                    continue;
                uint32_t a = op->launch == PS_NONE ? PS_NONE : ps_view_find_api(v, op->launch);
                if ((a == PS_NONE || !matched[a]) && op->end_ns < dev_min[0] && op->end_ns > *prev)
                    *prev = op->end_ns;
            }
        }
    }
    rc = 0;
out:
    free(api_min);
    free(api_max);
    free(api_n);
    free(matched);
    return rc;
}

/* Record that the steps from `keep` on are left out by `rule` (messages.c says so). */
static void note_tail(struct ps_report *r, size_t keep, enum ps_tail_rule rule)
{
    r->tail_rule = rule;
    r->tail_left_out = r->nsteps - keep;
    r->tail_first_name = r->steps[keep].name;
    r->tail_first_host_ns = r->steps[keep].host_end_ns - r->steps[keep].host_start_ns;
}

/* Extend r->steps to the GPU work launched inside them, over view v, as tb does (docs/report.md); drops trailing
 * steps without GPU work. 0 or -ENOMEM. */
static int step_windows(struct ps_report *r, const struct ps_view *v)
{
    int rc = -ENOMEM;
    int64_t *dev_min = malloc(r->nsteps * sizeof *dev_min), *dev_max = malloc(r->nsteps * sizeof *dev_max);
    if (!dev_min || !dev_max)
        goto out;
    int use_gpu;
    int64_t prev;
    rc = find_device_steps(r, v, dev_min, dev_max, &use_gpu, &prev);
    if (rc < 0 || !use_gpu)
        goto out;
    for (size_t i = 0; i < r->nsteps; i++) {
        struct ps_step *s = &r->steps[i];
        s->start_ns = prev > s->host_start_ns ? prev : s->host_start_ns;
        s->end_ns = s->host_end_ns;
        if (dev_min[i] != INT64_MAX && dev_max[i] > s->end_ns)
            s->end_ns = dev_max[i];
        if (s->end_ns < s->start_ns)
            s->end_ns = s->start_ns;
        prev = s->end_ns;
    }
    if (r->nsteps > 1) {
        size_t last = r->nsteps;
        while (last > 0 && r->steps[last - 1].device_ops == 0)
            last--;
        if (last > 0) {
            size_t keep = last;
            if (last > 1 && (double)r->steps[last - 2].device_ops * 0.8 > (double)r->steps[last - 1].device_ops)
                keep = last - 1;
            if (keep < r->nsteps)
                note_tail(r, keep, PS_TAIL_TB);
            r->nsteps = keep;
        }
    }
out:
    free(dev_min);
    free(dev_max);
    return rc;
}

/* Host operations (ranges of the step thread other than the step itself) inside step i's host range. */
static int64_t host_ops_in_step(const struct ps_report *r, const struct ps_view *v, size_t i)
{
    const struct ps_step *s = &r->steps[i];
    int64_t n = 0;
    for (size_t k = 0; k < v->nranges; k++) {
        const struct ps_range *g = ps_view_range(v, k);
        n += g->thread == r->step_thread && g->start_ns >= s->host_start_ns && g->end_ns <= s->host_end_ns &&
             ps_view_range_index(v, k) != s->range;
    }
    return n;
}

/* Without GPU work the tb rule above cannot decide, and the PyTorch profiler leaves its last ProfilerStep#N cut
 * when it stops inside it: a loop that calls prof.step() at the end of each iteration opens one more step than it
 * runs, and the profile's exit closes it at once (15 µs holding one aten::empty, against 52 operations in the step
 * before, in a Debian torch 1.13 trace). tb's last-step rule is applied to host operations, with a stricter share:
 * the host misses no operation, so only a step closed at once is cut — the last ProfilerStep goes when it holds
 * fewer than CUT_STEP_OPS of the host operations of the step before; a smaller but whole last iteration stays
 * (docs/report.md). Only in the profiler's own (Kineto) traces: the ProfilerStep#N ranges perfscope's Python hook
 * records are whole steps. */
#define CUT_STEP_OPS 0.1
static void drop_cut_profiler_step(struct ps_report *r, const struct ps_view *v)
{
    size_t last = r->nsteps - 1;
    if (v->m->format != PS_FORMAT_KINETO || r->nsteps < 2 ||
        strncmp(ps_model_str(v->m, r->steps[last].name), "ProfilerStep#", 13) != 0)
        return;
    r->tail_host_ops = host_ops_in_step(r, v, last);
    r->tail_host_ops_before = host_ops_in_step(r, v, last - 1);
    if ((double)r->tail_host_ops_before * CUT_STEP_OPS > (double)r->tail_host_ops) {
        note_tail(r, last, PS_TAIL_HOST_OPS);
        r->nsteps--;
    }
}

/* The steps of view v (one process's view, or the whole trace when no process holds a step range): the thread
 * holding most step ranges, tb step windows (docs/report.md "Steps"); one whole-run window without steps. Steps are
 * not inferred here: see want_inference. */
static int find_steps(struct ps_report *r, const struct ps_view *v, struct ps_names *names)
{
    int rc = -ENOMEM;
    uint32_t *idx = malloc((v->nranges + 1) * sizeof *idx);
    if (!idx)
        goto out;
    size_t n = 0;
    for (size_t i = 0; i < v->nranges; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        if (host_range_kind(g->kind) && (ps_names_flags(names, g->name) & PS_NAME_STEP))
            idx[n++] = (uint32_t)i;
    }
    r->step_thread = PS_NONE;
    if (pick_step_thread(r, v, idx, n) < 0)
        goto out;
    r->steps = calloc(n + 1, sizeof *r->steps);
    if (!r->steps)
        goto out;
    int64_t kept_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const struct ps_range *g = ps_view_range(v, idx[i]);
        if (g->thread != r->step_thread || g->end_ns <= kept_end)
            continue;   /* another thread, or nested inside the previous step (e.g. NVTX "step" in ProfilerStep#N) */
        struct ps_step *s = &r->steps[r->nsteps++];
        if (r->nsteps > 1 && s[-1].host_start_ns == g->start_ns) {
            s--;        /* same start, longer: the earlier one (sorted by end) is nested in this one */
            r->nsteps--;
        }
        s->name = g->name;
        s->range = ps_view_range_index(v, idx[i]);
        s->host_start_ns = s->start_ns = g->start_ns;
        s->host_end_ns = s->end_ns = g->end_ns;
        kept_end = g->end_ns;
    }
    r->nsteps_host = r->nsteps;
    if (r->nsteps == 0) {
        r->whole_run = 1;
        r->nsteps = 1;
        r->steps[0] = (struct ps_step){ .name = PS_NONE, .range = PS_NONE, .host_start_ns = r->run_start_ns,
                                        .host_end_ns = r->run_end_ns, .start_ns = r->run_start_ns,
                                        .end_ns = r->run_end_ns };
        if (!r->has_gpu && r->opts.steps_mode != PS_STEPS_OFF && v->nranges)
            snprintf(r->steps_note, sizeof r->steps_note, "no steps inferred: the trace has no GPU operations, and "
                     "steps are inferred from the repeating kernel sequence only");
        rc = 0;
        goto out;
    }
    r->last_host_step_start_ns = v->m->ranges.v[r->steps[r->nsteps - 1].range].start_ns;   /* the model's: exact */
    rc = 0;
    if (r->has_gpu)
        rc = step_windows(r, v);
    else
        drop_cut_profiler_step(r, v);
out:
    free(idx);
    return rc;
}

/* 1 when the steps find_steps left should be replaced by inferred ones if a period is found (--steps auto without
 * step ranges, --steps infer), on a trace with GPU operations. */
static int want_inference(const struct ps_report *r)
{
    return r->has_gpu && (r->opts.steps_mode == PS_STEPS_INFER || (r->whole_run && r->opts.steps_mode == PS_STEPS_AUTO));
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

/* The rows of `from` as the steps see them: tb's rounded times under --compat tb on Kineto traces. */
static int steps_view(const struct ps_view *from, int tb_times, int64_t *tb_base, struct ps_view *v)
{
    int rc = ps_view_copy(v, from);
    if (rc == 0 && tb_times && (rc = ps_view_retime(v, tb_retime, tb_base)) < 0)
        ps_view_fini(v);
    return rc;
}

/* Steps inferred from the kernel sequence (--steps auto without step ranges, --steps infer), of the whole of r->all
 * (the trace, or a process's rows in the per-process table), seen as the steps are (tb's times under --compat tb).
 * Inference names the process the steps belong to: the analysed process (r->scope) and the steps' view *sv become
 * that process's before the steps get their windows. */
static int infer_steps(struct ps_report *r, int tb_times, int64_t *tb_base, struct ps_view *sv)
{
    struct ps_view whole = { 0 };
    const struct ps_view *from = sv;
    uint32_t pid = r->pid;
    int scoped = r->scoped, rc = 0;
    if (scoped) {   /* --steps infer beside step ranges: the ranges' process view is not the whole trace */
        rc = steps_view(r->all, tb_times, tb_base, &whole);
        from = &whole;
    }
    if (rc < 0 || (rc = ps_steps_infer(r, from)) < 0 || !r->steps_inferred)
        goto out;
    if (r->scoped != scoped || r->pid != pid) {
        ps_view_fini(r->scope);
        ps_view_fini(sv);
        rc = r->scoped ? ps_view_process(r->scope, r->all, r->pid) : ps_view_copy(r->scope, r->all);
        if (rc < 0)
            goto out;
        if ((rc = steps_view(r->scope, tb_times, tb_base, sv)) < 0)
            goto out;
    }
    rc = step_windows(r, sv);
out:
    ps_view_fini(&whole);
    return rc;
}

int ps_steps_compute(struct ps_report *r, struct ps_names *names, struct ps_view *sv)
{
    int64_t tb_base = 0;
    int tb_times = r->opts.compat_tb && r->m->format == PS_FORMAT_KINETO;
    if (tb_times)
        tb_base = ps_report_kineto_base_ns(r);
    int rc = steps_view(r->scope, tb_times, &tb_base, sv);
    if (rc == 0 && (rc = find_steps(r, sv, names)) == 0 && want_inference(r))
        rc = infer_steps(r, tb_times, &tb_base, sv);
    if (rc == 0) {
        ps_warmup_skip(r);   /* --skip-steps: before every average */
        rc = ps_warmup_compute(r);
    }
    return rc;
}
