#!/bin/sh
# Where the step goes (docs/report.md) through the real binary, on generated traces whose causes are known by
# construction (gen_causes_trace.py, gen_nsys_waits.py), and on the shared traces. Usage: causes.sh PERFSCOPE CASE
# [SHARED]
ps=$1 case=$2 shared=${3:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")
. "$here/../need_shared.sh"
# The waits of gen_causes_trace.py --stream-wait and gen_nsys_waits.py, by hand per step (µs from its start b; every
# step alike). GPU: producer_gemm [120, 4120) on stream 7, decoy_kernel [4130, 4140) on stream 11, consumer_kernel
# [4150, 6150) and late_kernel [6400, 6900) on stream 9: kernels 4000 + 10 + 2000 + 500 = 6510. consumer_kernel's
# launch returned at 410: it waits [410, 4150), seen where no kernel runs: [4120, 4130) + [4140, 4150) = 20, named by
# what it waits for: producer_gemm (the event recorded after it, b+200), released at 4120 and started 30 µs later,
# within a release's 50 µs, so all 20; the fallback without the record names decoy_kernel instead (the other
# streams' op that ended last, 10 µs before it started). late_kernel waits [6210, 6400) = 190, on the event recorded
# at b+50 (before producer_gemm: what it marks ended in the step before, before late_kernel's launch): named by
# nothing. Stream wait 210. Launch: record [50, 55) 5, producer_gemm's call and latency [100, 120) 20, the wait call
# [6160, 6163) 3, late_kernel's call [6200, 6210) 10: 38 (the others run under a kernel). Unexplained: the rest,
# [0, 50) + [55, 100) + [6150, 6160) + [6163, 6200) + [6900, 10000) = 3242.
waits_check() {   # waits_check JSON-FILE OP STREAM: the causes above, the waits named by OP on STREAM
    check "$1" '
want = {"kernel": 6510, "stream_wait": 210, "launch": 38, "unexplained": 3242, "data": 0, "host": 0, "sync": 0,
        "waiting": 0, "pretrace": 0, "copy": 0, "communication": 0}
got = {k: v["ns"] / 1000 for k, v in by.items()}
assert got == want, got
w = by["stream_wait"]
assert w["waits_on"] == [{"stream": '"$3"', "device": 0, "op": "'"$2"'", "ns": 20000}], w
assert [(n["name"], n["ns"]) for n in w["top"]] == [("late_kernel", 190000), ("consumer_kernel", 20000)], w
'
}
check() {   # check JSON-FILE PYTHON-ASSERTIONS
    python3 - "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["causes"]
by = c["by_cause"]
exec(sys.argv[2])
PY
}
case $case in
host_python_is_named_and_sync_is_only_what_its_wait_exposed)
    # Per step by hand (µs): GPU kernels 80000; launch 10 (the call) + 10 (the kernel's latency after it) = 20;
    # sync: the call's idle tail [280020, 280030) = 10, then what its 80000 µs wait exposed after it returned,
    # [280030, 360030) = 80000, so 80010 (not the whole 119970 µs gap to the next launch: log() would have run
    # while the kernel did); host compute: decode 150000 + preprocess's own 10000 + 40000 + log's
    # [360030, 399000) 38970 = 238970; unexplained: [399000, 400000) = 1000. Sum 400000.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
want = {"kernel": 80000, "launch": 20, "sync": 80010, "host": 238970, "unexplained": 1000, "data": 0,
        "waiting": 0, "pretrace": 0, "stream_wait": 0, "copy": 0, "communication": 0}
got = {k: v["ns"] / 1000 for k, v in by.items()}
assert got == want, got
assert c["step_ns"] == 400000000 and c["startup_steps"] == 0, c
host = [(n["name"], n["ns"]) for n in by["host"]["top"]]
assert host == [("PIL/Image.py(5): decode", 150000000), ("train.py(10): preprocess", 50000000),
                ("train.py(20): log", 38970000)], host
