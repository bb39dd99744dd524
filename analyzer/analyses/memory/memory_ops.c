/* The memory view's per-operator table, as the PyTorch profiler's TensorBoard plugin makes it (pytorch/kineto
 * tb_plugin/torch_tb_profiler):
 *  - the operator tree per thread id (profiler/op_tree.py OpTreeBuilder._build_tree_internal; which events become
 *    nodes: profiler/event_parser.py NodeParserMixin._parse_node and profiler/node.py create_operator_node);
 *  - each memory record to the innermost node holding its time, kept only when that node is an operator
 *    (profiler/memory_parser.py MemoryParser.find_memory_nodes);
 *  - the six sizes per operator name, self and with children, and the calls
 *    (memory_parser.py MemorySnapshot.get_memory_statistics).
 * Deliberate differences: the plugin's regrouping of backward operators under `<module>.backward` nodes (traces with
 * fwdbwd flows and Python module events) is not done, so those records stay attributed to their own operators
 * instead of being lost; python_function events (module nodes) do not shape the tree. Times are the trace's integer
 * ns, not the plugin's float µs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memory_impl.h"

enum node_kind { NK_OP, NK_STEP, NK_OTHER };

struct node {
    int64_t start, end;
    uint32_t tid, name;
    uint8_t kind;                  /* enum node_kind */
    uint8_t type_op;               /* from a cpu_op event (the plugin's EventTypes.OPERATOR) */
    uint8_t is_operator;           /* the plugin's is_operator_node */
    uint8_t processed, dropped;
    uint32_t range;                /* model index, the sort's last key */
    uint32_t parent, first, next, last, nchild;   /* node indices; NONE_IDX: none (parent: the thread's root) */
};

struct tree {
    struct node *v;
    size_t n;
    size_t *root_first;            /* per thread segment: first child of the root */
    size_t *seg_lo, *seg_hi;       /* nodes [lo, hi) of a thread */
    size_t nseg;
};

#define NONE_IDX UINT32_MAX   /* no node; a tree holds fewer nodes (tree_build) */

static int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* node.py create_operator_node / is_operator_node and event_parser.py: what a host range becomes. */
static int classify(const struct ps_model *m, const struct ps_range *r, struct node *n)
{
    const char *name = ps_model_str(m, r->name);
    static const char *const collectives[] = {
        "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
        "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
    };
    if (r->kind != PS_RANGE_CPU_OP && r->kind != PS_RANGE_USER_ANNOTATION)
        return 0;
    n->type_op = r->kind == PS_RANGE_CPU_OP;
    if (starts_with(name, "ProfilerStep#")) {
        n->kind = NK_STEP, n->type_op = 0;
        return 1;
    }
    size_t len = strlen(name);
    int loader = (starts_with(name, "enumerate(DataLoader)#") && len >= 9 && !strcmp(name + len - 9, ".__next__")) ||
                 starts_with(name, "enumerate(DataPipe)#");
    if (loader || starts_with(name, "Optimizer.step")) {
        n->kind = NK_OTHER;
        return 1;
    }
    if (r->kind == PS_RANGE_USER_ANNOTATION) {
        for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; i++)
            if (!strcmp(name, collectives[i])) {
                n->kind = NK_OTHER;
                return 1;
            }
        return 0;
    }
    n->kind = NK_OP;
    n->is_operator = strcmp(name, "DataParallel.forward") && strcmp(name, "DistributedDataParallel.forward") &&
                     !starts_with(name, "Optimizer.");
    return 1;
}

static int node_cmp(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;          /* the longer first: the parent */
    return x->range < y->range ? -1 : x->range > y->range;
}

/* Append c to the children of `parent` (a node; the thread root's children are linked by build_segment). */
static void add_child(struct tree *t, size_t parent, size_t c)
{
    struct node *p = &t->v[parent];
    t->v[c].parent = parent;
    if (p->first == NONE_IDX)
        p->first = c;
    else
        t->v[p->last].next = c;
    p->last = c;
    p->nchild++;
}

