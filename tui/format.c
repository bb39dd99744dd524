/* Formatting helpers (see format.h). */
#include "format.h"

#include <stdio.h>
#include <string.h>

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

size_t tui_text_cols(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

const char *tui_fit(char *buf, size_t len, const char *s, size_t cols, int pad)
{
    size_t out = 0, used = 0;
    if (!len)
        return buf;
    for (const unsigned char *p = (const unsigned char *)s; *p && used < cols;) {
        size_t n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
        size_t avail = strnlen((const char *)p, n);
        if (avail < n || out + n >= len)
            break;
        memcpy(buf + out, p, n);
        out += n;
        p += n;
        used++;
    }
    while (pad && used < cols && out + 1 < len) {
        buf[out++] = ' ';
        used++;
    }
    buf[out] = '\0';
    return buf;
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
