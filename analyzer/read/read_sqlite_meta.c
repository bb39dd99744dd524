/* SQLite trace reader, the tables around the activity rows: PERFSCOPE_META, PROCESSES, ThreadNames,
 * TARGET_INFO_GPU / TARGET_INFO_CUDA_DEVICE and perfscope's process information, host, thread and NVML samples. All
 * optional but PERFSCOPE_META on perfscope traces. read_sqlite.c reads the activity tables and calls this file;
 * it calls read_sqlite_ids.c (the file's ids) and read_sqlite_schema.c (read_sqlite_impl.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_globalid.h"
#include "ps_schema.h"
#include "read_sqlite_impl.h"

/* Columns 0..ncols-1 of the current row of st (whose next column is the rowid) must hold an integer or NULL,
 * but those whose bit is set in text_cols. 0, or -EINVAL with the message naming the table, column and rowid. */
static int check_int_cols(struct sctx *c, sqlite3_stmt *st, const char *table, int ncols, unsigned text_cols)
{
    for (int i = 0; i < ncols; i++) {
        int t = sqlite3_column_type(st, i);
        if (t != SQLITE_INTEGER && t != SQLITE_NULL && !(text_cols >> i & 1u))
            return ps_sq_type_error(c, st, table, i, t, "an integer");
    }
    return 0;
}

/* Run sql over `table`, calling row(c, st) for each row. Columns whose bit is set in text_cols hold text;
 * every other column but the last (the rowid) must hold an integer or NULL: anything else is an error naming
 * the table, column and rowid, never read as 0. */
static int for_rows(struct sctx *c, const char *table, const char *sql, unsigned text_cols,
                    int (*row)(struct sctx *, sqlite3_stmt *))
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (ps_sq_prepare(c, table, sql, &st) < 0)
        return -EINVAL;
    long long n = 0;
    int ncols = sqlite3_column_count(st) - 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        if (check_int_cols(c, st, table, ncols, text_cols) < 0) {
            sqlite3_finalize(st);
            return -EINVAL;
        }
        if (row(c, st) < 0) {
            sqlite3_finalize(st);
            return -EINVAL;
        }
    }
    if (rc != SQLITE_DONE) {
        ps_sq_step_error(c, table, n + 1);
        sqlite3_finalize(st);
        return -EINVAL;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Column i of the current row (an integer or NULL: check_int_cols ran) must lie in lo..hi where it is not NULL:
 * the range of the model field it goes to, never wrapped or truncated. 0, or -EINVAL with the message set. */
static int int_in_range(struct sctx *c, sqlite3_stmt *st, const char *table, int i, int64_t lo, int64_t hi)
{
    int64_t v = sqlite3_column_int64(st, i);
    if (sqlite3_column_type(st, i) == SQLITE_NULL || (v >= lo && v <= hi))
        return 0;
    return ps_read_fail(c->err, c->errlen, "%s: table %s, column %s, rowid %lld: %lld is out of range (%lld to "
                        "%lld): the trace is corrupt", c->path, table, sqlite3_column_name(st, i),
                        (long long)sqlite3_column_int64(st, sqlite3_column_count(st) - 1), (long long)v,
                        (long long)lo, (long long)hi);
}

static int process_row(struct sctx *c, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        return 0;
    if (int_in_range(c, st, "PROCESSES", 0, 0, UINT32_MAX) < 0)
        return -EINVAL;
    uint32_t pid = (uint32_t)sqlite3_column_int64(st, 0);
    uint32_t i = PS_NONE;
    if (c->m->format == PS_FORMAT_PERFSCOPE) {
        i = ps_model_process(c->m, pid);      /* perfscope: every recorded process */
    } else {
        for (size_t p = 0; p < c->m->procs.n; p++)   /* nsys: PROCESSES lists the whole system; name ours */
            if (c->m->procs.v[p].pid == pid)
                i = (uint32_t)p;
        if (i == PS_NONE)
            return 0;
    }
    if (i == PS_NONE)
        return ps_sq_oom(c);
    if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
        (c->m->procs.v[i].name = ps_sq_intern_col(c, st, 1)) == PS_NONE)
        return ps_sq_oom(c);
    return 0;
}

