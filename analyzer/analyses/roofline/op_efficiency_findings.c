/* Findings of the "Operator efficiency" section (docs/op-perf-roofline.md "Findings"), each sized by time as the
 * report's other findings (docs/report.md "Findings"): matrix ops far below the roofline (with the shapes that
 * explain it), fp32 matrix math on a GPU with a faster matrix precision, memory-bound elementwise ops worth fusing,
 * attention computed without a fused kernel; and the kernel-bound verdict's fix naming the ops to speed up, with
 * their parameters shortened as the renderers show them (ps_op_params_short). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/roofline.h"
#include "roofline_impl.h"

#define BELOW_PCT 50.0             /* a matrix op under this % of its roofline is far below it */

static double ms(double ns)
{
    return ns / 1e6;
}

/* Append a finding with the report's rules (findings.c add_finding): cost capped at the window, severity by the
 * cost's share of it. NULL when the report holds PS_MAX_FINDINGS already. */
static struct ps_finding *add(struct ps_report *r, const char *rule, double cost_ns, double gain_ns)
{
    if (r->nfindings == PS_MAX_FINDINGS)
        return NULL;
    int64_t window = r->window_end_ns - r->window_start_ns;
    struct ps_finding *f = &r->findings[r->nfindings++];
    *f = (struct ps_finding){ .rule = rule };
    f->cost_ns = (int64_t)llround(cost_ns) < window ? (int64_t)llround(cost_ns) : window;
    f->share = window > 0 ? (double)f->cost_ns / (double)window : NAN;
    f->gain_ns = (int64_t)llround(gain_ns) < f->cost_ns ? (int64_t)llround(gain_ns) : f->cost_ns;
    f->severity = window > 0 && f->share >= r->opts.info_share ? "warning" : "info";
    return f;
}

static void cost_text(const struct ps_finding *f, char *buf, size_t cap)
{
    if (isnan(f->share))
        snprintf(buf, cap, "%.3f ms (empty analysed window)", ms((double)f->cost_ns));
    else
        snprintf(buf, cap, "%.3f ms, %.1f %% of the analysed window", ms((double)f->cost_ns), 100.0 * f->share);
}

