/* UTF-8 decoding of untrusted text: what is well-formed (RFC 3629 §4, Unicode Table 3-7: no overlong forms, no
 * UTF-16 surrogates, nothing above U+10FFFF) and one replacement policy for what is not — each maximal invalid
 * subpart becomes one U+FFFD (Unicode ch. 3, "U+FFFD Substitution of Maximal Subparts", as Python's
 * decode(errors='replace') does). The collector's trace rows, the analyzer's JSON writer and Perfetto export, the
 * text for terminals (ps_text_escape, the text report's columns) and top's screen (tui/format.c) decode with it. */
#ifndef PS_UTF8_H
#define PS_UTF8_H

#include <stddef.h>

/* The sequence at s[0..n), n >= 1: its length (1-4) when well-formed, else minus the length of its maximal
 * invalid subpart (the lead byte and the continuation bytes that fit it; at least 1). */
int ps_utf8_seq(const unsigned char *s, size_t n);
/* 1 when s[0..n) is well-formed UTF-8, else 0. */
int ps_utf8_valid(const char *s, size_t n);
/* The same rule for text that arrives in pieces (a parser's chunks), one byte at a time. Zero-initialise; `need` is
 * the number of continuation bytes the sequence under way still needs (0: the bytes so far are whole, well-formed
 * text; text that ends with need > 0 is cut inside a sequence). ps_utf8_next takes the next byte: 1 while the bytes
 * so far are well-formed or end inside a sequence that may still be, 0 at the first byte that makes them
 * ill-formed (a byte no sequence starts with, or one that does not fit the sequence under way); the state is then
 * that of a new sequence. */
struct ps_utf8_stream {
    unsigned char need, lo, hi;   /* lo..hi: the range of the next byte while need > 0 */
};
int ps_utf8_next(struct ps_utf8_stream *u, unsigned char c);
/* A NUL-terminated copy of s[0..n) with each maximal invalid subpart replaced by U+FFFD (EF BF BD).
 * malloc'd (the caller frees); NULL on out-of-memory. */
char *ps_utf8_dup(const char *s, size_t n);

#define PS_UTF8_REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD */

/* A NUL byte inside text read from a trace, as the analyzer's C strings hold it: the two-byte overlong form of
 * U+0000 that "Modified UTF-8" uses for the same purpose (Java's DataInput, JNI). Never well-formed UTF-8, so it
 * cannot be confused with printable text such as the four characters \x00; ps_text_escape shows it as \x00 and
 * the JSON writer writes it as \u0000. */
#define PS_UTF8_NUL "\xC0\x80"

/* ps_utf8_dup, but each PS_UTF8_NUL written as a NUL byte; *out_n gets the copy's length (NULs included). */
char *ps_utf8_dup_nul(const char *s, size_t n, size_t *out_n);

#endif
