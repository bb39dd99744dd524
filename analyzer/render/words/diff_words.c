/* `perfscope diff`'s sentences as text and Markdown word them (words.h): the change of the average step, the
 * step-to-step spread that decides whether it counts (analyses/diff.h), and the runs' file names. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/diff.h"
#include "words/words.h"

void ps_words_diff_step_change(FILE *f, const struct ps_diff *d)
{
    double rel = d->before.avg_ns > 0 ? 100.0 * (double)d->delta_ns / (double)d->before.avg_ns : 0;
    fprintf(f, "%.3f ms %s (%+.1f %%)", fabs((double)d->delta_ns / 1e6), d->delta_ns <= 0 ? "faster" : "slower", rel);
}

void ps_words_diff_spread(FILE *f, const struct ps_diff *d)
{
    if (isnan(d->se_ns))
        fprintf(f, "step-to-step spread unknown (a run with one step): changes under %.0f %% are not counted",
                100 * d->min_change);
    else
        fprintf(f, "step-to-step spread: sd %.3f ms before, %.3f ms after; the change counts beyond %.3f ms "
                   "(2 standard errors, at least %.0f %%)",
                d->before.sd_ns / 1e6, d->after.sd_ns / 1e6,
                fmax(2 * d->se_ns, d->min_change * (double)d->before.avg_ns) / 1e6, 100 * d->min_change);
}

int ps_words_diff_host_only(const struct ps_diff *d)
{
    return !d->before.has_gpu && !d->after.has_gpu;
}

const char *ps_words_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The byte offset of character `c` of s (a UTF-8 sequence one character), strlen(s) past its end. */
static size_t char_at(const char *s, size_t c)
{
    size_t b = 0;
    for (; s[b] && c > 0; c--)
        for (b++; (s[b] & 0xC0) == 0x80; b++)
            ;
    return b;
}

static size_t chars_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += (*s & 0xC0) != 0x80;
    return n;
}

/* Append characters [from, to) of s to out (NUL-terminated, room permitting). */
static void put_chars(char *out, size_t outlen, const char *s, size_t from, size_t to)
{
    size_t len = strlen(out), a = char_at(s, from), b = char_at(s, to);
    if (len + (b - a) + 1 > outlen)
        b = a + (outlen - len - 1);
    memcpy(out + len, s + a, b - a);
    out[len + b - a] = '\0';
}

void ps_words_distinct_cut(const char *const *names, size_t n, size_t i, size_t width, char *out, size_t outlen)
{
    const char *s = names[i];
    size_t len = chars_of(s);
    if (outlen == 0)
        return;
    out[0] = '\0';
    if (len <= width || width < 8) {
        put_chars(out, outlen, s, 0, len < width || width < 8 ? len : width);
        return;
    }
    size_t d = 0;   /* characters shared with the closest other name: s differs from every name at or before d */
    for (size_t j = 0; j < n; j++) {
        const char *t = names[j];
        size_t c = 0, b = 0;
        if (j == i || strcmp(s, t) == 0)
            continue;
        while (s[b] && s[b] == t[b]) {   /* whole characters: count the starts of sequences */
            c += (s[b] & 0xC0) != 0x80;
            b++;
        }
        while (b > 0 && (s[b] & 0xC0) == 0x80)   /* a sequence that differs within: back to its start */
            b--, c -= (s[b] & 0xC0) != 0x80;
        d = c > d ? c : d;
    }
    if (d < width - 1) {   /* the differing character is among the first width - 1 */
        put_chars(out, outlen, s, 0, width - 1);
        strncat(out, "~", outlen - strlen(out) - 1);
        return;
    }
    size_t head = width / 3, win = width - head - 2;   /* head '~' window '~' */
    size_t from = d > win * 2 / 3 ? d - win * 2 / 3 : 0;
    from = from < head ? head : from;
    put_chars(out, outlen, s, 0, head);
    strncat(out, "~", outlen - strlen(out) - 1);
    if (from + win + 1 >= len) {   /* the window reaches the end: no second '~' */
        put_chars(out, outlen, s, len - (win + 1), len);
        return;
    }
    put_chars(out, outlen, s, from, from + win);
    strncat(out, "~", outlen - strlen(out) - 1);
}
