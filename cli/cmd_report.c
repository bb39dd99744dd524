/* `perfscope report FILE`: read a perfscope / Nsight Systems SQLite or PyTorch profiler trace, run the
 * analyses and print the bottleneck report as text, JSON, Markdown or HTML. Exit 0 ok, 1 bad input or a failed
 * write, 2 usage, 3 a --fail-on / --fail-on-share gate tripped (the report is still written). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_options.h"
#include "commands.h"
#include "options.h"
#include "analyses/gpu_peaks.h"
#include "analyses/ranks.h"
#include "analyses/op_perf.h"
#include "analyses/roofline.h"
#include "collector/session.h"
#include "ps_text_escape.h"
#include "read/reader.h"
#include "report_merge.h"
#include "render/render.h"
#include "model/op_trace.h"

static void usage(FILE *out)
{
    fputs("usage: perfscope report FILE... [--format ", out);
    ps_format_names(out, 0, "|");
    fprintf(out, "] [-o OUT [-f]] [--color auto|always|never]\n"
                 "                        [--fail-on BOTTLENECK[,...]] [--fail-on-share X] [--all-steps] [--skip-steps N]\n"
                 "                        [--sections LIST | --details] [--gpu-spec FILE]\n");
    ps_analysis_opts_synopsis(out, 24);
    fprintf(out,
            "\n"
            "Where each training step's time goes, and what to change. FILE is a perfscope trace, an Nsight\n"
            "Systems SQLite export or a PyTorch profiler JSON trace (Kineto, ROCm, or the legacy format of PyTorch\n"
            "builds without Kineto), plain or gzip. Several FILEs (one per rank, e.g. run.*.sqlite) give one\n"
            "report over the ranks: per-rank steps and verdict, stragglers, overlap and collectives (every\n"
            "format; --fail-on and --fail-on-share then apply to each rank file's verdict).\n\n");
    ps_format_help(out, 0);
    fprintf(out,
            "  -o, --output OUT       write the report to OUT instead of stdout (never the trace itself)\n"
            "  -f, --force            overwrite OUT if it exists\n"
            "  --color WHEN           text colours: auto (default: when stdout is a terminal and NO_COLOR is\n"
            "                         unset or empty), always, never\n"
            "  --fail-on LIST         exit 3 when the run's verdict is one of LIST (comma-separated: kernel,\n"
            "                         data-loading, memcpy, communication, sync, host, unknown)\n"
            "  --fail-on-share X      exit 3 when the verdict's share of the average step is at least X (0..1);\n"
            "                         alone: for any verdict but kernel and unknown; with --fail-on: for those\n"
            "  --sections LIST        text: after the answer (verdict, where the average step goes, what to do,\n"
            "                         warnings on the trace's scope, ranks), add these sections (comma-separated):\n"
            "                         steps, pytorch, gpu, memory, ops, kernels, copies, findings, or all.\n"
            "                         JSON, md and html always hold every section\n"
            "  --details              text: every section (--sections all)\n"
            "  --all-steps            text: list every step (default: at most 20 rows; JSON always has all)\n"
            "  --skip-steps N         leave the first N steps (warm-up: worker start-up, autotuning, first\n"
            "                         allocations) out of every average, the verdict and the findings\n"
            "  --top N                kernels listed (default 10; 0 lists all)\n"
            "  --gpu-spec FILE        GPU peaks (JSON) that override or add to the built-in table for rooflines\n"
            "                         and MFU (docs/gpu-peaks.md); may be given more than once\n");
    ps_analysis_opts_help(out);
    fprintf(out,
            "\n"
            "Exit status: 0 report written; 1 the trace could not be read or the report not written; 2 bad\n"
            "usage (also: several FILEs that cannot be ranks of one job, or one JSON report alone); 3 the report was\n"
            "written and a --fail-on / --fail-on-share gate tripped.\n");
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

/* --sections LIST: section names (render.h ps_text_section_names) or "all" into bits of *mask. 0, or 2 after
 * printing the problem. */
