#!/bin/sh
# End-to-end tests of `perfscope record` with programs that do what real programs do and must survive being
# recorded: tests/collector/hostile_prog.c, whose comments say what each mode did.
# Usage: hostile_tests.sh PERFSCOPE HOSTILE_PROG WORKDIR CASE
set -u
perfscope=$1 prog=$2 work=$3 case=$4
dir=$work/hostile_tests.$case
rm -rf "$dir" && mkdir -p "$dir" || exit 1
trace=$dir/t.sqlite

. "$(dirname "$0")/trace_checks.sh"
size() { wc -c <"$1" | tr -d ' '; }

case $case in
record_probe_never_writes_to_a_descriptor_it_no_longer_owns)
    # the probe kept the ring's descriptor and fallocate'd every fresh chunk through it; after
    # the program closed all descriptors and opened its own file on that number, the file grew by 64 KiB per
    # chunk. 300000 ranges "r" of 40 bytes each are 12 MB of records: about 180 chunks of 64 KiB, many of
    # them fresh (the collector drains every millisecond, the program writes a chunk in well under one).
    # 1 "start" + 300000 "r" rows, 0 dropped: a descriptor gone is no reason to drop.
    record -o "$trace" -- "$prog" closefds "$dir/victim.dat" 300000
    expect "status" "$rc" 0
    expect "the program's file (6 bytes written)" "$(size "$dir/victim.dat")" 6
    expect "content" "$(cat "$dir/victim.dat")" hello
    expect "rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59")" 300001
    expect "dropped_records" "$(meta dropped_records)" 0
    # Same with stdin closed before the first NVTX call and a file moved onto 0 by dup2.
    record -f -o "$trace" -- "$prog" dup2 "$dir/stdin.dat" 300000
    expect "dup2 status" "$rc" 0
    expect "the file moved onto fd 0 (6 bytes written)" "$(size "$dir/stdin.dat")" 6
    expect "dup2 rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59")" 300001
    expect "dup2 dropped_records" "$(meta dropped_records)" 0
    ;;
record_probe_fits_its_ring_under_a_file_size_limit)
    # with RLIMIT_FSIZE below the 512 MiB ring, ftruncate raised SIGXFSZ and killed the
    # program (exit 153). A 4 MiB limit: the ring is made 4 MiB (4 KiB chunks) and 20000 ranges (800 KB)
    # all fit; a 64 KiB limit is below the smallest ring (659456 bytes): the probe records nothing and
    # says why, and the program still runs to the end.
    record -o "$trace" -- "$prog" fsize 4194304 20000
    expect "status" "$rc" 0
    expect "program output" "$(cat "$dir/out")" survived
    expect "rows under a 4 MiB limit" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59")" 20000
    expect "dropped_records" "$(meta dropped_records)" 0
    record -f -o "$trace" -- "$prog" fsize 65536 100
    expect "status under a 64 KiB limit" "$rc" 0
    expect "program output under a 64 KiB limit" "$(cat "$dir/out")" survived
    grep -q "the probe could not record.*file size limit (ulimit -f) is below the smallest ring" "$dir/err" ||
        fail "no probe warning: $(cat "$dir/err")"
    expect "rows under a 64 KiB limit" "$(q "SELECT count(*) FROM NVTX_EVENTS")" 0
    ;;
record_reports_a_file_size_limit_and_gives_cmd_the_default_sigxfsz)
    # under `ulimit -f` it died of SIGXFSZ (exit 153) without a word. Now it
    # ignores SIGXFSZ, so its writes fail with EFBIG and it says the trace is incomplete and why; CMD still
    # gets SIGXFSZ's default action (xfsz_disposition exits 0 only then). The soft limit is 4 MiB (8192 blocks of
    # 512 bytes in dash, 1024 in bash): enough for the schema (64 KiB pages); CMD lifts its own soft limit and
    # makes 1000000 ranges: the NVTX_EVENTS rows alone exceed 4 MiB (at least 5 bytes each: a row header,
    # an id and two timestamps).
    record -o "$trace" -- "$prog" xfsz_disposition
    expect "CMD's SIGXFSZ disposition (0: default)" "$rc" 0
    (ulimit -S -f 8192 && exec "$perfscope" record -f -o "$trace" -- "$prog" fsize -1 1000000) >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "status $rc under a 4 MiB limit (153: killed by SIGXFSZ)"
    # Where the limit bites depends on SQLite's page and WAL sizes: at the schema or at a later commit.
    grep -Eq "incomplete or missing|creating the schema" "$dir/err" || fail "no failed-trace message: $(cat "$dir/err")"
    grep -Eq "a file size limit is set \(ulimit -f: (4194304|8388608) bytes\)" "$dir/err" || fail "cause: $(cat "$dir/err")"
    ;;
