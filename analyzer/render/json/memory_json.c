/* The JSON report's "memory" key (analyses/memory.h; docs/memory.md): per device the peak allocated (when, in which
 * operator and step), max reserved, capacity and headroom, pairs and never-freed allocations, the step-end figures
 * and the curve; then the per-operator table and the findings. */
#include <stdio.h>

#include "analyses/memory.h"
#include "json/json_sections.h"
#include "words/words.h"

/* "allocated" (Kineto totals), "running_sum" (sizes only), "device_resident" (nsys / CUPTI driver allocations). */
static const char *peak_kind(const struct ps_mem_device *d)
{
    return d->running_sum ? "running_sum" : d->source == PS_MEMSRC_KINETO ? "allocated" : "device_resident";
}

static void json_device(struct ps_jw *w, const struct ps_report *r, const struct ps_mem_device *d)
{
    char label[256];
    ps_jw_map_open(w);
    ps_jw_kint(w, "device", d->device);
    ps_jw_kint(w, "device_type", d->device_type);
    ps_jw_kstr(w, "label", d->label);
    ps_jw_kstr(w, "source", ps_mem_source_name[d->source]);
    ps_jw_kstr(w, "peak_kind", peak_kind(d));
    ps_jw_kint_or_null(w, "peak_allocated_bytes", d->peak_allocated_bytes);
    ps_jw_kint_or_null(w, "peak_allocated_ns", d->peak_allocated_ns);
    ps_jw_kint_or_null(w, "peak_reserved_bytes", d->peak_reserved_bytes);
    ps_jw_kint_or_null(w, "capacity_bytes", d->capacity_bytes);
    ps_jw_kint_or_null(w, "headroom_bytes", d->capacity_bytes > 0 ? d->headroom_bytes : -1);
    ps_jw_kint(w, "records", (int64_t)d->records);
    ps_jw_kint(w, "points", (int64_t)d->npoints);
    ps_jw_kint(w, "peak_ties", (int64_t)d->peak_ties);
    ps_words_memory_op_label(label, sizeof label, r, d);
    ps_jw_kstr(w, "peak_op", ps_words_name(r, d->peak_op, NULL));
    ps_jw_kstr(w, "peak_op_label", *label ? label : NULL);
    ps_jw_kstr(w, "peak_step", ps_words_name(r, d->peak_step, NULL));
    ps_jw_kint(w, "pairs", (int64_t)d->pairs);
    ps_jw_kint(w, "never_freed", (int64_t)d->never_freed);
    ps_jw_kint(w, "never_freed_bytes", d->never_freed_bytes);
    ps_jw_kstr(w, "never_freed_op", ps_words_name(r, d->never_freed_op, NULL));
    ps_jw_kint(w, "unpaired_frees", (int64_t)d->unpaired_frees);
    ps_jw_kint(w, "overwritten_allocations", (int64_t)d->overwritten);
    ps_jw_kint(w, "fragmentation_events", (int64_t)d->fragmentation_events);
    if (d->running_sum) {
        ps_jw_kint(w, "running_sum_min_bytes", d->running_sum_min);
        ps_jw_kint(w, "running_sum_final_bytes", d->running_sum_final);
    }
    ps_jw_key(w, "step_end_allocated");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->nstep_ends; i++) {
        ps_jw_map_open(w);
        ps_jw_kstr(w, "step", ps_words_name(r, d->step_ends[i].step, ""));
        ps_jw_kint(w, "bytes", d->step_ends[i].allocated);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_key(w, "curve");                           /* [ns from origin, allocated, reserved or null] */
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->npoints; i++) {
        ps_jw_array_open(w);
        ps_jw_int(w, d->curve[i].t_ns);
        ps_jw_int(w, d->curve[i].allocated);
        if (d->curve[i].reserved >= 0)
            ps_jw_int(w, d->curve[i].reserved);
        else
            ps_jw_null(w);
        ps_jw_array_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}

static void json_ops(struct ps_jw *w, const struct ps_report *r, const struct ps_memory *mem)
{
    ps_jw_key(w, "ops");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mem->nops; i++) {
        const struct ps_mem_op *o = &mem->ops[i];
        ps_jw_map_open(w);
        ps_jw_kint(w, "device", mem->devs[o->device].device);
        ps_jw_kstr(w, "label", mem->devs[o->device].label);
        ps_jw_kstr(w, "name", ps_words_name(r, o->name, ""));
        ps_jw_kint(w, "calls", o->calls);
        ps_jw_kint(w, "size_increase_bytes", o->increase);
        ps_jw_kint(w, "self_size_increase_bytes", o->self_increase);
        ps_jw_kint(w, "allocation_count", o->alloc_count);
        ps_jw_kint(w, "self_allocation_count", o->self_alloc_count);
        ps_jw_kint(w, "allocation_bytes", o->alloc_bytes);
        ps_jw_kint(w, "self_allocation_bytes", o->self_alloc_bytes);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}

void ps_render_memory_json(struct ps_jw *w, const struct ps_report *r)
{
    const struct ps_memory *mem = r->mem;
    ps_jw_key(w, "memory");
    if (!mem) {
        ps_jw_null(w);
        return;
    }
    ps_jw_map_open(w);
    ps_jw_kint(w, "origin_ns", mem->origin_ns);
    ps_jw_kint(w, "records", (int64_t)mem->records);
    ps_jw_kint(w, "unattributed_records", (int64_t)mem->unattributed);
    ps_jw_key(w, "devices");
    ps_jw_array_open(w);
    for (size_t d = 0; d < mem->ndevs; d++)
        json_device(w, r, &mem->devs[d]);
    ps_jw_array_close(w);
    json_ops(w, r, mem);
    ps_jw_key(w, "findings");
    ps_jw_array_open(w);
    for (size_t i = 0; i < mem->nfindings; i++) {
        const struct ps_mem_finding *f = &mem->findings[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "rule", f->rule);
        ps_jw_kstr(w, "severity", f->severity);
        ps_jw_kint(w, "device", mem->devs[f->device].device);
        ps_jw_kstr(w, "label", mem->devs[f->device].label);
        ps_jw_kint(w, "bytes", f->bytes);
        ps_jw_kstr(w, "summary", f->summary);
        ps_jw_kstr(w, "fix", f->fix);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
    ps_jw_map_close(w);
}
