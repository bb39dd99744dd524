/* `perfscope diff BEFORE AFTER`: read two traces (any format), run the report's analyses on each and print what
 * changed (analyses/diff.h). Exit 0, 1 bad input or runs that cannot be compared, 2 usage, 3 when
 * --gate PCT is given and the average step got slower by more than PCT %. */
#include <errno.h>
#include <stdio.h>

#include "analyses/ranks.h"
#include "analyses/diff.h"
#include "analysis_options.h"
#include "commands.h"
#include "options.h"
#include "ps_text_escape.h"
#include "read/reader.h"
#include "render/render.h"

static void usage(FILE *out)
{
    fputs("usage: perfscope diff BEFORE AFTER [--format ", out);
    ps_format_names(out, 1, "|");
    fputs("] [-o OUT [-f]] [--gate PCT] [--color WHEN]\n", out);
    ps_analysis_opts_synopsis(out, 22);
    fprintf(out,
            "\n"
            "What an optimisation changed: the average step and its step-to-step spread, each step-time\n"
            "category, the verdict, kernels, copies and findings, from two traces of any format\n"
            "(perfscope, Nsight Systems SQLite, PyTorch profiler JSON). Its own verdict is improvement,\n"
            "regression or no significant change (a change within twice its standard error, or under 1 %%\n"
            "of the step, is noise).\n\n");
    ps_format_help(out, 1);
    fprintf(out,
            "  -o, --output OUT       write to OUT instead of stdout (never one of the traces)\n"
            "  -f, --force            overwrite OUT if it exists\n"
            "  --gate PCT             exit 3 when the average step got slower by more than PCT %%\n"
            "  --top N                kernels listed in text and md (default 10; 0 lists all)\n"
            "  --color WHEN           text: colour the verdict: auto (default: when stdout is a terminal and NO_COLOR\n"
            "                         is unset), always or never\n\n"
            "The analysis options, as for 'perfscope report', applied to both traces:\n");
    ps_analysis_opts_help(out);
}

/* Read `path` and build its report; 0, or 1 after printing why. */
static int analyse(const char *path, const struct ps_report_opts *o, struct ps_model **m, struct ps_report *r)
{
    char err[512] = "", shown[1024];
    if (ps_read_trace(path, m, err, sizeof err) < 0 || ps_ranks_report_compute(r, *m, o, err, sizeof err) < 0) {
        ps_text_escape(err, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope diff: %s\n", shown);
        return 1;
    }
    return 0;
}

/* What `perfscope diff` was asked (its options and the two paths). */
struct diff_args {
    struct ps_report_opts o;
    const struct ps_renderer *renderer;
    const char *output;
    int force, color;              /* color: --color's 1 always, 0 never, -1 auto */
    double gate;                   /* --gate PCT; -1: none */
};

/* Parse the options into *a: 0 to go on (argv[optind], argv[optind + 1] are BEFORE and AFTER), else the exit
 * status (0 after --help, 2 for a usage error, already said). */
static int parse_args(int argc, char **argv, struct diff_args *a)
{
    enum { OPT_FORMAT = 256, OPT_GATE, OPT_COLOR };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT }, { "gate", required_argument, NULL, OPT_GATE },
        { "color", required_argument, NULL, OPT_COLOR },
        { "help", no_argument, NULL, 'h' },                PS_ANALYSIS_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    *a = (struct diff_args){ .renderer = ps_renderer_find("text"), .color = -1, .gate = -1 };
    ps_report_opts_default(&a->o);
    double x;
    int c, rc;
    if (ps_opt_check_long_names("diff", argc, argv, longopts, "o"))
        return 2;
    while ((c = ps_analysis_getopt("diff", argc, argv, longopts, &a->o, &a->output, &a->force)) >= 0) {
        switch (c) {
        case 'h':
            usage(stdout);
            return -1;
        case OPT_FORMAT:
            if (!(a->renderer = ps_format_option("diff", optarg, 1)))
                return 2;
            break;
        case OPT_GATE:
            if ((rc = ps_opt_parse_double(optarg, &x)) < 0 || x < 0 || x > 1e6)
                return ps_opt_bad_value("diff", "--gate", "a percentage from 0 to 1e6", optarg, rc, x);
            a->gate = x;
            break;
        case OPT_COLOR:
            if ((a->color = ps_opt_parse_color("diff", optarg)) == -2)
                return 2;
            break;
        default:
            return ps_opt_getopt_error("diff", c, argv);
        }
    }
    if (c != -1)
        return 2;
    if (argc - optind != 2) {
        fprintf(stderr, "perfscope diff: give two traces, BEFORE and AFTER (see 'perfscope diff --help')\n");
        return 2;
    }
    if (ps_output_is_input("diff", a->output, argv + optind, 2) || ps_output_refuse_existing("diff", a->output, a->force))
        return 2;
    char why[512] = "";
    if ((rc = ps_report_opts_check(&a->o, why, sizeof why)) < 0) {   /* before reading two possibly large traces */
        fprintf(stderr, "perfscope diff: %s\n", rc == -ENOMEM ? "out of memory" : why);
        return rc == -ENOMEM ? 1 : 2;
    }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    const char *before_path = argv[optind], *after_path = argv[optind + 1];
    struct ps_model *mb = NULL, *ma = NULL;
    struct ps_report rb, ra;
    struct ps_diff d;
    int built = 0, status = 1;
    char err[512] = "";
    FILE *dest;
    if (analyse(before_path, &a.o, &mb, &rb))
        goto out;
    built = 1;
    if (analyse(after_path, &a.o, &ma, &ra))
        goto out;
    built = 2;
    if ((rc = ps_diff_compute(&d, &rb, &ra, err, sizeof err)) < 0) {
        fprintf(stderr, "perfscope diff: cannot compare %s with %s: %s\n", before_path, after_path, err);
        goto out;
    }
    built = 3;
    if (!(dest = ps_output_open("diff", a.output)))
        goto out;
    struct ps_diff_input in = { &d, before_path, after_path, a.o.top_n };
    const struct ps_render_opts ro = { .width = PS_TEXT_WIDTH, .color = ps_opt_use_color(a.color, a.output) };
    rc = a.renderer->diff(dest, &in, &ro);
    if (ps_output_close("diff", a.output, dest, rc, errno, "the diff"))
        goto out;
    status = 0;
    if (a.gate >= 0 && d.before.avg_ns > 0 && (double)d.delta_ns > a.gate / 100 * (double)d.before.avg_ns) {
        fprintf(stderr, "perfscope diff: gate: the average step got %.1f %% slower (more than --gate %g %%)\n",
                100.0 * (double)d.delta_ns / (double)d.before.avg_ns, a.gate);
        status = 3;
    }
out:
    if (built >= 3)
        ps_diff_fini(&d);
    if (built >= 2)
        ps_report_fini(&ra);
    if (built >= 1)
        ps_report_fini(&rb);
    ps_model_free(ma);
    ps_model_free(mb);
    return status;
}
