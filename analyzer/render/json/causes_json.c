/* "causes" in the JSON report (json_sections.h; docs/report.md "Where the step goes"). */
#include <math.h>

#include "json/json_sections.h"
#include "words/words.h"

void ps_render_causes_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    ps_jw_key(w, "causes");
    if (!cs->computed) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ps_jw_kint(w, "steps", (int64_t)cs->steps);
    ps_jw_kint(w, "step_ns", cs->step_ns);
    ps_jw_kint(w, "startup_steps", (int64_t)cs->startup_steps);
    ps_jw_kint(w, "startup_ns", cs->startup_ns);
    ps_jw_kint(w, "startup_excess_ns", cs->startup_excess_ns);
    ps_jw_kstr(w, "step_thread", ps_words_name(r, cs->thread_name, NULL));
    ps_jw_kbool(w, "host_only", cs->host_only);
    ps_jw_kint(w, "python_frames", cs->python_frames);
    ps_jw_kint(w, "python_samples", cs->python_samples);
    ps_jw_kint_or_null(w, "replay_step_ns", cs->replayed ? cs->replay_step_ns : -1);
    ps_jw_key(w, "group_gain_ns");
    ps_jw_map_open(w);
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        ps_jw_kint_or_null(w, ps_bottleneck_name[g], cs->group_gain_ns[g]);
    ps_jw_map_close(w);
    ps_jw_key(w, "by_cause");
    ps_jw_map_open(w);
    for (int c = 0; c < PS_CAUSE_N; c++) {
        const struct ps_cause_stat *st = &cs->c[c];
        ps_jw_key(w, ps_cause_key[c]);
        ps_jw_map_open(w);
        ps_jw_kint(w, "ns", st->ns);
        ps_jw_kdouble(w, "share", st->share);
        ps_jw_kint_or_null(w, "gain_ns", st->gain_ns);
        ps_jw_kstr(w, "function", st->function == UINT32_MAX ? NULL : ps_words_name(r, st->function, ""));
        ps_jw_kint_or_null(w, "top_gain_ns", st->top_gain_ns);
        ps_jw_key(w, "top");
        ps_jw_array_open(w);
        for (size_t i = 0; i < st->ntop; i++) {
            ps_jw_map_open(w);
            ps_jw_kstr(w, "name", ps_words_name(r, st->top[i].name, ""));
            ps_jw_kint(w, "ns", st->top[i].ns);
            ps_jw_map_close(w);
        }
        ps_jw_array_close(w);
        ps_jw_key(w, "chain");
        ps_jw_array_open(w);
        for (size_t i = 0; i < st->nchain; i++)
            ps_jw_str(w, ps_words_name(r, st->chain[i], ""));
        ps_jw_array_close(w);
        if (c == PS_CAUSE_SYNC)
            ps_jw_kstr(w, "call", st->call == UINT32_MAX ? NULL : ps_words_name(r, st->call, ""));
        if (c == PS_CAUSE_STREAM_WAIT) {   /* what the waits wait for, where the trace says */
            ps_jw_key(w, "waits_on");
            ps_jw_array_open(w);
            for (size_t i = 0; i < st->nwaits_on; i++) {
                ps_jw_map_open(w);
                ps_jw_kint(w, "stream", st->waits_on[i].stream);
                ps_jw_kint(w, "device", st->waits_on[i].device);
                ps_jw_kstr(w, "op", ps_words_name(r, st->waits_on[i].op, ""));
                ps_jw_kint(w, "ns", st->waits_on[i].ns);
                ps_jw_map_close(w);
            }
            ps_jw_array_close(w);
        }
        ps_jw_map_close(w);
    }
    ps_jw_map_close(w);
    ps_jw_map_close(w);
}
