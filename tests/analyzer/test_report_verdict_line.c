/* What every format says: the verdict line with the compute (Kernel) share beside the bottleneck and
 * the most removing its cause could save; a run without steps says so in every format, its JSON has steps: []
 * and run.duration_ns is the program's own duration when the trace knows it; GPU utilisation over time; names
 * escaped for Markdown and HTML. Expected values are worked out beside each case. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/report.h"
#include "analyses/ranks.h"
#include "cases.h"
#include "check.h"
#include "read/reader.h"
#include "render/render.h"

#define HAS(text, needle) CHECK(strstr((text), (needle)) != NULL, "missing: %s", (needle))
#define HASNT(text, needle) CHECK(strstr((text), (needle)) == NULL, "present: %s", (needle))

static char dir[256];

struct result {
    struct ps_model *m;
    struct ps_report r;
    char *out[4];                  /* text, json, md, html */
};

static char *render(const struct ps_report *r, const char *format)
{
    char *buf = NULL;
    size_t len;
    struct ps_render_opts o = { .width = 0, .sections = PS_TEXT_ALL };   /* every text section */
    FILE *f = open_memstream(&buf, &len);
    CHECK(ps_renderer_find(format)->report(f, r, &o) == 0, "--format %s failed", format);
    fclose(f);
    return buf;
}

static void report(const char *path, struct result *res)
{
    struct ps_report_opts o;
    char err[512];
    ps_report_opts_default(&o);
    memset(res, 0, sizeof *res);
    if (ps_read_trace(path, &res->m, err, sizeof err) < 0 || ps_ranks_report_compute(&res->r, res->m, &o, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", path, err);
        exit(1);
    }
    static const char *const formats[] = { "text", "json", "md", "html" };
    for (int i = 0; i < 4; i++)
        res->out[i] = render(&res->r, formats[i]);
}

static void done(struct result *res)
{
    for (int i = 0; i < 4; i++)
        free(res->out[i]);
    ps_report_fini(&res->r);
    ps_model_free(res->m);
}

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        exit(1);
    return path;
}

/* Two steps of 1000 µs, each: a data range [0,219), cudaLaunchKernel [219,220), the kernel [220,1000). Per step
 * (tb priority Kernel > Runtime > DataLoader): Kernel 780 µs (78.0 %), Runtime 1 µs, DataLoader 219 µs
 * (21.9 %). Kernel under 80 %: the verdict is the largest cause, data-loading 21.9 %; compute 78.0 %. Removing it
 * saves about 21.9 % of each step, 0.219 ms, by replay: without the data ranges each launch comes 219 µs earlier
 * and its kernel with it (started 1 µs after its launch), the host's unrecorded time [220,1000) kept: 2000 µs
 * replayed as 1562, 438 µs over 2 steps. Where the step goes gives the same: data [0,219), launch [219,220). */
static void verdict_line_shows_compute_share_and_gain(void)
{
    char json[4096] = "{\"traceEvents\":[";
    for (int s = 0; s < 2; s++) {
        int t = 1000 * s;
        snprintf(json + strlen(json), sizeof json - strlen(json),
                 "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                 "\"ts\":%d,\"dur\":1000},"
                 "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"enumerate(DataLoader)#_Iter.__next__\","
                 "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":219},"
                 "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                 "\"dur\":1,\"args\":{\"correlation\":%d}},"
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":780,"
                 "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}",
                 s ? "," : "", s + 1, t, t, t + 219, s + 1, t + 220, s + 1);
    }
    strcat(json, "]}");
    struct result a;
    report(write_file("gain.json", json), &a);
    CHECK_EQ("steps", a.r.nsteps, 2);
    CHECK_EQ("bottleneck", a.r.bottleneck, PS_BN_DATA);
    CHECK_EQ("max_gain_ns", a.r.max_gain_ns, 219000);
    const char *line = "data-loading (21.9 % of the average step; compute (Kernel) 78.0 %; removing the cause saves "
                       "about 21.9 % of each step, 0.219 ms";
    HAS(a.out[0], "Verdict: ");
    HAS(a.out[0], line);
    HAS(a.out[1], "\"bottleneck\": \"data-loading\", \"share\": 0.219, \"gpu_utilization\": 0.78, \"kernel_share\": "
                  "0.78, \"max_gain_share\": 0.219, \"max_gain_ns\": 219000, \"unknown_reason\": null");
    HAS(a.out[2], "**Verdict: data-loading** — 21.9 % of the average step; compute (Kernel) 78.0 %; removing the "
                  "cause saves about 21.9 % of each step, 0.219 ms");
    HAS(a.out[3], "<strong>data-loading</strong> — 21.9 % of the average step; compute (Kernel) 78.0 %; removing "
                  "the cause saves about 21.9 % of each step, 0.219 ms");
    /* the run line, worded once for every format: events from 0 to the second kernel's end, 2000 µs; host
     * process 1, thread 1 (the kernels' pid 0 is the device: on streams, no thread); 2 kernels, 2 launches, 2 steps
     * and 2 data ranges */
    const char *run = "Run: 2.000 ms, 1 process, 1 thread, 8 events (2 GPU rows, 2 API calls, 4 ranges)";
    for (int i = 0; i < 4; i += i == 0 ? 2 : 1)   /* text, md, html */
        HAS(a.out[i], run);
    done(&a);
}

