/* Metric history and sparklines (see history.h). */
#include "tui/history.h"

#include <string.h>

void tui_history_push(struct tui_history *h, int valid, double v)
{
    h->v[h->head] = valid ? v : 0;
    h->valid[h->head] = valid != 0;
    h->head = (h->head + 1) % TUI_HISTORY;
    if (h->n < TUI_HISTORY)
        h->n++;
}

int tui_history_get(const struct tui_history *h, size_t i, double *v)
{
    if (i >= h->n)
        return 0;
    size_t k = (h->head + TUI_HISTORY - 1 - i) % TUI_HISTORY;
    if (!h->valid[k])
        return 0;
    *v = h->v[k];
    return 1;
}

static const char *sparkline(const struct tui_history *h, size_t cols, double max, char *buf, size_t len, int ascii)
{
    /* U+2581 LOWER ONE EIGHTH BLOCK .. U+2588 FULL BLOCK: E2 96 81 .. E2 96 88 */
    size_t out = 0, shown = h->n < cols ? h->n : cols;
    double v;
    if (max <= 0) {
        max = 0;
        for (size_t i = 0; i < shown; i++)
            if (tui_history_get(h, i, &v) && v > max)
                max = v;
    }
    for (size_t c = 0; c < cols; c++) {
        size_t age = cols - 1 - c;      /* the rightmost column is the newest sample */
        if (age >= shown || !tui_history_get(h, age, &v)) {
            if (out + 1 >= len)
                break;
            buf[out++] = ' ';
            continue;
        }
        int level = max > 0 ? (int)(v / max * 8.0) : 0;   /* 0..8: 8 only at the maximum */
        if (level > 7)
            level = 7;
        if (level < 0)
            level = 0;
        if (ascii) {
            if (out + 1 >= len)
                break;
            buf[out++] = " .:-=+*#"[level];
            continue;
        }
        if (out + 3 >= len)
            break;
        buf[out++] = (char)0xE2;
        buf[out++] = (char)0x96;
        buf[out++] = (char)(0x81 + level);
    }
    if (len)
        buf[out < len ? out : len - 1] = '\0';
    return buf;
}

const char *tui_sparkline(const struct tui_history *h, size_t cols, double max, char *buf, size_t len)
{
    return sparkline(h, cols, max, buf, len, 0);
}

const char *tui_sparkline_ascii(const struct tui_history *h, size_t cols, double max, char *buf, size_t len)
{
    return sparkline(h, cols, max, buf, len, 1);
}
