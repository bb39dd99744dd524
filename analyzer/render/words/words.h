/* What every output format words the same way: the names, labels and sentences of the report, the several-rank
 * report, the setup section, memory, operator efficiency and the diff. The formats (text/, md/, html/, json/) call
 * these; this layer calls no format: a sentence that quotes a name from the trace takes the format's way of
 * printing it as a callback (struct ps_words_markup). Private to analyzer/render/. Everything here reads a
 * finished result (analyses/) and allocates nothing the caller must free unless it says so; where a function
 * writes into a caller's buffer, the buffer and its size come first and the text is cut to fit. */
#ifndef PS_RENDER_WORDS_H
#define PS_RENDER_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/pytorch.h"
#include "analyses/report.h"

struct ps_diff;                    /* analyses/diff.h */
struct ps_mem_device;              /* analyses/memory.h */
struct ps_multirank;               /* analyses/ranks.h */
struct ps_op_efficiency;           /* analyses/roofline.h */
struct ps_rank_file;
struct ps_roof_row;

/* How a format sets a shared line that quotes names from the trace: what opens the line and closes its
 * emphasised head, and how the format prints a name (escaped for it, whole or shortened as it shows names). */
struct ps_words_markup {
    const char *open;              /* before the line: "  " (text), "- **" (a Markdown list item, its head bold) */
    const char *head_close;        /* after the head: "" (text), "**" (Markdown) */
    void (*name)(FILE *f, const char *s);
};

/* ---- where the step goes (causes_words.c) ---- */

/* A cause's label and what it means, as every format prints them (static strings). */
const char *ps_words_cause_label(const struct ps_report *r, enum ps_cause c);
const char *ps_words_cause_meaning(const struct ps_report *r, enum ps_cause c);
/* Cause c's largest names with their ms per average steady step ("a.py(3): f 12.000 ms; ..."), the first sync
 * issuer with the call it made, each name through `name` (the format's escaping); waiting on a stream first says
 * what the waits wait for ("waits for stream 7: gemm 0.990 ms; waiting: kernel_b 0.990 ms"). Nothing when it has
 * none. */
void ps_words_cause_evidence(FILE *f, const struct ps_report *r, enum ps_cause c,
                             void (*name)(FILE *f, const char *s));
/* The Python frames around cause c's first name, outermost first, joined by " > "; nothing when none. */
void ps_words_cause_chain(FILE *f, const struct ps_report *r, enum ps_cause c, void (*name)(FILE *f, const char *s));
/* The causes in the order every format lists them: largest first, ties in precedence order (enum ps_cause). */
void ps_words_causes_order(const struct ps_report *r, int order[PS_CAUSE_N]);
/* Cause c's replayed saving (r->causes.c[c].gain_ns) into buf when it differs from the cause's time by more than a
 * tenth: "without it: about 290.585 ms shorter per step (replayed: more than it takes, ...)"; 0 (buf untouched)
 * when there is nothing to say. */
int ps_words_cause_gain(char *buf, size_t len, const struct ps_report *r, enum ps_cause c);
/* 1: cause c's names are the host's frames, so its Python chain says where in the program it is. */
int ps_words_cause_host_side(enum ps_cause c);
/* The span the causes are over: "per average step of the 9 steady steps, 12.000 ms; start-up left out: ...". */
void ps_words_causes_span(char *buf, size_t len, const struct ps_report *r);

/* ---- the report (report_words.c) ---- */

/* A verdict's name as people read it: without GPU rows the `kernel` verdict is host compute, "compute" (JSON
 * values stay "kernel": ps_bottleneck_name); ps_words_bottleneck for a report's own. Static strings. */
const char *ps_words_bottleneck_name(enum ps_bottleneck b, int has_gpu);
const char *ps_words_bottleneck(const struct ps_report *r, enum ps_bottleneck b);
/* A step-time category's label: ps_cat_label, but "Compute" for Kernel without GPU rows (JSON keys stay
 * ps_cat_key). A static string. */
const char *ps_words_cat_label(int c, int has_gpu);
/* What follows the verdict's name, in every format: its share, the compute (Kernel) share beside it and the
 * most removing its cause could save, e.g. "51.1 % of the average step; compute (Kernel) 45.5 %; removing the
 * cause saves at most 51.1 % of each step (619.045 ms)"; or why the verdict is unknown. Into buf (len bytes). */
void ps_words_verdict_detail(char *buf, size_t len, const struct ps_report *r);
/* The name of step i: its range's name (owned by the report), "inferred#N" for a step inferred from the kernel
 * sequence (--steps), "(whole run)" for the one window; buf (len bytes) holds the made-up ones. */
