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
# TARGET_INFO_SESSION_START_TIME.utcTime as docs/trace-format.md gives it (ISO 8601, milliseconds, Z), computed
# here from utcEpochNs by SQLite's own date functions; localTime with milliseconds and the UTC offset.
check_session_start_time() {
    expect "utcTime" "$(q "SELECT utcTime FROM TARGET_INFO_SESSION_START_TIME")" \
        "$(q "SELECT strftime('%Y-%m-%dT%H:%M:%S', utcEpochNs / 1000000000, 'unixepoch') || '.' ||
              printf('%03d', utcEpochNs / 1000000 % 1000) || 'Z' FROM TARGET_INFO_SESSION_START_TIME")"
    q "SELECT localTime FROM TARGET_INFO_SESSION_START_TIME" |
        grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{4}' ||
        fail "localTime: $(q "SELECT localTime FROM TARGET_INFO_SESSION_START_TIME")"
    expect "ANALYSIS_DETAILS.globalVid = 1 << 48" "$(q "SELECT globalVid = 1 << 48 FROM ANALYSIS_DETAILS")" 1
}
