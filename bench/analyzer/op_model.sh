#!/bin/sh
# Operator-model benchmarks on generated Kineto traces recorded with shapes (gen_shapes_trace.py), each printed
# with wall time, CPU time (user + system: steadier than wall time on a loaded machine) and peak RSS of the whole
# command (/usr/bin/time):
#   steps:  `perfscope report` of N = 1,000 / 2,000 / 4,000 / 8,000 steps (4 ops with shapes per step): the per-step
#           MFU must cost time linear in the events (the time per step stays flat as N doubles);
#   inputs: `perfscope report` and `export --format tracelens` of 4 ops with N = 25,000 / 50,000 / 100,000 /
#           200,000 recorded inputs each: peak RSS must stay a few bytes per byte of shape text.
# Give a second perfscope (e.g. one built from an older commit) to print its figures beside: same machine, same
# files, same moment.
# Usage: bench/analyzer/op_model.sh [BUILD_DIR] [OTHER_PERFSCOPE]
set -eu
build=${1:-build}
other=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
[ -x /usr/bin/time ] || { echo "bench/analyzer/op_model: needs /usr/bin/time (Debian package time)"; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-opmodel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
ps=$build/cli/perfscope
run() {   # run PERFSCOPE ARGS...: "WALL_S CPU_S RSS_MIB"
    rm -rf "$scratch/tl"
    /usr/bin/time -f "%e %U %S %M" -o "$scratch/t" "$@" >/dev/null 2>"$scratch/err" || { cat "$scratch/err"; exit 1; }
    read -r wall user sys rss <"$scratch/t"
    echo "$wall $(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }') $((rss / 1024))"
}
column() {   # column PERFSCOPE CMD FILE: "W s (C s CPU) R MiB"
    set -- $(run "$1" "$2" "$3" $( [ "$2" = export ] && echo --format tracelens -o "$scratch/tl" ))
    printf '%7s s (%6s s CPU) %5s MiB' "$1" "$2" "$3"
}
echo "report of N steps, 4 ops with shapes each ($ps${other:+ | $other})"
for n in 1000 2000 4000 8000; do
    python3 "$here/gen_shapes_trace.py" steps $n "$scratch/steps.json"
    printf '  N = %5d (%6d events): %s' $n $((13 * n)) "$(column "$ps" report "$scratch/steps.json")"
    [ -n "$other" ] && printf '   | %s' "$(column "$other" report "$scratch/steps.json")"
    echo
done
echo "4 ops with N recorded inputs each ($ps${other:+ | $other})"
for n in 25000 50000 100000 200000; do
    python3 "$here/gen_shapes_trace.py" inputs $n "$scratch/inputs.json"
    mb=$(($(stat -c %s "$scratch/inputs.json") / 1048576))
    for cmd in report export; do
        printf '  N = %6d (%3d MiB) %-6s: %s' $n $mb $cmd "$(column "$ps" $cmd "$scratch/inputs.json")"
        [ -n "$other" ] && printf '   | %s' "$(column "$other" $cmd "$scratch/inputs.json")"
        echo
    done
done