const char *ps_words_step_name(char *buf, size_t len, const struct ps_report *r, size_t i);
/* The text of string id `id` of the report's model (ps_report_name, owned by the report), `none` when it names
 * nothing. */
const char *ps_words_name(const struct ps_report *r, uint32_t id, const char *none);
/* The name of row `w` of finding `g`: the row's name, else "(GPU idle)" for a GPU gap, "(time slice)" for a slice. */
const char *ps_words_row_name(const struct ps_report *r, const struct ps_finding *g, const struct ps_row *w);
/* The run in one line (buf, len bytes), the same in every format after "Run: ": "12.345 ms, 2 processes, 3 threads,
 * 100 events (5 GPU rows, 10 API calls, 85 ranges)", or "no events, 1 process, 1 thread" when the analysed rows
 * hold none. */
void ps_words_run_line(char *buf, size_t len, const struct ps_report *r);
/* Which steps a table shows: all when --all-steps or up to 20, else the first 10, the 5 slowest and the last 5
 * (at most 20 rows). shown[i] is 1 for a shown step, 2 for a shown one among the slowest; returns how many
 * are shown. `shown` (the caller's) holds r->nsteps entries. */
size_t ps_words_steps_shown(unsigned char *shown, const struct ps_report *r);
/* The span r->gpu_util is measured over, after "GPU utilisation 55.85 %": " of the steps", " of the whole run", and
 * ", the work queued before the trace counted idle" when the verdict left such work out. Static strings. */
const char *ps_words_util_span(const struct ps_report *r);
/* The slowest step's index (the first of equals), or r->nsteps when there are fewer than 2 steps: the one step the
 * tables name as the slowest. */
size_t ps_words_slowest_step(const struct ps_report *r);

/* ---- several ranks (ranks_words.c) ---- */

/* Whether any of the rank files holds GPU rows: without, the several-file report's shared headings say compute. */
int ps_words_ranks_have_gpu(const struct ps_multirank *mr);
/* A category's label in the several-file tables: ps_words_cat_label, "Comm" for Communication (narrow columns). */
const char *ps_words_ranks_cat_label(int c, int has_gpu);
/* A rank file's label in every format: its rank ("3"), or "launcher(N)" for a trace holding N ranks as processes.
 * Returns buf (len bytes). */
const char *ps_words_rank_label(char *buf, size_t len, const struct ps_rank_file *rf);
/* The straggler the others wait for (mr->has_wait_straggler) as one sentence, no newline, into buf (len bytes,
 * PS_WORDS_STRAGGLER_LEN holds it whole): "rank 1: +144.8 ms per step waiting (sleep) over the other ranks' median
 * (...); the other ranks wait 145.5 ms per step for it (rank 0 most, in ddp:gradient_allreduce; ...); fix: remove
 * what that rank's step thread waits on (sleep): ...": its excess by verdict group, its own name in it and the fix
 * for that group, as the analysis worded them (analyses/ranks.h struct ps_wait_straggler cause, fix). */
#define PS_WORDS_STRAGGLER_LEN 1536
void ps_words_straggler_sentence(char *buf, size_t len, const struct ps_multirank *mr);
/* Which rule named the straggler (docs/distributed.md), as every format states it: by who waits for whom, or by
 * step time when no rank is waited for. */
extern const char ps_words_straggler_rule_wait[];
extern const char ps_words_straggler_rule_step[];

/* ---- the program's setup (setup_words.c): CUDA graphs, work queued before the trace, warm-up, PyTorch ---- */

#define PS_WORDS_LINE 640          /* bytes per line, cut to fit */
#define PS_WORDS_MAX_LINES (4 + PS_PY_MAX_LOADERS + PS_PY_MAX_ADVICE)

/* Sentences for a format to lay out as it lays out a list. Each function below appends its lines (l->n grows; a
 * line past PS_WORDS_MAX_LINES is left out). The caller sets n to 0 to start over. */
struct ps_words_lines {
    char v[PS_WORDS_MAX_LINES][PS_WORDS_LINE];
    size_t n;
};

/* The warm-up, CUDA-graph and pre-trace sentences (analyses/steps/warmup.c, analyses/timeline/graphs.c,
 * backlog.c). */
void ps_words_setup_lines(struct ps_words_lines *l, const struct ps_report *r);
/* The CUDA/CUPTI state per process (md and html; the text report prints it with the run's facts). */
void ps_words_cuda_state_line(struct ps_words_lines *l, const struct ps_report *r);
/* The PyTorch section as sentences, the workers' table apart: hook, loaders, waits, verdict on workers, copies.
 * r->py must be set. */
void ps_words_pytorch_lines(struct ps_words_lines *l, const struct ps_report *r);
/* The PyTorch section's advice, one line each (none without r->py). */
void ps_words_advice_lines(struct ps_words_lines *l, const struct ps_report *r);

