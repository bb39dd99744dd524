/* One trace reduced to what the several-rank report needs (analyses/ranks.h: struct ps_rank_file): its rank and where
 * it came from, the step average and verdict, and its collectives — NCCL/RCCL kernels by name and message size
 * (GPU), and the collectives perfscope's Python hook records on the host (docs/python.md: `<backend>:<op>`
 * ranges with their `collective` marks' bytes, DDP's `ddp:gradient_allreduce` with the `DDP` mark's gradient
 * bytes) — plus the time the step thread spends blocked waiting on collectives. Every report computes it
 * (ps_rank_summary_compute), so `report --format json` carries it and per-rank reports merge without the traces
 * (docs/distributed.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"

const char *const ps_rank_source_name[] = { "metadata", "process_info", "file_name", "order" };

/* The rank in a file name as `record -o run.%r.sqlite` writes it: the last run of decimal digits in the base name
 * that has '.', '_', '-' or the name's start on its left and '.', '_', '-' or the end on its right; -1 when none. */
static int32_t rank_from_file_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int32_t rank = -1;
    for (const char *p = base; *p;) {
        if (!isdigit((unsigned char)*p) || (p > base && !strchr("._-", p[-1]))) {
            p++;
            continue;
        }
        const char *q = p;
        long long v = 0;
        while (isdigit((unsigned char)*q) && v <= INT32_MAX)
            v = v * 10 + (*q++ - '0');
        if (!isdigit((unsigned char)*q) && (!*q || strchr("._-", *q)) && v < INT32_MAX)
            rank = (int32_t)v;
        while (isdigit((unsigned char)*q))
            q++;
        p = q;
    }
    return rank;
}

/* The row of collective `name` with per-call size `bytes` (-1 unknown) and origin `host` into *out, added
 * (zeroed) when new. 0 or -ENOMEM. Rows are few (kernel names x sizes): a linear search. */
static int collective_row(struct ps_rank_file *f, const char *name, int64_t bytes, int host,
                          struct ps_collective_stat **out)
{
    for (size_t k = 0; k < f->ncollectives; k++) {
        struct ps_collective_stat *c = &f->collectives[k];
        if (c->bytes == bytes && c->host == host && strcmp(c->name, name) == 0) {
            *out = c;
            return 0;
        }
    }
    if (f->ncollectives == f->capcollectives) {
        size_t cap = f->capcollectives ? 2 * f->capcollectives : 8;
        struct ps_collective_stat *v = realloc(f->collectives, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        f->collectives = v;
        f->capcollectives = cap;
    }
    struct ps_collective_stat *c = &f->collectives[f->ncollectives];
    *c = (struct ps_collective_stat){ .name = strdup(name), .bytes = bytes, .host = host, .algbw_gbps = NAN,
                                      .busbw_gbps = NAN };
    if (!c->name)
        return -ENOMEM;
    f->ncollectives++;
    *out = c;
    return 0;
}

/* ---- GPU: HTA communication kernels by name and message size, exposed = not under the device's computation
 * kernels ---- */
struct dev_ivl {
    int32_t device;
    int64_t s, e;
    uint32_t name;              /* communication kernels: the name; computation: PS_NONE */
    int64_t bytes;              /* communication kernels: the message size the trace gives (Kineto args), 0 none */
};

static int cmp_dev_ivl(const void *a, const void *b)
{
    const struct dev_ivl *x = a, *y = b;
    if (x->device != y->device)
        return (x->device > y->device) - (x->device < y->device);
    return (x->s > y->s) - (x->s < y->s);
}

/* Overlap of [s, e) with the merged, sorted, disjoint pieces u[0..n). */
static int64_t covered(const struct dev_ivl *u, size_t n, int64_t s, int64_t e)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {           /* first piece ending after s */
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].e <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (size_t i = lo; i < n && u[i].s < e; i++)
        sum += (u[i].e < e ? u[i].e : e) - (u[i].s > s ? u[i].s : s);
    return sum;
}

