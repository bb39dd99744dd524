/* `perfscope diff --format md`: the text diff's figures (text/diff_text.c) in GitHub-flavoured Markdown for a pull
 * request; it only formats a struct ps_diff, names from the traces escaped for table cells. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/diff.h"
#include "md/md_escape.h"
#include "render/render.h"
#include "words/words.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* Each memory device's peaks before and after as a table; nothing when neither run has memory records. */
static void memory(FILE *f, const struct ps_diff *d)
{
    if (!d->nmemory)
        return;
    fputs("\n### GPU memory\n\n| device | peak before | peak after | change | reserved before | reserved after |\n"
          "|---|---:|---:|---:|---:|---:|\n", f);
    for (size_t i = 0; i < d->nmemory; i++) {
        const struct ps_diff_memory *m = &d->memory[i];
        char b[32], a[32], rb[32], ra[32];
        ps_words_bytes(b, sizeof b, m->before_peak);
        ps_words_bytes(a, sizeof a, m->after_peak);
        ps_words_bytes(rb, sizeof rb, m->before_reserved);
        ps_words_bytes(ra, sizeof ra, m->after_reserved);
        fprintf(f, "| %s | %s | %s | ", m->label, b, a);
        if (m->has_delta) {
            char delta[32];
            ps_words_bytes(delta, sizeof delta, m->delta_bytes);
            fprintf(f, "%s%s", m->delta_bytes >= 0 ? "+" : "", delta);
        }
        fprintf(f, " | %s | %s |\n", rb, ra);
    }
}

int ps_render_diff_md(FILE *f, const struct ps_diff_input *in, const struct ps_render_opts *o)
{
    (void)o;
    const struct ps_diff *d = in->diff;
    fprintf(f, "## perfscope diff: %s\n\n", ps_diff_verdict_name[d->verdict]);
    fprintf(f, "The average step is **");
    ps_words_diff_step_change(f, d);
    fprintf(f, "**: %.3f → %.3f ms (before: ", ms(d->before.avg_ns), ms(d->after.avg_ns));
    ps_md_code(f, ps_words_basename(in->before_path));
    fprintf(f, ", %zu steps; after: ", d->before.nsteps);
    ps_md_code(f, ps_words_basename(in->after_path));
    fprintf(f, ", %zu steps).\n", d->after.nsteps);
    ps_words_diff_spread(f, d);
    fprintf(f, ".\n\nBottleneck: **%s** (%.1f %%) → **%s** (%.1f %%)\n\n",
            ps_words_bottleneck_name(d->before.bottleneck, d->before.has_gpu), 100 * d->before.share,
            ps_words_bottleneck_name(d->after.bottleneck, d->after.has_gpu), 100 * d->after.share);
    fprintf(f, "| category | before ms | before %% | after ms | after %% | change ms |\n|---|---:|---:|---:|---:|---:|\n");
    fprintf(f, "| step | %.3f | 100.0 | %.3f | 100.0 | %+.3f |\n", ms(d->before.avg_ns), ms(d->after.avg_ns),
            ms(d->delta_ns));
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, "| %s | %.3f | %.1f | %.3f | %.1f | %+.3f |\n", ps_words_cat_label(c, !ps_words_diff_host_only(d)),
                ms(d->before.cat_ns[c]), pct(d->before.cat_ns[c], d->before.avg_ns), ms(d->after.cat_ns[c]),
                pct(d->after.cat_ns[c], d->after.avg_ns), ms(d->after.cat_ns[c] - d->before.cat_ns[c]));
    fprintf(f, "| (of which sync) | %.3f | %.1f | %.3f | %.1f | %+.3f |\n", ms(d->before.sync_ns),
            pct(d->before.sync_ns, d->before.avg_ns), ms(d->after.sync_ns), pct(d->after.sync_ns, d->after.avg_ns),
            ms(d->after.sync_ns - d->before.sync_ns));
    if (d->nkernels) {
        size_t n = in->top > 0 && (size_t)in->top < d->nkernels ? (size_t)in->top : d->nkernels;
        fprintf(f, "\n### Kernels by change of total time (%zu of %zu)\n\nThe change is per call: faster or slower "
                   "when the time per call moved 5 %% or more; the total can move the other way when the number "
                   "of calls changed.\n\n", n, d->nkernels);
        fprintf(f, "| kernel | change per call | before ms | after ms | change ms | calls before | calls after | "
                   "per call before \u00b5s | per call after \u00b5s |\n"
                   "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        const char **names = calloc(n + 1, sizeof *names);
        if (!names)
            return -ENOMEM;
        for (size_t i = 0; i < n; i++)
            names[i] = d->kernels[i].name;
        for (size_t i = 0; i < n; i++) {
            const struct ps_diff_kernel *k = &d->kernels[i];
            char shown[4 * 80 + 8];   /* distinct among the rows (words.h), then escaped for the cell */
            ps_words_distinct_cut(names, n, i, 80, shown, sizeof shown);
            fputs("| ", f);
            ps_md_cell(f, shown, sizeof shown);
            fprintf(f, " | %s | %.3f | %.3f | %+.3f | %lld | %lld | ", ps_diff_change_name[k->change],
                    ms(k->before_ns), ms(k->after_ns), ms(k->after_ns - k->before_ns), (long long)k->before_count,
                    (long long)k->after_count);
            k->before_per_call_ns >= 0 ? fprintf(f, "%.1f", (double)k->before_per_call_ns / 1e3) : fputs("-", f);
            fputs(" | ", f);
            k->after_per_call_ns >= 0 ? fprintf(f, "%.1f", (double)k->after_per_call_ns / 1e3) : fputs("-", f);
            fputs(" |\n", f);
        }
        free(names);
    }
    if (d->ncopies) {
        fprintf(f, "\n### Copies\n\n| kind | change | before MB | after MB | before ms | after ms |\n"
                   "|---|---|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < d->ncopies; i++) {
            const struct ps_diff_copy *c = &d->copies[i];
            fprintf(f, "| %s | %s | %.1f | %.1f | %.3f | %.3f |\n", c->kind, ps_diff_change_name[c->change],
                    (double)c->before_bytes / 1e6, (double)c->after_bytes / 1e6, ms(c->before_ns), ms(c->after_ns));
        }
    }
    fprintf(f, "\n### Findings\n\n");
    if (!d->nfindings)
        fprintf(f, "The same rules fire in both runs.\n");
    for (size_t i = 0; i < d->nfindings; i++)
        fprintf(f, "- `%s` %s\n", d->findings[i].rule,
                d->findings[i].change == PS_CHANGE_ADDED ? "appeared" : "disappeared");
    memory(f, d);
    return ferror(f) ? -EIO : 0;
}
