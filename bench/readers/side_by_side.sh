#!/bin/sh
# Readers against the machine's floor, side by side in one run (median of RUNS runs of each command, default 5):
#   1. resnet50_workers0 (35 MB of JSON, gzip): `perfscope report` vs `zcat` of the same file vs Python's json.load;
#   2. a ~900 MB Kineto trace replicated from it (make_long_kineto.py, written to a scratch folder):
#      `perfscope report` and the read alone (bench_read) vs `cat FILE >/dev/null`;
#   3. a perfscope trace of N generated kernel rows (gen_kernels, default 10 million): `perfscope report` and the
#      read alone vs one plain SELECT of the same columns (sql_scan).
# Each line: wall s, CPU s (user + sys), peak RSS MB, from /usr/bin/time. The CPU column is the one to compare
# on a loaded machine. Usage: bench/readers/side_by_side.sh [BUILD_DIR] [KERNELS] [MB] [RUNS]  (needs /usr/bin/time,
# python3, zcat; PS_BENCH_LONG=FILE reuses a replica already made, PS_BENCH_PARTS=13 runs cases 1 and 3 only; scratch space: MB of JSON + ~450 MB of SQLite per 10 M kernels, in $TMPDIR or /tmp)
set -eu
build=${1:-build} n=${2:-10000000} mb=${3:-900} runs=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
shared=${PS_SHARED_DIR:-$here/../../../shared}
resnet=$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz
ps=$build/cli/perfscope
for x in "$ps" "$build/bench/readers/bench_read" "$build/bench/readers/gen_kernels" "$build/bench/readers/sql_scan"; do
    [ -x "$x" ] || { echo "side_by_side.sh: $x not built" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "side_by_side.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
[ -f "$resnet" ] || { echo "side_by_side.sh: $resnet not found (set PS_SHARED_DIR)" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-side-by-side.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# measure LABEL CMD...: runs CMD $runs times (stdout discarded) and prints the medians of wall, user+sys, peak RSS.
measure() {
    label=$1
    shift
    : >"$scratch/times"
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f '%e %U %S %M' -o "$scratch/one" "$@" >/dev/null 2>"$scratch/err" ||
            { echo "$label: failed:"; cat "$scratch/err"; return 0; }
        tail -n 1 "$scratch/one" >>"$scratch/times"
        i=$((i + 1))
    done
    python3 - "$label" "$scratch/times" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
wall = statistics.median(r[0] for r in rows)
cpu = statistics.median(r[1] + r[2] for r in rows)
rss = statistics.median(r[3] for r in rows) / 1024
print("  %-44s wall %7.3f s   cpu %7.3f s   peak RSS %7.1f MB" % (sys.argv[1], wall, cpu, rss))
PY
}
pyload='import gzip, json, sys; f = sys.argv[1]; json.load(gzip.open(f) if f.endswith(".gz") else open(f))'

echo "perfscope readers, side by side (median of $runs; $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
parts=${PS_BENCH_PARTS:-123}   # which of the three cases to run (e.g. 13)
case $parts in *1*) ;; *) resnet_skip=1 ;; esac
if [ -z "${resnet_skip:-}" ]; then
echo "1. $(basename "$resnet") ($(gzip -l "$resnet" | awk 'NR==2 { printf "%.1f MB of JSON", $2 / 1e6 }'))"
measure "perfscope report" "$ps" report "$resnet"
measure "read alone (bench_read)" "$build/bench/readers/bench_read" "$resnet"
measure "zcat FILE" zcat "$resnet"
measure "python3 json.load" python3 -c "$pyload" "$resnet"
fi

case $parts in *2*)
long=${PS_BENCH_LONG:-}   # an already made replica (make_long_kineto.py), to save the minute it takes to write
if [ -z "$long" ]; then
    long=$scratch/long.json
    python3 "$here/make_long_kineto.py" "$resnet" "$long" "$mb" | sed 's/^/   /'
fi
echo "2. replicated Kineto trace ($(du -m "$long" | cut -f1) MB of JSON)"
measure "perfscope report" "$ps" report "$long"
measure "read alone (bench_read)" "$build/bench/readers/bench_read" "$long"
measure "cat FILE" cat "$long"
rm -f "$scratch/long.json"   # (json.load of 900 MB would need ~10 GB of memory: left out)
;; esac
case $parts in *3*)

kern=$scratch/kernels.sqlite
"$build/bench/readers/gen_kernels" "$kern" "$n" | sed 's/^/   /'
echo "3. perfscope trace of $n kernel rows ($(du -m "$kern" | cut -f1) MB)"
measure "perfscope report" "$ps" report "$kern"
measure "read alone (bench_read)" "$build/bench/readers/bench_read" "$kern"
measure "plain SELECT of the same columns (sql_scan)" "$build/bench/readers/sql_scan" "$kern"
;; esac
