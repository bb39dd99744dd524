/* The memory view (analyses/memory.h, docs/memory.md) from the model's memory events:
 *  - Kineto `[memory]` records, with the PyTorch profiler TensorBoard plugin's definitions (pytorch/kineto
 *    tb_plugin/torch_tb_profiler/run.py): the curve is one point per record with an address and both totals
 *    (get_memory_curve), the peak its largest Total Allocated, the max reserved its largest Total Reserved; pairs
 *    match a free to the allocation at its address (get_memory_events). The peak's time is the first record that
 *    reaches it, from the plugin's time origin (the model's mem_origin_ns). Device type 6 (HIP) is named like
 *    CUDA's (GPU<id>): the plugin itself fails on it.
 *  - traces with sizes only (PyTorch before 1.10: no address, no totals): perfscope's rule, the peak of the running
 *    sum of sizes since the trace began, said as such (memory held before the trace is not counted).
 *  - Nsight Systems' CUDA_GPU_MEMORY_USAGE_EVENTS (and perfscope's own, written from CUPTI memory records):
 *    perfscope's rule, the balance of device-resident allocations (memory kinds device, array, device static) per
 *    device, in (time, allocation before release, row) order; these are the driver's allocations, i.e. what a
 *    caching allocator reserves.
 * Findings: memory_findings.c; the per-operator table: memory_ops.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"
#include "memory_impl.h"

const char *const ps_mem_source_name[] = { "kineto", "nsys", "cupti", "nvml", "torch" };

/* c10::DeviceType values the labels name (c10/core/DeviceType.h). */
static const char *type_label(int type)
{
    switch (type) {
    case 0: return "CPU";
    case 1: case 6: return "GPU";
    case 12: return "XPU";
    case 13: return "MPS";
    case 19: return "MTIA";
    case 20: return "PrivateUse1-";
    default: return "device-type-";
    }
}

/* The device class a record belongs to: CUDA and HIP together (the plugin's GPU<id>), the host as one. */
static int device_class(int type)
{
    return type == 6 ? 1 : type;
}

static size_t find_device(struct ps_memory *mem, const struct ps_mem_event *e)
{
    int cls = device_class(e->device_type);
    int32_t id = cls == 0 ? -1 : e->device;
    for (size_t d = 0; d < mem->ndevs; d++)
        if (device_class(mem->devs[d].device_type) == cls && mem->devs[d].device == id)
            return d;
    return SIZE_MAX;
}

