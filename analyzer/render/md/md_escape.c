/* Text from a trace as Markdown that shows literally (md_escape.h): escaped as the terminal shows it, then every
 * character Markdown or a GFM table could read as markup backslash-escaped. */
#include <stdlib.h>
#include <string.h>

#include "md/md_escape.h"
#include "ps_text_escape.h"
#include "ps_utf8.h"

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

void ps_md_cell(FILE *f, const char *s, size_t max_bytes)
{
    size_t n = 0, len = strlen(s);
    while (n < len) {   /* whole characters (an invalid byte counts one) up to max_bytes */
        int k = ps_utf8_seq((const unsigned char *)s + n, len - n);
        size_t step = k > 0 ? (size_t)k : 1;
        if (n + step > max_bytes)
            break;
        n += step;
    }
    ps_md_text(f, s, n);
    if (n < len)
        fputs("…", f);
}

void ps_md_code(FILE *f, const char *s)
{
    char small[512];
    size_t cap = 4 * strlen(s) + 1, run = 0, longest = 0;
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf)
        buf = small, cap = sizeof small;
    size_t n = ps_text_escape(s, buf, cap, NULL);
    for (size_t i = 0; i < n; i++) {
        run = buf[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    int pad = n && (buf[0] == '`' || buf[n - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    fprintf(f, "%s%s%s", pad ? " " : "", buf, pad ? " " : "");
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (buf != small)
        free(buf);
}
