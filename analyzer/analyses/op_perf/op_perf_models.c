/* TraceLens' per-operator performance models (TraceLens/PerfModel/perf_model.py, torch_op_mapping.py, utils.py):
 * parameters, FLOPs and bytes of one call from its recorded shapes, dtypes, strides and concrete inputs, with the
 * quirks that decide TraceLens' published numbers (docs/op-perf.md lists them). Where TraceLens raises, the call
 * gets no figures (-EINVAL). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op_perf_impl.h"

/* ---- GEMM (perf_model.py GEMM, aten_mm, aten_addmm, aten_bmm, aten_baddbmm, aten_scaled_mm) ---- */

/* TraceLens kernel_name_parser at the CSVs' version: ROCm Tensile names and nvjet names give the transpose flags;
 * 0: no parse. ta/tb: 0 False, 1 True, 2 None. */
static int gemm_transpose(const char *k, int *ta, int *tb)
{
    const char *p = strstr(k, "C");
    for (; p; p = strstr(p + 1, "C")) {   /* Tensile: C[a-z]{3}_A[a-z]{3}_B[a-z]{3} anywhere */
        int ok = 1;
        static const char pat[] = "Cxxx_Axxx_Bxxx";
        for (int i = 0; i < 14 && ok; i++)
            ok = pat[i] == 'x' ? (p[i] >= 'a' && p[i] <= 'z') : p[i] == pat[i];
        if (ok)
            break;
    }
    if (p) {
        *ta = strstr(k, "_Ailk_") ? 0 : strstr(k, "_Alik_") ? 1 : 2;
        *tb = strstr(k, "_Bljk_") ? 0 : strstr(k, "_Bjlk_") ? 1 : 2;
        return 1;
    }
    if (strncmp(k, "nvjet", 5) == 0) {
        const char *t = strrchr(k, '_');
        t = t ? t + 1 : k;
        *ta = t[0] == 'T';
        *tb = t[0] && t[1] == 'T';
        return 1;
    }
    return 0;
}

/* The transpose flags of the first kernel whose name gives them, as the parameter "transpose"; none without one. */
static int gemm_transpose_param(struct tl_call *c, const struct tl_tree *tr, const uint32_t *kernels, size_t nk)
{
    for (size_t k = 0; k < nk; k++) {
        int ta, tb;
        if (gemm_transpose(tl_name(tr, kernels[k]), &ta, &tb)) {
            char b[32];
            snprintf(b, sizeof b, "(%s, %s)", ta == 2 ? "None" : ta ? "True" : "False",
                     tb == 2 ? "None" : tb ? "True" : "False");
            return tl_param(c, "transpose", b, 0);
        }
    }
    return 0;
}

