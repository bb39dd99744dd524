#!/bin/sh
# `perfscope report FILE FILE...` (several rank files) through the real binary.
# usage: ranks_cli.sh PERFSCOPE CASE SHARED [TRAIN DATA_DIR]
set -u
ps=$1 case=$2 shared=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ps-ranks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $case: $*"; exit 1; }
. "$(dirname "$0")/../need_shared.sh"

# Kineto rank files written here with known numbers (µs). Rank 0, one step [0, 1000):
#   device 0: gemm [100, 500) (compute), AllReduce [300, 700) and AllReduce [800, 900) (communication)
#   device 1: gemm [750, 950)
#   AllReduce: count 2, total 400 + 100 = 500 µs; exposed = not under device 0's compute: [500, 700) + [800, 900)
#   = 300 µs (device 1's gemm does not hide device 0's collective).
#   HTA overlap (all devices): comm union 500 µs, under compute [300, 500) + [800, 900) = 300 µs -> 0.6.
# Rank 1: device 0: gemm [100, 500), Broadcast [0, 50), AllReduce [600, 800): AllReduce 1, 200, exposed 200;
#   Broadcast 1, 50, exposed 50; overlap 0 / 250 = 0.
gen() {   # gen FILE RANK|none EVENTS... (GEN_WORLD: the world size with a rank, default 2; "none": not given)
    out=$1 rank=$2; shift 2
    python3 - "$out" "$rank" "$@" <<'PY'
import json, os, sys
out, rank, evs = sys.argv[1], sys.argv[2], sys.argv[3:]
t = {"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 0,
     "dur": int(os.environ.get("GEN_STEP_US", "1000"))}]}
if rank != "none":
    t["distributedInfo"] = {"backend": "nccl", "rank": int(rank)}
    if os.environ.get("GEN_WORLD", "2") != "none":
        t["distributedInfo"]["world_size"] = int(os.environ.get("GEN_WORLD", "2"))
for e in evs:
    name, dev, ts, dur = e.split(":")
    t["traceEvents"].append({"ph": "X", "cat": "kernel", "name": name, "pid": int(dev), "tid": 7,
                             "ts": int(ts), "dur": int(dur), "args": {"device": int(dev), "stream": 7}})
json.dump(t, open(out, "w"))
PY
}
AR=ncclKernel_AllReduce_RING_LL_Sum_float BC=ncclKernel_Broadcast_RING_LL_Sum_int8_t
gen_two() {
    gen "$tmp/r0.json" 0 gemm:0:100:400 $AR:0:300:400 $AR:0:800:100 gemm:1:750:200 || exit 1
    gen "$tmp/r1.json" 1 gemm:0:100:400 $BC:0:0:50 $AR:0:600:200 || exit 1
}
as_rank1() {   # as_rank1 TRACE OUT: the same trace with distributedInfo's rank rewritten to 1
    python3 - "$1" "$2" <<'PY' || exit 1
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
t["distributedInfo"]["rank"] = 1
json.dump(t, gzip.open(sys.argv[2], "wt"))
PY
}

case $case in
generated_kineto_collectives)
    gen_two
    "$ps" report --format json -o "$tmp/r.json" "$tmp/r1.json" "$tmp/r0.json" || fail "report exited $?"
    python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
ranks = r["ranks"]
assert [k["rank"] for k in ranks] == [0, 1], ranks
assert all(k["rank_from"] == "metadata" and k["world_size"] == 2 and k["steps"] == 1 for k in ranks), ranks
assert abs(ranks[0]["comm_comp_overlap"] - 0.6) < 1e-9, ranks[0]
assert ranks[1]["comm_comp_overlap"] == 0, ranks[1]
assert abs(r["comm_comp_overlap"] - 0.3) < 1e-9, r["comm_comp_overlap"]
assert [k["gpu_ops"] for k in ranks] == [4, 3], ranks   # rank 0: 2 gemm + 2 AllReduce; rank 1: gemm, Broadcast, AllReduce
got = {(c["rank"], c["kernel"]): (c["count"], c["total_ns"], c["exposed_ns"], c["bytes"]) for c in r["collectives"]}
want = {(0, "ncclKernel_AllReduce_RING_LL_Sum_float"): (2, 500000, 300000, None),
        (1, "ncclKernel_AllReduce_RING_LL_Sum_float"): (1, 200000, 200000, None),
        (1, "ncclKernel_Broadcast_RING_LL_Sum_int8_t"): (1, 50000, 50000, None)}
assert got == want, got
PY
    "$ps" report "$tmp/r0.json" "$tmp/r1.json" >"$tmp/out" || fail "text report exited $?"
    # the name follows the numbers, on the next line when the row would pass 100 columns
    sed -n '/^0  *2  *0\.500  *0\.300  *60\.0%  *-  *-/{N;p;}' "$tmp/out" | grep -q 'ncclKernel_AllReduce' ||
        { cat "$tmp/out"; fail "text collective row"; }
    ;;
rank_from_file_name)
    gen "$tmp/trace.7.json" none gemm:0:100:400 || exit 1
    gen "$tmp/trace_12.json" none gemm:0:100:500 || exit 1
    GEN_WORLD=13 gen "$tmp/r1.json" 1 gemm:0:100:400 || exit 1   # ranks 7 and 12: a world of 13 at least
    "$ps" report --format json -o "$tmp/r.json" "$tmp/trace.7.json" "$tmp/trace_12.json" "$tmp/r1.json" || fail "exit $?"
    python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
got = [(k["rank"], k["rank_from"], k["source"].rsplit("/", 1)[1]) for k in r["ranks"]]
assert got == [(1, "metadata", "r1.json"), (7, "file_name", "trace.7.json"), (12, "file_name", "trace_12.json")], got
PY
    ;;
unreadable_file_among_several)
    gen_two
    printf '{"traceEvents": [{"ph": "X", "name": ' >"$tmp/cut.json"
    "$ps" report "$tmp/r0.json" "$tmp/cut.json" "$tmp/r1.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -q "cut.json: .*truncated" "$tmp/err" || { cat "$tmp/err"; fail "message does not name cut.json"; }
    [ -s "$tmp/out" ] && fail "a report was printed despite the unreadable file"
    "$ps" report "$tmp/r0.json" "$tmp/missing.json" "$tmp/cut.json" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc with two bad files"
    grep -q "missing.json: .*(and 1 more could not be read)" "$tmp/err" || { cat "$tmp/err"; fail "two bad files"; }
    ;;
