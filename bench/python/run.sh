#!/usr/bin/env bash
# Figures of perfscope's Python hook (docs/python.md "Cost"), with Debian's python3-torch:
#   1. slowdown of workloads/pytorch/train_loader.py --workers 2 under `perfscope record` vs bare (RUNS interleaved
#      runs each; medians of the script's own loop time and of the whole command's wall time);
#   2. hook start-up cost: `python3 -c pass` with the hook armed vs without (no torch: what every Python program pays);
#      and `import torch` with the hook installing itself vs without (both under record);
#   3. hook cost per step: bench/python/hook_step.py under record vs record --no-python-hooks; and the cost of one
#      push + pop pair through ctypes (bench/python/hook_calls.py), the unit of that cost;
#   4. torch.distributed: the hook's cost per collective and per DistributedDataParallel step
#      (bench/python/hook_collectives.py under record vs record --no-python-hooks).
# CPU time (user + system of the whole process tree, the recorder included) is printed beside wall time: on a
# machine shared with other jobs it is the steadier of the two.
# Usage: bench/python/run.sh [BUILD_DIR] [RUNS] [SECTIONS]   (default build, 7, "1 2 3 4"). A busy machine makes
# figures noisy: medians.
set -u
BUILD=${1:-build}
RUNS=${2:-7}
SECTIONS=" ${3:-1 2 3 4} "
PS=$BUILD/cli/perfscope
PY=/usr/bin/python3
HOOK=$BUILD/probe/python
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
now() { date +%s%N; }

if [[ $SECTIONS == *" 1 "* ]]; then
bare_loop=() rec_loop=() bare_wall=() rec_wall=() bare_cpu=() rec_cpu=()
TIMEFORMAT='%U %S'
cpu() { awk '{printf "%.3f", $1 + $2}' "$1"; }
for i in $(seq "$RUNS"); do
    t=$(now); { time "$PY" workloads/pytorch/train_loader.py --workers 2 --steps 60 >"$TMP/b" 2>&1; } 2>"$TMP/bt"
    bare_wall+=($(( $(now) - t ))); bare_cpu+=($(cpu "$TMP/bt"))
    bare_loop+=($(sed -n 's/^loop seconds: //p' "$TMP/b"))
    t=$(now); { time "$PS" record -f -o "$TMP/r.sqlite" -- "$PY" workloads/pytorch/train_loader.py --workers 2 --steps 60 >"$TMP/r" 2>&1; } 2>"$TMP/rt"
    rec_wall+=($(( $(now) - t ))); rec_cpu+=($(cpu "$TMP/rt"))
    rec_loop+=($(sed -n 's/^loop seconds: //p' "$TMP/r"))
done
bl=$(median "${bare_loop[@]}") rl=$(median "${rec_loop[@]}") bw=$(median "${bare_wall[@]}") rw=$(median "${rec_wall[@]}")
bc=$(median "${bare_cpu[@]}") rc=$(median "${rec_cpu[@]}")
awk -v b="$bl" -v r="$rl" -v bw="$bw" -v rw="$rw" -v bc="$bc" -v rc="$rc" -v n="$RUNS" 'BEGIN {
    printf "workers2_loop_slowdown=%.2f%% (median loop %.3f s bare, %.3f s recorded; %d interleaved runs each)\n", 100 * (r / b - 1), b, r, n
    printf "workers2_wall_slowdown=%.2f%% (median wall %.3f s bare, %.3f s recorded: includes start-up, torch import, trace writing)\n", 100 * (rw / bw - 1), bw / 1e9, rw / 1e9
    printf "workers2_cpu_increase=%.2f%% (median CPU %.3f s bare, %.3f s recorded, recorder included)\n", 100 * (rc / bc - 1), bc, rc }'
fi
if [[ $SECTIONS == *" 2 "* ]]; then
off=() on=()
for i in $(seq $((RUNS * 3))); do
    t=$(now); "$PY" -c pass; off+=($(( $(now) - t )))
    t=$(now); PYTHONPATH=$HOOK PERFSCOPE_PYTHON_HOOKS=1 PERFSCOPE_SESSION_DIR=$TMP "$PY" -c pass; on+=($(( $(now) - t )))
