/* The probe's process-wide NVTX registries (see probe_registry.h): linked lists (for the replay in a forked
 * child) indexed by hash tables under one mutex, so creating N domains, registered strings or category
 * names costs O(N) in all (a linear search made 20000 of each take 11 s; tests/collector/hostile_tests.sh). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_registry.h"

struct category {
    uint32_t domain, id;
    char *name;
    struct category *next;
};

/* Open addressing over entry pointers, at most half full; entries are never removed. */
struct index {
    void **slot;
    uint32_t cap, n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct index domain_ix, string_ix, category_ix;
static struct probe_domain *domains;
static struct probe_regstr *strings;
static struct category *categories;
static uint32_t last_domain, last_string;

/* FNV-1a over `len` bytes, continuing from `h` (start with 14695981039346656037). */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_domain(const void *p)
{
    const struct probe_domain *d = p;
    return fnv(14695981039346656037ull, d->name, strlen(d->name));
}

static uint64_t hash_string(const void *p)
{
    const struct probe_regstr *s = p;
    return fnv(fnv(14695981039346656037ull, &s->domain, sizeof s->domain), s->text, s->len);
}

static uint64_t hash_category(const void *p)
{
    const struct category *c = p;
    uint32_t key[2] = { c->domain, c->id };
    return fnv(14695981039346656037ull, key, sizeof key);
}

/* The slot of the entry equal to `key` (eq), or the empty slot where it goes. `ix` must have room. */
static void **ix_find(struct index *ix, uint64_t h, const void *key, int (*eq)(const void *, const void *))
{
    for (uint32_t i = (uint32_t)h & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1))
        if (!ix->slot[i] || eq(ix->slot[i], key))
            return &ix->slot[i];
}

/* Make room for one more entry (double at half full). 0 or -ENOMEM. */
static int ix_reserve(struct index *ix, uint64_t (*hash)(const void *))
{
    if (ix->slot && 2 * (ix->n + 1) <= ix->cap)
        return 0;
    uint32_t cap = ix->cap ? ix->cap * 2 : 64;
    void **slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -ENOMEM;
    for (uint32_t k = 0; k < ix->cap; k++) {
        if (!ix->slot[k])
            continue;
        uint32_t i = (uint32_t)hash(ix->slot[k]) & (cap - 1);
        while (slot[i])
            i = (i + 1) & (cap - 1);
        slot[i] = ix->slot[k];
    }
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    return 0;
}

static int eq_domain(const void *a, const void *b)
{
    return strcmp(((const struct probe_domain *)a)->name, ((const struct probe_domain *)b)->name) == 0;
}

static int eq_string(const void *a, const void *b)
{
    const struct probe_regstr *x = a, *y = b;
    return x->domain == y->domain && x->len == y->len && memcmp(x->text, y->text, x->len) == 0;
}

static int eq_category(const void *a, const void *b)
{
    const struct category *x = a, *y = b;
    return x->domain == y->domain && x->id == y->id;
}

void probe_registry_lock(void)
{
    pthread_mutex_lock(&lock);
}

void probe_registry_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

struct probe_domain *probe_domain_create(struct probe_thread *t, const char *name)
{
    struct probe_domain *d = NULL, key = { .name = (char *)name };
    pthread_mutex_lock(&lock);
    if (ix_reserve(&domain_ix, hash_domain) != 0)
        goto out;
    void **at = ix_find(&domain_ix, hash_domain(&key), &key, eq_domain);
    if ((d = *at))
        goto out;
    if (!(d = calloc(1, sizeof *d)) || !(d->name = strdup(name))) {
        free(d);
        d = NULL;
        goto out;
    }
    *at = d;
    domain_ix.n++;
    d->id = ++last_domain;
    d->next = domains;
    domains = d;
    if (t)
        probe_emit_name(t, PS_WIRE_NVTX_DOMAIN, d->id, d->id, d->name);
out:
    pthread_mutex_unlock(&lock);
    return d;
}

struct probe_regstr *probe_string_register(struct probe_thread *t, uint32_t domain, const char *text)
{
    size_t len = strnlen(text, PROBE_MSG_MAX - 1);
    struct probe_regstr *s = NULL, key = { .domain = domain, .len = (uint32_t)len, .text = (char *)text };
    pthread_mutex_lock(&lock);
    if (ix_reserve(&string_ix, hash_string) != 0)
        goto out;
    void **at = ix_find(&string_ix, hash_string(&key), &key, eq_string);
    if ((s = *at))
        goto out;
    if (!(s = calloc(1, sizeof *s)) || !(s->text = strndup(text, len))) {
        free(s);
        s = NULL;
        goto out;
    }
    s->id = ++last_string;
    s->domain = domain;
    s->len = (uint32_t)len;
    s->next = strings;
    strings = s;
    *at = s;
    string_ix.n++;
    if (t)
        probe_emit_name(t, PS_WIRE_NVTX_REGISTERED, domain, s->id, s->text);
out:
    pthread_mutex_unlock(&lock);
    return s;
}

void probe_category_name(struct probe_thread *t, uint32_t domain, uint32_t id, const char *name)
{
    struct category *c, key = { .domain = domain, .id = id };
    pthread_mutex_lock(&lock);
    char *copy = strdup(name);
    if (!copy || ix_reserve(&category_ix, hash_category) != 0) {
        free(copy);
        goto out;
    }
    void **at = ix_find(&category_ix, hash_category(&key), &key, eq_category);
    if (!(c = *at) && (c = calloc(1, sizeof *c))) {
        c->domain = domain;
        c->id = id;
        c->next = categories;
        categories = c;
        *at = c;
        category_ix.n++;
    }
    if (c) {
        free(c->name);
        c->name = copy;
    } else {
        free(copy);
    }
    if (t)
        probe_emit_name(t, PS_WIRE_NVTX_CATEGORY, domain, id, name);
out:
    pthread_mutex_unlock(&lock);
}

void probe_registry_replay(struct probe_thread *t)
{
    pthread_mutex_lock(&lock);
    for (struct probe_domain *d = domains; d; d = d->next)
        probe_emit_name(t, PS_WIRE_NVTX_DOMAIN, d->id, d->id, d->name);
    for (struct probe_regstr *s = strings; s; s = s->next)
        probe_emit_name(t, PS_WIRE_NVTX_REGISTERED, s->domain, s->id, s->text);
    for (struct category *c = categories; c; c = c->next)
        probe_emit_name(t, PS_WIRE_NVTX_CATEGORY, c->domain, c->id, c->name);
    pthread_mutex_unlock(&lock);
}
