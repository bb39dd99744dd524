#!/usr/bin/env bash
# perfscope top through the real binary: in tmux (keys, resizes, colours, exit) while `perfscope record` runs the
# data-bound reference scenario, and in snapshot mode (--iterations N --snapshot json), with the test-only NVML
# stand-in or without any NVML. The data-bound runs use 4 hidden units: under ASan the default layer's compute
# reaches the kernel-bound threshold and the verdict would follow the build, not the scenario.
# usage: top_tests.sh PERFSCOPE TRAIN STANDIN_DIR WORKDIR CASE
set -u
perfscope=$1 train=$2 standin_dir=$3 case=$5
dir=$4/$case
rm -rf "$dir" && mkdir -p "$dir/xdg" && chmod 700 "$dir/xdg"
export XDG_RUNTIME_DIR=$dir/xdg          # a private session directory: only this test's recordings are found
export LANG=C.UTF-8
# tmux's socket lives in a short private directory: a Unix socket's path holds at most 107 bytes (unix(7)), and
# the build tree's path plus a test's name can pass that (tmux then fails with "File name too long").
sockdir=$(mktemp -d "${TMPDIR:-/tmp}/pstop.XXXXXX") || { echo "FAIL $case: mktemp" >&2; exit 1; }
sock=$sockdir/tmux.sock
fail() {
    echo "FAIL $case: $*" >&2
    [ -S "$sock" ] && { echo "--- pane:" >&2; tmux -S "$sock" capture-pane -p -t top >&2 2>/dev/null; }
    cleanup
    exit 1
}
cleanup() {
    touch "$dir/go" "$dir/other_go" 2>/dev/null   # programs that hold a recording open until the test says so
    [ -S "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null
    rm -rf "$sockdir"
    [ -n "${rec_pid:-}" ] && kill "$rec_pid" 2>/dev/null && wait "$rec_pid" 2>/dev/null
    return 0
}
trap cleanup EXIT
json() { # json EXPR FILE: print a Python expression over the JSON object d (a tuple: its items, spaced)
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=($1); print(*r) if isinstance(r, tuple) else print(r)" "$2"
}

# The stand-in GPU: 2 devices; gpu1 is MIG-enabled (utilisation unsupported, temperature failing).
cat >"$dir/gpu.nvml" <<'S'
count=2
gpu0.name=NVIDIA H200
gpu0.util=50,10;60,20;70,30
gpu0.mem=17179869184,150754820096
gpu0.temp=61
gpu0.power=412000
gpu0.power_limit=700000
gpu0.clock_sm=1980
gpu0.clock_mem=3201
gpu0.pcie_rx=1024
gpu0.pcie_tx=2048
gpu0.throttle=4
gpu0.mig=0
gpu0.procs=4242:1073741824
gpu0.proc_stride=32
gpu0.uuid=GPU-5a000000-0000-0000-0000-000000000077
gpu0.pci=00000000:19:00.0
gpu0.proc_util=4242:64:9:1000;4242:64:9:1000;4242:50:8:2000;4242:50:8:2000;4242:71:9:3000
gpu1.name=NVIDIA A100 MIG
gpu1.util=unsupported
gpu1.mem=1000,40000
gpu1.temp=error
gpu1.mig=1
gpu1.procs=
gpu1.mig_count=7
gpu1.mig0.uuid=MIG-e1000000-0000-0000-0000-000000000001
gpu1.mig0.gi=1
gpu1.mig0.ci=0
gpu1.mig0.mem=500,20000
S
with_gpu() { env PS_NVML_STANDIN="$dir/gpu.nvml" LD_LIBRARY_PATH="$standin_dir" "$@"; }

start_recording() { # start_recording STEPS: record the data-bound scenario in the background
    "$perfscope" record -o "$dir/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps "$1" \
        >"$dir/train.out" 2>"$dir/record.err" &
    rec_pid=$!
}

# await WHAT CHECK...: run CHECK every 0.2 s until it succeeds. No time limit: a test waits for the event it needs,
# never for a clock, and one that never comes ends in CTest's TIMEOUT after this line said what was awaited (the
# pane's last capture is in $dir/pane.last).
await() {
    local what=$1
    shift
    echo "waiting for $what"
    until "$@"; do sleep 0.2; done
}
new_session() { # new_session NAME COLS ROWS COMMAND: a detached tmux session; a tmux that cannot start fails the test
    tmux -S "$sock" new-session -d -s "$1" -x "$2" -y "$3" "$4" 2>"$dir/tmux.err" || fail "tmux: $(cat "$dir/tmux.err")"
}
# end_session: kill the tmux server and await its exit: a session started while the old server still exits finds
# its socket and fails ("server exited unexpectedly"); tmux leaves the socket file, so the server's pid is awaited.
end_session() {
    local pid
    pid=$(tmux -S "$sock" display-message -p '#{pid}' 2>/dev/null)
    tmux -S "$sock" kill-server 2>/dev/null
    [ -n "$pid" ] && await "the tmux server ($pid) to exit" sh -c "! kill -0 $pid 2>/dev/null"
    rm -f "$sock"
}
pane() { tmux -S "$sock" capture-pane -p -t top | tee "$dir/pane.last"; }
shows() { pane | grep -qF -- "$1"; }
wait_for() { await "the pane to show '$1'" shows "$1"; }
drawn_at() { # drawn_at ROWS: the pane holds a whole frame drawn for ROWS rows: the title on its first row, the keys
    # on its last (a frame drawn for another height and cropped or padded by tmux lacks one of them there)
    local p
    p=$(pane)
    [ "$(printf '%s\n' "$p" | wc -l)" = "$1" ] && printf '%s\n' "$p" | head -1 | grep -q "^perfscope top" &&
        printf '%s\n' "$p" | tail -1 | grep -q "q quit"
}
# top --snapshot prints nothing until it ends: the tests follow it through /proc. Between samples it sleeps in
# nanosleep (cli/cmd_top.c, sleep_s); each time it goes to sleep its voluntary context switches grow (proc(5)).
# A SIGTERM there ends the sleep, and one more sample is taken before the JSON.
asleep() { grep -q nanosleep "/proc/$1/wchan" 2>/dev/null; }
switches() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$1/status"; }
sampled_since() { # sampled_since PID: returns once top PID has taken a whole sample begun after this call
    local n
    await "top (pid $1) between samples" asleep "$1"
    n=$(switches "$1")
    await "top (pid $1) to take a sample and sleep again" eval "asleep $1 && [ \"\$(switches $1)\" -gt $n ]"
}
check_width() { # every pane line fits the width (in characters: the sparklines are 3-byte UTF-8)
    pane | python3 -c "
import sys
w = int(sys.argv[1])
bad = [(i + 1, len(l)) for i, l in enumerate(sys.stdin.read().split('\\n')) if len(l) > w]
print(*('line %d is %d columns' % b for b in bad))
sys.exit(1 if bad else 0)" "$1" || fail "lines wider than $1"
}

case $case in
top_in_tmux_shows_gpu_host_live_verdict_and_nvtx_stack)
    start_recording 100000
    new_session top 120 40 \
        "env PS_NVML_STANDIN=$dir/gpu.nvml LD_LIBRARY_PATH=$standin_dir $perfscope top -d 0.5; echo \"EXIT=\$?\" >$dir/exit; sleep 60"
    wait_for "GPU0 NVIDIA H200"
    wait_for "GPU1 NVIDIA A100 MIG"
    wait_for "CPU "
    wait_for "Verdict: data-loading"
    wait_for "NVTX ranges open now"
    wait_for "step > "
    # MIG / unsupported / failing fields show N/A, never 0
    pane | grep -F "GPU1 NVIDIA A100 MIG" | grep -q "SM  N/A" || fail "MIG utilisation is not N/A"
    pane | grep -F "GPU0 NVIDIA H200" | grep -q "16.0 GiB / 140 GiB  61C  412 / 700 W" || fail "GPU0 values"
    tmux -S "$sock" resize-window -t top -x 80 -y 24
    await "a whole frame at 80x24" drawn_at 24
    check_width 80
    [ "$(pane | wc -l)" -le 24 ] || fail "more than 24 rows"
    pane | grep -q "q quit" || fail "no key line at 80x24"
    pane | grep -q "Verdict: data-loading" || fail "no verdict at 80x24"
    tmux -S "$sock" resize-window -t top -x 200 -y 60
    await "a whole frame at 200x60" drawn_at 60
    check_width 200
    pane | grep -q "Top kernels\|Step time" || fail "no step history at 200x60"
    tmux -S "$sock" send-keys -t top p
    wait_for "[paused]"
    tmux -S "$sock" send-keys -t top p
    tmux -S "$sock" send-keys -t top +
    wait_for "every 1 s"                        # 0.5 s doubled
    tmux -S "$sock" send-keys -t top s
    wait_for "sort (rss)"
    tmux -S "$sock" send-keys -t top Tab
    wait_for "[Processes]"
    wait_for "train"
    tmux -S "$sock" send-keys -t top h
    wait_for "next panel"
    tmux -S "$sock" send-keys -t top x          # any key closes the help
    await "the help to close" eval '! shows "next panel"'
    tmux -S "$sock" send-keys -t top q
    await "top to exit" test -s "$dir/exit"
    [ "$(cat "$dir/exit")" = "EXIT=0" ] || fail "q did not exit 0: $(cat "$dir/exit")"
    await "the terminal to be restored (top's screen gone)" eval '! shows "perfscope top"'
    ;;
