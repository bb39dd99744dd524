#!/usr/bin/env bash
# The figures of `perfscope top` (docs/top.md), printed, never asserted:
#  1. CPU use (% of one core) and peak RSS of `top` at 1 Hz in tmux over DURATION s (default 60) while `perfscope
#     record` runs the data-bound reference scenario (goals: <= 1 %, <= 15 MB);
#  2. the delay from an NVTX push in a recorded program to its appearance in top's open-ranges panel at 1 Hz
#     (goal <= 2 s), over several pushes.
# Usage: bench/tui/top_figures.sh [BUILD_DIR] [DURATION_S]
set -u
build=${1:-build}
duration=${2:-60}
ps=$build/cli/perfscope
work=$(mktemp -d /tmp/perfscope-top-bench.XXXXXX)
export XDG_RUNTIME_DIR=$work/xdg LANG=C.UTF-8
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
sock=$work/tmux.sock
cleanup() { tmux -S "$sock" kill-server 2>/dev/null; kill $rec 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
clk=$(getconf CLK_TCK)

# --- 1. CPU and memory ---
"$ps" record -o "$work/run.sqlite" -- "$build/workloads/train" --scenario data-bound --steps 1000000 \
    >"$work/train.out" 2>&1 &
rec=$!
sleep 2
tmux -S "$sock" new-session -d -s top -x 120 -y 40 "$ps top -d 1; sleep 600"
sleep 2
top_pid=$(pgrep -n -f "^$ps top -d 1")
read_ticks() { awk '{print $14 + $15}' "/proc/$top_pid/stat"; }
t0=$(date +%s%N); c0=$(read_ticks)
sleep "$duration"
t1=$(date +%s%N); c1=$(read_ticks)
hwm_kb=$(awk '/VmHWM/ {print $2}' "/proc/$top_pid/status")
rows=$(sqlite3 -readonly "$work/run.sqlite" "SELECT count(*) FROM NVTX_EVENTS" 2>/dev/null)
tmux -S "$sock" capture-pane -p -t top | grep -q "Verdict:" && attached=yes || attached=no
awk -v c="$((c1 - c0))" -v hz="$clk" -v ns="$((t1 - t0))" -v kb="$hwm_kb" -v rows="$rows" -v a="$attached" 'BEGIN {
    printf "top_cpu_percent_of_one_core %.2f (over %.0f s at 1 Hz; recording attached: %s; trace rows at the end: %s)\n",
        100 * c / hz / (ns / 1e9), ns / 1e9, a, rows
    printf "top_peak_rss_mb %.1f\n", kb / 1024 }'
tmux -S "$sock" kill-server; kill $rec 2>/dev/null; wait $rec 2>/dev/null

# --- 2. delay from an NVTX push to the screen ---
"$ps" record -o "$work/lat.sqlite" -- "$build/bench/tui/latency_prog" 12 2500 1500 >"$work/pushes" 2>"$work/lat.err" &
rec=$!
tmux -S "$sock" new-session -d -s top -x 120 -y 40 "$ps top -d 1; sleep 600"
python3 - "$sock" "$work/pushes" <<'PY'
import subprocess, sys, time
sock, pushes = sys.argv[1], sys.argv[2]
def shown():
    out = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-t", "top"], capture_output=True, text=True).stdout
    return ": marker" in out or "> marker" in out
delays, seen_for = [], set()
deadline = time.monotonic() + 40
while time.monotonic() < deadline:
    lines = open(pushes).read().split()
    if lines and lines[-1] not in seen_for and shown():
        push_ns = int(lines[-1])
        delays.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC) - push_ns)
        seen_for.add(lines[-1])
    if len(lines) >= 12 and lines[-1] in seen_for:
        break
    time.sleep(0.02)
delays = delays[1:]      # the first push may race top's first sample of the new session
if delays:
    delays.sort()
    print("top_push_to_screen_delay_ms median %.0f max %.0f (n=%d; refresh 1 s; open ranges refreshed every 0.25 s by record)"
          % (delays[len(delays) // 2] / 1e6, delays[-1] / 1e6, len(delays)))
else:
    print("top_push_to_screen_delay_ms none measured")
PY
