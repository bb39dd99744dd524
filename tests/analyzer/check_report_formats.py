#!/usr/bin/python3
"""Every format of `perfscope report` on one trace, each parsed back:
 - json: parses, holds the documented keys (docs/report.md), steps: [] when the run has no steps;
 - text: every line fits 100 columns, and the verdict line names the JSON's verdict with the compute share;
 - md: every GitHub table has as many cells per row as its header; the steps table has the documented columns
   and at most 20 step rows; the verdict line comes before any table and names the JSON's verdict;
 - html: one <svg role="img"> with a title and a desc per chart section, one bar per step (one for the whole
   run without steps), no script and nothing to fetch; loaded in headless Chromium with no console message
   at all, and a screenshot written next to the outputs.
usage: check_report_formats.py PERFSCOPE TRACE OUTDIR"""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
from html_page_check import Page, check_sections, load_in_chromium

perfscope, trace, outdir = sys.argv[1:4]
name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(trace))
os.makedirs(outdir, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {name}: {msg}")


def run(fmt, extra=()):
    out = os.path.join(outdir, f"{name}.{fmt}")
    p = subprocess.run([perfscope, "report", "--format", fmt, "-f", "-o", out, *extra, trace],
                       capture_output=True, text=True)
    return p, out


# ---- json ----
p, json_path = run("json")
if p.returncode != 0:
    # A trace the readers refuse must be refused the same way in every format: exit 1 and one message.
    msgs = set()
    for fmt in ("json", "text", "md", "html"):
        q, _ = run(fmt)
        if q.returncode != 1 or not q.stderr.startswith("perfscope report: "):
            fail(f"--format {fmt} on an unreadable trace: exit {q.returncode}, stderr {q.stderr!r}")
        msgs.add(q.stderr)
    if len(msgs) != 1:
        fail(f"the formats refuse the trace with different messages: {msgs}")
    print(f"NOTE: {name}: the trace is not readable ({p.stderr.strip()}); every format refuses it alike")
    sys.exit(1 if failures else 0)

report = json.load(open(json_path, encoding="utf-8"))
top_keys = ["perfscope_report_version", "source", "run", "verdict", "steps", "step_average", "gpu_temporal",
            "idle_breakdown", "gpu_timeline", "gpu_timeline_per_device", "gpu_utilization_timeline",
            "gpu_utilization_samples", "gpu_devices",
            "kernels", "kernel_names",
            "copies", "findings", "ranks", "stragglers", "warnings", "notes", "comm_comp_overlap"]
for k in top_keys:
    if k not in report:
        fail(f"JSON lacks the documented key {k}")
for k in ["bottleneck", "share", "gpu_utilization", "kernel_share", "max_gain_share", "max_gain_ns",
          "unknown_reason", "host_compute_wait", "evidence", "recommendations"]:
    if k not in report["verdict"]:
        fail(f"JSON verdict lacks {k}")
for k in ["start_ns", "duration_ns", "events_duration_ns", "processes", "threads", "events", "whole_run", "steps_source",
          "step_inference", "meta"]:
    if k not in report["run"]:
        fail(f"JSON run lacks {k}")
steps = report["steps"]
whole_run = report["run"]["whole_run"]
if whole_run and steps:
    fail(f"a run without steps has {len(steps)} JSON steps (want [])")
for s in steps:
    if s["name"] is None:
        fail("a JSON step without a name")
        break
    if sum(s["breakdown_ns"].values()) != s["dur_ns"]:
        fail(f"step {s['name']}: breakdown sums to {sum(s['breakdown_ns'].values())}, not dur_ns {s['dur_ns']}")
        break
bottleneck = report["verdict"]["bottleneck"]
# without GPU rows the text, md and html call the kernel group host "compute" (docs/report.md)
has_gpu = any(d["kernel_count"] + d["memcpy_count"] + d["memset_count"] for d in report["gpu_devices"])
shown = "compute" if bottleneck == "kernel" and not has_gpu else bottleneck
for w in report["warnings"]:
    if set(w) != {"code", "severity", "message"}:
        fail(f"a warning's keys are {sorted(w)}")

# ---- text ----
p, text_path = run("text")
if p.returncode != 0:
    fail(f"--format text exited {p.returncode}: {p.stderr}")
text = open(text_path, encoding="utf-8").read()
for i, line in enumerate(text.split("\n")):
    if len(line) > 100:
        fail(f"text line {i + 1} is {len(line)} columns: {line[:60]}...")
        break
if "\x1b" in text:
    fail("colour escapes in a report written to a file")
m = re.search(r"^Verdict: (\S+) \((.*)$", text, re.M)
if not m or m.group(1) != shown:
    fail(f"text verdict line {m.group(0) if m else None!r}, JSON says {bottleneck}")
elif bottleneck not in ("unknown",) and "compute" not in m.group(2) and "Kernel" not in m.group(2):
    fail(f"the text verdict line does not give the compute share: {m.group(0)!r}")

# ---- md ----
p, md_path = run("md")
if p.returncode != 0:
    fail(f"--format md exited {p.returncode}: {p.stderr}")
md = open(md_path, encoding="utf-8").read().split("\n")


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


tables, cur = [], []
for line in md + [""]:
    if line.startswith("|"):
        cur.append(line)
    elif cur:
        tables.append(cur)
        cur = []
first_table = next((i for i, l in enumerate(md) if l.startswith("|")), len(md))
verdict_line = next((i for i, l in enumerate(md) if l.startswith("**Verdict: ")), None)
if verdict_line is None or verdict_line > first_table:
    fail("the Markdown verdict does not come before the tables")
elif not md[verdict_line].startswith(f"**Verdict: {shown}**"):
    fail(f"Markdown verdict {md[verdict_line][:60]!r}, JSON says {bottleneck}")
for t in tables:
    head = cells(t[0])
    if not re.fullmatch(r"\|(\s*-+:?\s*\|)+", t[1].replace(" ", "")) or len(cells(t[1])) != len(head):
        fail(f"Markdown table {head} has no matching separator row")
    for row in t[2:]:
        if len(cells(row)) != len(head):
            fail(f"Markdown table {head}: a row has {len(cells(row))} cells: {row[:80]}")
            break
step_tables = [t for t in tables if cells(t[0])[:2] == ["#", "step"]]
if steps:
    want = ["#", "step", "duration ms", "kernel %" if has_gpu else "compute %", "data %", "memcpy %",
            "comm %", "sync %", "host %", "waiting %", "verdict"]
    if len(step_tables) != 1 or cells(step_tables[0][0]) != want:
        fail(f"Markdown steps table header {[cells(t[0]) for t in step_tables]}, want {want}")
    else:
        rows = len(step_tables[0]) - 3   # header, separator, average
        if rows != min(len(steps), 20) if len(steps) <= 20 else rows > 20:
            fail(f"Markdown steps table has {rows} step rows for {len(steps)} steps")
elif step_tables:
    fail("a Markdown steps table for a run without steps")
kernel_tables = [t for t in tables if cells(t[0])[-1:] == ["kernel"]]
if report["kernels"] and (len(kernel_tables) != 1 or len(kernel_tables[0]) - 2 != len(report["kernels"])):
    fail("the Markdown top-kernels table does not list the JSON's kernels")


# ---- html ----
p, html_path = run("html")
if p.returncode != 0:
    fail(f"--format html exited {p.returncode}: {p.stderr}")
page = Page()
page.feed(open(html_path, encoding="utf-8").read())
charts = check_sections(page, fail)
want_charts = []
if report["steps"] or (whole_run and report["step_average"]["dur_ns"] > 0) or report["run"]["events"] > 0:
    want_charts.append("steps")
if report["gpu_utilization_timeline"]:
    want_charts.append("utilisation")
if report["gpu_utilization_samples"]:
    want_charts.append("nvml-utilisation")
if any(r["peak_tflops"] for r in ((report.get("op_efficiency") or {}).get("rows") or [])[:30]):
    want_charts.append("op-efficiency")   # the roofline of the 30 most recoverable op groups with a peak
                                          # (docs/op-perf-roofline.md), before the kernels
if report["kernels"]:
    want_charts.append("kernels")
if report["copies"]:
    want_charts.append("copies")
for dev in (report.get("memory") or {}).get("devices", []):   # one curve per device with two points or more
    if dev["points"] > 1:
        want_charts.append("memory-" + "".join(ch for ch in dev["label"].lower() if ch.isalnum()))
nothing = "nothing to break down" in (report["verdict"]["unknown_reason"] or "")
if nothing and "steps" in want_charts:
    want_charts.remove("steps")
if [s["id"] for s in charts] != want_charts:
    fail(f"HTML chart sections {[s['id'] for s in charts]}, want {want_charts}")
steps_bars = sum(len(s["bars"]) for s in charts if s["id"] == "steps")
if "steps" in want_charts and steps_bars != (len(steps) if steps else 1):
    fail(f"HTML steps chart has {steps_bars} bars for {len(steps)} steps")
load_in_chromium(html_path, os.path.join(outdir, f"{name}.png"), fail)

print(f"{'FAIL' if failures else 'PASS'}: {name}: json, text, md, html checked "
      f"({len(steps)} steps, verdict {bottleneck}, {len(charts)} charts; outputs in {outdir})")
sys.exit(1 if failures else 0)
