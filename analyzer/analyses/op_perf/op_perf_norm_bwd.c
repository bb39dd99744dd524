/* The backward normalisation models (TraceLens/PerfModel/perf_model.py Normalization.flops_func_bwd /
 * bytes_func_bwd, BatchNormBwd, LayerNormBwd, GroupNormBwd, RMSNormBwd; the op names from torch_op_mapping.py
 * norm_ops). Each backward op is evaluated with its own shapes: the input x (N elements), C channels (the
 * normalised size for layer / RMS norm, x's dimension 1 for batch norm, dimension 1 / groups for group norm) and
 * the op's output_mask (which of grad_input, grad_weight, grad_bias it computes). docs/op-perf.md "Backward
 * normalisation". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"

/* ast.literal_eval of a Concrete Inputs item as a list, each item through int() (as_bool 0) or bool() (1): its
 * length, or -1 when it is not such a list (TraceLens raises: the call has no row). */
static int literal_list(const struct tl_args *a, size_t i, int as_bool, int64_t *out, size_t max)
{
    const char *s = tl_str_at(&a->c, a->has_c, i);
    struct tl_pv v;
    if (!s || tl_pv_parse(&s, &v, 0) < 0 || v.kind != TL_PV_LIST || v.n > max) {
        if (s)
            tl_pv_fini(&v);
        return -1;
    }
    int n = (int)v.n;
    for (size_t k = 0; k < v.n && n >= 0; k++) {
        const struct tl_pv *x = &v.items[k];
        if (x->kind == TL_PV_INT || x->kind == TL_PV_BOOL)
            out[k] = as_bool ? x->i != 0 : x->i;
        else if (as_bool && x->kind == TL_PV_STR)
            out[k] = x->s && *x->s;   /* bool(str) */
        else if (as_bool && x->kind == TL_PV_NONE)
            out[k] = 0;
        else
            n = -1;
    }
    tl_pv_fini(&v);
    return n;
}

/* Normalization.flops_func_bwd: per channel 3 (1/std, when not training) + 4 per element (the dot product);
 * + 5 per element for grad_input when training, or + 2 per element (dy * invstd * w) when grad_input is not
 * asked for (TraceLens' branch, kept as written). */
static double flops_bwd(int training, double N, double C, int mask0)
{
    double epc = N / C, fpc = training ? 0 : 3;
    fpc += 4 * epc;
    if (mask0) {
        if (training)
            fpc += 5 * epc;
    } else {
        fpc += 2 * epc;
    }
    return C * fpc;
}

/* Normalization.bytes_func_bwd: grad_out and x read (x twice for grad_input in training), grad_input written;
 * invstd read in training; the weight read when affine, grad_weight (and grad_bias) written in training. */
static double bytes_bwd(int has_bias, int affine, int training, double N, double C, double b, int mask0)
{
    double bytes = N * b + N * b * (mask0 && training ? 2 : 1);
    if (training)
        bytes += C * b;
    if (affine) {
        bytes += C * b;
        if (training)
            bytes += C * b * (has_bias ? 2 : 1);
    }
    return bytes;
}

/* RMSNormBwd: dy*w (affine) and x*rstd per element; the dot product and grad_input (6 per element) when asked;
 * grad_weight (1 per element, + 1 for the accumulation over rows when there is more than one row). Bytes: grad_out
 * and x read, grad_input written; weight and grad_weight when affine. */
static void rms_bwd(struct tl_call *c, double N, double C, double b, int affine, const int64_t *mask, int nmask)
{
    double f = affine ? N : 0;
    f += N;
    if (nmask > 0 && mask[0]) {
        f += 2 * N;
        f += 4 * N;
    }
    if (nmask > 1 && mask[1] && affine) {
        f += N;
        if (N / C > 1)
            f += N;
    }
    c->flops = f;
    c->bytes = N * b + N * b * 2 + (affine ? C * b * 2 : 0);
}

/* What a backward call's inputs say: the channels C, the output_mask and the forward op's flags. */
struct nb_inputs {
    double C;
    int64_t mask[8];
    int nmask, training, has_bias, affine;
};

/* The inputs of each backward op (PyTorch's native_functions.yaml schemas):
 *   native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
 *                              eps, output_mask); cudnn_ / miopen_batch_norm_backward(input, grad_output, weight,
 *                              running_mean, running_var, save_mean, save_var, epsilon[, reserveSpace])
 *   native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
 *   native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
 *   _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask)
 * x (nx dimensions) is the input. 0, or -EINVAL where TraceLens raises. */
