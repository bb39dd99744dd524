/* The analyses' base (analyzer/analyses/base/): the report's vocabulary, which every family and every renderer
 * uses (options, the step-time categories, the verdict's causes, "absent" and "unknown" facts), and the tools every
 * family shares: name classes (names.c), interval sets (intervals.c), streaming sweeps (sweep.c), per-name tallies
 * (tally.c) and the queries of a report's trace facts (report_query.c). It calls nothing of the other families
 * (docs/design.md "The analyses' families"). All times are integer ns. */
#ifndef PS_ANALYSES_BASE_H
#define PS_ANALYSES_BASE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct ps_report;                  /* analyses/report.h */
struct ps_finding;                 /* analyses/verdict.h */
struct ps_child_status;            /* analyses/report.h */

/* ---- the vocabulary (vocabulary.c) ---- */

/* Step-time categories, in tb's priority order (docs/report.md). */
enum ps_cat {
    PS_CAT_KERNEL, PS_CAT_MEMCPY, PS_CAT_MEMSET, PS_CAT_COMM, PS_CAT_RUNTIME, PS_CAT_DATALOADER,
    PS_CAT_CPU_EXEC, PS_CAT_OTHER, PS_CAT_N
};
extern const char *const ps_cat_key[PS_CAT_N];    /* JSON keys: "kernel", "memcpy", ... */
extern const char *const ps_cat_label[PS_CAT_N];  /* tb's labels: "Kernel", "Memcpy", ..., "CPU Exec" */

enum ps_bottleneck { PS_BN_KERNEL, PS_BN_DATA, PS_BN_MEMCPY, PS_BN_COMM, PS_BN_SYNC, PS_BN_HOST, PS_BN_WAITING, PS_BN_UNKNOWN };
extern const char *const ps_bottleneck_name[];    /* "kernel", "data-loading", ... as in the JSON */

/* Where the step goes (analyses/verdict.h ps_causes_compute, docs/report.md "Where the step goes"): each instant
 * of a step goes to one cause. The first three are the GPU at work (the host's work, on traces without GPU rows);
 * the others say why the GPU idles, in the order of precedence that picks one when several hold. */
enum ps_cause {
    PS_CAUSE_KERNEL, PS_CAUSE_COPY, PS_CAUSE_COMM,
    PS_CAUSE_PRETRACE,             /* launched work waits behind GPU work the trace does not hold (before the
                                    * device's first traced op) */
    PS_CAUSE_STREAM_WAIT,          /* launched work has not started: it waits on another stream or a collective */
    PS_CAUSE_SYNC,                 /* the step thread blocked in a synchronising call, and the idle time after it
                                    * that the call's wait exposed */
    PS_CAUSE_DATA,                 /* the step thread inside a data-loading range */
    PS_CAUSE_WAITING,              /* the step thread asleep, blocked or stopped (thread-state samples) */
    PS_CAUSE_LAUNCH,               /* the step thread in a CUDA API call, or a launched op within its latency */
    PS_CAUSE_HOST,                 /* the step thread computing, named by the deepest range or Python frame */
    PS_CAUSE_UNEXPLAINED,          /* the GPU idles and the trace records nothing the step thread does */
    PS_CAUSE_N
};
extern const char *const ps_cause_key[PS_CAUSE_N];    /* JSON keys: "kernel", "copy", ..., "unexplained" */
extern const char *const ps_cause_label[PS_CAUSE_N];  /* as the text report prints them */
/* vocabulary.c: the verdict group cause c counts in (analyses/verdict.h ps_verdict_classify_causes; host_only: a
 * trace without GPU rows, whose launch, host compute and unexplained time are its compute); PS_BN_UNKNOWN for the
 * work before the trace, which is in none. */
enum ps_bottleneck ps_cause_group(enum ps_cause c, int host_only);

/* Longest run analysed (report/pipeline.c refuses a longer one; model/model.h PS_MODEL_MAX_SPAN_NS): 2^50 ns, about 13 days. Longer spans come from corrupt
 * timestamps, and bounding the span keeps every sum of durations far from int64 overflow; no time a report holds is
 * longer (a merged rank summary's times are checked against it, cli/report_merge.c). */
#define PS_MAX_SPAN_NS (1ll << 50)

