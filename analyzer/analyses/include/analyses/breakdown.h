/* The breakdown family (analyzer/analyses/breakdown/): the step-time breakdown as the PyTorch profiler's TensorBoard
 * plugin computes it, with perfscope's sync carved out (breakdown.c); Holistic Trace Analysis' temporal and idle
 * breakdowns (hta.c); TraceLens' GPU timeline (tracelens.c); the kernel and copy summaries and per-device totals
 * (summary.c). Uses the base, steps and timeline families. Times are ns, shares 0..1. */
#ifndef PS_ANALYSES_BREAKDOWN_H
#define PS_ANALYSES_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/base.h"

struct ps_report;
struct ps_view;
struct ps_names;

struct ps_device_stat {
    int32_t device;
    int64_t kernel_count, kernel_ns, memcpy_count, memcpy_bytes, memset_count;  /* all rows, no filter */
    /* HTA temporal breakdown (after HTA's last-step filter); span 0 when no GPU event survived */
    int64_t hta_span_ns, hta_idle_ns, hta_compute_ns, hta_non_compute_ns;
    /* perfscope's own per-device timeline with TraceLens' categories over EVERY GPU event of the device, linked or
     * not, first to last (not TraceLens' number: that is ps_report.tl, linked events, devices merged) */
    int64_t tl_total_ns, tl_computation_ns, tl_exposed_comm_ns, tl_exposed_memcpy_ns, tl_idle_ns;
    double gpu_util;               /* tb: merged kernel time in [first step start, last step end] / that span */
};

/* TraceLens GPU timeline of one set of GPU events (kernels, copies, memsets linked to a launch in the trace), all
 * devices merged; the four parts sum to total_ns. */
enum ps_tl_set { PS_TL_ALL, PS_TL_NOT_RECOMPUTE, PS_TL_RECOMPUTE };
struct ps_tl_row {
    int set;                       /* enum ps_tl_set */
    int64_t events;                /* GPU events in the set (0: the row's times are 0) */
    int64_t total_ns, computation_ns, exposed_comm_ns, exposed_memcpy_ns, idle_ns;
    /* --compat tracelens on a Kineto trace: TraceLens' own float64 values in ms, as its gpu_timeline.csv prints
     * them (total, computation, exposed comm, exposed memcpy, idle); NAN otherwise. The *_ns fields are then
     * these values rounded to the ns. */
    double tracelens_ms[5];
};

struct ps_idle_stat {              /* HTA idle breakdown of one stream */
    int32_t device;
    int64_t stream;
    int64_t host_wait_ns, kernel_wait_ns, other_ns;
};

struct ps_kernel_stat {
    uint32_t name;
    int64_t count, total_ns, min_ns, max_ns, median_ns;
};

struct ps_copy_stat {
    uint8_t kind;                  /* the model's PS_GPU_MEMCPY or PS_GPU_MEMSET (names: ps_copy_kind_name) */
    uint8_t copy_kind, src_kind, dst_kind;
    int64_t count, bytes, total_ns;
};

/* ---- the analyses (each returns 0 or -ENOMEM) ---- */

/* breakdown.c: priority breakdown, sync_ns and pretrace_ns (of r->backlog: ps_backlog_find runs first), averages,
 * tb GPU utilisation per device, over the steps' view. */
int ps_breakdown_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* hta.c: temporal breakdown per device, idle breakdown per stream, comm-comp overlap. */
int ps_hta_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* tracelens.c: TraceLens' GPU timeline of v (linked events, devices merged; recompute split), perfscope's
 * per-device view. */
int ps_tracelens_compute(struct ps_report *r, const struct ps_view *v, struct ps_names *names);
/* summary.c: the per-device totals alone (r->devs). */
int ps_summary_devices_compute(struct ps_report *r, const struct ps_view *v);
/* summary.c: the kernel and copy tables of v apart from any report, so that another thread may make them while
 * the report's other analyses run (they read v only): *t owns its arrays until ps_summary_tables_give moves them
 * into r (freeing what r held) or ps_summary_tables_fini frees them. 0 or -ENOMEM (*t then holds nothing). */
struct ps_summary_tables {
    struct ps_kernel_stat *kernels;
    size_t nkernels;
    struct ps_copy_stat *copies;
    size_t ncopies;
};
int ps_summary_tables_compute(struct ps_summary_tables *t, const struct ps_view *v);
void ps_summary_tables_give(struct ps_report *r, struct ps_summary_tables *t);
void ps_summary_tables_fini(struct ps_summary_tables *t);
/* summary.c: the device stat for `device` in r->devs into *out, added when new (r->devs stays in id order, so a
 * pointer it gave before may move). 0, or -ENOMEM (*out NULL). */
int ps_report_device(struct ps_report *r, int32_t device, struct ps_device_stat **out);

/* ---- display names (summary.c) ---- */


/* Display names (summary.c): "HtoD", ..., "Memset"; "pageable", "pinned", ... (ENUM_CUDA_MEM_KIND numbering);
 * a copy's source memory kind, NULL for a memset (it has none). Lookups that cannot fail ("unknown" for a kind
 * out of the table). */
const char *ps_copy_kind_name(const struct ps_copy_stat *c);
const char *ps_mem_kind_name(uint8_t kind);
const char *ps_copy_src_mem_name(const struct ps_copy_stat *c);

#endif
