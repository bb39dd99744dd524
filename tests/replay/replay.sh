#!/bin/sh
# Each bench/replay script with its bottleneck planted, recorded once under `perfscope record`: the report must
# name the planted cause (host compute whose function to move is `preprocess`; waiting; data loading, the largest cause outside
# the compute group of a trace without GPU rows) and predict the saving per step (bench/replay/replay.py
# predicted(): gain_ns / top_gain_ns where the report has them, else the cause's time) within 25 % of the planted
# time per step that the script measured itself (--truth). Both sides measure the same steps, so a loaded machine
# stretches both; no wall-clock threshold. Samples at 100 Hz: at record's default 20 Hz a cause of ~30 ms per step
# over 30 steps is ~20 samples (±20 % from sampling alone), and a rate whose period divides the step's can alias.
# Usage: replay.sh PERFSCOPE CASE
ps=$1 case=$2
here=$(dirname "$0")
bench=$here/../../bench/replay
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -c "import torch, PIL" 2>/dev/null || { echo "SKIP: Debian's python3-torch / python3-pil"; exit 77; }
planted() {   # planted SCRIPT: record it with its bottleneck, report, check against its own clock
    (cd "$tmp" && "$ps" record -o r.sqlite --sample-hz 100 --python-stack-hz 100 -- /usr/bin/python3 \
        "$bench/$1.py" --truth truth.json >out.txt 2>&1) || { echo "record failed"; cat "$tmp/out.txt"; exit 1; }
    "$ps" report "$tmp/r.sqlite" --format json -o "$tmp/r.json" || exit 1
    python3 "$bench/replay.py" check "$1" "$tmp/r.json" "$tmp/truth.json" || {
        "$ps" report "$tmp/r.sqlite" | sed -n '/^Verdict/,/^Evidence/p'; exit 1; }
}
case $case in
preprocess_in_the_main_thread_is_host_compute_named_preprocess)
    # preprocess() (PIL decode/blur/resize, then per-pixel Python) before each step, ~40 % of it
    planted preprocess_main ;;
sleep_in_the_step_is_waiting)
    # time.sleep(30 ms) in each step
    planted sleep_step ;;
lock_held_by_a_background_thread_is_waiting)
    # the step takes a lock a background thread holds through a 70 ms write
    planted lock_wait ;;
dataloader_without_workers_is_data_loading)
    # DataLoader(num_workers=0) decoding a PNG per sample in __getitem__
    planted slow_loader ;;
*) echo "unknown case $case"; exit 2 ;;
esac
