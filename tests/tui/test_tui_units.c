/* The ncurses-free parts of `perfscope top`: formatting, sparkline history, the /proc parsers, the process tree
 * order, the screen layout at several sizes and the snapshot JSON, on states built by hand. Expected values are
 * worked out in the comments beside them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "format.h"
#include "ps_utf8.h"
#include "tui/history.h"
#include "tui/host.h"
#include "tui/procs.h"
#include "tui/snapshot.h"
#include "tui/layout.h"

static void test_format(void)
{
    char b[64];
    CHECK_STR("bytes 512", tui_fmt_bytes(b, sizeof b, 512), "512 B");
    CHECK_STR("bytes 1536", tui_fmt_bytes(b, sizeof b, 1536), "1.50 KiB");           /* 1536/1024 */
    CHECK_STR("bytes 16 GiB", tui_fmt_bytes(b, sizeof b, 17179869184.0), "16.0 GiB");
    CHECK_STR("bytes 140.4 GiB", tui_fmt_bytes(b, sizeof b, 150754820096.0), "140 GiB"); /* 140.40 -> 3 digits */
    CHECK_STR("bytes unknown", tui_fmt_bytes(b, sizeof b, -1), "N/A");
    CHECK_STR("rate", tui_fmt_rate(b, sizeof b, 1048576), "1.00 MiB/s");
    CHECK_STR("pct", tui_fmt_pct(b, sizeof b, 1, 87.4), "87%");
    CHECK_STR("pct invalid", tui_fmt_pct(b, sizeof b, 0, 87.4), "N/A");
    CHECK_STR("pct NaN", tui_fmt_pct(b, sizeof b, 1, NAN), "N/A");
    CHECK_STR("ns", tui_fmt_ns(b, sizeof b, 850), "850 ns");
    CHECK_STR("us", tui_fmt_ns(b, sizeof b, 12345), "12.3 us");
    CHECK_STR("ms", tui_fmt_ns(b, sizeof b, 120300000), "120.3 ms");
    CHECK_STR("s", tui_fmt_ns(b, sizeof b, 2500000000ll), "2.50 s");
    CHECK_STR("min", tui_fmt_ns(b, sizeof b, 185000000000ll), "3m05s");
    CHECK_EQ("cols of 3 blocks", tui_text_cols("\xE2\x96\x81\xE2\x96\x82x"), 3);
    /* fitting never cuts a UTF-8 sequence: 2 columns of "▁▂▃" are 6 bytes */
    CHECK_STR("fit utf8", tui_fit(b, sizeof b, "\xE2\x96\x81\xE2\x96\x82\xE2\x96\x83", 2, 0), "\xE2\x96\x81\xE2\x96\x82");
    CHECK_STR("fit pad", tui_fit(b, sizeof b, "ab", 4, 1), "ab  ");
    CHECK_STR("fit small buffer", tui_fit(b, 5, "\xE2\x96\x81\xE2\x96\x82", 2, 0), "\xE2\x96\x81");
    /* untrusted bytes: the stray 0xFF and the truncated 3-byte lead E2 96 are one maximal invalid subpart each
     * (Unicode ch. 3), so one U+FFFD column each */
    CHECK_EQ("cols of invalid bytes", tui_text_cols("a\xFF" "b\xE2\x96"), 4);
    CHECK_STR("fit invalid bytes", tui_fit(b, sizeof b, "a\xFF" "b\xE2\x96", 4, 0), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
    CHECK_EQ("bytes of 2 columns", tui_text_bytes("\xE2\x96\x81\xE2\x96\x82x", 2), 6);
    /* a path in 16 columns: "…" + the last 15 columns "ng/dir/run.sqlite"[2:], cut back to its first '/' */
    CHECK_STR("path fits", tui_fit_path(b, sizeof b, "/a/run.sqlite", 16), "/a/run.sqlite");
    CHECK_STR("path elided at a slash", tui_fit_path(b, sizeof b, "/tmp/very/long/dir/run.sqlite", 16),
              "\xE2\x80\xA6/dir/run.sqlite");
    /* no '/' in the kept tail: its last 7 columns after the ellipsis */
    CHECK_STR("name elided", tui_fit_path(b, sizeof b, "/x/abcdefghijklmnop.sqlite", 8), "\xE2\x80\xA6.sqlite");
    CHECK_STR("bar 50%", tui_bar(b, sizeof b, 0.5, 8), "[||||    ]");
    CHECK_STR("bar clamps", tui_bar(b, sizeof b, 1.7, 4), "[||||]");
}

