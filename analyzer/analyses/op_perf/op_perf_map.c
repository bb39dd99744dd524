/* TraceLens' op map (TraceLens/PerfModel/torch_op_mapping.py at the published CSVs' version), the normalisation
 * and reduction models (perf_model.py Normalization, Reduce), the model of one call with its figures
 * (tree_perf.py compute_perf_metrics) and the op category (categorize_torch_op). docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op_perf_impl.h"

/* ---- normalisation (perf_model.py Normalization, LayerNorm, BatchNorm, GroupNorm, InstanceNorm, RMSNorm) ---- */
enum norm_kind { N_LAYER, N_BATCH, N_GROUP, N_INSTANCE, N_RMS };

/* ast.literal_eval of a Concrete Inputs list of ints, multiplied; -1 when it is none. */
static double int_list_prod(const char *s)
{
    struct tl_pv v = { 0 };   /* finished below even when s is NULL */
    if (!s || tl_pv_parse(&s, &v, 0) < 0 || v.kind != TL_PV_LIST) {
        tl_pv_fini(&v);
        return -1;
    }
    int64_t x[16];
    int n = tl_ints(&v, x, 16);
    tl_pv_fini(&v);
    return n < 0 ? -1 : tl_prod(x, n);
}

static int norm(struct tl_call *c, const struct tl_args *a, enum norm_kind kind)
{
    int64_t x[16], s[16];
    int nx = tl_ints(tl_item(&a->d, a->has_d, 0), x, 16), ns = tl_ints(tl_item(&a->s, a->has_s, 0), s, 16);
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, 0), NULL };
    if (nx < 0 || ns < 0 || !dt[0])
        return -EINVAL;
    double C;
    int has_bias = kind != N_RMS, training = kind == N_LAYER || kind == N_GROUP;
    if (kind == N_LAYER || kind == N_RMS)
        C = int_list_prod(tl_str_at(&a->c, a->has_c, 1));
    else {
        if (nx < 2)
            return -EINVAL;
        C = (double)x[1];
    }
    /* "X is not None" on Kineto's lists: an absent tensor is [], so the flag is set whenever the input exists */
    if (C < 0 || !tl_item(&a->d, a->has_d, 2) || (kind == N_LAYER && !tl_item(&a->d, a->has_d, 3)))
        return -EINVAL;
    if (kind == N_BATCH || kind == N_INSTANCE) {
        const char *t = tl_str_at(&a->c, a->has_c, 5);
        if (!t)
            return -EINVAL;
        training = *t != 0;   /* bool(str): "False" is True */
    }
    int rc;
    if ((rc = tl_p_ints(c, "op_shape", x, nx)) < 0 || (rc = tl_p_strs(c, "dtype_in_out", dt, 2)) < 0 ||
        (rc = tl_p_ints(c, "stride_input", s, ns)) < 0 || (rc = tl_param(c, "stride_output", NULL, 0)) < 0 ||
        (rc = tl_p_int(c, "num_channels", (long long)C)) < 0 || (rc = tl_p_bool(c, "has_bias", has_bias)) < 0 ||
        (rc = tl_p_bool(c, "is_affine", 1)) < 0 || (rc = tl_p_bool(c, "is_training", training)) < 0)
        return rc;
    int b = tl_bpe(dt[0]);
    if (!b)
        return -EINVAL;   /* TypeError on None * int: dropped */
    double N = tl_prod(x, nx);
    if (kind == N_RMS) {
        if (C == 0)
            return -EINVAL;
        c->flops = (N / C) * (2 * C + 2) + N * 2;
        c->bytes = N * b + N * b + C * b;
    } else {
        c->flops = C * 3 + (training ? N * 3 : 0) + C * 3 + 2 * N;
        int nw = 2 + 1 + (has_bias ? 1 : 0) + (training ? 2 : 0);
        c->bytes = N * b + N * b + nw * C * b;
    }
    c->spec_kind = "vector";
    c->precision = tl_precision(dt[0]);
    return 0;
}

