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
case $case in
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
