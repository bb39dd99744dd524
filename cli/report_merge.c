/* Per-rank JSON reports merged into the several-rank report (report_merge.h): each file's last key,
 * "rank_summary" (analyzer/render/json/rank_summary_json.c), read back into the struct ps_rank_file the trace gave, then
 * the same cross-rank analysis as for traces (ps_multirank_from_files), so the result equals the several-file
 * report over the traces themselves. Only the rank summary is parsed: a report's other keys (its steps, kernels)
 * are skipped by position, so a thousand reports merge in well under a second. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "ps_file.h"
#include "report_merge.h"

#define VERSION_KEY "\"perfscope_report_version\""

int ps_report_merge_kind(const char *path, char *err, size_t errlen)
{
    char head[64];
    int fd = ps_file_open_regular(path, O_RDONLY, "a trace file", err, errlen);   /* never a FIFO's wait */
    if (fd < 0)
        return fd;
    ssize_t n = read(fd, head, sizeof head - 1);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
        return rc;
    }
    head[n] = '\0';
    const char *p = head + strspn(head, " \t\r\n");
    if (*p++ != '{')
        return 0;
    p += strspn(p, " \t\r\n");
    return strncmp(p, VERSION_KEY, sizeof VERSION_KEY - 1) == 0;
}

/* The whole file into *buf (NUL-terminated; reused across files, grown as needed). 0 or a negative errno. */
static int slurp(const char *path, char **buf, size_t *cap, size_t *len)
{
    int fd = ps_file_open_regular(path, O_RDONLY, "a report", NULL, 0);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        int rc = fd >= 0 ? -errno : fd;
        if (fd >= 0)
            close(fd);
        return rc;
    }
    *len = 0;
    for (;;) {
        if (*cap - *len < 65536) {
            size_t c = *cap ? 2 * *cap : 1 << 20;
            char *p = realloc(*buf, c);
            if (!p) {
                fclose(f);
                return -ENOMEM;
            }
            *buf = p;
            *cap = c;
        }
        size_t got = fread(*buf + *len, 1, *cap - *len - 1, f);
        *len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    (*buf)[*len] = '\0';
    return bad ? -EIO : 0;
}

struct reader {
    yajl_val obj;
    const char *missing;        /* the first key that was absent or of the wrong type */
};

/* A string value's text ("" for anything else: `field` has checked the type). */
static const char *text(yajl_val v)
{
    const char *s = v && YAJL_IS_STRING(v) ? v->u.string : NULL;
    return s ? s : "";
}

static yajl_val field(struct reader *r, const char *key, yajl_type type)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(r->obj, path, type);
    if (!v && !r->missing)
        r->missing = key;
    return v;
}

static int64_t get_int(struct reader *r, const char *key)
{
    yajl_val v = field(r, key, yajl_t_number);
    if (v && !YAJL_IS_INTEGER(v) && !r->missing)
        r->missing = key;
    return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : 0;
}

/* An integer that may be absent (0 then). */
static int64_t get_opt_int(struct reader *r, const char *key)
{
    const char *path[] = { key, NULL };
    return yajl_tree_get(r->obj, path, yajl_t_any) ? get_int(r, key) : 0;
}

static int get_bool(struct reader *r, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(r->obj, path, yajl_t_any);
    if (!v || (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))) {
        r->missing = r->missing ? r->missing : key;
        return 0;
    }
    return YAJL_IS_TRUE(v);
}

/* A number or null (NAN). */
static double get_double(struct reader *r, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(r->obj, path, yajl_t_any);
    if (v && YAJL_IS_NUMBER(v))
        return YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v) : YAJL_GET_DOUBLE(v);
    if (!v || !YAJL_IS_NULL(v))
        r->missing = r->missing ? r->missing : key;
    return NAN;
}