/* The first of the pieces u[0..n) (sorted by device) whose device is at least `device`. */
static size_t device_bound(const struct dev_ivl *u, size_t n, long long device)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].device < device)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Merged computation pieces of one device, built while the kernels come in start order. */
struct dev_union {
    int32_t device;
    struct ps_run run;
};

static int push_piece(struct dev_ivl **v, size_t *n, size_t *cap, int32_t device, int64_t s, int64_t e)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        struct dev_ivl *p = realloc(*v, c * sizeof *p);
        if (!p)
            return -ENOMEM;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = (struct dev_ivl){ device, s, e, PS_NONE, 0 };
    return 0;
}

/* Two passes over the GPU ops: the communication kernels (none: done), then the computation kernels' union per
 * device as merged pieces (what the exposed time needs: O(pieces), not O(kernels) when kernels abut). */
static int gpu_collectives(struct ps_rank_file *f, const struct ps_report *r, struct ps_names *names)
{
    const struct ps_view *v = r->all;
    const struct ps_model *m = r->m;
    struct dev_ivl *comp = NULL, *comm = NULL;
    struct dev_union *devs = NULL;
    size_t ncomp = 0, capcomp = 0, ncomm = 0, ndevs = 0;
    int64_t s, e;
    int rc = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        struct ps_gpu_op op = ps_view_gpu(v, i);
        ncomm += op.kind == PS_GPU_KERNEL && (ps_names_flags(names, op.name) & PS_NAME_HTA_COMM);
    }
    if (ncomm == 0)
        return 0;
    rc = -ENOMEM;
    comm = malloc(ncomm * sizeof *comm);
    devs = calloc(m->devices.n + m->streams.n + 1, sizeof *devs);   /* a stream's device is one of these */
    if (!comm || !devs)
        goto out;
    ncomm = 0;
    for (size_t i = 0; i < v->ngpu; i++) {
        struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_KERNEL)
            continue;
        unsigned fl = ps_names_flags(names, op.name);
        int32_t device = m->streams.v[op.stream].device;
        if (fl & PS_NAME_HTA_COMM) {
            comm[ncomm++] = (struct dev_ivl){ device, op.start_ns, op.end_ns, op.name, (int64_t)op.bytes };
        } else if (fl & PS_NAME_HTA_COMPUTE) {
            size_t d = 0;
            while (d < ndevs && devs[d].device != device)
                d++;
            if (d == ndevs)
                devs[ndevs++].device = device;
            if (ps_run_add(&devs[d].run, op.start_ns, op.end_ns, &s, &e) &&
                push_piece(&comp, &ncomp, &capcomp, device, s, e) < 0)
                goto out;
        }
    }
    for (size_t d = 0; d < ndevs; d++)
        if (ps_run_flush(&devs[d].run, &s, &e) && push_piece(&comp, &ncomp, &capcomp, devs[d].device, s, e) < 0)
            goto out;
    if (ncomp > 1)   /* by device; within one, pieces came out in increasing order */
        qsort(comp, ncomp, sizeof *comp, cmp_dev_ivl);
    for (size_t i = 0; i < ncomm; i++) {
        const struct dev_ivl *c = &comm[i];
        size_t lo = device_bound(comp, ncomp, c->device), hi = device_bound(comp, ncomp, c->device + 1LL);
        int64_t dur = c->e - c->s, exposed = dur - covered(comp + lo, hi - lo, c->s, c->e);
        const char *name = ps_model_str(m, c->name);
        struct ps_collective_stat *row;
        if ((rc = collective_row(f, name ? name : "?", c->bytes > 0 ? c->bytes : -1, 0, &row)) < 0)
            goto out;
        row->count++;
        row->total_ns += dur;
        row->exposed_ns += exposed;
    }
    rc = 0;
out:
    free(comp);
    free(comm);
    free(devs);
    return rc;
}

