/* Text formatting for `perfscope top`, ncurses-free (unit-tested in tests/tui/test_tui_units.c): sizes, rates,
 * percentages and durations in fixed widths, N/A for values that are not known (never a fake 0), and
 * column-aware truncation and wrapping of UTF-8 text (every character counted one column: perfscope draws only
 * single-width ones). Each writer fills buf (always NUL-terminated when len > 0) and returns it. */
#ifndef PS_TUI_FORMAT_H
#define PS_TUI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TUI_NA "N/A"

/* Bytes in binary units with 3 significant digits: "512 B", "1.50 KiB", "16.0 GiB", "140 GiB". */
const char *tui_fmt_bytes(char *buf, size_t len, double bytes);
/* A rate in bytes per second: "1.50 MiB/s"; negative: N/A. */
const char *tui_fmt_rate(char *buf, size_t len, double bytes_per_s);
/* A percentage 0..100 with no decimals ("87%"), or N/A when !valid. */
const char *tui_fmt_pct(char *buf, size_t len, int valid, double pct);
/* A duration in ns: "850 ns", "12.3 us", "120.3 ms", "2.50 s", "3m05s". Negative: N/A. */
const char *tui_fmt_ns(char *buf, size_t len, int64_t ns);

/* Columns the text takes: one per well-formed UTF-8 character and one per maximal invalid subpart (drawn as
 * U+FFFD by tui_fit; common/ps_utf8.h decodes). */
size_t tui_text_cols(const char *s);
/* The bytes of the first `cols` columns of s (whole characters). */
size_t tui_text_bytes(const char *s, size_t cols);
/* Copy at most `cols` columns of s into buf (len bytes), never cutting a UTF-8 sequence and writing each maximal
 * invalid subpart as U+FFFD (names from /proc and traces are untrusted bytes); pads with spaces to exactly `cols`
 * columns when pad is set. */
const char *tui_fit(char *buf, size_t len, const char *s, size_t cols, int pad);

/* A file path in at most `cols` columns (cols >= 2): whole when it fits, else "…" and its last columns, from a '/'
 * where the kept tail holds one ("…/dir/run.sqlite"): the file's name is what tells recordings apart. */
const char *tui_fit_path(char *buf, size_t len, const char *path, size_t cols);

/* A bar of `width` columns filled to frac (0..1, clamped) with '|' and spaces: "[|||||     ]" is width + 2. */
const char *tui_bar(char *buf, size_t len, double frac, size_t width);

#endif
