#!/bin/sh
# `perfscope export` benchmark: wall time, peak RSS and output size of the export (plain JSON and .gz) against
# `perfscope report` of the same file, for the H100 OWLv2 Kineto trace (the issue's figure) and a generated
# perfscope trace of N kernel rows (default 1 million): the export streams, so its peak RSS should be the model's,
# i.e. about the report's, whatever the output size.
# Usage: bench/export.sh [BUILD_DIR] [KERNELS] [SHARED_DIR]
set -eu
build=${1:-build}
n=${2:-1000000}
shared=${3:-$(cd "$(dirname "$0")/.." && pwd)/../shared}
[ -x /usr/bin/time ] || { echo "bench/export: needs /usr/bin/time (Debian package time)"; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-export.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
ps=$build/cli/perfscope
measure() {
    for out in x.json x.json.gz; do
        /usr/bin/time -f "%e %M" -o "$scratch/t" "$ps" export "$1" -o "$scratch/$out" -f 2>/dev/null
        read -r wall rss <"$scratch/t"
        echo "$(basename "$1"): export -> $out: $wall s wall, peak RSS $rss KiB, $(stat -c %s "$scratch/$out") bytes"
    done
    /usr/bin/time -f "%e %M" -o "$scratch/t" "$ps" report "$1" >/dev/null
    read -r wall rss <"$scratch/t"
    echo "$(basename "$1"): report: $wall s wall, peak RSS $rss KiB"
}
owl=$shared/traces/kineto/h100_owlv2_inference.pt.trace.json.gz
if [ -f "$owl" ]; then
    measure "$owl"
else
    echo "bench/export: $owl not found: skipped"
fi
"$build/bench/readers/gen_kernels" "$scratch/kernels.sqlite" "$n" >/dev/null
measure "$scratch/kernels.sqlite"
