/* test_dataset.c — the workloads' PSI1 image codec, the data set's verify/regenerate logic (corrupt
 * and missing files, concurrent generation by several processes) and the loader (in-order,
 * deterministic batches whatever the worker count; a clear error, not a hang, on a corrupt file).
 * Usage: test_dataset <case> <scratch dir>. */
#include "cases.h"
#include "ps_dataset.h"
#include "ps_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);            \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

static const struct ps_dataset_spec small_spec = {
    .width = 12, .height = 10, .count = 24, .classes = 4, .codec = PS_IMG_ZLIB, .seed = 5};

static int test_codec(void)
{
    /* A 3x2 image by hand: the header is 20 bytes, raw payload 6 bytes, label 7. */
    const uint8_t px[6] = {0, 1, 2, 250, 251, 255};
    uint8_t out[6], *file;
    size_t len;
    struct ps_img_info info;
    for (int codec = 0; codec < 2; codec++) {
        EXPECT(ps_img_encode(px, 3, 2, 7, (enum ps_img_codec)codec, &file, &len) == 0);
        if (codec == PS_IMG_RAW)
            EXPECT(len == 26 && memcmp(file, "PSI1", 4) == 0 && file[4] == 3 && file[6] == 2 &&
                   file[8] == 7 && file[12] == 6);
        EXPECT(ps_img_decode(file, len, &info, out, sizeof out) == 0);
        EXPECT(info.width == 3 && info.height == 2 && info.label == 7 && (int)info.codec == codec);
        EXPECT(memcmp(out, px, 6) == 0);
        EXPECT(ps_img_decode(file, len, &info, out, 5) == -ENOSPC);
        EXPECT(ps_img_decode(file, len - 1, &info, out, sizeof out) == -EBADMSG); /* truncated */
        file[len - 1] ^= 0x40; /* a flipped payload bit: CRC (raw) or zlib check fails */
        EXPECT(ps_img_decode(file, len, &info, out, sizeof out) == -EBADMSG);
        file[len - 1] ^= 0x40;
        file[0] = 'X'; /* bad magic */
        EXPECT(ps_img_decode(file, len, &info, out, sizeof out) == -EBADMSG);
        free(file);
    }
    EXPECT(ps_img_encode(px, 0, 2, 0, PS_IMG_RAW, &file, &len) == -EINVAL);
    EXPECT(ps_img_encode(px, 3, 2, 256, PS_IMG_RAW, &file, &len) == -EINVAL);
    return 0;
}

static int decode_path(const char *path, struct ps_img_info *info, uint8_t *px, size_t cap)
{
    uint8_t *file;
    size_t len;
    int rc = ps_dataset_read_file(path, &file, &len);
    if (rc == 0) {
        rc = ps_img_decode(file, len, info, px, cap);
        free(file);
    }
    return rc;
}

/* The set is generated once, reused, and regenerated after a byte of one file is flipped or a
 * file is deleted; the regenerated image equals the generator's drawing (ground truth). */
static int test_regenerate(const char *scratch)
{
    char set[4096], img[4096];
    int gen = -1;
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 && gen == 1);
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 && gen == 0);
    EXPECT(ps_dataset_image_path(set, 5, img, sizeof img) == 0);
    int fd = open(img, O_RDWR);
    EXPECT(fd >= 0);
    uint8_t byte;
    EXPECT(pread(fd, &byte, 1, 22) == 1);
    byte ^= 0xff;
    EXPECT(pwrite(fd, &byte, 1, 22) == 1);
    close(fd);
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 && gen == 1);
    struct ps_img_info info;
    uint8_t px[120], want[120];
    EXPECT(decode_path(img, &info, px, sizeof px) == 0);
    EXPECT(info.label == ps_dataset_draw(&small_spec, 5, want) && info.label == 5 % 4);
    EXPECT(memcmp(px, want, sizeof px) == 0);
    EXPECT(unlink(img) == 0);
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 && gen == 1);
    EXPECT(access(img, R_OK) == 0);
    return 0;
}

/* Four processes generate the same set at once: all succeed and the result verifies. */
static int test_concurrent(const char *scratch)
{
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            char set[4096];
            int gen;
            _exit(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 ? 0 : 1);
        }
        EXPECT(kids[i] > 0);
    }
    for (int i = 0; i < 4; i++) {
        int status;
        EXPECT(waitpid(kids[i], &status, 0) == kids[i]);
        EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    char set[4096];
    int gen = -1;
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0 && gen == 0);
    return 0;
}

