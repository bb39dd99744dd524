/* Nsight Systems' serialized thread/process ids (docs/trace-format.md):
 * globalTid = (1<<48) | (pid<<24) | tid, globalPid = globalTid & ~0xFFFFFF. */
#ifndef PS_GLOBALID_H
#define PS_GLOBALID_H

#include <stdint.h>

/* The machine part alone (pid and tid 0): ANALYSIS_DETAILS.globalVid (docs/trace-format.md). */
#define PS_GLOBAL_VID ((int64_t)1 << 48)

static inline int64_t ps_global_pid(uint32_t pid)
{
    return PS_GLOBAL_VID | (int64_t)((uint64_t)(pid & 0xFFFFFF) << 24);
}

static inline int64_t ps_global_tid(uint32_t pid, uint32_t tid)
{
    return ps_global_pid(pid) | (int64_t)(tid & 0xFFFFFF);
}

static inline uint32_t ps_global_to_pid(int64_t global_id)
{
    return (uint32_t)(((uint64_t)global_id >> 24) & 0xFFFFFF);
}

static inline uint32_t ps_global_to_tid(int64_t global_tid)
{
    return (uint32_t)((uint64_t)global_tid & 0xFFFFFF);
}

#endif
