#!/bin/sh
# `perfscope export` through the real binary (tests/export/CMakeLists.txt). Usage: export_tests.sh PERFSCOPE CASE SHARED [TRAIN]
ps=$1 case=$2 shared=$3 train=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
k=$shared/traces/kineto
. "$(dirname "$0")/../need_shared.sh"
# py EXPR FILE...: evaluate EXPR with t = the parsed export (python3's json: the export must be valid JSON),
# ev = its traceEvents, sql(q) = a query's first value on the source trace ($src)
py() {
    python3 - "$@" <<'PY'
import gzip, json, sqlite3, sys
expr, path = sys.argv[1], sys.argv[2]
src = sys.argv[3] if len(sys.argv) > 3 else None
t = json.load(gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8"))
ev = t["traceEvents"]
def sql(q):
    return sqlite3.connect(src).execute(q).fetchone()[0]
print(eval(expr))
PY
}
# round_trip TRACE: the report of the trace and of its export agree on everything the analyses compute (steps,
# breakdown, verdict, kernels, copies, findings); only the source and how GPU ops were linked may differ
round_trip() {
    "$ps" export "$1" -o "$tmp/x.json" 2>"$tmp/err" || fail "export exited $?: $(cat "$tmp/err")"
    "$ps" report "$1" --format json -o "$tmp/a.json" || fail "report of the trace exited $?"
    "$ps" report "$tmp/x.json" --format json -o "$tmp/b.json" || fail "report of the export exited $?"
    python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' || fail "the report of the export differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# The export carries no operator shapes (export_perfetto.c writes no "Input Dims"): the Operator efficiency
# findings and the ops a kernel-bound fix names (docs/op-perf-roofline.md) exist in the original's report only.
OURS = ("op_below_roofline", "fp32_matmul", "memory_bound_elementwise", "attention_not_fused")
for r in (a, b):
    r["findings"] = [f for f in r["findings"] if f["rule"] not in OURS]
    r["verdict"]["recommendations"] = [
        s.split(";")[0] if s.startswith("The device is busy computing; the ops furthest") else s
        for s in r["verdict"]["recommendations"] if not any("(finding %s)" % o in s for o in OURS)]
    r["verdict"]["recommendations"] = [
        "The device is busy computing" if s.startswith("The device is busy computing") else s
        for s in r["verdict"]["recommendations"]]
# The export carries no thread-state samples (docs/export.md): where the step thread was asleep, the causes of the
# export's report read host compute instead of waiting (docs/report.md "Where the step goes").
for x, y in zip(a["steps"], b["steps"]):   # a step the samples found waiting may get another verdict without them
    if (x.get("causes_ns") or {}).get("waiting"):
        x["bottleneck"] = y["bottleneck"] = x["share"] = y["share"] = None
# what the thread samples decide: whether host compute waited, and a verdict or fix a waiting step thread moved
for r in (a, b):
    r["verdict"]["host_compute_wait"] = None
if a["verdict"]["bottleneck"] == "waiting" or ((a.get("causes") or {}).get("by_cause") or {}).get("waiting", {}).get("ns"):
    for k in ("bottleneck", "share", "max_gain_share", "max_gain_ns", "evidence", "recommendations"):
        a["verdict"][k] = b["verdict"][k] = None
    a["step_average"]["bottleneck"] = b["step_average"]["bottleneck"] = None
for r in (a, b):
    for s in r["steps"]:
        c = s.get("causes_ns")
        if c:
            c["host"] += c["waiting"] + c["unexplained"]
            c["waiting"] = c["unexplained"] = 0
    if r["verdict"]["gpu_utilization"] is None:   # without GPU rows the compute share is the host's own work
        r["verdict"]["kernel_share"] = None
same = ["verdict", "steps", "step_average", "gpu_temporal", "idle_breakdown", "gpu_timeline",
        "gpu_timeline_per_device", "kernels", "kernel_names", "copies", "findings", "stragglers", "comm_comp_overlap"]
bad = [k for k in same if a.get(k) != b.get(k)]
for k in bad:
    print("differs:", k, json.dumps(a.get(k))[:400], "\n  export:", json.dumps(b.get(k))[:400])
    if isinstance(a.get(k), list) and isinstance(b.get(k), list):   # the first row that differs, whole
        for x, y in zip(a[k], b[k]):
            if x != y:
                print("  first differing row:", json.dumps(x), "\n  export's:", json.dumps(y))
                break
assert a["source"]["unplaced_events"] == b["source"]["unplaced_events"] == 0 or not print("unplaced events")
ra, rb = a["run"], b["run"]
# duration_ns is the program's own duration when PERFSCOPE_META has it, which a Chrome trace does not carry:
# the span of the events (events_duration_ns) is what must survive
for key in ("events_duration_ns", "events", "gpu_rows", "step_ranges_found", "steps_source"):
    if ra[key] != rb[key]:
        bad.append(key); print("run differs:", key, ra[key], rb[key])
assert a["steps"] or a["run"]["whole_run"], "the trace has no steps: nothing compared"
sys.exit(1 if bad else 0)
PY
}
case $case in
round_trip_nsys_h100_2gpu)
    need_shared "$shared/traces/nsys/h100_2gpu_1s.sqlite"
    round_trip "$shared/traces/nsys/h100_2gpu_1s.sqlite"
    ;;
