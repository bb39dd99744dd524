/* Text from a trace in perfscope's HTML pages and their inline SVG: shown literally, never read as markup. What
 * every HTML writer (html/) prints names and sentences with. Private to analyzer/render/. */
#ifndef PS_RENDER_HTML_ESCAPE_H
#define PS_RENDER_HTML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Write `s` as HTML / XML text: & < > " ' as entities, control characters and invalid UTF-8 as
 * ps_text_escape shows them. At most `max_chars` characters (0: all), cut ones ending in "...". */
void ps_html_text(FILE *f, const char *s, size_t max_chars);
/* A name in an HTML cell: escaped (ps_html_text); one longer than PS_NAME_SHOWN_MAX characters shown shortened
 * (ps_name_shown) inside <span title="the whole name"> so hovering shows it whole. */
void ps_html_name(FILE *f, const char *s);

#endif