/* Default name patterns (docs/report.md), matched case-insensitively as whole names. */
#define PS_STEP_RE_DEFAULT "^(ProfilerStep#[0-9]+|step|train_step|iteration)([ _#:-]?[0-9]+)?$"
#define PS_DATA_RE_DEFAULT "^(enumerate\\(DataLoader\\)#.*|data|data_?load(er|ing)?|load_batch|next_batch|fetch_batch)$"
#define PS_COPY_RE_DEFAULT "^(h2d|d2h|memcpy|copy_to_device|transfer)$"

struct ps_report_opts {
    const char *step_re, *data_re, *copy_re;   /* NULL: the defaults above */
    int compat_tb;             /* 1: tb's communication rule (kernels linked to nccl:/gloo: host ops) */
    int steps_mode;            /* PS_STEPS_AUTO (default): steps from step ranges, else inferred (steps_infer.c);
                                * PS_STEPS_OFF: never inferred; PS_STEPS_INFER: inferred even when step ranges exist */
    int compat_tracelens;      /* 1: TraceLens' GPU timeline in its own float64 µs arithmetic (Kineto traces) */
    int top_n;                 /* kernels listed; default 10 */
    double kernel_threshold;   /* Kernel share at or above which a step is kernel-bound; default 0.8 */
    int64_t gap_ns;            /* GPU idle gaps reported as findings from this length; default 1 ms */
    int64_t tiny_kernel_ns;    /* kernels shorter than this count as tiny; default 10 µs */
    double info_share;         /* a finding costing less than this share of the analysed window is "info", else
                                * "warning"; default 0.02 */
    double low_util;           /* a time slice whose kernels run less than this share of it has low GPU
                                * utilisation; default 0.5 */
    double launch_bound_share; /* a stream is launch-bound when at least this share of its kernels (100 or more)
                                * run shorter than their launch call; default 0.5 */
    double link_gbps;          /* host<->device link peak for copies from / to pinned memory, GB/s; pageable
                                * memory is expected at half of it; default 25 (PCIe 4.0 x16 in practice) */
    double slow_copy_share;    /* copies slower than this share of that peak are slow; default 0.25 */
    double low_occupancy_pct;  /* kernels whose trace-estimated achieved occupancy is below this are low;
                                * default 25 (%) */
    int all_steps;             /* text: list every step (default: at most ~20 rows) */
    int skip_steps;            /* --skip-steps N: leave the first N steps out of every average (warm-up); 0 none */
};
enum { PS_STEPS_AUTO, PS_STEPS_OFF, PS_STEPS_INFER };
void ps_report_opts_default(struct ps_report_opts *o);
/* Check the options' name patterns before any trace is read (names.c: they compile as ps_report_compute compiles
 * them). 0, -EINVAL with a message naming the option and regerror's text, or -ENOMEM. */
int ps_report_opts_check(const struct ps_report_opts *o, char *err, size_t errlen);

#define PS_ABSENT (-2)             /* a fact the trace does not hold */
#define PS_UNKNOWN (-1)            /* a fact the trace holds as garbage */

/* What the trace holds of a fact a query asks for (a PERFSCOPE_META value, a count the recorder wrote): the
 * out-parameter beside the value of the queries below (report_query.c), so that "absent" or "garbage" is never a
 * second meaning of a value (docs/design.md section 4, "Errors"). The report's own fields keep their documented
 * encodings of the unknown (-1, PS_ABSENT, NAN: renderers print them as N/A or null). */
enum ps_fact {
    PS_FACT_KNOWN,                 /* the value is there and valid */
    PS_FACT_ABSENT,                /* the trace does not hold it (an older trace, another format) */
    PS_FACT_GARBAGE,               /* the trace holds something that is not such a value: NULL, "", "1e3", "abc",
                                    * beyond int64 */
    PS_FACT_OUT_OF_RANGE,          /* an integer outside the range asked for; the value holds it */
};

/* ---- name classes (names.c) ---- */

