#!/bin/sh
# End-to-end tests of perfscope's Python hook through the real binary, with Debian's python3-torch (it belongs
# to /usr/bin/python3). Usage: python_tests.sh PERFSCOPE SOURCE_DIR WORK_DIR CASE.
# Exit 77 (skipped) only when /usr/bin/python3 cannot import torch (scripts/install-deps.sh installs it).
perfscope=$1
src=$2
dir=$3/$4
case=$4
py=/usr/bin/python3
progs=$src/tests/python/progs
train=$src/workloads/pytorch/train_loader.py
rm -rf "$dir"
mkdir -p "$dir"
trace=$dir/t.sqlite
. "$src/tests/collector/trace_checks.sh"

needs_torch() {
    "$py" -c 'import torch, torchvision' 2>/dev/null || { echo "SKIP $case: /usr/bin/python3 cannot import torch/torchvision (apt-get install python3-torch python3-torchvision)"; exit 77; }
}
# j EXPR: a value of the JSON report ($dir/r.json), EXPR in Python over `r`
j() { "$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$dir/r.json" "$1" ||
      fail "cannot evaluate $1 on the report"; }
report_json() { "$perfscope" report "${1:-$trace}" --format json >"$dir/r.json" 2>"$dir/report.err" ||
                fail "report failed: $(cat "$dir/report.err")"; }
printed() { sed -n "s/^$1: //p" "$dir/out"; }   # a value train_loader.py printed
# within A B TOL: |A - B| <= TOL
within() { "$py" -c 'import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)' "$1" "$2" "$3"; }

case $case in
pytorch_workers0_heavy_transform_is_data_loading)
    needs_torch
    record -o "$trace" -- "$py" "$train" --workers 0 --heavy-transform --steps 30
    expect "exit status" "$rc" 0
    steps=$(printed steps) wait=$(printed "data wait fraction")
    expect "steps printed" "$steps" 30
    report_json
    expect verdict "$(j 'r["verdict"]["bottleneck"]')" data-loading
    n=$(j 'len(r["steps"])')
    [ "$n" -ge $((steps - 1)) ] && [ "$n" -le "$steps" ] || fail "$n steps in the report, the script took $steps"
    share=$(j 'r["step_average"]["breakdown_ns"]["dataloader"] / r["step_average"]["dur_ns"]')
    within "$share" "$wait" 0.05 || fail "DataLoader share $share, the script waited $wait of its loop"
    expect "num_workers seen" "$(j 'r["pytorch"]["loaders"][0]["num_workers"]')" 0
    expect "more workers help" "$(j 'r["pytorch"]["more_workers_help"]')" True
    j 'r["verdict"]["recommendations"][0]' | grep -q "has num_workers=0 and .* of each step waits for data: try num_workers=" ||
        fail "advice not worded from the loader: $(j 'r["verdict"]["recommendations"]')"
    # that advice is the verdict's fix (its pointer and gain), not a second one beside the generic fix
    j 'r["verdict"]["recommendations"][0]' | grep -q "the PyTorch section. Expected gain: at most" ||
        fail "the hook's advice is not the verdict's fix: $(j 'r["verdict"]["recommendations"][0]')"
    expect "generic data-loading fixes" "$(j 'sum("use more DataLoader workers" in s for s in r["verdict"]["recommendations"])')" 0
    ;;
pytorch_workers2_light_transform_records_both_workers)
    needs_torch
    record -o "$trace" -- "$py" "$train" --workers 2 --steps 30
    expect "exit status" "$rc" 0
    report_json
    [ "$(j 'r["verdict"]["bottleneck"]')" != data-loading ] || fail "verdict data-loading with 2 workers and a light transform"
    expect "worker processes" "$(j 'len(r["pytorch"]["workers"])')" 2
    expect "worker ids" "$(j 'sorted(w["id"] for w in r["pytorch"]["workers"])')" "[0, 1]"
    # every batch is fetched by one worker: 30 steps, drop_last, plus up to prefetch_factor * workers ahead
    total=$(j 'sum(w["fetches"] for w in r["pytorch"]["workers"])')
    [ "$total" -ge 30 ] && [ "$total" -le 34 ] || fail "$total fetches by the workers for 30 steps"
    expect "workers with CPU samples" "$(j 'all(w["cpu_ns"] is not None and w["cpu_ns"] > 0 for w in r["pytorch"]["workers"])')" True
    for pid in $(j '" ".join(str(w["pid"]) for w in r["pytorch"]["workers"])'); do
        n=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND globalTid >> 24 & 16777215 = $pid
               AND text = 'SyntheticImages.__getitem__'")
        [ "$n" -ge 16 ] || fail "worker $pid has $n per-sample ranges"
        expect "collate ranges of worker $pid = its fetches" \
            "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE globalTid >> 24 & 16777215 = $pid AND text = 'default_collate'")" \
            "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE globalTid >> 24 & 16777215 = $pid AND text = '_MapDatasetFetcher.fetch'")"
        expect "CPU samples of worker $pid" "$(q "SELECT count(*) > 0 FROM PERFSCOPE_PROCESS_SAMPLES WHERE globalPid >> 24 & 16777215 = $pid")" 1
    done
    ;;
