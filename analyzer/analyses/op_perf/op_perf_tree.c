/* TraceLens' call tree of a Kineto trace and its CPU -> GPU links (TraceLens/Trace2Tree/trace_to_tree.py:
 * build_host_call_stack_tree, add_gpu_ops_to_tree, _find_corresponding_output_event, _get_graph_gpu_events), and
 * busy time as its GPU event analyser computes it (TreePerf/gpu_event_analyser.py merge_intervals), on the
 * trace's float64 µs. docs/op-perf.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"
#include "op_perf_testing.h"

int tl_u32_push(struct tl_u32v *v, uint32_t x)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        uint32_t *p = realloc(v->v, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        v->v = p;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

int tl_is_gpu(const struct ps_op_trace *t, uint32_t i)
{
    uint8_t c = t->ev.v[i].cat;
    return c == PS_OPEV_KERNEL || c == PS_OPEV_MEMCPY || c == PS_OPEV_MEMSET;
}

const char *tl_name(const struct tl_tree *tr, uint32_t i)
{
    return ps_op_trace_str(tr->t, tr->t->ev.v[i].name);
}

/* process_name / process_labels / thread_name of an event's pid, tid; "Unknown" when absent (last one wins). */
void tl_names_for(const struct tl_tree *tr, uint32_t i, const char *out[3])
{
    const struct ps_op_trace *t = tr->t;
    const struct ps_op_event *e = &t->ev.v[i];
    out[0] = out[1] = out[2] = "Unknown";
    int found[3] = { 0, 0, 0 };
    for (size_t k = t->meta.n; k-- > 0;) {
        const struct ps_op_meta *m = &t->meta.v[k];
        if (!e->has_pid_tid || m->pid != e->pid || found[m->kind])
            continue;
        if (m->kind == PS_OPMETA_THREAD_NAME ? m->tid == e->tid : 1) {
            out[m->kind] = ps_op_trace_str(t, m->value);
            found[m->kind] = 1;
        }
    }
}

/* One recorded argument of event i (which: 0 Input Dims, 1 Input type, 2 Input Strides, 3 Concrete Inputs), NULL when
 * absent. */
const char *tl_arg_text(const struct tl_tree *tr, uint32_t i, int which)
{
    const struct ps_op_event *e = &tr->t->ev.v[i];
    if (e->args == PS_NONE)
        return NULL;
    const struct ps_op_args *a = &tr->t->args.v[e->args];
    uint32_t id = which == 0 ? a->dims : which == 1 ? a->types : which == 2 ? a->strides : a->concrete;
    return id == PS_NONE ? NULL : ps_op_trace_str(tr->t, id);
}

static void add_child(struct tl_tree *tr, uint32_t parent, uint32_t child)
{
    tr->parent[child] = parent;
    tr->next_sib[child] = PS_NONE;
    if (tr->child_head[parent] == PS_NONE)
        tr->child_head[parent] = child;
    else
        tr->next_sib[tr->child_tail[parent]] = child;
    tr->child_tail[parent] = child;
}

/* ---- small hash: (a, b, c) int64 keys -> uint32 value, last insert wins ---- */
struct tl_map {
    struct { int64_t a, b, c; uint32_t v; uint8_t used; } *s;
    size_t cap, n;
};

static size_t map_slot(const struct tl_map *m, int64_t a, int64_t b, int64_t c)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)c * 0x165667B19E3779F9ull;
    size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
    while (m->s[i].used && !(m->s[i].a == a && m->s[i].b == b && m->s[i].c == c))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_init(struct tl_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 16)
        m->cap *= 2;
    m->n = 0;
    m->s = calloc(m->cap, sizeof *m->s);
    return m->s ? 0 : -ENOMEM;
}

static void map_put(struct tl_map *m, int64_t a, int64_t b, int64_t c, uint32_t v)
{
    size_t i = map_slot(m, a, b, c);
    m->s[i].a = a, m->s[i].b = b, m->s[i].c = c, m->s[i].v = v, m->s[i].used = 1;
}

static uint32_t map_get(const struct tl_map *m, int64_t a, int64_t b, int64_t c)
{
    size_t i = map_slot(m, a, b, c);
    return m->s[i].used ? m->s[i].v : PS_NONE;
}