int tl_gemm(struct tl_call *c, const struct tl_args *a, enum tl_gemm_kind kind, const struct tl_tree *tr,
            const uint32_t *kernels, size_t nk)
{
    int batched = kind == TL_GEMM_BMM || kind == TL_GEMM_BADDBMM;
    size_t ia = kind == TL_GEMM_ADDMM || kind == TL_GEMM_BADDBMM ? 1 : 0, ib = ia + 1;
    int64_t A[8], B[8], sa[8], sb[8];
    int na = tl_ints(tl_item(&a->d, a->has_d, ia), A, 8), nb = tl_ints(tl_item(&a->d, a->has_d, ib), B, 8);
    int64_t M, N, K, Bd = 1;
    if (batched) {
        if (na != 3 || nb < 3)
            return -EINVAL;
        Bd = A[0], M = A[1], K = A[2], N = B[2];
    } else {
        if (na < 2 || nb < 2)
            return -EINVAL;
        M = A[0], N = B[1], K = A[1];
    }
    int bias = kind == TL_GEMM_ADDMM || kind == TL_GEMM_BADDBMM || (kind == TL_GEMM_SCALED && a->has_d && a->d.n == 3);
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, ia), tl_str_at(&a->t, a->has_t, ib) };
    if (!dt[0] || !dt[1])
        return -EINVAL;
    int rc;
    if (batched && (rc = tl_p_int(c, "B", Bd)) < 0)
        return rc;
    if ((rc = tl_p_int(c, "M", M)) < 0 || (rc = tl_p_int(c, "N", N)) < 0 || (rc = tl_p_int(c, "K", K)) < 0 ||
        (rc = tl_p_bool(c, "bias", bias)) < 0)
        return rc;
    if (a->has_s) {
        int ns1 = tl_ints(tl_item(&a->s, 1, ia), sa, 8), ns2 = tl_ints(tl_item(&a->s, 1, ib), sb, 8);
        if (ns1 < 0 || ns2 < 0)
            return -EINVAL;
        if ((rc = tl_p_ints(c, "stride_A", sa, ns1)) < 0 || (rc = tl_p_ints(c, "stride_B", sb, ns2)) < 0)
            return rc;
    } else if ((rc = tl_param(c, "stride_A", NULL, 0)) < 0 || (rc = tl_param(c, "stride_B", NULL, 0)) < 0) {
        return rc;
    }
    if ((rc = tl_p_strs(c, "dtype_A_B", dt, 2)) < 0 || (!batched && (rc = tl_p_int(c, "B", 1)) < 0) ||
        (rc = gemm_transpose_param(c, tr, kernels, nk)) < 0)
        return rc;
    double f = 2.0 * (double)M * (double)N * (double)K + (bias ? (double)M * (double)N : 0);
    c->flops = batched ? (double)Bd * f : f;
    int b = tl_bpe(dt[0]), bo = b;
    if (kind == TL_GEMM_SCALED) {
        if (!b || !tl_bpe(dt[1]))
            return -EINVAL;
        bo = b == 1 ? 2 : b == 2 || b == 4 ? b : 0;
    }
    if (!b || !bo)
        c->bytes = NAN;
    else {
        double n = (double)M * K * b + (double)K * N * b + (double)M * N * bo + (bias ? (double)N * b : 0);
        c->bytes = batched ? (double)Bd * n : n;
    }
    c->spec_kind = "matrix";
    c->precision = tl_precision(dt[0]);
    return 0;
}

/* ---- SDPA (perf_model.py SDPA and its subclasses) ---- */

static double cfloat(const char *s)
{
    if (!s || !*s || strcmp(s, "None") == 0)
        return 0.0;
    char *end;
    double d = strtod(s, &end);
    return *end ? 0.0 : d;
}

/* An attention call's shapes: batch; query heads, length, head dim; key / value heads, length; value head dim. */
struct sdpa_dims {
    int64_t B, Hq, Nq, dq, Hk, Nk, dv;
};

/* The dropout and causal flags, from the Concrete Inputs each kind's schema holds them in. 0 or -EINVAL
 * (TraceLens raises). */
static int sdpa_flags(const struct tl_args *a, enum tl_sdpa_kind kind, double *dropout, int *causal)
{
    const char *ci;
    *dropout = 0;
    *causal = 0;
    if (kind == TL_SDPA_FLASH || kind == TL_SDPA_EFFICIENT) {
        size_t at = kind == TL_SDPA_FLASH ? 3 : 5;
        if (!tl_item(&a->c, a->has_c, at + 1))
            return -EINVAL;
        *dropout = cfloat(tl_str_at(&a->c, 1, at));
        ci = tl_str_at(&a->c, 1, at + 1);
        *causal = ci && strcasecmp(ci, "true") == 0;
    } else if (kind == TL_SDPA_FA_FWD) {
        ci = tl_str_at(&a->c, a->has_c, 3);
        char *end;
        if (!ci || !*ci || (*dropout = strtod(ci, &end), *end) || tl_eval_bool(tl_str_at(&a->c, a->has_c, 5), causal))
            return -EINVAL;
    } else {
        ci = tl_str_at(&a->c, a->has_c, 8);
        *dropout = ci && *ci ? strtod(ci, NULL) : 0.0;
        ci = tl_str_at(&a->c, a->has_c, 10);
        *causal = 1;
        if (ci && *ci && tl_eval_bool(ci, causal))
            return -EINVAL;
    }
    return 0;
}

/* The call's parameters in TraceLens' order; flash_attn's (fa) with the strides of q, k, v (inputs o..o + 2).
 * 0, -EINVAL (a stride that is not a list of ints) or -ENOMEM. */
