/* How much of the run the analysed steps cover, and what lies outside them (docs/report.md "Step coverage"): a
 * trace whose step ranges leave out part of the loop (ProfilerStep ranges around the model, the DataLoader's
 * enumerate(DataLoader) ranges between them) gets a verdict about the steps alone, and the report must say so. */
#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* The part of [s, e) inside the steps' windows (sorted, disjoint: steps.c starts each at the previous end). */
static int64_t in_steps(const struct ps_report *r, int64_t s, int64_t e)
{
    size_t lo = 0, hi = r->nsteps;
    while (lo < hi) {   /* the first step ending after s */
        size_t mid = lo + (hi - lo) / 2;
        if (r->steps[mid].end_ns <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t ns = 0;
    for (size_t i = lo; i < r->nsteps && r->steps[i].start_ns < e; i++)
        ns += ps_overlap(r->steps[i].start_ns, r->steps[i].end_ns, s, e);
    return ns;
}

/* A range the program's host code ran in: NVTX ranges, user annotations, operators (not python_function events,
 * marks or the device's annotations), and not a step range. */
static int host_range(const struct ps_range *g, struct ps_names *names)
{
    return (g->kind == PS_RANGE_NVTX_PUSHPOP || g->kind == PS_RANGE_NVTX_STARTEND || g->kind == PS_RANGE_USER_ANNOTATION ||
            g->kind == PS_RANGE_CPU_OP) && !(ps_names_flags(names, g->name) & PS_NAME_STEP);
}

int ps_steps_coverage_compute(struct ps_report *r, struct ps_names *names)
{
    struct ps_step_coverage *c = &r->coverage;
    *c = (struct ps_step_coverage){ .top_name = PS_NONE };
    if (r->whole_run || r->nsteps == 0 || r->run_end_ns <= r->run_start_ns)
        return 0;
    c->computed = 1;
    c->run_ns = r->run_end_ns - r->run_start_ns;
    for (size_t i = 0; i < r->nsteps; i++)
        c->steps_ns += ps_overlap(r->steps[i].start_ns, r->steps[i].end_ns, r->run_start_ns, r->run_end_ns);
    c->before_ns = r->steps[0].start_ns > r->run_start_ns ? r->steps[0].start_ns - r->run_start_ns : 0;
    c->after_ns = r->run_end_ns > r->steps[r->nsteps - 1].end_ns ? r->run_end_ns - r->steps[r->nsteps - 1].end_ns : 0;
    struct ps_run data = { 0 };
    int64_t ds, de;
    const struct ps_view *v = r->scope;
    for (size_t i = 0; i < v->nranges; i++) {   /* in start order: data ranges' union piece by piece */
        const struct ps_range *g = ps_view_range(v, i);
        if (!host_range(g, names) || g->end_ns <= g->start_ns)
            continue;
        int64_t out = g->end_ns - g->start_ns - in_steps(r, g->start_ns, g->end_ns);
        if (out > c->top_ns) {
            c->top_ns = out;
            c->top_name = g->name;
        }
        if ((ps_names_flags(names, g->name) & PS_NAME_DATA) && ps_run_add(&data, g->start_ns, g->end_ns, &ds, &de))
            c->data_ns += de - ds - in_steps(r, ds, de);
    }
    if (ps_run_flush(&data, &ds, &de))
        c->data_ns += de - ds - in_steps(r, ds, de);
    return 0;
}
