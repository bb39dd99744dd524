/* `perfscope top [--trace FILE] [-d SECONDS] [--window SECONDS] [--iterations N] [--snapshot json]`: live GPU
 * (NVML), host (/proc) and recorded-process metrics, and the live verdict of a recording in progress (docs/top.md).
 * One loop: sample -> update the live model -> draw when something changed; keys only change the state. Signal
 * handlers only set flags. Without a terminal (--snapshot json) it samples N times and prints one JSON object. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "ps_diag.h"
#include "ps_time.h"
#include "read/reader.h"
#include "tui/screen.h"
#include "collector/session.h"
#include "tui/snapshot.h"
#include "tui/top.h"
#include "tui/layout.h"

#define MIN_INTERVAL_S 0.25
#define MAX_INTERVAL_S 10.0

static volatile sig_atomic_t quit_requested;

static void on_quit_signal(int sig)
{
    (void)sig;
    quit_requested = 1;
}

/* The screen whose keys a long read checks for q (NULL in snapshot mode), and when it next looks (every 50 ms:
 * a look is a read(2) on the terminal). */
static struct tui_screen *quit_key_screen;
static int64_t quit_key_next_ns;

/* The reader's stop request (ps_read_set_stop): on the screen, a signal or q ends any SQLite statement of top,
 * however large or crafted the trace (a recursive view is refused, but a long scan of a large file is still a
 * wait). Snapshot mode is not stopped: its SIGTERM asks for one last sample and the JSON (docs/top.md), and its
 * reads are bounded by the file's size. */
static int stop_reading(void *arg)
{
    (void)arg;
    if (!quit_key_screen)
        return 0;
    if (quit_requested)
        return 1;
    int64_t now = ps_monotonic_ns();
    if (now < quit_key_next_ns)
        return 0;
    quit_key_next_ns = now + 50 * 1000 * 1000;
    if (tui_screen_take_quit_key(quit_key_screen))
        quit_requested = 1;
    return quit_requested;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: perfscope top [--trace FILE] [-d SECONDS] [--window SECONDS] [--iterations N] [--snapshot json]\n"
            "\n"
            "Live GPU (NVML), host and process metrics, and the live step-time breakdown, verdict and fix of a\n"
            "training job being recorded by `perfscope record` (found automatically; see docs/top.md).\n"
            "\n"
            "  --trace FILE        watch this trace (a recording in progress, or a finished one)\n"
            "  -d, --interval S    seconds between samples (default 1; 0.25 to 10; keys + and -)\n"
            "      --window S      the live analysis covers the last S seconds (default 10)\n"
            "  -n, --iterations N  stop after N samples\n"
            "      --snapshot json no screen: after the last iteration print one JSON object on stdout\n"
            "                      (needs --iterations; messages go to stderr)\n"
            "  -h, --help          this help\n"
            "\n"
            "Keys: q quit, p pause, Tab next panel, s sort processes, +/- interval, 1..9 pick a recording, h help.\n"
            "NO_COLOR (any value) turns colours off.\n");
}

struct opts {
    const char *trace;
    double interval_s, window_s;
    long iterations;                /* 0: until q */
    int snapshot;
};

/* A decimal number of seconds in [lo, hi] (the shared rule: no hexadecimal, NaN or infinity); 0 or -EINVAL. */
static int parse_seconds(const char *s, double lo, double hi, double *out)
{
    double v;
    if (ps_opt_parse_double(s, &v) < 0 || !(v >= lo && v <= hi))
        return -EINVAL;
    *out = v;
    return 0;
}

