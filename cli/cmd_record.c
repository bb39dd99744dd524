/* `perfscope record [-o FILE] [-f] [--sample-hz N] [--ring-size BYTES] [--python-stack-hz N] [--] CMD ARGS...`:
 * run CMD with the probe injected, drain its rings and sample its process tree while it runs, and write the trace
 * (docs/record.md, docs/trace-format.md). Returns CMD's exit status (128+N when a signal N killed it). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collector/collect.h"
#include "collector/launch.h"
#include "collector/output_file.h"
#include "collector/python_hook.h"
#include "collector/recover.h"
#include "collector/rows.h"
#include "collector/run_rows.h"
#include "collector/sampler.h"
#include "collector/session.h"
#include "collector/sigwatch.h"
#include "collector/trace_writer.h"
#include "commands.h"
#include "options.h"
#include "ps_env.h"
#include "ps_nvml.h"
#include "ps_ring.h"
#include "ps_time.h"

#define DEFAULT_OUTPUT "run.sqlite"

struct opts {
    const char *output;
    int force;
    double sample_hz;
    unsigned long long ring_bytes;  /* 0: the probe's default */
    enum ps_pyhook_mode python_hooks;
    double python_stack_hz;         /* the hook's Python stack samples per second, 0: none */
    const char *recover;            /* --recover TRACE: no CMD */
    char **cmd;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: perfscope record [-o FILE] [-f] [--sample-hz N] [--ring-size BYTES] [--no-python-hooks]\n"
            "                        [--python-hooks=MODE] [--python-stack-hz N] [--] CMD [ARGS...]\n"
            "       perfscope record --recover FILE\n"
            "\n"
            "Run CMD with perfscope's probe injected (NVTX, CUDA) and sample its process tree from /proc;\n"
            "write everything to a SQLite trace in Nsight Systems' table format (see docs/trace-format.md).\n"
            "Exits with CMD's exit status (128+N if signal N killed it).\n"
            "\n"
            "  -o, --output FILE      trace to write (default " DEFAULT_OUTPUT "); %%p = the recorder's pid,\n"
            "                         %%h = host name, %%r = rank (RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID; else 0;\n"
            "                         digits only)\n"
            "  -f, --force            overwrite FILE if it exists\n"
            "      --sample-hz N      host samples per second (default 20; 0 = none)\n"
            "      --ring-size BYTES  ring per probed process (default %u MiB, at least 644K; suffixes K, M, G, T)\n"
            "      --no-python-hooks  do not load perfscope's Python hook (same as --python-hooks=off)\n"
            "      --python-hooks=MODE  auto (default: when CMD is a Python program, the hook records PyTorch\n"
            "                         DataLoader fetches, steps, optimizer.step, backward and copies), on (whatever\n"
            "                         CMD is, e.g. a shell script starting Python), modules (on, plus the forward\n"
            "                         of top-level nn.Modules), shapes (on, plus a range per ATen op with its\n"
            "                         input sizes, dtypes and strides, on CPU and GPU: FLOPs, bytes, rooflines), off\n"
            "      --python-stack-hz N  the Python hook samples the Python stack of every thread of each process\n"
            "                         N times a second (default %d; 0 = never), DataLoader workers included\n"
            "      --recover FILE     finish the trace FILE of a perfscope record that died (kill -9, out of\n"
            "                         memory), adding what its program had recorded that it had not written\n"
            "  -h, --help             this help\n"
            "\n"
            "Environment: PERFSCOPE_PROBE names libperfscope_probe.so (an error if it is not); PERFSCOPE_LOG=FILE|stderr\n"
            "logs the probe.\n",
            PS_RING_DEFAULT_BYTES >> 20, PS_PYHOOK_STACK_HZ_DEFAULT);
}

/* Decimal digits only, then an optional K/M/G/T (powers of 1024) and an optional B. -EINVAL otherwise, or
 * -ERANGE beyond 64 bits. */
static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -ERANGE;
    unsigned shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -EINVAL;
    if (shift && v > (ULLONG_MAX >> shift))
        return -ERANGE;
    *out = v << shift;
    return 0;
}

