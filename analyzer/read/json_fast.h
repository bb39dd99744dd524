/* The fast path of the JSON readers: simdjson (On-Demand API) over bounded windows of the text, driving the same
 * libyajl callbacks (yajl_callbacks, with yajl_number set) the streaming libyajl parse drives, in the same order,
 * so both give the same model. Private to analyzer/read/.
 *
 * The text is read (gzip inflated as it goes) into a window of at most PS_JSON_FAST_WINDOW_MAX bytes. A file that
 * fits in the first window is parsed whole. A longer one must be an object whose "traceEvents" array starts in
 * its first PS_JSON_FAST_HEAD_MAX bytes (the first window grows to find it): the keys before it are parsed as one
 * document, then the array's elements in chunks cut at the commas between them (found by a string-aware scan),
 * then the keys after it. Anything else (a bare array, an
 * element longer than the largest window, invalid JSON, a callback that cancels) stops the fast path: the caller
 * then reads the file again with libyajl, which gives the reader's own messages. So the fast path never decides
 * what an error says; it only makes valid traces fast. Peak memory: the window plus simdjson's index of it
 * (about 6 bytes per byte of the window), whatever the file's size. gzip text streams through zlib (ps_gz_read):
 * inflating it whole with libdeflate was measured slower (docs/readers.md, "Reading speed and memory"). */
#ifndef PS_JSON_FAST_H
#define PS_JSON_FAST_H

#include <stddef.h>
#include <yajl/yajl_parse.h>

#define PS_JSON_FAST_WINDOW (1 << 18)          /* bytes parsed per chunk (docs/readers.md: why 256 KiB) */
#define PS_JSON_FAST_HEAD_MAX (1 << 20)        /* "traceEvents" must start within this many bytes */
#define PS_JSON_FAST_WINDOW_MAX (64 << 20)     /* one element may need this much */

/* Parse the JSON read from fd (regular file at offset 0; gzip content when gzip) with callbacks cb on ctx.
 * Returns 0, or -ENOMEM. *declined: 0 when the whole text was parsed and every callback returned nonzero; 1 when
 * the fast path declined it and the caller must parse it again with libyajl (from offset 0, a fresh ctx and model:
 * callbacks may have run). */
int ps_json_fast_parse(int fd, int gzip, const yajl_callbacks *cb, void *ctx, int *declined);

/* ps_json_fast_parse with a second set of callbacks: side_cb on side_ctx gets the same calls in the same order,
 * on a thread of its own that walks a copy of each document while this thread walks the original (two readers
 * of one text for about the time of the slower one, on two cores). side_cb may return 0 to stop its own walk
 * (the rest of the text then goes to cb alone). *side_failed: 1 when side_cb did not get every call (it stopped,
 * the fast path declined the text, or the parse failed). Returns and sets *declined as ps_json_fast_parse (1: the
 * caller parses the text again with libyajl, for both sets). Without a thread (none could be started) side_cb runs
 * here, before cb. Peak memory: the window once more. */
int ps_json_fast_parse_side(int fd, int gzip, const yajl_callbacks *cb, void *ctx, const yajl_callbacks *side_cb,
                            void *side_ctx, int *declined, int *side_failed);

#endif