static int add_device(struct ps_memory *mem, const struct ps_mem_event *e, enum ps_mem_source src)
{
    struct ps_mem_device *v = realloc(mem->devs, (mem->ndevs + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    mem->devs = v;
    struct ps_mem_device *d = &v[mem->ndevs++];
    *d = (struct ps_mem_device){ .device_type = e->device_type, .device = e->device_type == 0 ? -1 : e->device,
                                 .source = src, .peak_allocated_bytes = -1, .peak_op = PS_NONE,
                                 .peak_op_parent = PS_NONE, .peak_step = PS_NONE, .peak_reserved_bytes = -1,
                                 .capacity_bytes = -1, .headroom_bytes = -1, .never_freed_op = PS_NONE,
                                 .fragmentation_op = PS_NONE };
    if (e->device_type == 0)
        snprintf(d->label, sizeof d->label, "CPU");
    else if (e->device_type == 1 || e->device_type == 6 || e->device_type == 12 || e->device_type == 13 ||
             e->device_type == 19)
        snprintf(d->label, sizeof d->label, "%s%d", type_label(e->device_type), e->device);
    else
        snprintf(d->label, sizeof d->label, "%s%d:%d", type_label(e->device_type), e->device_type, e->device);
    return 0;
}

/* GPUs (by class, id) first, the host last. */
static int device_cmp(const void *a, const void *b)
{
    const struct ps_mem_device *x = a, *y = b;
    int cx = device_class(x->device_type), cy = device_class(y->device_type);
    if ((cx == 0) != (cy == 0))
        return cx == 0 ? 1 : -1;
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x->device < y->device ? -1 : x->device > y->device;
}

/* An nsys / CUPTI row the device balance counts: device-resident memory only (host pinned / pageable and managed
 * memory are not the device's). */
static int device_resident(const struct ps_model *m, const struct ps_mem_event *e)
{
    if (m->format == PS_FORMAT_KINETO)
        return 1;
    return e->mem_kind == PS_MEM_DEVICE || e->mem_kind == PS_MEM_ARRAY || e->mem_kind == PS_MEM_DEVICE_STATIC;
}

static int order_cmp(const void *a, const void *b, void *ctx)
{
    const struct ps_model *m = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int64_t tx = m->mem_events.v[x].time_ns, ty = m->mem_events.v[y].time_ns;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The devices, each record's device (dev_of) and the records in time order, file order on ties (order). */
static int devices_and_order(struct ps_memory *mem, const struct ps_model *m, size_t *dev_of, size_t *order)
{
    enum ps_mem_source src = m->format == PS_FORMAT_KINETO ? PS_MEMSRC_KINETO
                             : m->format == PS_FORMAT_NSYS ? PS_MEMSRC_NSYS : PS_MEMSRC_CUPTI;
    for (size_t i = 0; i < m->mem_events.n; i++) {
        const struct ps_mem_event *e = &m->mem_events.v[i];
        order[i] = i;
        if (!device_resident(m, e))
            continue;
        if (find_device(mem, e) == SIZE_MAX && add_device(mem, e, src) < 0)
            return -ENOMEM;
    }
    if (mem->ndevs > 1)
        qsort(mem->devs, mem->ndevs, sizeof *mem->devs, device_cmp);
    for (size_t i = 0; i < m->mem_events.n; i++) {
        const struct ps_mem_event *e = &m->mem_events.v[i];
        dev_of[i] = device_resident(m, e) ? find_device(mem, e) : SIZE_MAX;
        if (dev_of[i] != SIZE_MAX)
            mem->devs[dev_of[i]].records++;
    }
    qsort_r(order, m->mem_events.n, sizeof *order, order_cmp, (void *)m);
    return 0;
}

struct peak_walk {
    int64_t sum, sum_peak, sum_min, prev_reserved;
    size_t sum_peak_rec, peak_rec;
    int has_prev;
};

/* perfscope's fragmentation rule (not the plugin's): an allocation after which Total Reserved grew although the
 * allocator's cached free bytes before it (previous Total Reserved - (Total Allocated - Bytes)) were at least its
 * size: the cache held enough memory, but in no block it could reuse. */
static void note_fragmentation(struct ps_mem_device *d, struct peak_walk *w, const struct ps_mem_event *e,
                               const struct ps_mem_attrib *at)
{
    if (w->has_prev && e->bytes > 0) {
        int64_t cached = w->prev_reserved - (e->total_allocated - e->bytes);
        if (e->total_reserved > w->prev_reserved && cached >= e->bytes) {
            if (e->bytes > d->fragmentation_bytes)
                d->fragmentation_bytes = e->bytes, d->fragmentation_op = at->op, d->fragmentation_cached = cached;
            d->fragmentation_events++;
        }
    }
    w->prev_reserved = e->total_reserved;
    w->has_prev = 1;
}

/* One device's curve, peak, max reserved, running sum and fragmentation events. */
static int curve_device(struct ps_memory *mem, const struct ps_model *m, size_t dv, const size_t *order,
                        const size_t *dev_of, const struct ps_mem_attrib *at)
{
    struct ps_mem_device *d = &mem->devs[dv];
    int kineto = m->format == PS_FORMAT_KINETO;
    struct peak_walk w = { .sum_peak_rec = SIZE_MAX, .peak_rec = SIZE_MAX };
    d->curve = malloc((d->records + 1) * sizeof *d->curve);
    if (!d->curve)
        return -ENOMEM;
    for (size_t k = 0; k < m->mem_events.n; k++) {
        size_t i = order[k];
        const struct ps_mem_event *e = &m->mem_events.v[i];
        if (dev_of[i] != dv)
            continue;
        w.sum = ps_mem_sum(w.sum, e->bytes);
        if (w.sum > w.sum_peak)
            w.sum_peak = w.sum, w.sum_peak_rec = i;
        w.sum_min = w.sum < w.sum_min ? w.sum : w.sum_min;
        if (kineto && (!e->has_addr || e->total_allocated < 0 || e->total_reserved < 0))
            continue;
        struct ps_mem_point p = { e->time_ns - mem->origin_ns, kineto ? e->total_allocated : w.sum,
                                  kineto ? e->total_reserved : -1 };
        d->curve[d->npoints++] = p;
        if (d->npoints == 1 || p.allocated > d->peak_allocated_bytes)
            d->peak_allocated_bytes = p.allocated, d->peak_ties = 1, w.peak_rec = i;
        else if (p.allocated == d->peak_allocated_bytes)
            d->peak_ties++;
        if (p.reserved > d->peak_reserved_bytes)
            d->peak_reserved_bytes = p.reserved;
        if (kineto)
            note_fragmentation(d, &w, e, &at[i]);
    }
    d->running_sum = kineto && d->npoints == 0;
    d->running_sum_min = w.sum_min;
    d->running_sum_final = w.sum;
    if (d->running_sum) {                 /* sizes only: the running sum's peak, 0 (never above) at no time */
        d->peak_allocated_bytes = w.sum_peak;
        w.peak_rec = w.sum_peak_rec;
    }
    if (w.peak_rec != SIZE_MAX) {
        d->peak_allocated_ns = m->mem_events.v[w.peak_rec].time_ns - mem->origin_ns;
        d->peak_op = at[w.peak_rec].op;
        d->peak_op_parent = at[w.peak_rec].parent;
        d->peak_step = at[w.peak_rec].step;
    } else {
        d->peak_allocated_ns = -1;
    }
    return 0;
}

struct addr_key {
    uint64_t addr;
    size_t pos, rec;
};

static int addr_key_cmp(const void *a, const void *b)
{
    const struct addr_key *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct op_bytes {
    uint32_t op;
    int64_t bytes;
};

static int op_bytes_cmp(const void *a, const void *b)
{
    const struct op_bytes *x = a, *y = b;
    return x->op < y->op ? -1 : x->op > y->op;
}

/* The operator holding most never-freed bytes (list[0..n) sorted here). */
static void never_freed_op(struct ps_mem_device *d, struct op_bytes *list, size_t n)
{
    qsort(list, n, sizeof *list, op_bytes_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        int64_t sum = 0;
        for (j = i; j < n && list[j].op == list[i].op; j++)
            sum = ps_mem_sum(sum, list[j].bytes);
        if (list[i].op != PS_NONE && sum > d->never_freed_op_bytes)
            d->never_freed_op = list[i].op, d->never_freed_op_bytes = sum;
    }
}

/* run.py get_memory_events for one device: per address, in time order, an allocation (Bytes > 0) waits for the
 * next free (Bytes <= 0) of its address: a pair. An allocation followed by another at its address is overwritten
 * (the plugin drops it); an allocation left at the end was never freed; a free with no allocation waiting is
 * unpaired (counted once per address, as the plugin keeps one per address). */
static int pairs_device(struct ps_memory *mem, const struct ps_model *m, size_t dv, const size_t *order,
                        const size_t *dev_of, const struct ps_mem_attrib *at)
{
    struct ps_mem_device *d = &mem->devs[dv];
    struct addr_key *keys = malloc((d->records + 1) * sizeof *keys);
    struct op_bytes *left = malloc((d->records + 1) * sizeof *left);
    if (!keys || !left) {
        free(keys);
        free(left);
        return -ENOMEM;
    }
    size_t n = 0, nleft = 0;
    for (size_t k = 0; k < m->mem_events.n; k++)
        if (dev_of[order[k]] == dv && m->mem_events.v[order[k]].has_addr)
            keys[n++] = (struct addr_key){ m->mem_events.v[order[k]].addr, k, order[k] };
    qsort(keys, n, sizeof *keys, addr_key_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        size_t open = SIZE_MAX;
        int unpaired = 0;
        for (j = i; j < n && keys[j].addr == keys[i].addr; j++) {
            const struct ps_mem_event *e = &m->mem_events.v[keys[j].rec];
            if (e->bytes > 0) {
                d->overwritten += open != SIZE_MAX;
                open = keys[j].rec;
            } else if (open != SIZE_MAX) {
                d->pairs++;
                open = SIZE_MAX;
            } else {
                unpaired = 1;
            }
        }
        d->unpaired_frees += unpaired;
        if (open != SIZE_MAX) {
            d->never_freed++;
            d->never_freed_bytes = ps_mem_sum(d->never_freed_bytes, m->mem_events.v[open].bytes);
            left[nleft++] = (struct op_bytes){ at[open].op, m->mem_events.v[open].bytes };
        }
    }
    never_freed_op(d, left, nleft);
    free(keys);
    free(left);
    return 0;
}

/* Allocated memory at the end of each host step (the last curve point inside [start, end) of its ProfilerStep#N
 * range): a leak shows as growth from step to step. */
static int step_ends(struct ps_memory *mem, const struct ps_model *m)
{
    for (size_t dv = 0; dv < mem->ndevs; dv++) {
        struct ps_mem_device *d = &mem->devs[dv];
        for (size_t i = 0; i < m->ranges.n; i++) {
            const struct ps_range *r = &m->ranges.v[i];
            if (r->thread == PS_NONE || (r->kind != PS_RANGE_CPU_OP && r->kind != PS_RANGE_USER_ANNOTATION) ||
                strncmp(ps_model_str(m, r->name), "ProfilerStep#", 13) != 0)
                continue;
            size_t lo = 0, hi = d->npoints;          /* first point at or after the end */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (d->curve[mid].t_ns + mem->origin_ns < r->end_ns)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == 0 || d->curve[lo - 1].t_ns + mem->origin_ns < r->start_ns)
                continue;
            struct ps_mem_step_end *v = realloc(d->step_ends, (d->nstep_ends + 1) * sizeof *v);
            if (!v)
                return -ENOMEM;
            d->step_ends = v;
            v[d->nstep_ends++] = (struct ps_mem_step_end){ r->name, d->curve[lo - 1].allocated };
        }
    }
    return 0;
}

static void capacity(struct ps_memory *mem, const struct ps_model *m)
{
    for (size_t dv = 0; dv < mem->ndevs; dv++) {
        struct ps_mem_device *d = &mem->devs[dv];
        if (d->device_type == 0 || d->source == PS_MEMSRC_NVML)
            continue;     /* NVML gives its own total (nvml_devices) */
        for (size_t i = 0; i < m->devices.n; i++)
            if (m->devices.v[i].id == d->device && m->devices.v[i].total_mem_bytes > 0)
                d->capacity_bytes = m->devices.v[i].total_mem_bytes;
        if (d->capacity_bytes > 0 && d->peak_allocated_bytes >= 0 && !d->running_sum)   /* a running sum is only
                                                                                * a lower bound of the peak */
            d->headroom_bytes = d->capacity_bytes - d->peak_allocated_bytes;
    }
}

/* NVML memory samples (perfscope traces): one device per NVML index, its curve the samples' used memory (every
 * process's allocations and CUDA contexts, as nvmlDeviceGetMemoryInfo counts them), its capacity their total. */
static int nvml_devices(struct ps_memory *mem, const struct ps_model *m)
{
    for (size_t i = 0; i < m->nvml_mem.n; i++) {
        const struct ps_nvml_mem_sample *s = &m->nvml_mem.v[i];
        char label[32];
        snprintf(label, sizeof label, "GPU%d (NVML)", s->device);
        size_t dv = 0;
        while (dv < mem->ndevs && strcmp(mem->devs[dv].label, label) != 0)
            dv++;
        if (dv == mem->ndevs) {
            struct ps_mem_event e = { .device = s->device, .device_type = 1 };
            if (add_device(mem, &e, PS_MEMSRC_NVML) < 0)
                return -ENOMEM;
            snprintf(mem->devs[dv].label, sizeof mem->devs[dv].label, "%s", label);
        }
        struct ps_mem_device *d = &mem->devs[dv];
        struct ps_mem_point *c = realloc(d->curve, (d->npoints + 1) * sizeof *c);
        if (!c)
            return -ENOMEM;
        d->curve = c;
        c[d->npoints++] = (struct ps_mem_point){ s->time_ns - mem->origin_ns, s->used_bytes, -1 };
        d->records++;
        if (s->used_bytes > d->peak_allocated_bytes) {
            d->peak_allocated_bytes = s->used_bytes, d->peak_allocated_ns = s->time_ns - mem->origin_ns;
            d->peak_ties = 1;
        } else if (s->used_bytes == d->peak_allocated_bytes) {
            d->peak_ties++;
        }
        if (s->total_bytes > 0)
            d->capacity_bytes = s->total_bytes;
    }
    for (size_t dv = 0; dv < mem->ndevs; dv++) {
        struct ps_mem_device *d = &mem->devs[dv];
        if (d->source == PS_MEMSRC_NVML && d->capacity_bytes > 0)
            d->headroom_bytes = d->capacity_bytes - d->peak_allocated_bytes;
    }
    return 0;
}

/* Whether the trace holds the Python hook's `cuda memory` marks (hook_marks.c). */
static int has_torch_marks(const struct ps_model *m)
{
    uint32_t dom = PS_NONE;
    struct ps_hook_mark mk;
    for (size_t i = 0; i < m->ranges.n; i++)
        if (ps_hook_mark_of(m, &m->ranges.v[i], &dom, &mk) == 0 && mk.kind == PS_HOOK_MARK_CUDA_MEMORY)
            return 1;
    return 0;
}

/* A byte count of a `cuda memory` mark: 0 .. INT64_MAX, -1 when absent or malformed. */
static int64_t mark_bytes(const struct ps_hook_mark *mk, const char *key)
{
    return ps_hook_mark_int_or(mk, key, 0, INT64_MAX, -1);
}

/* The device labelled `label` into *out, added (GPU `id`, from src) when new. 0 or -ENOMEM. */
static int labelled_device(struct ps_memory *mem, const char *label, int32_t id, enum ps_mem_source src,
                           struct ps_mem_device **out)
{
    for (size_t dv = 0; dv < mem->ndevs; dv++)
        if (!strcmp(mem->devs[dv].label, label)) {
            *out = &mem->devs[dv];
            return 0;
        }
    struct ps_mem_event e = { .device = id, .device_type = 1 };
    int rc = add_device(mem, &e, src);
    if (rc < 0)
        return rc;
    *out = &mem->devs[mem->ndevs - 1];
    snprintf((*out)->label, sizeof (*out)->label, "%s", label);
    return 0;
}

/* perfscope's Python hook: a `cuda memory` mark per used device at each step boundary (docs/python.md) with the
 * caching allocator's allocated / reserved bytes and their peaks since the program started. The curve is the
 * step-boundary values; the peak is the largest max_allocated, first seen at that mark (it happened at or before). */
static int torch_devices(struct ps_memory *mem, const struct ps_model *m)
{
    uint32_t dom = PS_NONE;
    struct ps_hook_mark mk;
    for (size_t i = 0; i < m->ranges.n; i++) {
        const struct ps_range *g = &m->ranges.v[i];
        int64_t dev, alloc;
        if (ps_hook_mark_of(m, g, &dom, &mk) < 0 || mk.kind != PS_HOOK_MARK_CUDA_MEMORY ||
            ps_hook_mark_int(&mk, "device", 0, INT32_MAX, &dev) < 0 ||
            ps_hook_mark_int(&mk, "allocated", 0, INT64_MAX, &alloc) < 0)
            continue;
        char label[32];
        snprintf(label, sizeof label, "GPU%d (torch)", (int)dev);
        struct ps_mem_device *d;
        int rc = labelled_device(mem, label, (int32_t)dev, PS_MEMSRC_TORCH, &d);
        if (rc < 0)
            return rc;
        struct ps_mem_point *c = realloc(d->curve, (d->npoints + 1) * sizeof *c);
        if (!c)
            return -ENOMEM;
        d->curve = c;
        c[d->npoints++] = (struct ps_mem_point){ g->start_ns - mem->origin_ns, alloc, mark_bytes(&mk, "reserved") };
        d->records++;
        int64_t peak = mark_bytes(&mk, "max_allocated"), res = mark_bytes(&mk, "max_reserved");
        peak = peak > alloc ? peak : alloc;
        if (peak > d->peak_allocated_bytes)
            d->peak_allocated_bytes = peak, d->peak_allocated_ns = g->start_ns - mem->origin_ns;
        res = res > c[d->npoints - 1].reserved ? res : c[d->npoints - 1].reserved;
        if (res > d->peak_reserved_bytes)
            d->peak_reserved_bytes = res;
    }
    return 0;
}

int ps_memory_compute(const struct ps_model *m, int64_t origin_ns, struct ps_memory **out)
{
    *out = NULL;
    size_t n = m->mem_events.n;
    if (n == 0 && m->nvml_mem.n == 0 && !has_torch_marks(m))
        return 0;
    struct ps_memory *mem = calloc(1, sizeof *mem);
    size_t *dev_of = malloc((n + 1) * sizeof *dev_of), *order = malloc((n + 1) * sizeof *order);
    struct ps_mem_attrib *at = malloc((n + 1) * sizeof *at);
    int rc = mem && dev_of && order && at ? 0 : -ENOMEM;
    if (rc == 0) {
        mem->records = n;
        mem->origin_ns = m->format == PS_FORMAT_KINETO && m->has_mem_origin ? m->mem_origin_ns : origin_ns;
        rc = devices_and_order(mem, m, dev_of, order);
    }
    if (rc == 0 && m->format == PS_FORMAT_KINETO)
        rc = ps_memory_ops(mem, m, order, dev_of, at);
    else
        for (size_t i = 0; at && i < n; i++)
            at[i] = (struct ps_mem_attrib){ PS_NONE, PS_NONE, PS_NONE };
    for (size_t d = 0; rc == 0 && d < mem->ndevs; d++)
        if ((rc = curve_device(mem, m, d, order, dev_of, at)) == 0)
            rc = pairs_device(mem, m, d, order, dev_of, at);
    if (rc == 0 && (rc = step_ends(mem, m)) == 0 && (rc = nvml_devices(mem, m)) == 0 &&
        (rc = torch_devices(mem, m)) == 0) {
        capacity(mem, m);
        ps_memory_findings(mem, m);
        *out = mem;
    }
    free(dev_of);
    free(order);
    free(at);
    if (rc < 0)
        ps_memory_free(mem);
    return rc;
}

/* The memory warnings (OOM risk, fragmentation, leak) join the report's recommendations after the verdict's fix and
 * the costliest time findings, while there is room: every format lists them with the rest. */
int ps_memory_give(struct ps_report *r, struct ps_memory *mem)
{
    ps_memory_free(r->mem);
    r->mem = mem;
    for (size_t i = 0; r->mem && i < r->mem->nfindings && r->nrecs < PS_MAX_RECS; i++) {
        const struct ps_mem_finding *f = &r->mem->findings[i];
        if (!strcmp(f->severity, "warning"))
            snprintf(r->recs[r->nrecs++], PS_REC_LEN, "GPU memory: %.400s. %s", f->summary, f->fix);
    }
    return 0;
}

void ps_memory_free(struct ps_memory *mem)
{
    if (!mem)
        return;
    for (size_t d = 0; d < mem->ndevs; d++) {
        free(mem->devs[d].curve);
        free(mem->devs[d].step_ends);
    }
    free(mem->devs);
    free(mem->ops);
    free(mem);
}
