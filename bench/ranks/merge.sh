#!/bin/sh
# Merge benchmark for `perfscope report run.*.report.json` (docs/distributed.md): per-rank JSON reports generated
# from one real one — the shared NCCL trace's `report --format json` (a full report: steps, kernels, 7 collective
# rows with bytes) — with each copy's rank_summary given its own rank and trace name and rank 3 made 20 % slower
# (a step-time straggler), merged at each RANKS count: wall time and peak RSS (/usr/bin/time -v). For comparison,
# the several-trace path on TRACES copies of the NCCL trace itself (one rank each), read and analysed directly.
# Goal (issue 22): 1024 ranks under 2 s and 200 MB on the 2-core development machine.
# Usage: bench/ranks/merge.sh [BUILD_DIR] [RANKS...]   (default: build 1024 8192; TRACES=8 in the environment)
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
counts=${*:-1024 8192}
traces=${TRACES:-8}
src=$(dirname "$0")/../..
trace=${PS_SHARED_DIR:-$src/../shared}/traces/kineto/nccl_2rank.pt.trace.json.gz
[ -f "$trace" ] || { echo "no $trace: set PS_SHARED_DIR"; exit 1; }
ps=$build/cli/perfscope
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-merge.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
echo "nproc: $(nproc)"
# wall seconds and peak RSS (KiB) of one command, from /usr/bin/time -v
measure() {
    /usr/bin/time -v "$@" >/dev/null 2>"$scratch/time.txt" || { cat "$scratch/time.txt"; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$scratch/time.txt" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$scratch/time.txt")
}
"$ps" report --format json -o "$scratch/one.report.json" "$trace"
for n in $counts; do
    mkdir "$scratch/$n"
    python3 - "$scratch/one.report.json" "$scratch/$n" "$n" <<'PY'
import json, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(src).read()
cut = text.rindex('"rank_summary":')
head, summary = text[:cut], json.loads(text[cut + len('"rank_summary":'):].rstrip().rstrip("}"))
for r in range(n):
    s = dict(summary, rank=r, world_size=n, trace="run.%d.pt.trace.json.gz" % r)
    if r == 3:   # a straggler by step time: 20 % longer, all of it in Other
        s["step_dur_ns"] = summary["step_dur_ns"] * 12 // 10
        s["breakdown_ns"] = dict(summary["breakdown_ns"], other=summary["breakdown_ns"]["other"] +
                                 s["step_dur_ns"] - summary["step_dur_ns"])
    with open("%s/run.%d.report.json" % (out, r), "w") as f:
        f.write(head + '"rank_summary": ' + json.dumps(s) + "\n}\n")
PY
    size=$(du -sm "$scratch/$n" | cut -f1)
    measure "$ps" report --format json -o "$scratch/merged.$n.json" "$scratch/$n"/run.*.report.json
    echo "merge of $n per-rank reports ($size MB of JSON): $wall s wall, peak RSS $((rss / 1024)) MiB"
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert len(r["ranks"]) == n and [g["rank"] for g in r["stragglers"]] == [3], (len(r["ranks"]), r["stragglers"])' \
        "$scratch/merged.$n.json" "$n"
    rm -rf "$scratch/$n"
done
i=0
while [ $i -lt "$traces" ]; do
    python3 - "$trace" "$scratch/t.$i.json.gz" "$i" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
t["distributedInfo"]["rank"] = int(sys.argv[3])
json.dump(t, gzip.open(sys.argv[2], "wt"))
PY
    i=$((i + 1))
done
measure "$ps" report --format json -o "$scratch/direct.json" "$scratch"/t.*.json.gz
echo "several-trace report of $traces NCCL traces ($(du -sm "$scratch" | cut -f1) MB gzip): $wall s wall, peak RSS $((rss / 1024)) MiB"
