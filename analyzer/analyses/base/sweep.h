/* Streaming interval tools for events that arrive in start order (the model's sorted arrays): a running
 * union, a sweep line over a few categories, and window totals at fixed query points. They give what the
 * interval sets of intervals.h give for such input in O(1) or O(windows) memory instead of O(events), so a
 * 10-million-kernel trace is analysed without copying its intervals (bench/analyzer, issue "Performance"). */
#ifndef PS_SWEEP_H
#define PS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

/* Running union of [s, e) intervals added with non-decreasing s. ps_run_add returns 1 and sets *ds, *de when
 * the piece before the new interval is complete (disjoint pieces come out in increasing order, touching
 * intervals merge, empty ones are ignored: ps_ivls_push's rules); ps_run_flush gives the last piece. */
struct ps_run {
    int64_t s, e;
    int open;
};

static inline int ps_run_add(struct ps_run *u, int64_t s, int64_t e, int64_t *ds, int64_t *de)
{
    if (e <= s)
        return 0;
    if (u->open && s <= u->e) {
        if (e > u->e)
            u->e = e;
        return 0;
    }
    int done = u->open;
    *ds = u->s;
    *de = u->e;
    u->s = s;
    u->e = e;
    u->open = 1;
    return done;
}

static inline int ps_run_flush(struct ps_run *u, int64_t *ds, int64_t *de)
{
    int done = u->open;
    *ds = u->s;
    *de = u->e;
    u->open = 0;
    return done;
}

/* Length of [s, e) inside [a, b). */
static inline int64_t ps_overlap(int64_t s, int64_t e, int64_t a, int64_t b)
{
    int64_t lo = s > a ? s : a, hi = e < b ? e : b;
    return hi > lo ? hi - lo : 0;
}

/* Sweep line over up to PS_SWEEP_MAX categories: events (category, [s, e)) added with non-decreasing s; the
 * time they cover is cut into pieces of constant "active set" (a bit mask of the categories with an event
 * covering the piece), handed in increasing order to `piece`. Memory: one end time per category. */
#define PS_SWEEP_MAX 16
struct ps_sweep {
    int ncat;
    int64_t t;                      /* time accounted so far */
    int64_t end[PS_SWEEP_MAX];      /* latest end of the category's events so far */
    unsigned active;                /* categories with end > t */
    int64_t next;                   /* earliest end among them, INT64_MAX if none */
    void (*piece)(void *ctx, int64_t s, int64_t e, unsigned active);
    void *ctx;
};

void ps_sweep_init(struct ps_sweep *w, int ncat, void (*piece)(void *, int64_t, int64_t, unsigned), void *ctx);
/* Add an event of category cat (< ncat). Its start must not be before an earlier event's start. */
void ps_sweep_add(struct ps_sweep *w, int cat, int64_t s, int64_t e);
/* Hand out the rest (call once, after the last event). */
void ps_sweep_finish(struct ps_sweep *w);

/* Time of a stream of disjoint pieces (given in increasing order) inside each of n windows [start, end):
 * ps_windows_new sorts the 2n window ends once (copied: the arrays may go after the call); ps_windows_piece adds a piece; ps_windows_get gives window
 * i's total after the last piece. Returns NULL on out-of-memory. Free with ps_windows_free. */
struct ps_windows;
struct ps_windows *ps_windows_new(const int64_t *start, const int64_t *end, size_t n);
void ps_windows_piece(struct ps_windows *w, int64_t s, int64_t e);
int64_t ps_windows_get(const struct ps_windows *w, size_t i);
void ps_windows_free(struct ps_windows *w);

#endif
