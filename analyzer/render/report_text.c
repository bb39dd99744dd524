/* `perfscope report --format text`: the same numbers as the JSON report, laid out for a person — run summary,
 * steps and their breakdown, the verdict with evidence and fixes, GPU breakdowns per device, top kernels,
 * copies and findings. Durations print in ms with µs precision. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/names.h"
#include "ps_utf8.h"
#include "render/render.h"

#define MS(ns) ((double)(ns) / 1e6)

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/* A share in a `width`-character column: "12.34%", or N/A over a zero-length window (JSON: null; never a fake
 * 0.00 %). `paren`: in parentheses, for the "(sync)" column that is part of other columns. */
static void put_share(FILE *f, int64_t part, int64_t whole, int width, int paren)
{
    char buf[32];
    double p = pct(part, whole);
    if (isnan(p))
        snprintf(buf, sizeof buf, paren ? "(N/A)" : "N/A");
    else
        snprintf(buf, sizeof buf, paren ? "(%.2f%%)" : "%.2f%%", p);
    fprintf(f, " %*s", width, buf);
}

/* "(0.123)": a sync value, printed in parentheses because it is part of Runtime + CPU Exec + Other. */
static void put_sync(FILE *f, int64_t ns)
{
    char buf[32];
    snprintf(buf, sizeof buf, "(%.3f)", MS(ns));
    fprintf(f, " %10s", buf);
}

/* The verdict name as the text shows it: without GPU rows the `kernel` verdict is host compute, "compute"
 * (the JSON keeps "kernel", DESIGN §4). */
static const char *bn_label(const struct ps_report *r, enum ps_bottleneck b)
{
    return b == PS_BN_KERNEL && !r->has_gpu ? "compute" : ps_bottleneck_name[b];
}

/* Print escaped `buf` (more than `width` characters) as head...tail in `width` characters. */
static void name_cut(FILE *f, const char *buf, int width)
{
    int tail = (width - 3) / 2, head = width - 3 - tail;
    const char *p = buf;
    size_t len = strlen(buf);
    for (int i = 0; i < head && *p; i++) {   /* whole UTF-8 sequences (ps_text_escape left only well-formed ones) */
        int k = ps_utf8_seq((const unsigned char *)p, len - (size_t)(p - buf));
        p += k > 0 ? k : 1;
    }
    fwrite(buf, 1, (size_t)(p - buf), f);
    fputs("...", f);
    const char *q = buf + len;
    for (int i = 0; i < tail; i++) {
        do
            q--;
        while (q > p && ((unsigned char)*q & 0xC0) == 0x80);
    }
    fputs(q, f);
}

/* Print a name escaped (ps_text_escape: a name can never forge a line or a terminal escape). width 0: in full;
 * else padded to `width` characters, a longer one cut in the middle ("head...tail") so the distinctive tail of
 * names sharing a long prefix stays visible. */
static void put_name(FILE *f, const char *s, int width)
{
    char small[256];
    size_t nchars, cap = 4 * strlen(s) + 1;   /* an escape is at most 4 bytes per input byte */
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf) {                               /* out of memory: the escaped start of the name */
        buf = small;
        cap = sizeof small;
    }
    ps_text_escape(s, buf, cap, &nchars);
    if (width <= 0) {
        fputs(buf, f);
    } else if ((int)nchars <= width) {
        fprintf(f, "%s%*s", buf, width - (int)nchars, "");
    } else {
        name_cut(f, buf, width);
    }
    if (buf != small)
        free(buf);
}

/* A range name in evidence: grouped by its base, so shown without an emit_nvtx suffix (ps_names_base_len). */
static void put_base_name(FILE *f, const char *s)
{
    size_t len = ps_names_base_len(s);
    char *base = s[len] ? strndup(s, len) : NULL;
    put_name(f, base ? base : s, 0);
    free(base);
}

/* Column label of a step-time category. Without GPU rows the Kernel category is the host's compute: "Compute"
 * in every table (the JSON key stays "kernel"). */
static const char *cat_label(const struct ps_report *r, int c)
{
    return c == PS_CAT_COMM ? "Comm" : c == PS_CAT_KERNEL && !r->has_gpu ? "Compute" : ps_cat_label[c];
}