top_colours_only_without_no_color)
    for mode in color nocolor; do
        env_extra=""
        [ $mode = nocolor ] && env_extra="NO_COLOR=1"
        sock=$sockdir/tmux.$mode.sock           # a server of its own: no wait for the last one to go
        new_session top 100 30 \
            "env TERM=screen-256color $env_extra $perfscope top -d 0.5; sleep 30"
        await "a whole frame ($mode)" drawn_at 30
        tmux -S "$sock" capture-pane -e -p -t top >"$dir/$mode.ansi"
        end_session
    done
    # colour set by ncurses: SGR 3x foreground (the title is cyan, the no-GPU line yellow)
    grep -q $'\e\[[0-9;]*3[1-6]m' "$dir/color.ansi" || fail "no colours on a colour terminal"
    grep -q $'\e\[[0-9;]*3[1-6]m' "$dir/nocolor.ansi" && fail "colours despite NO_COLOR"
    ;;
top_snapshot_shows_standin_gpu_values_and_na)
    with_gpu "$perfscope" top -n 3 -d 0.25 --snapshot json >"$dir/snap.json" 2>"$dir/err" || fail "exit status $?"
    # the stand-in's third utilisation value (one call per sample) is 70
    [ "$(json "d['gpu']['devices'][0]['util_sm_percent']" "$dir/snap.json")" = 70 ] || fail "util"
    [ "$(json "[float(x) for x in d['gpu']['devices'][0]['util_history']]" "$dir/snap.json")" = "[50.0, 60.0, 70.0]" ] || fail "util history"
    [ "$(json "d['gpu']['devices'][0]['memory_total_bytes']" "$dir/snap.json")" = 150754820096 ] || fail "memory"
    [ "$(json "d['gpu']['devices'][0]['power_limit_mw']" "$dir/snap.json")" = 700000 ] || fail "power limit"
    [ "$(json "d['gpu']['devices'][0]['throttle']" "$dir/snap.json")" = "sw-power-cap" ] || fail "throttle"
    # the third sample's per-process utilisation: the stand-in's samples newer than the second's (time 3000: 71 %)
    [ "$(json "d['gpu']['devices'][0]['processes']" "$dir/snap.json")" = "[{'pid': 4242, 'used_memory_bytes': 1073741824, 'sm_util_percent': 71, 'memory_util_percent': 9, 'gpu_instance_id': None, 'compute_instance_id': None}]" ] ||
        fail "32-byte process entries: $(json "d['gpu']['devices'][0]['processes']" "$dir/snap.json")"
    [ "$(json "d['gpu']['devices'][0]['uuid'], d['gpu']['devices'][0]['pci_bus_id']" "$dir/snap.json")" = \
      "GPU-5a000000-0000-0000-0000-000000000077 00000000:19:00.0" ] || fail "uuid and PCI bus id"
    [ "$(json "[(m['uuid'], m['gpu_instance_id'], m['memory_total_bytes']) for m in d['gpu']['devices'][1]['mig_devices']]" "$dir/snap.json")" = \
      "[('MIG-e1000000-0000-0000-0000-000000000001', 1, 20000)]" ] || fail "MIG devices"
    [ "$(json "d['gpu']['devices'][1]['util_sm_percent'], d['gpu']['devices'][1]['temperature_c'], d['gpu']['devices'][1]['mig_enabled']" "$dir/snap.json")" = "None None True" ] ||
        fail "MIG device fields"
    [ "$(json "d['gpu']['devices'][1]['processes']" "$dir/snap.json")" = "[]" ] || fail "MIG processes"
    python3 -c "import json,sys; json.loads(open(sys.argv[1]).read())" "$dir/snap.json" || fail "stdout is not exactly one JSON object"
    ;;
