/* The small queries the analyses and renderers ask of a report's trace (analyses/base.h): PERFSCOPE_META values
 * read as the trace holds them (absent, garbage, or in range), the run facts derived from them, the processes'
 * ranks, and names of the model's strings. Nothing here runs an analysis. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_schema.h"

/* The value of metadata key `key` of m, NULL when absent. */
static const char *meta(const struct ps_model *m, const char *key)
{
    for (size_t i = 0; i < m->meta.n; i++)
        if (!strcmp(m->meta.v[i].key, key))
            return m->meta.v[i].value;
    return NULL;
}

/* ps_report_meta_int's rule over the model's metadata. */
static void meta_int(const struct ps_model *m, const char *key, long long lo, long long hi, long long *v,
                     enum ps_fact *fact)
{
    const char *s = meta(m, key);
    char *end;
    *v = 0;
    if (!s) {
        *fact = PS_FACT_ABSENT;
        return;
    }
    *fact = PS_FACT_GARBAGE;
    if (*s == '\0' || isspace((unsigned char)*s))   /* NULL values are read as "" */
        return;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)            /* '1e3', 'abc', beyond int64 */
        return;
    *v = x;
    *fact = x < lo || x > hi ? PS_FACT_OUT_OF_RANGE : PS_FACT_KNOWN;
}

const char *ps_report_meta(const struct ps_report *r, const char *key)
{
    return meta(r->m, key);
}

int64_t ps_report_kineto_base_ns(const struct ps_report *r)
{
    const char *v = ps_report_meta(r, "kineto.baseTimeNanoseconds");
    return v ? strtoll(v, NULL, 10) : 0;
}

void ps_report_recording_complete(const struct ps_report *r, int *complete, enum ps_fact *fact)
{
    const char *v = ps_report_meta(r, "recording_complete");
    int one = v && !strcmp(v, "1"), zero = v && !strcmp(v, "0");
    *complete = one;
    *fact = !v ? PS_FACT_ABSENT : one || zero ? PS_FACT_KNOWN : PS_FACT_GARBAGE;
}

void ps_report_meta_int(const struct ps_report *r, const char *key, long long lo, long long hi, long long *v,
                        enum ps_fact *fact)
{
    meta_int(r->m, key, lo, hi, v, fact);
}

void ps_report_child_status(const struct ps_report *r, struct ps_child_status *st)
{
    long long code, sig;
    enum ps_fact code_fact, sig_fact;
    /* docs/trace-format.md: child_exit_code is the exit code (0..255), -1 when a signal killed the program;
     * child_signal the signal (0: none). Linux signals are 1..64 (SIGRTMAX). */
    ps_report_meta_int(r, "child_exit_code", -1, 255, &code, &code_fact);
    ps_report_meta_int(r, "child_signal", 0, 64, &sig, &sig_fact);
    int sig_known = sig_fact == PS_FACT_KNOWN, sig_out = sig_fact == PS_FACT_OUT_OF_RANGE;
    *st = (struct ps_child_status){ .recorded = code_fact != PS_FACT_ABSENT || sig_fact != PS_FACT_ABSENT,
                                    .code_known = code_fact == PS_FACT_KNOWN,
                                    .code = code_fact == PS_FACT_KNOWN ? (long)code : 0,
                                    .sig_known = sig_known, .sig_out_of_range = sig_out,
                                    .sig = sig_known || sig_out ? (long)sig : 0 };
}

/* Process i's rank: the one ps_proc_ranks_find found (the hook's mark, else the environment's), else the model's;
 * -1 for a process other than only_pid. */
static int32_t process_rank(const struct ps_model *m, const struct ps_proc_ranks *p, uint32_t only_pid, size_t i)
{
    if (only_pid != PS_NONE && m->procs.v[i].pid != only_pid)
        return -1;
    return p && p->rank ? p->rank[i] : m->procs.v[i].rank;
}

size_t ps_proc_ranks_count(const struct ps_model *m, const struct ps_proc_ranks *p, uint32_t only_pid, int32_t *one)
{
    size_t n = 0;
    int32_t first = -1;
    for (size_t i = 0; i < m->procs.n; i++) {
        int32_t k = process_rank(m, p, only_pid, i);
        if (k < 0 || k == first)
            continue;
        if (first < 0) {
            first = k;
            n = 1;
            continue;
        }
        size_t j = 0;   /* a new rank unless an earlier process had it */
        while (j < i && process_rank(m, p, only_pid, j) != k)
            j++;
        n += j == i;
    }
    *one = first;
    return n;
}