static int parse_sections(const char *list, unsigned *mask)
{
    const char *p = list;
    do {
        size_t len = strcspn(p, ","), k = 0, n = sizeof ps_text_section_names / sizeof *ps_text_section_names;
        if (len == 3 && !strncmp(p, "all", 3)) {
            *mask |= PS_TEXT_ALL;
        } else {
            while (k < n && !(strlen(ps_text_section_names[k]) == len && !strncmp(ps_text_section_names[k], p, len)))
                k++;
            if (k == n) {
                fprintf(stderr, "perfscope report: --sections: unknown section '%.*s' (use steps, pytorch, gpu, "
                                "memory, ops, kernels, copies, findings or all, comma-separated)\n", (int)len, p);
                return 2;
            }
            *mask |= 1u << k;
        }
        p += len;
    } while (*p++ == ',');
    return 0;
}

/* What the command line asks for. */
struct report_args {
    struct ps_report_opts o;
    const struct ps_renderer *renderer;   /* --format */
    const char *output;                   /* -o, NULL: stdout */
    int force;                            /* -f: overwrite an existing OUT */
    int color;                            /* --color: 1 always, 0 never, -1 auto */
    unsigned fail_on;                     /* --fail-on: a bit per enum ps_bottleneck */
    unsigned sections;                    /* --sections, --details: enum ps_text_section bits */
    double fail_share;                    /* --fail-on-share; NAN: not given */
    const char *gpu_spec[8];              /* --gpu-spec files, in order */
    size_t ngpu_spec;
};

/* The options into *a. Returns -1 to go on (optind: the first FILE), else the exit status (0 after --help, 2). */
static int parse_args(int argc, char **argv, struct report_args *a)
{
    enum { OPT_FORMAT = 256, OPT_ALL, OPT_COLOR, OPT_FAIL_ON, OPT_FAIL_SHARE, OPT_GPU_SPEC, OPT_SKIP, OPT_SECTIONS,
           OPT_DETAILS };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT }, { "color", required_argument, NULL, OPT_COLOR },
        { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "fail-on-share", required_argument, NULL, OPT_FAIL_SHARE },
        { "all-steps", no_argument, NULL, OPT_ALL },       { "help", no_argument, NULL, 'h' },
        { "gpu-spec", required_argument, NULL, OPT_GPU_SPEC },
        { "skip-steps", required_argument, NULL, OPT_SKIP },
        { "sections", required_argument, NULL, OPT_SECTIONS }, { "details", no_argument, NULL, OPT_DETAILS },
        PS_ANALYSIS_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    *a = (struct report_args){ .renderer = ps_renderer_find("text"), .color = -1, .fail_share = NAN };
    ps_report_opts_default(&a->o);
    double x;
    int c, rc;
    if (ps_opt_check_long_names("report", argc, argv, longopts, "o"))
        return 2;
    while ((c = ps_analysis_getopt("report", argc, argv, longopts, &a->o, &a->output, &a->force)) >= 0) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case OPT_FORMAT:
            if (!(a->renderer = ps_format_option("report", optarg, 0)))
                return 2;
            break;
        case OPT_ALL:
            a->o.all_steps = 1;
            break;
        case OPT_GPU_SPEC:
            if (a->ngpu_spec == sizeof a->gpu_spec / sizeof a->gpu_spec[0]) {
                fprintf(stderr, "perfscope report: --gpu-spec: at most %zu files (put several GPUs in one file)\n",
                        sizeof a->gpu_spec / sizeof a->gpu_spec[0]);
                return 2;
            }
            a->gpu_spec[a->ngpu_spec++] = optarg;
            break;
        case OPT_SKIP:   /* decimal digits only, as --top */
            if (!optarg[0] || optarg[strspn(optarg, "0123456789")] || strlen(optarg) > 7) {
                fprintf(stderr, "perfscope report: --skip-steps needs a whole decimal number from 0 to 9999999, "
                                "not '%s'\n", optarg);
                return 2;
            }
            a->o.skip_steps = atoi(optarg);
            break;
        case OPT_SECTIONS:
            if ((rc = parse_sections(optarg, &a->sections)) != 0)
                return rc;
            break;
        case OPT_DETAILS:
            a->sections = PS_TEXT_ALL;
            break;
        case OPT_COLOR:
            if ((a->color = ps_opt_parse_color("report", optarg)) == -2)
                return 2;
            break;
        case OPT_FAIL_ON:
            if ((rc = parse_fail_on(optarg, &a->fail_on)) != 0)
                return rc;
            break;
        case OPT_FAIL_SHARE:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1)
                return ps_opt_bad_value("report", "--fail-on-share", "a share from 0 to 1", optarg, rc, x);
            a->fail_share = x;
            break;
        default:
            return ps_opt_getopt_error("report", c, argv);
        }
    }
    return c == -1 ? -1 : 2;
}