/* ---- GPU memory (memory_words.c) ---- */

#define PS_WORDS_MEMORY_OPS 10    /* operator rows the text and Markdown sections show per device */

/* A size in bytes as people read it (buf, len bytes): "15.00 GiB", "96.6 MiB", "1.5 KiB", "16 B"; "N/A" for -1
 * (unknown). */
void ps_words_bytes(char *buf, size_t len, int64_t b);
/* The peak's operator as the PyTorch profiler's memory view labels it ("aten::addmm (aten::empty)") into buf (len
 * bytes); "" when unknown. */
void ps_words_memory_op_label(char *buf, size_t len, const struct ps_report *r, const struct ps_mem_device *d);
/* One memory device in one line, the same in text and Markdown: "GPU0 (kineto): peak allocated 96.6 MiB
 * (101305344 B) at 4.776 ms in aten::addmm (aten::empty), ProfilerStep#6; max reserved 116.0 MiB; capacity ...,
 * headroom ...; 218 records, 218 curve points, 109 pairs, 0 never freed (0 B)\n", its head (up to the peak's
 * bytes) marked up and its names printed as `m` says. */
void ps_words_memory_device_line(FILE *f, const struct ps_report *r, const struct ps_mem_device *d,
                                 const struct ps_words_markup *m);

/* ---- operator efficiency (op_eff_words.c; docs/op-perf-roofline.md) ---- */

/* Why the section has no figures, one sentence into buf (cap bytes), "" when it has them (a CPU run: no kernel
 * time; no peaks known for the device). It quotes the trace's device name: print it escaped as the format escapes a
 * sentence. Returns buf. r->opeff must be set. */
const char *ps_words_op_eff_gap(char *buf, size_t cap, const struct ps_report *r);
/* "GPU: NVIDIA H100 80GB HBM3 -> H100 SXM (matched by name; peaks from ...: matrix bf16 ..., fp32 ... TFLOPS,
 * memory ... GB/s)\n", the device's name, the GPU's and the spec file's path printed by `name` (the format's). */
void ps_words_op_eff_gpu_line(FILE *f, const struct ps_op_efficiency *e, void (*name)(FILE *f, const char *s));
/* The MFU sentence (its figure between `strong` marks: "" for text, "**" for Markdown), the spread of per-step MFU,
 * and the GPU time in ops with no model with those ops (their names printed by `name`, the format's), each line
 * ending in '\n'. */
void ps_words_op_eff_mfu_lines(FILE *f, const struct ps_op_efficiency *e, const char *strong,
                               void (*name)(FILE *f, const char *s));
/* An op group as "aten::bmm {'B': 16, ...}" (name, then its parameters shortened) into buf (cap bytes); returns
 * buf. */
const char *ps_words_op_label(char *buf, size_t cap, const struct ps_roof_row *w);
/* A trace whose modeled ops launched no GPU work (e->no_gpu_work): the modeled rows by FLOPs per call, most first,
 * at most 20, as indices into e->roof.rows (heap: the caller frees), *n how many; NULL on out-of-memory. */
size_t *ps_words_op_host_order(const struct ps_op_efficiency *e, size_t *n);
/* A row's FLOPs and bytes per call (calls 0: the totals). */
void ps_words_op_per_call(const struct ps_roof_row *w, double *flops, double *bytes);

/* ---- `perfscope diff` (diff_words.c) ---- */

/* The change of the average step: "36.524 ms faster (-20.6 %)". */
void ps_words_diff_step_change(FILE *f, const struct ps_diff *d);
/* The step-to-step spread and the change that counts: "step-to-step spread: sd ... ms before, ... ms after; the
 * change counts beyond ... ms (2 standard errors, at least 1 %)", or why it is unknown. No newline. */
void ps_words_diff_spread(FILE *f, const struct ps_diff *d);
/* Neither run holds GPU rows: the Kernel category is both runs' host compute. */
int ps_words_diff_host_only(const struct ps_diff *d);
/* names[i] shown in at most `width` characters (counting a UTF-8 sequence as one) into out (outlen bytes), so that
 * no two of names[0..n) that differ show the same text: whole when it fits; else cut with '~' — after its first
 * width - 1 characters when they hold the first character in which it differs from every other name, else its
 * first width / 3 characters, '~', and the part around that character ('~' again when the name goes on). The diff's
 * kernel tables: two kernels whose names share a long prefix stay apart (issue: "added and removed names are cut
 * to the same text"). */
void ps_words_distinct_cut(const char *const *names, size_t n, size_t i, size_t width, char *out, size_t outlen);
/* The file name of `path` (after its last '/'), inside path. */
const char *ps_words_basename(const char *path);

#endif
