/* Several rank files that cannot all be ranks of one run (analyses/ranks.h): the same file given twice, or two files
 * holding one rank. Either would count a rank twice and change every cross-rank figure (the medians, the
 * straggler), so the report refuses them and names both files (docs/distributed.md). And files that cannot be
 * ranks of one job at all (two runs of an experiment, a CPU recording beside a GPU trace): their "straggler"
 * would be made up, so they are refused with the reason, and weaker signs are noted in the report. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyses/ranks.h"
#include "ps_diag.h"

struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
};

static int cmp_file_id(const void *a, const void *b)
{
    const struct file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return (x->dev > y->dev) - (x->dev < y->dev);
    if (x->ino != y->ino)
        return (x->ino > y->ino) - (x->ino < y->ino);
    return (x->index > y->index) - (x->index < y->index);
}

int ps_multirank_refuse_same_file(const char *const *paths, size_t n, char *err, size_t errlen)
{
    struct file_id *ids = malloc((n + 1) * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0)
            ids[k++] = (struct file_id){ st.st_dev, st.st_ino, i };
    }
    qsort(ids, k, sizeof *ids, cmp_file_id);
    int rc = 0;
    for (size_t i = 0; i + 1 < k && rc == 0; i++)
        if (ids[i].dev == ids[i + 1].dev && ids[i].ino == ids[i + 1].ino)
            rc = ps_err(err, errlen, -EINVAL, "%s and %s are the same file (give each rank's file once)",
                        paths[ids[i].index], paths[ids[i + 1].index]);
    free(ids);
    return rc;
}

int ps_multirank_refuse_shared_ranks(const struct ps_multirank *mr, char *err, size_t errlen)
{
    for (size_t i = 0; i + 1 < mr->nfiles; i++) {
        const struct ps_rank_file *a = &mr->files[i], *b = &mr->files[i + 1];
        if (a->launcher_ranks >= 2 || b->launcher_ranks >= 2 || a->rank < 0 || a->rank != b->rank)
            continue;
        return ps_err(err, errlen, -EINVAL, "%s and %s both hold rank %d (from %s and %s; give each rank's file "
                      "once)", a->path, b->path, a->rank, ps_rank_source_name[a->rank_source],
                      ps_rank_source_name[b->rank_source]);
    }
    return 0;
}

/* ---- whether the files can be ranks of one job ---- */