static int sdpa_params(struct tl_call *c, const struct tl_args *a, const struct sdpa_dims *d, size_t o, int fa,
                       double dropout, int causal, int flash_impl, const char *const dt[2])
{
    int rc;
    if ((rc = tl_p_int(c, "B", d->B)) < 0 || (rc = tl_p_int(c, "N_Q", d->Nq)) < 0 ||
        (rc = tl_p_int(c, "H_Q", d->Hq)) < 0 || (rc = tl_p_int(c, "N_KV", d->Nk)) < 0 ||
        (rc = tl_p_int(c, "H_KV", d->Hk)) < 0 || (rc = tl_p_int(c, "d_h_qk", d->dq)) < 0 ||
        (rc = tl_p_int(c, "d_h_v", d->dv)) < 0)
        return rc;
    for (size_t i = 0; fa && i < 3; i++) {
        int64_t s[8];
        int ns = tl_ints(tl_item(&a->s, a->has_s, o + i), s, 8);
        if (ns < 0)
            return -EINVAL;
        if ((rc = tl_p_ints(c, i == 0 ? "q_stride" : i == 1 ? "k_stride" : "v_stride", s, ns)) < 0)
            return rc;
    }
    if ((rc = tl_p_float(c, "dropout", dropout)) < 0 || (rc = tl_p_bool(c, "causal", causal)) < 0 ||
        (rc = tl_p_bool(c, "flash_impl", flash_impl)) < 0 || (rc = tl_p_strs(c, "dtype_A_B", dt, 2)) < 0)
        return rc;
    return 0;
}

/* FLOPs and bytes: SDPA.flops / bytes, or flops_bwd / bytes_bwd for the backward op and for a forward op measured
 * on its backward pass (as_bwd). 0, or -EINVAL where TraceLens divides by zero. */
static int sdpa_work(struct tl_call *c, const struct sdpa_dims *d, enum tl_sdpa_kind kind, int as_bwd, int causal,
                     const char *dtype)
{
    int64_t B = d->B, Hq = d->Hq, Nq = d->Nq, dq = d->dq, Hk = d->Hk, Nk = d->Nk, dv = d->dv;
    double Bd = (double)B, f;
    if (kind != TL_SDPA_FA_BWD && !as_bwd) {
        f = Bd * Hq * (2.0 * Nq * Nk * dq) + Bd * Hq * (2.0 * Nq * dv * Nk);
        c->bytes = (Bd * Nq * Hq * dq + Bd * Nk * Hk * dq + Bd * Nk * Hk * dv + Bd * Nq * Hq * dv) * 2;
    } else {
        if (Hk == 0)
            return -EINVAL;
        /* SDPA.flops_bwd_func: the QK^T recompute (flash implementations only), then dV (+ the GQA reduction),
         * dP, dQ, dK (+ the GQA reduction) */
        f = kind != TL_SDPA_EFFICIENT ? Bd * Hq * (2.0 * Nq * Nk * dq) : 0;
        f += Bd * Hq * (2.0 * Nk * Nq * dv) + Bd * Nk * dv * (double)(Hq / Hk - 1);
        f += Bd * Hq * (2.0 * Nq * Nk * dv);
        f += Bd * Hq * (2.0 * Nq * Nk * dq);
        f += Bd * Hq * (2.0 * Nk * Nq * dq) + Bd * Nk * dq * (double)(Hq / Hk - 1);
        int b = as_bwd ? 2 : tl_bpe(dtype);   /* a forward op's bytes_bwd(): bytes_per_element=2 */
        c->bytes = b ? (Bd * Nq * Hq * dq + Bd * Nk * Hk * dq + Bd * Nk * Hk * dv + Bd * Nq * Hq * dv +
                        Bd * Nq * Hq * dq + Bd * Nk * Hk * dq + Bd * Nk * Hk * dv) * b : NAN;
    }
    c->flops = causal ? f / 2 : f;
    return 0;
}

