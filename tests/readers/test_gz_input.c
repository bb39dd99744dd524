/* The gzip byte source (analyzer/read/gz_input.c), white-box. Whatever the read sizes, the bytes are the text gzip
 * wrote (two concatenated members here: one stream, as gzip(1) reads them); a reader may close before the end; a
 * cut file gives a prefix of the text, then the message; a damaged one the message. Each expectation is the text
 * written. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "reader_impl.h"
#include "tinyfs.h"

enum { TEXT_BYTES = 6 * 1024 * 1024 + 12345 };   /* several input chunks' worth, not a whole number of them */

/* Text like a trace's: records with varying numbers (compresses ~10x, as Kineto JSON does). */
static char *make_text(size_t n)
{
    char *t = malloc(n + 64);
    uint64_t x = 88172645463325252ull;
    size_t off = 0;
    while (off < n) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;   /* xorshift64 */
        off += (size_t)snprintf(t + off, 64, "{\"ts\": %llu, \"dur\": %u},\n", (unsigned long long)(x >> 20),
                                (unsigned)(x % 1000));
    }
    return t;
}

/* The byte source over fd, gzip content (its constructor cannot fail but for memory). */
static struct ps_gz_input *gz_open(int fd)
{
    struct ps_gz_input *in = NULL;
    CHECK_EQ("ps_gz_open", ps_gz_open(fd, 1, 256 * 1024, &in), 0);
    return in;
}

/* TEXT as two gzip members one after the other (split at `cut`), at path. */
static void write_two_members(const char *path, const char *text, size_t n, size_t cut)
{
    gzFile g = gzopen(path, "wb");
    CHECK(g && gzwrite(g, text, (unsigned)cut) == (int)cut && gzclose(g) == Z_OK, "first member");
    g = gzopen(path, "ab");
    CHECK(g && gzwrite(g, text + cut, (unsigned)(n - cut)) == (int)(n - cut) && gzclose(g) == Z_OK, "second");
}

/* Read the whole source in requests of sizes[i % nsizes] bytes into a new buffer; *rc gets the final return. */
static char *read_all(struct ps_gz_input *in, const char *path, const size_t *sizes, size_t nsizes, size_t *got,
                      long *rc, char *err, size_t errlen)
{
    size_t cap = TEXT_BYTES + 1024 * 1024, have = 0;
    char *out = malloc(cap);
    for (size_t i = 0;; i++) {
        size_t want = sizes[i % nsizes] < cap - have ? sizes[i % nsizes] : cap - have;
        long n = ps_gz_read(in, out + have, want, path, err, errlen);
        if (n <= 0) {
            *rc = n;
            break;
        }
        have += (size_t)n;
    }
    *got = have;
    return out;
}

static void every_read_size_gives_the_text(const char *path, const char *text, size_t n)
{
    static const size_t sizes[][3] = { { 1, 7, 4096 }, { 65536, 65536, 65536 }, { 1 << 20, 3, 300000 } };
    for (size_t k = 0; k < 3; k++) {
        int fd = open(path, O_RDONLY);
        struct ps_gz_input *in = gz_open(fd);
        size_t got;
        long rc;
        char err[256] = "";
        char *out = read_all(in, path, sizes[k], 3, &got, &rc, err, sizeof err);
        CHECK_EQ("end", rc, 0);
        CHECK_EQ("bytes", got, n);
        CHECK(got == n && memcmp(out, text, n) == 0, "read sizes %zu,%zu,%zu: the bytes differ", sizes[k][0],
              sizes[k][1], sizes[k][2]);
        CHECK_EQ("a read after the end", ps_gz_read(in, out, 16, path, err, sizeof err), 0);
        free(out);
        ps_gz_close(in);
        close(fd);
    }
}

static void an_early_close_returns(const char *path)
{
    /* the format sniffer reads a few bytes and closes: nothing is left behind (ASan's leak check) */
    for (int i = 0; i < 20; i++) {
        int fd = open(path, O_RDONLY);
        struct ps_gz_input *in = gz_open(fd);
        char b[16];
        if (i % 2)
            CHECK_EQ("first bytes", ps_gz_read(in, b, sizeof b, path, NULL, 0), 16);
        ps_gz_close(in);
        close(fd);
    }
}

static void damage_gives_the_bytes_before_then_the_message(const char *path, const char *text, size_t n)
{
    struct stat st;
    CHECK(stat(path, &st) == 0, "stat");
    size_t size = (size_t)st.st_size;
    char *z = malloc(size);
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(z, 1, size, f) == size, "read back");
    fclose(f);
    const size_t sizes[] = { 100000 };
    /* cut at half the compressed size: a prefix of the text, then "truncated gzip" naming the path */
    const char *cut = tiny_write("cut.json.gz", z, size / 2);
    int fd = open(cut, O_RDONLY);
    struct ps_gz_input *in = gz_open(fd);
    size_t got;
    long rc;
    char err[512] = "";
    char *out = read_all(in, cut, sizes, 1, &got, &rc, err, sizeof err);
    CHECK_EQ("cut: status", rc, -EINVAL);
    CHECK(got > 0 && got < n && memcmp(out, text, got) == 0, "cut: %zu bytes, not a prefix of the text", got);
    CHECK_CONTAINS(err, "cut.json.gz: truncated gzip: the compressed data ends at byte");
    free(out);
    ps_gz_close(in);
    close(fd);
    /* a damaged byte in the first member's data: zlib's reason (what it inflated before noticing may differ from
     * the text: deflate has no check until the member's CRC) */
    z[size / 4] ^= 0x55;
    const char *bad = tiny_write("bad.json.gz", z, size);
    fd = open(bad, O_RDONLY);
    in = gz_open(fd);
    out = read_all(in, bad, sizes, 1, &got, &rc, err, sizeof err);
    CHECK(rc < 0, "damaged: status %ld", rc);
    CHECK_CONTAINS(err, "bad.json.gz: ");
    CHECK(strstr(err, "corrupt gzip data near compressed byte") || strstr(err, "truncated gzip"), "message: %s",
          err);
    free(out);
    ps_gz_close(in);
    close(fd);
    free(z);
}

int main(void)
{
    tiny_init();
    char *text = make_text(TEXT_BYTES);
    size_t n = TEXT_BYTES;
    const char *path = tiny_path("two.json.gz");
    write_two_members(path, text, n, n / 3);
    every_read_size_gives_the_text(path, text, n);
    an_early_close_returns(path);
    damage_gives_the_bytes_before_then_the_message(path, text, n);
    free(text);
    tiny_cleanup();
    return check_failures != 0;
}
