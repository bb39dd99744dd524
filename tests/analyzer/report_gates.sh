#!/bin/sh
# CI gates and colour through the real binary. --fail-on / --fail-on-share exit 3 (report still written) on
# the shared traces, whose expected verdicts are the peers' (shared/traces/README.md: resnet50_workers0
# data-loading, tb DataLoader share 33.4 %; resnet50_workers4 host; ddp_resnet kernel; nccl_2rank host ~76 %);
# colour only when asked or on a terminal, never with NO_COLOR under auto.
# usage: report_gates.sh PERFSCOPE CASE SHARED
ps=$1 case=$2 shared=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
k=$shared/traces/kineto
. "$(dirname "$0")/../need_shared.sh"
status() {   # status WANT -- command...: exit status WANT
    want=$1; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    [ "$got" -eq "$want" ] || { echo "exit $got, expected $want: $*"; cat "$tmp/err"; exit 1; }
}
# The cases write one output file in turn: -f replaces it (an existing -o is refused without).
case $case in
fail_on)
    need_shared "$k/resnet50_workers0.pt.trace.json.gz"
    w0=$k/resnet50_workers0.pt.trace.json.gz w4=$k/resnet50_workers4.pt.trace.json.gz
    ddp=$k/ddp_resnet_ns_resolution.pt.trace.json.gz nccl=$k/nccl_2rank.pt.trace.json.gz
    status 3 -- "$ps" report --fail-on data-loading -f -o "$tmp/r.txt" "$w0"
    # the verdict weighs where the step goes (33.1 % data loading; tb's DataLoader category is 33.4 %)
    grep -q "failing (exit 3): the verdict is data-loading at 33\.[0-9] %" "$tmp/err" || { cat "$tmp/err"; exit 1; }
    grep -q "^Verdict: data-loading" "$tmp/r.txt" || { echo "no report written under a tripped gate"; exit 1; }
    status 3 -- "$ps" report --fail-on memcpy,data-loading --format json -f -o "$tmp/r.json" "$w0"
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/r.json" || exit 1
    status 0 -- "$ps" report --fail-on memcpy,sync --format md -f -o "$tmp/r.md" "$w0"
    status 3 -- "$ps" report --fail-on host -f -o "$tmp/r.txt" "$w4"
    status 0 -- "$ps" report --fail-on host,data-loading -f -o "$tmp/r.txt" "$ddp"
    status 3 -- "$ps" report --fail-on kernel -f -o "$tmp/r.txt" "$ddp"
    status 3 -- "$ps" report --fail-on host --format html -f -o "$tmp/r.html" "$nccl" ;;
fail_on_share)
    need_shared "$k/resnet50_workers0.pt.trace.json.gz"
    w0=$k/resnet50_workers0.pt.trace.json.gz ddp=$k/ddp_resnet_ns_resolution.pt.trace.json.gz
    nccl=$k/nccl_2rank.pt.trace.json.gz
    status 3 -- "$ps" report --fail-on-share 0.30 -f -o "$tmp/r" "$w0"      # data-loading 33.4 % >= 30 %
    status 0 -- "$ps" report --fail-on-share 0.35 -f -o "$tmp/r" "$w0"      # 33.4 % < 35 %
    status 0 -- "$ps" report --fail-on-share 0.10 -f -o "$tmp/r" "$ddp"     # kernel-bound: not a starvation cause
    status 3 -- "$ps" report --fail-on-share 0.7 -f -o "$tmp/r" "$nccl"     # host ~76 %
    status 0 -- "$ps" report --fail-on-share 0.9 -f -o "$tmp/r" "$nccl"
    status 0 -- "$ps" report --fail-on data-loading --fail-on-share 0.5 -f -o "$tmp/r" "$w0"   # both must hold
    status 3 -- "$ps" report --fail-on data-loading --fail-on-share 0.3 -f -o "$tmp/r" "$w0" ;;
gate_usage)
    status 2 -- "$ps" report --fail-on data x
    grep -q "unknown bottleneck 'data'" "$tmp/err" || { cat "$tmp/err"; exit 1; }
    status 2 -- "$ps" report --fail-on kernel,,host x
    status 2 -- "$ps" report --fail-on-share 1.5 x
    status 2 -- "$ps" report --fail-on-share nan x
    status 2 -- "$ps" report --color sometimes x
    "$ps" report --help | grep -q "^Exit status: 0 report written" || { echo "exit codes not in --help"; exit 1; } ;;
color)
    need_shared "$k/resnet50_workers0.pt.trace.json.gz"
    w0=$k/resnet50_workers0.pt.trace.json.gz
    esc=$(printf '\033')
    "$ps" report "$w0" >"$tmp/plain" || exit 1
    ! grep -q "$esc" "$tmp/plain" || { echo "colour on a pipe under auto"; exit 1; }
    "$ps" report --color=always "$w0" >"$tmp/always" || exit 1
    grep -q "$esc\[1;31mdata-loading$esc\[0m" "$tmp/always" || { echo "no colour with --color=always"; exit 1; }
    NO_COLOR=1 "$ps" report --color=always "$w0" | grep -q "$esc" || { echo "--color=always must beat NO_COLOR"; exit 1; }
    "$ps" report --color=never "$w0" | grep -q "$esc" && { echo "colour with --color=never"; exit 1; }
    # a terminal (script(1) gives the command a pty): colour under auto, none once NO_COLOR is set
    if command -v script >/dev/null; then
        script -qec "$ps report $w0" /dev/null >"$tmp/tty" </dev/null
        grep -q "$esc\[" "$tmp/tty" || { echo "no colour on a terminal under auto"; exit 1; }
        NO_COLOR=1 script -qec "$ps report $w0" /dev/null >"$tmp/tty2" </dev/null
        grep -q "$esc\[1" "$tmp/tty2" && { echo "colour on a terminal with NO_COLOR=1"; exit 1; }
    fi
    # the uncoloured text equals the coloured one without its escapes
    sed "s/$esc\[[0-9;]*m//g" "$tmp/always" | cmp -s - "$tmp/plain" || { echo "colour changed the text"; exit 1; } ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit 0
