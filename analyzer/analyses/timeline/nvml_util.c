/* GPU utilisation over time (perfscope traces recorded with an NVIDIA driver): per device, the mean, minimum and
 * maximum of NVML's utilisation samples (PERFSCOPE_GPU_SAMPLES.utilGpuPercent: % of the driver's sample period
 * with a kernel running, not SM occupancy) and their means in PS_NVML_UTIL_BUCKETS equal slices of the sampled span,
 * for a timeline. A device without samples gets no entry. Whole run (the samples inside the analysed view's window
 * when the report is of a time slice: ps_report_compute over ps_view_starting), not per step: the samples are the driver's own
 * averages over periods that do not align with steps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

static int stat_of(struct ps_report *r, int32_t device, struct ps_nvml_util_stat **out)
{
    for (size_t i = 0; i < r->nnvml_util; i++)
        if (r->nvml_util[i].device == device) {
            *out = &r->nvml_util[i];
            return 0;
        }
    struct ps_nvml_util_stat *v = realloc(r->nvml_util, (r->nnvml_util + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    r->nvml_util = v;
    struct ps_nvml_util_stat *s = &v[r->nnvml_util++];
    memset(s, 0, sizeof *s);
    s->device = device;
    s->min_pct = 101;
    s->first_ns = INT64_MAX;
    s->last_ns = INT64_MIN;
    *out = s;
    return 0;
}

/* The sample lies in the analysed view's window [start, end) (unbounded for the whole trace). */
static int in_view(const struct ps_report *r, int64_t t)
{
    return t >= r->all->start_ns && (r->all->end_ns == INT64_MAX || t < r->all->end_ns);
}

static int by_device(const void *a, const void *b)
{
    const struct ps_nvml_util_stat *x = a, *y = b;
    return (x->device > y->device) - (x->device < y->device);
}

int ps_nvml_util_compute(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    double sum[PS_NVML_UTIL_BUCKETS];
    int64_t count[PS_NVML_UTIL_BUCKETS];
    /* pass 1: per device count, extremes, span */
    for (size_t i = 0; i < m->nvml_util.n; i++) {
        const struct ps_nvml_util_sample *g = &m->nvml_util.v[i];
        if (!in_view(r, g->time_ns))
            continue;
        struct ps_nvml_util_stat *s;
        int rc = stat_of(r, g->device, &s);
        if (rc < 0)
            return rc;
        s->samples++;
        s->mean_pct += g->util_pct;
        if (g->util_pct < s->min_pct)
            s->min_pct = g->util_pct;
        if (g->util_pct > s->max_pct)
            s->max_pct = g->util_pct;
        if (g->time_ns < s->first_ns)
            s->first_ns = g->time_ns;
        if (g->time_ns > s->last_ns)
            s->last_ns = g->time_ns;
    }
    if (r->nnvml_util > 1)
        qsort(r->nvml_util, r->nnvml_util, sizeof *r->nvml_util, by_device);
    /* pass 2, per device: bucket means. Bucket of t: (t - first) * B / (span + 1), so the last sample falls in the
     * last bucket and every bucket covers the same span. */
    for (size_t d = 0; d < r->nnvml_util; d++) {
        struct ps_nvml_util_stat *s = &r->nvml_util[d];
        s->mean_pct /= (double)s->samples;
        __int128 span = (__int128)s->last_ns - s->first_ns + 1;
        s->bucket_ns = (int64_t)((span + PS_NVML_UTIL_BUCKETS - 1) / PS_NVML_UTIL_BUCKETS);
        memset(sum, 0, sizeof sum);
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < m->nvml_util.n; i++) {
            const struct ps_nvml_util_sample *g = &m->nvml_util.v[i];
            if (g->device != s->device || !in_view(r, g->time_ns))
                continue;
            int b = (int)(((__int128)g->time_ns - s->first_ns) * PS_NVML_UTIL_BUCKETS / span);
            sum[b] += g->util_pct;
            count[b]++;
        }
        for (int b = 0; b < PS_NVML_UTIL_BUCKETS; b++)
            s->bucket_pct[b] = count[b] ? sum[b] / (double)count[b] : -1;
    }
    return 0;
}
