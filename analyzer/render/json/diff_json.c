/* `perfscope diff --format json` (docs/diff.md lists the keys): a struct ps_diff through the shared JSON writer
 * (render/json_writer.h: yajl's generator, U+FFFD for bytes that are not UTF-8, null for NaN, shares with 6
 * significant digits as `perfscope report` writes them). Times are integer ns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analyses/diff.h"
#include "render/json_writer.h"
#include "render/render.h"

/* A time in whole ns (a spread or standard error, rounded); NAN: null. */
static void kns(struct ps_jw *w, const char *k, double v)
{
    if (isnan(v) || isinf(v))
        ps_jw_knull(w, k);
    else
        ps_jw_kint(w, k, (int64_t)llround(v));
}

static void json_side(struct ps_jw *w, const char *k, const struct ps_diff_side *s)
{
    ps_jw_key(w, k);
    ps_jw_map_open(w);
    ps_jw_kint(w, "nsteps", (int64_t)s->nsteps);
    ps_jw_kint(w, "dur_ns", s->avg_ns);
    kns(w, "sd_ns", s->sd_ns);
    ps_jw_key(w, "breakdown_ns");
    ps_jw_map_open(w);
    for (int c = 0; c < PS_CAT_N; c++)
        ps_jw_kint(w, ps_cat_key[c], s->cat_ns[c]);
    ps_jw_map_close(w);
    ps_jw_kint(w, "sync_ns", s->sync_ns);
    ps_jw_kstr(w, "bottleneck", ps_bottleneck_name[s->bottleneck]);
    ps_jw_kdouble(w, "share", s->share);
    ps_jw_map_close(w);
}

/* "memory": each memory device's peak allocated and max reserved before and after, and the change of the peak
 * (analyses/diff/memory_diff.c); [] when neither run has memory records. */
static void memory(struct ps_jw *w, const struct ps_diff *d)
{
    ps_jw_key(w, "memory");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->nmemory; i++) {
        const struct ps_diff_memory *m = &d->memory[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "label", m->label);
        ps_jw_kint_or_null(w, "before_peak_allocated_bytes", m->before_peak);
        ps_jw_kint_or_null(w, "after_peak_allocated_bytes", m->after_peak);
        if (m->has_delta)
            ps_jw_kint(w, "delta_bytes", m->delta_bytes);
        else
            ps_jw_knull(w, "delta_bytes");
        ps_jw_kint_or_null(w, "before_peak_reserved_bytes", m->before_reserved);
        ps_jw_kint_or_null(w, "after_peak_reserved_bytes", m->after_reserved);
        ps_jw_kint_or_null(w, "capacity_bytes", m->capacity);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

int ps_render_diff_json(FILE *f, const struct ps_diff_input *in, const struct ps_render_opts *o)
{
    (void)o;   /* JSON has one layout */
    const struct ps_diff *d = in->diff;
    struct ps_jw *w = ps_jw_new(f);
    if (!w)
        return -ENOMEM;
    ps_jw_map_open(w);
    ps_jw_kint(w, "perfscope_diff_version", 1);
    ps_jw_kstr(w, "before_path", in->before_path);
    ps_jw_kstr(w, "after_path", in->after_path);
    ps_jw_kstr(w, "verdict", ps_diff_verdict_name[d->verdict]);
    ps_jw_kint(w, "delta_ns", d->delta_ns);
    ps_jw_kdouble(w, "ratio", d->ratio);
    kns(w, "se_ns", d->se_ns);
    ps_jw_kdouble(w, "min_change", d->min_change);
    json_side(w, "before", &d->before);
    json_side(w, "after", &d->after);
    ps_jw_key(w, "kernels");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->nkernels; i++) {
        const struct ps_diff_kernel *k = &d->kernels[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "name", k->name);
        ps_jw_kstr(w, "change", ps_diff_change_name[k->change]);
        ps_jw_kint(w, "before_count", k->before_count);
        ps_jw_kint(w, "after_count", k->after_count);
        ps_jw_kint(w, "before_ns", k->before_ns);
        ps_jw_kint(w, "after_ns", k->after_ns);
        ps_jw_kint_or_null(w, "before_per_call_ns", k->before_per_call_ns);
        ps_jw_kint_or_null(w, "after_per_call_ns", k->after_per_call_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "copies");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->ncopies; i++) {
        const struct ps_diff_copy *c = &d->copies[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "kind", c->kind);
        ps_jw_kstr(w, "change", ps_diff_change_name[c->change]);
        ps_jw_kint(w, "before_count", c->before_count);
        ps_jw_kint(w, "after_count", c->after_count);
        ps_jw_kint(w, "before_bytes", c->before_bytes);
        ps_jw_kint(w, "after_bytes", c->after_bytes);
        ps_jw_kint(w, "before_ns", c->before_ns);
        ps_jw_kint(w, "after_ns", c->after_ns);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "findings");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->nfindings; i++) {
        ps_jw_map_open(w);
        ps_jw_kstr(w, "rule", d->findings[i].rule);
        ps_jw_kstr(w, "change", d->findings[i].change == PS_CHANGE_ADDED ? "appeared" : "disappeared");
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    memory(w, d);
    ps_jw_map_close(w);
    return ps_jw_free(w) < 0 ? -EIO : 0;
}
