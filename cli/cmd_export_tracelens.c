/* `perfscope export TRACE --format tracelens -o DIR`: TraceLens' CSV report of a PyTorch profiler trace
 * (analyses/op_perf.h ps_tl_tables_compute: GEMM.csv, SDPA_fwd.csv, ..., ops_summary.csv, ops_unique_args.csv,
 * kernel_summary.csv, gpu_timeline.csv, unified_perf_summary.csv), written as pandas' to_csv writes them, so a
 * TraceLens user can diff the two folders. DIR is made when missing; an existing non-empty DIR is refused without -f (exit 2).
 * The files are written into a new folder beside DIR first, so a failed write (a full disk) leaves nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/op_perf.h"
#include "commands.h"
#include "model/op_trace.h"
#include "ps_text_escape.h"
#include "read/reader.h"

/* One CSV field, quoted as Python's csv module does (QUOTE_MINIMAL: a field holding , " \r or \n). */
static void put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One table as DIR/NAME.csv. 0, or -errno of the write that failed (-ENOSPC: the disk is full). */
static int write_table(const struct ps_tl_table *t, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.csv", dir, t->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    errno = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        put_field(f, t->cols[c]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            put_field(f, t->cells[r * t->ncols + c]);
        }
        fputc('\n', f);
    }
    int why = ferror(f) ? (errno ? errno : EIO) : 0;   /* a failed write leaves its errno: nothing since resets it */
    if (fclose(f) != 0 && !why)
        why = errno ? errno : EIO;
    return -why;
}

/* 0: DIR may be written (missing: made after the trace is read); 2 after a message. */
int ps_export_tracelens_check_dir(const char *dir, int force)
{
    struct stat st;
    char shown[1024];
    ps_text_escape(dir, shown, sizeof shown, NULL);
    if (stat(dir, &st) != 0)
        return 0;   /* made once the trace is read */
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "perfscope export: %s is not a folder (--format tracelens writes CSV files into -o DIR)\n",
                shown);
        return 2;
    }
    DIR *d = opendir(dir);
    int empty = 1;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
            empty = 0;
    if (d)
        closedir(d);
    if (!empty && !force) {
        fprintf(stderr, "perfscope export: %s exists and is not empty (use -f to write into it)\n", shown);
        return 2;
    }
    return 0;
}

/* 1 when `path` starts as a SQLite database does ("SQLite format 3" and a NUL: a perfscope or Nsight Systems
 * trace), else 0. */
static int is_sqlite(const char *path)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    FILE *f = fopen(path, "rb");
    int yes = f && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, magic, sizeof head) == 0;
    if (f)
        fclose(f);
    return yes;
}

int ps_export_tracelens(const char *input, const char *dir)
{
    struct ps_op_trace *t = NULL;
    char err[512] = "", shown[1024];
    if (is_sqlite(input)) {   /* what the format needs, not a reader's complaint about JSON */
        ps_text_escape(input, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: %s is a SQLite trace (perfscope or Nsight Systems): --format tracelens "
                        "needs a PyTorch profiler JSON trace recorded with shapes (torch.profiler.profile("
                        "record_shapes=True), then export_chrome_trace); for this trace use 'perfscope report' (its "
                        "operator section when recorded with --python-hooks=shapes) or --format perfetto\n", shown);
        return 1;
    }
    if (ps_read_kineto_ops(input, &t, err, sizeof err) < 0) {
        ps_text_escape(err, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: %s (--format tracelens reads PyTorch profiler JSON traces)\n", shown);
        return 1;
    }
    struct ps_tl_tables tabs;
    int rc = ps_tl_tables_compute(t, &tabs);
    ps_op_trace_free(t);
    if (rc < 0) {
        fprintf(stderr, "perfscope export: out of memory\n");
        return 1;
    }
    if (tabs.n == 0) {
        ps_text_escape(input, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: %s has no GPU kernels, copies or memsets linked to a launch (TraceLens "
                "reads PyTorch 2.0+ traces: categories cpu_op, cuda_runtime, kernel): nothing to write\n", shown);
        ps_tl_tables_fini(&tabs);
        return 1;
    }
    /* The tables go into a new folder beside DIR, which then becomes DIR (or, DIR existing, gives it its files): a
     * write that fails (a full disk) leaves no part of the export behind. */
    char tmp[4096];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    snprintf(tmp, sizeof tmp, "%.*s.tmp-XXXXXX", (int)len, dir);
    ps_text_escape(dir, shown, sizeof shown, NULL);
    if (len + 12 >= sizeof tmp || !mkdtemp(tmp)) {
        fprintf(stderr, "perfscope export: cannot make a folder beside %s: %s\n", shown,
                len + 12 >= sizeof tmp ? strerror(ENAMETOOLONG) : strerror(errno));
        ps_tl_tables_fini(&tabs);
        return 1;
    }
    size_t rows = 0, written = 0;
    struct stat st;
    int status = 1, made = stat(dir, &st) != 0;
    for (; written < tabs.n; written++) {
        if ((rc = write_table(&tabs.v[written], tmp)) < 0) {
            fprintf(stderr, "perfscope export: writing %s/%s.csv failed: %s\n", shown, tabs.v[written].name,
                    strerror(-rc));
            written++;          /* its file may exist: removed below */
            goto out;
        }
        rows += tabs.v[written].nrows;
    }
    mode_t mask = umask(0);     /* mkdtemp makes 0700: give DIR the mode a new folder gets */
    umask(mask);
    if (made && (chmod(tmp, 0777 & ~mask) != 0 || rename(tmp, dir) != 0)) {
        fprintf(stderr, "perfscope export: cannot write %s: %s\n", shown, strerror(errno));
        goto out;
    }
    for (size_t k = 0; !made && k < tabs.n; k++) {
        char from[4200], to[4200];
        snprintf(from, sizeof from, "%s/%s.csv", tmp, tabs.v[k].name);
        snprintf(to, sizeof to, "%.*s/%s.csv", (int)len, dir, tabs.v[k].name);
        if (rename(from, to) != 0) {
            fprintf(stderr, "perfscope export: cannot write %s/%s.csv: %s\n", shown, tabs.v[k].name, strerror(errno));
            goto out;
        }
    }
    fprintf(stderr, "perfscope export: %zu TraceLens tables (%zu rows) -> %s\n", tabs.n, rows, dir);
    status = 0;
out:
    if (status != 0 || !made) {     /* what is left of the new folder */
        for (size_t k = 0; k < written; k++) {
            char p[4200];
            snprintf(p, sizeof p, "%s/%s.csv", tmp, tabs.v[k].name);
            unlink(p);
        }
        rmdir(tmp);
    }
    ps_tl_tables_fini(&tabs);
    return status;
}