static void test_history(void)
{
    struct tui_history h = { 0 };
    char b[256];
    /* 0, 50, N/A, 100 against max 100: levels floor(v/100*8) clamped to 7 -> blocks 1, 5, blank, 8 */
    tui_history_push(&h, 1, 0);
    tui_history_push(&h, 1, 50);
    tui_history_push(&h, 0, 0);
    tui_history_push(&h, 1, 100);
    CHECK_STR("sparkline", tui_sparkline(&h, 6, 100, b, sizeof b),
              "  \xE2\x96\x81\xE2\x96\x85 \xE2\x96\x88");
    CHECK_STR("ascii sparkline", tui_sparkline_ascii(&h, 4, 100, b, sizeof b), " = #");
    double v;
    CHECK(tui_history_get(&h, 0, &v) && v == 100, "newest");
    CHECK(!tui_history_get(&h, 1, &v), "N/A sample");
    CHECK(tui_history_get(&h, 3, &v) && v == 0, "oldest");
    CHECK(!tui_history_get(&h, 4, &v), "beyond");
    for (int i = 0; i < TUI_HISTORY + 5; i++)
        tui_history_push(&h, 1, i);
    CHECK_EQ("ring holds TUI_HISTORY", h.n, TUI_HISTORY);
    CHECK(tui_history_get(&h, 0, &v) && v == TUI_HISTORY + 4, "ring newest");
    CHECK(tui_history_get(&h, TUI_HISTORY - 1, &v) && v == 5, "ring oldest");
}

static void test_host_parsers(void)
{
    static const char stat1[] = "cpu  100 0 100 800 0 0 0 0 0 0\n"
                                "cpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2\n";
    /* later: cpu0 user +60, system +10, irq +5, idle +25: 75 % of 100 ticks busy */
    static const char stat2[] = "cpu  185 0 120 865 5 5 0 0 0 0\n"
                                "cpu0 110 0 60 425 0 5 0 0 0 0\ncpu1 75 0 60 440 5 0 0 0 0 0\n";
    struct tui_cpu_times a, b, ca[4], cb[4];
    int n;
    CHECK_EQ("stat parses", tui_host_parse_stat(stat1, &a, ca, 4, &n), 0);
    CHECK_EQ("cpus", n, 2);
    tui_host_parse_stat(stat2, &b, cb, 4, &n);
    CHECK_NEAR("cpu0 busy", tui_host_busy_pct(&ca[0], &cb[0]), 75.0, 1e-9);   /* (60+10+5)/100 */
    /* cpu1: user 50 -> 75 (+25), system 50 -> 60 (+10): busy +35; idle +40, iowait +5: total +80 -> 43.75 % */
    CHECK_NEAR("cpu1 busy", tui_host_busy_pct(&ca[1], &cb[1]), 43.75, 1e-9);
    CHECK_EQ("no cpu line", tui_host_parse_stat("intr 1\n", &a, ca, 4, &n), -EINVAL);
    int64_t total, avail, st, sf;
    CHECK_EQ("meminfo", tui_host_parse_meminfo("MemTotal:       1000 kB\nMemFree: 5 kB\nMemAvailable:    600 kB\n"
                                               "SwapTotal: 0 kB\n", &total, &avail, &st, &sf), 0);
    CHECK_EQ("mem total", total, 1024000);
    CHECK_EQ("mem available", avail, 614400);
    CHECK_EQ("swap total", st, 0);
    CHECK_EQ("swap free missing", sf, -1);
    double load[3];
    CHECK_EQ("loadavg", tui_host_parse_loadavg("0.50 1.25 2.00 1/100 42\n", load), 0);
    CHECK_NEAR("load 5", load[1], 1.25, 1e-12);
}

