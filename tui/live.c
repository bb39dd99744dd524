/* The live recording view (see live.h). Each update opens the trace read-only, reads what it needs and closes
 * it again, so `top` never holds the trace open between refreshes (record's final switch out of WAL mode needs
 * the only connection). One model follows the trace (the analyzer's ps_follow: the rows appended since the last
 * update are merged into it; rows a window old are dropped), and the window's numbers come from the report's
 * analyses over a view of it (ps_ranks_report_compute_view): nothing here computes a step-time figure of its own. */
#include "analyses/ranks.h"
#include "tui/live.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/memory.h"
#include "collector/session.h"
#include "tui/host.h"
#include "model/view.h"
#include "read/reader.h"
#include "ps_file.h"
#include "ps_globalid.h"
#include "ps_time.h"

int tui_recorder_alive(uint32_t pid)
{
    char path[64], cmd[256];
    if (pid == 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
        return 0;
    snprintf(path, sizeof path, "/proc/%u/cmdline", pid);
    long n = tui_read_file(path, cmd, sizeof cmd);
    if (n <= 0)
        return 0;
    /* argv is NUL-separated: argv[1] must be "record" */
    size_t first = strlen(cmd);
    return (long)first + 1 < n && strcmp(cmd + first + 1, "record") == 0;
}

unsigned long tui_process_tty(uint32_t pid)
{
    char path[64], stat[1024];
    if (pid)
        snprintf(path, sizeof path, "/proc/%u/stat", pid);
    else
        snprintf(path, sizeof path, "/proc/self/stat");
    if (tui_read_file(path, stat, sizeof stat) <= 0)
        return 0;
    const char *p = strrchr(stat, ')');   /* comm may hold spaces and parentheses: fields follow the last ')' */
    int ppid;
    unsigned long tty = 0;
    if (!p || sscanf(p + 1, " %*c %d %*d %*d %lu", &ppid, &tty) != 2)
        return 0;
    return tty;
}

static unsigned long order_tty;     /* tui_sessions_find's terminal, for the comparison below */

/* This user's first, then those of terminal order_tty, then the newest recorder. */
static int by_preference(const void *a, const void *b)
{
    const struct tui_session *x = a, *y = b;
    int xt = order_tty && x->tty == order_tty, yt = order_tty && y->tty == order_tty;
    if (x->own != y->own)
        return y->own - x->own;
    if (xt != yt)
        return yt - xt;
    return x->recorder_pid < y->recorder_pid ? 1 : x->recorder_pid > y->recorder_pid ? -1 : 0;
}

size_t tui_sessions_find(const char *base, unsigned long tty, struct tui_session *out, size_t max)
{
    DIR *d = opendir(base);
    size_t n = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        char *end;
        unsigned long pid = strtoul(de->d_name, &end, 10);
        if (*end || end == de->d_name || pid == 0 || pid > UINT32_MAX || !tui_recorder_alive((uint32_t)pid))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", base, de->d_name);
        if (ps_session_read_trace_name(path, out[n].trace, sizeof out[n].trace) != 0)
            continue;
        out[n].recorder_pid = (uint32_t)pid;
        struct stat st;
        snprintf(path, sizeof path, "/proc/%lu", pid);
        out[n].own = stat(path, &st) == 0 && st.st_uid == getuid();
        out[n].tty = tui_process_tty((uint32_t)pid);
        n++;
    }
    closedir(d);
    order_tty = tty;
    qsort(out, n, sizeof *out, by_preference);
    return n;
}

void tui_live_watch(struct tui_live *l, const char *trace, uint32_t recorder_pid, int64_t window_ns)
{
    tui_live_fini(l);
    snprintf(l->trace, sizeof l->trace, "%s", trace);
    l->recorder_pid = recorder_pid;
    l->window_ns = window_ns;
    l->state = TUI_LIVE_RECORDING;
    l->gpu_util = NAN;
    l->last_step_end_ns = INT64_MIN;
    l->dropped_before_ns = INT64_MIN;
}

void tui_live_fini(struct tui_live *l)
{
    ps_follow_free(l->follow);
    memset(l, 0, sizeof *l);        /* no pointer or count left behind */
}

