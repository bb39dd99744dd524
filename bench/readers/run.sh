#!/bin/sh
# Reader benchmark: read time and peak RSS for the ResNet-50 Kineto trace and for a generated perfscope
# trace of N kernel rows (default 10 million; ~440 MB of SQLite written to a scratch folder, removed after).
# Usage: bench/readers/run.sh [BUILD_DIR] [KERNELS] [SHARED_DIR]
set -eu
build=${1:-build}
n=${2:-10000000}
shared=${3:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-readers.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
resnet="$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz"
if [ -f "$resnet" ]; then
    # each file in its own process, so the peak RSS printed is that file's alone
    "$build/bench/readers/bench_read" "$resnet"
else
    echo "bench/readers: $resnet not found: skipped"
fi
"$build/bench/readers/gen_kernels" "$scratch/kernels.sqlite" "$n"
"$build/bench/readers/bench_read" "$scratch/kernels.sqlite"
