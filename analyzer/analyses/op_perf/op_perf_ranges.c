/* The operator events of a perfscope (or Nsight Systems) trace for the per-operator performance model
 * (analyses/op_perf.h ps_op_perf_trace_compute): the Python hook's per-op ranges (mode "shapes",
 * python/perfscope_hook/op_shapes.py) become host ops with Kineto's four shape arguments, the CUDA API calls
 * their launches, the kernels, copies and memsets their GPU work, each linked to the call that launched it by
 * correlation id (the model's own link, so ids reused by two processes never mix). docs/op-perf-roofline.md
 * "Recorded runs". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/op_perf.h"
#include "analyses/report.h"
#include "model/model.h"
#include "model/op_trace.h"
#include "op_perf_impl.h"
#include "op_perf_testing.h"

static const char *const FIELDS[4] = { ", dims = ", ", types = ", ", strides = ", ", concrete = " };

/* The op range's text (op_perf_testing.h: only the tests call it from outside). */
int ps_op_perf_range_parse(const char *s, size_t *name_len, const char *lo[4], const char *hi[4])
{
    const char *p = strstr(s, FIELDS[0]);
    if (!p || p == s)
        return -EINVAL;
    *name_len = (size_t)(p - s);
    for (int k = 0; k < 4; k++) {
        size_t n = strlen(FIELDS[k]);
        if (strncmp(p, FIELDS[k], n) != 0)
            return -EINVAL;
        p += n;
        struct tl_pv v;
        lo[k] = p;
        int rc = tl_pv_parse(&p, &v, 0);
        int list = rc == 0 && v.kind == TL_PV_LIST;
        tl_pv_fini(&v);
        if (rc == -ENOMEM)
            return rc;
        if (!list)
            return -EINVAL;
        hi[k] = p;
    }
    return *p ? -EINVAL : 0;
}

/* Range r as a host op with its four shape arguments when it is an op range (*added 1), else nothing (*added 0).
 * 0 or -ENOMEM. */
static int add_range(struct ps_op_trace *t, const struct ps_model *m, const struct ps_range *r, uint32_t uid,
                     int *added)
{
    const char *s = ps_model_str(m, r->name), *lo[4], *hi[4];
    size_t nl;
    *added = 0;
    if (r->kind != PS_RANGE_NVTX_PUSHPOP || r->thread == PS_NONE)
        return 0;
    int rc = ps_op_perf_range_parse(s, &nl, lo, hi);
    if (rc < 0)
        return rc == -EINVAL ? 0 : rc;   /* -EINVAL: another range */
    const struct ps_thread *th = &m->threads.v[r->thread];
    struct ps_op_event e = { .ts_us = (double)r->start_ns / 1e3, .dur_us = (double)(r->end_ns - r->start_ns) / 1e3,
                             .pid = th->pid, .tid = th->tid, .uid = uid, .cat = PS_OPEV_CPU_OP, .has_pid_tid = 1 };
    struct ps_op_args a;
    uint32_t *ids[4] = { &a.dims, &a.types, &a.strides, &a.concrete };
    e.name = ps_op_trace_intern(t, s, nl);
    for (int k = 0; k < 4; k++)
        if ((*ids[k] = ps_op_trace_intern(t, lo[k], (size_t)(hi[k] - lo[k]))) == PS_NONE)
            return -ENOMEM;
    e.args = (uint32_t)t->args.n;
    if (e.name == PS_NONE || ps_op_trace_add_args(t, &a) < 0 || ps_op_trace_add_event(t, &e) < 0)
        return -ENOMEM;
    *added = 1;
    return 0;
}

/* The API's name without Nsight Systems' version suffix ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel"), so a
 * graph launch reads as TraceLens expects it. */
