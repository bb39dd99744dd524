/* ps_dataset.c — the synthetic image data set of the reference workloads: PSI1 encode/decode, the
 * class-dependent pattern generator, and the verify / generate-into-a-temporary-directory / rename
 * sequence that lets concurrent `train` runs share one data dir safely. */
#include "ps_dataset.h"

#include "ps_rng.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MANIFEST "MANIFEST"
#define MANIFEST_MAGIC "PSIMG-MANIFEST 1"

static void put_u16(uint8_t *p, unsigned v) { p[0] = v & 0xff; p[1] = (v >> 8) & 0xff; }
static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (v >> (8 * i)) & 0xff;
}
static unsigned get_u16(const uint8_t *p) { return p[0] | (unsigned)p[1] << 8; }
static uint32_t get_u32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int ps_img_decode(const uint8_t *file, size_t len, struct ps_img_info *info, uint8_t *pixels,
                  size_t cap)
{
    if (len < PS_IMG_HEADER_BYTES || memcmp(file, "PSI1", 4) != 0)
        return -EBADMSG;
    info->width = (int)get_u16(file + 4);
    info->height = (int)get_u16(file + 6);
    info->label = file[8];
    info->codec = (enum ps_img_codec)file[9];
    uint32_t payload = get_u32(file + 12), crc = get_u32(file + 16);
    if (info->width < 1 || info->width > PS_IMG_MAX_SIDE || info->height < 1 ||
        info->height > PS_IMG_MAX_SIDE || payload != len - PS_IMG_HEADER_BYTES)
        return -EBADMSG;
    size_t npix = (size_t)info->width * info->height;
    if (npix > cap)
        return -ENOSPC;
    const uint8_t *body = file + PS_IMG_HEADER_BYTES;
    if (info->codec == PS_IMG_RAW) {
        if (payload != npix)
            return -EBADMSG;
        memcpy(pixels, body, npix);
    } else if (info->codec == PS_IMG_ZLIB) {
        uLongf out_len = (uLongf)npix;
        if (uncompress(pixels, &out_len, body, payload) != Z_OK || out_len != npix)
            return -EBADMSG;
    } else {
        return -EBADMSG;
    }
    if (crc32(0L, pixels, (uInt)npix) != crc)
        return -EBADMSG;
    return 0;
}

int ps_img_encode(const uint8_t *pixels, int width, int height, int label,
                  enum ps_img_codec codec, uint8_t **out, size_t *out_len)
{
    if (width < 1 || width > PS_IMG_MAX_SIDE || height < 1 || height > PS_IMG_MAX_SIDE ||
        label < 0 || label > 255 || (codec != PS_IMG_RAW && codec != PS_IMG_ZLIB))
        return -EINVAL;
    size_t npix = (size_t)width * height;
    uLongf bound = codec == PS_IMG_ZLIB ? compressBound((uLong)npix) : (uLongf)npix;
    uint8_t *buf = malloc(PS_IMG_HEADER_BYTES + bound);
    if (!buf)
        return -ENOMEM;
    if (codec == PS_IMG_ZLIB) {
        if (compress2(buf + PS_IMG_HEADER_BYTES, &bound, pixels, (uLong)npix, 6) != Z_OK) {
            free(buf);
            return -ENOMEM;
        }
    } else {
        memcpy(buf + PS_IMG_HEADER_BYTES, pixels, npix);
    }
    memcpy(buf, "PSI1", 4);
    put_u16(buf + 4, (unsigned)width);
    put_u16(buf + 6, (unsigned)height);
    buf[8] = (uint8_t)label;
    buf[9] = (uint8_t)codec;
    put_u16(buf + 10, 0);
    put_u32(buf + 12, (uint32_t)bound);
    put_u32(buf + 16, (uint32_t)crc32(0L, pixels, (uInt)npix));
    *out = buf;
    *out_len = PS_IMG_HEADER_BYTES + bound;
    return 0;
}

/* Class k is a horizontal band (invariant under the loader's horizontal flips) at a class-specific
 * height, dashed for odd classes, on a noisy background of random brightness. */
