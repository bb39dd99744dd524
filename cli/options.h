/* Option parsing shared by every perfscope command: whole long option names only (no abbreviations), finite
 * numbers only, and one wording for every complaint. Messages go to stderr, prefixed "perfscope CMD:". */
#ifndef PS_OPTIONS_H
#define PS_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

/* getopt_long accepts any unambiguous prefix of a long option ("--all" for --all-steps) and reports "--help=x"
 * as unknown. Refuse both before getopt runs: every "--NAME" (up to a '=') must be a whole option name of
 * `longopts`, and an option without a value must not be given one. `short_with_value` lists the short options
 * that take a value (e.g. "o"), whose value may look like an option. Returns 0 with getopt_long ready to run over
 * argv (optind = 1, opterr = 0: with an optstring starting ':', its errors come back as ':' and '?' for
 * ps_opt_getopt_error), or 2 after printing the problem. */
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

/* getopt_long (after ps_opt_check_long_names) returned c, ':' for an option given without its value or '?' for
 * an unknown one: print "perfscope CMD: option 'X' needs a value" or "unknown option 'X'", with where to look
 * ("see 'perfscope CMD --help'"). Returns 2 (the usage exit status). */
int ps_opt_getopt_error(const char *cmd, int c, char **argv);
/* --color WHEN of `cmd`: 1 always, 0 never, -1 auto; -2 after printing the usage error (exit 2) for another word. */
int ps_opt_parse_color(const char *cmd, const char *when);
/* Whether text output gets colours: --color's 1 or 0, else (auto, -1) when the output is stdout, a terminal, and
 * NO_COLOR is unset or empty (no-color.org). */
int ps_opt_use_color(int color, const char *output);

/* ---- input files ---- */

/* The rule of every command that reads a file it is given (report, diff, export, top --trace, record --recover,
 * report --gpu-spec): before any reader opens it, `path` must open (without waiting: a FIFO would block the open
 * for good) and be a regular file. Returns 0, or 1 (the exit status of an input that cannot be read) after one line
 * "perfscope CMD: PATH: cannot open: REASON", "... PATH: is a directory, not WHAT" or "... PATH: not a regular file
 * (a pipe or FIFO): ..." (common/ps_file.h). `what` names what the file should be ("a trace file"). */
int ps_input_check(const char *cmd, const char *path, const char *what);

/* ---- -o OUT: where a command writes its result (report, diff, export) ---- */

/* -o's value `path`: an empty one is refused (fopen("") fails only after the trace was read). `stdout_without`:
 * the command prints to stdout without -o, which the message then says. Returns 0, or 2 after printing. */
int ps_output_check_path(const char *cmd, const char *path, int stdout_without);

/* The rule of every command that writes -o FILE (record, report, diff, export): an existing FILE is refused
 * unless `force` (-f): "perfscope CMD: FILE exists (use -f to overwrite)". A regular file (or a link to one) is
 * what -f protects; writing into a device or FIFO (-o /dev/null) destroys nothing, and a command that would
 * replace one (record, export) refuses it itself even with -f. NULL (stdout) needs nothing. Returns 0, or 2 (the
 * usage exit status) after printing. */
int ps_output_refuse_existing(const char *cmd, const char *output, int force);

/* Refuse an output file that is one of the `n` input `paths` (the same device and inode: also through a symbolic
 * or hard link), before anything is read or written. Returns 0, or 1 after printing "perfscope CMD: -o OUT is the
 * trace being read (IN): refusing to overwrite it; ..." (the caller chooses its exit status). */
int ps_output_is_input(const char *cmd, const char *output, char *const *paths, int n);

/* Open `output` for writing (truncating it), or stdout when output is NULL. Returns the stream, or NULL after
 * printing "perfscope CMD: cannot write OUT: REASON (check that its folder exists and is writable)". */
FILE *ps_output_open(const char *cmd, const char *output);

/* Finish a write through `f` from ps_output_open: fclose it (a file) or fflush it (stdout), and say whether all of
 * it was written. `write_rc` is the writer's result (< 0: it failed, with errno `write_errno` then; 0 read as EIO).
 * `what` names stdout in the message ("the report"). Returns 0, or 1 after printing "perfscope CMD: writing OUT
 * failed: REASON" (one line, whichever failed first). */
int ps_output_close(const char *cmd, const char *output, FILE *f, int write_rc, int write_errno, const char *what);

#endif
