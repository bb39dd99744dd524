/* perfscope subcommands: each is `int cmd_x(int argc, char **argv)` in its own file,
 * called by cli/perfscope.c with argv[0] = the subcommand name.
 * Return value: the process exit status (0 success; 1 bad input/error; 2 usage;
 * record returns the child's status). */
#ifndef PS_CLI_COMMANDS_H
#define PS_CLI_COMMANDS_H

int cmd_record(int argc, char **argv);   /* cli/cmd_record.c */
int cmd_report(int argc, char **argv);   /* cli/cmd_report.c */
int cmd_diff(int argc, char **argv);     /* cli/cmd_diff.c */
int cmd_export(int argc, char **argv);   /* cli/cmd_export.c */
int cmd_top(int argc, char **argv);      /* cli/cmd_top.c */

#endif
