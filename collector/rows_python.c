/* Python stack samples -> PERFSCOPE_PYTHON_FRAMES, PERFSCOPE_PYTHON_STACKS and PERFSCOPE_PYTHON_SAMPLES
 * (docs/trace-format.md): each code location the hook defined (PS_WIRE_PY_FRAME) is one frame row per distinct
 * (file, line, function) of the whole trace, whichever processes defined it; each distinct sequence of frames is
 * one stack (its rows: level 0 the innermost frame); each sample (PS_WIRE_PY_SAMPLE) one row naming its thread and
 * its stack. Shares rows_impl.h with rows.c, which hands it the records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "ps_globalid.h"
#include "ps_wire.h"
#include "collector/rows.h"
#include "rows_impl.h"

struct py_frame {                   /* PERFSCOPE_PYTHON_FRAMES row `index + 1` */
    const struct ps_str *file, *function;   /* interned: equal text, equal pointer */
    uint32_t line;
};

struct py_stack {                   /* PERFSCOPE_PYTHON_STACKS rows of stack `index + 1 + stack_base` */
    size_t first;                   /* its frame ids: stack_frames[first .. first + n) */
    uint32_t n;
};

struct py_rows {
    struct py_frame *frames;
    size_t n_frames, cap_frames;
    struct ps_u64map frame_ix;      /* hash of (file, line, function) -> frame index (a multi-map) */
    struct py_stack *stacks;
    size_t n_stacks, cap_stacks;
    int64_t stack_base;             /* stack ids below it are a dead recorder's (record --recover): not indexed */
    int64_t *stack_frames;
    size_t n_stack_frames, cap_stack_frames;
    struct ps_u64map stack_ix;      /* hash of a stack's frame ids -> stack index (a multi-map) */
    sqlite3_stmt *st_frame, *st_stack, *st_sample;
};

/* r->py, made (and its statements prepared) on first use. NULL: no memory (-ENOMEM) or an SQL error (-EIO), in *rc. */
static struct py_rows *py_of(struct ps_rows *r, int *rc)
{
    if (r->py)
        return r->py;
    struct py_rows *p = calloc(1, sizeof *p);
    *rc = -ENOMEM;
    if (!p)
        return NULL;
    r->py = p;
    p->st_frame = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_PYTHON_FRAMES VALUES(?, ?, ?, ?)");
    p->st_stack = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_PYTHON_STACKS VALUES(?, ?, ?)");
    p->st_sample = ps_tw_prepare(r->w, "INSERT INTO PERFSCOPE_PYTHON_SAMPLES VALUES(?, ?, ?, ?)");
    if (!p->st_frame || !p->st_stack || !p->st_sample) {
        *rc = -EIO;
        ps_rows_py_free(r);
        return NULL;
    }
    return p;
}

void ps_rows_py_free(struct ps_rows *r)
{
    for (size_t i = 0; i < r->n_rings; i++)
        ps_u64map_fini(&r->rings[i].py_frames);
    struct py_rows *p = r->py;
    if (!p)
        return;
    free(p->frames);
    free(p->stacks);
    free(p->stack_frames);
    ps_u64map_fini(&p->frame_ix);
    ps_u64map_fini(&p->stack_ix);
    free(p);
    r->py = NULL;
}

static uint64_t frame_hash(const struct ps_str *file, const struct ps_str *function, uint32_t line)
{
    return ps_hash_u64((uint64_t)(uintptr_t)file ^ ps_hash_u64((uint64_t)(uintptr_t)function ^
                                                               ps_hash_u64(line)));
}

/* The frame id (> 0) of (file, line, function), its row written the first time (unless `write` is 0: then 0 when
 * it is not known). Negative: -ENOMEM or -EIO. */
static int64_t frame_id(struct ps_rows *r, struct py_rows *p, const char *file, uint32_t line, const char *function,
                        int write)
{
    const struct ps_str *f = ps_rows_intern_utf8(r, file), *fn = ps_rows_intern_utf8(r, function);
    if (!f || !fn)
        return -ENOMEM;
    uint64_t h = frame_hash(f, fn, line);
    size_t pos = 0;
    for (uint64_t *v; (v = ps_u64map_next(&p->frame_ix, h, &pos));) {
        const struct py_frame *e = &p->frames[*v];
        if (e->file == f && e->function == fn && e->line == line)
            return (int64_t)*v + 1;
    }
    if (!write)
        return 0;
    if (ps_array_grow((void **)&p->frames, &p->cap_frames, p->n_frames, sizeof *p->frames) ||
        ps_u64map_add(&p->frame_ix, h, p->n_frames))
        return -ENOMEM;
    p->frames[p->n_frames] = (struct py_frame){ f, fn, line };
    int64_t id = (int64_t)++p->n_frames;
    sqlite3_stmt *st = p->st_frame;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, f->text, -1, SQLITE_STATIC);      /* interned: valid UTF-8 already */
    if (line)
        sqlite3_bind_int64(st, 3, line);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_text(st, 4, fn->text, -1, SQLITE_STATIC);
    int rc = ps_tw_exec(r->w, st);
    return rc ? rc : id;
}