int ps_dataset_draw(const struct ps_dataset_spec *spec, int index, uint8_t *pixels)
{
    uint64_t rng = ps_rng_seed(spec->seed, (uint64_t)index);
    int w = spec->width, h = spec->height, label = index % spec->classes;
    int bg = 20 + ps_rng_below(&rng, 40);
    float pos = 0.12f + 0.76f * (float)label / (float)(spec->classes - 1);
    int jitter = h / 36 > 0 ? ps_rng_below(&rng, 2 * (h / 36) + 1) - h / 36 : 0;
    int center = (int)(pos * (float)h) + jitter, half = h / 28 > 0 ? h / 28 : 1;
    int dash = w / 8 > 0 ? w / 8 : 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = bg + ps_rng_below(&rng, 49) - 24;
            int in_band = y >= center - half && y <= center + half;
            if (in_band && (label % 2 == 0 || (x / dash) % 2 == 0))
                v += 150;
            pixels[(size_t)y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    return label;
}

int ps_dataset_image_path(const char *set_dir, int index, char *path, size_t cap)
{
    int n = snprintf(path, cap, "%s/img-%06d.psi", set_dir, index);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int ps_dataset_read_file(const char *path, uint8_t **out, size_t *len)
{
    int rc = 0;
    uint8_t *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        goto out;
    }
    buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf) {
        rc = -ENOMEM;
        goto out;
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : -EIO;
            goto out;
        }
        got += (size_t)n;
    }
    *out = buf;
    *len = got;
    buf = NULL;
out:
    free(buf);
    close(fd);
    return rc;
}

static int write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    int rc = 0;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, (const uint8_t *)data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

static const char *codec_name(enum ps_img_codec c) { return c == PS_IMG_ZLIB ? "zlib" : "raw"; }

/* Verify a data set directory against spec: 1 when intact, 0 when missing or corrupt. */
static int verify(const char *dir, const struct ps_dataset_spec *spec)
{
    char path[4096], line[256], name[64], want[256];
    int ok = 0, n = 0;
    if (snprintf(path, sizeof path, "%s/" MANIFEST, dir) >= (int)sizeof path)
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    snprintf(want, sizeof want, MANIFEST_MAGIC " %dx%d count %d classes %d codec %s seed %u\n",
             spec->width, spec->height, spec->count, spec->classes, codec_name(spec->codec),
             (unsigned)spec->seed);
    if (!fgets(line, sizeof line, f) || strcmp(line, want) != 0)
        goto out;
    for (;;) {
        unsigned long size, crc;
        if (!fgets(line, sizeof line, f))
            goto out; /* no "end": an unfinished manifest */
        if (strcmp(line, "end\n") == 0)
            break;
        if (sscanf(line, "%63s %lu %lx", name, &size, &crc) != 3 || n >= spec->count)
            goto out;
        char expect[64];
        snprintf(expect, sizeof expect, "img-%06d.psi", n);
        uint8_t *data = NULL;
        size_t len = 0;
        if (strcmp(name, expect) != 0 || ps_dataset_image_path(dir, n, path, sizeof path) != 0 ||
            ps_dataset_read_file(path, &data, &len) != 0)
            goto out;
        int same = len == size && crc32(0L, data, (uInt)len) == crc;
        free(data);
        if (!same)
            goto out;
        n++;
    }
    ok = n == spec->count;
out:
    fclose(f);
    return ok;
}

