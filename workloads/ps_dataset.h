/* ps_dataset.h — the reference workloads' image data set on disk: a deterministic synthetic set of
 * small greyscale images (one class-dependent pattern per class) in perfscope's tiny image format
 * (PSI1, raw or zlib), generated on first use and regenerated when missing or corrupt. */
#ifndef PS_DATASET_H
#define PS_DATASET_H

#include <stddef.h>
#include <stdint.h>

/* PSI1 image file (all integers little-endian), documented in docs/workloads.md:
 *   0  "PSI1"        magic
 *   4  u16 width, u16 height (pixels, 1..4096)
 *   8  u8 label, u8 codec (0 raw, 1 zlib), u16 reserved (0)
 *   12 u32 payload bytes
 *   16 u32 CRC-32 (zlib's) of the width*height decoded 8-bit pixels
 *   20 payload: the pixels row-major, raw or as one zlib stream */
#define PS_IMG_HEADER_BYTES 20
#define PS_IMG_MAX_SIDE 4096
enum ps_img_codec { PS_IMG_RAW = 0, PS_IMG_ZLIB = 1 };

struct ps_img_info {
    int width, height, label;
    enum ps_img_codec codec;
};

/* Decode one PSI1 file image held in file[0..len). Writes width*height pixels to pixels (capacity
 * cap bytes). Returns 0, -EBADMSG when the file is malformed or its CRC does not match (info and
 * pixels are then unspecified), -ENOSPC when cap is too small. */
int ps_img_decode(const uint8_t *file, size_t len, struct ps_img_info *info, uint8_t *pixels,
                  size_t cap);

/* Encode pixels [height, width] into a freshly malloc'ed PSI1 file image (*out, *out_len; the
 * caller frees). Returns 0, -EINVAL for bad dimensions, label or codec, -ENOMEM. */
int ps_img_encode(const uint8_t *pixels, int width, int height, int label,
                  enum ps_img_codec codec, uint8_t **out, size_t *out_len);

/* What a data set is: its directory name under the data dir is derived from all of these. */
struct ps_dataset_spec {
    int width, height; /* stored image size, pixels */
    int count;         /* images, labels i % classes */
    int classes;       /* 2..255 */
    enum ps_img_codec codec;
    uint32_t seed;
};

/* Draw image `index` of the data set (pixels [height, width]) and return its label; deterministic
 * in (spec, index). */
int ps_dataset_draw(const struct ps_dataset_spec *spec, int index, uint8_t *pixels);

/* Make sure the data set exists and is intact under data_dir (created, mode 0700, if missing):
 * verify its MANIFEST and every file's size and CRC-32; if anything is missing or corrupt, generate
 * it into a temporary directory and swap it in with rename(2)/renameat2(RENAME_EXCHANGE), so
 * concurrent runs never see a half-written set. Writes the set's directory to path (cap bytes) and
 * sets *generated to 1 when this call (re)generated it. Returns 0 or -errno after printing a message
 * naming the path and what to do. */
int ps_dataset_ensure(const char *data_dir, const struct ps_dataset_spec *spec, char *path,
                      size_t cap, int *generated);

/* Path of image `index` inside a data set directory. Returns 0 or -ENAMETOOLONG. */
int ps_dataset_image_path(const char *set_dir, int index, char *path, size_t cap);

/* Read a whole file into a malloc'ed buffer (*out, *len; the caller frees). Returns 0 or -errno. */
int ps_dataset_read_file(const char *path, uint8_t **out, size_t *len);

#endif
