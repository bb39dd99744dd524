/* The screen's lines (see layout.h). Layout rules: the title and the key line always show; GPUs and the host get
 * their summaries first; the selected panel takes the rows left. Unknown values print N/A. */
#include "tui/layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "ps_text_escape.h"

/* Sparklines in UTF-8 blocks, or ASCII when the terminal has no UTF-8 (tui_top.ascii). */
#define SPARK(t, h, cols, max, buf) ((t)->ascii ? tui_sparkline_ascii : tui_sparkline)(h, cols, max, buf, sizeof buf)

const char *const tui_panel_name[TUI_PANEL_N] = { "Recording", "Processes", "GPU processes" };

/* Lines are added while room is left; `reserve` rows stay free for the key line. */
struct builder {
    struct tui_frame *f;
    int limit;                      /* the last row usable before the key line */
};

static int room(const struct builder *b)
{
    return b->limit - b->f->n;
}

static void add(struct builder *b, int style, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct builder *b, int style, const char *fmt, ...)
{
    if (room(b) <= 0)
        return;
    char raw[2048], shown[sizeof raw * 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* names from the trace, /proc and the recorded command are untrusted: a control character would move the
     * cursor (a \r lets a name overwrite its own line) or start a terminal sequence; shown escaped, as in report */
    ps_text_escape(raw, shown, sizeof shown, NULL);
    struct tui_line *l = &b->f->line[b->f->n++];
    l->style = style;
    tui_fit(l->text, sizeof l->text, shown, (size_t)b->f->cols, 0);
}

/* Text wrapped at spaces into at most max_lines lines of cols columns, each prefixed by `indent` spaces
 * (the first by `first`). */
static void add_wrapped(struct builder *b, int style, const char *first, const char *text, int max_lines)
{
    size_t cols = (size_t)b->f->cols, lead = tui_text_cols(first);
    const char *p = text;
    for (int i = 0; i < max_lines && *p && room(b) > 0; i++) {
        size_t width = cols > lead + 10 ? cols - lead : 10, take = strlen(p);
        if (tui_text_cols(p) > width) {
            size_t half = tui_text_bytes(p, width / 2);
            take = tui_text_bytes(p, width);
            while (take > half && p[take] != ' ')       /* a space is one byte: never inside a character */
                take--;
        }
        add(b, style, "%*s%.*s", (int)lead, i == 0 ? first : "", (int)take, p);
        p += take;
        while (*p == ' ')
            p++;
    }
}

/* How many lines add_wrapped needs for the whole text. */
static int wrapped_lines(const struct builder *b, const char *first, const char *text)
{
    size_t cols = (size_t)b->f->cols, lead = tui_text_cols(first), width = cols > lead + 10 ? cols - lead : 10;
    int n = 0;
    for (const char *p = text; *p; n++) {
        size_t take = strlen(p);
        if (tui_text_cols(p) > width) {
            size_t half = tui_text_bytes(p, width / 2);
            take = tui_text_bytes(p, width);
            while (take > half && p[take] != ' ')
                take--;
        }
        p += take;
        while (*p == ' ')
            p++;
    }
    return n;
}

/* The verdict's fix wrapped to the screen, leaving FIX_KEEP rows for what follows; when it does not fit, its first
 * sentence and then its expected gain (the report words every fix "... Expected gain: at most ..."). */
#define FIX_KEEP 4
static void add_fix(struct builder *b, const char *fix)
{
    int lines = room(b) - FIX_KEEP > 2 ? room(b) - FIX_KEEP : 2;
    const char *gain = strstr(fix, "Expected gain:");
    if (wrapped_lines(b, "Fix: ", fix) <= lines || !gain) {
        add_wrapped(b, TUI_S_NORMAL, "Fix: ", fix, lines);
        return;
    }
    int gain_lines = wrapped_lines(b, "Fix: ", gain);
    gain_lines = gain_lines < lines - 1 ? gain_lines : lines - 1;
    const char *stop = strstr(fix, ". ");
    size_t first = stop && stop < gain ? (size_t)(stop - fix) + 1 : (size_t)(gain - fix);
    char head[PS_REC_LEN];
    snprintf(head, sizeof head, "%.*s ...", (int)first, fix);
    add_wrapped(b, TUI_S_NORMAL, "Fix: ", head, lines - gain_lines);
    add_wrapped(b, TUI_S_NORMAL, "     ", gain, gain_lines);
}

static const char *na_u(char *buf, size_t len, int valid, unsigned v, const char *unit)
{
    if (valid)
        snprintf(buf, len, "%u%s", v, unit);
    else
        snprintf(buf, len, TUI_NA);
    return buf;
}

/* "GI 1 CI 0" for a process on a MIG instance, "" otherwise. */
static const char *mig_ids(char *buf, size_t len, uint32_t gi, uint32_t ci)
{
    if (gi == PS_GPU_NO_INSTANCE)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "GI %u CI %u", gi, ci);
    return buf;
}

