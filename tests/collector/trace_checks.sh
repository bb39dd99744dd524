# Helpers shared by the collector's end-to-end test scripts (record_tests.sh, hostile_tests.sh): sourced after
# they set $case, $dir, $trace and $perfscope.

fail() {
    echo "FAIL $case: $*" >&2
    [ -z "${rec_live:-}" ] || kill -KILL "$rec" 2>/dev/null    # its program gets SIGTERM (PR_SET_PDEATHSIG)
    exit 1
}
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

# A recording in the background, for a test that acts while it runs: start_record ARGS... starts it ($rec, its
# stderr in $dir/err); end_record waits for it (its status in $rc). A test that fails meanwhile kills it.
start_record() {
    "$perfscope" record "$@" >"$dir/out" 2>"$dir/err" &
    rec=$! rec_live=1
}
end_record() {
    wait "$rec"
    rc=$? rec_live=
}
# live SQL: a value from the trace while record writes it (empty while it cannot be read yet)
live() { sqlite3 -readonly "$trace" "$1" 2>/dev/null; }
# running PID: the process exists and has not ended (a zombie has ended)
running() {
    set -- "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
    [ -n "$1" ] && [ "$1" != Z ]
}
# await WHAT PID CHECK...: run CHECK every 50 ms until it succeeds. No time limit: a test waits for the event
# it needs, never for a clock, and one that never comes ends in CTest's TIMEOUT after this line said what was
# awaited. PID (or -) must run meanwhile (the recorder, the program): if it ends first, the test fails at once.
await() {
    _what=$1 _pid=$2
    shift 2
    echo "waiting for $_what"
    until "$@"; do
        if [ "$_pid" != - ] && ! running "$_pid"; then
            "$@" && return 0
            fail "process $_pid ended before $_what: $(cat "$dir/err" 2>/dev/null)"
        fi
        sleep 0.05
    done
}