assert by["host"]["chain"] == ["train.py(10): preprocess", "PIL/Image.py(5): decode"], by["host"]["chain"]
assert by["sync"]["top"][0]["name"] == "cudaStreamSynchronize", by["sync"]
' || exit 1
    "$ps" report "$tmp/t.json" >"$tmp/r.txt" || exit 1
    grep -q "^  host compute  *238.970 ms   59.7 %  PIL/Image.py(5): decode 150.000 ms" "$tmp/r.txt" ||
        { echo "text: no host compute line"; sed -n '/^Where/,/^$/p' "$tmp/r.txt"; exit 1; } ;;
replay_gains_are_worked_out_by_hand)
    # The trace of the first case, 5 steps of 400000 µs, replayed (docs/report.md "Expected gains"; by hand, µs).
    # As recorded the steps end with the last step's log() at 399000: 4 x 400000 + 399000 = 1999000.
    # - Without the syncs' waits: the call returns 10 µs after it began (its own lag after the kernel ended), so each
    #   step's host work is 400000 - 80000 + 10 - 20 ... = 320010 (preprocess 200000, launch 10, [200010, 200030) 20,
    #   sync 10, [280030, 280040) 10, log 118960, [399000, 400000) 1000), the kernel (launched at 200000, 20 µs
    #   latency, 80000) ends at 280020 < 320010: 5 steps take 4 x 320010 + 319010 = 1599050: gain (1999000 -
    #   1599050) / 5 = 79990 (the cause sync takes 80010: the 20 µs the kernel ran past the call are kernel time).
    # - Without the kernels: the sync returns 10 µs after the (empty) kernel, 200030 + 10: the same 79990.
    # - Without the launch call: the sync still waits for the kernel: 0.
    # - Without host compute (preprocess, decode, log): per step launch 10, 20, sync until the kernel ends
    #   (launched at 0: [20, 80020)) + 10 = 80030, 10, 1000 = 81040; the last ends at 80040: 4 x 81040 + 80040 =
    #   404200: gain (1999000 - 404200) / 5 = 318960. The function a fix moves: decode's chain outward,
    #   preprocess (not the model's, inside for 200000 of each 400000): without it and decode in it, every step
    #   200000 shorter: 200000.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
g = {k: (v["gain_ns"], v["top_gain_ns"]) for k, v in by.items()}
assert g["sync"][0] == 79990000 and g["kernel"][0] == 79990000 and g["launch"][0] == 0, g
assert g["host"] == (318960000, 200000000), g
assert by["host"]["function"] == "train.py(10): preprocess", by["host"]
assert g["pretrace"][0] is None and g["unexplained"][0] is None, g
assert c["replay_step_ns"] == 399800000, c   # 1999000 / 5: the replay as recorded
' || exit 1
    "$ps" report "$tmp/t.json" > "$tmp/r.txt" || exit 1
    grep -q "Expected gain: about" "$tmp/r.txt" || { cat "$tmp/r.txt"; exit 1; } ;;
pageable_copy_is_sync_and_its_fix_is_pinned_memory)
    # gen_causes_trace.py --pageable-copy, per step by hand (µs): kernel [20, 6020) 6000; copy [6030, 6040) 10;
    # launch: the call [0, 10) and its kernel's latency [10, 20): 20. The cudaMemcpyAsync into pageable memory
    # blocks (it returns when its copy is done): sync, where no GPU op runs: [6020, 6030) + [6040, 6110) = 80, then
    # the idle time its 6000 µs wait exposed, up to the next kernel's start (3910 < 6000): [6110, 10000) = 3890 in
    # its step and [0, 20) of the next, which so takes the next steps' launch time. Step 0: sync 3970, launch 20;
    # steps 1-3: sync 20 + 3970 = 3990, launch 0. Averages: sync 3985, launch 5; nothing else.
    # Verdict: kernel 60.0 % < 80 %, the largest other group: sync 39.85 %; its fix names aten::item's copy and
    # pinned memory. Replay without the wait (the call returns 70 µs after its copy began waiting: its lag past the
    # copy's end): a step's host takes 10 + 90 + 10 + 70 + 90 + 3800 = 4070; the kernels then queue: step k's kernel
    # starts at 6040 + 6020 (k - 1) for k >= 1 (behind the copy before it, 10 µs after that step's kernel), the last
    # copy ends at 24100; as recorded the steps end at 3 x 10000 + 6200 (the last aten::item's end) = 36200: gain
    # (36200 - 24100) / 4 = 3025.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --pageable-copy || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
