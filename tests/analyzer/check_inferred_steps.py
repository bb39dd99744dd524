#!/usr/bin/env python3
"""Steps inferred without markers against the ground truth of generated traces (gen_unmarked_steps.py): for each
seed, `perfscope report --format json` on the trace must infer one step per steady iteration (16; the warm-up and
its autotuning iteration are no step), each step's window must start within 1 % of the mean true period of the
generator's truth, and the note must say what came before the first step.
usage: check_inferred_steps.py PERFSCOPE WORKDIR FORMAT VARIANT [SEEDS]   (SEEDS: 5)
Prints each seed's largest boundary error as a share of the period."""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
perfscope, work, fmt, variant = sys.argv[1:5]
seeds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
os.makedirs(work, exist_ok=True)
failures, worst = [], 0.0
for seed in range(1, seeds + 1):
    name = f"{fmt}_{variant}_{seed}"
    trace = os.path.join(work, name + (".json" if fmt == "kineto" else ".sqlite"))
    truth_path = os.path.join(work, name + ".truth.json")
    subprocess.run([sys.executable, os.path.join(here, "gen_unmarked_steps.py"), fmt, variant, str(seed), trace,
                    truth_path], check=True)
    truth = json.load(open(truth_path))
    p = subprocess.run([perfscope, "report", "--format", "json", trace], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{name}: exit {p.returncode}: {p.stderr.strip()}")
        continue
    rep = json.loads(p.stdout)
    run, steps, want = rep["run"], rep["steps"], truth["steps"]
    period = truth["mean_period_ns"]
    if run["steps_source"] != "inferred":
        failures.append(f"{name}: steps_source {run['steps_source']}: {run['step_inference']}")
        continue
    note = run["step_inference"]["note"]
    if run["step_inference"]["period_ops"] != truth["period_ops"]:
        failures.append(f"{name}: period {run['step_inference']['period_ops']} operations, "
                        f"{truth['period_ops']} expected")
    if len(steps) != len(want):
        failures.append(f"{name}: {len(steps)} steps, {len(want)} expected (the warm-up is no step)")
    if "is warm-up, in no step" not in note:
        failures.append(f"{name}: the note does not say what came before the first step: {note}")
    err = 0.0
    for i, s in enumerate(steps):   # each inferred step against the nearest true one
        k = min(range(len(want)), key=lambda k: abs(want[k]["start_ns"] - s["start_ns"]))
        e = abs(s["start_ns"] - want[k]["start_ns"]) / period
        err = max(err, e)
        if e > 0.01 or k != i:
            failures.append(f"{name}: step {i} starts at {s['start_ns']}, true step {k} at {want[k]['start_ns']}: "
                            f"{100 * e:.3f} % of the period ({period / 1e6:.3f} ms)")
    worst = max(worst, err)
    print(f"{name}: {len(steps)} steps of {len(want)}, largest boundary error {100 * err:.4f} % of the period "
          f"({period / 1e6:.3f} ms)")
print(f"{fmt} {variant}: largest boundary error over {seeds} seeds {100 * worst:.4f} % of the period")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