static size_t api_name_len(const char *s)
{
    size_t n = strlen(s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    return k >= 2 && k < n && s[k - 1] == 'v' && s[k - 2] == '_' ? k - 2 : n;
}

static int add_calls(struct ps_op_trace *t, const struct ps_model *m, uint32_t *uid)
{
    for (size_t i = 0; i < m->api.n; i++) {
        const struct ps_api_call *c = &m->api.v[i];
        if (c->thread == PS_NONE)
            continue;
        const struct ps_thread *th = &m->threads.v[c->thread];
        const char *s = ps_model_str(m, c->name);
        /* the correlation id is the call's model index + 1: unique in the file */
        struct ps_op_event e = { .ts_us = (double)c->start_ns / 1e3, .dur_us = (double)(c->end_ns - c->start_ns) / 1e3,
                                 .pid = th->pid, .tid = th->tid, .corr = (int64_t)i + 1, .uid = (*uid)++,
                                 .args = PS_NONE, .cat = c->driver ? PS_OPEV_DRIVER : PS_OPEV_RUNTIME,
                                 .has_pid_tid = 1, .has_corr = 1 };
        struct ps_op_flow f = { .id = e.corr, .pid = e.pid, .tid = e.tid, .is_start = 1, .has_pid_tid = 1 };
        e.name = ps_op_trace_intern(t, s, api_name_len(s));
        if (e.name == PS_NONE || ps_op_trace_add_event(t, &e) < 0 || ps_op_trace_add_flow(t, &f) < 0)
            return -ENOMEM;
    }
    return 0;
}

static int add_gpu(struct ps_op_trace *t, const struct ps_model *m, uint32_t *uid)
{
    static const uint8_t cat[] = { PS_OPEV_KERNEL, PS_OPEV_MEMCPY, PS_OPEV_MEMSET };
    for (size_t i = 0; i < m->gpu.n; i++) {
        struct ps_gpu_op g = ps_model_gpu(m, i);
        if (g.kind > PS_GPU_MEMSET || g.launch == PS_NONE)
            continue;   /* synchronisations, and work with no launch in the trace (TraceLens links neither) */
        /* one pseudo pid / tid per stream, as Kineto gives each device and stream its own */
        struct ps_op_event e = { .ts_us = (double)g.start_ns / 1e3, .dur_us = (double)(g.end_ns - g.start_ns) / 1e3,
                                 .pid = -1 - (int64_t)g.stream, .tid = g.stream, .corr = (int64_t)g.launch + 1,
                                 .stream = g.stream, .uid = (*uid)++, .args = PS_NONE, .cat = cat[g.kind],
                                 .has_pid_tid = 1, .has_corr = 1, .has_stream = 1 };
        struct ps_op_flow f = { .id = e.corr, .pid = e.pid, .tid = e.tid, .has_pid_tid = 1 };
        e.name = ps_op_trace_intern(t, ps_model_str(m, g.name), strlen(ps_model_str(m, g.name)));
        if (e.name == PS_NONE || ps_op_trace_add_event(t, &e) < 0 || ps_op_trace_add_flow(t, &f) < 0)
            return -ENOMEM;
    }
    return 0;
}

int ps_op_perf_trace_compute(const struct ps_model *m, struct ps_op_trace **out)
{
    struct ps_op_trace *t = ps_op_trace_new();
    uint32_t uid = 0;
    int rc = t ? 0 : -ENOMEM, nops = 0, added;
    *out = NULL;
    for (size_t i = 0; i < m->ranges.n && rc == 0; i++) {
        if ((rc = add_range(t, m, &m->ranges.v[i], uid, &added)) == 0 && added)
            nops++, uid++;
    }
    if (rc < 0 || !nops)
        goto out;
    if ((rc = add_calls(t, m, &uid)) < 0 || (rc = add_gpu(t, m, &uid)) < 0)
        goto out;
    *out = t;
    return 0;
out:
    ps_op_trace_free(t);
    return rc;
}

int ps_op_perf_suggest_shapes(struct ps_report *r)
{
    const char *mode = ps_report_meta(r, "python_hooks");
    if (!mode || (strcmp(mode, "default") != 0 && strcmp(mode, "modules") != 0) || r->m->gpu.n == 0)
        return 0;
    char *text = strdup("No operator has FLOPs, bytes or achieved TFLOP/s: the Python hook ran without per-op "
                        "shapes. Record with --python-hooks=shapes for the operator model (a range per ATen op with "
                        "its inputs' sizes and dtypes; docs/op-perf-roofline.md).");
    struct ps_message *v = text ? realloc(r->msgs, (r->nmsgs + 1) * sizeof *v) : NULL;
    if (!v) {
        free(text);
        return -ENOMEM;
    }
    r->msgs = v;
    r->msgs[r->nmsgs++] = (struct ps_message){ .level = PS_MSG_NOTE, .code = "no_op_shapes", .text = text };
    return 0;
}
