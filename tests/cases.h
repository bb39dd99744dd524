/* The cases of a C test program, written once: a `static const struct test_case cases[]` table in the program,
 * whose `{ "name", ... }` entries tests/cases.cmake also reads to register one ctest per case, and run_cases(),
 * the programs' shared main(): a name that is no case fails (exit 2) listing the known ones, so a misspelt or
 * renamed case can never run nothing and pass. */
#ifndef PS_TEST_CASES_H
#define PS_TEST_CASES_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* check.h's count of failed checks (a tentative definition, as in check.h: either header may come first). A
 * program with a CHECK of its own that exits on failure never counts: it reaches the end only when all passed. */
static int check_failures;

/* One case: exactly one of the three functions is set. The exit status of a case is the status it returns when
 * not 0 (77: skipped, CTest's SKIP_RETURN_CODE), else 1 when a check failed, else 0. */
struct test_case {
    const char *name;
    void (*fn)(void);               /* its checks say whether it passed */
    int (*fn_status)(void);         /* it returns an exit status of its own */
    int (*fn_arg)(const char *arg); /* the same, given the program's argument after the case name (required) */
};

/* What a program does around its cases; every member may be left out. */
struct case_hooks {
    int (*setup)(void);     /* before each case: 0, or an exit status that ends the program (the case not run) */
    void (*teardown)(void); /* after each case */
    int all_when_none;      /* with no case named, run every case in turn (else no case named is a usage error) */
};

static inline void cases_list(const struct test_case *cases, size_t n)
{
    fprintf(stderr, "known cases:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %s\n", cases[i].name);
}

static inline int case_run(const struct test_case *c, const char *arg, const struct case_hooks *hooks)
{
    if (c->fn_arg && !arg) {
        fprintf(stderr, "case %s needs an argument after its name\n", c->name);
        return 2;
    }
    int rc = hooks && hooks->setup ? hooks->setup() : 0;
    if (rc)
        return rc;
    if (c->fn)
        c->fn();
    else if (c->fn_status)
        rc = c->fn_status();
    else
        rc = c->fn_arg(arg);
    if (hooks && hooks->teardown)
        hooks->teardown();
    return rc ? rc : check_failures != 0;
}

/* Run the case `name` of the n `cases` (NULL: none named) and return the program's exit status: the case's (see
 * struct test_case); 2, with the known names on stderr, when `name` is no case, when none is named and `hooks`
 * do not ask for every case, or when a fn_arg case has no `arg`. Every case, in turn (all_when_none): 1 when any
 * failed, else 0. Failed checks are counted on stderr. */
static inline int run_cases(const struct test_case *cases, size_t n, const char *name, const char *arg,
                            const struct case_hooks *hooks)
{
    int rc = 0;
    if (!name && hooks && hooks->all_when_none) {
        for (size_t i = 0; i < n; i++) {
            int r = case_run(&cases[i], arg, hooks);
            if (r && r != 77)
                rc = 1;
        }
    } else if (!name) {
        fprintf(stderr, "no case named\n");
        cases_list(cases, n);
        return 2;
    } else {
        size_t i = 0;
        while (i < n && strcmp(name, cases[i].name) != 0)
            i++;
        if (i == n) {
            fprintf(stderr, "unknown case %s\n", name);
            cases_list(cases, n);
            return 2;
        }
        rc = case_run(&cases[i], arg, hooks);
    }
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return rc;
}

#endif