void ps_proc_ranks_world(const struct ps_model *m, const struct ps_proc_ranks *p, uint32_t only_pid, int32_t *world,
                         enum ps_fact *fact)
{
    long long v;
    enum ps_fact meta_fact;
    meta_int(m, "world_size", 1, INT32_MAX, &v, &meta_fact);
    int garbage = meta_fact == PS_FACT_GARBAGE || meta_fact == PS_FACT_OUT_OF_RANGE;
    *world = garbage ? -1 : m->world_size;   /* the reader's value: -1 when it has none */
    for (size_t i = 0; *world < 0 && p && p->world && i < m->procs.n; i++)
        if (process_rank(m, p, only_pid, i) >= 0 && p->world[i] > 0)   /* the hook's mark: its process group's size */
            *world = p->world[i];
    *fact = *world > 0 ? PS_FACT_KNOWN : garbage ? PS_FACT_GARBAGE : PS_FACT_ABSENT;
}

/* The rows' one process, PS_NONE when they are not one process's. */
static uint32_t only_pid(const struct ps_report *r)
{
    return r->all ? r->all->pid : PS_NONE;
}

size_t ps_report_process_ranks(const struct ps_report *r, int32_t *one)
{
    return ps_proc_ranks_count(r->m, &r->proc_ranks, only_pid(r), one);
}

/* A PERFSCOPE_META value that is there but not an integer in its range. */
static int bad(enum ps_fact f)
{
    return f == PS_FACT_GARBAGE || f == PS_FACT_OUT_OF_RANGE;
}

void ps_report_rank(const struct ps_report *r, int32_t *rank, int32_t *world_size)
{
    long long v;
    int32_t one;
    enum ps_fact fact;
    *rank = ps_report_process_ranks(r, &one) >= 2 ? -1 : r->m->rank;   /* around a launcher: no one rank */
    ps_report_meta_int(r, "rank", 0, INT32_MAX - 1, &v, &fact);
    if (*rank >= 0 && bad(fact))   /* perfscope meta: garbage read as 0 */
        *rank = -1;
    ps_proc_ranks_world(r->m, &r->proc_ranks, only_pid(r), world_size, &fact);
}

void ps_report_gpu_untimed_records(const struct ps_report *r, int64_t *n, enum ps_fact *fact)
{
    long long v;
    ps_report_meta_int(r, "gpu_records_without_timestamps", 0, INT64_MAX, &v, fact);
    *n = *fact == PS_FACT_KNOWN ? v : 0;
}

void ps_report_dropped_records(const struct ps_report *r, int64_t *n, enum ps_fact *fact)
{
    long long v;
    const struct ps_model *m = r->m;
    enum ps_fact total;
    ps_report_meta_int(r, "dropped_records", 0, INT64_MAX, &v, &total);
    *n = 0;
    *fact = PS_FACT_GARBAGE;
    if (bad(total))
        return;
    if (total == PS_FACT_ABSENT)   /* the per-process keys the reader summed instead: each must be a count */
        for (size_t i = 0; i < m->meta.n; i++) {
            enum ps_fact each;
            if (!strncmp(m->meta.v[i].key, "dropped", 7) &&
                (ps_report_meta_int(r, m->meta.v[i].key, 0, INT64_MAX, &v, &each), bad(each)))
                return;
        }
    *n = m->dropped_records;
    *fact = PS_FACT_KNOWN;
}

const char ps_report_compat_tb_note[] =
    "--compat tb finds communication as tb does, by linking kernels to Kineto's NCCL host ops (nccl:all_reduce, "
    "...) through their External id; this trace is not a Kineto trace and has no such ids, so Communication is 0 "
    "under --compat tb and NCCL kernels count as Kernel. Without --compat tb, kernels named nccl / rccl count as "
    "Communication.";

int ps_report_compat_tb_no_comm(const struct ps_report *r)
{
    return r->opts.compat_tb && r->m->format != PS_FORMAT_KINETO;
}

const char *ps_report_name(const struct ps_report *r, uint32_t id)
{
    return id == PS_NONE ? NULL : ps_model_str(r->m, id);
}

void ps_report_meta_entry(const struct ps_report *r, size_t i, const char **key, const char **value)
{
    *key = r->m->meta.v[i].key;
    *value = r->m->meta.v[i].value;
}

