#!/bin/sh
# `perfscope report` option parsing and text escaping through the real binary: long options
# are never abbreviated, --top is decimal only, out-of-range numbers and empty paths get their own message, and a
# Unicode bidi control in a name is shown escaped. Usage: report_options.sh PERFSCOPE CASE
ps=$1 case=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s' '{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]}' >"$tmp/t.json"
expect() {   # expect STATUS PATTERN -- command...: the status and a stderr line matching PATTERN
    want=$1 pat=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -ne "$want" ]; then echo "exit $got, expected $want: $*"; cat "$tmp/err"; exit 1; fi
    if ! grep -q -- "$pat" "$tmp/err"; then echo "stderr lacks '$pat': $*"; cat "$tmp/err"; exit 1; fi
}
case $case in
no_abbreviations)   # getopt_long took --all for --all-steps and --form for --format
    expect 2 "unknown option '--all' (did you mean --all-steps" -- "$ps" report --all "$tmp/t.json"
    expect 2 "unknown option '--form' (did you mean --format" -- "$ps" report --form json "$tmp/t.json"
    expect 2 "unknown option '--form'" -- "$ps" report --form=json "$tmp/t.json"
    expect 2 "unknown option '--outp'" -- "$ps" report "$tmp/t.json" --outp "$tmp/o.txt"
    [ ! -e "$tmp/o.txt" ] || { echo "--outp wrote a file"; exit 1; }
    # the whole names still work, with '=' or a separate value, and a value may look like an option
    "$ps" report --format=json --all-steps "$tmp/t.json" >"$tmp/out" || { echo "--format=json refused"; exit 1; }
    grep -q '"steps"' "$tmp/out" || { echo "--format=json did not give JSON"; exit 1; }
    "$ps" report --step-range --all "$tmp/t.json" >/dev/null 2>&1; [ $? -ne 2 ] || { echo "value '--all' refused"; exit 1; }
    (cd "$tmp" && "$ps" report -o --all t.json && [ -s ./--all ]) || { echo "-o --all refused"; exit 1; } ;;
top_decimal_only)   # strtod read 0x10 as 16
    expect 2 "--top needs a whole decimal number" -- "$ps" report --top 0x10 "$tmp/t.json"
    expect 2 "--top needs a whole decimal number" -- "$ps" report --top 1e1 "$tmp/t.json"
    expect 2 "--top needs a whole decimal number" -- "$ps" report --top -1 "$tmp/t.json"
    expect 2 "--top needs a whole decimal number" -- "$ps" report --top 1000001 "$tmp/t.json"
    "$ps" report --top 16 "$tmp/t.json" >/dev/null || { echo "--top 16 refused"; exit 1; }
    expect 2 "needs a length in ms" -- "$ps" report --gap-threshold-ms 0x10 "$tmp/t.json" ;;
number_out_of_double_range)   # 1e-400 underflows a double: it was "needs a share from 0 to 1"
    expect 2 "'1e-400' is too small to represent" -- "$ps" report --kernel-threshold 1e-400 "$tmp/t.json"
    expect 2 "'1e400' is too large to represent" -- "$ps" report --gap-threshold-ms 1e400 "$tmp/t.json"
    expect 2 "'1e-999' is too small to represent" -- "$ps" report --tiny-kernel-us 1e-999 "$tmp/t.json"
    expect 2 "needs a share from 0 to 1" -- "$ps" report --kernel-threshold 2 "$tmp/t.json" ;;
empty_output_path)   # it was "cannot write : No such file or directory", after reading the trace
    expect 2 "an empty output path" -- "$ps" report -o '' "$tmp/t.json"
    expect 2 "an empty output path" -- "$ps" report "$tmp/t.json" --output= ;;
help_with_value)   # it was "unknown option"
    expect 2 "option '--help' takes no value" -- "$ps" report --help=x
    expect 2 "option '--all-steps' takes no value" -- "$ps" report --all-steps=yes "$tmp/t.json"
    "$ps" report --help | grep -q "^usage: perfscope report" || { echo "--help broken"; exit 1; } ;;
bidi_controls_escaped)   # U+202E (right-to-left override) reached the terminal as is
    # names short enough for the steps table's 18 columns
    printf '%s' '{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "s\u202eb\u2066", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "user_annotation", "name": "s\u061c\u200f", "pid": 1, "tid": 1, "ts": 10, "dur": 10}]}' >"$tmp/b.json"
    "$ps" report --sections steps --step-range 's.*' "$tmp/b.json" >"$tmp/out" || exit 1   # the steps table
    grep -qF ' s\u202eb\u2066 ' "$tmp/out" && grep -qF ' s\u061c\u200f ' "$tmp/out" ||
        { echo "escaped names missing:"; cat "$tmp/out"; exit 1; }
    for seq in '\342\200\256' '\342\201\246' '\330\234' '\342\200\217'; do
        if grep -q "$(printf "$seq")" "$tmp/out"; then echo "a raw bidi control reached the text report"; exit 1; fi
    done ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit 0
