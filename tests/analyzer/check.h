/* Assertions shared by the analyzer tests: each failed check prints where and what, counts into `failures`,
 * and the test goes on so one run shows every wrong value. A test's main returns failures != 0. */
#ifndef PS_TEST_CHECK_H
#define PS_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

/* cond must hold; the rest is a printf message. */
#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                        \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)
/* Integers equal. */
#define CHECK_EQ(what, got, want)                                                                                  \
    do {                                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                                   \
        if (g_ != w_) {                                                                                            \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, what, g_, w_);                \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)
/* |got - want| <= tol (a NaN never passes). */
#define CHECK_NEAR(what, got, want, tol)                                                                           \
    do {                                                                                                           \
        double g_ = (got), w_ = (want);                                                                            \
        if (!(fabs(g_ - w_) <= (tol))) {                                                                           \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g (tolerance %g)\n", __FILE__, __LINE__, what, g_, w_,   \
                    (double)(tol));                                                                                \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)
/* Strings equal. */
#define CHECK_STR(what, got, want)                                                                                 \
    do {                                                                                                           \
        if (strcmp((got), (want))) {                                                                               \
            fprintf(stderr, "%s:%d: %s = %s, expected %s\n", __FILE__, __LINE__, what, (got), (want));             \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)

#endif