/* ---- reductions (perf_model.py Reduce, aten_reduce) ---- */
static int reduce(struct tl_call *c, const struct tl_args *a)
{
    int64_t x[16];
    int rc;
    const struct tl_pv *d0 = tl_item(&a->d, a->has_d, 0);
    if (!d0) {
        if ((rc = tl_p_int(c, "num_input_elems", 0)) < 0 || (rc = tl_p_int(c, "num_output_elems", 0)) < 0 ||
            (rc = tl_p_strs(c, "dtype_in_out", (const char *const[]){ NULL, NULL }, 2)) < 0)
            return rc;
        c->flops = 0;
        c->bytes = NAN;
        c->spec_kind = "vector";
        c->precision = "";
        return 0;
    }
    int nx = tl_ints(d0, x, 16);
    if (nx < 0)
        return -EINVAL;
    double nin = tl_prod(x, nx);
    /* Concrete Inputs are strings in Kineto traces: TraceLens' dim / keepdim match never hits, one output element */
    double nout = strstr(a->name, "cumsum") || strstr(a->name, "cumprod") ? nin : 1;
    const char *rt = "sum", *kinds[] = { "mean", "max", "min", "norm" };
    for (int k = 3; k >= 0; k--)
        if (strstr(a->name, kinds[k]))
            rt = kinds[k];
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, 0), NULL };
    if ((rc = tl_p_int(c, "num_input_elems", (long long)nin)) < 0 ||
        (rc = tl_p_int(c, "num_output_elems", (long long)nout)) < 0 || (rc = tl_p_strs(c, "dtype_in_out", dt, 2)) < 0 ||
        (rc = tl_param(c, "reduce_type", rt, 1)) < 0)
        return rc;
    int b = dt[0] && *dt[0] ? tl_bpe(dt[0]) : 0;
    c->flops = nin;
    c->bytes = b ? nin * b + nout * b : NAN;
    c->spec_kind = "vector";
    c->precision = tl_precision(dt[0]);
    return 0;
}