want = {"kernel": 6000, "copy": 10, "launch": 5, "sync": 3985, "data": 0, "host": 0, "unexplained": 0,
        "waiting": 0, "pretrace": 0, "stream_wait": 0, "communication": 0}
got = {k: v["ns"] / 1000 for k, v in by.items()}
assert got == want, got
assert by["sync"]["top"][0]["name"] == "aten::item" and by["sync"]["call"] == "cudaMemcpyAsync", by["sync"]
assert by["sync"]["gain_ns"] == 3025000, by["sync"]
v = json.load(open(sys.argv[1]))["verdict"]
assert v["bottleneck"] == "sync", v
assert "pageable" in v["recommendations"][0] and "non_blocking=True" in v["recommendations"][0], v
' || exit 1 ;;
startup_step_is_left_out_of_the_average)
    # The first step opens with 1200 ms of worker start-up: 1600 ms against a median of 400 ms after it, more
    # than twice: start-up, on its own line; the steady steps' causes are the ones above.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --startup-ms 1200 || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
assert c["startup_steps"] == 1 and c["startup_ns"] == 1600000000, c
assert c["startup_excess_ns"] == 1200000000 and c["step_ns"] == 400000000, c
assert by["host"]["ns"] == 238970000 and by["sync"]["ns"] == 80010000, by
steps = json.load(open(sys.argv[1]))["steps"]
assert [s["startup"] for s in steps][:2] == [True, False], steps
' || exit 1
    "$ps" report "$tmp/t.json" | tr -s ' \n' '  ' | grep -q "start-up left out: 1 leading step, 1600.000 ms" ||
        { echo "text: start-up not said"; exit 1; } ;;
gpu_waits_are_work_before_the_trace_only_on_a_first_op)
    # By hand, per step (µs; gen_causes_trace.py --waits). Step 0: kernel_a, its device's first op, waited from the
    # start of the rows (0) to 3000: work before the trace 3000 (its launch call inside it too); kernel_a 1000;
    # data 2000; kernel_b's launch 10; kernel_b, stream 8's first op, waited [6010, 7000): work before the trace
    # 990; kernel_b 2000; nothing 1000. Steps 1..3: augment 4000 (host compute), data 2000, launch 10, kernel_b
    # waits [6010, 7000) on a stream that ran already: waiting on a stream 990, kernel_b 2000, unexplained 1000.
    # The average of the 4 steps: kernel (1000 + 4 x 2000) / 4 = 2250, data 2000, host 3000, launch 10,
    # pretrace (3000 + 990) / 4 = 997.5, stream_wait 3 x 990 / 4 = 742.5, unexplained 1000.
    # The verdict weighs 10000 - 997.5 = 9002.5: kernel 25 % < 80 %; host = 10 + 3000 + 1000 = 4010 is the largest.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --waits || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
want = {"kernel": 2250, "data": 2000, "host": 3000, "launch": 10, "pretrace": 997.5, "stream_wait": 742.5,
        "unexplained": 1000, "sync": 0, "waiting": 0, "copy": 0, "communication": 0}
