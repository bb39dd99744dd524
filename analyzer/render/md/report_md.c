/* `perfscope report --format md`: GitHub-flavoured Markdown to paste into a pull request or an issue — the
 * verdict and what to do first, then the steps (at most 20 rows), the average step, top kernels, copies,
 * findings, and the notes. Every name from the trace is escaped so it shows literally and cannot break a
 * table or inject markup. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/ranks.h"
#include "md/md_escape.h"
#include "md/md_sections.h"
#include "render/render.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)

static void share_cell(FILE *f, int64_t part, int64_t whole)
{
    if (whole > 0)
        fprintf(f, " %.1f |", 100.0 * (double)part / (double)whole);
    else
        fputs(" N/A |", f);
}

static void header(FILE *f, const struct ps_report *r)
{
    fputs("## perfscope report: ", f);
    ps_md_name(f, r->trace.path);
    fprintf(f, " (%s trace)\n\n", r->trace.format);
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level == PS_MSG_NOTE)
            continue;
        fprintf(f, "> **%s:** ", g->level == PS_MSG_NOTICE ? "Note" : "Warning");
        ps_md_prose(f, g->text);
        fputs("\n\n", f);
    }
}

static void verdict(FILE *f, const struct ps_report *r)
{
    char detail[512];
    ps_words_verdict_detail(detail, sizeof detail, r);
    fprintf(f, "**Verdict: %s** — ", ps_words_bottleneck(r, r->bottleneck));
    ps_md_prose(f, detail);
    if (!isnan(r->gpu_util))
        fprintf(f, "; GPU utilisation %.2f %%%s", 100.0 * r->gpu_util, ps_words_util_span(r));
    fputs(".\n\n", f);
    const struct ps_message *nothing = ps_report_message(r, "nothing_to_break_down");
    if (nothing) {
        ps_md_prose(f, nothing->text);
        fputs("\n\n", f);
    }
    if (r->nrecs) {
        fputs("**What to do**\n\n", f);
        for (size_t i = 0; i < r->nrecs; i++) {
            fputs("- ", f);
            ps_md_prose(f, r->recs[i]);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (r->nevidence) {
        fputs("**Evidence** (rows inside the analysed steps; time summed over rows)\n\n"
              "| kind | count | total ms | name |\n|---|---:|---:|---|\n", f);
        for (size_t i = 0; i < r->nevidence; i++) {
            const struct ps_evidence *e = &r->evidence[i];
            const char *name = ps_words_name(r, e->name, "");
            fprintf(f, "| %s | %lld | %.3f | ", e->kind, (long long)e->count, MS(e->total_ns));
            ps_md_text(f, name, !strcmp(e->kind, "range") ? ps_names_base_len(name) : strlen(name));
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
}

/* The verdict's groups (analyses/verdict.h), as shares of what they sum to. */
static void group_cells(FILE *f, const int64_t *group_ns, int64_t seen_ns)
{
    for (int i = 0; i < PS_BN_UNKNOWN; i++)
        share_cell(f, group_ns[i], seen_ns);
}