top_without_nvml_shows_host_panels_and_exits_0)
    LD_LIBRARY_PATH=$dir "$perfscope" top -n 2 -d 0.25 --snapshot json >"$dir/snap.json" 2>"$dir/err" || fail "exit $?"
    if ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then echo "SKIP: a real NVML is installed (the no-NVML case cannot be tested here)"; exit 77; fi
    [ "$(json "d['gpu']['status'], len(d['gpu']['devices'])" "$dir/snap.json")" = "unavailable 0" ] || fail "gpu status"
    json "d['gpu']['message']" "$dir/snap.json" | grep -q "no NVIDIA driver" || fail "message"
    [ "$(json "len(d['host']['cpu_percent_per_core'])" "$dir/snap.json")" = "$(nproc --all)" ] || fail "cores"
    [ "$(json "d['host']['mem_total_bytes'] > 0 and d['host']['cpu_percent'] is not None" "$dir/snap.json")" = True ] ||
        fail "host values"
    [ "$(grep -c "no NVIDIA driver" "$dir/err")" = 1 ] || fail "one line on stderr about NVML: $(cat "$dir/err")"
    ;;
top_says_when_the_watched_recording_ends)
    # top samples until SIGTERM (then it prints the JSON of what it saw, like the last iteration). The recorded
    # command holds the recording open after train's 30 steps until top has sampled it running; once record has
    # ended, a SIGTERM while top sleeps makes it sample the ended recording. The window covers the whole run.
    "$perfscope" top -n 100000 -d 0.25 --window 3600 --snapshot json >"$dir/snap.json" 2>"$dir/err" &
    top_pid=$!
    "$perfscope" record -o "$dir/run.sqlite" -- sh -c "'$train' --scenario data-bound --hidden 4 --steps 30 &&
        until [ -e '$dir/go' ]; do sleep 0.05; done" >"$dir/train.out" 2>&1 &
    rec_pid=$!
    await "train's 30 steps in the trace" eval '{ kill -0 $rec_pid 2>/dev/null || fail "record ended early: $(cat "$dir/train.out")"; } &&
        [ "$(sqlite3 -readonly "$dir/run.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE text = '\''step'\''" 2>/dev/null)" -ge 30 ] 2>/dev/null'
    sampled_since $top_pid
    touch "$dir/go"
    wait $rec_pid || fail "record failed: $(tail -3 "$dir/train.out")"
    rec_pid=
    await "top (pid $top_pid) between samples" asleep $top_pid
    kill -TERM $top_pid
    wait $top_pid || fail "top exit status $?"
    [ "$(json "d['recording']['state']" "$dir/snap.json")" = ended ] || fail "state $(json "d['recording']" "$dir/snap.json")"
    json "d['status']" "$dir/snap.json" | grep -q "the recording ended" || fail "status $(json "d['status']" "$dir/snap.json")"
    [ "$(json "d['recording']['analysis']['bottleneck']" "$dir/snap.json")" = data-loading ] || fail "verdict kept"
    [ "$(json "d['recording']['open_nvtx_ranges']" "$dir/snap.json")" = "[]" ] || fail "open ranges after the end"
    ;;