/* ---- name classes (names.c) ---- */
#define PS_NAME_STEP 0x01       /* matches --step-range */
#define PS_NAME_DATA 0x02       /* matches --data-range */
#define PS_NAME_COPY 0x04       /* matches --copy-range */
#define PS_NAME_NCCL 0x08       /* contains nccl or rccl, any case (DESIGN: communication kernel) */
#define PS_NAME_HTA_COMPUTE 0x10 /* HTA get_kernel_type == COMPUTATION */
#define PS_NAME_HTA_COMM 0x20   /* HTA get_kernel_type == COMMUNICATION */
#define PS_NAME_TB_COMM_OP 0x40 /* tb NcclOpNameSet / GlooOpNameSet host op */
#define PS_NAME_SYNC_API 0x80   /* a CUDA API call that blocks the host until the device catches up */
#define PS_NAME_ASYNC_API 0x100 /* an API name containing "Async" */
#define PS_NAME_TL_COMM 0x200   /* TraceLens' communication: contains nccl, rccl or cross_device_reduce, any case */
#define PS_NAME_ROCM_COPY 0x400 /* a ROCm copy kernel (__amd_rocclr_copyBuffer, ...): a copy, not compute */
#define PS_NAME_GRAPH_LAUNCH 0x4000 /* an API call replaying a CUDA / HIP graph (cudaGraphLaunch, cuGraphLaunch,
                                     * hipGraphLaunch; any _vNNNN / _ptsz suffix): its GPU ops are graph nodes */