static int cmp_pid_entry(const void *a, const void *b)
{
    const struct ps_pid_entry *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int ps_pid_index_init(struct ps_pid_index *x, const struct ps_model *m)
{
    *x = (struct ps_pid_index){ 0 };
    if (!(x->v = malloc((m->procs.n + 1) * sizeof *x->v)))
        return -ENOMEM;
    for (size_t i = 0; i < m->procs.n; i++)
        x->v[i] = (struct ps_pid_entry){ m->procs.v[i].pid, (uint32_t)i };
    x->n = m->procs.n;
    qsort(x->v, x->n, sizeof *x->v, cmp_pid_entry);
    return 0;
}

size_t ps_pid_index_find(const struct ps_pid_index *x, uint32_t pid)
{
    struct ps_pid_entry key = { pid, 0 };
    const struct ps_pid_entry *hit = x->n ? bsearch(&key, x->v, x->n, sizeof *x->v, cmp_pid_entry) : NULL;
    return hit ? hit->index : x->n;
}

void ps_pid_index_fini(struct ps_pid_index *x)
{
    free(x->v);
    *x = (struct ps_pid_index){ 0 };
}

double ps_report_per_step_ms(const struct ps_report *r, int64_t ns)
{
    size_t n = r->whole_run || r->nsteps == 0 ? 1 : r->nsteps;
    return (double)ns / (double)n / 1e6;
}

/* Findings about time the GPU idles (the host's gaps, syncs, launches) against those about the time it works. */
static int idle_rule(const char *rule)
{
    static const char *const idle[] = { "sync_api", "gpu_gap", "low_gpu_utilization", "launch_bound_stream",
                                        "tiny_kernels" };
    for (size_t i = 0; i < sizeof idle / sizeof *idle; i++)
        if (!strcmp(rule, idle[i]))
            return 1;
    return 0;
}

void ps_report_add_finding_fix(struct ps_report *r, const struct ps_finding *f)
{
    char span[64], shares[160] = "";
    if (r->nrecs >= PS_MAX_RECS)
        return;
    if (r->whole_run)
        snprintf(span, sizeof span, "over the run");
    else
        snprintf(span, sizeof span, r->nsteps == 1 ? "per step (the %zu analysed step)"
                                                   : "per step (the average of the %zu analysed steps)", r->nsteps);
    /* the time a fix above already counts: the verdict's when it is of the same kind (idle or at work), else the
     * first finding of that kind whose fix is listed (findings come sorted by cost) */
    int idle = idle_rule(f->rule);
    if (r->nrecs > 0 && r->bottleneck != PS_BN_UNKNOWN &&
        idle == (r->bottleneck != PS_BN_KERNEL && r->bottleneck != PS_BN_MEMCPY))
        snprintf(shares, sizeof shares, "; it shares its time with the first fix: the gains do not add up");
    for (size_t i = 0; !shares[0] && i < r->nfindings && &r->findings[i] != f; i++) {
        const struct ps_finding *g = &r->findings[i];
        if (!strcmp(g->severity, "warning") && g->fix[0] && idle_rule(g->rule) == idle)
            snprintf(shares, sizeof shares, "; it shares its time with finding %s's fix: the gains do not add up",
                     g->rule);
    }
    snprintf(r->recs[r->nrecs++], PS_REC_LEN, "%s, %s (finding %s)%s.", f->fix, span, f->rule, shares);
}

const char *ps_report_bound_by_replay(const struct ps_report *r, struct ps_finding *f, enum ps_cause c,
                                      const char *own)
{
    static const char *const replayed[PS_CAUSE_N] = {
        [PS_CAUSE_KERNEL] = "what the steps replayed without any kernel time save",
        [PS_CAUSE_COPY] = "what the steps replayed without any copy time save",
        [PS_CAUSE_SYNC] = "what the steps replayed without the syncs' waits save",
    };
    const struct ps_causes *cs = &r->causes;
    if (!cs->replayed || cs->c[c].gain_ns < 0 || !replayed[c])
        return own;
    int64_t cap = cs->c[c].gain_ns * (int64_t)(r->whole_run || r->nsteps == 0 ? 1 : r->nsteps);
    if (cap >= f->gain_ns)
        return own;
    f->gain_ns = cap;
    return replayed[c];
}

void ps_report_findings_per_step(struct ps_report *r)
{
    for (size_t i = 0; i < r->nfindings; i++)
        r->findings[i].gain_per_step_ns = (int64_t)llround(ps_report_per_step_ms(r, r->findings[i].gain_ns) * 1e6);
}
