/* Name classes: whole-name, case-insensitive POSIX patterns for steps / data loading / copy phases
 * (docs/report.md; a trailing PyTorch emit_nvtx suffix is ignored), the peers' kernel-type rules (HTA, tb) and
 * synchronising CUDA API names. Each string id is classified once and cached, so analyses can ask per event. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/base.h"
#include "model/model.h"
#include "model/view.h"
#include "ps_diag.h"
#include "ps_hashmap.h"

#define FLAG_KNOWN 0x8000

struct ps_names {
    const struct ps_model *m;
    regex_t user[3];               /* step, data, copy */
    int nuser;                     /* how many of user[] are compiled */
    regex_t hta_comm, hta_not_compute, sync_api;
    int nfixed;
    uint16_t *flags;               /* per string id */
    size_t nflags;
    /* ps_names_group, allocated on first use: per string id its group (PS_NONE: not yet looked up), and the
     * group representatives by the hash of their base name */
    uint32_t *group;
    struct ps_u64map reps;
};

/* HTA `get_kernel_type` (hta/common/types.py, hta/utils/utils.py): Python re.match, so each alternative is
 * anchored at the start only; ".*X" means "contains X". Case-sensitive. */
static const char hta_comm_re[] = "^(nccl|hip|hccl)|ncclKernel";
static const char hta_not_compute_re[] =
    "^nccl|Memcpy|Memset|dma|Sync|^Stream Wait Event|^cuda.*LaunchKernel|^runFunction|^hip|^job_exe|"
    "^packet|^pe_exe|^cpum_exe_subgraph|^hccl|^collective_subgraph_execution";
/* Calls that return only when the device has caught up: explicit synchronisation and the synchronous
 * copy / memset forms (CUDA Runtime and Driver API names, HIP runtime names: hipMemcpyWithStream is synchronous; CUPTI adds _vNNNN / _ptsz / _ptds suffixes). */
static const char sync_api_re[] =
    "^(cuda(Device|Stream|Event|Thread)Synchronize|cu(Ctx|Stream|Event)Synchronize|"
    "cudaMemcpy(2D|3D|ToSymbol|FromSymbol|Peer|ToArray|FromArray)?|cudaMemset(2D|3D)?|"
    "cuMemcpy(HtoD|DtoH|DtoD|HtoA|AtoH|2D|3D|Peer)?|cuMemsetD(8|16|32|2D8|2D16|2D32)|"
    "hip(Device|Stream|Event)Synchronize|hipMemcpy(2D|3D|ToSymbol|FromSymbol|Peer|HtoD|DtoH|DtoD|WithStream)?|"
    "hipMemset(2D|3D|D8|D16|D32)?)"
    "(_v[0-9]+)?(_pt(sz|ds))?(_v[0-9]+)?$";

/* tb_plugin trace.py NcclOpNameSet / GlooOpNameSet. */
static const char *const tb_comm_ops[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
};

void ps_names_free(struct ps_names *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->nuser; i++)
        regfree(&n->user[i]);
    if (n->nfixed > 0)
        regfree(&n->hta_comm);
    if (n->nfixed > 1)
        regfree(&n->hta_not_compute);
    if (n->nfixed > 2)
        regfree(&n->sync_api);
    free(n->flags);
    free(n->group);
    ps_u64map_fini(&n->reps);
    free(n);
}

/* PyTorch's emit_nvtx names a range "NAME[, seq = N][, op_id = N][, sizes = [[...]]][, input_op_ids = [...]]"
 * (torch/csrc/profiler/util.cpp, getNvtxStr: fmt::format "{}, seq = {}", "{}, op_id = {}", "{}, sizes = {}",
 * "{}, input_op_ids = {}", in this order, each part optional). The suffix is parsed backwards from the end of
 * the name, each part once, so a crafted name costs O(length), never O(length^2). */

/* `key` ends at s + end (and starts at or after s + 1: the base name is never empty)? Then its start, else -1. */
static long key_before(const char *s, long end, const char *key)
{
    long k = (long)strlen(key);
    return end - k >= 1 && strncmp(s + end - k, key, (size_t)k) == 0 ? end - k : -1;
}

/* A decimal integer or a bracketed list (of integers, (a,b) pairs and lists) ending at s + end, preceded by
 * `key`: the start of the key, else -1. */
static long part_before(const char *s, long end, const char *key, int list)
{
    long q = end;
    if (!list) {
        while (q > 0 && s[q - 1] >= '0' && s[q - 1] <= '9')
            q--;
        return q < end ? key_before(s, q, key) : -1;
    }
    int depth = 0;
    if (q == 0 || s[q - 1] != ']')
        return -1;
    do {
        char c = s[--q];
        if (c == ']')
            depth++;
        else if (c == '[')
            depth--;
        else if (!strchr("0123456789(), -", c))
            return -1;
    } while (depth > 0 && q > 0);
    return depth == 0 ? key_before(s, q, key) : -1;
}