/* The index of string `key`'s value among names[0..n), -1 (and `missing` set) when it is none of them. */
static int get_enum(struct reader *r, const char *key, const char *const *names, int n)
{
    yajl_val v = field(r, key, yajl_t_string);
    for (int i = 0; v && i < n; i++)
        if (strcmp(text(v), names[i]) == 0)
            return i;
    r->missing = r->missing ? r->missing : key;
    return -1;
}

static int read_collectives(struct ps_rank_file *f, struct reader *top)
{
    yajl_val arr = field(top, "collectives", yajl_t_array);
    if (!arr)
        return 0;
    size_t n = YAJL_GET_ARRAY(arr)->len;
    f->collectives = calloc(n + 1, sizeof *f->collectives);
    if (!f->collectives)
        return -ENOMEM;
    f->capcollectives = n + 1;
    for (size_t k = 0; k < n && !top->missing; k++) {
        struct reader r = { YAJL_GET_ARRAY(arr)->values[k], NULL };
        struct ps_collective_stat *c = &f->collectives[k];
        yajl_val name = field(&r, "name", yajl_t_string);
        const char *bpath[] = { "bytes", NULL };
        yajl_val bytes = yajl_tree_get(r.obj, bpath, yajl_t_any);
        c->host = get_bool(&r, "host");
        c->count = get_int(&r, "count");
        c->total_ns = get_int(&r, "total_ns");
        c->exposed_ns = get_int(&r, "exposed_ns");
        c->wait_ns = get_int(&r, "wait_ns");
        c->bytes = bytes && YAJL_IS_INTEGER(bytes) ? YAJL_GET_INTEGER(bytes) : -1;
        if (!bytes || (!YAJL_IS_INTEGER(bytes) && !YAJL_IS_NULL(bytes)))
            r.missing = r.missing ? r.missing : "bytes";
        if (r.missing) {
            top->missing = r.missing;
            break;
        }
        if (!(c->name = strdup(text(name))))
            return -ENOMEM;
        f->ncollectives++;
    }
    return 0;
}

/* The rank summary object `o` into *f. 0, -EINVAL (*what: the key at fault) or -ENOMEM. */
static int read_summary(struct ps_rank_file *f, yajl_val o, const char **what)
{
    static const char *const formats[] = { "perfscope", "nsys", "kineto" };
    struct reader r = { o, NULL };
    if (get_int(&r, "version") != 1 && !r.missing)
        r.missing = "version";
    yajl_val trace = field(&r, "trace", yajl_t_string);
    int fmt = get_enum(&r, "format", formats, 3);
    f->rank = (int32_t)get_int(&r, "rank");
    int src = get_enum(&r, "rank_from", ps_rank_source_name, PS_RANK_FROM_ORDER + 1);
    f->world_size = (int32_t)get_int(&r, "world_size");
    f->launcher_ranks = (size_t)get_int(&r, "launcher_ranks");
    f->whole_run = get_bool(&r, "whole_run");
    f->steps_inferred = get_bool(&r, "steps_inferred");
    f->gpu_ops = get_int(&r, "gpu_ops");
    f->has_gpu = get_bool(&r, "has_gpu");
    f->stat.nsteps = (size_t)get_int(&r, "steps");
    f->stat.avg_dur_ns = get_int(&r, "step_dur_ns");
    struct reader b = { field(&r, "breakdown_ns", yajl_t_object), NULL };
    for (int c = 0; c < PS_CAT_N && b.obj; c++)
        f->stat.cat_ns[c] = get_int(&b, ps_cat_key[c]);
    r.missing = r.missing ? r.missing : b.missing;
    f->stat.sync_ns = get_int(&r, "sync_ns");
    f->stat.pretrace_ns = get_opt_int(&r, "pretrace_ns");   /* absent in reports before it was written: none */
    int bn = get_enum(&r, "bottleneck", ps_bottleneck_name, PS_BN_UNKNOWN + 1);
    f->stat.share = get_double(&r, "share");
    f->comm_comp_overlap = get_double(&r, "comm_comp_overlap");
    f->recording_complete = (int)get_int(&r, "recording_complete");
    f->comm_wait_ns = get_int(&r, "comm_wait_ns");
    int rc = r.missing ? 0 : read_collectives(f, &r);
    if (rc == 0 && r.missing) {
        *what = r.missing;
        return -EINVAL;
    }
    if (rc < 0)
        return rc;
    f->format = formats[fmt];
    f->rank_source = (enum ps_rank_source)src;
    f->stat.bottleneck = (enum ps_bottleneck)bn;
    double share;   /* the verdict's groups of the rank's step, as its own report made them; its share is read */
    ps_verdict_classify(f->stat.cat_ns, f->stat.sync_ns, f->stat.pretrace_ns, f->stat.avg_dur_ns, 1.0,
                        f->stat.group_ns, &f->stat.seen_ns, &share);
    if (!(f->owned_path = strdup(text(trace))))
        return -ENOMEM;
    f->path = f->owned_path;
    return 0;
}

