/* `perfscope report FILE FILE...`: the per-rank table, stragglers, communication-computation overlap and
 * collective table of several rank files (analyses/multirank.h), as text and JSON (docs/report.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analyses/multirank.h"
#include "model/model.h"
#include "render/render.h"

#define MS(ns) ((double)(ns) / 1e6)

static const char *cat_text(int c)
{
    return c == PS_CAT_COMM ? "Comm" : ps_cat_label[c];
}

/* "rank 3", or the launcher label of a file that holds every rank as a process. */
static void rank_label(char *buf, size_t len, const struct ps_rank_file *f)
{
    if (f->launcher_ranks >= 2)
        snprintf(buf, len, "launcher(%zu)", f->launcher_ranks);
    else
        snprintf(buf, len, "%d", f->rank);
}

int ps_multirank_write_text(const struct ps_multirank *mr, FILE *f)
{
    char lab[32];
    fprintf(f, "perfscope report: %zu rank files\n", mr->nfiles);
    for (size_t i = 0; i < mr->nnotes; i++)
        fprintf(f, "Note: %s\n", mr->notes[i]);
    fprintf(f, "\nRanks (step averages in ms; rank from: metadata, process_info, file_name or order)\n");
    fprintf(f, "%-12s %-12s %6s %10s", "rank", "from", "steps", "step");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10s", cat_text(c));
    fprintf(f, " %-13s %6s %8s  %s\n", "verdict", "share", "overlap", "file");
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        rank_label(lab, sizeof lab, r);
        fprintf(f, "%-12s %-12s %6zu %10.3f", lab, r->launcher_ranks >= 2 ? "-" : ps_rank_source_name[r->rank_source],
                r->stat.nsteps, MS(r->stat.avg_dur_ns));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %10.3f", MS(r->stat.cat_ns[c]));
        fprintf(f, " %-13s", ps_bottleneck_name[r->stat.bottleneck]);
        if (r->stat.bottleneck == PS_BN_UNKNOWN)
            fprintf(f, " %6s", "-");
        else
            fprintf(f, " %5.1f%%", 100.0 * r->stat.share);
        if (isnan(r->comm_comp_overlap))
            fprintf(f, " %8s", "-");
        else
            fprintf(f, " %7.2f%%", 100.0 * r->comm_comp_overlap);
        fprintf(f, "  %s%s%s\n", r->path, r->whole_run ? " (no steps: whole run)" : "",
                r->recording_complete == 0 ? " (recording incomplete)" : "");
    }
    if (mr->nstragglers == 0)
        fprintf(f, "\nStragglers: none (no rank's average step is more than 5 %% slower than the median rank's)\n");
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        rank_label(lab, sizeof lab, r);
        fprintf(f, "%sStraggler: rank %s (%s) is %.1f %% slower than the median rank, most of it in %s\n",
                i ? "" : "\n", lab, r->path, 100.0 * g->slower_by, cat_text(g->category));
    }
    size_t ncoll = 0;
    for (size_t i = 0; i < mr->nfiles; i++)
        ncoll += mr->files[i].ncollectives;
    fprintf(f, "\nCollectives (NCCL/RCCL kernels; exposed = not overlapped by computation kernels on the same "
               "device; ms)\n");
    if (ncoll == 0) {
        fprintf(f, "  none: no rank ran a communication kernel\n");
        return ferror(f) ? -EIO : 0;
    }
    fprintf(f, "%-12s %8s %12s %12s %8s %12s  %s\n", "rank", "count", "total", "exposed", "exposed", "bytes",
            "kernel");
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        rank_label(lab, sizeof lab, r);
        for (size_t k = 0; k < r->ncollectives; k++) {
            const struct ps_collective_stat *c = &r->collectives[k];
            char name[161], bytes[24] = "-";
            ps_text_escape(c->name, name, sizeof name, NULL);
            if (c->bytes >= 0)
                snprintf(bytes, sizeof bytes, "%lld", (long long)c->bytes);
            fprintf(f, "%-12s %8lld %12.3f %12.3f %7.1f%% %12s  %s\n", lab, (long long)c->count, MS(c->total_ns),
                    MS(c->exposed_ns), c->total_ns > 0 ? 100.0 * (double)c->exposed_ns / (double)c->total_ns : 0.0,
                    bytes, name);
        }
    }
    return ferror(f) ? -EIO : 0;
}

static void jnum(FILE *f, double x)
{
    if (isnan(x) || isinf(x))
        fputs("null", f);
    else
        fprintf(f, "%.6g", x);
}

