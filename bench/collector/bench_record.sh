#!/bin/sh
# Sustained recording of an NVTX storm: rows per second that `perfscope record` drains from the ring and
# persists to SQLite (goal >= 1 million/s, nothing dropped). ring_storm writes push/pop records straight
# into the ring as fast as it can, so the figure is the collector's, not the probe's.
# The rate is over the whole `record` wall time: start, drain, SQLite writes, finalisation. The recorder's
# own CPU time per row (PERFSCOPE_META recorder_cpu_ns) is printed too: it does not depend on how busy
# the machine is (the drain and the writer run on two threads, so the wall rate can beat 1e9/(ns/row)).
# usage: bench_record.sh PERFSCOPE RING_STORM WORKDIR
set -eu
perfscope=$1 storm=$2 dir=$3
trace=$dir/bench_record.sqlite
run() {
    threads=$1 per=$2 rate=$3
    rm -f "$trace" "$trace-wal" "$trace-shm"
    t0=$(date +%s%N)
    "$perfscope" record --sample-hz 0 -o "$trace" -- "$storm" "$threads" "$per" "$rate" >/dev/null 2>"$dir/bench_record.err" ||
        { cat "$dir/bench_record.err"; exit 1; }
    t1=$(date +%s%N)
    rows=$(sqlite3 "$trace" "SELECT count(*) FROM NVTX_EVENTS")
    dropped=$(sqlite3 "$trace" "SELECT value FROM PERFSCOPE_META WHERE name = 'dropped_records'")
    cpu=$(sqlite3 "$trace" "SELECT value FROM PERFSCOPE_META WHERE name = 'recorder_cpu_ns'")
    awk -v t="$threads" -v p="$per" -v q="$rate" -v r="$rows" -v d="$dropped" -v ns=$((t1 - t0)) -v cpu="$cpu" 'BEGIN {
        printf "record NVTX storm %2d threads x %7d ranges, offered %s/s: %8d rows in %.2f s = %.2f M rows/s persisted, %d dropped; recorder CPU %.2f s = %.0f ns/row\n",
               t, p, q == 0 ? "unpaced" : sprintf("%.1fM", q / 1e6), r, ns / 1e9, r / (ns / 1e9) / 1e6, d,
               cpu / 1e9, cpu / r }'
}
# Sustained: paced at 1.2 M ranges/s for 5 s (the goal is >= 1 M/s with nothing dropped).
run 1 6000000 1200000
run 4 1500000 1200000
# Bursts as fast as the machine can write records (far beyond real NVTX: the ring's slack decides drops).
run 1 4000000 0
run 64 100000 0
rm -f "$trace" "$trace-wal" "$trace-shm" "$dir/bench_record.err"
