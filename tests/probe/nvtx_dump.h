/* Test helper: read a whole ring file with the ps_ring_reader API and decode its records into plain
 * structs (messages resolved from lane strings, registered strings or inline text), for assertions. */
#ifndef PS_TEST_NVTX_DUMP_H
#define PS_TEST_NVTX_DUMP_H

#include <stdint.h>

#include "ps_wire.h"

struct dump_event {
    uint16_t type;                  /* PS_WIRE_NVTX_RANGE / _STARTEND / _MARK / _UNBALANCED */
    uint16_t flags;
    uint32_t lane;
    int64_t start_ns, end_ns;       /* CLOCK_MONOTONIC */
    uint32_t tid, domain;
    char *text;                     /* resolved message, or NULL */
    int registered;                 /* message was a registered string (id msg_id) */
    uint32_t msg_id;
    int has_attr;
    struct ps_wire_nvtx_attr attr;
    uint64_t range_id;              /* start/end */
    uint32_t end_tid;
};

struct dump_name {
    uint16_t type;                  /* PS_WIRE_NVTX_DOMAIN / _REGISTERED / _CATEGORY / PS_WIRE_THREAD_NAME */
    uint32_t domain, id, tid;
    char *text;
};

struct dump {
    uint32_t pid;
    uint64_t dropped;
    struct ps_wire_process proc;    /* the first record (checked to be PROCESS) */
    char *exe, *argv;               /* argv NUL-separated, proc.argv_len bytes */
    int first_is_process;
    long nprocess;
    struct dump_event *ev;
    long nev, capev;
    struct dump_name *names;
    long nnames, capnames;
    long unresolved;                /* messages whose definition was missing: must stay 0 */
};

/* Drain `path` once and decode every record; exits the test with a message on any malformed record. */
void dump_load(const char *path, struct dump *d);
void dump_free(struct dump *d);
/* Find the ring files of a session directory: fills paths (up to max), returns the count. */
int dump_find_rings(const char *dir, char paths[][4096], int max);

#endif
