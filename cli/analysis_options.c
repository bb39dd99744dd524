/* The analysis options shared by `perfscope report` and `perfscope diff` (analysis_options.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis_options.h"
#include "options.h"

/* A share, percentage, rate or length: a finite decimal number in [lo, hi] (above lo when lo_open) into *out, or
 * 2 after the shared complaint naming `want`. */
static int parse_number(const char *cmd, const char *opt, const char *arg, double lo, int lo_open, double hi,
                        const char *want, double *out)
{
    double x = 0;
    int rc = ps_opt_parse_double(arg, &x);
    if (rc < 0 || x < lo || (lo_open && x == lo) || x > hi)
        return ps_opt_bad_value(cmd, opt, want, arg, rc, x);
    *out = x;
    return 0;
}

/* --top: decimal digits only (no sign, hexadecimal, exponent or fraction), 0 to 1000000. */
static int parse_top(const char *cmd, const char *arg, int *out)
{
    size_t len = strspn(arg, "0123456789");
    if (len == 0 || arg[len] || len > 7 || atol(arg) > 1000000) {
        fprintf(stderr, "perfscope %s: --top needs a whole decimal number from 0 to 1000000, not '%s'\n", cmd, arg);
        return 2;
    }
    *out = (int)atol(arg);
    return 0;
}

static int parse_steps(const char *cmd, const char *arg, int *mode)
{
    static const char *const word[] = { [PS_STEPS_AUTO] = "auto", [PS_STEPS_OFF] = "off", [PS_STEPS_INFER] = "infer" };
    for (int m = 0; m < (int)(sizeof word / sizeof *word); m++)
        if (!strcmp(arg, word[m])) {
            *mode = m;
            return 0;
        }
    fprintf(stderr, "perfscope %s: unknown --steps '%s' (use auto, off or infer)\n", cmd, arg);
    return 2;
}

static int parse_compat(const char *cmd, const char *arg, struct ps_report_opts *o)
{
    if (!strcmp(arg, "tb"))
        o->compat_tb = 1;
    else if (!strcmp(arg, "tracelens"))
        o->compat_tracelens = 1;
    else {
        fprintf(stderr, "perfscope %s: unknown --compat '%s' (use tb or tracelens; give --compat twice for both)\n",
                cmd, arg);
        return 2;
    }
    return 0;
}

/* Set the field of *o that analysis option c names from its value `arg` (getopt's optarg; patterns are kept as
 * pointers into it). The rules and units are the help text's (ms and µs become ns). Returns 0, or 2 after the
 * message. Regular expressions are compiled later, by the analyses (ps_names_new), which report a bad one. */
static int set_option(const char *cmd, int c, const char *arg, struct ps_report_opts *o)
{
    double x = 0;
    int rc;
    switch (c) {
    case PS_AOPT_STEP_RANGE:
        o->step_re = arg;
        return 0;
    case PS_AOPT_DATA_RANGE:
        o->data_re = arg;
        return 0;
    case PS_AOPT_COPY_RANGE:
        o->copy_re = arg;
        return 0;
    case PS_AOPT_STEPS:
        return parse_steps(cmd, arg, &o->steps_mode);
    case PS_AOPT_COMPAT:
        return parse_compat(cmd, arg, o);
    case PS_AOPT_TOP:
        return parse_top(cmd, arg, &o->top_n);
    case PS_AOPT_KERNEL_THRESHOLD:
        return parse_number(cmd, "--kernel-threshold", arg, 0, 0, 1, "a share from 0 to 1", &o->kernel_threshold);
    case PS_AOPT_GAP_MS:
        if ((rc = parse_number(cmd, "--gap-threshold-ms", arg, 0, 0, 1e9, "a length in ms from 0 to 1e9", &x)))
            return rc;
        o->gap_ns = (int64_t)(x * 1e6);
        return 0;
    case PS_AOPT_TINY_US:
        if ((rc = parse_number(cmd, "--tiny-kernel-us", arg, 0, 0, 1e9, "a length in µs from 0 to 1e9", &x)))
            return rc;
        o->tiny_kernel_ns = (int64_t)(x * 1e3);
        return 0;
    case PS_AOPT_INFO_BELOW:
        return parse_number(cmd, "--info-below", arg, 0, 0, 1, "a share from 0 to 1", &o->info_share);
    case PS_AOPT_LOW_UTIL:
        return parse_number(cmd, "--low-util", arg, 0, 0, 1, "a share from 0 to 1", &o->low_util);
    case PS_AOPT_LAUNCH_BOUND:
        return parse_number(cmd, "--launch-bound", arg, 0, 0, 1, "a share from 0 to 1", &o->launch_bound_share);
    case PS_AOPT_SLOW_COPY:
        return parse_number(cmd, "--slow-copy", arg, 0, 0, 1, "a share from 0 to 1", &o->slow_copy_share);
    case PS_AOPT_LINK_GBPS:
        return parse_number(cmd, "--link-gbps", arg, 0, 1, 1e6, "a rate in GB/s above 0, up to 1e6", &o->link_gbps);
    case PS_AOPT_LOW_OCCUPANCY:
        return parse_number(cmd, "--low-occupancy", arg, 0, 0, 100, "a percentage from 0 to 100",
                            &o->low_occupancy_pct);
    }
    fprintf(stderr, "perfscope %s: option value %d is not an analysis option\n", cmd, c);   /* a caller's bug */
    return 2;
}

