#!/bin/sh
# `perfscope report` through the real binary: exit statuses and messages for bad input (1) and bad usage (2),
# and, when the shared traces are present, its documented JSON keys. Usage: report_cli.sh PERFSCOPE CASE SHARED
ps=$1 case=$2 shared=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../need_shared.sh"
tiny_json='{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]}'
expect() {   # expect STATUS PATTERN -- command...: the status and a stderr line matching PATTERN
    want=$1 pat=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -ne "$want" ]; then echo "exit $got, expected $want: $*"; cat "$tmp/err"; exit 1; fi
    if ! grep -q -- "$pat" "$tmp/err"; then echo "stderr lacks '$pat':"; cat "$tmp/err"; exit 1; fi
}
fail() { echo "$*"; exit 1; }
# gen_gpu_trace FILE: a PyTorch profiler trace of 3 steps of 10 ms: each launches a kernel of 6 ms and copies 1 MB
# from pageable memory (1 ms); the host runs 1 ms of Python before its launch
gen_gpu_trace() {
    python3 - "$1" <<'PY'
import json, sys
ev = []
for i in range(3):
    t = i * 10000
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 1, "tid": 1, "ts": t, "dur": 10000})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 1000, "dur": 500})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": t + 1000, "dur": 100, "args": {"correlation": 2 * i + 1}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1200, "dur": 100, "args": {"correlation": 2 * i + 2}})
    ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": t + 1100, "dur": 1000, "args": {"device": 0, "stream": 7, "correlation": 2 * i + 1, "bytes": 1000000}})
    ev.append({"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": t + 2500, "dur": 6000, "args": {"device": 0, "stream": 7, "correlation": 2 * i + 2}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
}
case $case in
default_text_leads_with_the_answer)   # the verdict, where the average step goes and what to do come first; the
                                      # peer tables only with --sections / --details (docs/report.md "Text report")
    gen_gpu_trace "$tmp/g.json" || exit 1
    "$ps" report "$tmp/g.json" >"$tmp/d.txt" || fail "report exited $?"
    v=$(grep -n '^Verdict: ' "$tmp/d.txt" | cut -d: -f1)
    [ -n "$v" ] && [ "$v" -le 15 ] || { cat "$tmp/d.txt"; fail "verdict at line '$v', not within the first 15"; }
    [ "$(wc -l <"$tmp/d.txt")" -le 45 ] || { cat "$tmp/d.txt"; fail "default report longer than 45 lines"; }
    # where the average step (10 ms) goes, by hand (µs in each step): the kernel [2500,8500) 6000 = 60.0 %, the
    # copy [1100,2100) 1000 = 10.0 %, the kernel's wait after the copy [2100,2500) 400 = 4.0 % (launched at 1300:
    # longer than a launch takes), the copy's call [1000,1100) 100 = 1.0 %, nothing recorded in [0,1000) and
    # [8500,10000): unexplained 2500 = 25.0 %
    grep -q '^Where the step goes (per average step of the 3 steady steps, 10.000 ms):$' "$tmp/d.txt" || fail "no breakdown"
    grep -q '^  GPU kernels                     6.000 ms   60.0 %  the GPU runs kernels$' "$tmp/d.txt" || fail "kernel row"
    grep -q '^  GPU copies                      1.000 ms   10.0 %' "$tmp/d.txt" || fail "copy row"
    grep -q '^  waiting on a stream             0.400 ms    4.0 %  volta_sgemm_128x64_nn 0.400 ms$' "$tmp/d.txt" ||
        fail "stream wait row"
    grep -q '^  unexplained                     2.500 ms   25.0 %' "$tmp/d.txt" || fail "unexplained row"
    grep -q '^What to do:$' "$tmp/d.txt" || fail "no fixes"
    grep -q '^  The 3 steps cover 100.0 % of the run' "$tmp/d.txt" || fail "no step coverage"
    for peer in 'TraceLens GPU timeline' 'HTA temporal breakdown' 'kernel names by total time' '^Copies and memsets' \
                '^Findings' 'Step-time breakdown per step' "in the PyTorch profiler's categories"; do
        if grep -q "$peer" "$tmp/d.txt"; then fail "default report holds '$peer'"; fi
    done
    grep -q '^More: --sections steps,gpu,ops,kernels,copies,findings, or --details for all$' "$tmp/d.txt" || fail "no pointer"
    "$ps" report --details "$tmp/g.json" >"$tmp/a.txt" || fail "--details exited $?"
    for peer in 'TraceLens GPU timeline' 'HTA temporal breakdown' 'Top 1 of 1 kernel names by total time' \
                '^Copies and memsets' '^Findings' 'Step-time breakdown per step' "in the PyTorch profiler's categories"; do
        grep -q "$peer" "$tmp/a.txt" || fail "--details lacks '$peer'"
    done
    if grep -q '^More:' "$tmp/a.txt"; then fail "--details still points at more"; fi
    [ "$(grep '^Verdict' "$tmp/d.txt")" = "$(grep '^Verdict' "$tmp/a.txt")" ] || fail "the verdict differs"
    "$ps" report --sections all "$tmp/g.json" | cmp -s - "$tmp/a.txt" || fail "--sections all is not --details"
    "$ps" report --sections kernels,copies "$tmp/g.json" >"$tmp/k.txt" || fail "--sections exited $?"
    grep -q 'kernel names by total time' "$tmp/k.txt" && grep -q '^Copies and memsets' "$tmp/k.txt" ||
        fail "--sections kernels,copies lacks them"
    if grep -q 'TraceLens GPU timeline\|^Findings' "$tmp/k.txt"; then fail "--sections kernels,copies holds more"; fi
    grep -q '^More: --sections steps,gpu,ops,findings, or --details for all$' "$tmp/k.txt" || fail "pointer lists sections already shown"
    expect 2 "unknown section 'tables'" -- "$ps" report --sections steps,tables x ;;