/* ---- the op map (torch_op_mapping.py op_to_perf_model_class_map at the CSVs' version) ---- */
enum model { M_GEMM, M_SDPA, M_CONV, M_CONV_BWD, M_UNARY, M_BINARY, M_NORM, M_REDUCE, M_NORM_BWD };
static const struct op_map { const char *name; int family; enum model model; int sub; } ops[] = {
    { "aten::mm", PS_OPF_GEMM, M_GEMM, TL_GEMM_MM }, { "aten::addmm", PS_OPF_GEMM, M_GEMM, TL_GEMM_ADDMM },
    { "aten::_scaled_mm", PS_OPF_GEMM, M_GEMM, TL_GEMM_SCALED }, { "aten::bmm", PS_OPF_GEMM, M_GEMM, TL_GEMM_BMM },
    { "aten::baddbmm", PS_OPF_GEMM, M_GEMM, TL_GEMM_BADDBMM },
    { "FlashAttnFunc", PS_OPF_SDPA_FWD, M_SDPA, TL_SDPA_FA_FWD },
    { "flash_attn::_flash_attn_forward", PS_OPF_SDPA_FWD, M_SDPA, TL_SDPA_FA_FWD },
    { "flash_attn::_flash_attn_backward", PS_OPF_SDPA_BWD, M_SDPA, TL_SDPA_FA_BWD },
    { "aten::_scaled_dot_product_cudnn_attention", PS_OPF_SDPA_FWD, M_SDPA, TL_SDPA_EFFICIENT },
    { "aten::_scaled_dot_product_efficient_attention", PS_OPF_SDPA_FWD, M_SDPA, TL_SDPA_EFFICIENT },
    { "aten::_scaled_dot_product_flash_attention", PS_OPF_SDPA_FWD, M_SDPA, TL_SDPA_FLASH },
    { "aten::convolution", PS_OPF_CONV_FWD, M_CONV, 0 },
    { "aten::convolution_backward", PS_OPF_CONV_BWD, M_CONV_BWD, 0 },
    { "aten::copy", PS_OPF_UNARY, M_UNARY, 0 }, { "aten::copy_", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::clamp_min", PS_OPF_UNARY, M_UNARY, 0 }, { "aten::clamp_min_", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::clamp_max", PS_OPF_UNARY, M_UNARY, 0 }, { "aten::clamp_max_", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::sigmoid", PS_OPF_UNARY, M_UNARY, 0 }, { "aten::rsqrt", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::silu", PS_OPF_UNARY, M_UNARY, 0 }, { "aten::neg", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::pow", PS_OPF_UNARY, M_UNARY, 0 },
    { "aten::div", PS_OPF_BINARY, M_BINARY, 0 }, { "aten::div_", PS_OPF_BINARY, M_BINARY, 0 },
    { "aten::mul", PS_OPF_BINARY, M_BINARY, 0 }, { "aten::mul_", PS_OPF_BINARY, M_BINARY, 0 },
    { "aten::add", PS_OPF_BINARY, M_BINARY, 0 }, { "aten::add_", PS_OPF_BINARY, M_BINARY, 0 },
    { "aten::sigmoid_backward", PS_OPF_BINARY, M_BINARY, 0 },
    { "aten::threshold_backward", PS_OPF_BINARY, M_BINARY, 0 },
    { "aten::_fused_rms_norm", PS_OPF_NORM, M_NORM, N_RMS },
};
static const char *const reduce_names[] = { "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm",
    "aten::linalg_norm", "aten::std", "aten::var", "aten::logsumexp", "aten::cumsum", "aten::cumprod", "aten::amin",
    "aten::amax" };

/* aten::{,native_,miopen_,cudnn_}{batch,layer,group,instance}_norm -> its kind, else -1. */
static int norm_name(const char *name)
{
    static const char *const pre[] = { "aten::", "aten::native_", "aten::miopen_", "aten::cudnn_" };
    static const char *const suf[] = { "layer_norm", "batch_norm", "group_norm", "instance_norm" };
    for (int p = 0; p < 4; p++) {
        size_t n = strlen(pre[p]);
        if (strncmp(name, pre[p], n) == 0)
            for (int s = 0; s < 4; s++)
                if (strcmp(name + n, suf[s]) == 0)
                    return s;   /* N_LAYER, N_BATCH, N_GROUP, N_INSTANCE in suf's order */
    }
    return -1;
}

/* The backward normalisation ops (torch_op_mapping.py norm_ops): aten::{,native_,miopen_,cudnn_}{batch,layer,
 * group,instance,rms}_norm_backward and aten::_fused_rms_norm_backward -> enum tl_norm_bwd_kind, else -1. */
static int norm_bwd_name(const char *name)
{
    static const char *const pre[] = { "aten::", "aten::native_", "aten::miopen_", "aten::cudnn_" };
    static const char *const suf[] = { "batch_norm_backward", "layer_norm_backward", "group_norm_backward",
                                       "instance_norm_backward", "rms_norm_backward" };
    static const int kind[] = { TL_NORM_BWD_BATCH, TL_NORM_BWD_LAYER, TL_NORM_BWD_GROUP, TL_NORM_BWD_INSTANCE,
                                TL_NORM_BWD_RMS };
    if (strcmp(name, "aten::_fused_rms_norm_backward") == 0)
        return TL_NORM_BWD_RMS;
    for (int p = 0; p < 4; p++) {
        size_t n = strlen(pre[p]);
        if (strncmp(name, pre[p], n) == 0)
            for (int s = 0; s < 5; s++)
                if (strcmp(name + n, suf[s]) == 0)   /* cuDNN / MIOpen batch norm backward: other inputs */
                    return s == 0 && p >= 2 ? TL_NORM_BWD_BATCH_CUDNN : kind[s];
    }
    return -1;
}

static int lookup(const char *name, enum model *m, int *sub)
{
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(name, ops[k].name) == 0)
            return *m = ops[k].model, *sub = ops[k].sub, ops[k].family;
    for (size_t k = 0; k < sizeof reduce_names / sizeof reduce_names[0]; k++)
        if (strcmp(name, reduce_names[k]) == 0)
            return *m = M_REDUCE, *sub = 0, PS_OPF_REDUCE;
    int nk = norm_name(name);
    if (nk >= 0)
        return *m = M_NORM, *sub = nk, PS_OPF_NORM;
    nk = norm_bwd_name(name);
    if (nk >= 0)
        return *m = M_NORM_BWD, *sub = nk, PS_OPF_NORM;
    return -1;
}

int tl_family(const char *name, int *family)
{
    enum model m;
    int sub, f = lookup(name, &m, &sub);
    if (f < 0)
        return 0;
    *family = f;
    return 1;
}

static const char *family_category(int f)
{
    static const char *const c[] = { "GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd", "elementwise",
                                     "elementwise", "NORM_fwd", "reduce" };
    return f >= 0 && f < PS_OPF_COUNT ? c[f] : "other";
}

const char *tl_op_category(const char *name, int family)
{
    return family == PS_OPF_NORM && norm_bwd_name(name) >= 0 ? "NORM_bwd" : family_category(family);
}

const char *tl_family_sheet(int f)
{
    static const char *const s[] = { "GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd", "UnaryElementwise",
                                     "BinaryElementwise", "Normalization", "Reduce_fwd" };
    return f >= 0 && f < PS_OPF_COUNT ? s[f] : "";
}

