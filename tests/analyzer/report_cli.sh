#!/bin/sh
# `perfscope report` through the real binary: exit statuses and messages for bad input (1) and bad usage (2),
# and, when the shared traces are present, the JSON keys DESIGN §4 lists. Usage: report_cli.sh PERFSCOPE CASE SHARED
ps=$1 case=$2 shared=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
expect() {   # expect STATUS PATTERN -- command...: the status and a stderr line matching PATTERN
    want=$1 pat=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -ne "$want" ]; then echo "exit $got, expected $want: $*"; cat "$tmp/err"; exit 1; fi
    if ! grep -q -- "$pat" "$tmp/err"; then echo "stderr lacks '$pat':"; cat "$tmp/err"; exit 1; fi
}
case $case in
missing_file) expect 1 "no-such.json" -- "$ps" report "$tmp/no-such.json" ;;
bad_regex) expect 1 "--step-range" -- "$ps" report --step-range 'step(' "$tmp/x.json" ;;
unknown_option) expect 2 "unknown option" -- "$ps" report --frobnicate x ;;
no_file) expect 2 "which trace" -- "$ps" report ;;
bad_format) expect 2 "unknown --format" -- "$ps" report --format xml x ;;
bad_threshold) expect 2 "kernel-threshold" -- "$ps" report --kernel-threshold 2 x ;;
json_keys)
    trace=$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz
    [ -f "$trace" ] || exit 77
    "$ps" report "$trace" --format json -o "$tmp/r.json" || exit 1
    for key in perfscope_report_version source verdict bottleneck share gpu_utilization evidence recommendations \
               steps step_average breakdown_ns sync_ns gpu_temporal idle_breakdown gpu_timeline kernels copies \
               findings comm_comp_overlap kernel memcpy memset communication runtime dataloader cpu_exec other; do
        grep -q "\"$key\"" "$tmp/r.json" || { echo "JSON lacks \"$key\""; exit 1; }
    done
    grep -q '"bottleneck": "data-loading", "share": 0.33' "$tmp/r.json" || { echo "verdict not data-loading 0.33"; exit 1; }
    "$ps" report "$trace" >"$tmp/r.txt" || exit 1
    grep -q "^Verdict: data-loading (33.4 %" "$tmp/r.txt" || { echo "text verdict missing"; exit 1; } ;;
*) echo "unknown case $case"; exit 2 ;;
esac
