/* The one reader of perfscope's Python hook's marks (docs/python.md "Marks", "Reading a mark"): which mark a
 * text is and the typed values of its `key=value` pairs, for every family that reads them (pytorch, memory,
 * ranks). The text comes from the trace file and is untrusted: lengths are bounded before anything is read,
 * numbers are parsed here digit by digit (no strtol: it skips spaces, takes '+' and saturates on overflow), and
 * nothing past the text's bytes is read. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "analyses/pytorch.h"
#include "model/model.h"

/* The subjects with a fixed phrase, as python/perfscope_hook writes them (core.mark's first argument);
 * "DataLoader#N" is matched apart. */
static const struct { const char *phrase; enum ps_hook_mark_kind kind; } SUBJECTS[] = {
    { "python hook", PS_HOOK_MARK_HOOK },                 /* torch_hooks.py _mark_hook */
    { "DataLoader epoch", PS_HOOK_MARK_EPOCH },           /* loader_hooks.py _mark_epoch */
    { "DataLoader worker", PS_HOOK_MARK_WORKER },         /* loader_hooks.py _mark_worker */
    { "distributed", PS_HOOK_MARK_DISTRIBUTED },          /* dist_hooks.py _mark_rank */
    { "process group", PS_HOOK_MARK_PROCESS_GROUP },      /* dist_hooks.py _group */
    { "collective", PS_HOOK_MARK_COLLECTIVE },            /* dist_hooks.py _describe, _wrap_broadcast_coalesced */
    { "DDP", PS_HOOK_MARK_DDP },                          /* dist_hooks.py _ddp_made */
    { "cuda memory", PS_HOOK_MARK_CUDA_MEMORY },          /* steps.py cuda_memory */
};
#define LOADER_PHRASE "DataLoader#"                       /* loader_hooks.py _mark_loader: "DataLoader#%d" */

/* Digits of s[0..n) as a number in [0, max] into *out: 0, or -EINVAL (no digit, another byte, or above max). */
static int digits(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (max - d) / 10)
            return -EINVAL;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int ps_hook_mark_parse(const char *text, struct ps_hook_mark *mk)
{
    *mk = (struct ps_hook_mark){ .loader = -1, .keys = "" };
    if (!text)
        return -ENOENT;
    size_t len = strnlen(text, PS_HOOK_MARK_MAX + 1);
    size_t subject = 0;
    for (size_t k = 0; k < sizeof SUBJECTS / sizeof SUBJECTS[0] && !subject; k++) {
        size_t n = strlen(SUBJECTS[k].phrase);
        if (len >= n && memcmp(text, SUBJECTS[k].phrase, n) == 0 && (n == len || text[n] == ' ')) {
            mk->kind = SUBJECTS[k].kind;
            subject = n;
        }
    }
    if (!subject && len >= strlen(LOADER_PHRASE) && memcmp(text, LOADER_PHRASE, strlen(LOADER_PHRASE)) == 0) {
        const char *d = text + strlen(LOADER_PHRASE);
        const char *space = memchr(d, ' ', len - strlen(LOADER_PHRASE));
        size_t nd = space ? (size_t)(space - d) : len - strlen(LOADER_PHRASE);
        uint64_t n;
        if (digits(d, nd, INT32_MAX, &n) < 0)
            return -EINVAL;               /* "DataLoader#" without its number: not a mark the hook writes */
        mk->kind = PS_HOOK_MARK_LOADER;
        mk->loader = (int32_t)n;
        subject = strlen(LOADER_PHRASE) + nd;
    }
    if (!subject)
        return -ENOENT;
    if (len > PS_HOOK_MARK_MAX) {         /* longer than the probe records: not the hook's */
        *mk = (struct ps_hook_mark){ .loader = -1, .keys = "" };
        return -EINVAL;
    }
    mk->keys = text + subject;            /* its space (if any) is skipped as a separator */
    mk->nkeys = len - subject;
    mk->cut = len >= PS_HOOK_MARK_CUT;
    return 0;
}

