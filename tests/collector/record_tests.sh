#!/bin/sh
# End-to-end tests of `perfscope record` through the real binary and the real probe. Each case runs
# nvtx_prog (tests/collector/nvtx_prog.c), whose comments say what it did, and checks the trace with the
# sqlite3 CLI. Usage: record_tests.sh PERFSCOPE NVTX_PROG WORKDIR CASE
set -u
perfscope=$1 prog=$2 work=$3 case=$4
dir=$work/record_tests.$case
rm -rf "$dir" && mkdir -p "$dir" || exit 1
trace=$dir/t.sqlite

. "$(dirname "$0")/trace_checks.sh"

case $case in
record_help_prints_usage)
    "$perfscope" record --help >"$dir/out" || fail "--help exit status $?"
    grep -q "usage: perfscope record" "$dir/out" || fail "no usage line"
    ;;
record_missing_program_fails_cleanly)
    record -o "$trace" -- "$dir/no-such-program"
    expect "exit status" "$rc" 127
    grep -q "cannot run '$dir/no-such-program': No such file or directory" "$dir/err" || fail "message: $(cat "$dir/err")"
    [ ! -e "$trace" ] || fail "a trace was left behind"
    [ ! -e "$trace-wal" ] || fail "a WAL was left behind"
    ;;
record_refuses_existing_output_without_force)
    echo keep >"$trace"
    record -o "$trace" -- "$prog" exit 0
    expect "exit status without -f (a usage error, as in report, diff and export)" "$rc" 2
    grep -qx "perfscope record: $trace exists (use -f to overwrite)" "$dir/err" || fail "message: $(cat "$dir/err")"
    expect "file content" "$(cat "$trace")" keep
    record -f -o "$trace" -- "$prog" exit 0
    expect "exit status with -f" "$rc" 0
    expect "child_exit_code" "$(meta child_exit_code)" 0
    ;;
record_force_refuses_to_replace_non_regular_files)
    # -f replaced /dev/null and FIFOs with a regular file. A symbolic link stands in for
    # /dev/null here, so a regression removes the link, not the device.
    mkfifo "$dir/fifo" && mkdir "$dir/sub" && ln -s /dev/null "$dir/null" && ln -s fifo "$dir/tofifo" || fail setup
    for out in fifo sub null tofifo; do
        record -f -o "$dir/$out" -- "$prog" exit 0
        expect "status for $out" "$rc" 1
        grep -q "refusing to replace it" "$dir/err" || fail "$out: message: $(cat "$dir/err")"
        [ $out != null ] || grep -q "null is a symbolic link to a character device" "$dir/err" ||
            fail "kind: $(cat "$dir/err")"
    done
    [ -p "$dir/fifo" ] && [ -d "$dir/sub" ] && [ -L "$dir/null" ] && [ -L "$dir/tofifo" ] || fail "an output was replaced"
    [ -c /dev/null ] || fail "/dev/null is no longer a device"
    # A link to a regular file is still replaced with -f (the link itself, never its target).
    echo keep >"$dir/target" && ln -s target "$dir/toreg"
    record -f -o "$dir/toreg" -- "$prog" exit 0
    expect "status for a link to a regular file" "$rc" 0
    expect "the link's target is kept" "$(cat "$dir/target")" keep
    ;;
record_ring_size_bounds_are_the_probes)
    # 64K was accepted and the probe then recorded nothing. The probe's smallest ring is the
    # header page + 1024 lanes x 64 bytes + the open-range table (1024 lanes x 16 slots x 32 bytes) + 16 chunks
    # of 4 KiB = 4096 + 65536 + 524288 + 65536 = 659456 bytes.
    for bad in 64K 659455 2T 0x10 " 5" 1e3 -1 16E; do
        record -f -o "$trace" --ring-size "$bad" -- "$prog" exit 0
        expect "status for --ring-size '$bad'" "$rc" 2
        grep -q "give a size from 659456 bytes (644K) to 1T" "$dir/err" || fail "'$bad': message: $(cat "$dir/err")"
    done
    record -f -o "$trace" --ring-size 644K -- "$prog" known
    expect "status at the minimum" "$rc" 0
    expect "rows recorded through the smallest ring" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 34)")" 27
    expect "ring_bytes" "$(meta ring_bytes)" 659456
    ;;
record_warns_when_the_probe_could_not_record)
    # A ring size the probe cannot use, inherited from the environment (record checks only --ring-size):
    # the probe leaves a note in the session directory and record names the process and the reason.
    PERFSCOPE_RING_BYTES=65536 "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status" "$?" 0
    grep -q "warning: process $(meta child_pid): the probe could not record (a ring of 65536 bytes is out of range: from 659456" \
        "$dir/err" || fail "no warning: $(cat "$dir/err")"
    expect "probe_failures" "$(meta probe_failures)" 1
    expect "probed" "$(meta probed_processes)" 0
    ;;
record_child_dies_with_the_recorder)
    # after kill -9 of record, CMD ran on unobserved. Now it gets SIGTERM (PR_SET_PDEATHSIG).
    # the trace of a killed recorder says it is incomplete (recording_complete = 0).
    # The program sleeps 600 s, past this test's TIMEOUT: only the SIGTERM ends it while the test runs.
    start_record -o "$trace" -- "$prog" sleep 600 "$dir/pid"
    await "the program to start" $rec test -s "$dir/pid"
    child=$(cat "$dir/pid")
    kill -KILL $rec
    end_record
    # Gone, or a zombie waiting for its new parent to reap it: either way no longer running.
    await "process $child to end by the SIGTERM record's death sends it" - eval '! running $child'
    expect "recording_complete of a killed recorder" "$(meta recording_complete)" 0
    expect "no end-of-run rows" "$(meta child_pid)" ""
    ;;
