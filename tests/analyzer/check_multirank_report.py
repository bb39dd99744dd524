#!/usr/bin/python3
"""`perfscope report FILE FILE...` (several rank files) in text and HTML, each checked against the JSON of the same
run (whose numbers the rank tests check against hand calculations and peers, tests/ranks/ranks_cli.sh):
 - text: every line fits 100 columns; per rank a ranks-table row with its rank, rank source, steps, average step,
   verdict, share and overlap, and every file's path in full (on one line when it fits, else wrapped); one collective row per JSON collective;
 - html: nothing to fetch or run; the chart sections are `ranks` (one stacked bar per rank file, its tooltip giving
   the average step), and with communication kernels `overlap` (one bar per rank file with communication) and
   `collectives` (one stacked bar each); the tables hold the JSON's numbers (ranks, categories, stragglers,
   overlap, collectives), each verdict-groups row sums to the average step; the summary gives the straggler count
  , the verdicts per rank file and the mean overlap; loaded in headless Chromium with no console message at all.
usage: check_multirank_report.py PERFSCOPE OUTDIR FILE FILE..."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
from html_page_check import Page, check_sections, load_in_chromium  # noqa: E402

perfscope, outdir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(outdir, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: multirank: {msg}")


def run(fmt):
    out = os.path.join(outdir, f"multirank.{fmt}")
    p = subprocess.run([perfscope, "report", "--format", fmt, "-f", "-o", out, *files], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"--format {fmt} exited {p.returncode}: {p.stderr}")
        sys.exit(1)
    return open(out, encoding="utf-8").read()


def ms(ns):
    return f"{ns / 1e6:.3f}"


def pct(x, digits):
    return "-" if x is None else f"{100 * x:.{digits}f}"


def near(cell, x, digits):
    """A percentage cell printed with `digits` decimals from share x: within one unit of its last digit (the JSON
    keeps fewer digits of a share than the double the report rounded, so a ...5 may round either way)."""
    if x is None:
        return cell == "-"
    try:
        return abs(float(cell) - 100 * x) <= 10 ** -digits + 1e-9
    except ValueError:
        return False


report = json.loads(run("json"))
ranks = report["ranks"]
if len(ranks) != len(files):
    fail(f"{len(ranks)} JSON ranks for {len(files)} files")
labels = [str(k["rank"]) if k["launcher_ranks"] is None else f"launcher({k['launcher_ranks']})" for k in ranks]
# without GPU work the kernel verdict is the host's compute: "compute" in text and HTML (docs/report.md); the
# verdicts line counts with that name when no file has GPU work
shown = {id(k): "compute" if k["bottleneck"] == "kernel" and k["gpu_ops"] == 0 else k["bottleneck"] for k in ranks}
any_gpu = any(k["gpu_ops"] > 0 for k in ranks)

# ---- text ----
text = run("text")
lines = text.split("\n")
for i, line in enumerate(lines):
    if len(line) > 100:
        fail(f"text line {i + 1} is {len(line)} columns: {line[:60]}...")
for k, lab in zip(ranks, labels):
    row = (rf"^{re.escape(lab)} +{k['rank_from'] or '-'} +{k['steps']} +{ms(k['step_average']['dur_ns'])}"
           rf" +{shown[id(k)]} +(-|[0-9.]+)%? +(-|[0-9.]+)%?( |$)")
    found = [m for m in (re.match(row, l) for l in lines) if m]
    if not any(near(m.group(1), k["share"], 1) and near(m.group(2), k["comm_comp_overlap"], 2) for m in found):
        fail(f"no text ranks row for rank {lab} matching {row!r} with share {pct(k['share'], 1)} and overlap "
             f"{pct(k['comm_comp_overlap'], 2)}")
    if len(k["source"]) <= 98 and not any(l.strip() == k["source"] or l.endswith("  " + k["source"]) for l in lines):
        fail(f"the path {k['source']} is not in full on one text line")
    if k["source"] not in re.sub(r"\n +", "", text):   # a longer one wraps at 100 columns, never cut
        fail(f"the path {k['source']} is not in the text in full")
coll_rows = [l for l in lines if re.match(r"^\S+ +\d+ +\d+\.\d{3} +\d+\.\d{3} +\d+\.\d%", l)]
if len(coll_rows) != len(report["collectives"]):
    fail(f"{len(coll_rows)} text collective rows for {len(report['collectives'])} JSON collectives")

# ---- html ----
page = Page()
page.feed(run("html"))
charts = check_sections(page, fail)
with_comm = [k for k in ranks if k["comm_comp_overlap"] is not None or
             any(c["rank"] == k["rank"] for c in report["collectives"])]
want = ["ranks"] + (["overlap", "collectives"] if with_comm else [])
if [s["id"] for s in charts] != want:
    fail(f"HTML chart sections {[s['id'] for s in charts]}, want {want}")
by_id = {s["id"]: s for s in charts}
if "ranks" in by_id:
    bars = by_id["ranks"]["bars"]
    if len(bars) != len(ranks):
        fail(f"the ranks chart has {len(bars)} bars for {len(ranks)} rank files")
    for bar, k, lab in zip(bars, ranks, labels):   # the label's first word goes under the bar: the rank
        if not bar.startswith(f"{lab} {k['source']}: {ms(k['step_average']['dur_ns'])} ms"):
            fail(f"rank {lab}'s bar tooltip {bar!r} does not give its rank, file and average step")
for sid, kind in (("overlap", "hbars"), ("collectives", "bars")):
    if sid in by_id and len(by_id[sid][kind]) != len(with_comm):
        fail(f"the {sid} chart has {len(by_id[sid][kind])} bars for {len(with_comm)} ranks with communication")
    for bar, k in zip(by_id.get(sid, {}).get(kind, []), with_comm):
        lab = str(k["rank"]) if k["launcher_ranks"] is None else f"launcher({k['launcher_ranks']})"
        want = f"{lab} {k['source']}: " if kind == "bars" else f"rank {lab} ({k['source']}): "
        if not bar.startswith(want):
            fail(f"a bar of the {sid} chart is {bar!r}, want it to start with {want!r}")


def table(tid, nrows):
    rows = page.tables.get(tid)
    if rows is None:
        fail(f"no HTML table {tid}")
        return []
    if len(rows) - 1 != nrows:
        fail(f"HTML table {tid} has {len(rows) - 1} rows, want {nrows}")
    return [[c.strip() for c in r] for r in rows[1:]]


for r, k, lab in zip(table("ranks-table", len(ranks)), ranks, labels):
    want = [lab, k["rank_from"] or "-", str(k["steps"]), ms(k["step_average"]["dur_ns"]), shown[id(k)],
            pct(k["share"], 2), pct(k["comm_comp_overlap"], 2)]
    if (r[:5] != want[:5] or not near(r[5], k["share"], 2) or not near(r[6], k["comm_comp_overlap"], 2) or
            not r[7].startswith(k["source"])):
        fail(f"ranks-table row {r}, the JSON says {want + [k['source']]}")
for r, k in zip(table("categories-table", len(ranks)), ranks):
    want = [ms(v) for v in k["step_average"]["breakdown_ns"].values()] + [ms(k["step_average"]["sync_ns"])]
    if r[1:] != want:
        fail(f"categories-table row {r}, the JSON says {want}")
for r, k in zip(table("groups-table", len(ranks)), ranks):
    total = k["step_average"]["dur_ns"] / 1e6
    if r[1] != ms(k["step_average"]["dur_ns"]) or abs(sum(float(c) for c in r[2:]) - total) > 0.0005 * len(r):
        fail(f"groups-table row {r} does not sum to the average step {total:.3f} ms")
stragglers = report["stragglers"]
if stragglers:
    for r, g in zip(table("stragglers-table", len(stragglers)), stragglers):
        if not near(r[1], g["slower_by"], 1) or not r[3].startswith(g["source"]):
            fail(f"stragglers-table row {r}, the JSON says {g}")
elif "stragglers-table" in page.tables:
    fail("a stragglers table without stragglers")
if with_comm:
    for r, k in zip(table("overlap-table", len(with_comm)), with_comm):
        if not near(r[1], k["comm_comp_overlap"], 2):
            fail(f"overlap-table row {r}, the JSON says {k['comm_comp_overlap']}")
    for r, c in zip(table("collectives-table", len(report["collectives"])), report["collectives"]):
        want = [str(c["rank"]), str(c["count"]), ms(c["total_ns"]), ms(c["exposed_ns"])]
        bytes_cell = "-" if c["bytes"] is None else str(c["bytes"])
        algbw_cell = "-" if c["algbw_gbps"] is None else "%.3f" % c["algbw_gbps"]
        if r[:4] != want or r[5:8] != [bytes_cell, algbw_cell, c["kernel"]]:
            fail(f"collectives-table row {r}, the JSON says {want + [bytes_cell, algbw_cell, c['kernel']]}")
summary = open(os.path.join(outdir, "multirank.html"), encoding="utf-8").read()
for b in {k["bottleneck"] for k in ranks}:
    n = sum(k["bottleneck"] == b for k in ranks)
    name = "compute" if b == "kernel" and not any_gpu else b
    if f"<strong>{name}</strong> on {n} of {len(ranks)} rank files" not in summary:
        fail(f"the verdicts line does not say {b} on {n} of {len(ranks)} rank files")
if f"slower than the median rank's): {len(stragglers)}</li>" not in summary:
    fail(f"the summary does not count {len(stragglers)} stragglers")
if report["comm_comp_overlap"] is not None and not any(
        near(v, report["comm_comp_overlap"], 2) for v in re.findall(r": ([0-9.]+) %</li>", summary)):
    fail(f"the summary does not give the mean overlap {pct(report['comm_comp_overlap'], 2)} %")
load_in_chromium(os.path.join(outdir, "multirank.html"), os.path.join(outdir, "multirank.png"), fail)

print(f"{'FAIL' if failures else 'PASS'}: multirank: json, text, html checked ({len(ranks)} rank files, "
      f"{len(report['collectives'])} collectives, {len(stragglers)} stragglers; outputs in {outdir})")
sys.exit(1 if failures else 0)
