/* The JSON readers' fast path (json_fast.h): the window over the text, the string-aware scan that finds where the
 * "traceEvents" array starts, the commas between its elements and its end, and the documents handed to simdjson
 * (json_simd.cc). */
#include <immintrin.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "json_fast.h"
#include "json_simd.h"
#include "kineto_text.h"
#include "reader_impl.h"

#define LEAD 32   /* bytes kept free before the window's text: '[' of an element chunk, the tail's opening */

static const char tail_open[] = "{\"traceEvents\":[]";

/* The second set of callbacks of ps_json_fast_parse_side: a thread that walks a copy of each document the main
 * walk is given, with its own simdjson parser, while the main thread walks the original and reads on. One slot:
 * a document is copied in once the thread has finished the one before. */
struct side {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct ps_simd *simd;
    const yajl_callbacks *cb;
    void *ctx;
    char *doc;               /* the copy: len bytes, then simdjson's padding */
    size_t len, cap;
    enum ps_simd_mode mode;
    int full, stop, failed;  /* full: doc waits for (or is in) the walk; failed: a walk was declined */
    int inline_walk;         /* no thread could be started: each document is walked here, before the main walk */
};

struct fast {
    struct ps_gz_input *in;   /* the text streamed (plain, or gzip through zlib) */
    struct ps_simd *simd;
    char *buf;          /* LEAD bytes, then the text: text = buf + LEAD */
    size_t cap;         /* text capacity (twice simdjson's padding comes after it) */
    size_t have;        /* text bytes in the window */
    int eof;
    const yajl_callbacks *cb;
    void *ctx;
    struct side *side;  /* NULL: one set of callbacks */
};

static char *text(struct fast *f)
{
    return f->buf + LEAD;
}

/* Fill the window to its capacity or the end of the text. 0, or 1 on a read error (libyajl's read reports it). */
static int fill(struct fast *f)
{
    while (!f->eof && f->have < f->cap) {
        long n = ps_gz_read(f->in, text(f) + f->have, f->cap - f->have, "", NULL, 0);
        if (n < 0)
            return 1;
        f->eof = n == 0;
        f->have += (size_t)n;
    }
    return 0;
}

/* Double the window (up to PS_JSON_FAST_WINDOW_MAX). 0, 1 when it is at its largest, or -ENOMEM. */
static int grow(struct fast *f)
{
    if (f->cap >= PS_JSON_FAST_WINDOW_MAX)
        return 1;
    char *bigger = realloc(f->buf, LEAD + f->cap * 2 + 2 * ps_simd_padding());
    if (!bigger)
        return -ENOMEM;
    f->buf = bigger;
    f->cap *= 2;
    return 0;
}