record_recovers_the_rings_of_a_killed_recorder)
    # with the program recording faster than the writer stores, kill -9 of record lost everything
    # still in the rings, and the next record deleted them without a word. nvtx_prog ranges_ignoring_sigterm
    # (see its comment) makes 500000 ranges "storm", waits for the recorder to die, makes 500000 more: after
    # `record --recover`, stored rows + dropped records = 1000000 exactly, wherever the kill fell.
    mkdir -p -m 700 "$dir/xdg" || fail setup
    export XDG_RUNTIME_DIR=$dir/xdg
    start_record -o "$trace" -- "$prog" ranges_ignoring_sigterm storm 500000 "$dir/pid"
    # Kill it once it has stored some rows (so that it dies with lanes half stored). The CLI creates a file that
    # does not exist: only look once record has written its schema.
    await "record to store rows" $rec eval '[ -s "$trace" ] && [ "$(live "SELECT count(*) FROM NVTX_EVENTS")" -gt 0 ] 2>/dev/null'
    kill -KILL $rec
    end_record
    child=$(cat "$dir/pid")
    await "the program to make its ranges after the recorder died" $child test -e "$dir/pid.done"
    # Its process ends right after; the final drain of --recover takes whatever it wrote until then.
    before=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'storm'")
    # The report of the unrecovered trace says what may be missing and how to get it.
    "$perfscope" report "$trace" >"$dir/report.txt" 2>&1 || fail "report of the killed recording exited $?"
    grep -q "^WARNING: the recording did not finish" "$dir/report.txt" || fail "report: $(head -4 "$dir/report.txt")"
    grep -q "'perfscope record --recover $trace'" "$dir/report.txt" || fail "no recovery hint: $(head -5 "$dir/report.txt")"
    # The next record keeps the dead recorder's rings and says how to recover them.
    "$perfscope" record -o "$dir/other.sqlite" -- "$prog" exit 0 2>"$dir/err2" || fail "another record: status $?"
    grep -q "perfscope record (pid $rec) died before writing all that its program recorded; the rest is kept in $dir/xdg/perfscope/$rec: add it to its trace with 'perfscope record --recover $trace'" \
        "$dir/err2" || fail "no warning: $(cat "$dir/err2")"
    [ -n "$(ls "$dir/xdg/perfscope/$rec/" | grep '^ring-')" ] || fail "the rings were removed"
    "$perfscope" record --recover "$trace" 2>"$dir/err3"
    expect "--recover status" "$?" 0
    after=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'storm'")
    expect "rows + dropped (the program made 1000000; $before were stored before the kill)" \
        $((after + $(meta dropped_records))) 1000000
    expect "recovered" "$(meta recovered)" 1
    # The session rows the dead recorder did not write, in the same format as a finished recording's.
    expect "one session row" "$(q "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME")" 1
    expect "its start" "$(q "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")" "$(meta start_utc_epoch_ns)"
    check_session_start_time
    # recovered_records also counts the process, thread-name and lane-string records, when not yet stored.
    n=$(meta recovered_records)
    [ "$n" -ge $((after - before)) ] && [ "$n" -le $((after - before + 3)) ] ||
        fail "recovered_records $n for $((after - before)) rows added"
    expect "recovery tables dropped" "$(q "SELECT count(*) FROM sqlite_master WHERE name LIKE 'PERFSCOPE_RECOVERY%'")" 0
    expect "one process row" "$(q "SELECT count(*) FROM PROCESSES WHERE pid = $child")" 1
    expect "its command line" "$(q "SELECT commandLine FROM PERFSCOPE_PROCESS_INFO WHERE pid = $child")" \
        "$prog ranges_ignoring_sigterm storm 500000 $dir/pid"
    [ ! -e "$dir/xdg/perfscope/$rec" ] || fail "the session dir is still there"
    "$perfscope" report "$trace" >"$dir/report.txt" 2>&1 || fail "report of the recovered trace exited $?"
    grep -q "^NOTE: perfscope record died during this recording; 'perfscope record --recover' added" "$dir/report.txt" ||
        fail "report: $(head -4 "$dir/report.txt")"
    "$perfscope" record --recover "$trace" 2>"$dir/err3"
    expect "a second --recover" "$?" 0
    grep -q "already recovered" "$dir/err3" || fail "second --recover: $(cat "$dir/err3")"
    ;;
record_recover_leaves_out_what_random_bytes_in_a_ring_make)
    # after kill -9 of record and 256 KiB of random bytes written into the program's ring,
    # `record --recover` added 7-9 "never ended" ranges no probe wrote (starts of 1e17-5e18 ns, made-up threads and
    # domains) and said "0 records dropped". nvtx_prog held_when_killed (see its comment) dies inside "held" after
    # 100 ranges "r"; the bytes go over its ring's open-range table from the slot after "held" (lane 0, slot 1: the
    # table's offset is the header's open_off, docs/probe.md "Ring layout"). The trace holds what the program made,
    # and the recovery counts and names every live slot of the lanes in use it left out (counted here from the bytes).
    mkdir -p -m 700 "$dir/xdg" || fail setup
    export XDG_RUNTIME_DIR=$dir/xdg
    start_record -o "$trace" -- "$prog" held_when_killed 100 "$dir/pid"
    await "the program to make its ranges" $rec test -s "$dir/pid"
    child=$(cat "$dir/pid")
    kill -KILL $rec
    end_record
    await "process $child to end by the SIGTERM record's death sends it" - eval '! running $child'
    ring=$(ls "$dir/xdg/perfscope/$rec"/ring-*.ps) && [ -f "$ring" ] || fail "no ring: $(ls -R "$dir/xdg")"
    u() { od -An -t "u$1" -j "$2" -N "$1" "$ring" | tr -d ' '; }   # u BYTES OFFSET: an unsigned number of the ring
    open_off=$(u 8 80) lanes=$(u 4 140)         # struct ps_ring_hdr (common/ps_ring_layout.h)
    expect "lanes in use" "$lanes" 1
    head -c 262144 /dev/urandom | dd of="$ring" bs=32 seek=$(((open_off + 32) / 32)) conv=notrunc status=none ||
        fail "writing into the ring"
    # Slot 1 live with a lane string (state 0x80000001, little-endian): at least one slot the reader must refuse.
    printf '\001\000\000\200' | dd of="$ring" bs=1 seek=$((open_off + 32)) conv=notrunc status=none || fail "state"
    live=0
    for k in $(seq 1 15); do
        [ $(($(u 4 $((open_off + 32 * k))) >> 31)) -eq 0 ] || live=$((live + 1))
    done
    "$perfscope" record --recover "$trace" 2>"$dir/err2"
    expect "--recover status" "$?" 0
    expect "rows (100 'r', 1 'held' never ended)" "$(q "SELECT group_concat(n, ' ') FROM (SELECT text || ':' ||
        count(*) || ':' || count(\"end\") AS n FROM NVTX_EVENTS GROUP BY text ORDER BY text)")" "held:1:0 r:100:100"
    expect "unterminated_nvtx of the process" "$(meta "unterminated_nvtx.pid.$child")" 1
    expect "invalid_records (live slots among the random bytes)" "$(meta invalid_records)" $live
    grep -q "warning: $live records\{0,1\} in the probes' rings made no sense .* left out (invalid_records)" "$dir/err2" ||
        fail "no warning: $(cat "$dir/err2")"
    ;;
record_forwards_sigalrm_and_survives_sigpipe)
    # SIGALRM (e.g. a batch time limit) killed record, not CMD; SIGPIPE killed record.
    # Once CMD runs, record ignores SIGPIPE and forwards SIGALRM. A SIGPIPE that killed record would end it
    # before the SIGALRM sent after it (status 141); forwarded, the SIGALRM ends CMD and record says so (142).
    start_record -o "$trace" -- "$prog" sleep 600 "$dir/pid"
    await "the program to start" $rec test -s "$dir/pid"
    kill -PIPE $rec
    kill -ALRM $rec
    end_record
    expect "status after SIGPIPE then SIGALRM (141: SIGPIPE killed record; 128 + 14: CMD got SIGALRM)" "$rc" 142
    expect "child_signal" "$(meta child_signal)" 14
    ;;
record_removes_stale_session_dirs_of_dead_recorders)
    # /tmp/perfscope-UID/<pid>/ of a killed recorder stayed forever. Only directories that look
    # like a session (pid name, ours, mode 0700) whose pid is dead are removed.
    base=$dir/xdg/perfscope
    mkdir -p -m 700 "$dir/xdg" "$base" || fail setup
    sh -c 'exit 0' & dead=$!
    wait $dead
    mkdir -m 700 "$base/$dead" "$base/$$" "$base/keep" && mkdir -m 755 "$base/1$dead" || fail setup
    echo x >"$base/$dead/ring-1-0.ps" && echo x >"$base/$$/ring-1-0.ps"
    XDG_RUNTIME_DIR=$dir/xdg "$perfscope" record -o "$trace" -- "$prog" exit 0 2>"$dir/err" || fail "status $?"
    [ ! -e "$base/$dead" ] || fail "the dead recorder's session dir $dead is still there"
    [ -e "$base/$$/ring-1-0.ps" ] || fail "a live process's session dir was removed"
    [ -d "$base/keep" ] || fail "a directory not named by a pid was removed"
    [ -d "$base/1$dead" ] || fail "a directory of mode 0755 was removed"
    expect "record's own session dir is removed" "$(ls "$base" | sort | tr '\n' ' ')" "$(printf '%s\n' $$ 1$dead keep | sort | tr '\n' ' ')"
    ;;
