/* Option parsing shared by every perfscope command (options.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

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
    return check_long_names(cmd, argc, argv, longopts, short_with_value, 0);
}

int ps_opt_check_long_names_before_command(const char *cmd, int argc, char **argv, const struct option *longopts,
                                           const char *short_with_value)
{
    return check_long_names(cmd, argc, argv, longopts, short_with_value, 1);
}
