/* Internal interface between the format dispatcher (reader.c) and the format readers
 * (read_sqlite.c, read_kineto.c, gz_input.c). Not used outside analyzer/. */
#ifndef PS_READER_IMPL_H
#define PS_READER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Each reader fills a fresh model `m` (created by reader.c) from `path`, without calling ps_model_finish.
 * Returns 0, or -1 with a one-line message in err (errlen bytes) that names the file and the place. */
int ps_read_sqlite(const char *path, struct ps_model *m, char *err, size_t errlen);
/* `fd` is open on `path` at offset 0; `gzip` says the content starts with the gzip magic 1f 8b. */
int ps_read_kineto(const char *path, int fd, int gzip, struct ps_model *m, char *err, size_t errlen);

/* printf into err, truncating; always NUL-terminates when errlen > 0. Returns -1 (for `return ps_read_fail(..)`). */
int ps_read_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Byte source for the JSON reader: plain or gzip (streamed through zlib), read chunk by chunk.
 * ps_gz_read returns bytes placed in buf (0 at a clean end), or -1 with a message in err naming
 * the compressed byte offset (truncated or corrupt gzip, read error). */
struct ps_gz_input;
struct ps_gz_input *ps_gz_open(int fd, int gzip);   /* NULL on out-of-memory; does not own fd */
long ps_gz_read(struct ps_gz_input *in, char *buf, size_t len, const char *path, char *err, size_t errlen);
void ps_gz_close(struct ps_gz_input *in);             /* NULL is a no-op */

/* Exact decimal-µs -> integer-ns conversion of a JSON number's text (no floating point):
 * "12.345" -> 12345, "1623143089861.123" -> 1623143089861123000, "1.5e3" -> 1500000.
 * Digits below 1 ns are rounded half to even. Returns 0, or -1 if the text is not a JSON number
 * or the result does not fit in int64. */
int ps_parse_us_to_ns(const char *s, size_t len, int64_t *out_ns);
/* Exact JSON integer (also "7.0", "1e3"); -1 if not an integer or out of int64 range. */
int ps_parse_int(const char *s, size_t len, int64_t *out);

#endif