static void *side_main(void *arg)
{
    struct side *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        while (!d->full && !d->stop)
            pthread_cond_wait(&d->cv, &d->mu);
        if (!d->full)
            break;
        pthread_mutex_unlock(&d->mu);
        int failed = d->failed || !ps_simd_walk(d->simd, d->mode, d->doc, d->len, d->cb, d->ctx);
        pthread_mutex_lock(&d->mu);
        d->failed = failed;   /* after a failed walk the rest is skipped: the callbacks' state is partial */
        d->full = 0;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Wait until the side thread has finished its document (the slot is free). */
static void side_wait(struct side *d)
{
    pthread_mutex_lock(&d->mu);
    while (d->full)
        pthread_cond_wait(&d->cv, &d->mu);
    pthread_mutex_unlock(&d->mu);
}

/* Hand a copy of doc[0..len) to the side thread. 0 or -ENOMEM. */
static int side_give(struct side *d, enum ps_simd_mode mode, const char *doc, size_t len)
{
    if (d->inline_walk) {
        d->failed = d->failed || !ps_simd_walk(d->simd, mode, doc, len, d->cb, d->ctx);
        return 0;
    }
    side_wait(d);
    if (len + ps_simd_padding() > d->cap) {
        char *bigger = realloc(d->doc, len + ps_simd_padding());
        if (!bigger)
            return -ENOMEM;
        d->doc = bigger;
        d->cap = len + ps_simd_padding();
    }
    memcpy(d->doc, doc, len);
    memset(d->doc + len, 0, ps_simd_padding());
    pthread_mutex_lock(&d->mu);
    d->mode = mode;
    d->len = len;
    d->full = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return 0;
}

/* Walk doc[0..len), a part of the buffer: simdjson reads up to ps_simd_padding() bytes past its end, which the
 * buffer always has (its text capacity is followed by twice the padding: a document may end two bytes past the
 * capacity, the head's closing "]}"). */
static int walk(struct fast *f, enum ps_simd_mode mode, char *doc, size_t len)
{
    if (f->side) {
        int rc = side_give(f->side, mode, doc, len);
        if (rc != 0)
            return rc;
    }
    return ps_simd_walk(f->simd, mode, doc, len, f->cb, f->ctx) ? 0 : 1;
}

/* The end of the string that starts after p[i] = '"': the index of its closing quote, or n when p[0..n) ends
 * inside it. */
static size_t string_end(const char *p, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        const char *q = memchr(p + i, '"', n - i);
        if (!q)
            return n;
        size_t j = (size_t)(q - p), k = j;
        while (k > i && p[k - 1] == '\\')
            k--;
        if ((j - k) % 2 == 0)
            return j;              /* an even run of backslashes escapes itself, not the quote */
        i = j;
    }
    return n;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* In the window's text, the '[' that opens the first "traceEvents" array among the top-level keys: its index, or
 * -1 (not in the window, or the text is no object). */
static long events_start(const char *p, size_t n)
{
    size_t i = 0;
    int depth = 0;
    while (i < n && is_space(p[i]))
        i++;
    if (i == n || p[i] != '{')
        return -1;
    for (; i < n; i++) {
        char c = p[i];
        if (c == '"') {
            size_t e = string_end(p, i, n);
            if (e == n)
                return -1;
            size_t k = e + 1;
            if (depth == 1 && e - i - 1 == 11 && memcmp(p + i + 1, "traceEvents", 11) == 0) {
                while (k < n && is_space(p[k]))
                    k++;
                if (k < n && p[k] == ':') {
                    for (k++; k < n && is_space(p[k]); k++)
                        ;
                    if (k < n && p[k] == '[')
                        return (long)k;
                }
            }
            i = e;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                return -1;
        }
    }
    return -1;
}

/* The fast path runs only where the CPU has AVX2 (cpu_has_simd): the scan uses it too. */
#define AVX2 __attribute__((target("avx2")))

/* Bit k set where p[k] == c, for the 64 bytes at p held in lo and hi. */
AVX2 static inline uint64_t bytes_equal(__m256i lo, __m256i hi, char c)
{
    __m256i x = _mm256_set1_epi8(c);
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, x)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, x)) << 32;
}

/* The escaped bytes of a 64-byte block, from its backslashes: the byte after each backslash that is not itself
 * escaped. *carry: the block before ended in a backslash that escapes this block's first byte (in), and this one
 * does (out). One step per backslash: they are rare in traces. */
static inline uint64_t escaped_bytes(uint64_t backslashes, int *carry)
{
    uint64_t escaped = *carry ? 1 : 0;
    backslashes &= ~escaped;
    *carry = 0;
    while (backslashes) {
        uint64_t b = backslashes & (0 - backslashes);   /* the first backslash left: not escaped */
        if (b >> 63) {
            *carry = 1;
            break;
        }
        escaped |= b << 1;
        backslashes &= ~(b | b << 1);                    /* an escaped backslash escapes nothing */
    }
    return escaped;
}

/* Bit k set where an odd number of bits 0..k of x are set: with x the quotes, the bytes from an opening quote up
 * to its closing one (that one excluded). */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The state of scan_elements between 64-byte blocks. */
struct scan {
    int depth, in_str, carry;   /* carry: the next byte is escaped (the last block ended in a backslash) */
    long last_comma, end;
};

/* One 64-byte block at p (text index i): its brackets and commas outside strings, in order. Returns 0 to go on, 1
 * at the end of the array (s->end set), -1 for a '}' that closes nothing. */