static void gpu_lines(struct builder *b, const struct tui_top *t, size_t spark_cols)
{
    if (t->nvml_status != PS_NVML_OK) {
        add(b, TUI_S_WARN, "GPU: %s", t->nvml_why);
        return;
    }
    if (t->ngpu == 0) {
        add(b, TUI_S_WARN, "GPU: NVML sees no GPU");
        return;
    }
    for (unsigned i = 0; i < t->ngpu && room(b) > 0; i++) {
        const struct tui_gpu *g = &t->gpu[i];
        const struct ps_gpu_sample *s = &g->s;
        char sm[16], mem[16], used[16], total[16], temp[16], pw[16], lim[16], clk[16], mclk[16], rx[24], tx[24],
            thr[128];
        if (!g->ok) {
            add(b, TUI_S_BAD, "GPU%u %s: not answering (lost?)", i, s->name[0] ? s->name : "");
            continue;
        }
        int vm = (s->valid & PS_GPU_MEM) != 0;
        char room_left[16];   /* headroom: what another allocation can still get */
        tui_fmt_bytes(room_left, sizeof room_left, vm && s->mem_total_bytes >= s->mem_used_bytes
                                                    ? (double)(s->mem_total_bytes - s->mem_used_bytes) : -1);
        add(b, TUI_S_NORMAL, "GPU%u %-16.16s SM %4s  mem %4s  %s / %s  %s  %s / %s W%s", i,
            s->name[0] ? s->name : TUI_NA, tui_fmt_pct(sm, sizeof sm, s->valid & PS_GPU_UTIL_SM, s->util_sm_pct),
            tui_fmt_pct(mem, sizeof mem, s->valid & PS_GPU_UTIL_MEM, s->util_mem_pct),
            tui_fmt_bytes(used, sizeof used, vm ? (double)s->mem_used_bytes : -1),
            tui_fmt_bytes(total, sizeof total, vm ? (double)s->mem_total_bytes : -1),
            na_u(temp, sizeof temp, s->valid & PS_GPU_TEMP, s->temp_c, "C"),
            na_u(pw, sizeof pw, s->valid & PS_GPU_POWER, s->power_mw / 1000, ""),
            na_u(lim, sizeof lim, s->valid & PS_GPU_POWER_LIMIT, s->power_limit_mw / 1000, ""),
            (s->valid & PS_GPU_MIG) && s->mig_enabled ? "  MIG" : "");
        add(b, TUI_S_NORMAL, "     free %s  clocks SM %s mem %s MHz  PCIe rx %s tx %s  throttle %s", room_left,
            na_u(clk, sizeof clk, s->valid & PS_GPU_CLOCK_SM, s->clock_sm_mhz, ""),
            na_u(mclk, sizeof mclk, s->valid & PS_GPU_CLOCK_MEM, s->clock_mem_mhz, ""),
            tui_fmt_rate(rx, sizeof rx, s->valid & PS_GPU_PCIE_RX ? s->pcie_rx_kbps * 1024.0 : -1),
            tui_fmt_rate(tx, sizeof tx, s->valid & PS_GPU_PCIE_TX ? s->pcie_tx_kbps * 1024.0 : -1),
            s->valid & PS_GPU_THROTTLE ? ps_nvml_throttle_text(s->throttle, thr, sizeof thr) : TUI_NA);
        for (size_t k = 0; (s->valid & PS_GPU_MIG) && s->mig_enabled && k < s->nmig && room(b) > 0; k++) {
            const struct ps_gpu_mig *m = &s->mig[k];
            char mu[16], mt[16], ids[32];
            add(b, TUI_S_NORMAL, "     MIG %-10s %s  mem %s / %s", mig_ids(ids, sizeof ids, m->gpu_instance_id,
                m->compute_instance_id), m->uuid[0] ? m->uuid : TUI_NA,
                tui_fmt_bytes(mu, sizeof mu, m->mem_valid ? (double)m->mem_used_bytes : -1),
                tui_fmt_bytes(mt, sizeof mt, m->mem_valid ? (double)m->mem_total_bytes : -1));
        }
        char su[TUI_LINE_BYTES], sme[TUI_LINE_BYTES], sp[TUI_LINE_BYTES];
        add(b, TUI_S_DIM, "     util %s  mem %s  power %s", SPARK(t, &g->util, spark_cols, 100, su),
            SPARK(t, &g->mem_pct, spark_cols, 100, sme),
            SPARK(t, &g->power_w, spark_cols, s->valid & PS_GPU_POWER_LIMIT ? s->power_limit_mw / 1000.0 : 0, sp));
    }
}