/* ---- host tree ---- */
static const struct ps_op_trace *sort_t;

static int by_ts(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    double ta = sort_t->ev.v[a].ts_us, tb = sort_t->ev.v[b].ts_us;
    return ta < tb ? -1 : ta > tb ? 1 : (a > b) - (a < b);
}

struct stack {
    int64_t pid, tid;
    struct tl_u32v s;
    int ncpu;
};

static struct stack *stack_of(struct stack **st, size_t *n, const struct ps_op_event *e)
{
    int64_t pid = e->has_pid_tid ? e->pid : INT64_MIN, tid = e->has_pid_tid ? e->tid : INT64_MIN;
    for (size_t i = *n; i-- > 0;)
        if ((*st)[i].pid == pid && (*st)[i].tid == tid)
            return &(*st)[i];
    struct stack *p = realloc(*st, (*n + 1) * sizeof *p);
    if (!p)
        return NULL;
    *st = p;
    memset(&p[*n], 0, sizeof p[*n]);
    p[*n].pid = pid, p[*n].tid = tid;
    return &p[(*n)++];
}

static int host_tree(struct tl_tree *tr)
{
    const struct ps_op_trace *t = tr->t;
    uint32_t *host = malloc((tr->n + 1) * sizeof *host);
    struct stack *st = NULL;
    size_t nst = 0, nh = 0;
    int rc = host ? 0 : -ENOMEM;
    for (uint32_t i = 0; host && i < tr->n; i++)
        if (!tl_is_gpu(t, i))
            host[nh++] = i;
    sort_t = t;
    if (host)
        qsort(host, nh, sizeof *host, by_ts);   /* stable by ts: file order breaks ties */
    for (size_t k = 0; rc == 0 && k < nh; k++) {
        uint32_t i = host[k];
        const struct ps_op_event *e = &t->ev.v[i];
        struct stack *s = stack_of(&st, &nst, e);
        if (!s) {
            rc = -ENOMEM;
            break;
        }
        while (s->s.n && e->ts_us >= tr->t_end[s->s.v[s->s.n - 1]])
            s->ncpu -= t->ev.v[s->s.v[--s->s.n]].cat == PS_OPEV_CPU_OP;
        if (s->s.n && tr->t_end[i] > tr->t_end[s->s.v[s->s.n - 1]])
            continue;                          /* overhangs its would-be parent: not in the tree */
        if (s->s.n)
            add_child(tr, s->s.v[s->s.n - 1], i);
        if (tl_u32_push(&s->s, i) < 0)
            rc = -ENOMEM;
        if (e->cat == PS_OPEV_CPU_OP) {
            if (s->ncpu == 0 && tl_u32_push(&tr->roots, i) < 0)
                rc = -ENOMEM;
            s->ncpu++;
        }
    }
    for (size_t k = 0; k < nst; k++)
        free(st[k].s.v);
    free(st);
    free(host);
    return rc;
}

/* ---- GPU links ---- */
static int attach(struct tl_tree *tr, uint32_t rt, uint32_t g)
{
    if (g == rt)
        return 0;
    add_child(tr, rt, g);
    tr->linked[g] = 1;
    for (uint32_t p = rt; p != PS_NONE; p = tr->parent[p])
        if (tl_u32_push(&tr->gpu_events[p], g) < 0)
            return -ENOMEM;
    return 0;
}

static int64_t link_of(const struct ps_op_trace *t, const struct ps_op_event *e, int *has)
{
    *has = t->link_by_ext ? e->has_ext : e->has_corr;
    return t->link_by_ext ? e->ext : e->corr;
}

static int by_corr(const void *x, const void *y)
{
    const struct ps_op_event *a = &sort_t->ev.v[*(const uint32_t *)x], *b = &sort_t->ev.v[*(const uint32_t *)y];
    if (a->corr != b->corr)
        return a->corr < b->corr ? -1 : 1;
    return (a->uid > b->uid) - (a->uid < b->uid);
}