static int nb_read(const struct tl_args *a, enum tl_norm_bwd_kind kind, const int64_t *x, int nx,
                   struct nb_inputs *in)
{
    int64_t shape[16];
    *in = (struct nb_inputs){ .mask = { 1 }, .nmask = 1, .training = 1, .has_bias = 1, .affine = 1 };
    switch (kind) {
    case TL_NORM_BWD_BATCH:
    case TL_NORM_BWD_BATCH_CUDNN:
        /* "X is not None" on Kineto's lists (an absent tensor is []): grad_input and the weight are always on */
        if (nx < 2 || !tl_item(&a->d, a->has_d, 0) || !tl_item(&a->d, a->has_d, 2))
            return -EINVAL;
        in->C = (double)x[1];
        if (kind == TL_NORM_BWD_BATCH) {
            const char *t = tl_str_at(&a->c, a->has_c, 7);
            if (!t)
                return -EINVAL;
            in->training = *t != 0;   /* bool(str): "False" is True */
        } else {
            in->training = 0;         /* cuDNN / MIOpen backward: inference statistics by assertion */
        }
        break;
    case TL_NORM_BWD_LAYER:
    case TL_NORM_BWD_RMS: {
        int n = literal_list(a, 2, 0, shape, 16);
        in->nmask = literal_list(a, kind == TL_NORM_BWD_LAYER ? 7 : 5, 1, in->mask, 8);
        if (n < 0 || in->nmask < 0)
            return -EINVAL;
        in->C = tl_prod(shape, n);
        if (kind == TL_NORM_BWD_LAYER) {
            if (in->nmask < 3)
                return -EINVAL;   /* output_mask[1], [2]: IndexError */
            in->affine = (int)in->mask[1], in->has_bias = (int)in->mask[2];
        } else {
            if (in->nmask < 2)
                return -EINVAL;   /* output_mask[1]: IndexError */
            in->affine = tl_item(&a->d, a->has_d, 4) != NULL, in->has_bias = 0, in->training = 0;
        }
        break;
    }
    case TL_NORM_BWD_GROUP: {
        const char *g = tl_str_at(&a->c, a->has_c, 8);
        char *end;
        long long groups = g ? strtoll(g, &end, 10) : 0;
        in->nmask = literal_list(a, 9, 1, in->mask, 8);
        if (!g || !*g || *end || groups == 0 || nx < 2 || in->nmask < 0 || !tl_item(&a->d, a->has_d, 5))
            return -EINVAL;
        in->C = (double)x[1] / (double)groups;   /* a float in TraceLens (true division) */
        break;
    }
    default:
        return -EINVAL;   /* instance norm backward: TraceLens has no model (NotImplementedError) */
    }
    return in->nmask < 1 ? -EINVAL : 0;
}

/* The call's parameters in TraceLens' order. 0 or -ENOMEM. */
static int nb_params(struct tl_call *c, enum tl_norm_bwd_kind kind, const int64_t *x, int nx, const int64_t *s,
                     int ns, const char *const dt[2], const struct nb_inputs *in)
{
    int rc;
    if ((rc = tl_p_ints(c, "op_shape", x, nx)) < 0 || (rc = tl_p_strs(c, "dtype_in_out", dt, 2)) < 0 ||
        (rc = tl_p_ints(c, "stride_input", s, ns)) < 0 || (rc = tl_param(c, "stride_output", NULL, 0)) < 0)
        return rc;
    rc = kind == TL_NORM_BWD_GROUP ? tl_p_float(c, "num_channels", in->C)
                                   : tl_p_int(c, "num_channels", (long long)in->C);
    if (rc < 0 || (rc = tl_p_bool(c, "has_bias", in->has_bias)) < 0 ||
        (rc = tl_p_bool(c, "is_affine", in->affine)) < 0 || (rc = tl_p_bool(c, "is_training", in->training)) < 0)
        return rc;
    struct tl_str m = { 0 };
    char *text;
    tl_str_add(&m, "[");
    for (int k = 0; k < in->nmask; k++)
        tl_str_add(&m, k ? (in->mask[k] ? ", True" : ", False") : (in->mask[k] ? "True" : "False"));
    tl_str_add(&m, "]");
    if ((rc = tl_str_take(&m, &text)) < 0)
        return rc;
    rc = tl_param(c, "output_mask", text, 0);
    free(text);
    return rc;
}

int tl_norm_bwd(struct tl_call *c, const struct tl_args *a, enum tl_norm_bwd_kind kind)
{
    int xi = kind == TL_NORM_BWD_BATCH_CUDNN ? 0 : 1;
    int64_t x[16], s[16];
    int nx = tl_ints(tl_item(&a->d, a->has_d, (size_t)xi), x, 16);
    int ns = tl_ints(tl_item(&a->s, a->has_s, (size_t)xi), s, 16);
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, (size_t)xi), NULL };
    struct nb_inputs in;
    int rc;
    if (nx < 0 || ns < 0 || !dt[0])
        return -EINVAL;
    if ((rc = nb_read(a, kind, x, nx, &in)) < 0 || (rc = nb_params(c, kind, x, nx, s, ns, dt, &in)) < 0)
        return rc;
    int b = tl_bpe(dt[0]);
    if (!b || in.C == 0)
        return -EINVAL;   /* None * int, or a division by zero: TraceLens raises */
    double N = tl_prod(x, nx);
    if (kind == TL_NORM_BWD_RMS) {
        rms_bwd(c, N, in.C, b, in.affine, in.mask, in.nmask);
    } else {
        c->flops = flops_bwd(in.training, N, in.C, (int)in.mask[0]);
        c->bytes = bytes_bwd(in.has_bias, in.affine, in.training, N, in.C, b, (int)in.mask[0]);
    }
    c->spec_kind = "vector";
    c->precision = tl_precision(dt[0]);
    return 0;
}
