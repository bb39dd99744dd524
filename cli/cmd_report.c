/* `perfscope report FILE`: read a perfscope / Nsight Systems SQLite or PyTorch profiler trace, run the
 * analyses and print the bottleneck report as text, JSON, Markdown or HTML. Exit 0 ok, 1 bad input or a failed
 * write, 2 usage, 3 a --fail-on / --fail-on-share gate tripped (the report is still written). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "analyses/multirank.h"
#include "analyses/names.h"
#include "read/reader.h"
#include "render/render.h"
#include "render/text_style.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: perfscope report FILE... [--format text|json|md|html] [-o OUT] [--color auto|always|never]\n"
            "                        [--fail-on BOTTLENECK[,...]] [--fail-on-share X] [--step-range RE]\n"
            "                        [--data-range RE] [--copy-range RE] [--steps auto|off|infer]\n"
            "                        [--compat tb|tracelens] [--top N] [--kernel-threshold X]\n"
            "                        [--gap-threshold-ms MS] [--tiny-kernel-us US] [--info-below X]\n"
            "                        [--low-util X] [--launch-bound X] [--link-gbps GBPS] [--slow-copy X]\n"
            "                        [--low-occupancy PCT] [--all-steps]\n\n"
            "Where each training step's time goes, and what to change. FILE is a perfscope trace, an Nsight\n"
            "Systems SQLite export or a PyTorch profiler JSON trace (Kineto, ROCm, or the legacy format of PyTorch\n"
            "builds without Kineto), plain or gzip. Several FILEs (one per rank, e.g. run.*.sqlite) give one\n"
            "report over the ranks: per-rank steps and verdict, stragglers, overlap and collectives (text, json\n"
            "or md; --fail-on and --fail-on-share then apply to each rank file's verdict).\n\n"
            "  --format FORMAT        text (default; 100 columns), json (stable keys, docs/report.md), md\n"
            "                         (GitHub Markdown for pull requests) or html (one self-contained page)\n"
            "  -o, --output OUT       write the report to OUT instead of stdout (never the trace itself)\n"
            "  --color WHEN           text colours: auto (default: when stdout is a terminal and NO_COLOR is\n"
            "                         unset or empty), always, never\n"
            "  --fail-on LIST         exit 3 when the run's verdict is one of LIST (comma-separated: kernel,\n"
            "                         data-loading, memcpy, communication, sync, host, unknown)\n"
            "  --fail-on-share X      exit 3 when the verdict's share of the average step is at least X (0..1);\n"
            "                         alone: for any verdict but kernel and unknown; with --fail-on: for those\n"
            "  --step-range RE        step ranges (whole name, case-insensitive extended regex); default\n"
            "                         %s\n"
            "  --data-range RE        data-loading ranges; default\n"
            "                         %s\n"
            "  --copy-range RE        host-side copy phases (traces without GPU rows); default\n"
            "                         %s\n"
            "  --compat tb            find communication as the PyTorch TensorBoard plugin does (kernels linked\n"
            "                         to nccl:/gloo: host ops) instead of by NCCL/RCCL kernel names\n"
            "  --compat tracelens     TraceLens' GPU timeline in its own float64 µs arithmetic (Kineto traces)\n"
            "  --steps auto|off|infer without step ranges, find steps from the repeating kernel sequence (auto,\n"
            "                         default), never (off), or even when step ranges exist (infer)\n"
            "  --top N                kernels listed (default 10; 0 lists all)\n"
            "  --kernel-threshold X   Kernel share from which a step is kernel-bound (default 0.8)\n"
            "  --gap-threshold-ms MS  GPU idle gaps reported as findings from this length (default 1)\n"
            "  --tiny-kernel-us US    kernels shorter than this count as tiny (launch-bound finding; default 10)\n"
            "  --info-below X         findings costing less than this share of the analysed window are 'info',\n"
            "                         not 'warning' (default 0.02)\n"
            "  --low-util X           time slices whose kernels run less than this share of them are low GPU\n"
            "                         utilisation (default 0.5)\n"
            "  --launch-bound X       a stream is launch-bound when this share of its kernels (100 or more) run\n"
            "                         shorter than their launch call (default 0.5)\n"
            "  --link-gbps GBPS       host<->device link peak for pinned memory (pageable: half; default 25, PCIe\n"
            "                         4.0 x16 in practice; 50 for PCIe 5.0 x16)\n"
            "  --slow-copy X          copies slower than this share of that peak are slow (default 0.25)\n"
            "  --low-occupancy PCT    kernels the trace estimates below PCT %% achieved occupancy (default 25)\n"
            "  --all-steps            text: list every step (default: at most 20 rows; JSON always has all)\n\n"
            "Exit status: 0 report written; 1 the trace could not be read or the report not written; 2 bad\n"
            "usage; 3 the report was written and a --fail-on / --fail-on-share gate tripped.\n",
            PS_STEP_RE_DEFAULT, PS_DATA_RE_DEFAULT, PS_COPY_RE_DEFAULT);
}

/* --fail-on LIST: the bottleneck names into bits of *mask. Returns 0, or 2 after printing the problem. */
static int parse_fail_on(const char *list, unsigned *mask)
{
    const char *p = list;
    do {
        size_t len = strcspn(p, ",");
        int b = 0;
        while (b <= PS_BN_UNKNOWN && !(strlen(ps_bottleneck_name[b]) == len && !strncmp(ps_bottleneck_name[b], p, len)))
            b++;
        if (b > PS_BN_UNKNOWN) {
            fprintf(stderr, "perfscope report: --fail-on: unknown bottleneck '%.*s' (use kernel, data-loading, "
                            "memcpy, communication, sync, host or unknown, comma-separated)\n", (int)len, p);
            return 2;
        }
        *mask |= 1u << b;
        p += len;
    } while (*p++ == ',');
    return 0;
}

