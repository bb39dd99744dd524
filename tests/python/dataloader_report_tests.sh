#!/bin/sh
# The report's DataLoader advice on real PyTorch programs (Debian's python3-torch, /usr/bin/python3): recorded
# workloads/pytorch/loader_epochs.py runs with each worker start method, persistent workers or not. Usage:
# dataloader_report_tests.sh PERFSCOPE SOURCE_DIR WORK_DIR CASE. Exit 77 (skipped) when torch cannot be imported.
perfscope=$1
src=$2
dir=$3/$4
case=$4
py=/usr/bin/python3
epochs=$src/workloads/pytorch/loader_epochs.py
rm -rf "$dir"
mkdir -p "$dir"
trace=$dir/t.sqlite
. "$src/tests/collector/trace_checks.sh"

"$py" -c 'import torch' 2>/dev/null || { echo "SKIP $case: /usr/bin/python3 cannot import torch"; exit 77; }
# j EXPR: a value of the JSON report ($dir/r.json), EXPR in Python over `r`
j() { "$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$dir/r.json" "$1" ||
      fail "cannot evaluate $1 on the report"; }
report_json() { "$perfscope" report "$trace" --format json "$@" >"$dir/r.json" 2>"$dir/report.err" ||
                fail "report failed: $(cat "$dir/report.err")"; }

case $case in
dataloader_report_fork_restarting_workers_advises_persistent_workers|\
dataloader_report_spawn_restarting_workers_advises_persistent_workers|\
dataloader_report_forkserver_restarting_workers_advises_persistent_workers)
    method=${case#dataloader_report_}
    method=${method%%_*}
    # 3 epochs of 3 steps, 2 workers started each epoch: 6 worker processes; samples of 0.5 ms, steps of ~1 ms of
    # compute: the steady waits are short (a few ms in all, even on a loaded machine), starting (and stopping) the
    # workers 3 times is most of the waiting, fork's cheap start-up included
    record -o "$trace" -- "$py" "$epochs" --start-method "$method" --epochs 3 --steps-per-epoch 3 --workers 2 \
        --sample-ms 0.5 --compute-ms 1
    expect "exit status" "$rc" 0
    report_json
    expect "workers linked to the training process" "$(j 'len(r["pytorch"]["workers"])')" 6
    expect "their loader" "$(j 'sorted(set(w["loader"] for w in r["pytorch"]["workers"]))')" "[1]"
    expect "start method" "$(j 'r["pytorch"]["start_method"]')" "$method"
    expect "iterators that started workers" "$(j 'r["pytorch"]["startups"]')" 3
    expect "start-up beyond the steady waits" \
        "$(j 'r["pytorch"]["startup_wait_ns"] > r["pytorch"]["data_wait_ns"] > 0')" True
    expect "verdict" "$(j 'r["verdict"]["bottleneck"]')" data-loading
    first=$(j 'r["verdict"]["recommendations"][0]')
    case $first in
    "Worker start-up: "*"starting and stopping DataLoader#1's workers (3 times, $method): set persistent_workers=True"*) ;;
    *) fail "first fix: $first" ;;
    esac
    # the fix's own sentence (a busy machine may add a note on oversubscription after it, which is right there)
    case ${first%%. *} in *"per-sample"*|*"try num_workers"*) fail "steady-state advice for start-up waits: $first" ;; esac
    if [ "$method" != fork ]; then
        case $first in *"imports torch and the main module again"*) ;; *) fail "no import advice: $first" ;; esac
    fi
    # every format carries the PyTorch section and its advice
    for f in md html; do
        "$perfscope" report "$trace" --format $f >"$dir/r.$f" 2>/dev/null || fail "report --format $f failed"
        grep -q "PyTorch" "$dir/r.$f" || fail "no PyTorch section in $f"
        grep -q "Worker start-up" "$dir/r.$f" || fail "no start-up advice in $f"
    done
    ;;
dataloader_report_persistent_workers_start_once_and_warmup_is_said)
    record -o "$trace" -- "$py" "$epochs" --start-method fork --persistent-workers --epochs 3 --steps-per-epoch 4 \
        --workers 2 --sample-ms 2 --compute-ms 1
    expect "exit status" "$rc" 0
    report_json
    expect "workers" "$(j 'len(r["pytorch"]["workers"])')" 2
    expect "iterators that started workers" "$(j 'r["pytorch"]["startups"]')" 1
    "$py" -c 'import json, sys; r = json.load(open(sys.argv[1]))
advice = " ".join(r["pytorch"]["advice"])
sys.exit("persistent_workers=True" in advice)' "$dir/r.json" || fail "advised persistent_workers=True to persistent workers"
    # the first step holds the workers' start: an outlier, left out with --skip-steps 1
    expect "first step outlier" "$(j 'r["warmup"]["first_step_outlier"]')" True
    steps=$(j 'len(r["steps"])')
    report_json --skip-steps 1
    expect "steps after --skip-steps 1" "$(j 'len(r["steps"])')" $((steps - 1))
    expect "skipped" "$(j 'r["warmup"]["skipped_steps"]')" 1
    ;;
*)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
echo "ok $case"
