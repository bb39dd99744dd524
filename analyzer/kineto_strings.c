/* libkineto's strings for CUDA activity attributes, decoded for the Kineto reader: the memcpy and memory kinds
 * in the names it gives copies ("Memcpy HtoD (Pageable -> Device)") and the cuda_sync_kind names. */
#include <string.h>

#include "kineto_text.h"

/* "HtoD" -> PS_COPY_HTOD, ... (libkineto memcpyKindString, CUPTI's CUpti_ActivityMemcpyKind order). */
static uint8_t copy_kind_from(const char *s, size_t len)
{
    static const char *const names[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                         "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP" };
    for (size_t i = 1; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0)
            return (uint8_t)i;
    return PS_COPY_UNKNOWN;
}

/* "Pageable" -> PS_MEM_PAGEABLE, ... (libkineto memoryKindString names; nsys ENUM_CUDA_MEM_KIND numbers). */
static uint8_t mem_kind_from(const char *s, size_t len)
{
    static const struct { const char *text; uint8_t kind; } names[] = {
        { "Pageable", PS_MEM_PAGEABLE }, { "Pinned", PS_MEM_PINNED },   { "Device", PS_MEM_DEVICE },
        { "Array", PS_MEM_ARRAY },       { "Managed", PS_MEM_MANAGED }, { "Device Static", PS_MEM_DEVICE_STATIC },
        { "Managed Static", PS_MEM_MANAGED_STATIC },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].text) == len && memcmp(s, names[i].text, len) == 0)
            return names[i].kind;
    return PS_MEM_UNKNOWN;
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
