/* DEFINE_SORT, the model's in-place introsort generated per element type, and LESS_START_END, the (start, end)
 * order of rows: for sort.c's rows, finish.c's link keys and grow.c's merges. Private to analyzer/model/; macros
 * only, so it ties no file to another. */
#ifndef PS_INTROSORT_H
#define PS_INTROSORT_H

#include <stddef.h>

/* In-place introsort, generated per element type: no temporary buffer (glibc's qsort allocates a copy
 * of the whole array, which doubles peak memory on a 10-million-kernel trace), and a linear pass first
 * because readers usually deliver rows already in time order. Not stable: ties in the sort key carry no
 * meaning for any analysis. */
#define DEFINE_SORT(fn, type, LESS)                                                           \
    static void fn##_insertion(type *v, size_t n)                                             \
    {                                                                                         \
        for (size_t i = 1; i < n; i++) {                                                      \
            type x = v[i];                                                                    \
            size_t j = i;                                                                     \
            for (; j > 0 && LESS(&x, &v[j - 1]); j--)                                         \
                v[j] = v[j - 1];                                                              \
            v[j] = x;                                                                         \
        }                                                                                     \
    }                                                                                         \
    static void fn##_sift(type *v, size_t root, size_t n)                                     \
    {                                                                                         \
        for (size_t child; (child = 2 * root + 1) < n; root = child) {                        \
            if (child + 1 < n && LESS(&v[child], &v[child + 1]))                              \
                child++;                                                                      \
            if (!LESS(&v[root], &v[child]))                                                   \
                return;                                                                       \
            type t = v[root];                                                                 \
            v[root] = v[child];                                                               \
            v[child] = t;                                                                     \
        }                                                                                     \
    }                                                                                         \
    static void fn##_heap(type *v, size_t n)                                                  \
    {                                                                                         \
        for (size_t i = n / 2; i-- > 0;)                                                      \
            fn##_sift(v, i, n);                                                               \
        for (size_t i = n; i-- > 1;) {                                                        \
            type t = v[0];                                                                    \
            v[0] = v[i];                                                                      \
            v[i] = t;                                                                         \
            fn##_sift(v, 0, i);                                                               \
        }                                                                                     \
    }                                                                                         \
    static void fn##_intro(type *v, size_t n, int depth)                                      \
    {                                                                                         \
        while (n > 16) {                                                                      \
            if (depth-- == 0) {                                                               \
                fn##_heap(v, n);                                                              \
                return;                                                                       \
            }                                                                                 \
            size_t mid = n / 2;                                                               \
            type t;                                                                           \
            if (LESS(&v[mid], &v[0])) { t = v[mid]; v[mid] = v[0]; v[0] = t; }                \
            if (LESS(&v[n - 1], &v[0])) { t = v[n - 1]; v[n - 1] = v[0]; v[0] = t; }          \
            if (LESS(&v[n - 1], &v[mid])) { t = v[n - 1]; v[n - 1] = v[mid]; v[mid] = t; }    \
            type pivot = v[mid];                                                              \
            size_t i = 0, j = n - 1;                                                          \
            for (;;) {                                                                        \
                while (LESS(&v[i], &pivot))                                                   \
                    i++;                                                                      \
                while (LESS(&pivot, &v[j]))                                                   \
                    j--;                                                                      \
                if (i >= j)                                                                   \
                    break;                                                                    \
                t = v[i]; v[i] = v[j]; v[j] = t;                                              \
                i++;                                                                          \
                j--;                                                                          \
            }                                                                                 \
            fn##_intro(v + j + 1, n - j - 1, depth);   /* recurse right, loop on the left */  \
            n = j + 1;                                                                        \
        }                                                                                     \
        fn##_insertion(v, n);                                                                 \
    }                                                                                         \
    static void fn(type *v, size_t n)                                                         \
    {                                                                                         \
        size_t i = 1;                                                                         \
        while (i < n && !LESS(&v[i], &v[i - 1]))                                              \
            i++;                                                                              \
        if (i >= n)                                                                           \
            return;                                                                           \
        int depth = 0;                                                                        \
        for (size_t k = n; k; k >>= 1)                                                        \
            depth += 2;                                                                       \
        fn##_intro(v, n, depth);                                                              \
    }

#define LESS_START_END(a, b) \
    ((a)->start_ns < (b)->start_ns || ((a)->start_ns == (b)->start_ns && (a)->end_ns < (b)->end_ns))

#endif
