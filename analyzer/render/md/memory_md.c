/* The Markdown report's GPU memory section (analyses/memory.h; docs/memory.md): per device its line (the same as
 * the text report's, words/memory_words.c) as a list item, the operators with the largest self increase as a
 * table, and the findings. */
#include <stdio.h>

#include "analyses/memory.h"
#include "md/md_escape.h"
#include "md/md_sections.h"
#include "words/words.h"

static const struct ps_words_markup md_line = { "- **", "**", ps_md_name };

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
        if (o->device < 64 && shown[o->device]++ >= PS_WORDS_MEMORY_OPS)
            continue;
        fprintf(f, "| %s | ", mem->devs[o->device].label);
        ps_md_name(f, ps_report_name(r, o->name));
        fprintf(f, " | %lld | %.1f | %.1f | %lld | %lld | %.1f | %.1f |\n", (long long)o->calls,
                (double)o->increase / 1024, (double)o->self_increase / 1024, (long long)o->alloc_count,
                (long long)o->self_alloc_count, (double)o->alloc_bytes / 1024, (double)o->self_alloc_bytes / 1024);
    }
    if (mem->nfindings)
        fputs("\n", f);
    for (size_t i = 0; i < mem->nfindings; i++) {
        const struct ps_mem_finding *g = &mem->findings[i];
        fprintf(f, "- **[%s] %s**: ", g->severity, g->rule);
        ps_md_prose(f, g->summary);
        fputs(" — fix: ", f);
        ps_md_prose(f, g->fix);
        fputc('\n', f);
    }
}