/* A perfscope trace whose one NVTX range is 'forward' [1 ms, 3 ms) (no step range) and whose program ran
 * 5 s (PERFSCOPE_META duration_ns): every format says there are no steps; JSON steps: [], run.duration_ns
 * 5000000000 from the program, events_duration_ns 2000000. */
static void no_steps_said_in_every_format(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/nosteps.sqlite", dir);
    unlink(path);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
                     " text TEXT, textId INTEGER, globalTid INTEGER, domainId INTEGER);"
                     "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                     "INSERT INTO PERFSCOPE_META VALUES ('duration_ns', '5000000000');"
                     "INSERT INTO NVTX_EVENTS VALUES (1000000, 3000000, 59, 'forward', NULL,"
                     " ((1<<48)|(7<<24)|7), 0);",
                     NULL, NULL, NULL) != SQLITE_OK)
        exit(1);
    sqlite3_close(db);
    struct result a;
    report(path, &a);
    HAS(a.out[0], "No steps: no range matches --step-range");
    HAS(a.out[1], "\"steps\": [],");
    HAS(a.out[1], "\"step_average\": {\"steps\": 0,");
    HAS(a.out[1], "\"duration_ns\": 5000000000, \"duration_source\": \"program\", \"events_duration_ns\": 2000000");
    HAS(a.out[1], "No steps: no range matches --step-range");
    HAS(a.out[2], "No steps: no range matches --step-range");
    HAS(a.out[3], "No steps: no range matches --step-range");
    HASNT(a.out[2], "| # | step |");
    HAS(a.out[3], "one per run (no steps were found)");
    done(&a);
}

/* GPU utilisation over time (utilization.c) by hand. Kineto: step [0,1000) µs; device 0 runs kernels [0,100),
 * [50,150) and [300,400) µs, device 1 one kernel [900,1000). The run is [0,1000) µs: 100 slices of 10 µs.
 * Device 0 is busy in the union [0,150) + [300,400): slices 0-14 and 30-39 full (10000 ns), the rest 0, 250 µs
 * in all; device 1: slices 90-99 full. */
