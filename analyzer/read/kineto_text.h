/* Text helpers of the Kineto reader: token-level scanning of the raw JSON (json_num.c: where a chunk ends inside
 * a token, where a libyajl parse error lies) and libkineto's attribute strings (kineto_strings.c). Not used
 * outside analyzer/. */
#ifndef PS_KINETO_TEXT_H
#define PS_KINETO_TEXT_H

#include <stddef.h>

#include "model/model.h"
#include "ps_utf8.h"
#include "reader_impl.h"

/* "Memcpy HtoD (Pageable -> Device)" / "Memset (Device)" (op->kind MEMCPY or MEMSET set): sets op->copy_kind,
 * src_kind, dst_kind from the name Kineto builds (libkineto memcpyKindString / memoryKindString; CUPTI's
 * CUpti_ActivityMemcpyKind order = nsys ENUM_CUDA_MEMCPY_OPER; ENUM_CUDA_MEM_KIND); unknown parts: UNKNOWN. */
void ps_kineto_parse_copy_name(const char *name, struct ps_gpu_op *op);
/* libkineto's cuda_sync_kind text -> ENUM_CUPTI_SYNC_TYPE (1 Event Sync, 2 Stream Wait Event, 3 Stream Sync,
 * 4 Context Sync); 0 for anything else. */
int ps_kineto_sync_kind(const unsigned char *s, size_t len);
/* A kernel's "est. achieved occupancy %" arg (the number's text): 1 and *pct its value rounded (0..100), or 0 when
 * it is not a number in 0..100 (libkineto writes (int)(0.5 + occupancy * 100) with occupancy -1 when its estimate
 * failed: -99; a grid far smaller than the GPU gives a real 0). Cannot fail. */
int ps_kineto_occupancy(const char *s, size_t len, int *pct);

/* Event categories, modern and pre-2.0 (docs/report.md). */
enum ps_kineto_cat {
    PS_KCAT_UNKNOWN, PS_KCAT_KERNEL, PS_KCAT_MEMCPY, PS_KCAT_MEMSET, PS_KCAT_SYNC, PS_KCAT_RUNTIME, PS_KCAT_DRIVER,
    PS_KCAT_CPU_OP, PS_KCAT_USER_ANN, PS_KCAT_GPU_ANN, PS_KCAT_PYTHON, PS_KCAT_TRACE
};
/* The category of a `cat` string ("kernel", "Kernel", "gpu_memcpy", ...); PS_KCAT_UNKNOWN for any other. */
enum ps_kineto_cat ps_kineto_category(const char *cat);

/* Categories libkineto emits by design (ActivityType.h names) that carry no step time: CUPTI's own overhead
 * samples, CUPTI profiler-range markers, correlation records, instants and counters. Counted silently in the
 * metadata entry "ignored_events", never as unplaced (docs/readers.md). */
#define PS_KINETO_N_IGNORED 6
/* 1 and *index (0..PS_KINETO_N_IGNORED-1) when `cat` is an ignored category, 0 for any other; and the name of an
 * index ("" for none: a lookup that cannot fail). */
int ps_kineto_ignored_index(const char *cat, int *index);
const char *ps_kineto_ignored_name(int i);

/* The longest string (its bytes between the quotes, as in the file) or number a JSON reader takes: far above what
 * any profiler writes (the shared traces' longest string is a 1.7 KB kernel name; a rank list of 100,000 ranks is
 * about 700 KB), and it bounds what one token costs (libyajl holds a token whole, several times over: a 1 GB name
 * took 5.26 GB). Both parsers refuse a longer one (docs/readers.md, "Strings and numbers: length and UTF-8"). The
 * fuzz build sets a small one (fuzz/CMakeLists.txt), so that its inputs reach these paths. */
#ifndef PS_JSON_TOKEN_MAX
#define PS_JSON_TOKEN_MAX ((size_t)16 << 20)
#endif

/* What the text breaks of what libyajl leaves unchecked (the rules simdjson applies): a token longer than
 * PS_JSON_TOKEN_MAX, bytes in a string that are not UTF-8 (RFC 3629: no overlong forms, no encoded surrogates),
 * a \u escape of half a UTF-16 surrogate pair without the other half. */
enum ps_json_flaw { PS_JSON_FLAW_NONE, PS_JSON_FLAW_LONG_STRING, PS_JSON_FLAW_LONG_NUMBER, PS_JSON_FLAW_UTF8,
                    PS_JSON_FLAW_SURROGATE };

/* Token state carried across chunks, so that a token spanning chunks can be handed to libyajl in growing pieces:
 * libyajl re-scans a buffered token from its start on every yajl_parse call (one 64 MB name was quadratic); and
 * the checks of enum ps_json_flaw. Zero-initialise with tok_start = -1. */