static int read_batches(const char *set, int workers, int prefetch, int n, float *x, int32_t *y)
{
    struct ps_loader_config c = {.set_dir = set, .count = small_spec.count, .img_w = 12,
                                 .img_h = 10, .out_w = 8, .out_h = 8, .batch = 3,
                                 .workers = workers, .prefetch = prefetch, .seed = 9, .flip = 1,
                                 .noise = 0.1f, .blur_passes = 1};
    struct ps_loader *ld;
    if (ps_loader_new(&c, &ld) != 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct ps_batch *b;
        rc = ps_loader_next(ld, &b);
        if (rc == 0) {
            if (b->index != i)
                rc = -1;
            memcpy(x + (size_t)i * 3 * 64, b->x, 3 * 64 * sizeof *x);
            memcpy(y + i * 3, b->labels, 3 * sizeof *y);
            ps_loader_release(ld, b);
        }
    }
    ps_loader_free(ld);
    return rc;
}

/* Same seed, 1 worker vs 4 workers with a short queue: identical batches, in order; a label always
 * matches the class the generator drew for that file; zero-copy batches point at the generator's
 * pixels; corrupt files give -EIO, not a hang. */
static int test_loader(const char *scratch)
{
    char set[4096];
    int gen;
    EXPECT(ps_dataset_ensure(scratch, &small_spec, set, sizeof set, &gen) == 0);
    enum { N = 20 };
    static float x1[N * 3 * 64], x4[N * 3 * 64];
    int32_t y1[N * 3], y4[N * 3];
    EXPECT(read_batches(set, 1, 2, N, x1, y1) == 0);
    EXPECT(read_batches(set, 4, 3, N, x4, y4) == 0);
    EXPECT(memcmp(x1, x4, sizeof x1) == 0 && memcmp(y1, y4, sizeof y1) == 0);
    int seen[4] = {0};
    for (int i = 0; i < N * 3; i++) {
        EXPECT(y1[i] >= 0 && y1[i] < 4);
        seen[y1[i]]++;
    }
    EXPECT(seen[0] && seen[1] && seen[2] && seen[3]);
    /* zero-copy from the in-memory set: each image pointer holds exactly the generator's pixels
     * / 255 for a sample whose label the batch reports */
    struct ps_loader_config zc = {.set_dir = set, .count = small_spec.count, .img_w = 12,
                                  .img_h = 10, .out_w = 12, .out_h = 10, .batch = 5, .workers = 2,
                                  .prefetch = 64, .seed = 3, .cache = 1, .zero_copy = 1};
    struct ps_loader *zl;
    EXPECT(ps_loader_new(&zc, &zl) == 0);
    for (int step = 0; step < 30; step++) {
        struct ps_batch *zb;
        EXPECT(ps_loader_next(zl, &zb) == 0 && zb->index == step && zb->x == NULL);
        for (int i = 0; i < 5; i++) {
            int match = 0;
            for (int s = 0; s < small_spec.count && !match; s++) {
                uint8_t px[120];
                int label = ps_dataset_draw(&small_spec, s, px), same = 1;
                for (int p = 0; p < 120 && same; p++)
                    same = zb->images[i][p] == (float)px[p] * (1.0f / 255.0f);
                match = same && label == zb->labels[i];
            }
            EXPECT(match);
        }
        ps_loader_release(zl, zb);
    }
    ps_loader_free(zl);
    zc.flip = 1; /* augmentation cannot be applied to shared cached images */
    EXPECT(ps_loader_new(&zc, &zl) == -EINVAL);
    zc.flip = 0;
    zc.cache = 0;
    EXPECT(ps_loader_new(&zc, &zl) == -EINVAL);
    zc.cache = 1;

    /* a corrupt file: ps_loader_next reports -EIO instead of hanging */
    char img[4096];
    for (int i = 0; i < small_spec.count; i++) {
        EXPECT(ps_dataset_image_path(set, i, img, sizeof img) == 0);
        EXPECT(truncate(img, 10) == 0);
    }
    struct ps_loader_config c = {.set_dir = set, .count = small_spec.count, .img_w = 12,
                                 .img_h = 10, .out_w = 8, .out_h = 8, .batch = 3, .workers = 2,
                                 .prefetch = 2, .seed = 9};
    struct ps_loader *ld;
    struct ps_batch *b;
    EXPECT(ps_loader_new(&c, &ld) == 0);
    EXPECT(ps_loader_next(ld, &b) == -EIO);
    ps_loader_free(ld);
    EXPECT(ps_loader_new(&zc, &zl) == -EIO); /* the in-memory set is decoded up front */
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "codec", .fn_status = test_codec },
        { "regenerate", .fn_arg = test_regenerate },
        { "concurrent", .fn_arg = test_concurrent },
        { "loader", .fn_arg = test_loader },
    };
    char scratch[4096];
    if (argc > 2)
        snprintf(scratch, sizeof scratch, "%s/%s-%d", argv[2], argv[1], (int)getpid());
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, argc > 2 ? scratch : NULL,
                     NULL);
}
