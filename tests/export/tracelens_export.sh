#!/bin/sh
# `perfscope export TRACE --format tracelens -o DIR` through the real binary.
# usage: tracelens_export.sh PERFSCOPE CASE SHARED_DIR
#   csvs_equal_tracelens_published: every CSV TraceLens published for the shared traces (SHARED/traces/tracelens/*/)
#       equals the export row by row (compare_tracelens.py: grouping keys exact, numbers to 1e-6, TraceLens' own
#       regression rule), and the export writes no CSV TraceLens did not publish.
#   output_folder_rules: a missing DIR is made; an existing non-empty DIR is refused without -f (exit 2) and written
#       with -f; a file as DIR is refused (exit 2); a trace that is no JSON fails with one line (exit 1).
set -u
PERFSCOPE=$1 CASE=$2 SHARED=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../need_shared.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

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
*) fail "unknown case $CASE" ;;
esac
echo PASS
