/* Text from a trace as HTML / XML text that shows literally (html_escape.h). */
#include <stdlib.h>
#include <string.h>

#include "html/html_escape.h"
#include "ps_text_escape.h"

void ps_html_text(FILE *f, const char *s, size_t max_chars)
{
    char small[512];
    size_t cap = 4 * strlen(s) + 1, chars = 0;
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf)
        buf = small, cap = sizeof small;
    ps_text_escape(s, buf, cap, NULL);
    for (const char *p = buf; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80 && max_chars && ++chars > max_chars) {
            fputs("...", f);
            break;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    }
    if (buf != small)
        free(buf);
}

void ps_html_name(FILE *f, const char *s)
{
    char shown[PS_NAME_SHOWN_BYTES];
    const char *cut = ps_name_shown(s, shown, sizeof shown);
    if (cut == s) {
        ps_html_text(f, s, 0);
        return;
    }
    fputs("<span title=\"", f);
    ps_html_text(f, s, 0);
    fputs("\">", f);
    ps_html_text(f, cut, 0);
    fputs("</span>", f);
}
