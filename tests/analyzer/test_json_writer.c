/* The shared JSON writer (render/json_writer.h): what it writes parses back with yajl's own parser to the
 * values given; text that is not UTF-8 becomes U+FFFD; control characters, quotes and backslashes are
 * escaped; NaN and infinities are null; a malformed sequence of calls is an error, never half a document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "check.h"
#include "render/json_writer.h"

/* Write with `fn` into memory; returns the text (caller frees) and the writer's result in *rc. */
static char *write_doc(void (*fn)(struct ps_jw *), int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct ps_jw *w = ps_jw_new(f);
    fn(w);
    *rc = ps_jw_free(w);
    fclose(f);
    return buf;
}

static void values(struct ps_jw *w)
{
    ps_jw_map_open(w);
    ps_jw_kint(w, "big", 9007199254740993ll);            /* 2^53 + 1: integers exact, not via double */
    ps_jw_kint(w, "neg", -42);
    ps_jw_kdouble(w, "share", 0.3333333333);             /* 6 significant digits: 0.333333 */
    ps_jw_kdouble(w, "nan", 0.0 / 0.0);
    ps_jw_kdouble(w, "inf", 1.0 / 0.0);
    ps_jw_kstr(w, "latin1", "a\xff" "b");                /* invalid byte -> U+FFFD */
    ps_jw_kstr(w, "cut", "w-\xe3\x83");                  /* a sequence cut short: one maximal subpart -> U+FFFD */
    ps_jw_kstr(w, "surrogate", "\xed\xa0\x80");          /* CESU surrogate: 3 x U+FFFD (Python's decode too) */
    ps_jw_kstr(w, "ctl", "q\"b\\n\n\t\x01,:{}[]");       /* escapes, and separators inside a string */
    ps_jw_kstr(w, "cjk", "データ");
    ps_jw_knull(w, "none");
    ps_jw_kbool(w, "yes", 1);
    ps_jw_key(w, "objs");
    ps_jw_array_open(w);
    for (int i = 0; i < 2; i++) {
        ps_jw_map_open(w);
        ps_jw_kint(w, "i", i);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "strs");
    ps_jw_array_open(w);
    ps_jw_str(w, ",");
    ps_jw_str(w, "]");
    ps_jw_array_close(w);
    ps_jw_key(w, "empty");
    ps_jw_array_open(w);
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

static void unclosed(struct ps_jw *w)
{
    ps_jw_map_open(w);
    ps_jw_kint(w, "a", 1);
}

static void key_in_array(struct ps_jw *w)
{
    ps_jw_array_open(w);
    ps_jw_map_close(w);   /* closes a map that is not open: a generator error */
}

static const char *str_at(yajl_val root, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(root, path, yajl_t_string);
    return v ? YAJL_GET_STRING(v) : "(missing)";
}

int main(void)
{
    int rc;
    char err[256];
    char *doc = write_doc(values, &rc);
    CHECK_EQ("writer result", rc, 0);
    yajl_val root = yajl_tree_parse(doc, err, sizeof err);
    CHECK(root != NULL, "the document does not parse: %s\n%s", err, doc);
    if (root) {
        const char *big[] = { "big", NULL }, *share[] = { "share", NULL }, *nan[] = { "nan", NULL },
                   *inf[] = { "inf", NULL }, *objs[] = { "objs", NULL }, *strs[] = { "strs", NULL };
        yajl_val v = yajl_tree_get(root, big, yajl_t_number);
        CHECK(v && YAJL_IS_INTEGER(v) && YAJL_GET_INTEGER(v) == 9007199254740993ll, "big integer not exact");
        CHECK(strstr(doc, "\"share\": 0.333333,") != NULL, "share not with 6 digits: %s", doc);
        CHECK(yajl_tree_get(root, share, yajl_t_number) != NULL, "share not a number");
        CHECK(YAJL_IS_NULL(yajl_tree_get(root, nan, yajl_t_any)), "NaN is not null");
        CHECK(YAJL_IS_NULL(yajl_tree_get(root, inf, yajl_t_any)), "inf is not null");
        CHECK(!strcmp(str_at(root, "latin1"), "a\xef\xbf\xbd" "b"), "latin1: %s", str_at(root, "latin1"));
        /* Python: b'w-\xe3\x83'.decode('utf-8', 'replace') == 'w-\ufffd' */
        CHECK(!strcmp(str_at(root, "cut"), "w-\xef\xbf\xbd"), "cut: %s", str_at(root, "cut"));
        CHECK(!strcmp(str_at(root, "surrogate"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"), "surrogate: %s",
              str_at(root, "surrogate"));
        CHECK(!strcmp(str_at(root, "ctl"), "q\"b\\n\n\t\x01,:{}[]"), "control characters: %s", str_at(root, "ctl"));
        CHECK(!strcmp(str_at(root, "cjk"), "データ"), "UTF-8 changed");
        CHECK(strstr(doc, "\"q\\\"b\\\\n\\n\\t\\u0001,:{}[]\"") != NULL, "escapes or separators in strings: %s", doc);
        v = yajl_tree_get(root, objs, yajl_t_array);
        CHECK(v && YAJL_GET_ARRAY(v)->len == 2, "objs");
        v = yajl_tree_get(root, strs, yajl_t_array);
        const char *first = v && YAJL_GET_ARRAY(v)->len == 2 ? YAJL_GET_STRING(YAJL_GET_ARRAY(v)->values[0]) : NULL;
        CHECK(first && !strcmp(first, ","), "strs");
    }
    /* layout: the root's keys one per line, objects of a root array one per line, strings inline */
    CHECK(!strncmp(doc, "{\n  \"big\": 9007199254740993,\n  \"neg\": -42,\n", 42), "layout: %.60s", doc);
    CHECK(strstr(doc, "\"objs\": [\n    {\"i\": 0},\n    {\"i\": 1}],\n") != NULL, "array of objects: %s", doc);
    CHECK(strstr(doc, "\"strs\": [\",\", \"]\"],\n  \"empty\": []\n}\n") != NULL, "inline arrays: %s", doc);
    yajl_tree_free(root);
    free(doc);

    doc = write_doc(unclosed, &rc);
    CHECK(rc < 0, "an unclosed document is not an error");
    free(doc);
    doc = write_doc(key_in_array, &rc);
    CHECK(rc < 0, "closing a map inside an array is not an error");
    free(doc);
    CHECK_EQ("ps_jw_free(NULL)", ps_jw_free(NULL), 0);
    return check_failures ? 1 : 0;
}