#define PS_NAME_HOST_COMM 0x800 /* a host collective range: "<backend>:<op>" with backend gloo, nccl, mpi or ucc
                                 * (docs/python.md; Kineto's record_function names), or a wait below */
#define PS_NAME_HOST_COMM_WAIT 0x1000 /* the host blocked on a collective: "Work.wait", "Work.wait#<backend>:<op>",
                                       * "ddp:gradient_allreduce_wait" (docs/python.md) */
#define PS_NAME_DDP_ALLREDUCE 0x2000 /* "ddp:gradient_allreduce": DDP's allreduces from the first bucket's launch,
                                      * during backward, to the end of their wait (docs/distributed.md): no
                                      * Communication itself, and no function that computes */

struct ps_model;
struct ps_names;
/* Compile the three patterns (NULL: default), anchored as ^(RE)$, REG_EXTENDED | REG_ICASE.
 * Returns 0, -EINVAL with a message naming the option and regerror's text, or -ENOMEM. */
int ps_names_new(struct ps_names **out, const struct ps_model *m, const struct ps_report_opts *o,
                 char *err, size_t errlen);
void ps_names_free(struct ps_names *n);    /* NULL is a no-op */
/* The PS_NAME_* bits of string id `id` (computed once per id, then cached). The step / data / copy patterns
 * are matched against the name without a trailing emit_nvtx suffix (ps_names_base_len, report.h). A lookup that
 * cannot fail, asked once per event: the one allocation it may make (a copy of a name of 256 bytes or more that
 * has such a suffix) failing leaves that name matching none of the three patterns, deliberately, rather than
 * failing every analysis that classifies names. */
unsigned ps_names_flags(struct ps_names *n, uint32_t id);
/* The group of string id `id`: the first id looked up whose name has the same base (ps_names_base_len), so
 * "aten::add, op_id = 5" and "aten::add, op_id = 9" aggregate as one evidence row. O(1) amortised. A lookup that
 * cannot fail: when memory runs out, deliberately, each id is its own group (the rows are then split by suffix,
 * never lost). */
uint32_t ps_names_group(struct ps_names *n, uint32_t id);

/* names.c: the length of `s` without a trailing PyTorch emit_nvtx suffix (", seq = N", ", op_id = N",
 * ", sizes = [...]", ", input_op_ids = [...]", in PyTorch's order, each optional: torch/csrc/profiler/util.cpp
 * getNvtxStr); strlen(s) when there is none. "aten::add, seq = 12, op_id = 5" -> 9. Range names group by it, so
 * renderers show a range's evidence and a step's name without the suffix. */
size_t ps_names_base_len(const char *s);

/* ---- interval sets (intervals.c) ---- */

struct ps_ivl {
    int64_t s, e;   /* ns, s <= e */
};

struct ps_ivls {
    struct ps_ivl *v;
    size_t n, cap;
};

/* Free the storage (the struct itself is caller-owned) and leave an empty set. */
void ps_ivls_fini(struct ps_ivls *a);
/* Add [s, e) to the set; empty or reversed intervals are ignored. An interval starting inside the last one
 * is merged into it at once, so sets built in start order stay small. Returns 0 or -ENOMEM. */
int ps_ivls_push(struct ps_ivls *a, int64_t s, int64_t e);
/* Sort and merge in place (touching intervals merge): the set becomes normal. */
void ps_ivls_normalize(struct ps_ivls *a);
/* out = a ∩ b, a − b (a, b normal; out must be a distinct, caller-initialised set whose old contents are
 * replaced). Return 0 or -ENOMEM. (a ∪ b: push b's pieces into a and normalise.) */
int ps_ivls_intersect(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b);
int ps_ivls_subtract(struct ps_ivls *out, const struct ps_ivls *a, const struct ps_ivls *b);
/* Total length in ns of a normal set. */
int64_t ps_ivls_total(const struct ps_ivls *a);
/* Length of a normal set inside [s, e): O(log n + pieces inside). */
int64_t ps_ivls_within(const struct ps_ivls *a, int64_t s, int64_t e);

/* ---- streaming sweeps (sweep.c) ---- */

/* Running union of [s, e) intervals added with non-decreasing s. ps_run_add returns 1 and sets *ds, *de when
 * the piece before the new interval is complete (disjoint pieces come out in increasing order, touching
 * intervals merge, empty ones are ignored: ps_ivls_push's rules); ps_run_flush gives the last piece. */
struct ps_run {
    int64_t s, e;
    int open;
};

static inline int ps_run_add(struct ps_run *u, int64_t s, int64_t e, int64_t *ds, int64_t *de)
{
    if (e <= s)
        return 0;
    if (u->open && s <= u->e) {
        if (e > u->e)
            u->e = e;
        return 0;
    }
    int done = u->open;
    *ds = u->s;
    *de = u->e;
    u->s = s;
    u->e = e;
    u->open = 1;
    return done;
}

static inline int ps_run_flush(struct ps_run *u, int64_t *ds, int64_t *de)
{
    int done = u->open;
    *ds = u->s;
    *de = u->e;
    u->open = 0;
    return done;
}

/* Length of [s, e) inside [a, b). */
static inline int64_t ps_overlap(int64_t s, int64_t e, int64_t a, int64_t b)
{
    int64_t lo = s > a ? s : a, hi = e < b ? e : b;
    return hi > lo ? hi - lo : 0;
}

/* Sweep line over up to PS_SWEEP_MAX categories: events (category, [s, e)) added with non-decreasing s; the
 * time they cover is cut into pieces of constant "active set" (a bit mask of the categories with an event
 * covering the piece), handed in increasing order to `piece`. Memory: one end time per category. */
#define PS_SWEEP_MAX 16
struct ps_sweep {
    int ncat;
    int64_t t;                      /* time accounted so far */
    int64_t end[PS_SWEEP_MAX];      /* latest end of the category's events so far */
    unsigned active;                /* categories with end > t */
    int64_t next;                   /* earliest end among them, INT64_MAX if none */
    void (*piece)(void *ctx, int64_t s, int64_t e, unsigned active);
    void *ctx;
};

void ps_sweep_init(struct ps_sweep *w, int ncat, void (*piece)(void *, int64_t, int64_t, unsigned), void *ctx);
/* Add an event of category cat (< ncat). Its start must not be before an earlier event's start. */
void ps_sweep_add(struct ps_sweep *w, int cat, int64_t s, int64_t e);
/* Hand out the rest (call once, after the last event). */
void ps_sweep_finish(struct ps_sweep *w);

/* Time of a stream of disjoint pieces (given in increasing order) inside each of n windows [start, end):
 * ps_windows_new sorts the 2n window ends once (copied: the arrays may go after the call) into *out, 0, or
 * -ENOMEM (*out NULL); ps_windows_piece adds a piece; ps_windows_get gives window i's total after the last piece.
 * Free with ps_windows_free (NULL is a no-op). */
struct ps_windows;
int ps_windows_new(struct ps_windows **out, const int64_t *start, const int64_t *end, size_t n);
void ps_windows_piece(struct ps_windows *w, int64_t s, int64_t e);
int64_t ps_windows_get(const struct ps_windows *w, size_t i);
void ps_windows_free(struct ps_windows *w);

/* ---- per-name totals (tally.c) ---- */

struct ps_tally {
    struct {
        int64_t count, total;
    } *agg;                        /* indexed by string id */
    uint32_t *touched;             /* the ids with a nonzero entry, nt of them */
    size_t nt, nstrings;
};
/* An empty tally over string ids 0..nstrings-1. 0 or -ENOMEM (then *t holds nothing to free). */
int ps_tally_init(struct ps_tally *t, size_t nstrings);
void ps_tally_fini(struct ps_tally *t);   /* zeroed: no-op; leaves *t zeroed */
/* Add `count` and `total` to name's entry; an id at or beyond nstrings (PS_NONE) is ignored. */
static inline void ps_tally_add(struct ps_tally *t, uint32_t name, int64_t count, int64_t total)
{
    if (name >= t->nstrings)
        return;
    if (t->agg[name].count == 0 && t->agg[name].total == 0)
        t->touched[t->nt++] = name;
    t->agg[name].count += count;
    t->agg[name].total += total;
}
/* The k names with the largest totals (by_count: counts), largest first, into ids / count / total; returns how
 * many. Empties the tally. */
size_t ps_tally_top(struct ps_tally *t, size_t k, int by_count, uint32_t *ids, int64_t *count, int64_t *total);

/* ---- times as the peers' float64 arithmetic sees them ---- */

/* The correctly rounded float64 of ns / 1000: a time as Python reads the JSON's decimal µs (tb's and TraceLens'
 * float64 arithmetic under --compat tb / --compat tracelens). q is exact below 2^53; rem / 1000.0 only breaks
 * true ties. */
static inline double ps_ns_to_us_double(int64_t ns)
{
    int64_t q = ns / 1000, rem = ns % 1000;
    if (rem < 0)
        q -= 1, rem += 1000;
    return (double)q + (double)rem / 1000.0;
}

/* ---- the trace's facts, as a report's model holds them (report_query.c) ---- */

struct ps_model;
/* Each process's rank (analyses/pytorch.h ps_proc_ranks_find fills it): per process of the model, in m->procs
 * order. */
struct ps_proc_ranks {
    int32_t *rank, *world;         /* rank and world size; -1 unknown */
    uint8_t *marked;               /* 1: the Python hook's `distributed` mark gave them, 0: the environment */
};
/* The model's processes by pid (m->procs is in reader order): built once, then a binary search a lookup. */
struct ps_pid_index {
    struct ps_pid_entry { uint32_t pid, index; } *v;   /* sorted by pid; index: into m->procs */
    size_t n;
};
/* Build the index of m's processes. 0 or -ENOMEM (*x then holds nothing); ps_pid_index_fini releases it. */
int ps_pid_index_init(struct ps_pid_index *x, const struct ps_model *m);
/* The index in m->procs of process `pid`, or x->n when it is none of them. Cannot fail. */
size_t ps_pid_index_find(const struct ps_pid_index *x, uint32_t pid);
void ps_pid_index_fini(struct ps_pid_index *x);   /* zeroed: no-op; leaves *x zeroed */

/* How many distinct ranks the processes hold, counting only process `only_pid` unless it is PS_NONE; p NULL or
 * without ranks: the environment's (m->procs). *one gets the first rank found, -1 when none. Cannot fail. */
size_t ps_proc_ranks_count(const struct ps_model *m, const struct ps_proc_ranks *p, uint32_t only_pid, int32_t *one);
/* The world size into *world: the model's (PERFSCOPE_META world_size, an integer in 1..2^31-1), else the first
 * world size a counted process's `distributed` mark gives (as ps_proc_ranks_count counts). *fact: PS_FACT_KNOWN
 * (*world >= 1); PS_FACT_GARBAGE when PERFSCOPE_META world_size is no such integer and no mark gives one (*world
 * -1); PS_FACT_ABSENT when nothing gives one (*world -1, or the 0 a Kineto trace may record). Cannot fail. */
void ps_proc_ranks_world(const struct ps_model *m, const struct ps_proc_ranks *p, uint32_t only_pid, int32_t *world,
                         enum ps_fact *fact);

/* Every query here reads what the report's model holds and cannot fail: lookups return their answer (NULL for
 * none), the others return nothing and give a fact's value with its state (enum ps_fact) through out-parameters. */

/* Finding f's fix as the next recommendation (nothing when r->recs is full): "<fix>, per step (the average of
 * the N analysed steps) (finding <rule>)." ("over the run" without steps): every gain is per average step
 * (ps_report_per_step_ms), and a fix whose time a fix above already counts says so (docs/report.md "What to
 * do"). Cannot fail. */
void ps_report_add_finding_fix(struct ps_report *r, const struct ps_finding *f);
/* ns over the analysed window as ms per analysed step (the window itself without steps): the unit of every
 * finding's fix. */
double ps_report_per_step_ms(const struct ps_report *r, int64_t ns);
/* Bound finding f's gain (over the analysed steps) by what the replay saves without all of cause c
 * (r->causes.c[c].gain_ns per steady step, taken over the analysed steps; analyses/verdict/replay.c): faster
 * kernels cannot save more than kernels taking no time. Returns the words for the gain: `own` (the finding's own
 * bound), or the replay's when that is lower. c: PS_CAUSE_KERNEL, _COPY or _SYNC. */
/* Each finding's gain_per_step_ns from its gain_ns (ps_report_per_step_ms): call once the gains are final. */
void ps_report_findings_per_step(struct ps_report *r);
const char *ps_report_bound_by_replay(const struct ps_report *r, struct ps_finding *f, enum ps_cause c,
                                      const char *own);

/* The text of string id `id` of the report's model (a step, kernel, evidence or finding row name); NULL for none
 * (the model's PS_NONE). Valid while the model lives. */
const char *ps_report_name(const struct ps_report *r, uint32_t id);
/* Metadata entry i (i < r->trace.nmeta), in the trace's order. */
void ps_report_meta_entry(const struct ps_report *r, size_t i, const char **key, const char **value);
/* The value of metadata key `key` (perfscope: PERFSCOPE_META), NULL when absent (report_query.c). */
const char *ps_report_meta(const struct ps_report *r, const char *key);
/* Kineto's baseTimeNanoseconds: the ns the reader added to its µs `ts` values, 0 when the trace has none (the
 * reader added nothing: 0 is the offset, not a stand-in for "unknown"). */
int64_t ps_report_kineto_base_ns(const struct ps_report *r);
/* PERFSCOPE_META recording_complete: *fact PS_FACT_KNOWN with *complete 1 (the recorder finished) or 0 (it did
 * not: killed, or still recording); PS_FACT_ABSENT (an older trace, or another format) or PS_FACT_GARBAGE (neither
 * "0" nor "1") with *complete 0. */
void ps_report_recording_complete(const struct ps_report *r, int *complete, enum ps_fact *fact);
/* PERFSCOPE_META value of `key` as a decimal integer (report_query.c): *fact PS_FACT_KNOWN with *v set when it is
 * one in [lo, hi]; PS_FACT_OUT_OF_RANGE with *v set when it is an integer outside [lo, hi]; PS_FACT_ABSENT when the
 * key is absent; PS_FACT_GARBAGE when the value is not an integer (NULL, empty, "1e3", "abc", beyond int64). *v is
 * 0 in the last two cases: bad values show as unknown / null by *fact, never as that fake 0. */
void ps_report_meta_int(const struct ps_report *r, const char *key, long long lo, long long hi, long long *v,
                        enum ps_fact *fact);
void ps_report_child_status(const struct ps_report *r, struct ps_child_status *st);
/* The model's rank and world size, each -1 when unknown: absent, or a PERFSCOPE_META value that is not an
 * integer in range (rank 0..2^31-2, world_size 1..2^31-1). Rank is -1 too for a trace recorded around a launcher
 * (ps_report_process_ranks >= 2): the recorder's "rank" is then only its first rank's. (The -1 is the encoding of
 * struct ps_run_facts' fields, which these fill.) */
void ps_report_rank(const struct ps_report *r, int32_t *rank, int32_t *world_size);
/* How many distinct ranks the trace's processes hold (PERFSCOPE_PROCESS_INFO; other formats: 0). Two or more: a
 * trace recorded around a launcher (`perfscope record -- torchrun ...`), every rank a process of it. *one gets the
 * first process rank found, -1 when none. */
size_t ps_report_process_ranks(const struct ps_report *r, int32_t *one);
/* Records lost while recording: *fact PS_FACT_KNOWN with the model's count in *n, or PS_FACT_GARBAGE with *n 0
 * when a PERFSCOPE_META dropped* value is not a non-negative integer (the reader's number for it would be a fake
 * 0). */
void ps_report_dropped_records(const struct ps_report *r, int64_t *n, enum ps_fact *fact);
/* GPU activity records CUPTI delivered without timing (start or end 0, or end < start: "timestamp information
 * could not be collected", cupti_activity.h), left out of the trace and every number: PERFSCOPE_META
 * gpu_records_without_timestamps (collector/gpu_rows.c) as ps_report_meta_int reads a count (0..INT64_MAX); it is
 * absent from other traces than perfscope's with GPU rows. */
void ps_report_gpu_untimed_records(const struct ps_report *r, int64_t *n, enum ps_fact *fact);

/* --compat tb on a trace that is not Kineto (nsys, perfscope): tb's communication rule needs Kineto's NCCL host
 * ops and their External ids, so Communication is always 0 under it. Renderers print ps_report_compat_tb_note
 * (text: under the breakdown header; JSON: "notes"). 1 or 0. */
int ps_report_compat_tb_no_comm(const struct ps_report *r);
extern const char ps_report_compat_tb_note[];

#endif