/* PERFSCOPE_PROCESS_INFO (pid, rank, ppid): each recorded process's distributed rank, for rank views, and its
 * parent (struct ps_process.ppid), which tells a program's DataLoader workers from another rank's. NULL, or a
 * value that is no rank / no pid: left unknown. */
static int process_info_row(struct sctx *c, sqlite3_stmt *st)
{
    int64_t pid = sqlite3_column_int64(st, 0), rank = sqlite3_column_int64(st, 1);
    int64_t ppid = sqlite3_column_int64(st, 2);
    int has_rank = sqlite3_column_type(st, 1) == SQLITE_INTEGER && rank >= 0 && rank <= INT32_MAX - 1;
    int has_ppid = sqlite3_column_type(st, 2) == SQLITE_INTEGER && ppid > 0 && ppid <= UINT32_MAX;
    if ((!has_rank && !has_ppid) || pid <= 0 || pid > UINT32_MAX)
        return 0;
    uint32_t i = ps_model_process(c->m, (uint32_t)pid);
    if (i == PS_NONE)
        return ps_sq_oom(c);
    if (has_rank)
        c->m->procs.v[i].rank = (int32_t)rank;
    if (has_ppid)
        c->m->procs.v[i].ppid = (uint32_t)ppid;
    return 0;
}

static int thread_name_row(struct sctx *c, sqlite3_stmt *st)
{
    int64_t gtid = sqlite3_column_int64(st, 1);
    uint32_t t = ps_idmap_get(&c->threads, (uint64_t)gtid), name;
    if (t == PS_NONE && c->m->format != PS_FORMAT_PERFSCOPE)
        return 0;                              /* nsys: name only the threads that have events */
    if (t == PS_NONE && (t = ps_sq_thread_of(c, gtid)) == PS_NONE)
        return ps_sq_oom(c);
    int rc = ps_sq_string_of(c, sqlite3_column_int64(st, 0), "ThreadNames", "nameId", &name);
    if (rc < 0)
        return rc;
    c->m->threads.v[t].name = name;
    return 0;
}

static int gpu_row(struct sctx *c, sqlite3_stmt *st)
{
    static const char t[] = "TARGET_INFO_GPU";
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        return 0;
    if (int_in_range(c, st, t, 0, 0, INT32_MAX) < 0 || int_in_range(c, st, t, 2, 0, INT64_MAX) < 0 ||
        int_in_range(c, st, t, 3, -1, INT32_MAX) < 0 || int_in_range(c, st, t, 4, -1, INT32_MAX) < 0 ||
        int_in_range(c, st, t, 5, -1, INT32_MAX) < 0)
        return -EINVAL;
    uint32_t i = ps_model_device(c->m, (int32_t)sqlite3_column_int64(st, 0));
    if (i == PS_NONE)
        return ps_sq_oom(c);
    struct ps_device *d = &c->m->devices.v[i];
    if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
        (d->name = ps_sq_intern_col(c, st, 1)) == PS_NONE)
        return ps_sq_oom(c);
    if (sqlite3_column_type(st, 2) != SQLITE_NULL)
        d->total_mem_bytes = sqlite3_column_int64(st, 2);
    if (sqlite3_column_type(st, 3) != SQLITE_NULL)
        d->sm_count = sqlite3_column_int(st, 3);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL)
        d->cc_major = sqlite3_column_int(st, 4);
    if (sqlite3_column_type(st, 5) != SQLITE_NULL)
        d->cc_minor = sqlite3_column_int(st, 5);
    return 0;
}

