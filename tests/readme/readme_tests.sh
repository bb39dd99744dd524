#!/bin/sh
# README.md's examples kept true (tests/readme/check_readme.py says how the README marks them).
# usage: readme_tests.sh PERFSCOPE CASE SRC BUILD SHARED
set -u
ps=$1 case=$2 src=$3 build=$4 shared=$5
fail() { echo "FAIL: $case: $*"; exit 1; }
. "$(dirname "$0")/../need_shared.sh"
check() { python3 "$(dirname "$0")/check_readme.py" "$src/README.md" "$1" "$ps" "$build" "$shared"; }

case $case in
examples_on_the_reference_traces_match_real_output)
    # the diff of the ResNet-50 pair, export to Perfetto and to TraceLens' CSVs: deterministic, line for line
    need_shared "$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz"
    need_shared "$shared/traces/kineto/h100_owlv2_inference.pt.trace.json.gz"
    check exact || fail "check_readme.py exact"
    ;;
cpu_example_matches_a_real_run_and_agrees_with_itself)
    # record the reference workload and report it, as the README's example does; its figures against each other
    [ -x "$build/workloads/train" ] || { echo "SKIP: no build/workloads/train (no CUDA toolkit: see README)"; exit 77; }
    # the example's shape is a plain build's timing: under ASan the workload's compute takes ~20 times longer and a
    # data-bound run is no longer data-bound
    grep -q '^PS_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null &&
        { echo "SKIP: the CPU example times a plain build, and $build is a sanitizer build"; exit 77; }
    check shape || fail "check_readme.py shape"
    ;;
torchrun_lines_parse_with_the_torch_they_name)
    # torch 1.13's torchrun knows --no_python, not --no-python: the line marked for 1.x and 2.x must parse there
    check torchrun; rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || fail "check_readme.py torchrun"
    ;;
needed_libraries_are_the_ones_named)
    command -v readelf >/dev/null || { echo "SKIP: no readelf"; exit 77; }
    [ -f "$build/probe/libperfscope_probe.so" ] || { echo "SKIP: no probe built"; exit 77; }
    check needed || fail "check_readme.py needed"
    ;;
*) echo "unknown case $case"; exit 2 ;;
esac
echo "PASS: $case"