int ps_multirank_write_json(const struct ps_multirank *mr, FILE *f)
{
    fprintf(f, "{\n  \"perfscope_report_version\": 1,\n  \"files\": %zu,\n  \"ranks\": [", mr->nfiles);
    double overlap_sum = 0;
    size_t overlap_n = 0;
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        fputs(i ? ",\n    {\"rank\": " : "\n    {\"rank\": ", f);
        r->launcher_ranks >= 2 ? fputs("null", f) : fprintf(f, "%d", r->rank);
        fputs(", \"rank_from\": ", f);
        r->launcher_ranks >= 2 ? fputs("null", f) : fprintf(f, "\"%s\"", ps_rank_source_name[r->rank_source]);
        fputs(", \"launcher_ranks\": ", f);
        r->launcher_ranks >= 2 ? fprintf(f, "%zu", r->launcher_ranks) : fputs("null", f);
        fputs(", \"source\": ", f);
        ps_render_json_str(f, r->path);
        fprintf(f, ", \"format\": \"%s\", \"world_size\": ", ps_format_name(r->format));
        r->world_size > 0 ? fprintf(f, "%d", r->world_size) : fputs("null", f);
        fprintf(f, ", \"recording_complete\": %s, \"whole_run\": %s, \"steps\": %zu, \"step_average\": "
                   "{\"dur_ns\": %lld, \"breakdown_ns\": {",
                r->recording_complete < 0 ? "null" : r->recording_complete ? "true" : "false",
                r->whole_run ? "true" : "false", r->stat.nsteps, (long long)r->stat.avg_dur_ns);
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, "%s\"%s\": %lld", c ? ", " : "", ps_cat_key[c], (long long)r->stat.cat_ns[c]);
        fprintf(f, "}, \"sync_ns\": %lld}, \"bottleneck\": \"%s\", \"share\": ", (long long)r->stat.sync_ns,
                ps_bottleneck_name[r->stat.bottleneck]);
        jnum(f, r->stat.bottleneck == PS_BN_UNKNOWN ? NAN : r->stat.share);
        fputs(", \"comm_comp_overlap\": ", f);
        jnum(f, r->comm_comp_overlap);
        fputs("}", f);
        if (!isnan(r->comm_comp_overlap)) {
            overlap_sum += r->comm_comp_overlap;
            overlap_n++;
        }
    }
    fputs("],\n  \"stragglers\": [", f);
    for (size_t i = 0; i < mr->nstragglers; i++) {
        const struct ps_straggler *g = &mr->stragglers[i];
        const struct ps_rank_file *r = &mr->files[g->rank];
        fputs(i ? ",\n    {\"rank\": " : "\n    {\"rank\": ", f);
        r->launcher_ranks >= 2 ? fputs("null", f) : fprintf(f, "%d", r->rank);
        fputs(", \"source\": ", f);
        ps_render_json_str(f, r->path);
        fputs(", \"slower_by\": ", f);
        jnum(f, g->slower_by);
        fprintf(f, ", \"category\": \"%s\"}", ps_cat_key[g->category]);
    }
    fputs("],\n  \"collectives\": [", f);
    size_t n = 0;
    for (size_t i = 0; i < mr->nfiles; i++) {
        const struct ps_rank_file *r = &mr->files[i];
        for (size_t k = 0; k < r->ncollectives; k++) {
            const struct ps_collective_stat *c = &r->collectives[k];
            fputs(n++ ? ",\n    {\"rank\": " : "\n    {\"rank\": ", f);
            r->launcher_ranks >= 2 ? fputs("null", f) : fprintf(f, "%d", r->rank);
            fputs(", \"kernel\": ", f);
            ps_render_json_str(f, c->name);
            fprintf(f, ", \"count\": %lld, \"total_ns\": %lld, \"exposed_ns\": %lld, \"bytes\": ", (long long)c->count,
                    (long long)c->total_ns, (long long)c->exposed_ns);
            c->bytes >= 0 ? fprintf(f, "%lld", (long long)c->bytes) : fputs("null", f);
            fputs("}", f);
        }
    }
    fputs("],\n  \"notes\": [", f);
    for (size_t i = 0; i < mr->nnotes; i++) {
        fputs(i ? ", " : "", f);
        ps_render_json_str(f, mr->notes[i]);
    }
    fputs("],\n  \"comm_comp_overlap\": ", f);   /* mean over the ranks that ran communication kernels */
    jnum(f, overlap_n ? overlap_sum / (double)overlap_n : NAN);
    fputs("\n}\n", f);
    return ferror(f) ? -EIO : 0;
}