record_sigterm_while_setting_up_leaves_no_file)
    # a SIGTERM in record's first milliseconds (after it created the output, before CMD ran) left
    # a 0-byte file that a rerun without -f refused. Now: exit 143, no file, CMD never ran.
    # The test holds record in that stretch: after creating the output record loads NVML, here the test-only
    # stand-in (tests/tui/nvml_standin.c), whose initialisation reads its script from a FIFO that the test
    # writes only after sending the SIGTERM.
    mkdir -p -m 700 "$dir/xdg/perfscope" && mkfifo "$dir/nvml" && exec 4<>"$dir/nvml" || fail setup
    [ -e "${PS_NVML_STANDIN_DIR:-}/libnvidia-ml.so.1" ] || fail "PS_NVML_STANDIN_DIR names no NVML stand-in"
    XDG_RUNTIME_DIR=$dir/xdg PS_NVML_STANDIN=$dir/nvml LD_LIBRARY_PATH=$PS_NVML_STANDIN_DIR \
        "$perfscope" record -o "$trace" -- sh -c "touch '$dir/ran'" >"$dir/out" 2>"$dir/err" 4>&- &
    rec=$! rec_live=1
    # not fd 4: between fork and exec the child still holds the test's own fd 4 on the FIFO (4>&- closes it at exec)
    await "record to open the NVML stand-in's script" $rec \
        eval '[ -n "$(find /proc/$rec/fd -lname "$dir/nvml" ! -name 4 2>/dev/null)" ]'
    [ -e "$trace" ] || fail "record loads NVML before it creates its output: this test no longer holds it there"
    kill -TERM $rec
    printf 'count=0\n' >&4
    exec 4>&-           # the stand-in has read its script to the end: record goes on
    end_record
    expect "status" "$rc" 143
    [ ! -e "$trace" ] || fail "an output of $(stat -c %s "$trace") bytes was left behind"
    [ ! -e "$dir/ran" ] || fail "CMD ran after record was told to stop"
    grep -q "stopped by Terminated before CMD started" "$dir/err" || fail "message: $(cat "$dir/err")"
    [ -z "$(ls "$dir/xdg/perfscope")" ] || fail "left in the session base: $(ls "$dir/xdg/perfscope" | head -3)"
    XDG_RUNTIME_DIR=$dir/xdg "$perfscope" record -o "$trace" -- "$prog" exit 0 2>"$dir/err" ||
        fail "a rerun without -f: status $?: $(cat "$dir/err")"
    ;;
record_cannot_run_exits_127_not_found_126_not_executable)
    # as shells do (POSIX "Command Search and Execution").
    record -o "$trace" -- "$dir/no-such-program"
    expect "not found" "$rc" 127
    printf '#!/bin/sh\nexit 0\n' >"$dir/noexec" && chmod 644 "$dir/noexec"
    record -o "$trace" -- "$dir/noexec"
    expect "not executable" "$rc" 126
    grep -q "cannot run '$dir/noexec': Permission denied" "$dir/err" || fail "message: $(cat "$dir/err")"
    [ ! -e "$trace" ] || fail "a trace was left behind"
    # a directory was "Permission denied (is it executable? chmod +x)".
    record -o "$trace" -- "$dir"
    expect "a directory" "$rc" 126
    grep -q "cannot run '$dir': it is a directory" "$dir/err" || fail "message: $(cat "$dir/err")"
    grep -q "chmod" "$dir/err" && fail "a directory is not a permission problem: $(cat "$dir/err")"
    mkdir -p "$dir/bin/subdir" || fail setup
    PATH=$dir/bin:$PATH "$perfscope" record -o "$trace" -- subdir 2>"$dir/err"
    expect "a directory on PATH" "$?" 126
    grep -q "cannot run 'subdir': it is a directory" "$dir/err" || fail "message on PATH: $(cat "$dir/err")"
    ;;
record_disk_full_removes_the_session_dir)
    # a trace on a full file system: record says the trace is incomplete, exits 1, and leaves
    # no ring file behind. Needs a small tmpfs (root); skipped elsewhere.
    mkdir -p "$dir/small" "$dir/xdg" && chmod 700 "$dir/xdg" || fail setup
    mount -t tmpfs -o size=3m tmpfs "$dir/small" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
    XDG_RUNTIME_DIR=$dir/xdg "$perfscope" record -o "$dir/small/t.sqlite" -- "$prog" threads 4 100000 2>"$dir/err"
    rc=$?
    umount "$dir/small"
    expect "status" "$rc" 1
    grep -q "is incomplete or missing" "$dir/err" || fail "message: $(cat "$dir/err")"
    expect "session dirs left" "$(ls -A "$dir/xdg/perfscope")" ""
    ;;
record_rejects_a_probe_path_that_is_not_the_probe)
    # a missing PERFSCOPE_PROBE silently used the build tree's probe; /etc/passwd recorded
    # nothing without a word. Both now stop record (exit 1) before CMD runs.
    PERFSCOPE_PROBE=$dir/nonexist.so "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, missing" "$?" 1
    grep -q "PERFSCOPE_PROBE=$dir/nonexist.so: No such file or directory" "$dir/err" || fail "message: $(cat "$dir/err")"
    PERFSCOPE_PROBE=/etc/passwd "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, not a library" "$?" 1
    grep -q "PERFSCOPE_PROBE=/etc/passwd: not perfscope's probe library" "$dir/err" || fail "message: $(cat "$dir/err")"
    # nvtx_prog and perfscope both hold the name InitializeInjectionNvtx2 as a string; neither defines it.
    PERFSCOPE_PROBE=$prog "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, an NVTX program" "$?" 1
    PERFSCOPE_PROBE=$perfscope "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, the perfscope binary" "$?" 1
    [ ! -e "$trace" ] || fail "a trace was written"
    ;;
record_never_blocks_on_a_fifo_as_probe_or_log)
    # PERFSCOPE_PROBE=FIFO hung record for good (reading it to check it is the probe, with its signals
    # blocked: not even SIGTERM ended it); PERFSCOPE_LOG=FIFO hung the recorded program in the probe's start-up (its
    # open of the log; the probe never breaks the program it is in). No process holds either FIFO's other end: a
    # regression blocks here until CTest's TIMEOUT.
    mkfifo "$dir/probe.so" "$dir/log" || fail setup
    echo "waiting for record with PERFSCOPE_PROBE=FIFO (blocked for good here: the bug)"
    PERFSCOPE_PROBE=$dir/probe.so "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, a FIFO as the probe" "$?" 1
    grep -q "PERFSCOPE_PROBE=$dir/probe.so: not perfscope's probe library" "$dir/err" || fail "message: $(cat "$dir/err")"
    [ ! -e "$trace" ] || fail "a trace was written"
    echo "waiting for the program with PERFSCOPE_LOG=FIFO (blocked for good here: the bug)"
    PERFSCOPE_LOG=$dir/log "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err"
    expect "status, a FIFO as the log" "$?" 0
    expect "rows of types 59/60/34 (nvtx_prog known)" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 34)")" 27
    [ -p "$dir/log" ] || fail "the FIFO was replaced"
    ;;