static void utilization_timeline_by_hand(void)
{
    static const char trace[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
        "\"tid\":1,\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":8,\"ts\":50,\"dur\":100,"
        "\"args\":{\"device\":0,\"stream\":8,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":100,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":1,\"tid\":9,\"ts\":900,\"dur\":100,"
        "\"args\":{\"device\":1,\"stream\":9,\"correlation\":4}}]}";
    struct result a;
    report(write_file("util.json", trace), &a);
    CHECK_EQ("devices with a timeline", a.r.nutil, 2);
    if (a.r.nutil == 2) {
        const struct ps_util_series *d0 = &a.r.util[0], *d1 = &a.r.util[1];
        CHECK_EQ("device of the first", d0->device, 0);
        CHECK_EQ("bucket_ns", d0->bucket_ns, 10000);
        int64_t sum = 0;
        for (int i = 0; i < PS_UTIL_BUCKETS; i++) {
            int64_t want0 = i < 15 || (i >= 30 && i < 40) ? 10000 : 0, want1 = i >= 90 ? 10000 : 0;
            CHECK(d0->busy_ns[i] == want0, "device 0 slice %d: %lld, want %lld", i, (long long)d0->busy_ns[i],
                  (long long)want0);
            CHECK(d1->busy_ns[i] == want1, "device 1 slice %d: %lld, want %lld", i, (long long)d1->busy_ns[i],
                  (long long)want1);
            sum += d0->busy_ns[i];
        }
        CHECK_EQ("device 0 busy", sum, 250000);
    }
    HAS(a.out[1], "\"gpu_utilization_timeline\": [\n    {\"device\": 0, \"start_ns\": ");
    HAS(a.out[3], "<section id=\"utilisation\" class=\"chart\"");
    done(&a);
}

/* Names from a trace cannot break a Markdown table or inject HTML: a kernel named k|x<script>`y`*z_&amp; is one
 * Markdown cell, escaped, and HTML text, never a <script> element. */
static void hostile_names_escaped_in_md_and_html(void)
{
    static const char trace[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
        "\"tid\":1,\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k|x<script>`y`*z_&amp;\",\"pid\":0,\"tid\":7,\"ts\":0,"
        "\"dur\":900,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}]}";
    struct result a;
    report(write_file("hostile.json", trace), &a);
    HAS(a.out[2], "| k\\|x\\<script\\>\\`y\\`\\*z\\_\\&amp; |\n");
    HASNT(a.out[3], "<script");
    HAS(a.out[3], "k|x&lt;script&gt;`y`*z_&amp;amp;");
    done(&a);
}

/* NVML samples get a chart of their own in the HTML: a perfscope trace with a step [0, 2 s) and PERFSCOPE_GPU_SAMPLES
 * of device 0 at 0, 1 and 2 s reading 0, 50 and 100 %: mean 50 %, min 0, max 100. The 60 slices of [0, 2 s] get
 * the samples in slices 0, 29 (⌊1e9 · 60 / (2e9 + 1)⌋) and 59; the others have none, so the line is three
 * separate one-point polylines, each drawn as a dot, and the table gives 3 samples, mean 50.0. */
static void nvml_samples_charted_in_html(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/nvml.sqlite", dir);
    unlink(path);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
                     " text TEXT, textId INTEGER, globalTid INTEGER, domainId INTEGER);"
                     "CREATE TABLE PERFSCOPE_META(name TEXT, value TEXT);"
                     "CREATE TABLE PERFSCOPE_GPU_SAMPLES(timestamp INTEGER NOT NULL, deviceIndex INTEGER NOT NULL,"
                     " utilGpuPercent INTEGER);"
                     "INSERT INTO PERFSCOPE_GPU_SAMPLES VALUES (0, 0, 0), (1000000000, 0, 50), (2000000000, 0, 100);"
                     "INSERT INTO NVTX_EVENTS VALUES (0, 2000000000, 59, 'step', NULL, ((1<<48)|(7<<24)|7), 0);",
                     NULL, NULL, NULL) != SQLITE_OK)
        exit(1);
    sqlite3_close(db);
    struct result a;
    report(path, &a);
    CHECK_EQ("NVML devices", a.r.nnvml_util, 1);
    HAS(a.out[3], "<section id=\"nvml-utilisation\" class=\"chart\"");
    HAS(a.out[3], "<tr><td>0</td><td class=\"n\">3</td><td class=\"n\">50.0</td><td class=\"n\">0</td>"
                  "<td class=\"n\">100</td></tr>");
    const char *sec = strstr(a.out[3], "id=\"nvml-utilisation\"");
    int polylines = 0;
    for (const char *p = sec; p && (p = strstr(p, "<polyline")) != NULL && p < strstr(sec, "</section>"); p++)
        polylines++;
    CHECK_EQ("NVML polylines (one per sampled slice: the slices between have no sample)", polylines, 3);
    int dots = 0;
    for (const char *p = sec; p && (p = strstr(p, "<circle")) != NULL && p < strstr(sec, "</section>"); p++)
        dots++;
    CHECK_EQ("NVML dots (points without a neighbour)", dots, 3);
    HAS(a.out[1], "\"gpu_utilization_samples\": [\n    {\"device\": 0, \"samples\": 3, \"mean_percent\": 50,");
    done(&a);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "verdict_line_shows_compute_share_and_gain", .fn = verdict_line_shows_compute_share_and_gain },
        { "no_steps_said_in_every_format", .fn = no_steps_said_in_every_format },
        { "utilization_timeline_by_hand", .fn = utilization_timeline_by_hand },
        { "nvml_samples_charted_in_html", .fn = nvml_samples_charted_in_html },
        { "hostile_names_escaped_in_md_and_html", .fn = hostile_names_escaped_in_md_and_html },
    };
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_verdict_line DIR CASE\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 2 ? argv[2] : NULL, NULL, NULL);
}
