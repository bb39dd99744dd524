/* `perfscope export TRACE --format tracelens -o DIR`: TraceLens' CSV report of a PyTorch profiler trace
 * (analyses/op_perf.h ps_tl_tables_compute: GEMM.csv, SDPA_fwd.csv, ..., ops_summary.csv, ops_unique_args.csv,
 * kernel_summary.csv, gpu_timeline.csv, unified_perf_summary.csv), written as pandas' to_csv writes them, so a
 * TraceLens user can diff the two folders. DIR is made when missing; an existing non-empty DIR is refused without -f (exit 2). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int write_table(const struct ps_tl_table *t, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", dir, t->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
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
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return -EIO;
    return 0;
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

int ps_export_tracelens(const char *input, const char *dir)
{
    struct ps_op_trace *t = NULL;
    char err[512] = "", shown[1024];
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
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        ps_text_escape(dir, shown, sizeof shown, NULL);
        fprintf(stderr, "perfscope export: cannot make the folder %s: %s\n", shown, strerror(errno));
        ps_tl_tables_fini(&tabs);
        return 1;
    }
    size_t rows = 0;
    for (size_t k = 0; k < tabs.n; k++) {
        if ((rc = write_table(&tabs.v[k], dir)) < 0) {
            ps_text_escape(dir, shown, sizeof shown, NULL);
            fprintf(stderr, "perfscope export: cannot write %s/%s.csv: %s\n", shown, tabs.v[k].name, strerror(-rc));
            ps_tl_tables_fini(&tabs);
            return 1;
        }
        rows += tabs.v[k].nrows;
    }
    fprintf(stderr, "perfscope export: %zu TraceLens tables (%zu rows) -> %s\n", tabs.n, rows, dir);
    ps_tl_tables_fini(&tabs);
    return 0;
}
