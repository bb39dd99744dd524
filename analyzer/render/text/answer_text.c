/* The answer of the text report (docs/report.md "Text report"), the part every run of `perfscope report` prints
 * on its first screen after the steps: the verdict line, where the average step goes, the evidence, what to do,
 * and what the figures leave out. report_text.c puts these together with the detail sections; a section on the
 * verdict's causes slots in after the verdict line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/* The span every figure of the answer is over: the average step, or the run analysed as one window. */
static const char *span_name(const struct ps_report *r)
{
    return r->whole_run ? "the whole run" : "the average step";
}

void ps_text_verdict(FILE *f, const struct ps_report *r, int color)
{
    fputc('\n', f);
    ps_sgr(f, color, PS_SGR_BOLD);
    fputs("Verdict: ", f);
    ps_sgr(f, color, r->bottleneck == PS_BN_UNKNOWN ? PS_SGR_YELLOW : r->bottleneck == PS_BN_KERNEL ? PS_SGR_GREEN
                                                                                                      : PS_SGR_RED);
    fputs(ps_words_bottleneck(r, r->bottleneck), f);
    ps_sgr_end(f, color);
    char detail[512];
    ps_words_verdict_detail(detail, sizeof detail, r);
    fputs(" (", f);
    ps_put_text(f, detail);
    fputs(")\n", f);
}

/* Where the average step goes (the run's one window without steps): the verdict's groups (ps_verdict_classify:
 * group_ns, seen_ns), largest first, in ms and as shares of what they sum to, the shares the verdict line quotes;
 * the work queued before the trace that the verdict leaves out on a line of its own, and the GPU's busy share. */
void ps_text_where_it_goes(FILE *f, const struct ps_report *r)
{
    ps_render_causes_text(f, r);
    if (r->nothing_to_break_down || r->verdict_step_ns <= 0)
        return;
    if (r->verdict_left_out_ns > 0)
        fprintf(f, "  (the verdict leaves out %.3f ms of work queued before the trace, %.1f %% of %s: the GPU ran "
                   "work the trace does not hold)\n", MS(r->verdict_left_out_ns),
                pct(r->verdict_left_out_ns, r->verdict_step_ns), span_name(r));
    if (!isnan(r->gpu_util))
        fprintf(f, "GPU utilisation: %.2f %%%s (the PyTorch profiler's: busy time over the window)\n",
                100.0 * r->gpu_util, ps_words_util_span(r));
}

void ps_text_evidence(FILE *f, const struct ps_report *r)
{
    if (r->nevidence)
        fprintf(f, "Evidence (rows inside %s; time summed over rows, overlaps counted twice):\n",
                r->whole_run ? "the run" : "the analysed steps");
    for (size_t i = 0; i < r->nevidence; i++) {
        const struct ps_evidence *e = &r->evidence[i];
        fprintf(f, "  %-6s %7lld x  %10.3f ms  ", e->kind, (long long)e->count, MS(e->total_ns));
        if (!strcmp(e->kind, "range"))
            ps_text_base_name(f, ps_words_name(r, e->name, ""));
        else
            ps_put_name(f, ps_words_name(r, e->name, ""), 0);
        fputc('\n', f);
    }
}

#define FIXES_SHOWN 3   /* the answer's fixes: the verdict's and the two costliest findings' */

/* The fixes with their gains: the first FIXES_SHOWN, all of them with --sections findings. */
void ps_text_what_to_do(FILE *f, const struct ps_report *r, int color, unsigned sec)
{
    size_t n = sec & PS_TEXT_FINDINGS || r->nrecs <= FIXES_SHOWN ? r->nrecs : FIXES_SHOWN;
    if (r->nrecs) {
        ps_sgr(f, color, PS_SGR_BOLD);
        fprintf(f, "What to do:");
        ps_sgr_end(f, color);
        fputc('\n', f);
    }
    for (size_t i = 0; i < n; i++) {   /* a fix may quote names from the trace */
        fputs("  - ", f);
        ps_put_text(f, r->recs[i]);
        fputc('\n', f);
    }
    if (n < r->nrecs)
        fprintf(f, "  (%zu more fix%s, from smaller findings: --sections findings)\n", r->nrecs - n,
                r->nrecs - n == 1 ? "" : "es");
}

/* What the answer's figures leave out or count apart: warm-up, CUDA-graph replays, work queued before the trace
 * (words/setup_words.c). */
void ps_text_scope(FILE *f, const struct ps_report *r)
{
    struct ps_words_lines l = { .n = 0 };
    ps_words_setup_lines(&l, r);
    for (size_t i = 0; i < l.n; i++) {
        fputc('\n', f);
        ps_put_text(f, l.v[i]);
        fputc('\n', f);
    }
}