got = {k: v["ns"] / 1000 for k, v in by.items()}
assert got == want, got
assert [(n["name"], n["ns"]) for n in by["pretrace"]["top"]] == [("kernel_a", 750000), ("kernel_b", 247500)], by["pretrace"]
assert by["stream_wait"]["top"][0]["name"] == "kernel_b", by["stream_wait"]
assert by["data"]["top"][0]["name"] == "enumerate(DataLoader)#_Iter.__next__", by["data"]
assert by["host"]["top"][0]["name"] == "train.py(30): augment", by["host"]
v = json.load(open(sys.argv[1]))["verdict"]
assert v["bottleneck"] == "host" and abs(v["share"] - 4010 / 9002.5) < 1e-6, v
' || exit 1 ;;
hostile_python_frames_are_read_never_trusted)
    # python_function events on pid/tid 0, overlapping instead of nesting, ten times more than ops, names empty
    python3 - "$tmp/t.json" <<'PY' || exit 1
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 0, "ts": 0, "dur": 1000}]
for i in range(2000):
    ev.append({"ph": "X", "cat": "python_function", "name": "" if i % 7 == 0 else "f%d" % i, "pid": 0, "tid": 0,
               "ts": (i * 37) % 1000, "dur": (i * 53) % 900, "args": {"Python id": i, "Python parent id": i}})
ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 9, "ts": 10, "dur": 0,
           "args": {"device": 0, "stream": 9, "wait_on_stream": 12345, "wait_on_cuda_event_record_corr_id": 99}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json"; rc=$?
    [ $rc -eq 0 ] || { echo "exit $rc"; exit 1; }
    check "$tmp/r.json" '
assert sum(v["ns"] for v in by.values()) == c["step_ns"], by
' || exit 1 ;;
recorded_preprocess_is_named_from_python_stack_samples)
    # A CPU PyTorch loop whose main thread spends about 70 % of each step in preprocess() (PIL decode and blur:
    # tests/python/progs/preprocess_steps.py) and the rest in the model: no python_function events, so host
    # compute is named from perfscope's Python stack samples: the functions preprocess() runs (PIL's decode, blur,
    # resize) among its names, each named with its call chain. (Which name is first depends on the machine's load:
    # preprocess's time is spread over several functions, the model's over fewer.)
    /usr/bin/python3 -c "import torch, PIL" 2>/dev/null || { echo "SKIP: Debian's python3-torch / python3-pil"; exit 77; }
    (cd "$tmp" && "$ps" record -o r.sqlite -- /usr/bin/python3 "$here/../python/progs/preprocess_steps.py" \
        timers 12 >/dev/null 2>&1) || { echo "record failed"; exit 1; }
    "$ps" report "$tmp/r.sqlite" --format json -o "$tmp/r.json" || exit 1
    check "$tmp/r.json" '
assert c["host_only"] and by["host"]["share"] > 0.9, by["host"]
pil = {"GaussianBlur.filter", "Image.filter", "ImageFile.load", "Image.resize", "Image.open", "Image.convert",
       "checksum", "preprocess"}
assert pil & {n["name"] for n in by["host"]["top"]}, by["host"]
assert len(by["host"]["chain"]) >= 2 and by["host"]["chain"][-1] == by["host"]["top"][0]["name"], by["host"]
assert c["python_samples"] >= 12, c   # 20 Hz over 12 steps of ~0.1 s: about 24
t = dict((k, int(v)) for k, v in (l.split() for l in open(sys.argv[1].replace("r.json", "timers"))))
assert t["preprocess_ns"] > 0.5 * t["step_ns"], t   # the script spent most of its steps there, by its own clock
' || exit 1 ;;
stream_wait_is_named_by_the_op_it_waits_for)
    # Kineto: the cuda_sync "Stream Wait Event" names stream 7 and the cudaEventRecord's correlation (see above).
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --stream-wait || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    waits_check "$tmp/r.json" producer_gemm 7 || exit 1
    for f in text md html; do   # Markdown escapes the underscore
        "$ps" report "$tmp/t.json" --format $f -o "$tmp/r.$f" || exit 1
        name=producer_gemm; [ $f = md ] && name='producer\_gemm'
        tr -s ' \n' '  ' <"$tmp/r.$f" | grep -qF "waits for stream 7: $name 0.020 ms" ||
            { echo "$f: the wait is not named"; exit 1; }
    done ;;