/* Write with the format's writer to -o (stdout when none); 0, or 1 after a message. `ranks` picks the several-file
 * writer over the one-trace one. */
static int write_out(const struct report_args *a, const struct ps_render_opts *ro, const struct ps_report *r,
                     const struct ps_multirank *mr)
{
    FILE *dest = ps_output_open("report", a->output);
    if (!dest)
        return 1;
    int rc = mr ? a->renderer->ranks(dest, mr, ro) : a->renderer->report(dest, r, ro);
    return ps_output_close("report", a->output, dest, rc, errno, "the report");
}

/* Several rank files: read in parallel (one worker per online CPU at most), one report over them; or, `merge`,
 * per-rank JSON reports merged without their traces (report_merge.h). */
static int several_ranks(const struct report_args *a, const struct ps_render_opts *ro, const char *const *paths,
                         size_t n, int merge)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct ps_multirank mr;
    char err[640] = "";
    int rc = merge ? ps_report_merge(&mr, paths, n, err, sizeof err)
                   : ps_multirank_compute(&mr, paths, n, ps_read_trace, &a->o, cpus > 0 ? (size_t)cpus : 1, err,
                                        sizeof err);
    if (rc == -EDOM) {   /* not ranks of one job: a usage error, with what to do instead (docs/distributed.md) */
        char msg[2048];
        if (n == 2 && !merge)
            snprintf(msg, sizeof msg, "these files are not ranks of one job: %s (to compare two runs: perfscope diff "
                     "%s %s)", err, paths[0], paths[1]);
        else
            snprintf(msg, sizeof msg, "these files are not ranks of one job: %s (give one file per rank of one run)",
                     err);
        print_error(msg);
        return 2;
    }
    if (rc < 0) {
        print_error(rc == -ENOMEM && !err[0] ? "out of memory" : err);
        return 1;
    }
    int status = write_out(a, ro, NULL, &mr);
    for (size_t i = 0; status == 0 && i < mr.nfiles; i++) {   /* the gate on each rank file's verdict */
        const struct ps_rank_file *f = &mr.files[i];
        char whose[64];
        if (f->launcher_ranks >= 2)
            snprintf(whose, sizeof whose, "the launcher trace's (file %zu) ", i + 1);
        else
            snprintf(whose, sizeof whose, "rank %d's ", f->rank);
        if (gate(f->stat.bottleneck, f->stat.share, whose, a->fail_on, a->fail_share))
            status = 3;
    }
    ps_multirank_fini(&mr);
    return status;
}

/* The per-operator performance model of a PyTorch profiler trace, from the events read as TraceLens reads them in
 * the trace's own pass (m->op_events; a pass of their own when that one had no memory for them); NULL when it
 * cannot be had (memory), which leaves the report without it. *events gets the events it was built from (the
 * per-step MFU models each step's share of them; ps_op_trace_free), NULL with the model. */
static struct ps_op_perf *op_perf_of(struct ps_model *m, struct ps_op_trace **events)
{
    struct ps_op_trace *t = ps_model_take_op_events(m);
    struct ps_op_perf *p = calloc(1, sizeof *p);
    if (!p || (!t && ps_read_kineto_ops(m->path, &t, NULL, 0) < 0) || ps_op_perf_compute(t, p) < 0) {
        free(p);
        p = NULL;
        ps_op_trace_free(t);
        t = NULL;
    }
    *events = t;
    return p;
}

