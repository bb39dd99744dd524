// The simdjson side of the JSON readers' fast path (json_fast.h), declared in json_simd.h: one document of a window
// walked with simdjson's On-Demand API (https://simdjson.github.io/simdjson/md_doc_basics.html), each value handed to
// libyajl-style callbacks in document order, as libyajl's own parse would hand them. Every value is visited, so every
// scalar is checked as libyajl checks it: strings are unescaped (simdjson validates UTF-8 and rejects raw control
// characters), numbers are matched against RFC 8259 §6's grammar and passed as their text (yajl_number), and true /
// false / null must be exactly those words. The only C++ of the readers; errors are simdjson's error codes (no
// exceptions cross into C).
#include <simdjson.h>

#include <cerrno>
#include <new>
#include <string_view>
#include <utility>

#include "json_simd.h"

namespace ondemand = simdjson::ondemand;

struct ps_simd {
    ondemand::parser parser;
    size_t token_max, key_max;   // key_max: token_max / 6 (key_fits)
};

namespace {

// Deeper nesting than this is left to libyajl (Kineto writes a few levels; the walk recurses once per level, so
// an unbounded depth would be an unbounded stack).
constexpr int max_depth = 64;

struct walker {
    const yajl_callbacks *cb;
    void *ctx;
    int depth;
    size_t token_max, key_max;   // longer strings and numbers are libyajl's to refuse (ps_simd_new)
};

const unsigned char *bytes(std::string_view s)
{
    return reinterpret_cast<const unsigned char *>(s.data());
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

// RFC 8259 §6: number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ).
bool json_number(std::string_view t)
{
    size_t i = 0, n = t.size();
    if (i < n && t[i] == '-')
        i++;
    if (i < n && t[i] == '0')
        i++;
    else if (i < n && is_digit(t[i]))
        while (i < n && is_digit(t[i]))
            i++;
    else
        return false;
    if (i < n && t[i] == '.') {
        if (++i == n || !is_digit(t[i]))
            return false;
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        if (++i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i == n || !is_digit(t[i]))
            return false;
        while (i < n && is_digit(t[i]))
            i++;
    }
    return i == n;
}

std::string_view trim_space(std::string_view t)
{
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r'))
        t.remove_suffix(1);
    return t;
}

// A string value whose bytes between the quotes, as in the text, are at most token_max. raw: its raw JSON token
// (the quotes, and the whitespace up to the next token): one comparison for every string a trace holds.
bool string_fits(const walker &w, std::string_view raw)
{
    return raw.size() - 2 <= w.token_max || trim_space(raw).size() - 2 <= w.token_max;
}

// A key: its text is at most 6 bytes per byte unescaped ("\u0041" is "A"), so an unescaped key of at most
// token_max / 6 bytes fits; a longer one (none in a trace) is left to libyajl, which measures the text itself.
bool key_fits(const walker &w, std::string_view key)
{
    return key.size() <= w.key_max;
}

bool walk(walker &w, ondemand::value v);

bool walk_fields(walker &w, ondemand::object o)
{
    for (auto f : o) {
        ondemand::field field;
        std::string_view key;
        if (std::move(f).get(field) || field.unescaped_key().get(key) || !key_fits(w, key) ||
            !w.cb->yajl_map_key(w.ctx, bytes(key), key.size()) || !walk(w, field.value()))
            return false;
    }
    return true;
}

bool walk_elements(walker &w, ondemand::array a)
{
    for (auto e : a) {
        ondemand::value v;
        if (std::move(e).get(v) || !walk(w, v))
            return false;
    }
    return true;
}

// An object's or array's members, one level deeper.
template <typename F> bool nested(walker &w, F members)
{
    if (w.depth >= max_depth)
        return false;
    w.depth++;
    bool ok = members();
    w.depth--;
    return ok;
}

bool walk(walker &w, ondemand::value v)
{
    ondemand::json_type type;
    if (v.type().get(type))
        return false;
    switch (type) {
    case ondemand::json_type::object: {
        ondemand::object o;
        return !v.get_object().get(o) && w.cb->yajl_start_map(w.ctx) &&
               nested(w, [&] { return walk_fields(w, o); }) && w.cb->yajl_end_map(w.ctx);
    }
    case ondemand::json_type::array: {
        ondemand::array a;
        return !v.get_array().get(a) && w.cb->yajl_start_array(w.ctx) &&
               nested(w, [&] { return walk_elements(w, a); }) && w.cb->yajl_end_array(w.ctx);
    }
    case ondemand::json_type::string: {
        std::string_view s;
        return string_fits(w, v.raw_json_token()) && !v.get_string().get(s) &&
               w.cb->yajl_string(w.ctx, bytes(s), s.size());
    }
    case ondemand::json_type::number: {
        std::string_view t = trim_space(v.raw_json_token());
        return t.size() <= w.token_max && json_number(t) && w.cb->yajl_number(w.ctx, t.data(), t.size());
    }
    case ondemand::json_type::boolean: {
        bool b;
        return !v.get_bool().get(b) && w.cb->yajl_boolean(w.ctx, b);
    }
    case ondemand::json_type::null: {
        bool null;
        return !v.is_null().get(null) && null && w.cb->yajl_null(w.ctx);
    }
    }
    return false;
}

// Nothing but whitespace after the document's value.
bool at_end(ondemand::document &doc)
{
    return doc.current_location().error() != simdjson::SUCCESS;
}

// The fields of the head document up to the first "traceEvents" whose value is an array: that array's start.
bool walk_head(walker &w, ondemand::object o)
{
    if (!w.cb->yajl_start_map(w.ctx))
        return false;
    for (auto f : o) {
        ondemand::field field;
        ondemand::json_type type;
        if (std::move(f).get(field))
            return false;
        bool events = field.key().unsafe_is_equal("traceEvents");
        std::string_view key;
        if (field.unescaped_key().get(key) || !key_fits(w, key) || !w.cb->yajl_map_key(w.ctx, bytes(key), key.size()) ||
            field.value().type().get(type))
            return false;
        if (events && type == ondemand::json_type::array)
            return w.cb->yajl_start_array(w.ctx);
        if (!walk(w, field.value()))
            return false;
    }
    return false;   // no events array: json_fast.c found one, so the text is not what it scanned
}

// `{"traceEvents":[],...}`: the first field stands for the array being closed.
bool walk_tail(walker &w, ondemand::object o)
{
    bool first = true;
    for (auto f : o) {
        ondemand::field field;
        if (std::move(f).get(field))
            return false;
        if (first) {
            first = false;
            if (!w.cb->yajl_end_array(w.ctx))
                return false;
            continue;
        }
        std::string_view key;
        if (field.unescaped_key().get(key) || !key_fits(w, key) || !w.cb->yajl_map_key(w.ctx, bytes(key), key.size()) ||
            !walk(w, field.value()))
            return false;
    }
    return !first && w.cb->yajl_end_map(w.ctx);
}

bool walk_document(walker &w, enum ps_simd_mode mode, ondemand::document &doc)
{
    ondemand::object o;
    ondemand::array a;
    ondemand::value v;
    switch (mode) {
    case PS_SIMD_WHOLE:
        return !doc.get_value().get(v) && walk(w, v) && at_end(doc);
    case PS_SIMD_HEAD:
        return !doc.get_object().get(o) && walk_head(w, o);
    case PS_SIMD_ELEMENTS:
        return !doc.get_array().get(a) && walk_elements(w, a) && at_end(doc);
    case PS_SIMD_TAIL:
        return !doc.get_object().get(o) && walk_tail(w, o) && at_end(doc);
    }
    return false;
}

} // namespace

extern "C" {

int ps_simd_new(size_t token_max, struct ps_simd **out)
{
    *out = new (std::nothrow) ps_simd;
    if (*out) {
        (*out)->token_max = token_max;
        (*out)->key_max = token_max / 6;
    }
    return *out ? 0 : -ENOMEM;
}

void ps_simd_free(struct ps_simd *s)
{
    delete s;
}

size_t ps_simd_padding(void)
{
    return simdjson::SIMDJSON_PADDING;
}

int ps_simd_walk(struct ps_simd *s, enum ps_simd_mode mode, const char *doc, size_t len, const yajl_callbacks *cb,
                 void *ctx)
{
    if (!cb->yajl_number || !cb->yajl_map_key || !cb->yajl_string || !cb->yajl_boolean || !cb->yajl_null ||
        !cb->yajl_start_map || !cb->yajl_end_map || !cb->yajl_start_array || !cb->yajl_end_array)
        return 0;   // the walk hands every value to its callback
    ondemand::document d;
    if (s->parser.iterate(doc, len, len + simdjson::SIMDJSON_PADDING).get(d))
        return 0;
    walker w{ cb, ctx, 0, s->token_max, s->key_max };
    return walk_document(w, mode, d) ? 1 : 0;
}

} // extern "C"
