/* Steps (DESIGN §4): host-side ranges matching --step-range, and their windows as the PyTorch profiler
 * TensorBoard plugin computes them (tb_plugin event_parser.py _find_device_steps / _update_steps_duration):
 * start = max(previous step end, host start), end extended to the end of the GPU work launched by runtime
 * calls inside the host range; trailing steps without GPU work dropped, and the last step dropped when it
 * has fewer than 0.8x the previous step's GPU events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"

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

/* Pick the process (unless r->force_pid) and, in it, the thread whose step ranges are analysed: the process
 * holding most step ranges, then its thread holding most (DESIGN §4 steps are one sequence, as in the tb plugin;
 * step ranges of other threads run concurrently and are not nested in this sequence). Returns 0 or -ENOMEM. */
static int pick_step_thread(struct ps_report *r, const uint32_t *idx, size_t n)
{
    const struct ps_model *m = r->m;
    size_t count, distinct, k = 0;
    uint32_t *keys = malloc(n * sizeof *keys);
    if (!keys)
        return -ENOMEM;
    if (!r->force_pid) {
        for (size_t i = 0; i < n; i++)
            keys[i] = m->threads.v[m->ranges.v[idx[i]].thread].pid;
        r->pid = most_common(keys, n, &count, &distinct);
    }
    for (size_t i = 0; i < n; i++)
        if (m->threads.v[m->ranges.v[idx[i]].thread].pid == r->pid)
            keys[k++] = m->ranges.v[idx[i]].thread;
    r->step_thread = k ? most_common(keys, k, &count, &distinct) : PS_NONE;
    r->step_threads = k ? distinct : 0;
    free(keys);
    return 0;
}

/* tb's step-to-device mapping. Fills device_ops per step and returns the initial prev_step_end in *prev
 * (0 / no GPU work matched: returns 0 and *use_gpu = 0). */
static int find_device_steps(struct ps_report *r, int64_t *dev_min, int64_t *dev_max, int *use_gpu, int64_t *prev)
{
    const struct ps_model *m = r->m;
    int rc = -ENOMEM;
    int64_t *api_min = malloc((m->api.n + 1) * sizeof *api_min);
    int64_t *api_max = malloc((m->api.n + 1) * sizeof *api_max);
    uint32_t *api_n = calloc(m->api.n + 1, sizeof *api_n);
    uint8_t *matched = calloc(m->api.n + 1, 1);
    if (!api_min || !api_max || !api_n || !matched)
        goto out;
    for (size_t i = 0; i < m->api.n; i++) {
        api_min[i] = INT64_MAX;
        api_max[i] = INT64_MIN;
    }
    for (size_t i = 0; i < m->gpu.n; i++) {
        const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
        if (op->kind == PS_GPU_SYNC || op->launch == PS_NONE)
            continue;
        uint32_t a = op->launch;
        api_min[a] = op->start_ns < api_min[a] ? op->start_ns : api_min[a];
        api_max[a] = op->end_ns > api_max[a] ? op->end_ns : api_max[a];
        api_n[a]++;
    }
    size_t is = 0, ia = 0, any = 0;
    int64_t cur_min = INT64_MAX, cur_max = INT64_MIN;
    while (is < r->nsteps && ia < m->api.n) {
        const struct ps_api_call *c = &m->api.v[ia];
        if (c->driver || !ps_report_thread_in_scope(r, c->thread)) {
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
            for (size_t i = 0; i < m->gpu.n; i++) {
                const struct ps_gpu_op op_ = ps_model_gpu(m, i), *op = &op_;
                if (op->kind == PS_GPU_SYNC || !ps_report_gpu_in_scope(r, op))
                    continue;
                if ((op->launch == PS_NONE || !matched[op->launch]) && op->end_ns < dev_min[0] && op->end_ns > *prev)
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

static int device_windows(struct ps_report *r)
{
    int rc = -ENOMEM;
    int64_t *dev_min = malloc(r->nsteps * sizeof *dev_min), *dev_max = malloc(r->nsteps * sizeof *dev_max);
    if (!dev_min || !dev_max)
        goto out;
    int use_gpu;
    int64_t prev;
    rc = find_device_steps(r, dev_min, dev_max, &use_gpu, &prev);
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
            r->nsteps = keep;
        }
    }
out:
    free(dev_min);
    free(dev_max);
    return rc;
}

int ps_steps_find(struct ps_report *r, struct ps_names *names)
{
    const struct ps_model *m = r->m;
    int rc = -ENOMEM;
    uint32_t *idx = malloc((m->ranges.n + 1) * sizeof *idx);
    if (!idx)
        goto out;
    size_t n = 0;
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        if (host_range_kind(g->kind) && (ps_names_flags(names, g->name) & PS_NAME_STEP))
            idx[n++] = (uint32_t)i;
    }
    r->step_ranges_found = n;
    r->step_thread = PS_NONE;
    if (n > 0) {
        r->scoped = 1;
        if (pick_step_thread(r, idx, n) < 0)
            goto out;
    }
    r->steps = calloc(n + 1, sizeof *r->steps);
    if (!r->steps)
        goto out;
    int64_t kept_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const struct ps_range *g = &m->ranges.v[idx[i]];
        if (g->thread != r->step_thread || g->end_ns <= kept_end)
            continue;   /* another thread, or nested inside the previous step (e.g. NVTX "step" in ProfilerStep#N) */
        struct ps_step *s = &r->steps[r->nsteps++];
        if (r->nsteps > 1 && s[-1].host_start_ns == g->start_ns) {
            s--;        /* same start, longer: the earlier one (sorted by end) is nested in this one */
            r->nsteps--;
        }
        s->name = g->name;
        s->range = (uint32_t)idx[i];
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
        if (!r->has_gpu && r->opts.steps_mode != PS_STEPS_OFF && m->ranges.n)
            snprintf(r->steps_note, sizeof r->steps_note, "no steps inferred: the trace has no GPU operations, and "
                     "steps are inferred from the repeating kernel sequence only");
        rc = r->has_gpu && r->opts.steps_mode != PS_STEPS_OFF ? ps_steps_infer(r) : 0;
        if (rc == 0 && r->steps_inferred)
            rc = device_windows(r);
        goto out;
    }
    r->last_host_step_start_ns = m->ranges.v[r->steps[r->nsteps - 1].range].start_ns;
    rc = r->has_gpu ? device_windows(r) : 0;
    if (rc == 0 && r->has_gpu && r->opts.steps_mode == PS_STEPS_INFER &&
        (rc = ps_steps_infer(r)) == 0 && r->steps_inferred)
        rc = device_windows(r);   /* asked for: inferred steps replace the ranges' (to compare them) */
out:
    free(idx);
    return rc;
}