int tl_sdpa(struct tl_call *c, const struct tl_args *a, enum tl_sdpa_kind kind, int as_bwd)
{
    size_t o = kind == TL_SDPA_FA_BWD ? 1 : 0;
    int64_t q[8], k[8], v[8];
    if (tl_ints(tl_item(&a->d, a->has_d, o), q, 8) < 4 || tl_ints(tl_item(&a->d, a->has_d, o + 1), k, 8) < 4 ||
        tl_ints(tl_item(&a->d, a->has_d, o + 2), v, 8) < 4)
        return -EINVAL;
    int fa = kind == TL_SDPA_FA_FWD || kind == TL_SDPA_FA_BWD;   /* flash_attn lays q, k, v out (B, N, H, d) */
    int ih = fa ? 2 : 1, in = fa ? 1 : 2;
    struct sdpa_dims d = { .B = q[0], .Hq = q[ih], .Nq = q[in], .dq = q[3], .Hk = k[ih], .Nk = k[in], .dv = v[3] };
    if (d.B != k[0] || d.B != v[0] || d.Hk != v[ih] || d.Nk != v[in] || d.dq != k[3])
        return -EINVAL;
    double dropout;
    int causal, rc;
    if ((rc = sdpa_flags(a, kind, &dropout, &causal)) < 0)
        return rc;
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, 0), tl_str_at(&a->t, a->has_t, 1) };
    if (!dt[0] || !dt[1])
        return -EINVAL;
    if ((rc = sdpa_params(c, a, &d, o, fa, dropout, causal, kind != TL_SDPA_EFFICIENT, dt)) < 0)
        return rc;
    if (causal && d.Nq != d.Nk)
        return -EINVAL;
    if ((rc = sdpa_work(c, &d, kind, as_bwd, causal, dt[0])) < 0)
        return rc;
    c->spec_kind = "matrix";
    c->precision = tl_precision(dt[0]);
    return 0;
}

/* ---- convolution (perf_model.py CONV, aten_conv, aten_conv_bwd) ---- */
/* "[16, 16]" -> (16, 16); "" -> n copies of dflt; a 1-tuple is repeated to n. -1: not a tuple of ints. */
static int conv_tuple(const char *s, int64_t dflt, int n, int64_t *out)
{
    if (!s)
        return -1;
    if (!*s) {
        for (int k = 0; k < n; k++)
            out[k] = dflt;
        return 0;
    }
    size_t len = strlen(s);
    if (len < 2)
        return -1;
    int m = 0;
    const char *p = s + 1;
    while (p < s + len - 1 && m < 8) {
        char *end;
        out[m++] = strtoll(p, &end, 10);
        if (end == p)
            return -1;
        while (*end == ' ')
            end++;
        if (*end != ',' && end != s + len - 1)
            return -1;
        p = end + 1;
    }
    if (m == 1)
        for (int k = 1; k < n; k++)
            out[k] = out[0];
    else if (m != n)
        return m < n ? -1 : 0;
    return 0;
}

static void conv_out(const int64_t *x, const int64_t *w, int nx, const int64_t *st, const int64_t *pad,
                     const int64_t *dil, const int64_t *opad, int tr, int64_t *out)
{
    out[0] = x[0];
    out[1] = tr ? w[1] : w[0];
    for (int i = 0; i < nx - 2; i++) {
        if (!tr)
            out[2 + i] = (int64_t)((double)(x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) / (double)st[i] + 1);
        else
            out[2 + i] = (x[2 + i] - 1) * st[i] - 2 * pad[i] + dil[i] * (w[2 + i] - 1) + opad[i] + 1;
    }
}

/* CONV._flops(x, w, out, bias, transposed) */
static double conv_flops(const int64_t *x, const int64_t *w, const int64_t *out, int n, int bias, int tr)
{
    double per = 2 * tl_prod(w + 1, n - 1);
    return (tr ? tl_prod(x, n) : tl_prod(out, n)) * per + (bias ? tl_prod(out, n) : 0);
}

static void swap01(const int64_t *a, int64_t *b, int n)
{
    memcpy(b, a, (size_t)n * sizeof *b);
    b[0] = a[1], b[1] = a[0];
}