static void host_lines(struct builder *b, const struct tui_top *t, size_t spark_cols)
{
    const struct tui_host *h = &t->host;
    char pct[16], used[16], total[16], sw[16], swt[16], spark[TUI_LINE_BYTES], load[48];
    if (h->load_valid)
        snprintf(load, sizeof load, "%.2f %.2f %.2f", h->load[0], h->load[1], h->load[2]);
    else
        snprintf(load, sizeof load, TUI_NA);
    int mv = h->mem_total >= 0 && h->mem_available >= 0, sv = h->swap_total >= 0 && h->swap_free >= 0;
    add(b, TUI_S_NORMAL, "CPU %4s %s  load %s  mem %s / %s  swap %s / %s",
        tui_fmt_pct(pct, sizeof pct, h->cpu_valid, h->total_pct), SPARK(t, &t->host_cpu, spark_cols, 100, spark),
        load, tui_fmt_bytes(used, sizeof used, mv ? (double)(h->mem_total - h->mem_available) : -1),
        tui_fmt_bytes(total, sizeof total, mv ? (double)h->mem_total : -1),
        tui_fmt_bytes(sw, sizeof sw, sv ? (double)(h->swap_total - h->swap_free) : -1),
        tui_fmt_bytes(swt, sizeof swt, sv ? (double)h->swap_total : -1));
    /* per core: "  3[||||      42%]" cells of 18 columns, at most 4 rows (more cores: the busiest rows) */
    int cell = 18, per_row = b->f->cols / cell > 0 ? b->f->cols / cell : 1;
    int rows = (h->ncpu + per_row - 1) / per_row;
    if (rows > 4)
        rows = 4;
    for (int r = 0; r < rows && room(b) > 0; r++) {
        char line[TUI_LINE_BYTES] = "";
        size_t off = 0;
        for (int c = 0; c < per_row; c++) {
            int i = r * per_row + c;
            if (i >= h->ncpu || (r == rows - 1 && c == per_row - 1 && i + 1 < h->ncpu && rows == 4)) {
                if (i < h->ncpu)
                    off += (size_t)snprintf(line + off, sizeof line - off, " +%d more cores", h->ncpu - i);
                break;
            }
            char bar[32], p[8];
            tui_bar(bar, sizeof bar, h->cpu_valid ? h->cpu_pct[i] / 100 : 0, 8);
            off += (size_t)snprintf(line + off, sizeof line - off, "%4d%s%4s ", i, bar,
                                    tui_fmt_pct(p, sizeof p, h->cpu_valid, h->cpu_valid ? h->cpu_pct[i] : 0));
            if (off >= sizeof line)
                break;
        }
        add(b, TUI_S_NORMAL, "%s", line);
    }
}

/* A verdict group's name as every output shows it: without GPU rows the kernel group is host compute, "compute"
 * (the report's word too). */
static const char *group_name(const struct tui_live *l, enum ps_bottleneck bn)
{
    return bn == PS_BN_KERNEL && !l->has_gpu ? "compute" : ps_bottleneck_name[bn];
}

static int verdict_style(enum ps_bottleneck bn)
{
    return bn == PS_BN_KERNEL ? TUI_S_GOOD : bn == PS_BN_UNKNOWN ? TUI_S_NORMAL : TUI_S_BAD;
}

