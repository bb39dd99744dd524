/* The simdjson walk of one document of a window (json_simd.cc, the readers' only C++), for the JSON fast path
 * (json_fast.c): each value handed to libyajl-style callbacks in document order. Private to analyzer/read/. */
#ifndef PS_JSON_SIMD_H
#define PS_JSON_SIMD_H

#include <stddef.h>
#include <yajl/yajl_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ps_simd_mode {
    PS_SIMD_WHOLE,    /* one JSON text: every value, then nothing but whitespace */
    PS_SIMD_HEAD,     /* `{...,"traceEvents":[]}`: callbacks up to the start of the first top-level "traceEvents"
                       * array, then stop */
    PS_SIMD_ELEMENTS, /* `[e1,e2,...]`: each element's callbacks, none for the brackets */
    PS_SIMD_TAIL      /* `{"traceEvents":[],...}`: the array's end, the keys after it, the object's end */
};
struct ps_simd;
/* A simdjson parser whose walks decline a string or number of more than token_max bytes (a string's between its
 * quotes, as in the text: kineto_text.h PS_JSON_TOKEN_MAX), which libyajl's read then refuses: 0 and *out
 * (ps_simd_free it), or -ENOMEM. */
int ps_simd_new(size_t token_max, struct ps_simd **out);
void ps_simd_free(struct ps_simd *s);
/* Bytes that must be readable after a document (simdjson's padding). */
size_t ps_simd_padding(void);
/* Walk doc[0..len) in `mode` (doc + len + ps_simd_padding() readable): 1 when it was walked and every callback
 * returned nonzero, 0 when the fast path declines it (invalid JSON, JSON it leaves to libyajl, a callback that
 * cancelled). Cannot fail otherwise. */
int ps_simd_walk(struct ps_simd *s, enum ps_simd_mode mode, const char *doc, size_t len, const yajl_callbacks *cb,
                 void *ctx);

#ifdef __cplusplus
}
#endif

#endif