several_files_markdown_tables)
    gen_two
    "$ps" report --format md "$tmp/r0.json" "$tmp/r1.json" >"$tmp/out" || fail "md report exited $?"
    # the collective numbers of generated_kineto_collectives; names escaped for Markdown (_ -> \_)
    grep -Fqx '| 0 | 2 | 0.500 | 0.300 | 60.0 | - | - | ncclKernel\_AllReduce\_RING\_LL\_Sum\_float |' "$tmp/out" ||
        { cat "$tmp/out"; fail "md collective row"; }
    # rank 1: step 1000 µs; comm = Broadcast [0, 50) + AllReduce [600, 800) = 250 µs; gemm 400 µs; the rest 350 µs
    grep -Eq '^\| 1 \| metadata \| 1 \| 1\.000 \| 0\.400 \|.* 0\.250 \|.* host \| 35\.0 % \| 0\.00 % \|' "$tmp/out" ||
        { cat "$tmp/out"; fail "md rank row"; }
    ;;
several_files_html_page)
    # The page and the text against the JSON of the same files (check_multirank_report.py); the JSON's numbers
    # are the hand-computed ones of generated_kineto_collectives.
    gen_two
    python3 "$(dirname "$0")/../analyzer/check_multirank_report.py" "$ps" "$tmp/out" "$tmp/r0.json" "$tmp/r1.json" ||
        fail "check_multirank_report.py"
    grep -q '<td>0</td><td class="n">2</td><td class="n">0.500</td><td class="n">0.300</td><td class="n">60.0</td>' \
        "$tmp/out/multirank.html" || fail "html collective row of rank 0 (2, 0.500, 0.300 ms, 60.0 %)"
    ;;
nccl_2rank_html_page)
    trace=$shared/traces/kineto/nccl_2rank.pt.trace.json.gz
    need_shared "$trace"
    as_rank1 "$trace" "$tmp/rank1.json.gz"
    python3 "$(dirname "$0")/../analyzer/check_multirank_report.py" "$ps" "$tmp/out" "$trace" "$tmp/rank1.json.gz" ||
        fail "check_multirank_report.py"
    # the README's HTA overlap, 14.76 % exactly in ns, for both ranks
    [ "$(grep -c '<td class="n">14.76</td>' "$tmp/out/multirank.html")" -ge 2 ] || fail "html overlap 14.76 %"
    ;;
