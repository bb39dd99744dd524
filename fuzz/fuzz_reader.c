/* libFuzzer targets for the trace readers: the input bytes become a file and go through ps_read_trace, the same
 * path `perfscope report` takes. The file is a real one (one per process, under $TMPDIR, rewritten for each
 * input): SQLite resolves /proc/self/fd links to their target, which for an anonymous memfd cannot be opened, so
 * a memfd left the SQLite reader untested.
 * Built twice: fuzz_kineto (PS_FUZZ_SQLITE=0: inputs that are not SQLite; seeds are slices of Kineto
 * JSON, plain and gzip) and fuzz_sqlite (PS_FUZZ_SQLITE=1: the first 16 bytes are always the SQLite
 * magic, so every mutation reaches the SQLite reader; seeds are tiny traces).
 * fuzz_kineto also reads each input with ps_read_kineto_ops (the per-operator model's events), and with each
 * Kineto JSON parser alone: text the simdjson path takes must be text libyajl takes, into a model of the same size.
 * Any crash, leak, hang or silent failure is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "model/op_trace.h"
#include "read/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[256];

static void remove_input(void)
{
    unlink(path);
}

#if !PS_FUZZ_SQLITE
/* The simdjson path (json_fast.h) never takes text libyajl refuses, and both give models of the same size. */
static void same_model_both_parsers(void)
{
    char err[512];
    struct ps_model *fast = NULL, *yajl = NULL;
    if (ps_read_trace_with(path, &(struct ps_read_opts){ .parser = PS_JSON_PARSER_SIMDJSON, .op_events = 1 },
                                &fast, err, sizeof err) != 0)
        return;
    if (ps_read_trace_with(path, &(struct ps_read_opts){ .parser = PS_JSON_PARSER_YAJL, .op_events = 1 },
                                &yajl, err, sizeof err) != 0)
        __builtin_trap();
    if (fast->gpu.n != yajl->gpu.n || fast->api.n != yajl->api.n || fast->ranges.n != yajl->ranges.n ||
        fast->meta.n != yajl->meta.n || fast->unplaced_events != yajl->unplaced_events ||
        fast->mem_events.n != yajl->mem_events.n || fast->devices.n != yajl->devices.n)
        __builtin_trap();
    ps_model_free(fast);
    ps_model_free(yajl);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char magic[16] = "SQLite format 3";
    if (PS_FUZZ_SQLITE && size < 16)
        return 0;
    if (!PS_FUZZ_SQLITE && size >= 16 && memcmp(data, magic, 16) == 0)
        return 0;                          /* the SQLite target's input */
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/ps-fuzz-%d.trace", tmp && *tmp ? tmp : "/tmp", (int)getpid());
        atexit(remove_input);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    size_t off = 0;
    if (PS_FUZZ_SQLITE) {                  /* every input is a SQLite file: mutations go to the pages */
        if (write(fd, magic, 16) != 16)
            goto out;
        off = 16;
    }
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    char err[512] = "";
    struct ps_model *m = NULL;
    int read_rc = ps_read_trace(path, &m, err, sizeof err);
    if (read_rc < 0 && getenv("PS_FUZZ_VERBOSE"))     /* why an input was refused, when tuning seeds */
        fprintf(stderr, "refused: %s\n", err);
    if (read_rc == 0) {
        /* touch what analyses touch: every index must be in range */
        for (size_t i = 0; i < m->gpu.n; i++) {
            struct ps_gpu_op op = ps_model_gpu(m, i);
            if (op.stream >= m->streams.n || (op.launch != PS_NONE && op.launch >= m->api.n))
                __builtin_trap();
        }
        for (size_t i = 0; i < m->api.n; i++)
            if (m->api.v[i].thread >= m->threads.n)
                __builtin_trap();
        for (size_t i = 0; i < m->ranges.n; i++)
            if (m->ranges.v[i].thread != PS_NONE && m->ranges.v[i].thread >= m->threads.n)
                __builtin_trap();
        ps_model_free(m);
    } else if (err[0] == '\0') {
        __builtin_trap();                  /* a failure must always say why */
    }
#if !PS_FUZZ_SQLITE
    same_model_both_parsers();
    /* the per-operator model's pass over the same JSON (export --format tracelens): every argument index in range */
    struct ps_op_trace *t = NULL;
    err[0] = '\0';
    if (ps_read_kineto_ops(path, &t, err, sizeof err) == 0) {
        for (size_t i = 0; i < t->ev.n; i++)
            if (t->ev.v[i].args != PS_NONE && t->ev.v[i].args >= t->args.n)
                __builtin_trap();
        ps_op_trace_free(t);
    } else if (err[0] == '\0') {
        __builtin_trap();
    }
#endif
    return 0;
out:
    close(fd);
    return 0;
}