AVX2 static inline int scan_block(struct scan *s, const char *p, size_t i)
{
    const __m256i bit5 = _mm256_set1_epi8(0x20);
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p),
            hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i lo_folded = _mm256_or_si256(lo, bit5), hi_folded = _mm256_or_si256(hi, bit5);   /* '[' | 0x20 is '{' */
    uint64_t escaped = escaped_bytes(bytes_equal(lo, hi, '\\'), &s->carry);
    uint64_t in_str = prefix_xor(bytes_equal(lo, hi, '"') & ~escaped) ^ (s->in_str ? ~0ull : 0);
    s->in_str = (int)(in_str >> 63);
    uint64_t marks = (bytes_equal(lo_folded, hi_folded, '{') | bytes_equal(lo_folded, hi_folded, '}') |
                      bytes_equal(lo, hi, ',')) & ~in_str;
    while (marks) {
        unsigned b = (unsigned)__builtin_ctzll(marks);
        marks &= marks - 1;
        char c = p[b];
        if (c == ',') {
            if (s->depth == 0)
                s->last_comma = (long)(i + b);
        } else if (c == '{' || c == '[') {
            s->depth++;
        } else if (s->depth-- == 0) {
            if (c == '}')
                return -1;
            s->end = (long)(i + b);
            return 1;
        }
    }
    return 0;
}

/* Scan the window's text, which starts at an element of the events array (or its end): *last_comma = the index of
 * the last comma between elements (-1 none), *end = the index of the array's ']' (-1 not in the window). Returns
 * 0, or 1 for text that cannot be the inside of an array (a '}' closing nothing). 64 bytes at a time, as bit masks:
 * a quote escaped by an odd run of backslashes is no quote, a running XOR of the quotes marks the bytes inside
 * strings, and only the brackets and commas outside them are looked at one by one (the method of Langdale and
 * Lemire, "Parsing Gigabytes of JSON per Second", VLDB Journal 28, 2019). A backslash outside a string (invalid
 * JSON, which simdjson refuses) escapes the byte after it here too. */
AVX2 static int scan_elements(const char *p, size_t n, long *last_comma, long *end)
{
    struct scan s = { .last_comma = -1, .end = -1 };
    size_t i = 0;
    int rc = 0;
    for (; i + 64 <= n && rc == 0; i += 64)
        rc = scan_block(&s, p + i, i);
    if (i < n && rc == 0) {
        char last[64];
        memset(last, ' ', sizeof last);
        memcpy(last, p + i, n - i);
        rc = scan_block(&s, last, i);
    }
    *last_comma = s.last_comma;
    *end = s.end;
    return rc < 0;
}

/* Walk text[0..len) as the elements of an array: wrapped in '[' ']' in place (text[len] is overwritten). */
static int walk_elements(struct fast *f, size_t len)
{
    char *t = text(f);
    t[-1] = '[';
    t[len] = ']';
    return walk(f, PS_SIMD_ELEMENTS, t - 1, len + 2);
}

/* Drop the first n bytes of the window. */
static void consume(struct fast *f, size_t n)
{
    memmove(text(f), text(f) + n, f->have - n);
    f->have -= n;
}

/* After the events array's ']' (text[end]): the rest of the text, whole in the window, walked as the tail. */
static int finish_tail(struct fast *f, size_t end)
{
    int rc;
    consume(f, end + 1);
    while (!f->eof) {
        if ((rc = grow(f)) != 0 || (rc = fill(f)) != 0)
            return rc;
    }
    char *doc = text(f) - (sizeof tail_open - 1);
    memcpy(doc, tail_open, sizeof tail_open - 1);
    return walk(f, PS_SIMD_TAIL, doc, f->have + sizeof tail_open - 1);
}

/* The events array, window by window, from its first element on. */
static int walk_events(struct fast *f)
{
    for (;;) {
        long comma, end;
        int rc = fill(f);
        if (rc != 0 || (rc = scan_elements(text(f), f->have, &comma, &end)) != 0)
            return rc;
        if (end >= 0) {
            if ((rc = walk_elements(f, (size_t)end)) != 0)
                return rc;
            return finish_tail(f, (size_t)end);
        }
        if (comma >= 0) {
            if ((rc = walk_elements(f, (size_t)comma)) != 0)
                return rc;
            consume(f, (size_t)comma + 1);
            continue;
        }
        if (f->eof)
            return 1;                 /* the array never ends: libyajl says where the text is cut */
        if ((rc = grow(f)) != 0)
            return rc;                /* one element longer than the largest window */
    }
}