pytorch_inference_loop_gets_steps_from_fetches)
    needs_torch
    record -o "$trace" -- "$py" "$train" --inference --steps 20
    expect "exit status" "$rc" 0
    report_json
    # 20 fetches delimit 19 steps (the loop stops before a 21st fetch would end the 20th)
    expect steps "$(j 'len(r["steps"])')" 19
    expect "no optimizer" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'Optimizer.step#%' OR text = 'backward'")" 0
    # each step holds exactly one fetch start (its batch's, which it starts with) and lasts until the next fetch
    expect "steps holding one fetch start" "$(q "SELECT count(*) FROM NVTX_EVENTS s WHERE s.text LIKE 'ProfilerStep#%' AND
            (SELECT count(*) FROM NVTX_EVENTS f WHERE f.text LIKE 'enumerate(DataLoader)#%' AND f.start >= s.start
             AND f.start < s.\"end\") = 1")" 19
    # from the last step's start: its own fetch, and the 20th, which starts a step the loop never finishes
    expect "fetches from the last step's start" "$(q "SELECT count(*) FROM NVTX_EVENTS f WHERE
            f.text LIKE 'enumerate(DataLoader)#%' AND f.start >= (SELECT max(start) FROM NVTX_EVENTS
            WHERE text LIKE 'ProfilerStep#%')")" 2
    ;;
python_without_torch_is_unaffected)
    printf 'in\n' | "$py" "$progs/no_torch.py" a 'b c' >"$dir/bare.out" 2>"$dir/bare.err"
    bare=$?
    record -o "$trace" -- "$py" "$progs/no_torch.py" a 'b c'
    expect "exit status" "$rc" "$bare"
    cmp -s "$dir/bare.out" "$dir/out" || fail "stdout differs: $(diff "$dir/bare.out" "$dir/out")"
    grep -q "^to stderr$" "$dir/err" || fail "stderr lost: $(cat "$dir/err")"
    expect "hook mode" "$(meta python_hooks)" default
    expect "NVTX rows" "$(q 'SELECT count(*) FROM NVTX_EVENTS')" 0
    "$perfscope" report "$trace" >/dev/null 2>"$dir/report.err" || fail "report failed: $(cat "$dir/report.err")"
    ;;
python_raising_mid_training_keeps_status_output_and_steps)
    needs_torch
    "$py" "$progs/train_until.py" raise 5 >"$dir/bare.out" 2>"$dir/bare.err"
    bare=$?
    record -o "$trace" -- "$py" "$progs/train_until.py" raise 5
    expect "exit status" "$rc" "$bare"
    expect "exit status" "$rc" 1
    cmp -s "$dir/bare.out" "$dir/out" || fail "stdout differs: $(diff "$dir/bare.out" "$dir/out")"
    grep -q "RuntimeError: training failed on purpose at step 5" "$dir/err" || fail "traceback lost: $(cat "$dir/err")"
    report_json
    expect steps "$(j 'len(r["steps"])')" 5
    ;;
python_sigkill_mid_training_keeps_status_and_steps)
    needs_torch
    record -o "$trace" -- "$py" "$progs/train_until.py" sigkill 6
    expect "exit status" "$rc" 137
    expect "steps printed" "$(grep -c '^step ' "$dir/out")" 6
    report_json
    expect steps "$(j 'len(r["steps"])')" 6
    ;;
python_copies_to_cuda_are_ranges_with_their_attributes)
    needs_torch
    "$py" "$progs/copy_to_cuda.py" >"$dir/bare.out" 2>&1
    record -o "$trace" -- "$py" "$progs/copy_to_cuda.py"
    cmp -s "$dir/bare.out" "$dir/out" || fail "the program saw other results: $(diff "$dir/bare.out" "$dir/out")"
    # x.to("cuda", non_blocking=True) and x.cuda() of 1000 float32 (4000 bytes) from pageable memory; the dtype
    # conversion is no copy to a device
    expect "copy ranges" "$(q "SELECT group_concat(c.text || ':' || e.int64Value, '|') FROM NVTX_EVENTS e JOIN NVTX_EVENTS c
            ON c.eventType = 33 AND c.category = e.category AND c.globalTid >> 24 = e.globalTid >> 24
            WHERE e.eventType = 59 AND e.text = 'copy_to_device' ORDER BY e.start")" \
        "H2D from pageable memory, non_blocking:4000|H2D from pageable memory, blocking:4000"
    ;;
