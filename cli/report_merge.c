/* Per-rank JSON reports merged into the several-rank report (report_merge.h): each file's last key,
 * "rank_summary" (analyzer/render/json/rank_summary_json.c), read back into the struct ps_rank_file the trace gave, then
 * the same cross-rank analysis as for traces (ps_multirank_from_files), so the result equals the several-file
 * report over the traces themselves. Only the rank summary is parsed: a report's other keys (its steps, kernels)
 * are skipped by position, so a thousand reports merge in well under a second. The summary is untrusted input: each
 * field is checked against the range a report writes it in (docs/distributed.md), as the readers check a trace. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
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

/* A JSON object's fields read back, each checked against the range the report writes it in (docs/distributed.md):
 * the first field that is absent, of another type or out of range is said in `problem`, with its value. */
struct reader {
    yajl_val obj;
    const char *where;          /* the object's place in the summary: "" or "\"collectives\"[3]: " */
    char *problem;              /* the first problem (the caller's PROBLEM_LEN bytes); "" none */
};

#define PROBLEM_LEN 240

static void say(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct reader *r, const char *fmt, ...)
{
    if (r->problem[0])
        return;
    size_t n = (size_t)snprintf(r->problem, PROBLEM_LEN, "%s", r->where);
    n = n < PROBLEM_LEN ? n : PROBLEM_LEN - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->problem + n, PROBLEM_LEN - n, fmt, ap);
    va_end(ap);
}

/* A value as a message shows it: a number as the file writes it, a string quoted (cut at 40 bytes, bytes that are
 * not printable ASCII as '?'), else what it is. */
static const char *shown(yajl_val v, char *buf, size_t len)
{
    if (YAJL_IS_NUMBER(v))
        snprintf(buf, len, "%.40s", YAJL_GET_NUMBER(v));
    else if (YAJL_IS_STRING(v)) {
        size_t n = 0;
        const char *s = v->u.string;
        buf[n++] = '"';
        for (; *s && n + 5 < len && n < 41; s++)
            buf[n++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
        snprintf(buf + n, len - n, "%s\"", *s ? "..." : "");
    } else
        snprintf(buf, len, "%s", YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v) ? (YAJL_IS_TRUE(v) ? "true" : "false")
                                 : YAJL_IS_NULL(v) ? "null" : YAJL_IS_ARRAY(v) ? "an array" : "an object");
    return buf;
}

/* Field `key`, or NULL (said) when absent. */
static yajl_val field(struct reader *r, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = r->obj ? yajl_tree_get(r->obj, path, yajl_t_any) : NULL;
    if (!v)
        say(r, "\"%s\" is missing", key);
    return v;
}

/* An integer in lo..hi (lo when it is not one). */
static int64_t get_int(struct reader *r, const char *key, int64_t lo, int64_t hi)
{
    char t[64];
    yajl_val v = field(r, key);
    if (v && YAJL_IS_INTEGER(v) && YAJL_GET_INTEGER(v) >= lo && YAJL_GET_INTEGER(v) <= hi)
        return YAJL_GET_INTEGER(v);
    if (v)
        say(r, "\"%s\" is not an integer in range %lld..%lld (%s)", key, (long long)lo, (long long)hi,
            shown(v, t, sizeof t));
    return lo;
}

/* A time of the report: ns, 0 to the longest span a report takes (PS_MAX_SPAN_NS, the readers' bound). */
static int64_t get_ns(struct reader *r, const char *key)
{
    return get_int(r, key, 0, PS_MAX_SPAN_NS);
}

static int get_bool(struct reader *r, const char *key)
{
    char t[64];
    yajl_val v = field(r, key);
    if (v && !YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
        say(r, "\"%s\" is not true or false (%s)", key, shown(v, t, sizeof t));
    return v && YAJL_IS_TRUE(v);
}

/* A share: a number in 0..1, or null (NAN: none). */
static double get_share(struct reader *r, const char *key)
{
    char t[64];
    yajl_val v = field(r, key);
    double x = v && YAJL_IS_NUMBER(v) ? (YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v) : YAJL_GET_DOUBLE(v)) : NAN;
    if (v && YAJL_IS_NULL(v))
        return NAN;
    if (v && !(x >= 0 && x <= 1))   /* NaN, infinities and numbers past a double fail here too */
        say(r, "\"%s\" is not a number in range 0..1 or null (%s)", key, shown(v, t, sizeof t));
    return x;
}

