/* One JSON writer for everything perfscope prints as JSON (`report --format json`; `export` and `top
 * --snapshot json` are to use it too): yajl's generator does the escaping and checks the nesting; this module
 * adds perfscope's rules — each maximal invalid UTF-8 subpart becomes one U+FFFD (JSON text is UTF-8, RFC 8259
 * §8.1; common/ps_utf8.h), NaN and
 * infinities become null, doubles print with 6 significant digits — and a layout people can read: the root's
 * keys one per line, arrays of objects one object per line, everything else ", " / ": " on one line. */
#ifndef PS_JSON_WRITER_H
#define PS_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ps_jw;

/* A writer printing to `out` (not closed by the writer). NULL on out-of-memory. */
struct ps_jw *ps_jw_new(FILE *out);
/* End the document (a final newline) and free the writer. Returns 0; -EINVAL when the calls did not form one
 * complete JSON value (a generator error: a key outside a map, unclosed containers); -EIO when writing to
 * `out` failed. NULL is a no-op returning 0. */
int ps_jw_free(struct ps_jw *w);

/* Values. After the first error every call is a no-op (ps_jw_free reports it). */
void ps_jw_map_open(struct ps_jw *w);
void ps_jw_map_close(struct ps_jw *w);
void ps_jw_array_open(struct ps_jw *w);
void ps_jw_array_close(struct ps_jw *w);
void ps_jw_null(struct ps_jw *w);
void ps_jw_bool(struct ps_jw *w, int v);
void ps_jw_int(struct ps_jw *w, int64_t v);
void ps_jw_double(struct ps_jw *w, double v);             /* "%.6g"; NaN and +-inf: null */
void ps_jw_number(struct ps_jw *w, const char *num);      /* a number already formatted ("%.17g"): written as is */
void ps_jw_str(struct ps_jw *w, const char *s);           /* NULL: null */
void ps_jw_strn(struct ps_jw *w, const char *s, size_t len);   /* at most len bytes, up to a NUL */

/* A map key followed by its value. */
void ps_jw_key(struct ps_jw *w, const char *key);
void ps_jw_kint(struct ps_jw *w, const char *key, int64_t v);
void ps_jw_kdouble(struct ps_jw *w, const char *key, double v);
void ps_jw_kdouble_exact(struct ps_jw *w, const char *key, double v);   /* "%.17g": reads back the same double */
void ps_jw_kstr(struct ps_jw *w, const char *key, const char *s);   /* s NULL: null */
void ps_jw_kbool(struct ps_jw *w, const char *key, int v);
void ps_jw_knull(struct ps_jw *w, const char *key);
/* v when known (>= 0), else null: counts and durations the trace may not hold. */
void ps_jw_kint_or_null(struct ps_jw *w, const char *key, int64_t v);

#endif
