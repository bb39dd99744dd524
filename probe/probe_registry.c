/* The probe's process-wide NVTX registries (see probe_registry.h): linked lists under one mutex,
 * searched linearly on creation only; programs create a handful of domains and registered strings. */
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe_domain *domains;
static struct probe_regstr *strings;
static struct category *categories;
static uint32_t last_domain, last_string;

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
    struct probe_domain *d;
    pthread_mutex_lock(&lock);
    for (d = domains; d; d = d->next)
        if (strcmp(d->name, name) == 0)
            goto out;
    if (!(d = calloc(1, sizeof *d)) || !(d->name = strdup(name))) {
        free(d);
        d = NULL;
        goto out;
    }
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
    struct probe_regstr *s;
    size_t len = strnlen(text, PROBE_MSG_MAX - 1);
    pthread_mutex_lock(&lock);
    for (s = strings; s; s = s->next)
        if (s->domain == domain && s->len == len && memcmp(s->text, text, len) == 0)
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
    if (t)
        probe_emit_name(t, PS_WIRE_NVTX_REGISTERED, domain, s->id, s->text);
out:
    pthread_mutex_unlock(&lock);
    return s;
}

void probe_category_name(struct probe_thread *t, uint32_t domain, uint32_t id, const char *name)
{
    struct category *c;
    pthread_mutex_lock(&lock);
    for (c = categories; c; c = c->next)
        if (c->domain == domain && c->id == id)
            break;
    char *copy = strdup(name);
    if (!copy)
        goto out;
    if (!c && (c = calloc(1, sizeof *c))) {
        c->domain = domain;
        c->id = id;
        c->next = categories;
        categories = c;
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