/* --sample-hz, --python-stack-hz: plain decimal (digits, an optional fraction), 0 to 1000; 0 or -EINVAL. */
static int parse_hz(const char *s, double *out)
{
    size_t digits = strspn(s, "0123456789");
    const char *p = s + digits;
    if (*p == '.')
        p += 1 + strspn(p + 1, "0123456789");
    if (!digits || *p)
        return -EINVAL;
    *out = strtod(s, NULL);
    return *out <= 1000 ? 0 : -EINVAL;
}

/* 0: run; 1: --help printed; 2: usage error (message printed). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 'f' },
        { "sample-hz", required_argument, NULL, 'S' },
        { "ring-size", required_argument, NULL, 'R' },
        { "python-hooks", required_argument, NULL, 'P' },
        { "no-python-hooks", no_argument, NULL, 'N' },
        { "python-stack-hz", required_argument, NULL, 'Y' },
        { "recover", required_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *o = (struct opts){ .output = DEFAULT_OUTPUT, .sample_hz = 20, .python_stack_hz = PS_PYHOOK_STACK_HZ_DEFAULT };
    if (ps_opt_check_long_names_before_command("record", argc, argv, longopts, "o"))
        return 2;
    int c;
    while ((c = getopt_long(argc, argv, "+:o:fh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            /* `record -o -- ./p` took "--" as the file name: a value starting with '-' is a missing one. */
            if (optarg[0] == '-') {
                fprintf(stderr, "perfscope record: -o needs a file name, got '%s' (for a name starting with '-', "
                                "write ./%s; see 'perfscope record --help')\n", optarg, optarg);
                return 2;
            }
            o->output = optarg;
            break;
        case 'f':
            o->force = 1;
            break;
        case 'S':
            if (parse_hz(optarg, &o->sample_hz)) {
                fprintf(stderr, "perfscope record: --sample-hz %s: give a decimal number from 0 to 1000, such as 20 "
                                "or 0.5 (see 'perfscope record --help')\n", optarg);
                return 2;
            }
            break;
        case 'R':
            if (parse_size(optarg, &o->ring_bytes) || o->ring_bytes < PS_RING_MIN_BYTES ||
                o->ring_bytes > PS_RING_MAX_BYTES) {
                fprintf(stderr, "perfscope record: --ring-size %s: give a size from %llu bytes (%lluK) to %lluT, "
                                "digits with an optional suffix K, M, G or T (powers of 1024); see 'perfscope "
                                "record --help'\n", optarg,
                        PS_RING_MIN_BYTES, PS_RING_MIN_BYTES >> 10, PS_RING_MAX_BYTES >> 40);
                return 2;
            }
            break;
        case 'P':
            if (ps_pyhook_parse(optarg, &o->python_hooks)) {
                fprintf(stderr, "perfscope record: --python-hooks=%s: give auto, on, off, modules or shapes (see 'perfscope "
                                "record --help')\n", optarg);
                return 2;
            }
            break;
        case 'N':
            o->python_hooks = PS_PYHOOK_OFF;
            break;
        case 'Y':
            if (parse_hz(optarg, &o->python_stack_hz)) {
                fprintf(stderr, "perfscope record: --python-stack-hz %s: give a decimal number from 0 to 1000, such as "
                                "100 or 0 (see 'perfscope record --help')\n", optarg);
                return 2;
            }
            break;
        case 'V':
            o->recover = optarg;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            return ps_opt_getopt_error("record", c, argv);
        }
    }
    if (o->recover) {
        if (optind >= argc)
            return 0;
        fprintf(stderr, "perfscope record: --recover takes a trace and no command (see 'perfscope record "
                        "--help')\n");
        return 2;
    }
    if (optind >= argc) {
        fprintf(stderr, "perfscope record: no command given: perfscope record [options] -- CMD ARGS... (see "
                        "'perfscope record --help')\n");
        return 2;
    }
    o->cmd = argv + optind;
    return 0;
}

/* Point the probe's variables at the session; warn when another tool had set the injection paths. */
static int set_env(const char *session, const char *probe, const struct opts *o)
{
    static const char *const inj[] = { PS_ENV_NVTX_INJECTION, PS_ENV_CUDA_INJECTION };
    for (size_t i = 0; probe && i < 2; i++) {
        const char *old = getenv(inj[i]);
        if (old && *old && strcmp(old, probe) != 0)
            fprintf(stderr, "perfscope record: warning: %s was set to %s (another profiler, such as nsys?); "
                            "perfscope replaces it for CMD, so that tool sees no NVTX/CUDA from it\n", inj[i], old);
        if (setenv(inj[i], probe, 1))
            return -errno;
    }
    if (setenv(PS_ENV_SESSION_DIR, session, 1))
        return -errno;
    if (o->ring_bytes) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", o->ring_bytes);
        if (setenv(PS_ENV_RING_BYTES, buf, 1))
            return -errno;
    }
    return 0;
}