steps_cover_part_of_run)   # ProfilerStep ranges of 10 ms, each after 40 ms of enumerate(DataLoader): the steps cover
                           # 30 of 150 ms (20.0 %); the 120 ms outside are data loading: said in every format
    python3 - "$tmp/c.json" <<'PY' || exit 1
import json, sys
ev = []
for i in range(3):
    t = i * 50000
    ev.append({"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": t, "dur": 40000})
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 1, "tid": 1, "ts": t + 40000, "dur": 10000})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 41000, "dur": 8000})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
    "$ps" report "$tmp/c.json" >"$tmp/c.txt" || fail "report exited $?"
    grep -q '^Warning: the 3 analysed steps cover 20.0 % of the run (30.000 of 150.000 ms): the verdict and the' \
        "$tmp/c.txt" || { cat "$tmp/c.txt"; fail "no coverage warning"; }
    tr '\n' ' ' <"$tmp/c.txt" | sed 's/  */ /g' | grep -q 'Outside them lie 120.000 ms (80.0 % of the run): 120.000 ms of it in data-loading ranges' ||
        fail "the warning does not say what lies outside"
    [ "$(grep -n '^Warning: the 3 analysed' "$tmp/c.txt" | cut -d: -f1)" -lt "$(grep -n '^Verdict' "$tmp/c.txt" | cut -d: -f1)" ] ||
        fail "the coverage warning comes after the verdict"
    "$ps" report "$tmp/c.json" --format json -o "$tmp/c.j" || fail "json exited $?"
    python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
c = r['run']['step_coverage']
assert (c['run_ns'], c['steps_ns'], c['outside_ns'], c['data_outside_ns']) == (150000000, 30000000, 120000000, 120000000), c
assert any(w['code'] == 'steps_cover_part_of_run' for w in r['warnings']), r['warnings']
" "$tmp/c.j" || fail "JSON step_coverage"
    for fmt in md html; do
        "$ps" report "$tmp/c.json" --format $fmt | grep -q 'cover 20.0 % of the run' || fail "$fmt lacks the coverage"
    done ;;
skip_steps_beyond_the_steps)   # --skip-steps 50 on 3 steps: every step kept, said at the top and on stderr
    gen_gpu_trace "$tmp/g.json" || exit 1
    "$ps" report --skip-steps 50 "$tmp/g.json" >"$tmp/s.txt" 2>"$tmp/s.err" || fail "report exited $?"
    grep -q '^perfscope report: warning: --skip-steps 50 would leave none of the 3 steps: none was left out' \
        "$tmp/s.err" || { cat "$tmp/s.err"; fail "no warning on stderr"; }
    sed -n 3p "$tmp/s.txt" | grep -q '^Warning: --skip-steps 50 would leave none of the 3 steps: none was left out' ||
        { head -5 "$tmp/s.txt"; fail "the warning is not at the top"; }
    grep -q '^Where the step goes (per average step of the 3 steady steps, 10.000 ms)' "$tmp/s.txt" || fail "steps were left out"
    "$ps" report --skip-steps 2 "$tmp/g.json" >"$tmp/k.txt" 2>"$tmp/k.err" || fail "report exited $?"
    [ ! -s "$tmp/k.err" ] || { cat "$tmp/k.err"; fail "a warning for a --skip-steps that fits"; }
    grep -q 'per average step of the 1 steady step,' "$tmp/k.txt" || fail "--skip-steps 2 of 3 does not keep 1" ;;