/* The operator model of a perfscope / nsys trace whose Python hook recorded per-op ranges with shapes
 * (--python-hooks=shapes); NULL without such ranges or memory. *events as op_perf_of. */
static struct ps_op_perf *op_perf_of_model(const struct ps_model *m, struct ps_op_trace **events)
{
    struct ps_op_trace *t = NULL;
    struct ps_op_perf *p = NULL;
    if (ps_op_perf_trace_compute(m, &t) == 0 && t && (p = calloc(1, sizeof *p)) && ps_op_perf_compute(t, p) < 0) {
        free(p);
        p = NULL;
    }
    if (!p) {
        ps_op_trace_free(t);
        t = NULL;
    }
    *events = t;
    return p;
}

/* One trace: read, analysed, written; then the gate on its verdict. */
static int one_trace(const struct report_args *a, const struct ps_render_opts *ro, const char *path,
                     const struct ps_gpu_specs *specs)
{
    char err[512] = "";
    struct ps_model *m = NULL;
    struct ps_report rep;
    int status = 1;
    if (ps_read_trace_with(path, &(struct ps_read_opts){ .op_events = 1 }, &m, err, sizeof err) < 0) {
        print_error(err);
    } else if (ps_ranks_report_compute(&rep, m, &a->o, err, sizeof err) < 0) {
        print_error(err);
    } else {
        struct ps_op_trace *events = NULL;
        struct ps_op_perf *op = m->format == PS_FORMAT_KINETO ? op_perf_of(m, &events)
                                                              : op_perf_of_model(m, &events);
        if (op && ps_op_perf_attach(&rep, op) < 0)
            rep.op_perf = NULL;
        if (!op && m->format != PS_FORMAT_KINETO)
            (void)ps_op_perf_suggest_shapes(&rep);   /* out of memory: the report goes out without the note */
        const struct ps_message *skip = ps_report_message(&rep, "skip_steps_ignored");
        if (skip)   /* also on stderr: the report may go to a file */
            fprintf(stderr, "perfscope report: warning: %s\n", skip->text);
        if (op && (ps_op_efficiency_compute(&rep, op, specs) < 0 || ps_op_efficiency_steps_compute(&rep, events) < 0)) {
            print_error("out of memory");
            status = 1;
        } else {
            status = write_out(a, ro, &rep, NULL);
        }
        if (op) {
            ps_op_perf_fini(op);
            free(op);
        }
        ps_op_trace_free(events);
        if (status == 0)
            status = gate(rep.bottleneck, rep.share, "", a->fail_on, a->fail_share) ? 3 : 0;
        ps_report_fini(&rep);
    }
    ps_model_free(m);
    return status;
}

/* The --gpu-spec files into *specs. 0, or 1 after a message (docs/design.md: unreadable input). */
static int load_gpu_specs(const struct report_args *a, struct ps_gpu_specs *specs)
{
    for (size_t i = 0; i < a->ngpu_spec; i++) {
        char err[512] = "";
        if (ps_input_check("report", a->gpu_spec[i], "a GPU spec file"))
            return 1;
        int rc = ps_gpu_specs_load(specs, a->gpu_spec[i], err, sizeof err);
        if (rc < 0) {
            print_error(rc == -ENOMEM && !err[0] ? "out of memory" : err);
            return 1;
        }
    }
    return 0;
}

/* Whether the n FILEs are per-rank JSON reports (*reports: how many), read without waiting on a FIFO. Reports are
 * merged only with reports: among them, a file that cannot be read is bad input and a trace is a usage error, each
 * named (one of thousands of files). Traces go to their readers, which say what is wrong with any of them. Returns 0,
 * or the exit status after a message. */
