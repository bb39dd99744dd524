/* What the fixes must know of the program (docs/report.md "What to do"), so that no advice is one the trace
 * contradicts: whether the program runs Python at all (a C program is not told about DataLoader workers or
 * pin_memory=True), whether its host<->device copies already use pinned memory (then "copy from pinned memory"
 * is no fix), and whether its GPU is AMD's (HIP calls: no Tensor Cores to name). */
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* A word of the command line that starts Python: python, python3.11, torchrun, a script.py. */
static int python_command(const char *cmd)
{
    for (const char *p = cmd; p && *p;) {
        size_t len = strcspn(p, " \t");
        const char *base = p;
        for (const char *q = p; q < p + len; q++)   /* the word's last path component */
            if (*q == '/')
                base = q + 1;
        size_t blen = (size_t)(p + len - base);
        if (!strncmp(base, "python", 6) || (blen == 8 && !strncmp(base, "torchrun", 8)) ||
            (blen > 3 && !strncmp(base + blen - 3, ".py", 3)))
            return 1;
        p += len;
        p += strspn(p, " \t");
    }
    return 0;
}

/* Ranges only PyTorch records: its operators (aten::...) and the profiler's steps. */
static int pytorch_ranges(const struct ps_view *v)
{
    for (size_t i = 0; i < v->nranges; i++) {
        const char *name = ps_model_str(v->m, ps_view_range(v, i)->name);
        if (name && (!strncmp(name, "aten::", 6) || !strncmp(name, "ProfilerStep#", 13)))
            return 1;
    }
    return 0;
}

int ps_advice_facts_compute(struct ps_report *r, struct ps_names *names)
{
    (void)names;
    struct ps_advice_facts *a = &r->advice;
    *a = (struct ps_advice_facts){ 0 };
    a->python = r->py != NULL ||
                python_command(ps_report_meta(r, "command_line")) || pytorch_ranges(r->all);
    const struct ps_view *v = r->scope;
    for (size_t i = 0; i < v->napi && !a->rocm; i++) {
        const char *name = ps_model_str(v->m, ps_view_api(v, i)->name);
        a->rocm = name && !strncmp(name, "hip", 3);
    }
    for (size_t i = 0; i < v->ngpu; i++) {
        const struct ps_gpu_op op = ps_view_gpu(v, i);
        if (op.kind != PS_GPU_MEMCPY || (op.copy_kind != PS_COPY_HTOD && op.copy_kind != PS_COPY_DTOH) ||
            op.start_ns < r->window_start_ns || op.end_ns > r->window_end_ns)
            continue;
        uint8_t host = op.copy_kind == PS_COPY_HTOD ? op.src_kind : op.dst_kind;
        int64_t ns = op.end_ns - op.start_ns;
        a->host_copies++, a->host_copy_ns += ns;
        if (host == PS_MEM_PAGEABLE)
            a->pageable_copies++, a->pageable_copy_ns += ns;
        else if (host == PS_MEM_PINNED)
            a->pinned_copies++, a->pinned_copy_ns += ns;
    }
    return 0;
}
