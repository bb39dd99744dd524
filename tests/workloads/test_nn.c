/* test_nn.c — the training library's C backend against naive reference computations and hand
 * calculations: GEMM (all three layouts, accumulate, sizes that cross the blocking), bias+ReLU,
 * ReLU gradient, column sums, softmax cross-entropy (hand values and finite differences), SGD, crop,
 * and the exact operation/copy counts the wrappers keep. Usage: test_nn <case>. */
#include "cases.h"
#include "ps_mlp.h"
#include "ps_nn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);            \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

static float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Naive reference: C = op(A) op(B) in double, element by element. */
static void ref_gemm(int ta, int tb, int m, int n, int k, const float *a, const float *b, double *c)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int kk = 0; kk < k; kk++) {
                double av = ta ? a[(size_t)kk * m + i] : a[(size_t)i * k + kk];
                double bv = tb ? b[(size_t)j * k + kk] : b[(size_t)kk * n + j];
                s += av * bv;
            }
            c[(size_t)i * n + j] = s;
        }
}

static int gemm_case(struct ps_nn *nn, int ta, int tb, int m, int n, int k, int accumulate)
{
    unsigned seed = (unsigned)(m * 131 + n * 7 + k + ta * 3 + tb * 5);
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    float *c = malloc(sizeof(float) * m * n);
    double *r = malloc(sizeof(double) * m * n);
    for (int i = 0; i < m * k; i++)
        a[i] = frand(&seed);
    for (int i = 0; i < k * n; i++)
        b[i] = frand(&seed);
    for (int i = 0; i < m * n; i++)
        c[i] = 0.5f; /* what accumulate adds to; overwritten otherwise */
    ref_gemm(ta, tb, m, n, k, a, b, r);
    int rc = ps_nn_gemm(nn, ta, tb, m, n, k, a, b, c, accumulate), bad = 0;
    for (int i = 0; i < m * n && rc == 0; i++) {
        double want = r[i] + (accumulate ? 0.5 : 0.0);
        /* float accumulation of k products of |x| <= 1: error well under 1e-5 * k */
        if (fabs(c[i] - want) > 1e-5 * k + 1e-5) {
            fprintf(stderr, "gemm ta=%d tb=%d %dx%dx%d acc=%d: C[%d]=%g want %g\n", ta, tb, m, n,
                    k, accumulate, i, c[i], want);
            bad = 1;
            break;
        }
    }
    free(a), free(b), free(c), free(r);
    return rc != 0 || bad;
}

static int test_gemm(struct ps_nn *nn)
{
    /* 300 > the 256-deep k blocks, 600 > the 512-wide n blocks, 70 > the 64-row m blocks */
    static const int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {70, 33, 300}, {5, 600, 3}, {17, 10, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int layout = 0; layout < 3; layout++)
            for (int acc = 0; acc < 2; acc++)
                EXPECT(gemm_case(nn, layout == 1, layout == 2, sizes[s][0], sizes[s][1],
                                 sizes[s][2], acc) == 0);
    float x = 0;
    EXPECT(ps_nn_gemm(nn, 1, 1, 1, 1, 1, &x, &x, &x, 0) == -EINVAL);
    return 0;
}