top_stays_with_its_recording_when_another_terminal_starts_one)
    # top (no --trace) follows the recording it found; when that one ends while another terminal's recording runs,
    # it names the other one instead of jumping to it (it jumped, and said only "the newest one running").
    "$perfscope" record -o "$dir/mine.sqlite" -- sh -c "'$train' --scenario data-bound --hidden 4 --steps 30 &&
        until [ -e '$dir/go' ]; do sleep 0.05; done" >"$dir/train.out" 2>&1 &
    rec_pid=$!
    await "train's 30 steps in mine.sqlite" eval '[ "$(sqlite3 -readonly "$dir/mine.sqlite" "SELECT count(*) FROM
        NVTX_EVENTS WHERE text = '\''step'\''" 2>/dev/null)" -ge 30 ] 2>/dev/null'
    "$perfscope" top -n 100000 -d 0.25 --window 3600 --snapshot json >"$dir/snap.json" 2>"$dir/err" &
    top_pid=$!
    sampled_since $top_pid
    # another terminal: a recording started in a tmux pane (its own pseudo-terminal)
    # (it holds its recording open until the test ends it: never left running after the test)
    new_session other 80 24 \
        "$perfscope record -o $dir/other.sqlite -- sh -c \"'$train' --scenario data-bound --hidden 4 --steps 30 &&
        until [ -e '$dir/other_go' ]; do sleep 0.05; done\"; touch $dir/other_done"
    await "the other terminal's recording to write steps" eval '[ "$(sqlite3 -readonly "$dir/other.sqlite" "SELECT
        count(*) FROM NVTX_EVENTS WHERE text = '\''step'\''" 2>/dev/null)" -ge 1 ] 2>/dev/null'
    touch "$dir/go"
    wait $rec_pid || fail "record failed: $(tail -3 "$dir/train.out")"
    rec_pid=
    sampled_since $top_pid
    sampled_since $top_pid
    await "top (pid $top_pid) between samples" asleep $top_pid
    kill -TERM $top_pid
    wait $top_pid || fail "top exit status $?"
    touch "$dir/other_go"
    await "the other terminal's recording to end" test -e "$dir/other_done"
    tmux -S "$sock" kill-server
    [ "$(json "d['recording']['trace']" "$dir/snap.json")" = "$dir/mine.sqlite" ] ||
        fail "followed $(json "d['recording']['trace']" "$dir/snap.json")"
    json "d['recording']['why_this_one']" "$dir/snap.json" | grep -q "^followed: the only recording of yours running" ||
        fail "why: $(json "d['recording']['why_this_one']" "$dir/snap.json")"
    json "d['status']" "$dir/snap.json" | grep -q "another runs (recorder [0-9]*, another terminal): press 1 to watch it" ||
        fail "status $(json "d['status']" "$dir/snap.json")"
    ;;