static int graph_launch(struct tl_tree *tr, const uint32_t *gpu_by_corr, size_t ng, uint32_t rt, int64_t corr)
{
    size_t lo = 0, hi = ng;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tr->t->ev.v[gpu_by_corr[mid]].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < ng && tr->t->ev.v[gpu_by_corr[lo]].corr == corr; lo++)
        if (attach(tr, rt, gpu_by_corr[lo]) < 0)
            return -ENOMEM;
    return 0;
}

static int link_gpu(struct tl_tree *tr)
{
    const struct ps_op_trace *t = tr->t;
    struct tl_map starts = { 0 }, ends = { 0 }, out = { 0 };
    uint32_t *gpu_by_corr = malloc((tr->n + 1) * sizeof *gpu_by_corr);
    size_t ng = 0;
    int rc = -ENOMEM, has;
    if (!gpu_by_corr || map_init(&starts, t->flows.n) || map_init(&ends, t->flows.n) || map_init(&out, tr->n))
        goto done;
    for (size_t k = 0; k < t->flows.n; k++) {
        const struct ps_op_flow *f = &t->flows.v[k];
        if (f->is_start)
            map_put(&starts, f->id, 0, 0, 1);
        else if (f->has_pid_tid)
            map_put(&ends, f->id, 0, 0, (uint32_t)k);
    }
    for (uint32_t i = 0; i < tr->n; i++) {
        const struct ps_op_event *e = &t->ev.v[i];
        int64_t l = link_of(t, e, &has);
        if (has && e->has_pid_tid)
            map_put(&out, e->pid, e->tid, l, i);
        if (tl_is_gpu(t, i) && e->has_corr)
            gpu_by_corr[ng++] = i;
    }
    sort_t = t;
    qsort(gpu_by_corr, ng, sizeof *gpu_by_corr, by_corr);
    rc = 0;
    for (uint32_t i = 0; rc == 0 && i < tr->n; i++) {
        const struct ps_op_event *e = &t->ev.v[i];
        if (e->cat != PS_OPEV_RUNTIME && e->cat != PS_OPEV_DRIVER)
            continue;
        int64_t l = link_of(t, e, &has);
        if (!has)
            continue;
        const char *name = tl_name(tr, i);
        if (strcmp(name, "cudaGraphLaunch") == 0 || strcmp(name, "hipGraphLaunch") == 0) {
            rc = graph_launch(tr, gpu_by_corr, ng, i, l);
            continue;
        }
        uint32_t fe = map_get(&ends, l, 0, 0);
        if (map_get(&starts, l, 0, 0) == PS_NONE || fe == PS_NONE)
            continue;
        uint32_t g = map_get(&out, t->flows.v[fe].pid, t->flows.v[fe].tid, l);
        if (g != PS_NONE)
            rc = attach(tr, i, g);
    }
done:
    free(starts.s);
    free(ends.s);
    free(out.s);
    free(gpu_by_corr);
    return rc;
}

/* The model family of each cpu_op, looked up once per distinct name. */
static int families(struct tl_tree *tr, tl_family_fn *family_of)
{
    const struct ps_op_trace *t = tr->t;
    int8_t *by_name = malloc(t->nstr + 1);
    tr->family = malloc(tr->n + 1);
    if (!by_name || !tr->family) {
        free(by_name);
        return -ENOMEM;
    }
    memset(by_name, -2, t->nstr + 1);
    for (size_t i = 0; i < tr->n; i++) {
        const struct ps_op_event *e = &t->ev.v[i];
        if (e->cat != PS_OPEV_CPU_OP || e->name >= t->nstr) {
            tr->family[i] = -1;
            continue;
        }
        int f;
        if (by_name[e->name] == -2)
            by_name[e->name] = (int8_t)(family_of(ps_op_trace_str(t, e->name), &f) ? f : -1);
        tr->family[i] = by_name[e->name];
    }
    free(by_name);
    return 0;
}

static size_t tree_builds;   /* op_perf_testing.h: how many trees were built, for the tests of their count */

size_t ps_op_perf_tree_builds(void)
{
    return __atomic_load_n(&tree_builds, __ATOMIC_RELAXED);
}

