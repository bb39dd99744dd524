/* A rank's excess over the other ranks in one verdict group, in words (analyses/verdict.h; docs/distributed.md
 * "The straggler: who waits for whom"): how the group reads and what shortens it, named by the rank's own largest
 * name in it. The several-rank report's straggler sentence (render/words/ranks_words.c) and the verdict's fix for
 * the rank the others wait for (verdict.c) say it alike. */
#include <stdio.h>
#include <string.h>

#include "analyses/verdict.h"

const char *ps_excess_group_label(enum ps_bottleneck g, int has_gpu)
{
    switch (g) {
    case PS_BN_KERNEL: return has_gpu ? "GPU kernels" : "host compute";
    case PS_BN_DATA: return "data loading";
    case PS_BN_MEMCPY: return has_gpu ? "copies" : "copies (copy ranges)";
    case PS_BN_COMM: return "communication";
    case PS_BN_SYNC: return "synchronisation";
    case PS_BN_HOST: return "host work (compute and launches)";
    case PS_BN_WAITING: return "waiting";
    default: return "unknown";
    }
}

/* Names are trace text (a 1,677-byte kernel name in the shared traces: docs/readers.md): a sentence quotes at most
 * this many bytes of one, then "...". */
#define NAME_SHOWN 160

void ps_excess_in(char *buf, size_t len, enum ps_bottleneck g, int has_gpu, const char *name)
{
    if (!name) {
        snprintf(buf, len, "%s", ps_excess_group_label(g, has_gpu));
        return;
    }
    snprintf(buf, len, "%s (%.*s%s)", ps_excess_group_label(g, has_gpu), NAME_SHOWN, name,
             strlen(name) > NAME_SHOWN ? "..." : "");
}

void ps_excess_fix(char *buf, size_t len, enum ps_bottleneck g, int has_gpu, const char *name)
{
    char in[NAME_SHOWN + 32] = "";
    if (name)
        snprintf(in, sizeof in, " (%.*s%s)", NAME_SHOWN, name, strlen(name) > NAME_SHOWN ? "..." : "");
    switch (g) {
    case PS_BN_WAITING:
        snprintf(buf, len, "remove what that rank's step thread waits on%s: a sleep, a lock, file or network I/O; "
                 "take it out of the step or move it off the step thread", in);
        break;
    case PS_BN_DATA:
        snprintf(buf, len, "make that rank's data loading%s faster: load in DataLoader workers (num_workers, "
                 "prefetch_factor), and check that its samples are not larger or slower to read than the others'",
                 in);
        break;
    case PS_BN_HOST:
        snprintf(buf, len, "shorten that rank's host work%s (profile it; fewer launches: CUDA graphs, fusion), or "
                 "give the ranks equal work", in);
        break;
    case PS_BN_KERNEL:
        if (has_gpu)
            snprintf(buf, len, "look at that rank's kernels%s: more work than the others (uneven batches or "
                     "sequence lengths), or a slower, throttled or shared GPU", in);
        else
            snprintf(buf, len, "shorten that rank's host compute%s, or give the ranks equal work (is its CPU "
                     "shared with other processes or slower?)", in);
        break;
    case PS_BN_MEMCPY:
        snprintf(buf, len, "look at that rank's copies%s: pinned memory with non_blocking, fewer or smaller copies, "
                 "or a slower link to its GPU", in);
        break;
    case PS_BN_SYNC:
        snprintf(buf, len, "remove the synchronising call%s from that rank's step, or move it out of the step", in);
        break;
    default:
        snprintf(buf, len, "make that rank's own work shorter or give the ranks equal work");
        break;
    }
}