/* op_tree.py _build_tree_internal for nodes [lo, hi) of one thread (sorted by start, longer first): each node goes
 * under the innermost open node that holds it; a node that overlaps its would-be parent's end is dropped. */
static int build_segment(struct tree *t, size_t seg, size_t *stack)
{
    size_t depth = 0, root_last = NONE_IDX;
    for (size_t i = t->seg_lo[seg]; i < t->seg_hi[seg]; i++) {
        struct node *n = &t->v[i];
        while (depth && n->start >= t->v[stack[depth - 1]].end)
            depth--;
        size_t parent = depth ? stack[depth - 1] : NONE_IDX;
        if (parent != NONE_IDX && n->end > t->v[parent].end) {
            n->dropped = 1;
            continue;
        }
        if (parent == NONE_IDX) {                     /* the root's children: keep the last for O(1) appends */
            if (root_last == NONE_IDX)
                t->root_first[seg] = i;
            else
                t->v[root_last].next = i;
            root_last = i;
            n->parent = NONE_IDX;
        } else {
            add_child(t, parent, i);
        }
        stack[depth++] = i;
    }
    /* op_tree.py remove_dup_nodes: an operator with exactly one child operator of its name absorbs the child's
     * children (pre-order: parents come first in the segment) */
    for (size_t i = t->seg_lo[seg]; i < t->seg_hi[seg]; i++) {
        struct node *n = &t->v[i];
        while (!n->dropped && n->nchild == 1 && n->type_op && t->v[n->first].type_op &&
               t->v[n->first].name == n->name) {
            struct node *c = &t->v[n->first];
            c->dropped = 1;
            n->first = c->first, n->last = c->last, n->nchild = c->nchild;
            for (size_t g = c->first; g != NONE_IDX; g = t->v[g].next)
                t->v[g].parent = i;
        }
    }
    return 0;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Nodes in node_cmp order, placed rather than sorted: the model's ranges come sorted by start, so counting the
 * nodes of each thread id and placing each after the ones before it gives (tid, start) order at once; only runs
 * of equal start are then sorted (the longer first). class_of[i]: range i's node prototype (0: none). A
 * model not in start order (never made by ps_model_finish) is sorted whole. 0 or -ENOMEM. */
static int place_nodes(struct tree *t, const struct ps_model *m, const struct node *proto, const uint8_t *class_of)
{
    size_t nthr = m->threads.n, ntid = 0;
    uint32_t *tids = malloc((nthr + 1) * sizeof *tids), *rank = malloc((nthr + 1) * sizeof *rank);
    size_t *next = calloc(nthr + 1, sizeof *next), *begin = malloc((nthr + 1) * sizeof *begin);
    int rc = tids && rank && next && begin ? 0 : -ENOMEM;
    for (size_t k = 0; rc == 0 && k < nthr; k++)
        tids[k] = m->threads.v[k].tid;
    if (rc == 0 && nthr) {
        qsort(tids, nthr, sizeof *tids, u32_cmp);
        for (size_t k = 0; k < nthr; k++)
            if (k == 0 || tids[k] != tids[k - 1])
                tids[ntid++] = tids[k];
        for (size_t k = 0; k < nthr; k++)
            rank[k] = (uint32_t)((uint32_t *)bsearch(&m->threads.v[k].tid, tids, ntid, sizeof *tids, u32_cmp) - tids);
    }
    for (size_t i = 0; rc == 0 && i < m->ranges.n; i++)   /* nodes per thread id, then where each id's begin */
        if (class_of[i])
            next[rank[m->ranges.v[i].thread]]++;
    for (size_t k = 0, at = 0; rc == 0 && k < ntid; k++) {
        size_t n = next[k];
        next[k] = begin[k] = at;
        at += n;
    }
    int sorted = 1;
    for (size_t i = 0; rc == 0 && i < m->ranges.n; i++) {
        if (!class_of[i])
            continue;
        const struct ps_range *r = &m->ranges.v[i];
        uint32_t k = rank[r->thread];
        size_t at = next[k]++;
        struct node n = proto[class_of[i]];
        n.start = r->start_ns, n.end = r->end_ns, n.name = r->name, n.range = (uint32_t)i;
        n.tid = m->threads.v[r->thread].tid;
        sorted &= at == begin[k] || t->v[at - 1].start <= n.start;
        t->v[at] = n;
    }
    if (rc == 0 && !sorted)
        qsort(t->v, t->n, sizeof *t->v, node_cmp);
    for (size_t i = 1; rc == 0 && sorted && i < t->n; i++)   /* equal (tid, start): the longer first */
        for (size_t j = i; j > 0 && node_cmp(&t->v[j], &t->v[j - 1]) < 0; j--) {
            struct node x = t->v[j];
            t->v[j] = t->v[j - 1];
            t->v[j - 1] = x;
        }
    free(tids);
    free(rank);
    free(next);
    free(begin);
    return rc;
}

static int tree_build(struct tree *t, const struct ps_model *m)
{
    /* a range's node depends on its kind and name only: classified once per (kind, name) */
    size_t nstr = ps_model_nstrings(m);
    uint8_t *class_of = malloc(m->ranges.n + 1), *seen = calloc(2 * (nstr + 1), 1);
    struct node proto[256];
    size_t nproto = 1;
    int rc = class_of && seen ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < m->ranges.n; i++) {
        const struct ps_range *r = &m->ranges.v[i];
        class_of[i] = 0;
        if (r->thread == PS_NONE || (r->kind != PS_RANGE_CPU_OP && r->kind != PS_RANGE_USER_ANNOTATION) ||
            r->name >= nstr)
            continue;
        uint8_t *c = &seen[2 * (size_t)r->name + (r->kind == PS_RANGE_CPU_OP)];
        if (!*c) {
            struct node n = { .parent = NONE_IDX, .first = NONE_IDX, .next = NONE_IDX, .last = NONE_IDX };
            *c = 1;   /* no node */
            if (classify(m, r, &n)) {
                size_t k = 0;   /* the prototypes are few: the combinations of kind, type_op and is_operator */
                while (k + 1 < nproto && !(proto[k + 1].kind == n.kind && proto[k + 1].type_op == n.type_op &&
                                          proto[k + 1].is_operator == n.is_operator))
                    k++;
                if (k + 1 == nproto)
                    proto[nproto++] = n;
                *c = (uint8_t)(k + 2);
            }
        }
        class_of[i] = (uint8_t)(*c - 1);
        t->n += *c > 1;
    }
    if (rc == 0 && t->n >= NONE_IDX)
        rc = -EOVERFLOW;   /* node indices are 32-bit */
    t->v = rc == 0 ? malloc((t->n ? t->n : 1) * sizeof *t->v) : NULL;
    if (rc == 0 && !t->v)
        rc = -ENOMEM;
    if (rc == 0)
        rc = place_nodes(t, m, proto, class_of);
    free(class_of);
    free(seen);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < t->n; i++)
        t->nseg += i == 0 || t->v[i].tid != t->v[i - 1].tid;
    t->root_first = malloc((t->nseg + 1) * sizeof *t->root_first);
    t->seg_lo = malloc((t->nseg + 1) * sizeof *t->seg_lo);
    t->seg_hi = malloc((t->nseg + 1) * sizeof *t->seg_hi);
    size_t *stack = malloc((t->n + 1) * sizeof *stack);
    rc = t->root_first && t->seg_lo && t->seg_hi && stack ? 0 : -ENOMEM;
    for (size_t i = 0, s = 0; rc == 0 && i < t->n; i++)
        if (i == 0 || t->v[i].tid != t->v[i - 1].tid) {
            t->seg_lo[s] = i;
            if (s)
                t->seg_hi[s - 1] = i;
            t->root_first[s++] = NONE_IDX;
        }
    if (rc == 0 && t->nseg)
        t->seg_hi[t->nseg - 1] = t->n;
    for (size_t s = 0; rc == 0 && s < t->nseg; s++)
        rc = build_segment(t, s, stack);
    free(stack);
    return rc;
}