int tl_tree_init(struct tl_tree *tr, const struct ps_op_trace *t, tl_family_fn *family_of)
{
    __atomic_add_fetch(&tree_builds, 1, __ATOMIC_RELAXED);
    memset(tr, 0, sizeof *tr);
    tr->t = t;
    tr->n = t->ev.n;
    size_t n = tr->n + 1;
    tr->t_end = malloc(n * sizeof *tr->t_end);
    tr->parent = malloc(n * sizeof(uint32_t));
    tr->child_head = malloc(n * sizeof(uint32_t));
    tr->child_tail = malloc(n * sizeof(uint32_t));
    tr->next_sib = malloc(n * sizeof(uint32_t));
    tr->gpu_events = calloc(n, sizeof *tr->gpu_events);
    tr->linked = calloc(n, 1);
    if (!tr->t_end || !tr->parent || !tr->child_head || !tr->child_tail || !tr->next_sib || !tr->gpu_events ||
        !tr->linked) {
        tl_tree_fini(tr);
        return -ENOMEM;
    }
    for (size_t i = 0; i < tr->n; i++) {
        tr->t_end[i] = t->ev.v[i].ts_us + t->ev.v[i].dur_us;
        tr->parent[i] = tr->child_head[i] = tr->child_tail[i] = tr->next_sib[i] = PS_NONE;
    }
    int rc = families(tr, family_of);
    if (rc == 0)
        rc = host_tree(tr);
    if (rc == 0)
        rc = link_gpu(tr);
    if (rc < 0)
        tl_tree_fini(tr);
    return rc;
}

void tl_tree_fini(struct tl_tree *tr)
{
    if (tr->gpu_events)
        for (size_t i = 0; i < tr->n; i++)
            free(tr->gpu_events[i].v);
    free(tr->gpu_events);
    free(tr->t_end);
    free(tr->parent);
    free(tr->child_head);
    free(tr->child_tail);
    free(tr->next_sib);
    free(tr->linked);
    free(tr->roots.v);
    free(tr->family);
    memset(tr, 0, sizeof *tr);
}

int tl_subtree_gpu(const struct tl_tree *tr, uint32_t i, struct tl_u32v *out)
{
    if (tl_is_gpu(tr->t, i))
        return tl_u32_push(out, i);
    for (uint32_t c = tr->child_head[i]; c != PS_NONE; c = tr->next_sib[c])
        if (tl_subtree_gpu(tr, c, out) < 0)
            return -ENOMEM;
    return 0;
}

struct iv {
    double s, e;
    uint32_t k;
};

static int by_start(const void *x, const void *y)
{
    const struct iv *a = x, *b = y;
    return a->s < b->s ? -1 : a->s > b->s ? 1 : (a->k > b->k) - (a->k < b->k);
}

int tl_busy(const struct tl_tree *tr, const uint32_t *ev, size_t n, double *us)
{
    *us = 0.0;
    if (n == 0)
        return 0;
    struct iv stack_iv[64], *v = n <= 64 ? stack_iv : malloc(n * sizeof *v);
    if (!v)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++)
        v[k] = (struct iv){ tr->t->ev.v[ev[k]].ts_us, tr->t_end[ev[k]], (uint32_t)k };
    qsort(v, n, sizeof *v, by_start);
    double total = 0.0, s = v[0].s, e = v[0].e;
    for (size_t k = 1; k < n; k++) {
        if (v[k].s <= e) {
            if (v[k].e > e)
                e = v[k].e;
        } else {
            total += e - s;
            s = v[k].s, e = v[k].e;
        }
    }
    total += e - s;
    if (v != stack_iv)
        free(v);
    *us = total;
    return 0;
}

int tl_sort_by_dur(const struct tl_tree *tr, uint32_t *ev, size_t n)
{
    if (n < 2)
        return 0;
    struct iv *v = malloc((n + 1) * sizeof *v);
    uint32_t *copy = malloc((n + 1) * sizeof *copy);
    if (!v || !copy) {
        free(v), free(copy);
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
        v[k] = (struct iv){ tr->t->ev.v[ev[k]].dur_us, 0, (uint32_t)k };
    qsort(v, n, sizeof *v, by_start);   /* by dur here, position breaking ties */
    memcpy(copy, ev, n * sizeof *copy);
    for (size_t k = 0; k < n; k++)
        ev[k] = copy[v[k].k];
    free(copy);
    free(v);
    return 0;
}