const char *ps_op_params_short(const char *params, char *buf, size_t cap)
{
    size_t n = strlen(params), len = 0;
    if (!cap)
        return buf;
    if (n < 2 || params[0] != '{' || params[n - 1] != '}') {
        snprintf(buf, cap, "%s", params);
        return buf;
    }
    size_t i = 1;
    while (i < n - 1) {   /* one "'key': value" entry per turn, split at commas outside brackets */
        size_t j = i;
        for (int depth = 0; j < n - 1 && (depth > 0 || params[j] != ','); j++)
            depth += strchr("([{", params[j]) ? 1 : strchr(")]}", params[j]) ? -1 : 0;
        const char *e = params + i;
        int skip = !strncmp(e, "'stride", 7) || !strncmp(e, "'dtype", 6);
        if (!skip && len + 1 < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%.*s", len ? ", " : "{", (int)(j - i), e);
        i = j + 1;
        while (i < n - 1 && params[i] == ' ')
            i++;
    }
    if (len + 1 < cap)
        snprintf(buf + len, cap - len, "%s}", len ? "" : "{");
    return buf;
}

/* A GEMM dimension from the operator model's parameters ("{'M': 141, 'N': 512, ...}"); -1 when absent. */
static long long dim(const char *params, const char *key)
{
    char pat[8];
    snprintf(pat, sizeof pat, "'%s': ", key);
    const char *p = params ? strstr(params, pat) : NULL;
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Why a GEMM row may run below its roofline, from its shape: "M=5185 not a multiple of 8" (Tensor Cores work on
 * tiles of 8 / 16 elements: cuBLAS pads or falls back otherwise), "tiny batched GEMMs (B=16, 64x64x64)". */
static void shape_hint(const struct ps_roof_row *w, char *out, size_t cap)
{
    out[0] = '\0';
    long long B = dim(w->g.params, "B"), M = dim(w->g.params, "M"), N = dim(w->g.params, "N"),
              K = dim(w->g.params, "K");
    if (M < 0 || N < 0 || K < 0)
        return;
    int align = w->g.prec == PS_PREC_FP8 || w->g.prec == PS_PREC_INT8 ? 16 : 8;
    const char *names[3] = { "M", "N", "K" };
    long long v[3] = { M, N, K };
    size_t len = 0;
    for (int i = 0; i < 3 && len < cap; i++)
        if (v[i] % align)
            len += (size_t)snprintf(out + len, cap - len, "%s%s=%lld", len ? ", " : "", names[i], v[i]);
    if (len && len < cap)
        len += (size_t)snprintf(out + len, cap - len, " not a multiple of %d", align);
    if (B > 1 && M * N * K <= 128LL * 128 * 128 && len < cap)
        snprintf(out + len, cap - len, "%stiny batched GEMMs (B=%lld, %lldx%lldx%lld)", len ? "; " : "", B, M, N, K);
}

static void below_roofline(struct ps_report *r, const struct ps_op_efficiency *e)
{
    double cost = 0;
    size_t n = 0;
    char list[300] = "", hint[96], c[96], sp[160];
    size_t len = 0;
    for (size_t i = 0; i < e->roof.nrows; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        if (!w->g.matrix || !(w->pct_of_roofline < BELOW_PCT) || !(w->recoverable_ns > 0))
            continue;
        cost += w->recoverable_ns;
        if (n++ >= 3)
            continue;
        char one[sizeof list];
        shape_hint(w, hint, sizeof hint);
        int k = snprintf(one, sizeof one, "%s%s %s (%lld call%s at %.0f %%%s%s)", len ? "; " : "", w->g.name,
                         ps_op_params_short(w->g.params, sp, sizeof sp), (long long)w->calls,
                         w->calls == 1 ? "" : "s", w->pct_of_roofline,
                         hint[0] ? ": " : "", hint);
        if (k > 0 && len + (size_t)k < sizeof list)   /* whole entries only */
            len += (size_t)snprintf(list + len, sizeof list - len, "%s", one);
    }
    struct ps_finding *f = n ? add(r, "op_below_roofline", cost, cost) : NULL;
    if (!f)
        return;
    cost_text(f, c, sizeof c);
    snprintf(f->summary, sizeof f->summary, "%zu matrix op group(s) ran below %.0f %% of the %s roofline: %s; "
             "recoverable %s", n, BELOW_PCT, e->roof.gpu.key, list, c);
    snprintf(f->fix, sizeof f->fix, "Speed up the matrix ops listed under op_below_roofline: pad dimensions to "
             "multiples of 8 (16 for fp8), batch tiny GEMMs into larger ones, or let torch.compile("
             "mode=\"max-autotune\") pick kernels: at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
             ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "their recoverable time"));
}

static void fp32_matmul(struct ps_report *r, const struct ps_op_efficiency *e)
{
    const struct ps_gpu_peak *g = &e->roof.gpu;
    double fast = g->matrix_tflops[PS_PREC_TF32], cost = 0, gain = 0;
    if (isnan(fast))
        fast = g->matrix_tflops[PS_PREC_BF16];
    if (isnan(fast) || !(fast > g->matrix_tflops[PS_PREC_FP32]))
        return;
    size_t n = 0;
    char c[96];
    for (size_t i = 0; i < e->roof.nrows; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        /* faster than the fp32 CUDA cores allow: it already runs on TF32 Tensor Cores */
        if (!w->g.matrix || w->g.prec != PS_PREC_FP32 || !(w->tflops_s <= g->matrix_tflops[PS_PREC_FP32]))
            continue;
        double roof_fast = fmax(w->flops / (fast * 1e3), w->memory_ns);
        cost += (double)w->kernel_ns;
        gain += fmax(0.0, (double)w->kernel_ns - roof_fast);
        n++;
    }
    struct ps_finding *f = n ? add(r, "fp32_matmul", cost, gain) : NULL;
    if (!f)
        return;
    cost_text(f, c, sizeof c);
    snprintf(f->summary, sizeof f->summary, "%zu matrix op group(s) ran in fp32 at or below the fp32 CUDA-core peak "
             "(%.1f TFLOPS) on a GPU whose Tensor Cores reach %.1f TFLOPS in %s; %s", n,
             g->matrix_tflops[PS_PREC_FP32], fast, isnan(g->matrix_tflops[PS_PREC_TF32]) ? "bf16" : "TF32", c);
    snprintf(f->fix, sizeof f->fix, "Run the fp32 matrix ops on Tensor Cores: torch.set_float32_matmul_precision("
             "\"high\") (TF32) or torch.autocast(dtype=torch.bfloat16): at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
             ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "their time minus their roofline at that peak"));
}

static void elementwise(struct ps_report *r, const struct ps_op_efficiency *e)
{
    double cost = 0;
    size_t n = 0;
    int64_t calls = 0;
    char c[96];
    if (e->uses_compile)   /* Inductor already fuses: advising torch.compile would repeat what the program does */
        return;
    for (size_t i = 0; i < e->roof.nrows; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        if (w->g.matrix || w->bound != PS_BOUND_MEMORY || strcmp(w->g.kind, "elementwise"))
            continue;
        cost += (double)w->kernel_ns;
        calls += w->calls;
        n++;
    }
    struct ps_finding *f = n >= 2 ? add(r, "memory_bound_elementwise", cost, cost) : NULL;
    if (!f)
        return;
    cost_text(f, c, sizeof c);
    snprintf(f->summary, sizeof f->summary, "%lld call%s of %zu memory-bound elementwise op groups each read and "
             "write their tensors from device memory, and no Triton kernel in the trace says they are fused; %s",
             (long long)calls, calls == 1 ? "" : "s", n, c);
    snprintf(f->fix, sizeof f->fix, "Fuse chains of elementwise ops with torch.compile (one kernel reads the inputs "
             "once): at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
             ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "the time they take"));
}

