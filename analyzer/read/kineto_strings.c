/* libkineto's strings, decoded for the Kineto reader: event categories (and the ones it ignores by design), the
 * memcpy and memory kinds in the names it gives copies ("Memcpy HtoD (Pageable -> Device)") and the
 * cuda_sync_kind names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ps_schema.h"
#include "kineto_text.h"

static const struct { const char *text; enum ps_kineto_cat cat; } cat_names[] = {
    { "kernel", PS_KCAT_KERNEL },           { "Kernel", PS_KCAT_KERNEL },       { "gpu_memcpy", PS_KCAT_MEMCPY },
    { "Memcpy", PS_KCAT_MEMCPY },           { "gpu_memset", PS_KCAT_MEMSET },   { "Memset", PS_KCAT_MEMSET },
    { "cuda_sync", PS_KCAT_SYNC },          { "cuda_runtime", PS_KCAT_RUNTIME }, { "Runtime", PS_KCAT_RUNTIME },
    { "cuda_driver", PS_KCAT_DRIVER },      { "cpu_op", PS_KCAT_CPU_OP },        { "Operator", PS_KCAT_CPU_OP },
    { "user_annotation", PS_KCAT_USER_ANN }, { "gpu_user_annotation", PS_KCAT_GPU_ANN },
    { "python_function", PS_KCAT_PYTHON },  { "Trace", PS_KCAT_TRACE },
};

static const char *const ignored_cats[PS_KINETO_N_IGNORED] = {
    "overhead", "cuda_profiler_range", "external_correlation", "cpu_instant_event", "cuda_event", "mtia_counters",
};

enum ps_kineto_cat ps_kineto_category(const char *cat)
{
    for (size_t i = 0; i < sizeof cat_names / sizeof cat_names[0]; i++)
        if (strcmp(cat, cat_names[i].text) == 0)
            return cat_names[i].cat;
    return PS_KCAT_UNKNOWN;
}

int ps_kineto_ignored_index(const char *cat, int *index)
{
    for (int i = 0; i < PS_KINETO_N_IGNORED; i++)
        if (strcmp(cat, ignored_cats[i]) == 0) {
            *index = i;
            return 1;
        }
    return 0;
}

const char *ps_kineto_ignored_name(int i)
{
    return i >= 0 && i < PS_KINETO_N_IGNORED ? ignored_cats[i] : "";
}

/* "HtoD" -> PS_COPY_HTOD, ... (libkineto memcpyKindString: CUPTI's CUpti_ActivityMemcpyKind order). */
static uint8_t copy_kind_from(const char *s, size_t len)
{
    int k = ps_enum_find(ps_nsys_copy_kind, PS_NSYS_COPY_KINDS, s, len);
    return k < 0 ? PS_COPY_UNKNOWN : (uint8_t)k;
}

/* "Pageable" -> PS_MEM_PAGEABLE, ... (libkineto memoryKindString names; nsys ENUM_CUDA_MEM_KIND numbers). */
static uint8_t mem_kind_from(const char *s, size_t len)
{
    int k = ps_enum_find(ps_nsys_mem_kind, PS_NSYS_MEM_KINDS, s, len);
    return k < 0 ? PS_MEM_UNKNOWN : (uint8_t)k;
}

void ps_kineto_parse_copy_name(const char *name, struct ps_gpu_op *op)
{
    const char *sp = strchr(name, ' ');
    const char *open = strchr(name, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    op->src_kind = op->dst_kind = PS_MEM_UNKNOWN;
    if (op->kind == PS_GPU_MEMCPY && sp) {
        const char *k = sp + 1, *kend = strchr(k, ' ');
        op->copy_kind = copy_kind_from(k, kend ? (size_t)(kend - k) : strlen(k));
    }
    if (!open || !close)
        return;
    const char *arrow = strstr(open, " -> ");
    if (op->kind == PS_GPU_MEMCPY && arrow && arrow < close) {
        op->src_kind = mem_kind_from(open + 1, (size_t)(arrow - open - 1));
        op->dst_kind = mem_kind_from(arrow + 4, (size_t)(close - arrow - 4));
    } else if (op->kind == PS_GPU_MEMSET) {
        op->dst_kind = mem_kind_from(open + 1, (size_t)(close - open - 1));
    }
}

int ps_kineto_sync_kind(const unsigned char *s, size_t len)
{
    static const char *const names[] = { "Unknown", "Event Sync", "Stream Wait Event", "Stream Sync",
                                         "Context Sync" };
    for (int i = 1; i < 5; i++)
        if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0)
            return i;
    return 0;
}

int ps_kineto_occupancy(const char *s, size_t len, int *pct)
{
    char num[32];
    if (len == 0 || len >= sizeof num)
        return 0;
    memcpy(num, s, len);
    num[len] = '\0';
    char *end;
    double x = strtod(num, &end);
    if (*end || !(x >= 0 && x <= 100))
        return 0;
    *pct = (int)lround(x);
    return 1;
}
