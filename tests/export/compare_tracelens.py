#!/usr/bin/env python3
"""Compare perfscope's `export --format tracelens` folders with TraceLens' published CSVs, row by row.

usage: compare_tracelens.py PERFSCOPE SHARED_TRACES_DIR WORK_DIR [-v]

For every trace folder SHARED/tracelens/NAME/ with a Kineto trace SHARED/kineto/NAME.pt.trace.json.gz, runs
`perfscope export TRACE --format tracelens -o WORK/NAME` and compares each published CSV the model covers with
TraceLens' own regression rule (TraceLens tests/test_perf_report_regression.py compare_cols, tol 1e-6): the same
columns in the same order, the same rows in the same order, cells that read as numbers within 1e-6 absolute,
every other cell (names, grouping keys, parameter tuples, kernel summaries) equal as text. Prints the number of
rows matched per CSV per trace and the published CSVs it does not cover, with why (none today). Exit 1 on any
difference, on a published CSV the export lacks, and on a CSV the export writes that TraceLens did not publish.
"""
import csv
import math
import os
import subprocess
import sys

TOL = 1e-6
COVERED = ["GEMM", "CONV_fwd", "CONV_bwd", "SDPA_fwd", "SDPA_bwd", "UnaryElementwise", "BinaryElementwise",
           "Normalization", "Reduce_fwd", "ops_summary", "ops_summary_by_category", "kernel_summary",
           "gpu_timeline", "unified_perf_summary", "ops_unique_args",
           "short_kernel_histogram", "short_kernels_summary"]
NOT_COVERED = {}   # name -> why, for a published CSV the export does not write


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def same(a, b):
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is None or y is None:
        return False
    if math.isnan(x) and math.isnan(y):
        return True
    return abs(x - y) < TOL


def compare(mine_path, ref_path, verbose):
    with open(ref_path, newline="", encoding="utf-8") as f:
        ref = list(csv.reader(f))
    with open(mine_path, newline="", encoding="utf-8") as f:
        mine = list(csv.reader(f))
    problems = []
    if mine[0] != ref[0]:
        problems.append(f"columns differ: mine {mine[0]} ref {ref[0]}")
        return 0, len(ref) - 1, problems
    matched = 0
    for i, row in enumerate(ref[1:]):
        if i + 1 >= len(mine):
            problems.append(f"row {i}: missing")
            continue
        bad = [c for c, a, b in zip(ref[0], mine[i + 1], row) if not same(a, b)]
        if not bad and len(mine[i + 1]) == len(row):
            matched += 1
        elif verbose or len(problems) < 5:
            c = bad[0] if bad else "(length)"
            k = ref[0].index(c) if bad else 0
            problems.append(f"row {i} ({row[0][:40]}) {c}: mine {mine[i + 1][k][:120]!r} ref {row[k][:120]!r}")
    if len(mine) > len(ref):
        problems.append(f"{len(mine) - len(ref)} extra rows")
    return matched, len(ref) - 1, problems


def main(argv):
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    perfscope, shared, work = argv[1], argv[2], argv[3]
    failed = False
    names = sorted(d for d in os.listdir(os.path.join(shared, "tracelens"))
                   if os.path.isdir(os.path.join(shared, "tracelens", d)))
    for name in names:
        trace = os.path.join(shared, "kineto", name + ".pt.trace.json.gz")
        if not os.path.exists(trace):
            print(f"{name}: no Kineto trace {trace}: skipped")
            continue
        out = os.path.join(work, name)
        os.makedirs(work, exist_ok=True)
        r = subprocess.run([perfscope, "export", trace, "--format", "tracelens", "-o", out, "-f"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: export failed ({r.returncode}): {r.stderr.strip()}")
            failed = True
            continue
        refdir = os.path.join(shared, "tracelens", name)
        for csv_name in sorted(os.listdir(refdir)):
            base = csv_name[:-4]
            if base in NOT_COVERED:
                print(f"{name:32} {base:28} not covered: {NOT_COVERED[base]}")
                continue
            mine = os.path.join(out, csv_name)
            if not os.path.exists(mine):
                print(f"{name:32} {base:28} MISSING in the export")
                failed = True
                continue
            m, n, problems = compare(mine, os.path.join(refdir, csv_name), verbose)
            print(f"{name:32} {base:28} {m}/{n} rows match")
            for p in problems:
                print("    " + p)
            failed |= m != n or bool(problems)
        for csv_name in sorted(os.listdir(out)):
            if not os.path.exists(os.path.join(refdir, csv_name)):
                print(f"{name:32} {csv_name[:-4]:28} written, TraceLens published none: EXTRA")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