static void test_tree_order(void)
{
    /* trainer 10 (child of 1, not in the set) with workers 12 and 11, worker 11 with a helper 13; 20 an unrelated
     * root. By CPU: 20 (90 %) before 10 (50 %); under 10: 12 (30 %) before 11 (10 %), 13 under 11. */
    struct tui_proc v[5] = {
        { .pid = 11, .ppid = 10, .cpu_pct = 10 }, { .pid = 20, .ppid = 1, .cpu_pct = 90 },
        { .pid = 13, .ppid = 11, .cpu_pct = 80 }, { .pid = 10, .ppid = 1, .cpu_pct = 50 },
        { .pid = 12, .ppid = 10, .cpu_pct = 30 },
    };
    CHECK_EQ("order", tui_procs_order(v, 5, TUI_SORT_CPU), 0);
    uint32_t want[5] = { 20, 10, 12, 11, 13 };
    int depth[5] = { 0, 0, 1, 1, 2 };
    for (int i = 0; i < 5; i++) {
        CHECK_EQ("pid in tree order", v[i].pid, want[i]);
        CHECK_EQ("depth", v[i].depth, depth[i]);
    }
    CHECK_EQ("trainer's workers", v[1].children, 2);
    CHECK_EQ("by pid", (tui_procs_order(v, 5, TUI_SORT_PID), v[0].pid), 10);
}

/* A state with one stand-in GPU, two cores and a live analysis: the layout must show these values. */
static void fill_state(struct tui_top *t)
{
    memset(t, 0, sizeof *t);
    t->interval_s = 1;
    snprintf(t->hostname, sizeof t->hostname, "node7");
    t->host.ncpu = 2;
    t->host.cpu_valid = 1;
    t->host.cpu_pct[0] = 25;
    t->host.cpu_pct[1] = 75;
    t->host.total_pct = 50;
    t->host.mem_total = 8ll << 30;
    t->host.mem_available = 6ll << 30;
    t->host.swap_total = t->host.swap_free = 0;
    t->nvml_status = PS_NVML_OK;
    t->ngpu = 1;
    t->gpu[0].ok = 1;
    struct ps_gpu_sample *s = &t->gpu[0].s;
    snprintf(s->name, sizeof s->name, "NVIDIA H200");
    s->valid = PS_GPU_UTIL_SM | PS_GPU_MEM | PS_GPU_POWER | PS_GPU_PROCS |   /* no temperature, no power limit */
               PS_GPU_PROC_UTIL | PS_GPU_UUID;
    s->util_sm_pct = 87;
    s->mem_used_bytes = 16ull << 30;
    s->mem_total_bytes = 140ull << 30;
    s->power_mw = 412000;
    s->nprocs = 1;
    snprintf(s->uuid, sizeof s->uuid, "GPU-5a000000-0000-0000-0000-000000000077");
    s->procs[0] = (struct ps_gpu_proc){ .pid = 4242, .used_bytes = -1, .gpu_instance_id = PS_GPU_NO_INSTANCE,
                                        .compute_instance_id = PS_GPU_NO_INSTANCE, .sm_util_pct = 71,
                                        .mem_util_pct = 12 };
    t->watching = 1;
    struct tui_live *l = &t->live;
    snprintf(l->trace, sizeof l->trace, "/runs/run.sqlite");
    l->state = TUI_LIVE_RECORDING;
    l->window_ns = 10000000000ll;
    l->have_report = 1;
    l->nsteps = 4;
    l->avg_dur_ns = 100000000;                  /* 100 ms: 62 data, 20 kernel, 8 memcpy, 10 other */
    l->cat_ns[PS_CAT_DATALOADER] = 62000000;
    l->cat_ns[PS_CAT_KERNEL] = 20000000;
    l->cat_ns[PS_CAT_MEMCPY] = 8000000;
    l->cat_ns[PS_CAT_OTHER] = 10000000;
    /* the verdict's groups as the report carries them (top prints them, never regroups): host = Other */
    l->group_ns[PS_BN_DATA] = 62000000;
    l->group_ns[PS_BN_KERNEL] = 20000000;
    l->group_ns[PS_BN_MEMCPY] = 8000000;
    l->group_ns[PS_BN_HOST] = 10000000;
    l->seen_ns = 100000000;
    l->bottleneck = PS_BN_DATA;
    l->share = 0.62;
    l->gpu_util = NAN;
    snprintf(l->fix, sizeof l->fix, "use more DataLoader workers");
    l->have_open_table = 1;
    l->nstacks = 1;
    l->stacks[0] = (struct tui_live_stack){ 100, 101, "trainer", "step > data" };
    l->nkernels = 1;
    l->kernels[0] = (struct tui_live_kernel){ "ps_gemm_nn", 40, 12300000 };
}

