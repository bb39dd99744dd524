/* The events of a PyTorch profiler (Kineto) trace that the per-operator performance model needs
 * (analyses/op_perf.h), kept as TraceLens reads them (TraceLens/Trace2Tree/trace_to_tree.py): in file order,
 * each with its index in traceEvents (TraceLens' UID), times as the JSON numbers parsed to IEEE doubles in µs
 * (correctly rounded, as strtod and Python's json read them: TraceLens' busy times are float64 sums of these), and
 * for cpu_ops the shape arguments as their JSON text. Memory: one 64-byte row per host op, runtime call and GPU
 * event, plus the argument text of cpu_ops. Filled by ps_read_kineto_ops (read/reader.h). */
#ifndef PS_MODEL_OP_TRACE_H
#define PS_MODEL_OP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

enum ps_opev_cat {
    PS_OPEV_CPU_OP, PS_OPEV_RUNTIME, PS_OPEV_DRIVER, PS_OPEV_KERNEL, PS_OPEV_MEMCPY, PS_OPEV_MEMSET
};

/* One complete ('X') event. */
struct ps_op_event {
    double ts_us, dur_us;     /* "ts", "dur" as doubles (µs) */
    int64_t pid, tid;         /* numeric pid / tid (has_pid_tid) */
    int64_t corr;             /* args "correlation" (has_corr) */
    int64_t ext;              /* args "External id" (has_ext) */
    int64_t stream;           /* args "stream" (has_stream) */
    uint32_t uid;             /* index in traceEvents */
    uint32_t name;            /* string id (ps_op_trace_str) */
    uint32_t args;            /* cpu_op: index into ps_op_trace.args, else PS_NONE */
    uint8_t cat;              /* enum ps_opev_cat */
    uint8_t has_pid_tid, has_corr, has_ext, has_stream;
    uint8_t has_seq;
    int64_t seq;              /* args "Sequence number" (has_seq): autograd's forward op <-> backward function */
};

/* A cpu_op's shape arguments: string ids of the JSON text of each list as Python prints it (TraceLens' CSVs:
 * "[[141, 512], [512]]", "['c10::BFloat16', 'float']"), PS_NONE when the key is absent. */
struct ps_op_args {
    uint32_t dims, types, strides, concrete;
};

/* An ac2g flow event ('s' or 'f'). */
struct ps_op_flow {
    int64_t id, pid, tid;
    uint8_t is_start, has_pid_tid;
};

/* `M` metadata: process_name, process_labels (tid 0) and thread_name of (pid, tid); value: string id. */
enum ps_op_meta_kind { PS_OPMETA_PROCESS_NAME, PS_OPMETA_PROCESS_LABELS, PS_OPMETA_THREAD_NAME };
struct ps_op_meta {
    int64_t pid, tid;
    uint32_t value;
    uint8_t kind;
};

struct ps_op_trace {
    PS_VEC(struct ps_op_event) ev;     /* in file order */
    PS_VEC(struct ps_op_args) args;
    PS_VEC(struct ps_op_flow) flows;   /* in file order */
    PS_VEC(struct ps_op_meta) meta;    /* in file order (the last of a key wins) */
    int link_by_ext;                   /* 1: link runtime calls by "External id" (no launch call carries a
                                        * correlation: TraceLens' _set_linking_key) */
    /* string pool */
    char *text;
    size_t text_n, text_cap;
    uint32_t *offs;                    /* string id -> offset in text */
    size_t nstr, str_cap;
    uint32_t *hash;                    /* open addressing: string id + 1, 0 empty */
    size_t hash_cap;
};

struct ps_op_trace *ps_op_trace_new(void);           /* NULL on out-of-memory */
void ps_op_trace_free(struct ps_op_trace *t);         /* NULL is a no-op */
/* Intern s[0..len): its id, PS_NONE on out-of-memory. Equal strings get equal ids. */
uint32_t ps_op_trace_intern(struct ps_op_trace *t, const char *s, size_t len);
/* The string of an id; "" for PS_NONE. */
const char *ps_op_trace_str(const struct ps_op_trace *t, uint32_t id);
/* Append one item; 0 or -ENOMEM. */
int ps_op_trace_add_event(struct ps_op_trace *t, const struct ps_op_event *e);
int ps_op_trace_add_args(struct ps_op_trace *t, const struct ps_op_args *a);
int ps_op_trace_add_flow(struct ps_op_trace *t, const struct ps_op_flow *f);
int ps_op_trace_add_meta(struct ps_op_trace *t, const struct ps_op_meta *m);

#endif
