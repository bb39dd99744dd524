/* Escaping of untrusted text before it reaches a terminal (ps_text_escape.h), over the UTF-8 decoder of ps_utf8.h. */
#include <stdio.h>
#include <string.h>

#include "ps_text_escape.h"
#include "ps_utf8.h"

/* The code point of a Unicode bidirectional formatting control at p (n bytes of valid UTF-8), or 0: U+061C,
 * U+200E/U+200F, U+202A..U+202E, U+2066..U+2069 (Unicode UAX #9 explicit formatting; the "Trojan Source"
 * spoofing characters, CVE-2021-42574). */
static unsigned bidi_control(const unsigned char *p, int n)
{
    unsigned cp;
    if (n == 2)
        cp = (unsigned)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
    else if (n == 3)
        cp = (unsigned)(p[0] & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
    else
        return 0;
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069))
        return cp;
    return 0;
}

size_t ps_text_escape(const char *s, char *out, size_t cap, size_t *chars)
{
    size_t o = 0, nchars = 0;
    char tmp[8];
    if (cap == 0)
        return 0;
    const unsigned char *end = (const unsigned char *)s + strlen(s);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = ps_utf8_seq(p, (size_t)(end - p));   /* < 0: an invalid subpart of -n bytes */
        const char *piece = tmp;
        size_t len;
        if (n < 0 && end - p >= 2 && p[0] == 0xC0 && p[1] == 0x80) {
            snprintf(tmp, sizeof tmp, "\\x00");          /* a NUL in the name (PS_UTF8_NUL) */
            n = 2;
        } else if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
            if (*p == '\n' || *p == '\t' || *p == '\r')
                snprintf(tmp, sizeof tmp, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
            else
                snprintf(tmp, sizeof tmp, "\\x%02x", *p);
        } else if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) {
            snprintf(tmp, sizeof tmp, "\\u%04x", p[1]);   /* C1 controls U+0080..U+009F (e.g. the 8-bit CSI) */
        } else if (bidi_control(p, n)) {
            snprintf(tmp, sizeof tmp, "\\u%04x", bidi_control(p, n));
        } else if (n < 0) {
            snprintf(tmp, sizeof tmp, "\\x%02x", *p);   /* each byte of the invalid subpart in turn */
            n = 1;
        } else {
            piece = (const char *)p;
        }
        len = piece == tmp ? strlen(tmp) : (size_t)n;
        if (o + len >= cap)
            break;
        memcpy(out + o, piece, len);
        o += len;
        nchars += piece == tmp ? len : 1;
        p += n;
    }
    out[o] = '\0';
    if (chars)
        *chars = nchars;
    return o;
}

/* Bytes of the first `chars` characters of s[0..n) (a well-formed UTF-8 sequence or one invalid byte each). */
static size_t char_bytes(const char *s, size_t n, size_t chars)
{
    size_t i = 0;
    for (size_t c = 0; c < chars && i < n; c++) {
        int k = ps_utf8_seq((const unsigned char *)s + i, n - i);
        i += k > 0 ? (size_t)k : 1;
    }
    return i;
}

const char *ps_name_shown(const char *s, char *buf, size_t len)
{
    size_t n = strlen(s), total = 0, i = 0;
    while (i < n && total <= PS_NAME_SHOWN_MAX) {
        int k = ps_utf8_seq((const unsigned char *)s + i, n - i);
        i += k > 0 ? (size_t)k : 1;
        total++;
    }
    if (total <= PS_NAME_SHOWN_MAX || len < PS_NAME_SHOWN_BYTES)
        return s;
    for (; i < n; total++) {
        int k = ps_utf8_seq((const unsigned char *)s + i, n - i);
        i += k > 0 ? (size_t)k : 1;
    }
    size_t head = char_bytes(s, n, PS_NAME_SHOWN_HEAD);
    size_t tail = char_bytes(s, n, total - PS_NAME_SHOWN_TAIL);
    snprintf(buf, len, "%.*s...[%zu characters]...%s", (int)head, s,
             total - PS_NAME_SHOWN_HEAD - PS_NAME_SHOWN_TAIL, s + tail);
    return buf;
}