record_option_errors_are_one_line_usage_errors)
    # strict numbers, `-o -- ./p` is a missing value, one line + a pointer to --help.
    for bad in "--sample-hz 0x10" "--sample-hz 1e3" "--sample-hz nan" "--sample-hz 1001" "--sample-hz -1" \
               "-o --" "--bogus" "--ring-size"; do
        # shellcheck disable=SC2086
        record $bad -- "$prog" exit 0
        expect "status for '$bad'" "$rc" 2
        expect "lines for '$bad'" "$(wc -l <"$dir/err")" 1
        grep -q "see 'perfscope record --help'" "$dir/err" || fail "'$bad': message: $(cat "$dir/err")"
    done
    # long options are never abbreviated; the command's own options after it are its own
    record --samp 5 -- "$prog" exit 0
    expect "status for --samp" "$rc" 2
    grep -q "did you mean --sample-hz" "$dir/err" || fail "'--samp': message: $(cat "$dir/err")"
    record -o "$dir/own-options.sqlite" sh -c 'exit 0' --not-an-option-of-record
    expect "status for a command with its own long option" "$rc" 0
    record --sample-hz " 5" -- "$prog" exit 0
    expect "status for ' 5'" "$rc" 2
    [ ! -e ./-- ] || fail "a file named -- was written"
    record -o "$trace" --sample-hz 0.5 -- "$prog" exit 0
    expect "status for 0.5" "$rc" 0
    expect "sample_hz" "$(meta sample_hz)" 0.5
    grep -q "1 process (" "$dir/err" || fail "grammar: $(cat "$dir/err")"
    ;;
record_returns_child_exit_status_and_128_plus_signal)
    record -o "$trace" -- "$prog" exit 7
    expect "exit 7" "$rc" 7
    record -f -o "$trace" -- "$prog" signal 9
    expect "SIGKILL" "$rc" 137
    expect "child_signal" "$(meta child_signal)" 9
    expect "recording_complete after a killed child" "$(meta recording_complete)" 1
    record -f -o "$trace" -- "$prog" signal 15
    expect "SIGTERM" "$rc" 143
    ;;
record_expands_pid_host_rank_in_output)
    RANK=5 "$perfscope" record -o "$dir/run.%r.%h.%p.%%.sqlite" -- "$prog" exit 0 2>"$dir/err" || fail "status $?"
    set -- "$dir"/run.5."$(hostname)".*.%.sqlite
    [ -e "$1" ] || fail "no run.5.$(hostname).PID.%.sqlite in $dir: $(ls "$dir")"
    pid=${1#"$dir/run.5.$(hostname)."}
    pid=${pid%.%.sqlite}
    trace=$1
    expect "%p is the recorder's pid" "$pid" "$(meta recorder_pid)"
    expect "rank in META (from the recorder's RANK)" "$(meta rank)" 5
    env -u RANK -u OMPI_COMM_WORLD_RANK SLURM_PROCID=2 "$perfscope" record -o "$dir/s.%r.sqlite" -- "$prog" exit 0 2>/dev/null
    [ -e "$dir/s.2.sqlite" ] || fail "%r from SLURM_PROCID"
    env -u RANK -u OMPI_COMM_WORLD_RANK -u SLURM_PROCID "$perfscope" record -o "$dir/u.%r.sqlite" -- "$prog" exit 0 2>/dev/null
    [ -e "$dir/u.0.sqlite" ] || fail "%r without a rank is 0"
    record -o "$dir/bad.%x.sqlite" -- "$prog" exit 0
    expect "unknown %x" "$rc" 2
    ;;
record_rank_in_output_is_digits_only)
    # %r pastes a rank variable into a file name: anything but digits could leave the directory or add a newline
    mkdir -p "$dir/out"
    RANK=../escaped "$perfscope" record -o "$dir/out/%r.sqlite" -- "$prog" exit 0 2>"$dir/err"
    expect "RANK=../escaped: status" "$?" 2
    [ -e "$dir/escaped.sqlite" ] && fail "wrote outside out/"
    grep -q "the rank variable holds '../escaped', not a rank (decimal digits only)" "$dir/err" || fail "message: $(cat "$dir/err")"
    RANK="$(printf '1\nfake')" "$perfscope" record -o "$dir/out/%r.sqlite" -- "$prog" exit 0 2>"$dir/err"
    expect "RANK with a newline: status" "$?" 2
    grep -qF "holds '1\nfake'" "$dir/err" || fail "newline shown escaped: $(cat "$dir/err")"
    expect "nothing written" "$(ls "$dir/out" | wc -l)" 0
    RANK=12 "$perfscope" record -o "$dir/out/%r.sqlite" -- "$prog" exit 0 2>/dev/null || fail "RANK=12: status $?"
    [ -e "$dir/out/12.sqlite" ] || fail "RANK=12 not written as out/12.sqlite"
    ;;
record_output_errors_name_the_cause)
    # a name longer than PATH_MAX (4096 bytes with its NUL, limits.h on Linux)
    long=$(printf 'a%.0s' $(seq 5000))
    "$perfscope" record -o "$dir/$long" -- "$prog" exit 0 2>"$dir/err"
    expect "name of 5000 bytes: status" "$?" 2
    grep -q "the file name is too long (over 4095 bytes)" "$dir/err" || fail "message: $(cut -c1-300 "$dir/err")"
    [ "$(wc -c <"$dir/err")" -lt 300 ] || fail "the message repeats the whole name"
    # a file that cannot be replaced (procfs): say why, not "another record created it at the same moment"
    "$perfscope" record -f -o /proc/self/comm -- "$prog" exit 0 2>"$dir/err"
    expect "-f -o /proc/self/comm: status" "$?" 1
    grep -q "cannot replace /proc/self/comm: " "$dir/err" || fail "message: $(cat "$dir/err")"
    grep -q "same moment" "$dir/err" && fail "blames another recorder: $(cat "$dir/err")"
    ;;
record_forwards_sigterm_and_finalises_the_trace)
    start_record -o "$trace" -- "$prog" sleep 600 "$dir/pid"
    await "the program to start" $rec test -s "$dir/pid"
    kill -TERM $rec
    end_record
    expect "status after SIGTERM" "$rc" 143
    expect "child_signal" "$(meta child_signal)" 15
    [ ! -e "$trace-wal" ] || [ ! -s "$trace-wal" ] || fail "WAL not checkpointed"
    ;;
record_forwards_each_signal_once)
    # a signal sent to record's whole process group reached CMD twice: once from the sender, once
    # forwarded. nvtx_prog count_signals counts what it gets (see its comment). setsid makes record the leader
    # of a group of its own, so -$rec is "its process group"; CMD shares that group.
    wait_ready() { # wait_ready PID: until the program's handlers are in place
        await "the program's signal handlers" "$1" eval '[ "$(cat "$dir/sigs" 2>/dev/null)" = ready ]'
    }
    got() { # got WHAT PID WANT
        wait "$2"
        expect "$1: status" "$?" 0
        expect "$1: signals the program got" "$(cat "$dir/sigs")" "$3"
    }
    rm -f "$dir/sigs"; setsid "$perfscope" record -f -o "$trace" -- "$prog" count_signals "$dir/sigs" 2>"$dir/err" &
    rec=$!; wait_ready $rec
    env kill -s TERM -- -$rec  # procps kill: dash's builtin takes no process group
    got "kill -TERM -PGID" $rec "INT=0 TERM=1"
    rm -f "$dir/sigs"; setsid "$perfscope" record -f -o "$trace" -- "$prog" count_signals "$dir/sigs" 2>"$dir/err" &
    rec=$!; wait_ready $rec
    env kill -s INT -- -$rec
    got "kill -INT -PGID" $rec "INT=1 TERM=0"
    # Sent to record alone: forwarded, once.
    rm -f "$dir/sigs"; setsid "$perfscope" record -f -o "$trace" -- "$prog" count_signals "$dir/sigs" 2>"$dir/err" &
    rec=$!; wait_ready $rec
    kill -INT $rec
    got "kill -INT PID" $rec "INT=1 TERM=0"
    # GNU timeout signals its child (record), then its whole group (record and CMD). Its timer is a SIGALRM
    # (coreutils src/timeout.c), and one sent from outside acts the same: it fires once the program is ready.
    rm -f "$dir/sigs"
    timeout --preserve-status -s INT 1h "$perfscope" record -f -o "$trace" -- "$prog" count_signals "$dir/sigs" 2>"$dir/err" &
    tmo=$!; wait_ready $tmo
    kill -ALRM $tmo
    wait $tmo
    expect "timeout: status (the program exits 0 after the signal)" "$?" 0
    expect "timeout: signals the program got" "$(cat "$dir/sigs")" "INT=1 TERM=0"
    expect "timeout: child_exit_code" "$(meta child_exit_code)" 0
    ;;
