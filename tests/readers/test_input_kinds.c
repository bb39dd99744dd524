/* What ps_read_trace does with inputs that are not plain trace files: a FIFO
 * without a writer (used to block in open forever), pipes and devices (refused before any read), /dev/stdin
 * redirected from a file (read), and gzip files that hold whitespace only or a SQLite file.
 * Usage: test_input_kinds CASE */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "cases.h"
#include "tinyfs.h"

static const char one_kernel[] =
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1,"
    " \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7}}]}";

static void fifo_without_writer(void)
{
    const char *path = tiny_path("fifo");
    if (mkfifo(path, 0600) != 0) {
        perror(path);
        exit(1);
    }
    alarm(10);                 /* the bug blocked in open(): fail (killed by SIGALRM) rather than hang */
    const char *err = tiny_read_err(path);
    alarm(0);
    CHECK_CONTAINS(err, "fifo: not a regular file (a pipe or FIFO): report reads regular files; write the trace to "
                        "a file first");
}

static void pipes_devices_and_stdin(void)
{
    /* a pipe with data in it, as `report <(zcat t.json.gz)` gives: before, "cannot read: Illegal seek" */
    int p[2];
    if (pipe(p) != 0 || write(p[1], one_kernel, sizeof one_kernel - 1) != (ssize_t)(sizeof one_kernel - 1)) {
        perror("pipe");
        exit(1);
    }
    close(p[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
    CHECK_CONTAINS(tiny_read_err(path), "not a regular file (a pipe or FIFO)");
    close(p[0]);
    /* a character device: before, /dev/null was "empty file" and /dev/zero "unknown format" */
    CHECK_CONTAINS(tiny_read_err("/dev/null"), "/dev/null: not a regular file (a character device)");
    CHECK_CONTAINS(tiny_read_err("/dev/zero"), "/dev/zero: not a regular file (a character device)");
    /* /dev/stdin redirected from a regular file is that file: read as before */
    int fd = open(tiny_write("one.json", one_kernel, sizeof one_kernel - 1), O_RDONLY);
    if (fd < 0 || dup2(fd, 0) != 0) {
        perror("dup2");
        exit(1);
    }
    close(fd);
    struct ps_model *m = tiny_read("/dev/stdin");
    if (m)
        CHECK_EQ(m->gpu.n, 1);
    ps_model_free(m);
}

static void gzip_of_whitespace(void)
{
    /* printf '   \n  ' | gzip: 6 bytes once decompressed; before, "truncated JSON ... (event 0)" */
    CHECK_CONTAINS(tiny_read_err(tiny_write_gz("ws.json.gz", "   \n  ")),
                   "ws.json.gz: empty file (it decompresses to 6 bytes of whitespace only");
    CHECK_CONTAINS(tiny_read_err(tiny_write_gz("nothing.json.gz", "")),
                   "nothing.json.gz: empty file (it decompresses to 0 bytes of whitespace only");
    /* a plain file of whitespace longer than the 4 KiB the format sniffer looks at: still empty */
    static char spaces[5000 + sizeof one_kernel];
    memset(spaces, ' ', 5000);
    CHECK_CONTAINS(tiny_read_err(tiny_write("ws.json", spaces, 5000)), "ws.json: empty file (5000 bytes of whitespace");
    /* ... and a trace after 5000 spaces is read (before, it was called empty) */
    memcpy(spaces + 5000, one_kernel, sizeof one_kernel - 1);
    struct ps_model *m = tiny_read(tiny_write("late.json", spaces, 5000 + sizeof one_kernel - 1));
    if (m)
        CHECK_EQ(m->gpu.n, 1);
    ps_model_free(m);
    /* a real gzip trace still reads */
    m = tiny_read(tiny_write_gz("one.json.gz", one_kernel));
    if (m)
        CHECK_EQ(m->gpu.n, 1);
    ps_model_free(m);
}

static void gzip_of_sqlite(void)
{
    /* a SQLite file's 100-byte header starts with the 16 bytes "SQLite format 3\0" (fileformat2.html) */
    unsigned char db[4096] = "SQLite format 3";
    const char *path = tiny_path("t.sqlite.gz");
    gzFile g = gzopen(path, "wb");
    if (!g || gzwrite(g, db, sizeof db) != (int)sizeof db || gzclose(g) != Z_OK) {
        perror(path);
        exit(1);
    }
    /* before: "byte 1 of the JSON: invalid JSON" */
    CHECK_CONTAINS(tiny_read_err(path), "t.sqlite.gz: a compressed SQLite file: decompress it first (gunzip");
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "reader_refuses_a_fifo_without_writer_at_once", .fn = fifo_without_writer },
        { "reader_refuses_pipes_and_devices_but_reads_stdin_from_a_file", .fn = pipes_devices_and_stdin },
        { "reader_gzip_of_whitespace_is_an_empty_file", .fn = gzip_of_whitespace },
        { "reader_gzip_of_a_sqlite_file_says_decompress_first", .fn = gzip_of_sqlite },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_cleanup };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