/* A note into mr->notes (dropped past its 4). */
static void note(struct ps_multirank *mr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ps_multirank *mr, const char *fmt, ...)
{
    if (mr->nnotes >= sizeof mr->notes / sizeof mr->notes[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mr->notes[mr->nnotes++], sizeof mr->notes[0], fmt, ap);
    va_end(ap);
}

/* What a format is, in a sentence. */
static const char *format_words(const char *format)
{
    return !strcmp(format, "perfscope") ? "a perfscope recording" : !strcmp(format, "nsys") ?
           "an Nsight Systems export" : !strcmp(format, "kineto") ? "a PyTorch profiler trace" : format;
}

/* A UTC time (s since the epoch) as "2021-06-08 09:03:43 UTC". */
static void utc_words(int64_t epoch_ns, char *buf, size_t len)
{
    time_t t = (time_t)(epoch_ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, len, "%lld s after 1970", (long long)(epoch_ns / 1000000000));
}

/* The command line with the per-rank argument old launchers add (`--local_rank=N`, `--local-rank N`) left out:
 * torch.distributed.launch passes each rank its own. */
static void command_key(const char *cmd, char *out, size_t len)
{
    size_t k = 0;
    for (const char *p = cmd; *p && k + 1 < len;) {
        if ((p == cmd || p[-1] == ' ') && (!strncmp(p, "--local_rank", 12) || !strncmp(p, "--local-rank", 12))) {
            p += 12;
            if (*p == '=' || *p == ' ')
                p++;
            p += strspn(p, "0123456789");
            p += *p == ' ';
            continue;
        }
        out[k++] = *p++;
    }
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
}

/* The refusals, first found first: 0 or -EDOM with the reason in err. */
static int refuse_not_one_job(const struct ps_multirank *mr, char *err, size_t errlen)
{
    const struct ps_rank_file *fs = mr->files, *wf = NULL;
    size_t n = mr->nfiles, ranks = 0;
    for (size_t i = 1; i < n; i++)
        if (strcmp(fs[i].format, fs[0].format) != 0)
            return ps_err(err, errlen, -EDOM, "%s is %s and %s %s: ranks of one job are recorded alike",
                          fs[0].path, format_words(fs[0].format), fs[i].path, format_words(fs[i].format));
    for (size_t i = 0; i < n; i++) {
        ranks += fs[i].launcher_ranks >= 2 ? fs[i].launcher_ranks : 1;
        if (fs[i].world_size < 1)
            continue;
        if (wf && wf->world_size != fs[i].world_size)
            return ps_err(err, errlen, -EDOM, "%s records world size %d and %s world size %d", wf->path,
                          wf->world_size, fs[i].path, fs[i].world_size);
        wf = wf ? wf : &fs[i];
    }
    for (size_t i = 0; wf && i < n; i++)
        if (fs[i].launcher_ranks < 2 && fs[i].rank_source != PS_RANK_FROM_ORDER && fs[i].rank >= wf->world_size)
            return ps_err(err, errlen, -EDOM, "%s holds rank %d (from %s), but %s records world size %d (ranks 0 to "
                          "%d)", fs[i].path, fs[i].rank, ps_rank_source_name[fs[i].rank_source], wf->path,
                          wf->world_size, wf->world_size - 1);
    if (wf && ranks > (size_t)wf->world_size)
        return ps_err(err, errlen, -EDOM, "the %zu files hold %zu ranks, but %s records world size %d", n, ranks,
                      wf->path, wf->world_size);
    /* spans: the earliest start against every later start, as the files come (few: quadratic is fine) */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const struct ps_rank_file *a = &fs[i], *b = &fs[j];
            if (i == j || a->start_epoch_ns <= 0 || b->start_epoch_ns <= 0 || b->start_epoch_ns < a->start_epoch_ns ||
                b->start_epoch_ns - a->end_epoch_ns <= PS_RANKS_TIME_TOLERANCE_NS)
                continue;
            char t[4][40];
            utc_words(a->start_epoch_ns, t[0], sizeof t[0]);
            utc_words(a->end_epoch_ns, t[1], sizeof t[1]);
            utc_words(b->start_epoch_ns, t[2], sizeof t[2]);
            utc_words(b->end_epoch_ns, t[3], sizeof t[3]);
            return ps_err(err, errlen, -EDOM, "%s covers %s to %s and %s %s to %s: ranks of one job run at the same "
                          "time (within %lld s)", a->path, t[0], t[1], b->path, t[2], t[3],
                          (long long)(PS_RANKS_TIME_TOLERANCE_NS / 1000000000));
        }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const struct ps_rank_file *a = &fs[i], *b = &fs[j];
            if (a->host && b->host && a->local_rank >= 0 && a->launcher_ranks < 2 && b->launcher_ranks < 2 &&
                a->local_rank == b->local_rank && !strcmp(a->host, b->host))
                return ps_err(err, errlen, -EDOM, "%s and %s were both local rank %d on host %s", a->path, b->path,
                              a->local_rank, a->host);
        }
    return 0;
}

int ps_multirank_check_one_job(struct ps_multirank *mr, char *err, size_t errlen)
{
    int rc = refuse_not_one_job(mr, err, errlen);
    if (rc < 0)
        return rc;
    const struct ps_rank_file *fs = mr->files;
    size_t n = mr->nfiles, numbered = 0, gpu = 0;
    for (size_t i = 0; i < n; i++) {
        numbered += fs[i].launcher_ranks < 2 && fs[i].rank_source == PS_RANK_FROM_ORDER;
        gpu += fs[i].has_gpu != 0;
    }
    for (size_t i = 1; i < n; i++) {
        char a[512], b[512];
        if (!fs[0].command || !fs[i].command)
            continue;
        command_key(fs[0].command, a, sizeof a);
        command_key(fs[i].command, b, sizeof b);
        if (strcmp(a, b) != 0) {
            note(mr, "%s ran `%.80s%s` and %s `%.80s%s`: ranks of one job run one command", fs[0].path, fs[0].command,
                 strlen(fs[0].command) > 80 ? "..." : "", fs[i].path, fs[i].command,
                 strlen(fs[i].command) > 80 ? "..." : "");
            break;
        }
    }
    if (gpu > 0 && gpu < n)
        note(mr, "%zu of the %zu files hold GPU work and the others none: their step times are split by different "
             "rules", gpu, n);
    if (numbered == n && n >= 2)
        note(mr, "none of the %zu files records its rank: they are numbered in command-line order (separate runs "
             "are compared with `perfscope diff BEFORE AFTER`)", n);
    return 0;
}
