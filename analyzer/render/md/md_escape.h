/* Text from a trace in GitHub-flavoured Markdown: shown literally, never read as markup, never breaking a table.
 * What every Markdown writer (md/) prints names and sentences with. Private to analyzer/render/. */
#ifndef PS_RENDER_MD_ESCAPE_H
#define PS_RENDER_MD_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Markdown text for `s`: control characters and invalid UTF-8 as ps_text_escape writes them, then every
 * character Markdown or a GFM table could read as markup backslash-escaped (CommonMark: any ASCII punctuation
 * may be), so a kernel name "a|b<c>" stays one cell and shows as written. `len` bytes of s, or up to a NUL. */
void ps_md_text(FILE *f, const char *s, size_t len);
/* A name (NUL-terminated) as ps_md_text writes it, a long one shortened as ps_name_shown shortens it. */
void ps_md_name(FILE *f, const char *s);
/* Prose (a sentence that may quote names: messages, fixes, findings) escaped as ps_md_name escapes a name, but
 * whole: a sentence is never shortened. */
void ps_md_prose(FILE *f, const char *s);
/* A table cell of at most `max_bytes` bytes of s (never splitting a UTF-8 sequence), escaped as ps_md_text escapes,
 * and "…" when s was cut. */
void ps_md_cell(FILE *f, const char *s, size_t max_bytes);
/* `s` as an inline code span (outside a table): control characters and invalid UTF-8 as ps_text_escape writes them;
 * no backslash escape, which a code span would show, but a fence of one backtick more than the longest run of them
 * in s (CommonMark 6.1), with a space inside it when s starts or ends with a backtick. */
void ps_md_code(FILE *f, const char *s);

#endif
