/* `perfscope diff` as text: the verdict and the average step before and after, each category, the kernels and
 * copies that changed, the findings that appeared or disappeared, and memory peaks; it only formats a struct
 * ps_diff, with names from the traces escaped for the terminal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/diff.h"
#include "ps_text_escape.h"
#include "render/render.h"
#include "text/text_style.h"
#include "words/words.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* The kernel rows: the numbers (the change per call, total time before, after and its change, calls, time per
 * call), then the name on a line of its own, cut so that no two rows shown look alike (ps_words_distinct_cut). */
static int kernel_table(FILE *f, const struct ps_diff *d, size_t n)
{
    enum { NAME_COLS = PS_TEXT_WIDTH - 4 };
    char **esc = calloc(n + 1, sizeof *esc);
    if (!esc)
        return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {   /* escaped first: the cut counts the characters shown */
        size_t cap = 4 * strlen(d->kernels[i].name) + 1;
        if (!(esc[i] = malloc(cap)))
            rc = -ENOMEM;
        else
            ps_text_escape(d->kernels[i].name, esc[i], cap, NULL);
    }
    fprintf(f, "            %-33s%-19s%s\n", "total time (ms)", "calls", "time per call (\u00b5s)");
    fprintf(f, "  %-9s %10s %10s %10s %9s %8s %11s %10s\n", "per call", "before", "after", "change", "before",
            "after", "before", "after");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct ps_diff_kernel *k = &d->kernels[i];
        char pb[24] = "-", pa[24] = "-", shown[4 * NAME_COLS + 8];
        if (k->before_per_call_ns >= 0)
            snprintf(pb, sizeof pb, "%.1f", (double)k->before_per_call_ns / 1e3);
        if (k->after_per_call_ns >= 0)
            snprintf(pa, sizeof pa, "%.1f", (double)k->after_per_call_ns / 1e3);
        fprintf(f, "  %-9s %10.3f %10.3f %+10.3f %9lld %8lld %11s %10s\n", ps_diff_change_name[k->change],
                ms(k->before_ns), ms(k->after_ns), ms(k->after_ns - k->before_ns), (long long)k->before_count,
                (long long)k->after_count, pb, pa);
        ps_words_distinct_cut((const char *const *)esc, n, i, NAME_COLS, shown, sizeof shown);
        fprintf(f, "    %s\n", shown);
    }
    for (size_t i = 0; i < n; i++)
        free(esc[i]);
    free(esc);
    return rc;
}

/* One memory device: peak allocated before -> after (its change), max reserved, the capacity when known. */
static void memory_line(FILE *f, const struct ps_diff_memory *m)
{
    char b[32], a[32], rb[32], ra[32];
    ps_words_bytes(b, sizeof b, m->before_peak);
    ps_words_bytes(a, sizeof a, m->after_peak);
    ps_words_bytes(rb, sizeof rb, m->before_reserved);
    ps_words_bytes(ra, sizeof ra, m->after_reserved);
    fprintf(f, "  %s: peak allocated %s -> %s", m->label, b, a);
    if (m->has_delta) {
        char delta[32];
        ps_words_bytes(delta, sizeof delta, m->delta_bytes);
        fprintf(f, " (%s%s)", m->delta_bytes >= 0 ? "+" : "", delta);
    }
    fprintf(f, "; max reserved %s -> %s", rb, ra);
    if (m->capacity > 0)
        fprintf(f, "; capacity %.2f GiB", (double)m->capacity / (1024.0 * 1024.0 * 1024.0));
    fputc('\n', f);
}

/* Each memory device's peaks before and after; nothing when neither run has memory records. */
static void memory(FILE *f, const struct ps_diff *d)
{
    if (!d->nmemory)
        return;
    fputs("\nGPU memory (peak before -> after):\n", f);
    for (size_t i = 0; i < d->nmemory; i++)
        memory_line(f, &d->memory[i]);
}