static void steps(FILE *f, const struct ps_report *r)
{
    if (r->nothing_to_break_down)
        return;
    fputs("### Steps\n\n", f);
    if (r->whole_run) {
        ps_md_prose(f, ps_report_message(r, "no_steps") ? ps_report_message(r, "no_steps")->text : "No steps.");
        fputs("\n\n", f);
    } else {
        unsigned char *show = malloc(r->nsteps);
        size_t shown = show ? ps_words_steps_shown(show, r) : 0, slowest = ps_words_slowest_step(r);
        fprintf(f, "%zu steps analysed (of %zu step ranges found), process %u; shares in %% of each step, in the "
                   "verdict's groups (Where the step goes, grouped: docs/report.md \"Verdict\").\n\n",
                r->nsteps, r->step_ranges_found, r->pid);
        fprintf(f, "| # | step | duration ms | %s %% | data %% | memcpy %% | comm %% | sync %% | host %% | waiting %% | "
                   "verdict |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
                ps_words_bottleneck_name(PS_BN_KERNEL, r->has_gpu));
        for (size_t i = 0; i < r->nsteps && show; i++) {
            if (!show[i])
                continue;
            const struct ps_step *s = &r->steps[i];
            char made_up[32];
            const char *name = ps_words_step_name(made_up, sizeof made_up, r, i);
            fprintf(f, "| %zu | ", i + 1);
            ps_md_text(f, name, ps_names_base_len(name));
            fprintf(f, " | %.3f |", MS(s->end_ns - s->start_ns));
            group_cells(f, s->group_ns, s->seen_ns);
            fprintf(f, " %s%s |\n", ps_words_bottleneck(r, s->bottleneck), i == slowest ? " (slowest)" : "");
        }
        fprintf(f, "| | **average** | %.3f |", MS(r->avg_dur_ns));
        group_cells(f, r->avg.group_ns, r->avg.seen_ns);
        fprintf(f, " %s |\n\n", ps_words_bottleneck(r, r->bottleneck));
        if (shown < r->nsteps)
            fprintf(f, "%zu more steps: all in `--format json`.\n\n", r->nsteps - shown);
        free(show);
    }
    fprintf(f, "**%s** (%.3f ms) in the PyTorch profiler's categories\n\n| category | ms | share %% |\n"
               "|---|---:|---:|\n", r->whole_run ? "The run as one window" : "Average step", MS(r->avg_dur_ns));
    for (int c = 0; c < PS_CAT_N; c++) {
        fprintf(f, "| %s | %.3f |", ps_words_cat_label(c, r->has_gpu),
                MS(r->avg.cat_ns[c]));
        share_cell(f, r->avg.cat_ns[c], r->avg_dur_ns);
        fputc('\n', f);
    }
    fprintf(f, "| (of which sync) | %.3f |", MS(r->avg.sync_ns));
    share_cell(f, r->avg.sync_ns, r->avg_dur_ns);
    fputs("\n\n", f);
}

static void kernels_and_copies(FILE *f, const struct ps_report *r)
{
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    if (top) {
        fprintf(f, "### Top kernels\n\nTop %zu of %zu kernel names by total time.\n\n"
                   "| count | total ms | avg ms | median ms | min ms | max ms | kernel |\n"
                   "|---:|---:|---:|---:|---:|---:|---|\n", top, r->nkernels);
        for (size_t i = 0; i < top; i++) {
            const struct ps_kernel_stat *k = &r->kernels[i];
            fprintf(f, "| %lld | %.3f | %.3f | %.3f | %.3f | %.3f | ", (long long)k->count, MS(k->total_ns),
                    MS(k->total_ns / k->count), MS(k->median_ns), MS(k->min_ns), MS(k->max_ns));
            ps_md_name(f, ps_words_name(r, k->name, ""));
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
    if (r->ncopies) {
        fputs("### Copies and memsets\n\n| kind | from | to | count | MB | ms | GB/s |\n"
              "|---|---|---|---:|---:|---:|---:|\n", f);
        for (size_t i = 0; i < r->ncopies; i++) {
            const struct ps_copy_stat *c = &r->copies[i];
            fprintf(f, "| %s | %s | %s | %lld | %.3f | %.3f | ", ps_copy_kind_name(c),
                    ps_copy_src_mem_name(c) ? ps_copy_src_mem_name(c) : "-", ps_mem_kind_name(c->dst_kind),
                    (long long)c->count, (double)c->bytes / 1e6, MS(c->total_ns));
            c->total_ns > 0 ? fprintf(f, "%.2f |\n", (double)c->bytes / (double)c->total_ns) : fputs("N/A |\n", f);
        }
        fputc('\n', f);
    }
}

static void findings(FILE *f, const struct ps_report *r)
{
    if (!r->nfindings)
        return;
    fputs("### Findings\n\n", f);
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fprintf(f, "- **%s** `%s`: ", g->severity, g->rule);
        ps_md_prose(f, g->summary);
        fputc('\n', f);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            if (w->start_ns >= 0)
                fprintf(f, "  - at %.3f ms: %.3f ms", MS(w->start_ns - r->run_start_ns), MS(w->dur_ns));
            else
                fprintf(f, "  - %lld x: %.3f ms", (long long)w->count, MS(w->dur_ns));
            if (w->bytes >= 0)
                fprintf(f, ", %.3f MB", (double)w->bytes / 1e6);
            fputs(", ", f);
            ps_md_name(f, ps_words_row_name(r, g, w));
            fputc('\n', f);
        }
    }
    fputc('\n', f);
}