static int classify_inputs(int n, char **files, int *reports)
{
    int first_other = -1, bad = 0;
    char err[1024] = "", first_err[1024] = "";
    *reports = 0;
    for (int i = 0; i < n; i++) {
        int k = ps_report_merge_kind(files[i], err, sizeof err);
        if (k == 1)
            ++*reports;
        else if (k == 0 && first_other < 0)
            first_other = i;
        if (k < 0 && bad++ == 0)
            snprintf(first_err, sizeof first_err, "%s", err);
    }
    if (*reports == 0)
        return 0;
    if (n == 1) {   /* a saved report given by mistake: it is already the answer, and one is no rank set */
        char shown[2048];
        ps_text_escape(files[0], shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope report: %s is a perfscope JSON report (report --format json), not a trace: read it "
                        "as it is, or give the trace it was made from (its \"source\" path); several per-rank JSON "
                        "reports, one per rank, merge into one report\n", shown);
        return 2;
    }
    if (bad > 0) {
        if (bad > 1)
            snprintf(err, sizeof err, "%s (and %d more could not be read)", first_err, bad - 1);
        print_error(bad > 1 ? err : first_err);
        return 1;
    }
    if (first_other >= 0) {
        char shown[2048];
        ps_text_escape(files[first_other], shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope report: %s is not a perfscope JSON report, but %d of the %d files %s: give traces "
                        "or per-rank JSON reports, not both\n", shown, *reports, n, *reports == 1 ? "is" : "are");
        return 2;
    }
    return 0;
}

/* `%r` (the rank from RANK, OMPI_COMM_WORLD_RANK or SLURM_PROCID), `%h`, `%p`, `%%` as `record -o` expands them,
 * so every rank of a launcher runs the same line (docs/distributed.md): in -o always; in a lone FILE only when no
 * file has that literal name. Returns 0, or 2 after a message (an unknown `%` sequence in -o). */
static int expand_rank_names(struct report_args *a, int nfiles, char **file, char *out_buf, char *in_buf, size_t len)
{
    char err[512];
    if (a->output && strchr(a->output, '%')) {
        if (ps_session_expand_output(a->output, out_buf, len, err, sizeof err) < 0) {
            fprintf(stderr, "perfscope report: %s\n", err);
            return 2;
        }
        a->output = out_buf;
    }
    if (nfiles == 1 && strchr(*file, '%') && access(*file, F_OK) != 0 &&
        ps_session_expand_output(*file, in_buf, len, NULL, 0) == 0)
        *file = in_buf;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_args a;
    char out_buf[4096], in_buf[4096];
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (optind >= argc) {
        fprintf(stderr, "perfscope report: which trace? give one FILE, or one FILE per rank (see 'perfscope "
                        "report --help')\n");
        return 2;
    }
    if ((rc = expand_rank_names(&a, argc - optind, argv + optind, out_buf, in_buf, sizeof out_buf)) != 0)
        return rc;
    if (ps_output_is_input("report", a.output, argv + optind, argc - optind) ||
        ps_output_refuse_existing("report", a.output, a.force))
        return 2;
    char err[512] = "";
    if ((rc = ps_report_opts_check(&a.o, err, sizeof err)) < 0) {   /* before reading a possibly large trace */
        print_error(rc == -ENOMEM ? "out of memory" : err);
        return rc == -ENOMEM ? 1 : 2;   /* a pattern that does not compile is a usage error */
    }
    struct ps_render_opts ro = { .width = PS_TEXT_WIDTH, .color = ps_opt_use_color(a.color, a.output),
                                 .sections = a.sections };
    int reports = 0;
    if ((rc = classify_inputs(argc - optind, argv + optind, &reports)) != 0)
        return rc;
    if (optind < argc - 1 || reports > 0)
        return several_ranks(&a, &ro, (const char *const *)argv + optind, (size_t)(argc - optind), reports > 0);
    struct ps_gpu_specs specs = { 0 };
    rc = load_gpu_specs(&a, &specs);
    if (rc == 0)
        rc = one_trace(&a, &ro, argv[optind], &specs);
    ps_gpu_specs_fini(&specs);
    return rc;
}