/* Attention by hand: softmax between batched GEMMs, and no scaled-dot-product-attention op in the model. */
static void attention(struct ps_report *r, const struct ps_op_efficiency *e)
{
    double softmax = 0, bmm = 0;
    char c[96];
    for (size_t i = 0; i < e->roof.nrows; i++) {
        const struct ps_roof_row *w = &e->roof.rows[i];
        if (!strncmp(w->g.kind, "SDPA", 4))
            return;
        if (strstr(w->g.name, "bmm") || strstr(w->g.name, "baddbmm"))
            bmm += (double)w->kernel_ns;
        if (strstr(w->g.name, "softmax"))
            softmax += (double)w->kernel_ns;
    }
    for (size_t i = 0; i < e->roof.nunmodeled; i++)
        if (strstr(e->roof.unmodeled[i].name, "softmax"))
            softmax += (double)e->roof.unmodeled[i].kernel_ns;
    struct ps_finding *f = softmax > 0 && bmm > 0 ? add(r, "attention_not_fused", softmax + bmm, softmax + bmm)
                                                  : NULL;
    if (!f)
        return;
    cost_text(f, c, sizeof c);
    snprintf(f->summary, sizeof f->summary, "Attention runs as separate batched GEMMs (%.3f ms) and softmax (%.3f ms) "
             "kernels, and no fused scaled-dot-product-attention op is in the trace; %s", ms(bmm), ms(softmax), c);
    snprintf(f->fix, sizeof f->fix, "Compute attention with torch.nn.functional.scaled_dot_product_attention "
             "(Hugging Face: attn_implementation=\"sdpa\") so one flash / memory-efficient kernel replaces the "
             "bmm-softmax-bmm chain: at most %.3f ms, %s", ps_report_per_step_ms(r, f->gain_ns),
             ps_report_bound_by_replay(r, f, PS_CAUSE_KERNEL, "the time the chain takes"));
}

