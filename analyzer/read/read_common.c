/* What every reader shares (reader_impl.h): the one-line error and out-of-memory messages, the count of events that
 * could not be placed in the model, and trace text with its NUL bytes kept. The lowest file of the readers: it calls
 * none of them, only the model. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_utf8.h"
#include "reader_impl.h"

int ps_read_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

int ps_read_oom(char *err, size_t errlen, const char *path)
{
    ps_read_fail(err, errlen, "%s: out of memory", path);
    return -ENOMEM;
}

void ps_unplaced_count(struct ps_unplaced *u, struct ps_model *m, const char *what)
{
    m->unplaced_events++;
    for (int i = 0; i < u->n; i++)
        if (strcmp(u->kinds[i].what, what) == 0) {
            u->kinds[i].count++;
            return;
        }
    int i = u->n < PS_UNPLACED_KINDS - 1 ? u->n++ : PS_UNPLACED_KINDS - 1;   /* the last slot is "other" */
    if (i == PS_UNPLACED_KINDS - 1) {
        u->n = PS_UNPLACED_KINDS;
        what = "other";
    }
    snprintf(u->kinds[i].what, sizeof u->kinds[i].what, "%s", what);
    u->kinds[i].count++;
}

int ps_unplaced_summary(const struct ps_unplaced *u, struct ps_model *m)
{
    char summary[PS_UNPLACED_KINDS * 100];
    size_t off = 0;
    if (u->n == 0)
        return 0;
    for (int i = 0; i < u->n && off < sizeof summary; i++)
        off += (size_t)snprintf(summary + off, sizeof summary - off, "%s%s: %lld", i ? "; " : "", u->kinds[i].what,
                                u->kinds[i].count);
    return ps_model_add_meta(m, "unplaced_events", summary);
}

size_t ps_nul_escape(char *out, const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\0') {
            if (out)
                out[n] = s[i];
            n++;
            continue;
        }
        if (out)
            memcpy(out + n, PS_UTF8_NUL, 2);
        n += 2;
    }
    if (out)
        out[n] = '\0';
    return n;
}

int ps_nul_escape_into(char **buf, size_t *cap, size_t *n, const char *s, size_t len)
{
    size_t need = ps_nul_escape(NULL, s, len) + 1;
    if (need > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < need)
            c *= 2;
        char *grown = realloc(*buf, c);
        if (!grown)
            return -ENOMEM;
        *buf = grown;
        *cap = c;
    }
    *n = ps_nul_escape(*buf, s, len);
    return 0;
}

int ps_nul_escape_dup(const char *s, size_t len, char **out)
{
    *out = malloc(ps_nul_escape(NULL, s, len) + 1);
    if (!*out)
        return -ENOMEM;
    ps_nul_escape(*out, s, len);
    return 0;
}

uint32_t ps_intern_bytes(struct ps_model *m, const char *s, size_t len)
{
    if (!memchr(s, '\0', len))
        return ps_model_intern(m, s, len);
    char *e;
    uint32_t v = ps_nul_escape_dup(s, len, &e) == 0 ? ps_model_intern(m, e, strlen(e)) : PS_NONE;
    free(e);
    return v;
}
