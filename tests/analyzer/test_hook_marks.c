/* The one reader of the Python hook's marks (analyses/pytorch.h: ps_hook_mark_*; the grammar: docs/python.md "Marks"
 * and "Reading a mark"). The texts are the hook's own, copied from a recording of train_loader.py --workers 2,
 * loader_epochs.py and ddp_straggler.py (both --sync modes) under `perfscope record`, or built from the key lists in
 * python/perfscope_hook; every expected value is read off the text by hand and written beside its check. The checks
 * marked "was:" are those where the four parsers this one replaced (pytorch.c kv_int/kv_str, process_ranks.c and
 * rank_summary.c mark_int, memory.c mark_value) disagreed or differed from the rule: they fail under the rule not
 * taken. Run as `test_hook_marks CASE`. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/pytorch.h"
#include "model/model.h"
#include "check.h"

static struct ps_hook_mark mk;

static int parse(const char *text)
{
    return ps_hook_mark_parse(text, &mk);
}

static int64_t i64(const char *key, int64_t min, int64_t max)
{
    int64_t v = -12345;   /* left alone on an error */
    int rc = ps_hook_mark_int(&mk, key, min, max, &v);
    return rc < 0 ? rc : v;
}

/* ps_hook_mark_int's result (0 or -errno), the value apart. */
static int int_rc(const char *key, int64_t min, int64_t max)
{
    int64_t v;
    return ps_hook_mark_int(&mk, key, min, max, &v);
}

static const char *str(const char *key)
{
    static char buf[256];
    int rc = ps_hook_mark_str(&mk, key, buf, sizeof buf);
    return rc == -ENOENT ? "(absent)" : rc < 0 ? "(error)" : buf;
}

static int flag(const char *key)
{
    int v = -7;
    int rc = ps_hook_mark_flag(&mk, key, &v);
    return rc < 0 ? rc : v;
}

/* Every kind of mark the hook writes, as it writes them (python/perfscope_hook: torch_hooks.py _mark_hook,
 * loader_hooks.py _mark_loader, _mark_epoch, _mark_worker, dist_hooks.py _group, _mark_rank, _describe,
 * _wrap_broadcast_coalesced, _ddp_made, steps.py cuda_memory). */