struct run {
    const struct opts *o;
    char output[PATH_MAX];
    char session[PATH_MAX];
    char probe[PATH_MAX];
    int have_probe;
    int64_t origin_ns, utc_ns, end_ns;
    pid_t child;
    int wstatus;
    unsigned probe_failures;        /* processes whose probe could not record */
    char python_hooks[16];          /* the Python hook mode applied: off, default, modules */
    struct ps_nvml *nvml;           /* NULL: no GPU samples (gpu_why says why) */
    char gpu_why[256];
};

/* One NVML sample of every device, queued for PERFSCOPE_GPU_SAMPLES. 0 or -ENOMEM. */
static int sample_gpus(struct run *r, struct ps_collect *c)
{
    struct ps_gpu_sample s[8];
    unsigned n = ps_nvml_count(r->nvml), k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (ps_nvml_sample(r->nvml, i, &s[k]) == 0)
            k++;
        if (k == sizeof s / sizeof s[0] || (i + 1 == n && k)) {
            if (ps_collect_post_gpu_samples(c, s, k))
                return -ENOMEM;
            k = 0;
        }
    }
    return 0;
}

/* NVML for the GPU sampler; r->gpu_why says whether there are GPU samples and why not (PERFSCOPE_META
 * gpu_samples, written with the first rows so that a live reader sees it). */
static void open_gpu_sampler(struct run *r)
{
    if (r->o->sample_hz <= 0) {
        snprintf(r->gpu_why, sizeof r->gpu_why, "none: --sample-hz 0");
        return;
    }
    char why[200];
    if (ps_nvml_open(&r->nvml, why, sizeof why) != PS_NVML_OK)
        snprintf(r->gpu_why, sizeof r->gpu_why, "none: %s", why);
    else if (ps_nvml_count(r->nvml) == 0)
        snprintf(r->gpu_why, sizeof r->gpu_why, "none: NVML sees no GPU");
    else
        snprintf(r->gpu_why, sizeof r->gpu_why, "nvml");
}

/* The launcher's tick: one host sample of CMD's process tree and one of every GPU, queued for the trace. */
struct sampling {
    struct run *r;
    struct ps_collect *c;
    struct ps_sampler *sampler;
    int failed;
};

static void sample_tick(void *ctx, int exited)
{
    (void)exited;
    struct sampling *s = ctx;
    const struct ps_proc_sample *ps;
    const struct ps_thread_sample *ts;
    size_t np, nt;
    if ((ps_sampler_tick(s->sampler, &ps, &np, &ts, &nt) || ps_collect_post_samples(s->c, ps, np, ts, nt) ||
         sample_gpus(s->r, s->c)) &&
        !s->failed++)
        fprintf(stderr, "perfscope record: warning: out of memory while sampling\n");
}

/* Wait for CMD while sampling it and forwarding signals (launch.h). Fills r->wstatus and r->end_ns. `sw`
 * (may be NULL) tells which signals reached record's whole process group. */
static void supervise(struct run *r, const sigset_t *waitset, struct ps_collect *c, struct ps_sigwatch *sw)
{
    struct sampling s = { .r = r, .c = c };
    if (r->o->sample_hz > 0 && ps_sampler_new((uint32_t)r->child, &s.sampler))
        fprintf(stderr, "perfscope record: warning: out of memory: no host samples\n");
    int64_t period = s.sampler ? (int64_t)(1e9 / r->o->sample_hz) : 200000000;
    r->wstatus = ps_launch_supervise(r->child, waitset, period, s.sampler ? sample_tick : NULL, &s, sw);
    r->end_ns = ps_monotonic_ns();
    ps_sampler_free(s.sampler);
}