int tl_conv(struct tl_call *c, const struct tl_args *a, int bwd, int as_bwd)
{
    size_t o = bwd ? 1 : 0;
    int64_t x[8], w[8], out[8], st[8], pad[8], dil[8], opad[8], xs[8], ws[8];
    int nx = tl_ints(tl_item(&a->d, a->has_d, o), x, 8), nw = tl_ints(tl_item(&a->d, a->has_d, o + 1), w, 8);
    if (nx < 0 || nw < 0 || !a->has_c)
        return -EINVAL;
    int nd = nx - 2, bias = bwd ? a->d.n > 3 && a->d.items[3].kind == TL_PV_LIST && a->d.items[3].n > 0
                                : a->d.n == 3;
    size_t ci = 3 + o;
    int tr;
    if (nd < 0 || conv_tuple(tl_str_at(&a->c, 1, ci), 1, nd, st) || conv_tuple(tl_str_at(&a->c, 1, ci + 1), 0, nd, pad) ||
        conv_tuple(tl_str_at(&a->c, 1, ci + 2), 1, nd, dil) || tl_eval_bool(tl_str_at(&a->c, 1, ci + 3), &tr) ||
        conv_tuple(tl_str_at(&a->c, 1, ci + 4), 0, nd, opad) || !tl_str_at(&a->c, 1, ci + 5))
        return -EINVAL;
    char *end;
    const char *gs = tl_str_at(&a->c, 1, ci + 5);
    long long groups = strtoll(gs, &end, 10);
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, o), tl_str_at(&a->t, a->has_t, o + 1) };
    if (end == gs || *end || !dt[0] || !dt[1] || strcmp(dt[0], dt[1]) != 0 || nx < 3 || nx > 5 || nw != nx)
        return -EINVAL;
    for (int i = 0; i < nd; i++)
        if (st[i] == 0)
            return -EINVAL;
    char convnd[8];
    snprintf(convnd, sizeof convnd, "conv%dd", nd);
    int rc;
    if ((rc = tl_param(c, "convNd", convnd, 1)) < 0 || (rc = tl_p_ints(c, "input_shape", x, nx)) < 0 ||
        (rc = tl_p_ints(c, "filter_shape", w, nw)) < 0 || (rc = tl_p_strs(c, "dtype_input_weight", dt, 2)) < 0)
        return rc;
    if (a->has_s) {
        int n1 = tl_ints(tl_item(&a->s, 1, o), xs, 8), n2 = tl_ints(tl_item(&a->s, 1, o + 1), ws, 8);
        if (n1 < 0 || n2 < 0)
            return -EINVAL;
        if ((rc = tl_p_ints(c, "input_stride", xs, n1)) < 0 || (rc = tl_p_ints(c, "weight_stride", ws, n2)) < 0)
            return rc;
    } else if ((rc = tl_param(c, "input_stride", NULL, 0)) < 0 || (rc = tl_param(c, "weight_stride", NULL, 0)) < 0) {
        return rc;
    }
    if ((rc = tl_p_bool(c, "bias", bias)) < 0 || (rc = tl_p_ints(c, "stride", st, nd)) < 0 ||
        (rc = tl_p_ints(c, "padding", pad, nd)) < 0 || (rc = tl_p_ints(c, "dilation", dil, nd)) < 0 ||
        (rc = tl_p_bool(c, "transposed_conv", tr)) < 0 || (rc = tl_p_ints(c, "output_padding", opad, nd)) < 0 ||
        (rc = tl_p_int(c, "groups", groups)) < 0)
        return rc;
    conv_out(x, w, nx, st, pad, dil, opad, tr, out);
    int b = tl_bpe(dt[0]);
    if (!bwd && !as_bwd) {
        c->flops = conv_flops(x, w, out, nx, bias, tr);
        c->bytes = b ? (tl_prod(x, nx) + tl_prod(w, nx) + (bias ? (double)out[1] : 0) + tl_prod(out, nx)) * b : NAN;
    } else {
        int64_t tx[8], tw[8], to[8];
        swap01(x, tx, nx), swap01(w, tw, nx), swap01(out, to, nx);
        double f = conv_flops(out, w, x, nx, 0, !tr);
        f += tr ? conv_flops(to, tx, tw, nx, 0, 0) : conv_flops(tx, to, tw, nx, 0, 0);
        c->flops = f + (bias ? tl_prod(out, nx) : 0);
        c->bytes = b ? 2 * (tl_prod(out, nx) + tl_prod(w, nx) + tl_prod(x, nx)) * b + (bias ? tl_prod(out, nx) + out[1] : 0)
                     : NAN;
    }
    c->spec_kind = "matrix";
    c->precision = tl_precision(dt[0]);
    return 0;
}