static void every_kind_the_hook_writes(void)
{
    CHECK_EQ(parse("python hook mode=default torch=1.13.0a0 python=3.11.2 cuda_build=none cores=2 cpu_count=2 "
                   "pid=16239 ppid=16231 intra_op_threads=1 interop_threads=1 torch_import_ns=752836197 "
                   "since_start_ns=774987568"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_HOOK);
    CHECK_EQ(mk.loader, -1);
    CHECK_STR(str("mode"), "default");
    CHECK_STR(str("torch"), "1.13.0a0");
    CHECK_STR(str("python"), "3.11.2");           /* the key, not the subject's first word "python" */
    CHECK_EQ(i64("cores", 0, INT32_MAX), 2);
    CHECK_EQ(i64("torch_import_ns", 0, INT64_MAX), 752836197);
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT); /* RANK unset: the hook leaves the key out */

    CHECK_EQ(parse("DataLoader#1 iterator=_MultiProcessingDataLoaderIter num_workers=2 pin_memory=0 "
                   "prefetch_factor=2 persistent_workers=0 batch_size=16 drop_last=1 dataset=SyntheticImages "
                   "multiprocessing_context=default cores=2 cpu_count=2 iterator_id=1 start_method=fork "
                   "base_seed=9205291762539201566 intra_op_threads=1 interop_threads=1"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_LOADER);
    CHECK_EQ(mk.loader, 1);
    CHECK_STR(str("iterator"), "_MultiProcessingDataLoaderIter");
    CHECK_EQ(i64("num_workers", 0, INT32_MAX), 2);
    CHECK_EQ(flag("pin_memory"), 0);
    CHECK_EQ(flag("drop_last"), 1);
    CHECK_STR(str("base_seed"), "9205291762539201566");
    CHECK_EQ(i64("base_seed", 0, INT64_MAX), 9205291762539201566LL);   /* < 2^63 - 1 = 9223372036854775807 */
    CHECK_EQ(i64("interop_threads", 0, INT32_MAX), 1);                 /* the last pair */

    CHECK_EQ(parse("DataLoader epoch loader=1 epoch=2 iterator_id=2 new_iterator=1 workers_started=2 "
                   "worker_pids=16427,16429"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_EPOCH);
    CHECK_EQ(i64("epoch", 1, INT32_MAX), 2);
    CHECK_STR(str("worker_pids"), "16427,16429");
    CHECK_EQ(int_rc("worker_pids", 0, INT64_MAX), -EINVAL);           /* a list is not an integer */

    CHECK_EQ(parse("DataLoader worker id=1 num_workers=2 loader=1 iterator_id=3 base_seed=4914433780030361909 "
                   "training_pid=16407 start_method=fork"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_WORKER);
    CHECK_EQ(i64("id", 0, INT32_MAX), 1);
    CHECK_EQ(i64("training_pid", 1, INT32_MAX), 16407);
    CHECK_STR(str("start_method"), "fork");

    CHECK_EQ(parse("distributed rank=1 world_size=2 backend=gloo pg=0 pid=16337"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_DISTRIBUTED);
    CHECK_EQ(i64("rank", 0, INT32_MAX - 1), 1);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);
    CHECK_EQ(i64("local_rank", 0, INT32_MAX), -ENOENT);                /* no LOCAL_RANK under spawn */

    CHECK_EQ(parse("process group pg=0 backend=gloo size=2 rank=0 ranks=0-1"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_PROCESS_GROUP);
    CHECK_STR(str("ranks"), "0-1");
    CHECK_EQ(int_rc("ranks", 0, INT64_MAX), -EINVAL);                 /* "0-1" is a run, not a number */
    CHECK_STR(str("pg"), "0");

    CHECK_EQ(parse("collective id=7 seq=7 bytes=1597480 in_bytes=1597480 out_bytes=1597480 op=all_reduce "
                   "backend=gloo pg=0 async=0 dtype=float32"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_COLLECTIVE);
    CHECK_EQ(i64("bytes", 0, INT64_MAX), 1597480);
    CHECK_EQ(flag("async"), 0);
    CHECK_STR(str("op"), "all_reduce");
    CHECK_EQ(i64("root", 0, INT32_MAX), -ENOENT);                      /* all_reduce has no root */
    /* _wrap_broadcast_coalesced writes its keys in another order */
    CHECK_EQ(parse("collective id=1 op=broadcast_coalesced backend=gloo pg=0 seq=1 bytes=1597480 in_bytes=1597480 "
                   "out_bytes=1597480 async=0 dtype=float32 root=0"), 0);
    CHECK_EQ(i64("bytes", 0, INT64_MAX), 1597480);
    CHECK_EQ(i64("root", 0, INT32_MAX), 0);
    CHECK_EQ(parse("collective id=12 seq=12 bytes=0 in_bytes=0 out_bytes=0 op=barrier backend=gloo pg=0 async=0"), 0);
    CHECK_EQ(i64("bytes", 0, INT64_MAX), 0);
    CHECK_STR(str("dtype"), "(absent)");                               /* a barrier has no tensor */

    CHECK_EQ(parse("DDP module=Net pg=0 backend=gloo device=cpu gradient_bytes=1597480 bucket_cap_bytes=26214400 "
                   "find_unused_parameters=0 timer_every=1"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_DDP);
    CHECK_EQ(i64("gradient_bytes", 0, INT64_MAX), 1597480);
    CHECK_EQ(flag("find_unused_parameters"), 0);

    CHECK_EQ(parse("cuda memory step=3 device=0 allocated=1073741824 reserved=2147483648 max_allocated=3221225472 "
                   "max_reserved=2147483648 alloc_retries=0 ooms=0"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_CUDA_MEMORY);
    CHECK_EQ(i64("device", 0, INT32_MAX), 0);
    CHECK_EQ(i64("max_allocated", 0, INT64_MAX), 3221225472LL);        /* 3 GiB */
    CHECK_EQ(i64("ooms", 0, INT64_MAX), 0);
}

/* The subject is one of the hook's phrases, whole: followed by a space or the end of the text. */
static void subjects_match_whole(void)
{
    CHECK_EQ(parse(NULL), -ENOENT);
    CHECK_EQ(parse(""), -ENOENT);
    CHECK_EQ(parse("step"), -ENOENT);
    CHECK_EQ(parse("python hooks mode=default"), -ENOENT);
    CHECK_EQ(parse("distributedrank=1"), -ENOENT);
    CHECK_EQ(parse("Distributed rank=1"), -ENOENT);                   /* case matters */
    CHECK_EQ(parse(" distributed rank=1"), -ENOENT);                  /* at the start only */
    /* was: every old reader wanted "SUBJECT " with its space; a mark whose keys are all unknown is the subject */
    CHECK_EQ(parse("distributed"), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_DISTRIBUTED);
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT);
    CHECK_EQ(parse("DataLoader#0 num_workers=0"), 0);                  /* _loader_number's 0: not weak-referenceable */
    CHECK_EQ(mk.loader, 0);
    CHECK_EQ(parse("DataLoader#12"), 0);
    CHECK_EQ(mk.loader, 12);
    CHECK_EQ(parse("DataLoader#2147483647 num_workers=1"), 0);
    CHECK_EQ(mk.loader, 2147483647);
    /* was: pytorch.c read N with an unchecked strtol: "DataLoader#1x" was loader 1, "DataLoader#x1" loader 0 */
    CHECK_EQ(parse("DataLoader#1x num_workers=2"), -EINVAL);
    CHECK_EQ(parse("DataLoader#x1 num_workers=2"), -EINVAL);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_NONE);
    CHECK_EQ(parse("DataLoader# num_workers=2"), -EINVAL);
    CHECK_EQ(parse("DataLoader#"), -EINVAL);
    CHECK_EQ(parse("DataLoader#-1 num_workers=2"), -EINVAL);
    CHECK_EQ(parse("DataLoader#2147483648 num_workers=2"), -EINVAL);   /* 2^31 */
    CHECK_EQ(parse("DataLoader epochs loader=1"), -ENOENT);
}

/* A key matches a pair's whole key, after the subject only. */
static void keys_match_whole_words(void)
{
    CHECK_EQ(parse("distributed world_rank=7 local_rank=3 rank_x=9 rank=1"), 0);
    CHECK_EQ(i64("rank", 0, INT32_MAX), 1);
    CHECK_EQ(i64("local_rank", 0, INT32_MAX), 3);
    CHECK_EQ(parse("distributed world_rank=7 local_rank=3 rank_x=9 ranks=0-1"), 0);
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT);
    CHECK_EQ(parse("collective op=rank backend=world_size"), 0);      /* a value is not a key */
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), -ENOENT);
    /* was: pytorch.c's kv_int / kv_str took a key at the very start of the text too (the others did not); here the
     * text's start is the subject, so "rank=3 ..." is no mark of the hook's at all */
    CHECK_EQ(parse("rank=3 distributed world_size=2"), -ENOENT);
    /* several spaces separate as one; a tab is a byte of the pair (the hook writes `_` for it) */
    CHECK_EQ(parse("distributed  rank=1   world_size=2 "), 0);
    CHECK_EQ(i64("rank", 0, INT32_MAX), 1);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);
    CHECK_EQ(parse("distributed rank=1\tworld_size=2"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);                  /* value "1\tworld_size=2" holds '=' */
    CHECK_EQ(i64("world_size", 0, INT32_MAX), -ENOENT);
    /* keys a reader may ask for: [a-z_]+ */
    CHECK_EQ(parse("distributed rank=1"), 0);
    CHECK_EQ(int_rc("Rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(int_rc("", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(int_rc("rank=", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(int_rc(NULL, 0, INT32_MAX), -EINVAL);
}

/* Integers: an optional '-' and decimal digits, within int64_t and within the range the reader asks for. */
static void integers_negative_overflowing_and_out_of_range(void)
{
    CHECK_EQ(parse("collective id=1 peer=-1 root=-5 bytes=007 seq=+5 in_bytes=5x out_bytes=0x10 async=- op=--1"), 0);
    CHECK_EQ(i64("peer", -1, INT32_MAX), -1);
    CHECK_EQ(int_rc("root", -1, INT32_MAX), -EINVAL);                 /* -5 < -1 */
    CHECK_EQ(int_rc("peer", 0, INT32_MAX), -EINVAL);                  /* every old reader: -1 for a negative */
    CHECK_EQ(i64("bytes", 0, INT64_MAX), 7);                            /* leading zeros are still decimal */
    /* was: strtol/strtoll took a '+' in all four */
    CHECK_EQ(int_rc("seq", 0, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("in_bytes", 0, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("out_bytes", 0, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("async", INT64_MIN, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("op", INT64_MIN, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("id", 2, 1), -EINVAL);                            /* an empty range */
    CHECK_EQ(ps_hook_mark_int_or(&mk, "root", 0, INT32_MAX, -1), -1);
    CHECK_EQ(ps_hook_mark_int_or(&mk, "dtype", 0, INT32_MAX, -1), -1);
    CHECK_EQ(ps_hook_mark_int_or(&mk, "id", 0, INT32_MAX, -1), 1);

    /* the ends of int64_t: 2^63 - 1 = 9223372036854775807, -2^63 = -9223372036854775808 */
    CHECK_EQ(parse("cuda memory allocated=9223372036854775807 reserved=9223372036854775808 "
                   "max_allocated=-9223372036854775808 max_reserved=-9223372036854775809 "
                   "ooms=99999999999999999999999 step=3000000000 device=2147483648"), 0);
    CHECK_EQ(i64("allocated", 0, INT64_MAX), INT64_MAX);
    CHECK_EQ(i64("max_allocated", INT64_MIN, 0), INT64_MIN);
    /* was: rank_summary.c and memory.c took an overflowing value as INT64_MAX (strtoll saturates); pytorch.c and
     * process_ranks.c refused it. Refused: never clamped. */
    CHECK_EQ(int_rc("reserved", 0, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("max_reserved", INT64_MIN, INT64_MAX), -EINVAL);
    CHECK_EQ(int_rc("ooms", 0, INT64_MAX), -EINVAL);
    /* was: pytorch.c and process_ranks.c refused anything above INT32_MAX, rank_summary.c and memory.c read
     * int64_t; the reader's range decides: 3000000000 bytes are bytes, 3000000000 is no rank. */
    CHECK_EQ(i64("step", 0, INT64_MAX), 3000000000LL);
    CHECK_EQ(int_rc("step", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(i64("device", 0, INT64_MAX), 2147483648LL);
    CHECK_EQ(int_rc("device", 0, INT32_MAX), -EINVAL);                /* 2^31 */
}

/* Empty, quoted, '='-holding values and keys without a value: the hook writes none of them (`_` for an empty
 * value, for a space and for '='; it never quotes), so each is malformed (-EINVAL), apart from a quote, which
 * is a byte like any other. */
static void empty_quoted_and_valueless(void)
{
    CHECK_EQ(parse("DataLoader#1 iterator= num_workers= 2 dataset=\"My Set\" batch_size=\"16\" start_method=a=b "
                   "pin_memory drop_last=_"), 0);
    CHECK_STR(str("iterator"), "(error)");
    /* was: all four read "key= 2" as 2 (strtol skips the space and reads the next word) */
    CHECK_EQ(int_rc("num_workers", 0, INT32_MAX), -EINVAL);
    CHECK_STR(str("dataset"), "\"My");                                  /* the value ends at the space */
    CHECK_EQ(int_rc("batch_size", 0, INT32_MAX), -EINVAL);            /* "\"16\"" is no number */
    CHECK_STR(str("batch_size"), "\"16\"");
    CHECK_STR(str("start_method"), "(error)");                         /* was: pytorch.c's kv_str read "a=b" */
    CHECK_EQ(flag("pin_memory"), -EINVAL);                            /* the key, no '=' */
    CHECK_STR(str("drop_last"), "_");
    /* the key at the very end, without a value */
    CHECK_EQ(parse("distributed world_size=2 rank="), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);
    CHECK_EQ(parse("distributed world_size=2 rank"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(parse("distributed world_size=2 ="), 0);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);                      /* a pair without a key is no key's */
}

/* A key written twice is malformed, whatever the two values: which one holds is not known. */
static void repeated_key(void)
{
    /* was: all four read the first one */
    CHECK_EQ(parse("distributed rank=0 world_size=2 rank=1"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);                      /* the other keys are read */
    CHECK_EQ(parse("distributed rank=1 rank=1"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(parse("distributed rank=x rank=1"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(parse("distributed rank rank=1"), 0);
    CHECK_EQ(int_rc("rank", 0, INT32_MAX), -EINVAL);
}

/* Flags are `0` or `1` (core._value writes a bool so); nothing else. */
static void flags_are_0_or_1(void)
{
    CHECK_EQ(parse("DataLoader#1 pin_memory=1 persistent_workers=0 drop_last=True async=2 timer_every=01"), 0);
    CHECK_EQ(flag("pin_memory"), 1);
    CHECK_EQ(flag("persistent_workers"), 0);
    CHECK_EQ(flag("drop_last"), -EINVAL);
    CHECK_EQ(flag("async"), -EINVAL);                                  /* was: pytorch.c's kv_int read 2 */
    CHECK_EQ(flag("timer_every"), -EINVAL);
    CHECK_EQ(flag("find_unused_parameters"), -ENOENT);
}

/* Text values are copied whole or not at all. */
static void text_values_fit_or_fail(void)
{
    char small[5];
    CHECK_EQ(parse("python hook mode=default torch=2.4.0 cuda_build=none"), 0);
    CHECK_EQ(ps_hook_mark_str(&mk, "cuda_build", small, sizeof small), 0);   /* "none": 4 bytes + NUL */
    CHECK_STR(small, "none");
    /* was: pytorch.c's kv_str cut the value to the buffer ("defa") */
    CHECK_EQ(ps_hook_mark_str(&mk, "mode", small, sizeof small), -ENOSPC);
    CHECK_STR(small, "");
    CHECK_EQ(ps_hook_mark_str(&mk, "mode", small, 0), -EINVAL);
    const char *v;
    size_t n;
    CHECK_EQ(ps_hook_mark_value(&mk, "torch", &v, &n), 0);
    CHECK_EQ(n, 5);
    CHECK(v && !memcmp(v, "2.4.0", 5), "torch's bytes");
    CHECK_EQ(ps_hook_mark_value(&mk, "pid", &v, &n), -ENOENT);
    CHECK(v == NULL && n == 0, "nothing on -ENOENT");
}

/* A byte that is not UTF-8 (no NUL: the model's strings hold none): a text value keeps it (renderers replace
 * it), an integer holding it is malformed, and a key holding it is no key a reader asks for. */
static void non_utf8_bytes(void)
{
    CHECK_EQ(parse("DataLoader#1 dataset=Caf\xe9 num_workers=\xff" "2 \xffrank=5 batch_size=16 iterator=\xc3\xa9t\xc3"), 0);
    CHECK_STR(str("dataset"), "Caf\xe9");
    CHECK_EQ(int_rc("num_workers", 0, INT32_MAX), -EINVAL);
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT);                     /* "\xffrank" is another key */
    CHECK_EQ(i64("batch_size", 0, INT32_MAX), 16);
    CHECK_STR(str("iterator"), "\xc3\xa9t\xc3");                        /* a cut character, kept as bytes */
    CHECK_EQ(parse("\xff" "distributed rank=1"), -ENOENT);
}

/* Lengths: the probe records at most 4095 bytes of a mark (PS_HOOK_MARK_MAX), so a longer text is not the hook's;
 * one of 4092 bytes or more (PS_HOOK_MARK_CUT) may have been cut there, so its last pair is refused. */
static void long_marks(void)
{
    size_t big = 100 * 1024;
    char *t = malloc(big + 1);
    if (!t)
        abort();
    /* 100 KB: "distributed rank=1 " then "x" up to the end, then " world_size=2" */
    memset(t, 'x', big);
    memcpy(t, "distributed rank=1 ", 19);
    memcpy(t + big - 13, " world_size=2", 13);
    t[big] = '\0';
    CHECK_EQ(parse(t), -EINVAL);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_NONE);
    CHECK_EQ(i64("rank", 0, INT32_MAX), -ENOENT);                     /* a refused mark has no pairs */

    /* no NUL within PS_HOOK_MARK_MAX + 1 bytes: read no further (AddressSanitizer would see it) */
    char *nonul = malloc(PS_HOOK_MARK_MAX + 1);
    if (!nonul)
        abort();
    memset(nonul, 'x', PS_HOOK_MARK_MAX + 1);
    memcpy(nonul, "distributed rank=1 ", 19);
    CHECK_EQ(parse(nonul), -EINVAL);
    free(nonul);

    /* 4096 bytes: one over */
    memset(t, 'x', 4096);
    memcpy(t, "distributed rank=1 pad=", 23);
    t[4096] = '\0';
    CHECK_EQ(parse(t), -EINVAL);
    /* 4095 bytes, the most the probe writes: read, but its last pair may be the cut one */
    t[4095] = '\0';
    CHECK_EQ(parse(t), 0);
    CHECK_EQ(mk.cut, 1);
    CHECK_EQ(i64("rank", 0, INT32_MAX), 1);
    CHECK_STR(str("pad"), "(error)");
    memcpy(t + 4095 - 13, " world_size=2", 13);                        /* "world_size=2" ends the text */
    CHECK_EQ(parse(t), 0);
    CHECK_EQ(int_rc("world_size", 0, INT32_MAX), -EINVAL);            /* perhaps "world_size=2048" once */
    /* 4092 bytes: the probe may have dropped a 3-byte character's first bytes after 4092 of 4095 */
    t[4092] = '\0';
    memcpy(t + 4092 - 13, " world_size=2", 13);
    CHECK_EQ(parse(t), 0);
    CHECK_EQ(int_rc("world_size", 0, INT32_MAX), -EINVAL);
    /* ... unless the text ends with a space: its last pair is whole */
    t[4091] = ' ';
    memcpy(t + 4091 - 13, " world_size=2", 13);
    CHECK_EQ(parse(t), 0);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);
    /* 4091 bytes: never cut */
    t[4091] = '\0';
    CHECK_EQ(parse(t), 0);
    CHECK_EQ(mk.cut, 0);
    CHECK_EQ(i64("world_size", 0, INT32_MAX), 2);
    free(t);
}

/* Only marks in the hook's NVTX domain ("perfscope") are its marks. */
static void only_the_hooks_domain(void)
{
    struct ps_model *m = ps_model_new("hand", PS_FORMAT_PERFSCOPE);
    if (!m)
        abort();
    uint32_t name = ps_model_intern_cstr(m, "collective id=1 bytes=4096 op=all_reduce");
    uint32_t ours = ps_model_intern_cstr(m, "perfscope"), other = ps_model_intern_cstr(m, "other");
    struct ps_range in_ours = { .name = name, .domain = ours, .kind = PS_RANGE_NVTX_MARK };
    struct ps_range in_other = { .name = name, .domain = other, .kind = PS_RANGE_NVTX_MARK };
    struct ps_range in_default = { .name = name, .domain = PS_NONE, .kind = PS_RANGE_NVTX_MARK };
    struct ps_range pushed = { .name = name, .domain = ours, .kind = PS_RANGE_NVTX_PUSHPOP };
    uint32_t dom = PS_NONE;
    CHECK_EQ(ps_hook_mark_of(m, &in_ours, &dom, &mk), 0);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_COLLECTIVE);
    CHECK_EQ(i64("bytes", 0, INT64_MAX), 4096);
    CHECK_EQ(dom, ours);
    /* was: rank_summary.c read `collective` and `DDP` marks, and memory.c looked for `cuda memory` ones, in any
     * domain */
    CHECK_EQ(ps_hook_mark_of(m, &in_other, &dom, &mk), -ENOENT);
    CHECK_EQ(mk.kind, PS_HOOK_MARK_NONE);
    CHECK_EQ(ps_hook_mark_of(m, &in_default, &dom, &mk), -ENOENT);
    CHECK_EQ(ps_hook_mark_of(m, &pushed, &dom, &mk), -ENOENT);
    dom = PS_NONE;
    CHECK_EQ(ps_hook_mark_of(m, &in_other, &dom, &mk), -ENOENT);
    CHECK_EQ(dom, PS_NONE);                                            /* the cache holds the hook's domain only */
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        { "every_kind_the_hook_writes", every_kind_the_hook_writes },
        { "subjects_match_whole", subjects_match_whole },
        { "keys_match_whole_words", keys_match_whole_words },
        { "integers_negative_overflowing_and_out_of_range", integers_negative_overflowing_and_out_of_range },
        { "empty_quoted_and_valueless", empty_quoted_and_valueless },
        { "repeated_key", repeated_key },
        { "flags_are_0_or_1", flags_are_0_or_1 },
        { "text_values_fit_or_fail", text_values_fit_or_fail },
        { "non_utf8_bytes", non_utf8_bytes },
        { "long_marks", long_marks },
        { "only_the_hooks_domain", only_the_hooks_domain },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc > 1 && !strcmp(argv[1], cases[i].name)) {
            cases[i].fn();
            return check_failures != 0;
        }
    fprintf(stderr, "unknown case\n");
    return 2;
}
