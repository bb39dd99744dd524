/* The analysis options that `perfscope report` and `perfscope diff` share: what counts as a step, a data-loading
 * or a copy phase, the thresholds of the verdict and the findings, and how many kernels are listed, each filling a
 * field of struct ps_report_opts (analyses/report.h); and -o OUT, -f. One table, one parser and one help text serve
 * both commands, so they accept the same words with the same rules and messages. */
#ifndef PS_CLI_ANALYSIS_OPTIONS_H
#define PS_CLI_ANALYSIS_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

#include "analyses/report.h"
#include "render/render.h"

/* getopt_long values of the analysis options (above any character and a command's own values below 0x200). */
enum ps_analysis_opt {
    PS_AOPT_FIRST = 0x200,
    PS_AOPT_STEP_RANGE = PS_AOPT_FIRST, PS_AOPT_DATA_RANGE, PS_AOPT_COPY_RANGE, PS_AOPT_STEPS, PS_AOPT_COMPAT,
    PS_AOPT_TOP, PS_AOPT_KERNEL_THRESHOLD, PS_AOPT_GAP_MS, PS_AOPT_TINY_US, PS_AOPT_INFO_BELOW, PS_AOPT_LOW_UTIL,
    PS_AOPT_LAUNCH_BOUND, PS_AOPT_LINK_GBPS, PS_AOPT_SLOW_COPY, PS_AOPT_LOW_OCCUPANCY,
    PS_AOPT_END
};

/* The rows of a command's getopt_long table for the options above (all take a value) and for -o, --output OUT
 * and -f, --force; put them before its { NULL, 0, NULL, 0 } row. */
#define PS_ANALYSIS_LONGOPTS                                                                                       \
    { "output", required_argument, NULL, 'o' },                                                                    \
    { "force", no_argument, NULL, 'f' },                                                                           \
    { "step-range", required_argument, NULL, PS_AOPT_STEP_RANGE },                                                 \
    { "data-range", required_argument, NULL, PS_AOPT_DATA_RANGE },                                                 \
    { "copy-range", required_argument, NULL, PS_AOPT_COPY_RANGE },                                                 \
    { "steps", required_argument, NULL, PS_AOPT_STEPS },                                                           \
    { "compat", required_argument, NULL, PS_AOPT_COMPAT },                                                         \
    { "top", required_argument, NULL, PS_AOPT_TOP },                                                               \
    { "kernel-threshold", required_argument, NULL, PS_AOPT_KERNEL_THRESHOLD },                                     \
    { "gap-threshold-ms", required_argument, NULL, PS_AOPT_GAP_MS },                                               \
    { "tiny-kernel-us", required_argument, NULL, PS_AOPT_TINY_US },                                                \
    { "info-below", required_argument, NULL, PS_AOPT_INFO_BELOW },                                                 \
    { "low-util", required_argument, NULL, PS_AOPT_LOW_UTIL },                                                     \
    { "launch-bound", required_argument, NULL, PS_AOPT_LAUNCH_BOUND },                                             \
    { "link-gbps", required_argument, NULL, PS_AOPT_LINK_GBPS },                                                   \
    { "slow-copy", required_argument, NULL, PS_AOPT_SLOW_COPY },                                                   \
    { "low-occupancy", required_argument, NULL, PS_AOPT_LOW_OCCUPANCY }

/* getopt_long over the options of a command that analyses traces and writes a result (report, diff), after
 * ps_opt_check_long_names: optstring ":ho:f", `longopts` holding PS_ANALYSIS_LONGOPTS. It takes the analysis
 * options itself (ps_analysis_opt_set into *o), -o OUT (ps_output_check_path; *output points at the value) and
 * -f (*force = 1).
 * Returns the next other option as getopt_long does ('h', the command's own values, ':' and '?' for
 * ps_opt_getopt_error), -1 after the last option (optind: the first operand), or -2 after printing why a value
 * is refused (the command exits 2). */
int ps_analysis_getopt(const char *cmd, int argc, char **argv, const struct option *longopts,
                       struct ps_report_opts *o, const char **output, int *force);

/* Print the help lines of the analysis options but --top (what it lists differs: each command says it), as a
 * command's option list has them (two spaces, the option, its text from column 26), with the built-in defaults
 * of the patterns. */
void ps_analysis_opts_help(FILE *out);

/* Print the usage-line words for them ("[--step-range RE] ..."), on lines of at most 100 columns that each start
 * with `indent` spaces, the last ending in '\n'. */
void ps_analysis_opts_synopsis(FILE *out, int indent);

/* --format, from the one table of output formats (render/render.h): the format called `name` that writes diffs
 * (diff 1) or reports (diff 0: one trace and several rank files); NULL after printing "perfscope CMD: unknown
 * --format 'X' (use text, json, md or html)" with the names that do. */
const struct ps_renderer *ps_format_option(const char *cmd, const char *name, int diff);
/* The same formats joined by `sep` ("text|json|md|html" for a usage line; ", " with " or " before the last for
 * a sentence when sep is NULL). */
void ps_format_names(FILE *out, int diff, const char *sep);
/* The help lines of --format: the option, then one line per format with its description, from column 26. */
void ps_format_help(FILE *out, int diff);

#endif
