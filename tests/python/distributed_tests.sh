#!/bin/sh
# The several-rank report on real torch.distributed runs: two gloo ranks of workloads/pytorch/ddp_straggler.py,
# started by hand with RANK / WORLD_SIZE (Debian's torchrun fails on Python 3.11), each under its own
# `perfscope record`, one rank slowed by a known delay per step. Usage: distributed_tests.sh PERFSCOPE SOURCE_DIR
# WORK_DIR CASE. Exit 77 (skipped) only when /usr/bin/python3 cannot import torch.
perfscope=$1
src=$2
dir=$3/$4
case=$4
py=/usr/bin/python3
straggler=$src/workloads/pytorch/ddp_straggler.py
rm -rf "$dir"
mkdir -p "$dir"

fail() { echo "FAIL $case: $*" >&2; exit 1; }
"$py" -c 'import torch' 2>/dev/null || { echo "SKIP $case: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"; exit 77; }

# two_ranks DELAY_MS SLOW_IN: record ranks 0 and 1 (rank 1 slow) into $dir/run.{0,1}.sqlite; waits for both. One
# intra-op thread per rank: two ranks share the machine, and more threads only make them contend for its cores.
two_ranks() {
    port=$((20000 + $$ % 20000))
    for rank in 0 1; do
        (cd "$dir" && OMP_NUM_THREADS=1 RANK=$rank WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
            "$perfscope" record -o "run.$rank.sqlite" -- "$py" "$straggler" --slow-rank 1 --delay-ms "$1" \
            --slow-in "$2" --steps 8 --batch-size 8 >"out.$rank" 2>"err.$rank"; echo $? >"rc.$rank") &
    done
    wait
    for rank in 0 1; do
        [ "$(cat "$dir/rc.$rank")" = 0 ] || fail "rank $rank exited $(cat "$dir/rc.$rank"): $(tail -5 "$dir/err.$rank")"
    done
}

# check_straggler DELAY_MS CATEGORY: the report over both traces names rank 1 by the wait rule, rank 0 waits for
# it as long as the ranks' own timers say (within 20 %; at most the injected delay), and rank 1's largest excess is CATEGORY
check_straggler() {
    "$perfscope" report --format json -o "$dir/r.json" "$dir/run.0.sqlite" "$dir/run.1.sqlite" ||
        fail "report exited $?"
    "$perfscope" report "$dir/run.0.sqlite" "$dir/run.1.sqlite" >"$dir/r.txt" || fail "text report exited $?"
    "$py" - "$dir/r.json" "$1" "$2" "$dir/out.0" "$dir/out.1" <<'PY' || { cat "$dir/r.txt"; fail "straggler"; }
import json, sys
r = json.load(open(sys.argv[1]))
delay_ns, category = float(sys.argv[2]) * 1e6, sys.argv[3]
# each rank's own clock: per step, the time from the end of backward's computation to its return (ddp_straggler.py)
own = [[float(x) * 1e6 for x in open(p).read().split("allreduce wait ms: ")[1].split("\n")[0].split()]
       for p in sys.argv[4:6]]
g = r["straggler_waited_for"]
assert r["straggler_rule"] == "wait", r["straggler_rule"]
assert g["rank"] == 1 and g["most_waiting_rank"] == 0, g
assert g["category"] == category, g
# rank 0 waits for rank 1: its time blocked in collectives beyond rank 1's own (the collectives' cost both pay),
# against the ranks' own clocks. DDP times an iteration at the next forward, so the 8th step has no
# ddp:gradient_allreduce_wait range (docs/python.md): steps 1-7 of the program's timers, averaged over 8 steps.
want = sum(own[0][:7]) / 8 - sum(own[1][:7]) / 8
assert abs(g["waited_for_ns"] - want) <= 0.2 * want, (g["waited_for_ns"], g["others_wait_ns"], want)
# and the injected delay bounds it from above: rank 0 cannot wait for rank 1 longer than rank 1's extra work (plus
# the scheduler's latency). Not from below: on a loaded machine rank 0's own work stretches too and absorbs part of
# the delay (80 ms of 150 with 2 busy loops per core), which is what rank 0's own timers above measure.
assert 0 < g["waited_for_ns"] <= 1.2 * delay_ns, (g["waited_for_ns"], delay_ns)
assert g["others_wait_ns"] > g["own_wait_ns"], g
# what in rank 1's step is longer: the delay, in that category (sleeps only overrun: with --slow-in data, each of
# the batch's 8 sleeps of delay / 8 overruns by the scheduler's latency on a loaded machine, so no upper bound)
assert g["category_excess_ns"] >= 0.8 * delay_ns, (g["category_excess_ns"], delay_ns)
comm = {k["rank"]: k["step_average"]["breakdown_ns"]["communication"] for k in r["ranks"]}
assert comm[0] > comm[1] > 0, comm
PY
    grep -q "^Straggler (waited for): rank 1: " "$dir/r.txt" || { cat "$dir/r.txt"; fail "text names no straggler"; }
    grep -q "^Straggler rule: who waits for whom" "$dir/r.txt" || fail "text does not say which rule decided"
}

case $case in
ddp_gloo_slow_compute_rank_is_the_one_the_others_wait_for)
    two_ranks 150 compute
    check_straggler 150 kernel
    ;;
ddp_gloo_slow_data_loading_rank_is_the_one_the_others_wait_for)
    two_ranks 150 data
    check_straggler 150 dataloader
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS $case"
