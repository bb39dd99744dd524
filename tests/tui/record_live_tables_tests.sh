#!/usr/bin/env bash
# What perfscope record writes for live readers and for the report's GPU timeline, through the real binary: the
# GPU sampler with the test-only NVML stand-in (PS_NVML_STANDIN script, libnvidia-ml.so.1 from $standin_dir) or
# without any NVML, the report drawn from its samples, and the tables a reader of a trace still being recorded needs.
# usage: record_live_tables_tests.sh PERFSCOPE STANDIN_DIR WORKDIR CASE [TRAIN]
set -u
perfscope=$1 standin_dir=$2 case=$4 train=${5:-}
dir=$3/$case
rm -rf "$dir" && mkdir -p "$dir"
trace=$dir/t.sqlite
fail() { echo "FAIL $case: $*" >&2; exit 1; }
q() { sqlite3 "$trace" "$1" || fail "query failed: $1"; }
expect() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
# What `record` runs where a test needs N GPU samples: sh -c "$until_gpu_samples" - TRACE N ends once the trace it
# is recorded into holds N (committed while recording), however slow the machine.
until_gpu_samples='until [ "$(sqlite3 -readonly "$1" "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES" 2>/dev/null)" -ge "$2" ] 2>/dev/null
    do sleep 0.05; done'

case $case in
record_stores_nvml_samples_with_null_for_unsupported_fields)
    # The stand-in returns utilisation 50, 60, then 70 % for every later call; temperature is unsupported,
    # power fails; one process's memory is NVML_VALUE_NOT_AVAILABLE.
    cat >"$dir/s.nvml" <<'S'
count=1
gpu0.name=NVIDIA H200
gpu0.util=50,10;60,20;70,30
gpu0.mem=1000,2000
gpu0.temp=unsupported
gpu0.power=error
gpu0.power_limit=700000
gpu0.procs=4242:1048576,4243:na
gpu0.uuid=GPU-5a000000-0000-0000-0000-000000000077
gpu0.pci=00000000:19:00.0
gpu0.proc_util=4242:64:9:1000
S
    PS_NVML_STANDIN=$dir/s.nvml LD_LIBRARY_PATH=$standin_dir \
        "$perfscope" record --sample-hz 10 -o "$trace" -- sh -c "$until_gpu_samples" - "$trace" 4 2>"$dir/err" ||
        fail "record failed: $(cat "$dir/err")"
    expect "meta gpu_samples" "$(q "SELECT value FROM PERFSCOPE_META WHERE name='gpu_samples'")" nvml
    expect "first three utilisations" "$(q "SELECT group_concat(utilGpuPercent) FROM (SELECT utilGpuPercent FROM PERFSCOPE_GPU_SAMPLES ORDER BY timestamp LIMIT 3)")" "50,60,70"
    expect "unsupported temperature is NULL" "$(q "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES WHERE temperatureC IS NOT NULL OR powerMw IS NOT NULL")" 0
    expect "power limit" "$(q "SELECT DISTINCT powerLimitMw FROM PERFSCOPE_GPU_SAMPLES")" 700000
    expect "memory" "$(q "SELECT DISTINCT memUsedBytes || '/' || memTotalBytes FROM PERFSCOPE_GPU_SAMPLES")" "1000/2000"
    expect "device row" "$(q "SELECT deviceIndex || '|' || name || '|' || memTotalBytes || '|' || uuid || '|' || pciBusId FROM PERFSCOPE_GPU_DEVICES")" \
        "0|NVIDIA H200|2000|GPU-5a000000-0000-0000-0000-000000000077|00000000:19:00.0"
    # per-process SM utilisation: 64 % in the first sample (the stand-in's only sample, time 1000 us), then no newer
    # sample: 0 %; 4243 never had one
    expect "process SM utilisation" \
        "$(q "SELECT group_concat(pid || ':' || smUtilPercent || ':' || memUtilPercent, ' ') FROM (SELECT pid, smUtilPercent, memUtilPercent FROM PERFSCOPE_GPU_PROCESS_SAMPLES WHERE timestamp = (SELECT min(timestamp) FROM PERFSCOPE_GPU_SAMPLES) ORDER BY pid)")" \
        "4242:64:9 4243:0:0"
    expect "later samples: no new utilisation sample is 0 %" \
        "$(q "SELECT DISTINCT smUtilPercent FROM PERFSCOPE_GPU_PROCESS_SAMPLES WHERE pid = 4242 AND timestamp > (SELECT min(timestamp) FROM PERFSCOPE_GPU_SAMPLES)")" 0
    expect "process memory, NULL when not available" \
        "$(q "SELECT pid || ':' || ifnull(usedMemoryBytes, 'null') FROM PERFSCOPE_GPU_PROCESS_SAMPLES WHERE timestamp = (SELECT min(timestamp) FROM PERFSCOPE_GPU_SAMPLES) ORDER BY pid")" \
        "$(printf '4242:1048576\n4243:null')"
    # --sample-hz 10 drives the GPU sampler: one GPU sample per tick of the host sampler (cli/cmd_record.c's
    # sample_tick), never faster than 100 ms apart on average (slower on a loaded machine), times in ns since the
    # session start (the last sample is taken when the program exits, off the schedule: left out)
    expect "GPU samples, host sampling ticks" "$(q "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES")" \
        "$(q "SELECT count(DISTINCT timestamp) FROM PERFSCOPE_PROCESS_SAMPLES")"
    gap=$(q "SELECT ((SELECT timestamp FROM PERFSCOPE_GPU_SAMPLES ORDER BY timestamp DESC LIMIT 1 OFFSET 1) - min(timestamp)) / (count(*) - 2) FROM PERFSCOPE_GPU_SAMPLES")
    [ "$gap" -ge 90000000 ] || fail "average sample spacing $gap ns: faster than --sample-hz 10"
    ;;