static int call_eval(const struct tl_tree *tr, uint32_t i, const uint32_t *kernels, size_t nk, struct tl_call *c,
                     int as_bwd, int *modeled)
{
    const struct ps_op_event *e = &tr->t->ev.v[i];
    memset(c, 0, sizeof *c);
    *modeled = 0;
    enum model m;
    int sub, rc;
    struct tl_args a = { .name = tl_name(tr, i) };
    if (lookup(a.name, &m, &sub) < 0 || e->args == PS_NONE || (as_bwd && m != M_SDPA && m != M_CONV))
        return 0;
    const struct ps_op_args *oa = &tr->t->args.v[e->args];
    rc = tl_parse_arg(tr->t, oa->dims, &a.d, &a.has_d);
    if (!rc)
        rc = tl_parse_arg(tr->t, oa->types, &a.t, &a.has_t);
    if (!rc)
        rc = tl_parse_arg(tr->t, oa->strides, &a.s, &a.has_s);
    if (!rc)
        rc = tl_parse_arg(tr->t, oa->concrete, &a.c, &a.has_c);
    if (!rc) {
        switch (m) {
        case M_GEMM: rc = tl_gemm(c, &a, (enum tl_gemm_kind)sub, tr, kernels, nk); break;
        case M_SDPA: rc = tl_sdpa(c, &a, (enum tl_sdpa_kind)sub, as_bwd); break;
        case M_CONV: rc = tl_conv(c, &a, 0, as_bwd); break;
        case M_CONV_BWD: rc = tl_conv(c, &a, 1, 0); break;
        case M_UNARY: rc = tl_unary(c, &a); break;
        case M_BINARY: rc = tl_binary(c, &a); break;
        case M_NORM: rc = norm(c, &a, (enum norm_kind)sub); break;
        case M_REDUCE: rc = reduce(c, &a); break;
        case M_NORM_BWD: rc = tl_norm_bwd(c, &a, (enum tl_norm_bwd_kind)sub); break;
        }
    }
    tl_pv_fini(&a.d), tl_pv_fini(&a.t), tl_pv_fini(&a.s), tl_pv_fini(&a.c);
    if (rc < 0) {
        tl_call_fini(c);
        return rc == -EINVAL ? 0 : rc;   /* -EINVAL: the inputs do not fit the model (TraceLens raises) */
    }
    *modeled = 1;
    return 0;
}

int tl_call_eval(const struct tl_tree *tr, uint32_t i, const uint32_t *kernels, size_t nk, struct tl_call *c,
                 int *modeled)
{
    return call_eval(tr, i, kernels, nk, c, 0, modeled);
}

int tl_call_eval_bwd(const struct tl_tree *tr, uint32_t i, struct tl_call *c, int *modeled)
{
    return call_eval(tr, i, NULL, 0, c, 1, modeled);
}

/* Per-call figures (tree_perf.py compute_perf_metrics). */
void tl_metrics(const struct tl_call *c, double t_us, struct tl_metrics *m)
{
    m->gflops = c->flops / 1e9;
    m->kt = t_us;
    m->tflops = t_us > 0 ? (m->gflops / 1e3) / (t_us / 1e6) : NAN;
    m->mb = c->bytes / (1024.0 * 1024.0);
    m->fpb = c->bytes > 0 ? (m->gflops * 1e9) / c->bytes : NAN;
    m->tbs = t_us > 0 ? (c->bytes / 1e12) / (t_us / 1e6) : NAN;
    if (*c->precision)
        snprintf(m->spec, sizeof m->spec, "%s_%s", c->spec_kind, c->precision);
    else
        m->spec[0] = 0;
}

const char *tl_categorize(const char *name, const char *first_kernel)
{
    static const struct { const char *n, *c; } only[] = {
        { "aten::miopen_convolution", "CONV_fwd" }, { "aten::cudnn_convolution", "CONV_fwd" },
        { "aten::_scaled_dot_product_cudnn_attention_backward", "SDPA_bwd" },
        { "aten::_scaled_dot_product_efficient_attention_backward", "SDPA_bwd" },
        { "aten::_scaled_dot_product_flash_attention_backward", "SDPA_bwd" },
        { "FlashAttnFuncBackward", "SDPA_bwd" } };
    int f;
    if (tl_family(name, &f))
        return tl_op_category(name, f);
    for (size_t k = 0; k < sizeof only / sizeof only[0]; k++)
        if (strcmp(name, only[k].n) == 0)
            return only[k].c;
    if (strncmp(name, "triton", 6) == 0)
        return "triton";
    if (strncmp(name, "record_param_comms", 18) == 0)
        return "record_param_comms";
    if (first_kernel && strncmp(first_kernel, "void at::native", 15) == 0) {
        if (strstr(first_kernel, "elementwise"))
            return "elementwise";
        if (strstr(first_kernel, "reduce"))
            return "reduce";
        if (strstr(first_kernel, "multi_tensor_apply"))
            return "multi_tensor_apply";
    }
    return "other";
}