top_switches_to_the_recording_started_from_its_terminal)
    # README: `perfscope record ... &` then `perfscope top`. top may start before that recording does and follow
    # another terminal's; once the one started from top's own terminal appears, top switches to it and says why.
    new_session other 80 24 \
        "$perfscope record -o $dir/other.sqlite -- sh -c \"'$train' --scenario data-bound --hidden 4 --steps 30 &&
        until [ -e '$dir/other_go' ]; do sleep 0.05; done\"; touch $dir/other_done"
    await "the other terminal's recording to write steps" eval '[ "$(sqlite3 -readonly "$dir/other.sqlite" "SELECT
        count(*) FROM NVTX_EVENTS WHERE text = '\''step'\''" 2>/dev/null)" -ge 1 ] 2>/dev/null'
    cat >"$dir/mine.sh" <<EOS
until [ -e '$dir/start_mine' ]; do sleep 0.05; done
exec "$perfscope" record -o '$dir/mine.sqlite' -- sh -c "'$train' --scenario data-bound --hidden 4 --steps 30 &&
    until [ -e '$dir/go' ]; do sleep 0.05; done" >'$dir/mine.out' 2>&1
EOS
    new_session top 140 40 \
        "sh $dir/mine.sh & $perfscope top -d 0.25 --window 3600; echo \"EXIT=\$?\" >$dir/exit; wait; touch $dir/mine_done; sleep 60"
    wait_for "the only recording of yours running"
    touch "$dir/start_mine"
    wait_for "started from this terminal"
    shows "switched to recorder" || fail "no word of the switch in the status line"
    shows "mine.sqlite" || fail "the switched-to recording's trace is not shown"
    tmux -S "$sock" send-keys -t top q
    await "top to exit" test -s "$dir/exit"
    touch "$dir/go" "$dir/other_go"
    await "this terminal's recording to end" test -e "$dir/mine_done"
    await "the other terminal's recording to end" test -e "$dir/other_done"
    end_session
    ;;