/* 0: run; 1: --help printed; 2: usage error (message printed). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "trace", required_argument, NULL, 'T' },
        { "interval", required_argument, NULL, 'd' },
        { "window", required_argument, NULL, 'W' },
        { "iterations", required_argument, NULL, 'n' },
        { "snapshot", required_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *o = (struct opts){ .interval_s = 1, .window_s = 10 };
    if (ps_opt_check_long_names("top", argc, argv, longopts, "dn"))
        return 2;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, ":d:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'T':
            o->trace = optarg;
            break;
        case 'd':
            if (parse_seconds(optarg, MIN_INTERVAL_S, MAX_INTERVAL_S, &o->interval_s)) {
                fprintf(stderr, "perfscope top: --interval %s: give seconds from 0.25 to 10\n", optarg);
                return 2;
            }
            break;
        case 'W':
            if (parse_seconds(optarg, 1, 3600, &o->window_s)) {
                fprintf(stderr, "perfscope top: --window %s: give seconds from 1 to 3600\n", optarg);
                return 2;
            }
            break;
        case 'n':
            errno = 0;
            o->iterations = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || o->iterations < 1) {
                fprintf(stderr, "perfscope top: --iterations %s: give a whole number from 1\n", optarg);
                return 2;
            }
            break;
        case 'J':
            if (strcmp(optarg, "json") != 0) {
                fprintf(stderr, "perfscope top: --snapshot %s: the only snapshot format is json\n", optarg);
                return 2;
            }
            o->snapshot = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            return ps_opt_getopt_error("top", c, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "perfscope top: unexpected argument '%s' (see 'perfscope top --help')\n", argv[optind]);
        return 2;
    }
    if (o->snapshot && !o->iterations) {
        fprintf(stderr, "perfscope top: --snapshot json needs --iterations N (how many samples before the JSON)\n");
        return 2;
    }
    return 0;
}

static void set_status(struct tui_top *t, const char *msg)
{
    snprintf(t->status, sizeof t->status, "%.255s", msg);
}

/* Why top follows session s (shown with the recording, and in the snapshot), each clause true of the list as
 * it is: whose it is, whether this terminal started it, and where it stands among the user's recordings. */
static void say_why(struct tui_top *t, const struct tui_session *s, const char *what)
{
    size_t own = 0, newer_own = 0, here = 0;
    for (size_t i = 0; i < t->nsessions; i++) {
        const struct tui_session *o = &t->sessions[i];
        own += o->own;
        newer_own += o->own && o->recorder_pid > s->recorder_pid;   /* pids grow: a later recorder */
        here += o->own && t->tty && o->tty == t->tty;
    }
    char why[128];
    if (!s->own)
        snprintf(why, sizeof why, "%s", own ? "another user's" : "another user's: no recording of yours is running");
    else if (t->tty && s->tty == t->tty)
        snprintf(why, sizeof why, "started from this terminal");
    else if (own == 1)
        snprintf(why, sizeof why, "the only recording of yours running");
    else if (newer_own == 0)
        snprintf(why, sizeof why, "the newest of your %zu recordings running%s", own,
                 here ? "" : "; none was started from this terminal");
    else
        snprintf(why, sizeof why, "one of your %zu recordings running, not the newest", own);
    snprintf(t->watch_reason, sizeof t->watch_reason, "%s: %s", what, why);
}

/* Watch session i (0-based) of the list. */
static void watch_session(struct tui_top *t, size_t i)
{
    if (i >= t->nsessions)
        return;
    t->watched = t->sessions[i];
    t->picked = 0;
    if (t->offered_pid && strstr(t->status, "press "))   /* the offer is taken or void: no stale key on screen */
        t->status[0] = '\0';
    t->offered_pid = 0;
    tui_live_watch(&t->live, t->sessions[i].trace, t->sessions[i].recorder_pid, t->window_ns);
    t->watching = 1;
    tui_procs_free(t->procs);
    t->procs = NULL;
    t->nproc_rows = 0;
}

/* Follow the recorded program's process tree once its pid is known. */
static void follow_tree(struct tui_top *t)
{
    uint32_t root = t->watching ? t->live.child_pid : 0;
    if (t->procs && (root == 0 || tui_procs_root(t->procs) != root)) {
        if (root)
            return;                 /* keep the last rows of an ended recording */
        tui_procs_free(t->procs);
        t->procs = NULL;
        t->nproc_rows = 0;
    }
    if (!t->procs && root && tui_procs_new(root, &t->procs))
        set_status(t, "out of memory: no process tree");
}

