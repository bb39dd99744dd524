/* Text styling for the text report (text_style.h): escaping names, ANSI colours, folding lines to 100
 * columns. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/base.h"   /* ps_names_base_len */

#include "ps_text_escape.h"
#include "ps_utf8.h"
#include "text_style.h"

void ps_sgr(FILE *f, int on, const char *sgr)
{
    if (on)
        fprintf(f, "\x1b[%sm", sgr);
}

void ps_sgr_end(FILE *f, int on)
{
    if (on)
        fputs("\x1b[0m", f);
}

/* Print escaped `buf` (more than `width` characters) as head...tail in `width` characters. */
static void name_cut(FILE *f, const char *buf, int width)
{
    int tail = (width - 3) / 2, head = width - 3 - tail;
    const char *p = buf;
    size_t len = strlen(buf);
    for (int i = 0; i < head && *p; i++) {   /* whole UTF-8 sequences (ps_text_escape left only well-formed ones) */
        int k = ps_utf8_seq((const unsigned char *)p, len - (size_t)(p - buf));
        p += k > 0 ? k : 1;
    }
    fwrite(buf, 1, (size_t)(p - buf), f);
    fputs("...", f);
    const char *q = buf + len;
    for (int i = 0; i < tail; i++) {
        do
            q--;
        while (q > p && ((unsigned char)*q & 0xC0) == 0x80);
    }
    fputs(q, f);
}

static void put_escaped(FILE *f, const char *s, int width);

void ps_put_name(FILE *f, const char *s, int width)
{
    char shown[PS_NAME_SHOWN_BYTES];
    put_escaped(f, width <= 0 ? ps_name_shown(s, shown, sizeof shown) : s, width);
}

void ps_put_text(FILE *f, const char *s)
{
    put_escaped(f, s, 0);
}

/* ps_put_name without the shortening of long names. */
static void put_escaped(FILE *f, const char *s, int width)
{
    char small[256];
    size_t nchars, cap = 4 * strlen(s) + 1;   /* an escape is at most 4 bytes per input byte */
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf) {                               /* out of memory: the escaped start of the name */
        buf = small;
        cap = sizeof small;
    }
    ps_text_escape(s, buf, cap, &nchars);
    if (width <= 0)
        fputs(buf, f);
    else if ((int)nchars <= width)
        fprintf(f, "%s%*s", buf, width - (int)nchars, "");
    else
        name_cut(f, buf, width);
    if (buf != small)
        free(buf);
}

/* Bytes of the SGR escape at p ("\x1b[...m"), 0 when there is none. Names are escaped before printing, so
 * every ESC in the report's text is one of ours. */
static size_t sgr_len(const char *p, const char *end)
{
    if (p + 1 >= end || p[0] != '\x1b' || p[1] != '[')
        return 0;
    const char *q = p + 2;
    while (q < end && *q != 'm')
        q++;
    return q < end ? (size_t)(q - p + 1) : 0;
}

/* Fold one line [p, end) (no '\n'). */
static void fold_line(FILE *out, const char *p, const char *end, size_t width)
{
    size_t indent = 0;
    while (p + indent < end && p[indent] == ' ')
        indent++;
    size_t hang = indent + 2 > 24 ? 24 : indent + 2, lead = 0;
    while (p < end) {
        /* the longest prefix that fits in width - lead columns, and the best break in it */
        size_t cols = lead;
        const char *q = p, *space = NULL, *punct = NULL;
        int quoted = 0;   /* inside 'a quoted command': kept on one line so it can be copied */
        const char *quote_start = NULL, *whole = NULL;
        while (q < end) {
            size_t k = sgr_len(q, end);
            if (k) {
                q += k;
                continue;
            }
            size_t n = 1;
            while (q + n < end && ((unsigned char)q[n] & 0xC0) == 0x80)
                n++;
            if (cols + 1 > width) {
                if (quoted && quote_start == p) {   /* a command longer than a line: whole, on a line of its own */
                    const char *close = memchr(q, '\'', (size_t)(end - q));
                    whole = close ? close + 1 : end;
                }
                break;
            }
            if (*q == '\'' && (quoted || q == p || q[-1] == ' ')) {
                quoted = !quoted;
                quote_start = quoted ? q : quote_start;
            }
            if (*q == ' ' && q > p && q[1] != '%' && !quoted)   /* "45.53 %" stays together */
                space = q;
            else if (strchr(",;(<", *q) && q + 1 < end)
                punct = q + 1;
            cols++;
            q += n;
        }
        if (q >= end) {
            fprintf(out, "%*s", (int)lead, "");
            fwrite(p, 1, (size_t)(end - p), out);
            break;
        }
        /* a space early in the line before one long word (a C++ kernel name): break inside the word instead */
        if (space && punct && punct > space && (size_t)(space - p) < width / 2)
            space = NULL;
        const char *cut = whole ? whole : space && space > p + (lead ? 0 : indent) ? space : punct && punct > p ? punct : q;
        if (cut == p)
            cut = q > p ? q : p + 1;
        fprintf(out, "%*s", (int)lead, "");
        fwrite(p, 1, (size_t)(cut - p), out);
        fputc('\n', out);
        p = cut;
        while (p < end && *p == ' ')
            p++;
        lead = hang;
    }
    fputc('\n', out);
}

int ps_text_fold(FILE *out, const char *text, size_t len, size_t width)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (width == 0) {
            fwrite(p, 1, (size_t)(e - p), out);
            if (nl)
                fputc('\n', out);
        } else if (nl || e > p) {
            fold_line(out, p, e, width);
        }
        p = nl ? nl + 1 : end;
    }
    return ferror(out) ? -EIO : 0;
}

void ps_text_row_name(FILE *f, size_t numbers_cols, const char *name)
{
    char small[256], shown[PS_NAME_SHOWN_BYTES];
    name = ps_name_shown(name, shown, sizeof shown);
    size_t cap = 4 * strlen(name) + 1, nchars;
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf)
        buf = small, cap = sizeof small;
    ps_text_escape(name, buf, cap, &nchars);
    if (numbers_cols + 2 + nchars <= PS_TEXT_WIDTH)
        fprintf(f, "  %s\n", buf);
    else
        fprintf(f, "\n  %s\n", buf);
    if (buf != small)
        free(buf);
}

void ps_text_share(FILE *f, int64_t part, int64_t whole, int width)
{
    char buf[32];
    if (whole > 0)
        snprintf(buf, sizeof buf, "%.2f%%", 100.0 * (double)part / (double)whole);
    else
        snprintf(buf, sizeof buf, "N/A");
    fprintf(f, " %*s", width, buf);
}

void ps_text_base_name(FILE *f, const char *s)
{
    size_t len = ps_names_base_len(s);
    char *base = s[len] ? strndup(s, len) : NULL;
    ps_put_name(f, base ? base : s, 0);
    free(base);
}