static void tree_free(struct tree *t)
{
    free(t->v);
    free(t->root_first);
    free(t->seg_lo);
    free(t->seg_hi);
}

static size_t segment_of(const struct tree *t, uint32_t tid)
{
    size_t lo = 0, hi = t->nseg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[t->seg_lo[mid]].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nseg && t->v[t->seg_lo[lo]].tid == tid ? lo : NONE_IDX;
}

/* ---- records to nodes: memory_parser.py find_memory_nodes ---- */

struct descent {
    const struct tree *t;
    size_t seg;
    size_t *stack_node, *stack_child;   /* the path: (node, its child being looked at); node NONE_IDX: the root */
    size_t depth;
    size_t cur, child;             /* cur NONE_IDX: the root; done: no node is left for later records */
    int done;
};

static int64_t node_start(const struct descent *d, size_t n)
{
    if (n != NONE_IDX)
        return d->t->v[n].start;
    return d->t->v[d->t->root_first[d->seg]].start;
}

static int64_t node_end(const struct descent *d, size_t n)
{
    if (n != NONE_IDX)
        return d->t->v[n].end;
    size_t last = d->t->root_first[d->seg];                  /* root end: its last child's end */
    for (size_t c = last; c != NONE_IDX; c = d->t->v[c].next)
        last = c;
    return d->t->v[last].end;
}

