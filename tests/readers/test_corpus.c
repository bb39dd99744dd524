/* Every fuzzer seed (fuzz/corpus/) and every saved reproducer (tests/readers/regress/) goes through
 * ps_read_trace: it must either read, or fail with one line naming the file, never crash (this test runs under
 * ASan+UBSan in CI). Seeds are valid slices of real traces: they must read; but seeds named hostile_*
 * (fuzz/make_seeds.py: hostile shapes: a view, text in a numeric column, "args": [1,2]) may fail, with the
 * one-line message. Reproducers named reject_* are damaged traces (cut mid-event, truncated gzip, a SQLite file
 * cut after one page): they must be rejected. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "read/reader.h"

enum expect { READ, READ_OR_FAIL_CLEANLY };

static int read_dir(const char *dir, enum expect expect)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char path[4096], err[512] = "";
        struct ps_model *m = NULL;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int rc = ps_read_trace(path, &m, err, sizeof err);
        n++;
        int must_fail = expect == READ_OR_FAIL_CLEANLY && strncmp(e->d_name, "reject_", 7) == 0;
        if (rc == 0) {
            ps_model_free(m);
            if (must_fail) {
                fprintf(stderr, "%s was read: a damaged trace must be rejected\n", path);
                check_failures++;
            }
            continue;
        }
        if (expect == READ && strncmp(e->d_name, "hostile_", 8) != 0) {
            fprintf(stderr, "seed %s does not read: %s\n", path, err);
            check_failures++;
        }
        CHECK(strstr(err, path) != NULL);
        CHECK(strchr(err, '\n') == NULL);
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FUZZ_CORPUS_DIR REGRESS_DIR\n", argv[0]);
        return 2;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kineto", argv[1]);
    int seeds = read_dir(dir, READ);
    snprintf(dir, sizeof dir, "%s/sqlite", argv[1]);
    seeds += read_dir(dir, READ);
    CHECK(seeds >= 21);                /* 6 Kineto + 2 SQLite slices of real traces, 7 + 6 hostile shapes */
    int reproducers = read_dir(argv[2], READ_OR_FAIL_CLEANLY);
    CHECK(reproducers >= 3);           /* the three reject_* traces are committed */
    return check_failures ? 1 : 0;
}