python_two_gloo_ranks_each_get_a_complete_trace)
    needs_torch
    port=$((20000 + $$ % 20000))
    for rank in 0 1; do
        (cd "$dir" && RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
            "$perfscope" record -o 'run.%r.sqlite' -- "$py" "$progs/ddp_rank.py" >"out.$rank" 2>"err.$rank"; echo $? >"rc.$rank") &
    done
    wait
    for rank in 0 1; do
        expect "rank $rank exit status" "$(cat "$dir/rc.$rank")" 0
        trace=$dir/run.$rank.sqlite
        expect "rank $rank trace complete" "$(meta recording_complete)" 1
        expect "rank $rank in its trace" "$(meta rank)" "$rank"
        grep -q "^rank $rank steps: 20$" "$dir/out.$rank" || fail "rank $rank: $(cat "$dir/out.$rank" "$dir/err.$rank")"
        report_json "$trace"
        expect "rank $rank steps" "$(j 'len(r["steps"])')" 20
    done
    ;;
record_no_python_hooks_and_modules_mode)
    needs_torch
    record -o "$trace" --no-python-hooks -- "$py" "$train" --steps 3
    expect "exit status" "$rc" 0
    expect "hook mode" "$(meta python_hooks)" off
    expect "NVTX rows without the hook" "$(q 'SELECT count(*) FROM NVTX_EVENTS')" 0
    rm -f "$trace"
    record -o "$trace" --python-hooks=modules -- "$py" "$train" --steps 3
    expect "hook mode" "$(meta python_hooks)" modules
    # the top-level module's forward once per step, never its submodules (conv1, fc, ...)
    expect "top-level forwards" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'nn.Module: SmallNet'")" 3
    expect "submodule forwards" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'nn.Module: Conv2d%'")" 0
    ;;
record_detects_python_commands)
    # python3 by name, through env, a #! script (directly and through env), torchrun-like wrappers; not sh
    printf '#!%s\nprint("shebang")\n' "$py" >"$dir/direct.py"
    printf '#!/usr/bin/env -S python3 -u\nprint("env shebang")\n' >"$dir/viaenv"
    printf '#!/bin/sh\necho shell\n' >"$dir/shell.sh"
    chmod +x "$dir/direct.py" "$dir/viaenv" "$dir/shell.sh"
    for c in "$py -c pass:default" "env PYTHONUNBUFFERED=1 python3 -c pass:default" "$dir/direct.py:default" \
             "$dir/viaenv:default" "$dir/shell.sh:off" "true:off"; do
        rm -f "$trace"
        # shellcheck disable=SC2086
        record -o "$trace" -- ${c%:*}
        expect "hook for ${c%:*}" "$(meta python_hooks)" "${c##*:}"
    done
    rm -f "$trace"
    record -o "$trace" --python-hooks=on -- "$dir/shell.sh"
    expect "hook forced on a shell script" "$(meta python_hooks)" default
    record -o "$dir/x.sqlite" --python-hooks=sometimes -- true
    expect "bad mode" "$rc" 2
    grep -q "give auto, on, off or modules" "$dir/err" || fail "bad mode message: $(cat "$dir/err")"
    ;;
python_hook_chains_the_sitecustomize_it_shadows)
    mkdir -p "$dir/site"
    printf 'print("user sitecustomize ran")\n' >"$dir/site/sitecustomize.py"
    PYTHONPATH=$dir/site "$perfscope" record -o "$trace" -- "$py" -c 'print("main ran")' >"$dir/out" 2>"$dir/err"
    expect "exit status" "$?" 0
    expect "output" "$(cat "$dir/out")" "user sitecustomize ran
main ran"
    ;;
python_hook_that_cannot_load_the_probe_turns_itself_off)
    needs_torch
    # The hook outside a recording, pointed at a probe that does not exist: it logs why and the program runs as
    # without it.
    "$py" "$progs/train_until.py" raise 2 >"$dir/bare.out" 2>/dev/null
    hook=$(dirname "$perfscope")/../probe/python
    PYTHONPATH=$hook PERFSCOPE_PYTHON_HOOKS=1 PERFSCOPE_SESSION_DIR=$dir NVTX_INJECTION64_PATH=$dir/missing.so \
        PERFSCOPE_LOG=$dir/log "$py" "$progs/train_until.py" raise 2 >"$dir/out" 2>/dev/null
    expect "exit status" "$?" 1
    cmp -s "$dir/bare.out" "$dir/out" || fail "stdout differs: $(diff "$dir/bare.out" "$dir/out")"
    grep -q "cannot hook torch .*missing.so.*hook off" "$dir/log" || fail "no log line: $(cat "$dir/log" 2>&1)"
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
