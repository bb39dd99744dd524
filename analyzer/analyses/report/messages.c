/* What a report says besides its numbers, decided once for every format: warnings about the trace (an
 * unfinished recording, a crashed program, lost records), notes on how to read the numbers, the run's
 * facts from PERFSCOPE_META (command, duration, exit status, CUDA/CUPTI state), and why a verdict is unknown.
 * Renderers (analyzer/render/) print these; none of them decides one. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* "SIGKILL", ...; "signal" for another Linux signal (1..64), "unknown signal" outside. */
static const char *signal_name(long sig)
{
    if (sig < 1 || sig > 64)
        return "unknown signal";
    static const char *const names[] = { [1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL",
                                         [5] = "SIGTRAP", [6] = "SIGABRT", [7] = "SIGBUS", [8] = "SIGFPE",
                                         [9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
                                         [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [24] = "SIGXCPU",
                                         [25] = "SIGXFSZ" };
    return sig < (long)(sizeof names / sizeof names[0]) && names[sig] ? names[sig] : "signal";
}

/* Append a message (text formatted); -ENOMEM when it cannot be stored. */
__attribute__((format(printf, 4, 5))) static int add(struct ps_report *r, enum ps_msg_level level, const char *code,
                                                     const char *fmt, ...)
{
    va_list ap;
    char *text = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    struct ps_message *v = n < 0 ? NULL : realloc(r->msgs, (r->nmsgs + 1) * sizeof *v);
    if (!v) {
        free(n < 0 ? NULL : text);
        return -ENOMEM;
    }
    r->msgs = v;
    r->msgs[r->nmsgs++] = (struct ps_message){ .level = level, .code = code, .text = text };
    return 0;
}

const struct ps_message *ps_report_message(const struct ps_report *r, const char *code)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        if (!strcmp(r->msgs[i].code, code))
            return &r->msgs[i];
    return NULL;
}

/* PERFSCOPE_META `key` as a count from lo (ps_report_meta_int) into *v: 1 when it is one, else 0. */
static int meta_count(const struct ps_report *r, const char *key, long long lo, long long *v)
{
    enum ps_fact fact;
    ps_report_meta_int(r, key, lo, INT64_MAX, v, &fact);
    return fact == PS_FACT_KNOWN;
}

/* 1 when PERFSCOPE_META says the recording did not finish (ps_report_recording_complete), else 0. */
static int recording_incomplete(const struct ps_report *r)
{
    int complete;
    enum ps_fact fact;
    ps_report_recording_complete(r, &complete, &fact);
    return fact == PS_FACT_KNOWN && !complete;
}

/* The run's facts from the metadata (docs/trace-format.md: PERFSCOPE_META), in struct ps_run_facts' encodings of
 * the unknown (-1, PS_ABSENT, PS_UNKNOWN). */
static void run_facts(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_run_facts *f = &r->facts;
    struct ps_child_status st;
    long long ns;
    enum ps_fact fact;
    f->command = ps_report_meta(r, "command_line");
    f->host = ps_report_meta(r, "host");
    f->started = ps_report_meta(r, "start_time_utc");
    ps_report_meta_int(r, "duration_ns", 0, INT64_MAX, &ns, &fact);
    f->program_ns = fact == PS_FACT_KNOWN ? ns : fact == PS_FACT_ABSENT ? PS_ABSENT : PS_UNKNOWN;
    ps_report_child_status(r, &st);
    if (!st.recorded)
        f->exit_status[0] = '\0';
    else if (st.sig_out_of_range)
        snprintf(f->exit_status, sizeof f->exit_status, "killed by unknown signal %ld", st.sig);
    else if (st.sig_known && st.sig != 0)
        snprintf(f->exit_status, sizeof f->exit_status, "killed by signal %ld (%s)", st.sig, signal_name(st.sig));
    else if (st.code_known)
        snprintf(f->exit_status, sizeof f->exit_status, "exit code %ld", st.code);
    else
        snprintf(f->exit_status, sizeof f->exit_status,
                 "unknown (PERFSCOPE_META child_exit_code / child_signal are not an exit code and a signal)");
    for (size_t i = 0; i < m->meta.n; i++) {   /* CUDA/CUPTI state per process, counted by state */
        if (strncmp(m->meta.v[i].key, "cuda_state.pid.", 15) != 0)
            continue;
        size_t k = 0;
        while (k < f->ncuda && strcmp(f->cuda[k].state, m->meta.v[i].value) != 0)
            k++;
        if (k == f->ncuda && f->ncuda < PS_MAX_CUDA_STATES)
            f->cuda[f->ncuda++] = (struct ps_cuda_state){ .state = m->meta.v[i].value };
        if (k < f->ncuda)
            f->cuda[k].processes++;
    }
    ps_report_rank(r, &f->rank, &f->world_size);
    int32_t rank_one;
    f->launcher_ranks = ps_report_process_ranks(r, &rank_one);
    int64_t n;
    ps_report_dropped_records(r, &n, &fact);
    f->dropped_records = fact == PS_FACT_KNOWN ? n : -1;
    f->wal_file_missing = ps_report_meta(r, "wal_file_missing") != NULL;
    ps_report_gpu_untimed_records(r, &n, &fact);
    f->gpu_records_without_timestamps = fact == PS_FACT_KNOWN ? n : -1;
    int complete;
    ps_report_recording_complete(r, &complete, &fact);
    f->recording_complete = fact == PS_FACT_KNOWN ? complete : -1;
    f->child = st;
    long long v;
    f->still_running_processes = meta_count(r, "still_running_processes", 0, &v) ? v : -1;
    f->other_pidns_rings = meta_count(r, "other_pidns_rings", 0, &v) ? v : -1;
    f->corrupt_rings = meta_count(r, "corrupt_rings", 0, &v) ? v : -1;
}

/* Why processes have no GPU rows, in the probe's words (PERFSCOPE_META cuda_message.pid.N, written for processes
 * whose CUPTI was unavailable or busy): one warning per distinct message, the first few. */
static int gpu_capture_warnings(struct ps_report *r)
{
    enum { MAX_SHOWN = 4 };
    const struct ps_model *m = r->m;
    const char *msg[MAX_SHOWN];
    const char *pid[MAX_SHOWN];
    int count[MAX_SHOWN] = { 0 };
    size_t n = 0;
    for (size_t i = 0; i < m->meta.n; i++) {
        if (strncmp(m->meta.v[i].key, "cuda_message.pid.", 17) != 0 || !*m->meta.v[i].value)
            continue;
        size_t k = 0;
        while (k < n && strcmp(msg[k], m->meta.v[i].value) != 0)
            k++;
        if (k == n && n < MAX_SHOWN) {
            msg[n] = m->meta.v[i].value;
            pid[n++] = m->meta.v[i].key + 17;
        }
        if (k < n)
            count[k]++;
    }
    for (size_t k = 0; k < n; k++) {
        int rc = add(r, PS_MSG_WARNING, "gpu_capture", "no GPU capture in process %s%s: %s", pid[k],
                     count[k] > 1 ? " and others with the same message" : "", msg[k]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Warnings a user must see before any number. */
/* The recording's and the program's end: a missing -wal file, an unfinished or recovered recording, a program
 * killed or failed. 0 or -ENOMEM. */
static int end_warnings(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_child_status st;
    int rc = 0;
    if (r->facts.wal_file_missing &&   /* docs/readers.md: a killed recording copied without its -wal */
        (rc = add(r, PS_MSG_ALERT, "wal_file_missing",
                  "this trace is an unfinished recording in WAL mode without its -wal file beside it: the rows "
                  "committed since the last checkpoint are in that file and missing here (copy FILE-wal along with "
                  "FILE).")) < 0)
        return rc;
    long long recovered, stored_ns, not_stored;
    const char *session = ps_report_meta(r, "recovery.session_dir");
    char hint[1024] = "";        /* how much may be missing (docs/record.md, "When the recorder dies") */
    if (session && meta_count(r, "progress.stored_until_ns", 0, &stored_ns) &&
        meta_count(r, "progress.records_not_stored", 0, &not_stored))
        snprintf(hint, sizeof hint, " Rows were stored up to %.3f s into the recording; then %lld more records had "
                 "been read and not yet stored, and all the program recorded later was still in its rings. While %s "
                 "exists, 'perfscope record --recover %s' adds all of it.", (double)stored_ns / 1e9, not_stored,
                 session, m->path);
    else if (session)
        snprintf(hint, sizeof hint, " No rows were stored before it ended: all the program recorded was still in "
                 "its rings. While %s exists, 'perfscope record --recover %s' adds it.", session, m->path);
    if (recording_incomplete(r) && meta_count(r, "recovered_records", 0, &recovered))
        rc = add(r, PS_MSG_NOTICE, "recording_recovered",
                 "perfscope record died during this recording; 'perfscope record --recover' added the %lld records "
                 "its program had recorded and it had not written. Host samples end where it died.%s", recovered,
                 hint);
    else if (recording_incomplete(r))
        rc = add(r, PS_MSG_ALERT, "recording_incomplete",
                 "the recording did not finish (perfscope record was killed, ran out of disk, or is still "
                 "recording): this trace is incomplete and its numbers cover only what was written.%s", hint);
    if (rc < 0)
        return rc;
    ps_report_child_status(r, &st);
    if (st.sig_out_of_range)
        rc = add(r, PS_MSG_ALERT, "program_killed", "the program was killed by unknown signal %ld.", st.sig);
    else if (st.sig_known && st.sig != 0)
        rc = add(r, PS_MSG_ALERT, "program_killed", "the program was killed by signal %ld (%s).", st.sig,
                 signal_name(st.sig));
    else if (st.code_known && st.code != 0)
        rc = add(r, PS_MSG_ALERT, "program_failed", "the program exited with code %ld.", st.code);
    if (rc < 0)
        return rc;
    return 0;
}

/* What the recording lost: ranges never ended, processes still running, rings of another PID namespace or
 * overwritten, dropped or untimed records, GPU capture, rows that could not be placed. 0 or -ENOMEM. */
static int loss_warnings(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    long long v;
    int rc = 0;
    size_t n = m->open_ranges.n;
    if (n && (rc = add(r, PS_MSG_ALERT, "unterminated_ranges",
                       "%zu NVTX range%s never ended (the program crashed, was killed or exited inside %s, or was "
                       "still running when the recording ended; not in the breakdown)", n, n == 1 ? "" : "s",
                       n == 1 ? "it" : "them")) < 0)
        return rc;
    if (meta_count(r, "still_running_processes", 1, &v) &&
        (rc = add(r, PS_MSG_ALERT, "still_running_processes",
                  "%lld probed process%s still running when the program exited (a daemon or background job): %s "
                  "later records are not in the trace.", v, v == 1 ? " was" : "es were", v == 1 ? "its" : "their")) < 0)
        return rc;
    if (meta_count(r, "other_pidns_rings", 1, &v) &&
        (rc = add(r, PS_MSG_ALERT, "other_pidns_rings",
                  "%lld ring%s came from processes in another PID namespace (unshare, a container): their pids are "
                  "that namespace's, and processes with the same pid there are merged in this report.", v,
                  v == 1 ? "" : "s")) < 0)
        return rc;
    int64_t corrupt = r->facts.corrupt_rings;
    if (corrupt > 0 &&
        (rc = add(r, PS_MSG_ALERT, "corrupt_rings",
                  "%lld process%s overwrote %s ring (a stray pointer?): perfscope stopped reading %s there, so %s "
                  "later records, open ranges and drop counts are missing.", (long long)corrupt,
                  corrupt == 1 ? "" : "es", corrupt == 1 ? "its" : "their", corrupt == 1 ? "it" : "them",
                  corrupt == 1 ? "its" : "their")) < 0)
        return rc;
    if (r->facts.dropped_records > 0)
        rc = add(r, PS_MSG_WARNING, "dropped_records", "%lld records were dropped while recording; numbers may be low",
                 (long long)r->facts.dropped_records);
    else if (r->facts.dropped_records < 0 && m->format == PS_FORMAT_PERFSCOPE && ps_report_meta(r, "dropped_records"))
        rc = add(r, PS_MSG_WARNING, "dropped_records_unknown",
                 "the number of dropped records is unknown (PERFSCOPE_META dropped_records is not a count); "
                 "numbers may be low");
    if (rc < 0)
        return rc;
    int64_t untimed = r->facts.gpu_records_without_timestamps;
    if (untimed > 0 &&
        (rc = add(r, PS_MSG_WARNING, "gpu_records_without_timestamps",
                  "%lld GPU activity record%s came from CUPTI without timestamps and %s left out; GPU numbers may "
                  "be low (see docs/gpu-capture.md, Losses)", (long long)untimed, untimed == 1 ? "" : "s",
                  untimed == 1 ? "is" : "are")) < 0)
        return rc;
    if ((rc = gpu_capture_warnings(r)) < 0)
        return rc;
    if (m->unplaced_events > 0)
        rc = add(r, PS_MSG_WARNING, "unplaced_events",
                 "%lld events of the trace could not be placed in the model and are not counted (reasons: "
                 "run.meta.unplaced_events in the JSON report)", (long long)m->unplaced_events);
    return rc;
}

/* 1 when perfscope record ran the program without its probe (PERFSCOPE_META probe_path empty and no probed
 * process: cli/cmd_record.c find_probe), so no NVTX range or CUDA activity could have been recorded. */
static int no_probe(const struct ps_report *r)
{
    const char *path = ps_report_meta(r, "probe_path");
    long long probed;
    return path && !*path && meta_count(r, "probed_processes", 0, &probed) && probed == 0;
}

#define COVERAGE_WARN_SHARE 0.2    /* the steps leave out at least this share of the run: say so */

/* When the steps leave out much of the run (steps/coverage.c): how much they cover and what lies outside. */
static int coverage_warning(struct ps_report *r)
{
    const struct ps_step_coverage *c = &r->coverage;
    int64_t out = c->run_ns - c->steps_ns;
    if (!c->computed || c->run_ns <= 0 || (double)out < COVERAGE_WARN_SHARE * (double)c->run_ns)
        return 0;
    char what[640] = "", top[256] = "";
    size_t n = 0;
    if (c->data_ns > 0)
        n += (size_t)snprintf(what + n, sizeof what - n, " %.3f ms of it in data-loading ranges (--data-range);",
                              (double)c->data_ns / 1e6);
    if (c->top_name != PS_NONE && c->top_ns > 0) {
        snprintf(top, sizeof top, "%.160s", ps_model_str(r->m, c->top_name));
        n += (size_t)snprintf(what + n, sizeof what - n, " the longest range outside them is %s (%.3f ms "
                              "outside);", top, (double)c->top_ns / 1e6);
    }
    snprintf(what + n, sizeof what - n, " %.3f ms before the first step, %.3f ms after the last.",
             (double)c->before_ns / 1e6, (double)c->after_ns / 1e6);
    return add(r, PS_MSG_WARNING, "steps_cover_part_of_run",
               "the %zu analysed step%s %.1f %% of the run (%.3f of %.3f ms): the verdict and the breakdown "
               "are of the steps alone. Outside them lie %.3f ms (%.1f %% of the run):%s%s",
               r->nsteps, r->nsteps == 1 ? " covers" : "s cover", 100.0 * (double)c->steps_ns / (double)c->run_ns,
               (double)c->steps_ns / 1e6, (double)c->run_ns / 1e6, (double)out / 1e6,
               100.0 * (double)out / (double)c->run_ns, what,
               c->data_ns * 2 > out ? " widen --step-range (or the ranges) to hold the data loading, so the verdict "
                                      "weighs it." : "");
}

/* --skip-steps asked for every step (steps/warmup.c analyses them all): said at the top, where a user looks. */
static int skip_warning(struct ps_report *r)
{
    if (!r->warmup.skip_ignored)
        return 0;
    if (r->whole_run || r->nsteps == 0)
        return add(r, PS_MSG_WARNING, "skip_steps_ignored", "--skip-steps %d: this trace has no steps (the whole run "
                   "is one window), so none was left out.", r->opts.skip_steps);
    return add(r, PS_MSG_WARNING, "skip_steps_ignored", "--skip-steps %d would leave none of the %zu step%s: none was "
               "left out, every step is analysed, warm-up included (give a number below %zu).", r->opts.skip_steps,
               r->nsteps, r->nsteps == 1 ? "" : "s", r->nsteps);
}

static int warnings(struct ps_report *r)
{
    int rc = end_warnings(r);
    if (rc == 0)
        rc = skip_warning(r);
    if (rc == 0)
        rc = loss_warnings(r);
    return rc < 0 ? rc : coverage_warning(r);
}

/* Notes on how to read the numbers, and why there may be nothing to read. */
/* Which trailing steps the step rule left out, and why (steps.c). */
static int tail_note(struct ps_report *r)
{
    size_t out = r->tail_left_out;
    int64_t kept_ns = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        kept_ns += r->steps[i].host_end_ns - r->steps[i].host_start_ns;
    char name[96];
    snprintf(name, sizeof name, "%s", ps_model_str(r->m, r->tail_first_name));
    double ms = (double)r->tail_first_host_ns / 1e6, avg = r->nsteps ? (double)kept_ns / 1e6 / r->nsteps : 0;
    if (r->tail_rule == PS_TAIL_HOST_OPS)
        return add(r, PS_MSG_NOTE, "last_step_left_out",
                   "The last step (%s, %.3f ms on the host against %.3f ms on average for the others) is left out: it "
                   "holds %lld host operation%s against %lld in the step before: the profiler closed it at once (a loop "
                   "that calls prof.step() at the end of each iteration opens one step more than it runs). Without "
                   "GPU work, the PyTorch profiler's TensorBoard plugin rule for the last step is applied to host "
                   "operations, with a share of 0.1 in place of 0.8.",
                   name, ms, avg, (long long)r->tail_host_ops, r->tail_host_ops == 1 ? "" : "s",
                   (long long)r->tail_host_ops_before);
    char which[64] = "The last step";
    if (out > 1)
        snprintf(which, sizeof which, "The last %zu steps", out);
    return add(r, PS_MSG_NOTE, "last_step_left_out",
               "%s (%s%s, %.3f ms on the host) %s left out, as the PyTorch profiler's TensorBoard plugin does: "
               "trailing steps that launched no GPU work, and a last step with fewer than 0.8x the GPU operations of "
               "the one before (the profiler stopped before capturing them all).",
               which, out > 1 ? "from " : "", name, ms, out > 1 ? "are" : "is");
}

static int notes(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    int rc = 0, cuda = r->facts.ncuda > 0;
    int slice = r->all->start_ns != INT64_MIN || r->all->end_ns != INT64_MAX;   /* a slice (ps_report_compute over ps_view_starting) */
    if (!r->has_gpu && r->all->nranges == 0) {
        r->nothing_to_break_down = 1;
        if (slice) {
            rc = add(r, PS_MSG_NOTE, "nothing_to_break_down",
                     "Nothing to break down in the analysed window: no NVTX range and no GPU activity starts in it.");
        } else if (m->open_ranges.n > 0) {
            rc = add(r, PS_MSG_NOTE, "nothing_to_break_down",
                     "Nothing to break down: every NVTX range of this trace never ended (see the warning about "
                     "them) and no GPU activity was recorded.");
        } else if (no_probe(r)) {   /* record found no probe: nothing of the program's own was recorded */
            rc = add(r, PS_MSG_NOTE, "nothing_to_break_down",
                     "Nothing to break down: perfscope record found no probe (libperfscope_probe.so), so it injected "
                     "none and recorded neither NVTX ranges nor CUDA work: this trace holds %s (PERFSCOPE_META "
                     "probe_path is empty, probed_processes 0).",
                     m->samples.n > 0 ? "host samples only" : "no events of the program");
            if (rc == 0 && r->nrecs < PS_MAX_RECS)
                snprintf(r->recs[r->nrecs++], PS_REC_LEN, "Record again with the probe: build it (cmake --build "
                         "build builds libperfscope_probe.so beside perfscope) or install perfscope, or name it with "
                         "PERFSCOPE_PROBE=/path/to/libperfscope_probe.so; perfscope record warns \"libperfscope_probe.so "
                         "not found\" when it records without one.");
        } else {
            rc = add(r, PS_MSG_NOTE, "nothing_to_break_down",
                     "Nothing to break down: no NVTX ranges and no GPU activity were recorded. The program did not "
                     "use NVTX, did not import torch under perfscope's Python hook (which finds a PyTorch program's "
                     "steps and DataLoader fetches by itself: README \"PyTorch\") and no CUDA work was captured%s.",
                     cuda ? " (see the CUDA/CUPTI state)" : "");
            if (r->nrecs < PS_MAX_RECS)
                snprintf(r->recs[r->nrecs++], PS_REC_LEN, "Mark each training step with an NVTX range named "
                         "\"step\" (or name yours with --step-range), and run the program's CUDA work under "
                         "perfscope record%s.", m->samples.n > 0 ? "; the host samples are all this trace measured" : "");
        }
    } else if (!r->has_gpu) {
        rc = add(r, PS_MSG_NOTE, "no_gpu_rows",
                 "No GPU rows (kernels, copies, memsets) in %s: the host is treated as the device — ranges "
                 "matching --data-range count as DataLoader, --copy-range as Memcpy, the rest of each step as "
                 "Compute (host compute; the \"kernel\" key in JSON); GPU utilisation is not defined.",
                 slice ? "the analysed window" : "this trace");
        if (rc == 0 && m->format == PS_FORMAT_PERFSCOPE && !slice)
            rc = add(r, PS_MSG_NOTE, "cuda_state",
                     cuda ? "Whether CUDA was injected and CUPTI ran: see the CUDA/CUPTI state."
                          : "The trace does not say whether CUDA was injected (no CUDA/CUPTI state).");
    }
    if (rc < 0)
        return rc;
    if (r->whole_run && !r->nothing_to_break_down &&
        (rc = add(r, PS_MSG_NOTE, "no_steps",
                  "No steps: no range matches --step-range, so the whole %s is analysed as one window (name your "
                  "step ranges with --step-range, or mark each step with an NVTX range named \"step\").%s%s%s",
                  slice ? "slice" : "run", r->steps_note[0] ? " Step inference (--steps): " : "", r->steps_note,
                  r->steps_note[0] ? "." : "")) < 0)
        return rc;
    if (r->steps_inferred)
        rc = add(r, PS_MSG_NOTE, "steps_inferred", "Steps: %s%s.",
                 r->step_ranges_found ? "--steps infer (step ranges exist but are not used): "
                                      : "no range matches --step-range; ", r->steps_note);
    else if (!r->whole_run && r->steps_note[0])
        rc = add(r, PS_MSG_NOTE, "steps_inference_unused", "--steps infer: %s; the step ranges are used.",
                 r->steps_note);
    if (rc < 0)
        return rc;
    if (!r->whole_run && !r->steps_inferred && r->step_threads > 1 &&
        (rc = add(r, PS_MSG_NOTE, "step_threads",
                  "Step ranges are on %zu threads of process %u: thread %u, which holds the most, is analysed as the "
                  "step sequence; the other threads' step ranges are not steps of it.", r->step_threads, r->pid,
                  m->threads.v[r->step_thread].tid)) < 0)
        return rc;
    if (!r->whole_run && !r->steps_inferred && r->tail_left_out > 0 && (rc = tail_note(r)) < 0)
        return rc;
    if (ps_report_compat_tb_no_comm(r) &&
        (rc = add(r, PS_MSG_NOTE, "compat_tb_no_comm", "%s", ps_report_compat_tb_note)) < 0)
        return rc;
    int hta = !isnan(r->comm_comp_overlap) || r->nidle > 0;
    for (size_t i = 0; i < r->ndevs; i++)
        hta |= r->devs[i].hta_span_ns > 0;
    if (hta)
        rc = add(r, PS_MSG_NOTE, "hta_rounding",
                 "The HTA numbers are computed exactly in ns; HTA itself rounds times to whole µs, so its own "
                 "output may differ slightly, most on traces with fractional-µs (float) timestamps "
                 "(docs/report.md).");
    return rc;
}

/* Messages are added in one order (alerts, warnings, notes: docs/report.md); the first failure stops them and is
 * returned as it is. */
int ps_messages_compute(struct ps_report *r)
{
    run_facts(r);
    int rc = warnings(r);
    if (rc == 0)
        rc = notes(r);
    return rc;
}

void ps_messages_fini(struct ps_report *r)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        free(r->msgs[i].text);
    free(r->msgs);
    r->msgs = NULL;
    r->nmsgs = 0;
}
