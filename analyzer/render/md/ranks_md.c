/* `perfscope report --format md FILE FILE...`: the text report's several-rank tables (text/ranks_text.c) in
 * GitHub-flavoured Markdown, names from the traces escaped (md_escape.h); and the same sections in the single-trace
 * report when the trace's processes are its ranks (ps_report.process_ranks). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analyses/ranks.h"
#include "md/md_escape.h"
#include "md/md_sections.h"
#include "render/render.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define TITLE "Ranks in this trace, each a process"

/* The straggler the others wait for and the rule that named it (docs/distributed.md). */
static void straggler(FILE *f, const struct ps_multirank *mr)
{
    char buf[PS_WORDS_STRAGGLER_LEN];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "Straggler rule: %s.\n\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fputs("- Straggler (waited for): ", f);
    ps_md_prose(f, buf);
    fprintf(f, "\n\nStraggler rule: %s.\n\n", ps_words_straggler_rule_wait);
}

/* The several-rank report's sections under the heading `title`: the per-rank table, stragglers, the straggler the
 * others wait for, and collectives. 0 or -EIO. */
static int ranks_body(FILE *f, const struct ps_multirank *mr, const char *title)
{
    int gpu = ps_words_ranks_have_gpu(mr);
    char lab[32];
    fprintf(f, "### %s\n\nStep averages in ms; rank from: metadata, process_info, file_name or order.\n\n"
            "| rank | from | steps | step |", title);
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %s |", ps_words_ranks_cat_label(c, gpu));
    fputs(" verdict | share | overlap | file |\n|---|---|---:|---:|", f);
    for (int c = 0; c < PS_CAT_N; c++)
        fputs("---:|", f);
    fputs("---|---:|---:|---|\n", f);
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        ps_words_rank_label(lab, sizeof lab, r);
        fprintf(f, "| %s | %s | %zu | %.3f |", lab, r->launcher_ranks >= 2 ? "-" : ps_rank_source_name[r->rank_source],
                r->stat.nsteps, MS(r->stat.avg_dur_ns));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %.3f |", MS(r->stat.cat_ns[c]));
        fprintf(f, " %s |", ps_words_bottleneck_name(r->stat.bottleneck, r->has_gpu));
        if (r->stat.bottleneck == PS_BN_UNKNOWN)
            fputs(" - |", f);
        else
            fprintf(f, " %.1f %% |", 100.0 * r->stat.share);
        if (isnan(r->comm_comp_overlap))
            fputs(" - | ", f);
        else
            fprintf(f, " %.2f %% | ", 100.0 * r->comm_comp_overlap);
        ps_md_name(f, r->path);
        fprintf(f, "%s%s |\n", r->whole_run ? " (no steps: whole run)" : "",
                r->recording_complete == 0 ? " (recording incomplete)" : "");
    }
    fputc('\n', f);
    if (mr->nstragglers == 0)
        fputs("Stragglers: none (no rank's average step is more than 5 % slower than the median rank's)\n\n", f);
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        ps_words_rank_label(lab, sizeof lab, r);
        fprintf(f, "- Straggler: rank %s (", lab);
        ps_md_name(f, r->path);
        fprintf(f, ") is %.1f %% slower than the median rank, most of it in %s\n", 100.0 * g->slower_by,
                ps_words_ranks_cat_label(g->category, r->has_gpu));
    }
    if (mr->nstragglers)
        fputc('\n', f);
    straggler(f, mr);
    size_t ncoll = 0;
    for (size_t i = 0; i < mr->nfiles; i++)
        ncoll += mr->files[i].ncollectives;
    fputs("### Collectives\n\nNCCL/RCCL kernels and host collective calls; exposed = kernels: not overlapped by "
          "computation kernels on the same device, host calls: the caller blocked; ms; bytes per call; algbw = "
          "bytes / time, GB/s.\n\n", f);
    if (ncoll == 0) {
        fputs("None: no rank ran a communication kernel or a collective call.\n", f);
        return ferror(f) ? -EIO : 0;
    }
    fputs("| rank | count | total | exposed | exposed % | bytes | algbw | name |\n"
          "|---|---:|---:|---:|---:|---:|---:|---|\n", f);
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        ps_words_rank_label(lab, sizeof lab, r);
        for (size_t k = 0; k < r->ncollectives; k++) {
            const struct ps_collective_stat *c = &r->collectives[k];
            char bytes[24] = "-";
            if (c->bytes >= 0)
                snprintf(bytes, sizeof bytes, "%lld", (long long)c->bytes);
            char bw[24] = "-";
            if (!isnan(c->algbw_gbps))
                snprintf(bw, sizeof bw, "%.3f", c->algbw_gbps);
            fprintf(f, "| %s | %lld | %.3f | %.3f | %.1f | %s | %s | ", lab, (long long)c->count, MS(c->total_ns),
                    MS(c->exposed_ns), c->total_ns > 0 ? 100.0 * (double)c->exposed_ns / (double)c->total_ns : 0.0,
                    bytes, bw);
            ps_md_name(f, c->name);
            fputs(" |\n", f);
        }
    }
    return ferror(f) ? -EIO : 0;
}

/* The same tables as the text, in GitHub-flavoured Markdown; names from the traces escaped (ps_md_name). */
int ps_render_ranks_md(FILE *f, const struct ps_multirank *mr, const struct ps_render_opts *o)
{
    (void)o;
    fprintf(f, "## perfscope report: %zu rank file%s\n\n", mr->nfiles, mr->nfiles == 1 ? "" : "s");
    for (size_t i = 0; i < mr->nnotes; i++) {
        fputs("> **Note:** ", f);
        ps_md_prose(f, mr->notes[i]);
        fputs("\n\n", f);
    }
    return ranks_body(f, mr, "Ranks");
}

int ps_render_process_ranks_md(FILE *f, const struct ps_report *r)
{
    if (!r->process_ranks)
        return 0;
    ranks_body(f, r->process_ranks, TITLE);
    fputc('\n', f);
    return 1;
}