/* ---- host: the Python hook's collective ranges (docs/python.md) ---- */

struct host_pass {
    int64_t *mark_bytes;        /* per thread: the bytes of its latest `collective` mark, -1 none */
    size_t *open_row;           /* per thread: the row of the collective range it is inside, SIZE_MAX none */
    int64_t *open_end;
    int64_t ddp_bytes;          /* the `DDP` marks' gradient_bytes (one value), -1 unknown or several */
    int ddp_marks;
    uint32_t dom;               /* the hook's NVTX domain's string id once seen (ps_hook_mark_of) */
};

/* One host range of the analysed process, in start order. */
static int host_range(struct ps_rank_file *f, struct host_pass *p, struct ps_names *names, const struct ps_model *m,
                      const struct ps_range *g)
{
    const char *text = ps_model_str(m, g->name);
    uint32_t t = g->thread;
    if (g->kind == PS_RANGE_NVTX_MARK) {   /* the hook's `collective` and `DDP` marks (hook_marks.c) */
        struct ps_hook_mark mk;
        if (ps_hook_mark_of(m, g, &p->dom, &mk) < 0)
            return 0;
        if (t != PS_NONE && mk.kind == PS_HOOK_MARK_COLLECTIVE)
            p->mark_bytes[t] = ps_hook_mark_int_or(&mk, "bytes", 0, INT64_MAX, -1);
        if (mk.kind == PS_HOOK_MARK_DDP) {
            int64_t b = ps_hook_mark_int_or(&mk, "gradient_bytes", 0, INT64_MAX, -1);
            p->ddp_bytes = p->ddp_marks++ == 0 || b == p->ddp_bytes ? b : -1;
        }
        return 0;
    }
    if (t == PS_NONE || g->kind == PS_RANGE_PYTHON || g->kind == PS_RANGE_GPU_ANNOTATION)
        return 0;
    unsigned fl = ps_names_flags(names, g->name);
    int ddp = strcmp(text, "ddp:gradient_allreduce") == 0;
    int64_t dur = g->end_ns - g->start_ns;
    if (fl & PS_NAME_HOST_COMM_WAIT) {         /* a wait inside the collective (or DDP sync) its thread is in */
        if (p->open_row[t] != SIZE_MAX && g->start_ns < p->open_end[t]) {
            struct ps_collective_stat *c = &f->collectives[p->open_row[t]];
            c->wait_ns += dur;
            if (strcmp(c->name, "ddp:gradient_allreduce") == 0)
                c->exposed_ns += dur;      /* DDP's sync overlaps backward: its exposed part is the wait */
        }
        return 0;
    }
    if (!(fl & PS_NAME_HOST_COMM) && !ddp)
        return 0;
    struct ps_collective_stat *c;
    int rc = collective_row(f, text, ddp ? p->ddp_bytes : p->mark_bytes[t], 1, &c);
    if (rc < 0)
        return rc;
    c->count++;
    c->total_ns += dur;
    if (!ddp)
        c->exposed_ns += dur;              /* the calling thread is blocked for the whole call */
    p->mark_bytes[t] = -1;                 /* a mark pairs with one range */
    p->open_row[t] = (size_t)(c - f->collectives);
    p->open_end[t] = g->end_ns;
    return 0;
}

/* The analysed process's collective ranges as rows (`rows` 0: none, only the waits), and the step thread's time
 * blocked in waits per step. */
