/* `perfscope report FILE FILE...`: the per-rank table, stragglers, communication-computation overlap and
 * collective table of several rank files (analyses/ranks.h), as text, JSON and Markdown (docs/report.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_impl.h"
#include "ps_text_escape.h"
#include "text_style.h"

#define MS(ns) ((double)(ns) / 1e6)

/* The file's path, and what to know about the file beside it ("(no steps: whole run)"), as the last cell of a text
 * row whose numbers took `cols` columns: escaped and whole (a path is never shortened, unlike a name: a longer one
 * wraps), after two spaces when the row fits, else on a line of its own. */
static void path_cell(FILE *f, size_t cols, const struct ps_rank_file *r)
{
    char *cell = NULL, *buf = NULL;
    if (asprintf(&cell, "%s%s%s", r->path, r->whole_run ? " (no steps: whole run)" : "",
                 r->recording_complete == 0 ? " (recording incomplete)" : "") < 0)
        cell = NULL;
    const char *text = cell ? cell : r->path;
    size_t cap = 4 * strlen(text) + 1, nchars = 0;   /* an escape is at most 4 bytes per input byte */
    if ((buf = malloc(cap)) != NULL) {
        ps_text_escape(text, buf, cap, &nchars);
        fprintf(f, "%s  %s\n", cols + 2 + nchars <= PS_TEXT_WIDTH ? "" : "\n", buf);
    } else {
        ps_text_row_name(f, cols, text);
    }
    free(buf);
    free(cell);
}

/* Laid out to fit 100 columns: one table with the verdict per rank, one with the step average in tb's categories
 * (the rank column as wide as the longest label), paths and kernel names last in full, on a line of their own when
 * the row would be too wide (ps_text_row_name). */
static void text_tables(FILE *f, const struct ps_multirank *mr)
{
    fprintf(f, "perfscope report: %zu rank files\n", mr->nfiles);
    for (size_t i = 0; i < mr->nnotes; i++)
        fprintf(f, "Note: %s\n", mr->notes[i]);
    ps_render_ranks_text_body(f, mr, "Ranks");
}

void ps_render_ranks_text_body(FILE *f, const struct ps_multirank *mr, const char *title)
{
    int gpu = ps_words_ranks_have_gpu(mr);
    char lab[32];
    int rw = 4;   /* "rank" */
    for (size_t i = 0; i < mr->nfiles; i++) {
        int len = (int)strlen(ps_words_rank_label(lab, sizeof lab, &mr->files[i]));
        rw = len > rw ? len : rw;
    }
    fprintf(f, "\n%s (average step in ms; rank from: metadata, process_info, file_name or order)\n", title);
    fprintf(f, "%-*s %-12s %6s %10s  %-13s %6s %8s  file\n", rw, "rank", "from", "steps", "step", "verdict", "share",
            "overlap");
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        fprintf(f, "%-*s %-12s %6zu %10.3f  %-13s", rw, ps_words_rank_label(lab, sizeof lab, r),
                r->launcher_ranks >= 2 ? "-" : ps_rank_source_name[r->rank_source], r->stat.nsteps,
                MS(r->stat.avg_dur_ns), ps_words_bottleneck_name(r->stat.bottleneck, r->has_gpu));
        if (r->stat.bottleneck == PS_BN_UNKNOWN)
            fprintf(f, " %6s", "-");
        else
            fprintf(f, " %5.1f%%", 100.0 * r->stat.share);
        if (isnan(r->comm_comp_overlap))
            fprintf(f, " %8s", "-");
        else
            fprintf(f, " %7.2f%%", 100.0 * r->comm_comp_overlap);
        path_cell(f, (size_t)rw + 62, r);
    }
    fprintf(f, "\nAverage step per rank in the PyTorch profiler's categories (ms)\n%-*s", rw, "rank");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10s", ps_words_ranks_cat_label(c, gpu));
    for (size_t i = 0; i < mr->nfiles; i++) {
        fprintf(f, "\n%-*s", rw, ps_words_rank_label(lab, sizeof lab, &mr->files[i]));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %10.3f", MS(mr->files[i].stat.cat_ns[c]));
    }
    fputc('\n', f);
    if (mr->nstragglers == 0)
        fprintf(f, "\nStragglers by step time: none (no rank's average step is more than 5 %% slower than the median "
                   "rank's)\n");
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        int cols = fprintf(f, "%sStraggler: rank %s is %.1f %% slower than the median rank, most of it in %s",
                           i ? "" : "\n", ps_words_rank_label(lab, sizeof lab, r), 100.0 * g->slower_by,
                           ps_words_ranks_cat_label(g->category, r->has_gpu));
        path_cell(f, cols > 0 ? (size_t)cols - (i == 0) : 0, r);
    }
    ps_render_straggler_text(f, mr);
    size_t ncoll = 0;
    for (size_t i = 0; i < mr->nfiles; i++)
        ncoll += mr->files[i].ncollectives;
    fprintf(f, "\nCollectives (NCCL/RCCL kernels and host collective calls, ms; exposed = kernels: not overlapped "
               "by computation on the same device, host calls: the caller blocked; bytes per call; algbw = bytes / "
               "time, GB/s)\n");
    if (ncoll == 0) {
        fprintf(f, "  none: no rank ran a communication kernel or a collective call\n");
        return;
    }
    fprintf(f, "%-*s %7s %10s %10s %8s %12s %8s  name\n", rw, "rank", "count", "total", "exposed", "exposed", "bytes",
            "algbw");
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
            fprintf(f, "%-*s %7lld %10.3f %10.3f %7.1f%% %12s %8s", rw, lab, (long long)c->count, MS(c->total_ns),
                    MS(c->exposed_ns), c->total_ns > 0 ? 100.0 * (double)c->exposed_ns / (double)c->total_ns : 0.0,
                    bytes, bw);
            ps_text_row_name(f, (size_t)rw + 61, c->name);
        }
    }
}

int ps_render_ranks_text(FILE *out, const struct ps_multirank *mr, const struct ps_render_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);   /* laid out first, then folded to 100 columns like the single-file text */
    if (!f)
        return -ENOMEM;
    text_tables(f, mr);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || !buf) {
        free(buf);
        return -ENOMEM;
    }
    int rc = ps_text_fold(out, buf, len, o->width);
    free(buf);
    return rc;
}

/* The same tables as the text, in GitHub-flavoured Markdown; names from the traces escaped (ps_render_md_name). */
int ps_render_ranks_md(FILE *f, const struct ps_multirank *mr, const struct ps_render_opts *o)
{
    (void)o;
    fprintf(f, "## perfscope report: %zu rank files\n\n", mr->nfiles);
    for (size_t i = 0; i < mr->nnotes; i++) {
        fputs("> **Note:** ", f);
        ps_render_md_prose(f, mr->notes[i]);
        fputs("\n\n", f);
    }
    return ps_render_ranks_md_body(f, mr, "Ranks");
}

int ps_render_ranks_md_body(FILE *f, const struct ps_multirank *mr, const char *title)
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
        ps_render_md_name(f, r->path);
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
        ps_render_md_name(f, r->path);
        fprintf(f, ") is %.1f %% slower than the median rank, most of it in %s\n", 100.0 * g->slower_by,
                ps_words_ranks_cat_label(g->category, r->has_gpu));
    }
    if (mr->nstragglers)
        fputc('\n', f);
    ps_render_straggler_md(f, mr);
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
            ps_render_md_name(f, c->name);
            fputs(" |\n", f);
        }
    }
    return ferror(f) ? -EIO : 0;
}
