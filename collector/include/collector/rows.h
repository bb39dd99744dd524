/* From probe records to trace rows: the writer thread's translation of ring records (common/ps_wire.h)
 * and host samples into NVTX_EVENTS, StringIds, ThreadNames, PROCESSES, PERFSCOPE_PROCESS_INFO,
 * PERFSCOPE_*_SAMPLES, the Python stack tables (PERFSCOPE_PYTHON_*) and the per-process PERFSCOPE_META rows.
 * Keeps per-ring state (lane strings, registered strings, Python frame ids) and per-process state (drops, CUDA
 * state). Not thread-safe: the writer thread owns it. */
#ifndef PS_ROWS_H
#define PS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "ps_ring.h"
#include "ps_utf8.h"
#include "ps_wire.h"
#include "collector/trace_writer.h"

struct ps_rows;

/* Converts a raw probe timestamp of one ring to CLOCK_MONOTONIC ns (ps_ring_reader_to_ns, or a test clock). */
typedef int64_t (*ps_rows_clock_fn)(const void *ctx, uint64_t tsc);

/* `origin_ns`: CLOCK_MONOTONIC ns of the recording session's start; stored times are ns since it.
 * Returns 0 and *out (free with ps_rows_free), or -ENOMEM. */
int ps_rows_new(struct ps_tw *w, int64_t origin_ns, struct ps_rows **out);
void ps_rows_free(struct ps_rows *r);          /* NULL is a no-op */

/* Announce ring number `ring` (dense: 0, 1, 2, ... in the order found) of process `pid`, before its records.
 * `clock`/`clock_ctx` must stay valid until ps_rows_free. 0, -EINVAL (ring out of order) or -ENOMEM. */
int ps_rows_ring_open(struct ps_rows *r, uint32_t ring, uint32_t pid, ps_rows_clock_fn clock,
                      const void *clock_ctx);

/* One record of ring `ring`, lane `lane`, in the lane's order. Malformed or unknown records are counted
 * (PERFSCOPE_PROCESS_INFO.unknownRecords), never fatal. NVTX records no probe wrote (times outside the session, a
 * range ending before it starts; for a range made from an open-range slot, PS_WIRE_OPEN_SLOT, a thread or domain
 * the ring's records never made known) are left out and counted (invalid_records). Returns 0, or -EIO / -ENOMEM
 * when writing fails (message: ps_tw_errmsg). Call inside a transaction. */
int ps_rows_wire(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec);

/* Keep, in the trace's PERFSCOPE_RECOVERY_* tables (ps_schema_recovery_sql, which must exist), what a later
 * ps_rows needs to go on with these rings after this one is gone: the state records and the registered
 * string ids. Written inside the transactions of the rows. 0 or -EIO. */
int ps_rows_keep_state(struct ps_rows *r);
/* Recovery: give ring `ring` (opened) back a kept state record (PS_WIRE_LANE_STRING, _PROCESS,
 * _THREAD_NAME, _CUDA_STATUS, _PY_FRAME; -EINVAL for others), or a registered string's StringIds id (`defined`: its
 * StringIds row exists). Nothing is written. 0, -EINVAL or -ENOMEM. */
int ps_rows_restore_record(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec);
int ps_rows_restore_registered(struct ps_rows *r, uint32_t ring, uint32_t id, int64_t sid, int defined);
/* Recovery: PERFSCOPE_PYTHON_FRAMES row `id` (given in id order from 1: -EINVAL otherwise) as a dead recorder wrote
 * it, so that a kept PS_WIRE_PY_FRAME record (ps_rows_restore_record) finds its row and a new location gets the next
 * id; then the largest PERFSCOPE_PYTHON_STACKS id it wrote (0: none), after which new stacks are numbered (a
 * stack it wrote and one written now may be the same frames under two ids). Nothing is written. 0, -EINVAL,
 * -ENOMEM or -EIO. */
int ps_rows_restore_py_frame(struct ps_rows *r, int64_t id, const char *file, int64_t line, const char *function);
int ps_rows_restore_py_stacks(struct ps_rows *r, int64_t last_id);
/* Recovery: process `pid` (whose ring is open) defined NVTX domain `domain` (an NVTX_EVENTS row of type 75 the dead
 * recorder stored): the ranges of its open-range slots may be in it. 0 or -ENOMEM. */
int ps_rows_restore_domain(struct ps_rows *r, uint32_t pid, uint32_t domain);