/* One report's text (buf[0..len), NUL-terminated, changed in place) into *f. */
static int read_report(struct ps_rank_file *f, const char *path, char *buf, size_t len, char *err, size_t errlen)
{
    static const char key[] = "\"rank_summary\":";
    while (len > 0 && strchr(" \t\r\n", buf[len - 1]))
        len--;
    char *at = NULL;
    if (len > 0 && buf[len - 1] == '}') {
        buf[len - 1] = '\0';             /* the report's own closing brace: the summary is its last value */
        for (char *p = buf + len - 1; p - buf >= (ptrdiff_t)sizeof key - 1 && !at; p--)
            if (p[-1] == ':' && memcmp(p - (sizeof key - 1), key, sizeof key - 1) == 0)
                at = p;
    }
    if (!at) {
        snprintf(err, errlen, "%s: no \"rank_summary\" at the end of the report (write each rank's report with this "
                              "perfscope's `report --format json`)", path);
        return -EINVAL;
    }
    char perr[200] = "";
    yajl_val o = yajl_tree_parse(at, perr, sizeof perr);
    if (!o || !YAJL_IS_OBJECT(o)) {
        perr[strcspn(perr, "\n")] = '\0';
        snprintf(err, errlen, "%s: its \"rank_summary\" is not a JSON object%s%s", path, perr[0] ? ": " : "", perr);
        yajl_tree_free(o);
        return -EINVAL;
    }
    const char *what = NULL;
    int rc = read_summary(f, o, &what);
    yajl_tree_free(o);
    if (rc == -EINVAL)
        snprintf(err, errlen, "%s: \"rank_summary\": \"%s\" is missing or not what this perfscope writes", path, what);
    else if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory reading %s", path);
    return rc;
}

int ps_report_merge(struct ps_multirank *mr, const char *const *paths, size_t n, char *err, size_t errlen)
{
    memset(mr, 0, sizeof *mr);
    int rc = ps_multirank_refuse_same_file(paths, n, err, errlen);
    if (rc < 0)
        return rc;
    struct ps_rank_file *files = calloc(n + 1, sizeof *files);
    char *buf = NULL;
    size_t cap = 0, len = 0, i = 0;
    if (!files)
        return -ENOMEM;
    for (; i < n && rc == 0; i++) {
        if ((rc = slurp(paths[i], &buf, &cap, &len)) < 0)
            snprintf(err, errlen, "%s: %s", paths[i], strerror(-rc));
        else
            rc = read_report(&files[i], paths[i], buf, len, err, errlen);
        rc = rc < 0 && rc != -ENOMEM ? -EINVAL : rc;
    }
    free(buf);
    if (rc < 0) {
        for (size_t k = 0; k < n; k++)
            ps_rank_file_fini(&files[k]);
        free(files);
        return rc;
    }
    return ps_multirank_from_files(mr, files, n, err, errlen);
}
