/* Test helper (see nvtx_dump.h): decodes a ring into events and names with the public reader API only,
 * checking every size and offset as an independent consumer of the wire format would. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_dump.h"
#include "ps_ring.h"

#define FAIL(...)                                                                \
    do {                                                                         \
        fprintf(stderr, "nvtx_dump: " __VA_ARGS__);                              \
        fputc('\n', stderr);                                                     \
        exit(1);                                                                 \
    } while (0)

struct lane_str {
    uint32_t lane, id;
    char *text;
};

struct ctx {
    struct dump *d;
    struct ps_ring_reader *r;
    struct lane_str *ls;
    long nls, capls;
    long seen;
};

static char *str_at(const struct ps_wire_hdr *h, uint32_t off, uint32_t len)
{
    if (len == 0 || off + len > h->size)
        FAIL("string of %u bytes at %u overruns a record of %u (type %u)", len, off, h->size, h->type);
    const char *s = (const char *)h + off;
    if (s[len - 1] != '\0' || strlen(s) != len - 1)
        FAIL("string at %u of a type %u record is not NUL-terminated at its length %u", off, h->type, len);
    return strdup(s);
}

static const char *lane_text(struct ctx *c, uint32_t lane, uint32_t id)
{
    for (long i = c->nls - 1; i >= 0; i--)
        if (c->ls[i].lane == lane && c->ls[i].id == id)
            return c->ls[i].text;
    return NULL;
}

/* One PS_WIRE_THREAD_NAME / _NVTX_DOMAIN / _NVTX_REGISTERED / _NVTX_CATEGORY record into d->names. */
static void on_name(struct dump *d, const struct ps_wire_hdr *h)
{
    struct dump_name n = {.type = h->type};
    if (h->type == PS_WIRE_THREAD_NAME) {
        const struct ps_wire_thread_name *t = (const void *)h;
        n.tid = t->tid;
        n.text = str_at(h, sizeof *t, t->name_len);
    } else {
        const struct ps_wire_nvtx_name *t = (const void *)h;
        n.domain = t->domain_id;
        n.id = t->id;
        n.tid = t->tid;
        n.text = str_at(h, sizeof *t, t->name_len);
    }
    if (d->nnames == d->capnames)
        d->names = realloc(d->names, (size_t)(d->capnames = d->capnames * 2 + 64) * sizeof *d->names);
    d->names[d->nnames++] = n;
}

/* One NVTX range, start/end range, mark or unbalanced pop of `lane` into d->ev, its text resolved when the lane
 * defined it. */
static void on_event(struct ctx *c, uint32_t lane, const struct ps_wire_hdr *h)
{
    struct dump *d = c->d;
    const struct ps_wire_nvtx *w = (const void *)h;
    struct dump_event e = {.type = h->type, .flags = h->flags, .lane = lane};
    uint32_t off = sizeof *w;
    if (h->size < off)
        FAIL("short NVTX record");
    e.start_ns = ps_ring_reader_to_ns(c->r, w->start_tsc);
    e.end_ns = ps_ring_reader_to_ns(c->r, w->end_tsc);
    e.tid = w->tid;
    e.domain = w->domain_id;
    if (h->flags & PS_WIRE_HAS_ATTR) {
        if (off + sizeof e.attr > h->size)
            FAIL("attr overruns");
        memcpy(&e.attr, (const char *)h + off, sizeof e.attr);
        e.has_attr = 1;
        off += sizeof e.attr;
    }
    if (h->type == PS_WIRE_NVTX_STARTEND) {
        struct ps_wire_nvtx_ext x;
        if (off + sizeof x > h->size)
            FAIL("ext overruns");
        memcpy(&x, (const char *)h + off, sizeof x);
        e.range_id = x.range_id;
        e.end_tid = x.end_tid;
        off += sizeof x;
    }
    switch (h->flags & PS_WIRE_MSG_MASK) {
    case PS_WIRE_MSG_LANE: {
        const char *t = lane_text(c, lane, w->msg_id);
        if (t)
            e.text = strdup(t);
        else
            d->unresolved++;
        break;
    }
    case PS_WIRE_MSG_REGISTERED:
        e.registered = 1;       /* resolved after the drain: definitions are process-wide */
        e.msg_id = w->msg_id;
        break;
    case PS_WIRE_MSG_INLINE:
        e.text = str_at(h, off, w->msg_len);
        break;
    }
    if (d->nev == d->capev)
        d->ev = realloc(d->ev, (size_t)(d->capev = d->capev * 2 + 256) * sizeof *d->ev);
    d->ev[d->nev++] = e;
}