static int diff_body(FILE *f, const struct ps_diff_input *in, const struct ps_render_opts *o)
{
    const struct ps_diff *d = in->diff;   /* colour on the verdict alone */
    int rc;
    fputs("perfscope diff\n  before: ", f);
    ps_put_text(f, ps_words_basename(in->before_path));   /* a file name can hold any byte but '/' and NUL */
    fprintf(f, " (%zu steps)\n  after:  ", d->before.nsteps);
    ps_put_text(f, ps_words_basename(in->after_path));
    fprintf(f, " (%zu steps)\n\n", d->after.nsteps);
    fputs("Verdict: ", f);
    ps_sgr(f, o->color && d->verdict != PS_DIFF_NO_CHANGE,
           d->verdict == PS_DIFF_IMPROVEMENT ? PS_SGR_GREEN : PS_SGR_RED);
    fputs(ps_diff_verdict_name[d->verdict], f);
    ps_sgr_end(f, o->color && d->verdict != PS_DIFF_NO_CHANGE);
    fputs(": the average step is ", f);
    ps_words_diff_step_change(f, d);
    fprintf(f, ", %.3f -> %.3f ms\n  ", ms(d->before.avg_ns), ms(d->after.avg_ns));
    ps_words_diff_spread(f, d);
    fprintf(f, "\nBottleneck: %s (%.1f %%) -> %s (%.1f %%)\n\n",
            ps_words_bottleneck_name(d->before.bottleneck, d->before.has_gpu), 100 * d->before.share,
            ps_words_bottleneck_name(d->after.bottleneck, d->after.has_gpu), 100 * d->after.share);
    fprintf(f, "%-18s%14s%21s%21s\n", "Average step", "before", "after", "change");
    fprintf(f, "  %-15s %11.3f ms       %11.3f ms       %+11.3f ms\n", "step", ms(d->before.avg_ns),
            ms(d->after.avg_ns), ms(d->delta_ns));
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, "  %-15s %11.3f ms %5.1f%% %11.3f ms %5.1f%% %+11.3f ms\n",
                ps_words_cat_label(c, !ps_words_diff_host_only(d)), ms(d->before.cat_ns[c]),
                pct(d->before.cat_ns[c], d->before.avg_ns), ms(d->after.cat_ns[c]),
                pct(d->after.cat_ns[c], d->after.avg_ns), ms(d->after.cat_ns[c] - d->before.cat_ns[c]));
    fprintf(f, "  %-15s %11.3f ms %5.1f%% %11.3f ms %5.1f%% %+11.3f ms\n", "(of which sync)", ms(d->before.sync_ns),
            pct(d->before.sync_ns, d->before.avg_ns), ms(d->after.sync_ns), pct(d->after.sync_ns, d->after.avg_ns),
            ms(d->after.sync_ns - d->before.sync_ns));
    if (d->nkernels) {
        size_t n = in->top > 0 && (size_t)in->top < d->nkernels ? (size_t)in->top : d->nkernels;
        fprintf(f, "\nKernels by change of total time (%zu of %zu). The change is per call: faster or slower when the "
                   "time per call moved 5 %% or more; the total can move the other way when the number of calls "
                   "changed.\n", n, d->nkernels);
        if ((rc = kernel_table(f, d, n)) < 0)
            return rc;
    }
    if (d->ncopies) {
        fprintf(f, "\nCopies (faster/slower: bandwidth moved 5 %% or more)\n  %-28s %-9s %9s %9s %11s %10s\n",
                "kind", "change", "before MB", "after MB", "before ms", "after ms");
        for (size_t i = 0; i < d->ncopies; i++) {
            const struct ps_diff_copy *c = &d->copies[i];
            fprintf(f, "  %-28s %-9s %9.1f %9.1f %11.3f %10.3f\n", c->kind, ps_diff_change_name[c->change],
                    (double)c->before_bytes / 1e6, (double)c->after_bytes / 1e6, ms(c->before_ns), ms(c->after_ns));
        }
    }
    fprintf(f, "\nFindings:");
    if (!d->nfindings)
        fprintf(f, " the same rules fire in both runs");
    for (size_t i = 0; i < d->nfindings; i++)
        fprintf(f, "%s %s %s", i ? ";" : "", d->findings[i].rule,
                d->findings[i].change == PS_CHANGE_ADDED ? "appeared" : "disappeared");
    fputc('\n', f);
    memory(f, d);
    return ferror(f) ? -EIO : 0;
}

int ps_render_diff_text(FILE *out, const struct ps_diff_input *in, const struct ps_render_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);   /* laid out first, then its sentences folded to 100 columns */
    if (!f)
        return -ENOMEM;
    int rc = diff_body(f, in, o);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || !buf) {
        free(buf);
        return rc < 0 ? rc : -ENOMEM;
    }
    if (rc == 0)
        rc = ps_text_fold(out, buf, len, o->width);
    free(buf);
    return rc;
}