round_trip_resnet50_workers0|round_trip_nccl_2rank|round_trip_h100_owlv2_inference|\
round_trip_mi300_qwen_inference|round_trip_ddp_resnet_ns_resolution)
    f=$k/${case#round_trip_}.pt.trace.json.gz
    need_shared "$f"
    round_trip "$f"
    ;;
nsys_export_has_a_track_per_thread_and_stream_and_a_flow_per_linked_launch)
    src=$shared/traces/nsys/h100_2gpu_1s.sqlite
    need_shared "$src"
    "$ps" export "$src" -o "$tmp/x.json" 2>/dev/null || fail "export exited $?"
    x=$tmp/x.json
    # every GPU record of the source, one X event each on its stream track, by category
    for pair in kernel:KERNEL gpu_memcpy:MEMCPY gpu_memset:MEMSET cuda_sync:SYNCHRONIZATION; do
        want=$(py "sql('select count(*) from CUPTI_ACTIVITY_KIND_${pair#*:}')" "$x" "$src")
        got=$(py "sum(1 for e in ev if e['ph'] == 'X' and e['cat'] == '${pair%%:*}')" "$x")
        [ "$got" = "$want" ] || fail "${pair%%:*} events: $got, SQL count $want"
    done
    # kernels on the stream they ran on: per (deviceId, streamId) counts as in the source
    [ "$(py "sorted((d, s, n) for (d, s), n in __import__('collections').Counter((e['args']['device'], e['args']['stream']) for e in ev if e['cat'] == 'kernel').items())" "$x")" = \
      "$(py "sorted(sqlite3.connect(src).execute('select deviceId, streamId, count(*) from CUPTI_ACTIVITY_KIND_KERNEL group by 1, 2').fetchall())" "$x" "$src")" ] ||
        fail "kernels per stream"
    # a stream track (thread_name "stream N" under the device's pid) per stream with GPU work
    [ "$(py "len({(e['pid'], e['tid']) for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name' and e['args']['name'].startswith('stream ')})" "$x")" = \
      "$(py "sql('select count(*) from (select distinct deviceId, streamId from (select deviceId, streamId from CUPTI_ACTIVITY_KIND_KERNEL union select deviceId, streamId from CUPTI_ACTIVITY_KIND_MEMCPY union select deviceId, streamId from CUPTI_ACTIVITY_KIND_MEMSET union select deviceId, streamId from CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))')" "$x" "$src")" ] ||
        fail "stream tracks"
    # a host track per thread with activity: the threads of the runtime calls and NVTX ranges
    [ "$(py "len({(e['pid'], e['tid']) for e in ev if e['ph'] == 'X' and e['cat'] in ('cuda_runtime', 'cuda_driver', 'user_annotation')})" "$x")" = \
      "$(py "sql('select count(distinct globalTid) from (select globalTid from CUPTI_ACTIVITY_KIND_RUNTIME union select globalTid from NVTX_EVENTS where eventType in (59, 60))')" "$x" "$src")" ] ||
        fail "host thread tracks"
    # a flow per GPU record whose correlation id has a runtime call in the same process (pid = globalTid >> 24)
    linked=$(py "sum(sql('select count(*) from CUPTI_ACTIVITY_KIND_%s g where exists (select 1 from CUPTI_ACTIVITY_KIND_RUNTIME r where r.correlationId = g.correlationId and r.globalTid / 16777216 = g.globalPid / 16777216)' % t) for t in ('KERNEL', 'MEMCPY', 'MEMSET', 'SYNCHRONIZATION'))" "$x" "$src")
    [ "$(py "sum(1 for e in ev if e['ph'] == 's' and e['cat'] == 'ac2g')" "$x")" = "$linked" ] || fail "flow starts (want $linked)"
    [ "$(py "sum(1 for e in ev if e['ph'] == 'f' and e['cat'] == 'ac2g')" "$x")" = "$linked" ] || fail "flow ends"
    # each flow ends on a GPU op with its correlation id, on that op's track, at its start
    [ "$(py "(lambda g: all((e['pid'], e['tid'], e['ts']) in g.get(e['id'], ()) for e in ev if e['ph'] == 'f'))(__import__('functools').reduce(lambda d, e: d.setdefault(e['args']['correlation'], set()).add((e['pid'], e['tid'], e['ts'])) or d, (e for e in ev if e['ph'] == 'X' and 'correlation' in e.get('args', {}) and e['cat'] in ('kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_sync')), {}))" "$x")" = True ] ||
        fail "a flow end is not on its GPU op"
    # copies carry bytes and GB/s = bytes / ns
    [ "$(py "all(e['args']['bytes'] > 0 and abs(e['args']['memory bandwidth (GB/s)'] - e['args']['bytes'] / (e['dur'] * 1000)) <= 1e-5 * e['args']['memory bandwidth (GB/s)'] for e in ev if e['cat'] == 'gpu_memcpy' and e['dur'] > 0)" "$x")" = True ] ||
        fail "copy bytes / bandwidth"
    [ "$(py "sum(e['args']['bytes'] for e in ev if e['cat'] == 'gpu_memcpy')" "$x")" = "$(py "sql('select sum(bytes) from CUPTI_ACTIVITY_KIND_MEMCPY')" "$x" "$src")" ] ||
        fail "copy bytes total"
    # every NVTX push/pop and start/end range by its exact text
    [ "$(py "sorted(e['name'] for e in ev if e['cat'] == 'user_annotation' and e['ph'] == 'X') == sorted(r[0] for r in sqlite3.connect(src).execute('select coalesce(n.text, s.value) from NVTX_EVENTS n left join StringIds s on s.id = n.textId where n.eventType in (59, 60) and n.end is not null'))" "$x" "$src")" = True ] ||
        fail "range names"
    ;;
recorded_scenario_round_trip_and_gpu_samples_as_counters)
    [ -n "$train" ] && [ -x "$train" ] || { echo "SKIP: no reference workload"; exit 77; }
    (cd "$tmp" && "$ps" record -o run.sqlite -- "$train" --scenario data-bound --steps 12 >/dev/null 2>&1) || fail "record"
    round_trip "$tmp/run.sqlite"
    [ "$(py "len(__import__('json').load(open('$tmp/a.json'))['steps'])" "$tmp/x.json")" -ge 11 ] || fail "steps recorded"
    # host samples (PERFSCOPE_PROCESS_SAMPLES) as counters on the process's track: an RSS sample per row, and CPU % of
    # one core from a process's second row on = 100 * (its CPU ns - the previous row's) / (time - previous time)
    src=$tmp/run.sqlite
    [ "$(py "sum(1 for e in ev if e['ph'] == 'C' and e['name'] == 'RSS (bytes)')" "$tmp/x.json")" = \
      "$(py "sql('select count(rssBytes) from PERFSCOPE_PROCESS_SAMPLES')" "$tmp/x.json" "$src")" ] || fail "RSS counters"
    [ "$(py "[(e['pid'], e['args']['rss bytes']) for e in ev if e['ph'] == 'C' and e['name'] == 'RSS (bytes)']" "$tmp/x.json")" = \
      "$(py "[(g >> 24 & 0xFFFFFF, r) for g, r in sqlite3.connect(src).execute('select globalPid, rssBytes from PERFSCOPE_PROCESS_SAMPLES order by rowid')]" "$tmp/x.json" "$src")" ] ||
        fail "RSS values"
    got=$(py "[(e['pid'], e['args']['cpu %']) for e in ev if e['ph'] == 'C' and e['name'] == 'CPU (%)']" "$tmp/x.json")
    # (a process's rows in table order, each paired with its previous one; a pair whose time does not advance or
    # whose CPU time falls gives no value; the output keeps the table's order)
    want=$(python3 - "$src" <<'PY'
import sqlite3, sys
prev, out = {}, []
for ts, gpid, user, system in sqlite3.connect(sys.argv[1]).execute(
        "select timestamp, globalPid, coalesce(cpuUserNs, 0), coalesce(cpuSystemNs, 0) from PERFSCOPE_PROCESS_SAMPLES order by rowid"):
    pid, cpu = gpid >> 24 & 0xFFFFFF, user + system
    if pid in prev and ts > prev[pid][0] and cpu >= prev[pid][1]:
        out.append((pid, 100 * (cpu - prev[pid][1]) / (ts - prev[pid][0])))
    prev[pid] = (ts, cpu)
print(out)
PY
)
    # the export prints 6 significant digits
    python3 -c 'import math, sys; g, w = eval(sys.argv[1]), eval(sys.argv[2]); sys.exit(not (len(g) == len(w) and all(
        a[0] == b[0] and math.isclose(a[1], b[1], rel_tol=1e-5, abs_tol=1e-9) for a, b in zip(g, w))))' "$got" "$want" ||
        fail "CPU counters: $got, want $want"
    # GPU utilisation samples (PERFSCOPE_GPU_SAMPLES, written by record where NVML is: none on a machine without a
    # GPU, so three are added): one counter sample each, on the device's track, at its time
    python3 - "$tmp/run.sqlite" <<'PY' || fail "adding GPU samples"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t0 = c.execute("select min(start) from NVTX_EVENTS").fetchone()[0]