missing_file) expect 1 "no-such.json" -- "$ps" report "$tmp/no-such.json" ;;
bad_regex)   # a pattern that does not compile is a usage error (2), for report and diff alike
    expect 2 "--step-range" -- "$ps" report --step-range 'step(' "$tmp/x.json"
    expect 2 "--data-range" -- "$ps" diff --data-range 'data(' "$tmp/x.json" "$tmp/x.json" ;;
unknown_option) expect 2 "unknown option" -- "$ps" report --frobnicate x ;;
no_file) expect 2 "which trace" -- "$ps" report ;;
mistyped_command_suggests_nearest)   # two edits or fewer: the nearest command; farther: no guess
    expect 2 "did you mean 'report'" -- "$ps" reprot x
    expect 2 "did you mean 'report'" -- "$ps" help reoprt
    expect 2 "did you mean 'export'" -- "$ps" exprot x
    "$ps" frobnicate 2>"$tmp/err"; [ $? -eq 2 ] || { echo "unknown command: not status 2"; exit 1; }
    if grep -q "did you mean" "$tmp/err"; then echo "guessed a command for frobnicate:"; cat "$tmp/err"; exit 1; fi ;;
bad_format) expect 2 "unknown --format" -- "$ps" report --format xml x ;;
bad_threshold) expect 2 "kernel-threshold" -- "$ps" report --kernel-threshold 2 x ;;
json_keys)
    trace=$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz
    need_shared "$trace"
    "$ps" report "$trace" --format json -o "$tmp/r.json" || exit 1
    for key in perfscope_report_version source verdict bottleneck share gpu_utilization evidence recommendations \
               steps step_average breakdown_ns sync_ns gpu_temporal idle_breakdown gpu_timeline kernels copies \
               findings comm_comp_overlap kernel memcpy memset communication runtime dataloader cpu_exec other; do
        grep -q "\"$key\"" "$tmp/r.json" || { echo "JSON lacks \"$key\""; exit 1; }
    done
    grep -q '"bottleneck": "data-loading", "share": 0.33' "$tmp/r.json" || { echo "verdict not data-loading 0.33"; exit 1; }
    "$ps" report "$trace" >"$tmp/r.txt" || exit 1
    # tb's DataLoader share of the average step (the PyTorch profiler plugin: 33.4 %) stays in the breakdown; the
    # verdict weighs where the step goes (docs/report.md), data loading about as much
    python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['step_average']; assert round(100*a['breakdown_ns']['dataloader']/a['dur_ns'],1)==33.4, a" "$tmp/r.json" || exit 1
    grep -q "^Verdict: data-loading (33\.[0-9] %" "$tmp/r.txt" || { echo "text verdict missing"; exit 1; } ;;
steps_option)   # --steps: a bad value is a usage error; infer replaces ResNet's ProfilerSteps by inferred ones (6, the
                # same count: docs/report.md), off keeps the ranges; TraceLens keys
    expect 2 "unknown --steps" -- "$ps" report --steps sometimes x
    expect 2 "unknown --compat" -- "$ps" report --compat hta x
    trace=$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz
    need_shared "$trace"
    "$ps" report "$trace" --steps infer --format json -o "$tmp/i.json" || exit 1
    grep -q '"steps_source": "inferred", "step_inference": {"found": true, "device": 0, "stream": 7' "$tmp/i.json" ||
        { echo "--steps infer: no inferred steps"; grep -o '"step_inference": [^}]*' "$tmp/i.json"; exit 1; }
    [ "$(grep -c '"name": "inferred#' "$tmp/i.json")" -eq 6 ] || { echo "not 6 inferred steps"; exit 1; }
    "$ps" report "$trace" --steps off --format json -o "$tmp/o.json" || exit 1
    grep -q '"steps_source": "ranges", "step_inference": null' "$tmp/o.json" || { echo "--steps off inferred"; exit 1; }
    for key in gpu_timeline_unlinked_events gpu_timeline_linked_by gpu_timeline_per_device tracelens_ms; do
        grep -q "\"$key\"" "$tmp/o.json" || { echo "JSON lacks \"$key\""; exit 1; }
    done ;;
nan_threshold)   # NaN and infinities are not thresholds (every comparison with NaN is false)
    expect 2 "kernel-threshold" -- "$ps" report --kernel-threshold nan x
    expect 2 "gap-threshold-ms" -- "$ps" report --gap-threshold-ms inf x
    expect 2 "tiny-kernel-us" -- "$ps" report --tiny-kernel-us NAN x
    expect 2 "top" -- "$ps" report --top nan x ;;
