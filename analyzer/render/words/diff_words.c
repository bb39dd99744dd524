/* `perfscope diff`'s sentences as text and Markdown word them (words.h): the change of the average step, the
 * step-to-step spread that decides whether it counts (analyses/diff.h), and the runs' file names. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/diff.h"
#include "words/words.h"

void ps_words_diff_step_change(FILE *f, const struct ps_diff *d)
{
    double rel = d->before.avg_ns > 0 ? 100.0 * (double)d->delta_ns / (double)d->before.avg_ns : 0;
    fprintf(f, "%.3f ms %s (%+.1f %%)", fabs((double)d->delta_ns / 1e6), d->delta_ns <= 0 ? "faster" : "slower", rel);
}

void ps_words_diff_spread(FILE *f, const struct ps_diff *d)
{
    if (isnan(d->se_ns))
        fprintf(f, "step-to-step spread unknown (a run with one step): changes under %.0f %% are not counted",
                100 * d->min_change);
    else
        fprintf(f, "step-to-step spread: sd %.3f ms before, %.3f ms after; the change counts beyond %.3f ms "
                   "(2 standard errors, at least %.0f %%)",
                d->before.sd_ns / 1e6, d->after.sd_ns / 1e6,
                fmax(2 * d->se_ns, d->min_change * (double)d->before.avg_ns) / 1e6, 100 * d->min_change);
}

int ps_words_diff_host_only(const struct ps_diff *d)
{
    return !d->before.has_gpu && !d->after.has_gpu;
}

const char *ps_words_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}
