/* Text from a trace as Markdown that shows literally (md_escape.h): escaped as the terminal shows it, then every
 * character Markdown or a GFM table could read as markup backslash-escaped. */
#include <stdlib.h>
#include <string.h>

#include "md/md_escape.h"
#include "ps_text_escape.h"

void ps_md_text(FILE *f, const char *s, size_t len)
{
    char small[512];
    char *cut = len < strlen(s) ? strndup(s, len) : NULL;
    const char *src = cut ? cut : s;
    size_t cap = 4 * strlen(src) + 1;
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf)
        buf = small, cap = sizeof small;
    ps_text_escape(src, buf, cap, NULL);
    for (const char *p = buf; *p; p++) {
        if (strchr("\\`*_[]<>|~&$", *p))
            fputc('\\', f);
        fputc(*p, f);
    }
    if (buf != small)
        free(buf);
    free(cut);
}

void ps_md_name(FILE *f, const char *s)
{
    char shown[PS_NAME_SHOWN_BYTES];
    s = ps_name_shown(s, shown, sizeof shown);
    ps_md_text(f, s, strlen(s));
}

void ps_md_prose(FILE *f, const char *s)
{
    ps_md_text(f, s, strlen(s));
}