record_trace_is_readable_while_recording)
    # WAL: another connection reads committed rows while record writes (what `perfscope top` relies on). The
    # program runs until the test has read them: it reads a FIFO the test holds open (nvtx_prog blocked).
    mkfifo "$dir/go" && exec 5<>"$dir/go" || fail setup
    start_record -o "$trace" -- "$prog" blocked "$dir/go" "$dir/pid" 5>&-
    await "another connection to read 5 host samples" $rec \
        eval '[ "$(live "SELECT count(*) FROM PERFSCOPE_PROCESS_SAMPLES")" -ge 5 ] 2>/dev/null'
    expect "recording_complete seen by that reader" "$(live "SELECT value FROM PERFSCOPE_META WHERE name = 'recording_complete'")" 0
    exec 5>&-           # the program reads to the end of the FIFO and exits
    end_record
    expect "status" "$rc" 0
    expect "recording_complete at the end" "$(meta recording_complete)" 1
    ;;
record_warns_when_another_injection_is_set)
    NVTX_INJECTION64_PATH=/opt/other/libtool.so "$perfscope" record -o "$trace" -- "$prog" known 2>"$dir/err" ||
        fail "status $?"
    grep -q "NVTX_INJECTION64_PATH was set to /opt/other/libtool.so" "$dir/err" || fail "no warning: $(cat "$dir/err")"
    expect "recorded anyway" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'outer'")" 10
    ;;
record_writes_known_nvtx_ranges)
    record -o "$trace" -- "$prog" known
    expect "status" "$rc" 0
    expect "rows of 59/60/34" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 34)")" 27
    expect "outer" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 'outer'")" 10
    expect "inner" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 'inner'")" 10
    expect "each inner inside one outer" "$(q "SELECT count(*) FROM NVTX_EVENTS i JOIN NVTX_EVENTS o
        ON o.text = 'outer' AND i.start >= o.start AND i.\"end\" <= o.\"end\" AND i.globalTid = o.globalTid
        WHERE i.text = 'inner'")" 10
    expect "main thread" "$(q "SELECT count(DISTINCT globalTid) FROM NVTX_EVENTS WHERE text IN ('outer', 'inner')")" 1
    expect "globalTid = (1<<48)|(pid<<24)|tid, main tid = pid" \
        "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'outer' AND globalTid = (1 << 48) | ($(meta child_pid) << 24) | $(meta child_pid)")" 10
    expect "start/end" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60 AND text = 'async' AND rangeId IS NOT NULL
        AND endGlobalTid IS NOT NULL AND endGlobalTid != globalTid AND endGlobalTid >> 24 = globalTid >> 24")" 1
    expect "marks" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND text = 'tick' AND \"end\" IS NULL")" 3
    expect "domain" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'mydom' AND domainId > 0")" 1
    expect "registered string in its domain" "$(q "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId
        JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.text = 'mydom' AND d.domainId = n.domainId
        WHERE n.eventType = 59 AND s.value = 'regstr' AND n.text IS NULL")" 2
    expect "wide string" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 'wide-ü'")" 1
    expect "times ordered" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE \"end\" < start OR start < 0")" 0
    expect "process row" "$(q "SELECT count(*) FROM PROCESSES WHERE pid = $(meta child_pid) AND name = 'nvtx_prog'")" 1
    expect "probed" "$(meta probed_processes)" 1
    expect "dropped" "$(meta dropped_records)" 0
    expect "event types" "$(q "SELECT group_concat(id) FROM (SELECT id FROM ENUM_NSYS_EVENT_TYPE ORDER BY id)")" "33,34,59,60,75"
    expect "session start" "$(q "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs > 1600000000000000000")" 1
    check_session_start_time
    # nsys's META_DATA_EXPORT, with the rows nsys 2026.2 writes (shared/traces/nsys/h100_2gpu_1s.sqlite)
    # for the product and the export schema 3.25.0 whose tables perfscope follows; never NVIDIA's name.
    x() { q "SELECT group_concat(value, '|') FROM META_DATA_EXPORT WHERE name = '$1'"; }
    expect "EXPORT_PRODUCT_NAME" "$(x EXPORT_PRODUCT_NAME)" perfscope
    expect "EXPORT_PRODUCT_VERSION" "$(x EXPORT_PRODUCT_VERSION)" "$(meta perfscope_version)"
    expect "EXPORT_SCHEMA_VERSION" "$(x EXPORT_SCHEMA_VERSION)" 3.25.0
    expect "EXPORT_SCHEMA_VERSION_MAJOR.MINOR.MICRO" "$(x EXPORT_SCHEMA_VERSION_MAJOR).$(x EXPORT_SCHEMA_VERSION_MINOR).$(x EXPORT_SCHEMA_VERSION_MICRO)" 3.25.0
    expect "EXPORT_TIME_UTC is the session start, to the second" "$(x EXPORT_TIME_UTC)" "$(meta start_time_utc | cut -c1-19)"
    expect "EXPORT_HOST" "$(x EXPORT_HOST)" "$(hostname)"
    expect "no NVIDIA name" "$(q "SELECT count(*) FROM META_DATA_EXPORT WHERE value LIKE '%NVIDIA%'")" 0
    ;;
record_follows_forked_and_execed_children)
    record -o "$trace" -- "$prog" tree 1000
    expect "status" "$rc" 0
    for name in parent forked exec; do
        want=1000
        [ $name = forked ] && want=2000
        expect "$name rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = '$name'")" $want
    done
    expect "forked children are 2 processes" "$(q "SELECT count(DISTINCT globalTid >> 24) FROM NVTX_EVENTS WHERE text = 'forked'")" 2
    expect "4 processes with NVTX rows" "$(q "SELECT count(DISTINCT globalTid >> 24) FROM NVTX_EVENTS")" 4
    expect "parent is the child pid" "$(q "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM NVTX_EVENTS WHERE text = 'parent'")" "$(meta child_pid)"
    expect "probed processes" "$(meta probed_processes)" 4
    expect "their parent" "$(q "SELECT count(*) FROM PERFSCOPE_PROCESS_INFO WHERE ppid = $(meta child_pid) AND rings > 0")" 3
    expect "exec'd command line" "$(q "SELECT count(*) FROM PERFSCOPE_PROCESS_INFO WHERE commandLine LIKE '%nvtx_prog ranges exec 1000'")" 1
    expect "dropped" "$(meta dropped_records)" 0
    ;;
