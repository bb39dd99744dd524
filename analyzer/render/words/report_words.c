/* The report's names, labels and lines every format words the same way (words.h): the verdict's name and what
 * follows it, step and row names, the run in one line, and which steps a table shows. */
#include <stdio.h>
#include <string.h>

#include "words/words.h"

const char *ps_words_bottleneck_name(enum ps_bottleneck b, int has_gpu)
{
    return b == PS_BN_KERNEL && !has_gpu ? "compute" : ps_bottleneck_name[b];
}

const char *ps_words_cat_label(int c, int has_gpu)
{
    return c == PS_CAT_KERNEL && !has_gpu ? "Compute" : ps_cat_label[c];
}

const char *ps_words_bottleneck(const struct ps_report *r, enum ps_bottleneck b)
{
    return ps_words_bottleneck_name(b, r->has_gpu);
}

void ps_words_verdict_detail(char *buf, size_t len, const struct ps_report *r)
{
    const char *compute = r->has_gpu ? "compute (Kernel)" : "host compute";
    /* without steps the one window is the run: never call it a step */
    char window_buf[96];
    const char *window = r->whole_run              ? "the whole run"
                         : r->causes.startup_steps ? "the average steady step"
                                                   : "the average step";
    /* the verdict leaves out GPU work queued before the trace (analyses/verdict/causes.c) */
    if (r->verdict_left_out_ns > 0) {
        snprintf(window_buf, sizeof window_buf, "%s less %.3f ms of work queued before the trace", window,
                 (double)r->verdict_left_out_ns / 1e6);
        window = window_buf;
    }
    const char *each = r->whole_run ? "the run" : "each step";
    /* the saving: the replay's (analyses/verdict/replay.c), "about"; else the cause's time, "at most" */
    const char *how = r->causes.replayed ? "about" : "at most";
    if (r->bottleneck == PS_BN_UNKNOWN)
        snprintf(buf, len, "%s", r->verdict_reason ? r->verdict_reason : "nothing to classify");
    else if (r->bottleneck == PS_BN_KERNEL && !r->has_gpu && r->host_wait.claimed)   /* analyses/verdict/verdict.c */
        snprintf(buf, len, "host compute, \"kernel\" in JSON; %.1f %% of %s is host compute, but for about %.3f ms "
                           "of it the step thread was waiting, not computing (thread samples: What to do); "
                           "removing the cause saves %s %.1f %%, %.3f ms",
                 100.0 * r->share, window, (double)r->host_wait.wait_ns / 1e6, how, 100.0 * r->max_gain_share,
                 (double)r->max_gain_ns / 1e6);
    else if (r->bottleneck == PS_BN_KERNEL)
        snprintf(buf, len, "%s%.1f %% of %s is %s: nothing starves the %s; %s taking no time would shorten %s by %s "
                           "%.1f %%, %.3f ms%s",
                 r->has_gpu ? "" : "host compute, \"kernel\" in JSON; ", 100.0 * r->share, window, compute,
                 r->has_gpu ? "GPU" : "host", r->has_gpu ? "kernels" : "computations", each, how,
                 100.0 * r->max_gain_share, (double)r->max_gain_ns / 1e6,
                 r->has_gpu && 2 * r->max_gain_ns < r->avg.group_ns[PS_BN_KERNEL]
                     ? " (the host's launches then take nearly as long: What to do)" : "");
    else
        snprintf(buf, len, "%.1f %% of %s; %s %.1f %%; removing the cause saves %s %.1f %% of %s, %.3f ms",
                 100.0 * r->share, window, compute, 100.0 * r->kernel_share, how, 100.0 * r->max_gain_share, each,
                 (double)r->max_gain_ns / 1e6);
}

const char *ps_words_step_name(char *buf, size_t len, const struct ps_report *r, size_t i)
{
    const char *name = ps_report_name(r, r->steps[i].name);
    if (name)
        return name;
    snprintf(buf, len, r->steps_inferred ? "inferred#%zu" : "(whole run)", i + 1);
    return buf;
}

const char *ps_words_name(const struct ps_report *r, uint32_t id, const char *none)
{
    const char *name = ps_report_name(r, id);
    return name ? name : none;
}

const char *ps_words_row_name(const struct ps_report *r, const struct ps_finding *g, const struct ps_row *w)
{
    return ps_words_name(r, w->name, !strcmp(g->rule, "gpu_gap") ? "(GPU idle)" : "(time slice)");
}

void ps_words_run_line(char *buf, size_t len, const struct ps_report *r)
{
    size_t np = r->trace.processes, nt = r->trace.threads;
    if (r->nevents == 0)   /* no span to measure: the duration is the program's (metadata, host samples) */
        snprintf(buf, len, "no events, %zu process%s, %zu thread%s", np, np == 1 ? "" : "es", nt, nt == 1 ? "" : "s");
    else
        snprintf(buf, len, "%.3f ms, %zu process%s, %zu thread%s, %zu events (%zu GPU rows, %zu API calls, %zu "
                           "ranges)", (double)(r->run_end_ns - r->run_start_ns) / 1e6, np, np == 1 ? "" : "es", nt,
                 nt == 1 ? "" : "s", r->nevents, r->ngpu_rows, r->napi_calls, r->nranges);
}

size_t ps_words_steps_shown(unsigned char *shown, const struct ps_report *r)
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

size_t ps_words_slowest_step(const struct ps_report *r)
{
    if (r->nsteps < 2)
        return r->nsteps;
    size_t k = 0;
    for (size_t i = 1; i < r->nsteps; i++)
        if (r->steps[i].end_ns - r->steps[i].start_ns > r->steps[k].end_ns - r->steps[k].start_ns)
            k = i;
    return k;
}

const char *ps_words_util_span(const struct ps_report *r)
{
    if (r->avg_dur_ns > r->avg.seen_ns)
        return r->whole_run ? " of the whole run, the work queued before the trace counted idle"
                            : " of the steps, the work queued before the trace counted idle";
    return r->whole_run ? " of the whole run" : " of the steps";
}
