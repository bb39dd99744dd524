/* The text report's GPU memory section (analyses/memory.h; docs/memory.md): per device its line (the same as
 * Markdown's, words/memory_words.c), the operators with the largest self increase, and the findings. */
#include <stdio.h>

#include "analyses/memory.h"
#include "text/text_sections.h"
#include "text/text_style.h"
#include "words/words.h"

/* Names whole and escaped for the terminal (the text report's device lines). */
static void text_name(FILE *f, const char *s)
{
    ps_put_name(f, s, 0);
}

static const struct ps_words_markup text_line = { "  ", "", text_name };

static void text_ops(FILE *f, const struct ps_report *r, const struct ps_memory *mem, size_t dv)
{
    size_t shown = 0;
    for (size_t i = 0; i < mem->nops && shown < PS_WORDS_MEMORY_OPS; i++) {
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
        fprintf(f, "  [%s] %s: ", g->severity, g->rule);
        ps_put_text(f, g->summary);   /* summary and fix may quote operator names from the trace */
        fputs("\n    fix: ", f);
        ps_put_text(f, g->fix);
        fputc('\n', f);
    }
}