record_stores_only_valid_utf8_text)
    # bytes that are not UTF-8 were stored as is, and Python's sqlite3 (pandas) could not read
    # NVTX_EVENTS, StringIds, ThreadNames, PROCESSES, PERFSCOPE_PROCESS_INFO or PERFSCOPE_META. Every table must
    # read, and each bad text must read as Python's own bytes.decode('utf-8', 'replace') of the raw bytes
    # (the peer that defines the expected value; hostile_prog.c's badutf8 lists them). Its thread with a cut
    # OS name, which only the sampler sees, lives until the trace holds that name (PROCESSES and ThreadNames
    # are written while recording).
    start_record -o "$trace" --sample-hz 50 -- "$prog" badutf8 "$dir/named" "$(printf 'a\377b')"
    trap 'touch "$dir/named" 2>/dev/null' EXIT        # a failed test lets the thread end
    await "the sampler to name the thread that named itself" $rec eval '[ "$(live "SELECT count(*) FROM ThreadNames t
        JOIN StringIds s ON s.id = t.nameId WHERE s.value LIKE '\''w-%'\''")" -ge 1 ] 2>/dev/null'
    touch "$dir/named"
    end_record
    expect "status" "$rc" 0
    python3 - "$trace" "$dir/named" >"$dir/py" 2>&1 <<'PY' || fail "python: $(cat "$dir/py")"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
named = sys.argv[2]
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
    db.execute(f'SELECT * FROM "{t}"').fetchall()          # raises on invalid UTF-8
def want(raw):
    return raw.decode("utf-8", "replace")
def one(sql):
    rows = db.execute(sql).fetchall()
    assert len(rows) == 1, (sql, rows)
    return rows[0][0]
texts = [r[0] for r in db.execute("SELECT coalesce(text, s.value) FROM NVTX_EVENTS e"
                                   " LEFT JOIN StringIds s ON s.id = e.textId ORDER BY start")]
for raw in (b"dom\xff", b"cat\xed\xa0\x80", b"reg\xc3(", b"msg\xff\xfe\xc3(", b"ok \xc3\xa9"):
    assert want(raw) in texts, (want(raw), texts)
assert want(b"msg\xff\xfe\xc3(") == "msg\ufffd\ufffd\ufffd(" and want(b"cat\xed\xa0\x80") == "cat" + "\ufffd" * 3
names = [r[0] for r in db.execute("SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId")]
assert want(b"bad\xff\xfe name") in names, names
cut = "w-\u30c7\u30fc\u30bf\u30ed\u30fc".encode()[:15]      # what Linux kept of the thread name
assert want(cut) in names and want(cut).endswith("\u30ed\ufffd"), (want(cut), names)
assert one("SELECT commandLine FROM PERFSCOPE_PROCESS_INFO WHERE commandLine LIKE '%badutf8%'").endswith(
    " badutf8 " + named + " " + want(b"a\xffb")), "commandLine"
assert one("SELECT value FROM PERFSCOPE_META WHERE name = 'command_line'").endswith(
    " badutf8 " + named + " " + want(b"a\xffb"))
print("ok")
PY
    ;;
record_counts_only_forked_children_that_record_as_probed)
    # every fork of a probed process made a 512 MiB ring before its exec, so 20 children that
    # exec /bin/true (not probed: no NVTX call) and one that _exits counted as 22 probed processes with 22
    # rings. The ring now comes with a process's first record: 1 probed process (the parent), 1 ring, 1 row.
    record -o "$trace" -- "$prog" forkexec 20
    expect "status" "$rc" 0
    expect "probed_processes" "$(meta probed_processes)" 1
    expect "rings" "$(q "SELECT sum(rings) FROM PERFSCOPE_PROCESS_INFO")" 1
    expect "NVTX rows" "$(q "SELECT count(*) FROM NVTX_EVENTS")" 1
    grep -q "(1 probed)" "$dir/err" || fail "summary: $(cat "$dir/err")"
    ;;