static int host_collectives(struct ps_rank_file *f, const struct ps_report *r, struct ps_names *names, int rows)
{
    const struct ps_model *m = r->m;
    const struct ps_view *v = r->scope;
    size_t nt = m->threads.n + 1;
    struct host_pass p = { .mark_bytes = malloc(nt * sizeof *p.mark_bytes),
                           .open_row = malloc(nt * sizeof *p.open_row), .open_end = calloc(nt, sizeof *p.open_end),
                           .ddp_bytes = -1, .dom = PS_NONE };
    struct ps_ivls waits = { 0 };
    int rc = p.mark_bytes && p.open_row && p.open_end ? 0 : -ENOMEM;
    for (size_t i = 0; i < nt && rc == 0; i++) {
        p.mark_bytes[i] = -1;
        p.open_row[i] = SIZE_MAX;
    }
    for (size_t i = 0; i < v->nranges && rc == 0; i++) {
        const struct ps_range *g = ps_view_range(v, i);
        rc = rows ? host_range(f, &p, names, m, g) : 0;
        if (rc == 0 && g->thread == r->step_thread && g->kind != PS_RANGE_NVTX_MARK &&
            (ps_names_flags(names, g->name) & PS_NAME_HOST_COMM_WAIT))
            rc = ps_ivls_push(&waits, g->start_ns, g->end_ns);
    }
    if (rc == 0 && r->nsteps > 0 && !r->whole_run) {
        ps_ivls_normalize(&waits);
        int64_t sum = 0, n = (int64_t)r->nsteps;
        for (size_t i = 0; i < r->nsteps; i++)
            sum += ps_ivls_within(&waits, r->steps[i].start_ns, r->steps[i].end_ns);
        f->comm_wait_ns = (sum + n / 2) / n;
    }
    ps_ivls_fini(&waits);
    free(p.mark_bytes);
    free(p.open_row);
    free(p.open_end);
    return rc;
}

/* ---- the rank file ---- */

/* Its rank: metadata, else the processes' one rank, else the file name; -1 and "order" when none (the several-file
 * report numbers such files by their position). */
static void rank_of(struct ps_rank_file *f, const struct ps_report *r)
{
    int32_t rank, world, proc_rank;
    ps_report_rank(r, &rank, &world);
    f->world_size = world > 0 ? world : -1;   /* a Kineto distributedInfo may say 0: unknown, as a merge reads it */
    if (rank == INT32_MAX)                    /* Kineto's rank 2^31-1: no rank below a world size of 2^31-1 */
        rank = -1;
    f->launcher_ranks = ps_report_process_ranks(r, &proc_rank);
    f->rank = -1;
    f->rank_source = PS_RANK_FROM_ORDER;
    if (f->launcher_ranks >= 2)             /* every rank a process: the file is not one rank of them */
        return;
    if (rank >= 0) {
        f->rank = rank;
        f->rank_source = PS_RANK_FROM_META;
    } else if (proc_rank >= 0) {
        f->rank = proc_rank;
        f->rank_source = PS_RANK_FROM_PROCESSES;
    } else if ((f->rank = rank_from_file_name(f->path)) >= 0) {
        f->rank_source = PS_RANK_FROM_FILE_NAME;
    }
}

/* The Unix-epoch ns between 2000-01-01 and 2100-01-01: a trace time in it is a wall-clock time. */
#define EPOCH_LO_NS (946684800LL * 1000000000LL)
#define EPOCH_HI_NS (4102444800LL * 1000000000LL)

/* What says whether files are ranks of one job (rank_checks.c): the host, command line and local rank
 * (PERFSCOPE_META), and the wall-clock span the trace covers. perfscope: start_utc_epoch_ns to start + duration_ns
 * (the program's, else the last row's end). Kineto: its times when they are epoch times, i.e. without
 * baseTimeNanoseconds and between 2000 and 2100 (PyTorch 1.x and some 2.x write epoch µs), or with one when the
 * times lie within a day after it; Kineto builds that write `ts` from another clock (the shared nccl_2rank and
 * h100_owlv2 traces: µs since boot) beside a baseTimeNanoseconds get no span. nsys exports: none
 * (TARGET_INFO_SESSION_START_TIME is not read). 0 or -ENOMEM. */