several_files_text_fits_100_columns)
    # Long paths and rank numbers: the rank column widens, paths go on a line of their own, in full. The third
    # file's step is 1500 µs against 1000 (median 1000): a straggler, 50.0 % slower.
    long=$tmp/a_directory_name_long_enough_to_push_every_path_past_one_terminal_line
    mkdir -p "$long" || exit 1
    gen "$long/rank_file_of_a_very_long_experiment_name_with_many_words.123456789.json" none gemm:0:100:400 || exit 1
    gen "$long/rank_file_of_a_very_long_experiment_name_with_many_words.123456790.json" none gemm:0:100:400 || exit 1
    GEN_STEP_US=1500 gen "$long/rank_file_of_a_very_long_experiment_name_with_many_words.123456791.json" none \
        gemm:0:100:400 || exit 1
    python3 "$(dirname "$0")/../analyzer/check_multirank_report.py" "$ps" "$tmp/out" "$long"/*.json ||
        fail "check_multirank_report.py"
    grep -q '^Straggler: rank 123456791 is 50.0 % slower than the median rank, most of it in Other$' \
        "$tmp/out/multirank.text" || { cat "$tmp/out/multirank.text"; fail "straggler line"; }
    ;;
several_files_fail_on_each_rank)
    gen_two
    # rank 0: communication 200 µs of 1000 (AllReduce [500, 700), the part under no computation kernel) = 20 %;
    # rank 1: host 350 µs of 1000 = 35 %. --fail-on-share 0.3 trips on rank 1 only; 0.4 on neither.
    "$ps" report --fail-on-share 0.3 "$tmp/r0.json" "$tmp/r1.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 3 ] && grep -q "rank 1's verdict is host at 35.0 %" "$tmp/err" && ! grep -q "rank 0" "$tmp/err" ||
        fail "--fail-on-share 0.3: exit $rc: $(cat "$tmp/err")"
    "$ps" report --fail-on-share 0.4 "$tmp/r0.json" "$tmp/r1.json" >/dev/null 2>"$tmp/err" || fail "0.4: exit $?"
    "$ps" report --fail-on communication --format json "$tmp/r0.json" "$tmp/r1.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 3 ] && grep -q "rank 0's verdict is communication at 20.0 %" "$tmp/err" && [ -s "$tmp/out" ] ||
        fail "--fail-on communication: exit $rc: $(cat "$tmp/err")"
    "$ps" report --fail-on kernel "$tmp/r0.json" "$tmp/r1.json" >/dev/null || fail "--fail-on kernel: exit $?"
    ;;
host_compute_is_called_compute_without_gpu_rows)
    # Two CPU-only rank files whose one step (1000 µs) is all an operator: each file's verdict is the host's
    # compute, "compute" in text, md and HTML (with the Compute column), "kernel" in the JSON (its stable value).
    for r in 0 1; do
        python3 - "$tmp/c$r.json" $r <<'PY'
import json, sys
json.dump({"distributedInfo": {"rank": int(sys.argv[2]), "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 0, "dur": 1000}]},
    open(sys.argv[1], "w"))
PY
    done
    "$ps" report "$tmp/c0.json" "$tmp/c1.json" >"$tmp/out" || fail "text report exited $?"
    grep -Eq '^0 +metadata +1 +1\.000  compute +100\.0% ' "$tmp/out" || { cat "$tmp/out"; fail "text verdict"; }
    grep -Eq '^rank +Compute +Memcpy ' "$tmp/out" || fail "text category heading"
    ! grep -E '^(rank|[01]) ' "$tmp/out" | grep -qi kernel || fail "a rank row or heading says kernel"
    "$ps" report --format md "$tmp/c0.json" "$tmp/c1.json" >"$tmp/out" || fail "md report exited $?"
    grep -Eq '^\| rank \| from \| steps \| step \| Compute \|' "$tmp/out" || fail "md heading"
    grep -Eq '^\| 1 \| metadata \| 1 \| 1\.000 \| 1\.000 \|.* \| compute \| 100\.0 % \|' "$tmp/out" || fail "md verdict"
    "$ps" report --format html "$tmp/c0.json" "$tmp/c1.json" >"$tmp/out" || fail "html report exited $?"
    grep -q '<strong>compute</strong> on 2 of 2 rank files' "$tmp/out" || fail "html verdicts"
    "$ps" report --format json "$tmp/c0.json" "$tmp/c1.json" >"$tmp/out" || fail "json report exited $?"
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit([(r["bottleneck"], r["gpu_ops"]) for r in d["ranks"]] != [("kernel", 0)] * 2)' "$tmp/out" ||
        fail "JSON bottlenecks and GPU work"
    ;;
several_files_refuse_output_over_a_trace)
    gen_two
    "$ps" report -o "$tmp/r1.json" "$tmp/r0.json" "$tmp/r1.json" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "refusing to overwrite" "$tmp/err" || fail "exit $rc: $(cat "$tmp/err")"
    ;;
nccl_2rank_two_ranks)
    trace=$shared/traces/kineto/nccl_2rank.pt.trace.json.gz
    need_shared "$trace"
    as_rank1 "$trace" "$tmp/rank1.json.gz"
    "$ps" report --format json -o "$tmp/r.json" "$trace" "$tmp/rank1.json.gz" || fail "report exited $?"
    # Expected: the raw trace's NCCL kernels summed here by name (a different path than the analyzer's), and
    # the README's HTA overlap (14.76 % exactly in ns).
    python3 - "$tmp/r.json" "$trace" <<'PY' || exit 1
import gzip, json, sys
r = json.load(open(sys.argv[1]))
t = json.load(gzip.open(sys.argv[2]))
want, by_size = {}, {}
for e in t["traceEvents"]:
    if e.get("cat") == "kernel" and "nccl" in e["name"].lower():
        c, tot = want.get(e["name"], (0, 0))
        want[e["name"]] = (c + 1, tot + round(e["dur"] * 1000))
        # the message size: the larger of the kernel's In / Out msg nelems x its dtype's element size (Float 4, Long 8)
        a = e["args"]
        size = max(a["In msg nelems"], a["Out msg nelems"]) * {"Float": 4, "Long": 8}[a["dtype"]]
        c, tot = by_size.get((e["name"], size), (0, 0))
        by_size[(e["name"], size)] = (c + 1, tot + round(e["dur"] * 1000))
assert len(want) == 2 and want["ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"][0] == 15, want
assert len(by_size) == 7, by_size
assert [k["rank"] for k in r["ranks"]] == [0, 1], r["ranks"]
for k in r["ranks"]:
    assert abs(k["comm_comp_overlap"] - 0.1476) < 0.00005, k["comm_comp_overlap"]
    assert k["bottleneck"] == "host" and k["steps"] == 3, k
for rank in (0, 1):
    got = {}
    for c in r["collectives"]:
        if c["rank"] == rank:
            n, tot = got.get(c["kernel"], (0, 0))
            got[c["kernel"]] = (n + c["count"], tot + c["total_ns"])
    for name, (cnt, tot) in want.items():
        assert got[name][0] == cnt and abs(got[name][1] - tot) <= cnt, (name, got[name], cnt, tot)
    # per name and size: bytes per call, and algbw = bytes x count / total time (nccl-tests' size / time)
    rows = {(c["kernel"], c["bytes"]): c for c in r["collectives"] if c["rank"] == rank}
    assert set(rows) == set(by_size), (sorted(rows), sorted(by_size))
    for key, (cnt, tot) in by_size.items():
        c = rows[key]
        assert c["count"] == cnt and abs(c["total_ns"] - tot) <= cnt, (key, c, cnt, tot)
        assert abs(c["algbw_gbps"] - key[1] * cnt / tot) <= 1e-3 * c["algbw_gbps"], (key, c)
        factor = 2 * (2 - 1) / 2 if "AllReduce" in key[0] else 1.0   # nccl-tests' bus factors, 2 ranks
        assert abs(c["busbw_gbps"] - c["algbw_gbps"] * factor) <= 1e-9 * c["algbw_gbps"], (key, c)
    ex = [c for c in r["collectives"] if c["rank"] == rank]
    assert all(0 <= c["exposed_ns"] <= c["total_ns"] for c in ex), ex
assert r["stragglers"] == [], r["stragglers"]   # identical ranks
PY
    ;;
trainer_four_ranks_data_straggler)
    train=$4 data=$5
    # Ranks 0-2 run the balanced scenario, rank 3 the data-bound one (its loader is the slow part), as four
    # separate recordings with RANK set, the way a launcher runs `perfscope record -o run.%r.sqlite` per rank.
    for r in 0 1 2 3; do
        scen=balanced; [ $r -eq 3 ] && scen=data-bound
        (cd "$tmp" && RANK=$r WORLD_SIZE=4 "$ps" record -o 'run.%r.sqlite' -- "$train" --scenario $scen --steps 30 --hidden 4 \
            --data-dir "$data" >/dev/null 2>"$tmp/rec$r.err") || { cat "$tmp/rec$r.err"; fail "record rank $r"; }
    done
    for r in 0 1 2 3; do
        [ -f "$tmp/run.$r.sqlite" ] || fail "run.$r.sqlite missing: %r not expanded"
        [ "$(sqlite3 "$tmp/run.$r.sqlite" "SELECT value FROM PERFSCOPE_META WHERE name = 'recording_complete'")" = 1 ] ||
            fail "rank $r: recording not complete"
        [ "$(sqlite3 "$tmp/run.$r.sqlite" "SELECT value FROM PERFSCOPE_META WHERE name = 'dropped_records'")" = 0 ] ||
            fail "rank $r: records dropped"
    done
    "$ps" report --format json -o "$tmp/r.json" "$tmp"/run.*.sqlite || fail "report exited $?"
    python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
ranks = r["ranks"]
assert [(k["rank"], k["rank_from"], k["world_size"]) for k in ranks] == [(i, "metadata", 4) for i in range(4)], ranks
assert all(k["recording_complete"] is True and k["steps"] == 30 for k in ranks), ranks
assert ranks[3]["bottleneck"] == "data-loading", ranks[3]
slowest = max(ranks, key=lambda k: k["step_average"]["dur_ns"])
assert slowest["rank"] == 3, [k["step_average"]["dur_ns"] for k in ranks]
s3 = [s for s in r["stragglers"] if s["rank"] == 3]
assert s3 and s3[0]["category"] == "dataloader" and s3[0]["slower_by"] > 0.5, r["stragglers"]
PY
    "$ps" report "$tmp"/run.*.sqlite >"$tmp/out" || fail "text report exited $?"
    grep -A1 "^Straggler: rank 3 is .* slower than the median rank, most of it in DataLoader" "$tmp/out" | grep -q "run.3.sqlite$" ||
        { cat "$tmp/out"; fail "text names no data-loading straggler"; }
    # Without PERFSCOPE_META's rank (an older recorder), the rank comes from the processes (PERFSCOPE_PROCESS_INFO),
    # not from the file name's 9.
    cp "$tmp/run.2.sqlite" "$tmp/copy.9.sqlite"
    sqlite3 "$tmp/copy.9.sqlite" "DELETE FROM PERFSCOPE_META WHERE name IN ('rank', 'local_rank', 'world_size')" ||
        fail "sqlite3"
    "$ps" report --format json "$tmp/run.0.sqlite" "$tmp/copy.9.sqlite" | grep -q '"rank": 2, "rank_from": "process_info"' ||
        fail "rank not taken from PERFSCOPE_PROCESS_INFO"
    ;;
trainer_launcher_trace_labelled)
    train=$4 data=$5
    # One recording around a launcher (here sh): ranks 0 and 1 of three are processes of one trace; rank 2 is
    # recorded on its own (below, beside it).
    "$ps" record -o "$tmp/all.sqlite" -- sh -c "RANK=0 WORLD_SIZE=3 '$train' --scenario balanced --steps 5 \
        --data-dir '$data' & RANK=1 WORLD_SIZE=3 '$train' --scenario balanced --steps 5 --data-dir '$data'; wait" \
        >/dev/null 2>"$tmp/rec.err" || { cat "$tmp/rec.err"; fail "record"; }
    "$ps" report "$tmp/all.sqlite" >"$tmp/out" || fail "report exited $?"
    grep -q "^Launcher trace: 2 ranks, each a process of this trace (world size 3)" "$tmp/out" ||
        { head -8 "$tmp/out"; fail "not labelled as a launcher trace"; }
    grep -q "^Rank [0-9]" "$tmp/out" && fail "labelled as one rank"
    "$ps" report --format json "$tmp/all.sqlite" | grep -q '"rank": null, "world_size": 3, "launcher_ranks": 2' ||
        fail "JSON source is not labelled as a launcher trace"
    # its ranks (from each process's RANK) analysed one by one as the several-rank report does: one row per rank,
    # named by the process that holds it, with that process's 5 steps
    "$ps" report --format json -o "$tmp/all.json" "$tmp/all.sqlite" || fail "report --format json exited $?"
    python3 - "$tmp/all.json" "$tmp/all.sqlite" <<'PY' || fail "process_ranks"
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))["process_ranks"]
db = sqlite3.connect(sys.argv[2])
pids = dict(db.execute("SELECT rank, pid FROM PERFSCOPE_PROCESS_INFO WHERE rank IS NOT NULL"))
assert sorted(pids) == [0, 1], pids
got = [(k["rank"], k["rank_from"], k["world_size"], k["source"], k["steps"]) for k in r["ranks"]]
assert got == [(i, "process_info", 3, "pid %d" % pids[i], 5) for i in (0, 1)], got
assert r["files"] == 2 and "straggler_rule" in r, r
PY
    grep -q "^Ranks in this trace, each a process" "$tmp/out" || fail "text has no per-rank table"
    # beside a rank file of the same job (a perfscope recording: a PyTorch profiler trace is no rank of it): the
    # launcher row is labelled launcher(2) and listed last in text and page
    (cd "$tmp" && RANK=2 WORLD_SIZE=3 "$ps" record -o r2.sqlite -- "$train" --scenario balanced --steps 5 \
        --data-dir "$data" >/dev/null 2>"$tmp/rec.err") || { cat "$tmp/rec.err"; fail "record rank 2"; }
    python3 "$(dirname "$0")/../analyzer/check_multirank_report.py" "$ps" "$tmp/mr" "$tmp/r2.sqlite" "$tmp/all.sqlite" ||
        fail "check_multirank_report.py"
    grep -q '^launcher(2) -  ' "$tmp/mr/multirank.text" && grep -q '<td>launcher(2)</td><td>-</td>' "$tmp/mr/multirank.html" ||
        fail "launcher row"
    ;;
the_same_file_twice_is_refused_naming_both)
    gen_two
    "$ps" report "$tmp/r0.json" "$tmp/r1.json" "$tmp/./r0.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -Fq "$tmp/r0.json and $tmp/./r0.json are the same file" "$tmp/err" || { cat "$tmp/err"; fail "message"; }
    [ -s "$tmp/out" ] && fail "a report was printed"
    ;;
two_files_of_one_rank_are_refused_naming_both)
    gen_two
    cp "$tmp/r0.json" "$tmp/copy.json"
    "$ps" report --format json "$tmp/r0.json" "$tmp/r1.json" "$tmp/copy.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -Fq "$tmp/copy.json and $tmp/r0.json both hold rank 0 (from metadata and metadata" "$tmp/err" ||
        { cat "$tmp/err"; fail "message"; }
    [ -s "$tmp/out" ] && fail "a report was printed"
    # a rank from the file name against the same rank from metadata
    gen "$tmp/trace.1.json" none gemm:0:100:400 || exit 1
    "$ps" report "$tmp/r0.json" "$tmp/r1.json" "$tmp/trace.1.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "exit $rc with rank 1 in metadata and in a file name"
    grep -Fq "$tmp/r1.json and $tmp/trace.1.json both hold rank 1 (from metadata and file_name" "$tmp/err" ||
        { cat "$tmp/err"; fail "file-name message"; }
    ;;
generated_ranks_straggler_is_the_rank_the_others_wait_for)
    # Three ranks, one 1000 µs step each, synchronous: ranks 0 and 1 compute [0, 300) and wait in an AllReduce
    # [300, 1000); rank 2 computes [0, 900) and its AllReduce runs [900, 1000). Equal steps: no rank is slower.
    # By hand: rank 2 is blocked the least (100 µs); the others' median 700 µs; they wait 700 - 100 = 600 µs for
    # it; its own work 900 µs against the others' median 300 µs, +600 µs in Kernel (compute) and in the verdict's
    # kernel group alike (GPU kernels), named by its one computation kernel, gemm.
    export GEN_WORLD=3
    gen "$tmp/r0.json" 0 gemm:0:0:300 $AR:0:300:700 || exit 1
    gen "$tmp/r1.json" 1 gemm:0:0:300 $AR:0:300:700 || exit 1
    gen "$tmp/r2.json" 2 gemm:0:0:900 $AR:0:900:100 || exit 1
    "$ps" report --format json -o "$tmp/r.json" "$tmp/r0.json" "$tmp/r1.json" "$tmp/r2.json" || fail "exit $?"
    python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["stragglers"] == [] and r["straggler_rule"] == "wait", (r["stragglers"], r["straggler_rule"])
g = r["straggler_waited_for"]
want = {"rank": 2, "own_wait_ns": 100000, "others_wait_ns": 700000, "waited_for_ns": 600000, "own_work_ns": 900000,
        "median_own_work_ns": 300000, "category": "kernel", "category_excess_ns": 600000,
        "median_category_ns": 300000, "wait_in": "ncclKernel_AllReduce_RING_LL_Sum_float", "group": "kernel",
        "group_excess_ns": 600000, "median_group_ns": 300000, "group_top": "gemm"}
assert {k: g[k] for k in want} == want, g
assert g["most_waiting_rank"] in (0, 1), g
assert g["fix"].startswith("look at that rank's kernels (gemm)"), g["fix"]
PY
    "$ps" report "$tmp/r0.json" "$tmp/r1.json" "$tmp/r2.json" >"$tmp/out" || fail "text exit $?"
    grep -q "^Straggler (waited for): rank 2: +0.6 ms per step GPU kernels (gemm) over the other" "$tmp/out" ||
        { cat "$tmp/out"; fail "text"; }
    grep -q "^Straggler rule: who waits for whom" "$tmp/out" || fail "text rule"
    ;;
per_rank_json_reports_merge_into_the_traces_report)
    # Each rank's `report --format json`, merged, gives byte for byte the report over the traces, in every format:
    # the generated ranks (a wait straggler among three, one rank from its file name) and the shared NCCL trace as
    # two ranks (HTA overlap, collective bytes).
    export GEN_WORLD=3
    gen "$tmp/r0.json" 0 gemm:0:0:300 $AR:0:300:700 || exit 1
    gen "$tmp/r1.json" 1 gemm:0:0:300 $AR:0:300:700 || exit 1
    gen "$tmp/run.2.json" none gemm:0:0:900 $AR:0:900:100 || exit 1
    trace=$shared/traces/kineto/nccl_2rank.pt.trace.json.gz
    [ -f "$trace" ] && as_rank1 "$trace" "$tmp/rank1.json.gz"
    merge_check() {   # merge_check TRACE...: each trace's JSON report, merged, against the report over the traces
        reports=""
        for f in "$@"; do
            out=$tmp/$(basename "$f").report.json
            "$ps" report --format json -o "$out" -f "$f" || fail "report of $f exited $?"
            reports="$reports $out"
        done
        for fmt in text json md html; do
            "$ps" report --format $fmt "$@" >"$tmp/direct.$fmt" || fail "direct $fmt exited $?"
            # shellcheck disable=SC2086
            "$ps" report --format $fmt $reports >"$tmp/merged.$fmt" || fail "merged $fmt exited $?"
            cmp -s "$tmp/direct.$fmt" "$tmp/merged.$fmt" ||
                fail "merged $fmt differs: $(diff "$tmp/direct.$fmt" "$tmp/merged.$fmt" | head -5)"
        done
    }
    merge_check "$tmp/r0.json" "$tmp/r1.json" "$tmp/run.2.json"
    grep -q "^Straggler (waited for): rank 2: " "$tmp/merged.text" || fail "the merged text names no straggler"
    if [ -f "$trace" ]; then
        merge_check "$trace" "$tmp/rank1.json.gz"
        grep -q '"busbw_gbps"' "$tmp/merged.json" || fail "no bandwidth in the merged NCCL collectives"
    fi
    # reports and traces together: a usage error; a report cut short: refused, naming it
    "$ps" report "$tmp/r0.json.report.json" "$tmp/r1.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "reports mixed with traces: exit $rc, expected 2"
    head -c 2000 "$tmp/r1.json.report.json" >"$tmp/cut.report.json"
    "$ps" report "$tmp/r0.json.report.json" "$tmp/cut.report.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] || fail "a cut report: exit $rc, expected 1"
    grep -q "cut.report.json: no \"rank_summary\"" "$tmp/err" || { cat "$tmp/err"; fail "cut report message"; }
    # the same report twice
    "$ps" report "$tmp/r0.json.report.json" "$tmp/r0.json.report.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] && grep -q "are the same file" "$tmp/err" || fail "the same report twice: exit $rc"
    ;;
per_rank_reports_name_a_data_loading_straggler_by_its_function)
    # Three CPU-only ranks (no GPU rows: the host is the device), one 1000 µs step each, world size 3, on one thread:
    # data loading (a DataLoader range holding the Python function samples.py(20): load_sample, 20 µs shorter),
    # then aten::mm for 200 µs, then gloo:all_reduce to the step's end. Ranks 0 and 1 load for 100 µs, rank 2 for
    # 700 µs. By hand: rank 2 is blocked in collectives the least (1000 - 700 - 200 = 100 µs) against the others'
    # 700 µs: they wait 600 µs for it; its groups: data-loading 700, kernel (host compute) 200, communication 100;
    # the others' median data-loading 100 and kernel 200: its excess is data-loading, +600 µs over 100, named by
    # the function (680 µs of its 700) over the range (the 2 x 10 µs around it). Each rank's JSON report, merged,
    # names it so, equal to the report over the traces; a report written before the names were carried (no
    # "group_top") still merges, the name then unknown.
    for r in 0 1 2; do
        data=100
        [ $r = 2 ] && data=700
        python3 - "$tmp/d$r.json" $r $data <<'PY' || exit 1
import json, sys
out, rank, data = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ev = lambda cat, name, ts, dur: {"ph": "X", "cat": cat, "name": name, "pid": 10, "tid": 10, "ts": ts, "dur": dur}
json.dump({"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": 3}, "traceEvents": [
    ev("user_annotation", "ProfilerStep#1", 0, 1000),
    ev("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, data),
    ev("python_function", "samples.py(20): load_sample", 10, data - 20),
    ev("cpu_op", "aten::mm", data, 200), ev("user_annotation", "gloo:all_reduce", data + 200, 800 - data)]},
    open(out, "w"))
PY
        "$ps" report --format json -o "$tmp/d$r.report.json" "$tmp/d$r.json" || fail "report of rank $r: exit $?"
    done
    for fmt in text json; do
        "$ps" report --format $fmt "$tmp/d0.json" "$tmp/d1.json" "$tmp/d2.json" >"$tmp/direct.$fmt" || fail "direct $fmt"
        "$ps" report --format $fmt "$tmp"/d[012].report.json >"$tmp/merged.$fmt" || fail "merged $fmt exited $?"
        cmp -s "$tmp/direct.$fmt" "$tmp/merged.$fmt" || fail "merged $fmt differs: $(diff "$tmp/direct.$fmt" "$tmp/merged.$fmt" | head -5)"
    done
    python3 - "$tmp/merged.json" "$tmp/d2.report.json" <<'PY' || exit 1
import json, sys
r, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["rank_summary"]
assert s["group_top"]["data-loading"] == "samples.py(20): load_sample", s["group_top"]
assert s["group_ns"]["data-loading"] == 700000 and s["group_ns"]["kernel"] == 200000, s["group_ns"]
g = r["straggler_waited_for"]
want = {"rank": 2, "waited_for_ns": 600000, "group": "data-loading", "group_excess_ns": 600000,
        "median_group_ns": 100000, "group_top": "samples.py(20): load_sample", "category": "dataloader"}
assert {k: g[k] for k in want} == want, g
assert g["fix"].startswith("make that rank's data loading (samples.py(20): load_sample) faster: load in DataLoader "
                           "workers"), g["fix"]
PY
    tr '\n' ' ' <"$tmp/merged.text" | grep -q "Straggler (waited for): rank 2: +0.6 ms per step data loading (samples.py(20): *load_sample) over" ||
        { cat "$tmp/merged.text"; fail "text straggler"; }
    # an older report: its summary without "group_top"
    python3 - "$tmp/d2.report.json" "$tmp/old2.report.json" <<'PY' || exit 1
import re, sys
t = open(sys.argv[1]).read()
i = t.rindex('"rank_summary":')
tail, n = re.subn(r'"group_top": \{[^}]*\},? *', "", t[i:], count=1)
assert n == 1
open(sys.argv[2], "w").write(t[:i] + tail)
PY
    "$ps" report --format json "$tmp/d0.report.json" "$tmp/d1.report.json" "$tmp/old2.report.json" >"$tmp/old.json" ||
        fail "a report without group_top: exit $?"
    python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["straggler_waited_for"]
sys.exit(not (g["group"] == "data-loading" and g["group_top"] is None and g["group_excess_ns"] == 600000))' \
        "$tmp/old.json" || fail "without group_top: $(head -c 400 "$tmp/old.json")"
    ;;
per_rank_reports_out_of_range_are_refused_naming_file_field_and_value)
    # A merged report's fields are checked against the ranges each rank's report writes them in, as the readers
    # check a trace (docs/distributed.md): each mutation of a valid rank report is refused, exit 1, naming the file,
    # the field and its value; the values at the ends of the ranges merge. Before, rank 2^40 was cut to 0 (a false
    # "both hold rank 0"), steps -1 printed 18446744073709551615, shares of -3 and 1e999 printed -300 % and inf%,
    # and report version 99 or "1" merged. No world size: rank 2^31-2 must merge (a world size would exclude it).
    export GEN_WORLD=none
    gen "$tmp/r0.json" 0 gemm:0:0:300 $AR:0:300:700 || exit 1
    gen "$tmp/r1.json" 1 gemm:0:0:300 $AR:0:300:700 || exit 1
    "$ps" report --format json -o "$tmp/r0.report.json" "$tmp/r0.json" || fail "report r0: exit $?"
    "$ps" report --format json -o "$tmp/r1.report.json" "$tmp/r1.json" || fail "report r1: exit $?"
    "$ps" report "$tmp/r0.report.json" "$tmp/r1.report.json" >/dev/null || fail "the valid reports: exit $?"
    mutate() {   # mutate KEY VALUE: r1's report with the summary's first KEY (or the top-level version) set
        python3 - "$tmp/r1.report.json" "$tmp/m.report.json" "$1" "$2" <<'PY' || exit 1
import re, sys
src, out, key, val = sys.argv[1:5]
t = open(src).read()
i = 0 if key == "perfscope_report_version" else t.rindex('"rank_summary":')
tail, n = re.subn(r'"%s": (\{[^}]*\}|[^,}]*)' % re.escape(key), lambda m: '"%s": %s' % (key, val), t[i:], count=1)
assert n == 1, key
open(out, "w").write(t[:i] + tail)
PY
    }
    refused() {   # refused KEY VALUE MESSAGE: the mutated report is refused with MESSAGE after its name
        mutate "$1" "$2"
        "$ps" report "$tmp/r0.report.json" "$tmp/m.report.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
        [ $rc -eq 1 ] || fail "$1 = $2: exit $rc, expected 1"
        grep -Fq "perfscope report: $tmp/m.report.json: $3" "$tmp/err" || fail "$1 = $2: $(cat "$tmp/err")"
        [ -s "$tmp/out" ] && fail "$1 = $2: a report was printed"
        return 0
    }
    s='"rank_summary": '
    refused rank 1099511627776 "$s\"rank\" is not an integer in range -1..2147483646 (1099511627776)"
    refused rank 2147483647 "$s\"rank\" is not an integer in range -1..2147483646 (2147483647)"
    refused rank -1 "$s\"rank\" is -1 with \"rank_from\" \"metadata\""
    refused world_size 0 "$s\"world_size\" is not -1 (unknown) or an integer in range 1..2147483647 (0)"
    refused steps -1 "$s\"steps\" is not an integer in range 0..9223372036854775807 (-1)"
    refused step_dur_ns -1000 "$s\"step_dur_ns\" is not an integer in range 0..1125899906842624 (-1000)"
    refused step_dur_ns 1125899906842625 "$s\"step_dur_ns\" is not an integer in range 0..1125899906842624"
    refused kernel 1 "$s\"breakdown_ns\" sums to 700001 ns, not to the step's \"step_dur_ns\" (1000000)"
    refused share -3 "$s\"share\" is not a number in range 0..1 or null (-3)"
    refused share 1e999 "$s\"share\" is not a number in range 0..1 or null (1e999)"
    refused share '"0.7"' "$s\"share\" is not a number in range 0..1 or null (\"0.7\")"
    refused comm_comp_overlap 1.5 "$s\"comm_comp_overlap\" is not a number in range 0..1 or null (1.5)"
    refused total_ns -5 "$s\"collectives\"[0]: \"total_ns\" is not an integer in range 0..1125899906842624 (-5)"
    refused count 2.5 "$s\"collectives\"[0]: \"count\" is not an integer in range 0..9223372036854775807 (2.5)"
    refused version 2 "$s\"version\" is 2, not 1"
    refused bottleneck '"gpu"' \
        "$s\"bottleneck\" is not one of kernel, data-loading, memcpy, communication, sync, host, waiting, unknown (\"gpu\")"
    refused group_top '{"gpu": "gemm"}' "$s\"group_top\" has \"gpu\", not one of the verdict's groups"
    refused group_top '{"kernel": 5}' "$s\"group_top\": \"kernel\" is not a string of 1 to 65536 bytes or null (5)"
    refused group_top '{"kernel": ""}' "$s\"group_top\": \"kernel\" is not a string of 1 to 65536 bytes or null (\"\")"
    refused group_top '[]' "$s\"group_top\" is not an object (an array)"
    refused perfscope_report_version 99 "\"perfscope_report_version\" is 99, not 1"
    refused perfscope_report_version '"1"' "\"perfscope_report_version\" is \"1\", not 1"
    # the ends of the ranges: the largest rank, an unknown world size, shares of 0, 1 and null
    for kv in "rank 2147483646" "world_size -1" "share 0" "share 1" "comm_comp_overlap null"; do
        set -- $kv
        mutate "$1" "$2"
        "$ps" report --format json "$tmp/r0.report.json" "$tmp/m.report.json" >"$tmp/out" 2>"$tmp/err" ||
            fail "$1 = $2 refused: $(cat "$tmp/err")"
    done
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(not any(f["rank"] == 1 and f["comm_comp_overlap"] is None for f in r["ranks"]))' "$tmp/out" ||
        fail "the last merge: $(head -c 300 "$tmp/out")"
    ;;
report_expands_the_rank_in_its_file_and_output_names)
    # what every rank of a launcher runs: `report run.%r.json --format json -o run.%r.report.json`
    gen "$tmp/run.1.json" 1 gemm:0:100:400 || exit 1
    (cd "$tmp" && SLURM_PROCID=1 "$ps" report run.%r.json --format json -o run.%r.report.json) || fail "exit $?"
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["rank_summary"]
sys.exit(not (s["rank"] == 1 and s["trace"] == "run.1.json"))' "$tmp/run.1.report.json" || fail "rank summary"
    "$ps" report "$tmp/run.1.json" -o "$tmp/x.%y" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "unknown '%y'" "$tmp/err" || fail "unknown %y in -o: exit $rc"
    ;;
cpu_collective_ranges_are_communication)
    # A CPU-only rank (no GPU rows) with torch.distributed's own range names, one step [0, 1000) µs: data [0, 100),
    # gloo:all_reduce [600, 900) holding its Work.wait#gloo:all_reduce [700, 900), and an async broadcast's wait
    # Work.wait [950, 980). By hand: Communication = 300 + 30 = 330 µs, DataLoader 100, compute the rest, 570;
    # comm_wait_ns = 200 + 30 = 230 µs; one collective row, gloo:all_reduce, 300 µs, exposed 300 (the caller is
    # blocked), wait 200, bytes null (no hook mark).
    python3 - "$tmp/cpu.json" <<'PY' || exit 1
import json, sys
ev = lambda name, ts, dur: {"ph": "X", "cat": "user_annotation", "name": name, "pid": 10, "tid": 10, "ts": ts, "dur": dur}
t = {"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}, "traceEvents": [
    ev("ProfilerStep#1", 0, 1000), ev("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 100),
    ev("gloo:all_reduce", 600, 300), ev("Work.wait#gloo:all_reduce", 700, 200), ev("Work.wait", 950, 30)]}
json.dump(t, open(sys.argv[1], "w"))
PY
    "$ps" report --format json -o "$tmp/r.json" "$tmp/cpu.json" || fail "exit $?"
    python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
b = r["step_average"]["breakdown_ns"] if "breakdown_ns" in r["step_average"] else r["step_average"]
got = {k: b[k] for k in ("communication", "dataloader", "kernel")}
assert got == {"communication": 330000, "dataloader": 100000, "kernel": 570000}, b
s = r["rank_summary"]
assert s["comm_wait_ns"] == 230000 and s["breakdown_ns"]["communication"] == 330000, s
assert s["collectives"] == [{"name": "gloo:all_reduce", "host": True, "count": 1, "total_ns": 300000,
                             "exposed_ns": 300000, "bytes": None, "wait_ns": 200000}], s["collectives"]
PY
    ;;
two_runs_of_an_experiment_are_refused_pointing_at_diff)
    # The shared ResNet-50 traces, num_workers 0 and 4: two runs of one experiment, recorded a day apart (epoch µs
    # timestamps). Before, a two-rank report with a made-up straggler; now exit 2, the two spans in UTC (computed
    # here from the raw events' first start and last end), and the command that compares them.
    w0=$shared/traces/kineto/resnet50_workers0.pt.trace.json.gz w4=$shared/traces/kineto/resnet50_workers4.pt.trace.json.gz
    need_shared "$w0"
    need_shared "$w4"
    "$ps" report "$w0" "$w4" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, expected 2: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "a report was printed"
    want=$(python3 - "$w0" "$w4" <<'PY'
import datetime, gzip, json, sys
def span(p):
    ev = [e for e in json.load(gzip.open(p))["traceEvents"] if e.get("ph") == "X" and "ts" in e]
    lo, hi = min(e["ts"] for e in ev), max(e["ts"] + e.get("dur", 0) for e in ev)
    f = lambda us: datetime.datetime.fromtimestamp(us // 1000000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return "%s to %s" % (f(lo), f(hi))
a, b = sys.argv[1], sys.argv[2]
print("perfscope report: these files are not ranks of one job: %s covers %s and %s %s: ranks of one job run at the same "
      "time (within 60 s) (to compare two runs: perfscope diff %s %s)" % (a, span(a), b, span(b), a, b))
PY
)
    [ "$(cat "$tmp/err")" = "$want" ] || fail "message: $(cat "$tmp/err") | want: $want"
    # what the message proposes works on the pair
    "$ps" diff "$w0" "$w4" >/dev/null || fail "perfscope diff of the pair exited $?"
    ;;
files_that_cannot_be_ranks_of_one_job_are_refused_with_the_reason)
    # Each pair below cannot be two ranks of one job: exit 2, the reason naming both files, no report.
    refused() {   # refused MESSAGE FILE...
        want=$1; shift
        "$ps" report "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
        [ $rc -eq 2 ] || fail "$*: exit $rc, expected 2: $(cat "$tmp/err")"
        grep -Fq "perfscope report: these files are not ranks of one job: $want" "$tmp/err" ||
            fail "$*: $(cat "$tmp/err") | want: $want"
        [ -s "$tmp/out" ] && fail "$*: a report was printed"
        return 0
    }
    # a CPU recording beside a PyTorch profiler trace (the first file's rank 0 by order, the second's from metadata)
    "$ps" record -o "$tmp/cpu.sqlite" -- sh -c 'sleep 0.1' >/dev/null 2>&1 || fail "record exited $?"
    GEN_WORLD=none gen "$tmp/k.json" 1 gemm:0:100:400 || exit 1
    refused "$tmp/cpu.sqlite is a perfscope recording and $tmp/k.json a PyTorch profiler trace: ranks of one job are recorded alike (to compare two runs: perfscope diff $tmp/cpu.sqlite $tmp/k.json)" \
        "$tmp/cpu.sqlite" "$tmp/k.json"
    # world sizes 2 and 4
    gen "$tmp/w2.json" 0 gemm:0:100:400 || exit 1
    GEN_WORLD=4 gen "$tmp/w4.json" 1 gemm:0:100:400 || exit 1
    refused "$tmp/w2.json records world size 2 and $tmp/w4.json world size 4" "$tmp/w2.json" "$tmp/w4.json"
    # rank 5 (its file name) in a world of 2; three files in a world of 2 (the third rank by order)
    gen "$tmp/run.5.json" none gemm:0:100:400 || exit 1
    refused "$tmp/run.5.json holds rank 5 (from file_name), but $tmp/w2.json records world size 2 (ranks 0 to 1)" \
        "$tmp/w2.json" "$tmp/run.5.json"
    gen "$tmp/r1.json" 1 gemm:0:100:400 || exit 1
    gen "$tmp/x.json" none gemm:0:100:400 || exit 1
    refused "the 3 files hold 3 ranks, but $tmp/w2.json records world size 2 (give one file per rank of one run)" \
        "$tmp/w2.json" "$tmp/r1.json" "$tmp/x.json"
    # perfscope recordings as rank 0 and 1 (PERFSCOPE_META edited): 61 s between the first's end and the second's
    # start is past the 60 s the clocks of one job's hosts may differ by; 59 s is not. One host and one local rank
    # for two ranks: two processes cannot both be local rank 0 of one host.
    python3 - "$tmp/cpu.sqlite" "$tmp" <<'PY' || exit 1
import shutil, sqlite3, sys
src, tmp = sys.argv[1], sys.argv[2]
def meta(db):
    return dict(db.execute("SELECT name, value FROM PERFSCOPE_META"))
def setmeta(db, k, v):
    db.execute("DELETE FROM PERFSCOPE_META WHERE name = ?", (k,))
    db.execute("INSERT INTO PERFSCOPE_META(name, value) VALUES(?, ?)", (k, str(v)))
m = meta(sqlite3.connect(src))
start, dur = int(m["start_utc_epoch_ns"]), int(m["duration_ns"])
for name, rank, offset, local in (("p0", 0, 0, None), ("late", 1, dur + 61 * 10**9, None), ("near", 1, dur + 59 * 10**9, None),
                                  ("l0", 0, 0, 0), ("l1", 1, 0, 0)):
    out = "%s/%s.sqlite" % (tmp, name)
    shutil.copy(src, out)
    db = sqlite3.connect(out)
    setmeta(db, "rank", rank)
    setmeta(db, "start_utc_epoch_ns", start + offset)
    setmeta(db, "host", "node7")
    if local is not None:
        setmeta(db, "local_rank", local)
    db.commit()
import datetime
f = lambda ns: datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
e = start + dur
open(tmp + "/late.want", "w").write("%s/p0.sqlite covers %s to %s and %s/late.sqlite %s to %s: ranks of one job run at the "
    "same time (within 60 s)" % (tmp, f(start), f(e), tmp, f(e + 61 * 10**9), f(e + 61 * 10**9 + dur)))
PY
    refused "$(cat "$tmp/late.want")" "$tmp/p0.sqlite" "$tmp/late.sqlite"
    "$ps" report "$tmp/p0.sqlite" "$tmp/near.sqlite" >/dev/null 2>"$tmp/err" || fail "59 s apart: exit $?: $(cat "$tmp/err")"
    refused "$tmp/l0.sqlite and $tmp/l1.sqlite were both local rank 0 on host node7" "$tmp/l0.sqlite" "$tmp/l1.sqlite"
    ;;
weaker_signs_are_noted_in_the_report)
    # Files that may be ranks of one job but show a sign they are not: the report is written, with a note.
    gen "$tmp/a.json" none gemm:0:100:400 || exit 1
    gen "$tmp/b.json" none gemm:0:100:400 || exit 1
    "$ps" report "$tmp/a.json" "$tmp/b.json" >"$tmp/out" 2>"$tmp/err" || fail "no ranks: exit $?: $(cat "$tmp/err")"
    grep -q "^Note: none of the 2 files records its rank: they are numbered in command-line order (separate" \
        "$tmp/out" || { cat "$tmp/out"; fail "no-rank note"; }
    "$ps" record -o "$tmp/c.sqlite" -- sh -c 'sleep 0.1' >/dev/null 2>&1 || fail "record exited $?"
    python3 - "$tmp" <<'PY' || exit 1
import shutil, sqlite3, sys
tmp = sys.argv[1]
for name, rank, cmd in (("c0", 0, "python train.py --lr 0.1 --local_rank=0"), ("c1", 1, "python train.py --lr 0.1 --local_rank=1"),
                        ("c2", 1, "python train.py --lr 0.2")):
    shutil.copy(tmp + "/c.sqlite", "%s/%s.sqlite" % (tmp, name))
    db = sqlite3.connect("%s/%s.sqlite" % (tmp, name))
    db.execute("UPDATE PERFSCOPE_META SET value = ? WHERE name = 'command_line'", (cmd,))
    db.execute("DELETE FROM PERFSCOPE_META WHERE name = 'rank'")
    db.execute("INSERT INTO PERFSCOPE_META(name, value) VALUES('rank', ?)", (str(rank),))
    db.commit()
PY
    # torch.distributed.launch's per-rank --local_rank=N is no difference; another learning rate is
    "$ps" report "$tmp/c0.sqlite" "$tmp/c1.sqlite" >"$tmp/out" 2>"$tmp/err" || fail "c0 c1: exit $?: $(cat "$tmp/err")"
    grep -q "^Note:" "$tmp/out" && { cat "$tmp/out"; fail "a note for --local_rank"; }
    "$ps" report --format json "$tmp/c0.sqlite" "$tmp/c2.sqlite" >"$tmp/out" 2>"$tmp/err" || fail "c0 c2: exit $?"
    python3 - "$tmp/out" "$tmp" <<'PY' || exit 1
import json, sys
r, tmp = json.load(open(sys.argv[1])), sys.argv[2]
want = ("%s/c0.sqlite ran `python train.py --lr 0.1 --local_rank=0` and %s/c2.sqlite `python train.py --lr 0.2`: ranks of "
        "one job run one command" % (tmp, tmp))
assert r["notes"] == [want], r["notes"]
PY
    ;;
a_json_report_alone_is_named_for_what_it_is)
    # A saved JSON report given alone: before, "perfscope report: 1 rank files" and a one-rank table.
    gen "$tmp/r0.json" 0 gemm:0:100:400 || exit 1
    "$ps" report --format json -o "$tmp/r0.report.json" "$tmp/r0.json" || fail "report exited $?"
    "$ps" report "$tmp/r0.report.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, expected 2"
    [ -s "$tmp/out" ] && fail "a report was printed: $(head -3 "$tmp/out")"
    grep -Fq "perfscope report: $tmp/r0.report.json is a perfscope JSON report (report --format json), not a trace" \
        "$tmp/err" || fail "message: $(cat "$tmp/err")"
    ;;
*) echo "unknown case $case"; exit 2 ;;
esac
echo "PASS: $case"
