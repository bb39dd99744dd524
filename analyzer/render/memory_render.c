/* The report's memory section (analyses/memory.h; docs/memory.md) in JSON, text and Markdown; HTML is
 * memory_html.c. Every format says the same: per device the peak allocated (when, in which operator and step),
 * max reserved, capacity and headroom, pairs and never-freed allocations, then the per-operator table and the
 * findings. */
#include <stdio.h>
#include <string.h>

#include "analyses/diff.h"
#include "analyses/memory.h"
#include "memory_render.h"
#include "render/json_writer.h"
#include "render_impl.h"
#include "text_style.h"

#define MIB (1024.0 * 1024.0)

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

/* ---- text and Markdown: the same lines, Markdown as a table and a list ---- */

#define TEXT_OPS 10                /* operator rows shown per device */

/* Names whole and escaped for the terminal (the text report's device lines). */
static void text_name(FILE *f, const char *s)
{
    ps_put_name(f, s, 0);
}

static const struct ps_words_markup text_line = { "  ", "", text_name };
static const struct ps_words_markup md_line = { "- **", "**", ps_render_md_name };

static void text_ops(FILE *f, const struct ps_report *r, const struct ps_memory *mem, size_t dv)
{
    size_t shown = 0;
    for (size_t i = 0; i < mem->nops && shown < TEXT_OPS; i++) {
        const struct ps_mem_op *o = &mem->ops[i];
        if (o->device != dv)
            continue;
        if (!shown++)
            fprintf(f, "    by operator (KiB, largest self increase first):\n    %6s %12s %12s %7s %7s %12s %12s  "
                    "operator\n", "calls", "increase", "self incr.", "allocs", "self", "alloc size", "self size");
        fprintf(f, "    %6lld %12.1f %12.1f %7lld %7lld %12.1f %12.1f  ", (long long)o->calls,
                (double)o->increase / 1024, (double)o->self_increase / 1024, (long long)o->alloc_count,
                (long long)o->self_alloc_count, (double)o->alloc_bytes / 1024, (double)o->self_alloc_bytes / 1024);
        ps_put_name(f, ps_report_name(r, o->name), 0);
        fputc('\n', f);
    }
}

void ps_render_memory_text(FILE *f, const struct ps_report *r)
{
    const struct ps_memory *mem = r->mem;
    if (!mem)
        return;
    fprintf(f, "\nGPU memory (%zu memory records, %zu in no operator; times from the profiler's start)\n",
            mem->records, mem->unattributed);
    for (size_t d = 0; d < mem->ndevs; d++) {
        ps_words_memory_device_line(f, r, &mem->devs[d], &text_line);
        text_ops(f, r, mem, d);
    }
    for (size_t i = 0; i < mem->nfindings; i++) {
        const struct ps_mem_finding *g = &mem->findings[i];
        fprintf(f, "  [%s] %s: %s\n    fix: %s\n", g->severity, g->rule, g->summary, g->fix);
    }
}

void ps_render_memory_md(FILE *f, const struct ps_report *r)
{
    const struct ps_memory *mem = r->mem;
    if (!mem)
        return;
    fprintf(f, "\n## GPU memory\n\n%zu memory records, %zu in no operator; times from the profiler's start.\n\n",
            mem->records, mem->unattributed);
    for (size_t d = 0; d < mem->ndevs; d++)
        ps_words_memory_device_line(f, r, &mem->devs[d], &md_line);
    if (mem->nops)
        fputs("\n| device | operator | calls | increase KiB | self increase KiB | allocations | self | "
              "allocation KiB | self allocation KiB |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n", f);
    size_t shown[64] = { 0 };
    for (size_t i = 0; i < mem->nops; i++) {
        const struct ps_mem_op *o = &mem->ops[i];
        if (o->device < 64 && shown[o->device]++ >= TEXT_OPS)
            continue;
        fprintf(f, "| %s | ", mem->devs[o->device].label);
        ps_render_md_name(f, ps_report_name(r, o->name));
        fprintf(f, " | %lld | %.1f | %.1f | %lld | %lld | %.1f | %.1f |\n", (long long)o->calls,
                (double)o->increase / 1024, (double)o->self_increase / 1024, (long long)o->alloc_count,
                (long long)o->self_alloc_count, (double)o->alloc_bytes / 1024, (double)o->self_alloc_bytes / 1024);
    }
    if (mem->nfindings)
        fputs("\n", f);
    for (size_t i = 0; i < mem->nfindings; i++) {
        const struct ps_mem_finding *g = &mem->findings[i];
        fprintf(f, "- **[%s] %s**: ", g->severity, g->rule);
        ps_render_md_prose(f, g->summary);
        fputs(" — fix: ", f);
        ps_render_md_prose(f, g->fix);
        fputc('\n', f);
    }
}