/* The kernel-bound verdict's fix (verdict.c) names the ops with the most recoverable time. */
static void verdict_fix(struct ps_report *r, const struct ps_op_efficiency *e)
{
    static const char prefix[] = "The device is busy computing";
    if (r->bottleneck != PS_BN_KERNEL || !e->roof.has_gpu || !e->roof.nrows || !(e->roof.rows[0].recoverable_ns > 0))
        return;
    for (size_t i = 0; i < r->nrecs; i++) {
        if (strncmp(r->recs[i], prefix, sizeof prefix - 1))
            continue;
        char buf[PS_REC_LEN], sp[160];
        size_t len = (size_t)snprintf(buf, sizeof buf, "%s; the ops furthest from the %s roofline (Operator "
                                      "efficiency) are ", prefix, e->roof.gpu.key);
        double gain = 0;
        for (size_t k = 0; k < e->roof.nrows && k < 3 && e->roof.rows[k].recoverable_ns > 0 && len < sizeof buf; k++) {
            const struct ps_roof_row *w = &e->roof.rows[k];
            gain += w->recoverable_ns;
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s %s (%lld call%s, %.3f ms at %.0f %% of "
                                    "roofline, %s-bound, %.3f ms recoverable)", k ? "; " : "", w->g.name,
                                    ps_op_params_short(w->g.params, sp, sizeof sp),
                                    (long long)w->calls, w->calls == 1 ? "" : "s", ms((double)w->kernel_ns), w->pct_of_roofline,
                                    ps_roof_bound_name[w->bound], ms(w->recoverable_ns));
        }
        /* no more than kernels taking no time would save (analyses/verdict/replay.c) */
        struct ps_finding bound = { .gain_ns = (int64_t)gain };
        const char *why = ps_report_bound_by_replay(r, &bound, PS_CAUSE_KERNEL, "their recoverable time");
        if (len < sizeof buf)
            snprintf(buf + len, sizeof buf - len, ": speed these up first (the findings say how). Expected gain: at "
                     "most %.3f ms %s, %s.", ps_report_per_step_ms(r, bound.gain_ns),
                     r->whole_run ? "over the run" : "per step", why);
        memcpy(r->recs[i], buf, sizeof buf);
        return;
    }
}

static int is_ours(const char *rule)
{
    return !strcmp(rule, "op_below_roofline") || !strcmp(rule, "fp32_matmul") ||
           !strcmp(rule, "memory_bound_elementwise") || !strcmp(rule, "attention_not_fused");
}

static int cmp_cost(const void *a, const void *b)
{
    const struct ps_finding *x = a, *y = b;
    if (x->cost_ns != y->cost_ns)
        return (x->cost_ns < y->cost_ns) - (x->cost_ns > y->cost_ns);
    return strcmp(x->rule, y->rule);
}

void ps_op_efficiency_findings(struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    size_t before = r->nfindings;
    if (!e || !e->roof.has_gpu)
        return;
    below_roofline(r, e);
    fp32_matmul(r, e);
    elementwise(r, e);
    attention(r, e);
    verdict_fix(r, e);
    int simt = 0;   /* findings.c's no_tensor_cores already gives the Tensor Core fix for these kernels */
    for (size_t i = 0; i < before; i++)
        simt |= !strcmp(r->findings[i].rule, "no_tensor_cores");
    qsort(r->findings, r->nfindings, sizeof *r->findings, cmp_cost);
    ps_report_findings_per_step(r);
    for (size_t i = 0; i < r->nfindings && r->nrecs < PS_MAX_RECS; i++) {   /* the new warnings' fixes, costliest first */
        const struct ps_finding *f = &r->findings[i];
        if (is_ours(f->rule) && !strcmp(f->severity, "warning") && !(simt && !strcmp(f->rule, "fp32_matmul")))
            ps_report_add_finding_fix(r, f);
    }
}