record_keys_nvml_samples_by_uuid_joining_target_info_gpu)
    # Two GPUs: NVML's device 1 is the one the program runs on (CUDA ordinal 0, the stand-in libcupti's "Fake GPU",
    # UUID GPU-5a000000-0000-0000-0000-000000000000); NVML's device 0 is another. The samples join TARGET_INFO_GPU
    # through PERFSCOPE_GPU_DEVICES.uuid, not through the index. A MIG device of GPU 0 is listed as such.
    cat >"$dir/s.nvml" <<'S'
count=2
gpu0.name=NVIDIA H200
gpu0.util=11,1
gpu0.uuid=GPU-77000000-0000-0000-0000-000000000000
gpu0.mig=1
gpu0.mig_count=7
gpu0.mig3.uuid=MIG-e1000000-0000-0000-0000-000000000001
gpu0.mig3.gi=1
gpu0.mig3.ci=0
gpu0.mig3.mem=500,20000
gpu1.name=NVIDIA H200
gpu1.util=93,40
gpu1.uuid=GPU-5a000000-0000-0000-0000-000000000000
gpu1.pci=00000000:9A:00.0
S
    [ -n "${FAKE_DRIVER:-}" ] && [ -n "${FAKE_LIBCUPTI:-}" ] || fail "FAKE_DRIVER and FAKE_LIBCUPTI must be set"
    PS_NVML_STANDIN=$dir/s.nvml LD_LIBRARY_PATH=$standin_dir PERFSCOPE_CUPTI_PATH=$FAKE_LIBCUPTI \
        "$perfscope" record --sample-hz 10 -o "$trace" -- "$FAKE_DRIVER" >"$dir/out" 2>"$dir/err" ||
        fail "record failed: $(cat "$dir/err")"
    expect "the GPU the program used" "$(q "SELECT name || '|' || uuid FROM TARGET_INFO_GPU")" \
        "Fake GPU|GPU-5a000000-0000-0000-0000-000000000000"
    expect "its samples, by UUID" \
        "$(q "SELECT DISTINCT s.deviceIndex || '|' || s.utilGpuPercent || '|' || d.pciBusId FROM PERFSCOPE_GPU_SAMPLES s JOIN PERFSCOPE_GPU_DEVICES d USING (deviceIndex) JOIN TARGET_INFO_GPU g ON g.uuid = d.uuid")" \
        "1|93|00000000:9A:00.0"
    expect "MIG device" "$(q "SELECT deviceIndex || '|' || uuid || '|' || gpuInstanceId || '|' || computeInstanceId || '|' || memTotalBytes FROM PERFSCOPE_GPU_MIG_DEVICES")" \
        "0|MIG-e1000000-0000-0000-0000-000000000001|1|0|20000"
    ;;
