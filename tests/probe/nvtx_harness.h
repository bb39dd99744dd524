/* Shared harness of the NVTX probe tests (test_nvtx.c, test_nvtx_proc.c): a forked child makes real NVTX
 * calls with NVTX_INJECTION64_PATH naming libperfscope_probe.so and notes what it did in a shared page
 * (struct truth); the parent reads the session's rings with ps_ring_reader_* (nvtx_dump.c) and compares. */
#ifndef PS_TEST_NVTX_HARNESS_H
#define PS_TEST_NVTX_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

#include "cases.h"
#include "nvtx_dump.h"
#include "ps_time.h"

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define SLACK_NS 2000               /* TSC -> CLOCK_MONOTONIC conversion error allowed (pairs: tens of ns) */

/* What the child did, written by the child, read by the parent after it exits. */
struct truth {
    int64_t before[32], after[32];  /* CLOCK_MONOTONIC around call i */
    int level[32];
    uint64_t id[8];
    uint32_t tid[8];
    uint32_t pid[4];
    int flag[8];
};

extern struct truth *T;             /* shared with the child (MAP_SHARED) */
extern char dir[];                  /* the session directory */
extern int argc_g;
extern char **argv_g;
extern const char *session_override; /* run_child sets PERFSCOPE_SESSION_DIR to this when non-NULL */

/* Time `call` as call number i (CLOCK_MONOTONIC before and after). */
#define AROUND(i, call)                                                         \
    do {                                                                        \
        T->before[i] = ps_monotonic_ns();                                       \
        call;                                                                   \
        T->after[i] = ps_monotonic_ns();                                        \
    } while (0)

/* Run the case named argv[1] in a fresh session directory (removed at exit): tests/cases.h's run_cases(). */
int nvtx_test_main(int argc, char **argv, const struct test_case *cases, size_t n);

uint32_t tid_now(void);
/* Run fn in a child under the probe; returns its wait status. `ring_bytes` may be NULL (default);
 * without `with_session` PERFSCOPE_SESSION_DIR is unset; `stderr_fd` >= 0 becomes the child's stderr. */
int run_child(void (*fn)(void), const char *ring_bytes, int with_session, int stderr_fd);
void run_ok(void (*fn)(void));      /* run_child that must exit 0 */
void load_single(struct dump *d);   /* the session's only ring, decoded and checked */
struct dump_event **find_all(struct dump *d, uint16_t type, const char *text, int *n);
struct dump_event *find1(struct dump *d, uint16_t type, const char *text);   /* exactly one */
const struct dump_name *find_name(struct dump *d, uint16_t type, uint32_t domain, uint32_t id);
void check_within(const struct dump_event *e, int64_t ns, int call);          /* ns inside call's bracket */
nvtxEventAttributes_t attr_ascii(const char *msg);
int has_range(struct dump *d, const char *text);

#endif
