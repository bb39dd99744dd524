/* Untrusted text (names from a trace, SQLite error messages) made safe to print on a terminal or in a report:
 * control characters, Unicode bidirectional controls and invalid UTF-8 become visible escapes, so a name can never
 * forge a report line, send a terminal escape sequence or reorder the text around it. */
#ifndef PS_TEXT_ESCAPE_H
#define PS_TEXT_ESCAPE_H

#include <stddef.h>

/* Copy NUL-terminated `s` into out (cap bytes, always NUL-terminated when cap > 0) for printing on a terminal:
 * \n \t \r as two characters, other control characters, DEL and invalid UTF-8 bytes as \xNN, C1 controls as
 * \u00NN, Unicode bidi controls (U+061C, U+200E/F, U+202A..E, U+2066..9) as \uNNNN. Stops before a piece that does
 * not fit. Returns the bytes written; *chars (may be NULL) gets the characters written (a UTF-8 sequence counts
 * one). */
size_t ps_text_escape(const char *s, char *out, size_t cap, size_t *chars);

/* Names longer than this many characters are shortened in the human formats (text, Markdown, HTML; JSON and HTML's
 * hover keep them whole): a templated kernel name can run to 100,000 characters. */
#define PS_NAME_SHOWN_MAX 160
#define PS_NAME_SHOWN_HEAD 110
#define PS_NAME_SHOWN_TAIL 30
#define PS_NAME_SHOWN_BYTES (4 * (PS_NAME_SHOWN_HEAD + PS_NAME_SHOWN_TAIL) + 64)

/* `s` as a human format shows a name: itself when it has at most PS_NAME_SHOWN_MAX characters (a UTF-8 sequence
 * or an invalid byte counts one), else its first PS_NAME_SHOWN_HEAD and last PS_NAME_SHOWN_TAIL characters around
 * "...[N characters]...", N the characters left out (so two names cut alike still differ by their length), written
 * into buf (len bytes, at least PS_NAME_SHOWN_BYTES) and returned. Raw text: escape it as the format does. */
const char *ps_name_shown(const char *s, char *buf, size_t len);

#endif