/* The live recordings found (when several: the keys that pick them) and why the watched one is. */
static void sessions_lines(struct builder *b, const struct tui_top *t)
{
    const struct tui_live *l = &t->live;
    if (t->nsessions > 1)
        for (size_t i = 0; i < t->nsessions && room(b) > 0; i++) {
            char lead[48], trace[TUI_LINE_BYTES];
            size_t lead_cols = (size_t)snprintf(lead, sizeof lead, "%zu) recorder %u  ", i + 1,
                                                t->sessions[i].recorder_pid);
            tui_fit_path(trace, sizeof trace, t->sessions[i].trace,
                         (size_t)b->f->cols > lead_cols + 16 ? (size_t)b->f->cols - lead_cols : 16);
            add(b, t->watching && t->sessions[i].recorder_pid == l->recorder_pid ? TUI_S_HEADER : TUI_S_NORMAL,
                "%s%s", lead, trace);
        }
    if (t->watching && t->watch_reason[0])
        add(b, TUI_S_DIM, "Watching recorder %u (%s)", l->recorder_pid, t->watch_reason);
}

/* The watched trace's line: its path, state and command; then what cannot be read or placed. */
static void trace_line(struct builder *b, const struct tui_live *l)
{
    const char *state = l->state == TUI_LIVE_RECORDING ? "recording"
                        : l->state == TUI_LIVE_ENDED    ? (l->incomplete ? "recording ended, incomplete: the recorder "
                                                                           "was killed; `perfscope record --recover`"
                                                                         : "recording ended")
                        : l->state == TUI_LIVE_ERROR ? "cannot read" : "";
    /* the path gives way before the state and the command line: a long build-tree path would otherwise push
     * "(cannot read)" or the command off the line. It keeps a third of the line at least (a long command is cut
     * at its end then). The command is measured as add shows it, escaped. */
    size_t cols = (size_t)b->f->cols, state_cols = tui_text_cols(state) + 3, cmd_cols = 0;
    char trace[TUI_LINE_BYTES], shown[TUI_LINE_BYTES * 4];
    if (l->command[0]) {
        ps_text_escape(l->command, shown, sizeof shown, NULL);
        cmd_cols = tui_text_cols(shown) + 2;   /* ": " before it */
    }
    size_t keep = cols / 3 > 16 ? cols / 3 : 16;
    size_t path_cols = cols > state_cols + cmd_cols + keep ? cols - state_cols - cmd_cols
                       : cols > state_cols + keep     ? keep
                       : cols > state_cols + 16       ? cols - state_cols
                                                      : 16;
    tui_fit_path(trace, sizeof trace, l->trace, path_cols);
    add(b, l->state == TUI_LIVE_RECORDING ? TUI_S_GOOD : TUI_S_WARN, "%s (%s)%s%s", trace, state,
        l->command[0] ? ": " : "", l->command);
    if (l->state == TUI_LIVE_ERROR || (l->message[0] && !l->have_report))
        add(b, TUI_S_WARN, "%s", l->message);
    if (l->unplaced > 0)
        add(b, TUI_S_WARN, "%lld trace rows could not be placed (damaged rows): `perfscope report` lists why",
            (long long)l->unplaced);
}

/* What the report of the window says: steps, verdict and fix, the verdict's groups (as the report carries them),
 * PyTorch's memory, the step times and the top kernels. */
static void report_lines(struct builder *b, const struct tui_top *t, size_t spark_cols)
{
    const struct tui_live *l = &t->live;
    char avg[24], util[16];
    if (l->whole_run)
        add(b, TUI_S_NORMAL, "Last %.0f s: no step ranges; the window as one step (%s)  GPU util %s",
            (double)l->window_ns / 1e9, tui_fmt_ns(avg, sizeof avg, l->avg_dur_ns),
            tui_fmt_pct(util, sizeof util, !isnan(l->gpu_util), l->gpu_util * 100));
    else
        add(b, TUI_S_NORMAL, "Last %.0f s: %zu steps, average step %s  GPU util %s",
            (double)l->window_ns / 1e9, l->nsteps, tui_fmt_ns(avg, sizeof avg, l->avg_dur_ns),
            tui_fmt_pct(util, sizeof util, !isnan(l->gpu_util), l->gpu_util * 100));
    add(b, verdict_style(l->bottleneck), "Verdict: %s (%.0f%% of the step)%s%s", group_name(l, l->bottleneck),
        l->share * 100, l->cause[0] ? " — " : "", l->cause);
    if (l->fix[0])
        add_fix(b, l->fix);
    char line[512];
    size_t off = 0;
    for (int i = 0; i < PS_BN_UNKNOWN; i++)
        off += (size_t)snprintf(line + off, sizeof line - off, "%s %.0f%%  ", group_name(l, (enum ps_bottleneck)i),
                                l->seen_ns > 0 ? 100.0 * (double)l->group_ns[i] / (double)l->seen_ns : 0);
    add(b, TUI_S_NORMAL, "Breakdown: %s", line);
    for (size_t i = 0; i < l->ntorch_mem && room(b) > 2; i++) {
        const struct tui_live_torch_mem *tm = &l->torch_mem[i];
        char a[16], r[16], p[16];
        add(b, TUI_S_NORMAL, "PyTorch cuda:%d at the last step: allocated %s  reserved %s  peak %s", tm->device,
            tui_fmt_bytes(a, sizeof a, (double)tm->allocated), tui_fmt_bytes(r, sizeof r, (double)tm->reserved),
            tui_fmt_bytes(p, sizeof p, (double)tm->peak));
    }
    char spark[TUI_LINE_BYTES];
    if (l->step_ms.n)
        add(b, TUI_S_DIM, "Step time %s (last %zu steps)", SPARK(t, &l->step_ms, spark_cols, 0, spark),
            l->step_ms.n < spark_cols ? l->step_ms.n : spark_cols);   /* the sparkline draws the newest only */
    if (l->nkernels && room(b) > 2) {
        add(b, TUI_S_HEADER, "Top kernels (last %.0f s)", (double)l->window_ns / 1e9);
        for (size_t i = 0; i < l->nkernels && room(b) > 1; i++) {
            char tot[24];
            add(b, TUI_S_NORMAL, "  %10s %7lldx  %s", tui_fmt_ns(tot, sizeof tot, l->kernels[i].total_ns),
                (long long)l->kernels[i].count, l->kernels[i].name);
        }
    }
}

