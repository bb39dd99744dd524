/* `perfscope diff`: compare two finished reports (diff.h). Kernels are matched by name string, copies by
 * direction and memory kinds, findings by rule: each side is sorted by its key and the two lists merged. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "analyses/diff.h"
#include "ps_diag.h"

const char *const ps_diff_verdict_name[] = { "no significant change", "improvement", "regression" };
const char *const ps_diff_change_name[] = { "unchanged", "added", "removed", "faster", "slower" };

/* Relative change of time per call (or of bandwidth) from which a kernel or copy is faster / slower. */
#define PS_DIFF_ITEM_CHANGE 0.05

static void side_fill(struct ps_diff_side *s, const struct ps_report *r)
{
    s->nsteps = r->nsteps;
    s->avg_ns = r->avg_dur_ns;
    memcpy(s->cat_ns, r->avg.cat_ns, sizeof s->cat_ns);
    s->sync_ns = r->avg.sync_ns;
    s->bottleneck = r->bottleneck;
    s->share = r->share;
    s->has_gpu = r->has_gpu;
    s->sd_ns = NAN;
    if (r->nsteps < 2)
        return;
    double mean = 0, m2 = 0;   /* Welford: no cancellation on long runs of similar steps */
    for (size_t i = 0; i < r->nsteps; i++) {
        double x = (double)(r->steps[i].end_ns - r->steps[i].start_ns), d = x - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x - mean);
    }
    s->sd_ns = sqrt(m2 / (double)(r->nsteps - 1));
}

/* The name of the first device whose name the trace knows, NULL when none. */
static const char *device_name(const struct ps_report *r)
{
    for (size_t i = 0; i < r->m->devices.n; i++)
        if (r->m->devices.v[i].name != PS_NONE)
            return ps_model_str(r->m, r->m->devices.v[i].name);
    return NULL;
}

/* Is `before` -> `after` (per call or per byte rate, higher = slower) a change of at least PS_DIFF_ITEM_CHANGE? */
static enum ps_diff_change classify(double before, double after)
{
    if (before > 0 && after > before * (1 + PS_DIFF_ITEM_CHANGE))
        return PS_CHANGE_SLOWER;
    if (before > 0 && after < before * (1 - PS_DIFF_ITEM_CHANGE))
        return PS_CHANGE_FASTER;
    return PS_CHANGE_SAME;
}

struct named_kernel {
    const char *name;
    const struct ps_kernel_stat *k;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct named_kernel *)a)->name, ((const struct named_kernel *)b)->name);
}

/* r's kernels by name into *out (caller frees). 0 or -ENOMEM. */
static int sorted_kernels(const struct ps_report *r, struct named_kernel **out)
{
    struct named_kernel *v = malloc((r->nkernels ? r->nkernels : 1) * sizeof *v);
    if (!(*out = v))
        return -ENOMEM;
    for (size_t i = 0; i < r->nkernels; i++) {
        const char *s = ps_model_str(r->m, r->kernels[i].name);
        v[i] = (struct named_kernel){ s ? s : "", &r->kernels[i] };
    }
    qsort(v, r->nkernels, sizeof *v, by_name);
    return 0;
}

static int64_t abs64(int64_t x)
{
    return x < 0 ? -x : x;
}

static int by_delta(const void *a, const void *b)
{
    const struct ps_diff_kernel *x = a, *y = b;
    int64_t dx = abs64(x->after_ns - x->before_ns), dy = abs64(y->after_ns - y->before_ns);
    return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->name, y->name);
}

