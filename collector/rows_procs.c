/* Processes and threads -> trace rows (see rows.h): host samples, PROCESSES and ThreadNames as known now,
 * and what is only complete at the end (PERFSCOPE_PROCESS_INFO, the run's totals). Split from rows.c, which
 * translates the probe's ring records; both share rows_impl.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_rows.h"
#include "maps.h"
#include "ps_globalid.h"
#include "collector/rows.h"
#include "rows_impl.h"

static void bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

int ps_rows_proc_sample(struct ps_rows *r, const struct ps_proc_sample *s)
{
    long pi = ps_rows_proc_index(r, s->pid);
    if (pi < 0)
        return (int)pi;
    struct proc *p = &r->procs[pi];
    /* The latest name wins: the first samples may precede the child's exec. */
    if (!p->comm || strcmp(p->comm, s->comm) != 0) {
        free(p->comm);
        if (!(p->comm = ps_rows_dup_utf8(s->comm)))
            return -ENOMEM;
    }
    if (!p->probed)
        p->ppid = s->ppid;
    sqlite3_stmt *st = r->st_psample;
    sqlite3_bind_int64(st, 1, s->time_ns - r->origin_ns);
    sqlite3_bind_int64(st, 2, ps_global_pid(s->pid));
    bind_opt(st, 3, s->cpu_user_ns);
    bind_opt(st, 4, s->cpu_system_ns);
    bind_opt(st, 5, s->rss_bytes);
    bind_opt(st, 6, s->num_threads);
    bind_opt(st, 7, s->read_bytes);
    bind_opt(st, 8, s->write_bytes);
    bind_opt(st, 9, s->rchar_bytes);
    bind_opt(st, 10, s->wchar_bytes);
    return ps_tw_exec(r->w, st);
}

int ps_rows_thread_sample(struct ps_rows *r, const struct ps_thread_sample *s)
{
    struct thread *t = ps_rows_thread_get(r, s->pid, s->tid);
    if (!t)
        return -ENOMEM;
    if (!(t->os_name = ps_rows_intern_utf8(r, s->comm)))   /* latest name wins (renames) */
        return -ENOMEM;
    sqlite3_stmt *st = r->st_tsample;
    sqlite3_bind_int64(st, 1, s->time_ns - r->origin_ns);
    sqlite3_bind_int64(st, 2, t->gtid);
    sqlite3_bind_int(st, 3, s->state);
    bind_opt(st, 4, s->cpu_user_ns);
    bind_opt(st, 5, s->cpu_system_ns);
    return ps_tw_exec(r->w, st);
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* PROCESSES and ThreadNames as known now: the tables' rows replaced (a process's name may change at exec, a
 * thread's when it is named), so a reader of a trace still being recorded (`report` on it, `top`) or of one whose
 * recorder was killed sees the processes and named threads too. One ThreadNames row per thread: the NVTX name
 * (priority 1) wins over the OS name (priority 0). */
int ps_rows_publish_names(struct ps_rows *r)
{
    if (!r->st_names_clear) {
        r->st_names_clear = ps_tw_prepare(r->w, "DELETE FROM PROCESSES");
        r->st_threads_clear = ps_tw_prepare(r->w, "DELETE FROM ThreadNames");
        r->st_proc = ps_tw_prepare(r->w, "INSERT INTO PROCESSES VALUES(?, ?, ?)");
        r->st_thread = ps_tw_prepare(r->w, "INSERT INTO ThreadNames VALUES(?, ?, ?)");
        if (!r->st_names_clear || !r->st_threads_clear || !r->st_proc || !r->st_thread)
            return -EIO;
    }
    int rc;
    if ((rc = ps_tw_exec(r->w, r->st_names_clear)) || (rc = ps_tw_exec(r->w, r->st_threads_clear)))
        return rc;
    for (size_t i = 0; i < r->n_procs; i++) {
        const struct proc *p = &r->procs[i];
        sqlite3_bind_int64(r->st_proc, 1, ps_global_pid(p->pid));
        sqlite3_bind_int64(r->st_proc, 2, p->pid);
        sqlite3_bind_text(r->st_proc, 3, p->exe ? basename_of(p->exe) : p->comm, -1, SQLITE_STATIC);
        if ((rc = ps_tw_exec(r->w, r->st_proc)))
            return rc;
    }
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct thread *th = &r->threads[i];
        const struct ps_str *name = th->nvtx_name ? th->nvtx_name : th->os_name;
        if (!name)
            continue;
        int64_t id = ps_tw_string_id(r->w, name->text, strlen(name->text));
        if (id < 0)
            return (int)id;
        sqlite3_bind_int64(r->st_thread, 1, id);
        sqlite3_bind_int(r->st_thread, 2, th->nvtx_name ? 1 : 0);
        sqlite3_bind_int64(r->st_thread, 3, th->gtid);
        if ((rc = ps_tw_exec(r->w, r->st_thread)))
            return rc;
    }
    return 0;
}