/* "SIGKILL", "signal" for another signal in 1..64, "unknown signal" outside (not a Linux signal). */
static const char *signal_name(long sig)
{
    if (sig < 1 || sig > 64)
        return "unknown signal";
    static const char *const names[] = { [1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL",
                                         [5] = "SIGTRAP", [6] = "SIGABRT", [7] = "SIGBUS", [8] = "SIGFPE",
                                         [9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
                                         [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [24] = "SIGXCPU",
                                         [25] = "SIGXFSZ" };
    return sig > 0 && sig < (long)(sizeof names / sizeof names[0]) && names[sig] ? names[sig] : "signal";
}

#define OPEN_THREADS_SHOWN 8
#define OPEN_NAMES_SHOWN 12

/* NVTX ranges that never ended: where the program was when it crashed, was killed or exited. One line per
 * thread (the first OPEN_THREADS_SHOWN), its ranges outermost first ("step > forward"), domain in brackets. */
static void open_ranges(FILE *f, const struct ps_model *m)
{
    size_t n = m->open_ranges.n, threads = 0;
    if (n == 0)
        return;
    fprintf(f, "WARNING: %zu NVTX range%s never ended (the program crashed, was killed or exited inside %s, or "
               "was still running when the recording ended; not in the breakdown):\n", n, n == 1 ? "" : "s",
            n == 1 ? "it" : "them");
    for (size_t i = 0; i < n && threads < OPEN_THREADS_SHOWN; threads++) {
        const struct ps_range *first = &m->open_ranges.v[i];
        if (first->thread < m->threads.n)
            fprintf(f, "  pid %u tid %u: ", m->threads.v[first->thread].pid, m->threads.v[first->thread].tid);
        else
            fputs("  (no thread): ", f);
        size_t k = 0;
        for (; i < n && m->open_ranges.v[i].thread == first->thread; i++, k++) {
            const struct ps_range *o = &m->open_ranges.v[i];
            if (k >= OPEN_NAMES_SHOWN)
                continue;
            fputs(k ? " > " : "", f);
            const char *name = ps_model_str(m, o->name);
            put_name(f, *name ? name : "(no text)", 0);     /* mirrored without its inline text */
            if (o->domain != PS_NONE) {
                fputs(" [", f);
                put_name(f, ps_model_str(m, o->domain), 0);
                fputs("]", f);
            }
        }
        if (k > OPEN_NAMES_SHOWN)
            fprintf(f, " > ... (%zu more)", k - OPEN_NAMES_SHOWN);
        fputs("\n", f);
    }
    size_t all_threads = 1;             /* sorted by thread: count the changes */
    for (size_t i = 1; i < n; i++)
        all_threads += m->open_ranges.v[i].thread != m->open_ranges.v[i - 1].thread;
    if (all_threads > threads)
        fprintf(f, "  ... and %zu more threads (all in --format json: source.unterminated_ranges)\n",
                all_threads - threads);
}

/* Warnings a user must see first: an unfinished recording, a program that crashed or failed, lost records. */
static void warnings(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    struct ps_child_status st;
    if (ps_report_meta(r, "wal_file_missing"))    /* docs/readers.md: a killed recording copied without its -wal */
        fprintf(f, "WARNING: this trace is an unfinished recording in WAL mode without its -wal file beside it: the "
                   "rows committed since the last checkpoint are in that file and missing here (copy FILE-wal along "
                   "with FILE).\n");
    int64_t dropped = ps_report_dropped_records(r);
    long long recovered, stored_ns, not_stored;
    if (ps_report_recording_complete(r) == 0 && ps_report_meta_int(r, "recovered_records", 0, INT64_MAX, &recovered) == 1)
        fprintf(f, "NOTE: perfscope record died during this recording; 'perfscope record --recover' added the %lld "
                   "records its program had recorded and it had not written. Host samples end where it died.\n",
                recovered);
    else if (ps_report_recording_complete(r) == 0)
        fprintf(f, "WARNING: the recording did not finish (perfscope record was killed, ran out of disk, or is "
                   "still recording): this trace is incomplete and its numbers cover only what was written.\n");
    /* How much may be missing (docs/record.md, "When the recorder dies"): the recorder's last commit. */
    if (ps_report_recording_complete(r) == 0 && ps_report_meta(r, "recovery.session_dir") &&
        ps_report_meta_int(r, "progress.stored_until_ns", 0, INT64_MAX, &stored_ns) == 1 &&
        ps_report_meta_int(r, "progress.records_not_stored", 0, INT64_MAX, &not_stored) == 1)
        fprintf(f, "  Rows were stored up to %.3f s into the recording; then %lld more records had been read and "
                   "not yet stored, and all the program recorded later was still in its rings. While %s exists, "
                   "'perfscope record --recover %s' adds all of it.\n", stored_ns / 1e9, not_stored,
                ps_report_meta(r, "recovery.session_dir"), r->m->path ? r->m->path : "TRACE");
    else if (ps_report_recording_complete(r) == 0 && ps_report_meta(r, "recovery.session_dir"))
        fprintf(f, "  No rows were stored before it ended: all the program recorded was still in its rings. While "
                   "%s exists, 'perfscope record --recover %s' adds it.\n", ps_report_meta(r, "recovery.session_dir"),
                r->m->path ? r->m->path : "TRACE");
    ps_report_child_status(r, &st);
    if (st.sig_out_of_range)
        fprintf(f, "WARNING: the program was killed by unknown signal %ld.\n", st.sig);
    else if (st.sig_known && st.sig != 0)
        fprintf(f, "WARNING: the program was killed by signal %ld (%s).\n", st.sig, signal_name(st.sig));
    else if (st.code_known && st.code != 0)
        fprintf(f, "WARNING: the program exited with code %ld.\n", st.code);
    open_ranges(f, m);
    long long running, pidns;
    if (ps_report_meta_int(r, "still_running_processes", 1, INT64_MAX, &running) == 1)
        fprintf(f, "WARNING: %lld probed process%s still running when the program exited (a daemon or background "
                   "job): %s later records are not in the trace.\n", running,
                running == 1 ? " was" : "es were", running == 1 ? "its" : "their");
    if (ps_report_meta_int(r, "other_pidns_rings", 1, INT64_MAX, &pidns) == 1)
        fprintf(f, "WARNING: %lld ring%s came from processes in another PID namespace (unshare, a container): "
                   "their pids are that namespace's, and processes with the same pid there are merged in this "
                   "report.\n", pidns, pidns == 1 ? "" : "s");
    long long corrupt;
    if (ps_report_meta_int(r, "corrupt_rings", 1, INT64_MAX, &corrupt) == 1)
        fprintf(f, "WARNING: %lld process%s overwrote %s ring (a stray pointer?): perfscope stopped reading %s there, "
                   "so %s later records, open ranges and drop counts are missing.\n", corrupt,
                corrupt == 1 ? "" : "es", corrupt == 1 ? "its" : "their", corrupt == 1 ? "it" : "them",
                corrupt == 1 ? "its" : "their");
    if (dropped > 0)
        fprintf(f, "Warning: %lld records were dropped while recording; numbers may be low\n", (long long)dropped);
    else if (dropped < 0 && m->format == PS_FORMAT_PERFSCOPE && ps_report_meta(r, "dropped_records"))
        fprintf(f, "Warning: the number of dropped records is unknown (PERFSCOPE_META dropped_records is not a "
                   "count); numbers may be low\n");
    int64_t untimed = ps_report_gpu_untimed_records(r);
    if (untimed > 0)
        fprintf(f, "Warning: %lld GPU activity record%s came from CUPTI without timestamps and %s left out; GPU "
                   "numbers may be low (see docs/gpu-capture.md, Losses)\n", (long long)untimed,
                untimed == 1 ? "" : "s", untimed == 1 ? "is" : "are");
    if (m->unplaced_events > 0)
        fprintf(f, "Warning: %lld events of the trace could not be placed in the model and are not counted "
                   "(reasons: run.meta.unplaced_events in --format json)\n", (long long)m->unplaced_events);
}

/* The few metadata lines a user needs (all of it is in the JSON's run.meta). Returns 1 when a CUDA/CUPTI line
 * was printed. */
static int short_meta(FILE *f, const struct ps_report *r)
{
    static const char *const keys[][2] = { { "command_line", "Command" }, { "host", "Host" },
                                           { "start_time_utc", "Started" } };
    const struct ps_model *m = r->m;
    const char *v;
    int cuda = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if ((v = ps_report_meta(r, keys[i][0])) != NULL) {
            fprintf(f, "%s: ", keys[i][1]);
            put_name(f, *v ? v : "unknown (empty in PERFSCOPE_META)", 0);
            fputc('\n', f);
        }
    long long ns;
    int known = ps_report_meta_int(r, "duration_ns", 0, INT64_MAX, &ns);
    if (known == 1)
        fprintf(f, "Program ran: %.3f s\n", (double)ns / 1e9);
    else if (known < 0)
        fprintf(f, "Program ran: unknown (PERFSCOPE_META duration_ns is not a duration in ns)\n");
    struct ps_child_status st;
    ps_report_child_status(r, &st);
    if (st.recorded) {
        fputs("Exit status: ", f);
        if (st.sig_out_of_range)
            fprintf(f, "killed by unknown signal %ld\n", st.sig);
        else if (st.sig_known && st.sig != 0)
            fprintf(f, "killed by signal %ld (%s)\n", st.sig, signal_name(st.sig));
        else if (st.code_known)
            fprintf(f, "exit code %ld\n", st.code);
        else
            fputs("unknown (PERFSCOPE_META child_exit_code / child_signal are not an exit code and a signal)\n", f);
    }
    /* CUDA/CUPTI state per process, counted by state */
    const char *states[8];
    int counts[8], nstates = 0;
    for (size_t i = 0; i < m->meta.n; i++) {
        if (strncmp(m->meta.v[i].key, "cuda_state.pid.", 15) != 0)
            continue;
        int k = 0;
        while (k < nstates && strcmp(states[k], m->meta.v[i].value) != 0)
            k++;
        if (k == nstates && nstates < 8)
            states[nstates] = m->meta.v[i].value, counts[nstates++] = 0;
        if (k < nstates)
            counts[k]++;
    }
    if (nstates) {
        fprintf(f, "CUDA/CUPTI state:");
        for (int k = 0; k < nstates; k++) {
            fprintf(f, "%s ", k ? "," : "");
            put_name(f, *states[k] ? states[k] : "unknown", 0);
            fprintf(f, " in %d process%s", counts[k], counts[k] == 1 ? "" : "es");
        }
        fputc('\n', f);
        cuda = 1;
    }
    if (m->samples.n > 0) {
        int64_t wall = m->samples.last_ns - m->samples.first_ns;
        fprintf(f, "Host samples: %lld over %.3f s, CPU time %.3f s", (long long)m->samples.n, (double)wall / 1e9,
                (double)m->samples.cpu_ns / 1e9);
        if (wall > 0)
            fprintf(f, " (%.2f cores on average)", (double)m->samples.cpu_ns / (double)wall);
        fputc('\n', f);
    }
    if (m->meta.n)
        fprintf(f, "(all %zu metadata entries: run.meta in --format json)\n", m->meta.n);
    return cuda;
}

static void run_summary(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fputs("perfscope report: ", f);
    put_name(f, m->path, 0);
    fprintf(f, " (%s trace)\n\n", ps_format_name(m->format));
    warnings(f, r);
    if (r->nevents == 0)   /* no span to measure: the duration is the program's (metadata, host samples) */
        fprintf(f, "Run: no events, %zu process%s, %zu thread%s\n", m->procs.n, m->procs.n == 1 ? "" : "es",
                m->threads.n, m->threads.n == 1 ? "" : "s");
    else
        fprintf(f, "Run: %.3f ms, %zu process%s, %zu thread%s, %zu events (%zu GPU rows, %zu API calls, %zu ranges)\n",
                MS(r->run_end_ns - r->run_start_ns), m->procs.n, m->procs.n == 1 ? "" : "es", m->threads.n,
                m->threads.n == 1 ? "" : "s", r->nevents, m->gpu.n, m->api.n, m->ranges.n);
    int32_t rank, world, rank_one;
    char world_buf[16];
    ps_report_rank(r, &rank, &world);
    snprintf(world_buf, sizeof world_buf, "%d", world);
    size_t launcher = ps_report_process_ranks(r, &rank_one);
    if (launcher >= 2)
        fprintf(f, "Launcher trace: %zu ranks, each a process of this trace (world size %s)\n", launcher,
                world > 0 ? world_buf : "unknown");
    else if (rank >= 0 && world > 0)
        fprintf(f, "Rank %d of %d\n", rank, world);
    else if (rank >= 0)
        fprintf(f, "Rank %d (world size unknown)\n", rank);
    int cuda = short_meta(f, r);
    if (!r->has_gpu && m->ranges.n == 0 && m->open_ranges.n > 0) {
        fprintf(f, "\nNothing to break down: every NVTX range of this trace never ended (listed above) and no GPU "
                   "activity was recorded.\n");
    } else if (!r->has_gpu && m->ranges.n == 0) {
        fprintf(f, "\nNothing to break down: no NVTX ranges and no GPU activity were recorded. The program did not use "
                   "NVTX, did not import torch under perfscope's Python hook (which finds a PyTorch program's steps "
                   "and DataLoader fetches by itself: README \"PyTorch\") and no CUDA work was captured%s. What to do: mark each training step with an NVTX range named "
                   "\"step\" (or name yours with --step-range), and run the program's CUDA work under perfscope "
                   "record; the host samples above are all this trace measured.\n",
                cuda ? " (see the CUDA/CUPTI state above)" : "");
    } else if (!r->has_gpu) {
        fprintf(f, "No GPU rows (kernels, copies, memsets) in this trace: the host is treated as the device — ranges "
                   "matching --data-range count as DataLoader, --copy-range as Memcpy, the rest of each step as "
                   "Compute (host compute; the \"kernel\" key in JSON); GPU utilisation is not defined.\n");
        if (m->format == PS_FORMAT_PERFSCOPE)
            fprintf(f, "%s\n", cuda ? "Whether CUDA was injected and CUPTI ran: see the CUDA/CUPTI state above."
                                    : "The trace does not say whether CUDA was injected (no CUDA/CUPTI state).");
    }
}

/* The 5 slowest step windows (indices into r->steps), slowest first; returns how many. */
static size_t slowest_steps(const struct ps_report *r, size_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        int64_t d = r->steps[i].end_ns - r->steps[i].start_ns;
        size_t pos = n < 5 ? n++ : 5;
        while (pos > 0 && r->steps[out[pos - 1]].end_ns - r->steps[out[pos - 1]].start_ns < d) {
            if (pos < 5)
                out[pos] = out[pos - 1];
            pos--;
        }
        if (pos < 5)
            out[pos] = i;
    }
    return n;
}

static void step_row(FILE *f, const struct ps_report *r, size_t i, int slow)
{
    const struct ps_step *s = &r->steps[i];
    fprintf(f, "%4zu ", i + 1);
    char inferred[32];
    snprintf(inferred, sizeof inferred, "inferred#%zu", i + 1);
    const char *name = s->name != PS_NONE ? ps_model_str(r->m, s->name) : r->steps_inferred ? inferred : "(whole run)";
    size_t len = ps_names_base_len(name);   /* "ProfilerStep#3, op_id = 17" shows as ProfilerStep#3 */
    char *base = name[len] ? strndup(name, len) : NULL;
    put_name(f, base ? base : name, 18);
    free(base);
    fprintf(f, " %10.3f", MS(s->end_ns - s->start_ns));
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10.3f", MS(s->cat_ns[c]));
    put_sync(f, s->sync_ns);
    fprintf(f, "  %s%s\n", bn_label(r, s->bottleneck), slow ? "  (slowest)" : "");
}

/* Under the steps table: what "(sync)" is, and the average step in the verdict's groups (DESIGN §4), so that
 * the verdict's `host` share visibly differs from Runtime + CPU Exec + Other by the sync time. */
static void verdict_groups(FILE *f, const struct ps_report *r)
{
    const int64_t *c = r->avg.cat_ns, d = r->avg_dur_ns;
    if (d <= 0) {
        fputs("The window is zero-length: its shares are N/A (null in --format json).\n", f);
        return;
    }
    fprintf(f, "(sync) is not a category of its own: it is the part of Runtime + CPU Exec + Other (\"of which sync\") "
               "in which the GPU idles while the host is in a synchronising call or between its return and the next "
               "GPU activity, so the eight shares above sum to 100 %%.\nThe verdict groups the average step as: %s",
            bn_label(r, PS_BN_KERNEL));
    put_share(f, c[PS_CAT_KERNEL], d, 0, 0);
    fputs(", data-loading", f);
    put_share(f, c[PS_CAT_DATALOADER], d, 0, 0);
    fputs(", memcpy", f);
    put_share(f, c[PS_CAT_MEMCPY] + c[PS_CAT_MEMSET], d, 0, 0);
    fputs(", communication", f);
    put_share(f, c[PS_CAT_COMM], d, 0, 0);
    fputs(", sync", f);
    put_share(f, r->avg.sync_ns, d, 0, 0);
    fputs(", host", f);
    put_share(f, c[PS_CAT_RUNTIME] + c[PS_CAT_CPU_EXEC] + c[PS_CAT_OTHER] - r->avg.sync_ns, d, 0, 0);
    fputs(" (host = Runtime + CPU Exec + Other - sync).\n", f);
}

static void steps_table(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    if (r->whole_run && m->ranges.n == 0 && !r->has_gpu)
        return;   /* run_summary said why there is nothing to break down */
    fputc('\n', f);
    if (r->whole_run)
        fprintf(f, "Steps: no range matches --step-range; the whole run is one window.%s%s\n",
                r->steps_note[0] ? "\n  " : "", r->steps_note);
    else if (r->steps_inferred)
        fprintf(f, "Steps: %s%s.\n", r->step_ranges_found ? "--steps infer (step ranges exist but are not used): " :
                                      "no range matches --step-range; ", r->steps_note);
    else
        fprintf(f, "Steps: %zu analysed of %zu step ranges found; process %u (%s)\n", r->nsteps, r->step_ranges_found,
                r->pid, r->has_gpu ? "windows as the PyTorch profiler's TensorBoard plugin extends them to the GPU work "
                                     "they launched"
                                   : "windows are the host ranges");
    if (!r->whole_run && !r->steps_inferred && r->steps_note[0])
        fprintf(f, "  --steps infer: %s; the step ranges are used.\n", r->steps_note);
    if (!r->whole_run && !r->steps_inferred && r->step_threads > 1)
        fprintf(f, "Step ranges are on %zu threads of process %u: thread %u, which holds the most, is analysed as the "
                   "step sequence; the other threads' step ranges are not steps of it.\n",
                r->step_threads, r->pid, m->threads.v[r->step_thread].tid);
    fprintf(f, "\nStep-time breakdown (ms; each instant goes to the highest-priority category active%s)\n",
            r->opts.compat_tb ? "; --compat tb: tb's communication rule and time rounding" : "");
    if (ps_report_compat_tb_no_comm(r))
        fprintf(f, "Note: %s\n", ps_report_compat_tb_note);
    fprintf(f, "%4s %-18s %10s", "#", "step", "duration");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10s", cat_label(r, c));
    fprintf(f, " %10s  %s\n", "(sync)", "verdict");
    size_t slow[5], nslow = slowest_steps(r, slow);
    int all = r->opts.all_steps || r->nsteps <= 20;
    size_t shown = 0;
    int gap = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        int is_slow = 0;
        for (size_t k = 0; k < nslow && r->nsteps > 1; k++)
            is_slow |= slow[k] == i;
        if (all || i < 10 || i + 5 >= r->nsteps || is_slow) {
            if (gap)
                fprintf(f, "%4s ...\n", "");
            gap = 0;
            step_row(f, r, i, is_slow && !all);
            shown++;
        } else {
            gap = 1;
        }
    }
    fprintf(f, "%4s %-18s %10.3f", "", "average", MS(r->avg_dur_ns));
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10.3f", MS(r->avg.cat_ns[c]));
    put_sync(f, r->avg.sync_ns);
    fprintf(f, "  %s\n", bn_label(r, r->bottleneck));
    fprintf(f, "%4s %-18s %10s", "", "share", "");
    for (int c = 0; c < PS_CAT_N; c++)
        put_share(f, r->avg.cat_ns[c], r->avg_dur_ns, 10, 0);
    put_share(f, r->avg.sync_ns, r->avg_dur_ns, 10, 1);
    fputc('\n', f);
    if (shown < r->nsteps)
        fprintf(f, "%zu more steps: all in --format json (or list them with --all-steps)\n", r->nsteps - shown);
    verdict_groups(f, r);
}

static void verdict(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    fprintf(f, "\nVerdict: %s", bn_label(r, r->bottleneck));
    if (r->bottleneck != PS_BN_UNKNOWN)
        fprintf(f, " (%s%.1f %% of the average step)",
                r->bottleneck == PS_BN_KERNEL && !r->has_gpu ? "host compute, \"kernel\" in JSON; " : "",
                100.0 * r->share);
    else
        fprintf(f, " (%s)", m->ranges.n == 0 && !r->has_gpu ? "nothing to break down: see above"
                            : r->whole_run ? "zero-length window: nothing to classify"
                                           : "zero-length steps: nothing to classify");
    if (!isnan(r->gpu_util))
        fprintf(f, "; GPU utilisation %.2f %%", 100.0 * r->gpu_util);
    fputc('\n', f);
    if (r->nevidence)
        fprintf(f, "Evidence (rows inside the analysed steps; time summed over rows, overlaps counted twice):\n");
    for (size_t i = 0; i < r->nevidence; i++) {
        const struct ps_evidence *e = &r->evidence[i];
        fprintf(f, "  %-6s %7lld x  %10.3f ms  ", e->kind, (long long)e->count, MS(e->total_ns));
        if (!strcmp(e->kind, "range"))
            put_base_name(f, ps_model_str(m, e->name));
        else
            put_name(f, ps_model_str(m, e->name), 0);
        fputc('\n', f);
    }
    if (r->nrecs)
        fprintf(f, "What to do:\n");
    for (size_t i = 0; i < r->nrecs; i++)
        fprintf(f, "  - %s\n", r->recs[i]);
}

/* TraceLens' GPU timeline: linked events, all devices merged; the recompute split as rows of their own. */
static void print_tracelens(FILE *f, const struct ps_report *r)
{
    static const char *const set[] = { "", " (not recompute)", " (recompute)" };
    if (r->ntl == 0 || r->tl[0].events == 0)
        return;
    fprintf(f, "\nTraceLens GPU timeline (all devices merged; %lld GPU events linked to a launch in the trace by %s, "
               "%lld unlinked left out):\n", (long long)r->tl[0].events,
            r->tl_by_flows ? "ac2g flow" : "correlation id", (long long)r->tl_unlinked);
    for (size_t i = 0; i < r->ntl; i++) {
        const struct ps_tl_row *t = &r->tl[i];
        fprintf(f, "  %lld events%s over %.3f ms: computation %.3f ms (%.2f %%), exposed comm %.3f ms, exposed memcpy "
                   "%.3f ms, idle %.3f ms (%.2f %%)\n", (long long)t->events, set[t->set], MS(t->total_ns),
                MS(t->computation_ns), pct(t->computation_ns, t->total_ns), MS(t->exposed_comm_ns),
                MS(t->exposed_memcpy_ns), MS(t->idle_ns), pct(t->idle_ns, t->total_ns));
    }
}

static void gpu(FILE *f, const struct ps_report *r)
{
    print_tracelens(f, r);
    for (size_t i = 0; i < r->ndevs; i++) {
        const struct ps_device_stat *d = &r->devs[i];
        fprintf(f, "\nGPU %d: %lld kernels (%.3f ms), %lld copies (%.1f MB), %lld memsets", d->device,
                (long long)d->kernel_count, MS(d->kernel_ns), (long long)d->memcpy_count,
                (double)d->memcpy_bytes / 1e6, (long long)d->memset_count);
        if (!isnan(d->gpu_util))
            fprintf(f, "; utilisation in the steps %.2f %%", 100.0 * d->gpu_util);
        fputc('\n', f);
        if (d->hta_span_ns > 0)
            fprintf(f, "  HTA temporal breakdown over %.3f ms active span: idle %.2f %%, compute %.2f %%, "
                       "non-compute %.2f %%\n",
                    MS(d->hta_span_ns), pct(d->hta_idle_ns, d->hta_span_ns), pct(d->hta_compute_ns, d->hta_span_ns),
                    pct(d->hta_non_compute_ns, d->hta_span_ns));
        if (d->tl_total_ns > 0)
            fprintf(f, "  perfscope per-device timeline (every GPU event; TraceLens' categories) over %.3f ms: computation %.3f ms (%.2f %%), exposed comm %.3f ms, "
                       "exposed memcpy %.3f ms, idle %.3f ms (%.2f %%)\n",
                    MS(d->tl_total_ns), MS(d->tl_computation_ns), pct(d->tl_computation_ns, d->tl_total_ns),
                    MS(d->tl_exposed_comm_ns), MS(d->tl_exposed_memcpy_ns), MS(d->tl_idle_ns),
                    pct(d->tl_idle_ns, d->tl_total_ns));
        for (size_t k = 0; k < r->nidle; k++) {
            const struct ps_idle_stat *s = &r->idle[k];
            if (s->device == d->device)
                fprintf(f, "  stream %-6lld idle: host_wait %.3f ms, kernel_wait %.3f ms, other %.3f ms\n",
                        (long long)s->stream, MS(s->host_wait_ns), MS(s->kernel_wait_ns), MS(s->other_ns));
        }
    }
    if (!isnan(r->comm_comp_overlap))
        fprintf(f, "Communication overlapped by computation (HTA): %.2f %%\n", 100.0 * r->comm_comp_overlap);
    int hta = !isnan(r->comm_comp_overlap) || r->nidle > 0;
    for (size_t i = 0; i < r->ndevs; i++)
        hta |= r->devs[i].hta_span_ns > 0;
    if (hta)
        fprintf(f, "Note: the HTA numbers are computed exactly in ns; HTA itself rounds times to whole µs, so its own "
                   "output may differ slightly, most on traces with fractional-µs (float) timestamps (docs/report.md).\n");
}

static void summaries(FILE *f, const struct ps_report *r)
{
    const struct ps_model *m = r->m;
    size_t top = r->opts.top_n > 0 && (size_t)r->opts.top_n < r->nkernels ? (size_t)r->opts.top_n : r->nkernels;
    if (top) {
        fprintf(f, "\nTop %zu of %zu kernel names by total time (ms)\n", top, r->nkernels);
        fprintf(f, "%8s %11s %9s %9s %9s %9s  %s\n", "count", "total", "avg", "median", "min", "max", "kernel");
    }
    for (size_t i = 0; i < top; i++) {
        const struct ps_kernel_stat *k = &r->kernels[i];
        fprintf(f, "%8lld %11.3f %9.3f %9.3f %9.3f %9.3f  ", (long long)k->count, MS(k->total_ns),
                MS(k->total_ns / k->count), MS(k->median_ns), MS(k->min_ns), MS(k->max_ns));
        put_name(f, ps_model_str(m, k->name), 0);   /* in full: cut names of different kernels can look alike */
        fputc('\n', f);
    }
    if (r->ncopies) {
        fprintf(f, "\nCopies and memsets\n%-8s %-10s %-10s %8s %12s %11s %8s\n", "kind", "from", "to", "count", "MB",
                "ms", "GB/s");
    }
    for (size_t i = 0; i < r->ncopies; i++) {
        const struct ps_copy_stat *c = &r->copies[i];
        fprintf(f, "%-8s %-10s %-10s %8lld %12.3f %11.3f ", ps_copy_kind_name(c),
                c->kind == PS_GPU_MEMCPY ? ps_mem_kind_name(c->src_kind) : "-", ps_mem_kind_name(c->dst_kind),
                (long long)c->count, (double)c->bytes / 1e6, MS(c->total_ns));
        if (c->total_ns > 0)
            fprintf(f, "%8.2f\n", (double)c->bytes / (double)c->total_ns);
        else
            fprintf(f, "%8s\n", "N/A");
    }
    if (r->nfindings)
        fprintf(f, "\nFindings (rows: \"at X ms\" from the run's first event; names in full, last)\n");
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct ps_finding *g = &r->findings[i];
        fprintf(f, "  [%s] %s: ", g->severity, g->rule);
        put_name(f, g->summary, 0);   /* escaped: a summary may quote names from the trace */
        fputc('\n', f);
        for (size_t j = 0; j < g->nrows; j++) {
            const struct ps_row *w = &g->rows[j];
            char where[48];
            if (w->start_ns >= 0)
                snprintf(where, sizeof where, "at %.3f ms", MS(w->start_ns - r->run_start_ns));
            else
                snprintf(where, sizeof where, "%lld x", (long long)w->count);
            fprintf(f, "      %-14s %10.3f ms", where, MS(w->dur_ns));
            if (w->bytes >= 0)
                fprintf(f, "  %10.3f MB", (double)w->bytes / 1e6);
            fputs("  ", f);   /* in full: names cut in the middle could make two kernels look alike */
            put_name(f, w->name != PS_NONE            ? ps_model_str(m, w->name)
                        : !strcmp(g->rule, "gpu_gap") ? "(GPU idle)"
                                                      : "(time slice)",
                     0);
            fputc('\n', f);
        }
    }
}