/* Every TEXT the collector stores is valid UTF-8 (ps_tw_bind_text, trace_writer.h), so Python's sqlite3 and
 * pandas can read it. */

/* The ring's count of dropped records by cause (ps_ring_reader_drops); the last call per ring counts. */
void ps_rows_ring_dropped(struct ps_rows *r, uint32_t ring, const struct ps_ring_drops *d);
/* `n` open-range slots of ring `ring` the ring reader left out (ps_ring_reader_open_refused): counted with the
 * records no probe wrote (invalid_records). */
void ps_rows_ring_refused(struct ps_rows *r, uint32_t ring, uint64_t n);

/* One sample of a process of the recorded tree (times: CLOCK_MONOTONIC ns; counters: -1 = unavailable). */
struct ps_proc_sample {
    int64_t time_ns;
    uint32_t pid, ppid;
    int64_t cpu_user_ns, cpu_system_ns, rss_bytes, num_threads;
    int64_t read_bytes, write_bytes, rchar_bytes, wchar_bytes;
    char comm[16];              /* /proc/PID/comm, for PROCESSES when the probe never reported the process */
};

struct ps_thread_sample {
    int64_t time_ns;
    uint32_t pid, tid;
    int state;                  /* enum ps_thread_state */
    int64_t cpu_user_ns, cpu_system_ns;
    char comm[16];              /* OS thread name, for ThreadNames when NVTX did not name the thread */
};

/* A ring was written in another PID namespace (counted: other_pidns_rings). */
void ps_rows_ring_other_pidns(struct ps_rows *r);

/* Reading ring `ring` stopped on nonsense in it (ps_ring_reader_corrupt; counted: corrupt_rings); its drop
 * counts are unknown (no ps_rows_ring_dropped follows). */
void ps_rows_ring_corrupt(struct ps_rows *r, uint32_t ring);

/* The process of ring `ring` was still running when CMD exited (counted: still_running_processes). */
void ps_rows_ring_still_running(struct ps_rows *r, uint32_t ring);

/* Write one sample row. 0 or -EIO / -ENOMEM. Call inside a transaction. */
int ps_rows_proc_sample(struct ps_rows *r, const struct ps_proc_sample *s);
int ps_rows_thread_sample(struct ps_rows *r, const struct ps_thread_sample *s);

/* PERFSCOPE_LIVE_OPEN_RANGES, the push/pop ranges open right now (for `perfscope top`): clear the table, then
 * add one PS_WIRE_NVTX_OPEN record (ps_ring_reader_open_ranges, times converted) of ring `ring`, lane `lane`.
 * Call inside a transaction. 0 or -EIO / -ENOMEM. */
int ps_rows_live_open_clear(struct ps_rows *r);
int ps_rows_live_open(struct ps_rows *r, uint32_t ring, uint32_t lane, const struct ps_wire_hdr *rec);

/* Replace PROCESSES and ThreadNames with what is known now (the writer calls it about once a second and at the
 * end), so readers of a trace being recorded see them. Call inside a transaction. 0 or -EIO / -ENOMEM. */
int ps_rows_publish_names(struct ps_rows *r);

/* Totals over every process, for the run-level PERFSCOPE_META rows. */
struct ps_rows_totals {
    uint64_t processes, probed_processes, rings;
    uint64_t dropped, unbalanced, unknown, unresolved_strings;
    uint64_t invalid;               /* records no probe wrote, left out (ps_rows_wire) */
    struct ps_ring_drops drops;     /* `dropped` by cause */
    uint64_t still_running;         /* probed processes still running when CMD exited */
    uint64_t other_pidns_rings;     /* rings written in another PID namespace */
    uint64_t corrupt_rings;         /* rings whose reading stopped on nonsense (their later records are lost) */
    uint64_t unterminated;          /* push/pop ranges never popped: NVTX_EVENTS rows with end NULL */
    uint64_t nvtx_rows;
    uint64_t salvaged;              /* records written (ps_collect_stop / ps_collect_resume) */
    uint64_t cuda_injected_processes;
    int32_t rank, local_rank, world_size;   /* of the first probed process reporting one; -1 unknown */
};

/* Write what is only complete at the end: PROCESSES and ThreadNames (final), PERFSCOPE_PROCESS_INFO, the per-process
 * PERFSCOPE_META rows, StringIds rows of registered strings never defined. Fills *t. Call inside a
 * transaction, once. 0 or -EIO / -ENOMEM. */
int ps_rows_finish(struct ps_rows *r, struct ps_rows_totals *t);

#endif
