/* Warm-up steps (docs/report.md "Warm-up steps"): --skip-steps N leaves the first N analysed steps out of every
 * average, the verdict and the findings (the window starts at the first step kept), and the report says when the
 * first step is an outlier: more than twice the median of the others, e.g. DataLoader workers starting, cuDNN
 * autotuning (torch.backends.cudnn.benchmark), the caching allocator's first allocations, lazy module set-up. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"

#define OUTLIER 2.0   /* the first step is an outlier above this multiple of the others' median */

void ps_warmup_skip(struct ps_report *r)
{
    size_t k = r->opts.skip_steps > 0 ? (size_t)r->opts.skip_steps : 0;
    r->warmup.skipped = 0;
    r->warmup.skip_ignored = 0;
    if (!k)
        return;
    if (r->whole_run || r->nsteps <= k) {   /* nothing would be left: analyse them all and say so */
        r->warmup.skip_ignored = 1;
        return;
    }
    memmove(r->steps, r->steps + k, (r->nsteps - k) * sizeof *r->steps);
    r->nsteps -= k;
    r->warmup.skipped = k;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int ps_warmup_compute(struct ps_report *r)
{
    r->warmup.first_outlier = 0;
    r->warmup.first_ns = r->warmup.median_ns = 0;
    if (r->whole_run || r->nsteps < 3)
        return 0;
    size_t n = r->nsteps - 1;
    int64_t *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        d[i] = r->steps[i + 1].end_ns - r->steps[i + 1].start_ns;
    qsort(d, n, sizeof *d, cmp_i64);
    r->warmup.median_ns = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    r->warmup.first_ns = r->steps[0].end_ns - r->steps[0].start_ns;
    r->warmup.first_outlier = (double)r->warmup.first_ns > OUTLIER * (double)r->warmup.median_ns;
    free(d);
    return 0;
}