output_is_input)   # -o naming the trace itself (directly, by a symlink, by a hard link) is refused, input intact
    printf '%s' "$tiny_json" >"$tmp/t.json"; cp "$tmp/t.json" "$tmp/orig.json"
    ln -s t.json "$tmp/sym.json"; ln "$tmp/t.json" "$tmp/hard.json"
    for o in "$tmp/t.json" "$tmp/sym.json" "$tmp/hard.json"; do
        expect 2 "refusing to overwrite" -- "$ps" report "$tmp/t.json" -o "$o"
        cmp -s "$tmp/t.json" "$tmp/orig.json" || { echo "the trace was changed through $o"; exit 1; }
    done
    "$ps" report "$tmp/t.json" -o "$tmp/other.txt" || { echo "a different output is refused"; exit 1; } ;;
existing_output_needs_force)   # the rule of every command: an existing -o file is kept without -f (exit 2)
    printf '%s' "$tiny_json" >"$tmp/t.json"; echo keep >"$tmp/r.txt"
    expect 2 "^perfscope report: $tmp/r.txt exists (use -f to overwrite)\$" -- "$ps" report "$tmp/t.json" -o "$tmp/r.txt"
    [ "$(cat "$tmp/r.txt")" = keep ] || { echo "the existing output was changed"; exit 1; }
    "$ps" report "$tmp/t.json" -o "$tmp/r.txt" -f || { echo "-f: exit $?"; exit 1; }
    grep -q "ProfilerStep" "$tmp/r.txt" || grep -q "^Verdict" "$tmp/r.txt" || { echo "-f wrote:"; cat "$tmp/r.txt"; exit 1; }
    "$ps" report "$tmp/t.json" -o /dev/null || { echo "-o /dev/null (not a file -f protects): exit $?"; exit 1; } ;;
write_failure_one_line)
    [ -w /dev/full ] || { echo "SKIP: no writable /dev/full"; exit 77; }
    # 300 steps: a report far larger than stdio's buffer, so writes fail while rendering, not only at the flush
    i=0; ev=''
    while [ $i -lt 300 ]; do
        ev="$ev{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#$i\", \"pid\": 1, \"tid\": 1, \"ts\": $((i * 10)), \"dur\": 10},"
        i=$((i + 1))
    done
    printf '{"traceEvents": [%s{}]}' "$ev" >"$tmp/t.json"
    "$ps" report --format json "$tmp/t.json" | [ "$(wc -c)" -gt 20000 ] || { echo "report not large"; exit 1; }
    expect 1 "No space left" -- sh -c "\"$ps\" report --format json \"$tmp/t.json\" >/dev/full"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "not one error line:"; cat "$tmp/err"; exit 1; } ;;
gzip_trailing_garbage)   # concatenated members are one stream; other bytes after the stream are an error
    command -v gzip >/dev/null || { echo "SKIP: no gzip"; exit 77; }
    half=${#tiny_json}; half=$((half / 2))
    printf '%s' "$tiny_json" | cut -c1-$half | tr -d '\n' | gzip >"$tmp/c.json.gz"
    printf '%s' "$tiny_json" | cut -c$((half + 1))- | gzip >>"$tmp/c.json.gz"
    "$ps" report "$tmp/c.json.gz" >/dev/null || { echo "concatenated gzip members rejected"; exit 1; }
    printf '%s' "$tiny_json" | gzip >"$tmp/g.json.gz"; printf 'garbage' >>"$tmp/g.json.gz"
    expect 1 "trailing data after the gzip stream" -- "$ps" report "$tmp/g.json.gz" ;;
*) echo "unknown case $case"; exit 2 ;;
esac
