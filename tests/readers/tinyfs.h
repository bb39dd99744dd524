/* Scratch files for the reader tests: a private temporary folder, plain and gzip writers, and read
 * helpers that return the model or the error line. */
#ifndef PS_TEST_TINYFS_H
#define PS_TEST_TINYFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "read/reader.h"

static char tiny_dir[64];
static char tiny_files[64][128];
static int tiny_nfiles;

static inline void tiny_init(void)
{
    snprintf(tiny_dir, sizeof tiny_dir, "/tmp/ps-readers-XXXXXX");
    if (!mkdtemp(tiny_dir)) {
        perror("mkdtemp");
        exit(1);
    }
}

static inline void tiny_cleanup(void)
{
    for (int i = 0; i < tiny_nfiles; i++)
        unlink(tiny_files[i]);
    rmdir(tiny_dir);
}

static inline const char *tiny_path(const char *name)
{
    char *p = tiny_files[tiny_nfiles < 63 ? tiny_nfiles++ : 63];
    snprintf(p, sizeof tiny_files[0], "%s/%s", tiny_dir, name);
    return p;
}

static inline const char *tiny_write(const char *name, const void *data, size_t len)
{
    const char *path = tiny_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

static inline const char *tiny_write_gz(const char *name, const char *text)
{
    const char *path = tiny_path(name);
    gzFile g = gzopen(path, "wb");
    if (!g || gzwrite(g, text, (unsigned)strlen(text)) != (int)strlen(text) || gzclose(g) != Z_OK) {
        perror(path);
        exit(1);
    }
    return path;
}

static inline struct ps_model *tiny_read(const char *path)
{
    char err[512];
    struct ps_model *m = NULL;
    if (ps_read_trace(path, &m, err, sizeof err) < 0) {
        fprintf(stderr, "unexpected read error: %s\n", err);
        check_failures++;
        return NULL;
    }
    return m;
}

/* Read a file that must fail; returns the error line (static buffer). */
static inline const char *tiny_read_err(const char *path)
{
    static char err[512];
    struct ps_model *m = NULL;
    err[0] = '\0';
    if (ps_read_trace(path, &m, err, sizeof err) == 0) {
        fprintf(stderr, "%s: read succeeded, an error was expected\n", path);
        check_failures++;
        ps_model_free(m);
        return "";
    }
    CHECK(m == NULL);
    CHECK(strchr(err, '\n') == NULL);   /* one line */
    return err;
}

static inline const char *meta_value(const struct ps_model *m, const char *key)
{
    for (size_t i = 0; i < m->meta.n; i++)
        if (strcmp(m->meta.v[i].key, key) == 0)
            return m->meta.v[i].value;
    return "";
}

#endif