/* The CI gate (docs/report.md): 1 when verdict b at `share` of the average step trips --fail-on /
 * --fail-on-share, with a line on stderr saying why; `whose` ("" or "rank 3's ") names a rank file's verdict. */
static int gate(enum ps_bottleneck b, double share, const char *whose, unsigned fail_on, double fail_share)
{
    int known = b != PS_BN_UNKNOWN;
    int listed = fail_on ? (fail_on >> b) & 1 : known && b != PS_BN_KERNEL;
    int share_ok = isnan(fail_share) || (known && share >= fail_share);
    if (!(fail_on || !isnan(fail_share)) || !listed || !share_ok)
        return 0;
    if (known)
        fprintf(stderr, "perfscope report: failing (exit 3): %sverdict is %s at %.1f %% of the average step "
                        "(--fail-on%s)\n", *whose ? whose : "the ", ps_bottleneck_name[b], 100.0 * share,
                fail_on ? "" : "-share");
    else
        fprintf(stderr, "perfscope report: failing (exit 3): %sverdict is unknown (--fail-on)\n",
                *whose ? whose : "the ");
    return 1;
}

/* Print a message that may quote bytes of the trace (SQLite errors quote corrupt schema text) escaped. */
static void print_error(const char *msg)
{
    char buf[2048];
    ps_text_escape(msg, buf, sizeof buf, NULL);
    fprintf(stderr, "perfscope report: %s\n", buf);
}

