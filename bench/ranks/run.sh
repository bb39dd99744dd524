#!/bin/sh
# Several-rank report benchmark: FILES generated perfscope rank traces of KERNELS kernel rows
# each (bench/readers/gen_kernels; default 8 files of 2.5 million kernels, ~110 MB each, written to a scratch
# folder and removed after), then
#   - `perfscope report run.*.sqlite` once: wall time and peak RSS (/usr/bin/time -v),
#   - the same files one `perfscope report FILE` after another: summed wall time, largest peak RSS.
# The several-file report reads at most nproc files at once and frees each model after its summary, so its peak
# should be about min(nproc, FILES) single-file peaks, not FILES of them.
# Usage: bench/ranks/run.sh [BUILD_DIR] [FILES] [KERNELS]
set -eu
build=${1:-build}
files=${2:-8}
n=${3:-2500000}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-ranks.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
i=0
while [ $i -lt "$files" ]; do
    "$build/bench/readers/gen_kernels" "$scratch/run.$i.sqlite" "$n" >/dev/null
    i=$((i + 1))
done
ls -l "$scratch" | awk 'NR > 1 { s += $5; n++ } END { printf "%d files, %.1f MB each on average, %.1f MB in all\n", n, s / n / 1e6, s / 1e6 }'
echo "nproc: $(nproc)"
# wall seconds and peak RSS (KiB) of one command, from /usr/bin/time -v
measure() {
    /usr/bin/time -v "$@" >/dev/null 2>"$scratch/time.txt" || { cat "$scratch/time.txt"; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$scratch/time.txt" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$scratch/time.txt")
}
measure "$build/cli/perfscope" report "$scratch"/run.*.sqlite
echo "several-file report: $wall s wall, peak RSS $((rss / 1024)) MiB"
total=0 peak=0
for f in "$scratch"/run.*.sqlite; do
    measure "$build/cli/perfscope" report "$f"
    total=$(echo "$total + $wall" | bc)
    [ "$rss" -gt "$peak" ] && peak=$rss
done
echo "one file after another: $total s wall in all, largest peak RSS $((peak / 1024)) MiB (per file)"