static int job_facts(struct ps_rank_file *f, const struct ps_report *r)
{
    const char *host = ps_report_meta(r, "host"), *cmd = ps_report_meta(r, "command_line");
    long long v, dur;
    enum ps_fact fact, dfact;
    f->start_epoch_ns = f->end_epoch_ns = -1;
    ps_report_meta_int(r, "local_rank", 0, INT32_MAX - 1, &v, &fact);
    f->local_rank = fact == PS_FACT_KNOWN ? (int32_t)v : -1;
    if ((host && host[0] && !(f->host = strdup(host))) || (cmd && cmd[0] && !(f->command = strdup(cmd))))
        return -ENOMEM;
    if (strcmp(r->trace.format, "perfscope") == 0) {
        ps_report_meta_int(r, "start_utc_epoch_ns", EPOCH_LO_NS, EPOCH_HI_NS, &v, &fact);
        ps_report_meta_int(r, "duration_ns", 0, EPOCH_HI_NS, &dur, &dfact);
        if (fact == PS_FACT_KNOWN) {
            f->start_epoch_ns = v;
            f->end_epoch_ns = v + (dfact == PS_FACT_KNOWN ? dur : r->run_end_ns > 0 ? r->run_end_ns : 0);
        }
    } else if (strcmp(r->trace.format, "kineto") == 0 && r->run_end_ns > r->run_start_ns) {
        int64_t base = ps_report_kineto_base_ns(r);
        int epoch = base == 0 ? r->run_start_ns >= EPOCH_LO_NS && r->run_end_ns < EPOCH_HI_NS
                              : base >= EPOCH_LO_NS && base < EPOCH_HI_NS && r->run_start_ns >= base &&
                                r->run_end_ns - base < 86400LL * 1000000000LL;
        if (epoch) {
            f->start_epoch_ns = r->run_start_ns;
            f->end_epoch_ns = r->run_end_ns;
        }
    }
    return 0;
}

