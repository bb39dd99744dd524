#!/usr/bin/env bash
# Slowdown of a reference scenario under `perfscope record` versus bare (goal: <= 2 % on `balanced`).
#   bench/record_overhead.sh [BUILD_DIR] [SCENARIO] [RUNS]
# Runs the scenario RUNS times bare and RUNS times recorded, interleaved (so machine-load drift hits both alike),
# and prints the median of the training loop's own time (train's `phase_ms step=`, the sum of its step ranges)
# and of the whole command's wall time (recorder start-up and trace finalisation included), and their ratios.
set -euo pipefail
build="${1:-build}"
scenario="${2:-balanced}"
runs="${3:-5}"
train="$build/workloads/train"
perfscope="$build/cli/perfscope"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$train" --scenario "$scenario" >/dev/null    # data set generated outside the measurement

now_ms() { date +%s%3N; }
step_ms() { sed -n 's/^phase_ms step=\([0-9.]*\).*/\1/p' "$1"; }

for i in $(seq "$runs"); do
    t0=$(now_ms); "$train" --scenario "$scenario" >"$tmp/bare.$i"; t1=$(now_ms)
    echo "$((t1 - t0))" >>"$tmp/bare.wall"; step_ms "$tmp/bare.$i" >>"$tmp/bare.step"
    t0=$(now_ms); "$perfscope" record -f -o "$tmp/run.sqlite" -- "$train" --scenario "$scenario" >"$tmp/rec.$i" 2>"$tmp/rec.err.$i"; t1=$(now_ms)
    echo "$((t1 - t0))" >>"$tmp/rec.wall"; step_ms "$tmp/rec.$i" >>"$tmp/rec.step"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
bs=$(median "$tmp/bare.step"); rs=$(median "$tmp/rec.step")
bw=$(median "$tmp/bare.wall"); rw=$(median "$tmp/rec.wall")
echo "scenario=$scenario runs=$runs (interleaved)"
echo "training loop (sum of step ranges), median ms: bare=$bs recorded=$rs ratio=$(awk -v a="$rs" -v b="$bs" 'BEGIN{printf "%.4f", a/b}')"
echo "whole command wall, median ms:                 bare=$bw recorded=$rw ratio=$(awk -v a="$rw" -v b="$bw" 'BEGIN{printf "%.4f", a/b}')"
tail -1 "$tmp/rec.err.$runs"
