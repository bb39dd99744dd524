#!/usr/bin/env bash
# What the Python hook's stack samples cost (docs/python.md "Stack samples", "Cost"), with Debian's python3-torch:
#   1. the shared PyTorch example (workloads/pytorch/train_loader.py, docs/workloads.md) under `perfscope record`
#      with the hook's stack samples at RATE (default: record's default) against the same recording with
#      --python-stack-hz 0 (the same hook otherwise), RUNS runs each, interleaved (the order alternates from one pair
#      to the next); medians of the script's own loop time and of the CPU time of the whole process tree, and the
#      overhead of each in %; for each example in EXAMPLES ("--workers 2 --steps 60": two worker processes sampled
#      too; "--workers 0 --heavy-transform --steps 30": PIL transforms in the main thread, the stack the sampler
#      reads most);
#      the sampling threads' hold on the GIL (woken to asleep, their `python stacks` marks' gil_ns) over the time
#      they sampled: what the program's Python threads may wait for it;
#      and the sampling threads' own CPU time (their `python stacks` marks) against that of the whole process tree:
#      steadier than wall time on a machine shared with other jobs, and on a machine whose cores are all busy, the
#      share of the run sampling takes;
#      1b. the same example with --heavy-transform in one process, blocks of steps with sampling against the blocks
#      next to them without (bench/python/stacks_ab.py): adjacent blocks share the machine's load;
#   2. the sampling thread's CPU time per wake-up, per sample of three threads 32 frames deep whose stacks it reads,
#      and per sample of the same threads when they have not run since (bench/python/stack_sample.py): a process
#      pays hz * (wake + its threads' stacks) a second, with the GIL held for the stacks;
#   3. what the hook adds to a torch.autograd.profiler.record_function block and to a call of a model of 10
#      submodules, with nothing else delimiting steps and once an optimizer does (bench/python/hook_labels.py).
# Usage: bench/python/stacks_overhead.sh [BUILD_DIR] [RUNS] [RATE]   (default build, 5, record's default)
set -u
BUILD=${1:-build}
RUNS=${2:-5}
RATE=${3:-}
PS=$BUILD/cli/perfscope
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
TIMEFORMAT='%U %S'
cpu() { awk '{printf "%.3f", $1 + $2}' "$1"; }
rate_opt=()
[ -n "$RATE" ] && rate_opt=(--python-stack-hz "$RATE")
# run ON|OFF ARGS...: one recording; appends its loop time and CPU time to the arrays of its side
run() {
    side=$1
    shift
    if [ "$side" = on ]; then opt=("${rate_opt[@]}"); else opt=(--python-stack-hz 0); fi
    { time "$PS" record -f -o "$TMP/$side.sqlite" "${opt[@]}" -- "$PY" workloads/pytorch/train_loader.py "$@" \
        >"$TMP/$side.out" 2>&1; } 2>"$TMP/$side.time"
    eval "${side}_loop+=($(sed -n 's/^loop seconds: //p' "$TMP/$side.out"))"
    eval "${side}_cpu+=($(cpu "$TMP/$side.time"))"
    # the sampling threads' own CPU time (each writes it on its `python stacks` mark when it stops: ns) against the
    # CPU time of the whole process tree: what sampling takes from a machine whose cores are all busy
    if [ "$side" = on ]; then
        sampler_ns=$(sqlite3 "$TMP/on.sqlite" "SELECT text FROM NVTX_EVENTS WHERE eventType = 34 AND
            text LIKE 'python stacks %'" | tr ' ' '\n' | sed -n 's/^cpu_ns=//p' | awk '{ s += $1 } END { print s + 0 }')
        marks=$(sqlite3 "$TMP/on.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND text LIKE 'python stacks %'")
        on_share+=($(awk -v s="$sampler_ns" -v c="$(cpu "$TMP/on.time")" 'BEGIN { printf "%.3f", 100 * s / 1e9 / c }'))
        on_marks=$marks
        # the GIL: wall time a sampling thread held it (woken to asleep) over the time it sampled (ticks / hz), the
        # largest of the processes: the most the program's Python threads waited for it
        on_gil+=($(sqlite3 "$TMP/on.sqlite" "SELECT text FROM NVTX_EVENTS WHERE eventType = 34 AND
            text LIKE 'python stacks %'" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            if (v["ticks"] > 0) { x = 100 * v["gil_ns"] / (v["ticks"] / v["hz"] * 1e9); if (x > m) m = x } }
            END { printf "%.3f", m }'))
    fi
}
for example in "--workers 2 --steps 60" "--workers 0 --heavy-transform --steps 30"; do
    on_loop=() off_loop=() on_cpu=() off_cpu=() on_share=() on_gil=() on_marks=0
    for i in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        if [ $((i % 2)) = 1 ]; then run off $example; run on $example; else run on $example; run off $example; fi
    done
    # each pair's ratio (on / off, run one after the other): slow drifts of the machine's load cancel in a pair
    paired_loop=() paired_cpu=()
    for i in $(seq 0 $((RUNS - 1))); do
        paired_loop+=($(awk -v a="${on_loop[$i]}" -v b="${off_loop[$i]}" 'BEGIN { printf "%.4f", 100 * (a / b - 1) }'))
        paired_cpu+=($(awk -v a="${on_cpu[$i]}" -v b="${off_cpu[$i]}" 'BEGIN { printf "%.4f", 100 * (a / b - 1) }'))
    done
    samples=$(sqlite3 "$TMP/on.sqlite" "SELECT count(*) FROM PERFSCOPE_PYTHON_SAMPLES" 2>/dev/null)
    hz=$(sqlite3 "$TMP/on.sqlite" "SELECT value FROM PERFSCOPE_META WHERE name = 'python_stack_hz'" 2>/dev/null)
    awk -v ex="$example" -v n="$RUNS" -v hz="$hz" -v s="$samples" -v fl="$(median "${off_loop[@]}")" \
        -v nl="$(median "${on_loop[@]}")" -v fc="$(median "${off_cpu[@]}")" -v nc="$(median "${on_cpu[@]}")" \
        -v lo="${off_loop[*]}" -v ln="${on_loop[*]}" -v sh="$(median "${on_share[@]}")" -v shs="${on_share[*]}" -v pm="$on_marks" \
        -v pl="$(median "${paired_loop[@]}")" -v pls="${paired_loop[*]}" -v pc="$(median "${paired_cpu[@]}")" \
        -v gl="$(median "${on_gil[@]}")" -v gls="${on_gil[*]}" 'BEGIN {
        printf "train_loader.py %s, stack samples at %s Hz vs off (%d interleaved runs each; %s samples in the last run):\n", ex, hz, n, s
        printf "  loop_overhead=%.2f%% (median loop %.3f s off, %.3f s on; off: %s; on: %s)\n", 100 * (nl / fl - 1), fl, nl, lo, ln
        printf "  paired_loop_overhead=%.2f%% (median of the pairs'"'"' on/off ratios: %s)\n", pl, pls
        printf "  cpu_overhead=%.2f%% (median CPU of the process tree %.3f s off, %.3f s on, recorder included; paired: %.2f%%)\n", 100 * (nc / fc - 1), fc, nc, pc
        printf "  sampler_cpu_share=%.2f%% (median: CPU time of the sampling threads / CPU time of the process tree; runs: %s; %s sampling processes in the last run)\n", sh, shs, pm
        printf "  gil_share=%.2f%% (median: wall time a sampling thread held the GIL / time it sampled, its process the largest; runs: %s)\n", gl, gls }'
done
# 1b. in one process: blocks of steps with sampling against the blocks next to them without (stacks_ab.py), the
# median of each run's median, at the rate of the runs above
ab=()
for i in $(seq "$RUNS"); do
    ab+=($("$PS" record -f -o "$TMP/ab.sqlite" --python-stack-hz 0 -- "$PY" bench/python/stacks_ab.py \
        "$BUILD/probe/python" "$hz" 2>/dev/null | sed -n 's/^overhead_pct=//p'))
done
printf 'in one process, heavy-transform steps in blocks, sampling at %s Hz against off: ab_overhead=%.2f%% (median of %d runs: %s)\n' \
    "$hz" "$(median "${ab[@]}")" "$RUNS" "${ab[*]}"
for i in 1 2 3; do
    "$PS" record -f -o "$TMP/s.sqlite" --python-stack-hz 0 -- "$PY" bench/python/stack_sample.py "$BUILD/probe/python" 2>/dev/null
done >"$TMP/sample"
for k in wake_ns walk_ns unchanged_ns; do
    printf '%s=%s (median of 3 runs; three threads 32 frames deep)\n' "$k" "$(median $(sed -n "s/^$k=\([0-9]*\).*/\1/p" "$TMP/sample"))"
done
# 3. what the hook adds to record_function blocks and nn.Module calls (hook on, stack samples off, vs no hook)
for i in $(seq "$RUNS"); do
    "$PS" record -f -o "$TMP/l.sqlite" --python-stack-hz 0 -- "$PY" bench/python/hook_labels.py 2>/dev/null | sed 's/^/on_/'
    "$PS" record -f -o "$TMP/l.sqlite" --no-python-hooks -- "$PY" bench/python/hook_labels.py 2>/dev/null | sed 's/^/off_/'
done >"$TMP/labels"
for k in record_function_ns model_call_steps_ns model_call_ns; do
    on=$(median $(sed -n "s/^on_$k=//p" "$TMP/labels")) off=$(median $(sed -n "s/^off_$k=//p" "$TMP/labels"))
    printf '%s: %d ns with the hook, %d ns without (+%d ns; medians of %d runs)\n' "$k" "$on" "$off" $((on - off)) "$RUNS"
done