static int cuda_device_row(struct sctx *c, sqlite3_stmt *st)
{
    static const char t[] = "TARGET_INFO_CUDA_DEVICE";
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        return 0;
    if (int_in_range(c, st, t, 0, 0, INT32_MAX) < 0 || int_in_range(c, st, t, 1, -1, INT32_MAX) < 0)
        return -EINVAL;
    uint32_t i = ps_model_device(c->m, (int32_t)sqlite3_column_int64(st, 0));
    if (i == PS_NONE)
        return ps_sq_oom(c);
    if (c->m->devices.v[i].sm_count < 0 && sqlite3_column_type(st, 1) != SQLITE_NULL)
        c->m->devices.v[i].sm_count = sqlite3_column_int(st, 1);
    return 0;
}

/* A PERFSCOPE_META count: the whole value a decimal integer from 0 to max (the writer stores them as text,
 * ps_tw_meta_i64). 0 with *out set, or -EINVAL for anything else ("abc", "-5", "1e3", 2^64): the caller then leaves
 * the model's field unknown (-1) rather than a fake 0 or a clamped value. */
static int parse_count(const char *s, long long max, long long *out)
{
    long long v = 0;
    if (!*s)
        return -EINVAL;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
            return -EINVAL;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* PERFSCOPE_META (key, value) rows: all kept in model.meta; rank, local_rank, world_size and the
 * dropped-record count also go into the model's fields when they are counts (parse_count; else those stay
 * -1, unknown). `dropped_records` is the total over all processes (docs/trace-format.md); the other
 * `dropped*` keys (per process: `dropped_records.pid.PID`) are summed only as a fallback for a trace without
 * the total (ps_sq_read_meta), never added to it. */
static int meta_row(struct sctx *c, sqlite3_stmt *st)
{
    const char *key = (const char *)sqlite3_column_text(st, 0);
    const char *value = (const char *)sqlite3_column_text(st, 1);
    long long v;
    if (!key)
        return 0;
    if (ps_model_add_meta(c->m, key, value ? value : "") < 0)
        return ps_sq_oom(c);
    if (!value || sqlite3_column_type(st, 1) == SQLITE_NULL)
        return 0;
    int is_rank = strcmp(key, "rank") == 0 || strcmp(key, "local_rank") == 0 || strcmp(key, "world_size") == 0;
    int is_part = !is_rank && strncmp(key, "dropped", 7) == 0 && strcmp(key, "dropped_records") != 0;
    if (parse_count(value, is_rank ? INT32_MAX : INT64_MAX, &v) < 0 ||
        (is_part && c->dropped_parts > INT64_MAX - v)) {
        if (is_part)
            c->dropped_parts_bad = 1;         /* one unknown part: the fallback sum is unknown */
        return 0;
    }
    if (strcmp(key, "rank") == 0)
        c->m->rank = (int32_t)v;
    else if (strcmp(key, "local_rank") == 0)
        c->m->local_rank = (int32_t)v;
    else if (strcmp(key, "world_size") == 0)
        c->m->world_size = v > 0 ? (int32_t)v : -1;
    else if (strcmp(key, "dropped_records") == 0)
        c->m->dropped_records = v;
    else if (is_part)
        c->dropped_parts = (c->dropped_parts < 0 ? 0 : c->dropped_parts) + v;
    return 0;
}

/* Read optional table `table` with the listed columns (NULL where absent; the first one required) and the rowid
 * last, the rows `where` keeps ("" all; else " WHERE ..."); bit i of text_cols: column i holds text. */
static int read_optional_where(struct sctx *c, const char *table, const char *const *cols, int ncols,
                               unsigned text_cols, const char *where, int (*row)(struct sctx *, sqlite3_stmt *))
{
    char sql[512] = "SELECT ";
    int rc = ps_sq_table_exists(c, table);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, table) < 0)
        return -EINVAL;
    for (int i = 0; i < ncols; i++)
        if (ps_sq_add_col(c, sql, sizeof sql, table, cols[i], i == 0 ? NULL : "NULL") < 0)
            return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", rowid FROM \"%s\"%s", table, where);
    return for_rows(c, table, sql, text_cols, row);
}