top_trace_option_reads_a_finished_trace_with_the_reports_verdict)
    "$perfscope" record -o "$dir/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps 30 >"$dir/train.out" 2>&1 ||
        fail "record failed"
    "$perfscope" top --trace "$dir/run.sqlite" --window 3600 -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err" ||
        fail "exit $?"
    "$perfscope" report --format json "$dir/run.sqlite" >"$dir/report.json" || fail "report failed"
    # a window over the whole run is the report itself: same verdict, steps and average step
    want=$(python3 -c "import json; r=json.load(open('$dir/report.json')); print(r['verdict']['bottleneck'], len(r['steps']), r['step_average']['dur_ns'])")
    got=$(json "d['recording']['analysis']['bottleneck'], d['recording']['analysis']['steps'], d['recording']['analysis']['step_avg_ns']" "$dir/snap.json")
    [ "$got" = "$want" ] || fail "top says '$got', report says '$want'"
    [ "$(json "d['recording']['state']" "$dir/snap.json")" = ended ] || fail "state"
    [ "$(json "d['recording']['unplaced_rows']" "$dir/snap.json")" = 0 ] || fail "unplaced rows in a sound trace"
    # three damaged rows (end < start): top says so, as report does
    cp "$dir/run.sqlite" "$dir/damaged.sqlite"
    sqlite3 "$dir/damaged.sqlite" "UPDATE NVTX_EVENTS SET \"end\" = start - 1 WHERE rowid IN (SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 3)"
    "$perfscope" top --trace "$dir/damaged.sqlite" --window 3600 -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err" ||
        fail "damaged: exit $?"
    [ "$(json "d['recording']['unplaced_rows']" "$dir/snap.json")" = 3 ] ||
        fail "unplaced rows: $(json "d['recording']['unplaced_rows']" "$dir/snap.json")"
    ;;
top_reads_a_trace_whose_recorder_was_killed)
    "$perfscope" record -o "$dir/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps 100000 >"$dir/train.out" 2>&1 &
    rec=$!
    # top's shortest window is 1 s: wait until the recorded steps span 3 s (and number at least 40), so that the
    # window below holds some of them and not all, however fast this machine runs a step.
    await "40 steps over 3 s in the trace" eval '[ "$(sqlite3 -readonly "$dir/run.sqlite" "SELECT count(*) >= 40
        AND max(start) - min(start) > 3000000000 FROM NVTX_EVENTS WHERE text = '\''step'\''" 2>/dev/null)" = 1 ]'
    kill -KILL $rec
    wait $rec 2>/dev/null
    # the window ends just after the last activity start in the trace (no duration in a killed recording)
    last=$(sqlite3 -readonly "$dir/run.sqlite" "SELECT max(start) + 1 FROM NVTX_EVENTS")
    all=$(sqlite3 -readonly "$dir/run.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'step'")
    # A window of twice the time from the last complete step's start to that end holds that step, whatever the
    # machine's speed; the run's first step must lie before it.
    from=$(sqlite3 -readonly "$dir/run.sqlite" "SELECT max(start) FROM NVTX_EVENTS WHERE text = 'step' AND \"end\" < $last")
    window=$(awk -v ns=$((2 * (last - from))) 'BEGIN { s = ns / 1e9; printf "%.3f", s < 1 ? 1 : s }')
    first=$(sqlite3 -readonly "$dir/run.sqlite" "SELECT min(start) FROM NVTX_EVENTS WHERE text = 'step'")
    awk -v a="$first" -v l="$last" -v w="$window" 'BEGIN { exit !(a < l - w * 1e9) }' ||
        fail "the run's steps all lie in the last $window s: a step far longer than the others"
    "$perfscope" top --trace "$dir/run.sqlite" --window "$window" -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err" ||
        fail "exit $?"
    [ "$(json "d['recording']['state'], d['recording']['window_end_ns']" "$dir/snap.json")" = "ended $last" ] ||
        fail "state/end $(json "d['recording']['state'], d['recording']['window_end_ns']" "$dir/snap.json"), want ended $last"
    steps=$(json "d['recording']['analysis']['steps']" "$dir/snap.json")
    [ "$steps" -ge 1 ] && [ "$steps" -lt "$all" ] || fail "steps in the last $window s: $steps of $all"
    [ "$(json "d['recording']['analysis']['bottleneck']" "$dir/snap.json")" = data-loading ] || fail "verdict"
    ;;
