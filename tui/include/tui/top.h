/* The state of `perfscope top` between its sampling loop (cli/cmd_top.c), its views (layout.c: text lines for the
 * screen; snapshot.c: the JSON of --snapshot) and the ncurses screen (screen.c). ncurses-free. */
#ifndef PS_TUI_TOP_H
#define PS_TUI_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "tui/history.h"
#include "tui/host.h"
#include "tui/live.h"
#include "tui/procs.h"
#include "ps_nvml.h"

#define TUI_MAX_GPUS 16
#define TUI_MAX_SESSIONS 9          /* picked with the keys 1..9 */

/* The panels Tab cycles through below the GPU and host summaries. */
enum tui_panel { TUI_PANEL_RECORDING, TUI_PANEL_PROCESSES, TUI_PANEL_GPU_PROCS, TUI_PANEL_N };
extern const char *const tui_panel_name[TUI_PANEL_N];

struct tui_gpu {
    struct ps_gpu_sample s;
    int ok;                         /* s holds a sample (the device answered) */
    struct tui_history util, mem_pct, power_w;
};

struct tui_top {
    /* options and interaction */
    double interval_s;
    int64_t window_ns;
    int paused, help;
    enum tui_panel panel;
    enum tui_sort sort;
    int color;                      /* colours allowed (a colour terminal and no NO_COLOR) */
    int ascii;                      /* the terminal's locale is not UTF-8: ASCII sparklines and tree marks */
    char status[256];               /* the last diagnostic (status line) */
    int64_t samples;                /* sampling rounds done */
    /* host */
    char hostname[64];
    struct tui_host host;
    struct tui_history host_cpu;
    /* GPUs */
    int nvml_status;                /* enum ps_nvml_status */
    char nvml_why[256];
    struct ps_nvml *nvml;
    unsigned ngpu;
    struct tui_gpu gpu[TUI_MAX_GPUS];
    /* the recorded process tree */
    struct tui_procs *procs;
    const struct tui_proc *proc_rows;
    size_t nproc_rows;
    /* live recordings */
    const char *trace_opt;          /* --trace FILE, else NULL: automatic */
    struct tui_session sessions[TUI_MAX_SESSIONS];
    size_t nsessions;
    unsigned long tty;              /* top's own controlling terminal (tty_nr; 0: none) */
    struct tui_session watched;     /* the session live watches (automatic mode) */
    char watch_reason[160];         /* why that one ("started from this terminal"); "" with --trace */
    int watching;                   /* live below is in use */
    int picked;                     /* the watched one was picked with its key: never switched away from */
    uint32_t offered_pid;           /* a recorder the status line offers (press its row's key); 0 none */
    struct tui_live live;
};

#endif