/* qsort order of collective rows: total_ns descending, then name, then bytes. */
static int collective_cmp(const void *a, const void *b)
{
    const struct ps_collective_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
    int c = strcmp(x->name, y->name);
    return c ? c : (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Per verdict group, the rank's own largest name in it (f->group_top): of the causes in the group
 * (ps_cause_group), the top name that takes the most time per average steady step (causes.c). The causes
 * name no GPU kernel: with GPU rows, the kernel group's name is the kernel table's first kernel that is not
 * communication (the run's most time, r->kernels). What the several-rank report names a straggler's excess by
 * (straggler.c). 0 or -ENOMEM. */
static int group_names(struct ps_rank_file *f, const struct ps_report *r, struct ps_names *names)
{
    const struct ps_causes *cs = &r->causes;
    const struct ps_cause_name *best[PS_BN_UNKNOWN] = { 0 };
    for (int c = 0; cs->computed && c < PS_CAUSE_N; c++) {
        const struct ps_cause_stat *st = &cs->c[c];
        enum ps_bottleneck g = ps_cause_group((enum ps_cause)c, cs->host_only);
        if (g != PS_BN_UNKNOWN && st->ntop > 0 && st->top[0].ns > 0 && (!best[g] || st->top[0].ns > best[g]->ns))
            best[g] = &st->top[0];
    }
    uint32_t kernel = PS_NONE;
    for (size_t k = 0; r->has_gpu && !best[PS_BN_KERNEL] && k < r->nkernels && kernel == PS_NONE; k++)
        if (!(ps_names_flags(names, r->kernels[k].name) & PS_NAME_HTA_COMM) && r->kernels[k].total_ns > 0)
            kernel = r->kernels[k].name;
    for (int g = 0; g < PS_BN_UNKNOWN; g++) {
        const char *name = best[g]                                  ? ps_report_name(r, best[g]->name)
                           : g == PS_BN_KERNEL && kernel != PS_NONE ? ps_report_name(r, kernel)
                                                                    : NULL;
        if (name && name[0] && !(f->group_top[g] = strdup(name)))
            return -ENOMEM;
    }
    return 0;
}

int ps_rank_summary_compute(struct ps_report *r, struct ps_names *names)
{
    struct ps_rank_file *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    r->rank_summary = f;
    f->path = r->trace.path;
    f->format = r->trace.format;
    rank_of(f, r);
    f->whole_run = r->whole_run;
    for (size_t i = 0; i < r->ndevs; i++)
        f->gpu_ops += r->devs[i].kernel_count + r->devs[i].memcpy_count + r->devs[i].memset_count;
    f->has_gpu = r->has_gpu;
    f->steps_inferred = r->steps_inferred;
    f->stat = (struct ps_rank_stat){ .nsteps = r->nsteps, .avg_dur_ns = r->avg_dur_ns, .sync_ns = r->avg.sync_ns,
                                     .pretrace_ns = r->avg.pretrace_ns, .bottleneck = r->bottleneck,
                                     .share = r->share, .seen_ns = r->avg.seen_ns };
    memcpy(f->stat.cat_ns, r->avg.cat_ns, sizeof f->stat.cat_ns);
    /* every rank over the same span as its breakdown: all its analysed steps, start-up included */
    f->stat.bottleneck = ps_verdict_all_steps(r, f->stat.group_ns, &f->stat.seen_ns, &f->stat.share);
    f->comm_comp_overlap = r->comm_comp_overlap;
    int complete;
    enum ps_fact fact;
    ps_report_recording_complete(r, &complete, &fact);
    f->recording_complete = fact == PS_FACT_KNOWN ? complete : -1;
    int rc = job_facts(f, r);
    if (rc == 0)
        rc = group_names(f, r, names);
    if (rc == 0)
        rc = gpu_collectives(f, r, names);
    if (rc == 0)   /* with communication kernels the host calls are their launches: the kernels are the table */
        rc = host_collectives(f, r, names, f->ncollectives == 0);
    if (rc == 0 && f->ncollectives > 1)
        qsort(f->collectives, f->ncollectives, sizeof *f->collectives, collective_cmp);
    return rc;
}

void ps_rank_file_fini(struct ps_rank_file *f)
{
    for (size_t k = 0; k < f->ncollectives; k++)
        free(f->collectives[k].name);
    free(f->collectives);
    free(f->owned_path);
    free(f->host);
    free(f->command);
    for (int g = 0; g < PS_BN_UNKNOWN; g++)
        free(f->group_top[g]);
    memset(f, 0, sizeof *f);
}

/* nccl-tests' bus-bandwidth factor of a collective by its name (doc/PERFORMANCE.md in NVIDIA/nccl-tests): all-reduce
 * 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, broadcast, reduce and point-to-point 1; NAN for another name. */
static double bus_factor(const char *name, int32_t n)
{
    char flat[64];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof flat; p++)   /* "ncclKernel_AllReduce_RING", "gloo:all_reduce" */
        if (*p != '_')
            flat[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    flat[k] = '\0';
    double m = (double)n;
    if (strstr(flat, "allreduce"))
        return 2.0 * (m - 1.0) / m;
    if (strstr(flat, "allgather") || strstr(flat, "reducescatter"))
        return (m - 1.0) / m;
    if (strstr(flat, "broadcast") || strstr(flat, "reduce") || strstr(flat, "send") || strstr(flat, "recv"))
        return 1.0;
    return NAN;
}

void ps_collective_bandwidth(const struct ps_collective_stat *c, int32_t world_size, double *algbw, double *busbw)
{
    *algbw = *busbw = NAN;
    if (c->bytes <= 0 || c->total_ns <= 0 || c->count <= 0)
        return;
    *algbw = (double)c->bytes * (double)c->count / (double)c->total_ns;
    if (world_size >= 2)
        *busbw = *algbw * bus_factor(c->name, world_size);
}

void ps_rank_file_free(struct ps_rank_file *f)
{
    if (!f)
        return;
    ps_rank_file_fini(f);
    free(f);
}