static int read_optional(struct sctx *c, const char *table, const char *const *cols, int ncols, unsigned text_cols,
                         int (*row)(struct sctx *, sqlite3_stmt *))
{
    return read_optional_where(c, table, cols, ncols, text_cols, "", row);
}

int ps_sq_read_meta(struct sctx *c)
{
    /* The first two columns, whatever their names: (key, value). */
    if (ps_sq_load_cols(c, "PERFSCOPE_META") < 0)
        return -EINVAL;
    if (c->ncols < 2)
        return ps_read_fail(c->err, c->errlen, "%s: table PERFSCOPE_META has %d column(s), expected (key, value)",
                            c->path, c->ncols);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT \"%s\", \"%s\", rowid FROM PERFSCOPE_META", c->cols[0], c->cols[1]);
    c->dropped_parts = -1;
    if (for_rows(c, "PERFSCOPE_META", sql, 3u, meta_row) < 0)
        return -EINVAL;
    if (c->m->dropped_records < 0 && c->dropped_parts >= 0 && !c->dropped_parts_bad)
        c->m->dropped_records = c->dropped_parts;
    return 0;
}

/* PERFSCOPE_PROCESS_SAMPLES (optional): each sample (model.host_samples: time, cumulative CPU time, RSS), how many,
 * the first and last timestamp, and the CPU time the processes used (cpuUserNs + cpuSystemNs are cumulative per
 * process: each one's largest value, summed; and per process in struct ps_process). Read row by row, not by SQL
 * aggregates: min/max/sum take text and reals too ('x' sorts above every integer), and every value here must be
 * an integer (NULL CPU times count as 0; a row without a timestamp is no sample). A
 * negative CPU time, or sums past int64, are errors. */
struct sample_state {
    struct ps_idmap pids;             /* globalPid -> index in the arrays */
    int64_t *cpu, *first, *last, *gpid;   /* per process: CPU time, first and last sample, globalPid */
    size_t n, cap;
};

static int sample_row(struct sctx *c, sqlite3_stmt *st, struct sample_state *s)
{
    static const char t[] = "PERFSCOPE_PROCESS_SAMPLES";
    int64_t pid = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
    int64_t user = sqlite3_column_int64(st, 2), sys = sqlite3_column_int64(st, 3);
    long long rowid = sqlite3_column_int64(st, 5);
    if (sqlite3_column_type(st, 1) == SQLITE_NULL)
        return 0;
    if (user < 0 || sys < 0 || user > INT64_MAX - sys)
        return ps_read_fail(c->err, c->errlen, "%s: table %s, rowid %lld: CPU time %lld + %lld ns is negative or "
                            "beyond int64: the trace is corrupt", c->path, t, rowid, (long long)user, (long long)sys);
    struct ps_model *m = c->m;
    if (m->samples.n == 0 || ts < m->samples.first_ns)
        m->samples.first_ns = ts;
    if (m->samples.n == 0 || ts > m->samples.last_ns)
        m->samples.last_ns = ts;
    m->samples.n++;
    uint32_t i = ps_idmap_get(&s->pids, (uint64_t)pid);
    if (i == PS_NONE) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 16;
            int64_t **arrays[] = { &s->cpu, &s->first, &s->last, &s->gpid };
            for (size_t a = 0; a < 4; a++) {
                int64_t *v = realloc(*arrays[a], cap * sizeof *v);
                if (!v)
                    return ps_sq_oom(c);
                *arrays[a] = v;
            }
            s->cap = cap;
        }
        i = (uint32_t)s->n;
        s->cpu[s->n] = 0;
        s->first[s->n] = s->last[s->n] = ts;
        s->gpid[s->n++] = pid;
        if (ps_idmap_put(&s->pids, (uint64_t)pid, i) < 0)
            return ps_sq_oom(c);
    }
    if (user + sys > s->cpu[i])
        s->cpu[i] = user + sys;
    if (ts < s->first[i])
        s->first[i] = ts;
    if (ts > s->last[i])
        s->last[i] = ts;
    struct ps_host_sample hs = { .time_ns = ts, .cpu_ns = user + sys, .pid = ps_global_to_pid(pid),
                                 .rss_bytes = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4) };
    if (hs.rss_bytes < -1)
        hs.rss_bytes = -1;
    return ps_model_add_host_sample(m, &hs) < 0 ? ps_sq_oom(c) : 0;
}

