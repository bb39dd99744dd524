/* Tiny assertion helpers for the reader tests: each failed check prints where and what, and the test
 * exits non-zero at the end (so one run reports every wrong value). */
#ifndef PS_TEST_CHECK_H
#define PS_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(got, want)                                                                        \
    do {                                                                                           \
        long long got_ = (long long)(got), want_ = (long long)(want);                              \
        if (got_ != want_) {                                                                       \
            fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, got_, want_); \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        if (strcmp(got_, want_) != 0) {                                                            \
            fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got, got_, want_); \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *hay_ = (hay), *needle_ = (needle);                                             \
        if (!strstr(hay_, needle_)) {                                                              \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, hay_, needle_); \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#endif