record_two_recorders_with_the_same_output_one_fails_clearly)
    # two recorders given the same -o -f both said "wrote" while the file held one trace (the
    # other wrote into an unlinked file), or no tables at all. Now the first to lock the file wins; the other
    # fails before running CMD and says why. Each CMD runs 1 s after its ranges, so the two recordings
    # overlap whatever the scheduling: exactly one exit 0, and the file holds exactly its rows (A: 3000 rows
    # "A", B: 2000 rows "B"). Three tries, as the race had several outcomes. Each CMD says "ran", makes its
    # ranges, then stays until the other recorder has exited or the other CMD ran too (both ran: the bug): the
    # recordings overlap whatever the scheduling, and none waits for the other for good.
    nvtx=$(dirname "$prog")/nvtx_prog
    one() { # one ME OTHER N
        ("$perfscope" record -f -o "$trace" -- sh -c "echo ran; '$nvtx' ranges $1 $3 &&
            until [ -e '$dir/rc$2' ] || [ -s '$dir/out$2' ]; do sleep 0.05; done" >"$dir/out$1" 2>"$dir/err$1"
         echo $? >"$dir/rc$1.tmp" && mv "$dir/rc$1.tmp" "$dir/rc$1") &
    }
    for try in 1 2 3; do
        rm -f "$dir/rcA" "$dir/rcB"
        one A B 3000
        one B A 2000
        wait
        a=$(cat "$dir/rcA") b=$(cat "$dir/rcB")
        case $a$b in
        01) win=A n=3000 lose=B ;;
        10) win=B n=2000 lose=A ;;
        *) fail "try $try: exit statuses A $a, B $b (want one 0 and one 1): $(cat "$dir/errA" "$dir/errB")" ;;
        esac
        grep -q "wrote $trace: $n NVTX events" "$dir/err$win" || fail "try $try: winner $win: $(cat "$dir/err$win")"
        grep -Eq "being written by another perfscope record|another perfscope record took|created it at the same moment" "$dir/err$lose" ||
            fail "try $try: loser $lose: $(cat "$dir/err$lose")"
        [ ! -s "$dir/out$lose" ] || fail "try $try: the loser ran CMD"
        expect "try $try: rows of the winner $win" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = '$win'")" $n
        expect "try $try: rows in all" "$(q "SELECT count(*) FROM NVTX_EVENTS")" $n
        expect "try $try: recording_complete" "$(meta recording_complete)" 1
    done
    ;;
record_survives_a_program_that_overwrites_its_ring)
    # the ring's header was checked once at open and re-read live; a program that overwrote it
    # made record die of SIGSEGV in the ring reader (and the program with it, PDEATHSIG); drop counts read
    # from a corrupt ring were reported as 41799811430613058. hostile_prog scribble (see its comment): its
    # forked sibling's 5000 "sibling" ranges are in a ring of their own and must all be kept; the scribbled
    # ring is reported once, counted in corrupt_rings, and adds no drop count. Of the 3000 "before" ranges,
    # those the drain had read when the ring was overwritten are kept (at least a chunk's: the program waits
    # for the recorder to free one; how many more, scheduling decides).
    # onebyte: one stray byte in a drop count showed as "8796093022208 records dropped".
    for what in header counts onebyte chunk; do
        record -f -o "$trace" -- "$prog" scribble $what 5000
        expect "$what: status" "$rc" 0
        grep -q "warning: process [0-9]* overwrote its ring ring-[0-9]*-0.ps (" "$dir/err" ||
            fail "$what: no warning: $(cat "$dir/err")"
        expect "$what: one warning" "$(grep -c "overwrote its ring" "$dir/err")" 1
        expect "$what: corrupt_rings" "$(meta corrupt_rings)" 1
        expect "$what: the sibling's ranges" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'sibling'")" 5000
        expect "$what: dropped_records" "$(meta dropped_records)" 0
        before=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'before'")
        [ "$before" -gt 0 ] && [ "$before" -le 3000 ] || fail "$what: $before 'before' rows of 3000"
        "$perfscope" report "$trace" >"$dir/report.txt" 2>&1 || fail "$what: report exited $?"
        grep -q "^WARNING: 1 process overwrote its ring" "$dir/report.txt" ||
            fail "$what: report: $(head -5 "$dir/report.txt")"
    done
    ;;
record_survives_a_program_that_truncates_its_ring)
    # A program that truncates its ring file under the recorder's mapping made record die of SIGBUS in the ring
    # reader. hostile_prog truncate (see its comment): the reads that fault are caught, the ring is reported
    # once as corrupt (its file truncated), the forked sibling's 5000 ranges (a ring of their own) are all kept,
    # and the recording completes with the program's status.
    record -o "$trace" -- "$prog" truncate 5000 "$dir/err"
    expect "status" "$rc" 0
    grep -q "warning: process [0-9]* overwrote its ring ring-[0-9]*-0.ps (its file was truncated" "$dir/err" ||
        fail "no warning: $(cat "$dir/err")"
    expect "corrupt_rings" "$(meta corrupt_rings)" 1
    expect "the sibling's ranges" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'sibling'")" 5000
    expect "recording_complete" "$(meta recording_complete)" 1
    before=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'before'")
    [ "$before" -gt 0 ] && [ "$before" -le 3000 ] || fail "$before 'before' rows of 3000"
    ;;