/* ---- elementwise (perf_model.py UnaryElementwise, BinaryElementwise) ---- */
int tl_unary(struct tl_call *c, const struct tl_args *a)
{
    int64_t x[16], s0[16], s1[16];
    int nx = tl_ints(tl_item(&a->d, a->has_d, 0), x, 16);
    const struct tl_pv *d1 = tl_item(&a->d, a->has_d, 1);
    int has_out = d1 && d1->kind == TL_PV_LIST && d1->n > 0;
    const char *dt[2] = { tl_str_at(&a->t, a->has_t, 0), has_out ? tl_str_at(&a->t, a->has_t, 1) : NULL };
    int ns0 = tl_ints(tl_item(&a->s, a->has_s, 0), s0, 16), ns1 = has_out ? tl_ints(tl_item(&a->s, a->has_s, 1), s1, 16) : -1;
    if (nx < 0 || !dt[0] || (has_out && !dt[1]) || ns0 < 0 || (has_out && ns1 < 0))
        return -EINVAL;
    int rc;
    if ((rc = tl_p_ints(c, "op_shape", x, nx)) < 0 || (rc = tl_p_strs(c, "dtype_in_out", dt, 2)) < 0 ||
        (rc = tl_p_ints(c, "stride_input", s0, ns0)) < 0 ||
        (rc = tl_p_ints(c, "stride_output", s1, has_out ? ns1 : -1)) < 0)
        return rc;
    double n = tl_prod(x, nx);
    int bi = tl_bpe(dt[0]), bo = dt[1] ? tl_bpe(dt[1]) : bi;
    c->flops = n;
    c->bytes = bi && bo ? n * bi + n * bo : NAN;
    c->spec_kind = "vector";
    c->precision = tl_precision(dt[0]);
    return 0;
}

int tl_binary(struct tl_call *c, const struct tl_args *a)
{
    int64_t x1[16], x2[16], s[3][16];
    int n1 = tl_ints(tl_item(&a->d, a->has_d, 0), x1, 16), n2 = tl_ints(tl_item(&a->d, a->has_d, 1), x2, 16);
    const struct tl_pv *d2 = tl_item(&a->d, a->has_d, 2);
    int has_out = d2 && d2->kind == TL_PV_LIST && d2->n > 0;
    const char *dt[3] = { tl_str_at(&a->t, a->has_t, 0), tl_str_at(&a->t, a->has_t, 1),
                          has_out ? tl_str_at(&a->t, a->has_t, 2) : NULL };
    int ns[3];
    for (int i = 0; i < 3; i++)
        ns[i] = i < 2 || has_out ? tl_ints(tl_item(&a->s, a->has_s, (size_t)i), s[i], 16) : -1;
    if (n1 < 0 || n2 < 0 || !dt[0] || !dt[1] || (has_out && !dt[2]) || ns[0] < 0 || ns[1] < 0 ||
        (has_out && ns[2] < 0))
        return -EINVAL;
    int nd = n1 > n2 ? n1 : n2;
    double nout = 1;
    for (int i = 0; i < nd; i++) {   /* broadcast, right-aligned */
        int64_t p = i < nd - n1 ? 1 : x1[i - (nd - n1)], q = i < nd - n2 ? 1 : x2[i - (nd - n2)];
        if (p != q && p != 1 && q != 1)
            return -EINVAL;
        nout *= (double)(p > q ? p : q);
    }
    int rc;
    if ((rc = tl_p_ints(c, "shape_in1", x1, n1)) < 0 || (rc = tl_p_ints(c, "shape_in2", x2, n2)) < 0 ||
        (rc = tl_p_strs(c, "dtype_in1_in2_out", dt, 3)) < 0 || (rc = tl_p_ints(c, "stride_input1", s[0], ns[0])) < 0 ||
        (rc = tl_p_ints(c, "stride_input2", s[1], ns[1])) < 0 ||
        (rc = tl_p_ints(c, "stride_output", s[2], has_out ? ns[2] : -1)) < 0)
        return rc;
    int b1 = tl_bpe(dt[0]), b2 = tl_bpe(dt[1]), bo;
    if (dt[2])
        bo = tl_bpe(dt[2]);
    else if (b1 && b2)
        bo = n1 > 0 && n2 > 0 ? (b1 > b2 ? b1 : b2) : b1;
    else
        bo = 0;
    c->flops = nout;
    c->bytes = b1 && b2 && bo ? tl_prod(x1, n1) * b1 + tl_prod(x2, n2) * b2 + nout * bo : NAN;
    c->spec_kind = "vector";
    c->precision = tl_precision(dt[0]);
    return 0;
}

