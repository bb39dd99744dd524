#!/bin/sh
# `perfscope export TRACE --format tracelens -o DIR` through the real binary.
# usage: tracelens_export.sh PERFSCOPE CASE SHARED_DIR
#   csvs_equal_tracelens_published: every CSV TraceLens published for the shared traces (SHARED/traces/tracelens/*/)
#       equals the export row by row (compare_tracelens.py: grouping keys exact, numbers to 1e-6, TraceLens' own
#       regression rule), and the export writes no CSV TraceLens did not publish.
#   output_folder_rules: a missing DIR is made; an existing non-empty DIR is refused without -f (exit 2) and written
#       with -f; a file as DIR is refused (exit 2); a trace that is no JSON fails with one line (exit 1).
#   refuses_the_times_report_refuses_and_leaves_out_the_events_it_leaves_out: a kernel "dur" of +-1e400, 1e300 or
#       9.2e18 µs (beyond int64 ns), events 23 days apart: export exits 1 with report's message (it wrote inf, -inf,
#       nan and absurd times, and -1e400 set off UBSan in op_perf_short.c); a negative "dur": the kernel is left out
#       as report leaves it out (it was a negative time in the CSVs).
#   short_kernel_histogram_takes_durations_far_below_a_nanosecond: kernels of 0 and 4e-320 µs are binned, not UB.
#   sqlite_trace_is_told_what_tracelens_needs: a SQLite trace is told what the format needs (exit 1, one line).
set -u
PERFSCOPE=$1 CASE=$2 SHARED=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../need_shared.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# trace TS DUR [OTHER_DUR]: a cpu_op launching three kernels (linked by ac2g flows); the second (event 6) has TS and
# DUR, the others OTHER_DUR (4)
trace() {
    printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, '
    printf '"dur": 100, "args": {"Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"]}}'
    for k in 1 2 3; do
        ts=$((10 + 10 * k)) dur=${3:-4}
        [ $k -eq 2 ] && ts=$1 dur=$2
        printf ', {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, ' $((8 + 3 * k))
        printf '"dur": 2, "args": {"correlation": %d}}, {"ph": "X", "cat": "kernel", "name": "kernel_%d", ' $k $k
        printf '"pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"correlation": %d, "stream": 7}}, ' "$ts" "$dur" $k
        printf '{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": %d, "pid": 1, "tid": 1, "ts": %d}, ' $k $((8 + 3 * k))
        printf '{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": %d, "pid": 0, "tid": 7, "ts": %d, "bp": "e"}' $k $((10 + 10 * k))
    done
    printf ']}'
}
case $CASE in
csvs_equal_tracelens_published)
    need_shared "$SHARED/traces/tracelens/h100_owlv2_inference/GEMM.csv"
    python3 "$HERE/compare_tracelens.py" "$PERFSCOPE" "$SHARED/traces" "$WORK" || fail "exports differ from TraceLens' CSVs"
    ;;
output_folder_rules)
    TRACE=$SHARED/traces/kineto/h100_bert_small_inference.pt.trace.json.gz
    need_shared "$TRACE"
    "$PERFSCOPE" export "$TRACE" --format tracelens -o "$WORK/new" 2>"$WORK/err" || fail "export into a new folder: $(cat "$WORK/err")"
    [ -f "$WORK/new/GEMM.csv" ] && [ -f "$WORK/new/unified_perf_summary.csv" ] || fail "no GEMM.csv / unified_perf_summary.csv"
    "$PERFSCOPE" export "$TRACE" --format tracelens -o "$WORK/new" 2>"$WORK/err"
    [ $? -eq 2 ] || fail "a non-empty folder without -f: want exit 2"
    grep -q "not empty (use -f" "$WORK/err" || fail "message: $(cat "$WORK/err")"
    "$PERFSCOPE" export "$TRACE" --format tracelens -o "$WORK/new" -f 2>"$WORK/err" || fail "-f: $(cat "$WORK/err")"
    : >"$WORK/file"
    "$PERFSCOPE" export "$TRACE" --format tracelens -o "$WORK/file" 2>"$WORK/err"
    [ $? -eq 2 ] || fail "a file as DIR: want exit 2"
    printf 'not json' >"$WORK/bad.json"
    "$PERFSCOPE" export "$WORK/bad.json" --format tracelens -o "$WORK/bad" 2>"$WORK/err"
    [ $? -eq 1 ] || fail "a trace that is no JSON: want exit 1"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "want one line: $(cat "$WORK/err")"
    [ ! -e "$WORK/bad" ] || fail "a failed export left the folder behind"
    ;;
