/* perfscope: one binary, subcommands in a table (like Linux perf's perf.c).
 * `perfscope help x` == `perfscope x --help`; run_cmd() checks that stdout flushed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

struct ps_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct ps_cmd commands[] = {
    { "record", cmd_record, "run a program and record NVTX, CUDA and host activity into a SQLite trace" },
    { "report", cmd_report, "classify where each training step's time goes (perfscope, nsys, PyTorch traces)" },
    { "top", cmd_top, "live GPU, host and process metrics, and the live verdict of a recording in progress" },
    { "diff", cmd_diff, "what changed between two runs: step time, categories, verdict, kernels (--gate for CI)" },
    { "export", cmd_export, "write a trace of any format as Chrome trace-event JSON for Perfetto / chrome://tracing" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: perfscope [--version] [help] COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nSee 'perfscope help COMMAND' for a command's options.\n");
}

/* Damerau-Levenshtein distance (optimal string alignment) of two short words, capped at 9: how many single-letter
 * edits (insert, delete, replace, swap of neighbours) turn a into b. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 9;
    int d[33][33];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb] > 9 ? 9 : d[la][lb];
}

/* The command a mistyped name most likely meant (at most two edits away, as git's "did you mean"), or NULL. */
static const char *closest_cmd(const char *name)
{
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        int d = edit_distance(name, commands[i].name);
        if (d < best_d) {
            best_d = d;
            best = commands[i].name;
        }
    }
    return best;
}

static void unknown_cmd(const char *name)
{
    const char *near = closest_cmd(name);
    if (near)
        fprintf(stderr, "perfscope: unknown command '%s' (did you mean '%s'? see 'perfscope --help')\n", name, near);
    else
        fprintf(stderr, "perfscope: unknown command '%s' (see 'perfscope --help')\n", name);
}

static const struct ps_cmd *find_cmd(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* Run a command, then check that its output reached stdout: a report cut short by a full disk or a closed
 * pipe is an error (exit 1, or the command's own status when it failed already). */
static int run_cmd(const struct ps_cmd *cmd, int argc, char **argv)
{
    int status = cmd->fn(argc, argv);
    /* A command that failed has said why (a failed write included): no second message for the same error. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && status == 0) {
        fprintf(stderr, "perfscope %s: writing the output failed: %s\n", cmd->name, strerror(errno));
        return 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("perfscope %s\n", PS_VERSION);
        return 0;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "help")) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        const struct ps_cmd *cmd = find_cmd(argv[2]);
        if (!cmd) {
            unknown_cmd(argv[2]);
            return 2;
        }
        char *help_argv[] = { argv[2], "--help", NULL };
        return run_cmd(cmd, 2, help_argv);
    }
    const struct ps_cmd *cmd = find_cmd(name);
    if (!cmd) {
        unknown_cmd(name);
        return 2;
    }
    return run_cmd(cmd, argc - 1, argv + 1);
}
