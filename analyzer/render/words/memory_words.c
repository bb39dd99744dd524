/* GPU memory's figures as every format words them (words.h): sizes people read, the peak's operator, and one line
 * per device (analyses/memory.h; docs/memory.md). */
#include <stdio.h>
#include <string.h>

#include "analyses/memory.h"
#include "words/words.h"

#define MIB (1024.0 * 1024.0)

void ps_words_memory_op_label(char *buf, size_t len, const struct ps_report *r, const struct ps_mem_device *d)
{
    const char *op = ps_words_name(r, d->peak_op, NULL);
    const char *parent = ps_words_name(r, d->peak_op_parent, NULL);
    if (!op)
        snprintf(buf, len, "%s", "");
    else if (parent && strncmp(op, "aten::empty", 11) == 0)
        snprintf(buf, len, "%s (%s)", parent, op);   /* the plugin's label (run.py get_op_name_or_ctx) */
    else
        snprintf(buf, len, "%s", op);
}

void ps_words_bytes(char *buf, size_t len, int64_t b)
{
    double a = (double)(b < 0 ? -b : b);
    if (b == -1)
        snprintf(buf, len, "N/A");
    else if (a >= 1024 * MIB)
        snprintf(buf, len, "%.2f GiB", (double)b / (1024 * MIB));
    else if (a >= MIB)
        snprintf(buf, len, "%.1f MiB", (double)b / MIB);
    else if (a >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, len, "%lld B", (long long)b);
}

void ps_words_memory_device_line(FILE *f, const struct ps_report *r, const struct ps_mem_device *d,
                                 const struct ps_words_markup *m)
{
    char peak[32], res[32], cap[32], room[32], label[256];
    ps_words_bytes(peak, sizeof peak, d->peak_allocated_bytes);
    ps_words_bytes(res, sizeof res, d->peak_reserved_bytes);
    ps_words_bytes(cap, sizeof cap, d->capacity_bytes);
    ps_words_bytes(room, sizeof room, d->capacity_bytes > 0 ? d->headroom_bytes : -1);
    ps_words_memory_op_label(label, sizeof label, r, d);
    fprintf(f, "%s%s (%s): %s %s (%lld B)", m->open, d->label, ps_mem_source_name[d->source],
            d->running_sum ? "peak of the running sum of allocation sizes since the trace began (memory held before "
                             "it not counted)"
            : d->source == PS_MEMSRC_KINETO ? "peak allocated" : "peak of device-resident allocations",
            peak, (long long)d->peak_allocated_bytes);
    fputs(m->head_close, f);
    if (d->peak_allocated_ns >= 0)
        fprintf(f, " at %.3f ms", (double)d->peak_allocated_ns / 1e6);
    if (*label) {
        fputs(" in ", f);
        m->name(f, label);
    }
    const char *step = ps_words_name(r, d->peak_step, NULL);
    if (step) {
        fputs(", ", f);
        m->name(f, step);
    }
    char lost[32];
    ps_words_bytes(lost, sizeof lost, d->never_freed_bytes);
    fprintf(f, "; max reserved %s; capacity %s, headroom %s; %zu records, %zu curve points, %zu pairs, %zu never "
               "freed (%s)", res, cap, room, d->records, d->npoints, d->pairs, d->never_freed, lost);
    if (d->unpaired_frees)
        fprintf(f, ", %zu freed blocks allocated before the trace", d->unpaired_frees);
    fputc('\n', f);
}
