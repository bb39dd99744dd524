/* `perfscope export TRACE --format perfetto -o OUT.json[.gz]`: read a trace of any format into the model and write
 * it as Chrome trace-event JSON (export/export_perfetto.h), gzip-compressed through zlib when OUT ends in
 * ".gz". The output is written to a temporary file beside OUT and renamed over it at the end, so a failed export
 * leaves no half file. Exit 0, 1 bad input or a write that failed, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "collector/output_file.h"
#include "commands.h"
#include "options.h"
#include "ps_text_escape.h"
#include "read/reader.h"
#include "export/export_perfetto.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: perfscope export TRACE [--format perfetto|tracelens] -o OUT [-f]\n"
            "       (perfetto: OUT.json or OUT.json.gz; tracelens: a folder DIR of CSV files)\n\n"
            "Write a trace of any format (perfscope, Nsight Systems SQLite, PyTorch profiler JSON) as Chrome\n"
            "trace-event JSON for ui.perfetto.dev and chrome://tracing: a track per host thread and GPU stream,\n"
            "NVTX ranges and host ops, kernels, copies and memsets with their args, flow arrows from each launch\n"
            "to its GPU activity, counters for host CPU / RSS and GPU utilisation samples. 'perfscope report'\n"
            "reads the export back with the same steps and breakdown (what maps to what: docs/export.md).\n\n"
            "  --format perfetto   Chrome trace-event JSON (the default)\n"
            "  --format tracelens  TraceLens' CSV report of a PyTorch profiler trace recorded with shapes\n"
            "                      (GEMM.csv, ..., unified_perf_summary.csv) into the folder DIR (docs/op-perf.md)\n"
            "  -o, --output OUT    the file to write; gzip-compressed when it ends in .gz\n"
            "  -f, --force         overwrite OUT if it exists (never the trace being read); write into a\n"
            "                      non-empty DIR\n");
}

static ssize_t gz_cookie_write(void *cookie, const char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {   /* gzwrite takes an unsigned int length */
        unsigned chunk = n - done > (1u << 30) ? 1u << 30 : (unsigned)(n - done);
        int w = gzwrite(cookie, buf + done, chunk);
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int gz_cookie_close(void *cookie)
{
    return gzclose(cookie) == Z_OK ? 0 : -1;
}

/* A stdio stream over the open file `fd` (taken over): plain, or through zlib's gz* API when gz. NULL on error. */
static FILE *open_output(int fd, int gz)
{
    if (!gz)
        return fdopen(fd, "w");
    gzFile z = gzdopen(fd, "wb");
    if (!z)
        return NULL;
    gzbuffer(z, 256 * 1024);
    cookie_io_functions_t io = { .write = gz_cookie_write, .close = gz_cookie_close };
    FILE *f = fopencookie(z, "w", io);
    if (!f)
        gzclose(z);
    else
        setvbuf(f, NULL, _IOFBF, 256 * 1024);
    return f;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The options: 0 with *input and *output set, 1 after --help, or 2 after a usage error. */
static int parse_opts(int argc, char **argv, const char **input, const char **output, int *tracelens, int *forced)
{
    enum { OPT_FORMAT = 256 };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT }, { "output", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 'f' },               { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int force = 0, c;
    *output = NULL;
    if (ps_opt_check_long_names("export", argc, argv, longopts, "o"))
        return 2;
    while ((c = getopt_long(argc, argv, ":ho:f", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 1;
        case 'o':
            if (ps_output_check_path("export", *output = optarg, 0))
                return 2;
            break;
        case 'f':
            force = 1;
            break;
        case OPT_FORMAT:
            *tracelens = strcmp(optarg, "tracelens") == 0;
            if (strcmp(optarg, "perfetto") != 0 && !*tracelens) {
                fprintf(stderr, "perfscope export: unknown --format '%s' (perfetto or tracelens)\n", optarg);
                return 2;
            }
            break;
        default:
            return ps_opt_getopt_error("export", c, argv);
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "perfscope export: give one trace to export (see 'perfscope export --help')\n");
        return 2;
    }
    if (!*output) {
        fprintf(stderr, "perfscope export: give the output file with -o OUT.json or -o OUT.json.gz\n");
        return 2;
    }
    *input = argv[optind];
    *forced = force;
    if (*tracelens)
        return ps_export_tracelens_check_dir(*output, force);
    if (ps_output_is_input("export", *output, argv + optind, 1) || ps_output_refuse_existing("export", *output, force))
        return 2;
    char what[64];
    if (ps_output_not_regular(*output, what, sizeof what)) {   /* the output replaces it (a rename) */
        fprintf(stderr, "perfscope export: %s %s; refusing to replace it (use -o with a file name)\n", *output, what);
        return 2;
    }
    return 0;
}

/* Write m to `output` through a temporary file beside it, renamed over it at the end. 0, or 1 after a message (no
 * file is left behind). */
static int write_export(const struct ps_model *m, const char *output)
{
    char shown[1024];
    size_t len = strlen(output);
    char *tmp = malloc(len + 16);
    int status = 1, fd = -1;
    FILE *out = NULL;
    if (!tmp) {
        fprintf(stderr, "perfscope export: out of memory\n");
        return 1;
    }
    snprintf(tmp, len + 16, "%s.tmp-XXXXXX", output);
    if ((fd = mkstemp(tmp)) < 0) {
        ps_text_escape(output, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: cannot write %s: %s\n", shown, strerror(errno));
        goto done;
    }
    mode_t mask = umask(0);   /* mkstemp makes 0600: give the output the mode a new file gets */
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0)
        fprintf(stderr, "perfscope export: warning: cannot set the mode of the output: %s\n", strerror(errno));
    if (!(out = open_output(fd, ends_with(output, ".gz")))) {
        fprintf(stderr, "perfscope export: cannot open the output stream: %s\n", strerror(errno));
        close(fd);
        unlink(tmp);
        goto done;
    }
    struct ps_export_counts n;
    errno = 0;
    int rc = ps_export_perfetto(m, out, &n);
    /* why the writing failed: the errno of the write that failed (ENOSPC: the disk is full), kept since */
    int why = rc == -ENOMEM ? ENOMEM : rc < 0 ? (errno ? errno : EIO) : 0;
    if (fclose(out) != 0 && !why)
        why = errno ? errno : EIO;
    if (why) {
        ps_text_escape(output, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: writing %s failed: %s\n", shown, strerror(why));   /* as report's, diff's */
        unlink(tmp);
        goto done;
    }
    if (rename(tmp, output) != 0) {
        ps_text_escape(output, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: cannot write %s: %s\n", shown, strerror(errno));
        unlink(tmp);
        goto done;
    }
    fprintf(stderr, "perfscope export: %lld events (%lld GPU ops, %lld flows, %lld counter samples) -> %s\n",
            (long long)n.events, (long long)n.gpu_ops, (long long)n.flows, (long long)n.counters, output);
    status = 0;
done:
    free(tmp);
    return status;
}

int cmd_export(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    int tracelens = 0, force = 0;
    int rc = parse_opts(argc, argv, &input, &output, &tracelens, &force);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (tracelens)   /* its reader opens the trace as it is: refuse a FIFO (its open would block) and the like first */
        return ps_input_check("export", input, "a trace file") ? 1 : ps_export_tracelens(input, output);
    struct ps_model *m = NULL;
    char err[512] = "", shown[1024];
    if (ps_read_trace(input, &m, err, sizeof err) < 0) {
        ps_text_escape(err, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: %s\n", shown);
        return 1;
    }
    int status = write_export(m, output);
    ps_model_free(m);
    return status;
}