stream_wait_without_sync_events_is_named_by_the_op_that_released_it)
    # No cuda_sync events (Kineto leaves some out), only the cudaStreamWaitEvent calls: the other streams' op that
    # ended last within a release's 50 µs of consumer_kernel's start is decoy_kernel (see above).
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --stream-wait --no-sync-events || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    waits_check "$tmp/r.json" decoy_kernel 11 || exit 1 ;;
hostile_cuda_sync_args_name_nothing_bogus)
    # Eleven more "Stream Wait Event"s before each of consumer_kernel's and late_kernel's launches: args of the
    # wrong JSON type, negative, past int64 or uint32, naming a stream or a record the trace lacks, the waiting
    # stream itself. The report reads them and the waits named stay the ones above: a wait on a stream the trace
    # names beats a guess, and nothing names late_kernel's wait.
    python3 "$here/gen_causes_trace.py" "$tmp/t.json" --stream-wait --hostile || exit 1
    "$ps" report "$tmp/t.json" --format json -o "$tmp/r.json" || exit 1
    waits_check "$tmp/r.json" producer_gemm 7 || exit 1 ;;
nsys_stream_wait_is_named_from_synchronization_and_cuda_event)
    # The same timeline as an Nsight Systems export: SYNCHRONIZATION (syncType 2) joined to CUDA_EVENT by event and
    # sync id, then by the event's latest record before the wait (no eventSyncId column), then without CUDA_EVENT
    # (the recording stream unknown: the fallback names decoy_kernel).
    for v in "producer_gemm 7" "producer_gemm 7 --no-sync-id" "decoy_kernel 11 --no-cuda-event"; do
        set -- $v
        rm -f "$tmp/n.sqlite"
        python3 "$here/gen_nsys_waits.py" "$tmp/n.sqlite" $3 || exit 1
        "$ps" report "$tmp/n.sqlite" --format json -f -o "$tmp/r.json" || exit 1
        waits_check "$tmp/r.json" $1 $2 || { echo "variant: $v"; exit 1; }
    done ;;
amd_gpu_kernel_fix_names_matrix_cores_not_tensor_cores)
    # The MI300X decode trace launches through HIP (hipLaunchKernel, read here from the file) and is kernel-bound:
    # its fix names the Matrix Cores, never Tensor Cores; the H100 DDP trace (CUDA calls) keeps Tensor Cores.
    amd="$shared/traces/kineto/mi300_sglang_decode_graph_replay.pt.trace.json.gz"
    nv="$shared/traces/kineto/ddp_resnet_ns_resolution.pt.trace.json.gz"
    need_shared "$amd"
    need_shared "$nv"
    python3 - "$amd" <<'PY' || exit 1
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
assert any(e.get("cat") == "cuda_runtime" and e.get("name", "").startswith("hip") for e in ev), "no HIP call"
PY
    "$ps" report "$amd" --format json -o "$tmp/a.json" || exit 1
    "$ps" report "$nv" --format json -o "$tmp/n.json" || exit 1
    python3 - "$tmp/a.json" "$tmp/n.json" <<'PY' || exit 1
import json, sys
a, n = (json.load(open(f))["verdict"] for f in sys.argv[1:3])
assert a["bottleneck"] == "kernel" and "Matrix Cores" in a["recommendations"][0], a["recommendations"][0]
assert "Tensor Cores" not in a["recommendations"][0], a["recommendations"][0]
assert n["bottleneck"] == "kernel" and "Tensor Cores" in n["recommendations"][0], n["recommendations"][0]
PY
    ;;