static int finish_process(struct ps_rows *r, const struct proc *p, sqlite3_stmt *st_info)
{
    int64_t gpid = ps_global_pid(p->pid);
    int rc;
    sqlite3_clear_bindings(st_info);
    sqlite3_bind_int64(st_info, 1, gpid);
    sqlite3_bind_int64(st_info, 2, p->pid);
    if (p->ppid)
        sqlite3_bind_int64(st_info, 3, p->ppid);
    sqlite3_bind_text(st_info, 4, p->exe, -1, SQLITE_STATIC);
    sqlite3_bind_text(st_info, 5, p->cmdline, -1, SQLITE_STATIC);
    if (p->probed) {
        sqlite3_bind_int64(st_info, 6, p->attach_ns);
        bind_opt(st_info, 7, p->rank);
        bind_opt(st_info, 8, p->local_rank);
        bind_opt(st_info, 9, p->world_size);
    }
    sqlite3_bind_int64(st_info, 10, p->rings);
    sqlite3_bind_int64(st_info, 11, (int64_t)p->dropped);
    sqlite3_bind_int64(st_info, 12, (int64_t)p->unbalanced);
    sqlite3_bind_int64(st_info, 13, (int64_t)p->unknown);
    sqlite3_bind_int(st_info, 14, p->cuda_injected);
    sqlite3_bind_int(st_info, 15, p->cuda_state);
    sqlite3_bind_text(st_info, 16, p->cuda_msg, -1, SQLITE_STATIC);
    if ((rc = ps_tw_exec(r->w, st_info)))
        return rc;
    char key[64];
    if (p->rings) {
        snprintf(key, sizeof key, "dropped_records.pid.%" PRIu32, p->pid);
        if ((rc = ps_tw_meta_i64(r->w, key, (int64_t)p->dropped)))
            return rc;
        snprintf(key, sizeof key, "unterminated_nvtx.pid.%" PRIu32, p->pid);
        if ((rc = ps_tw_meta_i64(r->w, key, (int64_t)p->unterminated)))
            return rc;
        snprintf(key, sizeof key, "cuda_state.pid.%" PRIu32, p->pid);
        static const char *const states[] = { "none", "injected", "cupti_active", "cupti_unavailable",
                                              "cupti_busy" };
        _Static_assert(sizeof states / sizeof *states == PS_CUDA_CUPTI_BUSY + 1, "a name per enum ps_cuda_state");
        rc = ps_tw_meta(r->w, key, p->cuda_state >= 0 && p->cuda_state <= PS_CUDA_CUPTI_BUSY ? states[p->cuda_state]
                                                                                              : "unknown");
        /* Why CUPTI did not run (unavailable, busy): the report says it in the probe's words. */
        if (rc == 0 && (p->cuda_state == PS_CUDA_CUPTI_UNAVAILABLE || p->cuda_state == PS_CUDA_CUPTI_BUSY) &&
            p->cuda_msg && *p->cuda_msg) {
            snprintf(key, sizeof key, "cuda_message.pid.%" PRIu32, p->pid);
            rc = ps_tw_meta(r->w, key, p->cuda_msg);
        }
    }
    return rc;
}

int ps_rows_finish(struct ps_rows *r, struct ps_rows_totals *t)
{
    memset(t, 0, sizeof *t);
    t->rank = t->local_rank = t->world_size = -1;
    sqlite3_stmt *st_info = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_PROCESS_INFO"
                                                " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st_info)
        return -EIO;
    int rc = ps_rows_publish_names(r);
    if (rc)
        return rc;
    for (size_t i = 0; i < r->n_procs; i++) {
        const struct proc *p = &r->procs[i];
        if ((rc = finish_process(r, p, st_info)))
            return rc;
        t->processes++;
        t->probed_processes += p->probed;
        t->rings += p->rings;
        t->dropped += p->dropped;
        t->drops.full += p->drops.full;
        t->drops.nolane += p->drops.nolane;
        t->drops.limit += p->drops.limit;
        t->drops.alloc += p->drops.alloc;
        t->still_running += (uint64_t)p->still_running;
        t->unbalanced += p->unbalanced;
        t->unterminated += p->unterminated;
        t->unknown += p->unknown;
        t->invalid += p->invalid;
        t->cuda_injected_processes += p->cuda_injected;
        if (t->rank < 0 && p->rank >= 0) {
            t->rank = p->rank;
            t->local_rank = p->local_rank;
            t->world_size = p->world_size;
        }
    }
    /* Registered strings referenced but never defined (their record was dropped): keep textId valid. */
    for (size_t i = 0; i < r->n_rings; i++) {
        const struct ps_u64map *m = &r->rings[i].registered;
        for (size_t k = 0; k < m->cap; k++) {
            if (!m->used[k] || (m->vals[k] & 1))
                continue;
            char text[64];
            snprintf(text, sizeof text, "<registered string %" PRIu64 " lost>", m->keys[k]);
            if ((rc = ps_tw_string_define(r->w, (int64_t)(m->vals[k] >> 1), text)))
                return rc;
            t->unresolved_strings++;
        }
    }
    t->unresolved_strings += r->unresolved_strings;
    t->nvtx_rows = r->nvtx_rows;
    t->other_pidns_rings = r->other_pidns_rings;
    t->corrupt_rings = r->corrupt_rings;
    /* dropped_records by cause (docs/record.md): they add up to dropped_records. */
    if ((rc = ps_tw_meta_i64(r->w, "dropped_records.ring_full", (int64_t)t->drops.full)) ||
        (rc = ps_tw_meta_i64(r->w, "dropped_records.no_lane", (int64_t)t->drops.nolane)) ||
        (rc = ps_tw_meta_i64(r->w, "dropped_records.probe_limits", (int64_t)t->drops.limit)) ||
        (rc = ps_tw_meta_i64(r->w, "dropped_records.chunk_alloc", (int64_t)t->drops.alloc)) ||
        (rc = ps_tw_meta_i64(r->w, "still_running_processes", (int64_t)t->still_running)) ||
        (rc = ps_tw_meta_i64(r->w, "other_pidns_rings", (int64_t)r->other_pidns_rings)) ||
        (rc = ps_tw_meta_i64(r->w, "corrupt_rings", (int64_t)r->corrupt_rings)) ||
        (rc = ps_tw_meta_i64(r->w, "invalid_records", (int64_t)t->invalid)))
        return rc;
    uint64_t gpu_dropped = 0;
    return ps_gpu_rows_finish(r->gpu, &gpu_dropped);
}