static int diff_kernels(struct ps_diff *d, const struct ps_report *b, const struct ps_report *a)
{
    struct named_kernel *kb = NULL, *ka = NULL;
    int rc = sorted_kernels(b, &kb);
    if (rc == 0 && (rc = sorted_kernels(a, &ka)) == 0 &&
        !(d->kernels = calloc(b->nkernels + a->nkernels + 1, sizeof *d->kernels)))
        rc = -ENOMEM;
    if (rc < 0) {
        free(kb);
        free(ka);
        return rc;
    }
    size_t i = 0, j = 0;
    while (i < b->nkernels || j < a->nkernels) {
        int c = i == b->nkernels ? 1 : j == a->nkernels ? -1 : strcmp(kb[i].name, ka[j].name);
        struct ps_diff_kernel *k = &d->kernels[d->nkernels++];
        if (c <= 0) {
            k->name = kb[i].name;
            k->before_count = kb[i].k->count;
            k->before_ns = kb[i].k->total_ns;
            i++;
        }
        if (c >= 0) {
            k->name = ka[j].name;
            k->after_count = ka[j].k->count;
            k->after_ns = ka[j].k->total_ns;
            j++;
        }
        k->before_per_call_ns = k->before_count ? (k->before_ns + k->before_count / 2) / k->before_count : -1;
        k->after_per_call_ns = k->after_count ? (k->after_ns + k->after_count / 2) / k->after_count : -1;
        if (!k->before_count)
            k->change = PS_CHANGE_ADDED;
        else if (!k->after_count)
            k->change = PS_CHANGE_REMOVED;
        else
            k->change = classify((double)k->before_ns / (double)k->before_count,
                                 (double)k->after_ns / (double)k->after_count);
    }
    qsort(d->kernels, d->nkernels, sizeof *d->kernels, by_delta);
    free(kb);
    free(ka);
    return 0;
}

static void copy_key(const struct ps_copy_stat *c, char *buf, size_t len)
{
    if (c->kind == PS_GPU_MEMSET)
        snprintf(buf, len, "Memset %s", ps_mem_kind_name(c->dst_kind));
    else
        snprintf(buf, len, "%s %s->%s", ps_copy_kind_name(c), ps_mem_kind_name(c->src_kind),
                 ps_mem_kind_name(c->dst_kind));
}

static struct ps_diff_copy *copy_slot(struct ps_diff *d, const char *key)
{
    for (size_t i = 0; i < d->ncopies; i++)
        if (strcmp(d->copies[i].kind, key) == 0)
            return &d->copies[i];
    struct ps_diff_copy *c = &d->copies[d->ncopies++];
    snprintf(c->kind, sizeof c->kind, "%s", key);
    return c;
}

/* Copy kinds are few (directions x memory kinds): a linear search per row is enough. */
static int diff_copies(struct ps_diff *d, const struct ps_report *b, const struct ps_report *a)
{
    d->copies = calloc(b->ncopies + a->ncopies + 1, sizeof *d->copies);
    if (!d->copies)
        return -ENOMEM;
    char key[48];
    for (size_t i = 0; i < b->ncopies; i++) {
        copy_key(&b->copies[i], key, sizeof key);
        struct ps_diff_copy *c = copy_slot(d, key);
        c->before_count += b->copies[i].count;
        c->before_bytes += b->copies[i].bytes;
        c->before_ns += b->copies[i].total_ns;
    }
    for (size_t i = 0; i < a->ncopies; i++) {
        copy_key(&a->copies[i], key, sizeof key);
        struct ps_diff_copy *c = copy_slot(d, key);
        c->after_count += a->copies[i].count;
        c->after_bytes += a->copies[i].bytes;
        c->after_ns += a->copies[i].total_ns;
    }
    for (size_t i = 0; i < d->ncopies; i++) {
        struct ps_diff_copy *c = &d->copies[i];
        if (!c->before_count)
            c->change = PS_CHANGE_ADDED;
        else if (!c->after_count)
            c->change = PS_CHANGE_REMOVED;
        else if (c->before_bytes > 0 && c->after_bytes > 0)   /* ns per byte: higher is slower */
            c->change = classify((double)c->before_ns / (double)c->before_bytes,
                                 (double)c->after_ns / (double)c->after_bytes);
    }
    return 0;
}

static int has_rule(const struct ps_report *r, const char *rule)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].rule, rule) == 0)
            return 1;
    return 0;
}

