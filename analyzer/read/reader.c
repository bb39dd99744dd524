/* ps_read_trace: detect a trace's format from its first bytes (SQLite, gzip, JSON) and dispatch to
 * the SQLite reader (perfscope traces, Nsight Systems exports) or the Kineto JSON reader. The readers' top file:
 * it calls them, none of them calls it (their shared helpers are read_common.c's). */
#include "read/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_text_escape.h"
#include "reader_impl.h"

/* The format by content: SQLite's 16-byte header string, gzip's magic 1f 8b, or a JSON object/array
 * after optional whitespace (and a UTF-8 byte-order mark). */
enum sniffed { SNIFF_SQLITE, SNIFF_GZIP, SNIFF_JSON, SNIFF_UNKNOWN, SNIFF_EMPTY };

static enum sniffed sniff(const unsigned char *b, size_t n, size_t *at)
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
    *at = i;                          /* the first byte that is not whitespace (nor the BOM): the one judged */
    if (i < n && (b[i] == '{' || b[i] == '['))
        return SNIFF_JSON;
    return i == n ? SNIFF_EMPTY : SNIFF_UNKNOWN;
}

/* Read on past what sniff() saw, for content that may still be empty: a gzip file (inflated) or a plain file
 * whose first 4 KiB are whitespace. Reads until the first byte that is not whitespace (a real trace costs one
 * chunk), so whitespace only, or nothing, gets the plain empty file's message; and a gzip file holding a SQLite
 * file gets its own. Rewinds fd. Returns 0 (let the JSON reader judge), or a negative errno with the message set. */
static int sniff_stream(const char *path, int fd, int gzip, char *err, size_t errlen)
{
    static const unsigned char sqlite_magic[16] = "SQLite format 3", bom[3] = { 0xef, 0xbb, 0xbf };
    unsigned char head[16], buf[16384];
    size_t nhead = 0;
    long long total = 0;
    int rc = -EINVAL, saw_data = 0;
    struct ps_gz_input *in;
    if (ps_gz_open(fd, gzip, 65536, &in) < 0)
        return ps_read_oom(err, errlen, path);
    while (!saw_data || nhead < sizeof head) {
        long n = ps_gz_read(in, (char *)buf, sizeof buf, path, err, errlen);
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        for (long i = 0; i < n && nhead < sizeof head; i++)
            head[nhead++] = buf[i];
        if (gzip && nhead == sizeof head && memcmp(head, sqlite_magic, sizeof head) == 0) {
            rc = ps_read_fail(err, errlen, "%s: a compressed SQLite file: decompress it first (gunzip, or "
                              "`zcat FILE > trace.sqlite`) and report on the .sqlite file", path);
            goto out;
        }
        for (long i = 0; i < n && !saw_data; i++) {
            unsigned char b = buf[i];
            long long at = total + i;
            int in_bom = at < 3 && nhead >= 3 && memcmp(head, bom, 3) == 0;   /* UTF-8 byte-order mark */
            saw_data = !(b == ' ' || b == '\t' || b == '\n' || b == '\r' || in_bom);
        }
        total += n;
    }
    if (!saw_data) {
        rc = ps_read_fail(err, errlen, "%s: empty file (%s%lld byte%s of whitespace only: no trace data; was the "
                          "recording interrupted?)", path, gzip ? "it decompresses to " : "", total,
                          total == 1 ? "" : "s");
        goto out;
    }
    rc = 0;
out:
    ps_gz_close(in);
    if (rc == 0 && lseek(fd, 0, SEEK_SET) != 0) {
        rc = -errno;
        ps_read_fail(err, errlen, "%s: cannot seek: %s", path, strerror(-rc));
    }
    return rc;
}

int ps_read_trace(const char *path, struct ps_model **out, char *err, size_t errlen)
{
    return ps_read_trace_with(path, NULL, out, err, errlen);
}

/* A finished model whose events span at most PS_MODEL_MAX_SPAN_NS (model/model.h): 0, or -EINVAL with the message
 * the report gives for a longer one (analyses/report/pipeline.c, for models read otherwise), so that every command
 * refuses such a file alike (export too, whose TraceLens tables are of the same events). */
static int check_span(const struct ps_model *m, const char *path, char *err, size_t errlen)
{
    int64_t a = INT64_MAX, b = INT64_MIN, span;
    for (size_t i = 0; i < m->gpu.n; i++) {
        int64_t end = ps_gpu_row_end(m, &m->gpu.v[i]);
        a = m->gpu.v[i].start_ns < a ? m->gpu.v[i].start_ns : a;
        b = end > b ? end : b;
    }
    for (size_t i = 0; i < m->api.n; i++) {
        a = m->api.v[i].start_ns < a ? m->api.v[i].start_ns : a;
        b = m->api.v[i].end_ns > b ? m->api.v[i].end_ns : b;
    }
    for (size_t i = 0; i < m->ranges.n; i++) {
        a = m->ranges.v[i].start_ns < a ? m->ranges.v[i].start_ns : a;
        b = m->ranges.v[i].end_ns > b ? m->ranges.v[i].end_ns : b;
    }
    if (a > b || (!__builtin_sub_overflow(b, a, &span) && span <= PS_MODEL_MAX_SPAN_NS))
        return 0;
    return ps_read_fail(err, errlen, "%s: the events span more than %d days (first start %lld ns, last end %lld ns): "
                        "its timestamps look corrupt", path, (int)(PS_MODEL_MAX_SPAN_NS / 86400000000000ll),
                        (long long)a, (long long)b);
}