/* ---- `perfscope diff`: the peaks before and after ---- */

static void diff_line(FILE *f, const struct ps_diff_memory *m, int md)
{
    char b[32], a[32], rb[32], ra[32];
    ps_words_bytes(b, sizeof b, m->before_peak);
    ps_words_bytes(a, sizeof a, m->after_peak);
    ps_words_bytes(rb, sizeof rb, m->before_reserved);
    ps_words_bytes(ra, sizeof ra, m->after_reserved);
    if (md)
        fprintf(f, "| %s | %s | %s | ", m->label, b, a);   /* the change column follows */
    else
        fprintf(f, "  %s: peak allocated %s -> %s", m->label, b, a);
    if (m->has_delta) {
        char delta[32];
        ps_words_bytes(delta, sizeof delta, m->delta_bytes);
        fprintf(f, md ? "%s%s" : " (%s%s)", m->delta_bytes >= 0 ? "+" : "", delta);
    }
    if (md)
        fprintf(f, " | %s | %s |\n", rb, ra);
    else
        fprintf(f, "; max reserved %s -> %s%s", rb, ra, m->capacity > 0 ? "" : "\n");
    if (!md && m->capacity > 0)
        fprintf(f, "; capacity %.2f GiB\n", (double)m->capacity / (1024 * MIB));
}

void ps_render_memory_diff_text(FILE *f, const struct ps_diff *d)
{
    if (!d->nmemory)
        return;
    fputs("\nGPU memory (peak before -> after):\n", f);
    for (size_t i = 0; i < d->nmemory; i++)
        diff_line(f, &d->memory[i], 0);
}

void ps_render_memory_diff_md(FILE *f, const struct ps_diff *d)
{
    if (!d->nmemory)
        return;
    fputs("\n### GPU memory\n\n| device | peak before | peak after | change | reserved before | reserved after |\n"
          "|---|---:|---:|---:|---:|---:|\n", f);
    for (size_t i = 0; i < d->nmemory; i++)
        diff_line(f, &d->memory[i], 1);
}

void ps_render_memory_diff_json(struct ps_jw *w, const struct ps_diff *d)
{
    ps_jw_key(w, "memory");
    ps_jw_array_open(w);
    for (size_t i = 0; i < d->nmemory; i++) {
        const struct ps_diff_memory *m = &d->memory[i];
        ps_jw_map_open(w);
        ps_jw_kstr(w, "label", m->label);
        ps_jw_kint_or_null(w, "before_peak_allocated_bytes", m->before_peak);
        ps_jw_kint_or_null(w, "after_peak_allocated_bytes", m->after_peak);
        if (m->has_delta)
            ps_jw_kint(w, "delta_bytes", m->delta_bytes);
        else
            ps_jw_knull(w, "delta_bytes");
        ps_jw_kint_or_null(w, "before_peak_reserved_bytes", m->before_reserved);
        ps_jw_kint_or_null(w, "after_peak_reserved_bytes", m->after_reserved);
        ps_jw_kint_or_null(w, "capacity_bytes", m->capacity);
        ps_jw_map_close(w);
    }
    ps_jw_array_close(w);
}
