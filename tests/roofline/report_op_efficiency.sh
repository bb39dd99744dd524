#!/bin/sh
# `perfscope report` end to end on the generated trace (gen_roofline_trace.py: every expected value below is
# worked out in its docstring), and --gpu-spec on the command line.
# usage: report_op_efficiency.sh PERFSCOPE GEN_SCRIPT WORKDIR CASE
set -u
ps=$1 gen=$2 dir=$3 case=$4
mkdir -p "$dir" || exit 1
trace=$dir/roofline_cli_$case.json
python3 "$gen" "$trace" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

case $case in
json_figures_equal_the_hand_values)
    "$ps" report --format json "$trace" > "$dir/$case.out" || fail "report exit $?"
    python3 - "$dir/$case.out" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
d = report["op_efficiency"]
rows = {r["name"]: r for r in d["rows"]}
model = report["op_perf"]["rows"]
def near(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        sys.exit("%s = %r, expected %r" % (what, got, want))
near("MFU", d["mfu"]["mean"], 0.368965, 1e-6)          # (2 * 138,911.414 + 32,107.742) ns / 840 us
near("step time", d["mfu"]["window_ns"], 840000, 1)
near("step 1 MFU", d["mfu"]["per_step"][0]["mfu"], 0.330741463, 1e-8)   # 138,911.414 ns / 420 us
near("step 2 MFU", d["mfu"]["per_step"][1]["mfu"], 0.407188468, 1e-8)   # (138,911.414 + 32,107.742) / 420 us
near("step 1 unmodeled", d["mfu"]["per_step"][0]["unmodeled_share"], 100 / 420, 1e-9)
near("mm recoverable", rows["aten::mm"]["recoverable_ns"], 122177.171, 1)
near("mm FLOPs (op_perf)", model[rows["aten::mm"]["op_perf_row"]]["flops_total"], 2 * 137438953472, 1e-3)
near("addmm % of roofline", rows["aten::addmm"]["pct_of_roofline"], 50.012, 1e-3)
near("add memory time", rows["aten::add"]["memory_ns"], 30048.745, 1e-2)
near("unmodeled", d["unmodeled"]["kernel_ns"], 200000, 1)
near("unmodeled share", d["unmodeled"]["share_of_steps"], 200 / 840, 1e-9)
assert d["rows"][0]["name"] == "aten::mm", d["rows"][0]["name"]
assert d["gpu"]["matched"] == "H100 SXM" and d["gpu"]["matched_by"] == "name", d["gpu"]
assert report["op_perf"]["unmodeled"][0]["name"] == "aten::_softmax", report["op_perf"]["unmodeled"]
PY
    ;;
gpu_spec_overrides_the_bandwidth)
    # 1000 GB/s: aten::add's 100,663,296 bytes take 100,663.296 ns > its 60 us kernel: 167.8 % of roofline;
    # the MFU (matrix peaks unchanged) stays 36.8965 %.
    printf '{"name": "H100 SXM", "mem_bw_gbps": 1000}\n' > "$dir/$case.spec"
    "$ps" report --format json --gpu-spec "$dir/$case.spec" "$trace" > "$dir/$case.out" || fail "report exit $?"
    python3 - "$dir/$case.out" "$dir/$case.spec" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["op_efficiency"]
add = [r for r in d["rows"] if r["name"] == "aten::add"][0]
assert abs(add["pct_of_roofline"] - 167.772) < 1e-3, add["pct_of_roofline"]
assert add["recoverable_ns"] == 0, add["recoverable_ns"]
assert abs(d["mfu"]["mean"] - 0.368965) < 1e-6, d["mfu"]
assert d["gpu"]["source"] == sys.argv[2], d["gpu"]
PY
    ;;
