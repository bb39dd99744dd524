/* The memory view's findings (docs/memory.md "Findings"), each worded from what the trace shows:
 *  - oom_risk: a GPU's peak allocated above 90 % of its capacity (the TensorBoard plugin's rule, profiler/data.py
 *    RunProfileData.analyze: peak > 0.9 x totalGlobalMem), naming the operator and step of the peak;
 *  - fragmentation: allocations that grew the reserve while the cache held enough free bytes (memory.c), or a reserve
 *    far above the peak allocated (at least 1.5x and 1 GiB more): the allocator's expandable segments;
 *  - memory_leak: allocated memory at the end of each step grows step over step (three steps or more), naming the
 *    operator whose allocations are never freed;
 *  - memory_headroom: how much larger a batch would fit, when the peak leaves room for at least twice the memory
 *    that changes within a step.
 * The thresholds are perfscope's own but the first. */
#include <stdio.h>
#include <string.h>

#include "memory_impl.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

/* "1.50 GiB" / "96.6 MiB" / "512 B" */
static const char *human(int64_t b, char *buf, size_t len)
{
    double a = (double)(b < 0 ? -b : b);
    if (a >= GIB)
        snprintf(buf, len, "%.2f GiB", (double)b / GIB);
    else if (a >= MIB)
        snprintf(buf, len, "%.1f MiB", (double)b / MIB);
    else if (a >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, len, "%lld B", (long long)b);
    return buf;
}

static int model_has_name(const struct ps_model *m, const char *needle)
{
    size_t n = ps_model_nstrings(m);
    for (size_t i = 0; i < n; i++)
        if (strstr(ps_model_str(m, (uint32_t)i), needle))
            return 1;
    return 0;
}

static struct ps_mem_finding *add(struct ps_memory *mem, const char *rule, const char *severity, size_t dev,
                                  int64_t bytes)
{
    if (mem->nfindings == PS_MEM_MAX_FINDINGS)
        return NULL;
    struct ps_mem_finding *f = &mem->findings[mem->nfindings++];
    *f = (struct ps_mem_finding){ .rule = rule, .severity = severity, .device = dev, .bytes = bytes };
    return f;
}

/* "aten::addmm (aten::empty)" as the plugin labels an allocation by aten::empty inside another operator. */
static void op_label(const struct ps_model *m, uint32_t op, uint32_t parent, char *buf, size_t len)
{
    const char *name = op == PS_NONE ? "no operator" : ps_model_str(m, op);
    if (op != PS_NONE && parent != PS_NONE && strncmp(name, "aten::empty", 11) == 0)
        snprintf(buf, len, "%s (%s)", ps_model_str(m, parent), name);
    else
        snprintf(buf, len, "%s", name);
}

static void oom_risk(struct ps_memory *mem, const struct ps_model *m, size_t dv)
{
    const struct ps_mem_device *d = &mem->devs[dv];
    if (d->capacity_bytes <= 0 || d->running_sum || !((double)d->peak_allocated_bytes > 0.9 * (double)d->capacity_bytes))
        return;
    struct ps_mem_finding *f = add(mem, "oom_risk", "warning", dv, d->peak_allocated_bytes);
    if (!f)
        return;
    char a[32], c[32], h[32], op[160];
    op_label(m, d->peak_op, d->peak_op_parent, op, sizeof op);
    snprintf(f->summary, sizeof f->summary, "%s: peak %s %s is %.1f %% of its %s at %.3f ms%s%s%s%s; "
             "%s left: close to out of memory", d->label, d->source == PS_MEMSRC_NVML ? "used (NVML)" : "allocated",
             human(d->peak_allocated_bytes, a, sizeof a),
             100.0 * (double)d->peak_allocated_bytes / (double)d->capacity_bytes, human(d->capacity_bytes, c, sizeof c),
             (double)d->peak_allocated_ns / 1e6, d->peak_op != PS_NONE ? ", in " : "", d->peak_op != PS_NONE ? op : "",
             d->peak_step != PS_NONE ? " during " : "", d->peak_step != PS_NONE ? ps_model_str(m, d->peak_step) : "",
             human(d->headroom_bytes, h, sizeof h));
    int training = model_has_name(m, "backward") || model_has_name(m, "Backward");
    int autocast = model_has_name(m, "autocast");
    snprintf(f->fix, sizeof f->fix, "Lower the peak%s%s: %s%s%s", d->peak_op != PS_NONE ? " made by " : "",
             d->peak_op != PS_NONE ? op : "", training ? "activation checkpointing (torch.utils.checkpoint) on the blocks whose activations are "
                            "alive at the peak trades recompute for memory; " : "",
             autocast ? "" : "no autocast region is in the trace: mixed precision (torch.autocast, bf16) halves "
                             "activation sizes; ",
             training ? "optimizer.zero_grad(set_to_none=True) frees gradients between steps"
                      : "the trace holds no backward pass: if the model does not run under torch.inference_mode() "
                        "or torch.no_grad(), doing so keeps no activations for a backward pass");
}