/* The watched recording ended and another runs: follow it when it is the same user's and was started from
 * top's terminal or the ended recording's (the user's next run); a recording of another terminal or user is
 * named, not followed (keys 1..9 pick it). */
static void follow_next(struct tui_top *t)
{
    const struct tui_session *s = &t->sessions[0];
    int same_place = s->own && s->tty && (s->tty == t->tty || s->tty == t->watched.tty);
    if (same_place || (s->own && !t->watched.own)) {
        watch_session(t, 0);
        say_why(t, s, "followed when the last one ended");
        return;
    }
    t->offered_pid = s->recorder_pid;   /* offered with its row's key, kept true as the list changes */
}

/* The row (1-based) of recorder pid in the list; 0 when it is not there. */
static size_t row_of(const struct tui_top *t, uint32_t pid)
{
    for (size_t i = 0; i < t->nsessions; i++)
        if (t->sessions[i].recorder_pid == pid)
            return i + 1;
    return 0;
}

/* The status line's offer of another recording, with the key of the row it holds now. */
static void offer(struct tui_top *t)
{
    size_t row = row_of(t, t->offered_pid);
    if (!t->offered_pid || t->watched.recorder_pid == t->offered_pid)
        return;
    if (!row || row > 9) {
        t->offered_pid = 0;
        return;
    }
    const struct tui_session *s = &t->sessions[row - 1];
    char msg[512];
    snprintf(msg, sizeof msg, "the recording ended; another runs (recorder %u, %s): press %zu to watch it",
             s->recorder_pid, s->own ? "another terminal" : "another user", row);
    set_status(t, msg);
}

/* A recording started from top's own terminal is the one the user just ran (`perfscope record ... &` then
 * `perfscope top`): when one appears while top watches another terminal's or user's, top switches to it, unless
 * the user picked the watched one with its key. */
static void prefer_this_terminal(struct tui_top *t)
{
    if (!t->tty || t->picked || (t->watched.own && t->watched.tty == t->tty))
        return;
    for (size_t i = 0; i < t->nsessions; i++) {
        const struct tui_session *s = &t->sessions[i];
        if (s->own && s->tty == t->tty && s->recorder_pid != t->watched.recorder_pid) {
            char msg[160];
            snprintf(msg, sizeof msg, "switched to recorder %u, started from this terminal", s->recorder_pid);
            watch_session(t, i);
            say_why(t, &t->watched, "switched to when it started");
            set_status(t, msg);
            return;
        }
    }
}

/* One sampling round: host, GPUs, live recordings, process tree. */
static void sample(struct tui_top *t)
{
    tui_host_sample(&t->host);
    tui_history_push(&t->host_cpu, t->host.cpu_valid, t->host.total_pct);
    for (unsigned i = 0; i < t->ngpu; i++) {
        struct tui_gpu *g = &t->gpu[i];
        g->ok = ps_nvml_sample(t->nvml, i, &g->s) == 0;
        const struct ps_gpu_sample *s = &g->s;
        tui_history_push(&g->util, g->ok && (s->valid & PS_GPU_UTIL_SM), s->util_sm_pct);
        tui_history_push(&g->mem_pct, g->ok && (s->valid & PS_GPU_MEM) && s->mem_total_bytes,
                         s->mem_total_bytes ? 100.0 * (double)s->mem_used_bytes / (double)s->mem_total_bytes : 0);
        tui_history_push(&g->power_w, g->ok && (s->valid & PS_GPU_POWER), s->power_mw / 1000.0);
    }
    if (!t->trace_opt) {
        char base[4096];
        ps_session_base_dir(base, sizeof base);
        t->nsessions = tui_sessions_find(base, t->tty, t->sessions, TUI_MAX_SESSIONS);
        if (!t->watching && t->nsessions) {
            watch_session(t, 0);
            say_why(t, &t->sessions[0], "followed");
        } else if (t->watching && t->nsessions && t->live.state != TUI_LIVE_RECORDING &&
                   t->sessions[0].recorder_pid != t->live.recorder_pid) {
            follow_next(t);
        } else if (t->watching) {
            prefer_this_terminal(t);
        }
        offer(t);
    }
    if (t->watching) {
        enum tui_live_state before = t->live.state;
        tui_live_update(&t->live);
        if (before == TUI_LIVE_RECORDING && t->live.state == TUI_LIVE_ENDED)
            set_status(t, "the recording ended: showing its last window");
    }
    follow_tree(t);
    if (t->procs) {
        const struct tui_proc *rows;
        long n = tui_procs_tick(t->procs, t->sort, &rows);
        if (n >= 0) {
            t->proc_rows = rows;
            t->nproc_rows = (size_t)n;
        }
    }
    t->samples++;
}

