/* libFuzzer targets for the trace readers: the input bytes become a file (an anonymous memfd, opened
 * through /proc/self/fd) and go through ps_read_trace, the same path `perfscope report` takes.
 * Built twice: fuzz_kineto (PS_FUZZ_SQLITE=0: inputs that are not SQLite; seeds are slices of Kineto
 * JSON, plain and gzip) and fuzz_sqlite (PS_FUZZ_SQLITE=1: the first 16 bytes are always the SQLite
 * magic, so every mutation reaches the SQLite reader; seeds are tiny traces).
 * Any crash, leak, hang or silent failure is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char magic[16] = "SQLite format 3";
    if (PS_FUZZ_SQLITE && size < 16)
        return 0;
    if (!PS_FUZZ_SQLITE && size >= 16 && memcmp(data, magic, 16) == 0)
        return 0;                          /* the SQLite target's input */
    int fd = memfd_create("ps-fuzz", MFD_CLOEXEC);
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
    char path[64], err[512] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct ps_model *m = NULL;
    if (ps_read_trace(path, &m, err, sizeof err) == 0) {
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
out:
    close(fd);
    return 0;
}
