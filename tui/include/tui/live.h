/* The live recording view of `perfscope top`: finds recordings in progress (the session directories of
 * docs/design.md) and, for the one watched, reads its trace through read-only connections while `record` writes it
 * (SQLite WAL) and runs the report's own analyses (analyzer/analyses, ps_ranks_report_compute) over the last N seconds:
 * step-time breakdown, verdict and its fix, top kernels; plus the NVTX ranges open right now per thread
 * (PERFSCOPE_LIVE_OPEN_RANGES, refreshed by `record` 4 times a second). ncurses-free. */
#ifndef PS_TUI_LIVE_H
#define PS_TUI_LIVE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/report.h"
#include "tui/history.h"
#include "read/reader.h"

struct tui_session {
    uint32_t recorder_pid;
    char trace[PATH_MAX];
    int own;                        /* the recorder runs as this user (its /proc entry is ours) */
    unsigned long tty;              /* the recorder's controlling terminal (proc(5) stat tty_nr; 0: none) */
};

/* Live recordings: session directories under `base` (ps_session_base_dir) whose recorder is running and that
 * name their trace. Fills out[0..max): this user's recordings first, of those the ones started from terminal
 * `tty` (the caller's tty_nr, tui_own_tty; 0: none) first, then the newest recorder (highest pid). Returns how
 * many were found. */
size_t tui_sessions_find(const char *base, unsigned long tty, struct tui_session *out, size_t max);
/* The controlling terminal of process pid (proc(5) /proc/PID/stat field 7, tty_nr; 0 when it has none or is
 * gone); pid 0: this process. */
unsigned long tui_process_tty(uint32_t pid);

enum tui_live_state {
    TUI_LIVE_NONE,          /* nothing watched */
    TUI_LIVE_RECORDING,     /* the recorder is running */
    TUI_LIVE_ENDED,         /* the recorder finished (or died): the last numbers stay */
    TUI_LIVE_ERROR,         /* the trace cannot be read (message) */
};

#define TUI_LIVE_KERNELS 5
#define TUI_LIVE_TORCH_DEVICES 8
#define TUI_LIVE_STACKS 8

struct tui_live_kernel {
    char name[160];
    int64_t count, total_ns;
};

struct tui_live_stack {
    uint32_t pid, tid;
    char thread[16];        /* the thread's OS name (/proc/PID/task/TID/comm), "" when gone */
    char stack[320];        /* outermost first, " > " between ranges */
};

struct tui_live {
    /* set by the caller */
    char trace[PATH_MAX];
    uint32_t recorder_pid;          /* 0: unknown (then PERFSCOPE_META recorder_pid) */
    int64_t window_ns;
    /* results */
    enum tui_live_state state;
    char message[PATH_MAX + 512];   /* why ERROR, or a note ("no step ranges yet") */
    char command[256];              /* the recorded command line, when the trace says */
    uint32_t child_pid;             /* the recorded program (root of the process tree); 0 unknown */
    int64_t now_ns;                 /* trace time of the window's end */
    int have_report;                /* the fields below hold the last window's analysis */
    size_t nsteps;                  /* steps in the window (0: whole_run) */
    int whole_run;                  /* no step ranges: the window is one breakdown */
    int64_t avg_dur_ns;
    int64_t cat_ns[PS_CAT_N];       /* the average step's breakdown (sums to avg_dur_ns) */
    int64_t sync_ns;
    int64_t group_ns[PS_BN_UNKNOWN];   /* the verdict's groups of the average step (analyses/verdict.h) */
    int64_t seen_ns;                /* what they sum to: the step less the work queued before the trace */
    enum ps_bottleneck bottleneck;
    double share;
    double gpu_util;                /* NAN: no GPU rows */
    int has_gpu;                    /* the window has GPU rows; without, the kernel group is host compute */
    char fix[PS_REC_LEN];           /* the report's first recommendation */
    char cause[256];                /* why the GPU (the step thread) is not at work: the largest cause of Where the
                                     * step goes that is not the GPU's own work, with its share and first name
                                     * ("data loading 62% in decode"); "" when none */
    struct tui_live_kernel kernels[TUI_LIVE_KERNELS];
    size_t nkernels;
    struct tui_live_stack stacks[TUI_LIVE_STACKS];
    size_t nstacks;
    int have_open_table;            /* the trace has PERFSCOPE_LIVE_OPEN_RANGES */
    struct tui_history step_ms;     /* each step's duration as it completes, ms */
    int64_t last_step_end_ns;
    int ended_analysed;             /* the finished trace's last window is analysed (not read again while it is
                                     * the same recording) */
    int incomplete;                 /* ended without recording_complete: its recorder was killed */
    int64_t unplaced;               /* trace rows read but not placed (damaged: end < start, no thread, ...) */
    struct ps_follow *follow;       /* the trace's rows so far (the analyzer's growing model) */
    int64_t dropped_before_ns;      /* the model's rows start at or after this (INT64_MIN: nothing dropped) */
    /* ---- GPU memory: the Python hook's allocator statistics (the report's torch memory devices) ---- */
    struct tui_live_torch_mem {
        int32_t device;             /* CUDA ordinal in the recorded process */
        int64_t allocated, reserved;   /* at the last step boundary; reserved -1 unknown */
        int64_t peak;               /* max_memory_allocated since the program started */
    } torch_mem[TUI_LIVE_TORCH_DEVICES];
    size_t ntorch_mem;
};

/* Start watching `trace` (recorder_pid 0: unknown). Resets l, which is zeroed or was watching. */
void tui_live_watch(struct tui_live *l, const char *trace, uint32_t recorder_pid, int64_t window_ns);
/* Free what l holds and zero it (tui_live_watch may start again on it). */
void tui_live_fini(struct tui_live *l);

/* Read what was appended to the trace and recompute everything. Never fails hard: a trace that cannot be read yet (being
 * created) or any more sets state ERROR with a message and keeps the last numbers. */
void tui_live_update(struct tui_live *l);

/* 1 when process `pid` runs `perfscope record` (pid reuse of a dead recorder's pid is not a recorder). */
int tui_recorder_alive(uint32_t pid);

#endif