/* 1 when `output` names the trace itself (same device and inode: also through a symlink or hard link). */
static int same_file(const char *path, const char *output)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(output, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Write to `output` (stdout when NULL) with `write`; 0, or 1 after a message. */
static int write_out(const char *output, int (*write)(const void *, FILE *), const void *what)
{
    FILE *dest = stdout;
    if (output && !(dest = fopen(output, "w"))) {
        fprintf(stderr, "perfscope report: cannot write %s: %s (check that its folder exists and is writable)\n",
                output, strerror(errno));
        return 1;
    }
    int rc = write(what, dest), werr = errno;
    if ((output ? fclose(dest) : fflush(dest)) != 0 || rc < 0) {
        werr = rc < 0 ? werr : errno;
        fprintf(stderr, "perfscope report: writing %s failed: %s\n", output ? output : "the report",
                strerror(werr ? werr : EIO));
        return 1;
    }
    return 0;
}

static int mr_text(const void *mr, FILE *f)
{
    return ps_multirank_write_text(mr, f);
}

static int mr_json(const void *mr, FILE *f)
{
    return ps_multirank_write_json(mr, f);
}

static int mr_md(const void *mr, FILE *f)
{
    return ps_multirank_write_md(mr, f);
}

/* Several rank files: read in parallel (one worker per online CPU at most), one report over them. */
static int several_ranks(const struct ps_report_opts *o, const char *const *paths, size_t n,
                         const struct ps_renderer *renderer, const char *output, unsigned fail_on, double fail_share)
{
    int (*write)(const void *, FILE *) = !strcmp(renderer->name, "text") ? mr_text
                                         : !strcmp(renderer->name, "json") ? mr_json
                                         : !strcmp(renderer->name, "md") ? mr_md : NULL;
    if (!write) {
        fprintf(stderr, "perfscope report: --format %s is not available for several rank files (use text, json "
                        "or md; or one report per file)\n", renderer->name);
        return 2;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct ps_multirank mr;
    char err[640] = "";
    int rc = ps_multirank_build(&mr, paths, n, o, cpus > 0 ? (size_t)cpus : 1, err, sizeof err);
    if (rc < 0) {
        print_error(rc == -ENOMEM && !err[0] ? "out of memory" : err);
        return 1;
    }
    int status = write_out(output, write, &mr);
    for (size_t i = 0; status == 0 && i < mr.nfiles; i++) {   /* the gate on each rank file's verdict */
        const struct ps_rank_file *f = &mr.files[i];
        char whose[64];
        if (f->launcher_ranks >= 2)
            snprintf(whose, sizeof whose, "the launcher trace's (file %zu) ", i + 1);
        else
            snprintf(whose, sizeof whose, "rank %d's ", f->rank);
        if (gate(f->stat.bottleneck, f->stat.share, whose, fail_on, fail_share))
            status = 3;
    }
    ps_multirank_fini(&mr);
    return status;
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_FORMAT = 256, OPT_STEP, OPT_DATA, OPT_COPY, OPT_COMPAT, OPT_TOP, OPT_KTH, OPT_GAP, OPT_TINY, OPT_ALL,
           OPT_INFO, OPT_LOWUTIL, OPT_LAUNCH, OPT_LINK, OPT_SLOWCOPY, OPT_OCC, OPT_STEPS, OPT_COLOR, OPT_FAIL_ON,
           OPT_FAIL_SHARE };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT },  { "output", required_argument, NULL, 'o' },
        { "step-range", required_argument, NULL, OPT_STEP }, { "data-range", required_argument, NULL, OPT_DATA },
        { "copy-range", required_argument, NULL, OPT_COPY }, { "compat", required_argument, NULL, OPT_COMPAT },
        { "top", required_argument, NULL, OPT_TOP },         { "kernel-threshold", required_argument, NULL, OPT_KTH },
        { "gap-threshold-ms", required_argument, NULL, OPT_GAP }, { "tiny-kernel-us", required_argument, NULL, OPT_TINY },
        { "all-steps", no_argument, NULL, OPT_ALL },  { "help", no_argument, NULL, 'h' },
        { "info-below", required_argument, NULL, OPT_INFO }, { "low-util", required_argument, NULL, OPT_LOWUTIL },
        { "launch-bound", required_argument, NULL, OPT_LAUNCH }, { "link-gbps", required_argument, NULL, OPT_LINK },
        { "slow-copy", required_argument, NULL, OPT_SLOWCOPY }, { "low-occupancy", required_argument, NULL, OPT_OCC },
        { "steps", required_argument, NULL, OPT_STEPS },
        { "color", required_argument, NULL, OPT_COLOR }, { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "fail-on-share", required_argument, NULL, OPT_FAIL_SHARE },
        { NULL, 0, NULL, 0 },
    };
    struct ps_report_opts o;
    ps_report_opts_default(&o);
    const char *output = NULL;
    const struct ps_renderer *renderer = ps_renderer_find("text");
    double x, fail_share = NAN;
    int c, rc, color = -1;          /* -1 auto */
    unsigned fail_on = 0;           /* bit per enum ps_bottleneck */
    if (ps_opt_check_long_names("report", argc, argv, longopts, "o"))
        return 2;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'o':
            output = optarg;
            if (!*output) {
                fprintf(stderr, "perfscope report: -o was given an empty output path; name a file, or leave -o out "
                                "to print to stdout\n");
                return 2;
            }
            break;
        case OPT_FORMAT:
            if (!(renderer = ps_renderer_find(optarg))) {
                fprintf(stderr, "perfscope report: unknown --format '%s' (use", optarg);   /* the table's */
                for (size_t i = 0; ps_renderer_at(i); i++)
                    fprintf(stderr, "%s %s", i ? "," : "", ps_renderer_at(i)->name);
                fprintf(stderr, ")\n");
                return 2;
            }
            break;
        case OPT_STEP:
            o.step_re = optarg;
            break;
        case OPT_DATA:
            o.data_re = optarg;
            break;
        case OPT_COPY:
            o.copy_re = optarg;
            break;
        case OPT_STEPS:
            if (!strcmp(optarg, "auto")) {
                o.steps_mode = PS_STEPS_AUTO;
            } else if (!strcmp(optarg, "off")) {
                o.steps_mode = PS_STEPS_OFF;
            } else if (!strcmp(optarg, "infer")) {
                o.steps_mode = PS_STEPS_INFER;
            } else {
                fprintf(stderr, "perfscope report: unknown --steps '%s' (use auto, off or infer)\n", optarg);
                return 2;
            }
            break;
        case OPT_COMPAT:
            if (strcmp(optarg, "tb") == 0) {
                o.compat_tb = 1;
            } else if (strcmp(optarg, "tracelens") == 0) {
                o.compat_tracelens = 1;
            } else {
                fprintf(stderr, "perfscope report: unknown --compat '%s' (use tb or tracelens; give --compat twice "
                                "for both)\n", optarg);
                return 2;
            }
            break;
        case OPT_TOP: {
            /* decimal digits only: no sign, hexadecimal, exponent or fraction */
            size_t len = strspn(optarg, "0123456789");
            if (len == 0 || optarg[len] || len > 7 || atol(optarg) > 1000000) {
                fprintf(stderr, "perfscope report: --top needs a whole decimal number from 0 to 1000000, not '%s'\n",
                        optarg);
                return 2;
            }
            o.top_n = (int)atol(optarg);
            break;
        }
        case OPT_KTH:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1)
                return ps_opt_bad_value("report", "--kernel-threshold", "a share from 0 to 1", optarg, rc, x);
            o.kernel_threshold = x;
            break;
        case OPT_GAP:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1e9)
                return ps_opt_bad_value("report", "--gap-threshold-ms", "a length in ms from 0 to 1e9", optarg, rc, x);
            o.gap_ns = (int64_t)(x * 1e6);
            break;
        case OPT_TINY:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1e9)
                return ps_opt_bad_value("report", "--tiny-kernel-us", "a length in µs from 0 to 1e9", optarg, rc, x);
            o.tiny_kernel_ns = (int64_t)(x * 1e3);
            break;
        case OPT_ALL:
            o.all_steps = 1;
            break;
        case OPT_COLOR:
            if (!strcmp(optarg, "auto") || !strcmp(optarg, "always") || !strcmp(optarg, "never")) {
                color = !strcmp(optarg, "auto") ? -1 : !strcmp(optarg, "always");
                break;
            }
            fprintf(stderr, "perfscope report: unknown --color '%s' (use auto, always or never)\n", optarg);
            return 2;
        case OPT_FAIL_ON:
            if ((rc = parse_fail_on(optarg, &fail_on)) != 0)
                return rc;
            break;
        case OPT_FAIL_SHARE:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1)
                return ps_opt_bad_value("report", "--fail-on-share", "a share from 0 to 1", optarg, rc, x);
            fail_share = x;
            break;
        case OPT_INFO:
        case OPT_LOWUTIL:
        case OPT_LAUNCH:
        case OPT_SLOWCOPY: {
            static const char *const name[] = { "--info-below", "--low-util", "--launch-bound", "--slow-copy" };
            int k = c == OPT_INFO ? 0 : c == OPT_LOWUTIL ? 1 : c == OPT_LAUNCH ? 2 : 3;
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1)
                return ps_opt_bad_value("report", name[k], "a share from 0 to 1", optarg, rc, x);
            *(k == 0 ? &o.info_share : k == 1 ? &o.low_util : k == 2 ? &o.launch_bound_share : &o.slow_copy_share) = x;
            break;
        }
        case OPT_LINK:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || !(x > 0) || x > 1e6)
                return ps_opt_bad_value("report", "--link-gbps", "a rate in GB/s above 0, up to 1e6", optarg, rc, x);
            o.link_gbps = x;
            break;
        case OPT_OCC:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 100)
                return ps_opt_bad_value("report", "--low-occupancy", "a percentage from 0 to 100", optarg, rc, x);
            o.low_occupancy_pct = x;
            break;
        case ':':
            fprintf(stderr, "perfscope report: option '%s' needs a value (see 'perfscope report --help')\n",
                    argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "perfscope report: unknown option '%s' (see 'perfscope report --help')\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "perfscope report: which trace? give one FILE, or one FILE per rank (see 'perfscope "
                        "report --help')\n");
        return 2;
    }
    for (int i = optind; output && i < argc; i++)
        if (same_file(argv[i], output)) {
            fprintf(stderr, "perfscope report: -o %s is the trace being read (%s): refusing to overwrite it; "
                            "choose another output file\n", output, argv[i]);
            return 1;
        }
    const char *path = argv[optind];
    char err[512] = "";
    int status = 1;
    struct ps_model *m = NULL;
    struct ps_report rep;
    int built = 0;
    FILE *dest = stdout;

    /* Check the patterns before reading a possibly large trace. */
    struct ps_model *empty = ps_model_new(path, PS_FORMAT_PERFSCOPE);
    struct ps_names *names = NULL;
    rc = empty ? ps_names_new(&names, empty, &o, err, sizeof err) : -ENOMEM;
    ps_names_free(names);
    ps_model_free(empty);
    if (rc < 0) {
        print_error(rc == -ENOMEM ? "out of memory" : err);
        goto out;
    }
    if (optind < argc - 1) {
        status = several_ranks(&o, (const char *const *)argv + optind, (size_t)(argc - optind), renderer, output,
                               fail_on, fail_share);
        goto out;
    }
    if (ps_read_trace(path, &m, err, sizeof err) < 0) {
        print_error(err);
        goto out;
    }
    if (ps_report_build(&rep, m, &o, err, sizeof err) < 0) {
        print_error(err);
        goto out;
    }
    built = 1;
    if (output && !(dest = fopen(output, "w"))) {
        fprintf(stderr, "perfscope report: cannot write %s: %s (check that its folder exists and is writable)\n", output, strerror(errno));
        goto out;
    }
    const char *no_color = getenv("NO_COLOR");
    struct ps_render_opts ro = { .width = PS_TEXT_WIDTH,
                                 .color = color >= 0 ? color : !output && isatty(STDOUT_FILENO) &&
                                                                   !(no_color && *no_color) };
    rc = renderer->write(&rep, &ro, dest);
    int werr = errno;
    if ((output ? fclose(dest) : fflush(dest)) != 0 || rc < 0) {
        werr = rc < 0 ? werr : errno;
        fprintf(stderr, "perfscope report: writing %s failed: %s\n", output ? output : "the report",
                strerror(werr ? werr : EIO));
        goto out;
    }
    status = gate(rep.bottleneck, rep.share, "", fail_on, fail_share) ? 3 : 0;
out:
    if (built)
        ps_report_fini(&rep);
    ps_model_free(m);
    return status;
}
