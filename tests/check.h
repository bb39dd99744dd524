/* The assertions of perfscope's C tests (analyzer, readers): a failed check prints where and what, counts into
 * check_failures, and the test goes on, so one run shows every wrong value; a test's main returns
 * check_failures != 0. Each comparison takes an optional description first (else the expression is shown):
 *   CHECK(cond) / CHECK(cond, "printf format", args...)
 *   CHECK_EQ([what,] got, want)            integers (as long long)
 *   CHECK_STR([what,] got, want)           strings
 *   CHECK_NEAR([what,] got, want, tol)     |got - want| <= tol; a NaN never passes
 *   CHECK_CONTAINS(hay, needle)            strstr */
#ifndef PS_TEST_CHECK_H
#define PS_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

static inline void check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: check failed: %s", file, line, cond);
    if (fmt[1]) {   /* fmt is " " followed by the caller's format */
        fputc(':', stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    check_failures++;
}

/* The message, when given, must be a string literal. */
#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            check_failed(__FILE__, __LINE__, #cond, " " __VA_ARGS__);                                               \
    } while (0)

/* The 3rd / 4th argument picks the form with or without a description. */
#define CHECK_PICK3_(a, b, c, name, ...) name
#define CHECK_PICK4_(a, b, c, d, name, ...) name

#define CHECK_EQ3_(what, got, want)                                                                                \
    do {                                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                                   \
        if (g_ != w_) {                                                                                            \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, what, g_, w_);                \
            check_failures++;                                                                                      \
        }                                                                                                          \
    } while (0)
#define CHECK_EQ2_(got, want) CHECK_EQ3_(#got, got, want)
#define CHECK_EQ(...) CHECK_PICK3_(__VA_ARGS__, CHECK_EQ3_, CHECK_EQ2_, )(__VA_ARGS__)

#define CHECK_STR3_(what, got, want)                                                                               \
    do {                                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                                      \
        if (strcmp(g_, w_)) {                                                                                      \
            fprintf(stderr, "%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, what, g_, w_);            \
            check_failures++;                                                                                      \
        }                                                                                                          \
    } while (0)
#define CHECK_STR2_(got, want) CHECK_STR3_(#got, got, want)
#define CHECK_STR(...) CHECK_PICK3_(__VA_ARGS__, CHECK_STR3_, CHECK_STR2_, )(__VA_ARGS__)

#define CHECK_NEAR4_(what, got, want, tol)                                                                         \
    do {                                                                                                           \
        double g_ = (got), w_ = (want);                                                                            \
        if (!(fabs(g_ - w_) <= (tol))) {                                                                           \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g (tolerance %g)\n", __FILE__, __LINE__, what, g_, w_,   \
                    (double)(tol));                                                                                \
            check_failures++;                                                                                      \
        }                                                                                                          \
    } while (0)
#define CHECK_NEAR3_(got, want, tol) CHECK_NEAR4_(#got, got, want, tol)
#define CHECK_NEAR(...) CHECK_PICK4_(__VA_ARGS__, CHECK_NEAR4_, CHECK_NEAR3_, )(__VA_ARGS__)

#define CHECK_CONTAINS(hay, needle)                                                                                \
    do {                                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                                    \
        if (!strstr(h_, n_)) {                                                                                     \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, h_, n_);                \
            check_failures++;                                                                                      \
        }                                                                                                          \
    } while (0)

/* A test of a reference trace in ../shared/traces (README: Build, test, benchmark) whose file `path` is missing:
 * in a user's clone it is skipped with the one reason line scripts/test.sh counts (returns 77, CTest's
 * SKIP_RETURN_CODE); in CI (CI set, as CI services set it) the traces are required (returns 1). */
static inline int check_shared_missing(const char *path)
{
    const char *ci = getenv("CI");
    if (ci && *ci && strcmp(ci, "false") != 0 && strcmp(ci, "0") != 0) {
        fprintf(stderr, "FAIL: %s missing: the reference traces are required in CI (CI=%s)\n", path, ci);
        return 1;
    }
    printf("SKIP: ../shared/traces not present (see README: Build, test, benchmark)\n");
    return 77;
}

#endif
