/* perfscope subcommands: each is `int cmd_x(int argc, char **argv)` in its own file, called by cli/perfscope.c with
 * argv[0] = the subcommand name. The return value is the process exit status, the same in every command:
 *   0  done;
 *   1  the command ran but failed (an unreadable trace, a failed write);
 *   2  usage error: a bad option or value, a missing argument, an existing -o file without -f
 *      (ps_output_refuse_existing, options.h), an -o naming an input;
 *   3  a CI gate tripped (report --fail-on / --fail-on-share, diff --gate): the result was still written.
 * record returns the recorded program's status instead once it ran (128+N when signal N killed it; 127 / 126 when
 * it could not be run, as shells do). Messages go to stderr as "perfscope CMD: what happened[ (what to do)]". */
#ifndef PS_CLI_COMMANDS_H
#define PS_CLI_COMMANDS_H

int cmd_record(int argc, char **argv);   /* cli/cmd_record.c */
int cmd_report(int argc, char **argv);   /* cli/cmd_report.c */
int cmd_diff(int argc, char **argv);     /* cli/cmd_diff.c */
int cmd_export(int argc, char **argv);   /* cli/cmd_export.c */
int cmd_top(int argc, char **argv);      /* cli/cmd_top.c */

/* cli/cmd_export_tracelens.c: `export --format tracelens -o DIR`. check_dir: 0 when DIR may be written (made when
 * missing), 2 after a message (not a folder, or not empty without -f). ps_export_tracelens: 0, or 1 after a
 * message. */
int ps_export_tracelens_check_dir(const char *dir, int force);
int ps_export_tracelens(const char *input, const char *dir);

#endif
