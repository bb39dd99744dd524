/* Byte source for the Kineto JSON reader: reads a file descriptor chunk by chunk and, for gzip
 * content, inflates it with zlib as it goes, so a 35 MB JSON trace never sits in memory whole. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "reader_impl.h"


struct ps_gz_input {
    int fd;
    int gzip;
    int eof;               /* no more compressed bytes in the file */
    int stream_end;        /* the last gzip member ended cleanly and no input follows it */
    int padding;           /* zero bytes followed the last member: only zeros may follow */
    long long in_off;      /* compressed bytes consumed from the file so far */
    z_stream zs;
    int zs_ready;
    size_t in_size;
    unsigned char in[];    /* compressed input buffer, in_size bytes */
};

int ps_gz_open(int fd, int gzip, size_t chunk, struct ps_gz_input **out)
{
    size_t in_size = gzip ? chunk : 0;
    struct ps_gz_input *in = malloc(sizeof *in + in_size);
    *out = NULL;
    if (!in)
        return -ENOMEM;
    memset(in, 0, sizeof *in);
    in->in_size = in_size;
    in->fd = fd;
    in->gzip = gzip;
    if (gzip) {
        /* 16 + MAX_WBITS: gzip wrapper only (zlib manual, inflateInit2: it fails for memory, or for a zlib that is
         * not the one compiled against) */
        if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK) {
            free(in);
            return -ENOMEM;
        }
        in->zs_ready = 1;
    }
    *out = in;
    return 0;
}

void ps_gz_close(struct ps_gz_input *in)
{
    if (!in)
        return;
    if (in->zs_ready)
        inflateEnd(&in->zs);
    free(in);
}

static ssize_t read_some(int fd, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read(fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

long ps_gz_read(struct ps_gz_input *in, char *buf, size_t len, const char *path, char *err, size_t errlen)
{
    if (!in->gzip) {
        ssize_t n = read_some(in->fd, buf, len);
        if (n < 0) {
            int e = errno;
            ps_read_fail(err, errlen, "%s: read error: %s", path, strerror(e));
            return -e;
        }
        return (long)n;
    }
    z_stream *zs = &in->zs;
    zs->next_out = (unsigned char *)buf;
    zs->avail_out = (unsigned)len;
    while (zs->avail_out == len) {
        if (zs->avail_in == 0 && !in->eof) {
            ssize_t n = read_some(in->fd, in->in, in->in_size);
            if (n < 0) {
                int e = errno;
                ps_read_fail(err, errlen, "%s: read error at compressed byte %lld: %s", path, in->in_off,
                             strerror(e));
                return -e;
            }
            in->eof = n == 0;
            zs->next_in = in->in;
            zs->avail_in = (unsigned)n;
        }
        if (zs->avail_in == 0 && in->eof) {
            if (in->stream_end)
                return 0;
            return ps_read_fail(err, errlen,
                                "%s: truncated gzip: the compressed data ends at byte %lld before the gzip stream "
                                "does (was the file cut short while copying?)", path, in->in_off);
        }
        if (in->stream_end && zs->avail_in > 0 && (in->padding || zs->next_in[0] != 0x1f)) {
            /* After a complete member: zero bytes to the end of the file are padding (ignored, as gzip(1)
             * does); any other bytes that do not start another member are an error (gzip(1) only warns
             * "trailing garbage ignored", but a trace with something appended is not what the profiler wrote). */
            for (unsigned i = 0; i < zs->avail_in; i++)
                if (zs->next_in[i] != 0)
                    return ps_read_fail(err, errlen, "%s: trailing data after the gzip stream at compressed byte "
                                        "%lld (not another gzip member): the file was damaged or something was "
                                        "appended to it; `gzip -dc FILE > trace.json` keeps the valid part",
                                        path, in->in_off + i);
            in->padding = 1;
            in->in_off += zs->avail_in;
            zs->avail_in = 0;
            continue;
        }
        unsigned before = zs->avail_in;
        in->stream_end = 0;
        int zrc = inflate(zs, Z_NO_FLUSH);
        in->in_off += before - zs->avail_in;
        if (zrc == Z_STREAM_END) {
            /* Concatenated gzip members are one stream (gzip(1) semantics): start the next one if input follows. */
            in->stream_end = 1;
            if (inflateReset(zs) != Z_OK)
                return ps_read_fail(err, errlen, "%s: gzip: cannot reset the inflater", path);
        } else if (zrc == Z_BUF_ERROR && zs->avail_in == 0 && !in->eof) {
            continue;                      /* needs more input */
        } else if (zrc != Z_OK) {
            return ps_read_fail(err, errlen, "%s: corrupt gzip data near compressed byte %lld: %s", path,
                                in->in_off, zs->msg ? zs->msg : "inflate failed");
        }
    }
    return (long)(len - zs->avail_out);
}