record_without_nvml_says_why_and_stores_no_gpu_rows)
    LD_LIBRARY_PATH=$dir "$perfscope" record -o "$trace" -- true 2>"$dir/err" || fail "record failed"
    if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 ] || ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
        echo "SKIP: a real NVML is installed (the no-NVML case cannot be tested here)"; exit 77
    fi
    expect "meta" "$(q "SELECT value FROM PERFSCOPE_META WHERE name='gpu_samples'")" \
        "none: no NVIDIA driver: libnvidia-ml.so.1 not found (GPU metrics need the driver's NVML)"
    expect "rows" "$(q "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES")" 0
    ;;
record_with_nvml_init_failure_says_driver_mismatch)
    printf 'init=mismatch\n' >"$dir/s.nvml"
    PS_NVML_STANDIN=$dir/s.nvml LD_LIBRARY_PATH=$standin_dir "$perfscope" record -o "$trace" -- true 2>"$dir/err" ||
        fail "record failed"
    q "SELECT value FROM PERFSCOPE_META WHERE name='gpu_samples'" | grep -q "^none: NVML: Driver/library version mismatch (the driver was upgraded" ||
        fail "meta: $(q "SELECT value FROM PERFSCOPE_META WHERE name='gpu_samples'")"
    expect "rows" "$(q "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES")" 0
    ;;
report_draws_nvml_utilisation_over_time)
    # utilisation 0, 10, ..., 100 %, then 100 % for every later sample; a trace with an out-of-range row added
    printf 'count=1\ngpu0.name=NVIDIA H200\ngpu0.util=0,0;10,0;20,0;30,0;40,0;50,0;60,0;70,0;80,0;90,0;100,0\n' >"$dir/s.nvml"
    PS_NVML_STANDIN=$dir/s.nvml LD_LIBRARY_PATH=$standin_dir \
        "$perfscope" record --sample-hz 10 -o "$trace" -- sh -c "$until_gpu_samples" - "$trace" 12 2>"$dir/err" ||
        fail "record failed: $(cat "$dir/err")"
    n=$(q "SELECT count(*) FROM PERFSCOPE_GPU_SAMPLES")
    "$perfscope" report --format json "$trace" >"$dir/r.json" 2>"$dir/err" || fail "report failed: $(cat "$dir/err")"
    # mean by hand: (0 + 10 + ... + 100 + 100 (n - 11)) / n = (550 + 100 (n - 11)) / n (JSON has 6 digits)
    python3 -c "
import json, sys; g = json.load(open('$dir/r.json'))['gpu_utilization_samples'][0]; n = $n
got = (g['device'], g['samples'], g['min_percent'], g['max_percent'])
if got != (0, n, 0, 100) or abs(g['mean_percent'] - (550 + 100 * (n - 11)) / n) > 1e-3:
    sys.exit('summary %s mean %s, want %s mean %s' % (got, g['mean_percent'], (0, n, 0, 100), (550 + 100 * (n - 11)) / n))