static int test_elementwise(struct ps_nn *nn)
{
    /* bias+ReLU by hand: rows (1,-2,0.5) and (-1,3,-0.25) plus bias (0.5,1,-1) */
    float y[6] = {1, -2, 0.5f, -1, 3, -0.25f}, b[3] = {0.5f, 1, -1};
    EXPECT(ps_nn_bias_relu(nn, y, b, 2, 3, 1) == 0);
    const float relu_want[6] = {1.5f, 0, 0, 0, 4, 0};
    for (int i = 0; i < 6; i++)
        EXPECT(y[i] == relu_want[i]);
    float z[6] = {1, -2, 0.5f, -1, 3, -0.25f};
    EXPECT(ps_nn_bias_relu(nn, z, b, 2, 3, 0) == 0);
    const float lin_want[6] = {1.5f, -1, -0.5f, -0.5f, 4, -1.25f};
    for (int i = 0; i < 6; i++)
        EXPECT(z[i] == lin_want[i]);
    /* ReLU gradient: dy kept where y > 0 */
    float dy[6] = {1, 2, 3, 4, 5, 6};
    EXPECT(ps_nn_relu_grad(nn, dy, relu_want, 6) == 0);
    const float dy_want[6] = {1, 0, 0, 0, 5, 0};
    for (int i = 0; i < 6; i++)
        EXPECT(dy[i] == dy_want[i]);
    /* column sums of [[1,2,3],[4,5,6]] = (5,7,9); accumulated once more = (10,14,18) */
    const float m[6] = {1, 2, 3, 4, 5, 6};
    float cs[3] = {99, 99, 99};
    EXPECT(ps_nn_col_sum(nn, cs, m, 2, 3, 0) == 0);
    EXPECT(cs[0] == 5 && cs[1] == 7 && cs[2] == 9);
    EXPECT(ps_nn_col_sum(nn, cs, m, 2, 3, 1) == 0);
    EXPECT(cs[0] == 10 && cs[1] == 14 && cs[2] == 18);
    /* SGD: w - 0.1 g with w = (1, -1), g = (2, -4): (0.8, -0.6) */
    float w[2] = {1, -1}, g[2] = {2, -4};
    EXPECT(ps_nn_sgd(nn, w, g, 2, 0.1f) == 0);
    EXPECT(fabsf(w[0] - 0.8f) < 1e-7f && fabsf(w[1] + 0.6f) < 1e-7f);
    /* crop a 2x2 window at (1,2) out of 2 images of 3x4: image i pixel (y,x) = 100i + 10y + x */
    float src[24], dst[8];
    for (int i = 0; i < 2; i++)
        for (int yy = 0; yy < 3; yy++)
            for (int xx = 0; xx < 4; xx++)
                src[i * 12 + yy * 4 + xx] = (float)(100 * i + 10 * yy + xx);
    EXPECT(ps_nn_crop(nn, dst, src, 2, 3, 4, 1, 2, 2, 2) == 0);
    const float crop_want[8] = {12, 13, 22, 23, 112, 113, 122, 123};
    for (int i = 0; i < 8; i++)
        EXPECT(dst[i] == crop_want[i]);
    EXPECT(ps_nn_crop(nn, dst, src, 2, 3, 4, 2, 2, 2, 2) == -EINVAL); /* window leaves the image */
    return 0;
}

static double mean_loss(struct ps_nn *nn, const float *logits, const int32_t *labels, int rows,
                        int classes)
{
    float d[64], l[8];
    ps_nn_softmax_ce(nn, logits, labels, rows, classes, 1.0f / rows, d, l);
    double s = 0;
    for (int r = 0; r < rows; r++)
        s += l[r];
    return s / rows;
}

static int test_softmax_ce(struct ps_nn *nn)
{
    /* Hand values: equal logits over 4 classes: loss = ln 4 = 1.3862944; gradient (1/4 - onehot)
     * scaled by 1/rows (rows = 1). Logits (ln 1, ln 3) with label 1: p = (1/4, 3/4), loss = ln(4/3). */
    float z1[4] = {2, 2, 2, 2}, d1[4], l1;
    int32_t y1 = 2;
    EXPECT(ps_nn_softmax_ce(nn, z1, &y1, 1, 4, 1.0f, d1, &l1) == 0);
    EXPECT(fabsf(l1 - 1.3862944f) < 1e-6f);
    EXPECT(fabsf(d1[0] - 0.25f) < 1e-7f && fabsf(d1[2] + 0.75f) < 1e-7f);
    float z2[2] = {0.0f, 1.0986123f}, d2[2], l2;
    int32_t y2 = 1;
    EXPECT(ps_nn_softmax_ce(nn, z2, &y2, 1, 2, 1.0f, d2, &l2) == 0);
    EXPECT(fabsf(l2 - 0.2876821f) < 1e-6f);
    EXPECT(fabsf(d2[0] - 0.25f) < 1e-6f && fabsf(d2[1] + 0.25f) < 1e-6f);
    /* Gradient of the mean loss against central finite differences (h = 1e-3, float logits). */
    enum { R = 3, K = 5 };
    unsigned seed = 7;
    float z[R * K], d[R * K], l[R];
    int32_t y[R] = {0, 4, 2};
    for (int i = 0; i < R * K; i++)
        z[i] = 2.0f * frand(&seed);
    EXPECT(ps_nn_softmax_ce(nn, z, y, R, K, 1.0f / R, d, l) == 0);
    for (int i = 0; i < R * K; i++) {
        float keep = z[i], h = 1e-3f;
        z[i] = keep + h;
        double up = mean_loss(nn, z, y, R, K);
        z[i] = keep - h;
        double down = mean_loss(nn, z, y, R, K);
        z[i] = keep;
        double fd = (up - down) / (2.0 * h);
        if (fabs(fd - d[i]) > 2e-3) {
            fprintf(stderr, "softmax_ce gradient [%d]: analytic %g, finite difference %g\n", i,
                    d[i], fd);
            return 1;
        }
    }
    return 0;
}

/* The wrappers' counts: one MLP step of batch 4, micro-batch 2 (2 passes), no device crop.
 * Per pass: forward 5 kernels (gemm, bias_relu, gemm, bias, softmax_ce), backward 6 (gemm_tn,
 * col_sum, gemm_nt, relu_grad, gemm_tn, col_sum); optimizer 4 sgd. So 10 + 12 + 4 = 26 kernels;
 * H2D: 4 parameter uploads at init + x and labels; D2H: the 4 row losses. */
