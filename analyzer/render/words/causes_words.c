/* Where the step goes, worded the same in every format (words.h; docs/report.md "Where the step goes"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words/words.h"

const char *ps_words_cause_label(const struct ps_report *r, enum ps_cause c)
{
    if (r->causes.host_only && c == PS_CAUSE_COPY)
        return "copies (copy ranges)";
    if (r->causes.host_only && c == PS_CAUSE_COMM)
        return "collectives (host)";
    return ps_cause_label[c];
}

const char *ps_words_cause_meaning(const struct ps_report *r, enum ps_cause c)
{
    switch (c) {
    case PS_CAUSE_KERNEL: return "the GPU runs kernels";
    case PS_CAUSE_COPY: return r->causes.host_only ? "the step thread in a copy range" : "the GPU copies or sets memory";
    case PS_CAUSE_COMM: return r->causes.host_only ? "the step thread in a collective" : "the GPU runs collectives";
    case PS_CAUSE_PRETRACE: return "launched work waits behind GPU work from before the trace";
    case PS_CAUSE_STREAM_WAIT: return "launched work has not started: it waits on another stream or a collective";
    case PS_CAUSE_SYNC: return "the host blocked in a synchronising call, and the idle time its wait exposed";
    case PS_CAUSE_DATA: return "the step thread loads data";
    case PS_CAUSE_WAITING: return "the step thread sleeps, waits on a lock or on I/O";
    case PS_CAUSE_LAUNCH: return "the step thread in CUDA API calls, launches in flight";
    case PS_CAUSE_HOST: return "the step thread computes";
    case PS_CAUSE_UNEXPLAINED: return "the GPU idles and the trace records nothing the step thread does";
    default: return "";
    }
}

void ps_words_cause_evidence(FILE *f, const struct ps_report *r, enum ps_cause c, void (*name)(FILE *f, const char *s))
{
    const struct ps_cause_stat *st = &r->causes.c[c];
    for (size_t i = 0; i < st->nwaits_on; i++) {   /* what the waits wait for, where the trace says */
        const struct ps_cause_wait_on *w = &st->waits_on[i];
        fprintf(f, "%swaits for stream %lld: ", i ? "; " : "", (long long)w->stream);
        name(f, ps_words_name(r, w->op, "?"));
        fprintf(f, " %.3f ms", (double)w->ns / 1e6);
    }
    if (st->nwaits_on && st->ntop)
        fputs("; waiting: ", f);
    for (size_t i = 0; i < st->ntop; i++) {
        fputs(i ? "; " : "", f);
        name(f, ps_words_name(r, st->top[i].name, "?"));
        if (i == 0 && c == PS_CAUSE_SYNC && st->call != UINT32_MAX /* none */ && st->call != st->top[0].name) {
            fputs(" calling ", f);
            name(f, ps_words_name(r, st->call, "?"));
        }
        fprintf(f, " %.3f ms", (double)st->top[i].ns / 1e6);
    }
}

void ps_words_cause_chain(FILE *f, const struct ps_report *r, enum ps_cause c, void (*name)(FILE *f, const char *s))
{
    const struct ps_cause_stat *st = &r->causes.c[c];
    for (size_t i = 0; i < st->nchain; i++) {
        fputs(i ? " > " : "", f);
        name(f, ps_words_name(r, st->chain[i], "?"));
    }
}

void ps_words_causes_span(char *buf, size_t len, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    int n = r->whole_run ? snprintf(buf, len, "the whole run as one window, %.3f ms", (double)cs->step_ns / 1e6)
                         : snprintf(buf, len, "per average step of the %zu steady step%s, %.3f ms", cs->steps,
                                    cs->steps == 1 ? "" : "s", (double)cs->step_ns / 1e6);
    if (cs->startup_steps && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; start-up left out: %zu leading step%s, %.3f ms (%.3f ms more than as "
                 "many steady steps)", cs->startup_steps, cs->startup_steps == 1 ? "" : "s",
                 (double)cs->startup_ns / 1e6, (double)cs->startup_excess_ns / 1e6);
}

int ps_words_cause_gain(char *buf, size_t len, const struct ps_report *r, enum ps_cause c)
{
    const struct ps_causes *cs = &r->causes;
    const struct ps_cause_stat *st = &cs->c[c];
    if (!cs->replayed || st->gain_ns < 0 || st->ns <= 0 || 10 * llabs(st->gain_ns - st->ns) <= st->ns)
        return 0;
    snprintf(buf, len, "without it: about %.3f ms shorter %s (replayed: %s)", (double)st->gain_ns / 1e6,
             r->whole_run ? "over the run" : "per step",
             st->gain_ns > st->ns ? "more than it takes, as other work would then overlap the GPU's"
                                  : "less than it takes, as the rest of the step would then hold it up");
    return 1;
}

void ps_words_causes_order(const struct ps_report *r, int order[PS_CAUSE_N])
{
    for (int c = 0; c < PS_CAUSE_N; c++)
        order[c] = c;
    for (int i = 1; i < PS_CAUSE_N; i++)
        for (int j = i; j > 0 && r->causes.c[order[j]].ns > r->causes.c[order[j - 1]].ns; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

int ps_words_cause_host_side(enum ps_cause c)
{
    return c == PS_CAUSE_SYNC || c == PS_CAUSE_DATA || c == PS_CAUSE_WAITING || c == PS_CAUSE_HOST;
}
