/* JSON text helpers for the Kineto reader. Exact conversion of number text to integers: timestamps in µs with
 * any number of decimals become integer ns without passing through a double (a double holds only ~16
 * significant digits: 1623143089861.123 µs would lose its last ns). And token-level scanning of the raw text:
 * whether a chunk ends inside a token, and where a libyajl error lies. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kineto_text.h"
#include "reader_impl.h"

#define MAX_DIGITS 38        /* 10^38 < 2^127: the mantissa fits an unsigned __int128 */

typedef unsigned __int128 u128;

/* Parse `s` as value * 10^scale. exact=1: fail unless the result is an integer; exact=0: round half to even. */
static int parse_scaled(const char *s, size_t len, int scale, int exact, int64_t *out)
{
    size_t i = 0;
    int neg = 0, ndigits = 0, sticky = 0;
    long dexp = scale;
    u128 mant = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    size_t int_start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ndigits < MAX_DIGITS) {
            mant = mant * 10 + (unsigned)(s[i] - '0');
            if (mant)
                ndigits++;
        } else {
            dexp++;                       /* integer digit beyond the mantissa: scale up instead */
            sticky |= s[i] != '0';
        }
        i++;
    }
    if (i == int_start || (s[int_start] == '0' && i - int_start > 1))
        return -EINVAL;                        /* JSON: no empty integer part, no leading zeros */
    if (i < len && s[i] == '.') {
        size_t frac_start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (ndigits < MAX_DIGITS) {
                mant = mant * 10 + (unsigned)(s[i] - '0');
                if (mant)
                    ndigits++;
                dexp--;
            } else {
                sticky |= s[i] != '0';
            }
            i++;
        }
        if (i == frac_start)
            return -EINVAL;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        long e = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t exp_start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
            i++;
        }
        if (i == exp_start)
            return -EINVAL;
        dexp += eneg ? -e : e;
    }
    if (i != len)
        return -EINVAL;
    if (mant == 0) {
        *out = 0;
        return exact && sticky ? -EINVAL : 0;
    }
    if (dexp > 0) {
        if (dexp > 19 || sticky)
            return -EINVAL;                    /* >= 10^19: beyond int64 (or dropped digits would be lost) */
        for (long k = 0; k < dexp; k++)
            mant *= 10;
    } else if (dexp < 0) {
        u128 p = 1;
        if (-dexp > MAX_DIGITS) {         /* the value is below 10^-1 of the unit: rounds to 0 */
            if (exact)
                return -EINVAL;
            *out = 0;
            return 0;
        }
        for (long k = 0; k < -dexp; k++)
            p *= 10;
        u128 q = mant / p, r = mant % p, half = p / 2;
        if (exact && (r || sticky))
            return -EINVAL;
        if (r > half || (r == half && (sticky || (q & 1))))
            q++;
        mant = q;
    } else if (exact && sticky) {
        return -EINVAL;
    }
    if (mant > (u128)INT64_MAX + (neg ? 1 : 0))
        return -EINVAL;
    *out = neg ? (int64_t)(0 - (uint64_t)mant) : (int64_t)mant;
    return 0;
}

int ps_parse_us_to_ns(const char *s, size_t len, int64_t *out_ns)
{
    return parse_scaled(s, len, 3, 0, out_ns);
}

int ps_parse_int(const char *s, size_t len, int64_t *out)
{
    return parse_scaled(s, len, 0, 1, out);
}