/* After a failed trace: name a file-size limit (ulimit -f), the likely cause besides a full disk. */
static void say_file_size_limit(void)
{
    struct rlimit l;
    if (getrlimit(RLIMIT_FSIZE, &l) == 0 && l.rlim_cur != RLIM_INFINITY)
        fprintf(stderr, "perfscope record: a file size limit is set (ulimit -f: %llu bytes): raise it, or write the "
                        "trace where it holds\n", (unsigned long long)l.rlim_cur);
}

/* One warning per cause of dropped records, each with its own remedy. */
static void warn_drops(const struct ps_ring_drops *d, const char *session)
{
    if (d->full)
        fprintf(stderr, "perfscope record: warning: %" PRIu64 " records were dropped because a ring was full "
                        "(use a larger --ring-size; if the program runs under a file-size limit, ulimit -f, raise it: "
                        "the probe shrinks its ring to fit under it)\n", d->full);
    if (d->nolane)
        fprintf(stderr, "perfscope record: warning: %" PRIu64 " records of threads beyond the 1024 lanes of a "
                        "process were dropped (more than 1024 threads made NVTX calls at once; a larger ring does "
                        "not help)\n", d->nolane);
    if (d->limit)
        fprintf(stderr, "perfscope record: warning: %" PRIu64 " ranges beyond the probe's limits were dropped "
                        "(push/pop nesting deeper than 65536, or more than 65536 start/end ranges open at once: "
                        "look for pushes without pops)\n", d->limit);
    if (d->alloc)
        fprintf(stderr, "perfscope record: warning: %" PRIu64 " records were dropped because ring memory could not "
                        "be allocated in %s (its file system is full: free space there, set XDG_RUNTIME_DIR to a "
                        "larger one, or use a smaller --ring-size)\n", d->alloc, session);
}

/* Records in the rings that no probe wrote (collector/rows.c), left out of the trace. */
static void warn_invalid(uint64_t n)
{
    if (n)
        fprintf(stderr, "perfscope record: warning: %" PRIu64 " record%s in the probes' rings made no sense (times "
                        "outside the recording, threads or domains the process never made, slots no probe fills: "
                        "the program wrote over its ring) and %s left out (invalid_records)\n",
                n, n == 1 ? "" : "s", n == 1 ? "was" : "were");
}

/* `record --recover TRACE`: the exit status. */
static int recover(const char *trace)
{
    struct ps_recovery res;
    char err[1024];
    if (ps_record_recover(trace, &res, err, sizeof err)) {
        fprintf(stderr, "perfscope record: --recover %s\n", err);
        return 1;
    }
    if (res.nothing_to_do)
        fprintf(stderr, "perfscope record: --recover %s: %s\n", trace, res.nothing_to_do);
    else
        fprintf(stderr, "perfscope record: recovered %" PRIu64 " records from the rings of the recorder that died "
                        "into %s; %" PRIu64 " records dropped\n", res.salvaged, trace, res.dropped);
    warn_invalid(res.invalid);
    return 0;
}

/* Signals are taken synchronously by the main thread from the start (the threads started later inherit the
 * mask): one that arrives while the output is being set up must not kill record and leave an empty file
 * behind; ps_sigwatch_take_stop_signal decides before CMD starts. Fills the set of signals record waits for
 * and the mask it was started with. */
static void block_signals(sigset_t *waitset, sigset_t *orig)
{
    static const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD };
    sigemptyset(waitset);
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
        sigaddset(waitset, fwd[i]);
    pthread_sigmask(SIG_BLOCK, waitset, orig);
}

/* Find the probe (r->probe, r->have_probe). 0, or 1 after a message when PERFSCOPE_PROBE names no probe. */
static int find_probe(struct run *r)
{
    char tried[4096];
    int rc = ps_session_find_probe(r->probe, sizeof r->probe, tried, sizeof tried);
    const char *env_probe = getenv("PERFSCOPE_PROBE");
    if (rc && env_probe && *env_probe) {
        fprintf(stderr, "perfscope record: PERFSCOPE_PROBE=%s: %s (name libperfscope_probe.so, or unset it to use "
                        "the one installed with perfscope)\n", tried,
                rc == -ENOEXEC ? "not perfscope's probe library" : strerror(-rc));
        return 1;
    }
    r->have_probe = rc == 0;
    if (!r->have_probe)
        fprintf(stderr, "perfscope record: warning: libperfscope_probe.so not found (tried %s; set "
                        "PERFSCOPE_PROBE): recording host samples only, no NVTX or CUDA\n", tried);
    return 0;
}

