#!/bin/sh
# Reader + report benchmark: read time and peak RSS (bench_read), read + analyses split (bench_analyses) and the
# whole `perfscope report` (wall and peak RSS via /usr/bin/time, when installed) for the ResNet-50 Kineto trace
# and a generated perfscope trace of N kernel rows (default 10 million; ~440 MB of SQLite written to a scratch
# folder, removed after). Goals (issue "Performance"): resnet50 report <= 0.3 s and <= 60 MB; 10 M kernels
# <= 5 s and <= 200 MB.
# Usage: bench/readers/run.sh [BUILD_DIR] [KERNELS] [SHARED_DIR]
set -eu
build=${1:-build}
n=${2:-10000000}
shared=${3:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-readers.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# each file in its own processes, so each peak RSS printed is that file's alone
measure() {
    "$build/bench/readers/bench_read" "$1"
    "$build/bench/analyzer/bench_analyses" "$1"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "$1: perfscope report %e s wall, peak RSS %M KiB" "$build/cli/perfscope" report "$1" >/dev/null
    fi
}
resnet="$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz"
if [ -f "$resnet" ]; then
    measure "$resnet"
else
    echo "bench/readers: $resnet not found: skipped"
fi
"$build/bench/readers/gen_kernels" "$scratch/kernels.sqlite" "$n"
measure "$scratch/kernels.sqlite"