top_option_errors_are_usage_errors)
    "$perfscope" top --snapshot json 2>"$dir/err"; [ $? = 2 ] || fail "--snapshot without --iterations"
    grep -q "needs --iterations" "$dir/err" || fail "message: $(cat "$dir/err")"
    "$perfscope" top -d 0 -n 1 --snapshot json 2>"$dir/err"; [ $? = 2 ] || fail "-d 0"
    "$perfscope" top --snapshot xml -n 1 2>"$dir/err"; [ $? = 2 ] || fail "--snapshot xml"
    "$perfscope" top -n 1 </dev/null >"$dir/out" 2>"$dir/err"; [ $? = 1 ] || fail "no terminal"
    grep -q "not a terminal" "$dir/err" || fail "no-terminal message"
    # a trace that cannot be read: the JSON (state error) and exit 1
    "$perfscope" top --trace "$dir/missing.sqlite" -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err"
    [ $? = 1 ] || fail "missing trace: exit status"
    [ "$(json "d['recording']['state']" "$dir/snap.json")" = error ] || fail "missing trace state"
    grep -q "missing.sqlite" "$dir/err" || fail "missing trace message"
    # a FIFO would block SQLite's open for good (no signal ends it): refused at once; a directory too
    mkfifo "$dir/fifo"
    echo "top --trace FIFO must refuse it: waiting for top (blocked for good here: the bug)"
    "$perfscope" top --trace "$dir/fifo" -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err"
    [ $? = 1 ] || fail "FIFO: exit status"
    grep -q "fifo: not a regular file" "$dir/err" || fail "FIFO message: $(cat "$dir/err")"
    "$perfscope" top --trace "$dir" -n 1 --snapshot json >"$dir/snap.json" 2>"$dir/err"
    [ $? = 1 ] || fail "directory: exit status"
    grep -q "is a directory" "$dir/err" || fail "directory message: $(cat "$dir/err")"
    ;;
top_refuses_views_in_a_trace_and_quits_on_q_and_sigterm)
    # A trace is untrusted: a view stored in it runs the file's own SQL, and a recursive one never ends. top reads
    # only real tables, as report does, and stays responsive to q and SIGTERM.
    "$perfscope" record -o "$dir/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps 5 >"$dir/train.out" 2>&1 ||
        fail "record failed"
    endless="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
    cp "$dir/run.sqlite" "$dir/meta_view.sqlite"
    sqlite3 "$dir/meta_view.sqlite" "DROP TABLE PERFSCOPE_META; CREATE VIEW PERFSCOPE_META AS $endless
        SELECT 'recorder_pid' AS name, x AS value FROM c" || fail "setup"
    cp "$dir/run.sqlite" "$dir/open_view.sqlite"
    sqlite3 "$dir/open_view.sqlite" "DROP TABLE IF EXISTS PERFSCOPE_LIVE_OPEN_RANGES;
        CREATE VIEW PERFSCOPE_LIVE_OPEN_RANGES AS $endless SELECT x AS globalTid, 'r' AS text, 0 AS textId,
        x AS start FROM c" || fail "setup"
    echo "top --trace with a recursive view: waiting for top (it never ended here: the bug)"
    "$perfscope" top --trace "$dir/meta_view.sqlite" -n 2 --snapshot json >"$dir/snap.json" 2>"$dir/err"
    [ $? = 1 ] || fail "PERFSCOPE_META a view: exit status"
    grep -q "PERFSCOPE_META is a view, not a table" "$dir/err" || fail "message: $(cat "$dir/err")"
    "$perfscope" top --trace "$dir/open_view.sqlite" --window 3600 -n 2 --snapshot json >"$dir/snap.json" 2>"$dir/err" ||
        fail "PERFSCOPE_LIVE_OPEN_RANGES a view: exit $?"
    [ "$(json "d['recording']['analysis']['bottleneck']" "$dir/snap.json")" = data-loading ] || fail "verdict"
    # on the screen: q quits, and so does SIGTERM
    for how in q TERM; do
        rm -f "$dir/exit"
        new_session top 120 40 \
            "$perfscope top --trace $dir/meta_view.sqlite -d 0.25; echo \"EXIT=\$?\" >$dir/exit; sleep 60"
        wait_for "meta_view.sqlite (cannot read)"
        if [ $how = q ]; then
            tmux -S "$sock" send-keys -t top q
        else
            pkill -TERM -f "^$perfscope top --trace $dir/meta_view.sqlite" || fail "no top to signal"
        fi
        await "top to end on $how" test -s "$dir/exit"
        grep -q "EXIT=0" "$dir/exit" || fail "$how: $(cat "$dir/exit")"
        end_session
    done
    ;;