c.executemany("insert into PERFSCOPE_GPU_SAMPLES(timestamp, deviceIndex, utilGpuPercent) values (?, 0, ?)",
              [(t0 + 1000, 10), (t0 + 2000, 55), (t0 + 3500, 100)])
c.commit()
PY
    "$ps" export "$tmp/run.sqlite" -o "$tmp/c.json" 2>/dev/null || fail "export with GPU samples"
    [ "$(py "[(e['pid'], round(e['ts'] * 1000 - min(x['ts'] * 1000 for x in ev if 'ts' in x and x['cat'] != 'host_sample')), e['args']['util %']) for e in ev if e['ph'] == 'C' and e['cat'] == 'gpu_utilization']" "$tmp/c.json")" = \
      "[(0, 1000, 10), (0, 2000, 55), (0, 3500, 100)]" ] || fail "GPU utilisation counters"
    ;;
range_names_survive_exactly)
    # names with quotes, backslashes, control characters, non-ASCII text and a "\u0000"; ranges on two threads
    python3 - "$tmp/in.json" <<'PY'
import json, sys
names = ['ProfilerStep#1', 'say "hi"\\there', 'tab\there\nline\x01', 'données→GPU ✓ 日本', 'nul\u0000inside', 'nul\\x00inside']
ev = [{"ph": "X", "cat": "user_annotation", "name": n, "pid": 7, "tid": 8 + i % 2, "ts": 10 * i, "dur": 5}
      for i, n in enumerate(names)]
ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 8, "ts": 1, "dur": 2, "args": {"External id": 42}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
    "$ps" export "$tmp/in.json" -o "$tmp/x.json" 2>/dev/null || fail "export exited $?"
    # every byte of a name is kept, the NUL too: written back as \u0000, never as the text \x00 (a name of its own)
    [ "$(py "sorted(e['name'] for e in ev if e['cat'] == 'user_annotation')" "$tmp/x.json")" = \
      "$(python3 -c "print(sorted(['ProfilerStep#1', 'say \"hi\"\\\\there', 'tab\there\nline\x01', 'données→GPU ✓ 日本', 'nul\\x00inside', 'nul\\\\x00inside']))")" ] ||
        fail "names: $(py "sorted(e['name'] for e in ev if e['cat'] == 'user_annotation')" "$tmp/x.json")"
    [ "$(py "[(e['name'], e['args']['External id'], e['ts'], e['dur']) for e in ev if e['cat'] == 'cpu_op']" "$tmp/x.json")" = \
      "[('aten::mm', 42, 1.0, 2.0)]" ] || fail "cpu_op"
    [ "$(py "sorted({(e['pid'], e['tid']) for e in ev if e['ph'] == 'X'})" "$tmp/x.json")" = "[(7, 8), (7, 9)]" ] || fail "threads"
    ;;