" || fail "summary"
    # the 60 slices of [first, last]: slice of t = (t - first) * 60 / (last - first + 1), the mean of its samples
    want=$(q "SELECT group_concat(b || ':' || m, ' ') FROM (SELECT (timestamp - f) * 60 / (l - f + 1) AS b,
               avg(utilGpuPercent) AS m FROM PERFSCOPE_GPU_SAMPLES, (SELECT min(timestamp) AS f, max(timestamp) AS l
               FROM PERFSCOPE_GPU_SAMPLES) GROUP BY b ORDER BY b)")
    got=$(python3 -c "
import json; g = json.load(open('$dir/r.json'))['gpu_utilization_samples'][0]['bucket_percent']
print(' '.join('%d:%s' % (i, ('%.1f' % v).rstrip('0').rstrip('.') if v != int(v) else '%d.0' % v) for i, v in enumerate(g) if v is not None))")
    [ "$got" = "$want" ] || fail "slices '$got', want '$want'"
    "$perfscope" report --sections gpu "$trace" | grep -q "^GPU 0 utilisation over time (NVML, $n samples" ||
        fail "text report line"
    # a corrupt row (utilisation 250) is counted as unplaced, not drawn
    sqlite3 "$trace" "INSERT INTO PERFSCOPE_GPU_SAMPLES(timestamp, deviceIndex, utilGpuPercent) VALUES(1, 0, 250)"
    "$perfscope" report --format json "$trace" >"$dir/r2.json" || fail "report failed on the corrupt row"
    [ "$(python3 -c "import json; print(json.load(open('$dir/r2.json'))['gpu_utilization_samples'][0]['max_percent'])")" = 100 ] ||
        fail "an out-of-range utilisation was used"
    ;;
record_writes_processes_thread_names_and_open_ranges_while_recording)
    # the data-bound scenario names its loader threads (nvtxNameOsThread) and keeps "step" open most of the time.
    # The loop has no time limit: tables that never show up fail by the test's timeout, after the line saying so.
    "$perfscope" record -o "$trace" -- "$train" --scenario data-bound --steps 100000 >"$dir/train.out" 2>&1 &
    rec=$!
    echo "waiting for PROCESSES, ThreadNames and an open 'step' range in the trace while it is recorded"
    ok=""
    until [ -n "$ok" ]; do
        kill -0 $rec 2>/dev/null || fail "record ended: $(tail -3 "$dir/train.out")"
        p=$(sqlite3 -readonly "$trace" "SELECT name FROM PROCESSES" 2>/dev/null)
        t=$(sqlite3 -readonly "$trace" "SELECT count(*) FROM ThreadNames" 2>/dev/null)
        o=$(sqlite3 -readonly "$trace" "SELECT group_concat(text, ' > ') FROM (SELECT text FROM PERFSCOPE_LIVE_OPEN_RANGES ORDER BY start)" 2>/dev/null)
        [ "$p" = train ] && [ "${t:-0}" -ge 1 ] && case $o in step*) ok=1 ;; esac
        [ -n "$ok" ] || sleep 0.2
    done
    complete=$(sqlite3 -readonly "$trace" "SELECT value FROM PERFSCOPE_META WHERE name = 'recording_complete'")
    kill -TERM $rec; wait $rec
    [ "$complete" = 0 ] || fail "the check did not run during the recording (recording_complete=$complete)"
    # at the end: one PROCESSES row per process (no duplicate from the live rows), no open-range rows left
    [ "$(q "SELECT count(*) - count(DISTINCT globalPid) FROM PROCESSES")" = 0 ] || fail "duplicate PROCESSES rows"
    [ "$(q "SELECT count(*) - count(DISTINCT globalTid) FROM ThreadNames")" = 0 ] || fail "duplicate ThreadNames rows"
    [ "$(q "SELECT count(*) FROM PERFSCOPE_LIVE_OPEN_RANGES")" = 0 ] || fail "open-range rows left in the finished trace"
    ;;
*) fail "unknown case $case" ;;
esac
echo "ok $case"