record_keeps_ranges_closed_before_sigkill)
    record -o "$trace" -- "$prog" closed_then_sigkill 200000 "$dir/closed"
    expect "status" "$rc" 137
    expect "ranges closed before the kill" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'r'")" "$(cat "$dir/closed")"
    # The range open at the kill is kept from the ring's open-range table: one push/pop row with end NULL.
    expect "the open range" "$(q "SELECT count(*) || ' ' || count(\"end\") FROM NVTX_EVENTS
        WHERE text = 'open-at-kill' AND eventType = 59")" "1 0"
    expect "open range starts after the last closed one" "$(q "SELECT (SELECT start FROM NVTX_EVENTS
        WHERE text = 'open-at-kill') >= (SELECT max(\"end\") FROM NVTX_EVENTS WHERE text = 'r')")" 1
    expect "unterminated_nvtx" "$(meta unterminated_nvtx)" 1
    expect "integrity" "$(q "PRAGMA integrity_check")" ok
    # with no range closed at all, the report lists the open one and does not claim the program
    # never used NVTX.
    record -f -o "$trace" -- "$prog" closed_then_sigkill 0 "$dir/closed"
    "$perfscope" report "$trace" >"$dir/report.txt" || fail "report exited $?"
    grep -q "^WARNING: 1 NVTX range never ended" "$dir/report.txt" || fail "no warning: $(head "$dir/report.txt")"
    grep -q "every NVTX range of this trace never ended" "$dir/report.txt" || fail "report: $(cat "$dir/report.txt")"
    ! grep -q "did not use NVTX" "$dir/report.txt" || fail "claims no NVTX: $(cat "$dir/report.txt")"
    ;;
record_keeps_ranges_of_threads_that_exit_inside_them)
    # 50 threads in turn exit inside 2 ranges each, all on the same lane; a lane has 16 open-range
    # slots, so without freeing them at thread exit only the first 8 threads' ranges were kept. Then main exits
    # inside "main_open". Expected: 2 x 50 + 1 = 101 rows with end NULL, 50 per name on 50 threads.
    record -o "$trace" -- "$prog" threads_exit_open 50
    expect "status" "$rc" 0
    expect "never-ended rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND \"end\" IS NULL")" 101
    expect "per name" "$(q "SELECT group_concat(text || ':' || n || ':' || t, ' ') FROM (SELECT text, count(*) AS n,
        count(DISTINCT globalTid) AS t FROM NVTX_EVENTS WHERE \"end\" IS NULL GROUP BY text ORDER BY text)")" \
        "main_open:1:1 te_inner:50:50 te_outer:50:50"
    expect "unterminated_nvtx" "$(meta unterminated_nvtx)" 101
    # a thread exiting 20 deep (past the lane's 16 slots) writes all 20 from its own stack, with
    # their names and attributes (d19's colour 0xFF00FF00 = 4278255360).
    record -f -o "$trace" -- "$prog" thread_exit_deep
    expect "deep status" "$rc" 0
    expect "deep rows" "$(q "SELECT group_concat(text, ' ') FROM (SELECT text FROM NVTX_EVENTS
        WHERE eventType = 59 AND \"end\" IS NULL ORDER BY start)")" \
        "d0 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10 d11 d12 d13 d14 d15 d16 d17 d18 d19"
    expect "d19's colour" "$(q "SELECT color FROM NVTX_EVENTS WHERE text = 'd19'")" 4278255360
    ;;
record_keeps_open_ranges_with_inline_text_unnamed)
    # past 4096 distinct names a thread's messages go inline, which the open-range table cannot
    # hold; such a range is kept without its text (docs/probe.md). nvtx_prog inline_open: 5000 closed, 1 open.
    record -o "$trace" -- "$prog" inline_open
    expect "status" "$rc" 0
    expect "closed" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND \"end\" IS NOT NULL")" 5000
    expect "open, unnamed" "$(q "SELECT count(*) || ' ' || count(text) || ' ' || count(textId) FROM NVTX_EVENTS
        WHERE eventType = 59 AND \"end\" IS NULL")" "1 0 0"
    expect "it starts after the last closed one" "$(q "SELECT (SELECT start FROM NVTX_EVENTS WHERE \"end\" IS NULL
        AND eventType = 59) >= (SELECT max(\"end\") FROM NVTX_EVENTS WHERE eventType = 59)")" 1
    # the report names it "(no text)" (JSON: null), not a blank.
    "$perfscope" report "$trace" >"$dir/report.txt" || fail "report exited $?"
    grep -Eqx "  pid [0-9]+ tid [0-9]+: \(no text\)" "$dir/report.txt" || fail "report: $(head "$dir/report.txt")"
    "$perfscope" report --format json "$trace" | grep -q '"unterminated_ranges": \[{"name": null' ||
        fail "json: $("$perfscope" report --format json "$trace" | grep -o '"unterminated_ranges[^]]*')"
    ;;
record_forked_child_does_not_own_the_parents_start_end_ranges)
    # the child inherited the parent's open start/end table, so its end of the parent's id
    # wrote a second row (under the parent's tid in the child's pid).
    record -o "$trace" -- "$prog" fork_startend
    expect "status" "$rc" 0
    expect "rows" "$(q "SELECT count(*) || ' ' || sum(globalTid / 16777216 % 16777216 = $(meta child_pid))
        FROM NVTX_EVENTS WHERE text = 'parent_startend' AND eventType = 60")" "1 1"
    expect "the child's end is unbalanced" "$(meta unbalanced_nvtx)" 1
    ;;
record_first_range_excludes_the_probes_set_up)
    # the process's first push makes the ring (milliseconds); its range must start after that
    # set-up, not before it. The probe stamps the process's attach time (PERFSCOPE_PROCESS_INFO.attachTime,
    # CLOCK_MONOTONIC) once the ring exists, near the end of the set-up, and the range's start is stamped
    # after the set-up: so start >= attachTime, whatever the scheduling (not a timing such as "in the
    # last quarter of the call", which needed up to 3 tries under ASan). Without the fix the start precedes
    # attachTime by the whole set-up. nvtx_prog also wrote CLOCK_MONOTONIC before and after its first push
    # call: the start (+ systemClockNs, the CLOCK_MONOTONIC of time 0) lies between them.
    record -o "$trace" -- "$prog" first_range "$dir/times"
    expect "status" "$rc" 0
    read -r before after <"$dir/times" || fail "no times written"
    start=$(q "SELECT n.start + s.systemClockNs FROM NVTX_EVENTS n, TARGET_INFO_SESSION_START_TIME s
        WHERE n.text = 'first'")
    [ "$start" -ge "$before" ] && [ "$start" -le "$after" ] || fail "start $start outside the call [$before, $after]"
    attach=$(q "SELECT attachTime FROM PERFSCOPE_PROCESS_INFO WHERE pid = $(meta child_pid)")
    first=$(q "SELECT start FROM NVTX_EVENTS WHERE text = 'first'")
    [ -n "$attach" ] && [ "$first" -ge "$attach" ] ||
        fail "the range starts at $first ns, $((attach - first)) ns before the probe attached at $attach ns"
    ;;
record_keeps_ranges_open_at_a_crash)
    # nvtx_prog open_at_crash (see its comment): 4 ranges never popped on 2 threads, one of which exited and
    # whose lane a third thread reused; then SIGSEGV.
    record -o "$trace" -- "$prog" open_at_crash "$dir/did"
    expect "status" "$rc" 139
    expect "what the program did" "$(cat "$dir/did")" "open step forward regstr loader
closed 20"
    # Open ranges in start order, with their thread (main = the process's own tid) and domain.
    expect "open rows" "$(q "SELECT group_concat(name, ' ') FROM (SELECT coalesce(n.text, s.value) AS name
        FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
        WHERE n.eventType = 59 AND n.\"end\" IS NULL ORDER BY n.start)")" "step forward regstr loader"
    expect "main thread's open ranges" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE \"end\" IS NULL
        AND eventType = 59 AND globalTid % 16777216 = $(meta child_pid)")" 3
    expect "loader on its own thread" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'loader'
        AND globalTid % 16777216 != $(meta child_pid)")" 1
    expect "regstr in its domain" "$(q "SELECT count(*) FROM NVTX_EVENTS n JOIN NVTX_EVENTS d
        ON d.eventType = 75 AND d.text = 'crashdom' AND n.domainId = d.domainId
        WHERE n.eventType = 59 AND n.\"end\" IS NULL")" 1
    expect "closed rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'closed' AND \"end\" >= start")" 20
    expect "unterminated_nvtx" "$(meta unterminated_nvtx)" 4
    expect "per process" "$(meta "unterminated_nvtx.pid.$(meta child_pid)")" 4
    # The report says where the program was when it died, per thread, outermost first.
    "$perfscope" report "$trace" >"$dir/report.txt" || fail "report exited $?"
    grep -q "^WARNING: 4 NVTX ranges never ended" "$dir/report.txt" || fail "no warning: $(head "$dir/report.txt")"
    pid=$(meta child_pid)
    grep -qx "  pid $pid tid $pid: step > forward > regstr \[crashdom\]" "$dir/report.txt" ||
        fail "main thread's line: $(grep "pid $pid" "$dir/report.txt")"
    grep -Eqx "  pid $pid tid [0-9]+: loader" "$dir/report.txt" || fail "no loader line: $(head "$dir/report.txt")"
    ;;
