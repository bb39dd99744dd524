/* The report's memory section (analyses/memory.h; docs/memory.md) in JSON, text and Markdown; HTML is
 * memory_html.c. Every format says the same: per device the peak allocated (when, in which operator and step),
 * max reserved, capacity and headroom, pairs and never-freed allocations, then the per-operator table and the
 * findings. */
#include <stdio.h>
#include <string.h>

#include "analyses/diff.h"
#include "analyses/memory.h"
#include "memory_render.h"
#include "render_impl.h"
#include "text_style.h"

#define MIB (1024.0 * 1024.0)

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