static void ranks(FILE *f, const struct ps_report *r)
{
    if (ps_render_process_ranks_md(f, r) || r->nranks < 2)
        return;
    fprintf(f, "### Ranks\n\n%zu processes hold steps (rank = order of pid); the average step of each, %% in the "
               "verdict's groups.\n\n| rank | pid | steps | duration ms | %s %% | data %% | memcpy %% | comm %% | "
               "sync %% | host %% | waiting %% | verdict |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
            r->nranks, ps_words_bottleneck_name(PS_BN_KERNEL, r->has_gpu));
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        fprintf(f, "| %zu | %u | %zu | %.3f |", i, k->pid, k->nsteps, MS(k->avg_dur_ns));
        group_cells(f, k->group_ns, k->seen_ns);
        fprintf(f, " %s |\n", ps_words_bottleneck(r, k->bottleneck));
    }
    fputc('\n', f);
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        fprintf(f, "- Straggler: rank %zu (pid %u) is %.1f %% slower than the median rank, most of it in %s\n",
                g->rank, g->pid, 100.0 * g->slower_by, ps_words_cat_label(g->category, r->has_gpu));
    }
    if (r->nstragglers)
        fputc('\n', f);
}

/* The run's facts and the notes, last: what a reader checks after the numbers. */
static void run_and_notes(FILE *f, const struct ps_report *r)
{
    const struct ps_run_facts *x = &r->facts;
    char line[256];
    ps_words_run_line(line, sizeof line, r);
    fprintf(f, "### Run\n\n- Run: %s\n", line);
    const char *const vals[] = { x->command, x->host, x->started }, *const labels[] = { "Command", "Host", "Started" };
    for (size_t i = 0; i < 3; i++)
        if (vals[i]) {
            fprintf(f, "- %s: ", labels[i]);
            ps_md_name(f, *vals[i] ? vals[i] : "unknown");
            fputc('\n', f);
        }
    if (x->program_ns >= 0)
        fprintf(f, "- Program ran: %.3f s\n", (double)x->program_ns / 1e9);
    if (x->exit_status[0]) {
        fputs("- Exit status: ", f);
        ps_md_name(f, x->exit_status);
        fputc('\n', f);
    }
    fputc('\n', f);
    size_t notes = 0;
    for (size_t i = 0; i < r->nmsgs; i++) {
        const struct ps_message *g = &r->msgs[i];
        if (g->level != PS_MSG_NOTE || !strcmp(g->code, "nothing_to_break_down") || !strcmp(g->code, "no_steps"))
            continue;
        fputs(notes++ ? "- " : "### Notes\n\n- ", f);
        ps_md_prose(f, g->text);
        fputc('\n', f);
    }
    if (notes)
        fputc('\n', f);
}

int ps_render_md(FILE *f, const struct ps_report *r, const struct ps_render_opts *o)
{
    (void)o;
    header(f, r);
    verdict(f, r);
    ps_render_causes_md(f, r);
    steps(f, r);
    ps_render_op_efficiency_md(f, r);
    kernels_and_copies(f, r);
    findings(f, r);
    ps_render_memory_md(f, r);
    ps_render_setup_md(f, r);
    ranks(f, r);
    run_and_notes(f, r);
    return ferror(f) ? -EIO : 0;
}