/* Key -> state change; returns 1 when the screen must be redrawn, -1 to quit. Never draws. */
static int handle_key(struct tui_top *t, int key)
{
    if (t->help && key != TUI_KEY_RESIZE) {
        t->help = 0;
        return key == 'q' ? -1 : 1;
    }
    switch (key) {
    case 'q': case 'Q':
        return -1;
    case 'p': case 'P':
        t->paused = !t->paused;
        return 1;
    case '\t':
        t->panel = (enum tui_panel)((t->panel + 1) % TUI_PANEL_N);
        return 1;
    case 's': case 'S':
        t->sort = (enum tui_sort)((t->sort + 1) % TUI_SORT_N);
        return 1;
    case '+':
        t->interval_s = t->interval_s * 2 > MAX_INTERVAL_S ? MAX_INTERVAL_S : t->interval_s * 2;
        return 1;
    case '-':
        t->interval_s = t->interval_s / 2 < MIN_INTERVAL_S ? MIN_INTERVAL_S : t->interval_s / 2;
        return 1;
    case 'h': case 'H': case '?':
        t->help = 1;
        return 1;
    case TUI_KEY_RESIZE:
        return 1;
    default:
        if (key >= '1' && key <= '9' && (size_t)(key - '1') < t->nsessions) {
            watch_session(t, (size_t)(key - '1'));
            t->picked = 1;
            say_why(t, &t->watched, "picked with its key");
            return 1;
        }
        return 0;
    }
}

/* While the screen is up, stderr goes into a pipe whose last line shows in the status line (a library's message
 * would otherwise tear the screen); what is left goes to the real stderr at the end. */
struct stderr_capture {
    int saved, rd;
};

static void capture_stderr(struct stderr_capture *c)
{
    int p[2];
    c->saved = c->rd = -1;
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    if (c->saved < 0 || dup2(p[1], STDERR_FILENO) < 0) {
        close(p[0]);
        close(p[1]);
        if (c->saved >= 0)
            close(c->saved);
        c->saved = -1;
        return;
    }
    close(p[1]);
    c->rd = p[0];
}

