#!/bin/sh
# Every command treats the same situation the same way (docs/design.md, "Conventions"; tests/cli/CMakeLists.txt):
# one message shape and one exit status for an input that is a FIFO, a directory or cannot be opened (1), an existing
# -o (2), a write that fails (1, naming the error, no partial output). Usage: inputs_tests.sh PERFSCOPE CASE SHARED
set -u
ps=$1 case=$2 shared=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ps-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../need_shared.sh"
fail() { echo "FAIL: $case: $*"; exit 1; }
tiny='{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]}'
printf '%s' "$tiny" >"$tmp/t.json"
# expect STATUS LINE CMD...: CMD exits STATUS and stderr holds LINE (a basic regular expression, a whole line)
expect() {
    want=$1 line=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, want $want: $* ($(cat "$tmp/err"))"
    grep -qx -- "$line" "$tmp/err" || fail "no line '$line' from $*: $(cat "$tmp/err")"
}
# each_command STATUS WHAT PATH: every command given PATH as its input exits STATUS with the line
# "perfscope CMD: PATH: WHAT" (record --recover: "perfscope record: --recover PATH: WHAT")
each_command() {
    st=$1 what=$2 in=$3
    echo "each command with $in (a FIFO blocks one for good here: the bug)"
    expect "$st" "perfscope report: $in: $what" "$ps" report "$in"
    expect "$st" "perfscope report: $in: $what" "$ps" report "$tmp/r1.json" "$in" "$tmp/r2.json"
    expect "$st" "perfscope report: $in: $what" "$ps" report "$tmp/t.json" --gpu-spec "$in"
    expect "$st" "perfscope diff: $in: $what" "$ps" diff "$in" "$tmp/t.json"
    expect "$st" "perfscope diff: $in: $what" "$ps" diff "$tmp/t.json" "$in"
    expect "$st" "perfscope export: $in: $what" "$ps" export "$in" -o "$tmp/x.json"
    expect "$st" "perfscope export: $in: $what" "$ps" export "$in" --format tracelens -o "$tmp/x"
    expect "$st" "perfscope top: $in: $what" "$ps" top --trace "$in" -n 1 --snapshot json
    expect "$st" "perfscope record: --recover $in: $what" "$ps" record --recover "$in"
    [ ! -e "$tmp/x.json" ] && [ ! -e "$tmp/x" ] || fail "an output was written"
}
"$ps" report --format json -o "$tmp/r1.json" "$tmp/t.json" && cp "$tmp/r1.json" "$tmp/r2.json" || fail "setup"

case $case in
every_command_refuses_a_fifo_input_at_once)
    # `report FIFO` (its check for a per-rank report), a FIFO among per-rank reports, `--gpu-spec FIFO`,
    # `export --format tracelens FIFO` and `record --recover FIFO` blocked for good in open(). Now each refuses it
    # at once, as top and the trace readers did: exit 1, "PATH: not a regular file (a pipe or FIFO): ...".
    mkfifo "$tmp/fifo" || fail setup
    each_command 1 "not a regular file (a pipe or FIFO): .*" "$tmp/fifo"
    [ -p "$tmp/fifo" ] || fail "the FIFO was replaced"
    ;;
every_command_says_an_unreadable_input_alike)
    # `--gpu-spec` said "cannot open F: ..." and "cannot read DIR", `export --format tracelens` "F: No such file
    # or directory (...)" and "DIR: read error: Is a directory", `record --recover` "F: No such file or
    # directory" and "DIR: cannot open the trace: unable to open database file". Now every command: exit 1,
    # "PATH: cannot open: REASON" or "PATH: is a directory, not ...".
    : >"$tmp/file"
    mkdir "$tmp/dir" || fail setup
    each_command 1 "cannot open: No such file or directory" "$tmp/missing.json"
    each_command 1 "cannot open: Not a directory" "$tmp/file/x.json"
    each_command 1 "is a directory, not a .*" "$tmp/dir"
    ;;
every_command_refuses_an_existing_output_alike)
    # an existing -o is a usage error (exit 2) in one wording, and the file is kept
    for cmd in "report $tmp/t.json" "diff $tmp/t.json $tmp/t.json" "export $tmp/t.json" "record -- true"; do
        echo keep >"$tmp/out.file"
        # shellcheck disable=SC2086
        set -- $cmd
        c=$1
        shift
        if [ "$c" = record ]; then set -- -o "$tmp/out.file" "$@"; else set -- "$@" -o "$tmp/out.file"; fi
        expect 2 "perfscope $c: $tmp/out.file exists (use -f to overwrite)" "$ps" "$c" "$@"
        [ "$(cat "$tmp/out.file")" = keep ] || fail "$c replaced the existing output"
    done
    ;;
report_names_the_file_that_is_not_a_per_rank_report)
    # among per-rank JSON reports, a trace was "give traces or per-rank JSON reports, not both (3 of the 4
    # files are perfscope JSON reports)", exit 2: which of thousands? Now the message names it.
    cp "$tmp/r1.json" "$tmp/r3.json"
    expect 2 "perfscope report: $tmp/t.json is not a perfscope JSON report, but 3 of the 4 files are: give traces or per-rank JSON reports, not both" \
        "$ps" report "$tmp/r1.json" "$tmp/t.json" "$tmp/r2.json" "$tmp/r3.json"
    ;;
export_that_cannot_write_names_the_error_and_leaves_nothing)
    # On a full disk `export` said "Input/output error" (tracelens) or nothing (perfetto) and left a folder
    # behind. A file-size limit makes the writes fail the same way (EFBIG standing in for ENOSPC: no disk needs
    # filling; SIGXFSZ ignored, as a shell may leave it): 16 blocks (8 KiB in dash, 16 KiB in bash) hold the trace's
    # GEMM.csv (5.5 KB), not its ops_unique_args.csv (18 KB) nor its Chrome JSON. Each: exit 1, one line naming the
    # error, no output and no temporary file or folder left; an existing folder keeps its files.
    trace=$shared/traces/kineto/h100_bert_small_inference.pt.trace.json.gz
    need_shared "$trace"
    limited() { (trap '' XFSZ && ulimit -f 16 && exec "$ps" export "$@"); }
    one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not one line: $(cat "$tmp/err")"; }
    for out in x.json x.json.gz; do
        expect 1 "perfscope export: writing $tmp/$out failed: File too large" limited "$trace" -o "$tmp/$out"
        one_line
    done
    expect 1 "perfscope export: writing $tmp/tl/[A-Za-z_]*\.csv failed: File too large" \
        limited "$trace" --format tracelens -o "$tmp/tl"
    one_line
    mkdir "$tmp/old" && echo keep >"$tmp/old/GEMM.csv" || fail setup
    expect 1 "perfscope export: writing $tmp/old/[A-Za-z_]*\.csv failed: File too large" \
        limited "$trace" --format tracelens -o "$tmp/old" -f
    one_line
    [ "$(ls "$tmp/old") $(cat "$tmp/old/GEMM.csv")" = "GEMM.csv keep" ] || fail "the existing folder: $(ls "$tmp/old")"
    left=$(ls -d "$tmp"/x.json* "$tmp"/tl* "$tmp"/*tmp* "$tmp"/old/*tmp* 2>/dev/null)
    [ -z "$left" ] || fail "left behind: $left"
    # without the limit the same exports are written: the limit is what failed
    "$ps" export "$trace" --format tracelens -o "$tmp/tl" 2>/dev/null && [ -s "$tmp/tl/ops_unique_args.csv" ] ||
        fail "the export without a limit"
    ;;
*) fail "unknown case" ;;
esac
echo "PASS: $case"