static void ranks(FILE *f, const struct ps_report *r)
{
    if (r->nranks < 2)
        return;
    fprintf(f, "\nRanks: %zu processes hold steps (rank = order of pid; step averages in ms)\n", r->nranks);
    fprintf(f, "%4s %8s %6s %10s", "rank", "pid", "steps", "duration");
    for (int c = 0; c < PS_CAT_N; c++)
        fprintf(f, " %10s", cat_label(r, c));
    fprintf(f, "  %s\n", "verdict");
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ps_rank_stat *k = &r->ranks[i];
        fprintf(f, "%4zu %8u %6zu %10.3f", i, k->pid, k->nsteps, MS(k->avg_dur_ns));
        for (int c = 0; c < PS_CAT_N; c++)
            fprintf(f, " %10.3f", MS(k->cat_ns[c]));
        fprintf(f, "  %s\n", bn_label(r, k->bottleneck));
    }
    for (size_t i = 0; i < r->nstragglers; i++) {
        const struct ps_straggler *g = &r->stragglers[i];
        fprintf(f, "Straggler: rank %zu (pid %u) is %.1f %% slower than the median rank, most of it in %s\n", g->rank,
                g->pid, 100.0 * g->slower_by, cat_label(r, g->category));
    }
}

/* What perfscope's Python hook saw: the loaders' settings and their worker processes. */
static void pytorch(FILE *f, const struct ps_report *r)
{
    const struct ps_pytorch *py = r->py;
    if (!py)
        return;
    fprintf(f, "\nPyTorch (perfscope's Python hook, mode %s; torch ", py->mode[0] ? py->mode : "?");
    put_name(f, py->torch_version[0] ? py->torch_version : "?", 0);
    if (py->cores > 0)
        fprintf(f, "; %d cores", py->cores);
    fputs(")\n", f);
    for (size_t i = 0; i < py->nloaders; i++) {
        const struct ps_py_loader *l = &py->loaders[i];
        fprintf(f, "  DataLoader#%d: num_workers=%d pin_memory=%s persistent_workers=%s prefetch_factor=", l->number,
                l->num_workers, l->pin_memory < 0 ? "?" : l->pin_memory ? "True" : "False",
                l->persistent_workers < 0 ? "?" : l->persistent_workers ? "True" : "False");
        if (l->prefetch_factor >= 0)
            fprintf(f, "%d", l->prefetch_factor);
        else
            fputs("None", f);
        fprintf(f, " batch_size=%d, %d iterator%s (", l->batch_size, l->iterators, l->iterators == 1 ? "" : "s");
        put_name(f, l->iterator, 0);
        fputs(")\n", f);
    }
    fprintf(f, "  The step thread waited for data %.3f ms in the analysed steps (+ %.3f ms in the iterators' first "
               "fetches, which include starting the workers)\n", MS(py->wait_ns), MS(py->first_fetch_wait_ns));
    if (py->nworkers) {
        fprintf(f, "  %zu worker process%s:  pid      loader  id  fetches   fetch ms  busy while waiting   CPU ms  CPU use\n",
                py->nworkers, py->nworkers == 1 ? "" : "es");
        for (size_t i = 0; i < py->nworkers; i++) {
            const struct ps_py_worker *w = &py->workers[i];
            fprintf(f, "%24s%-8u %6d %3d %8lld %10.3f", "", w->pid, w->loader, w->id, (long long)w->fetches,
                    MS(w->fetch_ns));
            if (py->wait_ns > 0)
                fprintf(f, " %17.1f %%", 100.0 * (double)w->busy_wait_ns / (double)py->wait_ns);
            else
                fprintf(f, " %19s", "N/A");
            if (w->cpu_ns >= 0)
                fprintf(f, " %8.1f", MS(w->cpu_ns));
            else
                fprintf(f, " %8s", "N/A");
            if (w->cpu_ns >= 0 && w->life_ns > 0)
                fprintf(f, " %6.0f %%\n", 100.0 * (double)w->cpu_ns / (double)w->life_ns);
            else
                fprintf(f, " %8s\n", "N/A");
        }
    }
    if (py->more_workers >= 0)
        fprintf(f, "  More workers would %s\n", !py->more_workers ? "not help: the workers idled while the step waited"
                                                : py->nworkers ? "help: the workers were saturated while the step waited"
                                                               : "help: loading runs inside the training loop (num_workers=0)");
    if (py->copies)
        fprintf(f, "  Host-to-device copies (Tensor.to / .cuda): %lld, %lld from pageable memory, %lld blocking\n",
                (long long)py->copies, (long long)py->copies_pageable, (long long)py->copies_blocking);
}