/* The innermost node holding time `ts` ([start, end)), moving forward only (records come in time order); NONE_IDX
 * with *in_tree 0 when the record is before the root, after it, or after the descent has left the root. Every node
 * entered is marked processed in tw (the tree d->t reads). */
static size_t descend(struct descent *d, int64_t ts, int64_t root_end, struct tree *tw, int *in_tree)
{
    *in_tree = 0;
    for (;;) {
        if (d->done || ts < node_start(d, d->cur))
            return NONE_IDX;
        int64_t end = d->cur == NONE_IDX ? root_end : d->t->v[d->cur].end;
        if (ts < end)
            break;
        if (!d->depth) {
            d->done = 1;
            return NONE_IDX;
        }
        d->depth--;
        d->cur = d->stack_node[d->depth];
        d->child = d->t->v[d->stack_child[d->depth]].next;
    }
    while (d->child != NONE_IDX) {
        const struct node *c = &d->t->v[d->child];
        if (ts < c->start)
            break;
        if (ts >= c->end) {
            d->child = c->next;
            continue;
        }
        tw->v[d->child].processed = 1;
        d->stack_node[d->depth] = d->cur;
        d->stack_child[d->depth++] = d->child;
        d->cur = d->child;
        d->child = c->first;
    }
    *in_tree = 1;
    return d->cur;
}

static uint32_t step_on_path(const struct descent *d)
{
    if (d->cur != NONE_IDX && d->t->v[d->cur].kind == NK_STEP)
        return d->t->v[d->cur].name;
    for (size_t i = d->depth; i-- > 0;)
        if (d->stack_node[i] != NONE_IDX && d->t->v[d->stack_node[i]].kind == NK_STEP)
            return d->t->v[d->stack_node[i]].name;
    return PS_NONE;
}

struct tid_key {
    uint32_t tid;
    size_t pos, rec;               /* position in time order; the record */
};