int ps_analysis_getopt(const char *cmd, int argc, char **argv, const struct option *longopts,
                       struct ps_report_opts *o, const char **output, int *force)
{
    int c;
    while ((c = getopt_long(argc, argv, ":ho:f", longopts, NULL)) != -1) {
        if (c == 'o') {
            if (ps_output_check_path(cmd, *output = optarg, 1))
                return -2;
        } else if (c == 'f') {
            *force = 1;
        } else if (c >= PS_AOPT_FIRST && c < PS_AOPT_END) {
            if (set_option(cmd, c, optarg, o))
                return -2;
        } else {
            return c;
        }
    }
    return -1;
}

void ps_analysis_opts_help(FILE *out)
{
    fprintf(out,
            "  --step-range RE        step ranges (whole name, case-insensitive extended regex); default\n"
            "                         %s\n"
            "  --data-range RE        data-loading ranges; default\n"
            "                         %s\n"
            "  --copy-range RE        host-side copy phases (traces without GPU rows); default\n"
            "                         %s\n"
            "  --steps auto|off|infer without step ranges, find steps from the repeating kernel sequence (auto,\n"
            "                         default), never (off), or even when step ranges exist (infer)\n"
            "  --compat tb            find communication as the PyTorch TensorBoard plugin does (kernels linked\n"
            "                         to nccl:/gloo: host ops) instead of by NCCL/RCCL kernel names\n"
            "  --compat tracelens     TraceLens' GPU timeline in its own float64 µs arithmetic (Kineto traces)\n"
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
            "  --low-occupancy PCT    kernels the trace estimates below PCT %% achieved occupancy (default 25)\n",
            PS_STEP_RE_DEFAULT, PS_DATA_RE_DEFAULT, PS_COPY_RE_DEFAULT);
}

void ps_analysis_opts_synopsis(FILE *out, int indent)
{
    static const char *const words[] = {
        "[--step-range RE]", "[--data-range RE]", "[--copy-range RE]", "[--steps auto|off|infer]",
        "[--compat tb|tracelens]", "[--top N]", "[--kernel-threshold X]", "[--gap-threshold-ms MS]",
        "[--tiny-kernel-us US]", "[--info-below X]", "[--low-util X]", "[--launch-bound X]", "[--link-gbps GBPS]",
        "[--slow-copy X]", "[--low-occupancy PCT]",
    };
    int col = 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        int len = (int)strlen(words[i]);
        if (col > 0 && col + 1 + len > 100) {
            fputc('\n', out);
            col = 0;
        }
        col += col ? fprintf(out, " %s", words[i]) : fprintf(out, "%*s%s", indent, "", words[i]);
    }
    fputc('\n', out);
}

/* The format writes what the command prints. */
static int writes(const struct ps_renderer *r, int diff)
{
    return diff ? r->diff != NULL : r->report != NULL && r->ranks != NULL;
}

void ps_format_names(FILE *out, int diff, const char *sep)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; ps_renderer_at(i); i++)
        n += writes(ps_renderer_at(i), diff);
    for (size_t i = 0; ps_renderer_at(i); i++) {
        const struct ps_renderer *r = ps_renderer_at(i);
        if (!writes(r, diff))
            continue;
        fprintf(out, "%s%s", k == 0 ? "" : sep ? sep : k + 1 == n ? " or " : ", ", r->name);
        k++;
    }
}

const struct ps_renderer *ps_format_option(const char *cmd, const char *name, int diff)
{
    const struct ps_renderer *r = ps_renderer_find(name);
    if (r && writes(r, diff))
        return r;
    fprintf(stderr, "perfscope %s: unknown --format '%s' (use ", cmd, name);
    ps_format_names(stderr, diff, NULL);
    fprintf(stderr, ")\n");
    return NULL;
}

void ps_format_help(FILE *out, int diff)
{
    fprintf(out, "  --format FORMAT        output format, one of:\n");
    for (size_t i = 0; ps_renderer_at(i); i++)
        if (writes(ps_renderer_at(i), diff))
            fprintf(out, "%27s%-6s %s\n", "", ps_renderer_at(i)->name, ps_renderer_at(i)->what);
}