int ps_hook_mark_of(const struct ps_model *m, const struct ps_range *g, uint32_t *dom, struct ps_hook_mark *mk)
{
    *mk = (struct ps_hook_mark){ .loader = -1, .keys = "" };
    if (g->kind != PS_RANGE_NVTX_MARK || g->domain == PS_NONE)
        return -ENOENT;
    if (g->domain != *dom) {
        if (strcmp(ps_model_str(m, g->domain), PS_PYTHON_HOOK_DOMAIN) != 0)
            return -ENOENT;
        *dom = g->domain;
    }
    return ps_hook_mark_parse(ps_model_str(m, g->name), mk);
}

/* A key as a reader may ask for it: [a-z_]+, at most 64 bytes (docs/python.md: keys are [a-z_]+). */
static size_t key_len(const char *key)
{
    size_t n = 0;
    if (!key)
        return 0;
    for (; key[n]; n++)
        if (n == 64 || !((key[n] >= 'a' && key[n] <= 'z') || key[n] == '_'))
            return 0;
    return n;
}

int ps_hook_mark_value(const struct ps_hook_mark *mk, const char *key, const char **value, size_t *len)
{
    size_t kl = key_len(key);
    *value = NULL;
    *len = 0;
    if (!kl || !mk->keys)
        return -EINVAL;
    const char *s = mk->keys, *found = NULL;
    size_t n = mk->nkeys, i = 0, found_end = 0;
    int seen = 0;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && s[i] != ' ')
            i++;
        if (i == start)
            break;
        /* s[start..i) is one token: its key is what comes before its first '=' (all of it without one) */
        const char *eq = memchr(s + start, '=', i - start);
        size_t klen = eq ? (size_t)(eq - (s + start)) : i - start;
        if (klen == kl && memcmp(s + start, key, kl) == 0) {
            if (seen++)
                return -EINVAL;           /* written twice: which one holds is not known */
            found = eq;
            found_end = i;
        }
    }
    if (!seen)
        return -ENOENT;
    if (!found || (mk->cut && found_end == n))
        return -EINVAL;                   /* no '=', or the last token of a text the probe may have cut */
    const char *v = found + 1;
    size_t vl = (size_t)(s + found_end - v);
    if (vl == 0 || memchr(v, '=', vl))
        return -EINVAL;                   /* the hook writes `_` for an empty value and for an '=' */
    *value = v;
    *len = vl;
    return 0;
}

int ps_hook_mark_int(const struct ps_hook_mark *mk, const char *key, int64_t min, int64_t max, int64_t *out)
{
    const char *v;
    size_t n;
    int rc = ps_hook_mark_value(mk, key, &v, &n);
    if (rc < 0)
        return rc;
    if (min > max)
        return -EINVAL;
    int neg = v[0] == '-';
    uint64_t mag;
    /* |INT64_MIN| = INT64_MAX + 1 fits in uint64_t */
    if (digits(v + neg, n - (size_t)neg, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &mag) < 0)
        return -EINVAL;
    int64_t x = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    if (x < min || x > max)
        return -EINVAL;
    *out = x;
    return 0;
}

int64_t ps_hook_mark_int_or(const struct ps_hook_mark *mk, const char *key, int64_t min, int64_t max,
                            int64_t unknown)
{
    int64_t v;
    return ps_hook_mark_int(mk, key, min, max, &v) == 0 ? v : unknown;
}

int ps_hook_mark_flag(const struct ps_hook_mark *mk, const char *key, int *out)
{
    const char *v;
    size_t n;
    int rc = ps_hook_mark_value(mk, key, &v, &n);
    if (rc < 0)
        return rc;
    if (n != 1 || (v[0] != '0' && v[0] != '1'))
        return -EINVAL;
    *out = v[0] == '1';
    return 0;
}

int ps_hook_mark_str(const struct ps_hook_mark *mk, const char *key, char *out, size_t cap)
{
    const char *v;
    size_t n;
    if (cap == 0)
        return -EINVAL;
    out[0] = '\0';
    int rc = ps_hook_mark_value(mk, key, &v, &n);
    if (rc < 0)
        return rc;
    if (n >= cap)
        return -ENOSPC;
    memcpy(out, v, n);
    out[n] = '\0';
    return 0;
}