/* NVML utilisation over time: one line of PS_NVML_UTIL_BUCKETS levels " .:-=+*#" (0..100 %; a blank bucket has no
 * sample) under each device's summary. */
static void gpu_util(FILE *f, const struct ps_report *r)
{
    for (size_t i = 0; i < r->nnvml_util; i++) {
        const struct ps_nvml_util_stat *s = &r->nvml_util[i];
        char line[PS_NVML_UTIL_BUCKETS + 1];
        for (int b = 0; b < PS_NVML_UTIL_BUCKETS; b++) {
            int level = s->bucket_pct[b] < 0 ? -1 : (int)(s->bucket_pct[b] * 8 / 100.01);
            line[b] = level < 0 ? ' ' : " .:-=+*#"[level];
        }
        line[PS_NVML_UTIL_BUCKETS] = '\0';
        fprintf(f, "\nGPU %d utilisation over time (NVML, %lld samples over %.1f s): mean %.1f %%, min %d %%, max %d %%\n"
                   "  |%s|  (%d slices of %.2f s; levels ' .:-=+*#' = 0..100 %%)\n",
                s->device, (long long)s->samples, (double)(s->last_ns - s->first_ns) / 1e9, s->mean_pct, s->min_pct,
                s->max_pct, line, PS_NVML_UTIL_BUCKETS, (double)s->bucket_ns / 1e9);
    }
}

int ps_report_write_text(const struct ps_report *r, FILE *f)
{
    run_summary(f, r);
    steps_table(f, r);
    verdict(f, r);
    pytorch(f, r);
    ranks(f, r);
    gpu(f, r);
    gpu_util(f, r);
    summaries(f, r);
    return ferror(f) ? -EIO : 0;
}
