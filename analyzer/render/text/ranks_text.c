/* `perfscope report FILE FILE...` as text (docs/report.md "Several rank files"): the per-rank tables, stragglers,
 * communication-computation overlap and the collective table, laid out to fit 100 columns; and the same sections
 * in the single-trace report when the trace's processes are its ranks (ps_report.process_ranks). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/ranks.h"
#include "ps_text_escape.h"
#include "render/render.h"
#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define TITLE "Ranks in this trace, each a process"

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

/* The straggler the others wait for and the rule that named it (docs/distributed.md). */
static void straggler(FILE *f, const struct ps_multirank *mr)
{
    char buf[PS_WORDS_STRAGGLER_LEN];
    if (!mr->has_wait_straggler) {
        if (mr->nstragglers)
            fprintf(f, "Straggler rule: %s\n", ps_words_straggler_rule_step);
        return;
    }
    ps_words_straggler_sentence(buf, sizeof buf, mr);
    fputs("\nStraggler (waited for): ", f);
    ps_put_text(f, buf);   /* it names the range the others wait in */
    fprintf(f, "\nStraggler rule: %s\n", ps_words_straggler_rule_wait);
}

/* The several-rank report's sections under the heading `title`, laid out to fit 100 columns: one table with the
 * verdict per rank, one with the step average in tb's categories (the rank column as wide as the longest label),
 * stragglers, the straggler the others wait for, and collectives; paths and kernel names last in full, on a line
 * of their own when the row would be too wide (ps_text_row_name). */
static void ranks_body(FILE *f, const struct ps_multirank *mr, const char *title)
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
    straggler(f, mr);
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

/* The several-rank-file report: its title and notes, then the sections. */
static void text_tables(FILE *f, const struct ps_multirank *mr)
{
    fprintf(f, "perfscope report: %zu rank file%s\n", mr->nfiles, mr->nfiles == 1 ? "" : "s");
    for (size_t i = 0; i < mr->nnotes; i++) {   /* a note quotes the files' paths */
        fputs("Note: ", f);
        ps_put_text(f, mr->notes[i]);
        fputc('\n', f);
    }
    ranks_body(f, mr, "Ranks");
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

int ps_render_process_ranks_text(FILE *f, const struct ps_report *r)
{
    if (!r->process_ranks)
        return 0;
    ranks_body(f, r->process_ranks, TITLE);
    return 1;
}
