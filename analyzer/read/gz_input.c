/* Byte source for the Kineto JSON reader: reads a file descriptor chunk by chunk and, for gzip content, inflates it
 * with zlib as it goes, so a 35 MB JSON trace never sits in memory whole. Inflating runs on a thread of its own, a
 * few buffers ahead of the parser (a pipeline: on two cores the parse no longer waits for zlib); the parser's
 * thread only copies out of the filled buffers. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "reader_impl.h"

enum {
    NBUF = 4,                  /* inflated buffers in flight */
    BUF_BYTES = 256 * 1024,    /* each; the pipeline holds at most NBUF * BUF_BYTES of text */
};

struct ps_gz_input {
    int fd;
    int gzip;
    char *path;                /* for messages */
    /* the inflater: the producer thread's alone once it runs */
    int eof;                   /* no more compressed bytes in the file */
    int stream_end;            /* the last gzip member ended cleanly and no input follows it */
    int padding;               /* zero bytes followed the last member: only zeros may follow */
    long long in_off;          /* compressed bytes consumed from the file so far */
    z_stream zs;
    int zs_ready;
    /* the pipeline: buffers [head, tail) (mod NBUF) are filled; the producer fills buf[tail % NBUF], the consumer
     * reads buf[head % NBUF] from `pos`. Counters, done, rc, msg and stop under mu. */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned head, tail;
    size_t pos;
    size_t len[NBUF];
    char *buf[NBUF];
    int done;                  /* the producer ended: rc says how (0 the text's end, else a negative errno) */
    long rc;
    int stop;                  /* the consumer closed early: the producer ends */
    char msg[512];             /* the producer's error message */
    size_t in_size;
    unsigned char in[];        /* compressed input buffer, in_size bytes */
};

static ssize_t read_some(int fd, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read(fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

/* Inflate into buf (len bytes) until some output is produced: the bytes placed, 0 at a clean end of the gzip
 * stream, or a negative errno with the message in in->msg. Runs on the producer thread. */
static long inflate_some(struct ps_gz_input *in, char *buf, size_t len)
{
    char *err = in->msg;
    size_t errlen = sizeof in->msg;
    const char *path = in->path;
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

/* The producer: fills free buffers whole (the last one with what is left), hands each over, and at the end or the
 * first error records rc, after the text before it. Ends early when the consumer sets stop. */
static void *produce(void *arg)
{
    struct ps_gz_input *in = arg;
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while (in->tail - in->head == NBUF && !in->stop)
            pthread_cond_wait(&in->cv, &in->mu);
        int stop = in->stop;
        pthread_mutex_unlock(&in->mu);
        if (stop)
            return NULL;
        char *b = in->buf[in->tail % NBUF];   /* free: only this thread writes it until tail moves past it */
        size_t fill = 0;
        long n = 1;
        while (fill < BUF_BYTES && (n = inflate_some(in, b + fill, BUF_BYTES - fill)) > 0)
            fill += (size_t)n;
        pthread_mutex_lock(&in->mu);
        if (fill > 0)
            in->len[in->tail++ % NBUF] = fill;
        if (n <= 0) {
            in->done = 1;
            in->rc = n;
        }
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        if (n <= 0)
            return NULL;
    }
}

struct ps_gz_input *ps_gz_open(int fd, int gzip, size_t chunk, const char *path)
{
    size_t in_size = gzip ? chunk : 0;
    struct ps_gz_input *in = calloc(1, sizeof *in + in_size);
    if (!in)
        return NULL;
    in->in_size = in_size;
    in->fd = fd;
    in->gzip = gzip;
    if (!gzip)
        return in;
    if (!(in->path = strdup(path)))
        goto fail;
    for (int i = 0; i < NBUF; i++)
        if (!(in->buf[i] = malloc(BUF_BYTES)))
            goto fail;
    /* 16 + MAX_WBITS: gzip wrapper only (zlib manual, inflateInit2). */
    if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK)
        goto fail;
    in->zs_ready = 1;
    if (pthread_mutex_init(&in->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&in->cv, NULL) != 0) {
        pthread_mutex_destroy(&in->mu);
        goto fail;
    }
    if (pthread_create(&in->thread, NULL, produce, in) != 0) {
        pthread_cond_destroy(&in->cv);
        pthread_mutex_destroy(&in->mu);
        goto fail;
    }
    in->thread_started = 1;
    return in;
fail:
    ps_gz_close(in);
    return NULL;
}

void ps_gz_close(struct ps_gz_input *in)
{
    if (!in)
        return;
    if (in->thread_started) {
        pthread_mutex_lock(&in->mu);
        in->stop = 1;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        pthread_join(in->thread, NULL);
        pthread_cond_destroy(&in->cv);
        pthread_mutex_destroy(&in->mu);
    }
    if (in->zs_ready)
        inflateEnd(&in->zs);
    for (int i = 0; i < NBUF; i++)
        free(in->buf[i]);
    free(in->path);
    free(in);
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
    pthread_mutex_lock(&in->mu);
    while (in->head == in->tail && !in->done)
        pthread_cond_wait(&in->cv, &in->mu);
    if (in->head == in->tail) {        /* every buffer read, and the producer has ended */
        long rc = in->rc;
        if (rc < 0 && err && errlen)
            snprintf(err, errlen, "%s", in->msg);
        pthread_mutex_unlock(&in->mu);
        return rc;
    }
    unsigned at = in->head % NBUF;
    size_t have = in->len[at];
    pthread_mutex_unlock(&in->mu);
    /* buffer `at` is the consumer's until head moves past it */
    size_t n = have - in->pos < len ? have - in->pos : len;
    memcpy(buf, in->buf[at] + in->pos, n);
    in->pos += n;
    if (in->pos == have) {
        in->pos = 0;
        pthread_mutex_lock(&in->mu);
        in->head++;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
    }
    return (long)n;
}
