/* The memory view's parts (memory.c: curves, peaks, pairs, findings; memory_ops.c: the operator tree, records to
 * operators, the per-operator table). Private to analyzer/analyses/. */
#ifndef PS_MEMORY_IMPL_H
#define PS_MEMORY_IMPL_H

#include "analyses/memory.h"
#include "model/model.h"

/* a + b, held at INT64_MAX / INT64_MIN where it would pass them: the memory view's sums over records (sizes up to
 * PS_MEM_BYTES_MAX each, model.h) saturate rather than wrap; a saturated sum is a bound, never a negative size. */
static inline int64_t ps_mem_sum(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

/* What memory_ops.c finds for one memory record. */
struct ps_mem_attrib {
    uint32_t op;                   /* string id of the operator the record was made in (innermost tree node, when
                                    * that is an operator); PS_NONE: unattributed */
    uint32_t parent;               /* string id of that operator's parent node; PS_NONE */
    uint32_t step;                 /* string id of the host step (ProfilerStep#N) holding the record; PS_NONE */
};

/* memory_ops.c: each record of m (order: record indices sorted by time, ties in file order; dev_of[i]: the index
 * into mem->devs of record i, SIZE_MAX for a record of no device) attributed to an operator as the TensorBoard
 * plugin does (at[i], parallel to m->mem_events), then mem->ops and mem->unattributed. 0 or -ENOMEM. */
int ps_memory_ops(struct ps_memory *mem, const struct ps_model *m, const size_t *order, const size_t *dev_of,
                  struct ps_mem_attrib *at);

/* memory.c: the memory view of m (*out; NULL when m has no memory record), times from the plugin's origin on
 * Kineto traces, else from origin_ns. 0 or -ENOMEM. */
int ps_memory_compute(const struct ps_model *m, int64_t origin_ns, struct ps_memory **out);

struct ps_report;
/* memory.c: the report's memory view from what ps_memory_compute made (maybe on another thread; NULL when the trace
 * has no memory record): r->mem = mem (r owns it now) and its warnings among r's recommendations. 0. */
int ps_memory_give(struct ps_report *r, struct ps_memory *mem);
void ps_memory_free(struct ps_memory *mem);   /* NULL is a no-op */

/* memory_findings.c: OOM risk, fragmentation, leak and headroom findings of mem (mem->findings). */
void ps_memory_findings(struct ps_memory *mem, const struct ps_model *m);

#endif
