/* ps_read_trace: detect a trace's format from its first bytes (SQLite, gzip, JSON) and dispatch to
 * the SQLite reader (perfscope traces, Nsight Systems exports) or the Kineto JSON reader. */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_impl.h"

int ps_read_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void ps_unplaced_count(struct ps_unplaced *u, struct ps_model *m, const char *what)
{
    m->unplaced_events++;
    for (int i = 0; i < u->n; i++)
        if (strcmp(u->kinds[i].what, what) == 0) {
            u->kinds[i].count++;
            return;
        }
    int i = u->n < PS_UNPLACED_KINDS - 1 ? u->n++ : PS_UNPLACED_KINDS - 1;   /* the last slot is "other" */
    if (i == PS_UNPLACED_KINDS - 1) {
        u->n = PS_UNPLACED_KINDS;
        what = "other";
    }
    snprintf(u->kinds[i].what, sizeof u->kinds[i].what, "%s", what);
    u->kinds[i].count++;
}

int ps_unplaced_summary(const struct ps_unplaced *u, struct ps_model *m)
{
    char summary[PS_UNPLACED_KINDS * 100];
    size_t off = 0;
    if (u->n == 0)
        return 0;
    for (int i = 0; i < u->n && off < sizeof summary; i++)
        off += (size_t)snprintf(summary + off, sizeof summary - off, "%s%s: %lld", i ? "; " : "", u->kinds[i].what,
                                u->kinds[i].count);
    return ps_model_add_meta(m, "unplaced_events", summary);
}

/* The format by content: SQLite's 16-byte header string, gzip's magic 1f 8b, or a JSON object/array
 * after optional whitespace (and a UTF-8 byte-order mark). */
enum sniffed { SNIFF_SQLITE, SNIFF_GZIP, SNIFF_JSON, SNIFF_UNKNOWN, SNIFF_EMPTY };

static enum sniffed sniff(const unsigned char *b, size_t n)
{
    static const char sqlite_magic[16] = "SQLite format 3";   /* 15 chars + the NUL */
    if (n == 0)
        return SNIFF_EMPTY;
    if (n >= 16 && memcmp(b, sqlite_magic, 16) == 0)
        return SNIFF_SQLITE;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return SNIFF_GZIP;
    size_t i = 0;
    if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
        i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    if (i < n && (b[i] == '{' || b[i] == '['))
        return SNIFF_JSON;
    return i == n ? SNIFF_EMPTY : SNIFF_UNKNOWN;
}

int ps_read_trace(const char *path, struct ps_model **out, char *err, size_t errlen)
{
    struct ps_model *m = NULL;
    int rc = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (fd < 0) {
        rc = ps_read_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = ps_read_fail(err, errlen, "%s: is a directory, not a trace file", path);
        goto out;
    }
    unsigned char head[4096];
    ssize_t n = pread(fd, head, sizeof head, 0);
    if (n < 0) {
        rc = ps_read_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    enum sniffed kind = sniff(head, (size_t)n);
    if (kind == SNIFF_EMPTY) {
        rc = ps_read_fail(err, errlen, "%s: empty file (no trace data; was the recording interrupted?)", path);
        goto out;
    }
    if (kind == SNIFF_UNKNOWN) {
        rc = ps_read_fail(err, errlen,
                          "%s: byte 0: unknown format (expected a SQLite trace, PyTorch profiler JSON, or gzip of it)",
                          path);
        goto out;
    }
    m = ps_model_new(path, kind == SNIFF_SQLITE ? PS_FORMAT_NSYS : PS_FORMAT_KINETO);
    if (!m) {
        rc = ps_read_fail(err, errlen, "%s: out of memory", path);
        goto out;
    }
    if (kind == SNIFF_SQLITE)
        rc = ps_read_sqlite(path, m, err, errlen);
    else
        rc = ps_read_kineto(path, fd, kind == SNIFF_GZIP, m, err, errlen);
    if (rc < 0)
        goto out;
    if (ps_model_finish(m) < 0) {
        rc = ps_read_fail(err, errlen, "%s: out of memory while sorting events", path);
        goto out;
    }
    *out = m;
    m = NULL;
    rc = 0;
out:
    if (rc < 0 && err && errlen) {   /* messages quote bytes of the file (SQLite quotes a corrupt schema): escape */
        char raw[1024];
        snprintf(raw, sizeof raw, "%s", err);
        ps_text_escape(raw, err, errlen, NULL);
    }
    ps_model_free(m);
    if (fd >= 0)
        close(fd);
    return rc;
}