static void fragmentation(struct ps_memory *mem, const struct ps_model *m, size_t dv)
{
    const struct ps_mem_device *d = &mem->devs[dv];
    char a[32], b[32], c[32], op[160];
    const char *conf = d->device_type == 6 ? "PYTORCH_HIP_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
    int64_t gap = d->peak_reserved_bytes - d->peak_allocated_bytes;
    struct ps_mem_finding *f;
    if (d->fragmentation_events) {
        if (!(f = add(mem, "fragmentation", "warning", dv, d->fragmentation_bytes)))
            return;
        op_label(m, d->fragmentation_op, PS_NONE, op, sizeof op);
        snprintf(f->summary, sizeof f->summary, "%s: %zu allocation%s grew the reserved memory although the "
                 "allocator's cache held enough free bytes (largest: %s by %s with %s cached): the cache is "
                 "fragmented; reserved peaks at %s", d->label, d->fragmentation_events,
                 d->fragmentation_events == 1 ? "" : "s", human(d->fragmentation_bytes, a, sizeof a), op,
                 human(d->fragmentation_cached, b, sizeof b), human(d->peak_reserved_bytes, c, sizeof c));
    } else if (d->peak_allocated_bytes > 0 && gap >= (int64_t)GIB &&
               (double)d->peak_reserved_bytes >= 1.5 * (double)d->peak_allocated_bytes) {
        if (!(f = add(mem, "fragmentation", "info", dv, gap)))
            return;
        snprintf(f->summary, sizeof f->summary, "%s: reserved memory peaks at %s, %s above the peak allocated "
                 "%s: memory the caching allocator holds but no tensor uses", d->label,
                 human(d->peak_reserved_bytes, a, sizeof a), human(gap, b, sizeof b),
                 human(d->peak_allocated_bytes, c, sizeof c));
    } else {
        return;
    }
    snprintf(f->fix, sizeof f->fix, "Set %s=expandable_segments:True before the program starts: the allocator then "
             "grows one segment instead of caching blocks of fixed sizes, up to %s of reserved memory back",
             conf, human(gap > 0 ? gap : d->fragmentation_bytes, a, sizeof a));
}

static void leak(struct ps_memory *mem, const struct ps_model *m, size_t dv)
{
    const struct ps_mem_device *d = &mem->devs[dv];
    if (d->nstep_ends < 3)
        return;
    for (size_t i = 1; i < d->nstep_ends; i++)
        if (d->step_ends[i].allocated <= d->step_ends[i - 1].allocated)
            return;
    int64_t growth = d->step_ends[d->nstep_ends - 1].allocated - d->step_ends[0].allocated;
    struct ps_mem_finding *f = add(mem, "memory_leak", "warning", dv, growth);
    if (!f)
        return;
    char a[32], b[32], c[32];
    size_t steps = d->nstep_ends - 1;
    snprintf(f->summary, sizeof f->summary, "%s: allocated memory at the end of each step grows in every one of "
             "%zu steps (%s after %s, %s after %s: +%s per step)", d->label, d->nstep_ends,
             human(d->step_ends[0].allocated, a, sizeof a), ps_model_str(m, d->step_ends[0].step),
             human(d->step_ends[steps].allocated, b, sizeof b), ps_model_str(m, d->step_ends[steps].step),
             human(growth / (int64_t)steps, c, sizeof c));
    if (d->never_freed_op != PS_NONE)
        snprintf(f->fix, sizeof f->fix, "%s allocates %s that the trace never frees (%zu allocation%s never freed in "
                 "all): find what keeps its outputs alive from step to step (a list of outputs or losses kept "
                 "with their graph: keep loss.item() or tensor.detach() instead; a cache that only grows)",
                 ps_model_str(m, d->never_freed_op), human(d->never_freed_op_bytes, a, sizeof a), d->never_freed,
                 d->never_freed == 1 ? "" : "s");
    else
        snprintf(f->fix, sizeof f->fix, "No allocation of the trace is left unfreed by a known operator: profile "
                 "more steps (torch.profiler schedule with more active steps) to see which operator's blocks stay");
}

/* The memory that changes within a step (peak - the lowest allocated of the curve) scales with the batch; the rest
 * (weights, optimizer state) does not. How many times the batch fits under 90 % of the capacity follows. */
static void headroom(struct ps_memory *mem, size_t dv)
{
    const struct ps_mem_device *d = &mem->devs[dv];
    if (d->capacity_bytes <= 0 || d->npoints == 0 || d->running_sum || d->headroom_bytes <= 0)
        return;
    int64_t low = d->peak_allocated_bytes;
    for (size_t i = 0; i < d->npoints; i++)
        low = d->curve[i].allocated < low ? d->curve[i].allocated : low;
    int64_t varying = d->peak_allocated_bytes - low;
    double room = 0.9 * (double)d->capacity_bytes - (double)low;
    if (varying <= 0 || room < 2.0 * (double)varying)
        return;
    struct ps_mem_finding *f = add(mem, "memory_headroom", "info", dv, d->headroom_bytes);
    if (!f)
        return;
    char a[32], b[32], c[32], e[32];
    double times = room / (double)varying;
    snprintf(f->summary, sizeof f->summary, "%s: peak allocated %s is %.1f %% of its %s; %s is free at the peak",
             d->label, human(d->peak_allocated_bytes, a, sizeof a),
             100.0 * (double)d->peak_allocated_bytes / (double)d->capacity_bytes,
             human(d->capacity_bytes, b, sizeof b), human(d->headroom_bytes, c, sizeof c));
    snprintf(f->fix, sizeof f->fix, "A larger batch fits: the memory that varies within the trace is %s above its "
             "lowest %s, so %s%.0fx the batch stays under 90 %% of the device (if that memory grows with the "
             "batch); a larger batch amortises per-step host overhead", human(varying, e, sizeof e),
             human(low, a, sizeof a), times > 100 ? "over " : "about ", times > 100 ? 100 : times);
}

void ps_memory_findings(struct ps_memory *mem, const struct ps_model *m)
{
    for (size_t dv = 0; dv < mem->ndevs; dv++) {
        if (mem->devs[dv].device_type == 0)
            continue;
        oom_risk(mem, m, dv);
        fragmentation(mem, m, dv);
        leak(mem, m, dv);
        headroom(mem, dv);
    }
}