sqlite_trace_is_told_what_tracelens_needs)
    # A perfscope or Nsight Systems trace (SQLite): one line saying what --format tracelens needs (a PyTorch profiler
    # JSON trace recorded with shapes) and what to use instead; exit 1 (docs/export.md); no folder.
    python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("CREATE TABLE StringIds(id INTEGER, value TEXT)"); db.commit()' \
        "$WORK/run.sqlite" || fail "sqlite3"
    "$PERFSCOPE" export "$WORK/run.sqlite" --format tracelens -o "$WORK/tl" 2>"$WORK/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, want 1"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "want one line: $(cat "$WORK/err")"
    grep -Fq "perfscope export: $WORK/run.sqlite is a SQLite trace (perfscope or Nsight Systems): --format tracelens needs a PyTorch profiler JSON trace recorded with shapes (torch.profiler.profile(record_shapes=True)" \
        "$WORK/err" || fail "message: $(cat "$WORK/err")"
    grep -qi "lexical" "$WORK/err" && fail "a parser's words: $(cat "$WORK/err")"
    [ ! -e "$WORK/tl" ] || fail "the folder was made"
    ;;
refuses_the_times_report_refuses_and_leaves_out_the_events_it_leaves_out)
    for bad in "30 -1e400" "30 1e400" "30 1e300" "30 9.2e18" "2000000000000 4"; do
        trace $bad >"$WORK/t.json"
        "$PERFSCOPE" report "$WORK/t.json" >/dev/null 2>"$WORK/report.err"
        [ $? -eq 1 ] || fail "report of ts, dur $bad: want exit 1"
        "$PERFSCOPE" export "$WORK/t.json" --format tracelens -o "$WORK/csv" 2>"$WORK/export.err"
        [ $? -eq 1 ] || fail "export of ts, dur $bad: want exit 1: $(cat "$WORK/export.err")"
        [ ! -e "$WORK/csv" ] || fail "export of ts, dur $bad wrote $(ls "$WORK/csv")"
        want=$(sed 's/^perfscope report: //' "$WORK/report.err")
        got=$(sed 's/^perfscope export: //; s/ (--format tracelens reads PyTorch profiler JSON traces)$//' "$WORK/export.err")
        [ "$got" = "$want" ] || fail "ts, dur $bad: export says '$got', report '$want'"
        case $want in
        *'event 6: "dur" is not a number of µs in range'* | *'the events span more than 13 days'*) ;;
        *) fail "ts, dur $bad: report says $want" ;;
        esac
    done
    trace 30 -5 >"$WORK/t.json"
    "$PERFSCOPE" export "$WORK/t.json" --format tracelens -o "$WORK/csv" 2>"$WORK/export.err" ||
        fail "export with a negative dur: $(cat "$WORK/export.err")"
    grep -q kernel_1 "$WORK/csv/kernel_summary.csv" || fail "kernel_1 missing: $(cat "$WORK/csv/kernel_summary.csv")"
    ! grep -q kernel_2 "$WORK/csv/kernel_summary.csv" || fail "the kernel of dur -5 is in kernel_summary.csv"
    ! grep -Eiq '(^|,)-[0-9]|inf|nan' "$WORK"/csv/*.csv || fail "a negative, inf or nan value: $(grep -Eih '(^|,)-[0-9]|inf|nan' "$WORK"/csv/*.csv)"
    grep -q '^computation_time,0.008,' "$WORK/csv/gpu_timeline.csv" || fail "computation_time: $(cat "$WORK/csv/gpu_timeline.csv")"
    ;;
short_kernel_histogram_takes_durations_far_below_a_nanosecond)
    # kernels of 0, 4e-320 and 0 µs (0 ns each, as report reads them): numpy's rule divides by max - min, 4e-320,
    # which overflowed to inf and made the bin of 0 * inf, NaN, a long (UBSan in op_perf_short.c): the two 0s
    # go to the first bin, 4e-320 to the last
    trace 30 4e-320 0 >"$WORK/t.json"
    "$PERFSCOPE" export "$WORK/t.json" --format tracelens -o "$WORK/csv" 2>"$WORK/export.err" ||
        fail "export: $(cat "$WORK/export.err")"
    [ "$(wc -l <"$WORK/export.err")" -eq 1 ] || fail "want one line: $(cat "$WORK/export.err")"
    h=$WORK/csv/short_kernel_histogram.csv
    [ "$(sed -n 2p "$h")" = "0.0,4e-322,2" ] || fail "first bin: $(sed -n 2p "$h")"
    [ "$(sed -n 101p "$h")" = "3.962e-320,4e-320,1" ] || fail "last bin: $(sed -n 101p "$h")"
    [ "$(awk -F, 'NR > 1 { n += $3 } END { print n }' "$h")" = 3 ] || fail "counts: $(cat "$h")"
    ;;
*) fail "unknown case $CASE" ;;
esac
echo PASS