static int read_samples(struct sctx *c)
{
    static const char t[] = "PERFSCOPE_PROCESS_SAMPLES";
    static const char *const cols[] = { "globalPid", "timestamp", "cpuUserNs", "cpuSystemNs", "rssBytes" };
    char sql[300] = "SELECT ";
    struct sample_state s = { 0 };
    sqlite3_stmt *st = NULL;
    int rc = ps_sq_table_exists(c, t);
    if (rc <= 0)
        return rc;
    if (ps_sq_load_cols(c, t) < 0)
        return -EINVAL;
    for (int i = 0; i < 5; i++)
        if (ps_sq_add_col(c, sql, sizeof sql, t, cols[i], i < 2 ? NULL : "NULL") < 0)
            return -EINVAL;
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", rowid FROM %s", t);
    if (ps_sq_prepare(c, t, sql, &st) < 0)
        return -EINVAL;
    long long n = 0;
    c->m->samples.n = 0;
    c->m->host_samples.n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n++;
        if (check_int_cols(c, st, t, 5, 0) < 0 || sample_row(c, st, &s) < 0)
            goto fail;
    }
    if (rc != SQLITE_DONE) {
        ps_sq_step_error(c, t, n + 1);
        goto fail;
    }
    c->m->samples.cpu_ns = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.cpu[i] > INT64_MAX - c->m->samples.cpu_ns) {
            ps_read_fail(c->err, c->errlen, "%s: table %s: the CPU time of all processes is beyond int64 ns: the "
                         "trace is corrupt", c->path, t);
            goto fail;
        }
        c->m->samples.cpu_ns += s.cpu[i];
        uint32_t p = ps_model_process(c->m, ps_global_to_pid(s.gpid[i]));   /* each process's own (struct ps_process) */
        if (p == PS_NONE) {
            ps_sq_oom(c);
            goto fail;
        }
        c->m->procs.v[p].cpu_ns = s.cpu[i];
        c->m->procs.v[p].first_sample_ns = s.first[i];
        c->m->procs.v[p].last_sample_ns = s.last[i];
    }
    rc = 0;
    goto out;
fail:
    rc = -EINVAL;
out:
    sqlite3_finalize(st);
    ps_idmap_fini(&s.pids);
    free(s.cpu);
    free(s.first);
    free(s.last);
    free(s.gpid);
    return rc;
}

/* PERFSCOPE_GPU_SAMPLES row (timestamp, deviceIndex, utilGpuPercent): rows without a utilisation (NVML did not
 * give one) are skipped; one outside 0..100 is counted as unplaced, never clamped. */
static int nvml_util_row(struct sctx *c, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) == SQLITE_NULL || sqlite3_column_type(st, 1) == SQLITE_NULL ||
        sqlite3_column_type(st, 2) == SQLITE_NULL)
        return 0;
    struct ps_nvml_util_sample s = { sqlite3_column_int64(st, 0), (int32_t)sqlite3_column_int64(st, 1), 0 };
    int64_t util = sqlite3_column_int64(st, 2);
    if (util < 0 || util > 100 || s.device < 0) {
        ps_unplaced_count(&c->unplaced, c->m, "PERFSCOPE_GPU_SAMPLES rows with a utilisation outside 0..100 or a "
                                              "negative device");
        return 0;
    }
    s.util_pct = (int32_t)util;
    return ps_model_add_nvml_util(c->m, &s) < 0 ? ps_sq_oom(c) : 0;
}