/* The index of string `key`'s value among names[0..n), -1 (said) when it is none of them. */
static int get_enum(struct reader *r, const char *key, const char *const *names, int n)
{
    char t[64], list[160] = "";
    yajl_val v = field(r, key);
    for (int i = 0; v && YAJL_IS_STRING(v) && i < n; i++)
        if (strcmp(v->u.string, names[i]) == 0)
            return i;
    for (int i = 0; v && i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (v)
        say(r, "\"%s\" is not one of %s (%s)", key, list, shown(v, t, sizeof t));
    return -1;
}

static const char *get_string(struct reader *r, const char *key)
{
    char t[64];
    yajl_val v = field(r, key);
    if (v && !YAJL_IS_STRING(v))
        say(r, "\"%s\" is not a string (%s)", key, shown(v, t, sizeof t));
    return v && YAJL_IS_STRING(v) ? v->u.string : "";
}

static int read_collectives(struct ps_rank_file *f, struct reader *top)
{
    const char *path[] = { "collectives", NULL };
    yajl_val arr = top->obj ? yajl_tree_get(top->obj, path, yajl_t_any) : NULL;
    char t[64];
    if (!arr || !YAJL_IS_ARRAY(arr)) {
        if (arr)
            say(top, "\"collectives\" is not an array (%s)", shown(arr, t, sizeof t));
        else
            say(top, "\"collectives\" is missing");
        return 0;
    }
    size_t n = YAJL_GET_ARRAY(arr)->len;
    f->collectives = calloc(n + 1, sizeof *f->collectives);
    if (!f->collectives)
        return -ENOMEM;
    f->capcollectives = n + 1;
    for (size_t k = 0; k < n && !top->problem[0]; k++) {
        char where[48];
        snprintf(where, sizeof where, "\"collectives\"[%zu]: ", k);
        struct reader r = { YAJL_GET_ARRAY(arr)->values[k], where, top->problem };
        struct ps_collective_stat *c = &f->collectives[k];
        if (!YAJL_IS_OBJECT(r.obj)) {
            snprintf(top->problem, PROBLEM_LEN, "\"collectives\"[%zu] is not an object (%s)", k,
                     shown(r.obj, t, sizeof t));
            break;
        }
        const char *name = get_string(&r, "name");
        c->host = get_bool(&r, "host");
        c->count = get_int(&r, "count", 0, INT64_MAX);
        c->total_ns = get_ns(&r, "total_ns");
        c->exposed_ns = get_ns(&r, "exposed_ns");
        c->wait_ns = get_ns(&r, "wait_ns");
        yajl_val bytes = field(&r, "bytes");   /* per call; null: the trace does not say */
        c->bytes = bytes && YAJL_IS_NULL(bytes) ? -1 : get_int(&r, "bytes", 0, INT64_MAX);
        if (top->problem[0])
            break;
        if (!(c->name = strdup(name)))
            return -ENOMEM;
        f->ncollectives++;
    }
    return 0;
}

/* A name a report carries (a Python frame, range, API call or kernel): the longest name in the shared traces is a
 * 1,677-byte kernel name (docs/readers.md), so 64 KiB leaves room and bounds what a hostile summary makes the
 * merge keep per rank. */
#define NAME_MAX_BYTES 65536

/* "group_top": per verdict group (ps_bottleneck_name, not "unknown"), the rank's largest name in it, a string of 1
 * to NAME_MAX_BYTES bytes or null (none), into f->group_top; another key is refused. Absent in reports written
 * before it (every name unknown). 0 or -ENOMEM. */
static int read_group_top(struct ps_rank_file *f, struct reader *top)
{
    const char *path[] = { "group_top", NULL };
    yajl_val o = yajl_tree_get(top->obj, path, yajl_t_any);
    char t[64];
    int seen[PS_BN_UNKNOWN] = { 0 };
    if (!o)
        return 0;
    if (!YAJL_IS_OBJECT(o)) {
        say(top, "\"group_top\" is not an object (%s)", shown(o, t, sizeof t));
        return 0;
    }
    for (size_t i = 0; i < YAJL_GET_OBJECT(o)->len && !top->problem[0]; i++) {
        const char *key = YAJL_GET_OBJECT(o)->keys[i];
        yajl_val v = YAJL_GET_OBJECT(o)->values[i];
        int g = 0;
        while (g < PS_BN_UNKNOWN && strcmp(key, ps_bottleneck_name[g]) != 0)
            g++;
        if (g == PS_BN_UNKNOWN) {
            say(top, "\"group_top\" has \"%.40s\", not one of the verdict's groups", key);
            break;
        }
        if (seen[g]++ || YAJL_IS_NULL(v))   /* a key given twice: the first, as yajl_tree_get finds the others */
            continue;
        size_t len = YAJL_IS_STRING(v) ? strlen(v->u.string) : 0;
        if (len == 0 || len > NAME_MAX_BYTES) {
            say(top, "\"group_top\": \"%s\" is not a string of 1 to %d bytes or null (%s)", key, NAME_MAX_BYTES,
                shown(v, t, sizeof t));
            break;
        }
        if (!(f->group_top[g] = strdup(v->u.string)))
            return -ENOMEM;
    }
    return 0;
}

/* The rank summary object `o` into *f. 0, -EINVAL (problem: the field at fault and its value) or -ENOMEM. */
static int read_summary(struct ps_rank_file *f, yajl_val o, char *problem)
{
    static const char *const formats[] = { "perfscope", "nsys", "kineto" };
    struct reader r = { o, "", problem };
    yajl_val version = field(&r, "version");
    char t[64];
    if (version && !(YAJL_IS_INTEGER(version) && YAJL_GET_INTEGER(version) == 1))
        say(&r, "\"version\" is %s, not 1", shown(version, t, sizeof t));
    const char *trace = get_string(&r, "trace");
    int fmt = get_enum(&r, "format", formats, 3);
    /* rank: 0..2^31-2 as the readers take it (docs/readers.md), -1 exactly when it came from none ("order") */
    f->rank = (int32_t)get_int(&r, "rank", -1, INT32_MAX - 1);
    int src = get_enum(&r, "rank_from", ps_rank_source_name, PS_RANK_FROM_ORDER + 1);
    if (src >= 0 && (f->rank < 0) != (src == PS_RANK_FROM_ORDER))
        say(&r, "\"rank\" is %d with \"rank_from\" \"%s\" (a rank from no source is -1, \"order\")", f->rank,
            ps_rank_source_name[src]);
    yajl_val world = field(&r, "world_size");   /* -1: unknown */
    int64_t ws = world && YAJL_IS_INTEGER(world) ? YAJL_GET_INTEGER(world) : 0;
    if (world && !(ws == -1 || (ws >= 1 && ws <= INT32_MAX)))
        say(&r, "\"world_size\" is not -1 (unknown) or an integer in range 1..%d (%s)", INT32_MAX,
            shown(world, t, sizeof t));
    f->world_size = (int32_t)(ws == -1 || (ws >= 1 && ws <= INT32_MAX) ? ws : -1);
    f->launcher_ranks = (size_t)get_int(&r, "launcher_ranks", 0, INT32_MAX);
    f->whole_run = get_bool(&r, "whole_run");
    f->steps_inferred = get_bool(&r, "steps_inferred");
    f->gpu_ops = get_int(&r, "gpu_ops", 0, INT64_MAX);
    f->has_gpu = get_bool(&r, "has_gpu");
    f->stat.nsteps = (size_t)get_int(&r, "steps", 0, INT64_MAX);
    f->stat.avg_dur_ns = get_ns(&r, "step_dur_ns");
    const char *bpath[] = { "breakdown_ns", NULL };
    yajl_val bd = yajl_tree_get(o, bpath, yajl_t_any);
    struct reader b = { bd, "\"breakdown_ns\": ", problem };
    if (bd && !YAJL_IS_OBJECT(bd))
        say(&r, "\"breakdown_ns\" is not an object (%s)", shown(bd, t, sizeof t));
    else if (!bd)
        say(&r, "\"breakdown_ns\" is missing");
    int64_t sum = 0;
    for (int c = 0; c < PS_CAT_N && bd && YAJL_IS_OBJECT(bd); c++)
        sum += f->stat.cat_ns[c] = get_ns(&b, ps_cat_key[c]);
    /* the categories are the step's (breakdown.c: Other takes the averages' rounding, so they sum to it exactly) */
    if (!problem[0] && (sum - f->stat.avg_dur_ns > PS_CAT_N || f->stat.avg_dur_ns - sum > PS_CAT_N))
        say(&r, "\"breakdown_ns\" sums to %lld ns, not to the step's \"step_dur_ns\" (%lld)", (long long)sum,
            (long long)f->stat.avg_dur_ns);
    f->stat.sync_ns = get_ns(&r, "sync_ns");
    const char *ppath[] = { "pretrace_ns", NULL };   /* absent in reports before it was written: none */
    f->stat.pretrace_ns = yajl_tree_get(o, ppath, yajl_t_any) ? get_ns(&r, "pretrace_ns") : 0;
    /* the verdict's groups as the rank's report weighed them; absent in reports written before: made below */
    const char *gpath[] = { "group_ns", NULL };
    yajl_val gd = yajl_tree_get(o, gpath, yajl_t_any);
    struct reader g = { gd, "\"group_ns\": ", problem };
    int groups_read = gd != NULL;
    if (gd && !YAJL_IS_OBJECT(gd))
        say(&r, "\"group_ns\" is not an object (%s)", shown(gd, t, sizeof t));
    int64_t gsum = 0;
    for (int k = 0; k < PS_BN_UNKNOWN && gd && YAJL_IS_OBJECT(gd); k++)
        gsum += f->stat.group_ns[k] = get_ns(&g, ps_bottleneck_name[k]);
    if (gd) {
        f->stat.seen_ns = get_ns(&r, "seen_ns");
        if (!problem[0] && (gsum - f->stat.seen_ns > PS_BN_UNKNOWN || f->stat.seen_ns - gsum > PS_BN_UNKNOWN))
            say(&r, "\"group_ns\" sums to %lld ns, not to \"seen_ns\" (%lld)", (long long)gsum,
                (long long)f->stat.seen_ns);
    }
    int bn = get_enum(&r, "bottleneck", ps_bottleneck_name, PS_BN_UNKNOWN + 1);
    f->stat.share = get_share(&r, "share");
    f->comm_comp_overlap = get_share(&r, "comm_comp_overlap");
    f->recording_complete = (int)get_int(&r, "recording_complete", -1, 1);
    f->comm_wait_ns = get_ns(&r, "comm_wait_ns");
    /* what says whether the files are ranks of one job: absent in reports written before them (unknown) */
    const char *hpath[] = { "host", NULL }, *cpath[] = { "command", NULL }, *lpath[] = { "local_rank", NULL };
    const char *spath[] = { "start_epoch_ns", NULL }, *epath[] = { "end_epoch_ns", NULL };
    yajl_val hv = yajl_tree_get(o, hpath, yajl_t_any), cv = yajl_tree_get(o, cpath, yajl_t_any);
    yajl_val sv = yajl_tree_get(o, spath, yajl_t_any), ev = yajl_tree_get(o, epath, yajl_t_any);
    const char *host = hv && !YAJL_IS_NULL(hv) ? get_string(&r, "host") : NULL;
    const char *cmd = cv && !YAJL_IS_NULL(cv) ? get_string(&r, "command") : NULL;
    f->local_rank = yajl_tree_get(o, lpath, yajl_t_any) ? (int32_t)get_int(&r, "local_rank", -1, INT32_MAX - 1) : -1;
    f->start_epoch_ns = sv && !YAJL_IS_NULL(sv) ? get_int(&r, "start_epoch_ns", 0, INT64_MAX) : -1;
    f->end_epoch_ns = ev && !YAJL_IS_NULL(ev) ? get_int(&r, "end_epoch_ns", 0, INT64_MAX) : -1;
    if ((host && host[0] && !(f->host = strdup(host))) || (cmd && cmd[0] && !(f->command = strdup(cmd))))
        return -ENOMEM;
    int rc = problem[0] ? 0 : read_group_top(f, &r);
    if (rc == 0 && !problem[0])
        rc = read_collectives(f, &r);
    if (rc < 0)
        return rc;
    if (problem[0])
        return -EINVAL;
    f->format = formats[fmt];
    f->rank_source = (enum ps_rank_source)src;
    f->stat.bottleneck = (enum ps_bottleneck)bn;
    if (!groups_read) {   /* a report written before its groups were: made again as that perfscope made them */
        double share;
        ps_verdict_classify(f->stat.cat_ns, f->stat.sync_ns, f->stat.pretrace_ns, f->stat.avg_dur_ns, 1.0,
                            f->stat.group_ns, &f->stat.seen_ns, &share);
    }
    if (!(f->owned_path = strdup(trace)))
        return -ENOMEM;
    f->path = f->owned_path;
    return 0;
}

/* The report's version (its first key, ps_report_merge_is_report): 1, the one this perfscope writes, or -EINVAL
 * with the message. */
static int check_version(const char *path, const char *buf, char *err, size_t errlen)
{
    const char *p = buf + strspn(buf, " \t\r\n");
    p += 1 + strspn(p + 1, " \t\r\n") + sizeof VERSION_KEY - 1;   /* past '{' and the key */
    p += strspn(p, " \t\r\n");
    p += *p == ':';
    p += strspn(p, " \t\r\n");
    size_t n = strcspn(p, ",} \t\r\n");
    if (n == 1 && *p == '1')
        return 0;
    snprintf(err, errlen, "%s: \"perfscope_report_version\" is %.*s, not 1 (the version this perfscope reads: write "
                          "each rank's report with this perfscope's `report --format json`)", path,
             (int)(n > 40 ? 40 : n), p);
    return -EINVAL;
}

/* One report's text (buf[0..len), NUL-terminated, changed in place) into *f. */
static int read_report(struct ps_rank_file *f, const char *path, char *buf, size_t len, char *err, size_t errlen)
{
    static const char key[] = "\"rank_summary\":";
    int rc = check_version(path, buf, err, errlen);
    if (rc < 0)
        return rc;
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
    char problem[PROBLEM_LEN] = "";
    rc = read_summary(f, o, problem);
    yajl_tree_free(o);
    if (rc == -EINVAL)
        snprintf(err, errlen, "%s: \"rank_summary\": %s (not what this perfscope writes: write each rank's report "
                              "with this perfscope's `report --format json`)", path, problem);
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