bad_gpu_spec_is_one_line_and_exit_1)
    printf '{"name": "H100 SXM", "mem_bw_gbps": "fast"}\n' > "$dir/$case.spec"
    "$ps" report --gpu-spec "$dir/$case.spec" "$trace" > "$dir/$case.out" 2> "$dir/$case.err"
    rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -q "^perfscope report: $dir/$case.spec: GPU entry 1: \"mem_bw_gbps\" must be a positive number" \
        "$dir/$case.err" || fail "message: $(cat "$dir/$case.err")"
    [ "$(wc -l < "$dir/$case.err")" -eq 1 ] || fail "more than one line"
    [ -s "$dir/$case.out" ] && fail "wrote a report"
    "$ps" report --gpu-spec "$dir/missing.spec" "$trace" 2> "$dir/$case.err" > /dev/null
    [ $? -eq 1 ] || fail "missing file: not exit 1"
    # the shape of every command's unreadable input (tests/cli): "PATH: cannot open: REASON"
    grep -qx "perfscope report: $dir/missing.spec: cannot open: No such file or directory" "$dir/$case.err" ||
        fail "missing file message: $(cat "$dir/$case.err")"
    "$ps" report "$trace" --gpu-spec 2> "$dir/$case.err" > /dev/null
    [ $? -eq 2 ] || fail "no value: not exit 2"
    ;;
gpu_spec_past_its_ranges_is_refused_before_any_output)
    # A peak of 1e308 TFLOPS or a bandwidth of 1e-320 GB/s passed the "positive number" check: the roofline chart's
    # x axis ended at +inf and the HTML report wrote <line x1="-nan" ...> without end (1.2 GB in 5 s); 1e-300
    # TFLOPS printed a 300-digit MFU. Each is refused in one line naming the field, the value and the range, exit
    # 1 and nothing written (the output is cut at 10 MB, which ends a report that never would).
    for spec in '{"name": "H100 SXM", "peak_tflops": {"matrix_bf16": 1e308}}|peak_tflops.matrix_bf16 is 1e+308, outside 0.001 to 1,000,000 TFLOPS' \
                '{"name": "H100 SXM", "mem_bw_gbps": 1e-320}|"mem_bw_gbps" is 9.99989e-321, outside 1 to 1,000,000 GB/s' \
                '{"name": "H100 SXM", "peak_tflops": {"matrix_bf16": 1e-300}}|peak_tflops.matrix_bf16 is 1e-300, outside'; do
        printf '%s\n' "${spec%%|*}" > "$dir/$case.spec"
        { timeout 60 "$ps" report --format html --gpu-spec "$dir/$case.spec" "$trace" 2> "$dir/$case.err"
          echo $? > "$dir/$case.rc"; } | head -c 10000000 > "$dir/$case.out"
        [ "$(cat "$dir/$case.rc")" -eq 1 ] || fail "${spec%%|*}: exit $(cat "$dir/$case.rc"), expected 1"
        grep -qF "perfscope report: $dir/$case.spec: GPU entry 1: ${spec#*|}" "$dir/$case.err" ||
            fail "message for ${spec%%|*}: $(head -c 300 "$dir/$case.err")"
        [ "$(wc -l < "$dir/$case.err")" -eq 1 ] || fail "more than one line for ${spec%%|*}"
        [ -s "$dir/$case.out" ] && fail "${spec%%|*}: $(wc -c < "$dir/$case.out") bytes of report written"
    done
    ;;
html_roofline_chart_passes_the_page_checks)
    # one chart section (svg role=img, title, desc) whose points are the op groups, a table as its text
    # equivalent, nothing fetched, no console message in headless Chromium (tests/analyzer/html_page_check.py)
    "$ps" report --format html -o "$dir/$case.html" -f "$trace" || fail "report exit $?"
    python3 - "$dir/$case.html" "$dir/$case.png" "$(dirname "$gen")/../analyzer" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[3])
from html_page_check import Page, check_sections, load_in_chromium
fails = []
page = Page()
page.feed(open(sys.argv[1]).read())
charts = {s["id"]: s for s in check_sections(page, fails.append)}
if "op-efficiency" not in charts:
    fails.append("no op-efficiency chart section")
text = open(sys.argv[1]).read()
for want in ("<circle", "matrix bf16 989", "aten::mm {&#39;M&#39;: 4096", "MFU 36.90 %"):
    if want not in text:
        fails.append("page lacks " + want)
if text.count('<g class="op">') != 3:
    fails.append("%d op points, want 3" % text.count('<g class="op">'))
load_in_chromium(sys.argv[1], sys.argv[2], fails.append)
if fails:
    sys.exit("; ".join(fails))
PY
    ;;
*)
    fail "unknown case $case"
    ;;
esac
exit 0
