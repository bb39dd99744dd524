/* Operator efficiency as every format words it (words.h; docs/op-perf-roofline.md): why a section has no figures,
 * the GPU and its peaks, MFU, the GPU time with no model, an op group's label, and for a run without GPU work the
 * op groups by FLOPs per call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/roofline.h"
#include "words/words.h"

#define MS(ns) ((double)(ns) / 1e6)
#define HOST_TOP 20                /* op groups listed for a run without GPU work */

const char *ps_words_op_eff_gap(char *buf, size_t cap, const struct ps_report *r)
{
    const struct ps_op_efficiency *e = r->opeff;
    buf[0] = '\0';
    if (e->has_shapes && e->no_gpu_work)
        snprintf(buf, cap, "No GPU work in this trace (a CPU run): the ops' FLOPs and bytes are modeled from their "
                           "recorded shapes and dtypes, but there is no kernel time, TFLOPS, roofline or MFU "
                           "(record on a GPU for them).");
    else if (e->has_shapes && !e->roof.has_gpu)
        snprintf(buf, cap, "No peaks known for the device '%s' (docs/gpu-peaks.md): give them with --gpu-spec FILE "
                           "for rooflines and MFU.", e->device[0] ? e->device : "(unnamed)");
    return buf;
}

void ps_words_op_eff_gpu_line(FILE *f, const struct ps_op_efficiency *e, void (*name)(FILE *f, const char *s))
{
    const struct ps_gpu_peak *g = &e->roof.gpu;
    fputs("GPU: ", f);
    name(f, e->device[0] ? e->device : "(unnamed)");   /* the trace's, and the spec file's name and path */
    fputs(" -> ", f);
    name(f, g->key);
    fprintf(f, " (matched by %s; peaks from ", e->roof.match_how);
    name(f, g->source);
    fprintf(f, ": matrix bf16 %.1f, fp32 %.1f TFLOPS, memory %.0f GB/s)\n", g->matrix_tflops[PS_PREC_BF16],
            g->matrix_tflops[PS_PREC_FP32], g->mem_gbps);
}

void ps_words_op_eff_mfu_lines(FILE *f, const struct ps_op_efficiency *e, const char *strong,
                               void (*name)(FILE *f, const char *s))
{
    char over[48];
    if (e->nsteps)
        snprintf(over, sizeof over, "%zu step%s", e->nsteps, e->nsteps == 1 ? "" : "s");
    else
        snprintf(over, sizeof over, "the run without steps");
    if (!isnan(e->roof.mfu))
        fprintf(f, "%sMFU %.2f %%%s over %s (%.3f ms): the modeled matrix work (%.3f TFLOP) would take %.3f ms at the "
                   "matrix peak of its precision.\n", strong, 100.0 * e->roof.mfu, strong, over, MS(e->window_ns),
                e->roof.matrix_flops / 1e12, MS(e->roof.mfu * e->window_ns));
    if (e->per_step && e->roof.nsteps > 1) {
        size_t lo = 0, hi = 0;
        for (size_t i = 1; i < e->roof.nsteps; i++) {
            lo = e->roof.steps[i].mfu < e->roof.steps[lo].mfu ? i : lo;
            hi = e->roof.steps[i].mfu > e->roof.steps[hi].mfu ? i : hi;
        }
        fprintf(f, "MFU per step from %.2f %% (step %zu) to %.2f %% (step %zu).\n", 100.0 * e->roof.steps[lo].mfu,
                lo + 1, 100.0 * e->roof.steps[hi].mfu, hi + 1);
    }
    double busy = e->gpu_busy_ns;
    fprintf(f, "GPU time in ops with no model: %.3f ms", MS(e->roof.unmodeled_kernel_ns));
    if (busy > 0)
        fprintf(f, " (%.1f %% of the ops' GPU busy time)", 100.0 * (double)e->roof.unmodeled_kernel_ns / busy);
    fputs(e->roof.nunmodeled ? ": " : ".\n", f);
    for (size_t i = 0; i < e->roof.nunmodeled; i++) {
        fputs(i ? ", " : "", f);
        name(f, e->roof.unmodeled[i].name);   /* op names from the trace */
        fprintf(f, " %.3f ms (%lld call%s)%s", MS(e->roof.unmodeled[i].kernel_ns),
                (long long)e->roof.unmodeled[i].calls, e->roof.unmodeled[i].calls == 1 ? "" : "s", i + 1 == e->roof.nunmodeled ? ".\n" : "");
    }
}

const char *ps_words_op_label(char *buf, size_t cap, const struct ps_roof_row *w)
{
    char sp[256];
    snprintf(buf, cap, "%s%s%s", w->g.name, w->g.params[0] ? " " : "", ps_op_params_short(w->g.params, sp, sizeof sp));
    return buf;
}

/* qsort has no context argument: the rows being ordered (one ordering at a time) */
static const struct ps_roof_row *sort_rows;

static int by_flops(const void *x, const void *y)
{
    const struct ps_roof_row *a = &sort_rows[*(const size_t *)x], *b = &sort_rows[*(const size_t *)y];
    double fa = a->calls ? a->flops / (double)a->calls : 0, fb = b->calls ? b->flops / (double)b->calls : 0;
    if (fa != fb)
        return fa > fb ? -1 : 1;
    return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

size_t *ps_words_op_host_order(const struct ps_op_efficiency *e, size_t *n)
{
    size_t *ix = malloc((e->roof.nrows + 1) * sizeof *ix), m = 0;
    if (!ix)
        return NULL;
    for (size_t i = 0; i < e->roof.nrows; i++)
        if (e->roof.rows[i].g.modeled)
            ix[m++] = i;
    sort_rows = e->roof.rows;
    qsort(ix, m, sizeof *ix, by_flops);
    *n = m < HOST_TOP ? m : HOST_TOP;
    return ix;
}

void ps_words_op_per_call(const struct ps_roof_row *w, double *flops, double *bytes)
{
    double c = w->calls ? (double)w->calls : 1;
    *flops = w->flops / c;
    *bytes = w->bytes / c;
}