static int on_rec(void *p, uint32_t lane, const struct ps_wire_hdr *h)
{
    struct ctx *c = p;
    struct dump *d = c->d;
    if (c->seen++ == 0)
        d->first_is_process = h->type == PS_WIRE_PROCESS;
    switch (h->type) {
    case PS_WIRE_PROCESS: {
        const struct ps_wire_process *w = (const void *)h;
        if (h->size < sizeof *w || sizeof *w + w->exe_len + w->argv_len > h->size)
            FAIL("bad PROCESS record");
        d->proc = *w;
        free(d->exe);
        free(d->argv);
        d->exe = str_at(h, sizeof *w, w->exe_len);
        d->argv = malloc(w->argv_len + 1);
        memcpy(d->argv, (const char *)h + sizeof *w + w->exe_len, w->argv_len);
        d->nprocess++;
        return 0;
    }
    case PS_WIRE_LANE_STRING: {
        const struct ps_wire_lane_string *s = (const void *)h;
        if (c->nls == c->capls)
            c->ls = realloc(c->ls, (size_t)(c->capls = c->capls * 2 + 64) * sizeof *c->ls);
        if (s->id == 0 || lane_text(c, lane, s->id))
            FAIL("lane %u defines string id %u twice (or id 0)", lane, s->id);
        c->ls[c->nls++] = (struct lane_str){lane, s->id, str_at(h, sizeof *s, s->len)};
        return 0;
    }
    case PS_WIRE_THREAD_NAME:
    case PS_WIRE_NVTX_DOMAIN:
    case PS_WIRE_NVTX_REGISTERED:
    case PS_WIRE_NVTX_CATEGORY:
        on_name(d, h);
        return 0;
    case PS_WIRE_NVTX_RANGE:
    case PS_WIRE_NVTX_STARTEND:
    case PS_WIRE_NVTX_MARK:
    case PS_WIRE_NVTX_UNBALANCED:
        on_event(c, lane, h);
        return 0;
    }
    FAIL("unknown record type %u", h->type);
}

void dump_load(const char *path, struct dump *d)
{
    struct ctx c = {.d = d};
    memset(d, 0, sizeof *d);
    int err = ps_ring_reader_open(path, &c.r);
    if (err)
        FAIL("cannot open ring %s: %s", path, strerror(-err));
    long n = ps_ring_reader_drain(c.r, on_rec, &c);
    if (n < 0)
        FAIL("drain %s: %ld", path, n);
    for (long i = 0; i < d->nev; i++) {
        if (!d->ev[i].registered)
            continue;
        for (long j = 0; j < d->nnames && !d->ev[i].text; j++)
            if (d->names[j].type == PS_WIRE_NVTX_REGISTERED && d->names[j].id == d->ev[i].msg_id)
                d->ev[i].text = strdup(d->names[j].text);
        if (!d->ev[i].text)
            d->unresolved++;
    }
    d->pid = ps_ring_reader_pid(c.r);
    struct ps_ring_drops drops;
    d->dropped = ps_ring_reader_drops(c.r, &drops) ? UINT64_MAX : ps_ring_drops_total(&drops);
    ps_ring_reader_close(c.r);
    for (long i = 0; i < c.nls; i++)
        free(c.ls[i].text);
    free(c.ls);
}

void dump_free(struct dump *d)
{
    for (long i = 0; i < d->nev; i++)
        free(d->ev[i].text);
    for (long i = 0; i < d->nnames; i++)
        free(d->names[i].text);
    free(d->ev);
    free(d->names);
    free(d->exe);
    free(d->argv);
    memset(d, 0, sizeof *d);
}

int dump_find_rings(const char *dir, char paths[][4096], int max)
{
    DIR *dd = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!dd)
        FAIL("opendir %s", dir);
    while ((e = readdir(dd)) && n < max)
        if (strncmp(e->d_name, "ring-", 5) == 0)
            snprintf(paths[n++], 4096, "%s/%s", dir, e->d_name);
    closedir(dd);
    return n;
}
