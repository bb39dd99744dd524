/* Option parsing shared by every perfscope command: whole long option names only (no abbreviations), finite
 * numbers only, and one wording for every complaint. Messages go to stderr, prefixed "perfscope CMD:". */
#ifndef PS_OPTIONS_H
#define PS_OPTIONS_H

#include <getopt.h>

/* getopt_long accepts any unambiguous prefix of a long option ("--all" for --all-steps) and reports "--help=x"
 * as unknown. Refuse both before getopt runs: every "--NAME" (up to a '=') must be a whole option name of
 * `longopts`, and an option without a value must not be given one. `short_with_value` lists the short options
 * that take a value (e.g. "o"), whose value may look like an option. Returns 0, or 2 after printing the problem. */
int ps_opt_check_long_names(const char *cmd, int argc, char **argv, const struct option *longopts,
                            const char *short_with_value);

/* The same for a command that runs another (`record [OPTIONS] [--] CMD ARGS`): only the words before CMD (the
 * first word that is not an option or an option's value) or before "--" are checked; CMD's own options are its. */
int ps_opt_check_long_names_before_command(const char *cmd, int argc, char **argv, const struct option *longopts,
                                           const char *short_with_value);

/* Parse a finite decimal number with nothing after it (NaN, infinities and hexadecimal are refused: every
 * comparison with a NaN threshold is false). Returns 0, -ERANGE when the value is too small or too large for a
 * double (strtod's underflow / overflow, e.g. 1e-400), or -EINVAL. */
int ps_opt_parse_double(const char *s, double *out);

/* A value's complaint: "needs <want>, not 'X'", or for -ERANGE (x: strtod's result, 0 or tiny on underflow,
 * infinite on overflow) that X is beyond what a double holds. Returns 2 (the usage exit status). */
int ps_opt_bad_value(const char *cmd, const char *opt, const char *want, const char *arg, int rc, double x);

#endif