done
awk -v a="$(median "${off[@]}")" -v b="$(median "${on[@]}")" 'BEGIN {
    printf "hook_startup_no_torch_us=%.0f (python3 -c pass: median %.1f ms without, %.1f ms with the hook armed)\n", (b - a) / 1e3, a / 1e6, b / 1e6 }'
off=() on=()
for i in $(seq "$RUNS"); do
    "$PS" record -f -o "$TMP/i.sqlite" --no-python-hooks -- "$PY" -c 'import time; t = time.perf_counter_ns(); import torch; print(time.perf_counter_ns() - t)' >"$TMP/o" 2>/dev/null
    off+=($(cat "$TMP/o"))
    "$PS" record -f -o "$TMP/i.sqlite" -- "$PY" -c 'import time; t = time.perf_counter_ns(); import torch; print(time.perf_counter_ns() - t)' >"$TMP/o" 2>/dev/null
    on+=($(cat "$TMP/o"))
done
awk -v a="$(median "${off[@]}")" -v b="$(median "${on[@]}")" 'BEGIN {
    printf "hook_install_at_import_torch_ms=%.1f (import torch: median %.0f ms without the hook, %.0f ms with it installing itself)\n", (b - a) / 1e6, a / 1e6, b / 1e6 }'
fi
if [[ $SECTIONS == *" 3 "* ]]; then
off=() on=()
for i in $(seq "$RUNS"); do
    "$PS" record -f -o "$TMP/s.sqlite" --no-python-hooks -- "$PY" bench/python/hook_step.py 3000 >"$TMP/o" 2>/dev/null
    off+=($(sed -n 's/^ns_per_step=//p' "$TMP/o"))
    "$PS" record -f -o "$TMP/s.sqlite" -- "$PY" bench/python/hook_step.py 3000 >"$TMP/o" 2>/dev/null
    on+=($(sed -n 's/^ns_per_step=//p' "$TMP/o"))
done
for i in 1 2 3; do
    "$PS" record -f -o "$TMP/c.sqlite" -- "$PY" bench/python/hook_calls.py "$HOOK" 2>/dev/null
done | sed -n 's/^ns_per_push_pop=//p' | sort -n | awk '{a[NR]=$1} END {printf "push_pop_pair_ns=%d (median of 3 runs of 200000 pairs through ctypes)\n", a[2]}'
ranges=$(sqlite3 "$TMP/s.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59" 2>/dev/null)
awk -v a="$(median "${off[@]}")" -v b="$(median "${on[@]}")" -v r="$ranges" 'BEGIN {
    printf "hook_cost_per_step_us=%.1f (hook_step.py: median %.1f us/step without the hook, %.1f us with it; %.1f ranges per step)\n", (b - a) / 1e3, a / 1e3, b / 1e3, r / 3050 }'
fi
# 4. torch.distributed: what the hook adds per collective, per async collective + wait, per DDP step (one-rank
#    gloo; wrappers and originals alternate in one recorded process: bench/python/hook_collectives.py)
if [[ $SECTIONS == *" 4 "* ]]; then
for i in $(seq "$RUNS"); do
    "$PS" record -f -o "$TMP/d.sqlite" -- "$PY" bench/python/hook_collectives.py 15 2>/dev/null
done >"$TMP/coll"
for k in all_reduce async_all_reduce_wait ddp_step hook_only_collective hook_only_wait hook_only_ddp_sync; do
    for unit in cpu wall; do
        grep -q "^${k}_${unit}_ns=" "$TMP/coll" || continue
        b=$(median $(sed -n "s/^${k}_${unit}_ns=\([0-9]*\) .*/\1/p" "$TMP/coll"))
        h=$(median $(sed -n "s/^${k}_${unit}_ns=[0-9]* \([0-9]*\)/\1/p" "$TMP/coll"))
        awk -v k="$k" -v u="$unit" -v b="$b" -v h="$h" -v n="$RUNS" 'BEGIN {
            printf "hook_cost_per_%s_%s_us=%.1f (%.1f us bare, %.1f us hooked; medians of %d runs)\n", k, u, (h - b) / 1e3, b / 1e3, h / 1e3, n }'
    done
done
fi
