/* UTF-8 validation and repair for every TEXT the collector stores (see rows.h: ps_rows_utf8_valid,
 * ps_rows_utf8_dup): file names, command lines and NVTX texts are bytes on Linux. */
#include <stdlib.h>
#include <string.h>

#include "rows.h"

/* The UTF-8 sequence at s[0..n), n >= 1: its length (1-4) when valid, else minus the length of its
 * maximal invalid subpart (the lead byte and the continuation bytes that fit it; at least 1), so that each
 * such subpart becomes one U+FFFD as the Unicode Standard recommends (ch. 3, "U+FFFD Substitution of
 * Maximal Subparts") and Python's decode(errors='replace') does. Overlong forms, UTF-16 surrogates and
 * values above U+10FFFF are invalid (RFC 3629 §4, Table 3-7 of the Unicode Standard). */
static int utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len)
        return -1;
    unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (n < 2 || s[1] < lo || s[1] > hi)
        return -1;
    for (int i = 2; i < len; i++)
        if ((size_t)i >= n || (s[i] & 0xC0) != 0x80)
            return -i;
    return len;
}

int ps_rows_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        int k = utf8_seq(u + i, n - i);
        if (k < 0)
            return 0;
        i += (size_t)k;
    }
    return 1;
}

char *ps_rows_utf8_dup(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    char *out = malloc(n * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        int k = utf8_seq(u + i, n - i);
        if (k > 0) {
            memcpy(o, u + i, (size_t)k);
            o += k;
            i += (size_t)k;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += (size_t)-k;
        }
    }
    *o = '\0';
    return out;
}