/* The NVTX ranges open now in each thread of a live recording. */
static void open_ranges_lines(struct builder *b, const struct tui_live *l)
{
    if (!l->have_open_table)
        add(b, TUI_S_DIM, "NVTX ranges open now: not in this trace (recorded by an older perfscope)");
    else if (!l->nstacks)
        add(b, TUI_S_DIM, "NVTX ranges open now: none");
    else {
        add(b, TUI_S_HEADER, "NVTX ranges open now");
        for (size_t i = 0; i < l->nstacks; i++)
            add(b, TUI_S_NORMAL, "  %u/%u%s%s%s: %s", l->stacks[i].pid, l->stacks[i].tid,
                l->stacks[i].thread[0] ? " (" : "", l->stacks[i].thread, l->stacks[i].thread[0] ? ")" : "",
                l->stacks[i].stack);
    }
}

static void recording_panel(struct builder *b, const struct tui_top *t, size_t spark_cols)
{
    const struct tui_live *l = &t->live;
    sessions_lines(b, t);
    if (!t->watching) {
        add(b, TUI_S_DIM, "No live recording: start one with `perfscope record -o run.sqlite -- CMD`, or watch a "
                          "trace with --trace FILE");
        return;
    }
    trace_line(b, l);
    if (l->have_report)
        report_lines(b, t, spark_cols);
    if (l->state == TUI_LIVE_RECORDING)
        open_ranges_lines(b, l);
}

static const char *thread_states(char *buf, size_t len, const struct tui_proc *p)
{
    snprintf(buf, len, "%d/%d/%d", p->states[PS_THREAD_RUNNING], p->states[PS_THREAD_SLEEPING],
             p->states[PS_THREAD_BLOCKED_IO]);
    return buf;
}

static void processes_panel(struct builder *b, const struct tui_top *t)
{
    if (!t->procs) {
        add(b, TUI_S_DIM, "No recorded process tree (it shows while `perfscope record` runs a program).");
        return;
    }
    add(b, TUI_S_HEADER, "    PID   CPU%%       RSS    Read/s   Write/s  Threads R/S/D  Name  (sort: %s)",
        tui_sort_name[t->sort]);
    for (size_t i = 0; i < t->nproc_rows && room(b) > 0; i++) {
        const struct tui_proc *p = &t->proc_rows[i];
        char cpu[16], rss[16], rd[24], wr[24], st[24], name[96];
        if (p->cpu_pct >= 0)
            snprintf(cpu, sizeof cpu, "%.0f", p->cpu_pct);
        else
            snprintf(cpu, sizeof cpu, TUI_NA);
        snprintf(name, sizeof name, "%*s%s%s%s", p->depth * 2, "", p->depth ? (t->ascii ? "`- " : "└ ") : "", p->comm,
                 p->children ? (p->depth ? " (workers below)" : " (trainer; workers below)") : "");
        add(b, TUI_S_NORMAL, "%7u %6s %9s %9s %9s %4lld %8s  %s", p->pid, cpu,
            tui_fmt_bytes(rss, sizeof rss, (double)p->rss_bytes), tui_fmt_rate(rd, sizeof rd, p->read_bps),
            tui_fmt_rate(wr, sizeof wr, p->write_bps), (long long)p->threads, thread_states(st, sizeof st, p), name);
    }
}

