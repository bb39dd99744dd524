# Helpers shared by the collector's end-to-end test scripts (record_tests.sh, hostile_tests.sh): sourced after
# they set $case, $dir, $trace and $perfscope.

fail() { echo "FAIL $case: $*" >&2; exit 1; }
# q SQL: one value from the trace
q() { sqlite3 "$trace" "$1" || fail "query failed: $1"; }
expect() { # expect WHAT GOT WANT
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
record() { # record ARGS...: run perfscope record, keep its status in $rc and its stderr in $dir/err
    "$perfscope" record "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
}
meta() { q "SELECT value FROM PERFSCOPE_META WHERE name = '$1'"; }
