/* Metric history for `perfscope top`'s sparklines, ncurses-free (unit-tested): a fixed ring of the last
 * TUI_HISTORY samples of one metric, each sample valid or not (an N/A sample draws as a blank, never as 0). */
#ifndef PS_TUI_HISTORY_H
#define PS_TUI_HISTORY_H

#include <stddef.h>

#define TUI_HISTORY 300     /* 5 minutes at the default 1 s refresh */

struct tui_history {
    double v[TUI_HISTORY];
    unsigned char valid[TUI_HISTORY];
    size_t head;            /* index of the next write */
    size_t n;               /* samples held, <= TUI_HISTORY */
};

void tui_history_push(struct tui_history *h, int valid, double v);
/* The i-th newest sample (0 = newest); returns 0 when i >= n or the sample is N/A, else 1 with *v. */
int tui_history_get(const struct tui_history *h, size_t i, double *v);

/* Draw the newest `cols` samples as a sparkline of the eight block characters U+2581..U+2588 (oldest left,
 * newest right; fewer samples: padded with spaces on the left; an N/A sample: a space). Heights scale from 0
 * to `max` (max <= 0: the largest valid sample shown; all zero then draws the lowest block). Writes UTF-8
 * (3 bytes a column) into buf, NUL-terminated; returns buf. */
const char *tui_sparkline(const struct tui_history *h, size_t cols, double max, char *buf, size_t len);
/* The same with the ASCII levels " .:-=+*#" (one byte a column), for terminals without UTF-8. */
const char *tui_sparkline_ascii(const struct tui_history *h, size_t cols, double max, char *buf, size_t len);

#endif
