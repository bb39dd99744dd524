/* UTF-8 well-formedness and replacement (ps_utf8.h). */
#include "ps_utf8.h"

#include <stdlib.h>
#include <string.h>

/* Unicode Table 3-7: the length of the sequence a lead byte starts (0: c starts none) and the range of the byte
 * after it (the bytes after that one: 80..BF). */
static int lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
    *lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    *hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    return c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

int ps_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo, hi;
    if (c < 0x80)
        return 1;
    int len = lead(c, &lo, &hi);
    if (!len)
        return -1;
    if (n < 2 || s[1] < lo || s[1] > hi)
        return -1;
    for (int i = 2; i < len; i++)
        if ((size_t)i >= n || (s[i] & 0xC0) != 0x80)
            return -i;
    return len;
}

int ps_utf8_next(struct ps_utf8_stream *u, unsigned char c)
{
    if (u->need) {
        if (c < u->lo || c > u->hi) {
            u->need = 0;
            return 0;
        }
        u->need--;
        u->lo = 0x80;
        u->hi = 0xBF;
        return 1;
    }
    if (c < 0x80)
        return 1;
    int len = lead(c, &u->lo, &u->hi);
    u->need = (unsigned char)(len ? len - 1 : 0);
    return len != 0;
}

int ps_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        int k = ps_utf8_seq(u + i, n - i);
        if (k < 0)
            return 0;
        i += (size_t)k;
    }
    return 1;
}


/* The copy of ps_utf8_dup and ps_utf8_dup_nul: with `nul`, each PS_UTF8_NUL becomes a NUL byte. */
static char *dup_replacing(const char *s, size_t n, int nul, size_t *out_n)
{
    const unsigned char *u = (const unsigned char *)s;
    char *out = malloc(n * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        int k = ps_utf8_seq(u + i, n - i);
        if (k > 0) {
            memcpy(o, u + i, (size_t)k);
            o += k;
            i += (size_t)k;
        } else if (nul && n - i >= 2 && u[i] == 0xC0 && u[i + 1] == 0x80) {
            *o++ = '\0';
            i += 2;
        } else {
            memcpy(o, PS_UTF8_REPLACEMENT, 3);
            o += 3;
            i += (size_t)-k;
        }
    }
    *o = '\0';
    *out_n = (size_t)(o - out);
    return out;
}

char *ps_utf8_dup(const char *s, size_t n)
{
    size_t len;
    return dup_replacing(s, n, 0, &len);
}

char *ps_utf8_dup_nul(const char *s, size_t n, size_t *out_n)
{
    return dup_replacing(s, n, 1, out_n);
}