int ps_rows_py_frame(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    struct proc *pr = &r->procs[g->proc];
    const struct ps_wire_py_frame *w = (const void *)rec;
    if (rec->size < sizeof *w || w->file_len == 0 || w->file_len > rec->size - sizeof *w ||
        w->function_len > rec->size - sizeof *w - w->file_len) {
        pr->unknown++;
        return 0;
    }
    const char *file = (const char *)(w + 1), *function = file + w->file_len;
    if (memchr(file, '\0', w->file_len) != file + w->file_len - 1 || w->function_len == 0 ||
        memchr(function, '\0', w->function_len) != function + w->function_len - 1) {
        pr->unknown++;
        return 0;
    }
    if (w->id == 0 || (!r->replaying && !ps_rows_in_session(r, g->clock(g->clock_ctx, w->tsc)))) {
        pr->invalid++;
        return 0;
    }
    int rc = 0;
    struct py_rows *p = py_of(r, &rc);
    if (!p)
        return rc;
    int64_t id = frame_id(r, p, file, w->line, function, !r->replaying);
    if (id < 0)
        return (int)id;
    if (id == 0)
        return 0;                   /* replaying a definition whose row was lost: its samples count as invalid */
    return ps_u64map_put(&g->py_frames, w->id, (uint64_t)id);
}

/* The stack id of frames[0..n), its rows written the first time. Negative: -ENOMEM or -EIO. */
static int64_t stack_id(struct ps_rows *r, struct py_rows *p, const int64_t *frames, uint32_t n)
{
    uint64_t h = ps_hash_bytes(frames, n * sizeof *frames);
    size_t pos = 0;
    for (uint64_t *v; (v = ps_u64map_next(&p->stack_ix, h, &pos));) {
        const struct py_stack *s = &p->stacks[*v];
        if (s->n == n && memcmp(p->stack_frames + s->first, frames, n * sizeof *frames) == 0)
            return p->stack_base + (int64_t)*v + 1;
    }
    while (p->n_stack_frames + n > p->cap_stack_frames) {
        size_t cap = p->cap_stack_frames ? p->cap_stack_frames * 2 : 1024;
        int64_t *f = realloc(p->stack_frames, cap * sizeof *f);
        if (!f)
            return -ENOMEM;
        p->stack_frames = f;
        p->cap_stack_frames = cap;
    }
    if (ps_array_grow((void **)&p->stacks, &p->cap_stacks, p->n_stacks, sizeof *p->stacks) ||
        ps_u64map_add(&p->stack_ix, h, p->n_stacks))
        return -ENOMEM;
    p->stacks[p->n_stacks] = (struct py_stack){ p->n_stack_frames, n };
    memcpy(p->stack_frames + p->n_stack_frames, frames, n * sizeof *frames);
    p->n_stack_frames += n;
    int64_t id = p->stack_base + (int64_t)++p->n_stacks;
    sqlite3_stmt *st = p->st_stack;
    for (uint32_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, i);
        sqlite3_bind_int64(st, 3, frames[i]);
        int rc = ps_tw_exec(r->w, st);
        if (rc)
            return rc;
    }
    return id;
}

int ps_rows_py_sample(struct ps_rows *r, struct ring *g, const struct ps_wire_hdr *rec)
{
    struct proc *pr = &r->procs[g->proc];
    const struct ps_wire_py_sample *w = (const void *)rec;
    if (rec->size < sizeof *w || w->n == 0 || w->n > PS_WIRE_PY_STACK_MAX ||
        (rec->size - sizeof *w) / sizeof(uint32_t) < w->n) {
        pr->unknown++;
        return 0;
    }
    /* what the probe writes (hook_api.c): a thread id globalTid can hold, a depth of at least the frames sent */
    int64_t t = g->clock(g->clock_ctx, w->tsc);
    if (w->tid == 0 || w->tid > 0xFFFFFFu || w->depth < w->n || !ps_rows_in_session(r, t)) {
        pr->invalid++;
        return 0;
    }
    int64_t frames[PS_WIRE_PY_STACK_MAX];
    const uint32_t *ids = (const uint32_t *)(w + 1);
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t *f = ps_u64map_get(&g->py_frames, ids[i]);
        if (!f) {                   /* the hook sends an id only once its definition is written */
            pr->invalid++;
            return 0;
        }
        frames[i] = (int64_t)*f;
    }
    int rc = 0;
    struct py_rows *p = py_of(r, &rc);
    if (!p)
        return rc;
    int64_t stack = stack_id(r, p, frames, w->n);
    if (stack < 0)
        return (int)stack;
    if (!ps_rows_thread_get(r, g->pid, w->tid))     /* the sampled thread is one of the process's */
        return -ENOMEM;
    sqlite3_stmt *st = p->st_sample;
    sqlite3_bind_int64(st, 1, t - r->origin_ns);
    sqlite3_bind_int64(st, 2, ps_global_tid(g->pid, w->tid));
    sqlite3_bind_int64(st, 3, stack);
    sqlite3_bind_int64(st, 4, w->depth);
    return ps_tw_exec(r->w, st);
}

int ps_rows_restore_py_frame(struct ps_rows *r, int64_t id, const char *file, int64_t line, const char *function)
{
    int rc = 0;
    struct py_rows *p = py_of(r, &rc);
    if (!p)
        return rc;
    if (id != (int64_t)p->n_frames + 1 || line < 0 || line > UINT32_MAX || !file || !function)
        return -EINVAL;
    const struct ps_str *f = ps_rows_intern_utf8(r, file), *fn = ps_rows_intern_utf8(r, function);
    if (!f || !fn)
        return -ENOMEM;
    if (ps_array_grow((void **)&p->frames, &p->cap_frames, p->n_frames, sizeof *p->frames) ||
        ps_u64map_add(&p->frame_ix, frame_hash(f, fn, (uint32_t)line), p->n_frames))
        return -ENOMEM;
    p->frames[p->n_frames++] = (struct py_frame){ f, fn, (uint32_t)line };
    return 0;
}

int ps_rows_restore_py_stacks(struct ps_rows *r, int64_t last_id)
{
    int rc = 0;
    struct py_rows *p = py_of(r, &rc);
    if (!p)
        return rc;
    if (last_id < 0 || p->n_stacks)
        return -EINVAL;
    p->stack_base = last_id;
    return 0;
}
