/* Formatting helpers (see format.h). */
#include "format.h"

#include <stdio.h>
#include <string.h>

#include "ps_utf8.h"

const char *tui_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    if (bytes < 0) {
        snprintf(buf, len, TUI_NA);
        return buf;
    }
    size_t u = 0;
    while (bytes >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f B", bytes);
    else if (bytes >= 99.95)
        snprintf(buf, len, "%.0f %s", bytes, units[u]);
    else if (bytes >= 9.995)
        snprintf(buf, len, "%.1f %s", bytes, units[u]);
    else
        snprintf(buf, len, "%.2f %s", bytes, units[u]);
    return buf;
}

const char *tui_fmt_rate(char *buf, size_t len, double bytes_per_s)
{
    if (bytes_per_s < 0) {
        snprintf(buf, len, TUI_NA);
        return buf;
    }
    char b[32];
    snprintf(buf, len, "%s/s", tui_fmt_bytes(b, sizeof b, bytes_per_s));
    return buf;
}

const char *tui_fmt_pct(char *buf, size_t len, int valid, double pct)
{
    if (!valid || pct != pct)
        snprintf(buf, len, TUI_NA);
    else
        snprintf(buf, len, "%.0f%%", pct);
    return buf;
}

const char *tui_fmt_ns(char *buf, size_t len, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, len, TUI_NA);
    else if (ns < 1000)
        snprintf(buf, len, "%lld ns", (long long)ns);
    else if (ns < 1000000)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else if (ns < 60000000000ll)
        snprintf(buf, len, "%.2f s", ns / 1e9);
    else
        snprintf(buf, len, "%lldm%02llds", (long long)(ns / 60000000000ll), (long long)(ns / 1000000000 % 60));
    return buf;
}

/* The next column of s[0..n), n >= 1: its bytes in s, and whether they are a well-formed character (else a
 * maximal invalid subpart, drawn as one U+FFFD: common/ps_utf8.h). */
static size_t next_column(const char *s, size_t n, int *valid)
{
    int k = ps_utf8_seq((const unsigned char *)s, n);
    *valid = k > 0;
    return (size_t)(k > 0 ? k : -k);
}

size_t tui_text_cols(const char *s)
{
    size_t cols = 0, n = strlen(s);
    for (size_t i = 0; i < n; cols++) {
        int valid;
        i += next_column(s + i, n - i, &valid);
    }
    return cols;
}

size_t tui_text_bytes(const char *s, size_t cols)
{
    size_t i = 0, n = strlen(s);
    for (size_t c = 0; c < cols && i < n; c++) {
        int valid;
        i += next_column(s + i, n - i, &valid);
    }
    return i;
}

const char *tui_fit(char *buf, size_t len, const char *s, size_t cols, int pad)
{
    size_t out = 0, used = 0, n = strlen(s);
    if (!len)
        return buf;
    for (size_t i = 0; i < n && used < cols; used++) {
        int valid;
        size_t k = next_column(s + i, n - i, &valid);
        const char *put = valid ? s + i : PS_UTF8_REPLACEMENT;
        size_t put_len = valid ? k : sizeof PS_UTF8_REPLACEMENT - 1;
        if (out + put_len >= len)
            break;
        memcpy(buf + out, put, put_len);
        out += put_len;
        i += k;
    }
    while (pad && used < cols && out + 1 < len) {
        buf[out++] = ' ';
        used++;
    }
    buf[out] = '\0';
    return buf;
}

const char *tui_fit_path(char *buf, size_t len, const char *path, size_t cols)
{
    size_t total = tui_text_cols(path);
    if (total <= cols || cols < 2)
        return tui_fit(buf, len, path, cols, 0);
    const char *tail = path + tui_text_bytes(path, total - (cols - 1));
    const char *slash = strchr(tail, '/');
    if (slash && slash[1])
        tail = slash;
    char shown[4096];
    snprintf(shown, sizeof shown, "\xE2\x80\xA6%s", tail);   /* U+2026 HORIZONTAL ELLIPSIS */
    return tui_fit(buf, len, shown, cols, 0);
}

const char *tui_bar(char *buf, size_t len, double frac, size_t width)
{
    if (!(frac >= 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    size_t fill = (size_t)(frac * (double)width + 0.5), out = 0;
    if (len < width + 3) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    buf[out++] = '[';
    for (size_t i = 0; i < width; i++)
        buf[out++] = i < fill ? '|' : ' ';
    buf[out++] = ']';
    buf[out] = '\0';
    return buf;
}