static int test_counts(struct ps_nn *nn)
{
    struct ps_mlp m;
    struct ps_mlp_config cfg = {.batch = 4, .micro_batch = 2, .in_h = 2, .in_w = 3, .full_h = 2,
                                .full_w = 3, .hidden = 5, .classes = 3, .lr = 0.1f, .seed = 1};
    EXPECT(ps_mlp_init(&m, nn, &cfg) == 0);
    EXPECT(nn->stats.h2d_copies == 4);
    EXPECT(nn->stats.h2d_bytes == 4 * (6 * 5 + 5 + 5 * 3 + 3));
    float x[24] = {0};
    int32_t labels[4] = {0, 1, 2, 0};
    float loss = 0;
    EXPECT(ps_mlp_upload(&m, x, labels) == 0);
    EXPECT(ps_mlp_forward(&m) == 0);
    EXPECT(ps_mlp_backward(&m) == 0);
    EXPECT(ps_mlp_optimize(&m, &loss) == 0);
    EXPECT(ps_nn_kernels_total(nn) == 26);
    EXPECT(nn->stats.kernels[PS_NN_K_GEMM_NN] == 4 && nn->stats.kernels[PS_NN_K_GEMM_TN] == 4 &&
           nn->stats.kernels[PS_NN_K_GEMM_NT] == 2 && nn->stats.kernels[PS_NN_K_SGD] == 4);
    EXPECT(nn->stats.h2d_copies == 6);
    EXPECT(nn->stats.h2d_bytes == 4 * (6 * 5 + 5 + 5 * 3 + 3) + 4 * 24 + 4 * 4);
    EXPECT(nn->stats.d2h_copies == 1 && nn->stats.d2h_bytes == 16);
    /* zero input, zero biases: logits are all 0, so the loss is ln 3 */
    EXPECT(fabsf(loss - 1.0986123f) < 1e-6f);
    ps_mlp_fini(&m);
    return 0;
}

/* Training reduces the loss: 200 SGD steps on two separable classes of 2-feature points. */
static int test_training_reduces_loss(struct ps_nn *nn)
{
    struct ps_mlp m;
    struct ps_mlp_config cfg = {.batch = 8, .micro_batch = 8, .in_h = 1, .in_w = 2, .full_h = 1,
                                .full_w = 2, .hidden = 8, .classes = 2, .lr = 0.5f, .seed = 3};
    EXPECT(ps_mlp_init(&m, nn, &cfg) == 0);
    float x[16], first = 0, last = 0;
    int32_t y[8];
    unsigned seed = 11;
    for (int step = 0; step < 200; step++) {
        for (int i = 0; i < 8; i++) { /* class 1 at (+1,+1), class 0 at (-1,-1), noise 0.3 */
            y[i] = i % 2;
            x[2 * i] = (y[i] ? 1.0f : -1.0f) + 0.3f * frand(&seed);
            x[2 * i + 1] = (y[i] ? 1.0f : -1.0f) + 0.3f * frand(&seed);
        }
        float loss;
        EXPECT(ps_mlp_upload(&m, x, y) == 0 && ps_mlp_forward(&m) == 0 &&
               ps_mlp_backward(&m) == 0 && ps_mlp_optimize(&m, &loss) == 0);
        if (step == 0)
            first = loss;
        last = loss;
    }
    fprintf(stderr, "loss %g -> %g\n", first, last);
    EXPECT(first > 0.3f);        /* near ln 2 = 0.69 at the start */
    EXPECT(last < 0.1f * first); /* separable: it must fall by an order of magnitude */
    ps_mlp_fini(&m);
    return 0;
}

/* Each case on the C backend, opened for it. */
static struct ps_nn nn;

static int open_nn(void)
{
    return ps_nn_open_cpu(&nn, PS_NN_PAGEABLE) != 0 ? 2 : 0;
}

static void close_nn(void)
{
    ps_nn_close(&nn);
}

static int gemm(void) { return test_gemm(&nn); }
static int elementwise(void) { return test_elementwise(&nn); }
static int softmax(void) { return test_softmax_ce(&nn); }
static int counts(void) { return test_counts(&nn); }
static int training(void) { return test_training_reduces_loss(&nn); }

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "gemm", .fn_status = gemm },
        { "elementwise", .fn_status = elementwise },
        { "softmax", .fn_status = softmax },
        { "counts", .fn_status = counts },
        { "training", .fn_status = training },
    };
    static const struct case_hooks hooks = { .setup = open_nn, .teardown = close_nn };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}