size_t ps_names_base_len(const char *s)
{
    static const struct { const char *key; int list; } part[] = {   /* last part first */
        { ", input_op_ids = ", 1 }, { ", sizes = ", 1 }, { ", op_id = ", 0 }, { ", seq = ", 0 },
    };
    long end = (long)strlen(s);
    for (size_t k = 0; k < sizeof part / sizeof part[0]; k++) {
        long start = part_before(s, end, part[k].key, part[k].list);
        if (start >= 0)
            end = start;
    }
    return (size_t)end;
}

static int compile_user(regex_t *re, const char *pattern, const char *option, char *err, size_t errlen)
{
    size_t len = strlen(pattern) + 8;
    char *anchored = malloc(len);
    if (!anchored)
        return -ENOMEM;
    snprintf(anchored, len, "^(%s)$", pattern);
    int rc = regcomp(re, anchored, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        char why[128];
        regerror(rc, re, why, sizeof why);
        return ps_err(err, errlen, -EINVAL, "%s '%s' is not a valid extended regular expression: %s", option,
                      pattern, why);
    }
    return 0;
}

int ps_report_opts_check(const struct ps_report_opts *o, char *err, size_t errlen)
{
    const char *pat[3] = { o->step_re ? o->step_re : PS_STEP_RE_DEFAULT, o->data_re ? o->data_re : PS_DATA_RE_DEFAULT,
                           o->copy_re ? o->copy_re : PS_COPY_RE_DEFAULT };
    static const char *const opt[3] = { "--step-range", "--data-range", "--copy-range" };
    for (int i = 0; i < 3; i++) {
        regex_t re;
        int rc = compile_user(&re, pat[i], opt[i], err, errlen);
        if (rc < 0)
            return rc;
        regfree(&re);
    }
    return 0;
}

int ps_names_new(struct ps_names **out, const struct ps_model *m, const struct ps_report_opts *o,
                 char *err, size_t errlen)
{
    const char *pat[3] = { o->step_re ? o->step_re : PS_STEP_RE_DEFAULT, o->data_re ? o->data_re : PS_DATA_RE_DEFAULT,
                           o->copy_re ? o->copy_re : PS_COPY_RE_DEFAULT };
    static const char *const opt[3] = { "--step-range", "--data-range", "--copy-range" };
    int rc = -ENOMEM;
    struct ps_names *n = calloc(1, sizeof *n);
    if (!n)
        goto out;
    n->m = m;
    for (int i = 0; i < 3; i++) {
        rc = compile_user(&n->user[i], pat[i], opt[i], err, errlen);
        if (rc < 0)
            goto out;
        n->nuser++;
    }
    rc = -ENOMEM;   /* the fixed patterns are known to compile; a failure can only be memory */
    if (regcomp(&n->hta_comm, hta_comm_re, REG_EXTENDED | REG_NOSUB) != 0)
        goto out;
    n->nfixed++;
    if (regcomp(&n->hta_not_compute, hta_not_compute_re, REG_EXTENDED | REG_NOSUB) != 0)
        goto out;
    n->nfixed++;
    if (regcomp(&n->sync_api, sync_api_re, REG_EXTENDED | REG_NOSUB) != 0)
        goto out;
    n->nfixed++;
    n->nflags = ps_model_nstrings(m);
    n->flags = calloc(n->nflags ? n->nflags : 1, sizeof *n->flags);
    if (!n->flags)
        goto out;
    *out = n;
    return 0;
out:
    if (rc == -ENOMEM)
        ps_err(err, errlen, rc, "out of memory while compiling name patterns");
    ps_names_free(n);
    return rc;
}

/* The user patterns (step, data, copy) see the name without an emit_nvtx suffix, so that
 * "ProfilerStep#3, op_id = 17" is a step. Returns the PS_NAME_STEP / DATA / COPY bits, or -ENOMEM. */
static int classify_user(struct ps_names *n, const char *s)
{
    char small[256], *base = (char *)s;
    size_t len = ps_names_base_len(s);
    if (s[len] != '\0') {
        base = len < sizeof small ? small : malloc(len + 1);
        if (!base)
            return -ENOMEM;
        memcpy(base, s, len);
        base[len] = '\0';
    }
    int f = 0;
    if (regexec(&n->user[0], base, 0, NULL, 0) == 0)
        f |= PS_NAME_STEP;
    if (regexec(&n->user[1], base, 0, NULL, 0) == 0)
        f |= PS_NAME_DATA;
    if (regexec(&n->user[2], base, 0, NULL, 0) == 0)
        f |= PS_NAME_COPY;
    if (base != s && base != small)
        free(base);
    return f;
}