record_names_the_cause_of_dropped_records)
    # ranges nested deeper than the probe's 65536 levels were reported as "dropped because a
    # ring was full (use a larger --ring-size)". 70000 nested ranges: 65536 rows, 70000 - 65536 = 4464
    # dropped beyond the probe's limits, none because a ring was full, and no ring-size advice.
    record -o "$trace" -- "$prog" deep 70000
    expect "status" "$rc" 0
    expect "rows" "$(q "SELECT count(*) FROM NVTX_EVENTS")" 65536
    expect "dropped_records" "$(meta dropped_records)" 4464
    expect "dropped_records.probe_limits" "$(meta dropped_records.probe_limits)" 4464
    expect "dropped_records.ring_full" "$(meta dropped_records.ring_full)" 0
    grep -q "4464 ranges beyond the probe's limits were dropped (push/pop nesting deeper than 65536" "$dir/err" ||
        fail "warning: $(cat "$dir/err")"
    ! grep -q "ring-size" "$dir/err" || fail "ring-size advice for a nesting limit: $(cat "$dir/err")"
    ;;
record_warns_about_probed_processes_still_running)
    # a probed child still running when CMD exited lost its later records without a word. The
    # background child made a mark "bg" and outlives CMD until the test has checked the trace: one warning
    # naming its pid, META still_running_processes 1, its "bg" row kept (its "late" mark comes after the trace
    # is written).
    trap 'touch "$dir/written" 2>/dev/null' EXIT      # a failed test lets the child end
    record -o "$trace" -- "$prog" background "$dir/written"
    expect "status" "$rc" 0
    pid=$(cat "$dir/out")
    grep -q "warning: process $pid (hostile_prog) was still running when CMD exited" "$dir/err" ||
        fail "warning: $(cat "$dir/err")"
    expect "still_running_processes" "$(meta still_running_processes)" 1
    expect "the child's mark" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'bg'")" 1
    # the report says so too.
    "$perfscope" report "$trace" >"$dir/report.txt" 2>&1 || fail "report exited $?"
    grep -q "^WARNING: 1 probed process was still running when the program exited" "$dir/report.txt" ||
        fail "report: $(head -5 "$dir/report.txt")"
    "$perfscope" report --format json "$trace" | grep -q '"still_running_processes": 1, "other_pidns_rings": 0' ||
        fail "json: $("$perfscope" report --format json "$trace" | grep -o '"still_running[^,]*')"
    touch "$dir/written"
    await "the background child $pid to end" - eval '! running $pid'
    # A child that exits before CMD is not reported.
    record -f -o "$trace" -- "$prog" forkexec 2
    expect "forkexec status" "$rc" 0
    ! grep -q "still running" "$dir/err" || fail "false warning: $(cat "$dir/err")"
    expect "still_running_processes without one" "$(meta still_running_processes)" 0
    ;;
record_keeps_thousands_of_domains_and_registered_strings)
    # the registries were linked lists (20000 of each took 11 s); now hashed. Correctness
    # across their resizes: 3000 domains, strings and categories, each handle given back for its name
    # (hostile_prog exits 3 otherwise); rows: 3000 domain (75), 3000 category (33) and 3000 push/pop (59)
    # rows, each range's textId resolving to its own "sI" in the domain "domI".
    record -o "$trace" -- "$prog" registry 3000
    expect "status" "$rc" 0
    expect "domain rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75")" 3000
    expect "category rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 33")" 3000
    expect "ranges whose text is their domain's string" "$(q "SELECT count(*) FROM NVTX_EVENTS r
        JOIN StringIds s ON s.id = r.textId JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.domainId = r.domainId
        WHERE r.eventType = 59 AND 's' || substr(d.text, 4) = s.value")" 3000
    ;;
record_warns_about_rings_of_another_pid_namespace_and_keeps_them)
    # two programs in their own PID namespaces (both pid 1 there) built their rings under the
    # same temporary name, and one's records were lost without a word (2 runs of 3). Now both rings are kept
    # (300 rows "A" and 300 rows "B") and record warns that their pids are those of another namespace.
    # Needs unshare --pid (root or user namespaces): else skipped.
    unshare --pid --fork true 2>/dev/null || { echo "SKIP $case: unshare --pid not permitted"; exit 77; }
    nvtx=$(dirname "$prog")/nvtx_prog
    record -o "$trace" -- sh -c "unshare --pid --fork '$nvtx' ranges A 300 & unshare --pid --fork '$nvtx' ranges B 300 & wait"
    expect "status" "$rc" 0
    expect "rows A" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'A'")" 300
    expect "rows B" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'B'")" 300
    expect "other_pidns_rings" "$(meta other_pidns_rings)" 2
    [ "$(grep -c "comes from a process in another PID namespace" "$dir/err")" = 2 ] || fail "warnings: $(cat "$dir/err")"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
rm -rf "$dir"
echo "PASS $case"