record_64_threads_x_100k_ranges_drop_nothing)
    record -o "$trace" -- "$prog" threads 64 100000
    expect "status" "$rc" 0
    expect "rows" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 's'")" 6400000
    expect "threads" "$(q "SELECT count(DISTINCT globalTid) FROM NVTX_EVENTS")" 64
    expect "dropped" "$(meta dropped_records)" 0
    ;;
record_tiny_ring_counts_drops_exactly)
    # 8 threads x 100000 ranges with a registered message through a 704 KiB ring (124 KiB of chunks: about 1500 records of
    # room): most are dropped. nvtx_prog's storm writes range records only (see registered_storm), so
    # rows + dropped records = ranges opened, exactly.
    record --ring-size 704K -o "$trace" -- "$prog" registered_storm 8 100000
    expect "status" "$rc" 0
    rows=$(q "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59")
    dropped=$(meta dropped_records)
    [ "$dropped" -gt 0 ] || fail "a 704 KiB ring dropped nothing ($rows rows): not tiny enough"
    expect "rows + dropped" $((rows + dropped)) 800000
    expect "corrupt rows" "$(q "SELECT count(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
        WHERE n.eventType = 59 AND (s.value IS NOT 's' OR n.text IS NOT NULL OR n.\"end\" < n.start
        OR n.domainId != (SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'storm')
        OR n.globalTid >> 24 != (1 << 24) | $(meta child_pid))")" 0
    grep -q "records were dropped because a ring was full" "$dir/err" || fail "no warning about drops"
    ;;
record_survives_unbalanced_pops_and_early_exit)
    record -o "$trace" -- "$prog" unbalanced_exit
    expect "status" "$rc" 3
    expect "closed ranges" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'ok'")" 5
    expect "open range: a row, end NULL" "$(q "SELECT count(*) || ' ' || count(\"end\") FROM NVTX_EVENTS
        WHERE text = 'left-open'")" "1 0"
    expect "unterminated" "$(meta unterminated_nvtx)" 1
    expect "unbalanced pops and ends (3 pops, 3 ends)" "$(meta unbalanced_nvtx)" 6
    expect "dropped" "$(meta dropped_records)" 0
    ;;
record_samples_cpu_time_of_a_burning_child)
    # nvtx_prog spins until it has used 0.5 s of CPU (CLOCK_PROCESS_CPUTIME_ID); /proc counts in 10 ms
    # ticks and the last sample is taken at the child's exit, so the sampled total is 0.5 s +- 0.05 s.
    record -o "$trace" -- "$prog" burn 0.5
    expect "status" "$rc" 0
    cpu=$(q "SELECT max(cpuUserNs + cpuSystemNs) FROM PERFSCOPE_PROCESS_SAMPLES WHERE globalPid = (1 << 48) | ($(meta child_pid) << 24)")
    [ "$cpu" -ge 450000000 ] && [ "$cpu" -le 550000000 ] || fail "CPU time $cpu ns, want 0.5 s +- 0.05 s"
    # A live process has resident pages (the last sample, of the exited child, a zombie, has none).
    [ "$(q "SELECT max(rssBytes) FROM PERFSCOPE_PROCESS_SAMPLES")" -gt 0 ] || fail "no RSS"
    running=$(q "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE state = 0")
    [ "$running" -ge 1 ] || fail "no running sample"
    ;;
report_host_compute_asleep_is_called_a_wait_not_computing)
    # 16 steps, each burning 10 ms of CPU then sleeping 120 ms (usleep: state S) in a range "compute"; no GPU rows.
    # Where the step goes (docs/report.md) reads the step thread's samples: waiting is the verdict, a bottleneck of
    # its own, with at least half of the 120 ms slept per step, named by the range "compute", and its fix says so.
    record -o "$trace" -- "$prog" steps 16 120 10
    expect "status" "$rc" 0
    "$perfscope" report --format json "$trace" >"$dir/r.json" || fail "report exited $?"
    set -- $(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
s = r['steps']
print(s[0]['start_ns'], s[-1]['start_ns'] + s[-1]['dur_ns'], r['run']['step_process'], r['run']['step_thread'],
      sum(x['dur_ns'] for x in s) / len(s) / 1e6)" "$dir/r.json")
a=$1 b=$2 of_thread="(globalTid >> 24) & 16777215 = $3 AND globalTid & 16777215 = $4 AND timestamp > $1 AND timestamp < $2"
samples=$(q "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE $of_thread")
asleep=$(q "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE $of_thread AND state IN (1, 2, 3)")
python3 - "$dir/r.json" "$samples" "$asleep" "$5" <<'PY' || fail "the fix: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['verdict']['recommendations'][0])" "$dir/r.json")"
import json, re, sys
r = json.load(open(sys.argv[1]))
v, c = r['verdict'], r['causes']
fix = v['recommendations'][0]
samples, asleep, step_ms = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
assert samples >= 8 and asleep * 2 >= samples, (samples, asleep)   # the samples show the sleep
assert v['bottleneck'] == 'waiting', v['bottleneck']
waiting = c['by_cause']['waiting']
assert 60 <= waiting['ns'] / 1e6 <= step_ms, waiting
assert waiting['top'][0]['name'] == 'compute', waiting['top']
assert [e['name'] for e in v['evidence']][:1] == ['compute'], v['evidence']
sys.exit(not ("sleeps or waits" in fix and "profile the hot functions" not in fix))
PY
    # top, watching the same trace over a window that holds the whole run, gives the report's fix (docs/top.md)
    "$perfscope" top --trace "$trace" --window 3600 -n 1 --snapshot json >"$dir/snap.json" 2>/dev/null ||
        fail "top exited $?"
    python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['recording']['analysis']
want = json.load(open(sys.argv[2]))['verdict']['recommendations'][0]
# and its verdict line says why: the sleep, named by its range (docs/top.md)
sys.exit(a['fix'] != want or not (a['cause'] or '').startswith('waiting (sleep, lock, I/O) ') or
         not a['cause'].endswith('% in compute'))" "$dir/snap.json" "$dir/r.json" || fail "top's fix is not the report's, or its cause: $(cat "$dir/snap.json")"
    ;;
report_host_compute_without_thread_samples_says_it_cannot_tell)
    # --sample-hz 0: no thread samples, so no claim either way: the host-compute advice says it is not known
    record -o "$trace" --sample-hz 0 -- "$prog" steps 6 100 10
    expect "status" "$rc" 0
    "$perfscope" report "$trace" >"$dir/r.txt" || fail "report exited $?"
    grep -q "Whether the step thread computed or waited is not known here: 0 samples" "$dir/r.txt" ||
        fail "no hedge: $(cat "$dir/r.txt")"
    ! grep -q "not computing" "$dir/r.txt" || fail "a claim without samples: $(cat "$dir/r.txt")"
    ;;