static int parse(struct fast *f)
{
    int rc = fill(f);
    if (rc != 0)
        return rc;
    if (f->have >= 3 && memcmp(text(f), "\xef\xbb\xbf", 3) == 0)
        return 1;                     /* a byte-order mark: libyajl's path skips it */
    long open = -1;   /* keys before the array beyond the first window: it grows up to PS_JSON_FAST_HEAD_MAX */
    while (!f->eof && (open = events_start(text(f), f->have)) < 0 && f->cap < PS_JSON_FAST_HEAD_MAX)
        if ((rc = grow(f)) != 0 || (rc = fill(f)) != 0)
            return rc;
    if (f->eof)
        return walk(f, PS_SIMD_WHOLE, text(f), f->have);
    if (open < 0)
        return 1;
    /* `{...,"traceEvents":[` + `]}` */
    size_t head = (size_t)open + 1;
    char saved[2] = { text(f)[head], text(f)[head + 1] };
    text(f)[head] = ']';
    text(f)[head + 1] = '}';
    rc = walk(f, PS_SIMD_HEAD, text(f), head + 2);
    text(f)[head] = saved[0];
    text(f)[head + 1] = saved[1];
    if (rc != 0)
        return rc;
    consume(f, head);
    return walk_events(f);
}

/* json_simd.cc is compiled for Haswell's instructions (analyzer/CMakeLists.txt): this CPU must have them. */
static int cpu_has_simd(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("pclmul") &&
           __builtin_cpu_supports("popcnt");
}

static int parse_fd(int fd, int gzip, const yajl_callbacks *cb, void *ctx, struct side *side)
{
    struct fast f = { .cap = PS_JSON_FAST_WINDOW, .cb = cb, .ctx = ctx, .side = side };
    int in_rc = ps_gz_open(fd, gzip, 256 * 1024, &f.in), simd_rc = ps_simd_new(PS_JSON_TOKEN_MAX, &f.simd);
    f.buf = malloc(LEAD + f.cap + 2 * ps_simd_padding());
    int rc = in_rc == 0 && simd_rc == 0 && f.buf ? parse(&f) : -ENOMEM;
    free(f.buf);
    ps_simd_free(f.simd);
    ps_gz_close(f.in);
    return rc;
}

int ps_json_fast_parse(int fd, int gzip, const yajl_callbacks *cb, void *ctx, int *declined)
{
    int rc = cpu_has_simd() ? parse_fd(fd, gzip, cb, ctx, NULL) : 1;
    *declined = rc == 1;
    return rc < 0 ? rc : 0;
}

int ps_json_fast_parse_side(int fd, int gzip, const yajl_callbacks *cb, void *ctx, const yajl_callbacks *side_cb,
                            void *side_ctx, int *declined, int *side_failed)
{
    *declined = 1;
    *side_failed = 1;
    if (!cpu_has_simd())
        return 0;
    struct side d = { .cb = side_cb, .ctx = side_ctx };
    int rc = ps_simd_new(PS_JSON_TOKEN_MAX, &d.simd);
    if (rc < 0)
        goto out;
    pthread_mutex_init(&d.mu, NULL);
    pthread_cond_init(&d.cv, NULL);
    d.inline_walk = pthread_create(&d.thread, NULL, side_main, &d) != 0;
    rc = parse_fd(fd, gzip, cb, ctx, &d);
    if (!d.inline_walk) {
        side_wait(&d);
        pthread_mutex_lock(&d.mu);
        d.stop = 1;
        pthread_cond_broadcast(&d.cv);
        pthread_mutex_unlock(&d.mu);
        pthread_join(d.thread, NULL);
    }
    pthread_mutex_destroy(&d.mu);
    pthread_cond_destroy(&d.cv);
out:
    *side_failed = d.failed || rc != 0;
    *declined = rc == 1;
    free(d.doc);
    ps_simd_free(d.simd);
    return rc < 0 ? rc : 0;
}