gz_output_decompresses_to_the_same_json)
    need_shared "$k/resnet50_workers0.pt.trace.json.gz"
    "$ps" export "$k/resnet50_workers0.pt.trace.json.gz" -o "$tmp/x.json" 2>/dev/null || fail "plain export"
    "$ps" export "$k/resnet50_workers0.pt.trace.json.gz" -o "$tmp/x.json.gz" 2>/dev/null || fail "gz export"
    [ "$(head -c 2 "$tmp/x.json.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"
    gzip -dc "$tmp/x.json.gz" | cmp -s - "$tmp/x.json" || fail "the .gz does not decompress to the plain export"
    "$ps" report "$tmp/x.json.gz" >/dev/null || fail "report of the .gz"
    ;;
bad_input_and_usage_are_refused)
    printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1' >"$tmp/trunc.json"
    # expect STATUS PATTERN ARGS...: exit status and a message on stderr; no output file, no temporary left
    expect() {
        want=$1 pat=$2; shift 2
        "$ps" export "$@" >"$tmp/out" 2>"$tmp/err"; st=$?
        [ "$st" = "$want" ] || fail "export $*: exit $st, want $want ($(cat "$tmp/err"))"
        grep -q "$pat" "$tmp/err" || fail "export $*: message '$(cat "$tmp/err")' lacks '$pat'"
        ! ls "$tmp"/o.json* "$tmp"/*.tmp-* 2>/dev/null | grep -q . || fail "export $*: left a file"
    }
    expect 1 "$tmp/missing.json" "$tmp/missing.json" -o "$tmp/o.json"
    expect 1 "truncated" "$tmp/trunc.json" -o "$tmp/o.json"
    expect 2 "give the output file" "$tmp/trunc.json"
    expect 2 "unknown --format 'chrome'" "$tmp/trunc.json" --format chrome -o "$tmp/o.json"
    expect 2 "give one trace" -o "$tmp/o.json"
    expect 2 "refusing to overwrite" "$tmp/trunc.json" -o "$tmp/trunc.json" -f
    cp "$tmp/trunc.json" "$tmp/before" && cmp -s "$tmp/trunc.json" "$tmp/before" || fail "input changed"
    echo keep >"$tmp/exists.json"
    "$ps" export "$tmp/trunc.json" -o "$tmp/exists.json" 2>"$tmp/err"; [ $? = 2 ] &&
        grep -qx "perfscope export: $tmp/exists.json exists (use -f to overwrite)" "$tmp/err" ||
        fail "an existing output is replaced without -f: $(cat "$tmp/err")"
    [ "$(cat "$tmp/exists.json")" = keep ] || fail "existing output changed"
    python3 -c 'import json; json.dump({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "s", "pid": 1, "tid": 1, "ts": 0, "dur": 3}]}, open("'"$tmp"'/ok.json", "w"))'
    "$ps" export "$tmp/ok.json" -o "$tmp/exists.json" -f 2>/dev/null || fail "-f"
    [ "$(py "[e['name'] for e in ev if e['ph'] == 'X']" "$tmp/exists.json")" = "['s']" ] || fail "-f output"
    # Not a regular file: the export would replace it (a rename), so it is refused even with -f.
    mkfifo "$tmp/fifo" && "$ps" export "$tmp/ok.json" -o "$tmp/fifo" -f 2>"$tmp/err"; [ $? = 2 ] &&
        grep -q "fifo is a FIFO; refusing to replace it" "$tmp/err" && [ -p "$tmp/fifo" ] || fail "FIFO: $(cat "$tmp/err")"
    "$ps" export "$tmp/ok.json" -o "$tmp/no/such/dir.json" 2>"$tmp/err"; [ $? = 1 ] && grep -q "cannot write" "$tmp/err" ||
        fail "unwritable output: $(cat "$tmp/err")"
    ;;
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