struct ps_json_scan {
    int in_str, esc, in_lit;  /* inside a string (just after a backslash); inside a number or literal */
    long tok_start;           /* where the open token began in the chunk being scanned; -1: before it (or none);
                               * the caller resets it to -1 when it starts a new chunk */
    unsigned char last;       /* the last byte that is not whitespace ('"' while inside a string) */
    long long at;             /* bytes scanned so far: the offset in the text of the next byte */
    long long tok_at;         /* where the open token starts in the text (a string: its opening quote) */
    size_t tok_len;           /* its bytes so far (a string's after the opening quote) */
    struct ps_utf8_stream u8; /* the UTF-8 sequence under way inside a string */
    long long u8_at;          /* where it starts */
    unsigned char u8_bytes[4];
    int u8_n;
    int hex;                  /* in a \u escape: hex digits still to come (4..1), else 0 */
    unsigned u;               /* its value so far */
    long long esc_at;         /* where the escape starts (its backslash) */
    int high;                 /* after a high-surrogate escape: 1 its low half must follow, 2 its backslash came */
    unsigned high_u;
    long long high_at;
    enum ps_json_flaw flaw;   /* why the scan stopped early (ps_json_scan_bytes) */
    long long flaw_at;        /* the byte that flaw names: the token's first, the sequence's first, the escape's \ */
    char flaw_text[24];       /* the bytes or the escape in question ("0xED 0xA0", "\\ud800") */
};

/* Advance st over p[0..n), whose first byte is at offset `base` of the chunk. Returns the number of bytes scanned:
 * n, or fewer when p[returned] is the byte at which the text breaks a rule of enum ps_json_flaw (st->flaw,
 * st->flaw_at, st->flaw_text set; the byte named may lie before it, in this piece or an earlier one). Valid JSON is
 * assumed otherwise: on invalid text the state is only a hint (libyajl reports the error), and a flaw counts only
 * once libyajl has taken every byte before p[returned]. ps_json_scan_mid: 1 when the bytes scanned end inside a
 * token (string, number or literal). */
size_t ps_json_scan_bytes(struct ps_json_scan *st, const unsigned char *p, size_t n, size_t base);
static inline int ps_json_scan_mid(const struct ps_json_scan *st)
{
    return st->in_str || st->in_lit;
}

/* Where a libyajl error lies, as a 0-based byte offset of the JSON. p[0..n) is the chunk given to yajl_parse,
 * starting at byte `base`; `consumed` is yajl_get_bytes_consumed (n after yajl_complete_parse); `last_end` the
 * byte after the last token yajl passed to a callback; `msg` yajl's message. Lexical errors: libyajl stops one
 * past an invalid character or bad UTF-8 byte, and on the offending character otherwise. Grammar errors
 * ("parse error: ..."): the first token after last_end, past one ',' or ':' where the error is about what follows
 * it (libyajl's own offset is the token's end, start or middle depending on the error). */
long long ps_json_error_byte(const unsigned char *p, size_t n, size_t consumed, long long base, long long last_end,
                             const char *msg);

/* ---- after the parse (kineto_flows.c) ---- */

/* ac2g flows (`ph` 's' / 'f', cat "ac2g", id = the launch's correlation id) and the GPU events they may land on,
 * collected while reading; ps_kflows_finish turns them into model.flow_linked (TraceLens' link rule, see
 * model.h). Zero-initialise; each add returns 0 or -ENOMEM; ps_kflows_fini releases. */
struct ps_kflows {
    struct ps_idmap starts;   /* flow id -> 0 ('s' seen) */
    struct ps_idmap ends;     /* flow id -> place of the last 'f' with that id */
    struct ps_idmap gpu;      /* correlation id -> place of the last GPU event with that id */
    struct ps_idmap places;   /* pid << 32 | tid -> place number */
    uint32_t nplaces;
    int any;                  /* an ac2g flow event was seen */
};
int ps_kflows_flow(struct ps_kflows *f, int is_start, uint64_t id, uint32_t pid, uint32_t tid);
int ps_kflows_gpu(struct ps_kflows *f, uint64_t corr, uint32_t pid, uint32_t tid);
int ps_kflows_finish(struct ps_kflows *f, struct ps_model *m);   /* sets m->has_flows and m->flow_linked */
void ps_kflows_fini(struct ps_kflows *f);

/* The process and thread names of `M` events, collected while reading and applied when the model is complete.
 * Zero-initialise; ps_kineto_names_fini releases. */
struct ps_kineto_named {
    uint32_t pid, tid, name;
};
struct ps_kineto_names {
    struct ps_kineto_named *procs, *threads;
    size_t nprocs, nthreads, cap_procs, cap_threads;
};
/* Add a name (a thread's when is_thread, else the process's). 0 or -ENOMEM. */
int ps_kineto_names_add(struct ps_kineto_names *n, int is_thread, struct ps_kineto_named item);
/* Apply the names to the processes and threads that exist (the last name given wins), through hash maps: linear
 * in threads + names. 0 or -ENOMEM. */
int ps_kineto_names_apply(struct ps_model *m, const struct ps_kineto_names *n);
void ps_kineto_names_fini(struct ps_kineto_names *n);

#endif