/* A PERFSCOPE_THREAD_SAMPLES row: (timestamp, globalTid, state, rowid) of a thread the trace's activity rows named
 * (the others' samples are kept nowhere: no analysis looks at a thread without ranges or calls); a row without one
 * of the three is no sample, and a state outside the schema's enum reads as PS_THREAD_OTHER. */
static int thread_sample_row(struct sctx *c, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) == SQLITE_NULL || sqlite3_column_type(st, 1) == SQLITE_NULL ||
        sqlite3_column_type(st, 2) == SQLITE_NULL)
        return 0;
    int64_t state = sqlite3_column_int64(st, 2);
    struct ps_thread_sample s = { .time_ns = sqlite3_column_int64(st, 0),
                                  .thread = ps_idmap_get(&c->threads, (uint64_t)sqlite3_column_int64(st, 1)),
                                  .state = state >= 0 && state < PS_THREAD_STATES ? (uint8_t)state : PS_THREAD_OTHER };
    int64_t rowid = sqlite3_column_int64(st, 3);
    if (rowid > c->thread_samples_after)
        c->thread_samples_after = rowid;
    if (s.thread == PS_NONE)
        return 0;
    return ps_model_add_thread_sample(c->m, &s) < 0 ? ps_sq_oom(c) : 0;
}

int ps_sq_read_thread_samples(struct sctx *c)
{
    static const char *const cols[] = { "timestamp", "globalTid", "state" };
    char where[64];
    if (c->m->gpu.n > 0)
        return 0;
    snprintf(where, sizeof where, " WHERE rowid > %lld", (long long)c->thread_samples_after);
    return read_optional_where(c, "PERFSCOPE_THREAD_SAMPLES", cols, 3, 0, where, thread_sample_row);
}

/* PROCESSES, ThreadNames, TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE (each optional) and, on perfscope traces,
 * the processes' ranks and parents (PERFSCOPE_PROCESS_INFO), the host samples (processes and threads) and the NVML
 * utilisation samples. Returns 0
 * or -EINVAL with the message set. */
int ps_sq_read_host_tables(struct sctx *c, int is_perfscope)
{
    static const char *const proc_cols[] = { "pid", "name" };
    static const char *const tname_cols[] = { "nameId", "globalTid" };
    static const char *const gpu_cols[] = { "id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor" };
    static const char *const cdev_cols[] = { "cudaId", "numMultiprocessors" };
    static const char *const info_cols[] = { "pid", "rank", "ppid" };
    if (read_optional(c, "PROCESSES", proc_cols, 2, 1u << 1, process_row) < 0 ||
        read_optional(c, "ThreadNames", tname_cols, 2, 0, thread_name_row) < 0 ||
        read_optional(c, "TARGET_INFO_GPU", gpu_cols, 6, 1u << 1, gpu_row) < 0 ||
        read_optional(c, "TARGET_INFO_CUDA_DEVICE", cdev_cols, 2, 0, cuda_device_row) < 0 ||
        (is_perfscope && read_optional(c, "PERFSCOPE_PROCESS_INFO", info_cols, 3, 0, process_info_row) < 0))
        return -EINVAL;
    static const char *const nvml_sample_cols[] = { "timestamp", "deviceIndex", "utilGpuPercent" };
    if (!is_perfscope)
        return 0;
    return read_samples(c) < 0 ||
           ps_sq_read_thread_samples(c) < 0 ||
           read_optional(c, "PERFSCOPE_GPU_SAMPLES", nvml_sample_cols, 3, 0, nvml_util_row) < 0 ? -EINVAL : 0;
}