static void gpu_procs_panel(struct builder *b, const struct tui_top *t)
{
    int any = 0;
    add(b, TUI_S_HEADER, "GPU      PID   SM%%  GPU memory  MIG");
    for (unsigned i = 0; i < t->ngpu; i++) {
        const struct ps_gpu_sample *s = &t->gpu[i].s;
        if (!(s->valid & PS_GPU_PROCS)) {
            add(b, TUI_S_DIM, "GPU%u  process list N/A", i);
            continue;
        }
        for (size_t k = 0; k < s->nprocs && room(b) > 0; k++, any = 1) {
            const struct ps_gpu_proc *p = &s->procs[k];
            char mem[16], sm[16], mig[32];
            add(b, TUI_S_NORMAL, "GPU%-3u %7u  %4s  %10s  %s", i, p->pid,
                tui_fmt_pct(sm, sizeof sm, s->valid & PS_GPU_PROC_UTIL, p->sm_util_pct),
                tui_fmt_bytes(mem, sizeof mem, (double)p->used_bytes),
                mig_ids(mig, sizeof mig, p->gpu_instance_id, p->compute_instance_id));
        }
    }
    if (!any && t->ngpu)
        add(b, TUI_S_DIM, "no compute processes on the GPUs");
    if (t->nvml_status != PS_NVML_OK)
        add(b, TUI_S_DIM, "no GPU processes: %s", t->nvml_why);
}

static void help_panel(struct builder *b)
{
    static const char *const lines[] = {
        "Keys:",
        "  q        quit (also Ctrl-C)",
        "  p        pause / resume sampling",
        "  Tab      next panel: Recording, Processes, GPU processes",
        "  s        sort the process tree: cpu, rss, pid",
        "  + / -    refresh interval longer / shorter (0.25 s .. 10 s)",
        "  1..9     watch that live recording (when several run)",
        "  h        this help (any key closes it)",
        "N/A: the value is not available (unsupported by the device, MIG, or not sampled yet).",
        "Verdict and breakdown: the same analyses as `perfscope report`, over the last --window seconds.",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        add(b, i ? TUI_S_NORMAL : TUI_S_HEADER, "%s", lines[i]);
}

void tui_layout_build(const struct tui_top *t, int cols, int rows, struct tui_frame *f)
{
    if (cols > 300)
        cols = 300;
    if (rows > TUI_FRAME_MAX)
        rows = TUI_FRAME_MAX;
    f->cols = cols > 1 ? cols : 1;
    f->rows = rows > 1 ? rows : 1;
    f->n = 0;
    struct builder b = { f, f->rows - 1 };
    size_t spark = cols >= 160 ? 40 : cols >= 100 ? 20 : 12;
    add(&b, TUI_S_TITLE, "perfscope top  %s  every %.2g s%s", t->hostname, t->interval_s,
        t->paused ? "  [paused]" : "");
    gpu_lines(&b, t, spark);
    host_lines(&b, t, spark);
    char tabs[160];
    size_t off = 0;
    for (int i = 0; i < TUI_PANEL_N; i++)
        off += (size_t)snprintf(tabs + off, sizeof tabs - off, i == (int)t->panel ? "[%s]  " : " %s   ",
                                tui_panel_name[i]);
    add(&b, TUI_S_HEADER, "%s(Tab)", tabs);
    if (t->help)
        help_panel(&b);
    else if (t->panel == TUI_PANEL_RECORDING)
        recording_panel(&b, t, spark);
    else if (t->panel == TUI_PANEL_PROCESSES)
        processes_panel(&b, t);
    else
        gpu_procs_panel(&b, t);
    /* the last row: a diagnostic when there is one, else the keys */
    b.limit = f->rows;
    while (f->n < f->rows - 1) {
        f->line[f->n].style = TUI_S_NORMAL;
        f->line[f->n++].text[0] = '\0';
    }
    if (t->status[0])
        add(&b, TUI_S_WARN, "%s", t->status);
    else
        add(&b, TUI_S_DIM, "q quit  p pause  Tab panel  s sort (%s)  +/- interval  h help", tui_sort_name[t->sort]);
}