static const char *find_line(const struct tui_frame *f, const char *needle)
{
    for (int i = 0; i < f->n; i++)
        if (strstr(f->line[i].text, needle))
            return f->line[i].text;
    return NULL;
}

static void test_view(void)
{
    static struct tui_top t;
    static struct tui_frame f;
    fill_state(&t);
    int sizes[][2] = { { 80, 24 }, { 200, 60 }, { 40, 10 } };
    for (size_t k = 0; k < 3; k++) {
        tui_layout_build(&t, sizes[k][0], sizes[k][1], &f);
        CHECK_EQ("rows used", f.n, sizes[k][1]);
        for (int i = 0; i < f.n; i++)
            CHECK(tui_text_cols(f.line[i].text) <= (size_t)sizes[k][0], "line %d wider than %d: %s", i, sizes[k][0],
                  f.line[i].text);
        CHECK(strstr(f.line[f.n - 1].text, "q quit"), "the key line is last at %dx%d", sizes[k][0], sizes[k][1]);
    }
    tui_layout_build(&t, 80, 24, &f);
    const char *g = find_line(&f, "GPU0 NVIDIA H200");
    CHECK(g && strstr(g, "SM  87%") && strstr(g, "mem  N/A") && strstr(g, "16.0 GiB / 140 GiB"),
          "GPU line: %s", g ? g : "(none)");
    CHECK(g && strstr(g, "N/A  412 / N/A W"), "temperature and power limit N/A, power 412 W: %s", g ? g : "");
    CHECK(find_line(&f, "     free 124 GiB  clocks SM"), "headroom line: 140 - 16 GiB free");
    /* the hook's allocator statistics of cuda:0: 1.5 GiB allocated, 2 GiB reserved, peak 5 GiB */
    t.live.ntorch_mem = 1;
    t.live.torch_mem[0] = (struct tui_live_torch_mem){ 0, 3ll << 29, 2ll << 30, 5ll << 30 };
    tui_layout_build(&t, 100, 30, &f);
    CHECK(find_line(&f, "PyTorch cuda:0 at the last step: allocated 1.50 GiB  reserved 2.00 GiB  peak 5.00 GiB"),
          "torch memory line");
    t.live.ntorch_mem = 0;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "Verdict: data-loading (62% of the step)"), "verdict line");
    /* no GPU rows (gpu_util NAN): the kernel group is host compute, as the report calls it */
    CHECK(find_line(&f, "compute 20%  data-loading 62%  memcpy 8%"), "breakdown line without GPU rows");
    t.live.has_gpu = 1;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "kernel 20%  data-loading 62%  memcpy 8%"), "breakdown line with GPU rows");
    t.live.has_gpu = 0;
    t.live.bottleneck = PS_BN_KERNEL;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "Verdict: compute (62% of the step)"), "a kernel verdict without GPU rows is compute");
    t.live.bottleneck = PS_BN_DATA;
    CHECK(find_line(&f, "100/101 (trainer): step > data"), "NVTX stack line");
    CHECK(find_line(&f, "CPU  50%"), "host CPU line");
    CHECK(find_line(&f, "mem 2.00 GiB / 8.00 GiB"), "host memory line");     /* 8 - 6 GiB used */
    /* no NVML: one line saying why, host panels still there */
    t.nvml_status = PS_NVML_NO_LIBRARY;
    snprintf(t.nvml_why, sizeof t.nvml_why, "no NVIDIA driver: libnvidia-ml.so.1 not found");
    t.ngpu = 0;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "GPU: no NVIDIA driver"), "no-NVML line");
    CHECK(!find_line(&f, "GPU0"), "no GPU rows without NVML");
    CHECK(find_line(&f, "CPU  50%"), "host CPU line without NVML");
    t.panel = TUI_PANEL_GPU_PROCS;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "[GPU processes]"), "panel tab marked");
    /* with a GPU: each process's SM utilisation (nvmlDeviceGetProcessUtilization), a MIG one with its instance */
    fill_state(&t);
    t.panel = TUI_PANEL_GPU_PROCS;
    t.gpu[0].s.nprocs = 2;
    t.gpu[0].s.procs[1] = (struct ps_gpu_proc){ .pid = 77, .used_bytes = 1 << 20, .gpu_instance_id = 2,
                                                .compute_instance_id = 0, .sm_util_pct = 5 };
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "GPU0      4242   71%"), "SM%% of 4242: %s", find_line(&f, "4242") ? find_line(&f, "4242") : "");
    CHECK(find_line(&f, "GPU0        77    5%"), "SM%% of 77");
    CHECK(find_line(&f, "GI 2 CI 0"), "the MIG instance of 77");
    t.gpu[0].s.valid &= ~PS_GPU_PROC_UTIL;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "GPU0      4242   N/A"), "SM%% N/A without nvmlDeviceGetProcessUtilization");
    /* a GPU in MIG mode lists its MIG devices under it */
    t.panel = TUI_PANEL_RECORDING;
    t.gpu[0].s.valid |= PS_GPU_MIG;
    t.gpu[0].s.mig_enabled = 1;
    t.gpu[0].s.nmig = 1;
    t.gpu[0].s.mig[0] = (struct ps_gpu_mig){ "MIG-e1000000-0000-0000-0000-000000000001", 1, 0, 1, 1 << 30, 20ull << 30 };
    tui_layout_build(&t, 100, 30, &f);
    CHECK(find_line(&f, "MIG GI 1 CI 0"), "MIG device line");
    CHECK(find_line(&f, "MIG-e1000000-0000-0000-0000-000000000001"), "MIG device UUID");
    t.help = 1;
    tui_layout_build(&t, 80, 24, &f);
    CHECK(find_line(&f, "Tab      next panel"), "help panel");
    /* a Fix wrapped over lines: cut at spaces by columns, never inside a character (each "µ" is 2 bytes) */
    t.help = 0;
    t.panel = TUI_PANEL_RECORDING;
    snprintf(t.live.fix, sizeof t.live.fix, "%s", "copies of 900 µs each µµµµµµµµµµ µµµµµµµµµµ µµµµµµµµµµ µµµµµµµµµµ "
                                                  "µµµµµµµµµµ µµµµµµµµµµ µµµµµµµµµµ");
    tui_layout_build(&t, 40, 24, &f);
    int fix_lines = 0;
    for (int i = 0; i < f.n; i++) {
        CHECK(ps_utf8_valid(f.line[i].text, strlen(f.line[i].text)) && !strstr(f.line[i].text, PS_UTF8_REPLACEMENT),
              "line %d cut a character: %s", i, f.line[i].text);
        fix_lines += strstr(f.line[i].text, "µµµµµµµµµµ") != NULL;
    }
    /* 35 columns after "Fix: ": "copies of 900 µs each" + one µ-word (32), then 3 µ-words per line (32): 3 lines */
    CHECK(fix_lines == 3, "the Fix wraps over 3 lines at 40 columns: %d", fix_lines);
    /* a fix longer than the screen keeps its first sentence and its expected gain */
    char longfix[PS_REC_LEN] = "Make the loader faster.";
    for (int i = 0; i < 40; i++)
        strcat(longfix, " words words words");
    strcat(longfix, " Expected gain: at most 5.000 ms per step (50.0 % of the average step).");
    snprintf(t.live.fix, sizeof t.live.fix, "%s", longfix);
    tui_layout_build(&t, 40, 24, &f);
    int head = 0, gain = 0;
    for (int i = 0; i < f.n; i++) {
        head |= strstr(f.line[i].text, "Fix: Make the loader faster. ...") != NULL;
        gain |= strstr(f.line[i].text, "Expected gain: at most 5.000 ms") != NULL;
    }
    CHECK(head && gain, "the Fix's first sentence and its gain on a small screen (head %d, gain %d)", head, gain);
}