report_host_compute_burning_cpu_gets_the_compute_advice)
    # 12 steps of 100 ms of CPU each, no sleep: the step thread is running (R), or runnable on a loaded machine
    # (R too): the host-compute advice, no claim of waiting.
    record -o "$trace" -- "$prog" steps 12 0 100
    expect "status" "$rc" 0
    "$perfscope" report "$trace" >"$dir/r.txt" || fail "report exited $?"
    grep -q "profile the hot functions" "$dir/r.txt" || fail "no host-compute advice: $(cat "$dir/r.txt")"
    ! grep -q "not computing" "$dir/r.txt" || fail "a burning step called a wait: $(cat "$dir/r.txt")"
    ;;
record_samples_io_bytes)
    # nvtx_prog writes 8 MiB with write() (wchar counts every byte passed to write(), proc(5)), then
    # lives 0.3 s more: several samples see the full count. It reads little: its rchar stays far below.
    record -o "$trace" -- "$prog" write "$dir/data" 8
    expect "status" "$rc" 0
    pid="(1 << 48) | ($(meta child_pid) << 24)"
    w=$(q "SELECT max(writeCharBytes) FROM PERFSCOPE_PROCESS_SAMPLES WHERE globalPid = $pid")
    [ "$w" -ge 8388608 ] && [ "$w" -lt 9437184 ] || fail "writeCharBytes $w, want 8 MiB + a little"
    r=$(q "SELECT max(readCharBytes) FROM PERFSCOPE_PROCESS_SAMPLES WHERE globalPid = $pid")
    [ "$r" -lt 1048576 ] || fail "readCharBytes $r for a program that reads almost nothing"
    ;;
record_samples_sleeping_child_as_sleeping)
    # The program sleeps in a read() of a FIFO the test holds open (nvtx_prog blocked) until the test closes
    # it. Startup (exec, loading) and the end (LeakSanitizer, the zombie) are busy: only samples taken while it
    # is surely asleep are checked, and every one of them must say S (1). Those are the samples stamped after
    # the test saw it asleep in /proc and stored before the test let it go: the sampler stamps a tick, then
    # reads /proc (collector/sampler.c), and stores ticks in order. Sample times are ns from record's origin,
    # the CLOCK_MONOTONIC in META origin_monotonic_ns (written before CMD starts).
    mkfifo "$dir/go" && exec 5<>"$dir/go" || fail setup
    start_record -o "$trace" -- "$prog" blocked "$dir/go" "$dir/pid" 5>&-
    await "the program to start" $rec test -s "$dir/pid"
    pid=$(cat "$dir/pid")
    await "process $pid to sleep reading the FIFO" $rec eval '[ "$(sed "s/.*) //" /proc/$pid/stat 2>/dev/null | cut -d" " -f1)" = S ]'
    from=$(( $("$prog" clock) - $(meta origin_monotonic_ns) ))
    main="(1 << 48) | ($pid << 24) | $pid"
    asleep="globalTid = $main AND timestamp >= $from"
    await "10 samples of process $pid asleep" $rec \
        eval '[ "$(live "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE $asleep")" -ge 10 ] 2>/dev/null'
    upto=$(live "SELECT max(timestamp) FROM PERFSCOPE_THREAD_SAMPLES WHERE $asleep")
    exec 5>&-
    end_record
    expect "status" "$rc" 0
    n=$(q "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE $asleep AND timestamp <= $upto")
    [ "$n" -ge 10 ] || fail "only $n samples in the trace of the 10 seen while it was asleep"
    expect "samples taken while it slept that say sleeping (S)" \
        "$(q "SELECT count(*) FROM PERFSCOPE_THREAD_SAMPLES WHERE $asleep AND timestamp <= $upto AND state = 1")" "$n"
    expect "thread named by the OS" "$(q "SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId
        WHERE t.globalTid = (1 << 48) | ($(meta child_pid) << 24) | $(meta child_pid)")" nvtx_prog
    # Not probed (no NVTX call): named from /proc, after its exec (the first sample may precede it).
    expect "process named by the OS" "$(q "SELECT name FROM PROCESSES WHERE pid = $(meta child_pid)")" nvtx_prog
    ;;
record_finished_trace_is_one_file_readable_from_a_read_only_dir)
    # a finished trace stayed in WAL mode, so `report` failed in a read-only folder ("attempt to
    # write a readonly database") and left -wal/-shm files beside the trace elsewhere. Root ignores a folder's
    # mode, so as root the report runs as user nobody (runuser or setpriv; skipped without either).
    record -o "$trace" -- "$prog" known
    expect "status" "$rc" 0
    [ ! -e "$trace-wal" ] && [ ! -e "$trace-shm" ] || fail "record left -wal/-shm files beside the trace"
    expect "journal mode of the finished trace" "$(q "PRAGMA journal_mode")" delete
    as=""
    if [ "$(id -u)" = 0 ]; then
        if command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then as="runuser -u nobody --"
        elif command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
            as="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups --"
        else echo "SKIP $case: running as root without runuser or setpriv"; rm -rf "$dir"; exit 77; fi
    fi
    mkdir "$dir/ro" && cp "$trace" "$dir/ro/t.sqlite" && chmod 444 "$dir/ro/t.sqlite" && chmod 555 "$dir/ro" &&
        chmod 755 "$dir" || fail "setup"
    $as "$perfscope" report "$dir/ro/t.sqlite" >"$dir/report.txt" 2>"$dir/report.err"
    rrc=$?
    chmod 755 "$dir/ro"
    expect "report status in a read-only folder ($(cat "$dir/report.err"))" "$rrc" 0
    grep -q "t.sqlite (perfscope trace)" "$dir/report.txt" || fail "report: $(head -3 "$dir/report.txt")"
    expect "files in the read-only folder after report" "$(ls -A "$dir/ro")" t.sqlite
    # In a writable folder too, report writes nothing beside the trace.
    chmod 777 "$dir/ro"
    $as "$perfscope" report "$dir/ro/t.sqlite" >/dev/null 2>"$dir/report.err" || fail "report: $(cat "$dir/report.err")"
    expect "files in a writable folder after report" "$(ls -A "$dir/ro")" t.sqlite
    ;;
record_warns_when_a_reader_keeps_the_trace_in_wal_mode)
    # Leaving WAL mode needs the only connection: a reader holding a read transaction when the recording ends
    # keeps the trace in WAL mode. record waits 5 s, then warns and still succeeds (the trace is complete).
    # The reader (the sqlite3 CLI, its SQL from a FIFO) holds its transaction from before the program ends
    # (nvtx_prog blocked: it ends when the test closes the FIFO it reads) until record has ended.
    mkfifo "$dir/go" "$dir/sql" && exec 5<>"$dir/go" || fail setup
    start_record -o "$trace" -- "$prog" blocked "$dir/go" "$dir/pid" 5>&-
    await "the program to start" $rec test -s "$dir/pid"
    sqlite3 "$trace" <"$dir/sql" >"$dir/reader.out" 2>&1 5>&- &
    reader=$!
    exec 3>"$dir/sql"
    echo "BEGIN; SELECT count(*) FROM StringIds;" >&3
    await "the reader's read transaction" $reader test -s "$dir/reader.out"
    grep -Eqx "[0-9]+" "$dir/reader.out" || fail "reader: $(cat "$dir/reader.out")"
    exec 5>&-
    end_record
    expect "status" "$rc" 0
    echo "COMMIT;" >&3
    exec 3>&-
    wait $reader
    grep -q "the trace stays in WAL mode: another program had it open" "$dir/err" || fail "no warning: $(cat "$dir/err")"
    expect "recording_complete" "$(meta recording_complete)" 1
    expect "journal mode" "$(q "PRAGMA journal_mode")" wal
    ;;
*)
    fail "unknown case $case"
    ;;
esac
rm -rf "$dir"
echo "PASS $case"
