/* What the op_perf family exports for its tests only (tests/analyzer/test_op_perf_ranges.c,
 * tests/roofline/test_op_efficiency.c); no other part includes it. */
#ifndef PS_OP_PERF_TESTING_H
#define PS_OP_PERF_TESTING_H

#include <stddef.h>

/* An op range's text "NAME, dims = [...], types = [...], strides = [...], concrete = [...]" (each list a Python
 * literal, as python/perfscope_hook/op_shapes.py writes it): the name's length into *name_len and each list's
 * text [lo[k], hi[k]). 0; -EINVAL when the text is not such a range, -ENOMEM (the outputs are then undefined). */
int ps_op_perf_range_parse(const char *s, size_t *name_len, const char *lo[4], const char *hi[4]);

/* How many operator trees (TraceLens' call tree of a trace, op_perf_tree.c) this process has built so far: the
 * per-step MFU must build one for all the steps, not one per step. */
size_t ps_op_perf_tree_builds(void);

#endif