/* Create the trace (a claimed, empty file) and write what it says from the start: that it is incomplete, where
 * its rings are for `record --recover`, and whether there are GPU samples. 0, or -errno after a message (the file
 * is removed). */
static int open_trace(struct run *r, struct ps_tw **w)
{
    char err[1024];
    open_gpu_sampler(r);
    const struct ps_run_start start = { .session_dir = r->session, .origin_ns = r->origin_ns, .utc_ns = r->utc_ns,
                                        .gpu_samples = r->gpu_why, .python_hooks = r->python_hooks,
                                        .python_stack_hz = r->o->python_stack_hz };
    int rc = ps_tw_open(r->output, w, err, sizeof err);
    if (rc)
        fprintf(stderr, "perfscope record: %s\n", err);
    else if ((rc = ps_run_rows_start(*w, &start)))
        fprintf(stderr, "perfscope record: %s\n", ps_tw_errmsg(*w));
    if (!rc)
        return 0;
    say_file_size_limit();
    ps_tw_free(*w);
    *w = NULL;
    ps_output_unlink(r->output);
    return rc;
}

/* After CMD: drain the rest, write the end-of-run rows and finish the file; say what was written. Frees w.
 * Returns 0, or 1 after saying that the trace is incomplete. */
static int finish_trace(struct run *r, struct ps_tw *w, struct ps_collect *c)
{
    struct ps_rows_totals t;
    int rc = ps_collect_stop(c, &t);
    r->probe_failures = ps_session_report_probe_failures(r->session);
    const struct ps_run_end end = {
        .argv = r->o->cmd, .origin_ns = r->origin_ns, .utc_ns = r->utc_ns, .end_ns = r->end_ns,
        .sample_hz = r->o->sample_hz, .ring_bytes = r->o->ring_bytes ? (int64_t)r->o->ring_bytes : PS_RING_DEFAULT_BYTES,
        .probe_path = r->have_probe ? r->probe : "", .python_hooks = r->python_hooks, .child_pid = r->child,
        .wstatus = r->wstatus, .probe_failures = r->probe_failures,
    };
    if (!rc && !(rc = ps_tw_begin(w)) && !(rc = ps_run_rows_end(w, &end, &t)) &&
        !(rc = ps_collect_forget_recovery(w)) && !(rc = ps_tw_commit(w)))
        rc = ps_tw_finish(w);
    if (rc == -EBUSY) {     /* complete, but left in WAL mode by a concurrent reader: a warning, not a failure */
        fprintf(stderr, "perfscope record: warning: %s\n", ps_tw_errmsg(w));
        rc = 0;
    }
    if (rc == -EIO)
        fprintf(stderr, "perfscope record: %s\n", ps_tw_errmsg(w));
    ps_tw_free(w);
    if (rc) {
        fprintf(stderr, "perfscope record: the trace %s is incomplete or missing\n", r->output);
        say_file_size_limit();
        return 1;
    }
    fprintf(stderr, "perfscope record: wrote %s: %" PRIu64 " NVTX events, %" PRIu64 " process%s (%" PRIu64
                    " probed), %" PRIu64 " records dropped\n", r->output, t.nvtx_rows, t.processes,
            t.processes == 1 ? "" : "es", t.probed_processes, t.dropped);
    warn_drops(&t.drops, r->session);
    warn_invalid(t.invalid);
    return 0;
}

/* Record CMD into the claimed trace: the trace's first rows, the drain and writer threads, CMD itself while it
 * is sampled and sent its signals, then the end of the trace. Returns the exit status. */