static int listed(const struct ps_diff *d, const char *rule)
{
    for (size_t i = 0; i < d->nfindings; i++)
        if (strcmp(d->findings[i].rule, rule) == 0)
            return 1;
    return 0;
}

/* A rule that fires in one run and not in the other; a rule firing several times is listed once. */
static int diff_findings(struct ps_diff *d, const struct ps_report *b, const struct ps_report *a)
{
    d->findings = calloc(b->nfindings + a->nfindings + 1, sizeof *d->findings);
    if (!d->findings)
        return -ENOMEM;
    for (size_t i = 0; i < b->nfindings; i++)
        if (!has_rule(a, b->findings[i].rule) && !listed(d, b->findings[i].rule))
            d->findings[d->nfindings++] = (struct ps_diff_finding){ b->findings[i].rule, PS_CHANGE_REMOVED };
    for (size_t i = 0; i < a->nfindings; i++)
        if (!has_rule(b, a->findings[i].rule) && !listed(d, a->findings[i].rule))
            d->findings[d->nfindings++] = (struct ps_diff_finding){ a->findings[i].rule, PS_CHANGE_ADDED };
    return 0;
}

int ps_diff_compute(struct ps_diff *d, const struct ps_report *before, const struct ps_report *after,
                  char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    const struct ps_report *side[2] = { before, after };
    static const char *const label[2] = { "BEFORE", "AFTER" };
    for (int i = 0; i < 2; i++)
        if (side[i]->whole_run || side[i]->nsteps == 0)
            return ps_err(err, errlen, -EINVAL, "%s has no steps (no range matches --step-range), so there is no "
                          "step time to compare; name its step ranges with --step-range", label[i]);
    if (before->has_gpu != after->has_gpu)
        return ps_err(err, errlen, -EINVAL, "%s has GPU activity and %s has none: their step times are not split "
                      "the same way", label[before->has_gpu ? 0 : 1], label[before->has_gpu ? 1 : 0]);
    const char *gb = device_name(before), *ga = device_name(after);
    if (gb && ga && strcmp(gb, ga) != 0)
        return ps_err(err, errlen, -EINVAL, "the runs used different GPUs (%.100s, %.100s): a change would mix the "
                      "code's and the hardware's", gb, ga);
    side_fill(&d->before, before);
    side_fill(&d->after, after);
    d->delta_ns = d->after.avg_ns - d->before.avg_ns;
    d->ratio = d->before.avg_ns > 0 ? (double)d->after.avg_ns / (double)d->before.avg_ns : NAN;
    d->se_ns = isnan(d->before.sd_ns) || isnan(d->after.sd_ns)
                   ? NAN
                   : sqrt(d->before.sd_ns * d->before.sd_ns / (double)d->before.nsteps +
                          d->after.sd_ns * d->after.sd_ns / (double)d->after.nsteps);
    d->min_change = isnan(d->se_ns) ? 0.05 : 0.01;
    double bound = d->min_change * (double)d->before.avg_ns;
    if (!isnan(d->se_ns) && 2 * d->se_ns > bound)
        bound = 2 * d->se_ns;
    if ((double)abs64(d->delta_ns) > bound)
        d->verdict = d->delta_ns < 0 ? PS_DIFF_IMPROVEMENT : PS_DIFF_REGRESSION;
    int rc;
    if ((rc = diff_kernels(d, before, after)) < 0 || (rc = diff_copies(d, before, after)) < 0 ||
        (rc = diff_findings(d, before, after)) < 0 || (rc = ps_diff_memory(d, before, after)) < 0) {
        ps_diff_fini(d);
        return ps_err(err, errlen, rc, "out of memory");
    }
    return 0;
}

void ps_diff_fini(struct ps_diff *d)
{
    free(d->kernels);
    free(d->copies);
    free(d->findings);
    free(d->memory);
    memset(d, 0, sizeof *d);
}
