/* The PyTorch profiler's memory records (`profile_memory=True`): `[memory]` instant events whose args give the
 * device (`Device Type`: c10::DeviceType, 0 CPU, 1 CUDA, 6 HIP; `Device Id`), the block (`Addr`), its size
 * (`Bytes`, negative for a free) and the caching allocator's totals after it (`Total Allocated`,
 * `Total Reserved`). Also the time origin of the TensorBoard plugin's memory curve, so that perfscope's times
 * match the plugin's (pytorch/kineto tb_plugin/torch_tb_profiler/profiler/data.py RunProfileData.__init__:
 * profiler_start_ts is the smallest ts of the events profiler/trace.py creates). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "read_kineto_impl.h"

/* Categories of complete events the plugin creates (profiler/trace.py EventTypeMap, compared lower-cased). */
static const char *const plugin_cats[] = {
    "trace", "cpu_op", "operator", "runtime", "cuda_runtime", "mtia_runtime", "glow_runtime", "xpu_runtime",
    "privateuse1_runtime", "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset", "python", "memory",
    "python_function", "user_annotation", "gpu_user_annotation",
};

void ps_kineto_mem_arg(struct kctx *c, enum key k, const char *s, size_t len)
{
    struct event *e = &c->ev;
    int64_t v;
    if (ps_parse_int(s, len, &v) < 0) {
        e->mem_bad = 1;
        return;
    }
    switch (k) {
    case K_MEM_DEV_TYPE: e->mem_dev_type = v; break;
    case K_MEM_DEV_ID: e->mem_dev_id = v; break;
    case K_MEM_ADDR: e->mem_addr = v; break;
    case K_MEM_BYTES: e->mem_bytes = v; break;
    case K_MEM_TOTAL_ALLOC: e->mem_total_alloc = v; break;
    case K_MEM_TOTAL_RES: e->mem_total_res = v; break;
    default: return;
    }
    e->mem_set |= 1 << (k - K_MEM_DEV_TYPE);
}

static int is_set(const struct event *e, enum key k)
{
    return (e->mem_set >> (k - K_MEM_DEV_TYPE)) & 1;
}

static void note_origin(struct kctx *c, int64_t ts_ns)
{
    if (!c->m->has_mem_origin || ts_ns < c->m->mem_origin_ns)
        c->m->mem_origin_ns = ts_ns;
    c->m->has_mem_origin = 1;
}

/* One [memory] instant: kept when its device and size are readable (a record without `Device Type` or with an
 * arg that is no integer is counted unplaced; one without any memory arg is left out). `Bytes` absent reads 0, a free, as in the plugin
 * (profiler/trace.py MemoryEvent); absent totals read -1 (unknown). */
static int memory_record(struct kctx *c)
{
    struct event *e = &c->ev;
    if (!e->mem_set && !e->mem_bad)
        return 0;                    /* no memory args at all: nothing to place (the plugin drops it too) */
    if (e->mem_bad || !is_set(e, K_MEM_DEV_TYPE) || e->mem_dev_type < 0 || e->mem_dev_type > 254 ||
        e->mem_dev_id < -1 || e->mem_dev_id > INT32_MAX ||
        (is_set(e, K_MEM_TOTAL_ALLOC) && e->mem_total_alloc < 0) ||
        (is_set(e, K_MEM_TOTAL_RES) && e->mem_total_res < 0)) {
        ps_unplaced_count(&c->unplaced, c->m, "[memory] with a missing or bad device, size or total");
        return 0;
    }
    struct ps_mem_event m = {
        .time_ns = e->ts_ns, .bytes = is_set(e, K_MEM_BYTES) ? e->mem_bytes : 0,
        .total_allocated = is_set(e, K_MEM_TOTAL_ALLOC) ? e->mem_total_alloc : -1,
        .total_reserved = is_set(e, K_MEM_TOTAL_RES) ? e->mem_total_res : -1,
        .addr = (uint64_t)e->mem_addr, .pid = e->pid.numeric ? (uint32_t)e->pid.v : 0,
        .tid = e->tid.numeric ? (uint32_t)e->tid.v : 0, .device = (int32_t)e->mem_dev_id,
        .device_type = (uint8_t)e->mem_dev_type, .has_addr = (uint8_t)is_set(e, K_MEM_ADDR),
        .has_tid = (uint8_t)e->tid.numeric, .mem_kind = PS_MEM_UNKNOWN,
    };
    note_origin(c, e->ts_ns);
    return ps_model_add_mem_event(c->m, &m);
}

int ps_kineto_memory_note(struct kctx *c)
{
    struct event *e = &c->ev;
    if (!e->has_ts)
        return 0;
    if ((e->ph == 'i' || e->ph == 'I') && e->has_name && strcmp(e->name.s, "[memory]") == 0)
        return memory_record(c);
    if (e->ph != 'X' || !e->has_cat)
        return 0;
    for (size_t i = 0; i < sizeof plugin_cats / sizeof plugin_cats[0]; i++)
        if (strcasecmp(e->cat.s, plugin_cats[i]) == 0) {
            note_origin(c, e->ts_ns);
            break;
        }
    return 0;
}