int ps_json_number_negative(const char *s, size_t len)
{
    if (len == 0 || s[0] != '-')
        return 0;
    for (size_t i = 1; i < len && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9')
            return 1;
    return 0;
}

/* ---- token scanning of the raw text ---- */

static int is_lit(unsigned char ch)
{
    return isalnum(ch) || ch == '.' || ch == '+' || ch == '-';
}

static int is_space(unsigned char ch)
{
    return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* Where a yajl error lies (see kineto_text.h). Lexical errors: yajl stops one past an invalid character or a bad
 * UTF-8 byte, and on the offending character otherwise. Grammar errors ("parse error: ...") are placed at the
 * first token after the last one yajl accepted (last_end), past one ',' or ':' where the error is about what
 * follows it; yajl's own offset for them is the token's end, its start, or inside it, depending on the error. */
long long ps_json_error_byte(const unsigned char *p, size_t n, size_t consumed, long long base, long long last_end,
                             const char *msg)
{
    if (strncmp(msg, "lexical error", 13) == 0) {
        int past = strstr(msg, "invalid char in json text") || strstr(msg, "invalid bytes in UTF8");
        return base + (long long)(past && consumed ? consumed - 1 : consumed);
    }
    size_t i = last_end > base ? (size_t)(last_end - base) : 0;
    unsigned char before = i ? p[i - 1] : '[';
    while (i < n && is_space(p[i]))
        i++;
    if ((strstr(msg, "unallowed token") || strstr(msg, "invalid object key")) && before != '[' && before != '{' &&
        i < n && (p[i] == ',' || p[i] == ':'))
        for (i++; i < n && is_space(p[i]); i++)
            ;
    return base + (long long)(i < n ? i : n);
}

static int hex_digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Stop the scan at a flaw; returns 0 (scan_string's "stop"). */
static int flaw(struct ps_json_scan *st, enum ps_json_flaw f, long long at)
{
    st->flaw = f;
    st->flaw_at = at;
    return 0;
}

/* One byte inside a string (the opening quote excluded), at offset `at` of the text: 1 to go on, 0 at a flaw. The
 * rules are those simdjson applies (json_simd.cc), so that both parsers take the same text: well-formed UTF-8
 * (ps_utf8_next), \u escapes of surrogates only in pairs (high, then low: RFC 8259 §7), at most PS_JSON_TOKEN_MAX
 * bytes. */
static int scan_string(struct ps_json_scan *st, unsigned char ch, long long at)
{
    if (++st->tok_len > PS_JSON_TOKEN_MAX && (ch != '"' || st->esc))   /* the closing quote is no byte of it */
        return flaw(st, PS_JSON_FLAW_LONG_STRING, st->tok_at);
    if (st->u8.need || ch >= 0x80) {
        if (!st->u8.need) {
            st->u8_at = at;
            st->u8_n = 0;
        }
        if (st->u8_n < 4)
            st->u8_bytes[st->u8_n++] = ch;
        if (!ps_utf8_next(&st->u8, ch)) {
            size_t off = 0;
            for (int i = 0; i < st->u8_n && off < sizeof st->flaw_text; i++)
                off += (size_t)snprintf(st->flaw_text + off, sizeof st->flaw_text - off, "%s0x%02X", i ? " " : "",
                                        st->u8_bytes[i]);
            return flaw(st, PS_JSON_FLAW_UTF8, st->u8_at);
        }
    }
    if (st->hex) {                                   /* the digits of a \uXXXX escape */
        int d = hex_digit(ch);
        if (d < 0) {
            st->hex = 0;                             /* not JSON: libyajl says so */
            return 1;
        }
        st->u = st->u << 4 | (unsigned)d;
        if (--st->hex)
            return 1;
        int is_high = st->u >= 0xD800 && st->u <= 0xDBFF, is_low = st->u >= 0xDC00 && st->u <= 0xDFFF;
        if (st->high == 2 && is_low) {
            st->high = 0;                            /* a pair: one character */
            return 1;
        }
        if (st->high || is_low) {                    /* a high half without its low one, or a low one alone */
            unsigned u = st->high ? st->high_u : st->u;
            snprintf(st->flaw_text, sizeof st->flaw_text, "\\u%04x", u);
            return flaw(st, PS_JSON_FLAW_SURROGATE, st->high ? st->high_at : st->esc_at);
        }
        if (is_high) {
            st->high = 1;
            st->high_u = st->u;
            st->high_at = st->esc_at;
        }
        return 1;
    }
    if (st->esc) {
        st->esc = 0;
        if (ch == 'u') {
            st->hex = 4;
            st->u = 0;
            if (st->high == 1)
                st->high = 2;
            return 1;
        }
    } else if (ch == '\\') {
        st->esc = 1;
        st->esc_at = at;
        return 1;
    } else if (ch == '"') {
        st->in_str = 0;
    }
    if (st->high) {                                   /* anything but "\u" after a high half */
        snprintf(st->flaw_text, sizeof st->flaw_text, "\\u%04x", st->high_u);
        return flaw(st, PS_JSON_FLAW_SURROGATE, st->high_at);
    }
    return 1;
}

size_t ps_json_scan_bytes(struct ps_json_scan *st, const unsigned char *p, size_t n, size_t base)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = p[i];
        long long at = st->at + (long long)i;
        if (st->in_str) {
            if (!scan_string(st, ch, at)) {
                st->at += (long long)i;
                return i;
            }
            continue;
        }
        if (ch == '"') {
            st->in_str = 1, st->in_lit = 0, st->tok_start = (long)(base + i);
            st->tok_at = at, st->tok_len = 0, st->high = 0, st->hex = 0;
        } else if (is_lit(ch)) {
            if (!st->in_lit)
                st->in_lit = 1, st->tok_start = (long)(base + i), st->tok_at = at, st->tok_len = 0;
            if (++st->tok_len > PS_JSON_TOKEN_MAX) {
                flaw(st, PS_JSON_FLAW_LONG_NUMBER, st->tok_at);
                st->at += (long long)i;
                return i;
            }
        } else {
            st->in_lit = 0;
        }
        if (!is_space(ch))
            st->last = ch;
    }
    if (st->in_str)
        st->last = '"';
    st->at += (long long)n;
    return n;
}

int ps_json_integer_text(const unsigned char *s, size_t len)
{
    size_t i = len > 1 && s[0] == '-';
    if (len - i == 0 || len - i > 20)
        return 0;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}