static int tid_key_cmp(const void *a, const void *b)
{
    const struct tid_key *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* order_by_tid: record indices by (tid, time, file order); node_of[i]: the operator node record i is attached to. */
static int attribute(struct tree *t, const struct ps_model *m, const size_t *by_tid, size_t n, size_t *node_of,
                     struct ps_mem_attrib *at, size_t *unattributed)
{
    struct descent d = { .t = t };
    d.stack_node = malloc((t->n + 1) * sizeof *d.stack_node);
    d.stack_child = malloc((t->n + 1) * sizeof *d.stack_child);
    if (!d.stack_node || !d.stack_child) {
        free(d.stack_node);
        free(d.stack_child);
        return -ENOMEM;
    }
    int64_t root_end = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = by_tid[k];
        const struct ps_mem_event *e = &m->mem_events.v[i];
        if (k == 0 || e->tid != m->mem_events.v[by_tid[k - 1]].tid) {
            d.seg = e->has_tid ? segment_of(t, e->tid) : NONE_IDX;
            d.depth = 0, d.cur = NONE_IDX, d.done = d.seg == NONE_IDX || t->root_first[d.seg] == NONE_IDX;
            d.child = d.done ? NONE_IDX : t->root_first[d.seg];
            root_end = d.done ? 0 : node_end(&d, NONE_IDX);
        }
        int in_tree;
        size_t node = descend(&d, e->time_ns, root_end, t, &in_tree);
        at[i] = (struct ps_mem_attrib){ PS_NONE, PS_NONE, in_tree ? step_on_path(&d) : PS_NONE };
        if (!in_tree || node == NONE_IDX || !t->v[node].is_operator) {
            ++*unattributed;
            continue;
        }
        node_of[i] = node;
        at[i].op = t->v[node].name;
        size_t parent = d.depth ? d.stack_node[d.depth - 1] : NONE_IDX;
        at[i].parent = parent != NONE_IDX ? t->v[parent].name : PS_NONE;
    }
    free(d.stack_node);
    free(d.stack_child);
    return 0;
}

/* ---- the table: memory_parser.py get_memory_statistics ---- */

struct table_ctx {
    const struct tree *t;
    const struct ps_model *m;
    const uint8_t *contrib;        /* per node: visited by the plugin's traversal and processed */
    const int64_t *calls;          /* per string id */
    int64_t (*by_name)[6];         /* per string id, scratch */
    size_t nstr;
    struct ps_memory *mem;
    size_t cap;
};

static int row_cmp(const void *a, const void *b, void *ctx)
{
    const struct ps_mem_op *x = a, *y = b;
    const struct ps_model *m = ctx;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->self_increase != y->self_increase)
        return x->self_increase > y->self_increase ? -1 : 1;
    return strcmp(ps_model_str(m, x->name), ps_model_str(m, y->name));
}

/* The rows of device `dev`: per operator name, the six sizes summed over its nodes the traversal reached. A
 * record counts for its own node's self sizes and for the totals of the node and of each ancestor up to the
 * first node the traversal does not count (a node's totals flow to its parent only when the node counts), so
 * the sums go straight to each reached operator's name slot (c->by_name), record by record up its path: no
 * per-node array. The rows come out in name-id order, as the plugin's grouping by name gives them before the
 * final sort (row_cmp). */