/* The per-operator model's events collector when asked for (NULL when out of memory: the read goes on without). */
static struct ps_kineto_ops *ops_if(const struct ps_read_opts *o)
{
    struct ps_kineto_ops *ops = NULL;
    if (o->op_events)
        (void)ps_kineto_ops_new(&ops);
    return ops;
}

/* Kineto JSON as o says; declined by the fast path: again with libyajl (which never declines), into a new
 * model. */
static int read_json(const char *path, int fd, int gzip, const struct ps_read_opts *o, struct ps_model **m,
                     char *err, size_t errlen)
{
    enum ps_json_parser parser = o->parser;
    int declined;
    int rc = ps_read_kineto(path, fd, gzip, parser, ops_if(o), *m, &declined, err, errlen);
    if (rc < 0 || !declined)
        return rc;
    if (parser == PS_JSON_PARSER_SIMDJSON)
        return ps_read_fail(err, errlen, "%s: the simdjson path declined the text", path), -ENOTSUP;
    ps_model_free(*m);
    if (!(*m = ps_model_new(path, PS_FORMAT_KINETO)))
        return ps_read_oom(err, errlen, path);
    if (lseek(fd, 0, SEEK_SET) != 0) {
        rc = -errno;
        return ps_read_fail(err, errlen, "%s: cannot seek: %s", path, strerror(-rc)), rc;
    }
    return ps_read_kineto(path, fd, gzip, PS_JSON_PARSER_YAJL, ops_if(o), *m, &declined, err, errlen);
}

/* ps_read_trace_with, or with kineto_only the same for ps_read_kineto_ops: a SQLite file refused before its read. */
static int read_trace(const char *path, const struct ps_read_opts *o, int kineto_only, struct ps_model **out,
                      char *err, size_t errlen)
{
    struct ps_model *m = NULL;
    int rc = -EINVAL;
    /* O_NONBLOCK: opening a FIFO without a writer would block forever; a regular file ignores the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (fd < 0) {
        rc = -errno;
        ps_read_fail(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        ps_read_fail(err, errlen, "%s: cannot stat: %s", path, strerror(-rc));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        rc = ps_read_fail(err, errlen, "%s: is a directory, not a trace file", path);
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        /* The readers seek (SQLite pages, the sniffed head read again): a pipe, FIFO or device cannot be read
         * that way, and a FIFO without a writer would hang. Refused before any read. */
        rc = ps_read_fail(err, errlen, "%s: not a regular file (%s): report reads regular files; write the trace "
                          "to a file first and give that file's name", path,
                          S_ISFIFO(st.st_mode) ? "a pipe or FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                          : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                          : "not a plain file");
        goto out;
    }
    unsigned char head[4096];
    ssize_t n = pread(fd, head, sizeof head, 0);
    if (n < 0) {
        rc = -errno;
        ps_read_fail(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
        goto out;
    }
    size_t at = 0;
    enum sniffed kind = sniff(head, (size_t)n, &at);
    if (kind == SNIFF_GZIP || (kind == SNIFF_EMPTY && n == (ssize_t)sizeof head)) {
        if ((rc = sniff_stream(path, fd, kind == SNIFF_GZIP, err, errlen)) < 0)
            goto out;
        if (kind == SNIFF_EMPTY)
            kind = SNIFF_JSON;        /* whitespace, then something: the JSON reader names what it finds */
    }
    if (kind == SNIFF_EMPTY) {
        rc = ps_read_fail(err, errlen, "%s: empty file (no trace data; was the recording interrupted?)", path);
        goto out;
    }
    if (kind == SNIFF_UNKNOWN) {
        rc = ps_read_fail(err, errlen, "%s: byte %zu: unknown format (0x%02x%s; expected a SQLite trace, PyTorch "
                          "profiler JSON, or gzip of it)", path, at, head[at], at ? ", after whitespace" : "");
        goto out;
    }
    if (kind == SNIFF_SQLITE && kineto_only) {
        rc = ps_read_fail(err, errlen, "%s: a SQLite trace, not PyTorch profiler (Kineto) JSON", path);
        goto out;
    }
    m = ps_model_new(path, kind == SNIFF_SQLITE ? PS_FORMAT_NSYS : PS_FORMAT_KINETO);
    if (!m) {
        rc = ps_read_oom(err, errlen, path);
        goto out;
    }
    if (kind == SNIFF_SQLITE)
        rc = ps_read_sqlite(path, m, err, errlen);
    else
        rc = read_json(path, fd, kind == SNIFF_GZIP, o, &m, err, errlen);
    if (rc < 0)
        goto out;
    if ((rc = ps_model_finish(m)) < 0) {
        ps_read_fail(err, errlen, "%s: out of memory while sorting events", path);
        goto out;
    }
    if ((rc = check_span(m, path, err, errlen)) < 0)
        goto out;
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

int ps_read_trace_with(const char *path, const struct ps_read_opts *o, struct ps_model **out, char *err,
                       size_t errlen)
{
    static const struct ps_read_opts defaults;
    return read_trace(path, o ? o : &defaults, 0, out, err, errlen);
}

/* The trace model's read with the per-operator events beside it: every check of ps_read_trace applies to them, and
 * they keep only the events whose times the model keeps (reader_impl.h ps_event_times_ok). */
int ps_read_kineto_ops(const char *path, struct ps_op_trace **out, char *err, size_t errlen)
{
    struct ps_model *m = NULL;
    *out = NULL;
    int rc = read_trace(path, &(struct ps_read_opts){ .op_events = 1 }, 1, &m, err, errlen);
    if (rc < 0)
        return rc;
    *out = ps_model_take_op_events(m);
    ps_model_free(m);
    return *out ? 0 : ps_read_oom(err, errlen, path);
}
