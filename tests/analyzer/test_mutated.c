/* The analyses on odd but readable models: each corpus trace (fuzz/corpus) is mutated at seeded random
 * places (digits changed, bytes flipped), and whatever the reader accepts goes through every analysis and
 * both renderers. Passing means no crash, no sanitizer report, and breakdowns that still partition their
 * windows (the parts of every step sum to its duration). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "model/model.h"
#include "model/view.h"
#include "render/render.h"
#include "read/reader.h"

#define MUTATIONS 150

static int failures, analysed;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void analyse(const char *path, int compat_tb)
{
    struct ps_model *m = NULL;
    struct ps_report r;
    struct ps_report_opts o;
    char err[512];
    ps_report_opts_default(&o);
    o.compat_tb = compat_tb;
    if (ps_read_trace(path, &m, err, sizeof err) < 0)
        return;   /* rejected input is the reader's business */
    if (ps_ranks_report_compute(&r, m, &o, err, sizeof err) == 0) {
        analysed++;
        FILE *devnull = fopen("/dev/null", "w");
        ps_report_write_json(devnull, &r);
        ps_report_write_text(devnull, &r);
        fclose(devnull);
        for (size_t i = 0; i < r.nsteps; i++) {
            int64_t sum = 0;
            for (int c = 0; c < PS_CAT_N; c++)
                sum += r.steps[i].cat_ns[c];
            if (sum != r.steps[i].end_ns - r.steps[i].start_ns || r.steps[i].cat_ns[PS_CAT_OTHER] < 0) {
                fprintf(stderr, "%s: step %zu parts sum to %lld, window %lld\n", path, i, (long long)sum,
                        (long long)(r.steps[i].end_ns - r.steps[i].start_ns));
                failures++;
            }
        }
        ps_report_fini(&r);
    }
    ps_model_free(m);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_mutated TMPDIR CORPUS_FILE...\n");
        return 2;
    }
    char out[1024];
    snprintf(out, sizeof out, "%s/mutated.json", argv[1]);
    unsigned seed = 1;
    for (int a = 2; a < argc; a++) {
        size_t len;
        char *orig = slurp(argv[a], &len);
        if (!orig) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 1;
        }
        char *buf = malloc(len);
        for (int k = 0; k < MUTATIONS; k++) {
            memcpy(buf, orig, len);
            for (int j = 0; j < 1 + k % 8; j++) {   /* mostly digits: times, ids, streams change; JSON stays valid */
                size_t at = (size_t)rand_r(&seed) % len;
                while (j % 4 != 3 && at + 1 < len && !(buf[at] >= '0' && buf[at] <= '9'))
                    at++;
                buf[at] = (buf[at] >= '0' && buf[at] <= '9') ? (char)('0' + rand_r(&seed) % 10) : (char)rand_r(&seed);
            }
            FILE *f = fopen(out, "wb");
            fwrite(buf, 1, len, f);
            fclose(f);
            analyse(out, k % 2);
        }
        free(buf);
        free(orig);
    }
    unlink(out);
    printf("%d mutated traces read and analysed\n", analysed);
    if (analysed == 0) {
        fprintf(stderr, "no mutated trace was accepted: the test checks nothing\n");
        return 1;
    }
    return failures ? 1 : 0;
}