top_shows_control_characters_of_names_escaped)
    # A name with a carriage return would move the cursor and overwrite its own line with a forged one. The trace
    # lies deep enough (over 160 bytes of path, wherever the build tree is) that its path must give way to the
    # command line on the 160-column recording line.
    deep=$dir/a-folder-whose-name-is-long-enough/to-push-the-command-line-off-a-160-column-line/unless-the-path-gives-way
    mkdir -p "$deep" || fail "mkdir"
    "$perfscope" record -o "$deep/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps 5 >"$dir/train.out" 2>&1 ||
        fail "record failed"
    sqlite3 "$deep/run.sqlite" "UPDATE PERFSCOPE_META SET value = 'train' || char(13) || 'Verdict: forged' ||
        char(27) || '[1m' WHERE name = 'command_line'" || fail "setup"
    new_session top 160 40 \
        "$perfscope top --trace $deep/run.sqlite --window 3600 -d 0.25; echo \"EXIT=\$?\" >$dir/exit; sleep 60"
    wait_for 'train\rVerdict: forged\x1b[1m'
    pane | grep -q "^Verdict: forged" && fail "a name overwrote its line"
    tmux -S "$sock" send-keys -t top q
    await "top to end" test -s "$dir/exit"
    ;;
top_trace_follows_a_new_recording_of_the_same_file)
    # `top --trace FILE` watching a finished recording goes on to a new one written to the same file (record -f):
    # it showed the first run's numbers under the second run's command line.
    "$perfscope" record -o "$dir/run.sqlite" -- "$train" --scenario data-bound --hidden 4 --steps 30 >"$dir/train.out" 2>&1 ||
        fail "first recording"
    # top has sampled the first run before the second starts; once the second has ended, a SIGTERM while top
    # sleeps makes it sample once more. The window covers the whole run, as the report does.
    "$perfscope" top --trace "$dir/run.sqlite" -n 100000 -d 0.5 --window 3600 --snapshot json >"$dir/snap.json" 2>"$dir/err" &
    top_pid=$!
    await "top (pid $top_pid) to sample the first run" asleep $top_pid
    "$perfscope" record -f -o "$dir/run.sqlite" -- "$train" --scenario memcpy-bound --steps 300 >"$dir/train.out" 2>&1 ||
        fail "second recording"
    await "top (pid $top_pid) between samples" asleep $top_pid
    kill -TERM $top_pid
    wait $top_pid || fail "top exit status $?"
    [ "$(json "d['recording']['state']" "$dir/snap.json")" = ended ] || fail "state"
    json "d['recording']['command_line']" "$dir/snap.json" | grep -q "memcpy-bound" || fail "command line"
    want=$("$perfscope" report "$dir/run.sqlite" --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict']['bottleneck'])")
    [ "$(json "d['recording']['analysis']['bottleneck']" "$dir/snap.json")" = "$want" ] ||
        fail "verdict $(json "d['recording']['analysis']['bottleneck']" "$dir/snap.json"), report says $want"
    [ "$want" != data-loading ] || fail "the second run's verdict is the first run's"
    ;;
*) fail "unknown case $case" ;;
esac
echo "ok $case"