struct meta {
    int64_t origin_ns, duration_ns, recorder_pid, child_pid;
    int complete;                   /* recording_complete: 1, 0, -1 absent */
};

/* PERFSCOPE_META values top needs; the connection is the caller's. 0, or -EINVAL with l->message set. */
static int read_meta(struct tui_live *l, struct ps_trace_db *tdb, struct meta *m)
{
    sqlite3 *db = ps_trace_db_sqlite(tdb);
    sqlite3_stmt *st = NULL;
    char why[PATH_MAX + 256];
    *m = (struct meta){ -1, -1, -1, -1, -1 };
    int table = ps_trace_db_has_table(tdb, "PERFSCOPE_META", why, sizeof why);
    if (table <= 0) {
        snprintf(l->message, sizeof l->message, "%s", table < 0 ? why : "");
        if (!table)
            snprintf(l->message, sizeof l->message, "%s: not a perfscope trace being recorded (no PERFSCOPE_META "
                     "table)", l->trace);
        return -EINVAL;
    }
    if (sqlite3_prepare_v2(db, "SELECT name, value FROM PERFSCOPE_META WHERE name IN ('origin_monotonic_ns',"
                               "'duration_ns', 'recorder_pid', 'child_pid', 'recording_complete', 'command_line')",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(l->message, sizeof l->message, "%s: not a perfscope trace being recorded (%s)", l->trace,
                 sqlite3_errmsg(db));
        return -EINVAL;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        if (!k || !v)
            continue;
        char *end;
        long long x = strtoll(v, &end, 10);
        int num = *v && !*end;
        if (!strcmp(k, "command_line"))
            snprintf(l->command, sizeof l->command, "%s", v);
        else if (!strcmp(k, "recording_complete"))
            m->complete = num ? (int)x : -1;
        else if (num && !strcmp(k, "origin_monotonic_ns"))
            m->origin_ns = x;
        else if (num && !strcmp(k, "duration_ns") && x >= 0 && x < INT64_MAX / 2)
            m->duration_ns = x;         /* else unknown, as for a killed recorder */
        else if (num && !strcmp(k, "recorder_pid"))
            m->recorder_pid = x;
        else if (num && !strcmp(k, "child_pid"))
            m->child_pid = x;
    }
    sqlite3_finalize(st);
    return 0;
}

/* The open push/pop ranges per thread, outermost first. */
static void read_open_ranges(struct tui_live *l, struct ps_trace_db *tdb)
{
    sqlite3 *db = ps_trace_db_sqlite(tdb);
    sqlite3_stmt *st = NULL;
    l->nstacks = 0;
    l->have_open_table = ps_trace_db_has_table(tdb, "PERFSCOPE_LIVE_OPEN_RANGES", NULL, 0) == 1 &&
                         ps_trace_db_has_table(tdb, "StringIds", NULL, 0) == 1 && sqlite3_prepare_v2(db, "SELECT o.globalTid, coalesce(o.text, s.value, '(unnamed)')"
                                                " FROM PERFSCOPE_LIVE_OPEN_RANGES o LEFT JOIN StringIds s"
                                                " ON s.id = o.textId ORDER BY o.globalTid, o.start",
                                            -1, &st, NULL) == SQLITE_OK;
    int64_t gtid_cur = -1;
    struct tui_live_stack *cur = NULL;
    while (l->have_open_table && sqlite3_step(st) == SQLITE_ROW) {
        int64_t gtid = sqlite3_column_int64(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        if (gtid != gtid_cur) {
            if (l->nstacks == TUI_LIVE_STACKS)
                break;
            cur = &l->stacks[l->nstacks++];
            cur->pid = ps_global_to_pid(gtid);
            cur->tid = ps_global_to_tid(gtid);
            cur->stack[0] = '\0';
            char path[96];
            snprintf(path, sizeof path, "/proc/%u/task/%u/comm", cur->pid, cur->tid);
            if (tui_read_file(path, cur->thread, sizeof cur->thread) <= 0)
                cur->thread[0] = '\0';
            cur->thread[strcspn(cur->thread, "\n")] = '\0';
            gtid_cur = gtid;
        }
        size_t len = strlen(cur->stack);
        snprintf(cur->stack + len, sizeof cur->stack - len, "%s%s", len ? " > " : "", text ? text : "");
    }
    sqlite3_finalize(st);
}

/* The trace's last activity start (NVTX ranges, kernels), for a trace whose end the metadata does not give (its
 * recorder was killed); -1 when there is none. */
static int64_t last_start(struct ps_trace_db *tdb)
{
    static const char *const table[] = { "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL" };
    int64_t last = -1;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        sqlite3_stmt *st = NULL;
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT max(start) FROM %s", table[i]);
        if (ps_trace_db_has_table(tdb, table[i], NULL, 0) == 1 &&
            sqlite3_prepare_v2(ps_trace_db_sqlite(tdb), sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
            sqlite3_column_type(st, 0) == SQLITE_INTEGER && sqlite3_column_int64(st, 0) > last)
            last = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return last;
}

/* The recorded program: the first child of the recorder (the trace names it only at the end). */
static uint32_t recorder_child(uint32_t recorder)
{
    char path[96], buf[256], rec_exe[PATH_MAX], exe[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%u/task/%u/children", recorder, recorder);
    if (tui_read_file(path, buf, sizeof buf) <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%u/exe", recorder);
    ssize_t rn = readlink(path, rec_exe, sizeof rec_exe - 1);
    rec_exe[rn > 0 ? rn : 0] = '\0';
    /* The recorder's children: CMD and its signal watcher (collector/sigwatch.c). The watcher is a fork of the
     * recorder that never execs, so a child still running the recorder's binary is not the program (CMD too,
     * for the moment before its exec: found at the next refresh). */
    for (char *p = buf, *end; *p; p = end) {
        unsigned long pid = strtoul(p, &end, 10);
        if (end == p)
            break;
        snprintf(path, sizeof path, "/proc/%lu/exe", pid);
        ssize_t n = readlink(path, exe, sizeof exe - 1);
        if (n <= 0)
            continue;
        exe[n] = '\0';
        if (rn > 0 && strcmp(exe, rec_exe) == 0)
            continue;
        return (uint32_t)pid;
    }
    return 0;
}

/* Rows older than the window are kept for one window more (an op in the window may have been launched before
 * it): the start of that margin for a window from from_ns, INT64_MIN when the window has no start. */
static int64_t margin_start(const struct tui_live *l, int64_t from_ns)
{
    return from_ns < INT64_MIN + l->window_ns ? INT64_MIN : from_ns - l->window_ns;
}

/* Rows before the margin are dropped once they are a whole window old: the model holds two to three windows of
 * rows, and each row is moved by a drop at most twice. */
static int drop_old_rows(struct tui_live *l, int64_t from_ns)
{
    int64_t cut = margin_start(l, from_ns);
    if (cut == INT64_MIN || (l->dropped_before_ns != INT64_MIN && cut - l->dropped_before_ns < l->window_ns))
        return 0;
    l->dropped_before_ns = cut;
    return ps_follow_drop_before(l->follow, cut);
}

/* The report's torch memory devices (the hook's `cuda memory` marks, kept across the window: docs/memory.md): each
 * device's last step-boundary figures and its peak. */
/* The largest cause of Where the step goes past the GPU's own work (analyses/verdict.h), worded for top's verdict
 * line with its share of the average steady step and the name the report gives it first. */
static void live_cause(struct tui_live *l, const struct ps_report *r)
{
    const struct ps_causes *cs = &r->causes;
    int best = -1;
    l->cause[0] = '\0';
    for (int c = PS_CAUSE_PRETRACE; cs->computed && c < PS_CAUSE_N; c++)
        if (cs->c[c].ns > 0 && (best < 0 || cs->c[c].ns > cs->c[best].ns))
            best = c;
    if (best < 0)
        return;
    const struct ps_cause_stat *st = &cs->c[best];
    const char *name = st->ntop ? ps_report_name(r, st->top[0].name) : NULL;
    snprintf(l->cause, sizeof l->cause, "%s %.0f%%%s%s", ps_cause_label[best], 100.0 * st->share,
             name ? " in " : "", name ? name : "");
}

static void live_torch_memory(struct tui_live *l, const struct ps_report *r)
{
    l->ntorch_mem = 0;
    for (size_t i = 0; r->mem && i < r->mem->ndevs && l->ntorch_mem < TUI_LIVE_TORCH_DEVICES; i++) {
        const struct ps_mem_device *d = &r->mem->devs[i];
        if (d->source != PS_MEMSRC_TORCH || !d->npoints)
            continue;
        l->torch_mem[l->ntorch_mem++] = (struct tui_live_torch_mem){ d->device, d->curve[d->npoints - 1].allocated,
                                                                     d->curve[d->npoints - 1].reserved,
                                                                     d->peak_allocated_bytes };
    }
}

/* Read what the recording appended, then run the report over the rows that start in [from_ns, ...): a step that
 * began before the window is left out whole (a window never shows part of a step), and keep what the view shows. */
static void analyse_window(struct tui_live *l, int64_t from_ns)
{
    struct ps_view all, window = { 0 };
    struct ps_report r;
    struct ps_report_opts o;
    char err[512];
    int restarted = 0;
    if (!l->follow && !(l->follow = ps_follow_new(l->trace))) {
        l->state = TUI_LIVE_ERROR;
        snprintf(l->message, sizeof l->message, "out of memory");
        return;
    }
    ps_follow_skip_before(l->follow, margin_start(l, from_ns));   /* INT64_MIN: no floor */
    if (ps_follow_read(l->follow, &restarted, err, sizeof err) < 0) {
        l->state = TUI_LIVE_ERROR;
        snprintf(l->message, sizeof l->message, "%s", err);
        return;
    }
    if (restarted) {   /* a new recording under the same name */
        l->last_step_end_ns = INT64_MIN;
        l->dropped_before_ns = INT64_MIN;
    }
    const struct ps_model *m = ps_follow_model(l->follow);
    l->unplaced = m->unplaced_events;
    ps_view_all(&all, m);
    if (drop_old_rows(l, from_ns) < 0 || ps_view_starting(&window, &all, from_ns, INT64_MAX) < 0) {
        l->state = TUI_LIVE_ERROR;
        snprintf(l->message, sizeof l->message, "out of memory");
        return;
    }
    ps_report_opts_default(&o);
    o.top_n = TUI_LIVE_KERNELS;
    if (window.nranges + window.ngpu == 0) {
        l->have_report = 0;
        snprintf(l->message, sizeof l->message, "no ranges or GPU activity in the last %.0f s",
                 (double)l->window_ns / 1e9);
        ps_view_fini(&window);
        return;
    }
    if (ps_ranks_report_compute_view(&r, &window, &o, err, sizeof err) < 0) {
        l->state = TUI_LIVE_ERROR;
        snprintf(l->message, sizeof l->message, "%s", err);
        ps_view_fini(&window);
        return;
    }
    l->have_report = 1;
    l->message[0] = '\0';
    l->nsteps = r.whole_run ? 0 : r.nsteps;
    l->whole_run = r.whole_run;
    l->avg_dur_ns = r.avg_dur_ns;
    memcpy(l->cat_ns, r.avg.cat_ns, sizeof l->cat_ns);
    l->sync_ns = r.avg.sync_ns;
    memcpy(l->group_ns, r.avg.group_ns, sizeof l->group_ns);
    l->seen_ns = r.avg.seen_ns;
    l->bottleneck = r.bottleneck;
    l->share = r.share;
    l->gpu_util = r.gpu_util;
    l->has_gpu = r.has_gpu;
    snprintf(l->fix, sizeof l->fix, "%s", r.nrecs ? r.recs[0] : "");
    live_cause(l, &r);
    l->nkernels = 0;
    for (size_t i = 0; i < r.nkernels && l->nkernels < TUI_LIVE_KERNELS; i++) {
        struct tui_live_kernel *k = &l->kernels[l->nkernels++];
        snprintf(k->name, sizeof k->name, "%s", ps_model_str(m, r.kernels[i].name));
        k->count = r.kernels[i].count;
        k->total_ns = r.kernels[i].total_ns;
    }
    live_torch_memory(l, &r);
    for (size_t i = 0; !r.whole_run && i < r.nsteps; i++)
        if (r.steps[i].end_ns > l->last_step_end_ns) {
            tui_history_push(&l->step_ms, 1, (double)(r.steps[i].end_ns - r.steps[i].start_ns) / 1e6);
            l->last_step_end_ns = r.steps[i].end_ns;
        }
    ps_report_fini(&r);
    ps_view_fini(&window);
}

void tui_live_update(struct tui_live *l)
{
    struct ps_trace_db *db = NULL;
    struct meta meta;
    struct stat st;
    if (!l->trace[0]) {
        l->state = TUI_LIVE_NONE;
        return;
    }
    /* SQLite would block opening a FIFO (and no signal ends that wait); a directory is not a trace either */
    if (stat(l->trace, &st) != 0) {
        l->state = TUI_LIVE_ERROR;
        snprintf(l->message, sizeof l->message, "%s: cannot open: %s", l->trace, strerror(errno));
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        l->state = TUI_LIVE_ERROR;
        if (S_ISDIR(st.st_mode))
            snprintf(l->message, sizeof l->message, "%s: is a directory, not a trace file", l->trace);
        else    /* the shape of every command's message (common/ps_file.h) */
            snprintf(l->message, sizeof l->message, "%s: not a regular file (%s): a trace is a SQLite file", l->trace,
                     ps_file_kind(st.st_mode));
        return;
    }
    if (ps_trace_db_open(l->trace, &db, l->message, sizeof l->message) < 0) {
        l->state = TUI_LIVE_ERROR;
        return;
    }
    int rc = read_meta(l, db, &meta);
    if (rc == 0)
        read_open_ranges(l, db);
    if (rc == 0 && meta.recorder_pid > 0 && l->recorder_pid && (uint32_t)meta.recorder_pid != l->recorder_pid) {
        /* another recording now writes (or wrote) this file: watch it from the start */
        char trace[PATH_MAX];
        int64_t window = l->window_ns;
        snprintf(trace, sizeof trace, "%s", l->trace);
        tui_live_watch(l, trace, (uint32_t)meta.recorder_pid, window);
        if ((rc = read_meta(l, db, &meta)) == 0)
            read_open_ranges(l, db);
    }
    if (rc == 0 && !l->recorder_pid && meta.recorder_pid > 0)
        l->recorder_pid = (uint32_t)meta.recorder_pid;
    int running = rc == 0 && meta.complete != 1 && tui_recorder_alive(l->recorder_pid);
    int64_t end_unknown_last = rc == 0 && !running && meta.duration_ns < 0 && l->now_ns <= 0 ? last_start(db) : -1;
    ps_trace_db_close(db);
    if (rc < 0) {
        l->state = TUI_LIVE_ERROR;
        return;
    }
    l->state = running ? TUI_LIVE_RECORDING : TUI_LIVE_ENDED;
    l->incomplete = !running && meta.complete != 1;
    if (running && !l->child_pid)
        l->child_pid = recorder_child(l->recorder_pid);
    if (!running && meta.child_pid > 0)
        l->child_pid = (uint32_t)meta.child_pid;
    /* The window ends now (a running recording on this host: the shared CLOCK_MONOTONIC) or at the end. */
    if (running && meta.origin_ns > 0)
        l->now_ns = ps_monotonic_ns() - meta.origin_ns;
    else if (meta.duration_ns >= 0)
        l->now_ns = meta.duration_ns;
    else if (l->now_ns <= 0)            /* a killed recorder: the window ends at the last activity */
        l->now_ns = end_unknown_last >= 0 ? end_unknown_last + 1 : INT64_MAX / 2;
    if (!running)
        l->nstacks = 0;                 /* nothing is open once the program is gone */
    if (!running && l->ended_analysed)
        return;                         /* a finished trace does not change: its last window stays */
    l->ended_analysed = !running;
    int64_t from = l->now_ns < INT64_MAX / 2 ? l->now_ns - l->window_ns : INT64_MIN;
    analyse_window(l, from);
    if (!running && l->state != TUI_LIVE_ERROR)
        l->state = TUI_LIVE_ENDED;
}