/* The host-communication bits of a range name (analyses/base.h): the Python hook's collective and wait ranges
 * (docs/python.md), which are torch.distributed's own record_function names, so Kineto traces match too. */
static unsigned host_comm_bits(const char *s)
{
    static const char *const backends[] = { "gloo:", "nccl:", "mpi:", "ucc:" };
    if (strcmp(s, "Work.wait") == 0 || strncmp(s, "Work.wait#", 10) == 0 ||
        strcmp(s, "ddp:gradient_allreduce_wait") == 0)
        return PS_NAME_HOST_COMM | PS_NAME_HOST_COMM_WAIT;
    if (strcmp(s, "ddp:gradient_allreduce") == 0)
        return PS_NAME_DDP_ALLREDUCE;
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        size_t len = strlen(backends[i]);
        if (strncmp(s, backends[i], len) == 0 && s[len] && strspn(s + len, "abcdefghijklmnopqrstuvwxyz_") ==
            strlen(s + len))
            return PS_NAME_HOST_COMM;
    }
    return 0;
}

static unsigned classify(struct ps_names *n, const char *s)
{
    int user = classify_user(n, s);
    unsigned f = user < 0 ? 0 : (unsigned)user;   /* out of memory on a huge name: it matches no pattern */
    if (strcasestr(s, "nccl") || strcasestr(s, "rccl"))
        f |= PS_NAME_NCCL | PS_NAME_TL_COMM;
    if (strcasestr(s, "cross_device_reduce"))   /* vLLM / SGLang custom all-reduce: TraceLens' third pattern */
        f |= PS_NAME_TL_COMM;
    if (strncmp(s, "__amd_rocclr_copy", 17) == 0)   /* ROCclr's blit kernels (rocclr KernelBlitManager BlitName) */
        f |= PS_NAME_ROCM_COPY;
    int hta_comm = regexec(&n->hta_comm, s, 0, NULL, 0) == 0;
    if (hta_comm)
        f |= PS_NAME_HTA_COMM;
    else if (regexec(&n->hta_not_compute, s, 0, NULL, 0) != 0)
        f |= PS_NAME_HTA_COMPUTE;
    for (size_t i = 0; i < sizeof tb_comm_ops / sizeof tb_comm_ops[0]; i++)
        if (strcmp(s, tb_comm_ops[i]) == 0)
            f |= PS_NAME_TB_COMM_OP;
    if (regexec(&n->sync_api, s, 0, NULL, 0) == 0)
        f |= PS_NAME_SYNC_API;
    if (strstr(s, "Async"))
        f |= PS_NAME_ASYNC_API;
    if (!strncmp(s, "cudaGraphLaunch", 15) || !strncmp(s, "cuGraphLaunch", 13) || !strncmp(s, "hipGraphLaunch", 14))
        f |= PS_NAME_GRAPH_LAUNCH;
    f |= host_comm_bits(s);
    return f;
}

unsigned ps_names_flags(struct ps_names *n, uint32_t id)
{
    if (id == PS_NONE || id >= n->nflags)
        return id == PS_NONE ? 0 : classify(n, ps_model_str(n->m, id));
    if (!(n->flags[id] & FLAG_KNOWN))
        n->flags[id] = (uint16_t)(FLAG_KNOWN | classify(n, ps_model_str(n->m, id)));
    return n->flags[id] & ~FLAG_KNOWN;
}

uint32_t ps_names_group(struct ps_names *n, uint32_t id)
{
    if (id == PS_NONE || id >= n->nflags)
        return id;
    if (!n->group) {
        if (!(n->group = malloc(n->nflags * sizeof *n->group)))
            return id;                         /* out of memory: no grouping, each name its own row */
        memset(n->group, 0xff, n->nflags * sizeof *n->group);   /* PS_NONE */
    }
    if (n->group[id] != PS_NONE)
        return n->group[id];
    const char *s = ps_model_str(n->m, id);
    size_t len = ps_names_base_len(s), pos = 0;
    uint64_t h = ps_hash_bytes(s, len), *rep;
    while ((rep = ps_u64map_next(&n->reps, h, &pos))) {
        const char *t = ps_model_str(n->m, (uint32_t)*rep);
        if (strncmp(s, t, len) == 0 && ps_names_base_len(t) == len)
            return n->group[id] = (uint32_t)*rep;
    }
    if (ps_u64map_add(&n->reps, h, id) < 0)   /* first name of this group: it represents it */
        return id;
    return n->group[id] = id;
}