shared_traces_name_the_waits_an_independent_reading_finds)
    # HTA's event-sync traces and the shared nsys export, read here directly: every stream wait, the op that waits
    # on it (the first op of its stream launched after it) and what it waits for (the last op launched on the
    # recording stream before the record call). A wait counts only when its op waited longer than a launch's 50 µs
    # behind an op of its stream that ran already, and what it waits for was still running when the launch
    # returned. None does in these traces (stream 24's first op, launched 4 µs before it started, is the only
    # op waiting on stream 20's GEMM, which ended 19 ms earlier; the nsys waits are on streams with no op in the
    # window), so the report must name none.
    for t in kineto/hta_event_sync_multi_stream.pt.trace.json.gz kineto/hta_event_sync.pt.trace.json.gz \
             nsys/h100_2gpu_1s.sqlite; do
        need_shared "$shared/traces/$t"
        "$ps" report "$shared/traces/$t" --format json -f -o "$tmp/r.json" || exit 1
        python3 - "$shared/traces/$t" "$tmp/r.json" <<'PY' || exit 1
import gzip, json, sqlite3, sys
path, report = sys.argv[1], json.load(open(sys.argv[2]))
ops, calls, waits = [], {}, []   # ops: (stream, start, end, name, corr); calls: corr -> (start, end)
if path.endswith(".gz"):
    for e in json.load(gzip.open(path))["traceEvents"]:
        a, cat = e.get("args", {}), e.get("cat")
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            ops.append((a["stream"], e["ts"], e["ts"] + e["dur"], e["name"], a["correlation"]))
        elif cat == "cuda_runtime":
            calls[a["correlation"]] = (e["ts"], e["ts"] + e["dur"])
        elif cat == "cuda_sync" and a.get("cuda_sync_kind") == "Stream Wait Event":
            waits.append((a["stream"], e["ts"], a.get("wait_on_stream", -1), a.get("wait_on_cuda_event_record_corr_id", -1)))
    us = 1
else:
    db = sqlite3.connect(path)
    for t in ("KERNEL", "MEMCPY", "MEMSET"):
        ops += db.execute("SELECT streamId, start, end, '', correlationId FROM CUPTI_ACTIVITY_KIND_" + t).fetchall()
    calls = {c: (s, e) for s, e, c in db.execute("SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    waits = [(s, t, -1, -1) for s, t in db.execute(
        "SELECT streamId, start FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType = 2")]
    us = 1000
expected, resolved = [], []
for stream, ts, on, rec in waits:
    mine = sorted((calls[o[4]][0], o) for o in ops if o[0] == stream and o[4] in calls)
    later = [o for l, o in mine if l >= ts]
    if not later:
        continue
    op = later[0]
    first = min(o[1] for o in ops if o[0] == stream) == op[1]
    queued = op[1] - calls[op[4]][1] > 50 * us
    waited = None
    if rec in calls:
        on_ops = sorted((calls[o[4]][0], o) for o in ops if o[0] == on and o[4] in calls and calls[o[4]][0] < calls[rec][0])
        waited = on_ops[-1][1] if on_ops else None
    resolved.append((stream, op[3], on, waited and waited[3], waited and waited[2] - calls[op[4]][1]))
    if waited and queued and not first and waited[2] > calls[op[4]][1]:
        expected.append({"stream": on, "op": waited[3]})
if "multi_stream" in path:   # the trace's README: stream 24 waits on stream 20's GEMM (record 1385)
    assert resolved == [(24, "Memset (Device)", 20, "ampere_sgemm_128x64_nn", 348823 - 368030)], resolved
w = report["causes"]["by_cause"]["stream_wait"]
assert [{"stream": x["stream"], "op": x["op"]} for x in w["waits_on"]] == expected, (w, expected)
PY
    done ;;
*) echo "unknown case $case"; exit 2 ;;
esac