/* Remove a flat directory of files (the data set layout). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Write every image and then the manifest (its "end" line last) into dir. */
static int generate(const char *dir, const struct ps_dataset_spec *spec)
{
    int rc = 0;
    char path[4096];
    FILE *man = NULL;
    uint8_t *pixels = malloc((size_t)spec->width * spec->height);
    if (!pixels)
        return -ENOMEM;
    if (snprintf(path, sizeof path, "%s/" MANIFEST, dir) >= (int)sizeof path) {
        rc = -ENAMETOOLONG;
        goto out;
    }
    man = fopen(path, "we");
    if (!man) {
        rc = -errno;
        goto out;
    }
    fprintf(man, MANIFEST_MAGIC " %dx%d count %d classes %d codec %s seed %u\n", spec->width,
            spec->height, spec->count, spec->classes, codec_name(spec->codec),
            (unsigned)spec->seed);
    for (int i = 0; i < spec->count; i++) {
        uint8_t *file = NULL;
        size_t len = 0;
        int label = ps_dataset_draw(spec, i, pixels);
        rc = ps_img_encode(pixels, spec->width, spec->height, label, spec->codec, &file, &len);
        if (rc == 0)
            rc = ps_dataset_image_path(dir, i, path, sizeof path);
        if (rc == 0)
            rc = write_file(path, file, len);
        if (rc == 0)
            fprintf(man, "img-%06d.psi %zu %08lx\n", i, len, (unsigned long)crc32(0L, file, (uInt)len));
        free(file);
        if (rc != 0)
            goto out;
    }
    fputs("end\n", man);
out:
    if (man && fclose(man) != 0 && rc == 0)
        rc = -errno;
    free(pixels);
    return rc;
}

/* mkdir -p with mode 0700 for directories it creates; the last one must be ours. */
static int make_dirs(const char *dir)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return -errno;
    /* The data dir may sit in a shared /tmp: refuse one another user could have planted (a
     * symbolic link, or a directory they own), since this run would read their files. */
    struct stat st;
    if (lstat(tmp, &st) != 0)
        return -errno;
    if (S_ISLNK(st.st_mode) || st.st_uid != geteuid())
        return -EPERM;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int ps_dataset_ensure(const char *data_dir, const struct ps_dataset_spec *spec, char *path,
                      size_t cap, int *generated)
{
    char tmp[4096];
    int rc, n;
    *generated = 0;
    if (spec->width < 1 || spec->width > PS_IMG_MAX_SIDE || spec->height < 1 ||
        spec->height > PS_IMG_MAX_SIDE || spec->count < 1 || spec->classes < 2 ||
        spec->classes > 255)
        return -EINVAL;
    n = snprintf(path, cap, "%s/psimg-v1-%dx%d-n%d-c%d-%s-s%u", data_dir, spec->width,
                 spec->height, spec->count, spec->classes, codec_name(spec->codec),
                 (unsigned)spec->seed);
    if (n < 0 || (size_t)n >= cap || (size_t)n + 16 >= sizeof tmp) {
        fprintf(stderr, "train: data dir path too long: %s (use a shorter --data-dir)\n", data_dir);
        return -ENAMETOOLONG;
    }
    rc = make_dirs(data_dir);
    if (rc != 0) {
        fprintf(stderr, "train: cannot use data dir %s: %s (%suse --data-dir to choose another)\n",
                data_dir, strerror(-rc),
                rc == -EPERM ? "it is a symbolic link or another user's directory; " : "");
        return rc;
    }
    if (verify(path, spec))
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
    if (!mkdtemp(tmp)) {
        rc = -errno;
        fprintf(stderr, "train: cannot create %s: %s (use --data-dir to choose another)\n", tmp,
                strerror(-rc));
        return rc;
    }
    rc = generate(tmp, spec);
    if (rc != 0) {
        fprintf(stderr, "train: cannot write the data set into %s: %s (check free space, or use "
                        "--data-dir)\n", tmp, strerror(-rc));
        goto out;
    }
    if (rename(tmp, path) == 0) {
        *generated = 1;
        return 0;
    }
    if (errno != EEXIST && errno != ENOTEMPTY) {
        rc = -errno;
        fprintf(stderr, "train: cannot rename %s to %s: %s\n", tmp, path, strerror(-rc));
        goto out;
    }
    if (verify(path, spec)) /* a concurrent run finished first: use its set */
        goto out;
    /* The old set is corrupt: swap atomically so readers see either the old or the new set. */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0) {
        rc = -errno;
        fprintf(stderr, "train: cannot replace the corrupt data set %s: %s (remove it by hand)\n",
                path, strerror(-rc));
        goto out;
    }
    *generated = 1;
out:
    remove_dir(tmp); /* ours, or the corrupt set we swapped out */
    return rc;
}