static void test_snapshot(void)
{
    static struct tui_top t;
    fill_state(&t);
    t.live.ntorch_mem = 1;   /* cuda:0 at the last step: 1 GiB allocated, reserved unknown, peak 2 GiB */
    t.live.torch_mem[0] = (struct tui_live_torch_mem){ 0, 1ll << 30, -1, 2ll << 30 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ("snapshot", tui_snapshot_write(&t, f), 0);
    fclose(f);
    CHECK(strstr(buf, "\"util_sm_percent\": 87, \"util_memory_percent\": null"), "N/A as null: %.300s", buf);
    CHECK(strstr(buf, "\"temperature_c\": null, \"power_mw\": 412000, \"power_limit_mw\": null"), "power fields");
    CHECK(strstr(buf, "\"processes\": [{\"pid\": 4242, \"used_memory_bytes\": null, \"sm_util_percent\": 71, "
                      "\"memory_util_percent\": 12, \"gpu_instance_id\": null, \"compute_instance_id\": null}]"),
          "GPU processes: %.400s", strstr(buf, "\"processes\"") ? strstr(buf, "\"processes\"") : buf);
    CHECK(strstr(buf, "\"uuid\": \"GPU-5a000000-0000-0000-0000-000000000077\", \"pci_bus_id\": null"), "uuid, no PCI id");
    CHECK(strstr(buf, "\"bottleneck\": \"data-loading\""), "bottleneck");
    CHECK(strstr(buf, "\"groups_ns\": {\"kernel\": 20000000, \"data-loading\": 62000000, \"memcpy\": 8000000, "
                      "\"communication\": 0, \"sync\": 0, \"host\": 10000000, \"waiting\": 0}"), "groups: %s", strstr(buf, "groups"));
    CHECK(strstr(buf, "\"stack\": \"step > data\""), "open ranges");
    CHECK(strstr(buf, "\"gpu_utilization\": null"), "gpu utilisation null without GPU rows");
    CHECK(strstr(buf, "\"torch_memory\": [{\"device\": 0, \"allocated_bytes\": 1073741824, \"reserved_bytes\": null, "
                      "\"peak_allocated_bytes\": 2147483648}]"), "torch memory: %.200s",
          strstr(buf, "torch_memory") ? strstr(buf, "torch_memory") : buf);
    CHECK(buf[len - 1] == '\n' && buf[0] == '{', "one object, ending with a newline");
    free(buf);
}

int main(void)
{
    test_format();
    test_history();
    test_host_parsers();
    test_tree_order();
    test_view();
    test_snapshot();
    return check_failures != 0;
}
