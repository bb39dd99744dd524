/* Option parsing shared by every perfscope command (options.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "ps_file.h"
#include "ps_text_escape.h"

int ps_opt_parse_double(const char *s, double *out)
{
    char *end;
    if (strpbrk(s, "xXpP"))
        return -EINVAL;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || isnan(*out))
        return -EINVAL;
    return errno == ERANGE || !isfinite(*out) ? -ERANGE : 0;
}

int ps_opt_bad_value(const char *cmd, const char *opt, const char *want, const char *arg, int rc, double x)
{
    if (rc == -ERANGE)
        fprintf(stderr, "perfscope %s: %s '%s' is too %s to represent as a number; give %s\n", cmd, opt, arg,
                fabs(x) < 1 ? "small" : "large", want);
    else
        fprintf(stderr, "perfscope %s: %s needs %s, not '%s'\n", cmd, opt, want, arg);
    return 2;
}

/* The check of ps_opt_check_long_names; `until_operand`: stop at the first word that is not an option. */
static int check_long_names(const char *cmd, int argc, char **argv, const struct option *longopts,
                            const char *short_with_value, int until_operand)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return 0;
        if (strncmp(a, "--", 2) != 0) {
            if (a[0] == '-' && a[1] && !a[2] && strchr(short_with_value, a[1]))
                i++;                 /* its value may look like an option */
            else if (until_operand && (a[0] != '-' || !a[1]))
                return 0;            /* the command to run starts here: its options are its own */
            continue;
        }
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const struct option *o = longopts;
        while (o->name && !(strlen(o->name) == len && strncmp(o->name, a + 2, len) == 0))
            o++;
        if (!o->name) {
            const struct option *p = longopts;
            while (p->name && strncmp(p->name, a + 2, len) != 0)
                p++;
            if (p->name && len > 0)
                fprintf(stderr, "perfscope %s: unknown option '%.*s' (did you mean --%s? options are not "
                                "abbreviated)\n", cmd, (int)len + 2, a, p->name);
            else
                fprintf(stderr, "perfscope %s: unknown option '%.*s' (see 'perfscope %s --help')\n", cmd,
                        (int)len + 2, a, cmd);
            return 2;
        }
        if (o->has_arg == no_argument && eq) {
            fprintf(stderr, "perfscope %s: option '--%s' takes no value (given '%s')\n", cmd, o->name, a);
            return 2;
        }
        if (o->has_arg == required_argument && !eq)
            i++;                     /* the next word is its value */
    }
    return 0;
}

int ps_opt_check_long_names(const char *cmd, int argc, char **argv, const struct option *longopts,
                            const char *short_with_value)
{
    optind = 1;
    opterr = 0;
    return check_long_names(cmd, argc, argv, longopts, short_with_value, 0);
}

int ps_opt_check_long_names_before_command(const char *cmd, int argc, char **argv, const struct option *longopts,
                                           const char *short_with_value)
{
    optind = 1;
    opterr = 0;
    return check_long_names(cmd, argc, argv, longopts, short_with_value, 1);
}

int ps_opt_getopt_error(const char *cmd, int c, char **argv)
{
    if (c == ':')
        fprintf(stderr, "perfscope %s: option '%s' needs a value (see 'perfscope %s --help')\n", cmd,
                argv[optind - 1], cmd);
    else
        fprintf(stderr, "perfscope %s: unknown option '%s' (see 'perfscope %s --help')\n", cmd, argv[optind - 1],
                cmd);
    return 2;
}

int ps_input_check(const char *cmd, const char *path, const char *what)
{
    char err[1024], shown[2048];
    int fd = ps_file_open_regular(path, O_RDONLY, what, err, sizeof err);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    ps_text_escape(err, shown, sizeof shown, NULL);     /* a file name is bytes, not text */
    fprintf(stderr, "perfscope %s: %s\n", cmd, shown);
    return 1;
}

int ps_output_check_path(const char *cmd, const char *path, int stdout_without)
{
    if (*path)
        return 0;
    fprintf(stderr, "perfscope %s: -o was given an empty output path; name a file%s\n", cmd,
            stdout_without ? ", or leave -o out to print to stdout" : "");
    return 2;
}

int ps_output_refuse_existing(const char *cmd, const char *output, int force)
{
    struct stat st;
    if (!output || force || lstat(output, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode) && stat(output, &st) != 0)
        st.st_mode = S_IFREG;       /* a dangling link: a name -f would replace */
    if (!S_ISREG(st.st_mode))
        return 0;
    fprintf(stderr, "perfscope %s: %s exists (use -f to overwrite)\n", cmd, output);
    return 2;
}

int ps_output_is_input(const char *cmd, const char *output, char *const *paths, int n)
{
    struct stat out, in;
    if (!output || stat(output, &out) != 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (stat(paths[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
            fprintf(stderr, "perfscope %s: -o %s is the trace being read (%s): refusing to overwrite it; choose "
                            "another output file\n", cmd, output, paths[i]);
            return 1;
        }
    return 0;
}

FILE *ps_output_open(const char *cmd, const char *output)
{
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f)
        fprintf(stderr, "perfscope %s: cannot write %s: %s (check that its folder exists and is writable)\n", cmd,
                output, strerror(errno));
    return f;
}

int ps_output_close(const char *cmd, const char *output, FILE *f, int write_rc, int write_errno, const char *what)
{
    int err = 0;
    if (write_rc < 0)
        err = write_errno ? write_errno : EIO;
    if ((output ? fclose(f) : fflush(f)) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return 0;
    fprintf(stderr, "perfscope %s: writing %s failed: %s\n", cmd, output ? output : what, strerror(err));
    return 1;
}

int ps_opt_parse_color(const char *cmd, const char *when)
{
    if (!strcmp(when, "auto"))
        return -1;
    if (!strcmp(when, "always") || !strcmp(when, "never"))
        return !strcmp(when, "always");
    fprintf(stderr, "perfscope %s: unknown --color '%s' (use auto, always or never)\n", cmd, when);
    return -2;
}

int ps_opt_use_color(int color, const char *output)
{
    const char *no_color = getenv("NO_COLOR");
    return color >= 0 ? color : !output && isatty(STDOUT_FILENO) && !(no_color && *no_color);
}