/* Move captured text to the status line (its last line). */
static void drain_stderr(struct stderr_capture *c, struct tui_top *t, int to_real)
{
    char buf[4096];
    ssize_t n;
    if (c->rd < 0)
        return;
    fflush(stderr);
    while ((n = read(c->rd, buf, sizeof buf - 1)) > 0) {
        buf[n] = '\0';
        if (to_real) {
            ssize_t w = write(c->saved, buf, (size_t)n);
            (void)w;
            continue;
        }
        while (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        char *last = strrchr(buf, '\n');
        set_status(t, last ? last + 1 : buf);
    }
}

static void restore_stderr(struct stderr_capture *c, struct tui_top *t)
{
    if (c->saved < 0)
        return;
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    drain_stderr(c, t, 1);      /* whatever came after the last draw */
    close(c->rd);
    close(c->saved);
}

static void setup(struct tui_top *t, const struct opts *o)
{
    t->interval_s = o->interval_s;
    t->window_ns = (int64_t)(o->window_s * 1e9);
    gethostname(t->hostname, sizeof t->hostname - 1);
    t->nvml_status = ps_nvml_open(&t->nvml, t->nvml_why, sizeof t->nvml_why);
    t->ngpu = ps_nvml_count(t->nvml);
    if (t->ngpu > TUI_MAX_GPUS)
        t->ngpu = TUI_MAX_GPUS;
    t->trace_opt = o->trace;
    t->tty = tui_process_tty(0);
    if (o->trace) {
        tui_live_watch(&t->live, o->trace, 0, t->window_ns);
        t->watching = 1;
    }
}

static void teardown(struct tui_top *t)
{
    tui_live_fini(&t->live);
    tui_procs_free(t->procs);
    ps_nvml_close(t->nvml);
    t->watching = 0;
    t->procs = NULL;
    t->proc_rows = NULL;
    t->nproc_rows = 0;
    t->nvml = NULL;
    t->ngpu = 0;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (!quit_requested && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int run_snapshot(struct tui_top *t, const struct opts *o)
{
    for (long i = 0; i < o->iterations && !quit_requested; i++) {
        if (i)
            sleep_s(t->interval_s);
        sample(t);
    }
    if (t->nvml_status != PS_NVML_OK)
        fprintf(stderr, "perfscope top: %s: host metrics only\n", t->nvml_why);
    int unreadable = t->watching && t->live.state == TUI_LIVE_ERROR;
    if (unreadable)
        fprintf(stderr, "perfscope top: %s\n", t->live.message);
    /* the JSON either way; a trace that cannot be read (a missing or damaged --trace FILE) is an error */
    return tui_snapshot_write(t, stdout) || unreadable ? 1 : 0;
}

/* The library diagnostics hook while the screen is up: the message goes to the status line. */
static void status_hook(void *ctx, const char *line)
{
    set_status(ctx, line);
}

static int run_screen(struct tui_top *t, const struct opts *o)
{
    struct tui_screen *scr = NULL;
    char err[256];
    if (tui_screen_open(&scr, getenv("NO_COLOR") && *getenv("NO_COLOR"), err, sizeof err)) {
        fprintf(stderr, "perfscope top: %s\n", err);
        return 1;
    }
    t->color = tui_screen_color(scr);
    quit_key_screen = scr;
    t->ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
    struct stderr_capture cap;
    capture_stderr(&cap);
    ps_diag_set_hook(status_hook, t);
    static struct tui_frame frame;     /* ~200 KB: not on the stack */
    int64_t next = ps_monotonic_ns();
    long done = 0;
    int dirty = 1;
    while (!quit_requested) {
        int64_t now = ps_monotonic_ns();
        if (now >= next) {
            if (!t->paused) {
                sample(t);
                done++;
                dirty = 1;
            }
            next = now + (int64_t)(t->interval_s * 1e9);
            if (o->iterations && done >= o->iterations)
                break;
        }
        drain_stderr(&cap, t, 0);
        if (dirty) {
            int cols, rows;
            tui_screen_size(scr, &cols, &rows);
            tui_layout_build(t, cols, rows, &frame);
            tui_screen_draw(scr, &frame);
            dirty = 0;
        }
        int wait_ms = (int)((next - ps_monotonic_ns()) / 1000000);
        int key = tui_screen_key(scr, wait_ms < 0 ? 0 : wait_ms);
        if (key == TUI_KEY_NONE)
            continue;
        int r = handle_key(t, key);
        if (r < 0)
            break;
        if (r > 0) {
            dirty = 1;
            if (key == '+' || key == '-')
                next = ps_monotonic_ns() + (int64_t)(t->interval_s * 1e9);
        }
    }
    ps_diag_set_hook(NULL, NULL);
    quit_key_screen = NULL;
    tui_screen_close(scr);
    restore_stderr(&cap, t);
    return 0;
}

int cmd_top(int argc, char **argv)
{
    struct opts o;
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc == 1 ? 0 : 2;
    setlocale(LC_ALL, "");
    struct sigaction sa = { .sa_handler = on_quit_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    ps_read_set_stop(stop_reading, NULL);
    static struct tui_top t;        /* large (histories, frames): static, one per process */
    memset(&t, 0, sizeof t);
    setup(&t, &o);
    int rc = o.snapshot ? run_snapshot(&t, &o) : run_screen(&t, &o);
    teardown(&t);
    return rc;
}
