/* The perfscope trace schema (docs/trace-format.md, docs/trace-format.md): the SQL that creates the tables
 * `perfscope record` writes, shared by the collector and by tests that build traces by hand.
 * Tables named like Nsight Systems' export use its column names, order, types and encodings. */
#ifndef PS_SCHEMA_H
#define PS_SCHEMA_H

#include <stddef.h>

/* Version of the perfscope-specific part of the schema (PERFSCOPE_META 'schema_version'). */
#define PS_SCHEMA_VERSION "1"

/* Nsight Systems' ENUM_NSYS_EVENT_TYPE ids used by perfscope (docs/trace-format.md, verified on a
 * 2026.2 export). Macros, so SQL text can hold them: PS_SQL_INT(PS_NSYS_NVTX_PUSHPOP) is "59". */
#define PS_NSYS_NVTX_CATEGORY 33
#define PS_NSYS_NVTX_MARK 34
#define PS_NSYS_NVTX_PUSH 35            /* a push without its pop (nsys' separate records) */
#define PS_NSYS_NVTX_START 37           /* a start without its end */
#define PS_NSYS_NVTX_PUSHPOP 59
#define PS_NSYS_NVTX_STARTEND 60
#define PS_NSYS_NVTXT_PUSHPOP 70        /* ranges imported from NVTXT files */
#define PS_NSYS_NVTXT_STARTEND 71
#define PS_NSYS_NVTX_DOMAIN_CREATE 75
#define PS_SQL_STR(x) #x
#define PS_SQL_INT(x) PS_SQL_STR(x)

/* Names of Nsight Systems' ENUM_CUDA_MEMCPY_OPER ids 0..10 (= CUPTI's CUpti_ActivityMemcpyKind) and
 * ENUM_CUDA_MEM_KIND ids 0..7 (not CUPTI's numbering): `label` as nsys' and Kineto's copy names write it
 * ("Memcpy HtoD (Pageable -> Device)": "HtoD", "Pageable", "Device Static"), `key` as the JSON report writes it
 * ("HtoD", "pageable", "device_static"; docs/report.md). The one copy of these tables. */
struct ps_enum_name {
    const char *label, *key;
};
#define PS_NSYS_COPY_KINDS 11
#define PS_NSYS_MEM_KINDS 8
extern const struct ps_enum_name ps_nsys_copy_kind[PS_NSYS_COPY_KINDS];
extern const struct ps_enum_name ps_nsys_mem_kind[PS_NSYS_MEM_KINDS];
/* The id whose label is s[0..len) in table t of n entries (exact, case-sensitive), or -ENOENT. */
int ps_enum_find(const struct ps_enum_name *t, int n, const char *s, size_t len);

/* PERFSCOPE_THREAD_SAMPLES.state, from the state letter of /proc/PID/task/TID/stat (proc(5)). */
enum ps_thread_state {
    PS_THREAD_RUNNING = 0,      /* R */
    PS_THREAD_SLEEPING = 1,     /* S: interruptible sleep (waiting on a lock, a queue, a timer, a socket) */
    PS_THREAD_BLOCKED_IO = 2,   /* D: uninterruptible sleep, usually disk I/O */
    PS_THREAD_STOPPED = 3,      /* T, t */
    PS_THREAD_ZOMBIE = 4,       /* Z, X */
    PS_THREAD_IDLE = 5,         /* I */
    PS_THREAD_OTHER = 6,        /* any other letter */
    PS_THREAD_STATES            /* how many */
};

/* One statement per table, each ending in ';': run them in order with sqlite3_exec.
 * No indexes here (they are created after the bulk load: ps_schema_index_sql). */
extern const char ps_schema_sql[];

/* INSERT statements filling the ENUM_NSYS_EVENT_TYPE rows perfscope uses and PERFSCOPE_ENUM_THREAD_STATE. */
extern const char ps_schema_enum_sql[];

/* The tables that make a recording whose recorder died recoverable (`perfscope record --recover`,
 * docs/record.md): the rings in the order found (PERFSCOPE_RECOVERY_RINGS), where each lane's stored records
 * end (PERFSCOPE_RECOVERY_LANES: the recorder hands a ring chunk back only once the rows before that place
 * are committed), and the probe records whose state later records need (PERFSCOPE_RECOVERY_STATE: lane
 * strings, process and thread records; PERFSCOPE_RECOVERY_REGISTERED: registered string -> StringIds id).
 * Written with the rows they describe, in the same transactions; dropped once the trace is finished. */
extern const char ps_schema_recovery_sql[];
extern const char ps_schema_recovery_drop_sql[];

/* Secondary indexes, created once the bulk load is over. */
extern const char ps_schema_index_sql[];

#endif
