/* The table of output formats of `perfscope report` and `perfscope diff`, and the few names and lines every format
 * words the same way. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render_impl.h"

static const struct ps_renderer renderers[] = {
    { "text", "for a terminal (the default)", ps_render_text, ps_render_ranks_text, ps_render_diff_text },
    { "json", "stable keys (docs/report.md, docs/diff.md)", ps_render_json, ps_render_ranks_json,
      ps_render_diff_json },
    { "md", "GitHub-flavoured Markdown for pull requests and issues", ps_render_md, ps_render_ranks_md,
      ps_render_diff_md },
    { "html", "one self-contained page with inline SVG charts", ps_render_html, ps_render_ranks_html, NULL },
};

const char *ps_render_bottleneck_name(enum ps_bottleneck b, int has_gpu)
{
    return b == PS_BN_KERNEL && !has_gpu ? "compute" : ps_bottleneck_name[b];
}

const char *ps_render_cat_label(int c, int has_gpu)
{
    return c == PS_CAT_KERNEL && !has_gpu ? "Compute" : ps_cat_label[c];
}

int ps_render_ranks_have_gpu(const struct ps_multirank *mr)
{
    for (size_t i = 0; i < mr->nfiles; i++)
        if (mr->files[i].has_gpu)
            return 1;
    return 0;
}

const char *ps_render_ranks_cat_label(int c, int has_gpu)
{
    return c == PS_CAT_COMM ? "Comm" : ps_render_cat_label(c, has_gpu);
}

const char *ps_render_bottleneck(const struct ps_report *r, enum ps_bottleneck b)
{
    return ps_render_bottleneck_name(b, r->has_gpu);
}

void ps_render_verdict_detail(const struct ps_report *r, char *buf, size_t len)
{
    const char *compute = r->has_gpu ? "compute (Kernel)" : "host compute";
    /* without steps the one window is the run: never call it a step */
    char window_buf[96];
    const char *window = r->whole_run ? "the whole run" : "the average step";
    if (r->avg.pretrace_ns > 0) {   /* the verdict leaves out GPU work queued before the trace (analyses/backlog.c) */
        snprintf(window_buf, sizeof window_buf, "%s less %.3f ms of work queued before the trace", window,
                 (double)r->avg.pretrace_ns / 1e6);
        window = window_buf;
    }
    const char *each = r->whole_run ? "the run" : "each step";
    if (r->bottleneck == PS_BN_UNKNOWN)
        snprintf(buf, len, "%s", r->verdict_reason ? r->verdict_reason : "nothing to classify");
    else if (r->bottleneck == PS_BN_KERNEL && !r->has_gpu && r->host_wait.claimed)   /* analyses/verdict.c */
        snprintf(buf, len, "host compute, \"kernel\" in JSON; %.1f %% of %s is host compute, but for about %.3f ms "
                           "of it the step thread was waiting, not computing (thread samples: What to do); "
                           "removing the cause saves at most %.1f %%, %.3f ms",
                 100.0 * r->share, window, (double)r->host_wait.wait_ns / 1e6, 100.0 * r->max_gain_share,
                 (double)r->max_gain_ns / 1e6);
    else if (r->bottleneck == PS_BN_KERNEL)
        snprintf(buf, len, "%s%.1f %% of %s is %s: nothing starves the %s; only faster %s shorten %s, by at "
                           "most %.1f %%, %.3f ms",
                 r->has_gpu ? "" : "host compute, \"kernel\" in JSON; ", 100.0 * r->share, window, compute,
                 r->has_gpu ? "GPU" : "host", r->has_gpu ? "kernels" : "computations", each,
                 100.0 * r->max_gain_share, (double)r->max_gain_ns / 1e6);
    else
        snprintf(buf, len, "%.1f %% of %s; %s %.1f %%; removing the cause saves at most %.1f %% of %s, %.3f ms",
                 100.0 * r->share, window, compute, 100.0 * r->kernel_share, 100.0 * r->max_gain_share, each,
                 (double)r->max_gain_ns / 1e6);
}

const char *ps_render_step_name(const struct ps_report *r, size_t i, char *buf, size_t len)
{
    const char *name = ps_report_name(r, r->steps[i].name);
    if (name)
        return name;
    snprintf(buf, len, r->steps_inferred ? "inferred#%zu" : "(whole run)", i + 1);
    return buf;
}

const char *ps_render_name(const struct ps_report *r, uint32_t id, const char *none)
{
    const char *name = ps_report_name(r, id);
    return name ? name : none;
}

const char *ps_render_row_name(const struct ps_report *r, const struct ps_finding *g, const struct ps_row *w)
{
    return ps_render_name(r, w->name, !strcmp(g->rule, "gpu_gap") ? "(GPU idle)" : "(time slice)");
}

void ps_render_run_line(const struct ps_report *r, char *buf, size_t len)
{
    size_t np = r->trace.processes, nt = r->trace.threads;
    if (r->nevents == 0)   /* no span to measure: the duration is the program's (metadata, host samples) */
        snprintf(buf, len, "no events, %zu process%s, %zu thread%s", np, np == 1 ? "" : "es", nt, nt == 1 ? "" : "s");
    else
        snprintf(buf, len, "%.3f ms, %zu process%s, %zu thread%s, %zu events (%zu GPU rows, %zu API calls, %zu "
                           "ranges)", (double)(r->run_end_ns - r->run_start_ns) / 1e6, np, np == 1 ? "" : "es", nt,
                 nt == 1 ? "" : "s", r->nevents, r->ngpu_rows, r->napi_calls, r->nranges);
}

size_t ps_render_steps_shown(const struct ps_report *r, unsigned char *shown)
{
    size_t n = r->nsteps, slow[5], nslow = 0;
    for (size_t i = 0; i < n; i++) {   /* the 5 slowest windows, slowest first */
        int64_t d = r->steps[i].end_ns - r->steps[i].start_ns;
        size_t pos = nslow < 5 ? nslow++ : 5;
        while (pos > 0 && r->steps[slow[pos - 1]].end_ns - r->steps[slow[pos - 1]].start_ns < d) {
            if (pos < 5)
                slow[pos] = slow[pos - 1];
            pos--;
        }
        if (pos < 5)
            slow[pos] = i;
    }
    int all = r->opts.all_steps || n <= 20;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        int is_slow = 0;
        for (size_t k = 0; k < nslow && n > 1; k++)
            is_slow |= slow[k] == i;
        shown[i] = all || i < 10 || i + 5 >= n || is_slow ? (is_slow && !all ? 2 : 1) : 0;
        count += shown[i] != 0;
    }
    return count;
}

int ps_report_write_json(FILE *out, const struct ps_report *r)
{
    const struct ps_render_opts o = { 0 };
    return ps_render_json(out, r, &o);
}

int ps_report_write_text(FILE *out, const struct ps_report *r)
{
    const struct ps_render_opts o = { 0 };
    return ps_render_text(out, r, &o);
}

const struct ps_renderer *ps_renderer_find(const char *name)
{
    for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
        if (strcmp(renderers[i].name, name) == 0)
            return &renderers[i];
    return NULL;
}

const struct ps_renderer *ps_renderer_at(size_t i)
{
    return i < sizeof renderers / sizeof renderers[0] ? &renderers[i] : NULL;
}