static int table_device(struct table_ctx *c, size_t dev, const size_t *node_of, const size_t *dev_of, size_t nrec)
{
    const struct tree *t = c->t;
    memset(c->by_name, 0, c->nstr * sizeof *c->by_name);
    for (size_t i = 0; i < nrec; i++) {
        size_t node = node_of[i];
        if (node == NONE_IDX || dev_of[i] != dev || !c->contrib[node])
            continue;
        int64_t b = c->m->mem_events.v[i].bytes, alloc = b > 0 ? b : 0, count = b > 0;
        for (int self = 1;; self = 0) {
            const struct node *n = &t->v[node];
            if (n->is_operator && n->name < c->nstr) {
                int64_t *v = c->by_name[n->name];
                if (self)
                    v[0] = ps_mem_sum(v[0], b), v[1] = ps_mem_sum(v[1], alloc), v[2] += count;
                v[3] = ps_mem_sum(v[3], b), v[4] = ps_mem_sum(v[4], alloc), v[5] += count;
            }
            if (n->parent == NONE_IDX || !c->contrib[n->parent])
                break;   /* the parent's totals get no more from here up: it does not count, nor do its own */
            node = n->parent;
        }
    }
    for (size_t name = 0; name < c->nstr; name++) {
        const int64_t *v = c->by_name[name];
        if (!(v[0] | v[1] | v[2] | v[3] | v[4] | v[5]))
            continue;
        if (c->mem->nops == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            struct ps_mem_op *ops = realloc(c->mem->ops, cap * sizeof *ops);
            if (!ops)
                return -ENOMEM;
            c->mem->ops = ops, c->cap = cap;
        }
        c->mem->ops[c->mem->nops++] = (struct ps_mem_op){
            .device = dev, .name = (uint32_t)name, .calls = c->calls[name], .self_increase = v[0],
            .self_alloc_bytes = v[1], .self_alloc_count = v[2], .increase = v[3], .alloc_bytes = v[4],
            .alloc_count = v[5] };
    }
    return 0;
}

/* Which nodes the plugin's traversal reaches (from each thread root's children, stopping below a node no record
 * entered) and counts as calls, then the rows of every device. */
static int op_table(struct tree *t, const struct ps_model *m, struct ps_memory *mem, const size_t *node_of,
                    const size_t *dev_of)
{
    size_t nstr = ps_model_nstrings(m);
    uint8_t *visited = calloc(t->n + 1, 1), *contrib = calloc(t->n + 1, 1);
    int64_t *calls = calloc(nstr + 1, sizeof *calls);
    int64_t (*by_name)[6] = malloc((nstr + 1) * sizeof *by_name);
    int rc = visited && contrib && calls && by_name ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < t->n; i++) {
        const struct node *n = &t->v[i];
        if (n->dropped)
            continue;
        visited[i] = n->parent == NONE_IDX || contrib[n->parent];
        contrib[i] = visited[i] && n->processed;
        if (visited[i] && n->is_operator && n->name < nstr)
            calls[n->name]++;
    }
    struct table_ctx c = { .t = t, .m = m, .contrib = contrib, .calls = calls, .by_name = by_name,
                           .nstr = nstr, .mem = mem };
    for (size_t d = 0; rc == 0 && d < mem->ndevs; d++)
        rc = table_device(&c, d, node_of, dev_of, m->mem_events.n);
    if (rc == 0 && mem->nops)
        qsort_r(mem->ops, mem->nops, sizeof *mem->ops, row_cmp, (void *)m);
    free(visited);
    free(contrib);
    free(calls);
    free(by_name);
    return rc;
}

int ps_memory_ops(struct ps_memory *mem, const struct ps_model *m, const size_t *order, const size_t *dev_of,
                  struct ps_mem_attrib *at)
{
    size_t n = m->mem_events.n;
    struct tree t = { 0 };
    struct tid_key *keys = malloc((n + 1) * sizeof *keys);
    size_t *by_tid = malloc((n + 1) * sizeof *by_tid), *node_of = malloc((n + 1) * sizeof *node_of);
    int rc = keys && by_tid && node_of ? tree_build(&t, m) : -ENOMEM;
    if (rc == 0) {
        for (size_t k = 0; k < n; k++) {
            keys[k] = (struct tid_key){ m->mem_events.v[order[k]].tid, k, order[k] };
            node_of[k] = NONE_IDX;
        }
        qsort(keys, n, sizeof *keys, tid_key_cmp);
        for (size_t k = 0; k < n; k++)
            by_tid[k] = keys[k].rec;
        rc = attribute(&t, m, by_tid, n, node_of, at, &mem->unattributed);
    }
    if (rc == 0)
        rc = op_table(&t, m, mem, node_of, dev_of);
    tree_free(&t);
    free(keys);
    free(by_tid);
    free(node_of);
    return rc;
}
