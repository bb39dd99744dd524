/* Process-wide NVTX registries of the probe: domains, registered strings and category names. Ids are
 * unique per process; handles live as long as the process (NVTX hands them back to us on every call).
 * Creation takes a mutex (not a hot path); a forked child re-declares everything in its own ring. */
#ifndef PS_PROBE_REGISTRY_H
#define PS_PROBE_REGISTRY_H

#include <stdint.h>

struct probe_thread;

/* What nvtxDomainHandle_t points to for us. */
struct probe_domain {
    uint32_t id;                    /* > 0; the default domain (NULL handle) is 0 */
    char *name;
    struct probe_domain *next;
};

/* What nvtxStringHandle_t points to for us. */
struct probe_regstr {
    uint32_t id;                    /* > 0, process-wide (PS_WIRE_NVTX_REGISTERED) */
    uint32_t domain;
    uint32_t len;                   /* strlen */
    char *text;
    struct probe_regstr *next;
};

/* The domain named `name` (UTF-8), created on first use: the same name gives the same handle, so the
 * NVTX copies of several libraries share a domain. Writes PS_WIRE_NVTX_DOMAIN through `t` (may be NULL:
 * probe off). NULL when memory is short (NVTX then uses the default domain). */
struct probe_domain *probe_domain_create(struct probe_thread *t, const char *name);

/* Register `text` in `domain`; the same (domain, text) gives the same handle. Writes
 * PS_WIRE_NVTX_REGISTERED through `t` (may be NULL). NULL when memory is short. */
struct probe_regstr *probe_string_register(struct probe_thread *t, uint32_t domain, const char *text);

/* Name category `id` of `domain`; writes PS_WIRE_NVTX_CATEGORY through `t` (may be NULL). */
void probe_category_name(struct probe_thread *t, uint32_t domain, uint32_t id, const char *name);

/* Write every domain, registered string and category name again (a forked child's new ring). */
void probe_registry_replay(struct probe_thread *t);

/* Held across fork() so the child never inherits a locked registry. */
void probe_registry_lock(void);
void probe_registry_unlock(void);

#endif