static int record_cmd(struct run *r, const sigset_t *waitset, const sigset_t *orig)
{
    /* record writes only to its own stderr and the trace: a closed stderr must not kill it (and with it the
     * recording) with SIGPIPE; CMD gets the disposition record was started with. Likewise a file-size limit
     * (ulimit -f): writes past it fail with EFBIG and the trace is reported incomplete, instead of SIGXFSZ
     * killing record silently. */
    struct sigaction orig_pipe, orig_xfsz, ign = { .sa_handler = SIG_IGN };
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &orig_pipe);
    sigaction(SIGXFSZ, &ign, &orig_xfsz);
    /* The drain runs before the child starts: a short burst at its start must not fill a ring unseen. */
    r->origin_ns = ps_monotonic_ns();
    r->utc_ns = ps_realtime_ns();
    struct ps_tw *w = NULL;
    struct ps_collect *c = NULL;
    struct ps_sigwatch *sw = NULL;
    int status = 1;
    if (open_trace(r, &w))
        goto out;
    /* Before the threads: the helper is a fork of this one thread. Without it every signal a process sent is
     * forwarded. */
    if (ps_sigwatch_start(waitset, &sw))
        sw = NULL;
    if (ps_collect_start(r->session, r->origin_ns, w, &c)) {
        ps_sigwatch_stop(sw);
        ps_tw_free(w);
        ps_output_unlink(r->output);
        goto out;
    }
    /* `perfscope top` finds the trace of a live recording through this file, and `record --recover` the trace
     * that the rings of a dead recorder belong to. */
    ps_session_write_trace_name(r->session, r->output);
    char err[1024];
    int stop_sig = ps_sigwatch_take_stop_signal(waitset);
    int start_rc = stop_sig ? 0 : ps_launch_start(r->o->cmd, &(struct ps_launch_signals){ orig, &orig_pipe, &orig_xfsz },
                                                 &r->child, err, sizeof err);
    if (stop_sig || start_rc) {
        /* Nothing ran: no trace is left behind (docs/record.md). */
        if (stop_sig)
            fprintf(stderr, "perfscope record: stopped by %s before CMD started: nothing ran, no trace written\n",
                    strsignal(stop_sig));
        else
            fprintf(stderr, "perfscope record: %s\n", err);
        ps_sigwatch_stop(sw);
        ps_collect_stop(c, &(struct ps_rows_totals){ 0 });
        ps_tw_free(w);
        ps_output_unlink(r->output);
        status = stop_sig ? 128 + stop_sig : ps_launch_shell_status(start_rc);
        goto out;
    }
    supervise(r, waitset, c, sw);
    ps_sigwatch_stop(sw);
    status = ps_launch_exit_status(r->wstatus);
    if (finish_trace(r, w, c) && status == 0)
        status = 1;
out:
    /* Signals that arrived while the trace was finalised were meant for the child: drop them rather than let
     * them kill us (and change the exit status) when they are unblocked. */
    while (sigtimedwait(waitset, NULL, &(struct timespec){ 0, 0 }) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, orig, NULL);
    sigaction(SIGPIPE, &orig_pipe, NULL);
    sigaction(SIGXFSZ, &orig_xfsz, NULL);
    return status;
}

int cmd_record(int argc, char **argv)
{
    struct opts o;
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc == 1 ? 0 : 2;
    if (o.recover)
        return recover(o.recover);
    struct run r = { .o = &o };
    char err[1024];
    if (ps_session_expand_output(o.output, r.output, sizeof r.output, err, sizeof err)) {
        fprintf(stderr, "perfscope record: %s\n", err);
        return 2;
    }
    if (ps_output_refuse_existing("record", r.output, o.force))
        return 2;
    sigset_t waitset, orig;
    block_signals(&waitset, &orig);
    if (find_probe(&r))
        return 1;
    int out_lock = ps_output_claim(r.output, o.force, err, sizeof err);
    if (out_lock < 0) {
        fprintf(stderr, "perfscope record: %s\n", err);
        return 1;
    }
    int status = 1;
    if (ps_session_dir_create(r.session, sizeof r.session, err, sizeof err)) {
        fprintf(stderr, "perfscope record: %s\n", err);
        ps_output_unlink(r.output);
        close(out_lock);
        return 1;
    }
    if (set_env(r.session, r.have_probe ? r.probe : NULL, &o) ||
        ps_pyhook_setenv(o.python_hooks, o.cmd, r.have_probe ? r.probe : NULL, r.python_hooks, sizeof r.python_hooks) ||
        ps_pyhook_set_stack_hz(o.python_stack_hz)) {
        fprintf(stderr, "perfscope record: cannot set the environment: %s\n", strerror(errno));
        ps_output_unlink(r.output);
    } else {
        status = record_cmd(&r, &waitset, &orig);
    }
    ps_nvml_close(r.nvml);
    ps_session_dir_remove(r.session);
    close(out_lock);                /* the trace is complete, or removed: another recorder may replace it now */
    return status;
}
